"""Numbers and data as LaTeX (every value in the document passes through here or :mod:`.latex`).

Intervals are printed outward: the lower end rounded down, the upper end rounded up, so the
printed interval always contains the certified one.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

from markupsafe import Markup

from .latex import tex, tex_breakable


def _sci(d: Decimal, digits: int) -> str:
    if d == 0:
        return "0"
    exp = d.adjusted()
    if -3 <= exp < 6:
        s = format(d, "f")
        if "." in s:
            s = s.rstrip("0").rstrip(".")
        return s
    mant = d.scaleb(-exp)
    m = format(mant, "f")
    if "." in m:
        m = m.rstrip("0").rstrip(".")
    return rf"{m}\times 10^{{{exp}}}"


def num(x, digits: int = 4) -> Markup:
    """A float with ``digits`` significant digits, in math mode."""
    if x is None:
        return Markup(r"\textemdash{}")
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return integer(int(x))
    if isinstance(x, float) and not math.isfinite(x):
        return Markup(r"$\infty$" if x > 0 else r"$-\infty$")
    d = Context(prec=digits).create_decimal(repr(float(x)))
    return Markup(f"${_sci(d, digits)}$")


def integer(n) -> Markup:
    if n is None:
        return Markup(r"\textemdash{}")
    n = int(n)
    digits = f"{abs(n):,}".replace(",", r"\,")
    return Markup(("$-$" if n < 0 else "") + digits)


def big(n: int, digits: int = 3) -> Markup:
    """A (possibly huge) integer in scientific notation, rounded up."""
    d = Context(prec=digits, rounding=ROUND_CEILING).create_decimal(int(n))
    return Markup(f"${_sci(d, digits)}$")


def interval(lo: float, hi: float, digits: int = 10) -> Markup:
    """``[lo, hi]`` rounded outward to ``digits`` significant digits."""
    dlo = Context(prec=digits, rounding=ROUND_FLOOR).create_decimal(repr(float(lo)))
    dhi = Context(prec=digits, rounding=ROUND_CEILING).create_decimal(repr(float(hi)))
    return Markup(f"$[{_sci(dlo, digits)},\\ {_sci(dhi, digits)}]$")


def lower(lo: float, digits: int = 8) -> Markup:
    d = Context(prec=digits, rounding=ROUND_FLOOR).create_decimal(repr(float(lo)))
    return Markup(f"${_sci(d, digits)}$")


def seconds(s) -> Markup:
    if s is None:
        return Markup(r"\textemdash{}")
    if s < 0.001:
        return Markup(r"$<1$\,ms")
    if s < 1:
        return Markup(rf"{s * 1000:.0f}\,ms")
    return Markup(rf"{s:.2f}\,s")


def text(s) -> Markup:
    return Markup(tex(s))


def breakable(s) -> Markup:
    return Markup(tex_breakable(s))


def clip(s: str, n: int) -> tuple[str, bool]:
    """``s`` cut to ``n`` characters (and whether it was cut)."""
    s = str(s)
    return (s, False) if len(s) <= n else (s[: n - 1].rstrip() + "\u2026", True)
