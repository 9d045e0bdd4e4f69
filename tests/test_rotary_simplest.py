"""The simplest variant that fits is the one named (issue 20): rounding is never read as another
variant, and scaled, offset and partial rotary caches are identified.

Each case below was misnamed by the previous oracle (checked): a bfloat16 Llama cache read as
"base 3000, linear factor 5/2" and then "outside the model"; a bfloat16 inv_freq read as "linear
factor 10/7"; a partial-rotary (0.4) linear-2 cache in bfloat16 and an mlx cache with scale 0.25
starting at position 100 "outside the model".  The sabotages beside them must still fail."""

from fractions import Fraction

import numpy as np
import pytest

from peproof.oracle import CONFORMS, WITHIN
from peproof.oracle.rotary.check import check_rotary
from peproof.oracle.rotary.simplest import Variant, rank
from peproof.rope import Rope
from peproof.rope_scaling import Linear

OK = (CONFORMS, WITHIN)


def _llama_bf16(head=64, base=10000.0, n=2048):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(hidden_size=2 * head, num_attention_heads=2, head_dim=head,
                                   rope_parameters={"rope_type": "default", "rope_theta": base})
    emb = LlamaRotaryEmbedding(cfg)
    cos, sin = emb(torch.zeros(1, n, head, dtype=torch.bfloat16), torch.arange(n)[None])
    return cos, sin


@pytest.mark.peers
@pytest.mark.parametrize("head,base", [(64, 10000.0), (128, 500000.0)])
def test_bfloat16_cache_is_the_paper_rope_not_another(head, base):
    cos, sin = _llama_bf16(head, base)
    rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict in OK, rep.render()
    got = rep.identified
    assert got._base == int(base) and got.scaling.kind == "default", rep.render()
    exp = check_rotary(cos=cos, sin=sin, expect={"rope_type": "default", "rope_theta": base})
    assert exp.verdict in OK, exp.render()


@pytest.mark.peers
def test_bfloat16_cache_sabotaged_still_fails():
    torch = pytest.importorskip("torch")
    cos, sin = _llama_bf16()
    want = {"rope_type": "default", "rope_theta": 10000.0}
    assert check_rotary(cos=sin, sin=cos, expect=want).verdict not in OK  # swapped
    for blind in (True, False):
        c, s = cos.clone(), sin.clone()
        c[0, 700], s[0, 700] = cos[0, 701], sin[0, 701]  # one row holds the next position
        rep = check_rotary(cos=c, sin=s, **({} if blind else {"expect": want}))
        assert rep.verdict not in OK, rep.render()
    c3, s3 = _llama_bf16(base=30000.0)
    assert check_rotary(cos=c3, sin=s3, expect=want).verdict not in OK  # another base
    # the whole cache shifted by one position: an offset, named, and not the expected cache
    rep = check_rotary(cos=cos[:, 1:], sin=sin[:, 1:], expect=want)
    assert rep.verdict == "different variant", rep.render()
    assert "positions start at 1" in rep.render(), rep.render()
    del torch


@pytest.mark.peers
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16_bit_inv_freq_is_the_paper_rope(dtype):
    torch = pytest.importorskip("torch")
    for d, base in ((128, 10000), (128, 500000), (64, 10000)):
        inv = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
        rep = check_rotary(inv_freq=inv.to(getattr(torch, dtype)))
        assert rep.verdict in OK, rep.render()
        assert rep.identified._base == base and rep.identified.scaling.kind == "default"
        bad = inv.clone()
        bad[5] *= 1.5  # one frequency 50% off: past even a 16-bit pipeline
        rep = check_rotary(inv_freq=bad.to(getattr(torch, dtype)),
                           expect={"rope_type": "default", "rope_theta": base})
        assert rep.verdict not in OK, rep.render()


@pytest.mark.peers
@pytest.mark.parametrize("model,cls", [("gpt_neox", "GPTNeoX"), ("phi", "Phi"),
                                       ("stablelm", "StableLm")])
def test_partial_rotary_linear_bfloat16_cache(model, cls):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import importlib

    rp = {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0,
          "partial_rotary_factor": 0.4}
    cfg = getattr(transformers, f"{cls}Config")(hidden_size=256, num_attention_heads=4,
                                                partial_rotary_factor=0.4, rope_parameters=rp)
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    emb = getattr(mod, f"{cls}RotaryEmbedding")(cfg)
    cos, sin = emb(torch.zeros(1, 2048, 8, dtype=torch.bfloat16), torch.arange(2048)[None])
    rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict in OK, rep.render()
    got = rep.identified
    assert got.scaling.kind == "linear" and got.scaling.factor == 2 and got._base == 10000
    assert got.exponent_dim == 25 and got.d == 26
    exp = check_rotary(cos=cos, sin=sin, expect=dict(rp, head_dim=64))
    assert exp.verdict in OK, exp.render()
    other = check_rotary(cos=cos, sin=sin, expect=dict(rp, factor=4.0, head_dim=64))
    assert other.verdict not in OK, other.render()


def _mlx(traditional, offset, scale=0.25, d=64, n=1024, dtype="float32"):
    mx = pytest.importorskip("mlx.core")
    nn = pytest.importorskip("mlx.nn")
    x = np.zeros((1, n, d), np.float32)
    if traditional:
        x[..., 0::2] = 1
    else:
        x[..., : d // 2] = 1
    out = nn.RoPE(d, traditional=traditional, base=10000, scale=scale)(
        mx.array(x).astype(getattr(mx, dtype)), offset=offset)
    out = np.array(out.astype(mx.float32))[0]
    return (out[:, 0::2], out[:, 1::2]) if traditional else (out[:, : d // 2], out[:, d // 2:])


@pytest.mark.peers
@pytest.mark.parametrize("traditional", [True, False])
@pytest.mark.parametrize("offset", [100, 37, 5000])
def test_mlx_scaled_cache_with_a_kv_offset(traditional, offset):
    c, s = _mlx(traditional, offset)
    rep = check_rotary(cos=c, sin=s)
    assert rep.verdict in OK, rep.render()
    got = rep.identified
    assert got.scaling.kind == "linear" and got.scaling.factor == 4 and got._base == 10000
    assert f"positions start at {offset}" in " ".join(rep.notes), rep.notes
    pos = np.arange(offset, offset + len(c), dtype=np.float64)
    given = check_rotary(cos=c, sin=s, positions=pos, expect={"rope_type": "linear",
                                                              "factor": 4, "rope_theta": 10000})
    assert given.verdict in OK, given.render()
    wrong = check_rotary(cos=c, sin=s, positions=pos + 1, expect={
        "rope_type": "linear", "factor": 4, "rope_theta": 10000})
    assert wrong.verdict not in OK, wrong.render()


def test_simplicity_order_is_explicit():
    """The paper RoPE < a round base < a scaling < a non-round base; no offset < an offset."""
    d = 64
    paper = Variant(Rope(d, 10000))
    other_base = Variant(Rope(d, 3000))
    linear = Variant(Rope(d, 3000, scaling=Linear(Fraction(5, 2))))
    odd = Variant(Rope(d, Fraction(20454560, 489)))
    off = Variant(Rope(d, 10000), offset=Fraction(100))
    assert rank([odd, linear, off, other_base, paper]) == [paper, other_base, off, linear, odd]
