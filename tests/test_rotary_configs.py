"""Every RoPE configuration transformers accepts is accepted by the rotary oracle and modelled
as transformers computes it (issue 20: Llama 4 Scout's rope scaling, low_freq_factor 1 =
high_freq_factor 1, ended in exit 2).

transformers only warns about a factor below 1, beta_fast < beta_slow, equal betas, low >=
high_freq_factor; it raises on missing required keys.  Each configuration below is computed by
transformers' own init function; its inv_freq must be within the error model of the
configuration read by peproof, and must NOT fit a neighbouring configuration (the check can
fail)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from peproof.oracle import CONFORMS, WITHIN
from peproof.oracle.rotary.check import check_rotary
from peproof.oracle.rotary.config import rope_parameters_of

pytestmark = pytest.mark.peers
OK = (CONFORMS, WITHIN)
HEAD = 128
MPE = 131072

SCOUT = {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
         "original_max_position_embeddings": 8192, "rope_theta": 500000.0}
# (configuration, a neighbour that must not fit)
CASES = [
    (SCOUT, dict(SCOUT, high_freq_factor=4.0)),
    (dict(SCOUT, low_freq_factor=4.0, high_freq_factor=1.0, factor=8.0),
     dict(SCOUT, low_freq_factor=1.0, high_freq_factor=4.0, factor=8.0)),
    (dict(SCOUT, factor=1.0, high_freq_factor=4.0), dict(SCOUT, factor=2.0, high_freq_factor=4.0)),
    ({"rope_type": "linear", "factor": 1.0, "rope_theta": 10000.0},
     {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}),
    ({"rope_type": "linear", "factor": 0.5, "rope_theta": 10000.0},
     {"rope_type": "linear", "factor": 1.0, "rope_theta": 10000.0}),
    ({"rope_type": "yarn", "factor": 4.0, "beta_fast": 1.0, "beta_slow": 32.0,
      "original_max_position_embeddings": 4096, "rope_theta": 10000.0},
     {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
      "rope_theta": 10000.0}),
    ({"rope_type": "yarn", "factor": 4.0, "beta_fast": 8.0, "beta_slow": 8.0,
      "original_max_position_embeddings": 4096, "rope_theta": 10000.0},
     {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
      "rope_theta": 10000.0}),
    ({"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
      "rope_theta": 10000.0},
     {"type": "yarn", "factor": 2.0, "original_max_position_embeddings": 4096,
      "rope_theta": 10000.0}),
    # original_max_position_embeddings missing: transformers takes max_position_embeddings
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "rope_theta": 500000.0},
     {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192, "rope_theta": 500000.0}),
]


def _hf(rp):
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = transformers.LlamaConfig(hidden_size=2 * HEAD, num_attention_heads=2, head_dim=HEAD,
                                   max_position_embeddings=MPE, rope_parameters=dict(rp))
    kind = rp.get("rope_type", rp.get("type"))
    inv, att = ROPE_INIT_FUNCTIONS[kind](cfg, "cpu")
    return inv.double().numpy().astype(np.float32), att


@pytest.mark.parametrize("rp,other", CASES, ids=[str(i) for i in range(len(CASES))])
def test_config_transformers_accepts_is_modelled_as_it_computes(rp, other):
    inv, _ = _hf(rp)
    rep = check_rotary(inv_freq=inv, expect=rp, max_position_embeddings=MPE)
    assert rep.verdict in OK, rep.render()
    bad = check_rotary(inv_freq=inv, expect=other, max_position_embeddings=MPE)
    assert bad.verdict not in OK, bad.render()


def test_llama4_scout_config_json_on_the_command_line(tmp_path):
    """The whole config.json of Llama 4 Scout's text model (its RoPE keys): exit 0, not 2."""
    inv, _ = _hf(SCOUT)
    np.save(tmp_path / "inv.npy", inv)
    cfg = {"model_type": "llama4_text", "head_dim": HEAD, "hidden_size": 5120,
           "num_attention_heads": 40, "max_position_embeddings": 10485760,
           "rope_theta": 500000.0, "rope_scaling": {k: v for k, v in SCOUT.items()
                                                    if k != "rope_theta"}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = subprocess.run([sys.executable, "-m", "peproof.cli", "check", str(tmp_path / "inv.npy"),
                        "--rope", str(tmp_path / "config.json")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "high_freq_factor=1" in r.stdout


def test_config_json_top_level_keys_are_carried():
    """transformers' standardisation: top-level rope_theta / partial_rotary_factor (or GPT-NeoX's
    rotary_pct / rotary_emb_base) and Phi-3's top-level original length go into the RoPE."""
    rp = rope_parameters_of({"rotary_pct": 0.25, "rotary_emb_base": 10000, "hidden_size": 256,
                             "num_attention_heads": 4})
    assert rp["partial_rotary_factor"] == 0.25 and rp["rope_theta"] == 10000
    assert rp["rope_type"] == "default" and rp["hidden_size"] == 256
    rp = rope_parameters_of({"original_max_position_embeddings": 4096,
                             "rope_scaling": {"type": "longrope", "short_factor": [1],
                                              "long_factor": [2],
                                              "original_max_position_embeddings": 2048}})
    assert rp["original_max_position_embeddings"] == 4096
    nested = rope_parameters_of({"rope_theta": 1e6, "rope_parameters": {
        "full_attention": {"rope_type": "default", "rope_theta": 1e6},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})
    assert nested["sliding_attention"]["rope_theta"] == 10000.0


def test_partial_rotary_from_hidden_size_and_heads():
    """partial_rotary_factor with the head's size given as hidden_size / num_attention_heads
    (no head_dim): Phi's int(64 * 0.4) = 25 channels' frequencies in 26 columns."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    from transformers.models.phi.modeling_phi import PhiRotaryEmbedding

    cfg = transformers.PhiConfig(hidden_size=256, num_attention_heads=4, partial_rotary_factor=0.4)
    emb = PhiRotaryEmbedding(cfg)
    rp = rope_parameters_of(cfg.to_dict())
    rep = check_rotary(inv_freq=emb.inv_freq, expect=rp)
    assert rep.verdict in OK and rep.expected.exponent_dim == 25, rep.render()
    other = check_rotary(inv_freq=emb.inv_freq, expect=dict(rp, hidden_size=260))  # head 65
    assert other.verdict not in OK, other.render()


def test_nested_rope_parameters_per_layer_type():
    """Gemma 3's rope_parameters per layer type (full attention theta 1e6, sliding 1e4): a cache
    of either layer is checked against the layer type it fits, and named."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding

    cfg = transformers.AutoConfig.for_model("gemma3_text", hidden_size=256, num_attention_heads=4,
                                            num_key_value_heads=4, head_dim=64)
    emb = Gemma3RotaryEmbedding(cfg)
    rp = rope_parameters_of(cfg.to_dict())
    assert set(rp) >= {"full_attention", "sliding_attention"}
    for layer, theta in (("full_attention", 1e6), ("sliding_attention", 1e4)):
        assert rp[layer]["rope_theta"] == theta
        cos, sin = emb(torch.zeros(1, 1024, 8), torch.arange(1024)[None], layer)
        rep = check_rotary(cos=cos, sin=sin, expect=rp)
        assert rep.verdict in OK and repr(layer) in rep.notes[0], rep.render()
        bad = check_rotary(cos=cos, sin=sin, expect={k: dict(v, rope_theta=5e5)
                                                     for k, v in rp.items()})
        assert bad.verdict not in OK, bad.render()


@pytest.mark.parametrize("art", ["inv_freq", "cache float32", "cache bfloat16"])
def test_llama3_step_identified_blind(art):
    """A Llama 4 Scout-like step (low = high_freq_factor = 1) read without its configuration is
    named Llama 3 with a step, not a YaRN ramp with unusual betas nor outside the model."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    rp = dict(SCOUT, original_max_position_embeddings=2048)
    cfg = transformers.LlamaConfig(hidden_size=128, num_attention_heads=2, head_dim=64,
                                   max_position_embeddings=8192, rope_parameters=dict(rp))
    emb = LlamaRotaryEmbedding(cfg)
    if art == "inv_freq":
        rep = check_rotary(inv_freq=emb.inv_freq)
    else:
        dt = getattr(torch, art.split()[1])
        cos, sin = emb(torch.zeros(1, 2048, 8, dtype=dt), torch.arange(2048)[None])
        rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict in OK, rep.render()
    sc = rep.identified.scaling
    assert sc.kind == "llama3" and sc.factor == 16, rep.render()
    assert sc.low_freq_factor == sc.high_freq_factor == 1
    assert sc.original_max_position_embeddings == 2048
