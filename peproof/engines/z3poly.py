"""z3 on the polynomial abstraction of a statement.

Every ``sin(u)`` / ``cos(u)`` becomes a real variable ``s_u`` / ``c_u`` with the axiom
``s_u**2 + c_u**2 = 1``; every other non-polynomial subterm (``pi``, ``base**(-2i/d)``, ``exp``)
becomes an opaque real (with the sign the structural rules of :mod:`peproof.engines.signs`
give, recorded as an axiom); ``sqrt(x)`` becomes ``r`` with ``x >= 0 -> (r >= 0, r**2 = x)``;
``floor``, ``ceiling``, ``Mod`` are exact (SymPy's meaning, :mod:`peproof.engines.z3base`).
Division and square roots are never axioms: that a denominator is non-zero (a radicand
non-negative) is part of what is proved.  The imaginary unit is refused (a complex term is not a
real variable).  The universal statement is proved when
``hyps & axioms & not(concl)`` is unsatisfiable.  Dropping information only weakens the
hypotheses, so ``unsat`` is a proof of the original statement; ``sat`` proves nothing about the
original (the abstraction forgets how the angles are related) and is reported as such.

Statements without trigonometric atoms whose variables are all integers are sent to z3 over
the integers (linear integer arithmetic is decided completely by z3).
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof.claims import Rel, Statement, Verdict
from peproof.engines import signs, z3base
from peproof.engines.fragment import CONDITIONS, Fragment
from peproof.engines.z3base import (
    INT_DOMAINS,
    Names,
    arith,
    domain_axioms,
    integral_statement,
    rel_term,
)

z3.set_param("model_validate", True)  # a sat answer comes with a model z3 re-checked

#: universal statements over real terms: arithmetic, sqrt, Abs, Max, Min, floor, ceiling, Mod
#: translated exactly; every other real term (sin, cos with s^2 + c^2 = 1, exp, log, powers,
#: sums, Piecewise, functions of one's own) an opaque real with the sign the structural rules
#: give; no I
FRAGMENT = Fragment(
    "z3 polynomial abstraction",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("any",), sp.Abs: ("any",),
        sp.Max: ("any",), sp.Min: ("any",), sp.floor: ("any",), sp.ceiling: ("any",),
        sp.Mod: ("any",), sp.Piecewise: ("any",), sp.Sum: ("any",),
        sp.Function: ("any",), **CONDITIONS,
    },
    summary="real arithmetic with sqrt, Abs, Max, Min, floor, ceiling, Mod exact; any other "
            "real term an opaque atom",
)


class _Abstraction:
    def __init__(self, stmt: Statement, use_int: bool):
        self.stmt = stmt
        self.use_int = use_int
        self.names = Names()
        self.vars = {}
        self.domains = {v.symbol: v.domain for v in stmt.vars}
        self.atoms: dict[sp.Expr, z3.ArithRef] = {}
        self.axioms: list = []
        self.axiom_text: list[str] = []
        self.obligations: list = []  # definedness of the terms translated (to be proved)
        for v in stmt.vars:
            mk = z3.Int if use_int and v.domain in INT_DOMAINS else z3.Real
            zv = mk(self.names(str(v.symbol)))
            self.vars[v.symbol] = zv
            self._domain(v, zv)

    def _domain(self, v, zv):
        self.axioms += domain_axioms(zv, v.domain, integral_sort=zv.is_int(), integrality=True)

    def _atom(self, e: sp.Expr, kind: str):
        if e in self.atoms:
            return self.atoms[e]
        z = self.names.real(kind)
        self.atoms[e] = z
        fact = signs.sign(e, self.domains)
        cond = z3base.sign_axiom(z, fact)
        if cond is not None:
            self.axioms.append(cond)
            self.axiom_text.append(f"{sp.sstr(e)} is {fact} (structural sign rule)")
        return z

    def _trig(self, e):
        u = e.args[0]
        s = self._atom(sp.sin(u, evaluate=False), "s")
        c = self._atom(sp.cos(u, evaluate=False), "c")
        key = ("pyth", u)
        if key not in self.atoms:
            self.atoms[key] = None
            self.axioms.append(s * s + c * c == 1)
            self.axiom_text.append(f"sin({sp.sstr(u)})**2 + cos({sp.sstr(u)})**2 = 1")
        return s if isinstance(e, sp.sin) else c

    def _real(self, x):
        return z3.ToReal(x) if x.is_int() and not self.use_int else x

    def conv(self, e):  # noqa: C901 - flat dispatch
        e = sp.sympify(e)
        if e.is_Symbol and e in self.vars:
            return self.vars[e]
        if e.is_Float:
            raise TypeError(f"{e} is not an exact number")
        term = arith(e, self.conv, use_int=self.use_int)
        if term is not None:
            return term
        if e.is_Pow and e.exp.is_Integer:  # negative exponent: real division, base proved != 0
            b = self.conv(e.base)
            den = b
            for _ in range(-int(e.exp) - 1):
                den = den * b
            self.obligations.append(b != 0)
            return z3.RealVal(1) / den  # real division, never integer division
        if e.is_Pow and e.exp == sp.Rational(1, 2):
            r = self._atom(e, "r")
            x = self.conv(e.base)
            self.axioms.append(z3.Implies(x >= 0, z3.And(r >= 0, r * r == x)))
            self.obligations.append(x >= 0)
            self.axiom_text.append(f"{sp.sstr(e)} >= 0 and its square is {sp.sstr(e.base)} "
                                   "(where the base is >= 0)")
            return r
        if isinstance(e, sp.sin | sp.cos):
            return self._trig(e)
        if isinstance(e, sp.Abs):
            x = self.conv(e.args[0])
            return z3.If(x >= 0, x, -x)
        if isinstance(e, sp.Max | sp.Min):
            xs = [self.conv(a) for a in e.args]
            pick = (lambda p, q: p >= q) if isinstance(e, sp.Max) else (lambda p, q: p <= q)
            out = xs[0]
            for x in xs[1:]:
                out = z3.If(pick(out, x), out, x)
            return out
        if isinstance(e, sp.floor | sp.ceiling):
            x = self.conv(e.args[0])
            return self._real((z3base.floor if isinstance(e, sp.floor) else z3base.ceiling)(x))
        if isinstance(e, sp.Mod):
            a, b = (self.conv(x) for x in e.args)
            self.obligations.append(b != 0)
            if a.is_int() != b.is_int():
                a, b = z3base._real(a), z3base._real(b)
            return self._real(z3base.mod(a, b))
        if e.has(sp.I):
            raise TypeError(f"complex subterm {sp.sstr(e)[:60]}")
        return self._atom(e, "t")

    def rel(self, r: Rel):
        return rel_term(r.op, self.conv(r.lhs), self.conv(r.rhs))


def has_trig(stmt: Statement) -> bool:
    rels = stmt.concl + stmt.hyps
    return any(r.lhs.has(sp.sin, sp.cos) or r.rhs.has(sp.sin, sp.cos) for r in rels)


def prove(stmt: Statement, timeout_ms: int = 3000, rlimit: int | None = None
          ) -> tuple[str, list[str], float, str]:
    """``('proved'|'sat'|'unknown', axioms, seconds, detail)`` for a universal ``stmt``.

    Proved means: the hypotheses, the axioms and the negation of (conclusions and the
    definedness of their terms: denominators != 0, square roots of numbers >= 0) are
    unsatisfiable.  ``rlimit`` (z3 resource units) makes the answer independent of the load."""
    t0 = time.perf_counter()
    if stmt.quant != "forall":  # unsat of the negation proves a universal statement only
        return "unknown", [], 0.0, f"{stmt.quant} statement: not decided by this engine"

    use_int = (not has_trig(stmt) and all(v.domain in INT_DOMAINS for v in stmt.vars)
               and integral_statement(stmt))
    ab = _Abstraction(stmt, use_int)
    try:
        hyps = [ab.rel(h) for h in stmt.hyps]
        ab.obligations = []  # hypotheses were checked by the well-formedness layer
        concl = z3.And([ab.rel(c) for c in stmt.concl] + ab.obligations)
    except (z3.Z3Exception, TypeError) as exc:
        return "unknown", [], time.perf_counter() - t0, f"not expressible in z3: {exc}"
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    if rlimit is not None:
        s.set("rlimit", rlimit)
    s.add(*ab.axioms, *hyps, z3.Not(concl))
    res = s.check()
    secs = time.perf_counter() - t0
    theory = "linear/nonlinear integer arithmetic" if use_int else "nonlinear real arithmetic"
    axioms = [f"z3 {theory} over the polynomial abstraction"] + ab.axiom_text
    if res == z3.unsat:
        return "proved", axioms, secs, "negation unsatisfiable"
    if res == z3.sat:
        return "sat", axioms, secs, f"abstract model {s.model()} (may be spurious)"
    return "unknown", axioms, secs, f"z3 returned unknown: {s.reason_unknown()}"


def prove_integer(expr: sp.Expr, stmt: Statement, rlimit: int | None = None) -> str:
    """``'proved'`` when ``expr`` takes integer values at every point of the domain satisfying
    the hypotheses (z3: ``IsInt``, integer variables constrained by their domains)."""
    ab = _Abstraction(stmt, use_int=False)
    try:
        hyps = [ab.rel(h) for h in stmt.hyps]
        ab.obligations = []
        goal = z3.And([z3.IsInt(ab._real(ab.conv(expr)))] + ab.obligations)
    except (z3.Z3Exception, TypeError):
        return "unknown"
    s = z3.Solver()
    s.set("timeout", 3000)
    if rlimit is not None:
        s.set("rlimit", rlimit)
    s.add(*ab.axioms, *hyps, z3.Not(goal))
    return "proved" if s.check() == z3.unsat else "unknown"


def version() -> str:
    return z3.get_version_string()


def poly_to_z3(expr: sp.Expr, symbols: dict):
    """A polynomial with rational coefficients as a z3 real term (``symbols``: SymPy -> z3)."""
    p = sp.Poly(sp.expand(expr), *symbols.keys())
    if not p.domain.is_QQ and not p.domain.is_ZZ:
        raise ValueError(f"coefficients not rational: {p.domain}")
    terms = []
    for monom, coeff in p.terms():
        t = z3.Q(int(sp.Rational(coeff).p), int(sp.Rational(coeff).q))
        for s, e in zip(symbols.values(), monom, strict=True):
            for _ in range(e):
                t = t * s
        terms.append(t)
    return z3.Sum(terms) if terms else z3.RealVal(0)


def decide(stmt: Statement, checked=None) -> Verdict:
    """This abstraction as an engine (core of its entry in :mod:`peproof.engines.registry`):
    ``proved`` when the negation is unsatisfiable; a ``sat`` abstraction proves nothing about
    the statement (``unknown``)."""
    res, axioms, secs, detail = prove(stmt)
    if res == "proved":
        return Verdict("proved", "z3", version(), "polynomial abstraction", tuple(axioms), secs,
                       trace=[f"z3: {detail}"])
    return Verdict("unknown", "z3", version(), "polynomial abstraction", tuple(axioms), secs,
                   reason=f"z3 {res}: {detail}")
