"""Precision horizons of rotary angles in a narrow float format, certified.

Two horizons, for a binary format ``F`` with ``prec`` significand bits:

``positions``  the first integer position ``p`` whose value held in ``F`` equals that of
               ``p - 1``... stated as the first pair ``(p, p + 1)`` with ``RN_F(p) = RN_F(p + 1)``:
               from there on positions held in ``F`` collide (exact integer arithmetic).
``angle j``    the first ``p`` with ``RN_F(p theta_j) = RN_F((p + 1) theta_j)``: the angle of pair
               ``j``, the exact product rounded once to ``F``, no longer tells ``p`` from ``p + 1``.

Each rounding is decided from a float64 product whose relative error is at most ``2**-52`` (the
frequency correctly rounded to float64 and one product): ``RN_F`` is monotone, so when
``RN_F(x (1 - 2**-50))`` and ``RN_F(x (1 + 2**-50))`` agree, the rounding of the exact product is
that value.  The few positions where they disagree are decided with arb balls of the exact
product (:func:`peproof.oracle.common.exact.round_ball`, escalating precision).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from peproof.formats import Format, get_format
from peproof.rope import Rope

from ..common.rowscan import RowScan
from .model import thetas

EPS = 2.0**-50


def _rounded_angles(theta64: float, theta_ball, fmt: Format, p: np.ndarray,
                    exact=None) -> np.ndarray:
    """``RN_F(p * theta)`` for integer positions ``p``, certified (see the module docstring)."""
    x = p * theta64
    r = fmt.round(x)
    lo, hi = fmt.round(x * (1 - EPS)), fmt.round(x * (1 + EPS))
    unsure = np.nonzero((lo != r) | (hi != r))[0]
    if unsure.size:
        import flint

        from ..common.exact import round_ball

        balls: dict = {}  # the frequency's ball at each precision, computed once
        for k in unsure:
            prec = 128
            while True:
                with flint.ctx.workprec(prec):
                    if prec not in balls:
                        balls[prec] = theta_ball(prec)
                    b = balls[prec] * int(p[k])
                    got = round_ball(b, fmt)
                    if got is None and exact is not None and prec >= 512:
                        got = _round_exact(b, exact * int(p[k]), fmt)
                if got is not None:
                    r[k] = got
                    break
                prec *= 2
                if prec > 8192:
                    raise RuntimeError(f"rounding of {int(p[k])} theta undecided at 8192 bits")
    return r


def _round_exact(b, v: Fraction, fmt: Format) -> float | None:
    """An exact rational ``v`` a ball cannot round (it sits on a midpoint: ``1465 * 7/10 =
    1025.5`` in float16), rounded by comparing it exactly with the midpoint of the ball's two
    roundings; a tie goes to the even neighbour (the float64 rounding of the exact midpoint)."""
    from ..common.exact import ball_bounds

    (m1, e1), (m2, e2) = ball_bounds(b)
    a, c = fmt.round_dyadic(m1, e1), fmt.round_dyadic(m2, e2)
    if a == c:
        return a
    mid = (Fraction(a) + Fraction(c)) / 2
    if v != mid:
        return a if v < mid else c
    return float(fmt.round(np.array([float(mid)]))[0])


def first_collision(theta64: float, theta_ball, fmt: Format, limit: int | None = None,
                    exact: Fraction | None = None) -> int:
    """The first position ``p >= 0`` with ``RN_F(p theta) = RN_F((p + 1) theta)`` (certified)."""
    limit = limit or 2 ** (fmt.p + 2)
    lo = 0
    while lo < 2**40:
        p = np.arange(lo, lo + limit + 1, dtype=np.float64)
        r = _rounded_angles(theta64, theta_ball, fmt, p, exact)
        hit = np.nonzero(r[1:] == r[:-1])[0]
        if hit.size:
            return int(p[hit[0]])
        lo += limit
    raise RuntimeError("no collision found below 2**40")


def position_horizon(fmt) -> int:
    """First integer ``p`` with ``RN_F(p) = RN_F(p + 1)``: ``2**prec`` (exact integers; checked by
    the scan with ``theta = 1``)."""
    fmt = get_format(fmt)
    return 2**fmt.p


def angle_horizons(rope, fmt, seq_len=None) -> dict:
    """Horizons of every pair of a :class:`peproof.rope.Rope` in format ``fmt`` (certified)."""
    import flint

    fmt = get_format(fmt)
    ths = thetas(rope, seq_len)
    per = []
    for j in range(rope.pairs):
        if ths[j] == 0.0:
            per.append(None)
            continue

        def ball(prec, j=j):
            with flint.ctx.workprec(prec):
                return rope.theta_arb(j, prec + 32, seq_len)

        per.append(first_collision(float(ths[j]), ball, fmt))
    real = [p for p in per if p is not None]
    one = first_collision(1.0, lambda prec: flint.arb(1), fmt)
    return {
        "dtype": fmt.name,
        "positions_collide_from": one,  # RN(p) = RN(p + 1) first at p = 2**prec
        "positions_exact_up_to": position_horizon(fmt),
        "theta0_angle_collides_from": per[0],
        "first_pair_angle_collision": min(real) if real else None,
        "last_pair_angle_collision": max(real) if real else None,
        "per_pair": per,
        "statement": (f"position p and p+1 give the same {fmt.name} angle RN(p theta_j) first "
                      "at the listed p (exact product rounded once; certified by monotone "
                      "rounding of float64 bounds, arb where undecided)"),
    }


def _collisions(copies, pos) -> dict:
    C, S = copies[0]
    h = C.shape[1]
    scan = RowScan(2 * h, None)
    for k in range(0, C.shape[0], 16384):
        scan.add(k, np.hstack([np.asarray(C[k:k + 16384], np.float64),
                               np.asarray(S[k:k + 16384], np.float64)]))

    class _Rows:
        def __getitem__(self, i):
            return np.concatenate([np.asarray(C[i], np.float64), np.asarray(S[i], np.float64)])

    return scan.collisions(_Rows(), pos)


def _horizon0(rope, fmt, seq_len) -> dict:
    try:
        return _horizon0_(rope, fmt, seq_len)
    except RuntimeError as exc:  # a rounding not decided: the horizon is not stated
        return {"positions_collide_from": None, "positions_exact_up_to": None,
                "theta0_angle_collides_from": None, "undecided": str(exc)}


def _horizon0_(rope, fmt, seq_len) -> dict:
    import flint


    f = get_format(fmt)
    out = {"positions_collide_from": first_collision(1.0, lambda p: flint.arb(1), f),
           "positions_exact_up_to": position_horizon(f)}
    if rope is not None:
        th0 = float(thetas(rope, seq_len)[0])

        def ball(prec):
            with flint.ctx.workprec(prec):
                return rope.theta_arb(0, prec + 32, seq_len)

        t0 = rope.theta(0, seq_len)
        exact = Fraction(int(t0.p), int(t0.q)) if getattr(t0, "is_Rational", False) else None
        out["theta0_angle_collides_from"] = first_collision(th0, ball, f, exact=exact)
    else:
        out["theta0_angle_collides_from"] = None
    return out


def rotary_horizons(d: int = 128, base=10000, dtypes=("float16", "bfloat16")) -> dict:
    """Certified horizons of every pair for a plain RoPE (see the module docstring)."""
    return {f: angle_horizons(Rope(d, base), f) for f in dtypes}
