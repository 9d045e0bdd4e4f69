"""Which RoPE a frequency vector is: base, scaling method and its parameters, searched exactly.

Input: the frequencies ``w_j`` read from an artefact (an ``inv_freq`` vector, or the angles of a
cos/sin cache) with a relative uncertainty ``rel_j`` that bounds how far the exact frequency of
the recipe that made it may lie (the error model's ``e_w`` plus the reading's own error).

Search (no fixed list of bases or factors):

1. the leading pair: ``w_0 = theta_0 m_0`` with ``theta_0 = 1``; ``m_0 = 1`` for every method but
   linear (``1/s``) and LongRoPE (``1/lambda_0``);
2. the unscaled prefix: ``b_k = (w_k / m_0)**(-d/(2k))`` agrees for every unscaled pair ``k``; the
   intersection of their certified intervals is the base's interval, and the base is its simplest
   number (:mod:`.numbers`);
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
from peproof.rope_scaling import Default, Linear, Llama3, NTKAware, Yarn

from .numbers import simplest


@dataclass
class Candidate:
    rope: Rope
    notes: list = field(default_factory=list)
    residual: float = 0.0  # max |w_pred/w - 1| / rel


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


def identify_frequencies(w, rel, d: int | None = None, base_hint=None) -> tuple[list, list]:
    """``(candidates, notes)``: confirmed :class:`Candidate` s (best first) and what was seen."""
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
    D = d  # the exponent's dimension: base**(-2j/D)

    def mk(base, scaling=None):
        return Rope(d, base, scaling=scaling or Default(), exponent_dim=D,
                    rotated_pairs=None if k == h else k)

    def add(rope, note=None, seq_len=None):
        r = _confirm(rope, w, rel, seq_len)
        if r is not None and r <= 3.0:
            out.append(Candidate(rope, [note] if note else [], r))
            return True
        return False

    # 1-2: leading multiplier and the unscaled prefix
    m0_lo, m0_hi = w[0] * (1 - rel[0]), w[0] * (1 + rel[0])
    m0_exact = simplest(m0_lo, m0_hi) if m0_lo > 0 else None
    if m0_exact is None:
        m0_exact = Fraction(1) / simplest(1 / m0_hi, 1 / m0_lo) if simplest(
            1 / m0_hi, 1 / m0_lo) else None
    m0 = float(m0_exact) if m0_exact is not None else w[0]
    lo, hi = _base_interval(w, rel, d, m0, 1)
    k_last = 1
    for i in range(2, k):
        a, b = _base_interval(w, rel, d, m0, i)
        if max(lo, a) > min(hi, b):
            break
        lo, hi, k_last = max(lo, a), min(hi, b), i
    geometric = k_last == k - 1
    base = simplest(lo, hi, max_digits=3, max_den=0)
    base_text = f"base interval [{lo:.8g}, {hi:.8g}] from pairs 1..{k_last}"
    hint = Fraction(base_hint) if base_hint is not None else None
    if geometric and base is None and hi / lo - 1 < 1e-4:
        # (only a sharp reading: in a wide interval, as a 16-bit artefact gives, some exponent
        # would give a round base by chance)
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
            b = simplest(lo_c, hi_c, max_digits=3, max_den=0)
            if b is not None and b > 1 and (hint is None or b == hint):
                D, base, lo, hi = Dc, b, lo_c, hi_c
                base_text = (f"base interval [{lo:.8g}, {hi:.8g}] from pairs 1..{k_last} with "
                             f"exponent -2j/{D} (not -2j/{d})")
                break
    notes.append(base_text)
    if geometric and m0_exact is not None:
        if base is not None:
            if m0_exact == 1:
                add(mk(base), f"base {base}: the simplest number in {base_text}")
            else:
                s = 1 / m0_exact
                add(mk(base, Linear(s)), f"linear factor {s} (first frequency "
                    f"{w[0]:.9g})")
        if base is None or (hint is not None and hint != base and m0_exact == 1):
            # a non-round base: NTK-aware (or dynamic NTK at one length) from an expected base
            b0 = hint
            if b0 is not None and d >= 4:
                e = (d - 2) / d
                s_lo, s_hi = (lo / float(b0)) ** e, (hi / float(b0)) ** e
                s = simplest(s_lo, s_hi, max_digits=4, max_den=16)
                if s is None or s <= 0:
                    s = Fraction((s_lo * s_hi) ** 0.5).limit_denominator(10**9)
                    note = (f"NTK-aware base change of base {b0} with effective factor "
                            f"{float(s):.9g} (a dynamic NTK scaling at one sequence length "
                            "gives such a factor)")
                else:
                    note = f"NTK-aware base change of base {b0} with factor {s}"
                if s > 0:
                    add(mk(b0, NTKAware(s)), note)
            if base is None:
                b = Fraction((lo * hi) ** 0.5).limit_denominator(1000)
                add(mk(b), f"a base that is not a round number ({float(b):.10g}): NTK-aware "
                    "or dynamic NTK scaling of a round base? (give --base to name it)")
        return out, notes
    if m0_exact is None or m0_exact != 1 or base is None or base <= 1 or D != d or k != h:
        notes.append("no unscaled leading pairs with a round base: not a method peproof "
                     "identifies (per-pair factors such as LongRoPE's: --base reads the "
                     "factors they imply, --rope checks them)")
        return out, notes
    # 3: piecewise maps from the multipliers
    rope0 = Rope(d, base)
    th = rope0.thetas_f64()
    m = w / th
    s_lo, s_hi = _tail_factor(m, rel)
    factors = _factor_choices(s_lo, s_hi)
    if not factors:
        notes.append(f"last multiplier {m[-1]:.6g}: no simple factor")
        return out, notes
    if len(factors) > 1:
        notes.append(f"the scaled tail allows the factors {', '.join(map(str, factors[:6]))} "
                     f"(interval [{s_lo:.6g}, {s_hi:.6g}]): each tried")
    for s in factors:
        start = len(out)
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
        _yarn(add, d, base, s, g, tol, last1, first0, h, notes)
        _llama3(add, d, base, s, g, th, tol, last1, first0, notes)
        out[start:] = sorted(out[start:], key=lambda c: c.residual)
    # best first by simplicity of the factor (the order tried), then by residual: a cache's
    # reading cannot rank factors its uncertainty does not separate; the caller checks each
    return out, notes


def _factor_choices(lo: float, hi: float, most: int = 8) -> list:
    """The simple factors ``> 1`` in ``[lo, hi]``, simplest first: the simplest number, the
    powers of two, then the integers (a 16-bit cache may read 32 as [29.6, 34.1])."""
    out = []
    for f in (simplest(lo, hi, max_digits=4, max_den=16), simplest(lo, hi, pow2=True)):
        if f is not None and f > 1 and f not in out:
            out.append(f)
    if hi - lo < 64:
        k = max(2, math.ceil(lo))
        ints = list(range(k, math.floor(hi) + 1))
        ints.sort(key=lambda x: (x & (x - 1) != 0, abs(x - math.sqrt(lo * hi))))
        out += [Fraction(x) for x in ints if Fraction(x) not in out]
    return out[:most]


def _tail_factor(m: np.ndarray, rel: np.ndarray) -> tuple[float, float]:
    """Certified interval of the factor ``s`` of the fully scaled tail (``m_j = 1/s``): the
    intersection of every trailing pair's interval, from the last pair back while they meet.
    The last pair alone is the least precise reading of a cache (its angles are the smallest),
    so one pair's interval can be too wide to name ``s`` where the tail's intersection is not."""
    lo, hi = 0.0, math.inf
    for j in range(len(m) - 1, -1, -1):
        r = min(float(rel[j]), 0.999)
        a, b = 1 / (m[j] * (1 + r)), 1 / (m[j] * (1 - r))
        if max(lo, a) > min(hi, b):
            break
        lo, hi = max(lo, a), min(hi, b)
    return lo, hi


def _yarn(add, d, base, s, g, tol, last1, first0, h, notes):
    b = float(base)

    def L_range(beta, cd_lo, cd_hi):
        # cd(beta, L) = d ln(L / (2 pi beta)) / (2 ln b)  in [cd_lo, cd_hi]
        k = 2 * math.pi * beta
        return (k * b ** (2 * cd_lo / d), k * b ** (2 * cd_hi / d))

    # truncated ramp: low = last1 (clipped at 0 when pair 0 is already on the ramp), high =
    # first0.  A 16-bit cache's imprecise pairs can make the edge pair next to the ramp look
    # kept or scaled: the edges one or two pairs inward are tried with the default betas
    tries = [(32, 1)] + [(bf, bs) for bf in range(1, 129) for bs in range(1, bf)
                         if (bf, bs) != (32, 1)]
    edges = [(0, 0)] + [(-dl, dh) for dl in range(3) for dh in range(3) if dl or dh]
    for n_edge, (dl, dh) in enumerate(edges):
        last = last1 + dl if last1 >= 0 else last1
        low, high = max(last, 0), first0 + dh
        if last1 >= 0 and last < 0 or high > h:
            continue
        for bf, bs in tries if n_edge == 0 else tries[:1]:
            lo1, hi1 = L_range(bf, low, low + 1) if last >= 0 else (0.0, L_range(bf, 0, 1)[1])
            # ceil(cd(bs)) = high, unless clipped at d - 1
            lo2, hi2 = L_range(bs, high - 1, high) if high < d - 1 else (
                L_range(bs, d - 2, 0)[0], float("inf"))
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi and hi > 1:
                hi_f = hi if math.isfinite(hi) else lo * 4
                L = simplest(max(lo, 1), hi_f, pow2=True, max_digits=3, max_den=1)
                if L is None:
                    continue
                sc = Yarn(s, L, bf, bs)
                if add(Rope(d, base, scaling=sc), f"YaRN: ramp over pairs {low}..{high}; "
                       f"original_max_position_embeddings {L} is the simplest in [{lo:.6g}, "
                       f"{hi_f:.6g}] for beta_fast {bf}, beta_slow {bs}"):
                    return
                break  # the truncated ramp does not fit: try without truncation below
    # untruncated: the ramp's interior is affine in j
    inner = np.nonzero((g > tol) & (g < 1 - tol))[0]
    if inner.size >= 2:
        slope, icpt = np.polyfit(inner.astype(float), g[inner], 1)
        if slope < 0:
            width = -1 / slope
            low_r = (icpt - 1) * width
            for bf, bs in tries[:1] + tries[1:200]:
                # cd(bf) = low_r, cd(bs) = low_r + width: two estimates of L
                L1 = 2 * math.pi * bf * b ** (2 * low_r / d)
                L2 = 2 * math.pi * bs * b ** (2 * (low_r + width) / d)
                if abs(L1 / L2 - 1) < 1e-3:
                    L = simplest(min(L1, L2) * (1 - 1e-3), max(L1, L2) * (1 + 1e-3), pow2=True,
                                 max_digits=3, max_den=1)
                    if L is not None and add(Rope(d, base, scaling=Yarn(s, L, bf, bs,
                                                                          truncate=False)),
                                             f"YaRN without truncation: ramp width {width:.4g}"):
                        return


def _llama3(add, d, base, s, g, th, tol, last1, first0, notes):
    inner = np.nonzero((g > tol) & (g < 1 - tol))[0]
    x = th / (2 * math.pi)  # 1 / wavelength
    if inner.size >= 2:
        # the band factors every published config uses first, L from the blend's slope (the
        # general search below needs the slope to 1e-4, which a 16-bit cache does not give)
        A = np.polyfit(x[inner], g[inner], 1)[0]
        for lo, hi in ((1, 4), (1, 2), (1, 8), (2, 8)):
            Lf = A * (hi - lo)
            if Lf > 0:
                L = simplest(Lf * 0.95, Lf * 1.05, pow2=True, max_digits=3, max_den=1)
                if L is not None and add(Rope(d, base, scaling=Llama3(s, lo, hi, L)),
                                         f"Llama 3.1 bands: low/high_freq_factor {lo}/{hi}, "
                                         f"blend over pairs {inner.min()}..{inner.max()}"):
                    return
        A, B = np.polyfit(x[inner], g[inner], 1)
        if A <= 0 or B >= 0:
            return
        # g = (L x - lo)/(hi - lo): A = L/k, B = -lo/k with k = hi - lo
        best = None
        for num in range(1, 257):
            for den in (1, 2, 4):
                k = num / den
                lo_f, L_f = -B * k, A * k
                lo = simplest(lo_f * (1 - 1e-4), lo_f * (1 + 1e-4), max_digits=3, max_den=4)
                L = simplest(L_f * (1 - 1e-4), L_f * (1 + 1e-4), pow2=True, max_digits=4,
                             max_den=1)
                if lo is None or L is None:
                    continue
                hi = lo + Fraction(num, den)
                score = (L.denominator > 1, lo.denominator + hi.denominator, len(str(L)))
                if best is None or score < best[0]:
                    best = (score, lo, hi, L)
        if best is not None:
            _, lo, hi, L = best
            add(Rope(d, base, scaling=Llama3(s, lo, hi, L)),
                f"Llama 3.1 bands: blend affine in theta over pairs {inner.min()}..{inner.max()}")
        return
    # edges only: defaults low_freq_factor 1, high_freq_factor 4 and the simplest L allowed
    lam = 2 * math.pi / th
    lo_edge = lam[last1] if last1 >= 0 else 0.0  # kept: lam < L/hi
    hi_edge = lam[first0] if first0 < len(th) else float("inf")  # scaled: lam > L/lo
    for lo_f, hi_f in ((1, 4),):
        Lmin, Lmax = lo_edge * hi_f, hi_edge * lo_f
        if Lmin < Lmax:
            L = simplest(Lmin * (1 + 1e-9), min(Lmax, Lmin * 16), pow2=True, max_digits=3,
                         max_den=1)
            if L is not None:
                add(Rope(d, base, scaling=Llama3(s, lo_f, hi_f, L)),
                    "Llama 3.1 bands with no pair inside the blend: low/high_freq_factor 1/4 "
                    "assumed, original length the simplest the band edges allow")


def implied_factors(w, rel, d: int, base, exponent_dim: int | None = None) -> dict:
    """What a frequency vector alone says of per-frequency factors (LongRoPE's ``lambda_j``):
    ``lambda_j = base**(-2j/D) / w_j`` for a given base, each with its certified relative
    uncertainty (``rel_j``, the reading's), and whether they have LongRoPE's shape (every factor
    >= 1: LongRoPE only stretches wavelengths).  The factors themselves are the model's
    (searched per model): without its ``short_factor`` / ``long_factor`` they cannot be checked,
    only read."""
    w = np.asarray(w, dtype=np.float64)
    rel = np.broadcast_to(np.asarray(rel, dtype=np.float64), w.shape)
    D = d if exponent_dim is None else exponent_dim
    th = Rope(d, base, exponent_dim=D).thetas_f64()
    with np.errstate(all="ignore"):
        lam = th / w
    lo, hi = lam / (1 + rel), lam / np.maximum(1 - rel, 1e-300)
    below = np.nonzero(hi < 1)[0]
    alike = bool(np.all(lo <= hi.min()) and np.all(hi >= lo.max()))  # one common factor
    return {"base": str(Rope(d, base)._base), "factors": [float(x) for x in lam],
            "relative_uncertainty": [float(x) for x in rel],
            "all_at_least_1": not below.size, "pairs_below_1": [int(j) for j in below],
            "one_common_factor": alike}
