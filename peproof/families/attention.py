"""Attention: self-attention is permutation equivariant; positional encoding breaks the symmetry.

Main statements
  ``attention.rows_of_qkv_are_permuted`` (swapping tokens permutes the rows of Q, K, V),
  ``attention.softmax_weights_are_convex`` (a row of attention is a weighted average),
  ``attention.self_attention_is_permutation_equivariant`` (``Attn(PX) = P Attn(X)``, all six
  permutations of three tokens, every entry symbolic),
  ``attention.reordered_sentence_gives_identical_output`` (seed 000, refuted: outputs are
  permuted, not identical),
  ``attention.shuffled_weights_leave_output_unchanged`` (seed 001, refuted) with its companion
  ``attention.shuffled_weights_permute_output``,
  ``attention.additive_pe_breaks_equivariance`` (a certified instance).
  Scores with positional information are in :mod:`peproof.families.attention_scores`.

Implementation notes
  ``Attn(X) = softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V`` with three tokens of dimension 2 and
  fully symbolic ``X, W_Q, W_K, W_V``.  A row of the softmax is a rational function of the atoms
  ``exp(score)``; :mod:`peproof.engines.rational` abstracts each ``exp`` to a positive atom
  (congruent on the expanded score) and decides the identity by cross-multiplication.  For every
  ``n`` the same argument works: row ``m`` of ``Attn(PX)`` is built from the scores
  ``q_(pi m) . k_(pi n)`` and values ``v_(pi n)``, a re-indexing of the sum of row ``pi(m)`` of
  ``Attn(X)``; the concrete ``n = 3`` check is the machine-checked instance.
  Falsifiers keep the real ``exp`` so the witness grid can evaluate them in arb.

References
  Vaswani et al. 2017 (scaled dot-product attention); seeds 000 (why encode position), 001
  (first paragraph), 004 (why positional encoding is needed).
"""

from __future__ import annotations

import itertools

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, Var, mat_eq
from peproof.engines import rational
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import EXAM, FOURIER, INTRO, src

N_TOK, DM = 3, 2
PERMS = tuple(itertools.permutations(range(N_TOK)))
EYE = sp.eye(DM)


def _sym_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda r, c: sp.Symbol(f"{name}_{r}{c}", real=True))


X = _sym_matrix("x", N_TOK, DM)
WQ, WK, WV = _sym_matrix("wq", DM, DM), _sym_matrix("wk", DM, DM), _sym_matrix("wv", DM, DM)
# weights first, tokens last (token 0 last of all): the witness grid varies the last variables
# first, so wrong variants are refuted at the first points where the tokens differ
V_W = tuple(Var(s, "real") for m in (WQ, WK, WV) for s in m)
V_X = tuple(Var(X[r, c], "real") for r in reversed(range(N_TOK)) for c in range(DM))


def perm_matrix(p) -> sp.Matrix:
    """``P`` with ``(P X)`` row ``m`` equal to row ``p[m]`` of ``X``."""
    m = sp.zeros(len(p), len(p))
    for r, c in enumerate(p):
        m[r, c] = 1
    return m


def softmax_rows(scores: sp.Matrix) -> sp.Matrix:
    """Row softmax; each score is expanded so equal scores give structurally equal ``exp``."""
    out = sp.zeros(scores.rows, scores.cols)
    for r in range(scores.rows):
        e = [sp.exp(sp.expand(scores[r, c])) for c in range(scores.cols)]
        tot = sp.Add(*e)
        for c in range(scores.cols):
            out[r, c] = e[c] / tot
    return out


def attn_row(x: sp.Matrix, r: int, wq=WQ, wk=WK, wv=WV) -> sp.Matrix:
    """Row ``r`` of ``softmax(Q K^T / sqrt(d_k)) V`` (Q = x W_Q, K = x W_K, V = x W_V)."""
    q, k, v = x[r, :] * wq, x * wk, x * wv
    return softmax_rows(q * k.T / sp.sqrt(wk.cols)) * v


