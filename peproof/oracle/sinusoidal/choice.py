"""Step 6 of :mod:`peproof.oracle.sinusoidal.identification`: from the candidate variants the
estimates suggest, the one that is named.

Selection, not ranking.  Every candidate (family, base and frequency scale from the fitted phases,
the offset read with the candidate's own frequencies, the scales near the measured amplitude) is
checked against the examined rows within the error model of the table's dtype and pipeline
(:mod:`peproof.oracle.common.budget`); among those every examined entry of which is within the
bound, the **simplest** in the order of :mod:`peproof.oracle.sinusoidal.simplicity` is named.  How
*closely* a candidate fits does not matter once it fits: a closer fit among variants the error
model cannot tell apart is the rounding of one recipe, not evidence of another variant (a float32
``pow`` table of the paper family with base ``10**6`` is closer to h-1 with base 805842 than to
itself on some tables).  The further candidates that fit are kept, simplest first
(:attr:`Identification.candidates`): the check confirms the named one on the whole table and
moves to the next when it does not fit there.

When no candidate fits every examined entry (a broken pair, rows of another position), the
candidates are ranked by the fraction of entries within the bound (a broken pair or row does not
hide the variant of the rest) and the simplest of those that fit about as well as the best is
named.

Candidates are first scored with frequencies NumPy evaluates from the encoding's law
(:class:`ApproxPlan`, a few float64 ulps off: far below the bound of any table stored in 32 bits
or fewer); the fit of the one named is confirmed with the correctly rounded frequencies.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from peproof.formats import Format

from ..common.budget import Budget
from ..common.exact import Plan
from .estimate import (
    base_candidates,
    frequency_scales,
    offset_estimate,
    scale_candidates,
    snap_offset,
)
from .simplicity import cost
from .variant import Variant

MAX_CONFIRM = 12  # candidates confirmed on every examined row before giving up on a full fit
MAX_KEPT = 6  # further fitting candidates kept for the check


class ApproxPlan(Plan):
    """A plan whose float64 frequencies come from the encoding's law evaluated by NumPy (a few
    ulps off, instead of correctly rounded from arb): fast enough to rank many candidates."""

    @cached_property
    def omega(self) -> np.ndarray:
        const, b, rate = self.enc.law
        i = np.arange(self.h, dtype=np.float64)
        return float(const) * np.power(float(b), float(rate) * i)


def evaluate(v: Variant, T, P, stored: Format, pipe: Format, approx: bool = False) -> tuple:
    """(fraction of entries within the bound, rms abs error, max ratio, max abs, fraction of
    rows within, fraction within an eighth of the bound) against ``v`` at positions ``P``."""
    d = T.shape[1]
    plan = (ApproxPlan if approx else Plan)(v.encoding(d))
    x = plan.angles(P)
    vals = plan.assemble(np.sin(x), np.cos(x))
    if plan.scale != 1.0:
        vals *= plan.scale
    E = plan.row_bound(P)
    diff = T - vals
    ad = np.abs(diff)
    bud = Budget(plan, pipe, stored)
    B = bud.bound(bud.angle_error(P, x), vals) + E * (1.0 + bud.beta)
    with np.errstate(over="ignore", invalid="ignore"):
        r = ad / B
    rr = r.max(axis=1)
    return (float((r <= 1).mean()), float(np.sqrt(np.mean(diff * diff))), float(rr.max()),
            float(ad.max()), float((rr <= 1).mean()), float((r <= 0.125).mean()))


def candidates(est: dict, hyps: list, d: int, Ts, sub, stored: Format, pipe: Format
               ) -> list[tuple]:
    """``(score on the sub-sample, variant, positions of the examined rows)`` of every candidate
    (at the first scale candidate; the scales are tried at selection)."""
    scales = scale_candidates(est["scale"], d)
    scored = []
    for hyp in hyps:
        P = hyp["P"]
        for fam, base in base_candidates(est, d):
            for mf, turns in frequency_scales(est, fam):
                try:
                    probe = Variant(fam, base, hyp["layout"], 0, scales[0], max_freq=mf,
                                    turns=turns, order=hyp["order"])
                    w = ApproxPlan(probe.encoding(d)).omega
                except ValueError:
                    continue
                # the offset read with the candidate's own frequencies (the estimated ones
                # alias for fast pairs and are noisy in 16-bit formats)
                for o in snap_offset(offset_estimate(hyp["theta"], P, w, est["phase_noise"],
                                                     est["resolved_u"])):
                    v = probe.with_(offset=o)
                    scored.append((evaluate(v, Ts, P[sub], stored, pipe, approx=True), v, P))
    return scored


def select(scored: list, scales: list, T, sub, stored: Format, pipe: Format):
    """``(variant, positions, fit on every examined row, further fitting candidates)`` for the
    simplest candidate every examined entry of which is within the bound, else ``None``."""
    d = T.shape[1]
    Ts = T[sub]
    wide = stored.is_binary and stored.p > 40  # float64: the approximate frequencies may matter
    pool = []
    seen = set()
    for s, v, P in scored:
        if not (s[2] <= (4.0 if wide else 1.0)):
            continue
        for sc in scales:
            w = v.with_(scale=sc)
            key = (w.name(d), id(P))
            if key not in seen:
                seen.add(key)
                pool.append((w, P))
    pool.sort(key=lambda wp: cost(wp[0], d))
    chosen = None
    kept: list = []
    tried = 0
    for w, P in pool:
        if chosen is not None and len(kept) >= MAX_KEPT:
            break
        if str(w.scale) != str(scales[0]) or wide:  # not scored at this scale (or not exactly)
            if not evaluate(w, Ts, P[sub], stored, pipe, approx=not wide)[2] <= 1.0:
                continue
        if chosen is not None:
            if P is chosen[1]:
                kept.append(w)
            continue
        if tried >= MAX_CONFIRM:
            break
        tried += 1
        fit = evaluate(w, T, P, stored, pipe)
        if fit[2] <= 1.0:
            chosen = (w, P, fit)
    if chosen is None:
        return None
    return (*chosen, kept)


def rank(scored: list, scales: list, T, sub, stored: Format, pipe: Format):
    """No candidate fits every examined entry: ``(variant, positions, fit)`` of the simplest
    among those that fit about as well as the best, and the candidates as well supported."""
    Ts = T[sub]
    best, _ = pick([(s, v) for s, v, _ in scored])
    P = next(p for _, v, p in scored if v == best)
    # the scale, with the family, base, frequency scale and offset fixed
    sc = [(evaluate(best.with_(scale=s), Ts, P[sub], stored, pipe, approx=True),
           best.with_(scale=s)) for s in scales]
    best, ok2 = pick(sc)
    _, ok1 = pick([(s, v.with_(scale=best.scale)) for s, v, p in scored if p is P])
    return best, P, evaluate(best, T, P, stored, pipe), ok1 + ok2


def pick(scored: list):
    """The simplest candidate that fits as well as the best one.

    Candidates are ranked by the fraction of entries within the error model; among those
    within 0.1% of the best, every candidate within 50% of the best rms error and of the best
    largest ratio is equally supported by the data, and the simplest is named.
    """
    top = max(s[0] for s, _ in scored)
    pool = [(s, v) for s, v in scored if s[0] >= top - 1e-3]
    # closeness on the rows the dtype resolves well: the fraction within an eighth of the bound
    tight = max(s[5] for s, _ in pool)
    pool = [(s, v) for s, v in pool if s[5] >= tight - 0.01]
    best_rms = min(s[1] for s, _ in pool)
    best_max = min(s[2] for s, _ in pool)
    near = [(s, v) for s, v in pool if s[1] <= 1.5 * best_rms + 1e-300]
    ok = [(s, v) for s, v in near if s[2] <= 1.5 * best_max + 0.02] or near
    return min(ok, key=lambda sv: (cost(sv[1]), sv[0][1]))[1], ok
