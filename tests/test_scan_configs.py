"""The scan reads a model's RoPE with the oracle's reader (``rope_parameters_of``), so every
configuration the oracle reads as transformers reads it is read so by the scan too: Phi-3's
top-level ``original_max_position_embeddings``, Gemma 3's legacy ``rope_local_base_freq``, a
``rotary_dim`` outside GPT-J (MiniMax-M2), the ``attribute_map`` spellings of GPT-J.  Each model
test builds the buffer with transformers' own rotary module from the very ``config.json`` the
scan reads (as the Hub holds it), and a falsifier config under which the same buffer fails.

Before the scan used the oracle's reader it had its own copy, which read none of the first
three: Phi-3's cache and Gemma 3's sliding-window ``inv_freq`` were called wrong, MiniMax's
``inv_freq`` a contradiction of the config.
"""

import copy
import json

import numpy as np
import pytest

from peproof.oracle import rope_parameters_of
from peproof.scan import scan
from peproof.scan.config import rope_expectations
from peproof.scan.detect import CACHE, INV_FREQ

CONFIGS = [
    {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 5e5,
     "max_position_embeddings": 256,
     "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                      "high_freq_factor": 4.0, "original_max_position_embeddings": 64}},
    {"model_type": "gpt_neox", "hidden_size": 256, "num_attention_heads": 4, "rotary_pct": 0.25,
     "rotary_emb_base": 10000},
    {"model_type": "gptj", "n_embd": 256, "n_head": 4, "rotary_dim": 16, "n_positions": 128},
    {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
     "rope_theta": 1e6, "rope_local_base_freq": 1e4,
     "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
    {"model_type": "llava", "text_config": {"model_type": "llama", "hidden_size": 64,
                                            "num_attention_heads": 4, "rope_theta": 1e4},
     "vision_config": {"hidden_size": 32}},
]


def _flat(rp: dict) -> list[dict]:
    sets = rp.values() if all(isinstance(v, dict) for v in rp.values()) else [rp]
    out = []
    for p in sets:
        p = dict(p)
        p.setdefault("rope_type", p.pop("type", "default"))
        out.append(p)
    return out


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c["model_type"])
def test_the_scan_reads_the_rope_as_the_oracle_does(cfg):
    """One reader: the scan's settings are the oracle's ``rope_parameters_of``, setting by
    setting."""
    assert [e.params for e in rope_expectations(cfg)] == _flat(rope_parameters_of(cfg))


def test_legacy_names_and_per_layer_type_keys_are_read():
    gptj = _flat(rope_parameters_of(CONFIGS[2]))[0]
    assert (gptj["num_attention_heads"], gptj["hidden_size"], gptj["rotary_dim"],
            gptj["max_position_embeddings"]) == (4, 256, 16, 128)
    [e] = rope_expectations(CONFIGS[2])
    assert e.frequencies == 8 and e.max_position_embeddings == 128 and e.why == "rotary_dim 16"
    gemma = rope_parameters_of(CONFIGS[3])
    assert gemma["full_attention"]["rope_type"] == "linear"
    assert gemma["full_attention"]["rope_theta"] == 1e6
    assert gemma["sliding_attention"] == {**gemma["sliding_attention"], "rope_type": "default",
                                          "rope_theta": 1e4}
    assert rope_parameters_of(CONFIGS[4])["rope_theta"] == 1e4  # the text model's part


# ----------------------------------------------------------------------------- real models
def _model(tmp_path, name, cfg, tensors):
    import torch
    from safetensors.torch import save_file

    d = tmp_path / name
    d.mkdir()
    w = torch.randn(64, 64, generator=torch.Generator().manual_seed(0)) * 0.02
    save_file({**{k: v.detach().contiguous() for k, v in tensors.items()}, "layers.0.w": w},
              str(d / "model.safetensors"))
    (d / "config.json").write_text(json.dumps(cfg))
    return d


def _config(cls_name, cfg):
    """transformers' config object built from (a copy of) the config.json dict."""
    tr = pytest.importorskip("transformers")
    tr.logging.set_verbosity_error()
    return getattr(tr, cls_name)(**{k: v for k, v in copy.deepcopy(cfg).items()
                                    if k != "model_type"})


PHI3 = {"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4,
        "num_key_value_heads": 4, "intermediate_size": 64, "num_hidden_layers": 1,
        "vocab_size": 100, "max_position_embeddings": 256,
        "original_max_position_embeddings": 64, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope", "short_factor": [1.0 + 0.1 * i for i in range(8)],
                         "long_factor": [1.0 + 0.5 * i for i in range(8)]}}


@pytest.mark.peers
def test_phi3_longrope_cache_with_the_top_level_original_length(tmp_path):
    """Phi-3's config.json gives ``original_max_position_embeddings`` at the top level, not in
    ``rope_scaling``: the cache beyond it uses the long factors and the attention factor
    ``sqrt(1 + ln 4 / ln 64)``.  The reader that ignored it took 256 for the original length
    (factor 1) and called the cache outside the model."""
    torch = pytest.importorskip("torch")
    from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

    emb = Phi3RotaryEmbedding(_config("Phi3Config", PHI3))
    cos, sin = emb(torch.zeros(1, 256, 16), torch.arange(256)[None])
    assert abs(float(cos[0, 0, 0]) - np.sqrt(1 + np.log(4) / np.log(64))) < 1e-6
    ts = {"model.rotary_emb.cos_cached": cos[0], "model.rotary_emb.sin_cached": sin[0]}
    rep = scan(str(_model(tmp_path, "ok", PHI3, ts)))
    assert rep.ok and [j.found.kind for j in rep.judged] == [CACHE], rep.render()
    assert "original_max_position_embeddings=64" in rep.judged[0].passes_as
    # falsifier: the same cache under a config whose original length is 128
    rep = scan(str(_model(tmp_path, "bad", {**PHI3, "original_max_position_embeddings": 128},
                          ts)))
    assert not rep.ok


