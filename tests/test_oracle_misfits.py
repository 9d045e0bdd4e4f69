"""The rows a 16-bit table's candidate frequencies do not fit, and a table that made them many.

:func:`peproof.oracle.common.consistency.consistent` follows up to a million candidate
frequency intervals across the rows and keeps, for each, the first rows it does not fit (the
message names them).  A bfloat16 table shifted by one row (h-1, base 500000) made about a million
candidates fail at once; kept by a Python loop per candidate, its ``check`` took 126 s of CPU
(found by Hypothesis in random mode: tests/test_oracle_selftest.py hit the 60 s timeout).
"""

import numpy as np
import pytest

from peproof.oracle import WRONG, Variant, check, reference
from peproof.oracle.common import consistency as C

from .test_oracle_vacuous_fits import assert_no_false_difference, shifted_table


def _naive(bad: np.ndarray, rows: np.ndarray):
    """Every candidate against every row: (fits, its first misfit rows)."""
    fits = ~bad.any(axis=0)
    first = {q: rows[bad[:, q]][:C.MISFIT_ROWS].tolist() for q in range(bad.shape[1])}
    return fits, first


@pytest.mark.parametrize("seed", range(12))
def test_the_misfits_kept_are_those_of_every_candidate_against_every_row(seed):
    """Chunk by chunk, with the candidates dropped once their answer is known, the fits and the
    first misfit rows are those of the whole table (a candidate dropped before it has its rows,
    or rows counted twice, changes them)."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 60)), int(rng.integers(1, 40))
    # some candidates fail often, some rarely, some never
    p = rng.choice([0.0, 0.02, 0.2, 0.7], size=m)
    bad = rng.random((n, m)) < p[None, :]
    rows = rng.permutation(1000)[:n]
    fit = np.ones(m, bool)
    mis = C._Misfits(m)
    act = np.arange(m)
    k0 = 0
    while k0 < n and act.size:
        k1 = min(n, k0 + int(rng.integers(1, 9)))
        act = C._fold(bad[k0:k1][:, act], act, rows[k0:k1], fit, mis)
        k0 = k1
    want_fit, want_rows = _naive(bad, rows)
    assert (fit == want_fit).all()
    for q in range(m):
        assert mis.get(q) == want_rows[q], q
    # and nothing left to follow is still followed
    assert all(fit[q] or mis.count[q] < C.MISFIT_ROWS for q in act)


def test_a_bfloat16_table_shifted_by_one_row_is_wrong():
    """The table Hypothesis found: every row moved down by one.  It is wrong, and the message
    names the pair no single frequency fits."""
    v = Variant("h-1", 500000, "cos_sin", -2, "1/sqrt(d)")
    t = reference(161, 26, family=v.family, base=v.base, layout=v.layout, offset=v.offset,
                  scale=v.scale, dtype="bfloat16")
    shifted = np.roll(t.astype(np.float64), 1, axis=0).astype(t.dtype)
    assert np.array_equal(shifted, shifted_table(), equal_nan=True)  # the table tested there
    assert check(t, expect=v).verdict != WRONG
    rep = check(shifted, expect=v)
    assert rep.verdict == WRONG, rep.render()
    # wrong for the reason the shift gives: every entry within its own bound, no one
    # computation (not a bound broken somewhere, which a shift does not do in bfloat16)
    assert "no single frequency of pair" in rep.render(), rep.render()
    # and no variant difference is named: the variant it was made with is the one expected
    # (tests/test_oracle_vacuous_fits.py)
    assert_no_false_difference(rep, expected_is_generator=True)
