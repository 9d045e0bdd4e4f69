"""Which variant a rotary artefact is named: the SIMPLEST of those that fit it.

A reading of an artefact (a 16-bit cache's angles are known to ~1e-3) allows several variants;
rounding must never be read as another variant.  The selection is one explicit step:

1. candidates: every variant the reading allows (:mod:`.ident`: bases, leading multipliers,
   scaling maps and their parameters; :mod:`.geometry`: the positions' offset; the pipelines a
   16-bit artefact may have been computed in; the attention factor's exact forms);
2. ranked by :func:`simplicity`, simplest first;
3. each checked against the artefact within the error model of its dtype and pipeline (on a
   sample of rows first, then every entry); the first that fits is the identification.

So a variant is named only when every simpler one leaves some entry outside the error model, and
a difference that the error model explains is never diagnosed.

The simplicity order (lexicographic; smaller is simpler):

1. the number of departures from the paper's RoPE: a base other than 10000 (or than the base
   the user names: then it counts twice), a base that is not
   a round number (more than 4 significant digits, or a fraction with a denominator past 16:
   counts twice, an unexplained number), a scaling map, a map parameter that is not a round
   number (twice), a position scale (a factor on the positions other than a linear map's), an
   offset of the positions, a partial rotary (pairs that do not rotate) or an exponent over
   another dimension than the rotated channels, an attention factor other than the map's own;
2. the scaling map's rank: none < linear < NTK-aware / dynamic < YaRN / Llama 3 < LongRoPE;
3. the offset: 0 < an integer < a half-integer < anything else; smaller first;
4. the base: 10000, then powers of ten, then fewer significant digits;
5. the map's parameters: fewer away from the method's usual values (YaRN's betas 32 / 1, Llama
   3's band factors 1 / 4) or lengths that are not powers of two, then fewer significant digits
   and smaller denominators; then the position scale likewise;
6. the pipeline: the narrower model first (float32 computed, 16-bit stored is what frameworks
   do); the pipelines are tried one after the other, a 16-bit pipeline only when nothing fits
   float32's model (its model explains almost any late entry of a cache);
7. the reading's residual (how well the frequencies match), as the last tie-break.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from peproof.rope import Rope

from ..common.numbers import _cost

MAP_RANK = {"default": 0, "linear": 1, "ntk": 2, "dynamic": 2, "keras_dynamic": 2, "yarn": 3,
            "llama3": 3,
            "longrope": 4}


@dataclass
class Variant:
    """One hypothesis for an artefact: a RoPE, the positions of its rows (``offset + k``, in the
    RoPE's positions after ``pos_scale``), the attention factor, the pipeline."""

    rope: Rope
    offset: Fraction = Fraction(0)
    pos_scale: Fraction = Fraction(1)
    attention: float = 1.0
    attention_form: str = "1"
    own_attention: bool = True
    pipe: object = None
    residual: float = 0.0
    notes: list = field(default_factory=list)
    #: the base the user names (``--base``), which the order measures from; None: the paper's
    ref_base: object = None
    #: the intervals the reading derived for parameters (name -> (lo, hi)), :mod:`.ident`
    intervals: dict = field(default_factory=dict)

    def describe(self) -> str:
        out = self.rope.describe()
        if self.pos_scale != 1:
            out += f" positions scaled by {self.pos_scale}"
        if self.offset != 0:
            out += f" positions from {_num_text(self.offset)}"
        return out


def _num_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def _ncost(x) -> tuple:
    try:
        return _cost(Fraction(x))
    except (TypeError, ValueError):
        return (2, 99, 1)


def _round(x) -> bool:
    """A number a configuration would hold: a decimal of at most 4 significant digits or a
    fraction with a denominator up to 16 (``10000``, ``2.5``, ``4/3``; not ``20454560/489``)."""
    c = _ncost(x)
    return (c[0] == 0 and c[1] <= 4) or (c[0] == 1 and Fraction(x).denominator <= 16)


def _params(r: Rope) -> list:
    return [val for _, val in sorted(r.scaling.params().items())
            if isinstance(val, int | float | Fraction) or hasattr(val, "is_Rational")]


#: the parameters each method's reference configurations leave at these values
DEFAULTS = {"yarn": {"beta_fast": 32, "beta_slow": 1, "truncate": True, "ramp": "index"},
            "llama3": {"low_freq_factor": 1, "high_freq_factor": 4}}
LENGTHS = ("original_max_position_embeddings", "max_position_embeddings")


def _unusual(r: Rope) -> int:
    """Parameters away from the method's usual values, and context lengths that are not
    powers of two (2048, 8192: what models are trained at)."""
    ps = r.scaling.params()
    n = sum(1 for k, v in DEFAULTS.get(r.scaling.kind, {}).items() if k in ps and ps[k] != v)
    for k in LENGTHS:
        v = ps.get(k)
        if v is not None and (Fraction(v).denominator != 1 or int(v) & (int(v) - 1)):
            n += 1
    return n


def departures(v: Variant) -> int:
    r = v.rope
    # a base the user names weighs more than the paper's
    ref, named = (10000, 1) if v.ref_base is None else (v.ref_base, 2)
    return sum((named * (r._base != ref), 2 * (not _round(r._base)),
                r.scaling.kind != "default",
                2 * any(not _round(p) for p in _params(r)), v.pos_scale != 1,
                v.offset != 0, r.rotated_pairs != r.pairs, r.exponent_dim != r.d,
                not v.own_attention))


def simplicity(v: Variant) -> tuple:
    """The sort key of the module docstring's order."""
    r = v.rope
    off = Fraction(v.offset)
    off_kind = 0 if off == 0 else 1 if off.denominator == 1 else 2 if off.denominator == 2 else 3
    ref = 10000 if v.ref_base is None else v.ref_base
    base_cost = (0,) if r._base == ref else (1,) + _ncost(r._base)
    params = (_unusual(r), tuple(sorted((_ncost(val) for val in _params(r)), reverse=True)))
    pipe_rank = -(getattr(v.pipe, "p", 0) or 0)
    return (departures(v), MAP_RANK.get(r.scaling.kind, 9), off_kind, abs(off), base_cost,
            params, _ncost(v.pos_scale), pipe_rank, v.residual)


def rank(variants: list) -> list:
    """The variants simplest first (:func:`simplicity`), duplicates removed."""
    out, seen = [], set()
    for v in sorted(variants, key=simplicity):
        key = (v.rope, v.offset, v.pos_scale, v.attention, getattr(v.pipe, "name", None))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def select(variants: list, screen, whole, most: int = 24):
    """``(winner, tally, tried)``: the simplest variant that fits; ``screen(v)`` a cheap test on
    a sample of rows (False rejects), ``whole(v)`` the comparison of every entry (a tally with
    ``.fits``).  ``tried`` counts the variants checked against every entry."""
    tried = 0
    for v in rank(variants)[:most]:
        if not screen(v):
            continue
        tried += 1
        t = whole(v)
        if t.fits:
            return v, t, tried
    return None, None, tried
