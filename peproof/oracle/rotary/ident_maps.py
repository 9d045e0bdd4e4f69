"""The piecewise frequency maps read from a multiplier vector ``m_j = w_j / theta_j(b)`` (YaRN's
ramp affine in the pair index, Llama 3.1's blend affine in ``theta_j``) and the per-frequency
factors a vector implies (LongRoPE's ``lambda_j``); used by :mod:`.ident`."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from peproof.rope import Rope
from peproof.rope_scaling import Llama3, Yarn

from ..common.numbers import simplest
from .model import thetas


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


def _tail_factor(m: np.ndarray, rel: np.ndarray) -> list:
    """The intervals of the factor ``s`` of the fully scaled tail (``m_j = 1/s``): the
    intersections of the trailing pairs' intervals, from the last pair back while they meet,
    one per step (widest first).  The last pair alone is the least precise reading of a cache
    (its angles are the smallest), so one pair's interval can be too wide to name ``s``; but a
    blend pair whose interval still meets a wide intersection narrows it to a wrong value (a
    cache of positions scaled by 1/2 read 8 as [7.6, 7.8]): every step's interval proposes."""
    lo, hi = 0.0, math.inf
    out = []
    for j in range(len(m) - 1, -1, -1):
        r = min(float(rel[j]), 0.999)
        a, b = 1 / (m[j] * (1 + r)), 1 / (m[j] * (1 - r))
        if max(lo, a) > min(hi, b):
            break
        lo, hi = max(lo, a), min(hi, b)
        out.append((lo, hi))
    return out[-4:] if out else [(0.0, math.inf)]


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
                       f"{hi_f:.6g}] for beta_fast {bf}, beta_slow {bs}",
                       intervals={"original_max_position_embeddings": (lo, hi)}):
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
    # edges only: defaults low_freq_factor 1, high_freq_factor 4 and the simplest L allowed;
    # or a step (low = high_freq_factor = 1, Llama 4 Scout's: no blend at all)
    lam = 2 * math.pi / th
    lo_edge = lam[last1] if last1 >= 0 else 0.0  # kept: lam < L/hi
    hi_edge = lam[first0] if first0 < len(th) else float("inf")  # scaled: lam > L/lo
    for lo_f, hi_f in ((1, 4), (1, 1)):
        Lmin, Lmax = lo_edge * hi_f, hi_edge * lo_f
        if Lmin < Lmax:
            L = simplest(Lmin * (1 + 1e-9), min(Lmax, Lmin * 16), pow2=True, max_digits=3,
                         max_den=1)
            if L is not None:
                add(Rope(d, base, scaling=Llama3(s, lo_f, hi_f, L)),
                    f"Llama 3.1 bands with no pair inside the blend: low/high_freq_factor "
                    f"{lo_f}/{hi_f}, original length {L} the simplest the band edges allow "
                    f"([{Lmin:.6g}, {Lmax:.6g}])",
                    intervals={"original_max_position_embeddings": (Lmin, Lmax)})


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
    th = thetas(Rope(d, base, exponent_dim=D))
    with np.errstate(all="ignore"):
        lam = th / w
    lo, hi = lam / (1 + rel), lam / np.maximum(1 - rel, 1e-300)
    below = np.nonzero(hi < 1)[0]
    alike = bool(np.all(lo <= hi.min()) and np.all(hi >= lo.max()))  # one common factor
    return {"base": str(Rope(d, base)._base), "factors": [float(x) for x in lam],
            "relative_uncertainty": [float(x) for x in rel],
            "all_at_least_1": not below.size, "pairs_below_1": [int(j) for j in below],
            "one_common_factor": alike}
