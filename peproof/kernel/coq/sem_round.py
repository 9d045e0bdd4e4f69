"""``RoundBinary(a, p)`` (round to nearest, ties to even, ``p``-bit significand) in Coq.

The node's meaning is its own ``peproof_definition()`` (peproof/rounding.py: ``floor``, ``log``,
powers of 2, ``Mod`` and ``Piecewise``), stated once in ``lib/Round.v`` as ``oround``: the body
of ``oround`` is :func:`definition` printed with ``Sem.v``'s functions (for a real ``x`` and an
integer ``p``; tests/test_coq_round.py compares the two texts).  The printer
(:class:`~peproof.kernel.coq.semantic.SemPrinter`) prints ``RoundBinary(a, p)`` as
``oround a p`` only when :func:`is_round` says the node means exactly that: ``p`` a positive
integer literal and the node's class defining it as :func:`definition` does at that ``p``
(a function of the same name with another meaning is refused, never given this one).

The ``Eq`` conditions of the definition are printed although their sides are partial
(``log x``): ``Sem.v``'s ``oeqb`` is SymPy's ``Eq`` wherever both sides are defined, and they
are evaluated only after the first branch's ``x <= 0`` is false, where every operation of the
second branch is defined (``Round.v``'s ``oround_pos`` evaluates it for every ``x > 0``).

A statement with ``RoundBinary`` has no real goal (like ``Piecewise``): it is proved on its own
terms by :func:`script`, with ``Round.v``'s lemmas: the integers ``0 .. 2**p`` are their own
roundings (``oround_int``), ``2**p + 1`` rounds to ``2**p`` (``oround_tie``), and the relations
left are between integers.
"""

from __future__ import annotations

import functools

import sympy as sp

from peproof.claims import Statement

X = sp.Symbol("x", real=True)
P = sp.Symbol("p", integer=True)
NAME = "RoundBinary"

#: the proof of a statement whose RoundBinary terms are integers of 0 .. 2**p + 1: Round.v's
#: pe_round (its lemmas rewrite every oround, then Z's relations by lia)
SCRIPT = "pe_round"


def definition(x, p) -> sp.Expr:
    """The rounding of ``x`` to ``p`` bits as ``Round.v`` states it (``oround``'s body)."""
    e = sp.floor(sp.log(x) / sp.log(2)) - p + 1
    q = x / 2**e
    ties = sp.And(sp.Eq(q - sp.floor(q), sp.Rational(1, 2)), sp.Eq(sp.Mod(sp.floor(q), 2), 0))
    rounded = sp.Piecewise((sp.floor(q), ties), (sp.floor(q + sp.Rational(1, 2)), True))
    return sp.Piecewise((0, x <= 0), (2**e * rounded, True))


@functools.lru_cache(maxsize=64)
def _same_meaning(cls, p: int) -> bool:
    """Does ``cls(x, p)`` define itself as :func:`definition` at this ``p``?"""
    try:
        mine = cls(X, sp.Integer(p), evaluate=False).peproof_definition()
    except Exception:  # noqa: BLE001 - no definition of its own: no meaning of ours
        return False
    return mine == definition(X, P).subs(P, p)


def is_round(e) -> bool:
    """``e`` is ``RoundBinary(a, p)`` at a positive integer literal ``p``, meaning ``oround``."""
    if type(e).__name__ != NAME or len(e.args) != 2:
        return False
    p = e.args[1]
    return bool(p.is_Integer and p > 0 and _same_meaning(type(e), int(p)))


def in_statement(st: Statement) -> bool:
    """Does a relation of ``st`` have a ``RoundBinary`` term?"""
    return any(isinstance(side, sp.Basic) and any(type(n).__name__ == NAME
                                                  for n in sp.preorder_traversal(side))
               for r in st.concl + st.hyps for side in (r.lhs, r.rhs))
