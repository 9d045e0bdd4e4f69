"""Reading a cos/sin cache as ``a cos((o + k) w_j)``, ``a sin((o + k) w_j)``: the per-row
frequencies ``w_j``, the amplitude ``a`` and the positions' offset ``o`` of row 0.

Rows ``k`` of a cache hold positions ``o + s k`` in general (a KV-cache slice starts at its
offset; mlx multiplies positions by ``scale``; an interpolation divides them).  The scale ``s``
is not separable from the frequencies (``(o + s k) theta = (o/s + k) (s theta)``): the
frequencies read per row are ``s theta_j`` and :mod:`.ident` names the scale (a linear factor
for a plain geometric map, a position scale in front of any other map).  What is read here:

* ``w_j`` from the phase differences to the reference row, ``phi(r) - phi(r_0) = (p_r - p_0)
  w_j (mod 2 pi)``, at differences 1, 2, 4, ... each step refining the last while the
  accumulated uncertainty stays below half a turn (the reading's relative uncertainty ``rel_j``
  shrinks with the difference; the frequency error model's ``K`` bounds its floor);
* ``a`` as the median of ``hypot(cos, sin)`` over the first rows (``cos`` at position 0 when
  positions are given and hold 0);
* ``o`` (when positions are not given) from the phases of row 0, ``phi_j(0) = o w_j (mod 2
  pi)``: the lowest frequency fixes ``o`` modulo its period (about ``2 pi base``), each higher
  one refines it while unambiguous, like the frequencies themselves.  The offsets tried are the
  simple numbers within three uncertainties of the reading: 0 first, then integers, then halves.

The reading only proposes; every variant is then checked entry by entry (:mod:`.simplest`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from peproof.formats import Format

from ..common.budget import tiny
from ..common.tables import InputError


@dataclass
class Reading:
    w: np.ndarray  # frequency per unit of position (per row when positions are 0, 1, 2, ...)
    rel: np.ndarray
    a: float
    a_rel: float
    offsets: list = field(default_factory=lambda: [Fraction(0)])
    offset_read: float = 0.0
    offset_sigma: float = 0.0


def _rows_at(pos: np.ndarray, want: float):
    k = int(np.searchsorted(pos, want))
    return k if k < len(pos) and pos[k] == want else None


def _phase(C, S, r) -> np.ndarray:
    return np.arctan2(np.asarray(S[r], np.float64), np.asarray(C[r], np.float64))


def _wrap(x):
    return np.mod(x + np.pi, 2 * np.pi) - np.pi


def read_cache(copies, pos: np.ndarray, st: Format, pipe: Format,
               find_offset: bool = False) -> Reading:
    """The :class:`Reading` of a cache's first copy at positions ``pos`` (see the module
    docstring); ``find_offset``: the positions are unknown beyond ``pos`` = 0, 1, 2, ..."""
    C, S = copies[0]
    if not np.all(np.diff(pos) > 0):
        raise InputError("positions must increase to read the frequencies from a cache")
    r0 = _rows_at(pos, 0.0)
    if r0 is not None and not find_offset:
        a = float(np.median(np.asarray(C[r0], dtype=np.float64)))
    else:
        x = np.asarray(C[:8], dtype=np.float64), np.asarray(S[:8], dtype=np.float64)
        a = float(np.median(np.hypot(*x)))
    a_rel = 2 * st.u + 8 * pipe.u
    if len(pos) < 2:
        raise InputError("the cache needs two rows to read its angles")
    # reference row: position 0 when present (its phase is 0), else the first row
    ref = r0 if r0 is not None and not find_offset else 0
    p0 = float(pos[ref])
    phi0 = _phase(C, S, ref)
    later = pos[pos > p0]
    if not later.size:
        raise InputError("the cache needs a row past its first to read its angles")
    dp = float(later[0]) - p0
    w = _wrap(_phase(C, S, _rows_at(pos, p0 + dp)) - phi0) / dp
    L = float(np.abs(np.log(np.abs(w[w != 0]))).max()) if np.any(w != 0) else 0.0
    K = (4 + 3 * L + 48) * pipe.u
    # a stored phase is within about sqrt(2) (u_S + u_P) of the exact angle: 4 (u_S + u_P)
    # covers the difference of two
    noise = 4 * (st.u + pipe.u) / max(a, 1e-30)

    def err(p):
        return (p * np.abs(w) * K + noise) / p

    e = err(dp)
    p = dp * 2
    while p0 + p <= pos[-1]:
        r = _rows_at(pos, p0 + p)
        if r is None:
            break
        act = p * e < 0.5
        if not act.any():
            break
        pred = p * w
        dl = _wrap(_phase(C, S, r) - phi0 - pred)
        w = np.where(act, (pred + dl) / p, w)
        e = np.where(act, err(p), e)
        p *= 2
    # a last step at the farthest row (up to twice the last power of two: twice the precision)
    p_last = float(pos[-1]) - p0
    r = _rows_at(pos, p0 + p_last)
    if r is not None and p_last > p / 2:
        act = p_last * e < 0.5
        pred = p_last * w
        dl = _wrap(_phase(C, S, r) - phi0 - pred)
        w = np.where(act, (pred + dl) / p_last, w)
        e = np.where(act, err(p_last), e)
    rel = e / np.maximum(np.abs(w), 1e-300) + K
    w = _refine(C, S, pos, p0, phi0, w, e)
    out = Reading(w, rel, a, a_rel)
    if find_offset:
        out.offsets, out.offset_read, out.offset_sigma = _offsets(w, rel, phi0, noise / 2)
    return out


def before_storage(w: np.ndarray, rel: np.ndarray, fmt: Format) -> np.ndarray:
    """The relative uncertainty of the frequencies a cache was computed FROM when they were held
    in ``fmt`` first (an ``inv_freq`` buffer cast with the model to its 16-bit dtype, the angles
    then formed in float32): a frequency read within ``rel`` is ``fl(t)`` of the exact ``t``,
    with ``|fl(t) - t| <= u |t| + u N`` (``N`` the format's smallest normal number), so ``t`` lies
    within ``(1 + rel)(1 + u)/(1 - u) - 1 + 2 u N / w`` of it.  Only what :mod:`.ident`
    proposes from is widened; the verdict still rests on the whole cache's error model."""
    u, n = fmt.u, tiny(fmt)
    return (1 + rel) * (1 + u) / (1 - u) - 1 + 2 * u * n / np.maximum(np.abs(w), 1e-300)


def on_grid(w: np.ndarray, rel: np.ndarray, fmt: Format, least: int = 3) -> bool:
    """Do the frequencies read lie on ``fmt``'s grid, as an ``inv_freq`` held in ``fmt`` puts
    them?  Every pair read precisely enough to tell (within an eighth of the format's unit
    roundoff; at least ``least`` of them) must be within its reading's uncertainty of a number
    of ``fmt``.  Frequencies computed in float32 fall off a 16-bit grid at once: a bfloat16
    number has 8 significant bits, so a frequency computed in float32 lies within a relative
    1e-5 of one with probability about 1/400 per pair (float16: about 1/50)."""
    precise = (rel < fmt.u / 8) & (w > 0) & np.isfinite(w)
    if int(precise.sum()) < least:
        return False
    x, r = w[precise], rel[precise]
    return bool(np.all(np.abs(fmt.round(x) - x) <= r * x + 2.0**-60))


def _refine(C, S, pos, p0, phi0, w, e, rows: int = 256):
    """A better point estimate (the certified ``rel`` is kept): per pair, the least-squares slope
    of the unwrapped phases of up to ``rows`` rows spread over the cache (a 16-bit cache's
    phases carry a quantisation noise that averages out over rows; one row's does not, and a
    non-round base read from one row is too rough for the whole cache's model).  Only pairs
    whose predicted phase is unambiguous at the farthest row are refined."""
    n = len(pos)
    if n < 8:
        return w
    idx = np.unique(np.linspace(1, n - 1, min(rows, n - 1)).astype(int))
    P = np.asarray(pos[idx], dtype=np.float64) - p0
    act = P[-1] * e < 0.25
    if not act.any():
        return w
    ph = np.arctan2(np.asarray(S[idx], np.float64), np.asarray(C[idx], np.float64))
    pred = P[:, None] * w[None, :]
    dl = _wrap(ph - phi0[None, :] - pred)
    # slope with an intercept: the reference row's own noise is common to every difference
    Pc = P - P.mean()
    corr = (Pc[:, None] * (dl - dl.mean(axis=0))).sum(axis=0) / float((Pc * Pc).sum())
    return np.where(act, w + corr, w)


def _offsets(w, rel, phi0, noise):
    """``(offsets to try, reading, uncertainty)``: ``o`` with ``o w_j = phi0_j (mod 2 pi)``."""
    js = [j for j in np.argsort(np.abs(w)) if w[j] > 0]
    if not js:
        return [Fraction(0)], 0.0, 0.0
    j = js[0]
    period = 2 * np.pi / w[j]
    # the lowest frequency: o within one period, read in [-period/2, period/2) and, if that is
    # negative, also the next turn up (a KV offset is positive)
    starts = [float(_wrap(phi0[j]) / w[j])]
    if starts[0] < 0:
        starts.append(starts[0] + period)
    found = []
    for o in starts:
        sig = noise / w[j] + abs(o) * rel[j]
        ok = True
        for jj in js[1:]:
            if sig * w[jj] >= 0.25 * np.pi:
                continue  # this pair's phase cannot resolve the turn yet
            r = float(_wrap(phi0[jj] - o * w[jj]))
            o += r / w[jj]
            s_new = noise / w[jj] + abs(o) * rel[jj]
            if abs(r) / w[jj] > 3 * (sig + s_new) + 1e-9:
                ok = False  # the pairs disagree on the offset
                break
            sig = min(sig, s_new)
        if ok:
            found.append((o, sig))
    if not found:
        return [Fraction(0)], float("nan"), float("inf")
    o, sig = min(found, key=lambda t: abs(t[0]))
    lo, hi = o - 3 * sig - 1e-9, o + 3 * sig + 1e-9
    offs = []
    if lo <= 0 <= hi:
        offs.append(Fraction(0))
    for den in (1, 2, 4):
        k = math.ceil(lo * den)
        while k <= hi * den and len(offs) < 4:
            f = Fraction(k, den)
            if f not in offs:
                offs.append(f)
            k += 1
    return offs or [Fraction(0)], o, sig