def attn(x: sp.Matrix, wq=WQ, wk=WK, wv=WV) -> sp.Matrix:
    """Scaled dot-product self-attention on the rows of ``x``."""
    return sp.Matrix.vstack(*[attn_row(x, r, wq, wk, wv) for r in range(x.rows)])


# ------------------------------------------------------------------ rows of Q, K, V
SWAPS = ((1, 0, 2), (2, 1, 0), (0, 2, 1))


def _rows_permuted():
    rows = []
    for p in SWAPS:
        pm = perm_matrix(p)
        for w in (WQ, WK, WV):
            rows += mat_eq((pm * X) * w, pm * (X * w))
    return Statement(tuple(rows), V_W + V_X)


# ------------------------------------------------------------------ softmax is a weighted average
s0, s1, s2 = (sp.Symbol(f"s{j}", real=True) for j in range(3))
_W = softmax_rows(sp.Matrix([[s0, s1, s2]]))
CONVEX = Statement(
    (Eq(_W[0] + _W[1] + _W[2], 1),) + tuple(Lt(0, w) for w in _W),
    tuple(Var(s, "real") for s in (s0, s1, s2)),
)


# ------------------------------------------------------------------ equivariance
def _equivariance():
    base = attn(X)
    rows = []
    for p in PERMS:
        pm = perm_matrix(p)
        rows += mat_eq(attn(pm * X), pm * base)
    return Statement(tuple(rows), V_W + V_X)


REVERSE = perm_matrix((2, 1, 0))  # "the cat sat" -> "sat cat the"
CYCLE = perm_matrix((1, 2, 0))


def _identical_after_reordering():
    return Statement(mat_eq(attn(REVERSE * X, EYE, EYE, EYE), attn(X, EYE, EYE, EYE)), V_X)


def _equivariance_falsifiers(stmt):
    # W = I and one entry each, so the witness search is quick; entry (1, 0) of the 3-cycle
    # compares rows 2 and 0 of Attn(X), which differ at the second grid point
    swap = perm_matrix((1, 0, 2))
    inv = attn_row(swap * X, 0, EYE, EYE, EYE)[0] - attn_row(X, 0, EYE, EYE, EYE)[0]
    # row 1 of P^T Attn(X) is row 0 of Attn(X) for the 3-cycle P = (1, 2, 0)
    cyc = attn_row(CYCLE * X, 1, EYE, EYE, EYE)[0] - attn_row(X, 0, EYE, EYE, EYE)[0]
    return (
        Falsifier("invariance", Statement((Eq(inv, 0),), V_X),
                  "Attn(PX) = Attn(X) for a swap (outputs not permuted), W = I"),
        Falsifier("inverse_permutation", Statement((Eq(cyc, 0),), V_X),
                  "Attn(PX) = P^T Attn(X) for a 3-cycle (P^T != P), W = I"),
    )


# ------------------------------------------------------------------ shuffled attention weights
SC = sp.Matrix(N_TOK, N_TOK, lambda r, c: sp.Symbol(f"s_{r}{c}", real=True))
VAL = _sym_matrix("v", N_TOK, DM)
A_SOFT = softmax_rows(SC)
SWAP01 = perm_matrix((1, 0, 2))
# order: the variables the witness needs to vary (v_00, s_01) last
_V_SHUF = tuple(
    Var(s, "real") for s in [e for e in list(SC) + list(VAL) if e not in (VAL[0, 0], SC[0, 1])]
) + (Var(VAL[0, 0], "real"), Var(SC[0, 1], "real"))


def _shuffled_unchanged():
    return Statement(
        mat_eq((SWAP01 * A_SOFT * SWAP01.T) * (SWAP01 * VAL), A_SOFT * VAL), _V_SHUF
    )


AG = _sym_matrix("a", N_TOK, N_TOK)
_V_PERM = tuple(
    Var(e, "real") for e in list(AG) + list(VAL) if e not in (VAL[0, 0], AG[0, 1])
) + (Var(VAL[0, 0], "real"), Var(AG[0, 1], "real"))


