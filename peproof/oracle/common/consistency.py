"""One computation for the whole table: the 16-bit pipelines' rows tied together.

The error model bounds every entry on its own (:mod:`peproof.oracle.common.budget`).  In a 16-bit
pipeline that bound is loose: a frequency may be off by ``(c_omega0 + c_omega1 L) u``, several
percent in bfloat16, so beyond a few positions the angle of a single entry may be anything, and a
table with two rows swapped, or shifted by one, has every entry within its own bound.  But a
computation does not choose its errors entry by entry:

* each pair's frequency is **one** number ``W_i`` (computed once, used for every row), within the
  model's relative error ``e_w,i`` of ``omega_i``;
* each row's position is **one** number: ``p~ = RN_P(p + offset)``, the position rounded to the
  pipeline's format (an integer position is exact there, or rounded once), or the number a
  stated recipe computes from the row's index (``o + s k``, ``|k - c| s``: in float32, in ``P``,
  torch's blocked ``arange``; :func:`_position_models`), never a per-row choice;
* the angle is the product rounded once, ``theta~ = RN_P(p~ W_i)`` (a product with a frequency
  held in ``P``, or a division by an inverse frequency held in ``P``: both are ``p~`` times one
  real number, rounded once), so rows with the same ``p~`` get the same angle;
* ``sin`` and ``cos`` of the 16-bit angle are computed in float32 or wider (as NumPy, PyTorch,
  JAX, TensorFlow, mlx and ml_dtypes do for 16-bit inputs), then within ``c_sin`` ulps of ``P``:
  the entry is within the composed bound with the angle error of the reduction alone,
  ``c_red u_32 |theta~|``, of ``s sin(theta~)`` (resp. ``cos``), then scaled and stored.

:func:`consistent` decides whether **some** choice of the ``W_i`` explains every row.  For each
pair it enumerates every angle ``RN_P(p~_a W)`` the row ``a`` with the largest ``|p~|`` can take
(the ``P`` numbers between ``RN_P(p~_a W_lo)`` and ``RN_P(p~_a W_hi)``: a few dozen), keeps those
the row's entries fit, and for each the interval of frequencies ``J`` that rounds to it; then
every other row must fit one of the ``P`` numbers ``RN_P(p~_k J)`` can be (one to three of them).
A pair for which no ``J`` fits every row rules the pipeline out, whatever ``W_i`` is (the
enumeration is exhaustive; a row is only let through unchecked when its candidates are too many to
enumerate).  A real 16-bit table passes: its ``W_i`` lies in one of the kept intervals and every
row's angle is one of the enumerated numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from peproof.families.error_model import CONSTANTS
from peproof.formats import Format

from .budget import SLACK, Budget
from .exact import Plan

U_REDUCTION = 2.0**-24  # sin/cos of a 16-bit angle are evaluated in float32 or wider
MAX_ANCHOR = 4096  # angles enumerated at the anchor row, per pair
MAX_ROW = 4  # angles enumerated at another row; more (never seen) lets the row through
CHUNK = 1 << 18  # entries per chunk of rows


@dataclass
class Consistency:
    """The answer of :func:`consistent`; ``ok is None`` when the refinement does not apply."""

    ok: bool | None
    reason: str = ""
    pair: int | None = None  # first pair no frequency fits
    rows: list | None = None  # table rows that the best frequency of that pair does not fit


def applies(pipe: Format) -> bool:
    """The refinement is made for 16-bit (and narrower) binary pipelines."""
    return pipe.is_binary and pipe.p <= 11


def _succ(P: Format, y: np.ndarray) -> np.ndarray:
    """The next number of ``P`` above ``y >= 0`` (a number of ``P``)."""
    return y + P.ulp(y)


def _pred(P: Format, y: np.ndarray) -> np.ndarray:
    """The next number of ``P`` below ``y > 0`` (a number of ``P``)."""
    ul = P.ulp(y)
    below = P.ulp(y - 0.5 * ul)  # at a binade's start, the spacing below is half of it
    return y - np.minimum(ul, below)


def consistent(table, positions: np.ndarray, plan: Plan, bud: Budget,
               keep: np.ndarray | None = None, unit: float = 1.0) -> Consistency:
    """Whether one computation in ``bud.pipe`` (see the module's text) explains every row:
    the angle computed in float32 or wider (positions exact, or rounded to ``P``) or rounded
    to ``P`` (positions exact or rounded to ``P``); a position with an offset is ``p + offset``
    exact or rounded once, or ``RN_P(RN_P(p) + offset)`` (the offset added in ``P``).

    Positions that are not integers (a fractional, negative or reversed step, symmetric
    ``|k - c|``), and a variant whose frequencies carry a factor ``unit`` (its maximum
    frequency) the code may have put on its positions instead, are tied the same way
    (:func:`_position_models`): each row's position is the one number a stated recipe gives it,
    never a per-row choice (and so are integer positions computed in ``P`` by torch's blocked
    ``arange``, which are not ``RN_P(k)`` beyond the format's horizon).  The first model that
    fits answers; none fitting, the table is not one computation."""
    P = bud.pipe
    if not applies(P):
        return Consistency(None, "not a 16-bit pipeline")
    n, d = table.shape
    p0 = np.asarray(positions, dtype=np.float64)
    ps = p0 + plan.offset
    if plan.offset_lo != 0.0:
        return Consistency(None, "offset not a float64 number")
    rows = np.arange(n) if keep is None else np.nonzero(keep)[0]
    if not rows.size:
        return Consistency(True)
    first = None
    # exact positions: the angle in float32 or wider, or that angle rounded to ``P`` once
    # (``torch.outer(t, inv_freq).to(bfloat16)``: positions and product in float32, the angle cast)
    with np.errstate(over="ignore", invalid="ignore"):
        also = [P.round(P.round(p0[rows]) + plan.offset)] if plan.offset != 0.0 else []
    vecs = position_vectors(P, ps[rows], rows, unit, n, also)
    models = [(_wide_angles, vecs[0]), (_rounded_angles, vecs[0])]
    models += [(f, pt) for pt in vecs[1:] for f in (_rounded_angles, _wide_angles)]
    for how, pt in models:
        c = how(table, pt, rows, plan, bud)
        if c.ok is None or c.ok:
            return c
        first = first or c
    return first


def position_vectors(P: Format, ps: np.ndarray, rows: np.ndarray, unit: float = 1.0,
                     n: int | None = None, also=()) -> list[np.ndarray]:
    """The positions a computation in ``P`` may give ``rows`` (of ``n``) at ``ps`` (offset in):
    exact, rounded to ``P`` once, ``also``, :func:`_position_models`' recipes (each once)."""
    out = [ps := np.asarray(ps, dtype=np.float64)]
    with np.errstate(over="ignore", invalid="ignore"):
        more = [P.round(ps), *also] + _position_models(
            P, ps, 0.0, rows, unit, ps.shape[0] if n is None else n)
    for pt in more:
        if np.isfinite(pt).all() and not any(np.array_equal(pt, q) for q in out):
            out.append(pt)
    return out


def _law(x: np.ndarray, k: np.ndarray):
    """``(o, s)`` with ``x = o + s k`` (to float64 accuracy), else ``None``."""
    if x.size < 2:
        return None
    s = (x[-1] - x[0]) / (k[-1] - k[0]) if k[-1] != k[0] else 0.0
    o = x[0] - s * k[0]
    tol = 2.0**-20 * (np.abs(x).max() + 1.0)  # positions given as float32 numbers
    return (o, s) if np.abs(o + s * k - x).max() <= tol else None


def _torch_arange(P: Format, k: np.ndarray, o: float, s: float, n: int) -> np.ndarray:
    """``torch.arange(o, o + n s, s, dtype=P)`` on a CPU, as measured (torch 2.x): blocks of 16
    rows, each from its first value rounded to ``P``, ``RN_P(RN_32(b + j s))`` with
    ``b = RN_P(RN_32(o + 16 q s))``; the rows after the last full block ``RN_P(RN_32(o + k s))``."""
    R32 = np.float32
    q, j = k // 16, k % 16
    b = P.round((R32(o) + (q * 16).astype(R32) * R32(s)).astype(R32).astype(np.float64))
    y = P.round((b.astype(R32) + j.astype(R32) * R32(s)).astype(R32).astype(np.float64))
    tail = k >= (n // 16) * 16
    y[tail] = P.round((R32(o) + k[tail].astype(R32) * R32(s)).astype(R32).astype(np.float64))
    return y


def _position_models(P: Format, p0: np.ndarray, offset: float, rows: np.ndarray, unit: float,
                     n: int) -> list[np.ndarray]:
    """Positions (in the variant's units) the recipes of real code give rows at ``p0`` (+
    ``offset``), one vector per recipe: the code's position is ``x = (p0 + offset) / m`` for
    ``m`` in ``{1, 1/unit, the law's step}``, rounded to ``P`` once (from float64 or from float32),
    or computed in ``P`` from the row index ``k`` as ``x = o + s k`` (``arange(n) * s``: the
    product rounded, the index and step rounded or the step a float32 scalar; NumPy's ``arange``
    in ``P``: ``RN_P(k RN_P(s))``; torch's ``arange`` in ``P``, :func:`_torch_arange`), or
    ``|k - c| s`` for a symmetric law."""
    R32 = np.float32
    out = []
    ps = p0 + offset
    k = rows.astype(np.float64)
    units = {1.0, 1.0 / float(unit)}  # positions k f where the variant has frequencies f omega
    law = _law(ps, k)
    sym = None
    if law is None and ps.size > 2:  # symmetric: |k - c| s
        i = int(np.argmin(np.abs(ps)))
        for c in (k[i], k[i] - 0.5, k[i] + 0.5):
            s_ = (ps[0] / abs(k[0] - c)) if k[0] != c else (ps[-1] / abs(k[-1] - c))
            if np.allclose(ps, np.abs(k - c) * s_, rtol=2.0**-20, atol=2.0**-20):
                sym = (c, s_)
                break
    if law is not None and law[1] not in (0.0,):
        units.add(abs(float(law[1])))
    if sym is not None and sym[1] != 0.0:
        units.add(abs(float(sym[1])))
    for m in units:
        if not (np.isfinite(m) and m > 0):
            continue
        x = ps / m
        out.append(P.round(x) * m)
        out.append(P.round(x.astype(R32).astype(np.float64)) * m)
        if law is not None:
            o, s = law[0] / m, law[1] / m
            sP = float(P.round(np.array(s)))
            s32 = float(R32(s))
            prods = [_torch_arange(P, k, 0.0, s, n)]
            # the index k exact, rounded to P, or torch's arange(n) in P; times the step
            # in P, as a float32 scalar (PyTorch's opmath) or exactly, then rounded to P
            for kk in (k, P.round(k), _torch_arange(P, k, 0.0, 1.0, n)):
                prods += [P.round(kk * sP), P.round((kk * s32).astype(R32).astype(np.float64)),
                          P.round(kk * s)]
            oP = float(P.round(np.array(o)))
            for q in prods:
                out.append((q if o == 0.0 else P.round(q + oP)) * m)
            if o != 0.0:  # arange(o, o + n s, s) in P
                out.append(_torch_arange(P, k, o, s, n) * m)
        if sym is not None:
            c, s = sym[0], sym[1] / m
            base = np.abs(k - c)
            out.append(P.round(P.round(base) * float(P.round(np.array(s)))) * m)
            out.append(P.round((P.round(base) * float(R32(s))).astype(R32).astype(np.float64)) * m)
    return out


def _wide_angles(table, pt: np.ndarray, rows: np.ndarray, plan: Plan, bud: Budget
                 ) -> Consistency:
    """The angle ``p~ W_i`` computed in float32 or wider (relative error ``u_32``), ``sin`` and
    ``cos`` of it in float32 or wider, then within the composed bound.  A necessary condition
    per row: the entries' point ``(sin, cos)`` is within ``e = sqrt(2) B / |s|`` of the unit
    circle's point at the angle, so its polar angle is within ``asin(e)`` of it (mod 2 pi).
    Frequencies that fit are narrowed row by row (positions growing eightfold), then every row
    is checked against what is left.  A position computed in float32 (``o + s k`` from a
    float32 step: one more ``u_32`` of the angle) is allowed."""
    h = plan.h
    sin_cols, cos_cols = plan.pair_columns
    s, w, ew = plan.scale, plan.omega, bud.ew
    w_lo = w * (1.0 - ew) / SLACK
    w_hi = w * (1.0 + ew) * SLACK
    a = np.abs(pt)
    sg = np.where(pt < 0, -1.0, 1.0)
    two_pi = 2.0 * np.pi

    def polar(k0, k1):
        t = np.asarray(table[int(rows[k0]):int(rows[k1 - 1]) + 1], dtype=np.float64)
        t = t[rows[k0:k1] - rows[k0]]
        ts, tc = t[:, sin_cols], t[:, cos_cols]
        phi = np.arctan2(sg[k0:k1, None] * ts / s, tc / s)
        return phi, ~(np.isfinite(ts) & np.isfinite(tc))

    def eps(theta_max):
        D = np.minimum((2.0 + CONSTANTS.c_red) * U_REDUCTION * SLACK * theta_max, 2.0)
        e = np.sqrt(2.0) * (bud.alpha * D + bud.beta * abs(s) + bud.gamma) * SLACK / abs(s)
        out = np.where(e < 1.0, np.arcsin(np.minimum(e, 1.0)) * SLACK, np.inf)
        return out + 1e-12 + 2.0**-48 * theta_max  # float64 angles and their reduction

    pair = np.arange(h)
    lo, hi = w_lo.copy(), w_hi.copy()
    order = np.argsort(a, kind="stable")
    targets, t_ = [], 2.0
    amax = float(a[order[-1]])
    while t_ < amax:
        targets.append(t_)
        t_ *= 8.0
    targets.append(amax)
    anchors = sorted({int(order[min(np.searchsorted(a[order], x), a.size - 1)])
                      for x in targets})
    for r in anchors:
        ar = float(a[r])
        if ar == 0.0:
            continue
        phi, bad = polar(r, r + 1)
        if bad.any():
            return Consistency(False, "not finite", int(np.nonzero(bad[0])[0][0]), [int(rows[r])])
        phi = phi[0][pair]
        e = eps(ar * hi)[...]
        th_lo, th_hi = ar * lo, ar * hi
        finite = np.isfinite(e)
        kmin = np.where(finite, np.ceil((th_lo - phi - e) / two_pi), 0)
        kmax = np.where(finite, np.floor((th_hi - phi + e) / two_pi), 0)
        cnt = np.where(finite, np.maximum(kmax - kmin + 1, 0), 1).astype(np.int64)
        if cnt.sum() > 1 << 20:
            return Consistency(None, "too many frequencies to follow")
        rep = np.repeat(np.arange(pair.size), cnt)
        k = kmin[rep] + (np.arange(rep.size) - np.repeat(np.cumsum(cnt) - cnt, cnt))
        f = finite[rep]
        c = phi[rep] + two_pi * k
        nlo = np.where(f, np.maximum((c - e[rep]) / ar * (1.0 - 2.0**-50), lo[rep]), lo[rep])
        nhi = np.where(f, np.minimum((c + e[rep]) / ar * (1.0 + 2.0**-50), hi[rep]), hi[rep])
        live = nlo <= nhi
        pair, lo, hi = pair[rep][live], nlo[live], nhi[live]
        if not pair.size:
            break
    fit = np.ones(pair.size, bool)
    misfit = _Misfits(pair.size)
    if pair.size:
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        act = np.arange(pair.size)  # the candidates whose answer the rows left can change
        k0 = 0
        while k0 < rows.size and act.size:
            k1 = min(rows.size, k0 + max(1, CHUNK // act.size))
            phi, bad = polar(k0, k1)
            ak = a[k0:k1, None]
            pa = pair[act]
            e = eps(ak * hi[act][None, :])
            x = phi[:, pa] - ak * mid[act][None, :]
            x = (x + np.pi) % two_pi - np.pi
            ok = np.abs(x) <= ak * half[act][None, :] * (1.0 + 2.0**-50) + e + 1e-9
            ok &= ~bad[:, pa]
            act = _fold(~ok, act, rows[k0:k1], fit, misfit)
            k0 = k1
    ok_pair = np.zeros(h, bool)
    np.logical_or.at(ok_pair, pair, fit)
    return _answer(ok_pair, (pair, lo, hi, w, misfit), rows)


def _rounded_angles(table, pt: np.ndarray, rows: np.ndarray, plan: Plan, bud: Budget
                    ) -> Consistency:
    """The angle rounded to ``P``: ``theta~ = RN_P(p~ W_i)`` (see the module's text)."""
    P = bud.pipe
    a = np.abs(pt)
    sg = np.where(pt < 0, -1.0, 1.0)
    h = plan.h
    sin_cols, cos_cols = plan.pair_columns
    s = plan.scale
    w = plan.omega
    ew = bud.ew
    w_lo = w * (1.0 - ew) / SLACK
    w_hi = w * (1.0 + ew) * SLACK

    def fits(theta, sign, ts, tc):
        """Entries ``ts``, ``tc`` within the bound of ``s sin``, ``s cos`` of ``sign theta``."""
        vs = s * np.sin(theta)
        vs *= sign
        vc = s * np.cos(theta)
        red = np.minimum(CONSTANTS.c_red * U_REDUCTION * SLACK * theta, 2.0)
        base = bud.alpha * red + bud.gamma + 2.0**-48 * (abs(s) + 1.0)  # float64 sin, cos
        ok = np.abs(ts - vs) <= (base + bud.beta * np.abs(vs)) * SLACK
        ok &= np.abs(tc - vc) <= (base + bud.beta * np.abs(vc)) * SLACK
        return ok

    # ---- the anchor row: every angle it can take, per pair
    ia = int(np.argmax(a))
    aa = float(a[ia])
    if aa == 0.0:  # every position 0: one angle, 0
        ta = np.asarray(table[rows], dtype=np.float64)
        ok = fits(np.zeros((1, h)), 1.0, ta[:, sin_cols], ta[:, cos_cols]).all(axis=0)
        return _answer(ok, None, rows)
    trow = np.asarray(table[int(rows[ia]):int(rows[ia]) + 1], dtype=np.float64)[0]
    c = P.round(aa * w_lo)
    top = P.round(aa * w_hi)
    cand, steps = [], 0
    while (c <= top).any():
        cand.append(np.where(c <= top, c, np.nan))
        c = _succ(P, c)
        steps += 1
        if steps > MAX_ANCHOR:
            return Consistency(None, "too many angles at the anchor row")
    C = np.array(cand)  # steps x h, NaN beyond each pair's range
    with np.errstate(invalid="ignore"):
        good = fits(C, sg[ia], trow[sin_cols][None, :], trow[cos_cols][None, :]) & ~np.isnan(C)
    k_idx, pair = np.nonzero(good)
    th = C[k_idx, pair]
    if not th.size:
        return _answer(np.zeros(h, bool), None, rows)
    # frequencies that round to that angle at the anchor (closed: ties either way), widened
    # by the float64 error of the divisions
    j_lo = np.maximum((th - 0.5 * (th - _pred(P, th))) / aa * (1.0 - 2.0**-50), w_lo[pair])
    j_hi = np.minimum((th + 0.5 * P.ulp(th)) / aa * (1.0 + 2.0**-50), w_hi[pair])
    live = j_lo <= j_hi
    pair, j_lo, j_hi = pair[live], j_lo[live], j_hi[live]
    fit = np.ones(pair.size, bool)  # each candidate interval: every row fits so far
    misfit = _Misfits(pair.size)
    act = np.arange(pair.size)  # the candidates whose answer the rows left can change
    k0 = 0
    while k0 < rows.size and act.size:
        step = max(1, CHUNK // act.size)
        rk = rows[k0:k0 + step]
        t = np.asarray(table[int(rk[0]):int(rk[-1]) + 1], dtype=np.float64)[rk - rk[0]]
        ts, tc = t[:, sin_cols][:, pair[act]], t[:, cos_cols][:, pair[act]]
        ak = a[k0:k0 + step, None]
        sk = sg[k0:k0 + step, None]
        lo = P.round(ak * j_lo[act][None, :])
        hi = P.round(ak * j_hi[act][None, :])
        # the candidates of each entry, in increasing order; an entry leaves the working set
        # when one fits or when its candidates run out (each entry's answer is the same as
        # trying every candidate of every entry)
        ok = np.zeros(lo.size, bool)
        idx = np.flatnonzero(lo <= hi)
        cc, hh = lo.ravel()[idx], hi.ravel()[idx]
        tsk, tck = ts.ravel()[idx], tc.ravel()[idx]
        sgk = np.broadcast_to(sk, lo.shape).ravel()[idx]
        for _ in range(MAX_ROW):
            if not idx.size:
                break
            f = fits(cc, sgk, tsk, tck)
            ok[idx[f]] = True
            cc = _succ(P, cc[~f])
            live = cc <= hh[~f]
            idx, cc, hh = idx[~f][live], cc[live], hh[~f][live]
            tsk, tck, sgk = tsk[~f][live], tck[~f][live], sgk[~f][live]
        ok[idx] = True  # candidates left over: let the entry through (never seen)
        act = _fold(~ok.reshape(lo.shape), act, rk, fit, misfit)
        k0 += step
    ok_pair = np.zeros(h, bool)
    np.logical_or.at(ok_pair, pair, fit)
    return _answer(ok_pair, (pair, j_lo, j_hi, w, misfit), rows)


MISFIT_ROWS = 8  # rows kept per candidate interval that does not fit them (for the message)


class _Misfits:
    """The first :data:`MISFIT_ROWS` table rows each candidate interval does not fit, gathered
    chunk by chunk of rows (arrays: a candidate kept per row a Python loop is minutes when the
    candidates number a million, as a 16-bit table shifted by one row makes them)."""

    def __init__(self, n: int):
        self.count = np.zeros(n, np.int64)
        self.cands: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []

    def add(self, bad: np.ndarray, cands: np.ndarray, rows: np.ndarray) -> None:
        """``bad[k, j]``: the row ``rows[k]`` does not fit the candidate ``cands[j]``."""
        room = MISFIT_ROWS - self.count[cands]
        seen = np.cumsum(bad, axis=0, dtype=np.int64)
        k, j = np.nonzero(bad & (seen <= room[None, :]))
        self.cands.append(cands[j])
        self.rows.append(rows[k])
        self.count[cands] += np.minimum(seen[-1], room)

    def get(self, q: int) -> list:
        """The rows candidate ``q`` does not fit, in the order they were met."""
        out = [r[c == q] for c, r in zip(self.cands, self.rows, strict=True)]
        return np.concatenate(out).tolist() if out else []


def _fold(bad: np.ndarray, act: np.ndarray, rows: np.ndarray, fit: np.ndarray,
          misfit: _Misfits) -> np.ndarray:
    """Record the rows of one chunk (``bad[k, j]``: ``rows[k]`` does not fit candidate
    ``act[j]``) and return the candidates later rows can still tell something about: those
    that fit so far, or that have fewer than :data:`MISFIT_ROWS` misfits recorded (a candidate
    dropped here has its answer: it fails, and its rows are kept)."""
    if not bad.any():
        return act
    fit[act[bad.any(axis=0)]] = False
    misfit.add(bad, act, rows)
    return act[fit[act] | (misfit.count[act] < MISFIT_ROWS)]


def _answer(ok_pair: np.ndarray, detail, rows) -> Consistency:
    if ok_pair.all():
        return Consistency(True)
    i = int(np.nonzero(~ok_pair)[0][0])
    bad_rows = None
    if detail is not None:
        pair, j_lo, j_hi, w, misfit = detail
        qs = np.nonzero(pair == i)[0]
        if qs.size:  # the kept interval nearest to the pair's frequency
            q = int(qs[np.argmin(np.abs(0.5 * (j_lo[qs] + j_hi[qs]) - w[i]))])
            bad_rows = sorted(misfit.get(q))[:MISFIT_ROWS]
    return Consistency(False, "no single frequency per pair fits every row", i, bad_rows)
