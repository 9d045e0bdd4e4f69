"""The float error model of rotary artefacts, and the streamed comparison against it.

A rotary cache entry is ``a cos(p theta_j)`` or ``a sin(p theta_j)`` (``a`` the attention factor,
``theta_j`` the scaled frequency of pair ``j``).  Computing it in a binary dtype ``P`` (stored in
``S``) is the recipe shape of the absolute oracle's proved model
(:mod:`peproof.families.error_model`, evaluated by :mod:`peproof.oracle.budget`) with the scale
``s = a``: position exact or rounded (``c_pos u``), frequency with relative error ``e_w``, the angle
rounded, ``sin``/``cos`` within ``c_sin`` ulps after a reduction of ``c_red u``, the product with
``a`` (``c_scale u``) and the storage rounding.  The composed bound is the registry's
:func:`~peproof.families.error_model.entry_bound`, read through
:func:`peproof.oracle.budget._coefficients`; it is never retyped here.

The one addition is the frequency map: a scaled frequency is computed from the base frequency by
a few more operations, so its relative error is not the model's ``e = (c_omega0 + c_omega1
max|ln theta|) u`` but a larger bound, proved per method in the registry
(:mod:`peproof.families.error_model_maps`: the rounding chains of linear and LongRoPE, the
rounded NTK/dynamic base raised to a power in ``[-1, 0]``, dynamic NTK's effective factor on the
host, YaRN's and Llama 3's blend with its weight's error amplified by ``s - 1``, and Llama 3's
smooth factor, computed from the rounded frequency, amplifying ``e`` by about
``(s - 1) hi/(hi - lo)``).  :func:`~peproof.families.error_model_maps.map_relative_error`
composes them; its constants are the registry's, never retyped here.

An ``inv_freq`` entry is judged by ``|t - theta_j| <= theta_j ((1 + e_w)(1 + u_S) - 1) + u_S N_S``.

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
from fractions import Fraction

import numpy as np
import sympy as sp

from peproof.families.error_model import CONSTANTS
from peproof.families.error_model_maps import map_relative_error
from peproof.formats import Format

from .budget import SLACK, _coefficients, tiny

U52 = 2.0**-52


#: a relative error no statement bounds: the frequency may be anything (vacuous, never a failure)
NO_BOUND = 1e6


@dataclass(frozen=True)
class FreqMap:
    """A rotary embedding's frequency map, as the error model needs it: method, ``d`` and the
    sequence length (dynamic NTK's factor depends on it)."""

    scaling: object
    d: int
    seq_len: object = None

    def relative(self, pipe: Format, e: float) -> float:
        """The scaled frequencies' relative error bound in pipeline ``pipe``, given the base
        frequencies' ``e`` (:func:`~peproof.families.error_model_maps.map_relative_error`)."""
        host = pipe.kind == "binary" and pipe.p >= 53  # float64: the host's own format
        return min(map_relative_error(self.scaling, self.d, self.seq_len, pipe.u, e, host),
                   NO_BOUND)


def freq_map(rope, seq_len=None) -> FreqMap:
    return FreqMap(rope.scaling, int(rope.d), seq_len)


def freq_rel_error(thetas: np.ndarray, pipe: Format, fmap: FreqMap | None) -> np.ndarray:
    """``e_w`` per pair: the map's bound (:class:`FreqMap`) on the model's
    ``e = (c_omega0 + c_omega1 max|ln theta|) u``, times ``max(1, N/theta)``."""
    c = CONSTANTS
    u, n = pipe.u, tiny(pipe)
    nz = thetas[thetas > 0]
    L = float(np.abs(np.log(nz)).max()) if nz.size else 0.0
    safe = np.where(thetas > 0, thetas, 1.0)
    e = (c.c_omega0 + c.c_omega1 * L) * u
    if fmap is not None:
        e = fmap.relative(pipe, e)
    return e * np.maximum(1.0, n / safe) * SLACK


@dataclass
class CacheModel:
    """Everything the comparison needs about one hypothesis: frequencies, attention factor,
    dtypes and the bound's coefficients."""

    thetas: np.ndarray  # float64, correctly rounded
    attention: float  # a, float64
    attention_hi: Fraction  # an upper bound of the exact a
    pipe: Format
    stored: Format
    fmap: FreqMap | None = None
    K0: np.ndarray = field(init=False)
    K1: np.ndarray = field(init=False)

    def __post_init__(self):
        c, P = CONSTANTS, self.pipe
        u, n = P.u, tiny(P)
        ew = freq_rel_error(self.thetas, P, self.fmap)
        self.ew_max = float(ew.max()) if ew.size else 0.0
        rest = (1.0 + ew) * (1.0 + u) * (1.0 + c.c_red * u)
        self.K0 = (rest - 1.0) * SLACK
        self.K1 = ((1.0 + c.c_pos * u) * rest - 1.0) * SLACK
        self.m = u * n * (1.0 + c.c_red * u) * SLACK
        one = self.attention == 1.0 and self.attention_hi == 1
        r = 0.0 if one else ((1.0 + c.c_scale * u) * (1.0 + u) - 1.0)
        S = self.stored
        us, ns = (0.0, 0.0) if S == P else (S.u, tiny(S))
        scale = sp.Integer(1) if one else sp.Rational(self.attention_hi.numerator,
                                                       self.attention_hi.denominator)
        self.alpha, self.beta, self.gamma = _coefficients(scale, one, r, u, n, c.c_sin, us, ns)

    def to_json(self) -> dict:
        c = CONSTANTS
        return {"pipeline_dtype": self.pipe.name, "stored_dtype": self.stored.name,
                "constants": c.as_dict(),
                "frequency_map": self.fmap.scaling.kind if self.fmap else "default",
                "frequency_relative_error": self.ew_max,
                "alpha": self.alpha, "beta": self.beta, "gamma": self.gamma}


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
        """No entry certainly outside (undecided ones allowed)."""
        return self.entries > 0 and self.over == 0

    def to_json(self) -> dict:
        return {"entries": self.entries, "outside_model": self.over,
                "within_model": self.within, "undecided": self.undecided,
                "within_1_ulp": self.faithful, "not_within_1_ulp": self.not_faithful,
                "max_abs_error": self.max_abs, "max_ulp_error": self.max_ulp,
                "first_outside_position": self.first_over_position, "worst": self.worst}


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
    entry and shared by the copies."""
    t = Tally()
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


# ----------------------------------------------------------------------------- angle tables
@dataclass
class AngleModel:
    """The bound of a stored angle ``fl(p^ theta^)`` (rotary-embedding-torch's ``freqs``): the
    position exact or rounded (``c_pos u``), the frequency's relative error ``e_w`` (with the
    map's, :func:`freq_rel_error`), the product rounded once (``error_model.angle_error_bound``
    without a reduction: ``|F| K + u N``), then the storage rounding
    (``error_model.storage_step_bound``).  ``B(F) = F kk + cc`` with ``kk = K (1 + u_S) + u_S``,
    ``cc = u N (1 + u_S) + u_S N_S``, nondecreasing in the exact angle's size ``F``."""

    thetas: np.ndarray
    pipe: Format
    stored: Format
    fmap: FreqMap | None = None

    def __post_init__(self):
        c, P = CONSTANTS, self.pipe
        u, n = P.u, tiny(P)
        ew = freq_rel_error(self.thetas, P, self.fmap)
        self.ew_max = float(ew.max()) if ew.size else 0.0
        S = self.stored
        us, ns = (0.0, 0.0) if S == P else (S.u, tiny(S))
        K0 = (1.0 + ew) * (1.0 + u) - 1.0
        K1 = (1.0 + c.c_pos * u) * (1.0 + ew) * (1.0 + u) - 1.0
        self.kk0 = (K0 * (1.0 + us) + us) * SLACK
        self.kk1 = (K1 * (1.0 + us) + us) * SLACK
        self.cc = (u * n * (1.0 + us) + us * ns) * SLACK

    def to_json(self) -> dict:
        return {"pipeline_dtype": self.pipe.name, "stored_dtype": self.stored.name,
                "constants": CONSTANTS.as_dict(),
                "frequency_map": self.fmap.scaling.kind if self.fmap else "default",
                "frequency_relative_error": self.ew_max}


#: the float64 reference angle ``fl(p theta^)`` is within ``R_X |x|`` of the exact ``p theta``
R_X = 1.01 * U52


def compare_angles(copies, pos: np.ndarray, model: AngleModel, *, angle_pos=None,
                   chunk: int | None = None, worst: int = 5) -> Tally:
    """Compare angle-table copies (each ``rows x pairs``) with the model at positions ``pos``
    (``angle_pos``: the positions the angle uses, for hypotheses).  Outside when
    ``|t - x| > B(|x| (1 + R_X)) + R_X |x|``, within when ``|t - x| <= B(|x| (1 - R_X)) -
    R_X |x|`` (``x`` the reference)."""
    t = Tally()
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
    return t
