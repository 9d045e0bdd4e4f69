"""Attention scores with positions: additive PE is not relative, RoPE is.

Main statements
  ``attention.additive_pe_score_four_terms`` (the expansion of seed 002 section 3.3),
  ``attention.additive_pe_score_not_relative`` (a certified instance: score(m, n) !=
  score(m+1, n+1)), ``attention.linearity_implies_relative_score`` (refuted: the implication
  that self-test (c) asks to reject),
  ``attention.zero_content_score_is_relative`` (the exception: no content, W_Q W_K^T = I),
  ``attention.fixed_linear_map_attends_to_offset_three`` (one fixed bilinear form peaks at the
  token three positions back, at every absolute position),
  ``attention.rope_rotation_transpose_product`` (R(a)^T R(b) = R(b - a)),
  ``attention.rope_score_depends_only_on_offset`` (lifted over the blocks, d = 4 and 8),
  ``attention.rope_uses_paper_frequencies``.

Implementation notes
  Row-vector convention of seed 002: ``q_m = (x_m + PE(m)) W_Q``, ``k_n = (x_n + PE(n)) W_K``,
  score ``q_m k_n^T``.  RoPE in column convention, ``q_m = R(m theta) u`` with ``u = W_q x_m``
  arbitrary, ``R(t) = [[cos t, -sin t], [sin t, cos t]]`` per pair.  All identities go to the
  exponential decision procedure; the "not relative" facts are certified instances or
  counterexamples with small concrete ``W_Q, W_K`` and contents, in ``d = 2``.

References
  Seed 002 sections 3.3, 5, self-test (c); seed 004 (relative position via a linear
  operation); Su et al. 2021 (RoPE).
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Ne, Statement, Var, mat_eq, var
from peproof.families._common import V_D, d, rot, shift_matrix
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.scope import omega as omega_expr
from peproof.seeds import APPENDIX, EXAM, FOURIER, src

m, V_M = var("m", "integer")
n, V_N = var("n", "integer")
t, V_T = var("t", "integer")
mr, V_MR = var("m", "real")
nr, V_NR = var("n", "real")
tr, V_TR = var("t", "real")


def _row(name: str, size: int) -> sp.Matrix:
    return sp.Matrix(1, size, lambda _, c: sp.Symbol(f"{name}_{c}", real=True))


def _sq(name: str, size: int) -> sp.Matrix:
    return sp.Matrix(size, size, lambda r, c: sp.Symbol(f"{name}_{r}{c}", real=True))


def pe_row(enc: Encoding, pos) -> sp.Matrix:
    return sp.Matrix([enc.vector(pos)])


def score(xm, xn, pm, pn, wq, wk) -> sp.Expr:
    """``q_m k_n^T`` with ``q_m = (x_m + PE(m)) W_Q`` and ``k_n = (x_n + PE(n)) W_K``."""
    return (((xm + pm) * wq) * ((xn + pn) * wk).T)[0, 0]


# ------------------------------------------------------------------ four cross terms
E2 = Encoding(2)
XM, XN, GQ, GK = _row("xm", 2), _row("xn", 2), _sq("wq", 2), _sq("wk", 2)
PM, PN = pe_row(E2, mr), pe_row(E2, nr)
_G = GQ * GK.T
TERMS = (
    (XM * _G * XN.T)[0, 0],
    (XM * _G * PN.T)[0, 0],
    (PM * _G * XN.T)[0, 0],
    (PM * _G * PN.T)[0, 0],
)
_V4 = tuple(Var(s, "real") for s in list(GQ) + list(GK) + list(XM) + list(XN)) + (V_MR, V_NR)
FOUR = Statement((Eq(score(XM, XN, PM, PN, GQ, GK), sp.Add(*TERMS)),), _V4)

# ------------------------------------------------------------------ a certified witness
W_Q0 = W_K0 = sp.Matrix([[1, 0], [1, 1]])  # W_Q W_K^T = [[1, 1], [1, 2]], not I
X_A = X_B = sp.Matrix([[1, 0]])  # the same token at both positions


def s0(mm, nn) -> sp.Expr:
    """The concrete score: token (1, 0) at position mm queries the same token at nn."""
    return score(X_A, X_B, pe_row(E2, mm), pe_row(E2, nn), W_Q0, W_K0)


NOT_REL = Statement((Ne(s0(m, n), s0(m + 1, n + 1)),), (V_M, V_N), quant="exists")
SHIFTED = Statement((Eq(s0(m, n), s0(m + 1, n + 1)),), (V_M, V_N))

# ------------------------------------------------------------------ the exception
E4 = Encoding(4)
phi, V_PHI = var("phi", "real")
psi, V_PSI = var("psi", "real")


def _givens(a: int, b: int, ang) -> sp.Matrix:
    g = sp.eye(4)
    g[a, a], g[a, b], g[b, a], g[b, b] = sp.cos(ang), -sp.sin(ang), sp.sin(ang), sp.cos(ang)
    return g


W_ORTH = _givens(0, 2, phi) * _givens(1, 3, psi)  # mixes the two frequency pairs
S_UNI = sp.Matrix([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [0, 0, 0, 1]])  # det 1
ZERO4 = sp.zeros(1, 4)
REL_RHS = sp.Add(*[sp.cos(w * (nr - mr)) for w in E4.omegas])
EXCEPTION = Statement(
    (
        Eq(score(ZERO4, ZERO4, pe_row(E4, mr), pe_row(E4, nr), W_ORTH, W_ORTH), REL_RHS),
        Eq(score(ZERO4, ZERO4, pe_row(E4, mr), pe_row(E4, nr), S_UNI, S_UNI.inv().T), REL_RHS),
    ),
    (V_MR, V_NR, V_PHI, V_PSI),
)

# ------------------------------------------------------------------ a fixed offset
M_BACK = sp.Matrix(shift_matrix(E4, -3))  # M_(-3) PE(m) = PE(m - 3)
BACK = (pe_row(E4, m) * M_BACK.T * pe_row(E4, n).T)[0, 0]
BACK_RHS = sp.Add(*[sp.cos(w * (n - m + 3)) for w in E4.omegas])
OFFSET3 = Statement(
    (Eq(BACK, BACK_RHS), Eq(BACK.subs(n, m - 3), 2), Le(BACK_RHS, 2)), (V_M, V_N)
)


# ------------------------------------------------------------------ RoPE
def rope_block(ang) -> sp.Matrix:
    """RoPE's 2x2 rotation ``[[cos, -sin], [sin, cos]]`` (the transpose of ``_common.rot``)."""
    return rot(-ang)


