"""Function nodes of the certified evaluator (see :mod:`peproof.kernel.arb`): powers, exp,
log, trigonometric and inverse functions, Abs, sign, floor, ceiling, frac, Mod, Max, Min, re, im,
conjugate.  Each follows SymPy's meaning of the function it stands for."""

from __future__ import annotations

from fractions import Fraction

import flint
from sympy import integer_nthroot

from peproof.kernel._nodes import (
    Imprecise,
    Node,
    OutsideDomain,
    _excludes0,
    _fq,
    _is_zero,
    real_of,
    sign_of,
)

MAX_EXACT_POWER = 4096  # exponents beyond this are evaluated in balls only


def _root(q: Fraction, n: int) -> Fraction | None:
    """The exact ``n``-th root of ``q >= 0`` when rational."""
    a, ok1 = integer_nthroot(q.numerator, n)
    b, ok2 = integer_nthroot(q.denominator, n)
    return Fraction(a, b) if ok1 and ok2 else None


class Pow(Node):
    """``b**e`` as SymPy means it for a real base: an integer power; a rational or symbolic power
    needs ``b > 0`` (or ``b = 0`` with a positive exponent), else :class:`OutsideDomain`."""

    __slots__ = ("b", "e")

    def __init__(self, b, e):
        self.b, self.e = b, e

    def exact(self, env):
        qe = self.e.exact(env)
        if qe is None or qe.denominator > 64:
            return None
        qb = self.b.exact(env)
        if qb is None:
            return None
        if qb == 0:
            if qe < 0:
                raise OutsideDomain("0 to a negative power")
            return Fraction(1) if qe == 0 else Fraction(0)
        if qe.denominator == 1:
            n = qe.numerator
            if abs(n) > MAX_EXACT_POWER and abs(qb) != 1:
                return None
            return qb**n
        if qb < 0:
            raise OutsideDomain("a non-integer power of a negative number")
        if qe.denominator > 64:
            return None
        r = _root(qb, qe.denominator)
        return None if r is None or abs(qe.numerator) > MAX_EXACT_POWER else r**qe.numerator

    def ball(self, env):
        key = id(self)  # a power shared by several terms (the frequencies) is evaluated once
        got = env.memo.get(key)
        if got is None:
            got = env.memo[key] = self._ball(env)
        return got

    def _ball(self, env):
        qe = self.e.exact(env)
        b = self.b.ball(env)
        if qe is not None and qe.denominator == 1:
            n = qe.numerator
            if n >= 0:
                return b**n
            _nonzero(b)
            return 1 / b ** (-n)
        b = real_of(b)
        if b > 0:
            if qe is not None:
                if qe.denominator <= 64:
                    r = b.sqrt() if qe.denominator == 2 else b.root(qe.denominator)
                    return r**qe.numerator if qe.numerator >= 0 else 1 / r ** (-qe.numerator)
                return (b.log() * _fq(qe)).exp()
            e = self.e.ball(env)
            if isinstance(e, flint.acb):
                return (flint.acb(b).log() * e).exp()
            return (b.log() * e).exp()
        if _is_zero(b):
            s = sign_of(qe if qe is not None else self.e.ball(env))
            if s > 0:
                return flint.arb(0)
            raise OutsideDomain("0 to a non-positive non-integer power")
        if b < 0:
            raise OutsideDomain("a non-integer power of a negative number (complex in SymPy)")
        raise Imprecise("base of a real power not separated from 0")


def _nonzero(b) -> None:
    """A divisor's ball must exclude 0 (exactly 0: outside the domain)."""
    if isinstance(b, flint.acb):
        if _excludes0(b.real) or _excludes0(b.imag):
            return
        if _is_zero(b.real) and _is_zero(b.imag):
            raise OutsideDomain("division by zero")
        raise Imprecise("divisor not separated from 0")
    if _excludes0(b):
        return
    if _is_zero(b):
        raise OutsideDomain("division by zero")
    raise Imprecise("divisor not separated from 0")


class Exp(Node):
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def exact(self, env):
        q = self.a.exact(env)
        return Fraction(1) if q == 0 else None

    def ball(self, env):
        return self.a.ball(env).exp()


class Log(Node):
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def exact(self, env):
        q = self.a.exact(env)
        if q is not None and q <= 0:
            raise OutsideDomain(f"log of {q}")
        return Fraction(0) if q == 1 else None

    def ball(self, env):
        b = real_of(self.a.ball(env))
        if b > 0:
            return b.log()
        if b <= 0:
            raise OutsideDomain("log of a number <= 0 (complex or undefined in SymPy)")
        raise Imprecise("log argument not separated from 0")


# sin(k pi / 6) for k mod 12: Niven's theorem, the only rational values of sin at rational pi
_NIVEN = {0: 0, 1: Fraction(1, 2), 3: 1, 5: Fraction(1, 2), 6: 0, 7: Fraction(-1, 2), 9: -1,
          11: Fraction(-1, 2)}


class Trig(Node):
    """sin, cos, tan; at exact multiples of pi the reduction is exact (``sin_pi_fmpq``)."""

    __slots__ = ("a", "fn")

    def __init__(self, a, fn: str):
        self.a, self.fn = a, fn

    def _pim(self, env):
        return self.a.pim(env)

    def exact(self, env):
        q = self._pim(env)
        if q is None:
            return None
        if self.fn == "tan":
            k = 4 * q
            if k.denominator != 1:
                return None
            r = k.numerator % 4
            if r == 2:
                raise OutsideDomain("tan at an odd multiple of pi/2")
            return Fraction({0: 0, 1: 1, 3: -1}[r])
        k = 6 * q
        if k.denominator != 1:
            return None
        k = (k.numerator + (3 if self.fn == "cos" else 0)) % 12
        v = _NIVEN.get(k)
        return None if v is None else Fraction(v)

    def ball(self, env):
        key = ("sc", id(self.a))  # sin and cos of one argument share the work
        got = env.memo.get(key)
        if got is None:
            q = self._pim(env)
            if q is not None:
                got = flint.arb.sin_cos_pi_fmpq(flint.fmpq(q.numerator, q.denominator))
            else:
                a = self.a.ball(env)
                got = (a.sin(), a.cos())
            env.memo[key] = got
        s, c = got
        if self.fn == "sin":
            return s
        if self.fn == "cos":
            return c
        _nonzero(c)
        return s / c


