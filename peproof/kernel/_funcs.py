"""Function nodes of the certified evaluator and the compiler from SymPy (see
:mod:`peproof.kernel.arb`).  Each node follows SymPy's meaning of the function it stands for."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import flint
import sympy as sp
from sympy import integer_nthroot

from peproof.kernel._nodes import (
    Add,
    Bad,
    Const,
    Constant,
    Imprecise,
    Mul,
    Node,
    OutsideDomain,
    Sym,
    Unsupported,
    _excludes0,
    _fq,
    _is_zero,
    int_of,
    real_of,
    rel_decide,
    sign_of,
)

MAX_EXACT_POWER = 4096  # exponents beyond this are evaluated in balls only
HOOK_COST = 1000  # a function's own evaluation (an integral) counted as this many terms


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


class Cond:
    """A condition: relation, And, Or, Not, ITE, true, false (None: undecided)."""

    def __init__(self, c):
        self.c = c
        if isinstance(c, sp.core.relational.Relational):
            self.kind, self.op, self.parts = "rel", c.rel_op, compile_node(c.lhs - c.rhs)
        elif c in (sp.true, sp.false):
            self.kind = "const"
        elif isinstance(c, sp.And | sp.Or | sp.Not | sp.ITE):
            self.kind, self.parts = type(c).__name__, [Cond(a) for a in c.args]
        else:
            self.kind = "bad"

    def decide(self, env) -> bool | None:
        k = self.kind
        if k == "const":
            return self.c is sp.true
        if k == "rel":
            try:
                return rel_decide(self.op, self.parts.value(env))
            except Imprecise:
                return None
        if k == "bad":
            raise Unsupported(f"condition {self.c}")
        vals = [p.decide(env) for p in self.parts] if k != "ITE" else None
        if k == "And":
            return False if False in vals else (None if None in vals else True)
        if k == "Or":
            return True if True in vals else (None if None in vals else False)
        if k == "Not":
            return None if vals[0] is None else not vals[0]
        t = self.parts[0].decide(env)
        return None if t is None else self.parts[1 if t else 2].decide(env)


class Piecewise(Node):
    """The first branch whose condition is certified true; an undecided condition before it is
    :class:`Imprecise`; no true branch is :class:`OutsideDomain` (SymPy: undefined)."""

    __slots__ = ("branches",)

    def __init__(self, branches):
        self.branches = branches

    def _pick(self, env):
        for val, cond in self.branches:
            t = cond.decide(env)
            if t is None:
                raise Imprecise("Piecewise condition not decided")
            if t:
                return val
        raise OutsideDomain("Piecewise with no true condition")

    def exact(self, env):
        return self._pick(env).exact(env)

    def ball(self, env):
        return self._pick(env).ball(env)


class Loop(Node):
    """``Sum`` / ``Product`` over one index; SymPy's (Karr's) reading of a reversed range when
    ``env.karr``, else refused."""

    __slots__ = ("body", "var", "lo", "hi", "prod")

    def __init__(self, body, var, lo, hi, prod: bool):
        self.body, self.var, self.lo, self.hi, self.prod = body, var, lo, hi, prod

    def _range(self, env):
        lo, hi = int_of(self.lo, env, "lower limit"), int_of(self.hi, env, "upper limit")
        invert = False
        if hi < lo - 1:
            if not env.karr:
                raise Unsupported(f"reversed summation range {lo} .. {hi}")
            lo, hi, invert = hi + 1, lo - 1, True
        if env.terms + hi - lo + 1 > env.max_terms:
            raise Unsupported(f"more than {env.max_terms} terms to evaluate")
        return lo, hi, invert

    def _run(self, env, get, zero, one, invert_fn):
        lo, hi, invert = self._range(env)
        acc = one if self.prod else zero
        for t in range(lo, hi + 1):
            env.terms += 1
            old = env.bind(self.var, t)
            try:
                v = get(env)
            finally:
                env.unbind(self.var, old)
            if v is None:
                return None
            acc = acc * v if self.prod else acc + v
        return invert_fn(acc) if invert else acc

    def exact(self, env):
        def inv(acc):
            if not self.prod:
                return -acc
            if acc == 0:
                raise OutsideDomain("reversed product of a range containing a zero factor")
            return 1 / acc
        return self._run(env, self.body.exact, Fraction(0), Fraction(1), inv)

    def ball(self, env):
        def inv(acc):
            if not self.prod:
                return -acc
            _nonzero(acc)
            return 1 / acc
        return self._run(env, self.body.ball, flint.arb(0), flint.arb(1), inv)


class Hook(Node):
    """A function evaluated by its own ``_arb_eval(env, ev)`` (outside the kernel: named so in
    the module docstring of :mod:`peproof.kernel.arb`)."""

    __slots__ = ("e", "ev")

    def __init__(self, e, ev):
        self.e, self.ev = e, ev

    def ball(self, env):
        env.terms += HOOK_COST
        return self.e._arb_eval(env.plain(), self.ev)


_UNARY = {sp.Abs: "Abs", sp.sign: "sign", sp.Heaviside: "Heaviside", sp.floor: "floor",
          sp.ceiling: "ceiling", sp.frac: "frac", sp.re: "re", sp.im: "im",
          sp.conjugate: "conjugate"}
_TRIG = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan"}
_INV = {sp.atan: "atan", sp.asin: "asin", sp.acos: "acos"}
_KNOWN = frozenset(_UNARY) | frozenset(_TRIG) | frozenset(_INV) | {
    sp.exp, sp.log, sp.atan2, sp.Max, sp.Min, sp.Mod, sp.Piecewise}


@lru_cache(maxsize=16384)
def compile_node(e) -> Node:  # noqa: C901 - one flat dispatch over SymPy's node types
    """The evaluator of the SymPy expression ``e`` (cached per expression)."""
    from peproof.kernel.arb import _hook_eval

    c = compile_node
    if e.is_Rational:
        return Const(Fraction(int(e.p), int(e.q)))
    if e.is_Float:
        r = sp.Rational(e)
        return Const(Fraction(int(r.p), int(r.q)))
    if e is sp.pi:
        return Constant(flint.arb.pi, Fraction(1))
    if e is sp.E:
        return Constant(flint.arb.const_e)
    if e is sp.I:
        return Constant(lambda: flint.acb(0, 1))
    if e.is_Symbol:
        return Sym(e)
    if e.is_Add:
        return Add(tuple(c(a) for a in e.args))
    if e.is_Mul:
        return Mul(tuple(c(a) for a in e.args))
    if e.is_Pow:
        return Exp(c(e.exp)) if e.base is sp.E else Pow(c(e.base), c(e.exp))
    if isinstance(e, sp.Sum | sp.Product):  # subclasses too (a sum kept unevaluated)
        node = c(e.function)
        for var, lo, hi in e.limits:  # the first limit is the innermost
            node = Loop(node, var, c(sp.sympify(lo)), c(sp.sympify(hi)), isinstance(e, sp.Product))
        return node
    if isinstance(e, sp.Function) and hasattr(e, "_arb_eval"):
        return Hook(e, _hook_eval)
    f = next((k for k in type(e).__mro__ if k in _KNOWN), None)
    if f is sp.exp:
        return Exp(c(e.args[0]))
    if f is sp.log and len(e.args) == 1:
        return Log(c(e.args[0]))
    if f in _TRIG:
        return Trig(c(e.args[0]), _TRIG[f])
    if f in _INV:
        return Inverse(c(e.args[0]), _INV[f])
    if f is sp.atan2:
        return Atan2(c(e.args[0]), c(e.args[1]))
    if f in _UNARY and len(e.args) == 1:
        return Unary(c(e.args[0]), _UNARY[f])
    if f in (sp.Max, sp.Min):
        return MaxMin(tuple(c(a) for a in e.args), f is sp.Max)
    if f is sp.Mod:
        return Mod(c(e.args[0]), c(e.args[1]))
    if f is sp.Piecewise:
        return Piecewise(tuple((c(v), Cond(cond)) for v, cond in e.args))
    definition = getattr(e, "peproof_definition", None)
    if isinstance(e, sp.Function) and definition is not None:
        return c(sp.sympify(definition()))
    return Bad(f"{type(e).__name__}: {e}")