def rope_matrix(enc: Encoding, pos) -> sp.Matrix:
    return sp.diag(*[rope_block(pos * w) for w in enc.omegas])


a_, V_A_ = var("a", "real")
b_, V_B_ = var("b", "real")
RT = Statement(
    mat_eq(rope_block(a_).T * rope_block(b_), rope_block(b_ - a_))
    + mat_eq(rope_block(a_).T * rope_block(a_), sp.eye(2)),
    (V_A_, V_B_),
)


def rope_score(enc: Encoding, p, q) -> sp.Expr:
    """``(R(p theta) u)^T (R(q theta) v)`` with symbolic ``u``, ``v`` of length ``d``."""
    u = sp.Matrix(enc.d, 1, lambda r, _: sp.Symbol(f"u_{r}", real=True))
    v = sp.Matrix(enc.d, 1, lambda r, _: sp.Symbol(f"v_{r}", real=True))
    return ((rope_matrix(enc, p) * u).T * (rope_matrix(enc, q) * v))[0, 0]


def _uv_vars(dd: int) -> tuple[Var, ...]:
    return tuple(Var(sp.Symbol(f"{c}_{r}", real=True), "real") for c in "uv" for r in range(dd))


def _rope_rows():
    """The one-block lemma at a symbolic omega, then d = 4 with the paper's frequencies."""
    w = sp.Symbol("omega", positive=True)
    u = sp.Matrix([sp.Symbol("u_0", real=True), sp.Symbol("u_1", real=True)])
    v = sp.Matrix([sp.Symbol("v_0", real=True), sp.Symbol("v_1", real=True)])
    lemma = ((rope_block(mr * w) * u).T * (rope_block(nr * w) * v))[0, 0]
    u4 = sp.Matrix(4, 1, lambda r, _: sp.Symbol(f"u_{r}", real=True))
    v4 = sp.Matrix(4, 1, lambda r, _: sp.Symbol(f"v_{r}", real=True))
    rows = (
        Eq(lemma, (u.T * rope_block((nr - mr) * w) * v)[0, 0]),
        Eq(rope_score(E4, mr, nr), (u4.T * rope_matrix(E4, nr - mr) * v4)[0, 0]),
        Eq(rope_score(E4, mr + tr, nr + tr), rope_score(E4, mr, nr)),
    )
    return Statement(rows, (V_MR, V_NR, V_TR, Var(w, "pos_real")) + _uv_vars(4))


