"""The float error model of rotary artefacts: the bound each entry of a cache, an angle table or
an ``inv_freq`` vector is held to (the comparison that applies it is :mod:`.compare`).

A rotary cache entry is ``a cos(p theta_j)`` or ``a sin(p theta_j)`` (``a`` the attention factor,
``theta_j`` the scaled frequency of pair ``j``).  Computing it in a binary dtype ``P`` (stored in
``S``) is the recipe shape of the absolute oracle's proved model
(:mod:`peproof.families.error_model`, evaluated by :mod:`peproof.oracle.common.budget`) with the
scale ``s = a``: position exact or rounded (``c_pos u``), frequency with relative error ``e_w``, the
angle rounded, ``sin``/``cos`` within ``c_sin`` ulps after a reduction of ``c_red u``, the product
with ``a`` (``c_scale u``) and the storage rounding.  The composed bound is the registry's
:func:`~peproof.families.error_model.entry_bound`, read through
:func:`peproof.oracle.common.budget._coefficients`; it is never retyped here.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp

from peproof.families.error_model import CONSTANTS
from peproof.families.error_model_maps import map_relative_error
from peproof.formats import Format

from ..common.budget import SLACK, _coefficients, tiny

U52 = 2.0**-52


@lru_cache(maxsize=128)
def _thetas(rope, seq_len) -> np.ndarray:
    return rope.thetas_f64(seq_len)


def thetas(rope, seq_len=None) -> np.ndarray:
    """``rope.thetas_f64(seq_len)`` (128-bit balls rounded to float64, ~2 ms a pair), computed
    once per RoPE and length: a check forms the same RoPE's frequencies several times."""
    return _thetas(rope, seq_len).copy()


#: a relative error no statement bounds: the frequency may be anything (vacuous, never a failure)
NO_BOUND = 1e6


@dataclass(frozen=True)
class FreqMap:
    """A rotary embedding's frequency map, as the error model needs it: method, ``d`` and the
    sequence length (dynamic NTK's factor depends on it)."""

    scaling: object
    d: int
    seq_len: object = None
    #: roundings after the map (a position scale multiplied into the frequency: one)
    extra_roundings: int = 0

    def relative(self, pipe: Format, e: float) -> float:
        """The scaled frequencies' relative error bound in pipeline ``pipe``, given the base
        frequencies' ``e`` (:func:`~peproof.families.error_model_maps.map_relative_error`),
        composed with ``extra_roundings`` roundings of unit ``u`` (``(1 + r)(1 + u) - 1``)."""
        host = pipe.kind == "binary" and pipe.p >= 53  # float64: the host's own format
        if self.scaling.kind == "keras_dynamic":
            r = keras_dynamic_error(float(self.scaling.factor), self.d, pipe.u, e)
        else:
            r = map_relative_error(self.scaling, self.d, self.seq_len, pipe.u, e, host)
        for _ in range(self.extra_roundings):
            r = (1 + r) * (1 + pipe.u) - 1
        return min(r, NO_BOUND)


def keras_dynamic_error(s: float, d: int, u: float, e: float) -> float:
    """keras-hub's ``dynamic``: ``theta_j / s^(d/(d-2))`` with the power formed in the pipeline
    (unit ``u``).  Derived as :func:`~peproof.families.error_model_maps.host_base_error` derives
    the NTK base, in the pipeline's unit: the exponent ``e' = d/(d-2)`` rounded
    (``|s^(e' delta) - 1| <= 2 e' |ln s| u``), ``pow`` within one ulp (``2u``), then linear's
    chain (the division and its rounding, ``C2 u``), composed with the base frequency's ``e``.
    Not yet a statement of :mod:`peproof.families.error_model_maps` (no claim proves it): the
    NTK statement's hypotheses, ``u <= U_MAX`` and the power's error at most ``B_MAX``, are
    required here too, else no bound (``inf``)."""
    from peproof.families.error_model_maps import B_MAX, C2, U_MAX

    if u > float(U_MAX) or d < 4 or s <= 0:
        return math.inf
    ep = d / (d - 2)
    z = 2 * ep * abs(math.log(s)) * u
    pw = (1 + z) * (1 + 2 * u) - 1
    if not pw <= float(B_MAX):
        return math.inf
    return (1 + e) * (1 + pw) * (1 + float(C2) * u) - 1


