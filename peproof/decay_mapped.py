"""RoPE's decay bound for any list of pair frequencies (a frequency map's: llama3, linear, ...).

``B(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|`` with ``S_j(k) = sum_{l<j} exp(i k theta_l)`` is defined
for any frequencies ``theta_0 .. theta_(d/2-1)``; :class:`FreqDecayBound` is that sum with the
frequencies given as exact SymPy numbers (``FreqDecayBound(k, Tuple(theta_0, ...))``), evaluated
in arb by its own ``_arb_eval`` (the same phases, running sums and moduli as
:func:`peproof.rope.decay_bound_arb`, on these frequencies) and stated with its definition for the
well-formedness gate.  :func:`exhaustive_arb` decides a statement over one integer offset ``k``
in a finite box (``k <= M``) by certifying every relation at every ``k`` in arb.

The certified float64 curve of :mod:`peproof.numeric.rope_decay` (every offset to 62,832) takes
the unmapped law ``base**(-2j/d)`` only; with a map, the landmarks decided here are those of a
short box (the first rise), never the whole curve.  Kept outside :mod:`peproof.families` so that
a variant's claims and the checks share one class.
"""

from __future__ import annotations

import time
from functools import lru_cache

import sympy as sp

from peproof.claims import Claim, Statement, Verdict


@lru_cache(maxsize=256)
def _thetas_arb(thetas: tuple, prec: int) -> tuple:
    import flint

    from peproof.kernel.arb import arb_eval

    with flint.ctx.workprec(prec + 16):
        return tuple(arb_eval(t, {}, prec + 16) for t in thetas)


class FreqDecayBound(sp.Function):
    """``B(k)`` over the frequencies of ``args[1]`` (a :class:`sympy.Tuple`, ``d/2`` of them)."""

    nargs = 2

    @classmethod
    def eval(cls, k, thetas):
        if not isinstance(thetas, sp.Tuple) or not thetas or any(
                t.free_symbols or not t.is_real for t in thetas):
            raise ValueError("FreqDecayBound needs a Tuple of exact real frequencies")
        return None

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    @property
    def d(self) -> int:
        return 2 * len(self.args[1])

    def peproof_definition(self):
        k, thetas = self.args
        terms, c, s = [], sp.Integer(0), sp.Integer(0)
        for t in thetas:
            c, s = c + sp.cos(k * t), s + sp.sin(k * t)
            terms.append(sp.sqrt(c**2 + s**2))
        return sp.Rational(2, self.d) * sp.Add(*terms)

    def _arb_eval(self, env, ev):
        import flint

        k = ev(self.args[0], env)
        prec = flint.ctx.prec
        acc, total = flint.acb(0), flint.arb(0)
        for w in _thetas_arb(tuple(self.args[1]), prec):
            sn, cs = (k * w).sin_cos()
            acc += flint.acb(cs, sn)
            total += abs(acc)
        return 2 * total / self.d

    def _sympystr(self, printer):
        return f"Bmap_{self.d}({printer._print(self.args[0])})"


def arb_value(b: FreqDecayBound, k: int, prec: int = 128):
    import flint

    with flint.ctx.workprec(prec):
        return FreqDecayBound(sp.Integer(k), b.args[1])._arb_eval({}, lambda e, env: flint.arb(
            int(e)))


def first_rise(thetas: tuple, limit: int) -> int | None:
    """The least ``k >= 1`` with ``B(k) > B(k - 1)`` certified in arb (rising precision), below
    ``limit``; None when none is found or a comparison stays undecided."""
    b = FreqDecayBound(sp.Symbol("k"), sp.Tuple(*thetas))
    prev = arb_value(b, 0)
    for k in range(1, limit):
        cur = arb_value(b, k)
        for prec in (256, 512):
            if cur > prev or cur < prev:
                break
            prev, cur = arb_value(b, k - 1, prec), arb_value(b, k, prec)
        if cur > prev:
            return k
        if not cur < prev:
            return None
        prev = cur
    return None


def exhaustive_arb(stmt: Statement, claim: Claim | None = None) -> Verdict:
    """Proof function: every relation certified in arb at every integer ``k`` of ``0 .. M``
    (one nonnegative integer variable, the hypothesis ``k <= M``)."""
    import flint

    from peproof.engines.witness import truth

    t0 = time.perf_counter()
    ver = f"python-flint {flint.__version__}"

    def unknown(why: str) -> Verdict:
        return Verdict("unknown", "arb", ver, "certified at every offset of the box",
                       reason=why, seconds=time.perf_counter() - t0)

    if stmt.quant != "forall" or len(stmt.vars) != 1 or not stmt.vars[0].domain.startswith(
            "nonneg_integer"):
        return unknown("only a universal statement over one nonnegative integer offset")
    k = stmt.vars[0].symbol
    tops = [h.rhs for h in stmt.hyps if h.op == "<=" and h.lhs == k and h.rhs.is_Integer]
    if len(stmt.hyps) != 1 or not tops:
        return unknown("the hypothesis must be k <= M (an integer) and nothing else")
    for kk in range(int(tops[0]) + 1):
        env = {k: sp.Integer(kk)}
        for r in stmt.concl:
            t = truth(r, env)
            if t is False:
                return Verdict("refuted", "arb", ver, "certified at every offset of the box",
                               witness={"point": {k.name: str(kk)}, "relations": [str(r)],
                                        "certified_by": "python-flint arb (rigorous balls)"},
                               seconds=time.perf_counter() - t0)
            if t is None:
                return unknown(f"{r} undecided in arb at {k.name} = {kk}")
    return Verdict("proved", "arb", ver, "certified at every offset of the box",
                   seconds=time.perf_counter() - t0,
                   trace=[f"every relation certified in arb at each {k.name} = 0 .. {tops[0]}"])
