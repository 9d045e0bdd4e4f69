"""A named member of the sinusoidal family, independent of ``d``, and its human name.

:class:`Variant` is what :func:`peproof.oracle.identify` returns and what a check expects.  It only
stores parameters; every value is computed by the :class:`peproof.encoding.Encoding` it builds.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp

from peproof.encoding import (
    FAMILIES,
    LAYOUTS,
    ORDERS,
    Encoding,
    ParameterError,
    omega_law,
    row_positions,
)

LAYOUT_NAMES = {"interleaved": "interleaved", "sin_cos": "[sin|cos]", "cos_sin": "[cos|sin]"}
_LAYOUT_ALIASES = {"[sin|cos]": "sin_cos", "[cos|sin]": "cos_sin", "sincos": "sin_cos",
                   "cossin": "cos_sin", "sin|cos": "sin_cos", "cos|sin": "cos_sin",
                   "split": "sin_cos", "concat": "sin_cos"}
_FAMILY_ALIASES = {"vaswani": "paper", "transformer": "paper", "h1": "h-1", "t2t": "h-1",
                   "tensor2tensor": "h-1", "fairseq": "h-1", "whisper": "h-1"}


def parse_layout(name: str) -> str:
    key = _LAYOUT_ALIASES.get(name, name)
    if key not in LAYOUTS:
        raise ParameterError(f"layout must be one of {', '.join(LAYOUTS)}, got {name!r}")
    return key


def parse_family(name: str) -> str:
    key = _FAMILY_ALIASES.get(name.lower(), name.lower())
    if key not in FAMILIES:
        raise ParameterError(f"family must be one of {', '.join(FAMILIES)}, got {name!r}")
    return key


def _exact_number(value, what: str):
    """int / Fraction from an int, Fraction, exact float or decimal string (for base, offset);
    magnitudes past float64's largest number (1.8e308) are refused: every check computes in
    float64 at some point, and such a number would overflow there."""
    v = _exact_number_any(value, what)
    if abs(v) > _F64_MAX:
        raise ParameterError(f"{what} must be at most about 1.8e308 in magnitude (float64's "
                             f"largest number), got {str(value)[:40]!r}")
    return v


_F64_MAX = Fraction(sys.float_info.max)


def _exact_number_any(value, what: str):
    if isinstance(value, bool):
        raise ParameterError(f"{what} must be a number, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ParameterError(f"{what} must be finite, got {value!r}")
        f = Fraction(value)
        return f.numerator if f.denominator == 1 else f
    if isinstance(value, str):
        try:
            f = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ParameterError(f"{what} must be a number such as 10000 or 2 or 0.5, "
                                 f"got {value!r}") from None
        return f.numerator if f.denominator == 1 else f
    if isinstance(value, sp.Rational):
        return _exact_number_any(Fraction(int(value.p), int(value.q)), what)
    try:  # numpy scalars
        return _exact_number_any(value.item(), what)
    except AttributeError:
        raise ParameterError(f"{what} must be a number, got {value!r}") from None


SCALE_FORMS = ("sqrt(d)", "1/sqrt(d)", "sqrt(2/d)", "sqrt(d/2)", "sqrt(2)", "1/sqrt(2)")


def scale_expr(scale, d: int) -> sp.Expr:
    """The scale as an exact SymPy number; strings may use ``d`` and ``sqrt``."""
    if isinstance(scale, sp.Expr):
        return scale
    if isinstance(scale, str):
        e = _scale_str(scale, d)
        if e.is_number and e.is_finite and abs(e) > sp.Rational(_F64_MAX):
            raise ParameterError(f"scale must be at most about 1.8e308 in magnitude (float64's "
                                 f"largest number), got {scale[:40]!r}")
        return e
    return sp.Rational(_exact_number(scale, "scale"))


@lru_cache(maxsize=1024)
def _scale_str(scale: str, d: int) -> sp.Expr:
    try:
        e = sp.sympify(scale.replace("^", "**"), locals={"d": sp.Integer(d), "sqrt": sp.sqrt})
    except (sp.SympifyError, TypeError, SyntaxError):
        raise ParameterError(f"scale must be a positive number or an expression in d such "
                             f"as 'sqrt(d)' or '1/sqrt(d)', got {scale!r}") from None
    if e.free_symbols:
        raise ParameterError(f"scale may only use d and sqrt, got {scale!r}")
    return e


def scale_label(expr: sp.Expr, d: int, form: str | None = None) -> str:
    """The scale's form (``sqrt(d)``, ``1/sqrt(d)``, ``sqrt(2/d)``, ...) with its value when it is
    one of :data:`SCALE_FORMS` (``form`` picks the one meant when several are equal), else the
    number."""
    forms = [form] if form in SCALE_FORMS else []
    forms += [f for f in SCALE_FORMS if f not in forms]
    for f in forms:
        if scale_expr(f, d) == expr:
            return f"{f}={float(expr):.6g}" if not expr.is_Rational else f"{f}={expr}"
    if expr.is_Rational:
        return str(expr) if expr.q == 1 else f"{float(expr):.9g}"
    return f"{float(expr):.9g}"


@dataclass(frozen=True)
class Variant:
    """Family, base, layout, offset, scale, frequency scale (``max_freq``, ``turns``) and the
    order of the rows (:func:`peproof.encoding.row_positions`); ``dtype`` is carried along for
    naming only."""

    family: str = "paper"
    base: object = 10000
    layout: str = "interleaved"
    offset: object = 0
    scale: object = 1
    dtype: str | None = None
    max_freq: object = 1
    turns: bool = False
    order: str = "forward"
    _key: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "family", parse_family(self.family))
        object.__setattr__(self, "layout", parse_layout(self.layout))
        object.__setattr__(self, "base", _exact_number(self.base, "base"))
        object.__setattr__(self, "offset", _exact_number(self.offset, "offset"))
        object.__setattr__(self, "max_freq", _exact_number(self.max_freq, "max_freq"))
        if self.base <= 1:
            raise ParameterError(f"base must be a number > 1, got {self.base}")
        if self.max_freq <= 0:
            raise ParameterError(f"max_freq must be a positive number, got {self.max_freq}")
        if self.order not in ORDERS:
            raise ParameterError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        object.__setattr__(self, "turns", bool(self.turns))
        object.__setattr__(self, "_key", (self.family, self.base, self.layout, self.offset))

    def encoding(self, d: int) -> Encoding:
        return _encoding(self.family, self.base, self.layout, self.offset, self.scale,
                         self.max_freq, self.turns, d)

    def positions(self, n: int) -> np.ndarray:
        """The positions of ``n`` rows in this variant's order (before the offset)."""
        return row_positions(n, self.order)

    def with_(self, **kw) -> Variant:
        fields = {"family": self.family, "base": self.base, "layout": self.layout,
                  "offset": self.offset, "scale": self.scale, "dtype": self.dtype,
                  "max_freq": self.max_freq, "turns": self.turns, "order": self.order}
        fields.update(kw)
        return Variant(**fields)

    def name(self, d: int | None = None) -> str:
        """E.g. ``h-1 family, base 10000, [sin|cos] layout, offset 0, scale 1, float32``."""
        parts = [f"{self.family} family"]
        if self.family != "nerf":
            parts.append(f"base {_num(self.base)}")
        if self.turns:
            parts.append("frequencies in full turns (x 2 pi)" if self.max_freq == 1 else
                         f"max frequency {_num(self.max_freq)} x 2 pi (full turns)")
        elif self.max_freq != 1:
            parts.append(f"max frequency {_num(self.max_freq)}")
        parts.append(f"{LAYOUT_NAMES[self.layout]} layout")
        parts.append(f"offset {_num(self.offset)}")
        if d is not None:
            parts.append(f"scale {scale_label(scale_expr(self.scale, d), d, self.scale)}")
        else:
            parts.append(f"scale {self.scale}")
        if self.order != "forward":
            parts.append({"reversed": "rows in reversed order (n-1 .. 0)",
                          "symmetric": "rows at |k - (n-1)/2| (symmetric)"}[self.order])
        if self.dtype:
            parts.append(self.dtype)
        return ", ".join(parts)

    def to_json(self, d: int | None = None) -> dict:
        out = {"family": self.family, "base": _num(self.base), "layout": self.layout,
               "offset": _num(self.offset), "scale": str(self.scale),
               "max_freq": _num(self.max_freq), "turns": self.turns, "order": self.order,
               "dtype": self.dtype}
        if d is not None:
            se = scale_expr(self.scale, d)
            out["scale"] = str(se)
            out["scale_value"] = float(se)
            out["name"] = self.name(d)
        return out

    def same_as(self, other: Variant, d: int) -> bool:
        """Whether both variants define the same table at this ``d`` (exactly)."""
        if self.layout != other.layout or Fraction(self.offset) != Fraction(other.offset):
            return False
        if self.order != other.order:
            return False
        if sp.expand(scale_expr(self.scale, d) ** 2 - scale_expr(other.scale, d) ** 2) != 0:
            return False
        return same_frequencies(self, other, d)


