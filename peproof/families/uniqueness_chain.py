"""Uniqueness, certified chain: the lowest pair's angle stays inside one turn until K(d).

Main statements
  ``uniqueness.lowest_angle_inside_turn_d4`` ... ``uniqueness.lowest_angle_inside_turn_d1024``:
  for every integer ``1 <= k <= K(d)``, ``0 < omega_min k < 2 pi``; and at ``K(d) + 1`` the
  angle has completed the turn.

Implementation notes
  ``K(d) = floor(2 pi / omega_min)`` is computed in arb (certified: the ball of ``2 pi /
  omega_min`` contains no integer).  Rational enclosures of ``pi`` and of ``omega_min`` are taken
  from 128-bit balls and checked against them; z3 then proves, over the reals with ``k``
  integer, that no ``k`` in ``1..K`` leaves ``(0, 2 pi)`` for any ``pi`` and ``omega`` in the
  enclosures, and that ``omega (K+1) >= 2 pi`` for all of them.  The enclosures are the axioms.

References
  Seed 000, "Every position has a unique representation, over practical lengths".
"""

from __future__ import annotations

import time
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from functools import cache

import flint
import sympy as sp
import z3

from peproof.claims import Claim, Falsifier, Le, Lt, Statement, Verdict, var
from peproof.families._horizon import slowest_is_last_why as _slowest_is_last_why
from peproof.numeric import D_ALL as DS
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, src

k, V_K = var("k", "pos_integer")


@cache
def wrap_count(d: int) -> int:
    """K(d) = floor(2 pi / omega_min), certified in arb."""
    enc = Encoding(d)
    with flint.ctx.workprec(256):
        q = 2 * flint.arb.pi() / enc.omega_arb(enc.pairs - 1, 256)
        lo = int(q.lower().floor().unique_fmpz())
        hi = int(q.upper().floor().unique_fmpz())
    if lo != hi:
        raise ArithmeticError(f"d={d}: 2 pi / omega_min too close to an integer")
    return lo


def omega_min(d: int) -> sp.Expr:
    enc = Encoding(d)
    return enc.omega(enc.pairs - 1)


def _statement(d: int) -> Statement:
    return _statement_for(omega_min(d), wrap_count(d))


def _enclosure(ball: flint.arb) -> tuple[sp.Rational, sp.Rational]:
    """Rationals lo < value < hi, checked against the ball itself."""
    mid = sp.Rational(ball.mid().str(60, radius=False))
    rad = sp.Rational(ball.rad().str(5, radius=False)) * 2 + sp.Rational(1, 10**50)
    lo, hi = mid - rad, mid + rad
    lo_b = flint.arb(flint.fmpq(int(lo.p), int(lo.q)))
    hi_b = flint.arb(flint.fmpq(int(hi.p), int(hi.q)))
    if not (ball > lo_b and hi_b > ball):
        raise ArithmeticError("enclosure not certified")
    return lo, hi


def _outward(lo: sp.Rational, hi: sp.Rational, digits: int = 22) -> str:
    """``[lo, hi]`` as decimals rounded outward from the exact rationals (never via a float,
    whose rounding can print an interval that misses the value)."""
    def dec(r: sp.Rational, rounding) -> str:
        return str(Context(prec=digits, rounding=rounding).divide(Decimal(int(r.p)),
                                                                   Decimal(int(r.q))))

    return f"[{dec(lo, ROUND_FLOOR)}, {dec(hi, ROUND_CEILING)}]"


def _read(stmt: Statement) -> tuple[sp.Expr, int] | None:
    """(omega, K) from a statement of the form ``k <= K: 0 < omega k, omega k < 2 pi``."""
    if len(stmt.hyps) != 1 or len(stmt.concl) != 2 or stmt.vars != (V_K,):
        return None
    bound = stmt.hyps[0]
    if not (bound.op == "<=" and bound.lhs == k and bound.rhs.is_Integer):
        return None
    w = sp.diff(stmt.concl[1].lhs, k)
    if w.free_symbols or stmt.concl != _statement_for(w, int(bound.rhs)).concl:
        return None
    return w, int(bound.rhs)


def _statement_for(w: sp.Expr, K: int) -> Statement:
    return Statement((Lt(0, w * k), Lt(w * k, 2 * sp.pi)), (V_K,), hyps=(Le(k, K),))


