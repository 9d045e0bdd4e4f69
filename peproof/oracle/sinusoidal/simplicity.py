"""The simplicity order over the variant space: which of several variants that fit a table is named.

A table computed in a finite format fits, within the error model of that format, every variant
whose values differ from its own by less than the rounding: in float32 at ``d = 128`` the paper
family with base ``10**6`` and the h-1 family with base 805842 (``805842**(1/63) ~
(10**6)**(1/64)``) are one table up to a relative ``6e-7`` of the frequencies, which float32's error
model allows.  The data
cannot choose between them, so a rule must: the **simplest** variant that fits is named (the paper
family, a round base, no scaling, integer positions, no offset, the usual layout and row order).

:func:`cost` gives every variant a description length, the sum of the costs of its parameters:

========== =====================================================================================
family     paper 0; h-1 and nerf 1
base       0 for a base real code uses (a power of ten, 500000); 1 for another digit followed by
           zeros (600000), and 2 more for every further significant digit (11000: 3, 805842: 11);
           nerf 0 (no base)
frequency  a first frequency other than 1: 1 + its digits, full turns (x 2 pi) 1 more
scale      1: 0; a named form (``sqrt(d)``, ``1/sqrt(d)``, ...): 1; any other number 1 + its digits
offset     0: 0; any other: 1 + its digits (1/2: 1 + 1)
layout     interleaved and [sin|cos]: 0; [cos|sin]: 1
order      forward 0; symmetric and reversed: 2
========== =====================================================================================

and ties are broken by the order of the rows, then the base, the family, the scale, the offset and
the layout, each by its own cost, then by the name (deterministic).  The costs are additive on
purpose: h-1 with base 10000 (cost 1) is simpler than the paper family with base 12345 (cost 9),
the paper family with base ``10**6`` (0) simpler than h-1 with base 805842 (12).  A digit of the
base weighs twice a family: in bfloat16, whose error model lets a frequency be 12% off, h-1 with
base 10000 at ``d = 128`` also fits the paper family with base 11000 (cost 3), and h-1 with base
500000 the paper family with base 600000 (a tie at 1, which the base breaks): the base code
writes is the round one.

A *digit* is a significant decimal digit of an integer without its trailing zeros; a fraction
``p/q`` costs the digits of both.  Nothing here looks at a table:
:mod:`peproof.oracle.sinusoidal.choice` decides which variants fit, this module only orders them.
"""

from __future__ import annotations

from fractions import Fraction

from .variant import SCALE_FORMS, Variant

FAMILY = {"paper": 0, "h-1": 1, "nerf": 1}
LAYOUT = {"interleaved": 0, "sin_cos": 0, "cos_sin": 1}
ORDER = {"forward": 0, "symmetric": 2, "reversed": 2}


def _sig(k: int) -> int:
    """Significant digits of a positive integer, trailing zeros left out (10000: 1, 805842: 6)."""
    return len(str(abs(k)).rstrip("0") or "0")


KNOWN_BASES = frozenset([500000])  # besides the powers of ten (Llama 3's rope_theta)


def base_cost(b) -> int:
    """0 for a power of ten (10 and up) or a base of :data:`KNOWN_BASES`, else
    ``1 + 2 (digits - 1)`` (600000: 1, 11000: 3, 805842: 11); a fraction ``1 + 2`` its cost."""
    f = Fraction(b)
    if f.denominator == 1 and (f.numerator in KNOWN_BASES or (
            f.numerator >= 10 and str(f.numerator).rstrip("0") == "1")):
        return 0
    return 1 + 2 * number_cost(f)


def number_cost(x) -> int:
    """How round a number is: 0 for a digit followed by zeros (1, 2, 10000, 500000), one more for
    every further significant digit; a fraction ``p/q`` costs the digits of both, less one
    (1/2: 1, 3/2: 1, 1/48: 2, 8082/7: 4)."""
    try:
        f = Fraction(x)
    except (TypeError, ValueError):
        return 20
    if f.denominator == 1:
        return _sig(f.numerator) - 1
    return _sig(f.numerator) + _sig(f.denominator) - 1


def scale_cost(scale) -> int:
    s = str(scale)
    if s == "1":
        return 0
    if s in SCALE_FORMS:
        return 1
    try:
        return 1 + number_cost(Fraction(s))
    except (ValueError, ZeroDivisionError):
        return 10


def parts(v: Variant) -> dict[str, int]:
    """The cost of each parameter of ``v`` (see the module's table)."""
    fam = FAMILY[v.family]
    base = 0 if v.family == "nerf" else base_cost(v.base)
    freq = 0 if (v.max_freq == 1 and not v.turns) else (
        (1 + number_cost(v.max_freq) if v.max_freq != 1 else 0) + (1 if v.turns else 0))
    off = 0 if v.offset == 0 else 1 + number_cost(abs(Fraction(v.offset)))
    return {"order": ORDER[v.order], "family": fam, "base": base, "frequency": freq,
            "scale": scale_cost(v.scale), "offset": off, "layout": LAYOUT[v.layout]}


def cost(v: Variant, d: int | None = None) -> tuple:
    """The sort key of the simplicity order: the total cost, then the tie-breaks (row order,
    base, family, scale, offset, layout, frequency), then the name."""
    p = parts(v)
    return (sum(p.values()), p["order"], p["base"], p["family"], p["scale"], p["offset"],
            p["layout"], p["frequency"], v.name(d))


def simplest(variants, d: int | None = None) -> Variant:
    """The simplest of ``variants`` (non-empty)."""
    return min(variants, key=lambda v: cost(v, d))
