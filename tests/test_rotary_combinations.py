"""Every combination of partial rotary, scaling map, position scale and position offset is a
variant identified blind (issue 20: 'scaled rotary caches read as outside the model').

The frequencies come from transformers' own init functions (default, linear, dynamic NTK,
YaRN, Llama 3, with partial_rotary_factor); the cache is built as a library builds it, in
float32, from positions ``offset + scale * k`` (mlx's ``scale`` and ``offset``; a KV-cache
slice), then stored in float32 or bfloat16.  Blind, the oracle must name the map (a position
scale of a plain map is its linear factor; a dynamic NTK without its base is a non-round base)
and the offset; with one row shifted, a channel of another pair, or cos and sin swapped, it must
fail.  On the oracle before issue 20 (checked) 36 of these 53 tests fail; on the commit before
this file, 7 (a factor read from a blend pair, a non-round base held to one row's reading)."""

import itertools

import pytest

from peproof.oracle import CONFORMS, WITHIN
from peproof.oracle.rotary.check import check_rotary

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.peers
OK = (CONFORMS, WITHIN)
HEAD, N = 64, 4096
TYPES = {"default": {}, "linear": {"factor": 2.0},
         "yarn": {"factor": 4.0, "original_max_position_embeddings": 2048},
         "llama3": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 2048},
         "dynamic": {"factor": 2.0}}
SEQ = {"dynamic": 16384}


def _inv(rt, prf):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    rp = {"rope_type": rt, "rope_theta": 10000.0, "partial_rotary_factor": prf, **TYPES[rt]}
    cfg = transformers.LlamaConfig(hidden_size=2 * HEAD, num_attention_heads=2, head_dim=HEAD,
                                   max_position_embeddings=8192, rope_parameters=rp)
    if rt == "default":
        v, a = LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
    else:
        v, a = ROPE_INIT_FUNCTIONS[rt](cfg, "cpu", seq_len=SEQ.get(rt))
    return v.float(), float(a)


def _cache(rt, prf, scale, off, dtype):
    v, a = _inv(rt, prf)
    t = off + scale * torch.arange(N, dtype=torch.float32)
    ang = torch.outer(t, v)
    emb = torch.cat([ang, ang], -1)
    dt = getattr(torch, dtype)
    return (emb.cos() * a).to(dt), (emb.sin() * a).to(dt)


GRID = list(itertools.product(TYPES, (1.0, 0.5), (1.0, 0.5), (0, 100), ("float32", "bfloat16")))


@pytest.mark.parametrize("rt,prf,scale,off,dtype", [
    g for g in GRID if g[4] == "float32" or (g[1] == 0.5 and g[3] == 100)],
    ids=lambda x: str(x))
def test_scaled_offset_partial_cache_identified(rt, prf, scale, off, dtype):
    c, s = _cache(rt, prf, scale, off, dtype)
    rep = check_rotary(cos=c, sin=s, seq_len=SEQ.get(rt))
    assert rep.verdict in OK, rep.render()
    got = rep.identified
    d = c.shape[-1]  # the rotated channels (Llama's default init ignores the partial factor)
    assert got.d == d
    kind = got.scaling.kind
    if rt == "dynamic" and scale == 1:
        # blind, a dynamic NTK at one length is NTK-aware with its effective factor, here
        # 2 * 16384 / 8192 - 1 = 3, estimated from the base's interval (issue 24)
        assert kind == "ntk" and got.scaling.factor == 3 and got._base == 10000, rep.render()
    elif rt == "dynamic":  # under a position scale, the non-round base itself
        assert kind == "linear", rep.render()
        assert float(got._base) == pytest.approx(10000 * 3 ** (d / (d - 2)), rel=1e-4)
    else:
        assert got._base == 10000, rep.render()
        want = "linear" if rt == "default" and scale != 1 else rt
        assert kind == want, rep.render()
        factor = TYPES[rt].get("factor", 1) / (scale if rt in ("default", "linear") else 1)
        if kind != "default":
            assert float(got.scaling.factor) == factor, rep.render()
        if rt in ("yarn", "llama3") and scale != 1:
            assert "positions scaled by 1/2" in " ".join(rep.notes), rep.notes
    if off:
        assert f"positions start at {int(off / scale)}" in " ".join(rep.notes), rep.notes
    else:
        assert not any("positions start" in x for x in rep.notes)


@pytest.mark.parametrize("rt", ["linear", "yarn", "llama3"])
def test_offset_scaled_cache_sabotaged(rt):
    c, s = _cache(rt, 0.5, 0.5, 100, "bfloat16")
    c2, s2 = c.clone(), s.clone()
    c2[1000], s2[1000] = c[1001], s[1001]  # one row holds the next position
    assert check_rotary(cos=c2, sin=s2).verdict not in OK
    c3 = c.clone()
    c3[:, 3] = c[:, 4]  # one channel holds another pair's angle
    assert check_rotary(cos=c3, sin=s).verdict not in OK
    assert check_rotary(cos=s, sin=c).verdict not in OK  # swapped
