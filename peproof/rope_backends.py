"""Backends evaluating RoPE's scaling maps (:mod:`peproof.rope_scaling`): one text, three ways.

A map is written once as a function of a backend ``X`` supplying ``num``, ``pi``, ``log``,
``sqrt``, ``pow``, ``floor``, ``ceil``, ``lt``, ``eq`` and ``select`` (the first true case):

``sym_backend()``    exact SymPy; a comparison of closed numbers is decided in arb (certified),
                     one with free symbols becomes a ``Piecewise``
``arb_backend(p)``   python-flint balls at ``p`` bits; a comparison the balls cannot decide raises
                     :class:`Undecided` (never a guess)
``numpy_backend()``  float64 NumPy, vectorised over the pairs (what implementations compute)
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from peproof.encoding import ParameterError


class Undecided(ParameterError):
    """A comparison inside a map could not be decided by certified arithmetic."""


# ---------------------------------------------------------------------- backends
class _Sym:
    pi = sp.pi
    log, sqrt = staticmethod(sp.log), staticmethod(sp.sqrt)

    @staticmethod
    def num(v):
        return sp.Rational(v) if isinstance(v, int | sp.Rational) else sp.sympify(v)

    @staticmethod
    def pow(a, b):
        return sp.Pow(a, b)

    @staticmethod
    def _closed_sign(e):
        from peproof.kernel.arb import certified_sign

        s, _ = certified_sign(e, {})
        if s is None:
            raise Undecided(f"cannot decide the sign of {e} in certified arithmetic")
        return s

    def floor(self, a):
        return _int_part(a, math.floor, sp.floor, self)

    def ceil(self, a):
        return _int_part(a, math.ceil, sp.ceiling, self)

    def lt(self, a, b):
        e = sp.sympify(a) - sp.sympify(b)
        return (self._closed_sign(e) < 0) if not e.free_symbols else sp.Lt(a, b)

    def eq(self, a, b):
        e = sp.sympify(a) - sp.sympify(b)
        return (self._closed_sign(e) == 0) if not e.free_symbols else sp.Eq(a, b)

    @staticmethod
    def select(cases, default):
        pieces = []
        for cond, val in cases:
            if cond is True or cond is sp.true:
                if not pieces:
                    return val
                pieces.append((val, True))
                return sp.Piecewise(*pieces)
            if cond is False or cond is sp.false:
                continue
            pieces.append((val, cond))
        return sp.Piecewise(*pieces, (default, True)) if pieces else default


def _int_part(a, fn, symfn, x: _Sym):
    a = sp.sympify(a)
    if a.free_symbols:
        return symfn(a)
    if a.is_Rational:
        return sp.Integer(fn(a))
    from peproof.kernel.arb import arb_eval

    ball = arb_eval(a, {}, 256)
    lo, hi = fn(_arb_fraction(ball.lower())), fn(_arb_fraction(ball.upper()))
    if lo != hi:
        raise Undecided(f"cannot decide the integer part of {a} in certified arithmetic")
    return sp.Integer(lo)


def _arb_fraction(x):
    from fractions import Fraction

    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


class _Arb:
    def __init__(self, prec: int):
        import flint

        self.flint, self.prec = flint, prec

    def num(self, v):
        f = self.flint
        if isinstance(v, f.arb):
            return v
        from peproof.kernel.arb import arb_eval

        return arb_eval(sp.sympify(v), {}, self.prec)

    @property
    def pi(self):
        return self.flint.arb.pi()

    def log(self, a):
        return self.num(a).log()

    def sqrt(self, a):
        return self.num(a).sqrt()

    def pow(self, a, b):
        return self.num(a) ** self.num(b)

    def _int(self, a, fn):
        a = self.num(a)
        lo, hi = fn(_arb_fraction(a.lower())), fn(_arb_fraction(a.upper()))
        if lo != hi:
            raise Undecided(f"integer part of {a.str(10)} not decided at {self.prec} bits")
        return self.flint.arb(lo)

    def floor(self, a):
        return self._int(a, math.floor)

    def ceil(self, a):
        return self._int(a, math.ceil)

    def lt(self, a, b):
        a, b = self.num(a), self.num(b)
        if a < b:
            return True
        if a >= b:
            return False
        raise Undecided(f"{a.str(10)} < {b.str(10)} not decided at {self.prec} bits")

    def eq(self, a, b):
        a, b = self.num(a), self.num(b)
        if a.is_exact() and b.is_exact():
            return bool(a == b)
        if a < b or a > b:
            return False
        raise Undecided(f"{a.str(10)} = {b.str(10)} not decided at {self.prec} bits")

    @staticmethod
    def select(cases, default):
        for cond, val in cases:
            if cond:
                return val
        return default


class _Np:
    pi = np.pi
    log, sqrt, floor, ceil = np.log, np.sqrt, np.floor, np.ceil

    @staticmethod
    def num(v):
        return np.asarray(v, dtype=np.float64) if isinstance(v, np.ndarray) else float(v)

    @staticmethod
    def pow(a, b):
        return np.power(np.float64(a), b)

    @staticmethod
    def lt(a, b):
        return np.less(a, b)

    @staticmethod
    def eq(a, b):
        return np.equal(a, b)

    @staticmethod
    def select(cases, default):
        if not cases:
            return default
        conds = [np.asarray(c) for c, _ in cases]
        vals = [np.asarray(v, dtype=np.float64) for _, v in cases]
        shape = np.broadcast_shapes(*(c.shape for c in conds), *(v.shape for v in vals),
                                    np.shape(default))
        out = np.select([np.broadcast_to(c, shape) for c in conds],
                        [np.broadcast_to(v, shape) for v in vals],
                        np.broadcast_to(np.asarray(default, dtype=np.float64), shape))
        return out if out.ndim else float(out)


def sym_backend() -> _Sym:
    return _Sym()


def arb_backend(prec: int = 128) -> _Arb:
    return _Arb(prec)


def numpy_backend() -> _Np:
    return _Np()


def clamp(x, lo, hi, X):
    """``min(max(x, lo), hi)`` in backend ``X`` (``lo <= hi``)."""
    return X.select([(X.lt(x, lo), lo), (X.lt(hi, x), hi)], x)
