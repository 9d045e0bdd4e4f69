"""Pieces shared by the z3 translators (z3poly, z3trig, realz3, powers).

Each translator decides what a non-arithmetic node means (a trig atom, ``pi``, a power of a
base); the arithmetic core, the axioms that a variable's domain contributes, the names of z3
constants and the exact meaning of SymPy's ``floor``, ``ceiling`` and ``Mod`` are the same for
all of them, and live here once.

Names.  z3 identifies constants by name and sort, so a name derived from a user's symbol (``w0``,
``s0``, ``pi``) could be the same constant as an engine's internal one.  Every constant of a
query is named by one :class:`Names` counter (``label!n``, ``n`` unique in the query): two
constants never share a name, whatever the user called their symbols.

``floor``, ``ceiling`` and ``Mod`` follow SymPy: ``Mod(a, b) = a - b*floor(a/b)`` takes the sign
of ``b`` (z3's integer ``%`` is the Euclidean remainder, always ``>= 0``); ``floor`` is z3's
``ToInt``.  ``Mod(a, 0)`` is undefined (SymPy: nan); translators add ``b != 0`` to what they must
prove, never as an axiom.
"""

from __future__ import annotations

from functools import reduce

import sympy as sp
import z3

from peproof.claims import INT_DOMAINS  # noqa: F401 - re-exported to the translators


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


def arith(e: sp.Expr, rec, *, use_int: bool = False, ctx: z3.Context | None = None):
    """The z3 term of an arithmetic node (number, sum, product, power with a natural exponent)
    whose children are translated by ``rec``; ``None`` for any other node.  Constants are made
    in ``ctx`` (None: z3's main context)."""
    if e.is_Integer:
        return z3.IntVal(int(e), ctx) if use_int else z3.RealVal(int(e), ctx)
    if e.is_Rational:
        return z3.Q(int(e.p), int(e.q), ctx)
    if e.is_Add:
        return z3.Sum([rec(a) for a in e.args])
    if e.is_Mul:
        return reduce(lambda x, y: x * y, [rec(a) for a in e.args])
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        b, n = rec(e.base), int(e.exp)
        one = z3.IntVal(1, ctx) if use_int else z3.RealVal(1, ctx)
        return reduce(lambda x, y: x * y, [b] * n, one) if n else one
    return None


class Names:
    """Fresh z3 constant names for one query: ``label!n`` with ``n`` counting up, so no two
    constants of the query can coincide (user symbols and engine atoms alike)."""

    def __init__(self, ctx: z3.Context | None = None):
        self.n = 0
        self.ctx = ctx  # None: z3's main context

    def __call__(self, label: str) -> str:
        self.n += 1
        return f"{label}!{self.n}"

    def real(self, label: str):
        return z3.Real(self(label), self.ctx)

    def int(self, label: str):
        return z3.Int(self(label), self.ctx)


def _real(x):
    return z3.ToReal(x) if x.is_int() else x


def floor(x):
    """SymPy's ``floor`` (z3's ``ToInt`` rounds towards minus infinity)."""
    return x if x.is_int() else z3.ToInt(x)


def ceiling(x):
    return x if x.is_int() else -z3.ToInt(-x)


def mod(a, b):
    """SymPy's ``Mod(a, b) = a - b*floor(a/b)``: zero or of the sign of ``b`` (for ``b != 0``)."""
    if a.is_int() and b.is_int():
        r = a % b  # SMT-LIB: 0 <= r < |b|, and a - r divisible by b
        return z3.If(z3.Or(b > 0, r == 0), r, r + b)
    a, b = _real(a), _real(b)
    return a - b * z3.ToReal(z3.ToInt(a / b))


def sign_axiom(z, fact: str | None):
    """The z3 constraint saying ``z`` has the sign fact ``fact`` (of
    :mod:`peproof.engines.signs`), or None."""
    return {"pos": z > 0, "neg": z < 0, "nonneg": z >= 0, "nonpos": z <= 0,
            "nonzero": z != 0}.get(fact)


def rel_term(op: str, a, b):
    return {"==": a == b, "<=": a <= b, "<": a < b, "!=": a != b}[op]


def integral_statement(stmt) -> bool:
    """No division and only integer constants: safe to translate over z3's integers."""
    def ok(a) -> bool:
        if isinstance(a, sp.floor):  # floor(num/den) with a positive integer den is integral
            num, den = a.args[0].as_numer_denom()
            return bool(den.is_Integer and den > 0) and ok(num)
        if isinstance(a, sp.Piecewise):
            return all(ok(v) and ok(c) for v, c in a.args)
        if isinstance(a, sp.Mul) and any(x.is_Rational and not x.is_Integer for x in a.args):
            return False
        if a.is_Rational and not a.is_Integer:
            return False
        if a.is_Pow and (not a.exp.is_Integer or a.exp < 0):
            return False
        if a.is_Float or a is sp.pi:
            return False
        return all(ok(x) for x in a.args)

    return all(ok(e) for r in stmt.concl + stmt.hyps for e in (r.lhs, r.rhs))
