"""RoPE, the rotary embedding: relative scores, kept norms, the complex view, real formulas.

Main statements
  ``rope.score_block_depends_only_on_offset`` (every even d, every pair),
  ``rope.score_depends_only_on_offset_concrete_d`` (both layouts, whole vectors),
  ``rope.norm_block_preserved``, ``rope.norm_preserved_concrete_d``,
  ``rope.complex_view_is_rotation`` (Meta's ``x_a + i x_b`` times ``exp(i m theta)``),
  ``rope.rotate_half_form_is_half_layout`` (transformers / GPT-NeoX),
  ``rope.rotate_every_two_form_is_interleaved`` (GPT-J).

Implementation notes
  Every statement is built from :mod:`peproof.rope`.  "Every even d" statements follow
  ``rotation.shift_is_linear``: the pair index ``i`` and ``d`` are symbols, ``theta_i =
  10000**(-2i/d)`` (the block of pair ``i`` in any even ``d``), contents ``u, v`` symbolic reals.
  The score and the norm are sums over the pairs, so the block statements cover every even ``d``
  (the d = 4 and d = 8 attention claims are instances).  Concrete ``d`` rotate whole vectors
  with the frequencies left as symbols ``w_j`` (true for every choice of frequencies, the scaled
  ones included) through the layout's channel maps.

References
  Seed 002, sections 3.3, 5 and 6; seed 000 (the frequency table); Su et al. 2021 (RoFormer,
  sections 3.2 and 3.4.2); transformers' ``rotate_half``; GPT-J's ``rotate_every_two``.
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Statement, Var, var
from peproof.families._common import I_IN_RANGE, OMEGA_I, V_D, V_I, pair_symbols
from peproof.rope import (
    complex_form,
    rotate,
    rotate_every_two_form,
    rotate_half_form,
)
from peproof.seeds import APPENDIX, FOURIER, cite, src

m, V_M = var("m", "real")
n, V_N = var("n", "real")
t, V_T = var("t", "real")
CONCRETE_D = (2, 4, 6)
LAYOUTS = ("interleaved", "half")


def _vec(name: str, size: int) -> list[sp.Symbol]:
    return [sp.Symbol(f"{name}_{r}", real=True) for r in range(size)]


def _vars(*vecs) -> tuple[Var, ...]:
    return tuple(Var(s, "real") for v in vecs for s in v)


def dot(a, b) -> sp.Expr:
    return sp.Add(*[x * y for x, y in zip(a, b, strict=True)])


U2, V2 = _vec("u", 2), _vec("v", 2)
# contents first: the witness grid varies the last variables fastest, and d, i must vary
BLOCK_VARS = _vars(U2, V2) + (V_M, V_N, V_D, V_I)


# ------------------------------------------------------------------ the score, every even d
def _block_score(p, q, w=OMEGA_I, layout="interleaved"):
    return dot(rotate(U2, p, [w], layout), rotate(V2, q, [w], layout))


SCORE_BLOCK = Statement(
    Eq(_block_score(m, n), dot(U2, rotate(V2, n - m, [OMEGA_I]))),
    BLOCK_VARS, hyps=(I_IN_RANGE,),
)


def _score_concrete(ds=CONCRETE_D):
    """For each d and layout: <R_m x, R_n y> = <x, R_(n-m) y> on whole vectors."""
    ws, wvars = pair_symbols(max(ds) // 2)
    x, y = _vec("x", max(ds)), _vec("y", max(ds))
    rows = []
    for dd in ds:
        for lay in LAYOUTS:
            xs, ys = x[:dd], y[:dd]
            rows.append(Eq(dot(rotate(xs, m, ws, lay), rotate(ys, n, ws, lay)),
                           dot(xs, rotate(ys, n - m, ws, lay))))
    return Statement(tuple(rows), (V_M, V_N) + wvars + _vars(x, y))


# ------------------------------------------------------------------ norms
NORM_BLOCK = Statement(
    Eq(dot(rotate(U2, m, [OMEGA_I]), rotate(U2, m, [OMEGA_I])), dot(U2, U2)),
    _vars(U2) + (V_M, V_D, V_I), hyps=(I_IN_RANGE,),
)


def _norm_concrete(ds=CONCRETE_D):
    ws, wvars = pair_symbols(max(ds) // 2)
    x = _vec("x", max(ds))
    rows = []
    for dd in ds:
        for lay in LAYOUTS:
            r = rotate(x[:dd], m, ws, lay)
            rows.append(Eq(dot(r, r), dot(x[:dd], x[:dd])))
    return Statement(tuple(rows), (V_M,) + wvars + _vars(x))


# ------------------------------------------------------------------ the complex view
def _complex_rows(ds=(2, 4, 8)):
    """Real and imaginary parts of Meta's complex product are the rotated pair, every pair."""
    ws, wvars = pair_symbols(max(ds) // 2)
    x = _vec("x", max(ds))
    rows = []
    for dd in ds:
        rot = rotate(x[:dd], m, ws, "interleaved")
        for j, z in enumerate(complex_form(x[:dd], m, ws)):
            z = z.rewrite(sp.cos)
            rows += [Eq(rot[2 * j], sp.re(z)), Eq(rot[2 * j + 1], sp.im(z))]
    return Statement(tuple(rows), (V_M,) + wvars + _vars(x))


COMPLEX_BLOCK = Statement(
    (Eq(rotate(U2, m, [OMEGA_I])[0], sp.re(complex_form(U2, m, [OMEGA_I])[0].rewrite(sp.cos))),
     Eq(rotate(U2, m, [OMEGA_I])[1], sp.im(complex_form(U2, m, [OMEGA_I])[0].rewrite(sp.cos)))),
    _vars(U2) + (V_M, V_D, V_I), hyps=(I_IN_RANGE,),
)


# ------------------------------------------------------------------ implementations' formulas
def _form_rows(form, layout: str, ds=CONCRETE_D):
    ws, wvars = pair_symbols(max(ds) // 2)
    x = _vec("x", max(ds))
    rows = []
    for dd in ds:
        rows += [Eq(a, b) for a, b in zip(form(x[:dd], m, ws), rotate(x[:dd], m, ws, layout),
                                          strict=True)]
    return Statement(tuple(rows), (V_M,) + wvars + _vars(x))


def _head(st, k=12):
    return st.with_concl(st.concl[:k])


SCORE_SRC = (
    src(APPENDIX, "3.3 What this is good for", "by position-dependent rotations after the"),
    src(APPENDIX, "3.3 What this is good for", "ensuring qm⊤knq_m^\\top k_n depends only"),
    src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
        "Inside attention, on QQ and KK after projection"),
    cite("arXiv:2104.09864", "section 3.4.2 (general form)",
         "the rotary inner product <R_m q, R_n k> equals q^T R_(n-m) k for every even d"),
)
ROT_SRC = src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
              "Rotation (orthogonal matrix multiplication)")
