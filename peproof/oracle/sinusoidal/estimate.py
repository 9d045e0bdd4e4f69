"""Estimates read off a table: pairing, scale, frequencies, orientation and row order, family, base
and frequency-scale candidates, offset.  Steps 1-4 of
:mod:`peproof.oracle.sinusoidal.identification`; nothing here decides, the candidates are confirmed
there against references built by the encoding.

Only what the table's dtype still resolves is used: the phase of pair ``i`` at position ``p`` is
read only where ``|p omega_i| u`` is small (a bfloat16 pipeline loses the phase of fast pairs
after a few hundred positions), and robust fits drop the rest (padding rows, a broken pair).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from peproof.formats import Format

from ..common.numbers import simplest
from .variant import SCALE_FORMS, family_rate

COMMON_BASES = (10, 100, 1000, 10000, 100000, 500000, 1000000, 10000000)
RESOLVED = 0.5  # radians of angle error up to which a phase is still read


def _f(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def estimate(T: np.ndarray, P: np.ndarray, fmt: Format, ident) -> dict | None:
    """Pairing, scale, frequencies and the sign of the phase advance; notes go to ``ident``."""
    m, d = T.shape
    h = d // 2
    pairings = {"interleaved": (T[:, 0::2], T[:, 1::2]), "split": (T[:, :h], T[:, h:])}
    scores = {}
    for name, (a, b) in pairings.items():
        r2 = a * a + b * b
        med = float(np.median(r2))
        # the median over pairs of each pair's spread: a few broken pairs do not hide the rest
        spread = np.median(np.abs(r2 - med), axis=0)
        scores[name] = (float(np.median(spread)) / med if med > 0 else np.inf, med)
    pairing = min(scores, key=lambda k: scores[k][0])
    score, med = scores[pairing]
    tol = 50.0 * max(fmt.u, 2.0**-40) + 1e-12
    ident.estimates["pairing_spread"] = {k: _f(v[0]) for k, v in scores.items()}
    if not score <= tol:
        ident.notes.append("neither interleaved nor half-split channels form sin/cos pairs "
                           f"of constant amplitude (relative spread {score:.2g} > {tol:.2g})")
        return None
    a, b = pairings[pairing]
    theta = np.arctan2(a, b)  # the phase if ``a`` is the sine
    order = np.argsort(P, kind="stable")
    Ps, th = P[order], theta[order]
    dp = np.diff(Ps)
    ok = dp > 0
    step = np.where(ok, dp, 1.0)[:, None]
    dth = wrap(np.diff(th, axis=0)) / step
    first = ok.copy()
    first[64:] = False  # the smallest positions: every dtype resolves their phases
    w0 = np.median(dth[first], axis=0) if first.any() else np.zeros(h)
    # refine: unwrap the residual phase and fit a line per pair, on the rows the dtype resolves
    u = max(fmt.u, 2.0**-53)
    resolved = (np.abs(Ps)[:, None] * np.abs(w0)[None, :] * u <= RESOLVED)
    resolved[: min(8, len(Ps))] = True
    psi = np.unwrap(wrap(th - np.outer(Ps, w0)), axis=0)
    slope, _ = robust_line(Ps, psi, resolved.astype(np.float64))
    w = w0 + slope
    sign = np.sign(np.median(w))
    if sign == 0:
        ident.notes.append("the phases do not advance with the position (no frequency found)")
        return None
    ident.estimates.update({"pairing": pairing, "phase_advance": "+" if sign > 0 else "-",
                            "scale": math.sqrt(med), "omega_0": float(abs(w[0]))})
    return {"pairing": pairing, "sign": float(sign), "omega": np.abs(w), "theta": theta,
            "resolved_u": u, "scale": math.sqrt(med),
            "phase_noise": max(fmt.u, 2.0**-50) / math.sqrt(med)}


def hypotheses(est: dict, d: int, P: np.ndarray, given_positions: bool) -> list[dict]:
    """Readings of the phases: (layout, order, positions, sine phases).  A phase that falls with
    the row is a cosine-first layout, or sines of positions listed in reversed order."""
    out = []
    theta = est["theta"]
    if est["sign"] > 0:
        out.append({"layout": layout_of(est["pairing"], False, d), "order": "forward",
                    "P": P, "theta": theta})
    else:
        lay = layout_of(est["pairing"], True, d)
        if lay is not None:
            out.append({"layout": lay, "order": "forward", "P": P, "theta": np.pi / 2 - theta})
        if not given_positions:
            out.append({"layout": layout_of(est["pairing"], False, d), "order": "reversed",
                         "P": None, "theta": theta})  # P set by the caller (row count known)
    return [h for h in out if h["layout"] is not None] or out[:0]


def wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def robust_line(x: np.ndarray, Y: np.ndarray, wts: np.ndarray | None = None):
    """Weighted least-squares slopes and intercepts of every column of ``Y`` against ``x``,
    twice, the second time without points far from the first fit (zeroed padding rows and the
    like)."""
    X = x - x.mean()
    wts = np.ones_like(Y) if wts is None else wts.copy()
    for _ in range(2):
        sw = np.maximum(wts.sum(axis=0), 1e-300)
        mx = (wts * X[:, None]).sum(axis=0) / sw
        my = (wts * Y).sum(axis=0) / sw
        dx = X[:, None] - mx
        sxx = (wts * dx * dx).sum(axis=0)
        slope = np.where(sxx > 0, (wts * dx * (Y - my)).sum(axis=0) / np.where(sxx > 0, sxx, 1),
                         0.0)
        icpt = my - slope * (mx + x.mean())
        res = np.abs(Y - (icpt + slope * x[:, None]))
        mad = np.median(np.where(wts > 0, res, np.nan), axis=0)
        mad = np.where(np.isfinite(mad), mad, 0.0)
        wts = wts * (res <= 6.0 * mad + 1e-12)
    return slope, icpt


def layout_of(pairing: str, cos_first: bool, d: int) -> str | None:
    if d == 2:
        return "cos_sin" if cos_first else "interleaved"
    if pairing == "interleaved":
        return None if cos_first else "interleaved"
    return "cos_sin" if cos_first else "sin_cos"


def nice(x: float, digits=(1, 2, 3, 4)) -> list:
    """Round numbers near ``x``: its roundings to few significant digits and nearest integer."""
    out = []
    if not (x > 0 and math.isfinite(x)):
        return out
    e = math.floor(math.log10(x))
    for k in digits:
        q = 10 ** (e - k + 1)
        r = round(x / q) * q if q >= 1 else round(x / q) / round(1 / q)
        r = int(r) if float(r).is_integer() else Fraction(r).limit_denominator(10**6)
        if r and r not in out:
            out.append(r)
    if int(round(x)) > 0 and int(round(x)) not in out:
        out.append(int(round(x)))
    if x < 1:  # reciprocals of round numbers: 1/3, 1/1000
        k = round(1 / x)
        f = Fraction(1, k) if k else None
        if f and abs(float(f) / x - 1) < 0.02 and f not in out:
            out.append(f)
    return out


def digits(x) -> int:
    """Significant digits of a candidate number (simplicity for tie-breaks)."""
    f = Fraction(x)
    if f.denominator != 1:
        if f.numerator == 1:
            return len(str(f.denominator).rstrip("0")) + 1
        return 20
    s = str(abs(f.numerator)).rstrip("0")
    return len(s)


def frequency_fit(est: dict, d: int) -> tuple[float, float]:
    """``(c0, c1)`` of ``ln omega_i = c0 + c1 i``: medians of the steps between pairs and of the
    intercepts (robust to aliased fast pairs and a broken pair), then least squares on the
    pairs that agree, weighted by how precisely each is read."""
    h = d // 2
    w = est["omega"]
    i = np.arange(h, dtype=np.float64)
    good = w > 0
    y = np.log(np.where(good, w, 1.0))
    steps = np.diff(y)[good[1:] & good[:-1]]
    c1 = float(np.median(steps)) if steps.size else 0.0
    c0 = float(np.median((y - c1 * i)[good])) if good.any() else 0.0
    wt = np.where(good, np.minimum(w / max(w.max(), 1e-300), 1.0) ** 2, 0.0) + 1e-30
    for _ in range(2):
        res = np.abs(y - c0 - c1 * i)
        inl = good & (res <= max(5.0 * float(np.median(res[good])) if good.any() else 0.0,
                                  0.02))
        if inl.sum() < 2:
            break
        ww = np.where(inl, wt, 1e-30)
        A = np.stack([np.ones(h), i], axis=1) * np.sqrt(ww)[:, None]
        (c0, c1), *_ = np.linalg.lstsq(A, y * np.sqrt(ww), rcond=None)
    est["fit"] = {"ln_omega_0": float(c0), "slope": float(c1)}
    return float(c0), float(c1)


def base_candidates(est: dict, d: int) -> list[tuple[str, object]]:
    h = d // 2
    out: list[tuple[str, object]] = []
    if h == 1:
        est["note"] = "d = 2 has the single frequency 1: the base cannot be read (10000 named)"
        return [("paper", 10000)]
    c0, c1 = frequency_fit(est, d)
    if c1 > 0.3:
        out.append(("nerf", 10000))
        return out
    L = -c1
    for fam in ("paper", "h-1"):
        rate = family_rate(fam, d)  # ln(omega_i) = -rate * ln(base) * i
        if rate is None:
            continue
        b = math.exp(min(L / float(rate), 700.0))
        est[f"base_{fam}"] = b
        cands = nice(b)
        cands += [c for c in COMMON_BASES if abs(math.log(c / b)) < 0.05 and c not in cands]
        out += [(fam, c) for c in cands if c > 1]
    return out


#: relative half-width of the interval the first frequency is taken in (the fit of ln omega_i
#: over every pair reads it far better; candidates are checked on the whole table anyway)
SCALE_REL = 1e-5


def frequency_scales(est: dict, family: str) -> list[tuple[object, bool]]:
    """``(max_freq, turns)`` candidates from the fitted first frequency ``exp(c0)``."""
    if "fit" not in est:  # too few rows or channels to fit a frequency: only the default
        return [(1, False)]
    w0 = math.exp(est["fit"]["ln_omega_0"])
    if family == "nerf":
        w0 /= math.pi
    out = [(1, False)]
    rel = est.get("omega0_rel", SCALE_REL)
    for turns, val in ((False, w0), (True, w0 / (2 * math.pi))):
        for c in nice(val, (1, 2, 3)):
            if abs(float(c) / val - 1) < 0.01 and (c, turns) not in out:
                out.append((c, turns))
        # estimated, not enumerated: the simplest number in the interval the fit allows (a
        # power of two, few decimal digits, else the smallest denominator: 125/128 = 1000/1024,
        # a timestep embedding's steps over 2^10); the whole-table check decides
        c = simplest(val * (1 - rel), val * (1 + rel), pow2=True, max_digits=4, max_den=4096)
        q = c.denominator if c is not None else 0
        if c is not None and c > 0 and (q <= 16 or q & (q - 1) == 0) and (c, turns) not in out:
            # (a denominator past 16 only as a power of two, k / 2^m: any interval holds some
            # rational of denominator ~ its width^(-1/2), which would be noise)
            out.append((int(c) if c.denominator == 1 else c, turns))
    if abs(math.log(w0)) < 0.01:
        return [(1, False)]
    return out


def scale_candidates(s: float, d: int) -> list:
    out: list = [1, *SCALE_FORMS]
    out += [c for c in nice(s, (1, 2, 3, 4)) if c not in out]
    vals = {c: float(sp.sympify(str(c).replace("d", str(d)))) for c in out}
    near = [c for c in out if abs(vals[c] / s - 1) < 0.02]
    return near or [Fraction(s).limit_denominator(10**9)]


def offset_estimate(theta: np.ndarray, P: np.ndarray, w: np.ndarray, noise: float,
                    u: float = 0.0, reach: float = 2.0**17) -> float:
    """Offset from the residual phases, read slow pair first and refined towards fast ones
    (each pair on the rows whose phase the dtype resolves).

    The slowest pair gives the offset modulo its period ``2 pi / omega``; every branch within
    ``reach`` (or four times the positions' span) is refined towards the fast pairs, and the one
    all coherent pairs agree with best is kept (the branch nearest zero unless another is
    clearly better), so that an offset beyond the slowest period (a slice of a table, rows from
    65000 on) is read."""
    rho = wrap(theta - np.outer(P, w))
    z = np.exp(1j * rho)
    if u:
        keep = np.abs(P)[:, None] * w[None, :] * u <= RESOLVED
        keep[: min(8, len(P))] = True
        z = np.where(keep, z, 0)
    zm = z.mean(axis=0)
    c = np.angle(zm)
    coherent = np.abs(zm) >= 0.5 * np.max(np.abs(zm))  # a broken pair has no common phase
    order = [i for i in np.argsort(w) if w[i] > 0 and coherent[i]]
    if not order:
        return 0.0
    w0 = float(w[order[0]])
    span = float(np.ptp(P)) if len(P) else 0.0
    M = min(int(math.ceil(max(reach, 4.0 * span) * w0 / (2 * np.pi))), 4096)
    o = c[order[0]] / w0 + (2 * np.pi / w0) * np.arange(-M, M + 1, dtype=np.float64)
    live = np.ones(o.size, bool)
    for i in order[1:]:
        wi = w[i]
        k = np.round((o * wi - c[i]) / (2 * np.pi))
        cand = (c[i] + 2 * np.pi * k) / wi
        stop = (np.abs(cand * wi - o * wi) > np.pi / 2) & (noise / wi < np.abs(o) * 0.5)
        live &= ~stop
        o = np.where(live, cand, o)
    # the branch whose offset the coherent pairs agree with best; the first branch (the offset
    # nearest zero the slowest pair gives) unless another is clearly better
    idx = np.array(order)
    res = np.abs(wrap(c[idx][None, :] - o[:, None] * w[idx][None, :])).mean(axis=1)
    best = int(np.argmin(res))
    if res[M] <= 1.25 * res[best] + 1e-9:
        best = M
    return float(o[best])


def snap_offset(o: float) -> list:
    out = [int(round(o))]
    f = Fraction(o).limit_denominator(8)
    if f.denominator != 1 and abs(float(f) - o) < 1e-3:
        out.append(f)
    return out
