"""Print ``Piecewise`` and its conditions with the functions of ``lib/Sem.v`` (syntax only).

``Piecewise((v1, c1), (v2, c2), ...)`` is ``opw (cons (c1, v1) (cons (c2, v2) ... nil))``;
a condition is an ``option bool`` term: ``oltb``/``oleb`` for the order relations (``a > b``
is ``oltb b a``), ``oeqb``/``oneb`` for ``Eq``/``Ne``, ``oand``/``oor``/``onot``/``oite`` for
SymPy's ``And``/``Or``/``Not``/``ITE``, ``Some true``/``Some false`` for the constants.  What
each means (where SymPy raises, where it stops evaluating) is stated once in ``Sem.v``.

Special forms, each proved equal to the general one in ``Sem.v``: a relation between two
integer terms is the test of ``Z`` (``oltbZ_oltb``, ...), and, in a goal proved by case split
(:attr:`SemPrinter.zforms`), ``floor(a/p)`` and ``Mod(a, p)`` of an integer term ``a`` at a
positive integer literal ``p`` are ``ofloorZ a p`` and ``omodZ a p`` (``ofloorZ_ofloor``,
``omodZ_omod``).

``Eq``/``Ne`` conditions are printed only between terms built from total operations: SymPy
decides ``Eq(zoo, 0)`` (false) where ``Sem.v``'s ``oeqb`` is undefined, so a partial side is
refused (:class:`~peproof.kernel.coq.semantic.Unprintable`), never given a meaning of ours.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.coqtext import arg as _a
from peproof.kernel.coq.semantic import Unprintable, den_factor

ORDER = {sp.StrictLessThan: ("oltb", False), sp.LessThan: ("oleb", False),
         sp.StrictGreaterThan: ("oltb", True), sp.GreaterThan: ("oleb", True)}
EQUAL = {sp.Equality: "oeqb", sp.Unequality: "oneb"}
#: operations that are defined at every real argument (SymPy's value real, Sem.v's Some)
TOTAL_HEADS = (sp.sin, sp.cos, sp.exp, sp.atan, sp.Abs, sp.floor, sp.ceiling, sp.Max, sp.Min)


def piecewise(sem, e) -> str:
    """``e`` (a ``Piecewise``) as ``opw`` of its branches, in order."""
    out = "nil"
    for value, cond in reversed(e.args):
        out = f"(cons ({condition(sem, cond)}, {sem.term(value)}) {out})"
    return f"opw {out}"


def condition(sem, c) -> str:
    """``c`` (a SymPy boolean) as a ``Sem.v`` condition (``option bool``)."""
    if c is sp.true:
        return "Some true"
    if c is sp.false:
        return "Some false"
    t = type(c)
    if t in ORDER or t in EQUAL:
        a, b = c.args
        if t in ORDER:
            head, flip = ORDER[t]
            if flip:
                a, b = b, a
        else:
            head = EQUAL[t]
            for side in (a, b):
                if not total(side):
                    raise Unprintable(f"{t.__name__} condition over a partial operation "
                                      f"({sp.sstr(side)[:60]}): SymPy decides it where the "
                                      "side is undefined")
        za, zb = sem.pr.zexact(a), sem.pr.zexact(b)
        if za is not None and zb is not None:
            return f"{head}Z {_a(za)} {_a(zb)}"
        return f"{head} {_a(sem.term(a))} {_a(sem.term(b))}"
    if t in (sp.And, sp.Or):
        head = "oand" if t is sp.And else "oor"
        parts = [condition(sem, x) for x in c.args]
        out = parts[0]
        for p in parts[1:]:
            out = f"{head} {_a(out)} {_a(p)}"
        return out
    if t is sp.Not:
        return f"onot {_a(condition(sem, c.args[0]))}"
    if t is sp.ITE:
        return "oite " + " ".join(_a(condition(sem, x)) for x in c.args)
    raise Unprintable(f"condition {t.__name__}")


def total(e) -> bool:
    """Is ``e`` built only from operations defined at every real point (so that SymPy's
    value is a real number wherever its variables are)?"""
    e = sp.sympify(e)
    if e.is_Symbol or e.is_Rational or e is sp.pi or e is sp.E:
        return True
    if e.is_Add:
        return all(total(a) for a in e.args)
    if e.is_Mul:
        return all(total(a) and not den_factor(a) for a in e.args)
    if e.is_Pow:
        b, x = e.args
        if x.is_Integer and x >= 0:
            return total(b)
        if b is sp.E or (b.is_Rational and b > 0):
            return total(x)
        return False
    if isinstance(e, TOTAL_HEADS):
        return all(total(a) for a in e.args)
    if isinstance(e, sp.Mod):
        a, b = e.args
        return total(a) and b.is_Rational and b != 0
    return False


def zfloor(sem, e) -> str | None:
    """``floor(a/p)`` as ``ofloorZ a p`` (``a`` an integer term, ``p`` a positive integer
    literal), else ``None``."""
    arg = e.args[0]
    c, rest = arg.as_coeff_Mul()
    if not (c.is_Rational and c.p == 1 and c.q > 1):
        return None
    z = sem.pr.zexact(rest)
    return None if z is None else f"ofloorZ {_a(z)} {c.q}"


def zmod(sem, e) -> str | None:
    """``Mod(a, p)`` as ``omodZ a p`` (``a`` an integer term, ``p`` a positive integer
    literal), else ``None``."""
    a, p = e.args
    if not (p.is_Integer and p > 0):
        return None
    z = sem.pr.zexact(a)
    return None if z is None else f"omodZ {_a(z)} {int(p)}"
