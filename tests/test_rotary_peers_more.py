"""More real rotary implementations through the rotary oracle, run as their users run them:
litgpt's ``build_rope_cache`` (plain, ``condense_ratio``, Llama 3.1, in float32 and stored in
bfloat16), mlx's ``nn.RoPE`` (``traditional`` True/False, ``scale``) applied to unit vectors,
transformers' Cohere (interleaved) and Phi (odd rotary dimension 25 in 26 channels) rotary
modules and its ``proportional`` rope type (the last pairs unrotated).  Each must be identified
and never called wrong.
"""

import math

import pytest

from peproof.oracle import CONFORMS, WITHIN
from peproof.oracle.rotary.check import check_rotary

pytestmark = pytest.mark.peers
OK = (CONFORMS, WITHIN)


@pytest.mark.parametrize("extra,cr,want,d", [
    (None, 1, "default", 128), (None, 4, "linear", 128),
    ({"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_seq_len": 8192}, 1, "llama3", 128),
    # d = 64, original 2048: in bfloat16 the blend's pairs are read to ~1e-3, and a search
    # needing 1e-4 named low/high_freq_factor 408/5, 1633/5 and then called the cache wrong
    ({"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_seq_len": 2048}, 1, "llama3", 64)])
def test_litgpt_build_rope_cache(extra, cr, want, d):
    torch = pytest.importorskip("torch")
    litgpt_model = pytest.importorskip("litgpt.model")
    n = 16384 if extra and d == 128 else 4096
    base = 500000 if d == 128 else 10000
    cos, sin = litgpt_model.build_rope_cache(n, d, base=base, condense_ratio=cr,
                                             extra_config=extra)[:2]
    for c, s in ((cos, sin), (cos.to(torch.bfloat16), sin.to(torch.bfloat16))):
        rep = check_rotary(cos=c, sin=s, pipeline_dtype="float32")
        assert rep.verdict in OK and rep.identified.scaling.kind == want, rep.render()
        assert rep.identified._base == base and rep.layout == "half"
        if want == "llama3":  # read from the tail of a bfloat16 cache too
            assert rep.identified.scaling.factor == 8
        if want == "linear":
            assert rep.identified.scaling.factor == 4


