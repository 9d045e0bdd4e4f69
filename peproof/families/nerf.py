"""NeRF frequencies: the same feature mapping with omega_i = 2^i pi.

Main statements
  ``nerf.gamma_written_out`` (omega_i = 2^i pi; gamma(p) for L = 10 is the seed's formula),
  ``nerf.frequencies_geometric_both_families`` (first terms pi and 1, ratios 2 and
  10000^(-2/d), increasing against decreasing),
  ``nerf.progressions_differ_only_in_ratio`` (refuted: the first terms differ too),
  what carries over from the paper's frequencies, proved for omega_i = 2^i pi:
  ``nerf.pair_shift_is_rotation``, ``nerf.shift_matrix_is_orthogonal``, ``nerf.norm_sq_eq_l``,
  ``nerf.inner_product_depends_only_on_offset``.
  What does not carry over is in :mod:`peproof.families.nerf_inputs`.

Implementation notes
  The NeRF encoding is ``Encoding(2L, family="nerf")`` (interleaved sin/cos, as gamma).
  Statements for every ``L`` are sums over ``i = 0 .. L-1`` lifted termwise to a one-frequency
  lemma; for a symbolic ``i`` the exponential procedure knows ``2^i`` is an integer, so
  ``exp(2 pi i 2^i) = 1`` is used soundly where it appears.

References
  Mildenhall et al. 2020 (NeRF), section 5.1; seed 000, "Another choice of frequencies: NeRF".
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Lt, Statement, mat_eq, var
from peproof.encoding import Encoding, omega_expr
from peproof.families._common import V_D, V_I, d, i, pair, rot, shift_matrix
from peproof.seeds import FOURIER, src

SEC = "Another choice of frequencies: NeRF"
L_NERF = 10
NERF = Encoding(2 * L_NERF, family="nerf")

p, V_P = var("p", "real")
h, V_H = var("h", "real")
L, V_L = var("L", "pos_integer")

W_I = omega_expr(i, 2, "nerf")  # 2^i pi (d is ignored by the nerf family)
W_PAPER = omega_expr(i, d, "paper")


def seed_gamma(pp, n_pairs: int = L_NERF) -> list[sp.Expr]:
    """gamma(p) typed as seed 000 writes it: sin, cos of 2^j pi p for j = 0 .. L-1."""
    out: list[sp.Expr] = []
    for j in range(n_pairs):
        out += [sp.sin(2**j * sp.pi * pp), sp.cos(2**j * sp.pi * pp)]
    return out


GAMMA = Statement(
    (Eq(W_I, 2**i * sp.pi),) + mat_eq(NERF.vector(p), seed_gamma(p)), (V_P, V_I)
)

# ------------------------------------------------------------------ geometric progressions
DS = (2, 4, 8, 16, 64, 128, 256, 512, 1024)
RATIO_PAPER = W_PAPER.subs(i, 1)  # omega_1 / omega_0, from the definition
GEOMETRIC = Statement(
    (
        Eq(W_I.subs(i, 0), sp.pi),
        Eq(W_I.subs(i, i + 1), 2 * W_I),
        Eq(W_PAPER.subs(i, 0), 1),
        Eq(W_PAPER.subs(i, i + 1), RATIO_PAPER * W_PAPER),
        Lt(1, 2),
    )
    + tuple(Lt(RATIO_PAPER.subs(d, dd), 1) for dd in DS),
    (V_I, V_D),
)
ONLY_RATIO = Statement((Eq(W_I.subs(i, 0), W_PAPER.subs(i, 0)),))

# ------------------------------------------------------------------ what carries over
SHIFT = Statement(mat_eq(pair(W_I, p + h), rot(W_I * h) * pair(W_I, p)), (V_P, V_H, V_I))
_M = sp.Matrix(shift_matrix(NERF, h))
ORTHO = Statement(mat_eq(_M.T * _M, sp.eye(NERF.d)), (V_H,))
_sq = sum(e**2 for e in NERF.vector(p))
NORM = Statement(
    (Eq(sp.Sum(sp.sin(W_I * p) ** 2 + sp.cos(W_I * p) ** 2, (i, 0, L - 1)), L), Eq(_sq, L_NERF)),
    (V_P, V_L),
)
_ip = sp.sin(W_I * p) * sp.sin(W_I * (p + h)) + sp.cos(W_I * p) * sp.cos(W_I * (p + h))
INNER = Statement(
    (Eq(sp.Sum(_ip, (i, 0, L - 1)), sp.Sum(sp.cos(W_I * h), (i, 0, L - 1))),), (V_P, V_H, V_L)
)

CLAIMS = [
    Claim(
        "nerf.gamma_written_out",
        "omega_i = 2^i pi and, for L = 10, gamma(p) = (sin 2^j pi p, cos 2^j pi p), j = 0..9: "
        "20 features, the highest frequency 512 pi",
        (
            src(FOURIER, SEC, r"\omega_i = 2^i \pi, \qquad i = 0, 1, \dots, L-1"),
            src(FOURIER, SEC, r"\gamma(p) = \big[\, \sin(2^0 \pi p), \cos(2^0 \pi p)"),
            src(FOURIER, SEC, "NeRF makes a different choice for the same feature mapping"),
        ),
        GAMMA,
        "identity",
        falsifiers=(
            F.swap_sin_cos(GAMMA),
            F.subs_rhs(GAMMA, {p: 2 * p, i: i + 1}, "frequencies_doubled", "2^(j+1) pi"),
        ),
        note="the one definition Encoding(20, family='nerf') against the seed's formula",
    ),
    Claim(
        "nerf.frequencies_geometric_both_families",
        "Both families are geometric: NeRF pi * 2^i (ratio 2, increasing), the paper "
        "1 * (10000^(-2/d))^i (ratio < 1, decreasing)",
        (
            src(FOURIER, SEC,
                "Both choices are geometric progressions, equally spaced on a log axis"),
            src(FOURIER, SEC, "grow by a factor of two at each step"),
            src(FOURIER, SEC, "shrink from $1$ down toward $1/10000$ as $i$ grows"),
            src(FOURIER, SEC, "NeRF | Fixed geometric (log spaced) frequencies, powers of two"),
            src(FOURIER, SEC,
                "Transformer positional encoding | Fixed geometric (log spaced) frequencies, base"),
        ),
        GEOMETRIC,
        "identity",
        falsifiers=(
            F.subs_rhs(GEOMETRIC, {sp.Integer(2): sp.Integer(3)}, "ratio_three",
                       "NeRF ratio 3", index=1),
            Falsifier("paper_increasing", GEOMETRIC.with_concl(
                tuple(Lt(1, RATIO_PAPER.subs(d, dd)) for dd in DS[:2])),
                "the paper's ratio above 1"),
        ),
        note="equally spaced on a log axis = constant ratio; the direction (< 1 for every d) "
        "is decided in arb for d = " + ", ".join(map(str, DS)),
    ),
    Claim(
        "nerf.progressions_differ_only_in_ratio",
        "The two geometric progressions differ only in the ratio (so their first terms agree)",
        src(FOURIER, SEC, "they differ only in the ratio and the direction"),
        ONLY_RATIO,
        "numeric",
        expect="refuted",
        erratum="literal",
        companion="nerf.frequencies_geometric_both_families",
        falsifiers=(F.shift(ONLY_RATIO, 1), F.scale(ONLY_RATIO, 3)),
        note="A geometric progression is its first term and its ratio: NeRF starts at "
        "omega_0 = pi, the paper at omega_0 = 1, so they differ in the first term as well "
        "(and in the number of terms, L against d/2).  Up to the factor pi (NeRF measures p in "
        "half-turns) the sentence holds; the companion states both progressions exactly.",
    ),
    Claim(
        "nerf.pair_shift_is_rotation",
        "Carries over: the NeRF pair at p + h is R(2^i pi h) times the pair at p (any real h)",
        src(FOURIER, SEC, "NeRF makes a different choice for the same feature mapping"),
        SHIFT,
        "identity",
        uses=("rotation.pair_shift_is_rotation",),
        falsifiers=(
            F.swap_sin_cos(SHIFT),
            F.subs_rhs(SHIFT, {h: -h}, "transposed_block", "R(-omega h) on the right"),
        ),
    ),
    Claim(
        "nerf.shift_matrix_is_orthogonal",
        "Carries over: M_h^T M_h = I for the NeRF shift matrix, L = 10",
        src(FOURIER, SEC, "NeRF makes a different choice for the same feature mapping"),
        ORTHO,
        "identity",
        falsifiers=(F.flip_sign(ORTHO), F.scale(ORTHO, 2)),
    ),
    Claim(
        "nerf.norm_sq_eq_l",
        "Carries over: ||gamma(p)||^2 = L for every L (and = 10 for the L = 10 encoding)",
        src(FOURIER, SEC, r"\gamma(p) = \big[\, \sin(2^0 \pi p), \cos(2^0 \pi p)"),
        NORM,
        "identity",
        falsifiers=(F.scale(NORM, 2), F.shift(NORM, 1)),
    ),
    Claim(
        "nerf.inner_product_depends_only_on_offset",
        "Carries over: <gamma(p), gamma(p + h)> = sum_i cos(2^i pi h), free of p",
        src(FOURIER, SEC, "NeRF makes a different choice for the same feature mapping"),
        INNER,
        "identity",
        falsifiers=(
            F.swap_sin_cos(INNER),
            F.subs_rhs(INNER, {h: h + p}, "depends_on_p", "cos(2^i pi (h + p))"),
        ),
    ),
]