def _shuffled_permutes():
    rows = []
    for p in PERMS:
        pm = perm_matrix(p)
        rows += mat_eq((pm * AG * pm.T) * (pm * VAL), pm * (AG * VAL))
    return Statement(tuple(rows), _V_PERM)


def _shuffled_permutes_falsifiers(st):
    first = st.with_concl(st.concl[:2])  # the identity permutation's first row
    lhs = (SWAP01 * AG) * (SWAP01 * VAL)
    return (
        F.flip_sign(first),
        Falsifier("columns_not_permuted", Statement((Eq(lhs[1, 0], (SWAP01 * AG * VAL)[1, 0]),),
                                                    _V_PERM),
                  "(P A)(P V) = P (A V): the weights' columns left unshuffled"),
    )


# ------------------------------------------------------------------ positional encoding added
PE3 = sp.Matrix([Encoding(DM).vector(p) for p in range(N_TOK)])  # rows PE(0), PE(1), PE(2)


def _pe_breaks():
    # row 0 of Attn(PX + PE) against row 0 of P Attn(X + PE), which is row 1 of Attn(X + PE)
    lhs = attn_row(SWAP01 * X + PE3, 0, EYE, EYE, EYE)
    rhs = attn_row(X + PE3, 1, EYE, EYE, EYE)
    return Statement((Ne(lhs[0], rhs[0]),), V_X, quant="exists")


ONE = sp.Matrix([[1, 0], [0, 0], [0, 0]])


def _pe_breaks_falsifiers(stmt):
    # closed wrong variants at X = 0 (three equal tokens), decided directly in arb
    r0 = attn_row(PE3, 0, EYE, EYE, EYE)[0]  # P X = X when X = 0
    r1 = attn_row(PE3, 1, EYE, EYE, EYE)[0]
    return (
        Falsifier("equivariance_survives", Statement((Le(sp.Abs(r0 - r1), 0),)),
                  "Attn(PX + PE) = P Attn(X + PE) at X = 0 (entry (0, 0))"),
        Falsifier("invariant_with_pe", Statement((Le(sp.Abs(
            attn_row(SWAP01 * ONE + PE3, 0, EYE, EYE, EYE)[0]
            - attn_row(ONE + PE3, 0, EYE, EYE, EYE)[0]), 0),)),
                  "Attn(PX + PE) = Attn(X + PE) at X with rows (1, 0), 0, 0 (entry (0, 0))"),
    )


def _first_row_falsifiers(st):
    one = st.with_concl(st.concl[:1])
    return (F.flip_sign(one), F.shift(one, 1))


EQUIV = "attention.self_attention_is_permutation_equivariant"