class Inverse(Node):
    """atan, asin, acos (real arguments; asin/acos need ``|x| <= 1``)."""

    __slots__ = ("a", "fn")

    def __init__(self, a, fn):
        self.a, self.fn = a, fn

    def exact(self, env):
        q = self.a.exact(env)
        if q is None:
            return None
        if self.fn != "atan" and abs(q) > 1:
            raise OutsideDomain(f"{self.fn} of {q}")
        if q == 0 and self.fn != "acos":
            return Fraction(0)
        return Fraction(0) if q == 1 and self.fn == "acos" else None

    def ball(self, env):
        b = real_of(self.a.ball(env))
        if self.fn == "atan":
            return b.atan()
        if abs(b) <= 1:
            return getattr(b, self.fn)()
        if abs(b) > 1:
            raise OutsideDomain(f"{self.fn} of a number beyond 1 in absolute value")
        raise Imprecise(f"{self.fn} argument not separated from +-1")


class Atan2(Node):
    __slots__ = ("y", "x")

    def __init__(self, y, x):
        self.y, self.x = y, x

    def ball(self, env):
        y, x = real_of(self.y.value(env)), real_of(self.x.value(env))
        y = _fq(y) if isinstance(y, Fraction) else y
        x = _fq(x) if isinstance(x, Fraction) else x
        if x > 0:
            return (y / x).atan()
        if y > 0:
            return flint.arb.pi() / 2 - (x / y).atan()
        if y < 0:
            return -flint.arb.pi() / 2 - (x / y).atan()
        if _is_zero(y) and x < 0:
            return flint.arb.pi()
        if _is_zero(y) and _is_zero(x):
            raise OutsideDomain("atan2(0, 0) is undefined")
        raise Imprecise("atan2 near its branch cut")


class Unary(Node):
    """Abs, sign, Heaviside, floor, ceiling, frac, re, im, conjugate."""

    __slots__ = ("a", "fn")

    def __init__(self, a, fn):
        self.a, self.fn = a, fn

    def exact(self, env):
        fn = self.fn
        if fn in ("re", "im", "conjugate", "Abs", "frac"):
            q = self.a.exact(env)
            if q is None:
                return None
            return {"re": q, "conjugate": q, "im": Fraction(0), "Abs": abs(q),
                    "frac": q - (q.numerator // q.denominator)}[fn]
        v = self.a.value(env)  # sign, Heaviside, floor, ceiling: always rational
        if fn in ("sign", "Heaviside"):
            s = sign_of(v)
            return Fraction(s) if fn == "sign" else Fraction(s + 1, 2)
        if isinstance(v, Fraction):
            n = v.numerator // v.denominator
            return Fraction(n if fn == "floor" or v.denominator == 1 else n + 1)
        v = real_of(v)
        if not v.is_finite():
            raise Imprecise("non-finite ball below floor/ceiling")
        n = (v.floor() if fn == "floor" else v.ceil()).unique_fmpz()
        if n is None:
            raise Imprecise(f"{fn}: the ball {v.str(5, radius=True)} straddles an integer")
        return Fraction(int(n))

    def ball(self, env):
        fn = self.fn
        if fn in ("sign", "Heaviside", "floor", "ceiling"):
            return _fq(self.exact(env))
        v = self.a.ball(env)
        if fn == "Abs":
            return abs(v)
        if fn == "re":
            return v.real if isinstance(v, flint.acb) else v
        if fn == "im":
            return v.imag if isinstance(v, flint.acb) else flint.arb(0)
        if fn == "conjugate":
            return v.conjugate() if isinstance(v, flint.acb) else v
        v = real_of(v)  # frac(x) = x - floor(x)
        n = v.floor().unique_fmpz()
        if n is None:
            raise Imprecise("frac: the ball straddles an integer")
        return v - int(n)


class MaxMin(Node):
    __slots__ = ("args", "mx")

    def __init__(self, args, mx: bool):
        self.args, self.mx = args, mx

    def exact(self, env):
        qs = [a.exact(env) for a in self.args]
        if any(q is None for q in qs):
            return None
        return max(qs) if self.mx else min(qs)

    def ball(self, env):
        vals = [real_of(a.ball(env)) for a in self.args]
        acc = vals[0]
        for v in vals[1:]:
            acc = acc.max(v) if self.mx else acc.min(v)
        return acc


class Mod(Node):
    """SymPy's ``Mod(a, b) = a - b*floor(a/b)`` (the sign of ``b``); ``b = 0`` is undefined."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def exact(self, env):
        qa, qb = self.a.exact(env), self.b.exact(env)
        if qb == 0:
            raise OutsideDomain("Mod(a, 0)")
        if qa is None or qb is None:
            return None
        return qa - qb * (qa // qb)

    def ball(self, env):
        a, b = real_of(self.a.ball(env)), real_of(self.b.ball(env))
        _nonzero(b)
        n = (a / b).floor().unique_fmpz()
        if n is None:
            raise Imprecise("Mod: the quotient straddles an integer")
        return a - b * int(n)
