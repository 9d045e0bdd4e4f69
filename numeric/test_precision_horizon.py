"""Dtype recipes and precision horizons against independent brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from peproof.encoding import Encoding, ParameterError
from peproof.numeric import horizon as H
from peproof.numeric import recipes as R
from peproof.numeric.separation import certify


def _brute_collision(enc, dtype, recipe, n_pos):
    s, c = R.rows(enc, dtype, recipe, np.arange(n_pos))
    both = np.concatenate([s, c], axis=1).astype(np.float64) + 0.0
    first: dict[bytes, int] = {}
    for p in range(n_pos):
        if not np.isfinite(both[p]).all():
            continue
        key = both[p].tobytes()
        if key in first:
            return p, first[key]
        first[key] = p
    return None, None


def _brute_crossing(enc, dtype, recipe, n_pos, half):
    ref = enc.table(np.arange(n_pos))  # independent reference: NumPy sin/cos (evidence)
    got = R.table(enc, dtype, recipe, np.arange(n_pos)).astype(np.float64)
    err = np.sqrt(((got - ref) ** 2).sum(axis=1))
    err = np.where(np.isfinite(err), err, np.inf)
    hit = np.nonzero(err > half)[0]
    return int(hit[0]) if hit.size else None


def test_float64_recipes_match_the_definition():
    enc = Encoding(128)
    pos = np.arange(0, 5000, 7)
    ref = enc.table(pos)
    for recipe in R.RECIPES:
        got = R.table(enc, "float64", recipe, pos).astype(np.float64)
        tol = 1e-3 if recipe == "f32-cast" else 1e-9  # f32-cast: float32 angles up to 5000
        assert np.max(np.abs(got - ref)) < tol, recipe


def test_recipes_use_the_dtype():
    enc = Encoding(16)
    for dt in R.DTYPES:
        for recipe in R.RECIPES:
            s, c = R.rows(enc, dt, recipe, np.arange(5))
            assert s.dtype == R.DTYPES[dt] and c.dtype == R.DTYPES[dt], (dt, recipe)


def test_rows_do_not_depend_on_the_batch():
    """Hash matches are re-checked by recomputing two rows; that is sound only if a row is
    the same whatever batch it was computed in."""
    enc = Encoding(64)
    pos = np.arange(1000, 1300)
    for dt in R.DTYPES:
        for recipe in R.RECIPES:
            s, c = R.rows(enc, dt, recipe, pos)
            for i in (0, 1, 17, 299):
                s1, c1 = R.rows(enc, dt, recipe, pos[i:i + 1])
                assert s1.tobytes() == s[i:i + 1].tobytes(), (dt, recipe, i)
                assert c1.tobytes() == c[i:i + 1].tobytes(), (dt, recipe, i)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
def test_first_overflow_positions():
    assert R.first_overflow("float16") == 65520
    assert np.isfinite(np.float16(65519.0)) and np.isinf(np.float64(65520).astype(np.float16))
    assert R.first_overflow("float32") == 2**128 - 2**103
    assert R.first_overflow("bfloat16") == 2**128 - 2**119
    assert np.isinf(np.float64(2**128 - 2**103).astype(np.float32))
    assert np.isfinite(np.float64(2**128 - 2**104).astype(np.float32))
    s, _ = R.rows(Encoding(8), "float16", "exp-float", np.array([65519, 65520]))
    assert np.isfinite(s[0].astype(float)).all() and not np.isfinite(s[1].astype(float)).any()


@pytest.mark.parametrize("dtype,recipe", [("float16", "exp-float"), ("bfloat16", "exp-float"),
                                          ("bfloat16", "pow-int"), ("float16", "f32-cast"),
                                          ("bfloat16", "exp-int")])
def test_horizon_matches_brute_force(dtype, recipe):
    enc = Encoding(16)
    n_pos = 3000
    sep = certify(16, n_pos)
    half = (sep.min_dist.lo / 2, sep.min_dist.hi / 2)
    hz = H.scan(enc, dtype, recipe, n_pos, half, stop=False)
    assert (hz.collision, hz.collision_with) == _brute_collision(enc, dtype, recipe, n_pos)
    assert hz.error_crossing == _brute_crossing(enc, dtype, recipe, n_pos, half[0])
    assert hz.crossing_certain in (None, True)


def test_collisions_forced_by_position_rounding():
    enc = Encoding(32)
    half = (0.1, 0.1)
    assert H.scan(enc, "bfloat16", "exp-float", 400, half).collision == 257
    hz = H.scan(enc, "float16", "pow-float", 2100, half)
    assert hz.collision <= hz.collision_bound == 2049
    assert H.collision_bound("float32", "exp-float") == 2**24 + 1
    assert H.collision_bound("bfloat16", "exp-int") is None


def test_sabotaged_verification_is_caught(monkeypatch):
    """If hash matches were accepted without comparing rows, every row would 'collide'."""
    enc = Encoding(8)
    monkeypatch.setattr(H, "_row_hashes", lambda s, c, w: np.zeros(len(s), dtype=np.uint64))
    honest = H.scan(enc, "float32", "exp-int", 150, (1.0, 1.0))
    assert honest.collision is None  # all hashes equal, rows still compared exactly
    monkeypatch.setattr(H, "_same_rows", lambda *a: True)
    broken = H.scan(enc, "float32", "exp-int", 150, (1.0, 1.0))
    assert broken.collision == 1 != _brute_collision(enc, "float32", "exp-int", 150)[0]


def test_bad_dtype_and_recipe():
    with pytest.raises(ParameterError, match="dtype must be one of"):
        R.rows(Encoding(8), "float8", "exp-int", np.arange(3))
    with pytest.raises(ParameterError, match="recipe must be one of"):
        R.rows(Encoding(8), "float16", "cosine", np.arange(3))


def test_int_recipes_never_overflow():
    assert R.overflow_position("float16", "exp-int") is None
    assert R.overflow_position("float16", "exp-float") == 65520
    assert R.overflow_position("float16", "f32-cast") == R.first_overflow("float32")


@pytest.mark.slow
@pytest.mark.parametrize("d", (64, 512))
def test_horizon_table(d):
    rows = H.horizons(d)
    by = {(h.dtype, h.recipe): h for h in rows}
    assert by[("float16", "exp-float")].collision == 2049
    assert by[("bfloat16", "exp-float")].collision == 257
    for h in rows:
        if h.dtype == "float64" and h.recipe != "f32-cast":  # f32-cast: the float32 table
            assert h.collision is None and h.error_crossing is None and h.max_error < 1e-9
        if h.error_crossing is not None:
            assert h.crossing_certain
    assert math.isfinite(by[("float32", "exp-int")].max_error)


def test_recipe_spelling_must_denote_the_definition(monkeypatch):
    """The recipes' index spelling is checked against omega_law: a wrong spelling is refused."""
    import numpy as np
    import pytest

    from peproof.encoding import Encoding

    assert R.frequencies(Encoding(8), np.dtype(np.float32), "exp")[0] == 1
    monkeypatch.setitem(R._SPELLING, "paper", lambda enc: (np.arange(0, enc.d, 2), 2 * enc.d))
    with pytest.raises(AssertionError, match="disagrees with omega_expr"):
        R.frequencies(Encoding(8), np.dtype(np.float32), "exp")