def _rope_falsifiers(st):
    return (
        F.subs_rhs(st.with_concl(st.concl[1:2]), {mr: -mr}, "sum_of_positions",
                   "R((n + m) theta) on the right"),
        Falsifier("unequal_shift", Statement(
            (Eq(rope_score(E4, mr + tr, nr + 2 * tr), rope_score(E4, mr, nr)),),
            (V_MR, V_NR, V_TR) + _uv_vars(4)), "m + t and n + 2t: the offset changes"),
    )


i1, V_I1 = var("i1", "pos_integer")
ROPE_THETA = sp.Integer(10000) ** (-2 * (i1 - 1) / d)  # Su et al.: theta_i, i = 1 .. d/2
ROPE_FREQ = Statement((Eq(ROPE_THETA, omega_expr(i1 - 1, d)),), (V_I1, V_D), hyps=(Le(i1, d / 2),))

LIN = ("rotation.shift_is_linear",)

CLAIMS = [
    Claim(
        "attention.additive_pe_score_four_terms",
        "q_m k_n^T = x_m G x_n^T + x_m G PE(n)^T + PE(m) G x_n^T + PE(m) G PE(n)^T, G = W_Q W_K^T",
        (
            src(APPENDIX, "3.3 What this is good for", "involves cross-terms"),
            src(APPENDIX, "3.3 What this is good for", "qm=(x~m+PE(m))WQ"),
        ),
        FOUR,
        "identity",
        falsifiers=(
            Falsifier("cross_term_dropped", FOUR.with_concl(
                (Eq(FOUR.concl[0].lhs, TERMS[0] + TERMS[2] + TERMS[3]),)),
                "the content-position term x_m G PE(n)^T left out"),
            F.flip_sign(FOUR),
        ),
        note="d = 2, every entry of W_Q, W_K and of the contents symbolic, m and n real; the "
        "expansion is bilinearity and holds in every dimension",
    ),
    Claim(
        "attention.additive_pe_score_not_relative",
        "With PE added before W_Q, W_K the score is not a function of n - m: a certified pair "
        "(m, n) with score(m, n) != score(m+1, n+1)",
        src(APPENDIX, "3.3 What this is good for",
            "mix content and position in ways that do not reduce cleanly to a function of"),
        NOT_REL,
        "existential",
        uses=("attention.additive_pe_score_four_terms",),
        falsifiers=(
            Falsifier("relative_for_every_shift", Statement(
                (Eq(s0(m, n), s0(m + t, n + t)),), (V_M, V_N, V_T)),
                "for all m, n, t: score(m, n) = score(m+t, n+t)"),
            Falsifier("constant_diagonal", Statement((Eq(s0(m, m), s0(0, 0)),), (V_M,)),
                      "for all m: score(m, m) = score(0, 0)"),
        ),
        note="d = 2, W_Q = W_K = [[1,0],[1,1]], the same content (1,0) at m and at n (one "
        "word repeated): shifting both copies by one position changes their score",
    ),
    Claim(
        "attention.linearity_implies_relative_score",
        "Self-test (c): from PE(pos+k) = M_k PE(pos) it would follow that q_m k_n^T depends only "
        "on n - m (refuted, as the seed says: the same concrete W_Q, W_K, contents)",
        (
            src(APPENDIX, "Self-test", "does not immediately imply that"),
            src(APPENDIX, "3.3 What this is good for",
                "this linearity property of the encoding does not translate cleanly"),
        ),
        SHIFTED,
        "identity",
        uses=LIN,
        expect="refuted",
        erratum="rejected-inference",
        companion="attention.additive_pe_score_four_terms",
        falsifiers=(F.flip_sign(SHIFTED), F.shift(SHIFTED, 1)),
        note="The linearity holds (rotation.shift_is_linear) and still the score moves when "
        "both positions shift by 1: the cross terms x_m G PE(n)^T and PE(m) G x_n^T are not "
        "functions of n - m.  The seed is right; this records the naive implication refuted.",
    ),
    Claim(
        "attention.zero_content_score_is_relative",
        "The exception: with no content and W_Q W_K^T = I the score is sum_i cos(omega_i (n - m))",
        src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
            "Mixes position and content; not cleanly relative"),
        EXCEPTION,
        "identity",
        falsifiers=lambda st: (
            F.swap_sin_cos(st),
            F.subs_rhs(st, {nr: nr + 1}, "offset_plus_one", "cos(omega_i (n + 1 - m))"),
        ),
        note="d = 4; W_Q = W_K a symbolic rotation mixing the two frequency pairs, and "
        "W_Q = S, W_K = S^(-T) for a unimodular S (W_Q != W_K).  Only W_Q W_K^T enters.",
    ),
    Claim(
        "attention.fixed_linear_map_attends_to_offset_three",
        "One fixed map W_Q W_K^T = M_(-3)^T gives score sum_i cos(omega_i (n - m + 3)), largest "
        "(= d/2) exactly at the token 3 positions back, at every absolute position m",
        (
            src(EXAM, "Why sine/cosine pairs specifically", "the token 3 positions back"),
            src(APPENDIX, "3.3 What this is good for",
                "the same matrix at every absolute position"),
        ),
        OFFSET3,
        "identity",
        uses=("rotation.pair_shift_is_rotation",),
        falsifiers=(
            F.subs_rhs(OFFSET3, {n: n + 1}, "offset_two", "peak placed 2 back", index=0),
            Falsifier("peak_ahead", OFFSET3.with_concl((Eq(BACK.subs(n, m + 3), 2),)),
                      "the maximum placed 3 positions ahead"),
        ),
        note="d = 4, contents zero; M_(-3) from the shift matrix of the one definition. "
        "The bound uses cos <= 1 (z3 on the abstraction s^2 + c^2 = 1).",
    ),
    Claim(
        "attention.rope_rotation_transpose_product",
        "R(a)^T R(b) = R(b - a) for RoPE's 2x2 rotation; R(a) is orthogonal",
        (
            src(APPENDIX, "3.3 What this is good for", "RoPE (6.7) fixes this by rotating"),
            src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
                "Rotation (orthogonal matrix multiplication)"),
        ),
        RT,
        "identity",
        falsifiers=(
            F.subs_rhs(RT, {a_: -a_}, "sum_of_angles", "R(b + a) in place of R(b - a)"),
            F.swap_sin_cos(RT),
        ),
    ),
    Claim(
        "attention.rope_score_depends_only_on_offset",
        "RoPE: (R(m theta) u)^T (R(n theta) v) = u^T R((n - m) theta) v, so the score is "
        "unchanged when m and n shift together (one block at any omega; d = 4)",
        (
            src(APPENDIX, "3.3 What this is good for", "ensuring qm⊤knq_m^\\top k_n depends only"),
            src(FOURIER, "Another choice of frequencies: NeRF",
                "RoPE | Fixed frequencies applied as rotations in query and key space"),
            src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
                "sinusoidal PE is added to the embedding; RoPE rotates the query and key inside "
                "attention"),
            src(APPENDIX, "6. Summary", "getting both properties"),
        ),
        _rope_rows,
        "identity",
        uses=("attention.rope_rotation_transpose_product",),
        falsifiers=_rope_falsifiers,
        note="u = W_q x_m and v = W_k x_n left symbolic (any projection, any content).  The "
        "score is a sum over blocks, block i being the one-block lemma at omega = omega_i, so it "
        "holds for every even d; d = 4 with the paper frequencies is checked in full.",
    ),
    Claim(
        "attention.rope_uses_paper_frequencies",
        "RoPE's theta_i = 10000^(-2(i-1)/d), i = 1..d/2, are the paper's omega_(i-1)",
        (
            src(APPENDIX, "2. The formula",
                "This is identical in structure to RoPE's frequency schedule"),
            src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
                "they share the same frequencies"),
        ),
        ROPE_FREQ,
        "identity",
        falsifiers=(
            F.subs_rhs(ROPE_FREQ, {sp.Integer(10000): sp.Integer(1000)}, "base_1000",
                       "base 1000 on the right"),
            Falsifier("h_minus_one_family", ROPE_FREQ.with_concl(
                (Eq(ROPE_THETA, omega_expr(i1 - 1, d, "h-1")),)),
                "the tensor2tensor exponent i/(d/2 - 1)"),
        ),
        note="Su et al. 2021 index the pairs from 1",
    ),
]
