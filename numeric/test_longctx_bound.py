"""The float64 pre-scan's proved bound B at long contexts: still a bound at offsets near 10^9
(and far beyond), with the table shapes of a real scan; independent of N; and not vacuous
(a shrunken B is exceeded by the real errors there)."""

from __future__ import annotations

import random

import flint
import pytest

from peproof.encoding import Encoding
from peproof.numeric import scan
from peproof.numeric.separation import CHUNK, ArbD


def _errors(d: int, a: int, n: int, samples: int = 6, seed: int = 0):
    """float values of D at offsets a..a+n-1 (one chunk, as the scan computes it), B, and the
    certified |D~(k) - D(k)| (upper ends of arb balls) at sampled offsets."""
    dk, bound = scan.evaluate(d, "paper", "10000", a, n)
    ref = ArbD(Encoding(d))
    rng = random.Random(seed * 7919 + a)
    ts = sorted({0, n - 1, *(rng.randrange(n) for _ in range(samples))})
    errs = {a + t: abs(flint.arb(float(dk[t])) - ref(a + t)) for t in ts}
    return bound, errs


def _check(d, a, n, samples=6):
    bound, errs = _errors(d, a, n, samples)
    for k, e in errs.items():
        assert e < bound, f"d={d} k={k}: |D~ - D| <= {e.upper()} exceeds B = {bound}"
    worst = max(float(e.lower()) for e in errs.values())
    return bound, worst


def test_bound_holds_in_the_last_chunk_of_a_billion_at_d4096():
    """A full chunk (1024 x 1024 tables, the deepest doubling a scan uses) ending at 10^9."""
    d = 4096
    bound, worst = _check(d, 10**9 - CHUNK, CHUNK)
    # sabotage: B shrunk a million times is exceeded by the real float error here, so the
    # comparison above can fail and B is not vacuous at this size
    assert worst > bound * 1e-6, (worst, bound)


@pytest.mark.parametrize("d", (64, 512, 1024))
@pytest.mark.parametrize("a", (10**9 - 5000, 10**12 + 7, 2**53 - 3000))
def test_bound_holds_far_beyond_a_billion(d, a):
    """Offsets up to 2^53 (every integer a float64 can hold): B does not depend on k."""
    bound, worst = _check(d, a, 3000, samples=4)
    small, _ = _check(d, 1, 3000, samples=1)
    # the same table shapes give the same bound whatever the offset (up to the arb radius of
    # the seed omega * k, about k * 2^-128)
    assert bound == pytest.approx(small, rel=1e-9)
    assert worst > bound * 1e-5, (worst, bound)  # and it is not vacuous there


def test_shrunken_bound_misses_at_large_offsets():
    """A bound shrunk below the real error is caught by the arb comparison (the sabotage the
    tests above guard against)."""
    d, a, n = 1024, 10**9 - 4096, 4096
    dk, bound = scan.evaluate(d, "paper", "10000", a, n, shrink=1e-7)
    ref = ArbD(Encoding(d))
    misses = [k for k in range(a, a + n, 97)
              if not abs(flint.arb(float(dk[k - a])) - ref(k)) < bound]
    assert misses, "a bound 10^7 times too small was never exceeded"


def test_bound_does_not_grow_with_n_and_grows_like_d_squared():
    """B per chunk depends on the table shapes and d only; the matrix-product term
    gamma_{2h} h (Higham) makes it grow like d^2 (README: 'How B grows with N and d')."""
    b = {d: scan.evaluate(d, "paper", "10000", 10**9, 2048)[1] for d in (512, 1024, 2048)}
    first = {d: scan.evaluate(d, "paper", "10000", 1, 2048)[1] for d in (512, 1024, 2048)}
    assert all(b[d] == pytest.approx(first[d], rel=1e-9) for d in b), (b, first)
    assert 3.5 < b[1024] / b[512] < 4.1 and 3.5 < b[2048] / b[1024] < 4.1, b


@pytest.mark.slow
def test_bound_holds_in_the_last_chunk_of_a_billion_at_d8192():
    bound, worst = _check(8192, 10**9 - CHUNK, CHUNK, samples=4)
    assert worst > bound * 1e-6, (worst, bound)
