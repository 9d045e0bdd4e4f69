"""The streamed comparison of a rotary artefact with its error model (:mod:`.model`): counts,
worst entries and certified decisions, per hypothesis.

The float64 reference ``v^ = a^ cos(fl(p theta^_j))`` (``theta^_j``, ``a^`` correctly rounded to
float64 from arb) differs from the exact value by at most ``1.01 (a |x| 2**-52 + |v^| 2**-49)
+ 2**-1000`` under the absolute oracle's one axiom (NumPy's float64 sin and cos within 4 ulps).
For consecutive integer positions :func:`reference_pair` forms it by the angle-addition formulas
from ``fl(p0 theta^)`` (a block start) and ``fl(k theta^)`` (``k < BLOCK``): the two angles carry
``|x| 2**-53`` each and ``theta^`` another ``|x| 2**-53`` (so ``1.5 |x| 2**-52``); the four library
values ``4`` ulps each (relative ``2**-50``), the two products and the sum one rounding each,
with ``|cos A cos B| + |sin A sin B| <= 1``: absolute ``a 2**-48.5``, which is below
``|v| 2**-40.5`` where ``|v| >= 2**-8 a`` (smaller values are recomputed directly).  The bound used
for every entry is therefore ``E = 1.01 (1.5 a |x| 2**-52 + |v^| (2**-49 + 2**-40)) + 2**-1000``.
A decision is taken only when it holds for every value within ``E``; the rest are undecided and
never counted as failures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from peproof.formats import Format

from ..common.budget import SLACK, tiny
from .model import U52, AngleModel, CacheModel, FreqMap, freq_rel_error
from .tied import tie_test, untied_angles


@dataclass
class Tally:
    """Counts of one comparison (entries of every copy of every pair)."""

    entries: int = 0
    over: int = 0
    within: int = 0
    faithful: int = 0
    not_faithful: int = 0
    max_abs: float = 0.0
    max_ulp: float = 0.0
    first_over_position: float | None = None
    worst: list = field(default_factory=list)
    over_pairs: np.ndarray | None = None
    #: in a 16-bit pipeline, why no one computation gives every row (:mod:`.tied`), else ""
    untied: str = ""
    #: in a 16-bit pipeline, the one-computation test could not be made (every entry within its
    #: own loose bound is then all that is known)
    tie_unmade: bool = False

    @property
    def undecided(self) -> int:
        return self.entries - self.over - self.within

    @property
    def conforms(self) -> bool:
        return self.entries > 0 and self.faithful == self.entries

    @property
    def within_model(self) -> bool:
        return self.entries > 0 and self.over == 0 and self.undecided == 0

    @property
    def fits(self) -> bool:
        """No entry certainly outside (undecided ones allowed), and in a 16-bit pipeline one
        computation for every row."""
        return self.entries > 0 and self.over == 0 and not self.untied

    def to_json(self) -> dict:
        return {"entries": self.entries, "outside_model": self.over,
                "within_model": self.within, "undecided": self.undecided,
                "within_1_ulp": self.faithful, "not_within_1_ulp": self.not_faithful,
                "max_abs_error": self.max_abs, "max_ulp_error": self.max_ulp,
                "first_outside_position": self.first_over_position, "worst": self.worst,
                **({"not_one_computation": self.untied} if self.untied else {})}


#: rows of one block of the angle-addition reference: cos and sin of ``fl(k theta)``, ``k <
#: BLOCK``, are computed once per comparison, those of each block's start once per block
BLOCK = 128
#: reference values below ``SMALL a`` are recomputed with NumPy's cos/sin directly (the addition
#: formula's absolute error ``a 2**-48.5`` is then at most ``|v| 2**-40.5``)
SMALL = 2.0**-8
#: the reference's error: ``E = C_X a |x| + C_V |v| + 2**-1000`` (module docstring)
C_X = 1.01 * 1.5 * U52
C_V = 1.01 * (2.0**-49 + 2.0**-40)


def reference_pair(pa: np.ndarray, thetas: np.ndarray, a: float, tab=None):
    """``(C, S, x)``: ``a cos``, ``a sin`` of the angles ``x = fl(p theta)`` (rows ``pa``), within
    ``C_X a |x| + C_V |v|`` of the exact ``a cos(p theta)``, ``a sin(p theta)``.

    Consecutive integer positions use the angle-addition formulas per block of :data:`BLOCK`
    rows (``tab``: cos and sin of ``fl(k theta)``, ``k < BLOCK``; two products and a sum per
    entry instead of two library calls); any other rows, the tail and the values below ``SMALL a``
    use NumPy's cos and sin of ``x``."""
    x = pa[:, None] * thetas[None, :]
    R, h = x.shape
    nb = R // BLOCK if tab is not None else 0
    m = nb * BLOCK
    if nb == 0:
        C, S = np.cos(x), np.sin(x)
    else:
        cb, sb = tab
        p0 = pa[0:m:BLOCK]
        A = p0[:, None] * thetas[None, :]
        ca, sa = np.cos(A)[:, None, :], np.sin(A)[:, None, :]
        C, S = np.empty_like(x), np.empty_like(x)
        Cv, Sv = C[:m].reshape(nb, BLOCK, h), S[:m].reshape(nb, BLOCK, h)
        tmp = np.empty_like(Cv)
        np.multiply(ca, cb, out=Cv)
        Cv -= np.multiply(sa, sb, out=tmp)
        np.multiply(sa, cb, out=Sv)
        Sv += np.multiply(ca, sb, out=tmp)
        if m < R:
            C[m:], S[m:] = np.cos(x[m:]), np.sin(x[m:])
    if a != 1.0:
        C *= a
        S *= a
    if nb:
        for V, fn in ((C, np.cos), (S, np.sin)):
            small = np.flatnonzero(np.abs(V[:m]) < SMALL * abs(a))
            if small.size:
                V.flat[small] = fn(x.flat[small]) * a
    return C, S, x


