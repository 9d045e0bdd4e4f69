"""A 16-bit rotary cache or angle table is "within the error model" only when one computation gives
every row (:mod:`peproof.oracle.rotary.tied`).

In a 16-bit pipeline an entry's own bound lets its angle be almost anything past a few dozen
positions, so a bfloat16 cache with two adjacent rows swapped had every entry within its bound and
was called "within the error model of its dtype" (28 of 96 swapped torch caches in the probe of
the session that found it).  The tables here are built the way their users build them (PyTorch,
transformers' recipe: ``inv_freq`` from an integer ``arange``, ``outer``, ``cat``, ``cos``/``sin``,
cast), in the pipelines real code runs: float32 cast at the end, the ``inv_freq`` buffer cast to the
16-bit dtype with the product in float32, everything in the 16-bit dtype, positions divided by a
linear scaling factor.  Correct ones must keep passing (an oracle that cries wolf is worse than
none); rows swapped must never pass.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from peproof.oracle.common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, WITHIN, WRONG  # noqa: E402
from peproof.oracle.rotary.check import check_rotary  # noqa: E402
from peproof.rope import Rope  # noqa: E402
from peproof.rope_scaling import Linear  # noqa: E402

DT = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def _angles(recipe: str, base: float, d: int, n: int, dt, factor: float = 1.0):
    inv32 = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    if recipe == "float32":  # transformers: every step in float32, the cache cast at the end
        return torch.outer(torch.arange(n).float() / factor, inv32)
    if recipe == "buffer16":  # model.to(dtype) casts the inv_freq buffer; the product in float32
        return torch.outer(torch.arange(n).float() / factor, inv32.to(dt).float())
    if recipe == "all16":  # positions, frequencies and product in the 16-bit dtype
        return torch.outer(torch.arange(n, dtype=dt) / factor, inv32.to(dt))
    raise ValueError(recipe)


def _cache(recipe, base, d, n, dtype, factor=1.0):
    dt = DT[dtype]
    f = _angles(recipe, base, d, n, dt, factor)
    emb = torch.cat((f, f), dim=-1)
    return emb.cos().to(dt).float().numpy(), emb.sin().to(dt).float().numpy()


def _swap(a: np.ndarray, r1: int, r2: int) -> np.ndarray:
    a = a.copy()
    a[[r1, r2]] = a[[r2, r1]]
    return a


# the cases the old check called "within": bfloat16, rows past ~30 (there the bound of a
# single entry admits any angle of pair 0), and float16 beyond its own limit
SWAPS = [("bfloat16", 1e4, 64, (30, 31)), ("bfloat16", 1e4, 128, (50, 51)),
         ("bfloat16", 5e5, 64, (40, 41)), ("float16", 1e4, 64, (200, 201)),
         ("bfloat16", 1e4, 64, (10, 12))]


@pytest.mark.parametrize("dtype,base,d,rows", SWAPS)
def test_swapped_rows_of_a_16_bit_cache_are_wrong_and_named(dtype, base, d, rows):
    n = 256
    c, s = _cache("float32", base, d, n, dtype)
    c, s = _swap(c, *rows), _swap(s, *rows)
    rep = check_rotary(cos=c, sin=s, dtype=dtype, expect=Rope(d, int(base)))
    assert rep.verdict == WRONG, str(rep)
    text = " ".join(rep.diagnoses)
    # the swapped rows named: by the one-computation test, or (rows 10 and 12, far enough apart
    # for the entries' own bounds) as the first position outside
    assert f"rows {rows[0]}, {rows[1]}" in text or f"first at position {rows[0]};" in text, text
    # without an expectation: never a pass, and the reason said
    bare = check_rotary(cos=c, sin=s, dtype=dtype)
    assert bare.verdict not in (CONFORMS, WITHIN, DEGENERATE), str(bare)


@pytest.mark.parametrize("dtype,rows", [("bfloat16", (30, 31)), ("bfloat16", (60, 63)),
                                        ("float16", (120, 121))])
def test_swapped_rows_of_a_16_bit_angle_table_are_never_within(dtype, rows):
    d, n = 64, 128
    a = _swap(_angles("all16", 1e4, d, n, DT[dtype]).to(DT[dtype]).float().numpy(), *rows)
    rep = check_rotary(angles=a, dtype=dtype, expect=Rope(d, 10000))
    assert rep.verdict == WRONG, str(rep)
    assert f"{rows[0]}" in " ".join(rep.diagnoses), rep.diagnoses
    assert check_rotary(angles=a, dtype=dtype).verdict in (WRONG, OUTSIDE)


@pytest.mark.parametrize("recipe", ["float32", "buffer16", "all16"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("factor", [1.0, 4.0])
def test_correct_16_bit_caches_are_one_computation(recipe, dtype, factor):
    d, n, base = 64, 200, 1e4
    c, s = _cache(recipe, base, d, n, dtype, factor)
    want = Rope(d, 10000) if factor == 1.0 else Rope(d, 10000, scaling=Linear(factor))
    rep = check_rotary(cos=c, sin=s, dtype=dtype, expect=want)
    # all16 in bfloat16 collides rows past 256 / factor: degenerate is the right answer there
    assert rep.verdict in (CONFORMS, WITHIN, DEGENERATE), str(rep)
    assert rep.tally is not None and not rep.tally.untied, rep.tally.untied


@pytest.mark.parametrize("recipe", ["float32", "all16"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_correct_16_bit_angle_tables_are_one_computation(recipe, dtype):
    d, n = 64, 200
    a = _angles(recipe, 1e4, d, n, DT[dtype]).to(DT[dtype]).float().numpy()
    rep = check_rotary(angles=a, dtype=dtype, expect=Rope(d, 10000))
    assert rep.verdict in (CONFORMS, WITHIN, DEGENERATE), str(rep)
    assert not rep.tally.untied, rep.tally.untied


def test_no_named_bug_is_read_into_rows_swapped():
    """The known bugs are tried in the 16-bit pipeline too; there each fits a swapped cache entry
    by entry ("inv_freq rounded to bfloat16", "attention factor applied twice" were printed for
    rows 30 and 31 swapped), so a bug is named only when one computation gives the whole cache."""
    c, s = _cache("float32", 1e4, 64, 64, "bfloat16")
    c, s = _swap(c, 30, 31), _swap(s, 30, 31)
    for expect in (None, Rope(64, 10000)):
        rep = check_rotary(cos=c, sin=s, dtype="bfloat16", expect=expect)
        text = " ".join(rep.diagnoses) + str(rep)
        assert "rounded to" not in text and "applied twice" not in text, text
        assert "no one computation" in text, text


LLAMA3 = {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}


def _llama3(dtype: str, n: int, cast: bool):
    """transformers' own Llama rotary module (model.to(dtype) casts its inv_freq buffer)."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(head_dim=64, hidden_size=128, num_attention_heads=2,
                                   max_position_embeddings=8192, rope_parameters=LLAMA3)
    e = LlamaRotaryEmbedding(cfg)
    e = e.to(DT[dtype]) if cast else e
    with torch.no_grad():
        cos, sin = e(torch.zeros(1, n, 64, dtype=DT[dtype]), torch.arange(n)[None])
    return cos.float().numpy()[0].copy(), sin.float().numpy()[0].copy()


