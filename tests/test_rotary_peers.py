"""Real rotary implementations through the rotary oracle: identified with the right parameters,
never called wrong.

transformers' rope initialisation for every rope_type (from tiny configs), the rotary modules of
Llama, Qwen2 and GPT-NeoX (their cos/sin for position_ids), and rotary-embedding-torch.
"""

import math

import pytest

from peproof.oracle import CONFORMS, WITHIN
from peproof.oracle.rotary.check import check_rotary

pytestmark = pytest.mark.peers
HEAD = 64
OK = (CONFORMS, WITHIN)


def _cfg(rp, model="llama", mpe=8192):
    transformers = pytest.importorskip("transformers")
    kw = dict(hidden_size=2 * HEAD, num_attention_heads=2, max_position_embeddings=mpe,
              rope_parameters=rp)
    if model == "llama":
        return transformers.LlamaConfig(head_dim=HEAD, **kw)
    if model == "qwen2":
        return transformers.Qwen2Config(**kw)
    if model == "gpt_neox":
        return transformers.GPTNeoXConfig(**kw)
    raise ValueError(model)


def _init(rp, seq_len=None, mpe=8192):
    pytest.importorskip("torch")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = _cfg(rp, mpe=mpe)
    if rp["rope_type"] == "default":
        return LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
    return ROPE_INIT_FUNCTIONS[rp["rope_type"]](cfg, "cpu", seq_len=seq_len)


LONG_S = [1.0 + 0.05 * j for j in range(HEAD // 2)]
LONG_L = [2.0 + 0.25 * j for j in range(HEAD // 2)]
ROPE_TYPES = [
    ("default", {}, None, {"kind": "default"}),
    ("linear", {"factor": 4.0}, None, {"kind": "linear", "factor": 4}),
    ("dynamic", {"factor": 2.0}, 20000, {"kind": "ntk"}),
    ("yarn", {"factor": 16.0, "original_max_position_embeddings": 4096}, None,
     {"kind": "yarn", "factor": 16, "original_max_position_embeddings": 4096}),
    ("llama3", {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192}, None,
     {"kind": "llama3", "factor": 8, "original_max_position_embeddings": 8192}),
    ("longrope", {"short_factor": LONG_S, "long_factor": LONG_L,
                  "original_max_position_embeddings": 4096}, 8192, None),
]


@pytest.mark.parametrize("rope_type,params,seq_len,want", ROPE_TYPES,
                         ids=[c[0] for c in ROPE_TYPES])
def test_transformers_inv_freq_every_rope_type(rope_type, params, seq_len, want):
    rp = {"rope_type": rope_type, "rope_theta": 10000.0, **params}
    mpe = 32768 if rope_type in ("yarn", "longrope") else 8192
    inv, att = _init(rp, seq_len, mpe)
    rep = check_rotary(inv_freq=inv, expect=rp, seq_len=seq_len, max_position_embeddings=mpe)
    assert rep.verdict in OK, rep.render()
    if want is None:  # per-pair factors: checked against the expectation, not identified
        return
    blind = check_rotary(inv_freq=inv, base=10000, seq_len=seq_len)
    assert blind.verdict in OK, blind.render()
    got = blind.identified
    assert got.scaling.kind == want["kind"], blind.render()
    assert got._base == 10000 or want["kind"] == "ntk"
    for k, v in want.items():
        if k != "kind":
            assert getattr(got.scaling, k) == v, (k, got.describe())
    if rope_type == "dynamic":  # effective factor 2*20000/8192 - 1, read to 1e-5
        assert math.isclose(float(got.scaling.factor), 2 * 20000 / 8192 - 1, rel_tol=1e-5)


@pytest.mark.parametrize("model", ["llama", "qwen2", "gpt_neox"])
@pytest.mark.parametrize("rope_type,params", [
    ("default", {}), ("yarn", {"factor": 4.0, "original_max_position_embeddings": 2048}),
    ("llama3", {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 1024})])
def test_rotary_module_cache(model, rope_type, params):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import importlib

    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    cls = {"llama": "LlamaRotaryEmbedding", "qwen2": "Qwen2RotaryEmbedding",
           "gpt_neox": "GPTNeoXRotaryEmbedding"}[model]
    rp = {"rope_type": rope_type, "rope_theta": 10000.0, **params}
    emb = getattr(mod, cls)(_cfg(rp, model))
    n = 4096
    x = torch.zeros(1, n, HEAD)
    cos, sin = emb(x, torch.arange(n)[None])
    rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict in OK, rep.render()
    assert rep.layout == "half" and rep.identified.scaling.kind == rope_type, rep.render()
    assert rep.identified._base == 10000
    if rope_type == "yarn":
        assert rep.identified.scaling.original_max_position_embeddings == 2048
        assert math.isclose(rep.attention, 0.1 * math.log(4) + 1, rel_tol=1e-12)
    expect = check_rotary(cos=cos, sin=sin, expect=rp, max_position_embeddings=8192)
    assert expect.verdict in OK, expect.render()


def test_rotary_module_bfloat16_cache():
    torch = pytest.importorskip("torch")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    emb = LlamaRotaryEmbedding(_cfg({"rope_type": "default", "rope_theta": 500000.0}))
    x = torch.zeros(1, 512, HEAD, dtype=torch.bfloat16)
    cos, sin = emb(x, torch.arange(512)[None])
    rep = check_rotary(cos=cos, sin=sin, pipeline_dtype="float32",
                       expect={"rope_type": "default", "rope_theta": 500000})
    assert rep.verdict in OK and rep.stored.name == "bfloat16", rep.render()


def test_rotary_embedding_torch():
    torch = pytest.importorskip("torch")
    ret = pytest.importorskip("rotary_embedding_torch")
    rot = ret.RotaryEmbedding(dim=HEAD)
    rep = check_rotary(inv_freq=rot.freqs.detach())
    assert rep.verdict in OK and rep.identified._base == 10000, rep.render()
    n = 2048
    freqs = rot(torch.arange(n, dtype=torch.float32))  # angles, each repeated in place
    cos, sin = freqs.cos(), freqs.sin()
    rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict in OK and rep.layout == "interleaved", rep.render()
    rep2 = check_rotary(cos=cos, sin=sin, expect={"rope_type": "default", "rope_theta": 10000},
                        layout="interleaved")
    assert rep2.verdict in OK
    # interpolate_factor (position interpolation): linear scaling by 4
    rot4 = ret.RotaryEmbedding(dim=HEAD, interpolate_factor=4.0)
    f4 = rot4(rot4.get_seq_pos(n, device="cpu", dtype=torch.float32))  # positions / 4
    rep4 = check_rotary(cos=f4.cos(), sin=f4.sin())
    assert rep4.ok and rep4.identified.scaling.kind == "linear", rep4.render()
    assert rep4.identified.scaling.factor == 4


def test_meta_complex_freqs_cis():
    torch = pytest.importorskip("torch")
    d, n = HEAD, 1024
    freqs = 1.0 / (10000.0 ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    t = torch.arange(n, dtype=torch.float32)
    cis = torch.polar(torch.ones(n, d // 2), torch.outer(t, freqs))  # Meta's precompute
    rep = check_rotary(cis)
    assert rep.ok and rep.identified._base == 10000 and rep.layout == "pairs", rep.render()
