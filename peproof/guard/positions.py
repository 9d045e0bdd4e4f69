"""Positions, exactly: ``start:stop[:step]`` as Python integers or exact fractions.

A range is never materialised to be counted (``0:10**12`` has ``10**12`` positions, known at
once), never passes through float64 (``9007199254740993`` stays odd), and is handed to a format
only when the format holds every value exactly:

* :meth:`Positions.float64` for computations in float64 (the oracle): refused unless every
  position is a float64 number;
* :func:`npy_array` for ``.npy`` files: ``int64`` for integers that fit, ``float64`` for
  fractions that are float64 numbers, refused otherwise (JSON and CSV hold any position);
* :func:`text` for text formats: the integer, an exact decimal, or ``p/q``.

Parts are exact numbers (:func:`exact_number`: ``-5``, ``10**21 + 2``, ``1e6``, ``0.25``,
``1/3``); an integer range is the common case and yields Python ``int``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import UsageError

#: largest integer below which every integer is a float64 number
F64_INT = 2**53
MAX_COUNT = 2**62  # positions in one range, at most (len() must hold the count)
MAX_BITS = 2**16  # a power larger than this many bits is a typo, not a position


def exact_number(text: str, flag: str) -> Fraction:
    """An exact number written as ``5``, ``-5``, ``1_000``, ``1e6``, ``0.25``, ``1/3``,
    ``10**21 + 2`` or ``10^6`` (``^`` is a power here): integers, decimals and the operators
    ``+ - * / **``, evaluated in exact rational arithmetic (never in float64)."""
    src = str(text).strip().replace("^", "**")
    try:
        tree = ast.parse(src, mode="eval")
        return _eval(tree.body, src)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError,
            RecursionError, MemoryError):
        raise UsageError(f"{flag}: {text!r} is not an exact number (write 5, -5, 10**6, 1e6, "
                         "0.25, 1/3 or 2**53 + 1)") from None


_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _eval(node, src: str) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        v = Fraction(ast.get_source_segment(src, node).replace("_", ""))
        if max(abs(v.numerator), v.denominator).bit_length() > MAX_BITS:
            raise ValueError("too large")
        return v
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand, src)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left, src), _eval(node.right, src))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exp = _eval(node.left, src), _eval(node.right, src)
        if exp.denominator != 1:
            raise ValueError("fractional power")
        size = max(abs(base.numerator), base.denominator).bit_length()
        if size * abs(exp) > MAX_BITS:
            raise ValueError("too large")
        return base ** int(exp)
    raise ValueError("not an exact number")


@dataclass(frozen=True)
class Positions:
    """The arithmetic progression ``start, start + step, ...`` below ``stop`` (above, for a
    negative step), held exactly."""

    start: Fraction
    stop: Fraction
    step: Fraction = Fraction(1)

    def __post_init__(self):
        if self.step == 0:
            raise UsageError("a positions step must not be 0")

    @property
    def integral(self) -> bool:
        return self.start.denominator == 1 and self.step.denominator == 1

    def __len__(self) -> int:
        span = (self.stop - self.start) / self.step
        if span <= 0:
            return 0
        return int(-(-span.numerator // span.denominator))  # ceil

    def value(self, k: int):
        v = self.start + k * self.step
        return int(v) if self.integral else v

    def __iter__(self):
        if self.integral:
            a, s = int(self.start), int(self.step)
            yield from range(a, a + len(self) * s, s)
            return
        for k in range(len(self)):
            yield self.start + k * self.step

    def __getitem__(self, k: int):
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(k)
        return self.value(k)

    @property
    def max_abs(self):
        n = len(self)
        return 0 if n == 0 else max(abs(self.value(0)), abs(self.value(n - 1)))

    def float64(self, flag: str = "--positions") -> np.ndarray:
        """The positions as float64, refused (one line) unless every one is a float64 number."""
        n = len(self)
        if self.integral and self.max_abs <= F64_INT:
            ks = np.arange(n, dtype=np.int64) * int(self.step)  # |k step| <= 2**54
            return (int(self.start) + ks).astype(np.float64)
        return _floats(self, n, f"{flag}: position {{}} is not a float64 number (float64 would "
                       "round it); positions here are computed in float64")

    def describe(self) -> str:
        n = len(self)
        if n == 0:
            return "no position"
        first, last = text(self.value(0)), text(self.value(n - 1))
        return f"{n} position{'s' * (n != 1)} from {first} to {last}"


def exact_float(v) -> float | None:
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if Fraction(f) == v else None


def parse(value: str, flag: str = "--positions") -> Positions:
    """``start:stop`` or ``start:stop:step`` (exact); one-line :class:`UsageError` otherwise."""
    parts = str(value).split(":")
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise UsageError(f"{flag} must look like 'start:stop' or 'start:stop:step' (e.g. 0:2048,"
                         f" -5:5, 0:10:0.5), got {value!r}")
    nums = [exact_number(p, flag) for p in parts]
    if len(nums) == 3 and nums[2] == 0:
        raise UsageError(f"{flag}: the step must not be 0, got {value!r}")
    pos = Positions(*nums)
    span = (pos.stop - pos.start) / pos.step
    if span > MAX_COUNT:  # len() could not even be taken
        bits = (span.numerator // span.denominator).bit_length()
        raise UsageError(f"{flag}: {str(value)[:60]!r} holds about 2**{bits - 1} positions; "
                         "a range may hold at most 2**62 (and far fewer fit in memory)")
    return pos


def text(v) -> str:
    """A position as exact text: ``12``, ``0.25`` (a terminating decimal) or ``1/3``."""
    if isinstance(v, int) or (isinstance(v, Fraction) and v.denominator == 1):
        return str(int(v))
    q = Fraction(v)
    den, twos, fives = q.denominator, 0, 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{q.numerator}/{q.denominator}"
    k = max(twos, fives)
    scaled = q * 10**k
    sign = "-" if scaled < 0 else ""
    digits = str(abs(int(scaled))).rjust(k + 1, "0")
    return f"{sign}{digits[:-k]}.{digits[-k:]}"


def json_values(values) -> list:
    """Positions for JSON: numbers when every one is an integer a float64 reader holds exactly
    (``|p| <= 2**53``, RFC 7493's rule), else every one as an exact string (:func:`text`)."""
    values = list(values)
    if all(isinstance(v, int) or Fraction(v).denominator == 1 for v in values) and all(
            abs(int(v)) <= F64_INT for v in values):
        return [int(v) for v in values]
    return [text(v) for v in values]


def npy_array(values, what: str = "positions.npy") -> np.ndarray:
    """Positions for a ``.npy`` file: int64 for integers, float64 for fractions that are float64
    numbers; refused (one line) when neither holds every value exactly."""
    values = list(values)
    if all(Fraction(v).denominator == 1 for v in values):
        big = next((v for v in values if not -(2**63) <= int(v) < 2**63), None)
        if big is None:
            return np.array([int(v) for v in values], dtype=np.int64)
        raise UsageError(f"{what}: position {text(big)} does not fit in int64; use --format "
                         "json or csv, which hold any position exactly")
    return _floats(values, len(values), f"{what}: position {{}} is not a float64 number; use "
                   "--format json or csv, which hold any position exactly")


def _floats(values, n: int, refusal: str) -> np.ndarray:
    """``values`` as float64, each exactly, or :class:`UsageError` ``refusal.format(value)``."""
    out = np.empty(n, dtype=np.float64)
    for k, v in enumerate(values):
        f = exact_float(v)
        if f is None:
            raise UsageError(refusal.format(text(v)))
        out[k] = f
    return out


def parse_count(text: str, name: str, low: int) -> int:
    """An integer written as ``62832``, ``1_000_000``, ``1e6``, ``10^6`` or ``10**6`` (and
    >= ``low``), read exactly (``1e23`` is ten to the 23, not the float64 nearest to it)."""
    try:
        value = exact_number(text, name)
    except UsageError:
        value = None
    if value is None or value.denominator != 1:
        raise UsageError(f"{name} must be an integer >= {low} (e.g. 62832, 1e6, 10^6), "
                         f"got {text!r}")
    if value < low:
        raise UsageError(f"{name} must be an integer >= {low}, got {int(value)}")
    if value >= 2**63:
        raise UsageError(f"{name} must be an integer below 2**63 (about 9.2e18), got "
                         f"{text.strip()[:40]!r}")
    return int(value)