def _chain(d: int):
    def proof(stmt: Statement, claim: Claim) -> Verdict:
        """Reads omega and K from the statement it is handed; encloses them in arb."""
        from peproof.kernel.arb import arb_eval

        t0 = time.perf_counter()
        read = _read(stmt)
        if read is None:
            return Verdict("unknown", "z3+arb", z3.get_version_string(), "certified chain",
                           reason="statement is not of the form k <= K: 0 < w k < 2 pi")
        w, K = read
        with flint.ctx.workprec(256):
            p_lo, p_hi = _enclosure(flint.arb.pi())
            w_lo, w_hi = _enclosure(arb_eval(w, {}, 256))
        P, W, kk = z3.Real("pi"), z3.Real("omega"), z3.Int("k")
        bounds = [P >= z3.Q(int(p_lo.p), int(p_lo.q)), P <= z3.Q(int(p_hi.p), int(p_hi.q)),
                  W >= z3.Q(int(w_lo.p), int(w_lo.q)), W <= z3.Q(int(w_hi.p), int(w_hi.q))]
        kr = z3.ToReal(kk)
        inside = z3.Solver()
        inside.add(*bounds, kk >= 1, kk <= K, z3.Not(z3.And(W * kr > 0, W * kr < 2 * P)))
        r1 = inside.check()
        wrapped = z3.Solver()
        wrapped.add(*bounds, W * (K + 1) < 2 * P)
        r2 = wrapped.check()
        secs = time.perf_counter() - t0
        axioms = (
            f"pi in {_outward(p_lo, p_hi)} (arb enclosure, checked)",
            f"omega_min in {_outward(w_lo, w_hi)} (arb enclosure, checked)",
            "z3 nonlinear real/integer arithmetic",
        )
        trace = [
            f"K = {K} read from the statement; K({d}) = floor(2 pi / omega_min) = "
            f"{wrap_count(d)} certified in arb",
            f"z3: exists k in 1..{K} with omega k outside (0, 2 pi)? {r1}",
            f"z3: omega ({K}+1) < 2 pi possible? {r2} -> the turn is complete at k = {K + 1}",
        ]
        if r1 == z3.unsat and r2 == z3.unsat:
            return Verdict("proved", "z3+arb", z3.get_version_string(), "certified chain",
                           axioms, secs, trace=trace)
        return Verdict("unknown", "z3+arb", z3.get_version_string(), "certified chain",
                       axioms, secs, trace=trace, reason="z3 did not close the chain")

    return proof


def _claim(d: int) -> Claim:
    return Claim(
        f"uniqueness.lowest_angle_inside_turn_d{d}",
        f"d = {d}: for 1 <= k <= K(d) the lowest pair's angle omega_min k lies in (0, 2 pi); "
        "at K(d) + 1 it has completed the turn",
        src(FOURIER, "Every position has a unique representation",
            "this angle is distinct for every position until it completes a full turn"),
        lambda d=d: _statement(d),
        "inequality",
        uses=("uniqueness.slowest_pair_wraps_at_exact_position",),
        falsifiers=lambda st, d=d: (
            Falsifier("no_wrap_at_k_plus_one",
                      Statement(Lt(omega_min(d) * (wrap_count(d) + 1), 2 * sp.pi)),
                      "still inside the turn at K(d)+1"),
            Falsifier("wrap_before_k",
                      Statement(Le(2 * sp.pi, omega_min(d) * wrap_count(d))),
                      "already wrapped at K(d)"),
        ),
        note="K(d) is computed in arb when the claim is built, never typed",
        proof=_chain(d),
    )


CLAIMS = [_claim(d) for d in DS]


#: why pair d/2 - 1 is not the slowest for the law in force, read at import ('' when it is)
_SLOWEST_WHY = _slowest_is_last_why()


def build(variant=None) -> list[Claim]:
    """The claims for ``variant``: not applicable, saying why, when the frequencies grow with the
    pair index (nerf), where "the lowest angle" of these statements is the fastest pair's."""
    if not _SLOWEST_WHY:
        return CLAIMS
    from peproof.variant_claims import not_applicable

    return [not_applicable(c, _SLOWEST_WHY) for c in CLAIMS]
