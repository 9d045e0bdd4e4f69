"""RoPE layouts: half-split (GPT-NeoX, transformers) and interleaved (GPT-J, Meta) are one
rotation with the channels permuted, for every even d.

Main statements
  ``rope.interleaved_layout_maps_are_inverse``, ``rope.half_layout_maps_are_inverse``
  (every even ``d = 2h``, z3 over the integers),
  ``rope.half_from_interleaved_is_encoding_reordering`` (the permutation is the encoding's
  interleaved -> [sin|cos] reordering, a proved bijection),
  ``rope.half_layout_is_permuted_interleaved_concrete_d`` (the rotations themselves commute with
  the permutation, whole vectors).

Implementation notes
  The channel maps are :func:`peproof.rope.channel_of` / :func:`peproof.rope.slot_of`, the very
  functions :func:`peproof.rope.rotate` places the pairs with; called on SymPy symbols they give
  the integer terms (``floor``, ``Mod``, ``Piecewise``) that z3 decides for every ``h`` (linear
  integer arithmetic with division by 2: complete).  With the maps inverse to each other, pair
  ``j`` of the half layout sits in the channels ``P(2j), P(2j+1)`` of the interleaved one, so
  ``rotate(P x, half) = P rotate(x, interleaved)`` for every even ``d``: each channel of either
  side is the same two-term expression of the same pair.

References
  transformers' ``rotate_half``, GPT-J's ``rotate_every_two``; seed 000 (the same numbers,
  permuted) and ``index.interleaved_to_split_is_bijection``.
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Statement, var
from peproof.families._common import pair_symbols
from peproof.families.index import SIGMA, z3_integer_proof
from peproof.families.index import h as IH
from peproof.families.index import j as IJ
from peproof.families.rope import HF, V_M, _head, _vars, _vec, m
from peproof.rope import channel_of, half_from_interleaved, rotate, slot_of
from peproof.seeds import APPENDIX, FOURIER, cite, src

h, V_H = var("h", "pos_integer")
x, V_X = var("x", "nonneg_integer")
jj, V_JJ = var("j", "nonneg_integer")
c, V_C = var("c", "nonneg_integer")  # 0 real part, 1 imaginary part
RANGE = (Le(x, 2 * h - 1), Le(jj, h - 1), Le(c, 1))


def _inverse(layout: str) -> Statement:
    ch = channel_of(jj, c, h, layout)
    pj, pc = slot_of(x, h, layout)
    back_j, back_c = slot_of(ch, h, layout)
    return Statement(
        (
            Eq(channel_of(pj, pc, h, layout), x),  # channel(slot(x)) = x
            Eq(back_j, jj),  # slot(channel(j, c)) = (j, c)
            Eq(back_c, c),
            Le(0, ch), Le(ch, 2 * h - 1),  # channel in range
            Le(pj, h - 1), Le(pc, 1),  # slot in range
        ),
        (V_H, V_X, V_JJ, V_C), hyps=RANGE,
    )


P_OF_X = half_from_interleaved(x, h)
REORDER = Statement(
    (
        Eq(P_OF_X, SIGMA.xreplace({IJ: x, IH: h})),
        Eq(half_from_interleaved(channel_of(jj, c, h, "interleaved"), h),
           channel_of(jj, c, h, "half")),
    ),
    (V_H, V_X, V_JJ, V_C), hyps=RANGE,
)


def _permuted_rows(ds=(2, 4, 6, 8)):
    """rotate(P x, half) = P rotate(x, interleaved), P from half_from_interleaved."""
    ws, wvars = pair_symbols(max(ds) // 2)
    xs = _vec("x", max(ds))
    rows = []
    for dd in ds:
        hh = dd // 2
        perm = [int(half_from_interleaved(q, hh)) for q in range(dd)]
        px = [sp.Integer(0)] * dd
        for q in range(dd):
            px[perm[q]] = xs[q]
        inter = rotate(xs[:dd], m, ws, "interleaved")
        half = rotate(px, m, ws, "half")
        rows += [Eq(half[perm[q]], inter[q]) for q in range(dd)]
    return Statement(tuple(rows), (V_M,) + wvars + _vars(xs))


LAYOUT_SRC = (
    HF,
    cite("arXiv:2104.09864", "section 3.4.2 (equation 34)",
         "the rotation acts on the pairs (x_1, x_2), (x_3, x_4), ... of consecutive channels"),
    src(FOURIER, "The Fourier Feature Mapping as a Subsampling of the Discrete Fourier Series",
        "which is the same set of numbers as the interleaved"),
)


def _inv_claim(layout: str, text: str) -> Claim:
    st = _inverse(layout)
    return Claim(
        f"rope.{layout}_layout_maps_are_inverse",
        f"{text}: channel(slot(x)) = x and slot(channel(j, c)) = (j, c), in range, for every "
        "even d = 2h",
        LAYOUT_SRC,
        st,
        "integer",
        falsifiers=(
            F.subs_rhs(st, {x: x + 1}, "off_by_one", "channel(slot(x)) = x + 1", index=0),
            Falsifier("range_too_small", st.with_concl(Le(channel_of(jj, c, h, layout),
                                                          2 * h - 2)),
                      "every channel below d - 1"),
        ),
        proof=z3_integer_proof,
    )


CLAIMS = [
    _inv_claim("interleaved", "RoPE interleaved layout (pair j on channels 2j, 2j+1)"),
    _inv_claim("half", "RoPE half layout (pair j on channels j, j + d/2)"),
    Claim(
        "rope.half_from_interleaved_is_encoding_reordering",
        "The channel permutation P from the interleaved to the half RoPE layout is the "
        "encoding's reordering sigma(x) = floor(x/2) + (x mod 2) h, and it carries pair j's "
        "channels (2j + c) to (j + c h), for every even d",
        LAYOUT_SRC + (src(APPENDIX, "3.2 The full d-dimensional map",
                          "With the right reordering of the (sin,cos)"),),
        REORDER,
        "integer",
        uses=("index.interleaved_to_split_is_bijection", "rope.interleaved_layout_maps_are_inverse",
              "rope.half_layout_maps_are_inverse"),
        falsifiers=(
            F.shift(REORDER, 1, index=0, name="sigma_off_by_one"),
            F.subs_rhs(REORDER, {h: h + 1}, "half_offset_h_plus_one", "j + c (h + 1) on the right",
                       index=1),
        ),
        proof=z3_integer_proof,
    ),
    Claim(
        "rope.half_layout_is_permuted_interleaved_concrete_d",
        "rotate(P x, half) = P rotate(x, interleaved) for whole vectors, d in {2, 4, 6, 8}: "
        "GPT-NeoX/transformers and GPT-J/Meta compute the same rotation on permuted channels",
        LAYOUT_SRC,
        _permuted_rows,
        "identity",
        uses=("rope.half_from_interleaved_is_encoding_reordering",
              "rope.rotate_half_form_is_half_layout", "rope.rotate_every_two_form_is_interleaved"),
        falsifiers=lambda st: (F.swap_sin_cos(_head(st, 8)), F.flip_sign(_head(st, 8))),
        note="With the frequencies as symbols w_j; the every-d content is the integer claim "
        "rope.half_from_interleaved_is_encoding_reordering (each channel of either side is the "
        "same two-term expression of the same pair).",
    ),
]
