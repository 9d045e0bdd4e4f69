"""Rotation: a shift of position is a fixed orthogonal linear map.

Main statements
  ``rotation.sin_angle_addition``, ``rotation.cos_angle_addition``,
  ``rotation.pair_shift_is_rotation`` (the one-frequency lemma),
  ``rotation.shift_is_linear`` (every even d, lifted from the lemma),
  ``rotation.shift_is_linear_concrete_d`` (d = 2 .. 1024, block by block),
  ``rotation.shift_matrix_free_of_pos``, ``rotation.shift_matrix_is_orthogonal``,
  ``rotation.shift_matrix_det_eq_one``, ``rotation.shift_matrix_group_law``,
  ``rotation.shift_matrix_inverse_eq_transpose``, ``rotation.split_layout_matrix_is_permuted``,
  ``rotation.worked_example_d4``, ``rotation.same_offset_same_map``.

Implementation notes
  ``M_k`` is block diagonal, so every matrix statement is a statement about one 2x2 block
  ``R(omega k)`` with a symbolic ``omega``; for every even ``d`` the blocks are that lemma at
  ``omega = omega_i``.  Concrete ``d`` are checked block by block as lemma instances.

References
  Vaswani et al. 2017, section 3.5; seeds 000 (relative positions), 001 (key property),
  002 (section 3), 004 (why sine/cosine pairs).
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Statement, mat_eq
from peproof.families._common import (
    I_IN_RANGE,
    OMEGA_I,
    V_A,
    V_B,
    V_D,
    V_I,
    V_K,
    V_OMEGA,
    V_POS,
    a,
    b,
    concrete_vector,
    general_pe_pair,
    instance_proof,
    k,
    omega,
    pair,
    pair_symbols,
    pos,
    rot,
    shift_matrix,
    sparse_apply,
)
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import APPENDIX, EXAM, FOURIER, INTRO, src

x, y = sp.symbols("x y", real=True)
from peproof.claims import Var  # noqa: E402

V_X, V_Y = Var(x, "real"), Var(y, "real")

CONCRETE_D = (2, 4, 6, 8, 10, 16, 64, 512, 1024)

# ------------------------------------------------------------------ angle addition
SIN_ADD = Statement(Eq(sp.sin(x + y), sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)), (V_X, V_Y))
COS_ADD = Statement(Eq(sp.cos(x + y), sp.cos(x) * sp.cos(y) - sp.sin(x) * sp.sin(y)), (V_X, V_Y))

# ------------------------------------------------------------------ the one-frequency lemma
PAIR_SHIFT = Statement(
    mat_eq(pair(omega, pos + k), rot(omega * k) * pair(omega, pos)), (V_POS, V_K, V_OMEGA)
)

# every even d, pair i: channels (2i, 2i+1) at pos+k are R(omega_i k) times those at pos
SHIFT_ALL_D = Statement(
    mat_eq(general_pe_pair(pos + k), rot(OMEGA_I * k) * general_pe_pair(pos)),
    (V_POS, V_K, V_D, V_I),
    hyps=(I_IN_RANGE,),
)


def _shift_concrete(ds=CONCRETE_D):
    """Rows of PE_d(pos+k) = M_k PE_d(pos) for every d in CONCRETE_D, built by the encoding's
    own layout, with the frequencies left as symbols w_i (so the rows hold for every choice of
    frequencies, the family's omega_i included)."""
    ws, wvars = pair_symbols(max(ds) // 2)
    rows = []
    for dd in ds:
        enc = Encoding(dd)
        lhs = concrete_vector(dd, pos + k)
        rhs = sparse_apply(shift_matrix(enc, k, ws), concrete_vector(dd, pos))
        rows += [Eq(p, q) for p, q in zip(lhs, rhs, strict=True)]
    return Statement(tuple(rows), (V_POS, V_K) + wvars)




# ------------------------------------------------------------------ M_k depends on k only
# The pair (v, v') = ((sin, cos), (cos, -sin)) at p determines a unique linear map carrying it to
# the pair at p + k: X = [v(p+k) v'(p+k)] [v(p) v'(p)]^(-1) (the inverse is the matrix itself,
# its determinant is -1).  The claim: X equals R(omega k), which has no p in it.
_Vp = sp.Matrix([[sp.sin(omega * pos), sp.cos(omega * pos)], [sp.cos(omega * pos), -sp.sin(omega * pos)]])
_Vpk = _Vp.subs(pos, pos + k)
FREE_OF_POS = Statement(mat_eq(_Vpk * _Vp, rot(omega * k)), (V_POS, V_K, V_OMEGA))

# ------------------------------------------------------------------ group structure
ORTHO = Statement(mat_eq(rot(omega * k).T * rot(omega * k), sp.eye(2)), (V_K, V_OMEGA))
DET = Statement(Eq(rot(omega * k).det(method="berkowitz"), 1), (V_K, V_OMEGA))
GROUP = Statement(mat_eq(rot(omega * a) * rot(omega * b), rot(omega * (a + b))), (V_A, V_B, V_OMEGA))
INVERSE = Statement(
    mat_eq(rot(omega * (-k)), rot(omega * k).T) + mat_eq(rot(omega * k) * rot(omega * (-k)), sp.eye(2)),
    (V_K, V_OMEGA),
)


# ------------------------------------------------------------------ [sin|cos] layout
def _split_rows(ds=(2, 4, 8, 16)):
    rows = []
    for dd in ds:
        inter = Encoding(dd, layout="interleaved")
        split = Encoding(dd, layout="sin_cos")
        perm = sp.zeros(dd, dd)  # P with split = P * interleaved
        for j in range(dd):
            perm[j, inter.channel(*split.slot(j))] = 1
        m_split = perm * sp.Matrix(shift_matrix(inter, k)) * perm.T
        rows += list(mat_eq(sp.Matrix(split.vector(pos + k)), m_split * sp.Matrix(split.vector(pos))))
        rows += list(mat_eq(sp.Matrix(split.vector(pos)), perm * sp.Matrix(inter.vector(pos))))
    return tuple(rows)


SPLIT = Statement(_split_rows(), (V_POS, V_K))

# ------------------------------------------------------------------ worked examples
_E4 = Encoding(4)
WORKED_D4 = Statement(
    mat_eq(sp.Matrix(sparse_apply(shift_matrix(_E4, 1), _E4.vector(0))), sp.Matrix(_E4.vector(1)))
    + mat_eq(sp.Matrix(_E4.vector(0)), sp.Matrix([0, 1, 0, 1]))
)
SAME_OFFSET = Statement(
    mat_eq(general_pe_pair(8), rot(OMEGA_I * 3) * general_pe_pair(5))
    + mat_eq(general_pe_pair(53), rot(OMEGA_I * 3) * general_pe_pair(50)),
    (V_D, V_I),
    hyps=(I_IN_RANGE,),
)


def _f(stmt, *muts):
    return tuple(m(stmt) for m in muts)


def _k_plus_one(s):
    return F.subs_rhs(s, {k: k + 1}, "k_plus_one", "offset k replaced by k+1 on the right")


def _transpose_block(s):
    return F.subs_rhs(s, {k: -k}, "transposed_block", "R(omega k) replaced by its transpose")


CLAIMS = [
    Claim(
        "rotation.sin_angle_addition",
        "Sine of a sum",
        src(FOURIER, "Relative positions are linear transformations", r"\sin(a+b) = \sin a \cos b + \cos a \sin b"),
        SIN_ADD,
        "identity",
        falsifiers=_f(SIN_ADD, F.flip_sign) + (
            F.subs_rhs(SIN_ADD, {y: -y}, "difference_formula", "sin(x-y) expansion in place"),),
    ),
    Claim(
        "rotation.cos_angle_addition",
        "Cosine of a sum",
        src(FOURIER, "Relative positions are linear transformations", r"\cos(a+b) = \cos a \cos b - \sin a \sin b"),
        COS_ADD,
        "identity",
        falsifiers=_f(COS_ADD, F.swap_sin_cos) + (
            F.subs_rhs(COS_ADD, {y: -y}, "difference_formula", "cos(x-y) expansion in place"),),
    ),
    Claim(
        "rotation.pair_shift_is_rotation",
        "One frequency pair: a shift by k is the rotation R(omega k)",
        (
            src(FOURIER, "Relative positions are linear transformations",
                "the angle addition identities give"),
            src(APPENDIX, "3.1 The 2D pair",
                "a 2D rotation through angle"),
            src(EXAM, "Why sine/cosine pairs specifically",
                "sin(ω(pos+k)) = sin(ωpos)cos(ωk) + cos(ωpos)sin(ωk)"),
        ),
        PAIR_SHIFT,
        "identity",
        uses=("rotation.sin_angle_addition", "rotation.cos_angle_addition"),
        falsifiers=_f(PAIR_SHIFT, F.swap_sin_cos, _transpose_block, _k_plus_one),
    ),
    Claim(
        "rotation.shift_is_linear",
        "PE(pos+k) = M_k PE(pos) for every even d (block i is the lemma at omega_i)",
        (
            src(APPENDIX, "3.2 The full d-dimensional map", "PE(pos+k)=Mk⋅PE(pos)"),
            src(INTRO, "The mechanics",
                "the encoding at position $pos + k$ can be written as a fixed linear function of the encoding at $pos$"),
            src(FOURIER, "Relative positions are linear transformations",
                "Stacking these $2 \\times 2$ blocks for every frequency gives a single block diagonal matrix $M_k$"),
        ),
        SHIFT_ALL_D,
        "identity",
        uses=("rotation.pair_shift_is_rotation",),
        falsifiers=_f(SHIFT_ALL_D, F.swap_sin_cos, _transpose_block, _k_plus_one),
    ),
    Claim(
        "rotation.shift_is_linear_concrete_d",
        "PE(pos+k) = M_k PE(pos) for d in {2, ..., 1024}, checked block by block",
        src(APPENDIX, "3.2 The full d-dimensional map", "PE(pos+k)=Mk⋅PE(pos)"),
        _shift_concrete,
        "identity",
        uses=("rotation.pair_shift_is_rotation",),
        falsifiers=lambda st: (
            F.swap_sin_cos(st.with_concl(st.concl[:40])),
            _k_plus_one(st.with_concl(st.concl[:40])),
        ),
        note="d = " + ", ".join(map(str, CONCRETE_D)) + "; falsifiers mutate the first 40 rows",
        proof=instance_proof("rotation.pair_shift_is_rotation"),
    ),
    Claim(
        "rotation.shift_matrix_free_of_pos",
        "The map carrying the pair at p to the pair at p+k is R(omega k): it depends on k only",
        (
            src(FOURIER, "Relative positions are linear transformations",
                "The key is that $M_k$ depends only on the offset $k$, not on $pos$."),
            src(INTRO, "The mechanics",
                "position 5 and 8 relate the same way position 50 and 53 do"),
        ),
        FREE_OF_POS,
        "identity",
        uses=("rotation.pair_shift_is_rotation",),
        falsifiers=_f(FREE_OF_POS, F.swap_sin_cos, _transpose_block),
    ),
    Claim(
        "rotation.shift_matrix_is_orthogonal",
        "M_k is orthogonal: R(omega k)^T R(omega k) = I, block by block",
        src(APPENDIX, "3.2 The full d-dimensional map", "a linear (specifically, orthogonal) function"),
        ORTHO,
        "identity",
        falsifiers=_f(ORTHO, F.flip_sign, lambda s: F.scale(s, 2)),
    ),
    Claim(
        "rotation.shift_matrix_det_eq_one",
        "det M_k = 1 (each block has determinant cos^2 + sin^2 = 1): a rotation, not a reflection",
        src(APPENDIX, "3.1 The 2D pair", "by a 2D rotation through angle"),
        DET,
        "identity",
        falsifiers=_f(DET, F.flip_sign, lambda s: F.shift(s, 1)),
    ),
    Claim(
        "rotation.shift_matrix_group_law",
        "M_a M_b = M_(a+b)",
        src(INTRO, "The mechanics",
            "the relationship between two positions a fixed distance apart is consistent regardless of where in the sequence that pair sits"),
        GROUP,
        "identity",
        uses=("rotation.sin_angle_addition", "rotation.cos_angle_addition"),
        falsifiers=(
            F.subs_rhs(GROUP, {b: -b}, "a_minus_b", "M_(a-b) in place of M_(a+b)"),
            F.subs_rhs(GROUP, {a: a + 1}, "a_plus_one", "M_(a+1+b) in place of M_(a+b)"),
        ),
    ),
    Claim(
        "rotation.shift_matrix_inverse_eq_transpose",
        "M_(-k) = M_k^T = M_k^(-1)",
        src(APPENDIX, "3.2 The full d-dimensional map", "a linear (specifically, orthogonal) function"),
        INVERSE,
        "identity",
        uses=("rotation.shift_matrix_is_orthogonal",),
        falsifiers=(
            F.subs_rhs(INVERSE, {k: -k}, "inverse_eq_self", "M_(-k) = M_k", index=range(4)),
            F.swap_sin_cos(INVERSE, index=range(4)),
        ),
    ),
    Claim(
        "rotation.split_layout_matrix_is_permuted",
        "In the [sin|cos] layout, PE = P PE_interleaved and the shift matrix is P M_k P^T",
        (
            src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
                "which is the same set of numbers as the interleaved"),
            src(APPENDIX, "3.2 The full d-dimensional map",
                "With the right reordering of the (sin,cos)"),
        ),
        SPLIT,
        "identity",
        falsifiers=(
            F.swap_sin_cos(Statement(SPLIT.concl[:12], (V_POS, V_K))),
            _k_plus_one(Statement(SPLIT.concl[:12], (V_POS, V_K))),
        ),
        note="checked for d in {2, 4, 8, 16}",
    ),
    Claim(
        "rotation.worked_example_d4",
        "d = 4: PE(0) = (0, 1, 0, 1) and M_1 PE(0) = PE(1)",
        src(APPENDIX, "Self-test (b)", "explicitly and apply it to PE(0)=(0,1,0,1)"),
        WORKED_D4,
        "identity",
        falsifiers=(F.swap_sin_cos(WORKED_D4), F.flip_sign(WORKED_D4)),
    ),
    Claim(
        "rotation.same_offset_same_map",
        "PE(8) = M_3 PE(5) and PE(53) = M_3 PE(50): one map for the offset 3, for every even d",
        src(INTRO, "The mechanics", "position 5 and 8 relate the same way position 50 and 53 do"),
        SAME_OFFSET,
        "identity",
        uses=("rotation.shift_is_linear",),
        falsifiers=(
            F.subs_rhs(SAME_OFFSET, {OMEGA_I * 3: OMEGA_I * 4}, "offset_4", "M_4 in place of M_3"),
            F.swap_sin_cos(SAME_OFFSET),
        ),
    ),
]
