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
float64 from arb) differs from the exact value by at most ``E = 1.01 (a |x| 2**-52 + |v^| 2**-49)
+ 2**-1000`` under the absolute oracle's one axiom (NumPy's float64 sin and cos within 4 ulps).
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


def compare_cache(copies, pos: np.ndarray, model: CacheModel, *, angle_pos=None,
                  chunk: int = 16384, worst: int = 5, rows=None) -> Tally:
    """Compare cache copies ``[(C, S), ...]`` (each ``rows x pairs``, the stored values) with the
    model at positions ``pos`` (``angle_pos``: the positions the angle uses, for hypotheses such as
    positions rounded to float16; default ``pos``).  ``rows`` restricts to a row subset."""
    t = Tally()
    h = model.thetas.shape[0]
    t.over_pairs = np.zeros(h, dtype=np.int64)
    angle_pos = pos if angle_pos is None else angle_pos
    P, S = model.pipe, model.stored
    a = model.attention
    cand = []
    idx_all = np.arange(len(pos)) if rows is None else np.asarray(rows)
    for k0 in range(0, len(idx_all), chunk):
        ix = idx_all[k0:k0 + chunk]
        sl = slice(int(ix[0]), int(ix[-1]) + 1) if rows is None else ix
        p = np.asarray(pos[sl], dtype=np.float64)
        pa = np.asarray(angle_pos[sl], dtype=np.float64)
        x = pa[:, None] * model.thetas[None, :]
        ax = np.abs(x)
        exact_p = (P.round(pa) == pa)
        delta = ax * (model.K0[None, :] if exact_p.all() else
                      np.where(exact_p[:, None], model.K0[None, :], model.K1[None, :]))
        delta += model.m
        np.minimum(delta, 2.0, out=delta)
        D = model.alpha * delta + model.gamma
        E0 = 1.01 * a * ax * U52 + 2.0**-1000
        two_p = 2.0 ** (S.p - 1)
        for fn, which in ((np.cos, 0), (np.sin, 1)):
            v = fn(x)
            if a != 1.0:
                v *= a
            av = np.abs(v)
            B = model.beta * av
            B += D
            E = av * (1.01 * 2.0**-49)
            E += E0
            marg = E * (1.0 + model.beta)
            # ulp bounds over [|v^| - E, |v^| + E] from one ulp: half or twice it across a binade
            u0 = S.ulp(av)
            start = u0 * two_p
            ulo = np.where(av - E >= start, u0, 0.5 * u0)
            uhi = np.where(av + E < 2 * start, u0, 2 * u0)
            for cp in copies:
                tv = np.asarray(cp[which][sl], dtype=np.float64)
                ad = np.abs(tv - v)
                dd = ad - B
                ov = dd > marg
                t.over += int(np.count_nonzero(ov))
                t.within += int(np.count_nonzero(dd <= -marg))
                dd = ad + E
                t.faithful += int(np.count_nonzero(dd <= ulo))
                np.subtract(ad, E, out=dd)
                t.not_faithful += int(np.count_nonzero(dd > uhi))
                t.entries += ad.size
                if ad.size:
                    t.max_abs = max(t.max_abs, float(ad.max()))
                    t.max_ulp = max(t.max_ulp, float((ad / uhi).max()))
                if ov.any():
                    t.over_pairs += ov.sum(axis=0)
                    r_, c_ = np.nonzero(ov)
                    if t.first_over_position is None or p[r_].min() < t.first_over_position:
                        t.first_over_position = float(p[r_].min())
                    ratio = ad[r_, c_] / np.maximum(B[r_, c_], 1e-300)
                    top = np.argsort(-ratio)[:worst]
                    for k in top:
                        cand.append((float(ratio[k]), float(p[r_[k]]), int(c_[k]),
                                     "cos" if which == 0 else "sin", float(tv[r_[k], c_[k]]),
                                     float(v[r_[k], c_[k]]), float(ad[r_[k], c_[k]])))
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
