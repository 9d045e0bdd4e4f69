"""Exact arithmetic in a cyclotomic field, for closed trigonometric sums at rational angles.

A closed expression built from rationals, ``I``, ``+``, ``*``, integer powers, finite ``Sum`` s
with concrete limits and ``sin``/``cos`` of rational multiples of ``pi`` is an element of
``Q(zeta_M)``, ``zeta_M = exp(2 pi i / M)`` with ``M`` a multiple of 4 and of twice every
angle's denominator: ``cos(q pi) = (z^e + z^-e)/2``, ``sin(q pi) = (z^e - z^-e)/(2i)`` with
``e = q M / 2`` and ``i = z^(M/4)``.  Elements are polynomials with rational coefficients reduced
modulo the cyclotomic polynomial ``Phi_M`` (python-flint ``fmpq_poly``); since ``Phi_M`` is the
minimal polynomial of ``zeta_M``, the reduced polynomial is zero exactly when the number is.
No floating point and no simplifier is involved.
"""

from __future__ import annotations

import math
import time

import flint
import sympy as sp

from peproof.claims import Statement, Verdict
from peproof.engines import witness
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.versions import versions
from peproof.kernel.arb import Unsupported

#: closed universal statements (no variable; hypotheses not read), == and != between sums,
#: products and integer powers of rationals, I, sin/cos of rational multiples of pi (sums
#: with integer limits: the angle linear in the summation indices)
FRAGMENT = Fragment(
    "cyclotomic",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("natural exponent",),
        sp.sin: ("multiple of pi",), sp.cos: ("multiple of pi",),
        sp.Sum: ("concrete limits",),
    },
    relations=("==", "!="), hypotheses="ignored", closed=True,
    leaves=("symbol", "rational", "pi", "I"), sign_free=True,
    summary="closed sums and products of rationals, I, sin/cos of rational multiples of pi",
)


def _angles(expr: sp.Expr) -> list[sp.Expr]:
    return [sp.expand(a.args[0] / sp.pi) for a in expr.atoms(sp.sin, sp.cos)]


def field_order(exprs) -> int:
    """The ``M`` of a field ``Q(zeta_M)`` containing every given expression's value."""
    m = 4
    for e in exprs:
        for q in _angles(e):
            for t in sp.Add.make_args(q):
                c, _ = t.as_coeff_Mul()
                if not c.is_Rational:
                    raise Unsupported(f"angle {q} pi is not a rational multiple of pi")
                m = math.lcm(m, 2 * int(sp.Rational(c).q))
    return m


class Field:
    """``Q(zeta_M)`` with elements as ``fmpq_poly`` reduced modulo ``Phi_M``."""

    def __init__(self, m: int):
        self.m = m
        self.phi = flint.fmpq_poly(list(flint.fmpz_poly.cyclotomic(m).coeffs()))
        self.i = self.power(m // 4)

    def power(self, e: int) -> flint.fmpq_poly:
        coeffs = [0] * (e % self.m + 1)
        coeffs[e % self.m] = 1
        return flint.fmpq_poly(coeffs) % self.phi

    def const(self, q) -> flint.fmpq_poly:
        q = sp.Rational(q)
        return flint.fmpq_poly([flint.fmpq(int(q.p), int(q.q))])

    def ev(self, e: sp.Expr, env: dict) -> flint.fmpq_poly:  # noqa: C901 - flat dispatch
        if e.is_Rational:
            return self.const(e)
        if e is sp.I:
            return self.i
        if e.is_Symbol:
            if e in env:
                return self.const(env[e])
            raise Unsupported(f"free symbol {e}")
        if e.is_Add:
            acc = self.const(0)
            for a in e.args:
                acc += self.ev(a, env)
            return acc
        if e.is_Mul:
            acc = self.const(1)
            for a in e.args:
                acc = (acc * self.ev(a, env)) % self.phi
            return acc
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            base, acc = self.ev(e.base, env), self.const(1)
            for _ in range(int(e.exp)):
                acc = (acc * base) % self.phi
            return acc
        if isinstance(e, sp.sin | sp.cos):
            q = sp.expand(e.args[0] / sp.pi).xreplace({k: sp.Integer(v) for k, v in env.items()})
            if not q.is_Rational or (q * self.m / 2).q != 1:
                raise Unsupported(f"angle {q} pi not in Q(zeta_{self.m})")
            k = int(q * self.m / 2)
            zp, zm = self.power(k), self.power(-k)
            if isinstance(e, sp.cos):
                return (zp + zm) * flint.fmpq(1, 2)
            return ((zp - zm) * self.i * flint.fmpq(-1, 2)) % self.phi
        if isinstance(e, sp.Sum) and len(e.limits) == 1:
            var, lo, hi = e.limits[0]
            lo, hi = (sp.sympify(x).xreplace(env) for x in (lo, hi))
            if not (lo.is_Integer and hi.is_Integer):
                raise Unsupported("summation limits not concrete")
            if hi < lo - 1:  # one convention for every engine: reversed ranges are undefined
                raise Unsupported(f"reversed summation range {lo} .. {hi}")
            acc = self.const(0)
            for t in range(int(lo), int(hi) + 1):
                acc += self.ev(e.function, {**env, var: t})
            return acc
        raise Unsupported(f"{type(e).__name__} outside the cyclotomic fragment: {e}")


@entry(FRAGMENT, "cyclotomic", "exact cyclotomic arithmetic")
def proof(stmt: Statement, checked=None, claim=None) -> Verdict:
    """Decide closed equalities / disequalities exactly in ``Q(zeta_M)``; a relation that
    fails exactly is refuted at the empty point, certified in arb."""
    t0 = time.perf_counter()
    ver = f"python-flint {versions()['python-flint']}"
    try:
        field = Field(field_order([r.lhs - r.rhs for r in stmt.concl]))
        bad = []
        for r in stmt.concl:
            zero = field.ev(sp.expand(r.lhs - r.rhs, deep=False, mul=False), {}) == 0
            if (r.op == "==") != zero:
                bad.append(r)
    except Unsupported as exc:
        return Verdict("unknown", "cyclotomic", ver, "exact cyclotomic arithmetic",
                       reason=str(exc), seconds=time.perf_counter() - t0)
    trace = [f"field Q(zeta_{field.m}), elements reduced modulo Phi_{field.m}",
             f"{len(stmt.concl)} relation(s) decided exactly"]
    if bad:
        w = witness.find_counterexample(stmt.with_concl(bad))
        if w:
            return Verdict("refuted", "cyclotomic+arb", ver, "fails exactly, certified in arb",
                           witness=w, seconds=time.perf_counter() - t0,
                           trace=trace + [f"{len(bad)} relation(s) fail exactly"])
        return Verdict("unknown", "cyclotomic", ver, "exact cyclotomic arithmetic",
                       seconds=time.perf_counter() - t0, trace=trace,
                       reason=f"{bad[0]} fails exactly; no certified witness in arb")
    return Verdict("proved", "cyclotomic", ver, "exact cyclotomic arithmetic",
                   ("Phi_M is irreducible over Q (so the reduction is a normal form)",),
                   time.perf_counter() - t0, trace=trace)
