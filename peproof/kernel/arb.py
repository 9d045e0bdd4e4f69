"""Certified evaluation of SymPy expressions in python-flint ball arithmetic (arb, acb).

An expression is *compiled* once (:func:`compile_expr`, cached per expression) into a tree of
small evaluators; each evaluates at a point in two ways:

* ``exact(env)``: the exact rational value when the subterm is rational at that point (built from
  rationals by ``+ * /``, integer powers, perfect-power roots, floor, ceiling, frac, Mod, Abs, Max,
  Min, sign, Piecewise and sums, and sin/cos at multiples of pi/6 -- Niven's values), else None;
* ``ball(env)``: an ``arb`` ball (real) or ``acb`` box (complex view: ``I``, re, im, conjugate)
  guaranteed to contain the value.

Meaning is SymPy's, node by node.  A partial function outside its domain (``log`` of a number
<= 0, ``b**(p/q)`` of a negative ``b``, a division by zero, ``tan`` at a pole, ``asin`` beyond 1,
``Mod(a, 0)``, a Piecewise with no true branch) raises :class:`OutsideDomain`: such a point is
never evaluated, so it can never certify anything.  A decision the ball cannot make at this
precision (the sign of a ball containing 0 below a floor, a condition, a partial function's
domain test) raises :class:`Imprecise`: evaluate again at a higher precision
(:func:`evaluate`, :func:`truth`) or give up.  Both are :class:`Unsupported`, as is a construct
this module does not know.  Nothing rounds in float64 and nothing calls ``evalf``.

Sums and products: ``Sum(f, (i, lo, hi))`` needs limits that are exact integers at the point; the
last limit tuple is the outermost.  ``hi = lo - 1`` is empty (0, resp. 1).  A reversed range
``hi < lo - 1`` is read by SymPy's (Karr's) convention, ``Sum = -Sum(f, (i, hi + 1, lo - 1))``
and ``Product = 1 / Product(f, (i, hi + 1, lo - 1))``, when ``karr=True``; with ``karr=False``
(the default of :func:`arb_eval`, kept for the engines, whose well-formedness rule refuses such
ranges) it raises :class:`Unsupported` ("reversed ...").  At most ``MAX_TERMS`` terms are
evaluated per call.

Point values (``env``): ints, ``Fraction``, SymPy rationals, :class:`PiMul` (``q * pi``), closed
SymPy expressions (evaluated by this module at the working precision) and arb balls (taken as
given; a ball stands for every point in it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

from peproof.kernel._compile import compile_node, env_of, value_ball
from peproof.kernel._nodes import (
    MAX_TERMS,
    Env,
    Imprecise,
    OutsideDomain,
    PiMul,
    Unsupported,
    rel_decide,
)

__all__ = [
    "MAX_TERMS", "Imprecise", "OutsideDomain", "PiMul", "Unsupported", "arb_eval", "ball_str",
    "certified_sign", "compile_expr", "evaluate", "truth", "to_arb_value", "PRECS", "Truth",
]

PRECS = (64, 128, 256, 1024)


def compile_expr(expr: sp.Expr):
    """The evaluator tree of ``expr`` (cached per expression)."""
    return compile_node(sp.sympify(expr))


def _real(v):
    if isinstance(v, flint.acb):
        if v.imag.is_exact() and v.imag == 0:
            return v.real
        raise Unsupported("complex value where a real number is expected")
    return v


def to_arb_value(v) -> flint.arb:
    """A point value as a real ball at the working precision."""
    return value_ball(v)


def arb_eval(expr, env: dict, prec: int = 128, karr: bool = False) -> flint.arb:
    """A real ball containing ``expr`` at ``env`` (one precision; see the module docstring)."""
    with flint.ctx.workprec(prec):
        e = compile_expr(sp.sympify(expr))
        en = env_of(env, karr=karr)
        q = e.exact(en)
        if q is not None:
            return flint.arb(flint.fmpq(q.numerator, q.denominator))
        return _real(e.ball(en))


def evaluate(expr, env: dict, precs=PRECS, karr: bool = True):
    """``(exact Fraction | None, ball)`` of ``expr`` at ``env``: exact when rational there, else
    the ball at the first precision of ``precs`` where no decision was :class:`Imprecise`.
    Raises :class:`OutsideDomain` / :class:`Unsupported`, or :class:`Imprecise` after the last
    precision."""
    e = compile_expr(sp.sympify(expr))
    last: Exception | None = None
    for p in precs:
        with flint.ctx.workprec(p):
            en = env_of(env, karr=karr)
            try:
                q = e.exact(en)
                if q is not None:
                    return q, flint.arb(flint.fmpq(q.numerator, q.denominator))
                b = e.ball(en)
            except Imprecise as exc:
                last = exc
                continue
            if isinstance(b, flint.arb) and not b.is_finite():
                last = Imprecise("non-finite ball")
                continue
            return None, b
    raise Imprecise(f"undecided at {precs[-1]} bits: {last}")


def certified_sign(expr, env: dict, precs=PRECS) -> tuple[int | None, flint.arb]:
    """Sign of the real ``expr`` at ``env`` if certified (escalating precision), else None.

    Returns ``(+1 | -1 | 0 | None, ball)``; ``0`` only when the value is exactly zero.  A point
    outside a partial function's domain gives ``(None, nan)`` (never a sign); an unknown
    construct raises :class:`Unsupported`.  Reversed summation ranges are refused (the engines'
    convention)."""
    ball = flint.arb.nan()
    for p in precs:
        try:
            ball = arb_eval(expr, env, p)
        except Imprecise:
            continue
        except OutsideDomain:
            return None, flint.arb.nan()
        if not ball.is_finite():
            continue
        if ball > 0:
            return 1, ball
        if ball < 0:
            return -1, ball
        if ball.is_exact() and ball == 0:
            return 0, ball
    return None, ball


@dataclass(frozen=True)
class Truth:
    """A relation decided at a point: ``value`` True/False, both sides (exact ``Fraction`` or
    ball) and the precision that decided it (0: exact arithmetic)."""

    value: bool
    lhs: object
    rhs: object
    prec: int


class Point:
    """A point (``env``: symbol or name -> value) whose balls are built once per precision, so
    that many relations are evaluated at it cheaply."""

    def __init__(self, env: dict, karr: bool = True, max_terms: int = MAX_TERMS):
        self.env, self.karr, self.max_terms = env, karr, max_terms
        self._envs: dict = {}
        self.work = 0  # relations evaluated + summation terms, for a caller's budget

    def at(self, prec: int) -> Env:
        en = self._envs.get(prec)
        if en is None:
            with flint.ctx.workprec(prec):
                en = self._envs[prec] = env_of(self.env, self.karr, self.max_terms)
        en.terms = 0
        return en

    def truth(self, rel, precs=PRECS, tight: int | None = None) -> Truth | None:
        """Certified truth of ``rel`` here, or None (see :func:`truth`).  ``tight``: stop raising
        the precision once the difference's ball is narrower than ``2**-tight`` and still holds
        the deciding value (a search's shortcut: the value is then most likely exact)."""
        lhs, rhs = compile_expr(rel.lhs), compile_expr(rel.rhs)
        same = rel.lhs == rel.rhs  # identical sides: the difference is exactly 0 where defined
        for p in precs:
            en = self.at(p)
            with flint.ctx.workprec(p):
                try:
                    ql, qr = lhs.exact(en), rhs.exact(en)
                    if ql is not None and qr is not None:
                        return Truth(rel_decide(rel.op, ql - qr), ql, qr, 0)
                    bl = _fq(ql) if ql is not None else lhs.ball(en)
                    br = bl if same else _fq(qr) if qr is not None else rhs.ball(en)
                except Imprecise:
                    continue
                except Unsupported:
                    return None
                finally:
                    self.work += en.terms + 1
                diff = flint.arb(0) if same else bl - br
                try:
                    return Truth(rel_decide(rel.op, diff), bl, br, p)
                except Imprecise:
                    if tight is not None and _narrow(diff, tight):
                        return None
                except Unsupported:
                    return None
        return None


def _narrow(b, bits: int) -> bool:
    rad = b.rad() if isinstance(b, flint.arb) else max(b.real.rad(), b.imag.rad())
    return bool(rad < flint.arb(2) ** -bits)


def truth(rel, env: dict, precs=PRECS, karr: bool = True) -> Truth | None:
    """Certified truth of ``rel`` (``op`` in ``== <= < !=``, sides ``lhs``, ``rhs``) at ``env``,
    or None when it cannot be certified (a side undefined there, an unknown construct, a ball
    still containing the deciding value at the last precision).  Complex sides (the complex
    view) are compared as complex numbers; ``<``/``<=`` between non-real values is undefined."""
    return Point(env, karr).truth(rel, precs)


def _fq(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def ball_str(b, digits: int = 20) -> str:
    if isinstance(b, Fraction):
        return str(b)
    if isinstance(b, flint.acb):
        return f"({b.real.str(digits, radius=True)}) + ({b.imag.str(digits, radius=True)})*I"
    return b.str(digits, radius=True)
