"""Precision horizons of the formats: where a position pipeline stops telling neighbours apart.

Main statements
  ``precision.position_horizon_float16``, ``precision.position_horizon_bfloat16``,
  ``precision.position_horizon_float32``: with a ``p``-bit significand (implicit bit included:
  11, 8, 24) the positions ``0 .. 2**p`` round to distinct values and ``2**p``, ``2**p + 1``
  round to the same one (2048, 256 and 16,777,216).  For a variant whose fastest angle scales
  the positions (``max_freq = s``: the angle of pair 0 is ``s * pos``), the same statement for
  ``s * pos``: the first ``P`` with ``RN(s P) = RN(s (P + 1))``, found by search and decided.

Implementation notes
  ``RN_p(x)`` (:class:`peproof.rounding.RoundBinary`) is round to nearest, ties to even, with a ``p``-bit
  significand and no exponent limits (none of these positions is near an overflow or a
  subnormal).  It evaluates exactly on rationals (integer arithmetic on the significand:
  :func:`round_exact`), so a closed ``RN`` term is a number; its ``peproof_definition`` states the
  same rounding with ``floor``, ``log`` and ``Mod`` for the engines that read definitions.  The
  universal part (every ``n <= P - 1``) is decided by :func:`peproof.rounding.exhaustive`: every ``n`` of the
  range, in exact integer arithmetic (NumPy ``int64``, every intermediate checked to fit).

References
  IEEE 754-2019 (binary16, binary32; round to nearest, ties to even); bfloat16 (8-bit
  significand); seed 000, "Every position has a unique representation, over practical lengths".
"""

from __future__ import annotations

import sympy as sp

from peproof import scope
from peproof.claims import Claim, Eq, Falsifier, Le, Ne, Statement
from peproof.formats import BINARY
from peproof.rounding import SEARCH_LIMIT, V_N, RoundBinary, exhaustive, first_collision, n
from peproof.seeds import FOURIER, src

#: what the formats' documentation says: the first position whose successor rounds onto it
STATED = {"float16": 2048, "bfloat16": 256, "float32": 2**24}
UNIQUE = "Every position has a unique representation, over practical lengths"


# ------------------------------------------------------------------ the variant's scale
def position_scale() -> tuple[sp.Rational | None, str]:
    """``(s, '')``: the factor the fastest angle puts on the positions in the law in force
    (pair 0's ``max_freq``; 1 for the paper and for RoPE, whose ``theta_0 = 1``), or ``(None,
    why)`` when it is no rational number the claims can state."""
    v = scope.current()
    if not isinstance(v, scope.Sinusoidal):
        return sp.Integer(1), ""
    e = v.enc
    if e.turns:
        return None, ("its frequencies are in turns (2 pi max_freq pos): an irrational factor, "
                      "rounded by the pipeline before it meets the positions")
    return sp.Rational(e._max_freq), ""


# ------------------------------------------------------------------ the claims
def _rn(x, p: int, evaluate: bool = True) -> sp.Expr:
    return RoundBinary(x, sp.Integer(p), evaluate=evaluate)


def _claim(fmt: str) -> Claim:
    p = BINARY[fmt].p
    s, _why = position_scale()
    s = sp.Integer(1) if s is None else s  # not applicable then: build() says why
    top = STATED[fmt] if s == 1 else first_collision(s, p)
    what = "positions" if s == 1 else f"the scaled positions {s} pos (pair 0's angle)"
    cid = f"precision.position_horizon_{fmt}"
    srcs = (src(FOURIER, UNIQUE, UNIQUE),)
    if top is None:
        st = Statement(Ne(_rn(s * n, p), _rn(s * n + s, p)), (V_N,),
                       hyps=(Le(n, SEARCH_LIMIT - 1),))
        c = Claim(cid, f"{fmt} ({p}-bit significand): {what} 0 .. {SEARCH_LIMIT} round to "
                  "distinct values (no collision below the search limit)", srcs, st, "integer",
                  proof=exhaustive)
        c.numbers = {"P": None, "p": p, "s": str(s)}
        return c
    st = Statement((Ne(_rn(s * n, p), _rn(s * n + s, p)),
                    Eq(_rn(s * top, p, False), _rn(s * (top + 1), p, False))), (V_N,),
                   hyps=(Le(n, top - 1),))
    lead = (f"{fmt} ({p}-bit significand): positions 0 .. {top:,} round to distinct values and "
            f"{top:,}, {top + 1:,} round to the same one" if s == 1 else
            f"{fmt} ({p}-bit significand): {what} stay apart for pos = 0 .. {top:,}; "
            f"pos = {top:,} and {top + 1:,} round to the same value")
    c = Claim(
        cid, lead, srcs, st, "integer", proof=exhaustive,
        falsifiers=(
            Falsifier("one_more", Statement(Ne(_rn(s * top, p), _rn(s * (top + 1), p))),
                      f"{top:,} and {top + 1:,} still apart"),
            Falsifier("one_earlier", Statement(Eq(_rn(s * (top - 1), p), _rn(s * top, p))),
                      f"{top - 1:,} and {top:,} already together"),
        ),
        note=("Exact: every n of the range checked in integer arithmetic on the significand "
              "(peproof/families/precision.py); the pipelines of peproof.numeric.horizon measure "
              "the same first collision (position " + f"{top + 1:,} onto {top:,})." if s == 1 else
              f"The variant's pair 0 turns at {s} rad per position; its angle, rounded once in "
              f"{fmt}, tells neighbours apart up to {top:,} (the first collision, found by an "
              "exact search and decided here)."),
    )
    c.numbers = {"P": top, "p": p, "s": str(s)}
    return c


CLAIMS = [_claim(f) for f in ("float16", "bfloat16", "float32")]
#: why the claims have no meaning for the law in force at import ('' when they have)
_WHY = position_scale()[1]


def build(variant=None) -> list[Claim]:
    """The claims for ``variant``; not applicable (saying why) where the scale of its positions
    is no rational number."""
    if not _WHY:
        return CLAIMS
    from peproof.variant_claims import not_applicable

    return [not_applicable(c, _WHY) for c in CLAIMS]
