"""A user's statement must not lose, on construction, a condition its written terms have.

SymPy evaluates while it builds: ``x/x`` becomes ``1``, ``sqrt(x)**2`` becomes ``x``,
``exp(log(x))`` becomes ``x``.  The written term is undefined somewhere (``x = 0``, ``x < 0``,
``x <= 0``) and, by the project's convention, a relation with an undefined side is false there;
the built term is defined everywhere.  Deciding the built statement would prove
``x/x == 1`` for every real ``x`` -- a wrong ``proved`` for the statement the user wrote.

:func:`dropped` compares the definedness conditions of the written relation (the same text
built with SymPy's evaluation off) with those of the built one.  A condition is:

* a divisor or a base with a negative integer exponent that must not be 0 (each factor of it);
* a base with a non-integer exponent (``sqrt`` included) that must be ``>= 0`` (``> 0`` when
  the exponent is negative), a power with a symbolic exponent (its base and exponent);
* the argument of ``log`` (``> 0``) and of ``tan`` (``cos != 0``), the divisor of ``Mod``.

A condition of the written relation that the built one lacks, and that SymPy cannot show to hold
for every value of the declared domains (``x**2 >= 0``: ``sqrt(x**2)`` becoming ``Abs(x)``
loses nothing), is reported: the statement is refused with the term and the condition named.
The check is conservative: it reads neither the hypotheses (``x/x == 1`` is refused under
``--assume x != 0`` too) nor a sum's range (``Sum(q/q, (q, 1, n))`` is refused though
``q >= 1``); such a statement is stated as SymPy builds it, the condition as a hypothesis.
"""

from __future__ import annotations

import sympy as sp


def _canon(e: sp.Basic) -> sp.Basic:
    """``e`` rebuilt with SymPy's evaluation on (a ``Sum`` is rebuilt, not computed)."""
    if not e.args or isinstance(e, sp.Symbol | sp.Number):
        return e
    return e.func(*[_canon(a) for a in e.args])


def _nonzero_factors(b: sp.Expr) -> list[sp.Expr]:
    out = []
    for f in sp.Mul.make_args(b):
        if isinstance(f, sp.Pow) and f.exp.is_Integer and f.exp > 0:
            f = f.base
        if not f.is_Number:
            out.append(f)
    return out


def conditions(e: sp.Basic) -> dict:
    """``{condition key: (the written node, the condition in words, whether it always holds)}``
    of every partial operation in ``e`` (see the module's text)."""
    out: dict = {}

    def add(key, node, words, holds):
        out.setdefault(key, (node, words, bool(holds)))

    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Pow):
            b, x = _canon(node.base), _canon(node.exp)
            if x.is_Integer and x < 0:
                for f in _nonzero_factors(b):
                    add(("nonzero", f), node, f"{f} != 0", f.is_nonzero)
            elif x.is_Rational and not x.is_Integer:
                if x > 0:
                    add(("nonneg", b), node, f"{b} >= 0", b.is_nonnegative)
                else:
                    add(("pos", b), node, f"{b} > 0", b.is_positive)
            elif not x.is_number:  # defined for b > 0, and for an integer x at b != 0 or x >= 0
                add(("pow", b, x), node, f"({b})**({x}) is defined",
                    b.is_positive or (x.is_integer and (b.is_nonzero or x.is_nonnegative)))
        elif isinstance(node, sp.log):
            a = _canon(node.args[0])
            add(("pos", a), node, f"{a} > 0", a.is_positive)
        elif isinstance(node, sp.tan):
            a = _canon(node.args[0])
            add(("tan", a), node, f"cos({a}) != 0", sp.cos(a).is_nonzero)
        elif isinstance(node, sp.Mod):
            for f in _nonzero_factors(_canon(node.args[1])):
                add(("nonzero", f), node, f"{f} != 0", f.is_nonzero)
    return out


def dropped(written, built) -> tuple[str, str, str] | None:
    """``(written term, condition, built term)`` of the first condition of the written
    relations (a sequence of :class:`peproof.claims.Rel`) that the built ones, relation by
    relation, no longer have, or None."""
    for w, b in zip(written, built, strict=True):
        kept = conditions(sp.Tuple(b.lhs, b.rhs))
        for key, (node, words, holds) in conditions(sp.Tuple(w.lhs, w.rhs)).items():
            if key not in kept and not holds:
                return str(node), words, f"{b.lhs} {b.op} {b.rhs}"
    return None