@lru_cache(maxsize=512)
def _encoding(family, base, layout, offset, scale, max_freq, turns, d) -> Encoding:
    """One :class:`Encoding` per parameter set (its frequencies are computed once, in arb)."""
    return Encoding(d, family=family, base=base, layout=layout, offset=offset,
                    scale=scale_expr(scale, d), max_freq=max_freq, turns=turns)


def _num(x) -> str:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}" if x.denominator <= 1000 else f"{float(x):.12g}"
    return str(x)


@lru_cache(maxsize=256)
def family_rate(family: str, d: int) -> Fraction | None:
    """``k`` with ``omega_i = base**(-k*i)`` in this family at this ``d``, read off
    :func:`peproof.encoding.omega_law` with a symbolic base; ``None`` when the frequencies do
    not depend on a base (nerf)."""
    b = sp.Symbol("b", positive=True)
    const, base, rate = omega_law(d, family, b)
    if base != b or const != 1:
        return None
    return Fraction(int(-rate.p), int(rate.q))


def log_rate(v: Variant, d: int) -> Fraction | None:
    """The rate of :func:`family_rate` for this variant's family."""
    return family_rate(v.family, d)


def same_frequencies(a: Variant, b: Variant, d: int) -> bool:
    """Exact test that two variants have the same frequency for every pair at this ``d``."""
    if a.turns != b.turns or Fraction(a.max_freq) != Fraction(b.max_freq):
        return False  # 2 pi is irrational; the first frequencies differ
    if d == 2 and "nerf" not in (a.family, b.family):
        return True  # the only frequency is base**0 = 1
    ka, kb = log_rate(a, d), log_rate(b, d)
    if ka is None or kb is None:
        return ka is None and kb is None
    # base_a**ka == base_b**kb  <=>  base_a**(ka*L) == base_b**(kb*L) for L clearing denominators
    if abs(ka * math.log(Fraction(a.base)) - kb * math.log(Fraction(b.base))) > 1e-9:
        return False
    lcm = ka.denominator * kb.denominator // math.gcd(ka.denominator, kb.denominator)
    ea, eb = int(ka * lcm), int(kb * lcm)
    return Fraction(a.base) ** ea == Fraction(b.base) ** eb


PAPER = Variant()


def describe_difference(want: Variant, got: Variant, d: int) -> str:
    """The parameters in which two variants differ, e.g. ``layout [sin|cos] (expected ...)``."""
    out = []
    if not same_frequencies(want, got, d):
        if want.family != got.family:
            out.append(f"family {got.family} (expected {want.family})")
        if want.base != got.base or want.family == got.family:
            out.append(f"base {got.base} (expected {want.base})")
        if want.max_freq != got.max_freq or want.turns != got.turns:
            out.append(f"max frequency {got.max_freq}{' turns' if got.turns else ''} (expected "
                       f"{want.max_freq}{' turns' if want.turns else ''})")
    if want.layout != got.layout:
        out.append(f"layout {LAYOUT_NAMES[got.layout]} (expected {LAYOUT_NAMES[want.layout]})")
    if want.offset != got.offset:
        out.append(f"offset {got.offset} (expected {want.offset})")
    if scale_expr(want.scale, d) != scale_expr(got.scale, d):
        out.append(f"scale {got.scale} (expected {want.scale})")
    if want.order != got.order:
        out.append(f"row order {got.order} (expected {want.order})")
    return ", ".join(out) or "nothing (equivalent)"