def _consecutive(pa: np.ndarray) -> bool:
    return (pa.size > 0 and float(pa[0]).is_integer() and abs(pa[0]) < 2.0**40
            and pa[-1] - pa[0] == pa.size - 1 and bool(np.all(np.diff(pa) == 1.0)))


def compare_cache(copies, pos: np.ndarray, model: CacheModel, *, angle_pos=None,
                  chunk: int | None = None, worst: int = 5, rows=None) -> Tally:
    """Compare cache copies ``[(C, S), ...]`` (each ``rows x pairs``, the stored values) with the
    model at positions ``pos`` (``angle_pos``: the positions the angle uses, for hypotheses such as
    positions rounded to float16; default ``pos``).  ``rows`` restricts to a row subset.

    An entry ``t`` with reference ``v`` (error ``E``) and model bound ``B = beta |v| + D`` is
    outside when ``|t - v| - B > E (1 + beta)`` and within when ``|t - v| - B <= -E (1 + beta)``
    (``B`` moves by at most ``beta E`` when ``v`` does by ``E``); both limits are formed once per
    entry and shared by the copies.

    Compared on every row at their own positions in a 16-bit pipeline, a cache with no entry
    outside is also asked for one computation (:func:`.tied.untied`): there an entry's own
    bound lets its angle be almost anything."""
    t = Tally()
    whole = rows is None and angle_pos is None
    th = np.asarray(model.thetas, dtype=np.float64)
    h = th.shape[0]
    t.over_pairs = np.zeros(h, dtype=np.int64)
    angle_pos = pos if angle_pos is None else angle_pos
    P, S = model.pipe, model.stored
    a = model.attention
    beta = model.beta
    aK0, aK1 = model.alpha * model.K0, model.alpha * model.K1
    am = model.alpha * model.m + model.gamma
    dmax = 2.0 * model.alpha + model.gamma
    tiny_e = (1.0 + beta) * 2.0**-1000
    two_p = 2.0 ** (S.p - 1)
    ks = np.arange(BLOCK, dtype=np.float64)[:, None] * th[None, :]
    tab = (np.cos(ks), np.sin(ks))
    cand = []
    idx_all = np.arange(len(pos)) if rows is None else np.asarray(rows)
    chunk = chunk or max(BLOCK, 65536 // max(h, 1))  # ~0.5 MB per float64 temporary
    for k0 in range(0, len(idx_all), chunk):
        ix = idx_all[k0:k0 + chunk]
        sl = slice(int(ix[0]), int(ix[-1]) + 1) if rows is None else ix
        p = np.asarray(pos[sl], dtype=np.float64)
        pa = np.asarray(angle_pos[sl], dtype=np.float64)
        Cr, Sr, x = reference_pair(pa, th, a, tab if rows is None and _consecutive(pa) else None)
        ax = np.abs(x, out=x)
        exact_p = (P.round(pa) == pa)
        # D = alpha min(|x| K + m, 2) + gamma, with the alpha folded in
        D = ax * (aK0[None, :] if exact_p.all() else
                  np.where(exact_p[:, None], aK0[None, :], aK1[None, :]))
        D += am
        np.minimum(D, dmax, out=D)
        E0 = np.multiply(ax, C_X * a, out=ax)  # |x| is not needed past here
        E0b = E0 * (1.0 + beta)
        for V, which in ((Cr, 0), (Sr, 1)):
            av = np.abs(V)
            lo_lim = av * (beta - (1.0 + beta) * C_V)
            lo_lim += D
            lo_lim -= E0b
            lo_lim -= tiny_e
            hi_lim = av * (beta + (1.0 + beta) * C_V)
            hi_lim += D
            hi_lim += E0b
            hi_lim += tiny_e
            E = av * C_V
            E += E0
            # ulp bounds over [|v| - E, |v| + E] from one ulp: half or twice it across a binade
            u0 = S.ulp(av)
            start = u0 * two_p
            np.subtract(av, E, out=av)
            f_lim = np.where(av >= start, u0, 0.5 * u0)
            np.abs(V, out=av)
            av += E
            start *= 2
            uhi = np.where(av < start, u0, 2 * u0)
            f_lim -= E
            nf_lim = uhi + E
            ad = np.empty_like(V)
            for cp in copies:
                np.subtract(cp[which][sl], V, out=ad)
                np.abs(ad, out=ad)
                ov = ad > hi_lim
                n_ov = int(np.count_nonzero(ov))
                t.over += n_ov
                t.within += int(np.count_nonzero(ad <= lo_lim))
                t.faithful += int(np.count_nonzero(ad <= f_lim))
                t.not_faithful += int(np.count_nonzero(ad > nf_lim))
                t.entries += ad.size
                if ad.size:
                    t.max_abs = max(t.max_abs, float(ad.max()))
                    t.max_ulp = max(t.max_ulp, float(np.divide(ad, uhi, out=u0).max()))
                if n_ov:
                    tv = np.asarray(cp[which][sl], dtype=np.float64)
                    B = beta * np.abs(V) + D
                    t.over_pairs += ov.sum(axis=0)
                    r_, c_ = np.nonzero(ov)
                    if t.first_over_position is None or p[r_].min() < t.first_over_position:
                        t.first_over_position = float(p[r_].min())
                    ratio = ad[r_, c_] / np.maximum(B[r_, c_], 1e-300)
                    top = np.argsort(-ratio)[:worst]
                    for k in top:
                        cand.append((float(ratio[k]), float(p[r_[k]]), int(c_[k]),
                                     "cos" if which == 0 else "sin", float(tv[r_[k], c_[k]]),
                                     float(V[r_[k], c_[k]]), float(ad[r_[k], c_[k]])))
    cand.sort(key=lambda z: -z[0])
    t.worst = [{"position": _num(c[1]), "pair": c[2], "part": c[3], "value": c[4],
                "expected": c[5], "abs_error": c[6], "x_bound": c[0]} for c in cand[:worst]]
    if whole and t.entries and not t.over:
        t.untied, made = tie_test(copies, pos, model)
        t.tie_unmade = not made
    return t


def compare_freqs(t: np.ndarray, thetas: np.ndarray, pipe: Format, stored: Format,
                  fmap: FreqMap | None) -> Tally:
    """An ``inv_freq`` vector against exact frequencies (float64, correctly rounded)."""
    out = Tally()
    t = np.asarray(t, dtype=np.float64)
    ew = freq_rel_error(thetas, pipe, fmap)
    us, ns = (0.0, 0.0) if stored == pipe else (stored.u, tiny(stored))
    B = (thetas * ((1 + ew) * (1 + us) - 1) + us * ns) * SLACK
    E = np.abs(thetas) * 2.0**-52
    ad = np.abs(t - thetas)
    ov = ad - B > E
    out.entries = t.size
    out.over = int(ov.sum())
    out.within = int((ad - B <= -E).sum())
    ulo, uhi = stored.ulp(np.maximum(np.abs(thetas) - E, 0)), stored.ulp(np.abs(thetas) + E)
    out.faithful = int((ad + E <= ulo).sum())
    out.not_faithful = int((ad - E > uhi).sum())
    out.max_abs = float(ad.max()) if ad.size else 0.0
    out.max_ulp = float((ad / uhi).max()) if ad.size else 0.0
    out.over_pairs = ov.astype(np.int64)
    js = np.nonzero(ov)[0]
    order = js[np.argsort(-(ad[js] / B[js]))][:5]
    out.worst = [{"pair": int(j), "value": float(t[j]), "expected": float(thetas[j]),
                  "abs_error": float(ad[j]), "x_bound": float(ad[j] / B[j])} for j in order]
    return out


def _num(x: float):
    return int(x) if float(x).is_integer() else float(x)


#: the float64 reference angle ``fl(p theta^)`` is within ``R_X |x|`` of the exact ``p theta``
R_X = 1.01 * U52


def compare_angles(copies, pos: np.ndarray, model: AngleModel, *, angle_pos=None,
                   chunk: int | None = None, worst: int = 5) -> Tally:
    """Compare angle-table copies (each ``rows x pairs``) with the model at positions ``pos``
    (``angle_pos``: the positions the angle uses, for hypotheses).  Outside when
    ``|t - x| > B(|x| (1 + R_X)) + R_X |x|``, within when ``|t - x| <= B(|x| (1 - R_X)) -
    R_X |x|`` (``x`` the reference).  At their own positions in a 16-bit pipeline, a table with
    no angle outside is also asked for one computation (:func:`.tied.untied_angles`)."""
    t = Tally()
    whole = angle_pos is None
    th = np.asarray(model.thetas, dtype=np.float64)
    h = th.shape[0]
    t.over_pairs = np.zeros(h, dtype=np.int64)
    angle_pos = pos if angle_pos is None else angle_pos
    P, S = model.pipe, model.stored
    two_p = 2.0 ** (S.p - 1)
    chunk = chunk or max(BLOCK, 65536 // max(h, 1))
    cand = []
    for k0 in range(0, len(pos), chunk):
        sl = slice(k0, k0 + chunk)
        p = np.asarray(pos[sl], dtype=np.float64)
        pa = np.asarray(angle_pos[sl], dtype=np.float64)
        x = pa[:, None] * th[None, :]
        ax = np.abs(x)
        exact_p = (P.round(pa) == pa)
        kk = model.kk0[None, :] if exact_p.all() else np.where(exact_p[:, None], model.kk0[None, :],
                                                                model.kk1[None, :])
        hi_lim = ax * (kk * (1 + R_X) + R_X) + model.cc
        lo_lim = ax * (kk * (1 - R_X) - R_X) + model.cc
        E = ax * R_X
        u0 = S.ulp(ax)
        start = u0 * two_p
        f_lim = np.where(ax - E >= start, u0, 0.5 * u0) - E
        uhi = np.where(ax + E < 2 * start, u0, 2 * u0)
        nf_lim = uhi + E
        for cp in copies:
            tv = np.asarray(cp[sl], dtype=np.float64)
            ad = np.abs(tv - x)
            ov = ad > hi_lim
            n_ov = int(np.count_nonzero(ov))
            t.over += n_ov
            t.within += int(np.count_nonzero(ad <= lo_lim))
            t.faithful += int(np.count_nonzero(ad <= f_lim))
            t.not_faithful += int(np.count_nonzero(ad > nf_lim))
            t.entries += ad.size
            if ad.size:
                t.max_abs = max(t.max_abs, float(ad.max()))
                t.max_ulp = max(t.max_ulp, float((ad / uhi).max()))
            if n_ov:
                B = ax * kk + model.cc
                t.over_pairs += ov.sum(axis=0)
                r_, c_ = np.nonzero(ov)
                if t.first_over_position is None or p[r_].min() < t.first_over_position:
                    t.first_over_position = float(p[r_].min())
                ratio = ad[r_, c_] / np.maximum(np.broadcast_to(B, ad.shape)[r_, c_], 1e-300)
                for k in np.argsort(-ratio)[:worst]:
                    cand.append((float(ratio[k]), float(p[r_[k]]), int(c_[k]), "angle",
                                 float(tv[r_[k], c_[k]]), float(x[r_[k], c_[k]]),
                                 float(ad[r_[k], c_[k]])))
    cand.sort(key=lambda z: -z[0])
    t.worst = [{"position": _num(c[1]), "pair": c[2], "part": c[3], "value": c[4],
                "expected": c[5], "abs_error": c[6], "x_bound": c[0]} for c in cand[:worst]]
    if whole and t.entries and not t.over:
        t.untied = untied_angles(copies, pos, model)
    return t
