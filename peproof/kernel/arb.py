"""Certified evaluation of real SymPy expressions in python-flint ball arithmetic.

``arb_eval(expr, env, prec)`` returns an ``arb`` ball guaranteed to contain the exact value of
``expr`` with its symbols replaced by the exact rationals in ``env``.  Every operation is done by
arb, whose enclosures are rigorous; nothing here rounds in float64.  Unsupported constructs raise
:class:`Unsupported` rather than guessing.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import sympy as sp


class Unsupported(Exception):
    """The expression contains a construct this evaluator does not enclose rigorously."""


def _rat(q) -> flint.arb:
    q = sp.Rational(q)
    return flint.arb(flint.fmpq(int(q.p), int(q.q)))


def to_arb_value(v) -> flint.arb:
    if isinstance(v, flint.arb):
        return v
    if isinstance(v, bool):
        raise Unsupported("boolean value")
    if isinstance(v, int | Fraction | sp.Rational):
        return _rat(v)
    if isinstance(v, sp.Float):
        return _rat(sp.Rational(v))
    raise Unsupported(f"value {v!r}")


def arb_eval(expr, env: dict, prec: int = 128) -> flint.arb:
    with flint.ctx.workprec(prec):
        return _ev(sp.sympify(expr), env)


def _ev(e, env):  # noqa: C901 - a flat dispatch is the clearest form here
    if e.is_Integer or e.is_Rational:
        return _rat(e)
    if e.is_Float:
        return _rat(sp.Rational(e))
    if e is sp.pi:
        return flint.arb.pi()
    if e is sp.E:
        return flint.arb(1).exp()
    if e.is_Symbol:
        if e in env:
            return to_arb_value(env[e])
        if e.name in env:
            return to_arb_value(env[e.name])
        raise Unsupported(f"free symbol {e}")
    if e.is_Add:
        acc = flint.arb(0)
        for a in e.args:
            acc += _ev(a, env)
        return acc
    if e.is_Mul:
        acc = flint.arb(1)
        for a in e.args:
            acc *= _ev(a, env)
        return acc
    if e.is_Pow:
        b, x = e.args
        if x.is_Integer:
            bv = _ev(b, env)
            n = int(x)
            return bv**n if n >= 0 else 1 / (bv ** (-n))
        xv = _ev(x, env)
        if b is sp.E:
            return xv.exp()
        bv = _ev(b, env)
        if x.is_Rational and x.q == 2:
            r = bv.sqrt()
            return r ** int(x.p) if x.p > 0 else 1 / r ** int(-x.p)
        return bv**xv  # arb real power: NaN-ball (indeterminate) for non-positive base
    if isinstance(e, sp.sin):
        return _ev(e.args[0], env).sin()
    if isinstance(e, sp.cos):
        return _ev(e.args[0], env).cos()
    if isinstance(e, sp.tan):
        return _ev(e.args[0], env).tan()
    if isinstance(e, sp.exp):
        return _ev(e.args[0], env).exp()
    if isinstance(e, sp.log) and len(e.args) == 1:
        return _ev(e.args[0], env).log()
    if isinstance(e, sp.Abs):
        return abs(_ev(e.args[0], env))
    if isinstance(e, sp.Sum):
        return _ev_sum(e, env)
    if isinstance(e, sp.floor | sp.ceiling | sp.Mod):
        q = _exact(e, env)  # rational arguments: SymPy's exact value
        if q is not None:
            return _rat(q)
    if isinstance(e, sp.floor | sp.ceiling):
        return _round(_ev(e.args[0], env), "floor" if isinstance(e, sp.floor) else "ceil", e)
    if isinstance(e, sp.Mod):  # SymPy's Mod(a, b) = a - b*floor(a/b): the sign of b
        a, b = _ev(e.args[0], env), _ev(e.args[1], env)
        if b.is_exact() and b == 0:
            raise Unsupported("Mod(a, 0) is undefined")
        return a - b * _round(a / b, "floor", e)
    if isinstance(e, sp.Max | sp.Min):
        vals = [_ev(a, env) for a in e.args]
        acc = vals[0]
        for v in vals[1:]:
            acc = acc.max(v) if isinstance(e, sp.Max) else acc.min(v)
        return acc
    if isinstance(e, sp.Piecewise):
        for val, cond in e.args:
            t = _cond(cond, env)
            if t is None:
                raise Unsupported("Piecewise condition not decidable in arb")
            if t:
                return _ev(val, env)
        raise Unsupported("Piecewise with no true branch")
    if e.is_Function and hasattr(e, "_arb_eval"):
        return e._arb_eval(env, _ev)
    raise Unsupported(f"{type(e).__name__}: {e}")


def _exact(e, env) -> sp.Rational | None:
    """The exact rational value of ``e`` when it is built from rationals (and variables bound to
    rationals) by + * integer powers, floor, ceiling and Mod; else None."""
    if e.is_Rational:
        return e
    if e.is_Symbol:
        v = env.get(e, env.get(e.name))
        return sp.Rational(v) if isinstance(v, int | Fraction | sp.Rational) and not \
            isinstance(v, bool) else None
    if e.is_Add or e.is_Mul or isinstance(e, sp.floor | sp.ceiling | sp.Mod) or (
            e.is_Pow and e.exp.is_Integer):
        args = [_exact(a, env) for a in e.args]
        if any(v is None for v in args):
            return None
        if e.is_Pow and args[0] == 0 and args[1] < 0:
            return None
        if isinstance(e, sp.Mod) and args[1] == 0:
            return None
        out = e.func(*args)
        return out if out.is_Rational else None
    return None


def _round(x: flint.arb, how: str, e) -> flint.arb:
    """``floor``/``ceil`` of a ball, exact when every point of the ball rounds to one integer."""
    if not x.is_finite():
        raise Unsupported(f"{type(e).__name__} of a non-finite ball")
    n = getattr(x, how)().unique_fmpz()
    if n is None:
        raise Unsupported(f"{type(e).__name__}: the ball {x.str(10, radius=True)} straddles an "
                          "integer")
    return flint.arb(n)


def _cond(c, env) -> bool | None:
    """Certified truth of a SymPy condition at ``env`` (None if the balls cannot tell)."""
    if c is sp.true:
        return True
    if c is sp.false:
        return False
    if isinstance(c, sp.And | sp.Or):
        vals = [_cond(a, env) for a in c.args]
        if isinstance(c, sp.And):
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    if isinstance(c, sp.Not):
        v = _cond(c.args[0], env)
        return None if v is None else not v
    if isinstance(c, sp.ITE):
        t = _cond(c.args[0], env)
        return None if t is None else _cond(c.args[1] if t else c.args[2], env)
    if isinstance(c, sp.core.relational.Relational):
        d = _ev(c.lhs - c.rhs, env)
        zero = d.is_exact() and d == 0
        pos, neg = bool(d > 0), bool(d < 0)
        if not (zero or pos or neg):
            return None
        op = c.rel_op
        return {"==": zero, "!=": not zero, "<": neg, "<=": neg or zero, ">": pos,
                ">=": pos or zero}[op]
    raise Unsupported(f"condition {c}")


def _ev_sum(e: sp.Sum, env):
    body, *limits = e.args
    if len(limits) > 1:  # the last index is the outermost
        body, limits = sp.Sum(body, *limits[:-1]), limits[-1:]
    var, lo, hi = limits[0]
    lo_v, hi_v = sp.sympify(lo).subs(_sym_env(env)), sp.sympify(hi).subs(_sym_env(env))
    if not (lo_v.is_Integer and hi_v.is_Integer):
        raise Unsupported(f"summation limits not concrete: {lo_v}, {hi_v}")
    if hi_v < lo_v - 1:  # the one convention: hi = lo - 1 is empty, below that undefined
        raise Unsupported(f"reversed summation range {lo_v} .. {hi_v}")
    if int(hi_v) - int(lo_v) > 200_000:
        raise Unsupported("sum too long for pointwise evaluation")
    acc = flint.arb(0)
    for t in range(int(lo_v), int(hi_v) + 1):
        acc += _ev(body, {**env, var: t})
    return acc


def _sym_env(env: dict) -> dict:
    out = {}
    for k, v in env.items():
        key = k if isinstance(k, sp.Symbol) else sp.Symbol(k)
        if isinstance(v, int | Fraction | sp.Rational):
            out[key] = sp.Rational(v)
    return out


def certified_sign(expr, env: dict, precs=(64, 128, 256, 1024)) -> tuple[int | None, flint.arb]:
    """Sign of ``expr`` at ``env`` if the ball excludes zero (escalating precision), else None.

    Returns ``(+1 | -1 | 0 | None, ball)``; ``0`` only when the ball is exactly the point zero.
    """
    ball = None
    for p in precs:
        ball = arb_eval(expr, env, p)
        if not ball.is_finite():
            continue
        if ball > 0:
            return 1, ball
        if ball < 0:
            return -1, ball
        if ball.is_exact() and ball == 0:
            return 0, ball
    return None, ball


def ball_str(b: flint.arb, digits: int = 20) -> str:
    return b.str(digits, radius=True)
