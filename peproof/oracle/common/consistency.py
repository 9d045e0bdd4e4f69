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
  torch's blocked ``arange``; :mod:`.positions`), never a per-row choice;
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
from .misfits import MISFIT_ROWS, _fold, _Misfits  # noqa: F401 - MISFIT_ROWS re-exported
from .positions import position_vectors

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
    (:mod:`.positions`): each row's position is the one number a stated recipe gives it,
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
    two_pi = 2.0 * np.pi
    polar, eps = _polar_of(table, pt, rows, plan), _eps_of(bud, s)
    nar = _narrow(polar, a, w_lo, w_hi, eps, rows)
    if isinstance(nar, Consistency):
        return nar
    pair, lo, hi = nar
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


def _anchor_angles(P: Format, aa: float, lo: np.ndarray, hi: np.ndarray, free=None):
    """Every angle ``RN_P(aa W)``, ``W`` in ``[lo, hi]`` (a column per interval, NaN past its
    range), or None past :data:`MAX_ANCHOR` of them; with ``free`` (a boolean array), a column
    with more is left out instead and marked there (its pair is then not tested)."""
    c, top = P.round(aa * lo), P.round(aa * hi)
    cand = []
    while (c <= top).any():
        cand.append(np.where(c <= top, c, np.nan))
        c = _succ(P, c)
        if len(cand) > MAX_ANCHOR:
            if free is None:
                return None
            free |= c <= top
            cand = [np.where(free, np.nan, x) for x in cand]
            c = np.where(free, np.inf, c)
    return np.array(cand).reshape(len(cand), lo.size)


def _polar_of(table, pt: np.ndarray, rows: np.ndarray, plan):
    """``polar(k0, k1)``: the polar angle of each pair's entries ``(sin, cos) / s`` at the rows
    ``rows[k0:k1]`` (sign of the position folded in), and which entries are not finite."""
    sin_cols, cos_cols = plan.pair_columns
    s, sg = plan.scale, np.where(pt < 0, -1.0, 1.0)

    def polar(k0, k1):
        t = np.asarray(table[int(rows[k0]):int(rows[k1 - 1]) + 1], dtype=np.float64)
        t = t[rows[k0:k1] - rows[k0]]
        ts, tc = t[:, sin_cols], t[:, cos_cols]
        phi = np.arctan2(sg[k0:k1, None] * ts / s, tc / s)
        return phi, ~(np.isfinite(ts) & np.isfinite(tc))
    return polar


def _eps_of(bud: Budget, s: float, u_angle: float = 0.0):
    """``eps(theta)``: how far the entries' polar angle may be from an angle of size ``theta``
    (the float32 reduction, the entry bound as an angle, float64's own error), plus
    ``u_angle theta``: the angle rounded to the pipeline (the rounded model, whose angle is
    within ``u |p~ W|`` of the product)."""
    def eps(theta_max):
        D = np.minimum((2.0 + CONSTANTS.c_red) * U_REDUCTION * SLACK * theta_max, 2.0)
        e = np.sqrt(2.0) * (bud.alpha * D + bud.beta * abs(s) + bud.gamma) * SLACK / abs(s)
        out = np.where(e < 1.0, np.arcsin(np.minimum(e, 1.0)) * SLACK, np.inf)
        return out + 1e-12 + (2.0**-48 + u_angle * SLACK) * theta_max
    return eps


def _narrow(polar, a: np.ndarray, w_lo: np.ndarray, w_hi: np.ndarray, eps, rows: np.ndarray):
    """The frequencies each pair may have, narrowed at rows of growing ``|p|`` (``a``; eightfold
    from 2 up to the largest): ``(pair, lo, hi)``, the candidate intervals (several per pair
    where the angle's turns leave several), or a :class:`Consistency` (a row not finite: no
    computation; too many candidates: the test does not apply).  ``polar(k0, k1)`` gives the
    entries' polar angles at those rows, ``eps(theta)`` how far they may be from an angle of
    size ``theta``."""
    two_pi = 2.0 * np.pi
    pair = np.arange(w_lo.shape[0])
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
    return pair, lo, hi


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
    cp, clo, chi = np.arange(h), w_lo, w_hi  # the candidate intervals: one per pair
    let = np.zeros(0, np.int64)  # pairs let through untested
    C = _anchor_angles(P, aa, clo, chi)
    if C is None and (w > 0).all():
        # too many angles (a loose frequency bound, Llama 3's in bfloat16): the intervals are
        # narrowed first at rows of smaller |p|, where the rounded angle is within u |p~ W| of
        # the product; a frequency is positive
        nar = _narrow(_polar_of(table, pt, rows, plan), a, w_lo, w_hi, _eps_of(bud, s, P.u),
                      rows)
        if isinstance(nar, Consistency):
            return nar if nar.ok is False else Consistency(
                None, "too many angles at the anchor row")
        cp, clo, chi = nar[0], np.maximum(nar[1], 0.0), nar[2]
        untested = np.zeros(0, np.int64)
        if cp.size > 2 * h:
            # not narrowed enough for every pair (Llama 3's bound at a large factor): the pairs
            # with the fewest candidate intervals are tested, up to 2 h intervals in all (one
            # pair that no frequency fits on every row is enough; a pair left with none is
            # tested first), the others let through untested
            counts = np.bincount(cp, minlength=h)
            order = np.argsort(counts, kind="stable")
            tested = order[np.cumsum(counts[order]) <= 2 * h]
            keep = np.isin(cp, tested)
            cp, clo, chi = cp[keep], clo[keep], chi[keep]
            untested = np.setdiff1d(np.arange(h), tested)
        free = np.zeros(cp.size, bool)  # an interval reaching down to 0: its pair not tested
        C = _anchor_angles(P, aa, clo, chi, free)
        let = np.concatenate([cp[free], untested])
        if np.unique(let).size == h:  # every pair let through: nothing was tested
            return Consistency(None, "no pair's frequency could be followed")
    if C is None:
        return Consistency(None, "too many angles at the anchor row")
    with np.errstate(invalid="ignore"):  # C: steps x candidates, NaN past each one's range
        good = fits(C, sg[ia], trow[sin_cols[cp]][None, :], trow[cos_cols[cp]][None, :]) \
            & ~np.isnan(C)
    k_idx, col = np.nonzero(good)
    pair, th = cp[col], C[k_idx, col]
    if not th.size:
        return _answer(np.isin(np.arange(h), let), None, rows)
    # frequencies that round to that angle at the anchor (closed: ties either way), widened
    # by the float64 error of the divisions
    j_lo = np.maximum((th - 0.5 * (th - _pred(P, th))) / aa * (1.0 - 2.0**-50), clo[col])
    j_hi = np.minimum((th + 0.5 * P.ulp(th)) / aa * (1.0 + 2.0**-50), chi[col])
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
    ok_pair = np.isin(np.arange(h), let)
    np.logical_or.at(ok_pair, pair, fit)
    return _answer(ok_pair, (pair, j_lo, j_hi, w, misfit), rows)


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