@pytest.mark.parametrize("dtype,n,cast,row", [("bfloat16", 300, False, 102),
                                              ("bfloat16", 2048, True, 928),
                                              ("float16", 300, False, 242)])
def test_swapped_rows_under_a_loose_frequency_bound_are_wrong(dtype, n, cast, row):
    """Llama 3's map has a proved frequency bound of about 200 % in bfloat16: every angle at the
    row of largest position is possible, too many to enumerate, and the test used to give up
    (the cache "within", or "a different variant").  The frequencies are narrowed first at rows
    of smaller positions, where the 16-bit angle is within its rounding of the product."""
    c, s = _llama3(dtype, n, cast)
    c, s = _swap(c, row, row + 1), _swap(s, row, row + 1)
    rep = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA3, max_position_embeddings=8192)
    assert rep.verdict == WRONG, str(rep)
    assert f"rows {row}, {row + 1}" in " ".join(rep.diagnoses), rep.diagnoses


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("cast", [False, True])
def test_llama3_caches_of_transformers_are_one_computation(dtype, cast):
    c, s = _llama3(dtype, 2048, cast)
    rep = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA3, max_position_embeddings=8192)
    assert rep.verdict in (CONFORMS, WITHIN), str(rep)
    assert not rep.tally.untied, rep.tally.untied


