"""The frequency maps of RoPE's context-extension methods, each written once.

Every method maps the base frequency ``theta_j = base**(-2j/d)`` of pair ``j`` to a scaled
``theta'_j`` (and some set an attention factor).  Each map is written ONCE, as a function of a
*backend* ``X`` (:mod:`peproof.rope_backends`: exact SymPy, arb balls, float64 NumPy) that
supplies the numbers and the few operations the maps use.

Methods (``s`` = ``factor``, ``L`` = the original context length; names of transformers'
``rope_type`` in brackets; parameters named as in its ``rope_parameters``):

``Default``     [default]   ``theta_j``
``Linear``      [linear]    ``theta_j / s`` (position interpolation, Chen et al. 2023)
``NTKAware``    [-]         base ``b -> b s^(d/(d-2))`` (bloc97 2023; YaRN paper section 3.1):
                            indistinguishable from ``Default`` with that base
``DynamicNTK``  [dynamic]   ``NTKAware`` with the factor ``s l'/L - (s - 1)``, ``l' = max(l, L)``
                            at the current sequence length ``l`` (``L`` = max_position_embeddings)
``Yarn``        [yarn]      NTK-by-parts ramp between ``theta_j / s`` and ``theta_j`` plus the
                            attention factor ``0.1 ln s + 1`` (Peng et al. 2023); the ramp either
                            as published (``ramp="ratio"``, linear in ``r = L / lambda_j``) or as
                            the reference code and transformers compute it (``ramp="index"``:
                            linear in ``j`` between the floor/ceil of the correction dimensions)
``Llama3``      [llama3]    wavelength bands: ``lambda < L/high_freq_factor`` kept, ``lambda >
                            L/low_freq_factor`` divided by ``s``, a smooth blend between (Meta
                            2024); with ``low_freq_factor >= high_freq_factor`` a step at
                            ``L/low``
``LongRope``    [longrope]  per-pair factors ``theta_j / lambda_j`` (short or long set by the
                            sequence length) and ``sqrt(1 + ln s / ln L)`` (Ding et al. 2024)

Parameters are held as exact rationals (a float parameter is taken at its exact binary value).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np
import sympy as sp

from peproof.encoding import ParameterError, _as_rational
from peproof.rope_backends import (  # noqa: F401 - re-exported: the maps and their backends
    Undecided,
    arb_backend,
    clamp,
    numpy_backend,
    sym_backend,
)


# ---------------------------------------------------------------------- the methods
def _rat(v, name: str, positive: bool = True) -> sp.Rational:
    """An exact rational parameter; a SymPy expression with symbols is kept as it is (the claims
    state the maps for symbolic parameters)."""
    if isinstance(v, sp.Basic) and v.free_symbols:
        return v
    q = _as_rational(v, name)
    if positive and q <= 0:
        raise ParameterError(f"{name} must be a positive number, got {v!r}")
    return q


@dataclass(frozen=True)
class Scaling:
    """A frequency map; subclasses override :meth:`frequency` and :meth:`attention`."""

    kind: ClassVar[str] = "default"
    rope_type: ClassVar[str | None] = "default"
    exact: ClassVar[tuple[str, ...]] = ()  # numeric parameters held as exact rationals

    def __post_init__(self):
        for name in self.exact:
            val = getattr(self, name)
            if val is not None:
                object.__setattr__(self, name, _rat(val, name))

    def validate(self, d: int) -> None:
        """Raise :class:`ParameterError` when the map is undefined for ``d`` rotated channels."""

    def frequency(self, X, j, d, base, theta, seq_len=None):
        """The scaled frequency of pair ``j`` given its base frequency ``theta``."""
        return theta

    def multiplier(self, X, j, d, base, theta, seq_len=None):
        """``theta'_j / theta_j``."""
        return self.frequency(X, j, d, base, theta, seq_len) / theta

    def attention(self, X, seq_len=None):
        """The factor on cos and sin (so the attention logits get its square); 1 by default."""
        return X.num(1)

    def params(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> str:
        ps = ", ".join(f"{k}={v}" for k, v in self.params().items() if v is not None)
        return f"{self.kind}({ps})"


@dataclass(frozen=True)
class Default(Scaling):
    pass


@dataclass(frozen=True)
class Linear(Scaling):
    factor: object = 1
    kind: ClassVar[str] = "linear"
    rope_type: ClassVar[str | None] = "linear"
    exact: ClassVar[tuple[str, ...]] = ("factor",)

    def frequency(self, X, j, d, base, theta, seq_len=None):
        return theta / X.num(self.factor)


def ntk_base(X, base, factor, d):
    """NTK-aware base change ``b s^(d/(d-2))``."""
    d = sp.sympify(d)
    return X.num(base) * X.pow(X.num(factor), X.num(d / (d - 2)))


@dataclass(frozen=True)
class NTKAware(Scaling):
    factor: object = 1
    kind: ClassVar[str] = "ntk"
    rope_type: ClassVar[str | None] = None
    exact: ClassVar[tuple[str, ...]] = ("factor",)

    def validate(self, d):
        if d < 4:
            raise ParameterError(f"NTK-aware scaling needs d >= 4 (d/(d-2)), got {d}")

    def frequency(self, X, j, d, base, theta, seq_len=None):
        return X.pow(ntk_base(X, base, self.factor, d), X.num(-2) * j / X.num(d))


@dataclass(frozen=True)
class KerasDynamic(Scaling):
    """keras-hub's ``rope_type="dynamic"``: every frequency divided by ``s^(d/(d-2))`` (the
    NTK exponent applied as one linear factor, at every length): ``theta_j / s^(d/(d-2))``."""

    factor: object = 1
    kind: ClassVar[str] = "keras_dynamic"
    rope_type: ClassVar[str | None] = None
    exact: ClassVar[tuple[str, ...]] = ("factor",)

    def validate(self, d):
        NTKAware.validate(self, d)

    def frequency(self, X, j, d, base, theta, seq_len=None):
        d = sp.sympify(d)
        return theta / X.pow(X.num(self.factor), X.num(d / (d - 2)))


def dynamic_factor(X, factor, length, seq_len):
    """transformers' effective factor ``s l'/L - (s - 1)`` with ``l' = max(l, L)``."""
    s, big = X.num(factor), X.num(length)
    cur = big if seq_len is None else X.num(seq_len)
    cur = X.select([(X.lt(cur, big), big)], cur)
    return s * cur / big - (s - 1)


@dataclass(frozen=True)
class DynamicNTK(Scaling):
    factor: object = 1
    max_position_embeddings: object = 2048
    kind: ClassVar[str] = "dynamic"
    rope_type: ClassVar[str | None] = "dynamic"
    exact: ClassVar[tuple[str, ...]] = ("factor", "max_position_embeddings")

    def validate(self, d):
        NTKAware.validate(self, d)

    def frequency(self, X, j, d, base, theta, seq_len=None):
        eff = dynamic_factor(X, self.factor, self.max_position_embeddings, seq_len)
        return X.pow(ntk_base(X, base, eff, d), X.num(-2) * j / X.num(d))


def yarn_mscale(X, factor, c=1):
    """``0.1 c ln s + 1`` for ``s > 1``, else 1 (YaRN's ``sqrt(1/t)``)."""
    s = X.num(factor)
    return X.select([(X.lt(X.num(1), s), X.num(sp.Rational(c)) * X.log(s) / 10 + 1)], X.num(1))


def yarn_correction_dim(X, rotations, d, base, length):
    """The (real) pair index whose wavelength is ``length / rotations``."""
    return (X.num(d) * X.log(X.num(length) / (X.num(rotations) * 2 * X.pi))
            / (2 * X.log(X.num(base))))


@dataclass(frozen=True)
class Yarn(Scaling):
    factor: object = 1
    original_max_position_embeddings: object = 2048
    beta_fast: object = 32
    beta_slow: object = 1
    ramp: str = "index"
    truncate: bool = True
    attention_factor: object = None
    mscale: object = None
    mscale_all_dim: object = None
    kind: ClassVar[str] = "yarn"
    rope_type: ClassVar[str | None] = "yarn"
    exact: ClassVar[tuple[str, ...]] = ("factor", "original_max_position_embeddings",
                                        "beta_fast", "beta_slow", "attention_factor")

    def __post_init__(self):
        super().__post_init__()
        if self.ramp not in ("index", "ratio"):
            raise ParameterError(f"ramp must be index or ratio, got {self.ramp!r}")
        for name in ("mscale", "mscale_all_dim"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, _rat(v, name, positive=False))
        # transformers accepts any betas (it warns when beta_fast < beta_slow): the index ramp
        # is then computed between the two correction dimensions in the other order, and equal
        # ones are moved apart by 1/1000; only the published ratio ramp divides by their gap
        if self.ramp == "ratio" and (self.beta_slow - self.beta_fast).is_nonnegative:
            raise ParameterError(f"the published ratio ramp needs beta_slow below beta_fast, got "
                                 f"{self.beta_slow}, {self.beta_fast}")

    def ratio_ramp(self, X, theta):
        """The published ``gamma(r)``, ``r = L theta / (2 pi)``: 0 below ``beta_slow``, 1 above
        ``beta_fast``, linear between (the weight of the unscaled frequency)."""
        a, b = X.num(self.beta_slow), X.num(self.beta_fast)
        r = X.num(self.original_max_position_embeddings) * theta / (2 * X.pi)
        return X.select([(X.lt(r, a), X.num(0)), (X.lt(b, r), X.num(1))], (r - a) / (b - a))

    def index_range(self, X, d, base):
        """``(low, high)``: correction dimensions of ``beta_fast`` and ``beta_slow``, floored and
        ceiled when ``truncate``, clipped to ``[0, d - 1]``, ``high`` nudged by 1/1000 if equal."""
        length = self.original_max_position_embeddings
        low = yarn_correction_dim(X, self.beta_fast, d, base, length)
        high = yarn_correction_dim(X, self.beta_slow, d, base, length)
        if self.truncate:
            low, high = X.floor(low), X.ceil(high)
        low = X.select([(X.lt(low, X.num(0)), X.num(0))], low)
        high = X.select([(X.lt(X.num(d - 1), high), X.num(d - 1))], high)
        return low, X.select([(X.eq(low, high), high + X.num(sp.Rational(1, 1000)))], high)

    def index_ramp(self, X, j, d, base):
        """The weight of the unscaled frequency: ``1 - clamp((j - low)/(high - low), 0, 1)``."""
        low, high = self.index_range(X, d, base)
        return 1 - clamp((X.num(j) - low) / (high - low), X.num(0), X.num(1), X)

    def frequency(self, X, j, d, base, theta, seq_len=None):
        g = self.ratio_ramp(X, theta) if self.ramp == "ratio" else self.index_ramp(X, j, d, base)
        return theta * ((1 - g) / X.num(self.factor) + g)

    def attention(self, X, seq_len=None):
        if self.attention_factor is not None:
            return X.num(self.attention_factor)
        if self.mscale and self.mscale_all_dim:
            return (yarn_mscale(X, self.factor, self.mscale)
                    / yarn_mscale(X, self.factor, self.mscale_all_dim))
        return yarn_mscale(X, self.factor)


@dataclass(frozen=True)
class Llama3(Scaling):
    factor: object = 8
    low_freq_factor: object = 1
    high_freq_factor: object = 4
    original_max_position_embeddings: object = 8192
    kind: ClassVar[str] = "llama3"
    rope_type: ClassVar[str | None] = "llama3"
    exact: ClassVar[tuple[str, ...]] = ("factor", "low_freq_factor", "high_freq_factor",
                                        "original_max_position_embeddings")

    @property
    def is_step(self) -> bool:
        """``low_freq_factor >= high_freq_factor`` (Llama 4 Scout: 1 and 1): transformers accepts
        it (with a warning) and its band collapses: a wavelength above ``L / low_freq_factor``
        is divided by ``s``, every other kept (its blend would divide by zero and is never
        reached for a rational base: a wavelength ``2 pi / theta`` is never rational)."""
        return bool((self.low_freq_factor - self.high_freq_factor).is_nonnegative)

    def edges(self, X):
        """Wavelengths ``(L / high_freq_factor, L / low_freq_factor)`` bounding the blend band."""
        big = X.num(self.original_max_position_embeddings)
        return big / X.num(self.high_freq_factor), big / X.num(self.low_freq_factor)

    def blend(self, X, theta):
        """The middle band's formula ``(1 - g) theta / s + g theta``,
        ``g = (L / lambda - low_freq_factor) / (high_freq_factor - low_freq_factor)``."""
        lo, hi = X.num(self.low_freq_factor), X.num(self.high_freq_factor)
        lam = 2 * X.pi / theta
        g = (X.num(self.original_max_position_embeddings) / lam - lo) / (hi - lo)
        return (1 - g) * theta / X.num(self.factor) + g * theta

    def frequency(self, X, j, d, base, theta, seq_len=None):
        short, long_ = self.edges(X)
        lam = 2 * X.pi / theta
        if self.is_step:  # transformers' order: the divided band first, no blend
            return X.select([(X.lt(long_, lam), theta / X.num(self.factor))], theta)
        return X.select([(X.lt(lam, short), theta), (X.lt(long_, lam), theta / X.num(self.factor))],
                        self.blend(X, theta))


@dataclass(frozen=True)
class LongRope(Scaling):
    short_factor: tuple = ()
    long_factor: tuple = ()
    original_max_position_embeddings: object = 4096
    factor: object = None
    attention_factor: object = None
    #: PhiMoE's amplitudes: ``short_mscale`` up to the original context, ``long_mscale`` past it
    #: (its rotary embedding multiplies cos and sin by them in place of the attention factor)
    short_mscale: object = None
    long_mscale: object = None
    kind: ClassVar[str] = "longrope"
    rope_type: ClassVar[str | None] = "longrope"
    exact: ClassVar[tuple[str, ...]] = ("original_max_position_embeddings", "factor",
                                        "attention_factor", "short_mscale", "long_mscale")

    def __post_init__(self):
        super().__post_init__()
        for name in ("short_factor", "long_factor"):
            vals = tuple(_rat(v, name) for v in getattr(self, name))
            object.__setattr__(self, name, vals)

    def validate(self, d):
        for name in ("short_factor", "long_factor"):
            if len(getattr(self, name)) != d // 2:
                raise ParameterError(f"{name} must have d/2 = {d // 2} entries, "
                                     f"got {len(getattr(self, name))}")

    def describe(self) -> str:
        """The factor sets shortened (first three, count; as decimals): a config's floats read
        exactly are 50-digit fractions, unreadable in a verdict."""
        def short(v):
            head = ", ".join(f"{float(x):.6g}" for x in v[:3])
            return f"[{head}{', ...' if len(v) > 3 else ''}] ({len(v)})"

        ps = [f"short_factor={short(self.short_factor)}", f"long_factor={short(self.long_factor)}",
              f"original_max_position_embeddings={self.original_max_position_embeddings}"]
        ps += [f"{k}={getattr(self, k)}" for k in ("factor", "attention_factor", "short_mscale",
                                                    "long_mscale")
               if getattr(self, k) is not None]
        return f"longrope({', '.join(ps)})"

    def factors(self, seq_len=None) -> tuple:
        """The long set past the original context length, the short set otherwise."""
        use_long = seq_len is not None and seq_len > self.original_max_position_embeddings
        return self.long_factor if use_long else self.short_factor

    def frequency(self, X, j, d, base, theta, seq_len=None):
        lam = self.factors(seq_len)
        if isinstance(j, np.ndarray):
            return theta / np.array([float(lam[int(t)]) for t in j])
        return theta / X.num(lam[int(j)])

    def attention(self, X, seq_len=None):
        use_long = seq_len is not None and seq_len > self.original_max_position_embeddings
        ms = self.long_mscale if use_long else self.short_mscale
        if ms is not None:  # PhiMoE: the mscale of the side of the switch replaces the factor
            return X.num(ms)
        if self.attention_factor is not None:
            return X.num(self.attention_factor)
        if self.factor is None:
            return X.num(1)
        s, big = X.num(self.factor), X.num(self.original_max_position_embeddings)
        return X.select([(X.lt(X.num(1), s), X.sqrt(1 + X.log(s) / X.log(big)))], X.num(1))


SCALINGS = {c.kind: c for c in (Default, Linear, NTKAware, KerasDynamic, DynamicNTK, Yarn, Llama3,
                                 LongRope)}