GEMMA3 = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4,
          "head_dim": 16, "num_key_value_heads": 1, "intermediate_size": 64,
          "num_hidden_layers": 6, "vocab_size": 100, "max_position_embeddings": 512,
          "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
          "rope_scaling": {"rope_type": "linear", "factor": 8.0}}


@pytest.mark.peers
def test_gemma3_legacy_local_base(tmp_path):
    """Gemma 3's config.json before transformers 5: ``rope_theta`` and ``rope_scaling`` for the
    full-attention layers, ``rope_local_base_freq`` for the sliding ones.  Both inv_freq
    vectors of transformers' Gemma3RotaryEmbedding pass; the reader that ignored the local base
    expected base 10^6 with linear factor 8 of both."""
    pytest.importorskip("torch")
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding

    emb = Gemma3RotaryEmbedding(_config("Gemma3TextConfig", GEMMA3))
    ts = {f"model.rotary_emb.{n}": b for n, b in emb.named_buffers()
          if n.endswith("_inv_freq") and "original" not in n}
    assert len(ts) == 2
    rep = scan(str(_model(tmp_path, "ok", GEMMA3, ts)))
    assert rep.ok and [j.found.kind for j in rep.judged] == [INV_FREQ] * 2, rep.render()
    rep = scan(str(_model(tmp_path, "bad", {**GEMMA3, "rope_local_base_freq": 20000.0}, ts)))
    assert [j.found.names for j in rep.failing] == [["model.rotary_emb.sliding_attention_inv_freq"]]


MINIMAX = {"model_type": "minimax_m2", "hidden_size": 64, "num_attention_heads": 4,
           "head_dim": 32, "rotary_dim": 16, "num_key_value_heads": 1, "intermediate_size": 64,
           "num_hidden_layers": 1, "vocab_size": 100, "max_position_embeddings": 512,
           "rope_theta": 5000000.0}


@pytest.mark.peers
def test_rotary_dim_outside_gptj(tmp_path):
    """MiniMax-M2's config gives its partial rotary as ``rotary_dim`` (16 of a 32-wide head):
    8 frequencies.  The reader that read ``rotary_dim`` for GPT-J and CodeGen only called the
    buffer a contradiction of the config (16 implied)."""
    pytest.importorskip("torch")
    from transformers.models.minimax_m2.modeling_minimax_m2 import MiniMaxM2RotaryEmbedding

    emb = MiniMaxM2RotaryEmbedding(_config("MiniMaxM2Config", MINIMAX))
    ts = {"model.rotary_emb.inv_freq": emb.inv_freq}
    assert emb.inv_freq.numel() == 8
    rep = scan(str(_model(tmp_path, "ok", MINIMAX, ts)))
    assert rep.ok and [j.found.kind for j in rep.judged] == [INV_FREQ], rep.render()
    rep = scan(str(_model(tmp_path, "bad", {**MINIMAX, "rotary_dim": 32}, ts)))
    assert [j.verdict for j in rep.failing] == ["contradicts the config"]


@pytest.mark.peers
def test_a_hyphenated_model_type_and_a_multimodal_config(tmp_path):
    """Kosmos-2's config says ``model_type: kosmos-2`` (the catalogue keys it ``kosmos2``) and
    keeps its text model's sizes in ``text_config``: its fairseq-style text table is expected
    (h-1, [sin|cos], padding row), so a copy with the halves swapped fails.  Before, the spelling
    missed the catalogue and the swapped table passed as a [cos|sin] variant."""
    tr = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file, save_file

    tr.logging.set_verbosity_error()
    torch.manual_seed(0)
    m = tr.Kosmos2Model(tr.Kosmos2Config(
        text_config={"vocab_size": 100, "embed_dim": 64, "layers": 1, "attention_heads": 4,
                     "ffn_dim": 64, "max_position_embeddings": 256},
        vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "intermediate_size": 32, "image_size": 32, "patch_size": 16},
        latent_query_num=4))
    name = "text_model.model.embed_positions.weights"
    table = dict(m.named_buffers())[name]
    for label, t in (("ok", table), ("swapped", torch.cat([table[:, 32:], table[:, :32]], 1))):
        d = tmp_path / label
        m.save_pretrained(d)
        sd = load_file(str(d / "model.safetensors"))
        sd[name] = t.contiguous()
        save_file(sd, str(d / "model.safetensors"), metadata={"format": "pt"})
        rep = scan(str(d))
        j = next(j for j in rep.judged if j.found.names == [name])
        assert "Kosmos2TextSinusoidalPositionalEmbedding" in j.expected, rep.render()
        assert j.ok == (label == "ok") and rep.ok == (label == "ok"), rep.render()
        if label == "swapped":
            assert "[cos|sin]" in j.headline