HF = cite("github:huggingface/transformers", "modeling_llama.apply_rotary_pos_emb, rotate_half",
          "q_embed = q * cos + rotate_half(q) * sin with cos, sin of shape [d/2 angles | same]")


def _sum_positions(st, index=None):
    return F.subs_rhs(st, {m: -m}, "sum_of_positions", "R((n + m) theta) on the right", index)


CLAIMS = [
    Claim(
        "rope.score_block_depends_only_on_offset",
        "RoPE, every even d and every pair i: (R(m theta_i) u)^T (R(n theta_i) v) = "
        "u^T R((n - m) theta_i) v, so the score sum_i depends only on n - m",
        SCORE_SRC,
        SCORE_BLOCK,
        "identity",
        uses=("attention.rope_rotation_transpose_product",
              "attention.rope_score_depends_only_on_offset"),
        falsifiers=(_sum_positions(SCORE_BLOCK), F.swap_sin_cos(SCORE_BLOCK)),
        note="theta_i = 10000^(-2i/d) with i and d symbols: the pair-i term of the score for any "
        "even d; the score is the sum of these terms over i < d/2.  Generalises "
        "attention.rope_score_depends_only_on_offset (one block and d = 4).",
    ),
    Claim(
        "rope.score_depends_only_on_offset_concrete_d",
        "<R_m x, R_n y> = <x, R_(n-m) y> for whole vectors, d in {2, 4, 6}, both "
        "layouts, any frequencies",
        SCORE_SRC,
        _score_concrete,
        "identity",
        uses=("rope.score_block_depends_only_on_offset",),
        falsifiers=lambda st: (_sum_positions(_head(st, 4)),
                               F.subs_rhs(_head(st, 4), {n: n + 1}, "offset_plus_one",
                                          "R((n + 1 - m) w) on the right")),
        note="The frequencies are symbols w_j, so the rows hold for the paper's theta_j and for "
        "every scaled set of frequencies alike.",
    ),
    Claim(
        "rope.norm_block_preserved",
        "||R(m theta_i) u|| = ||u|| for every even d and pair i (RoPE is orthogonal)",
        (ROT_SRC, cite("arXiv:2104.09864", "section 3.4.1", "R_m is orthogonal, so the "
                       "position encoding keeps the norm of q and k")),
        NORM_BLOCK,
        "identity",
        uses=("attention.rope_rotation_transpose_product",),
        falsifiers=(F.scale(NORM_BLOCK, 2, name="doubled_norm"),
                    F.subs_rhs(NORM_BLOCK, {U2[1]: 0}, "second_channel_dropped",
                               "||u||^2 without u_1^2")),
    ),
    Claim(
        "rope.norm_preserved_concrete_d",
        "||R_m x|| = ||x|| for whole vectors, d in {2, 4, 6}, both layouts",
        ROT_SRC,
        _norm_concrete,
        "identity",
        uses=("rope.norm_block_preserved",),
        falsifiers=lambda st: (F.scale(_head(st, 4), 2, name="doubled_norm"),
                               F.shift(_head(st, 4), 1, name="norm_plus_one")),
    ),
    Claim(
        "rope.complex_view_is_rotation",
        "Meta's complex view: pair (x_a, x_b) rotated by m theta_i is (x_a + i x_b) exp(i m "
        "theta_i), real and imaginary parts, every even d and pair i",
        (cite("arXiv:2104.09864", "section 3.2.1 and 3.4.1", "in the complex view the rotary "
              "embedding multiplies the pair x_a + i x_b by exp(i m theta)"),
         src(FOURIER, "Another choice of frequencies: NeRF",
             "RoPE | Fixed frequencies applied as rotations in query and key space")),
        COMPLEX_BLOCK,
        "identity",
        falsifiers=(F.swap_sin_cos(COMPLEX_BLOCK),
                    Falsifier("conjugate_phase", COMPLEX_BLOCK.map_rhs(
                        lambda e: e.subs(m, -m)), "exp(-i m theta) in place of exp(i m theta)")),
        note="re and im of the complex product are taken by SymPy (real symbols); the same "
        "rows for whole vectors of d = 2, 4, 8 are in rope.complex_view_is_rotation_concrete_d.",
    ),
    Claim(
        "rope.complex_view_is_rotation_concrete_d",
        "Meta's complex product equals the interleaved block rotation for whole vectors, "
        "d in {2, 4, 8}",
        cite("arXiv:2104.09864", "section 3.4.1", "RoPE written as multiplication of each "
             "complex pair by exp(i m theta_j)"),
        _complex_rows,
        "identity",
        uses=("rope.complex_view_is_rotation",),
        falsifiers=lambda st: (F.swap_sin_cos(_head(st, 8)),
                               F.subs_rhs(_head(st, 8), {m: -m}, "conjugate_phase",
                                          "exp(-i m w) in place of exp(i m w)")),
    ),
    Claim(
        "rope.rotate_half_form_is_half_layout",
        "transformers / GPT-NeoX: x cos + rotate_half(x) sin (angles repeated [a|a]) is the "
        "block rotation of pairs (j, j + d/2), d in {2, 4, 6}",
        HF,
        lambda: _form_rows(rotate_half_form, "half"),
        "identity",
        falsifiers=lambda st: (F.swap_sin_cos(_head(st)), F.flip_sign(_head(st))),
    ),
    Claim(
        "rope.rotate_every_two_form_is_interleaved",
        "GPT-J: x cos + rotate_every_two(x) sin (angles repeated in place) is the block rotation "
        "of pairs (2j, 2j + 1), d in {2, 4, 6}",
        cite("arXiv:2104.09864", "section 3.4.2 (equation 34)", "the computationally efficient "
             "realisation x * cos + (-x_2, x_1, -x_4, x_3, ...) * sin"),
        lambda: _form_rows(rotate_every_two_form, "interleaved"),
        "identity",
        falsifiers=lambda st: (F.swap_sin_cos(_head(st)),
                               F.subs_rhs(_head(st), {m: 2 * m}, "double_angle",
                                          "angle 2 m w on the right")),
    ),
]
