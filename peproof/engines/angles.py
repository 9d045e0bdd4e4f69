"""Separation on an interval: ``||f(p) - f(q)||^2 > 0`` from one (sin, cos) pair of period-type
frequency ``omega = c * pi`` (``c`` rational), decided by an identity, an axiom and z3.

For a statement ``forall p, q real; hyps (linear bounds, p != q): 0 < sum_j (g_j(p) - g_j(q))^2``
(every ``g_j`` a sine or cosine of ``omega_j * var``):

1. pick a frequency ``omega = c * pi`` whose sine *and* cosine both occur; the identity
   ``(sin wp - sin wq)^2 + (cos wp - cos wq)^2 = 2 - 2 cos(w (p - q))`` is decided by the
   exponential procedure;
2. axiom: ``cos x <= 1``, with equality only for ``x`` in ``2 pi Z``; so the pair is ``> 0``
   unless ``c (p - q) = 2 m`` for an integer ``m``;
3. z3 (linear arithmetic over reals and integers, complete) shows that the hypotheses and
   ``c (p - q) = 2 m``, ``m`` integer, are unsatisfiable;
4. the other terms are squares of real expressions (checked on the syntax), hence ``>= 0``.

Nothing is concluded from a failed step: the verdict is then ``unknown``.
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof.claims import Claim, Statement, Verdict
from peproof.engines import expoly
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.versions import versions
from peproof.engines.z3poly import _Abstraction

AXIOM = "cos x <= 1 for real x, and cos x = 1 only if x is an integer multiple of 2 pi"

#: forall p, q real, linear hypotheses: 0 < a sum of squares of polynomials in sin, cos of
#: real linear forms
FRAGMENT = Fragment(
    "pair separation",
    nodes={sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("integer exponent",),
           sp.sin: ("trig-free",), sp.cos: ("trig-free",)},
    relations=("<", "!="), domains=("real",),
    summary="0 < sum of squares of polynomials in sin, cos, for two real variables",
)


def _trig_of(base: sp.Expr, var: sp.Symbol) -> list[tuple[type, sp.Expr]]:
    """The (function, frequency) of the trigonometric atoms of ``base`` in ``var``."""
    out = []
    for a in base.atoms(sp.sin, sp.cos):
        if a.args[0].free_symbols == {var}:
            out.append((type(a), sp.expand(a.args[0] / var)))
    return out


def _unknown(reason: str, trace: list[str], t0: float) -> Verdict:
    return Verdict("unknown", "sympy-exp+z3", f"sympy {versions()['sympy']}", "pair separation",
                   seconds=time.perf_counter() - t0, trace=trace, reason=reason)


@entry(FRAGMENT, "sympy-exp+z3", "pair separation")
def prove_separation(stmt: Statement, checked=None, claim: Claim | None = None) -> Verdict:
    """Proof function for the separation statements described in the module docstring."""
    t0 = time.perf_counter()
    trace: list[str] = []
    if len(stmt.vars) != 2 or len(stmt.concl) != 1 or stmt.quant != "forall":
        return _unknown("expects forall p, q: one conclusion", trace, t0)
    p, q = (v.symbol for v in stmt.vars)
    rel = stmt.concl[0]
    if rel.op != "<" or rel.lhs != 0:
        return _unknown("conclusion is not 0 < sum of squares", trace, t0)
    terms = sp.Add.make_args(rel.rhs)
    if not all(isinstance(t, sp.Pow) and t.exp == 2 and t.base.is_real for t in terms):
        return _unknown("not a sum of squares of real expressions", trace, t0)
    by_freq: dict[sp.Expr, dict[type, sp.Expr]] = {}
    for t in terms:
        for fn, w in _trig_of(t.base, p):
            by_freq.setdefault(w, {})[fn] = t
    for w in sorted(by_freq, key=sp.default_sort_key):
        c = w / sp.pi
        if sp.cos not in by_freq[w] or sp.sin not in by_freq[w] or not c.is_Rational:
            continue
        pair_terms = (by_freq[w][sp.sin], by_freq[w][sp.cos])
        ident = expoly.expand_is_zero(sp.Add(*pair_terms) - (2 - 2 * sp.cos(w * (p - q))))
        if not ident.zero:
            continue
        trace.append(f"pair at omega = {sp.sstr(w)}: its two squares = 2 - 2 cos({sp.sstr(w)} "
                     f"(p - q)) (exponential procedure)")
        ab = _Abstraction(stmt, use_int=False)
        solver = z3.Solver()
        solver.set("timeout", 2000)
        mm = ab.names.int("m")
        zp, zq = ab.vars[p], ab.vars[q]
        solver.add(*ab.axioms, *[ab.rel(hh) for hh in stmt.hyps])
        solver.add(z3.Q(int(c.p), int(c.q)) * (zp - zq) == 2 * z3.ToReal(mm))
        res = solver.check()
        if res != z3.unsat:
            trace.append(f"z3: {res} for c (p - q) = 2m")
            continue
        trace += [
            f"z3: hypotheses and {sp.sstr(c)} (p - q) = 2 m, m integer, unsatisfiable, so "
            f"cos({sp.sstr(w)} (p - q)) < 1 and the pair is > 0",
            f"the other {len(terms) - 2} term(s) are squares, >= 0",
        ]
        return Verdict(
            "proved", "sympy-exp+z3", f"sympy {versions()['sympy']}, z3 {versions()['z3']}",
            "pair separation: identity, cos = 1 only on 2 pi Z, z3 linear integer/real",
            axioms=(AXIOM, "z3 linear real/integer arithmetic"),
            seconds=time.perf_counter() - t0, trace=trace,
        )
    return _unknown("no (sin, cos) pair at a rational multiple of pi separates p and q",
                    trace, t0)
