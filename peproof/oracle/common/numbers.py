"""The simplest number in an interval: how identification turns a certified interval into an
exact parameter (a base, a factor, a context length) without a fixed list of candidates.

"Simplest" is, in order: a power of two when ``pow2`` is asked for (context lengths), then the
number with the fewest significant decimal digits (``10000``, ``500000``, ``2.5``), then the
rational with the smallest denominator (continued fractions: ``4/3``).  Every candidate returned
lies in the closed interval ``[lo, hi]`` by exact rational comparison.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _frac(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


def simplest_decimal(lo, hi, max_digits: int = 6) -> Fraction | None:
    """The number ``m 10**e`` in ``[lo, hi]`` (``lo > 0``) with the fewest digits in ``m``."""
    lo, hi = _frac(lo), _frac(hi)
    if lo <= 0 or hi < lo:
        return None
    top = math.floor(math.log10(float(hi))) if hi > 0 else 0
    for k in range(1, max_digits + 1):
        best = None
        for e in range(top - k + 1, top - k - 1, -1):  # m has k digits: 10**(k-1) <= m < 10**k
            q = Fraction(10) ** e
            m = math.ceil(lo / q)
            if m * q <= hi and 10 ** (k - 1) <= m < 10**k:
                best = m * q if best is None else min(best, m * q)
        if best is not None:
            return best
    return None


def simplest_pow2(lo, hi) -> Fraction | None:
    lo, hi = _frac(lo), _frac(hi)
    if lo <= 0 or hi < lo:
        return None
    e = math.ceil(math.log2(float(lo)))
    for k in (e - 1, e, e + 1):
        v = Fraction(2) ** k
        if lo <= v <= hi:
            return v
    return None


def simplest_rational(lo, hi) -> Fraction:
    """The rational with the smallest denominator in ``[lo, hi]`` (Stern-Brocot descent)."""
    lo, hi = _frac(lo), _frac(hi)
    if hi < lo:
        raise ValueError("empty interval")
    fl = math.floor(lo)
    if fl == lo:
        return Fraction(fl)
    if fl + 1 <= hi:
        return Fraction(fl + 1)
    # lo and hi share the integer part: recurse on the reciprocals of the fractional parts
    inner = simplest_rational(1 / (hi - fl), 1 / (lo - fl))
    return fl + 1 / inner


def simplest(lo, hi, pow2: bool = False, max_digits: int = 4,
             max_den: int = 64) -> Fraction | None:
    """The simplest number in ``[lo, hi]`` in the order of the module docstring; ``None`` when
    nothing with at most ``max_digits`` digits or a denominator up to ``max_den`` lies there."""
    if not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        return None
    lo, hi = _frac(lo), _frac(hi)
    if pow2:
        v = simplest_pow2(lo, hi)
        if v is not None:
            return v
    v = simplest_decimal(lo, hi, max_digits)
    if v is not None:
        return v
    if hi - lo > 0:
        r = simplest_rational(lo, hi)
        if r.denominator <= max_den:
            return r
    return None


def interval(x: float, rel: float) -> tuple[Fraction, Fraction]:
    """``[x (1 - rel), x (1 + rel)]`` as exact rationals (``x > 0``)."""
    fx, fr = Fraction(x), Fraction(rel)
    return fx * (1 - fr), fx * (1 + fr)


def _cost(x: Fraction) -> tuple:
    """How simple a number is: powers of ten first, then fewer significant digits, then a
    smaller denominator (a non-decimal rational is past every decimal)."""
    q = x.denominator
    q2 = q
    for p in (2, 5):
        while q2 % p == 0:
            q2 //= p
    if q2 != 1:  # not a terminating decimal
        return (1, 99, q)
    m = x
    while m.denominator != 1:
        m *= 10
    m = abs(m.numerator)
    while m and m % 10 == 0:
        m //= 10
    return (0, len(str(m)), int(m != 1))


def choices(lo, hi, prefer=(), most: int = 4, pow2: bool = False, max_digits: int = 4,
            max_den: int = 16) -> list:
    """Up to ``most`` simple numbers in ``[lo, hi]``, simplest first: the ``prefer`` values
    inside, the power of two (``pow2``), then every number with the fewest significant digits
    (powers of ten first, then nearest the interval's geometric centre), then the rational with
    the smallest denominator (up to ``max_den``).  Each lies in the closed interval (exact)."""
    if not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
        return []
    lo, hi = _frac(lo), _frac(hi)
    if lo <= 0 or hi < lo:
        return []
    out = [Fraction(p) for p in prefer if lo <= Fraction(p) <= hi]
    if pow2:
        v = simplest_pow2(lo, hi)
        if v is not None:
            out.append(v)
    centre = math.sqrt(float(lo) * float(hi))
    top = math.floor(math.log10(float(hi)))
    for k in range(1, max_digits + 1):
        found = []
        for e in range(top - k + 1, top - k - 2, -1):
            q = Fraction(10) ** e
            m = max(math.ceil(lo / q), 10 ** (k - 1))
            while m * q <= hi and m < 10**k and len(found) < 64:
                found.append(m * q)
                m += 1
        found = sorted(set(found), key=lambda x: (_cost(x), abs(math.log(float(x) / centre))))
        out += found
        if found:
            break
    if max_den and hi > lo:
        r = simplest_rational(lo, hi)
        if r.denominator <= max_den:
            out.append(r)
    seen: list = []
    for x in out:
        if x not in seen:
            seen.append(x)
    return seen[:most]
