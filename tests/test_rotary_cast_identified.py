"""A rotary cache of a model cast to a 16-bit dtype is identified without an expectation
(:func:`peproof.oracle.rotary.cache.identify_cache`, :func:`.geometry.before_storage`).

transformers keeps ``inv_freq`` as a buffer, and ``model.to(torch.bfloat16)`` casts it: the cache's
angles are float32 products of frequencies already rounded to bfloat16.  Read as float32 they are
known to 1e-5 but off by up to one bfloat16 rounding (0.4 %): Llama 3's base 500000 read as about
434000.  Read in the 16-bit pipeline, the bound is tens of per cent, and no base is named.  So a
correct cache of the most common model in its most common dtype was "outside the model: not a RoPE
cache peproof can express" when no expectation was given.  When the float32 reading's
frequencies lie on the 16-bit grid (``on_grid``: the signature of a buffer held in that format),
that reading, each frequency allowed that one rounding, now proposes the RoPEs the 16-bit
pipeline's model of the whole cache is then checked against, as every candidate is (nothing
passes on the reading alone: the swapped-rows tests below), and a variant is named only when the
one-computation test could be made of it.

On the code before this change, the bfloat16 caches and Llama 3's float16 cache were "outside the
model" (the plain base-500000 float16 cache was already identified), Llama 3.2's was named base
1000000 with factor 6, and ``before_storage`` did not exist; the swapped-rows tests passed there
too (they guard against a proposal passing a broken cache: the first version of this change let
one through, a Llama 3 factor read as 10, see test_rotary_one_computation.py).
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from peproof.oracle.common.verdicts import CONFORMS, WITHIN  # noqa: E402
from peproof.oracle.rotary.check import check_rotary  # noqa: E402

DT = {"bfloat16": torch.bfloat16, "float16": torch.float16}
LLAMA3 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
PLAIN = {"rope_type": "default", "rope_theta": 500000.0}


def _cache(params: dict, dtype: str, n: int):
    """Llama's own rotary module, cast with the model (its inv_freq buffer held in ``dtype``),
    at head dimension 128 as Llama 3's."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(head_dim=128, hidden_size=4096, num_attention_heads=32,
                                   max_position_embeddings=131072, rope_parameters=dict(params))
    e = LlamaRotaryEmbedding(cfg).to(DT[dtype])
    assert e.inv_freq.dtype == DT[dtype]  # the recipe this file is about
    with torch.no_grad():
        cos, sin = e(torch.zeros(1, n, 128, dtype=DT[dtype]), torch.arange(n)[None])
    return cos.float().numpy()[0].copy(), sin.float().numpy()[0].copy()


def _swap(a, i, j):
    a = a.copy()
    a[[i, j]] = a[[j, i]]
    return a


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("params", [PLAIN, LLAMA3], ids=["default", "llama3"])
def test_a_cast_models_cache_is_identified_without_an_expectation(dtype, params):
    c, s = _cache(params, dtype, 2048)
    rep = check_rotary(cos=c, sin=s, dtype=dtype)
    assert rep.verdict in (CONFORMS, WITHIN), str(rep)
    got = rep.identified
    assert got is not None and float(got.base) == 500000, str(rep)
    assert got.scaling.kind == params["rope_type"], str(rep)
    if params is LLAMA3:  # 2048 rows tell the band and the factor apart
        sc = got.scaling
        assert (float(sc.factor), float(sc.low_freq_factor), float(sc.high_freq_factor),
                int(sc.original_max_position_embeddings)) == (8.0, 1.0, 4.0, 8192), str(rep)
    if dtype == "bfloat16":  # read as float32 alone, the base is not 500000: the rounding named
        assert any(f"lie on the {dtype} grid" in n for n in rep.notes), rep.notes


def test_a_short_bfloat16_cache_names_the_base():
    """300 rows of bfloat16 do not tell Llama 3's factor apart (its scaled pairs hardly turn):
    the simplest map that fits is named, and its base is Llama 3's."""
    c, s = _cache(LLAMA3, "bfloat16", 300)
    rep = check_rotary(cos=c, sin=s, dtype="bfloat16")
    assert rep.verdict in (CONFORMS, WITHIN), str(rep)
    assert float(rep.identified.base) == 500000, str(rep)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("params", [PLAIN, LLAMA3], ids=["default", "llama3"])
def test_the_same_caches_with_two_rows_swapped_are_not_within(dtype, params):
    """The reading only proposes: the whole cache is held to the model, one computation for every
    row (:mod:`peproof.oracle.rotary.tied`), so a proposal never passes a broken cache."""
    c, s = _cache(params, dtype, 2048)
    row = 1500
    c, s = _swap(c, row, row + 1), _swap(s, row, row + 1)
    rep = check_rotary(cos=c, sin=s, dtype=dtype)
    assert rep.verdict not in (CONFORMS, WITHIN), str(rep)
    # with the expectation the swap is named
    bad = check_rotary(cos=c, sin=s, dtype=dtype, expect=params, max_position_embeddings=131072)
    assert not bad.ok, str(bad)