def freq_map(rope, seq_len=None, extra_roundings: int = 0) -> FreqMap:
    return FreqMap(rope.scaling, int(rope.d), seq_len, extra_roundings)


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
    out = e * np.maximum(1.0, n / safe) * SLACK
    sc = getattr(fmap, "scaling", None)
    if getattr(sc, "is_step", False):
        # Llama 3 with low_freq_factor >= high_freq_factor: a step at the wavelength L / low; a
        # pair whose wavelength (kept or divided) lies within the model's error of the edge may
        # be computed on either side of it: no bound for that pair (vacuous, never a failure)
        edge = float(sc.original_max_position_embeddings) / float(sc.low_freq_factor)
        s = float(sc.factor)
        near = np.zeros(thetas.shape, dtype=bool)
        for th0 in (safe, safe * s):
            near |= np.abs(2 * np.pi / th0 / edge - 1) <= 64 * (e + u)
        out = np.where(near & (thetas > 0), NO_BOUND, out)
    return out


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
    #: the positions' scale multiplied into ``thetas`` (a code may divide its positions instead)
    pos_scale: float = 1.0
    K0: np.ndarray = field(init=False)
    K1: np.ndarray = field(init=False)
    ew: np.ndarray = field(init=False)  # per pair, the frequency's relative error bound

    def __post_init__(self):
        c, P = CONSTANTS, self.pipe
        u, n = P.u, tiny(P)
        ew = freq_rel_error(self.thetas, P, self.fmap)
        self.ew = ew
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

def cache_model(rope, seq_len, a: float, pipe: Format, stored: Format, thetas=None,
                extra_roundings: int = 0, pos_scale: float = 1.0) -> CacheModel:
    """The :class:`CacheModel` of ``rope`` at ``seq_len`` with attention factor ``a`` (``thetas``:
    other frequencies than the rope's own, for a hypothesis; ``extra_roundings``: roundings
    after the map, a position scale's product; ``pos_scale``: that scale)."""
    th = _thetas(rope, seq_len).copy() if thetas is None else thetas
    return CacheModel(th, a, Fraction(a) * (1 + Fraction(1, 2**50)), pipe, stored,
                      freq_map(rope, seq_len, extra_roundings), pos_scale)


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
    #: the positions' scale multiplied into ``thetas`` (a code may divide its positions instead)
    pos_scale: float = 1.0

    def __post_init__(self):
        c, P = CONSTANTS, self.pipe
        u, n = P.u, tiny(P)
        ew = freq_rel_error(self.thetas, P, self.fmap)
        self.ew = ew  # per pair, the frequency's relative error bound
        self.ew_max = float(ew.max()) if ew.size else 0.0
        S = self.stored
        us, ns = (0.0, 0.0) if S == P else (S.u, tiny(S))
        self.kk0 = self.kk(ew)
        self.kk1 = self.kk((1.0 + c.c_pos * u) * (1.0 + ew) - 1.0)
        self.cc = (u * n * (1.0 + us) + us * ns) * SLACK

    def kk(self, rel):
        """``kk`` when the angle carries a relative error ``rel`` before its rounding in the
        pipeline: ``K = (1 + rel)(1 + u) - 1``, then the storage step."""
        us = 0.0 if self.stored == self.pipe else self.stored.u
        return ((((1.0 + rel) * (1.0 + self.pipe.u) - 1.0) * (1.0 + us) + us) * SLACK)

    def to_json(self) -> dict:
        return {"pipeline_dtype": self.pipe.name, "stored_dtype": self.stored.name,
                "constants": CONSTANTS.as_dict(),
                "frequency_map": self.fmap.scaling.kind if self.fmap else "default",
                "frequency_relative_error": self.ew_max}