@pytest.mark.parametrize("traditional", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_mlx_rope(traditional, dtype):
    mx = pytest.importorskip("mlx.core")
    nn = pytest.importorskip("mlx.nn")
    import numpy as np
    torch = pytest.importorskip("torch")

    d, n = 64, 2048
    rope = nn.RoPE(d, traditional=traditional, base=10000, scale=0.25)
    x = np.zeros((1, n, d), np.float32)
    if traditional:  # pairs (2i, 2i+1): (1, 0) -> (cos, sin)
        x[..., 0::2] = 1
    else:  # pairs (i, i + d/2)
        x[..., : d // 2] = 1
    out = np.array(rope(mx.array(x).astype(getattr(mx, dtype))).astype(mx.float32))[0]
    c, s = (out[:, 0::2], out[:, 1::2]) if traditional else (out[:, : d // 2], out[:, d // 2:])
    tdt = getattr(torch, dtype)
    rep = check_rotary(cos=torch.tensor(c).to(tdt), sin=torch.tensor(s).to(tdt),
                       pipeline_dtype="float32")
    assert rep.verdict in OK, rep.render()
    assert rep.identified.scaling.kind == "linear" and rep.identified.scaling.factor == 4
    assert rep.identified._base == 10000


def _hf_module(model, cls, n=2048, **kw):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import importlib

    kw = {"hidden_size": 256, **kw}
    cfg = getattr(transformers, f"{cls}Config")(num_attention_heads=4, **kw)
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    emb = getattr(mod, f"{cls}RotaryEmbedding")(cfg)
    cos, sin = emb(torch.zeros(1, n, 8), torch.arange(n)[None])
    return cfg, emb, cos, sin


def test_cohere_interleaved_against_its_config():
    """A rope_parameters dict says nothing of the layout: Cohere's interleaved cache meets it."""
    cfg, emb, cos, sin = _hf_module("cohere", "Cohere")
    rep = check_rotary(cos=cos, sin=sin, expect=cfg.rope_parameters)
    assert rep.verdict in OK and rep.layout == "interleaved", rep.render()
    asked = check_rotary(cos=cos, sin=sin, expect=cfg.rope_parameters, layout="half")
    assert asked.verdict == "different variant", asked.render()  # compared when asked


def test_phi_odd_rotary_dimension():
    """Phi rotates int(64 * 0.4) = 25 channels' frequencies (base**(-2j/25)) in 26 columns."""
    cfg, emb, cos, sin = _hf_module("phi", "Phi", partial_rotary_factor=0.4)
    for art in ({"cos": cos, "sin": sin}, {"inv_freq": emb.inv_freq}):
        blind = check_rotary(**art)
        assert blind.verdict in OK and blind.identified._base == 10000, blind.render()
        assert blind.identified.exponent_dim == 25
        rep = check_rotary(**art, expect=cfg.rope_parameters)
        assert rep.verdict in OK, rep.render()
        full = check_rotary(**art, expect=dict(cfg.rope_parameters, head_dim=64))
        assert full.verdict in OK, full.render()
        # a head of 65 would rotate 26: the exponent 26 is then expected, and 25 is another RoPE
        other = check_rotary(**art, expect=dict(cfg.rope_parameters, head_dim=65))
        assert other.verdict == "different variant", other.render()


@pytest.mark.parametrize("prf", [0.25, 0.5])
def test_proportional_partial_rotary(prf):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    if "proportional" not in ROPE_INIT_FUNCTIONS:
        pytest.skip("this transformers has no proportional rope type")
    rp = {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": prf}
    cfg = transformers.LlamaConfig(hidden_size=256, num_attention_heads=4, head_dim=64,
                                   rope_parameters=rp)
    inv, _ = ROPE_INIT_FUNCTIONS["proportional"](cfg, "cpu")
    k = int(prf * 64 // 2)
    for rep in (check_rotary(inv_freq=inv), check_rotary(inv_freq=inv, expect=rp)):
        assert rep.verdict in OK, rep.render()
        assert rep.identified.rotated_pairs == k and rep.identified._base == 10000
    t = torch.outer(torch.arange(2048, dtype=torch.float32), inv)
    emb = torch.cat([t, t], -1)  # as LlamaRotaryEmbedding builds its cache
    rep = check_rotary(cos=emb.cos(), sin=emb.sin(), expect=rp)
    assert rep.verdict in OK and rep.identified.rotated_pairs == k, rep.render()
    # one unrotated pair given a small angle is no longer this RoPE
    bad = inv.clone()
    bad[k] = 1e-3
    assert not check_rotary(inv_freq=bad, expect=rp).ok


def test_litgpt_yarn_ramp_is_reversed():
    """litgpt 0.5.13's YaRN keeps the low frequencies and interpolates the high ones (its ramp
    0 selects the interpolation at the first pairs), and without mscale its amplitude is 1: a
    real bug, named against the YaRN it was configured as; never identified as YaRN."""
    litgpt_model = pytest.importorskip("litgpt.model")
    cos, sin = litgpt_model.build_rope_cache(
        4096, 64, base=10000,
        extra_config={"factor": 4.0, "beta_fast": 32.0, "beta_slow": 1.0,
                      "original_max_seq_len": 2048})[:2]
    if abs(float(cos[1, 0]) - math.cos(1.0)) < 1e-3:  # pair 0 unscaled: a fixed litgpt
        pytest.skip("this litgpt keeps the highest frequency: its ramp is not reversed")
    blind = check_rotary(cos=cos, sin=sin)
    assert not blind.ok and blind.verdict != "wrong", blind.render()
    rep = check_rotary(cos=cos, sin=sin, max_position_embeddings=8192,
                       expect={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                               "original_max_position_embeddings": 2048})
    assert rep.verdict == "wrong" and rep.diagnoses[0].startswith("the blend reversed"), \
        rep.render()
    assert "attention factor is missing" in rep.diagnoses[0]


def test_phi3_longrope_module():
    """transformers' Phi-3 rotary module with longrope scaling: checked exactly against its
    config on both sides of the switch; from the cache alone with the base, its factors are
    read (the long set past the original length) and said not checkable."""
    pytest.importorskip("torch")
    short = [1.0 + 0.02 * j for j in range(48)]
    long_ = [1.0 + 0.5 * j for j in range(48)]
    rp = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": short,
          "long_factor": long_, "original_max_position_embeddings": 4096}
    for n, factors in ((4096, short), (8192, long_)):
        cfg, emb, cos, sin = _hf_module("phi3", "Phi3", n=n, max_position_embeddings=131072,
                                        original_max_position_embeddings=4096,
                                        rope_parameters=rp, hidden_size=384)
        rep = check_rotary(cos=cos, sin=sin, expect=rp, max_position_embeddings=131072)
        assert rep.verdict in OK, rep.render()
        read = check_rotary(cos=cos, sin=sin, base=10000)
        assert read.diagnoses[0].startswith("identified: LongRoPE-like"), read.render()
        assert all(abs(a / b - 1) < 1e-3 for a, b in zip(read.implied["factors"], factors,
                                                          strict=True))


@pytest.mark.parametrize("d,base,orig", [(64, 10000.0, 8192), (128, 500000.0, 2048)])
def test_llama3_factor_32_bfloat16_cache_blind(d, base, orig):
    """Llama 3.2's factor 32 from a bfloat16 cache with no expectation: the scaled tail reads
    [~29.6, ~34] and the simplest number there (30) does not fit the cache; every simple factor
    is tried against the whole cache (before: 'wrong', factor 30 or 31)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rp = {"rope_type": "llama3", "rope_theta": base, "factor": 32.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": orig}
    cfg = transformers.LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d,
                                   max_position_embeddings=65536, rope_parameters=rp)
    inv, _ = ROPE_INIT_FUNCTIONS["llama3"](cfg, "cpu")
    t = torch.outer(torch.arange(8192, dtype=torch.float32), inv)
    emb = torch.cat([t, t], -1)
    rep = check_rotary(cos=emb.cos().bfloat16(), sin=emb.sin().bfloat16(),
                       pipeline_dtype="float32")
    assert rep.verdict in OK, rep.render()
    sc = rep.identified.scaling
    assert sc.kind == "llama3" and sc.factor == 32 and sc.original_max_position_embeddings == orig


def test_yarn_bfloat16_cache_blind_edges():
    """YaRN (d 128, factor 16, original 4096: ramp over pairs 20..46) from a bfloat16 cache
    with no expectation: pair 45, read to ~5 %, looks fully scaled; the ramp's edges one pair
    inward are tried (before: 'outside the model')."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    rp = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 16.0,
          "original_max_position_embeddings": 4096}
    cfg = transformers.LlamaConfig(hidden_size=256, num_attention_heads=2, head_dim=128,
                                   max_position_embeddings=65536, rope_parameters=rp)
    emb = LlamaRotaryEmbedding(cfg)
    cos, sin = emb(torch.zeros(1, 8192, 8, dtype=torch.bfloat16), torch.arange(8192)[None])
    rep = check_rotary(cos=cos, sin=sin, pipeline_dtype="float32")
    assert rep.verdict in OK, rep.render()
    sc = rep.identified.scaling
    assert (sc.kind, sc.factor, sc.original_max_position_embeddings) == ("yarn", 16, 4096)
