"""The objects a statement may contain beyond SymPy's own: ``PiIntegral`` and ``Delta``.

``PiIntegral(f, x)`` is the integral of ``f`` over ``[-pi, pi]`` in ``x`` (unevaluated; decided
by :mod:`peproof.engines.periodic`, evaluated in certified ball arithmetic by ``acb.integral``);
``Delta(p, q)`` is the Iverson bracket ``[p = q]`` of integer-valued ``p``, ``q``.  They live here,
below every engine, because the well-formedness gate must know them without importing an
engine.
"""

from __future__ import annotations

import flint
import sympy as sp

from peproof.kernel.arb import Unsupported, arb_eval

EVAL_LIMIT = 300  # integrand evaluations per certified integral (acb.integral's bound)
DEPTH_LIMIT = 60  # subdivision depth per certified integral


class PiIntegral(sp.Function):
    """``PiIntegral(f, x)``: the integral of ``f`` over ``[-pi, pi]`` in ``x`` (unevaluated)."""

    nargs = 2

    @property
    def free_symbols(self):
        return self.args[0].free_symbols - {self.args[1]}

    def _latex(self, printer):
        f, x = self.args
        return rf"\int_{{-\pi}}^{{\pi}} {printer._print(f)} \, d{printer._print(x)}"

    def _arb_eval(self, env, ev):
        f, x = self.args
        fn = _acb_compile(f, x, env, ev)
        pi = flint.arb.pi()
        # the integrand is entire (sin, cos, exp of alpha x): no analytic flag to honour; the
        # work is bounded (a large frequency then gives a wide ball, never a wrong one)
        return flint.acb.integral(lambda z, _analytic: fn(z), -pi, pi,
                                  eval_limit=EVAL_LIMIT, depth_limit=DEPTH_LIMIT).real

    def _eval_evalf(self, prec):
        """Numerical value (used by ``evalf``/``N``): the midpoint of the arb enclosure."""
        if self.free_symbols:
            return None
        try:
            ball = arb_eval(self, {}, prec + 20)
        except Unsupported:
            return None
        return sp.Float(ball.mid().str(prec // 3 + 5, radius=False), prec // 3 + 2)


class Delta(sp.Function):
    """Iverson bracket ``[p = q]`` for integer-valued ``p, q``."""

    nargs = 2

    @classmethod
    def eval(cls, p, q):
        diff = p - q
        if diff.is_Integer:
            return sp.Integer(1 if diff == 0 else 0)
        return None

    def _latex(self, printer):
        p, q = self.args
        return rf"[{printer._print(p)} = {printer._print(q)}]"

    def _arb_eval(self, env, ev):
        p, q = (ev(a, env) for a in self.args)
        if p.is_exact() and q.is_exact():
            return flint.arb(1 if p == q else 0)
        diff = p - q
        if diff > 0 or diff < 0:
            return flint.arb(0)
        raise Unsupported("Delta of undecided balls")


def _acb_compile(f: sp.Expr, x: sp.Symbol, env: dict, ev):
    """``f`` as a function of an ``acb`` argument; ``x``-free subterms are arb balls."""
    if not f.has(x):
        c = flint.acb(ev(f, env))
        return lambda z: c
    if f == x:
        return lambda z: z
    if f.is_Add or f.is_Mul:
        parts = [_acb_compile(a, x, env, ev) for a in f.args]
        if f.is_Add:
            def add(z):
                acc = flint.acb(0)
                for p in parts:
                    acc += p(z)
                return acc
            return add

        def mul(z):
            acc = flint.acb(1)
            for p in parts:
                acc *= p(z)
            return acc
        return mul
    if f.is_Pow and f.exp.is_Integer and f.exp >= 0:
        base, e = _acb_compile(f.base, x, env, ev), int(f.exp)
        return lambda z: base(z) ** e
    if isinstance(f, sp.sin | sp.cos | sp.exp):
        inner = _acb_compile(f.args[0], x, env, ev)
        name = type(f).__name__
        return lambda z: getattr(inner(z), name)()
    raise Unsupported(f"integrand construct {type(f).__name__}")
