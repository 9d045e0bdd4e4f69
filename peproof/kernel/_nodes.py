"""The evaluator nodes behind :mod:`peproof.kernel.arb` (read that module's docstring first).

Each node has ``exact(env)`` (a ``Fraction`` when the value is certified rational, else None),
``ball(env)`` (an ``arb`` or ``acb`` enclosure at the working precision) and ``pim(env)`` (``q``
when the value is exactly ``q * pi``, else None).  Decisions a ball cannot make raise
:class:`Imprecise`; points outside a partial function's domain raise :class:`OutsideDomain`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy as sp

MAX_TERMS = 200_000  # summands / factors evaluated per call, all sums together


class Unsupported(Exception):
    """Not evaluated: an unknown construct, or (subclasses) a point outside a domain or a ball
    too wide to decide."""


class OutsideDomain(Unsupported):
    """The point is outside the domain of a partial function (log of a number <= 0, a division
    by zero, ...): the expression has no value there, which certifies nothing."""


class Imprecise(Unsupported):
    """A ball straddles a decision (a sign below floor, a condition, a domain test): more
    precision may decide it."""


@dataclass(frozen=True)
class PiMul:
    """The exact real number ``q * pi`` as a point value."""

    q: Fraction

    def __str__(self) -> str:
        q = Fraction(self.q)
        num = "pi" if q.numerator == 1 else "-pi" if q.numerator == -1 else f"{q.numerator}*pi"
        return num if q.denominator == 1 else f"{num}/{q.denominator}"


def _fq(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _frac(v) -> Fraction | None:
    if isinstance(v, bool):
        raise Unsupported("boolean value")
    if isinstance(v, int | Fraction):
        return Fraction(v)
    if isinstance(v, sp.Rational):
        return Fraction(int(v.p), int(v.q))
    if isinstance(v, sp.Float):
        r = sp.Rational(v)
        return Fraction(int(r.p), int(r.q))
    return None


class Env:
    """A point at the working precision: balls, exact values and pi-multiples per symbol."""

    __slots__ = ("balls", "exact", "pim", "names", "karr", "terms", "max_terms", "memo")

    def __init__(self, karr: bool, max_terms: int = MAX_TERMS):
        self.balls: dict = {}
        self.exact: dict = {}
        self.pim: dict = {}
        self.names: dict = {}
        self.karr = karr
        self.terms = 0
        self.max_terms = max_terms
        self.memo: dict = {}  # balls of shared subterms, valid until a binding changes

    @staticmethod
    def value_ball(v, closed=None):
        """A point value as a ball at the working precision; ``closed(expr)`` compiles a closed
        SymPy number (the compiler lives above this module)."""
        q = _frac(v)
        if q is not None:
            return _fq(q)
        if isinstance(v, flint.arb | flint.acb):
            return v
        if isinstance(v, PiMul):
            return _fq(Fraction(v.q)) * flint.arb.pi()
        if isinstance(v, sp.Expr) and not v.free_symbols and closed is not None:
            return closed(v).ball(Env(karr=True))
        raise Unsupported(f"value {v!r}")

    @classmethod
    def of(cls, env: dict, karr: bool, max_terms: int = MAX_TERMS, closed=None) -> Env:
        out = cls(karr, max_terms)
        for k, v in env.items():
            key = k if isinstance(k, sp.Symbol) else None
            q = _frac(v)
            b = cls.value_ball(v, closed)
            pim = Fraction(v.q) if isinstance(v, PiMul) else (Fraction(0) if q == 0 else None)
            if isinstance(v, sp.Expr) and q is None and not v.free_symbols:
                q = closed(v).exact(Env(karr=True))
            for table, val in ((out.balls, b), (out.exact, q), (out.pim, pim)):
                if key is not None:
                    table[key] = val
            out.names[k.name if key is not None else str(k)] = (b, q, pim)
        return out

    def lookup(self, s: sp.Symbol, i: int):
        if s in self.balls:
            return (self.balls, self.exact, self.pim)[i][s]
        got = self.names.get(s.name)
        if got is None:
            raise Unsupported(f"free symbol {s}")
        return got[i]

    def bind(self, s: sp.Symbol, t: int):
        self.memo.clear()
        old = (self.balls.get(s), self.exact.get(s), self.pim.get(s), s in self.balls)
        self.balls[s], self.exact[s] = flint.arb(t), Fraction(t)
        self.pim[s] = Fraction(0) if t == 0 else None
        return old

    def unbind(self, s: sp.Symbol, old) -> None:
        self.memo.clear()
        if old[3]:
            self.balls[s], self.exact[s], self.pim[s] = old[:3]
        else:
            for table in (self.balls, self.exact, self.pim):
                table.pop(s, None)

    def plain(self) -> dict:
        out = {k: v[0] for k, v in self.names.items()}
        out.update(self.balls)
        return out


# ------------------------------------------------------------------------- decisions on balls
def _is_zero(b) -> bool:
    return b.is_exact() and b == 0


def _excludes0(b) -> bool:
    return bool(b > 0 or b < 0)


def real_of(v):
    """``v`` as a real ball: an acb must have an exactly zero imaginary part."""
    if isinstance(v, flint.acb):
        if _is_zero(v.imag):
            return v.real
        if _excludes0(v.imag):
            raise OutsideDomain("a non-real value where a real number is needed")
        raise Imprecise("imaginary part not certified zero")
    return v


def sign_of(v) -> int:
    """Certified sign of a real ball or Fraction, else :class:`Imprecise`."""
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    v = real_of(v)
    if not v.is_finite():
        raise Imprecise("non-finite ball")
    if v > 0:
        return 1
    if v < 0:
        return -1
    if _is_zero(v):
        return 0
    raise Imprecise(f"sign of a ball containing 0: {v.str(5, radius=True)}")


def rel_decide(op: str, diff) -> bool:
    """Truth of ``diff op 0`` (``diff = lhs - rhs``) for ``==, !=, <, <=, >, >=``."""
    if op in (">", ">="):
        return rel_decide("<" if op == ">" else "<=", -diff)
    if isinstance(diff, flint.acb) and op in ("==", "!="):
        re, im = diff.real, diff.imag
        if not (re.is_finite() and im.is_finite()):
            raise Imprecise("non-finite box")
        if _excludes0(re) or _excludes0(im):
            return op == "!="
        if _is_zero(re) and _is_zero(im):
            return op == "=="
        raise Imprecise("complex difference not separated from 0")
    s = sign_of(diff)
    return {"==": s == 0, "!=": s != 0, "<": s < 0, "<=": s <= 0}[op]


def int_of(node, env, what: str) -> int:
    """A summation limit: an exact integer at the point."""
    q = node.exact(env)
    if q is None:
        b = real_of(node.ball(env))
        if b.is_exact() and b.is_integer():
            return int(b.unique_fmpz())
        if b.is_finite() and not b.contains_integer():
            raise OutsideDomain(f"{what} is not an integer")
        raise Imprecise(f"{what} not certified an integer")
    if q.denominator != 1:
        raise OutsideDomain(f"{what} {q} is not an integer")
    return q.numerator


# ------------------------------------------------------------------------------------ nodes
class Node:
    __slots__ = ()

    def exact(self, env) -> Fraction | None:
        return None

    def pim(self, env) -> Fraction | None:
        return None

    def ball(self, env):
        raise NotImplementedError

    def value(self, env):
        """The exact value if rational, else the ball."""
        q = self.exact(env)
        return q if q is not None else self.ball(env)


class Bad(Node):
    __slots__ = ("msg",)

    def __init__(self, msg):
        self.msg = msg

    def exact(self, env):
        raise Unsupported(self.msg)

    def ball(self, env):
        raise Unsupported(self.msg)


class Const(Node):
    __slots__ = ("q",)

    def __init__(self, q: Fraction):
        self.q = q

    def exact(self, env):
        return self.q

    def pim(self, env):
        return Fraction(0) if self.q == 0 else None

    def ball(self, env):
        return _fq(self.q)


class Constant(Node):
    __slots__ = ("fn", "q")

    def __init__(self, fn, q=None):
        self.fn, self.q = fn, q

    def pim(self, env):
        return self.q

    def ball(self, env):
        return self.fn()


class Sym(Node):
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s

    def exact(self, env):
        return env.lookup(self.s, 1)

    def pim(self, env):
        return env.lookup(self.s, 2)

    def ball(self, env):
        return env.lookup(self.s, 0)


class Add(Node):
    __slots__ = ("args",)

    def __init__(self, args):
        self.args = args

    def exact(self, env):
        acc = Fraction(0)
        for a in self.args:
            q = a.exact(env)
            if q is None:
                return None
            acc += q
        return acc

    def pim(self, env):
        acc = Fraction(0)
        for a in self.args:
            q = a.pim(env)
            if q is None:
                return None
            acc += q
        return acc

    def ball(self, env):
        acc = flint.arb(0)
        for a in self.args:
            acc = acc + a.ball(env)
        return acc


class Mul(Node):
    __slots__ = ("args",)

    def __init__(self, args):
        self.args = args

    def exact(self, env):
        acc = Fraction(1)
        for a in self.args:
            q = a.exact(env)
            if q is None:
                return None
            acc *= q
        return acc

    def pim(self, env):
        """``q`` when exactly one factor is a multiple of pi and the others are rational (the
        factors' pi-multiples are looked at first: they are cheap, and usually all None)."""
        pims = [a.pim(env) for a in self.args]
        hits = [k for k, q in enumerate(pims) if q is not None]
        if not hits:
            return None
        if any(q == 0 for q in pims if q is not None):
            return Fraction(0) if all(a.exact(env) is not None or pims[k] is not None
                                      for k, a in enumerate(self.args)) else None
        if len(hits) != 1:
            return None
        acc = pims[hits[0]]
        for k, a in enumerate(self.args):
            if k != hits[0]:
                q = a.exact(env)
                if q is None:
                    return None
                acc *= q
        return acc

    def ball(self, env):
        acc = flint.arb(1)
        for a in self.args:
            acc = acc * a.ball(env)
        return acc