def test_the_reading_before_storage_widens_by_one_rounding():
    """``before_storage``: a frequency read within ``rel`` was the rounding of one within about
    ``rel + 2 u`` (a normal number), and more below the format's smallest normal number."""
    from peproof.formats import get_format
    from peproof.oracle.rotary.geometry import before_storage

    bf, hf = get_format("bfloat16"), get_format("float16")
    w = np.array([1.0, 0.5, 1e-6])
    rel = np.array([1e-5, 1e-5, 1e-5])
    got = before_storage(w, rel, bf)
    assert np.all(got >= rel + bf.u) and np.all(got[:2] <= rel[:2] + 2.1 * bf.u)
    # every bfloat16 neighbour's preimage is inside: the exact value t with fl(t) = w
    for x in (0.8145, 0.6641, 3.1e-6):
        t = np.array([x])
        r = float(bf.round(t)[0])
        assert abs(x / r - 1) <= before_storage(np.array([r]), np.array([0.0]), bf)[0]
    # float16 below its smallest normal number (6.1e-5): the absolute part takes over
    sub = before_storage(np.array([2.5e-6]), np.array([0.0]), hf)
    assert sub[0] > 0.01
    t = 2.46e-6
    r = float(hf.round(np.array([t]))[0])
    assert abs(t / r - 1) <= before_storage(np.array([r]), np.array([0.0]), hf)[0]


def test_llama32s_cast_cache_is_not_named_another_base():
    """Llama 3.2 (factor 32) cast to bfloat16: the 16-bit reading alone allowed bases from about
    200000 to 5000000, and the simplest RoPE that fitted the loose model was named: "base 1000000,
    llama3 factor 6, high_freq_factor 1, original_max_position_embeddings 4096", a wrong
    identification.  Read from the float32 frequencies, the base is Llama's."""
    params = dict(LLAMA3, factor=32.0)
    c, s = _cache(params, "bfloat16", 2048)
    rep = check_rotary(cos=c, sin=s, dtype="bfloat16")
    assert rep.verdict in (CONFORMS, WITHIN), str(rep)
    got = rep.identified
    assert float(got.base) == 500000 and got.scaling.kind == "llama3", str(rep)
    sc = got.scaling
    assert (float(sc.low_freq_factor), float(sc.high_freq_factor),
            int(sc.original_max_position_embeddings)) == (1.0, 4.0, 8192), str(rep)
    # the factor: 2048 rows in bfloat16 allow a range around 32, never the 6 read before
    assert 24 <= float(sc.factor) <= 40, str(rep)


def test_a_variant_is_not_named_on_a_one_computation_test_not_made():
    """300 rows of Llama 3.2's cache in bfloat16 allow its factor to be read as 1000, whose
    map's bound no row can be held to: the one-computation test cannot be made, every entry is
    within its own bound, and the first version of this change named that variant for the cache
    with two rows swapped ("within the error model").  A variant is named only when the test was
    made (:func:`peproof.oracle.rotary.cache.identify_cache`)."""
    c, s = _cache(dict(LLAMA3, factor=32.0), "bfloat16", 300)
    c, s = _swap(c, 225, 226), _swap(s, 225, 226)
    rep = check_rotary(cos=c, sin=s, dtype="bfloat16")
    assert rep.verdict not in (CONFORMS, WITHIN), str(rep)


def test_the_rounding_is_allowed_only_to_frequencies_on_the_grid():
    """``on_grid``: an inv_freq held in bfloat16 leaves the frequencies read (to 1e-5) on the
    bfloat16 grid; frequencies computed in float32 are not, and then no rounding is allowed them
    (with it, a float32 LongRoPE cache of Phi-3 stored in bfloat16 was named "base 17600,
    default": its per-pair factors are geometric within one bfloat16 rounding)."""
    from peproof.formats import get_format
    from peproof.oracle.rotary.geometry import on_grid

    bf, hf = get_format("bfloat16"), get_format("float16")
    th = 10000.0 ** (-np.arange(32) / 32.0)
    w32 = th.astype(np.float32).astype(np.float64)
    rel = np.full(32, 1e-5)
    assert on_grid(bf.round(w32), rel, bf) and on_grid(hf.round(w32), rel, hf)
    assert not on_grid(w32, rel, bf) and not on_grid(w32, rel, hf)
    # one pair off the grid is enough; too few precise pairs tell nothing
    w = bf.round(w32)
    w[5] *= 1 + 1e-3
    assert not on_grid(w, rel, bf)
    loose = np.full(32, 1e-2)
    loose[:2] = 1e-5
    assert not on_grid(bf.round(w32), loose, bf)
