"""mpmath evidence at 50 digits for a certified separation result.

mpmath is *evidence*, arb *certifies*: nothing here changes a certified interval.  For every
reported minimising offset ``k`` the squared distance ``||PE(a) - PE(a+k)||^2`` is computed from
the two encoding vectors (``Encoding.vector_mp``, so neither the offset reduction nor the
half-angle form is used) at ``a = 0`` and at a random ``a``; it must lie in the certified ball.
A seeded random sample of offsets is checked the same way against the arb value of ``D(k)`` and
against the float64 pre-scan value widened by its proved bound.
"""

from __future__ import annotations

import random
from functools import lru_cache

import flint
import mpmath
import sympy as sp

from peproof.encoding import Encoding
from peproof.numeric import scan
from peproof.numeric.separation import ArbD, Separation

DPS = 50


def sq_dist_mp(enc: Encoding, a: int, b: int, dps: int = DPS) -> mpmath.mpf:
    """``||PE(a) - PE(b)||^2`` from the two vectors at ``dps`` digits."""
    va, vb = enc.vector_mp(a, dps), enc.vector_mp(b, dps)
    with mpmath.mp.workdps(dps + 10):
        return mpmath.fsum((x - y) ** 2 for x, y in zip(va, vb, strict=True))


@lru_cache(maxsize=8)
def _omegas_mp(d: int, family: str, base: str, dps: int) -> tuple:
    enc = scan.encoding(d, family, base)
    with mpmath.mp.workdps(dps + 10):
        return tuple(mpmath.mpf(sp.N(w, dps + 10)) for w in enc.omegas)


def d_mp(d: int, family: str, base: str, k: int, dps: int = DPS) -> mpmath.mpf:
    """``D(k) = 2 sum_j (1 - cos(omega_j k))`` at ``dps`` digits (the "mpmath scan" step)."""
    om = _omegas_mp(d, family, base, dps)
    with mpmath.mp.workdps(dps + 10):
        return 2 * mpmath.fsum(1 - mpmath.cos(w * k) for w in om)


def _inside(x: mpmath.mpf, ball: flint.arb, dps: int) -> bool:
    """``x`` lies in ``ball`` up to mpmath's own tolerance ``10**-(dps-5)``."""
    with mpmath.mp.workdps(dps + 10):
        mid = mpmath.mpf(ball.mid().str(dps + 10, radius=False))
        rad = mpmath.mpf(ball.rad().str(5, radius=False))
        return abs(x - mid) <= rad + mpmath.mpf(10) ** (-(dps - 5))


def confirm(sep: Separation, sample: int = 8, seed: int = 0, dps: int = DPS) -> dict:
    """Check ``sep`` against mpmath; returns the checks and whether all agree."""
    enc = Encoding(sep.d, family=sep.family, base=sep.base)
    dk = ArbD(enc)
    rng = random.Random(seed)
    checks = []
    for k in sep.argmin:
        ball = dk(k, 256)
        for a in sorted({0, rng.randrange(0, sep.n_pos - k)}):
            v = sq_dist_mp(enc, a, a + k, dps)
            checks.append({"kind": "minimum", "a": a, "k": k, "mp": mpmath.nstr(v, 25),
                           "arb": ball.str(25, radius=True), "agrees": _inside(v, ball, dps)})
    for _ in range(sample):
        k = rng.randrange(1, sep.n_pos)
        a = rng.randrange(0, sep.n_pos - k)
        v = sq_dist_mp(enc, a, a + k, dps)
        ball = dk(k, 256)
        dt, bound = scan.evaluate(sep.d, sep.family, sep.base, k, 1)
        with mpmath.mp.workdps(dps + 10):
            in_float = abs(v - mpmath.mpf(float(dt[0]))) <= bound
        checks.append({"kind": "sample", "a": a, "k": k, "mp": mpmath.nstr(v, 25),
                       "arb": ball.str(25, radius=True), "float64": float(dt[0]),
                       "float_bound": bound, "agrees": _inside(v, ball, dps) and bool(in_float)})
    return {"dps": dps, "seed": seed, "checks": checks, "agree": all(c["agrees"] for c in checks)}
