"""Termwise lifting of sums over one index range to a one-frequency lemma (the default engines').

``sum_i f_i = sum_i g_i`` follows from ``f_i = g_i`` for every ``i`` of the range; the lemma is
proved with every frequency ``b**e_i`` generalised to a fresh positive symbol ``omega`` (a lemma
for every positive ``omega`` covers each ``omega_i``).  Each step's precondition is proved by
:func:`peproof.engines.facts.prove_fact`, never assumed (see :func:`lift`).
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import Rel, Statement
from peproof.engines.facts import prove_fact
from peproof.engines.hygiene import fresh

LIFT_AXIOM = "termwise lifting: (for all i, f_i = g_i) implies sum_i f_i = sum_i g_i"


def _sums(e: sp.Expr) -> list[sp.Sum]:
    return [a for a in sp.preorder_traversal(e) if isinstance(a, sp.Sum)]


def lift(diff: sp.Expr, stmt: Statement | None = None) -> tuple[sp.Expr, list[str]] | None:
    """Reduce ``diff == 0`` with sums over one index range to a termwise lemma ``f_i == 0``.

    ``diff`` must be a linear combination of ``Sum(f_j, (i, lo, hi))`` with the same limits and
    coefficients free of ``i``, plus a remainder ``R`` free of ``i``.  Each step's precondition
    is proved on the domain of ``stmt`` under its hypotheses (without ``stmt``: by the structural
    sign rules only), else there is no lift (``None``):

    * every sum has one index and the same limits ``(lo, hi)`` (a sum whose limits differ is a
      different sum);
    * ``R`` is spread as ``R / (hi - lo + 1)`` per term only when ``hi - lo + 1 >= 1`` is proved
      (an empty range would divide by zero); with ``R = 0`` nothing is divided, and an empty sum
      is 0 on both sides;
    * a power ``b**e_i`` is generalised to a fresh positive symbol ``omega`` only when ``b > 0``
      is proved for ``lo <= i <= hi`` (then ``b**e_i > 0`` and ``b**(r e_i) = omega**r``).

    The range itself (integer limits, ``hi >= lo - 1``) is a side condition of the statement
    (:mod:`peproof.engines.wellformed`).  Every symbol introduced here is a ``Dummy``.
    """
    sums = _sums(diff)
    if not sums:
        return None
    limits = {(s.limits[0][1], s.limits[0][2]) for s in sums}
    if len(limits) != 1 or any(len(s.limits) != 1 for s in sums):
        return None
    lo, hi = next(iter(limits))
    i = fresh("i", integer=True)
    terms = sp.Add.make_args(sp.expand(diff, deep=False, power_exp=False, log=False))
    summand, rest = sp.Integer(0), sp.Integer(0)
    for t in terms:
        coeff, found = sp.Integer(1), None
        for f in sp.Mul.make_args(t):
            if isinstance(f, sp.Sum) and found is None:
                found = f
            else:
                coeff *= f
        if found is None:
            if t.has(sp.Sum):
                return None
            rest += t
            continue
        var = found.limits[0][0]
        summand += coeff * found.function.xreplace({var: i})
    count = sp.expand(hi - lo + 1)
    trace = []
    if rest != 0:
        how = prove_fact("pos", count, stmt)
        if how is None:
            return None
        trace.append(f"lift over i = {lo} .. {hi}: {sp.sstr(count)} >= 1 term(s) ({how}); the "
                     "remainder is spread over the terms")
    else:
        trace.append(f"lift over i = {lo} .. {hi} (no remainder: nothing divided)")
    lemma = summand + rest / count if rest != 0 else summand
    # generalise the frequency: every power whose exponent mentions i and whose base is proved
    # positive becomes a fresh positive omega; powers of one base whose exponents are rational
    # multiples of each other become powers of one omega (so omega_i**2 stays the square)
    in_range = (Rel("<=", lo, i), Rel("<=", i, hi))
    omegas: dict = {}
    units: dict = {}  # base -> (exponent unit, symbol)
    for p in sp.preorder_traversal(lemma):
        if not (isinstance(p, sp.Pow) and p.exp.has(i)) or p in omegas:
            continue
        if p.base in units:
            unit, sym = units[p.base]
            ratio = sp.cancel(p.exp / unit)
            if ratio.is_Rational:
                omegas[p] = sym**ratio
                continue
        elif prove_fact("pos", p.base, stmt, bound=((i, "integer"),), hyps=in_range) is None:
            continue  # base not proved positive: not generalised, the lemma keeps the power
        sym = fresh(f"omega{len(omegas) if omegas else ''}", len(omegas), positive=True)
        units.setdefault(p.base, (p.exp, sym))
        omegas[p] = sym
    lemma = lemma.xreplace(omegas)
    trace += [
        "generalise "
        + (", ".join(f"{sp.sstr(k)} -> {v}" for k, v in omegas.items()) or "nothing")
        + " (positive bases: a lemma for every positive omega covers each omega_i)",
        f"one-frequency lemma (lhs - rhs, termwise): {sp.sstr(lemma)}",
    ]
    return lemma, trace