@pytest.mark.parametrize("dtype,n", [("bfloat16", 250), ("float16", 2048)])
def test_llama3_caches_computed_in_16_bits_are_one_computation(dtype, n):
    """The same map with every step in the 16-bit dtype (the angle rounded there: the rounded
    model, whose frequencies are narrowed under the loose bound; a pair whose interval reaches
    down to 0 is let through, never counted as fitting no row)."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = transformers.LlamaConfig(head_dim=64, hidden_size=128, num_attention_heads=2,
                                   max_position_embeddings=8192, rope_parameters=LLAMA3)
    inv, _ = ROPE_INIT_FUNCTIONS["llama3"](cfg, "cpu")
    dt = DT[dtype]
    f = torch.outer(torch.arange(n, dtype=dt), inv.to(dt))
    emb = torch.cat((f, f), dim=-1)
    c, s = emb.cos().float().numpy(), emb.sin().float().numpy()
    rep = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA3, max_position_embeddings=8192)
    assert rep.verdict in (CONFORMS, WITHIN, DEGENERATE), str(rep)
    assert not rep.tally.untied, rep.tally.untied
    # and two rows swapped in it are not
    c, s = _swap(c, n - 40, n - 39), _swap(s, n - 40, n - 39)
    bad = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA3, max_position_embeddings=8192)
    assert bad.verdict == WRONG, str(bad)


def test_positions_that_are_not_numbers_never_untie_a_table():
    """The test does not apply to positions that are not finite: nothing is said against the
    table (a "wrong" needs a computation ruled out, not a position no computation has)."""
    from peproof.formats import get_format
    from peproof.oracle.rotary.model import AngleModel
    from peproof.oracle.rotary.tied import untied_angles

    bf = get_format("bfloat16")
    th = np.array([1.0, 0.01])
    pos = np.array([0.0, 1.0, 2.0, np.inf])
    table = bf.round(np.outer(np.array([0.0, 1.0, 2.0, 3.0]), th))
    assert untied_angles([table], pos, AngleModel(th, bf, bf)) == ""
    # the same table at finite positions with two rows swapped is untied (the test can fail)
    swapped = _swap(table, 1, 2)
    assert untied_angles([swapped], np.array([0.0, 1.0, 2.0, 3.0]), AngleModel(th, bf, bf))


LLAMA32 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "low_freq_factor": 1.0,
           "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_llama32s_factor_in_16_bits_still_ties_the_rows(dtype):
    """Llama 3.2's factor 32 makes the map's proved bound in bfloat16 about 10 times the
    frequency: narrowed at small positions, more candidate intervals were left than the test
    follows (2 h), and it gave up for every pair, so a cast model's cache with two rows swapped
    was "within the error model" even against its expectation (bfloat16; float16's bound is
    tighter).  Now the pairs with the fewest intervals are followed (one pair no frequency fits
    is enough) and the rest let through."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(head_dim=128, hidden_size=4096, num_attention_heads=32,
                                   max_position_embeddings=131072, rope_parameters=LLAMA32)
    e = LlamaRotaryEmbedding(cfg).to(DT[dtype])
    with torch.no_grad():
        cos, sin = e(torch.zeros(1, 2048, 128, dtype=DT[dtype]), torch.arange(2048)[None])
    c, s = cos.float().numpy()[0].copy(), sin.float().numpy()[0].copy()
    ok = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA32, max_position_embeddings=131072)
    assert ok.verdict in (CONFORMS, WITHIN), str(ok)
    c, s = _swap(c, 1500, 1501), _swap(s, 1500, 1501)
    bad = check_rotary(cos=c, sin=s, dtype=dtype, expect=LLAMA32, max_position_embeddings=131072)
    assert bad.verdict == WRONG, str(bad)
    assert "no one computation" in " ".join(bad.diagnoses), bad.diagnoses


def test_a_test_that_follows_no_pair_is_not_made():
    """When every pair is let through (intervals reaching down to 0 with more angles than are
    followed), the rounded-angle test has tested nothing: it says so (``ok`` None: the test does
    not apply) instead of "one computation" (``True``), so that no variant is named on it
    (:func:`peproof.oracle.rotary.cache.identify_cache`).  Verdicts read None as True did."""
    from peproof.formats import get_format
    from peproof.oracle.common import consistency
    from peproof.oracle.rotary.tied import _Budget, _Plan, _Table

    bf = get_format("bfloat16")
    n = 300
    pos = np.arange(n, dtype=np.float64)
    rows = np.arange(n)

    def answer(w, ew, swap=False):
        ang = bf.round(np.outer(pos, w))
        c, s = bf.round(np.cos(ang)), bf.round(np.sin(ang))
        if swap:
            c, s = _swap(c, 200, 201), _swap(s, 200, 201)
        bud = _Budget(bf, np.full(w.size, ew), 1e-3, 2 * bf.u, 1e-3)
        return consistency._rounded_angles(_Table(c, s), pos, rows, _Plan(w, 1.0), bud).ok

    assert answer(np.array([2e-6, 1e-6]), 5.0) is None  # nothing followed: not made
    # frequencies the test can follow: made, and it fails on swapped rows
    assert answer(np.array([1.0, 0.5]), 0.05) is True
    assert answer(np.array([1.0, 0.5]), 0.05, swap=True) is False
