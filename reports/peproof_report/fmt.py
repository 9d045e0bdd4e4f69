"""Numbers and data as LaTeX (every value in the document passes through here or :mod:`.latex`).

Certified values come as arb balls in text form (``[628.318530717958647 +/- 2.53e-18]``, or an
exact decimal).  They are printed from that text, never from a float: :func:`ball` as an interval
rounded outward (the lower end down, the upper end up, so the printed interval contains the
ball and hence the exact value), :func:`digits` as the leading digits every point of the ball
shares, followed by an ellipsis.  :func:`rational` prints an exact fraction the same two ways.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

from markupsafe import Markup

from .latex import tex, tex_breakable

_NUM = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def parse_ball(text: str) -> tuple[Decimal, Decimal]:
    """``(lo, hi)`` exactly, from arb's text ``[mid +/- rad]`` (``[+/- rad]`` for a ball
    around 0) or an exact decimal."""
    s = str(text).strip()
    body = s[1:-1] if s.startswith("[") and s.endswith("]") else s
    mid, _, rad = body.partition("+/-")
    mid, rad = mid.strip() or "0", rad.strip() or "0"
    if not (_NUM.match(mid) and _NUM.match(rad)) or ("+/-" in body) != s.startswith("["):
        raise ValueError(f"not an arb ball: {text!r}")
    return Decimal(mid) - Decimal(rad), Decimal(mid) + Decimal(rad)


def read_back(markup: str) -> tuple[Decimal, Decimal]:
    """``(lo, hi)`` of a number as printed here (``$[lo,\\ hi]$``, ``$x$``, ``$x\\ldots$`` read as
    its truncation, thin spaces and ``\\times 10^{e}`` understood); for tests that check what a
    reader sees against values computed elsewhere."""
    def num(s: str) -> Decimal:
        s = s.replace(r"\,", "").replace(r"\ldots", "").strip()
        m = re.match(r"^(-?[\d.]+)(?:\\times 10\^\{(-?\d+)\})?$", s)
        if not m:
            raise ValueError(f"not a printed number: {s!r}")
        return Decimal(m.group(1)).scaleb(int(m.group(2) or 0))

    body = str(markup).strip().strip("$").strip()
    if body.startswith("["):
        lo, hi = body[1:-1].split(r",\ ")
        return num(lo), num(hi)
    return num(body), num(body)


def _round(x: Decimal, digits: int, rounding) -> Decimal:
    if x == 0:
        return x
    return Context(prec=digits, rounding=rounding).plus(x)


def ball(text: str, digits: int = 10) -> Markup:
    """A certified value as ``[lo, hi]`` rounded outward to ``digits`` significant digits (a
    single number when the ball is exact and fits)."""
    lo, hi = parse_ball(text)
    a, b = _round(lo, digits, ROUND_FLOOR), _round(hi, digits, ROUND_CEILING)
    if a == b:
        return Markup(f"${_sci(a, digits)}$")
    return Markup(f"$[{_sci(a, digits)},\\ {_sci(b, digits)}]$")


def _truncated(x: Decimal, q: Decimal) -> str:
    """``|x|`` truncated to a multiple of ``q``, as a decimal string."""
    return format(abs(x).quantize(q, rounding=ROUND_FLOOR), "f")


def _shared_digits(lo: Decimal, hi: Decimal, n: int) -> tuple[str, bool]:
    """The leading digits (at most ``n`` significant) that every number of ``[lo, hi]`` shares,
    and whether they are the whole value (an exact decimal).  ``("", False)`` if none."""
    if lo == hi:
        s = format(lo.normalize(), "f")
        if len(s.replace("-", "").replace(".", "").lstrip("0")) <= n:
            return s, True
    if lo < 0 < hi or (lo == 0) != (hi == 0):
        return "", False
    top = max(abs(lo), abs(hi))
    for k in range(n, 0, -1):
        q = Decimal(1).scaleb(top.adjusted() - k + 1)
        a, b = _truncated(lo, q), _truncated(hi, q)
        if a == b:
            return ("-" if hi < 0 else "") + a, False
    return "", False


def digits(text: str, n: int = 6) -> Markup:
    """A certified value as the leading digits all of its ball shares and an ellipsis
    (``628.3185\\ldots``: every number in the ball starts so), exactly when the ball is a short
    exact decimal, and as an outward interval when too few digits are shared."""
    lo, hi = parse_ball(text)
    top = max(abs(lo), abs(hi))
    e = top.adjusted() if top else 0
    scale = "" if -3 <= e < 7 else rf"\times 10^{{{e}}}"
    if scale:
        lo, hi = lo.scaleb(-e), hi.scaleb(-e)
    s, exact = _shared_digits(lo, hi, n)
    if not s or (not exact and "." not in s and len(s.lstrip("-")) < n):
        return ball(text, n)
    dots = "" if exact else r"\ldots"
    return Markup(f"${_group(s)}{dots}{scale}$")


def _group(s: str) -> str:
    """Thousands separated by thin spaces in the integer part."""
    neg = s.startswith("-")
    ip, _, fp = s.lstrip("-").partition(".")
    ip = f"{int(ip or 0):,}".replace(",", r"\,")
    return ("-" if neg else "") + ip + ("." + fp if fp else "")


def rational(p: int, q: int, n: int = 6) -> Markup:
    """The exact fraction ``p/q``: exactly when it is a decimal of at most ``n`` significant
    digits, else its leading digits and an ellipsis (truncated, never rounded)."""
    from fractions import Fraction

    f = Fraction(p, q)
    scale = 10 ** (n + 2)
    lo = Decimal(math.floor(f * scale)) / scale
    hi = Decimal(math.ceil(f * scale)) / scale
    return digits(f"[{(lo + hi) / 2} +/- {(hi - lo) / 2}]", n)


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


def lower(text: str, digits: int = 8) -> Markup:
    """The lower end of a certified ball, rounded down."""
    lo, _ = parse_ball(text)
    return Markup(f"${_sci(_round(lo, digits, ROUND_FLOOR), digits)}$")


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
