"""z3 over the reals for statements in ``+, *, /`` and ``pi`` (no trigonometric functions).

Every variable becomes a z3 real (integrality is dropped, which only weakens the hypotheses, so a
proof remains a proof); ``pi`` becomes a real constant with the axiom ``3 < pi < 4``.  Every
denominator is first proved nonzero under the hypotheses (side goals), so z3's total division
never decides anything.  ``hyps & not concl`` unsatisfiable means proved; nothing else is
concluded here: a failed proof is ``unknown`` (:func:`peproof.engines.decide.with_default`
hands it to the default engines, which need a certified witness to refute).
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof.claims import Rel, Statement, Verdict
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.versions import versions
from peproof.engines.z3base import Names, arith, domain_axioms, rel_term

PI_AXIOM = "3 < pi < 4"

#: universal statements in + * / and pi over the reals (integrality of variables dropped)
FRAGMENT = Fragment(
    "real z3",
    nodes={sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("integer exponent",)},
    summary="rational functions of the variables and pi",
)


class _Conv:
    def __init__(self, stmt: Statement):
        names = Names()
        self.vars = {v.symbol: names.real(v.symbol.name) for v in stmt.vars}
        self.pi = names.real("pi")
        self.base = [self.pi > 3, self.pi < 4]
        for v in stmt.vars:
            self.base += domain_axioms(self.vars[v.symbol], v.domain, integral_sort=False,
                                       integrality=False)
        self.dens: list = []

    def conv(self, e: sp.Expr):  # noqa: C901 - flat dispatch
        e = sp.sympify(e)
        if e is sp.pi:
            return self.pi
        if e.is_Symbol:
            return self.vars[e]
        if e is sp.I or e.is_Float:
            raise ValueError(f"{e} is not an exact real number")
        t = arith(e, self.conv)
        if t is not None:
            return t
        if e.is_Pow and e.exp.is_Integer:  # negative exponent: a denominator to prove nonzero
            b, n = self.conv(e.base), int(e.exp)
            out = z3.RealVal(1)
            for _ in range(abs(n)):
                out = out * b
            if n < 0:
                self.dens.append(out)
                return 1 / out
            return out
        raise ValueError(f"{type(e).__name__} is outside + * / pi: {e}")

    def rel(self, r: Rel):
        return rel_term(r.op, self.conv(r.lhs), self.conv(r.rhs))


def _valid(base: list, goal) -> bool:
    s = z3.Solver()
    s.set("timeout", 3000)
    s.add(*base, z3.Not(goal))
    return s.check() == z3.unsat


@entry(FRAGMENT, "z3", "real arithmetic")
def prove(stmt: Statement, checked=None, claim=None) -> Verdict:
    """Proof function: z3 nonlinear real arithmetic (see module docstring)."""
    t0 = time.perf_counter()
    ver = f"z3 {versions()['z3']}"
    try:
        c = _Conv(stmt)
        hyps = [c.rel(h) for h in stmt.hyps]
        hyp_dens = list(c.dens)
        concl = [c.rel(r) for r in stmt.concl]
    except (ValueError, KeyError, z3.Z3Exception) as exc:
        return Verdict("unknown", "z3", ver, "real arithmetic", seconds=time.perf_counter() - t0,
                       reason=f"real z3: not expressible ({exc})")
    base = c.base + hyps
    side = all(_valid(c.base, d != 0) for d in hyp_dens) and all(
        _valid(base, d != 0) for d in c.dens[len(hyp_dens):])
    if side and _valid(base, z3.And(concl)):
        axioms = ("z3 nonlinear real arithmetic (integrality of variables dropped)", PI_AXIOM)
        trace = [f"{len(c.dens)} denominator(s) proved nonzero under the hypotheses",
                 "hypotheses and the negated conclusion are unsatisfiable"]
        return Verdict("proved", "z3", ver, "real arithmetic", axioms,
                       time.perf_counter() - t0, trace=trace)
    return Verdict("unknown", "z3", ver, "real arithmetic", seconds=time.perf_counter() - t0,
                   reason="real z3: not proved" + ("" if side else " (a denominator may vanish)"))
