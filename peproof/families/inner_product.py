"""Inner product: <PE(pos), PE(pos+k)> depends only on the offset k.

Main statements
  ``inner_product.cos_difference``, ``inner_product.pair_term_eq_cos_offset`` (lemma),
  ``inner_product.eq_sum_cos_offset`` (every even d, lifted),
  ``inner_product.eq_sum_cos_offset_concrete_d`` (d = 2 .. 1024, block by block),
  ``inner_product.depends_only_on_offset``, ``inner_product.even_in_offset``.

Implementation notes
  The inner product is summed pair by pair; each bracket is the cosine difference identity at
  ``omega = omega_i``.  For concrete ``d`` the two channels of each pair are located through the
  encoding's layout, so the check also covers the channel bookkeeping.

References
  Seed 000, "Inner products depend only on relative distance".
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Statement, var
from peproof.families._common import (
    OMEGA_I,
    V_D,
    V_K,
    V_OMEGA,
    V_POS,
    concrete_vector,
    instance_proof,
    k,
    omega,
    pair_sum,
    pair_symbols,
    pos,
)
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, src

q, V_Q = var("q", "real")
x, V_X = var("x", "real")
y, V_Y = var("y", "real")
CONCRETE_D = (2, 4, 6, 8, 10, 16, 64, 512, 1024)


def _bracket(w, p, s):
    return sp.sin(w * p) * sp.sin(w * (p + s)) + sp.cos(w * p) * sp.cos(w * (p + s))


COS_DIFF = Statement(Eq(sp.cos(x - y), sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y)), (V_X, V_Y))
PAIR = Statement(Eq(_bracket(omega, pos, k), sp.cos(omega * k)), (V_POS, V_K, V_OMEGA))
ALL_D = Statement(
    Eq(pair_sum(_bracket(OMEGA_I, pos, k)), pair_sum(sp.cos(OMEGA_I * k))), (V_POS, V_K, V_D)
)
ONLY_OFFSET = Statement(
    Eq(pair_sum(_bracket(OMEGA_I, pos, k)), pair_sum(_bracket(OMEGA_I, q, k))),
    (V_POS, V_Q, V_K, V_D),
)
EVEN = Statement(
    (
        Eq(pair_sum(sp.cos(OMEGA_I * k)), pair_sum(sp.cos(OMEGA_I * (-k)))),
        Eq(pair_sum(_bracket(OMEGA_I, pos, k)), pair_sum(_bracket(OMEGA_I, pos, -k))),
    ),
    (V_POS, V_K, V_D),
)


def _concrete(ds=CONCRETE_D):
    ws, wvars = pair_symbols(max(ds) // 2)
    rows = []
    for dd in ds:
        enc = Encoding(dd)
        u, v = concrete_vector(dd, pos), concrete_vector(dd, pos + k)
        for p in range(enc.pairs):
            js, jc = enc.channel(p, "sin"), enc.channel(p, "cos")
            rows.append(Eq(u[js] * v[js] + u[jc] * v[jc], sp.cos(ws[p] * k)))
    return Statement(tuple(rows), (V_POS, V_K) + wvars)


SECTION = "Inner products depend only on relative distance"
CLAIMS = [
    Claim(
        "inner_product.cos_difference",
        "Cosine of a difference",
        src(FOURIER, SECTION, "$$\\cos(a - b) = \\cos a \\cos b + \\sin a \\sin b$$"),
        COS_DIFF,
        "identity",
        falsifiers=(F.flip_sign(COS_DIFF), F.subs_rhs(COS_DIFF, {y: -y}, "sum_formula",
                                                      "cos(x+y) expansion in place")),
    ),
    Claim(
        "inner_product.pair_term_eq_cos_offset",
        "One pair: sin(w p) sin(w(p+k)) + cos(w p) cos(w(p+k)) = cos(w k)",
        src(FOURIER, SECTION, "so it simplifies to $\\cos(\\omega_i k)$"),
        PAIR,
        "identity",
        uses=("inner_product.cos_difference",),
        falsifiers=(F.swap_sin_cos(PAIR), F.subs_rhs(PAIR, {k: k + 1}, "k_plus_one", "k+1 for k")),
    ),
    Claim(
        "inner_product.eq_sum_cos_offset",
        "<PE(pos), PE(pos+k)> = sum_i cos(omega_i k) for every even d",
        src(FOURIER, SECTION,
            "\\langle \\phi(pos), \\phi(pos + k) \\rangle = \\sum_{i=0}^{d/2 - 1} \\cos(\\omega_i k)"),
        ALL_D,
        "identity",
        uses=("inner_product.pair_term_eq_cos_offset",),
        falsifiers=(
            F.swap_sin_cos(ALL_D),
            F.subs_rhs(ALL_D, {k: 2 * k}, "double_offset", "cos(2 omega_i k) on the right"),
            F.scale(ALL_D, 2, name="twice_the_sum"),
        ),
    ),
    Claim(
        "inner_product.eq_sum_cos_offset_concrete_d",
        "<PE(pos), PE(pos+k)> = sum_i cos(omega_i k) for d in {2, ..., 1024}, block by block",
        src(FOURIER, SECTION, "Each bracket is the cosine difference identity"),
        _concrete,
        "identity",
        uses=("inner_product.pair_term_eq_cos_offset",),
        falsifiers=lambda st: (
            F.swap_sin_cos(st.with_concl(st.concl[:20])),
            F.subs_rhs(st.with_concl(st.concl[:20]), {k: k + 1}, "k_plus_one", "k+1 for k"),
        ),
        note="d = " + ", ".join(map(str, CONCRETE_D)),
        proof=instance_proof("inner_product.pair_term_eq_cos_offset"),
    ),
    Claim(
        "inner_product.depends_only_on_offset",
        "<PE(p), PE(p+k)> = <PE(q), PE(q+k)> for all positions p, q",
        src(FOURIER, SECTION, "This depends on $k$ and not on $pos$."),
        ONLY_OFFSET,
        "identity",
        uses=("inner_product.eq_sum_cos_offset",),
        falsifiers=(
            F.subs_rhs(ONLY_OFFSET, {k: k + 1}, "other_offset", "offset k+1 on the right"),
            F.subs_rhs(ONLY_OFFSET, {k: 2 * k}, "double_offset", "offset 2k on the right"),
        ),
    ),
    Claim(
        "inner_product.even_in_offset",
        "The inner product is even in k: the same for offsets k and -k",
        src(FOURIER, SECTION, "Because cosine is even, it is also symmetric when $k \\mapsto -k$."),
        EVEN,
        "identity",
        uses=("inner_product.eq_sum_cos_offset",),
        falsifiers=(
            F.swap_sin_cos(EVEN, index=0),
            F.subs_rhs(EVEN, {k: k + 1}, "k_plus_one", "offset -(k+1) on the right"),
        ),
    ),
]
