"""Decide statements about the decay bound ``B_d(k)`` at every integer point of a box.

The ``rope`` family states facts about RoPE's decay curve as ordinary statements: relations
between sums ``c0 + sum_i c_i B_(d_i)(a_i)`` (rational ``c``, :class:`peproof.rope.DecayBound`
terms whose offsets ``a_i`` are affine in the variables), universally quantified over at most two
integer variables bounded by linear hypotheses.  :func:`decide` reads any such statement (a claim,
a falsifier, a negated claim alike), enumerates every integer point of its box, and

* decides each relation from the certified curve (:func:`~peproof.numeric.rope_decay.cached_curve`:
  float64 with a proved error bound), the intervals rounded outward at every operation;
* redoes each point the intervals cannot decide in arb through the generic engine
  (:func:`peproof.engines.witness.truth`, precision raised to 1024 bits);
* proves the statement when every point holds, refutes it with a witness certified by
  :func:`peproof.engines.witness.check_point` when one fails, and answers ``unknown`` otherwise
  (a statement outside this shape, an empty or unbounded box, too many undecided points).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import sympy as sp

from peproof.claims import Rel, Statement, Verdict
from peproof.rope import DecayBound

INT_DOMAINS = {"integer": None, "nonneg_integer": 0, "pos_integer": 1}
MAX_POINTS = 20_000_000
MAX_ROWS = 1_000_000
MAX_ARB = 200
ENGINE = "certified curve (float64 + proved bound) + arb"


class Outside(Exception):
    """The statement is not of the shape this procedure reads."""


def _affine(e: sp.Expr, syms: list) -> tuple[list[Fraction], Fraction]:
    """Coefficients and constant of an affine ``e`` in ``syms`` (rational coefficients)."""
    e = sp.expand(e)
    if e.free_symbols - set(syms):
        raise Outside(f"{e} has symbols other than the variables")
    coeffs = []
    for s in syms:
        c = e.coeff(s)
        if not c.is_Rational:
            raise Outside(f"{e} is not affine with rational coefficients")
        coeffs.append(Fraction(int(c.p), int(c.q)))
    const = e.subs({s: 0 for s in syms})
    if not const.is_Rational:
        raise Outside(f"{e} is not affine")
    if sp.expand(e - sum(sp.Rational(c.numerator, c.denominator) * s
                         for c, s in zip(coeffs, syms, strict=True)) - const) != 0:
        raise Outside(f"{e} is not affine")
    return coeffs, Fraction(int(const.p), int(const.q))


def _side(e: sp.Expr, syms: list) -> tuple[Fraction, list]:
    """``e = c0 + sum c_i B(d_i, a_i, base_i)``: ``(c0, [(c_i, d_i, base_i, affine a_i)])``."""
    c0, terms = Fraction(0), []
    for t in sp.Add.make_args(sp.expand(e, deep=False)):
        coeff, rest = t.as_coeff_Mul()
        if isinstance(rest, DecayBound):
            d, a, base = rest.args
            terms.append((Fraction(int(coeff.p), int(coeff.q)), int(d), str(base),
                          _affine(a, syms)))
        elif t.is_Rational:
            c0 += Fraction(int(t.p), int(t.q))
        else:
            raise Outside(f"term {t} is neither rational nor a rational multiple of B")
    return c0, terms


def _bounds(stmt: Statement, syms: list) -> list[list]:
    """Per variable: the linear constraints ``(coeffs, const, strict)`` meaning
    ``sum coeffs * vars + const (<|<=) 0`` whose last variable it is."""
    per: list[list] = [[] for _ in syms]
    for v, s in zip(stmt.vars, syms, strict=True):
        low = INT_DOMAINS[v.domain]
        if low is not None:
            cs = [Fraction(0)] * len(syms)
            cs[syms.index(s)] = Fraction(-1)
            per[syms.index(s)].append((cs, Fraction(low), False))
    for hyp in stmt.hyps:
        if hyp.op not in ("<=", "<"):
            raise Outside(f"hypothesis {hyp} is not an inequality")
        cs, const = _affine(hyp.lhs - hyp.rhs, syms)
        used = [i for i, c in enumerate(cs) if c != 0]
        if not used:
            raise Outside(f"hypothesis {hyp} has no variable")
        per[max(used)].append((cs, const, hyp.op == "<"))
    return per


def _range(cons: list, idx: int, fixed: list[int]) -> tuple[float, float]:
    """Integer range of variable ``idx`` given the earlier variables ``fixed``."""
    lo, hi = -math.inf, math.inf
    for cs, const, strict in cons:
        rest = const + sum(c * x for c, x in zip(cs[:idx], fixed, strict=False))
        a = cs[idx]  # a v + rest (<|<=) 0
        bound = -rest / a
        if a > 0:
            b = math.floor(bound)
            hi = min(hi, b - 1 if strict and b == bound else b)
        else:
            b = math.ceil(bound)
            lo = max(lo, b + 1 if strict and b == bound else b)
    return lo, hi


def _rows(stmt: Statement, syms: list) -> list[tuple[dict, object, int, int]]:
    """The box as rows ``(outer values, inner variable, first, last)``: the inner variable runs
    over ``first..last`` with the outer one fixed (one row without variables)."""
    if not syms:
        return [({}, None, 0, 0)]
    per = _bounds(stmt, syms)
    lo, hi = _range(per[0], 0, [])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise Outside("unbounded variable")
    if len(syms) == 1:
        return [({}, syms[0], int(lo), int(hi))] if hi >= lo else []
    if hi - lo >= MAX_ROWS:
        raise Outside(f"more than {MAX_ROWS} values of {syms[0]}")
    rows, total = [], 0
    for v in range(int(lo), int(hi) + 1):
        lo2, hi2 = _range(per[1], 1, [v])
        if not (math.isfinite(lo2) and math.isfinite(hi2)):
            raise Outside("unbounded variable")
        if hi2 >= lo2:
            total += int(hi2 - lo2 + 1)
            if total > MAX_POINTS:
                raise Outside(f"more than {MAX_POINTS} integer points")
            rows.append(({syms[0]: v}, syms[1], int(lo2), int(hi2)))
    return rows


def _frac_iv(q: Fraction) -> tuple[float, float]:
    f = float(q)
    return (f if Fraction(f) <= q else math.nextafter(f, -math.inf),
            f if Fraction(f) >= q else math.nextafter(f, math.inf))


def _span(term, syms: list, row, count: int) -> tuple[int, int, int]:
    """``(first offset, step, count)`` of one B term along a row (``count`` 1: one point)."""
    _, _, _, (cs, const) = term
    if const.denominator != 1 or any(x.denominator != 1 for x in cs):
        raise Outside("offsets must have integer coefficients")
    outer, inner, first, _ = row
    off = int(const) + sum(int(c) * outer.get(s, 0) for c, s in zip(cs, syms, strict=True)
                           if s is not inner)
    step = int(cs[syms.index(inner)]) if inner is not None else 0
    off += step * first
    if min(off, off + step * (count - 1)) < 0:
        raise Outside("a negative offset (B is only tabulated for k >= 0)")
    return off, step, count


def _values(cv, span) -> tuple:
    """``lo, hi`` of ``B`` along a span: views of the certified curve (scalars for one point)."""
    off, step, count = span
    i = off - cv.k0
    if count == 1 or step == 0:
        return cv.lo[i], cv.hi[i]
    if step > 0:
        sl = slice(i, i + step * count, step)
        return cv.lo[sl], cv.hi[sl]
    idx = i + step * np.arange(count)
    return cv.lo[idx], cv.hi[idx]


def _interval(side, spans: list, curves: dict, count: int) -> tuple:
    """Outward-rounded interval of one side along a row (exact when the side is one term with
    coefficient 1, or a rational constant that is a float)."""
    c0, terms = side
    lo = hi = None
    for (c, d, base, _), span in zip(terms, spans, strict=True):
        blo, bhi = _values(curves[(d, base)], span)
        if c == 1:
            tlo, thi = blo, bhi
        else:  # [blo, bhi] * [c_lo, c_hi], every sign case, then one ulp outward
            c_lo, c_hi = _frac_iv(c)
            prods = [blo * c_lo, blo * c_hi, bhi * c_lo, bhi * c_hi]
            tlo = np.nextafter(np.minimum.reduce(prods), -np.inf)
            thi = np.nextafter(np.maximum.reduce(prods), np.inf)
        if lo is None:
            lo, hi = tlo, thi
        else:
            lo, hi = np.nextafter(lo + tlo, -np.inf), np.nextafter(hi + thi, np.inf)
    c0_lo, c0_hi = _frac_iv(c0)
    if lo is None:
        return np.full(count, c0_lo), np.full(count, c0_hi)
    if c0:
        lo, hi = np.nextafter(lo + c0_lo, -np.inf), np.nextafter(hi + c0_hi, np.inf)
    return np.broadcast_to(lo, (count,)), np.broadcast_to(hi, (count,))


class _Concl:
    """One conclusion, read: its two sides and which rows and points it needs."""

    def __init__(self, rel: Rel, syms: list, rows: list):
        self.rel = rel
        self.sides = (_side(rel.lhs, syms), _side(rel.rhs, syms))
        free = rel.lhs.free_symbols | rel.rhs.free_symbols
        self.inner = bool(syms) and syms[-1] in free
        outer = len(syms) == 2 and syms[0] in free
        self.rows = rows if (outer or self.inner) else rows[:1]
        if not self.inner and outer:  # one point per outer value
            self.rows = rows
        self.spans = []
        for row in self.rows:
            count = row[3] - row[2] + 1 if self.inner else 1
            self.spans.append([[_span(t, syms, row, count) for t in side[1]]
                               for side in self.sides])

    def need(self) -> dict:
        out: dict = {}
        for spans in self.spans:
            for side, sps in zip(self.sides, spans, strict=True):
                for (_, d, base, _), (off, step, count) in zip(side[1], sps, strict=True):
                    top = max(off, off + step * (count - 1))
                    out[(d, base)] = max(out.get((d, base), 0), top)
        return out


def decide(stmt: Statement, n_min: int = 62832) -> Verdict:
    """The verdict of a decay statement (module docstring); ``n_min`` is the least curve length
    computed (so the claims share one cached curve per ``d``)."""
    from peproof.engines import witness
    from peproof.engines.decide import versions
    from peproof.numeric.rope_decay import cached_curve

    t0 = time.perf_counter()
    ver = f"python-flint {versions()['python-flint']}, numpy {np.__version__}"

    def unknown(reason: str) -> Verdict:
        return Verdict("unknown", ENGINE, ver, "certified curve", reason=reason,
                       seconds=time.perf_counter() - t0)

    try:
        if stmt.quant != "forall":
            raise Outside("only universal statements")
        if len(stmt.vars) > 2 or any(v.domain not in INT_DOMAINS for v in stmt.vars):
            raise Outside("at most two integer variables")
        syms = [v.symbol for v in stmt.vars]
        rows = _rows(stmt, syms)
        if not rows:
            raise Outside("no integer point satisfies the hypotheses")
        concls = [_Concl(r, syms, rows) for r in stmt.concl]
    except Outside as exc:
        return unknown(f"outside the decay-statement shape: {exc}")
    need: dict = {}
    for cc in concls:
        for key, top in cc.need().items():
            need[key] = max(need.get(key, 0), top)
    curves = {key: cached_curve(key[0], max(n_min, top), key[1]) for key, top in need.items()}
    arb_left, trace = MAX_ARB, []
    for cc in concls:
        rel, points, in_arb = cc.rel, 0, 0
        for row, spans in zip(cc.rows, cc.spans, strict=True):
            count = row[3] - row[2] + 1 if cc.inner else 1
            (llo, lhi), (rlo, rhi) = (_interval(side, sps, curves, count)
                                      for side, sps in zip(cc.sides, spans, strict=True))
            points += count
            true = {"<": lhi < rlo, "<=": lhi <= rlo, "!=": (lhi < rlo) | (rhi < llo),
                    "==": np.zeros(count, bool)}[rel.op]
            if true.all():
                continue
            false = {"<": llo >= rhi, "<=": llo > rhi, "!=": np.zeros(count, bool),
                     "==": (lhi < rlo) | (rhi < llo)}[rel.op]
            amb = np.nonzero(~true & ~false)[0]
            order = np.concatenate([np.nonzero(false)[0][:1], amb])
            if amb.size > arb_left:
                return unknown(f"{amb.size} points of {rel} not decided by the curve intervals")
            for i in order:
                env = dict(row[0])
                if row[1] is not None:
                    env[row[1]] = row[2] + int(i)
                res = witness.truth(Rel(rel.op, rel.lhs, rel.rhs), env)
                arb_left -= 1
                in_arb += 1
                if res is False:
                    w = witness.check_point(stmt, env)
                    if w:
                        return Verdict("refuted", "arb", ver, "certified counterexample",
                                       witness=w, seconds=time.perf_counter() - t0,
                                       trace=[f"{rel} fails at {env} (certified in arb)"])
                if res is not True:
                    return unknown(f"{rel} at {env} not decided in arb up to 1024 bits")
        trace.append(f"{rel}: {points} integer point(s), {in_arb} decided in arb")
    bounds = ", ".join(f"d={d}: |B~ - B| <= {cv.bound:.2e} on k <= {cv.n_end}"
                       for (d, _), cv in curves.items())
    return Verdict(
        "proved", ENGINE, ver, "every integer point of the box, certified",
        axioms=("IEEE-754 binary64 arithmetic (the proved error bound of the float curve)",
                "python-flint arb enclosures"),
        seconds=time.perf_counter() - t0, trace=trace + [bounds],
    )
