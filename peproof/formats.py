"""Number formats a table can be stored or computed in: ulps, unit roundoff, correct rounding.

Binary formats are IEEE-style (``float16``, ``bfloat16``, ``float32``, ``float64``), described by
their significand width ``p`` (bits, implicit bit included) and ``emin``, the :func:`numpy.frexp`
exponent of the smallest normal number (values ``f * 2**e`` with ``0.5 <= f < 1``).  Text files add
two decimal formats: ``decimal<D>`` (``D`` significant digits, as ``%g`` or ``repr`` print) and
``fixed<K>`` (``K`` digits after the point, as ``%.Kf`` prints).

Correct rounding (round to nearest, ties to even) is done in exact integer arithmetic for a dyadic
number (:meth:`Format.round_dyadic`) and, for float64 arrays, with ``frexp``/``rint``/``ldexp``
(exact for every format narrower than float64).  ``ml_dtypes`` converts float64 to bfloat16 through
float32, which rounds twice, so it is only ever handed values that are already representable.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Format:
    """One number format: binary (``p`` bits) or decimal (``p`` digits, fixed or significant)."""

    name: str
    kind: str  # "binary" | "decimal" (significant digits) | "fixed" (digits after the point)
    p: int
    emin: int = 0
    emax: int = 0

    # ------------------------------------------------------------------ properties
    @property
    def is_binary(self) -> bool:
        return self.kind == "binary"

    @property
    def u(self) -> float:
        """Unit roundoff: the largest relative error of one rounding to nearest."""
        if self.kind == "binary":
            return math.ldexp(1.0, -self.p)
        if self.kind == "decimal":
            return 0.5 * 10.0 ** (1 - self.p)
        return 0.5 * 10.0 ** (-self.p)  # fixed: absolute, for |values| <= 1

    @property
    def numpy_dtype(self) -> np.dtype | None:
        return _numpy_dtype(self.name)

    @property
    def max(self) -> float:
        if self.kind != "binary":
            return float("inf")
        return math.ldexp(1.0 - math.ldexp(1.0, -self.p), self.emax)

    @property
    def horizon(self) -> int:
        """First integer ``P`` with ``P + 1`` not representable: positions collide beyond it."""
        if self.kind == "binary":
            return 2**self.p
        return 10**self.p if self.kind == "decimal" else 10**15

    # ------------------------------------------------------------------ ulps
    def ulp(self, v: np.ndarray) -> np.ndarray:
        """Spacing of the format at the (float64) values ``v``; at 0 the smallest spacing."""
        v = np.asarray(v, dtype=np.float64)
        if self.kind == "binary" and self.emin - self.p > -1000:
            # from the float64 exponent bits: |v| in [2**E, 2**(E+1)) has spacing 2**(E-p+1)
            e = np.ascontiguousarray(v).view(np.int64) >> 52  # in place from here on
            e &= 0x7FF
            np.maximum(e, 1022 + self.emin, out=e)  # subnormals of the format: fixed spacing
            e -= self.p - 1
            e <<= 52
            return e.view(np.float64)
        a = np.abs(v)
        if self.kind == "binary":
            _, e = np.frexp(a)
            e = np.where(a == 0, self.emin, np.maximum(e, self.emin))
            return np.ldexp(1.0, e - self.p)
        if self.kind == "fixed":
            return np.full(a.shape, 10.0 ** (-self.p))
        with np.errstate(divide="ignore"):
            e10 = np.floor(np.log10(np.where(a > 0, a, 1e-300)))
        return np.power(10.0, e10 - self.p + 1)

    # ------------------------------------------------------------------ rounding
    def round(self, v: np.ndarray) -> np.ndarray:
        """Round float64 values to this format (ties to even); returned as float64.

        Exact (a correct rounding of the float64 input) for binary formats; decimal formats are
        rounded with ``numpy.round`` and only serve to emulate printing.
        """
        v = np.asarray(v, dtype=np.float64)
        if self.kind == "binary":
            if self.name == "float64":
                return v.copy()
            if self.name in ("float32", "float16"):  # hardware / numpy cast: one correct rounding
                return v.astype(_NUMPY[self.name]).astype(np.float64)
            _, e = np.frexp(v)
            q = np.maximum(e, self.emin) - self.p
            out = np.ldexp(np.rint(np.ldexp(v, -q)), q)
            big = np.abs(out) > self.max
            if big.any():
                out[big] = np.copysign(np.inf, v[big])
            return out
        if self.kind == "fixed":
            return np.round(v, self.p)
        a = np.where(v == 0, 1.0, np.abs(v))
        q = np.power(10.0, np.floor(np.log10(a)) - self.p + 1)
        return np.where(v == 0, 0.0, np.round(v / q) * q)

    def round_dyadic(self, man: int, exp: int) -> float:
        """Correctly round the exact number ``man * 2**exp`` to this binary format."""
        if self.kind != "binary":
            raise ValueError(f"round_dyadic needs a binary format, not {self.name}")
        if man == 0:
            return 0.0
        sign = -1.0 if man < 0 else 1.0
        m = -man if man < 0 else man
        q = max(m.bit_length() + exp, self.emin) - self.p  # exponent of the target ulp
        shift = q - exp
        if shift <= 0:
            r = m << (-shift)
        else:
            r = m >> shift
            rem = m - (r << shift)
            half = 1 << (shift - 1)
            if rem > half or (rem == half and r & 1):
                r += 1
        out = math.ldexp(float(r), q) if r.bit_length() <= 1000 else float("inf")
        if out > self.max:
            return sign * float("inf")
        return sign * out

    def to_numpy(self, v64: np.ndarray) -> np.ndarray:
        """Cast float64 values already representable in this binary format to its dtype."""
        dt = self.numpy_dtype
        if dt is None:
            return np.asarray(v64, dtype=np.float64)
        return np.asarray(v64, dtype=np.float64).astype(dt)

    def representable(self, v: np.ndarray) -> bool:
        """Whether every float64 value in ``v`` is exactly representable in this format."""
        v = np.asarray(v, dtype=np.float64)
        return bool(np.array_equal(self.round(v), v, equal_nan=True))


_NUMPY = {
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
}


def _numpy_dtype(name: str) -> np.dtype | None:
    """NumPy's dtype of a binary format; bfloat16's comes from ``ml_dtypes``, imported only
    here (loading it costs 0.6 s, which every command that never meets a bfloat16 array saved)."""
    if name == "bfloat16" and name not in _NUMPY:
        import ml_dtypes
        _NUMPY[name] = np.dtype(ml_dtypes.bfloat16)
    return _NUMPY.get(name)

FLOAT16 = Format("float16", "binary", 11, emin=-13, emax=16)
BFLOAT16 = Format("bfloat16", "binary", 8, emin=-125, emax=128)
FLOAT32 = Format("float32", "binary", 24, emin=-125, emax=128)
FLOAT64 = Format("float64", "binary", 53, emin=-1021, emax=1024)
BINARY = {f.name: f for f in (FLOAT16, BFLOAT16, FLOAT32, FLOAT64)}
ALIASES = {"half": "float16", "fp16": "float16", "f16": "float16", "bf16": "bfloat16",
           "single": "float32", "fp32": "float32", "f32": "float32", "double": "float64",
           "fp64": "float64", "f64": "float64"}


def get_format(name) -> Format:
    """A format from its name (``float32``, ``bf16``, ``decimal7``, ``fixed6``) or a dtype."""
    if isinstance(name, Format):
        return name
    if not isinstance(name, str):
        try:
            name = np.dtype(name).name
        except TypeError:
            raise ValueError(f"dtype must be one of {', '.join(BINARY)}, got {name!r}") from None
    key = ALIASES.get(name.lower(), name.lower())
    if key in BINARY:
        return BINARY[key]
    m = re.fullmatch(r"(decimal|fixed)(\d{1,2})", key)
    if m and 1 <= int(m.group(2)) <= 17:
        return Format(key, m.group(1), int(m.group(2)))
    raise ValueError(f"dtype must be one of {', '.join(BINARY)} (or decimalD / fixedK for "
                     f"text), got {name!r}")


def format_of_dtype(dt: np.dtype) -> Format | None:
    """The binary format of a NumPy dtype, or ``None`` if it is not a supported float type."""
    dt = np.dtype(dt)
    return BINARY.get(dt.name) if dt.name in BINARY else None


def narrowest_exact(v: np.ndarray, widest: Format, min_entries: int = 16) -> Format:
    """The narrowest binary format holding every value of ``v`` exactly (at most ``widest``).

    A table computed in float32 and stored as float64 (``.csv`` or an upcast) is analysed in
    float32 ulps.  Tiny tables (fewer than ``min_entries`` values) keep ``widest``: a handful of
    values such as 0 and 1 fit every format and say nothing about the pipeline.
    """
    if widest.kind != "binary" or np.size(v) < min_entries:
        return widest
    order = ("bfloat16", "float16", "float32", "float64")
    for name in order[: order.index(widest.name)]:
        if BINARY[name].representable(v):
            return BINARY[name]
    return widest