CLAIMS = [
    Claim(
        "attention.rows_of_qkv_are_permuted",
        "Swapping two tokens permutes the rows of Q = XW_Q, K = XW_K, V = XW_V: (PX)W = P(XW)",
        src(EXAM, "Why positional encoding is needed",
            "swapping two tokens' positions just permutes the rows of Q, K, V"),
        _rows_permuted,
        "identity",
        falsifiers=lambda st: (
            F.subs_rhs(st, {X[0, 0]: X[1, 0], X[1, 0]: X[0, 0], X[0, 1]: X[1, 1],
                            X[1, 1]: X[0, 1]}, "rows_not_permuted",
                       "the right side uses the unswapped order"),
            F.flip_sign(st),
        ),
        note="three tokens of dimension 2, every transposition of two tokens, symbolic W",
    ),
    Claim(
        "attention.softmax_weights_are_convex",
        "Softmax weights of a row are positive and sum to 1: attention averages the values",
        src(INTRO, "Sinusoidal Positional Encoding",
            "Self-attention computes a weighted average of value vectors"),
        CONVEX,
        "identity",
        falsifiers=(
            F.scale(CONVEX, 2, index=0),
            Falsifier("unnormalised", Statement(
                (Eq(sp.exp(s0) + sp.exp(s1) + sp.exp(s2), 1),), CONVEX.vars),
                "the exponentials without the softmax denominator"),
        ),
        proof=rational.decide,
        note="three scores; positivity by z3 from exp(u) > 0",
    ),
    Claim(
        EQUIV,
        "Attn(PX) = P Attn(X) for all six permutations of three tokens: each token's output is "
        "unchanged, only reordered (the multiset of output rows is the same)",
        (
            src(FOURIER, "What Problem are we Trying to Solve?",
                "self attention is *permutation equivariant*"),
            src(EXAM, "Why positional encoding is needed",
                "Self-attention treats the input as a set, not a sequence"),
            src(INTRO, "Sinusoidal Positional Encoding",
                "attention treats a sequence as a bag of vectors, not an ordered list"),
            src(EXAM, "Why positional encoding is needed",
                "the attention computation itself doesn't know which position came first"),
        ),
        _equivariance,
        "identity",
        uses=("attention.rows_of_qkv_are_permuted", "attention.softmax_weights_are_convex"),
        falsifiers=_equivariance_falsifiers,
        proof=rational.decide,
        note="n = 3 tokens, d_model = d_k = 2, X, W_Q, W_K, W_V fully symbolic; exp(score) is an "
        "opaque positive atom.  General n: (PX)W = P(XW) makes the score matrix P S P^T, the "
        "row softmax commutes with that conjugation, and P^T P = I gives P softmax(S) V.",
    ),
    Claim(
        "attention.reordered_sentence_gives_identical_output",
        "Seed 000 read literally: reversing 'the cat sat' to 'sat cat the' leaves Attn(X) "
        "unchanged (false: the output rows are reversed too)",
        src(FOURIER, "What Problem are we Trying to Solve?",
            "look identical to the attention computation"),
        _identical_after_reordering,
        "identity",
        expect="refuted",
        erratum="literal",
        companion=EQUIV,
        falsifiers=_first_row_falsifiers,
        proof=rational.decide,
        note="W_Q = W_K = W_V = I (a counterexample there refutes the claim for general W). "
        "True reading: every token gets the same output vector in both orders (the "
        "multiset of rows is equal), the companion's Attn(PX) = P Attn(X).",
    ),
    Claim(
        "attention.shuffled_weights_leave_output_unchanged",
        "Seed 001: shuffling tokens and attention weights alike leaves the output unchanged, "
        "(P A P^T)(P V) = A V (false: the output is shuffled the same way)",
        src(INTRO, "Sinusoidal Positional Encoding", "the output would be unchanged"),
        _shuffled_unchanged,
        "identity",
        expect="refuted",
        erratum="literal",
        companion="attention.shuffled_weights_permute_output",
        falsifiers=_first_row_falsifiers,
        proof=rational.decide,
        note="A = softmax(S) with nine symbolic scores, V symbolic, P swaps tokens 0 and 1. "
        "Unchanged as a bag of rows, which is what the next sentence of the seed says.",
    ),
    Claim(
        "attention.shuffled_weights_permute_output",
        "(P A P^T)(P V) = P (A V) for every permutation P: the output rows are permuted",
        src(INTRO, "Sinusoidal Positional Encoding",
            "shuffled the attention weights identically to match"),
        _shuffled_permutes,
        "identity",
        falsifiers=_shuffled_permutes_falsifiers,
        note="A (3x3) and V (3x2) fully symbolic; all six permutations",
    ),
    Claim(
        "attention.additive_pe_breaks_equivariance",
        "With PE(0), PE(1), PE(2) added, there are tokens X with Attn(PX + PE) != P Attn(X + PE)",
        (
            src(EXAM, "Why positional encoding is needed",
                "So position has to be injected explicitly"),
            src(FOURIER, "What Problem are we Trying to Solve?", "To induce order"),
            src(INTRO, "The analogy: giving every seat a unique, decodable fingerprint",
                "interactions can now be influenced by relative seat position"),
        ),
        _pe_breaks,
        "existential",
        falsifiers=_pe_breaks_falsifiers,
        note="d = 2 (PE(p) = (sin p, cos p)), W_Q = W_K = W_V = I, P swaps tokens 0 and 1; "
        "the certified instance has three equal tokens, which attention alone cannot tell apart",
    ),
]
