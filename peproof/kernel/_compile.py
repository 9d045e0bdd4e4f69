"""Piecewise, sums and products, functions with their own evaluation, and the compiler from a
SymPy expression to the evaluator nodes (see :mod:`peproof.kernel.arb`)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import flint
import sympy as sp

from peproof.kernel._funcs import (
    Atan2,
    Exp,
    Inverse,
    Log,
    MaxMin,
    Mod,
    Pow,
    Trig,
    Unary,
    _nonzero,
)
from peproof.kernel._nodes import (
    MAX_TERMS,
    Add,
    Bad,
    Const,
    Constant,
    Env,
    Imprecise,
    Mul,
    Node,
    OutsideDomain,
    Sym,
    Unsupported,
    int_of,
    real_of,
    rel_decide,
)

HOOK_COST = 1000  # a function's own evaluation (an integral) counted as this many terms


def env_of(env: dict, karr: bool, max_terms: int = MAX_TERMS) -> Env:
    """The evaluation environment of a point (closed SymPy values compiled here)."""
    return Env.of(env, karr, max_terms, closed=compile_node)


def value_ball(v):
    """A point value as a real or complex ball at the working precision."""
    return Env.value_ball(v, compile_node)


def _hook_eval(expr, env: dict):
    """The evaluator handed to a function's own ``_arb_eval(env, ev)`` hook: ``env`` maps
    symbols to values, the result is a real ball at the working precision."""
    return real_of(compile_node(sp.sympify(expr)).ball(env_of(env, karr=False)))


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
