"""Which RoPE a frequency vector is: base, scaling method and its parameters, searched exactly.

Input: the frequencies ``w_j`` read from an artefact (an ``inv_freq`` vector, or the angles of a
cos/sin cache) with a relative uncertainty ``rel_j`` that bounds how far the exact frequency of
the recipe that made it may lie (the error model's ``e_w`` plus the reading's own error).

Search (no fixed list of bases or factors):

1. the leading pair: ``w_0 = theta_0 m_0`` with ``theta_0 = 1``; ``m_0 = 1`` for every method but
   linear (``1/s``) and LongRoPE (``1/lambda_0``);
2. the unscaled prefix: ``b_k = (w_k / m_0)**(-d/(2k))`` agrees for every unscaled pair ``k``; the
   intersection of their certified intervals is the base's interval, and the base is its simplest
   number (:mod:`..common.numbers`);
3. the multipliers ``m_j = w_j / theta_j(b)``: all ``m_0`` -> default / linear (``s = 1/m_0``);
   a geometric vector with a non-round base -> NTK-aware with factor ``(b'/b)^((d-2)/d)`` when a
   base is expected (dynamic NTK gives the same vector at one sequence length);
   else the last multiplier gives ``1/s`` and the ramp between is fitted: YaRN's ramp is affine in
   the pair index ``j`` (with truncation ``low`` is the last unscaled pair and ``high`` the first
   fully scaled one), Llama 3.1's is affine in ``theta_j``; their remaining parameters
   (``original_max_position_embeddings``, ``beta_fast``/``beta_slow``, ``low``/``high_freq_factor``)
   are the simplest values in the intervals the ramp allows.

Every candidate is confirmed by recomputing its full multiplier vector (within ``3 rel_j``); the
verdict itself always rests on the error-model check of the whole artefact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from peproof.rope import Rope
from peproof.rope_scaling import Default, KerasDynamic, Linear, NTKAware

from ..common.numbers import choices, simplest
from .ident_maps import _factor_choices, _llama3, _tail_factor, _yarn
from .model import thetas


@dataclass
class Candidate:
    rope: Rope
    notes: list = field(default_factory=list)
    residual: float = 0.0  # max |w_pred/w - 1| / rel
    #: the positions' scale (mlx's ``scale``): the frequencies read are ``pos_scale`` times the
    #: map's; 1 for a default or linear map (a scale there IS a linear factor ``1/pos_scale``)
    pos_scale: Fraction = Fraction(1)
    #: intervals the reading derived for parameters (name -> (lo, hi)): a value inside one is
    #: not ruled out by the artefact (:mod:`.expected`)
    intervals: dict = field(default_factory=dict)


def _base_interval(w: np.ndarray, rel: np.ndarray, d: int, m0: float, k: int):
    """Certified ``[lo, hi]`` of ``b`` from ``w_k = m0 b^(-2k/d)``, ``w_k`` within ``rel_k``."""
    e = -d / (2.0 * k)
    lo_w, hi_w = w[k] * (1 - rel[k]) / m0, w[k] * (1 + rel[k]) / m0
    a, b = hi_w**e, lo_w**e
    return a * (1 - 1e-12), b * (1 + 1e-12)


def _confirm(rope: Rope, w: np.ndarray, rel: np.ndarray, seq_len=None) -> float | None:
    try:
        pred = rope.thetas_numpy(seq_len)
    except Exception:  # noqa: BLE001 - a candidate whose map is undefined is no candidate
        return None
    zero = (w == 0) & (pred == 0)  # pairs that do not rotate (partial rotary)
    ok = ((w > 0) & (pred > 0)) | zero
    if not ok.all():
        return None
    r = np.abs(pred[~zero] / w[~zero] - 1) / np.maximum(rel[~zero], 1e-300)
    return float(r.max()) if r.size else 0.0


def _frac(x) -> Fraction:
    return Fraction(x)


def _m0_choices(lo: float, hi: float) -> list:
    """The leading multiplier's simple values in ``[lo, hi]``, simplest first: 1 (no scaling),
    then ``1/s`` for the simplest factors ``s`` (powers of two first), then simple decimals."""
    out = [Fraction(1)] if lo <= 1 <= hi else []
    if lo > 0:
        out += [1 / s for s in choices(1 / hi, 1 / lo, pow2=True, most=3) if s > 0]
        out += choices(lo, hi, most=3)
    seen: list = []
    for x in out:
        if x > 0 and x not in seen:
            seen.append(x)
    return seen[:5]


def _base_choices(lo: float, hi: float) -> list:
    """Simple bases in ``[lo, hi]``: the paper's 10000 first, then powers of ten, then the
    numbers with the fewest significant digits (nearest the interval's centre first)."""
    return [b for b in choices(lo, hi, prefer=(10000,), most=4, max_digits=3, max_den=0) if b > 1]


def _base_fit(w, rel, d, m0, k_last, lo, hi) -> float:
    """The base that best explains pairs 1..k_last (``log(w_j / m0) = -(2j/d) log b``, weighted
    least squares with weights ``1/rel_j**2``), kept inside the certified ``[lo, hi]``: a point of
    the interval that the whole-artefact check can hold to the model (the interval's middle is
    off by up to half its width, which a 16-bit cache's late rows tell apart), 0 if none."""
    if not (math.isfinite(lo) and math.isfinite(hi) and lo > 1):
        return 0.0
    j = np.arange(1, k_last + 1)
    x = 2.0 * j / d
    y = np.log(w[j] / m0)
    wt = 1.0 / np.maximum(rel[j], 1e-300) ** 2
    lb = -float(np.sum(wt * x * y) / np.sum(wt * x * x))
    return min(max(math.exp(lb), lo), hi)


def identify_frequencies(w, rel, d: int | None = None, base_hint=None) -> tuple[list, list]:
    """``(candidates, notes)``: every confirmed :class:`Candidate` (unordered: the caller ranks
    them by simplicity, :mod:`.simplest`, and checks each against the whole artefact) and what
    was seen."""
    w = np.asarray(w, dtype=np.float64)
    rel = np.broadcast_to(np.asarray(rel, dtype=np.float64), w.shape).copy()
    h = w.shape[0]
    d = 2 * h if d is None else d
    notes: list[str] = []
    if not np.all(np.isfinite(w)):
        return [], ["frequencies not all finite"]
    # partial rotary: the last pairs may have frequency 0 exactly (cos 1, sin 0: not rotated)
    k = h
    while k > 0 and w[k - 1] == 0:
        k -= 1
    if k < h:
        notes.append(f"pairs {k}..{h - 1} have frequency 0 exactly: they do not rotate "
                     f"(partial rotary, {k} of {h} pairs rotate)")
    if k < 2:
        return [], notes + ["fewer than two rotating frequencies: the base cannot be read"]
    if not np.all(w[:k] > 0):
        return [], notes + ["frequencies not all positive"]
    if np.any(np.diff(w[:k]) > w[1:k] * 3 * rel[1:k]):
        notes.append("frequencies are not decreasing")
    out: list[Candidate] = []
    m0_lo, m0_hi = w[0] * (1 - rel[0]), w[0] * (1 + rel[0])
    m0s = _m0_choices(m0_lo, m0_hi) or [None]
    for m0_exact in m0s:
        _for_m0(out, notes, w, rel, d, h, k, m0_exact, base_hint)
    if not out and k == h and d >= 4:
        _keras_dynamic(out, notes, w, rel, d, m0_lo, m0_hi)
    return out, notes


def _keras_dynamic(out, notes, w, rel, d, m0_lo, m0_hi):
    """A leading multiplier ``s^(-d/(d-2))`` with ``s`` simple (keras-hub's ``dynamic``: 4 gives
    the linear factor 4^(64/62) = 4.1815... at d = 64, no simple number): ``s`` estimated from the
    multiplier's interval, the simplest value in it taken, the base read under it."""
    if not 0 < m0_lo <= m0_hi < 1:
        return
    e = (d - 2) / d
    s = simplest((1 / m0_hi) ** e, (1 / m0_lo) ** e, pow2=True, max_digits=3, max_den=16)
    if s is None or s <= 1:
        return
    m0 = float(s) ** (-d / (d - 2))
    lo, hi = _base_interval(w, rel, d, m0, 1)
    for i in range(2, len(w)):
        a, b = _base_interval(w, rel, d, m0, i)
        if max(lo, a) > min(hi, b):
            return  # not one base under this multiplier
        lo, hi = max(lo, a), min(hi, b)
    for base in _base_choices(lo, hi):
        rope = Rope(d, base, scaling=KerasDynamic(s))
        r = _confirm(rope, w, rel)
        if r is not None and r <= 3.0:
            out.append(Candidate(rope, [f"base {base}, every frequency divided by {s}^(d/(d-2)) "
                                        f"= {float(s) ** (d / (d - 2)):.9g} (keras-hub's "
                                        f"'dynamic'; first frequency {w[0]:.9g})"], r,
                                 Fraction(1)))


def _for_m0(out, notes, w, rel, d, h, k, m0_exact, base_hint):
    """The candidates with leading multiplier ``m0_exact`` (None: no simple value)."""
    D = d  # the exponent's dimension: base**(-2j/D)
    m0 = float(m0_exact) if m0_exact is not None else w[0]

    def mk(base, scaling=None, D=D):
        return Rope(d, base, scaling=scaling or Default(), exponent_dim=D,
                    rotated_pairs=None if k == h else k)

    def add(rope, note=None, seq_len=None, pos_scale=Fraction(1), intervals=None):
        pred_w = w / float(pos_scale)
        r = _confirm(rope, pred_w, rel, seq_len)
        if r is not None and r <= 3.0:
            out.append(Candidate(rope, [note] if note else [], r, Fraction(pos_scale),
                                 dict(intervals or {})))
            return True
        return False

    # the unscaled prefix: b_i = (w_i / m0)**(-d/(2i)) agree while the pairs are unscaled
    lo, hi = _base_interval(w, rel, d, m0, 1)
    k_last = 1
    for i in range(2, k):
        a, b = _base_interval(w, rel, d, m0, i)
        if max(lo, a) > min(hi, b):
            break
        lo, hi, k_last = max(lo, a), min(hi, b), i
    geometric = k_last == k - 1
    b_fit = _base_fit(w, rel, d, m0, k_last, lo, hi)
    bases = _base_choices(lo, hi)
    base_text = f"base interval [{lo:.8g}, {hi:.8g}] from pairs 1..{k_last}"
    hint = Fraction(base_hint) if base_hint is not None else None
    if geometric and not bases and hint is None and m0_exact == 1 and d >= 4 and \
            math.isfinite(hi) and lo > 10000:
        # blind, a non-round base read as the paper's base changed by an NTK factor, when the
        # factor is simple (HunYuan's alpha 1000: base 10000 * 1000^(64/62) = 12496092...)
        e = (d - 2) / d
        s = simplest((lo / 10000) ** e, (hi / 10000) ** e, max_digits=4, max_den=16)
        if s is not None and s > 1:
            add(mk(10000, NTKAware(s)), f"NTK-aware base change of base 10000 with factor {s} "
                f"(estimated from {base_text})")
    if geometric and not bases and math.isfinite(hi) and hi / lo - 1 < 1e-2:
        # (in a wide interval, as a 16-bit artefact gives, some exponent would give a round
        # base by chance: beyond a sharp reading only a one-digit base is taken, and the
        # whole-artefact check and the simplicity order decide)
        # the exponent's dimension D need not be d: an odd rotary dimension (Phi's
        # int(head_dim * partial_rotary_factor) = 25 for 26 channels) gives base**(-2j/(d-1));
        # the base read with D is the base read with d to the power D/d.  Only d - 1 is tried
        # blind (a wider search would name a round base by chance); with an expected base,
        # the D that gives it exactly, if that is an integer.
        tries = [d - 1] if d >= 3 else []
        if hint is not None and hint > 1:
            e = math.log(float(hint)) / math.log(math.sqrt(lo * hi))
            Dh = round(d * e)
            if Dh != d and abs(d * e - Dh) < 1e-3 * max(1, Dh / d) and Dh >= 1:
                tries.insert(0, Dh)
        for Dc in tries:
            lo_c, hi_c = lo ** (Dc / d), hi ** (Dc / d)
            b = simplest(lo_c, hi_c, max_digits=3 if hi / lo - 1 < 1e-4 else 1, max_den=0)
            if b is not None and b > 1 and (hint is None or b == hint):
                D, bases, lo, hi = Dc, [b], lo_c, hi_c
                base_text = (f"base interval [{lo:.8g}, {hi:.8g}] from pairs 1..{k_last} with "
                             f"exponent -2j/{D} (not -2j/{d})")
                break
    if base_text not in notes:
        notes.append(base_text)
    if geometric and m0_exact is not None:
        for base in bases:
            if m0_exact == 1:
                add(mk(base, D=D), f"base {base}: a simple number in {base_text}")
            else:
                s = 1 / m0_exact
                add(mk(base, Linear(s), D=D), f"base {base}, linear factor {s} (first frequency "
                    f"{w[0]:.9g})")
        if not bases or (hint is not None and hint not in bases and m0_exact == 1):
            # a non-round base: NTK-aware (or dynamic NTK at one length) from an expected base
            b0 = hint
            if b0 is not None and d >= 4:
                e = (d - 2) / d
                s_lo, s_hi = (lo / float(b0)) ** e, (hi / float(b0)) ** e
                s = simplest(s_lo, s_hi, max_digits=4, max_den=16)
                if s is None or s <= 0:
                    s_fit = (b_fit / float(b0)) ** e if b_fit else (s_lo * s_hi) ** 0.5
                    s = Fraction(min(max(s_fit, s_lo), s_hi)).limit_denominator(10**9)
                    note = (f"NTK-aware base change of base {b0} with effective factor "
                            f"{float(s):.9g} (a dynamic NTK scaling at one sequence length "
                            "gives such a factor)")
                else:
                    note = f"NTK-aware base change of base {b0} with factor {s}"
                if s > 0:
                    add(mk(b0, NTKAware(s)), note)
            b = Fraction(b_fit).limit_denominator(10**6) if b_fit else 0
            if not bases and b > 1:
                add(mk(b, None if m0_exact == 1 else Linear(1 / m0_exact)),
                    f"a base that is not a round number ({float(b):.10g}): NTK-aware "
                    "or dynamic NTK scaling of a round base? (give --base to name it)")
        return
    if geometric or m0_exact is None or not bases or D != d or k != h:
        if not geometric and "no unscaled leading pairs" not in " ".join(notes):
            notes.append("no unscaled leading pairs with a round base: not a method peproof "
                         "identifies (per-pair factors such as LongRoPE's: --base reads the "
                         "factors they imply, --rope checks them)")
        return
    # piecewise maps from the multipliers, under the positions' scale m0 (1 for most models)
    for base in bases[:2]:
        _piecewise(add, notes, w / m0, rel, d, h, base, m0_exact)


def _piecewise(add, notes, w, rel, d, h, base, pos_scale):
    rope0 = Rope(d, base)
    th = thetas(rope0)
    m = w / th
    stages = _tail_factor(m, rel)
    s_lo, s_hi = stages[-1]
    factors: list = []
    for lo_, hi_ in reversed(stages):  # the narrowest interval's simple factors first
        factors += [f for f in _factor_choices(lo_, hi_) if f not in factors]
    factors = factors[:8]
    if not factors:
        notes.append(f"last multiplier {m[-1]:.6g}: no simple factor")
        return
    if len(factors) > 1:
        notes.append(f"the scaled tail allows the factors {', '.join(map(str, factors[:6]))} "
                     f"(interval [{s_lo:.6g}, {s_hi:.6g}]): each tried")

    def add_scaled(rope, note=None, seq_len=None, intervals=None):
        return add(rope, note, seq_len, pos_scale, intervals)

    for s in factors:
        inv = 1 / float(s)
        g = (m - inv) / (1 - inv)
        tol = 3 * rel / (1 - inv) + 1e-9
        # a pair read too imprecisely to tell kept from scaled (the low frequencies of a
        # 16-bit cache) decides neither edge
        is1, is0 = np.abs(g - 1) <= tol, np.abs(g) <= tol
        unscaled = np.nonzero(is1 & ~is0)[0]
        scaled = np.nonzero(is0 & ~is1)[0]
        last1 = int(unscaled.max()) if unscaled.size else -1
        first0 = int(scaled.min()) if scaled.size else h
        if s == factors[0]:
            notes.append(f"multipliers: 1 up to pair {last1}, 1/{s} from pair {first0}")
        _yarn(add_scaled, d, base, s, g, tol, last1, first0, h, notes)
        _llama3(add_scaled, d, base, s, g, th, tol, last1, first0, notes)
