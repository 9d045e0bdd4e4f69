"""Pieces shared by the z3 translators (z3poly, z3trig, realz3, powers).

Each translator decides what a non-arithmetic node means (a trig atom, ``pi``, a power of a
base); the arithmetic core and the axioms that a variable's domain contributes are the same for
all of them, and live here once.
"""

from __future__ import annotations

from functools import reduce

import sympy as sp
import z3

INT_DOMAINS = frozenset({"integer", "nonneg_integer", "pos_integer", "even_pos_integer"})


def domain_axioms(zv, domain: str, *, integral_sort: bool, integrality: bool) -> list:
    """Axioms of a variable's domain.

    ``integral_sort``: the z3 variable is an Int (then evenness is ``zv % 2 == 0``);
    ``integrality``: a Real variable of an integer domain is constrained by ``IsInt``.
    Leaving integrality out only weakens the hypotheses (a proof stays a proof).
    """
    out = []
    if domain in ("pos_real", "pos_integer"):
        out.append(zv > 0)
    elif domain == "nonneg_integer":
        out.append(zv >= 0)
    elif domain == "even_pos_integer":
        out.append(zv >= 2)
        if integral_sort:
            out.append(zv % 2 == 0)
    if domain in INT_DOMAINS and integrality and not integral_sort:
        out.append(z3.IsInt(zv))
        if domain == "even_pos_integer":
            out.append(z3.IsInt(zv / 2))
    return out


def arith(e: sp.Expr, rec, *, use_int: bool = False):
    """The z3 term of an arithmetic node (number, sum, product, power with a natural exponent)
    whose children are translated by ``rec``; ``None`` for any other node."""
    if e.is_Integer:
        return z3.IntVal(int(e)) if use_int else z3.RealVal(int(e))
    if e.is_Rational:
        return z3.Q(int(e.p), int(e.q))
    if e.is_Add:
        return z3.Sum([rec(a) for a in e.args])
    if e.is_Mul:
        return reduce(lambda x, y: x * y, [rec(a) for a in e.args])
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        b, n = rec(e.base), int(e.exp)
        one = z3.IntVal(1) if use_int else z3.RealVal(1)
        return reduce(lambda x, y: x * y, [b] * n, one) if n else one
    return None


def rel_term(op: str, a, b):
    return {"==": a == b, "<=": a <= b, "<": a < b, "!=": a != b}[op]
