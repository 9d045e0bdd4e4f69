"""Estimates read off a table: pairing, scale, frequencies, orientation, family and base
candidates, offset.  Steps 1-4 of :mod:`peproof.oracle.identification`; nothing here decides, the
candidates are confirmed there against references built by the encoding.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from peproof.formats import Format

from .variant import family_rate

COMMON_BASES = (10, 100, 1000, 10000, 100000, 500000, 1000000, 10000000)


def _f(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def estimate(T: np.ndarray, P: np.ndarray, fmt: Format, ident) -> dict | None:
    """Pairing, scale, frequencies and orientation; notes go to ``ident`` on failure."""
    m, d = T.shape
    h = d // 2
    pairings = {"interleaved": (T[:, 0::2], T[:, 1::2]), "split": (T[:, :h], T[:, h:])}
    scores = {}
    for name, (a, b) in pairings.items():
        r2 = a * a + b * b
        med = float(np.median(r2))
        scores[name] = (float(np.median(np.abs(r2 - med))) / med if med > 0 else np.inf, med)
    pairing = min(scores, key=lambda k: scores[k][0])
    score, med = scores[pairing]
    tol = 50.0 * max(fmt.u, 2.0**-40) + 1e-12
    ident.estimates["pairing_spread"] = {k: _f(v[0]) for k, v in scores.items()}
    if not score <= tol:
        ident.notes.append("channels do not form sin/cos pairs of constant amplitude "
                           f"(relative spread {score:.2g} > {tol:.2g})")
        return None
    a, b = pairings[pairing]
    theta = np.arctan2(a, b)  # the phase if ``a`` is the sine
    order = np.argsort(P, kind="stable")
    Ps, th = P[order], theta[order]
    dp = np.diff(Ps)
    ok = dp > 0
    step = np.where(ok, dp, 1.0)[:, None]
    dth = wrap(np.diff(th, axis=0)) / step
    w0 = np.median(dth[ok], axis=0) if ok.any() else np.zeros(h)
    # refine: unwrap the residual phase and fit a line per pair (robustly)
    psi = np.unwrap(wrap(th - np.outer(Ps, w0)), axis=0)
    slope, _ = robust_line(Ps, psi)
    w = w0 + slope
    sign = np.sign(np.median(w))
    if sign == 0:
        ident.notes.append("the phases do not advance with the position (no frequency found)")
        return None
    cos_first = sign < 0
    w = np.abs(w)
    theta = (np.pi / 2 - theta) if cos_first else theta
    ident.estimates.update({"pairing": pairing, "a_is": "cos" if cos_first else "sin",
                            "scale": math.sqrt(med), "omega_0": float(w[0])})
    return {"pairing": pairing, "cos_first": cos_first, "omega": w, "theta": theta,
            "scale": math.sqrt(med), "phase_noise": max(fmt.u, 2.0**-50) / math.sqrt(med)}


def wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def robust_line(x: np.ndarray, Y: np.ndarray):
    """Least-squares slopes and intercepts of every column of ``Y`` against ``x``, twice, the
    second time without points far from the first fit (zeroed padding rows and the like)."""
    X = x - x.mean()
    wts = np.ones_like(Y)
    for _ in range(2):
        sw = wts.sum(axis=0)
        mx = (wts * X[:, None]).sum(axis=0) / sw
        my = (wts * Y).sum(axis=0) / sw
        dx = X[:, None] - mx
        sxx = (wts * dx * dx).sum(axis=0)
        slope = np.where(sxx > 0, (wts * dx * (Y - my)).sum(axis=0) / np.where(sxx > 0, sxx, 1),
                         0.0)
        icpt = my - slope * (mx + x.mean())
        res = np.abs(Y - (icpt + slope * x[:, None]))
        mad = np.median(res, axis=0)
        wts = (res <= 6.0 * mad + 1e-12).astype(np.float64)
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
    return out


def digits(x) -> int:
    """Significant digits of a candidate number (simplicity for tie-breaks)."""
    f = Fraction(x)
    if f.denominator != 1:
        return 20
    s = str(abs(f.numerator)).rstrip("0")
    return len(s)


def base_candidates(est: dict, d: int) -> list[tuple[str, object]]:
    h = d // 2
    w = est["omega"]
    out: list[tuple[str, object]] = []
    if h == 1:
        est["note"] = "d = 2 has the single frequency 1: the base cannot be read (10000 named)"
        return [("paper", 10000)]
    i = np.arange(h, dtype=np.float64)
    # weights: the relative precision of omega_i grows with the phase it accumulates
    good = w > 0
    y = np.log(np.where(good, w, 1.0))
    wt = np.where(good, np.minimum(w, 1.0) ** 2, 0.0) + 1e-30
    A = np.stack([np.ones(h), i], axis=1) * np.sqrt(wt)[:, None]
    (c0, c1), *_ = np.linalg.lstsq(A, y * np.sqrt(wt), rcond=None)
    est["fit"] = {"ln_omega_0": float(c0), "slope": float(c1)}
    if c1 > 0.3:
        out.append(("nerf", 10000))
        return out
    L = -c1
    for fam in ("paper", "h-1"):
        if fam == "h-1" and h < 2:
            continue
        rate = family_rate(fam, d)  # ln(omega_i) = -rate * ln(base) * i
        if rate is None:
            continue
        b = math.exp(min(L / float(rate), 700.0))
        est[f"base_{fam}"] = b
        cands = nice(b)
        cands += [c for c in COMMON_BASES if abs(math.log(c / b)) < 0.05 and c not in cands]
        out += [(fam, c) for c in cands if c > 1]
    return out


def scale_candidates(s: float, d: int) -> list:
    out: list = [1, "sqrt(d)", "1/sqrt(d)"]
    out += [c for c in nice(s, (1, 2, 3, 4)) if c not in out]
    vals = {c: float(sp.sympify(str(c).replace("d", str(d)))) for c in out}
    near = [c for c in out if abs(vals[c] / s - 1) < 0.02]
    return near or [Fraction(s).limit_denominator(10**9)]


def offset_estimate(est: dict, P: np.ndarray, w: np.ndarray, noise: float) -> float:
    """Offset from the residual phases, read slow pair first and refined towards fast ones."""
    th = est["theta"]
    rho = wrap(th - np.outer(P, w))
    c = np.angle(np.exp(1j * rho).mean(axis=0))
    order = np.argsort(w)
    o = None
    for i in order:
        wi = w[i]
        if wi <= 0:
            continue
        if o is None:
            o = c[i] / wi
            continue
        k = round((o * wi - c[i]) / (2 * np.pi))
        cand = (c[i] + 2 * np.pi * k) / wi
        if abs(cand * wi - o * wi) > np.pi / 2 and noise / wi < abs(o) * 0.5:
            break
        o = cand
    return 0.0 if o is None else float(o)


def snap_offset(o: float) -> list:
    out = [int(round(o))]
    f = Fraction(o).limit_denominator(8)
    if f.denominator != 1 and abs(float(f) - o) < 1e-3:
        out.append(f)
    return out
