"""A grid of transformers' rotary artefacts through the rotary oracle (slow: ~1 min).

transformers' rope initialisation (default, linear, dynamic, yarn, llama3) over d, bases, factors
and original lengths; the Llama rotary module's cos/sin caches stored in float32, bfloat16 and
float16 (computed in float32) and the ``inv_freq`` in float32 and bfloat16.  Checked with no
expectation, with the base, and against the config: never 'wrong'; against the config always
within; with no expectation the caches of every map but dynamic NTK (whose factor is not read)
identified.  This grid found the false 'wrong's and the crash fixed on branch rotary4.
"""

import itertools

import pytest

from peproof.oracle import CONFORMS, WITHIN, WRONG
from peproof.oracle.rotary.check import check_rotary

pytestmark = [pytest.mark.peers, pytest.mark.slow]
OK = (CONFORMS, WITHIN)


def _cases():
    out = []
    for d, base in itertools.product((64, 128), (10000.0, 500000.0)):
        out += [{"rope_type": "default", "rope_theta": base},
                {"rope_type": "linear", "rope_theta": base, "factor": 4.0},
                {"rope_type": "dynamic", "rope_theta": base, "factor": 4.0}]
        for f, L in itertools.product((8.0, 32.0), (2048, 8192)):
            out.append({"rope_type": "llama3", "rope_theta": base, "factor": f,
                        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": L})
        for f, L in itertools.product((4.0, 16.0), (2048, 4096)):
            out.append({"rope_type": "yarn", "rope_theta": base, "factor": f,
                        "original_max_position_embeddings": L})
        for c in out[-11:]:
            c["_d"] = d
    return out


@pytest.mark.parametrize("rp", _cases(), ids=lambda c: "-".join(
    str(c[k]) for k in ("rope_type", "_d", "rope_theta", "factor",
                        "original_max_position_embeddings") if k in c))
def test_grid(rp):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    rp = dict(rp)
    d = rp.pop("_d")
    mpe = 4096 if rp["rope_type"] == "dynamic" else 65536
    cfg = transformers.LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d,
                                   max_position_embeddings=mpe, rope_parameters=rp)
    emb = LlamaRotaryEmbedding(cfg)
    n = 8192
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        cos, sin = emb(torch.zeros(1, n, 8, dtype=dt), torch.arange(n)[None])
        for kw in ({}, {"base": rp["rope_theta"]}, {"expect": rp, "max_position_embeddings": mpe}):
            rep = check_rotary(cos=cos, sin=sin, pipeline_dtype="float32", **kw)
            assert rep.verdict != WRONG, (dt, kw, rep.render())
            if "expect" in kw or (rp["rope_type"] != "dynamic" and dt == torch.float32):
                assert rep.verdict in OK, (dt, kw, rep.render())
    for vdt in (torch.float32, torch.bfloat16):
        rep = check_rotary(inv_freq=emb.inv_freq.to(vdt))
        assert rep.verdict != WRONG, (vdt, rep.render())
