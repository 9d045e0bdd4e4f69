"""Encoding: the definition itself, its frequencies, wavelengths and layouts.

Main statements
  ``encoding.pe_zero_sin_zero_cos_one``, ``encoding.pe_zero_alternates_zero_one``,
  ``encoding.d4_vector_interleaved``, ``encoding.d4_vector_sin_cos_layout``,
  ``encoding.d4_frequencies_one_and_hundredth``, ``encoding.first_frequency_eq_one``,
  ``encoding.last_frequency_exact``, ``encoding.frequency_ratio_constant``,
  ``encoding.frequencies_strictly_decrease``,
  ``encoding.frequencies_between_ten_thousandth_and_one``,
  ``encoding.exponent_range``, ``encoding.entries_bounded``, ``encoding.first_pair_period_two_pi``,
  ``encoding.split_layout_is_permutation``, ``encoding.split_layout_entries_match_interleaved``,
  ``encoding.no_learned_parameters``, ``encoding.appendix_table_is_offset_one``,
  ``encoding.low_pairs_local_high_pairs_global`` (informal).
  Frequency span and wavelength range (approximate statements, some refuted) live in
  :mod:`peproof.families.encoding_span`.

Implementation notes
  Every expression is built from :mod:`peproof.encoding` (``omega_expr``, ``Encoding``).  Order
  facts about ``10000**(-2i/d)`` use :mod:`peproof.engines.powers` (exponent reduction), because
  the default z3 abstraction treats each power as an unrelated opaque number.

References
  Vaswani et al. 2017, section 3.5; seeds 000 (Fourier feature mapping), 001 (mechanics,
  practice), 002 (section 2, self-test), 004 (the sinusoidal formula).
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, mat_eq, var
from peproof.engines import powers
from peproof.engines.decide import with_default
from peproof.families._common import (
    I_IN_RANGE,
    OMEGA_I,
    V_D,
    V_I,
    V_POS,
    d,
    general_pe_pair,
    i,
    pos,
)
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.scope import omega as omega_expr
from peproof.seeds import APPENDIX, EXAM, FOURIER, INTRO, src

j, V_J = var("j", "nonneg_integer")
t, V_T = var("t", "real")
OMEGA_0 = omega_expr(0, d)
OMEGA_NEXT = omega_expr(i + 1, d)
OMEGA_MIN = omega_expr(d / 2 - 1, d)
HUNDREDTH = sp.Rational("0.01")


def _fal(name: str, stmt: Statement, note: str) -> Falsifier:
    return Falsifier(name, stmt, note)


def _pe0_concrete() -> Statement:
    rows = []
    for dd in (2, 4, 6, 8, 16, 64):
        rows += mat_eq(Encoding(dd).vector(0), [0, 1] * (dd // 2))
    return Statement(tuple(rows))


# ------------------------------------------------------------------ PE(0)
PE0 = Statement(mat_eq(general_pe_pair(0), [0, 1]), (V_D, V_I), hyps=(I_IN_RANGE,))

# ------------------------------------------------------------------ d = 4 written out
_E4, _E4S = Encoding(4, layout="interleaved"), Encoding(4, layout="sin_cos")
SEED_D4 = [sp.sin(pos), sp.sin(HUNDREDTH * pos), sp.cos(pos), sp.cos(HUNDREDTH * pos)]
D4_INTER = Statement(
    mat_eq(_E4.vector(pos), [sp.sin(pos), sp.cos(pos), sp.sin(pos / 100), sp.cos(pos / 100)]),
    (V_POS,),
)
D4_SPLIT = Statement(mat_eq(_E4S.vector(pos), SEED_D4), (V_POS,))
D4_FREQS = Statement(mat_eq(_E4.omegas, [1, HUNDREDTH]))

# ------------------------------------------------------------------ frequencies
FIRST = Statement(Eq(OMEGA_0, 1), (V_D,))
LAST = Statement((Eq(OMEGA_MIN, 10000 ** (-(d - 2) / d)), Eq(OMEGA_MIN, 10000 ** (-1 + 2 / d))),
                 (V_D,))
RATIO = Statement(Eq(OMEGA_NEXT / OMEGA_I, 10000 ** (-sp.Integer(2) / d)), (V_D, V_I))
NEXT_IN_RANGE = Le(i + 1, d / 2 - 1)
DECREASE = Statement(Lt(OMEGA_NEXT, OMEGA_I), (V_D, V_I), hyps=(NEXT_IN_RANGE,))
BETWEEN = Statement((Lt(sp.Rational(1, 10000), OMEGA_I), Le(OMEGA_I, 1)), (V_D, V_I),
                    hyps=(I_IN_RANGE,))
EXPONENT = 2 * i / d
EXPONENT_RANGE = Statement(
    (Le(0, EXPONENT), Le(EXPONENT, (d - 2) / d), Eq((d - 2) / d, 1 - 2 / d), Lt((d - 2) / d, 1),
     Eq(OMEGA_MIN, 10000 ** (-(d - 2) / d))),
    (V_D, V_I), hyps=(I_IN_RANGE,),
)

# ------------------------------------------------------------------ entries, period
_S, _C = general_pe_pair(pos)
BOUNDED = Statement((Le(-1, _S), Le(_S, 1), Le(-1, _C), Le(_C, 1)), (V_POS, V_D, V_I),
                    hyps=(I_IN_RANGE,))
PAIR0 = general_pe_pair(pos, OMEGA_0)
PERIOD = Statement(mat_eq(general_pe_pair(pos + 2 * sp.pi, OMEGA_0), PAIR0), (V_POS, V_D))

# ------------------------------------------------------------------ layouts
_H = d / 2
PERM = Statement(
    (Ne(2 * i, 2 * j), Ne(2 * i + 1, 2 * j + 1), Ne(2 * i, 2 * j + 1), Ne(2 * i + 1, 2 * j),
     Ne(2 * i, 2 * i + 1), Le(2 * j + 1, d - 1),
     Ne(i, j), Ne(_H + i, _H + j), Ne(i, _H + j), Ne(_H + i, j), Ne(i, _H + i), Le(_H + j, d - 1)),
    (V_D, V_I, V_J), hyps=(Lt(i, j), Le(j, d / 2 - 1)),
)
LAYOUT_DS = (4, 8, 16, 32)


def _split_entries() -> Statement:
    """split[j] == interleaved[sigma(j)] with sigma from channel/slot, sigma a bijection, and
    channel() agreeing with the symbolic formulas of ``PERM``."""
    rows = []
    for dd in LAYOUT_DS:
        inter, split = Encoding(dd, layout="interleaved"), Encoding(dd, layout="sin_cos")
        sigma = [inter.channel(*split.slot(c)) for c in range(dd)]
        vi, vs = inter.vector(pos), split.vector(pos)
        rows += [Eq(vs[c], vi[sigma[c]]) for c in range(dd)]
        rows += [Eq(len(set(sigma)), dd), Le(max(sigma), dd - 1), Le(0, min(sigma))]
        for p in range(dd // 2):
            rows += [Eq(inter.channel(p, "sin"), 2 * p), Eq(inter.channel(p, "cos"), 2 * p + 1),
                     Eq(split.channel(p, "sin"), p), Eq(split.channel(p, "cos"), dd // 2 + p)]
    return Statement(tuple(rows), (V_POS,))


def _split_falsifiers(st: Statement):
    inter, split = Encoding(4, layout="interleaved"), Encoding(4, layout="sin_cos")
    same = Statement(mat_eq(split.vector(pos), inter.vector(pos)), (V_POS,))
    return (
        _fal("identity_permutation", same, "[sin|cos] read as if it were interleaved"),
        F.swap_sin_cos(st.with_concl(st.concl[:4])),
    )


# ------------------------------------------------------------------ no parameters
T_ROWS = 4


def _param_counts() -> Statement:
    rows = []
    for dd in (4, 32):
        enc = Encoding(dd)
        table = [x for p in range(T_ROWS) for x in enc.vector(p)]
        learned = sp.Matrix(T_ROWS, dd, lambda r, c: sp.Symbol(f"theta_{r}_{c}", real=True))
        rows += [Eq(len(set().union(*(x.free_symbols for x in table))), 0),
                 Eq(len(learned.free_symbols), T_ROWS * dd),
                 Eq(len(set().union(*(x.free_symbols for x in enc.vector(pos))) - {pos}), 0)]
    return Statement(tuple(rows))


# ------------------------------------------------------------------ offset-1 table
def _offset_one() -> Statement:
    rows = []
    for dd in (4, 8):
        rows += mat_eq(Encoding(dd, offset=1).vector(t - 1), Encoding(dd).vector(t))
    rows.append(Ne(Encoding(4, offset=1).vector(0)[1], Encoding(4).vector(0)[1]))
    return Statement(tuple(rows), (V_T,))


def _offset_falsifiers(st: Statement):
    wrong0 = Statement(mat_eq(Encoding(4).vector(t - 1), Encoding(4).vector(t)), (V_T,))
    wrong2 = Statement(mat_eq(Encoding(4, offset=2).vector(t - 1), Encoding(4).vector(t)), (V_T,))
    return (_fal("offset_zero", wrong0, "table row t-1 read as PE(t-1)"),
            _fal("offset_two", wrong2, "offset 2 instead of 1"))


CLAIMS = [
    Claim(
        "encoding.pe_zero_sin_zero_cos_one",
        "PE(0, 2i) = 0 and PE(0, 2i+1) = 1 for every even d and every pair i",
        (src(INTRO, "Practice", "Compute $PE_{(0, 0)}$ and $PE_{(0, 1)}$ for any $d$"),
         src(APPENDIX, "Self-test (a)", "Confirm that PE(0)\\text{PE}(0) is (0,1,0,1)")),
        PE0, "identity",
        falsifiers=(
            _fal("values_swapped", Statement(mat_eq(general_pe_pair(0), [1, 0]), (V_D, V_I),
                                             hyps=(I_IN_RANGE,)), "sin(0) = 1, cos(0) = 0"),
            _fal("cos_zero", Statement(mat_eq(general_pe_pair(0), [0, 0]), (V_D, V_I),
                                       hyps=(I_IN_RANGE,)), "cos channel vanishes too"),
        ),
    ),
    Claim(
        "encoding.pe_zero_alternates_zero_one",
        "PE(0) = (0, 1, 0, 1, ...) for d in {2, 4, 6, 8, 16, 64}, built by Encoding (d = 4 is "
        "seed 002's (0,1,0,1))",
        src(APPENDIX, "Self-test (a)", "Confirm that PE(0)\\text{PE}(0) is (0,1,0,1)"),
        _pe0_concrete, "identity",
        uses=("encoding.pe_zero_sin_zero_cos_one",),
        falsifiers=lambda st: (
            _fal("reversed", st.map_rhs(lambda e: 1 - e, slice(0, 4)), "(1, 0, 1, 0)"),
            F.shift(st, 1, index=range(2, 6)),
        ),
    ),
    Claim(
        "encoding.d4_vector_interleaved",
        "d = 4: PE(pos) = (sin pos, cos pos, sin(pos/100), cos(pos/100))",
        (src(APPENDIX, "Self-test (a)", "write out the four-component vector"),
         src(INTRO, "Worked example 1", "Take $d = 4$, position $pos = 1$")),
        D4_INTER, "identity",
        falsifiers=(F.swap_sin_cos(D4_INTER),
                    F.subs_rhs(D4_INTER, {pos / 100: pos / 10000}, "slow_freq_ten_thousandth",
                               "slow pair at 1/10000 (the 'omega_min ~ 1/10000' slip)")),
    ),
    Claim(
        "encoding.d4_vector_sin_cos_layout",
        "Seed 000's d = 4 vector [sin pos, sin 0.01 pos, cos pos, cos 0.01 pos] is "
        "Encoding(4, layout='sin_cos')",
        src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
            "\\phi(pos) = \\big[\\, \\sin(pos),\\; \\sin(0.01\\, pos),\\; \\cos(pos),\\; "
            "\\cos(0.01\\, pos) \\,\\big]"),
        D4_SPLIT, "identity",
        falsifiers=(
            _fal("interleaved_layout", Statement(mat_eq(_E4.vector(pos), SEED_D4), (V_POS,)),
                 "the seed's vector is not the interleaved layout"),
            F.swap_sin_cos(D4_SPLIT),
        ),
        note="0.01 is read as the exact decimal 1/100.",
    ),
    Claim(
        "encoding.d4_frequencies_one_and_hundredth",
        "d = 4: the frequencies are exactly 1 and 0.01 (B = (1, 0.01))",
        src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
            "B = \\begin{pmatrix} 1 \\\\ 0.01 \\end{pmatrix}"),
        D4_FREQS, "numeric",
        falsifiers=(F.subs_rhs(D4_FREQS, {HUNDREDTH: sp.Rational(1, 10000)}, "slow_ten_thousandth",
                               "omega_1 = 1/10000"),
                    F.subs_rhs(D4_FREQS, {HUNDREDTH: sp.Rational(1, 10)}, "slow_tenth",
                               "exponent i/d instead of 2i/d")),
    ),
    Claim(
        "encoding.first_frequency_eq_one",
        "omega_0 = 10000^0 = 1 for every even d",
        (src(APPENDIX, "2. The formula", "For i=0i = 0: ω0=1"),
         src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
             "$\\omega_0 = 10000^{0} = 1$")),
        FIRST, "identity",
        falsifiers=(_fal("index_off_by_one", Statement(Eq(OMEGA_0, 10000 ** (-sp.Integer(2) / d)),
                                                       (V_D,)), "omega_0 read as omega_1"),
                    F.scale(FIRST, sp.Rational(1, 10000))),
    ),
    Claim(
        "encoding.last_frequency_exact",
        "omega_(d/2-1) = 10000^(-(d-2)/d) = 10000^(-1+2/d) exactly, for every even d",
        (src(FOURIER, "Every position has a unique representation, over practical lengths",
             "\\omega_{\\min} = 10000^{-(d-2)/d} \\approx \\frac{1}{10000}"),
         src(APPENDIX, "2. The formula", "ω≈10000−1+2/d")),
        LAST, "identity",
        falsifiers=(_fal("exponent_d_minus_one", LAST.map_rhs(lambda e: 10000 ** (-(d - 1) / d)),
                         "exponent -(d-1)/d"),
                    _fal("equals_ten_thousandth", LAST.map_rhs(lambda e: sp.Rational(1, 10000)),
                         "the approximation 1/10000 taken as exact")),
        note="Seed 002 writes '≈' where the relation is an exact equality; the weaker "
             "statement follows.",
    ),
    Claim(
        "encoding.frequency_ratio_constant",
        "omega_(i+1) / omega_i = 10000^(-2/d): the frequencies form a geometric progression",
        (src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
             "The Transformer picks a geometric progression"),
         src(APPENDIX, "1. Why this appendix exists", "geometrically-progressing frequencies")),
        RATIO, "identity",
        falsifiers=(F.subs_rhs(RATIO, {d: 2 * d}, "half_step", "ratio 10000^(-1/d)"),
                    F.flip_sign(RATIO)),
    ),
    Claim(
        "encoding.frequencies_strictly_decrease",
        "omega_(i+1) < omega_i: low indices oscillate fast, high indices slowly",
        (src(INTRO, "The mechanics",
             "low indices oscillate fast (short wavelength), high indices oscillate slowly "
             "(long wavelength)"),
         src(FOURIER, "Another choice of frequencies: NeRF",
             "shrink from $1$ down toward $1/10000$ as $i$ grows")),
        DECREASE, "inequality",
        falsifiers=(_fal("increasing", Statement(Lt(OMEGA_I, OMEGA_NEXT), (V_D, V_I),
                                                 hyps=(NEXT_IN_RANGE,)), "order reversed"),
                    _fal("halving", Statement(Le(OMEGA_NEXT, OMEGA_I / 2), (V_D, V_I),
                                              hyps=(NEXT_IN_RANGE,)),
                         "each step at least halves the frequency (false for d >= 28)")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.frequencies_between_ten_thousandth_and_one",
        "1/10000 < omega_i <= 1 for every pair i",
        src(FOURIER, "Another choice of frequencies: NeRF",
            "shrink from $1$ down toward $1/10000$ as $i$ grows"),
        BETWEEN, "inequality",
        uses=("encoding.frequencies_strictly_decrease",),
        falsifiers=(_fal("strictly_below_one", Statement(Lt(OMEGA_I, 1), (V_D, V_I),
                                                         hyps=(I_IN_RANGE,)), "omega_0 < 1"),
                    _fal("above_hundredth", Statement(Lt(sp.Rational(1, 100), OMEGA_I), (V_D, V_I),
                                                      hyps=(I_IN_RANGE,)), "bound 1/100")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.exponent_range",
        "The exponent 2i/d runs over [0, (d-2)/d]; its maximum is 1 - 2/d < 1",
        (src(EXAM, "The sinusoidal formula",
             "for small i (early dimensions), the exponent is near 0"),
         src(EXAM, "The sinusoidal formula", "the exponent approaches 1")),
        EXPONENT_RANGE, "inequality",
        falsifiers=(_fal("reaches_one", EXPONENT_RANGE.with_concl(Eq((d - 2) / d, 1)),
                         "the exponent reaches 1"),
                    F.shift(EXPONENT_RANGE, 1, index=2, name="max_off_by_one")),
        note="'approaches 1' is read within one d: the largest exponent is exactly 1 - 2/d, "
             "within 2/d of 1 and never equal to it.",
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.entries_bounded",
        "Every entry of PE lies in [-1, 1]",
        src(INTRO, "The mechanics",
            "each pair of dimensions gets a sine and cosine wave at a different frequency"),
        BOUNDED, "inequality",
        falsifiers=(F.scale(BOUNDED, sp.Rational(1, 2), index=1, name="bound_half"),
                    _fal("cos_nonnegative", BOUNDED.with_concl(Le(0, _C)), "cos >= 0")),
        note="No seed states the bound; it is implicit in 'sine and cosine wave'. z3 decides it "
             "on the abstraction sin^2 + cos^2 = 1.",
    ),
    Claim(
        "encoding.first_pair_period_two_pi",
        "The pair of omega_0 = 1 has period 2 pi",
        src(APPENDIX, "2. The formula",
            "(period 2π2\\pi, very fast — one full cycle every ∼6\\sim 6 tokens)"),
        PERIOD, "identity",
        uses=("encoding.first_frequency_eq_one",),
        falsifiers=(
            _fal("period_pi", Statement(mat_eq(general_pe_pair(pos + sp.pi, OMEGA_0), PAIR0),
                                        (V_POS, V_D)), "period pi"),
            _fal("period_six", Statement(mat_eq(general_pe_pair(pos + 6, OMEGA_0), PAIR0),
                                         (V_POS, V_D)), "'every ~6 tokens' taken as exact"),
        ),
        note="That 2 pi is the least period is not formalised here.",
    ),
    Claim(
        "encoding.split_layout_is_permutation",
        "Both layouts put the d (pair, component) slots into distinct channels of 0..d-1, so "
        "[sin|cos] is a permutation of the interleaved layout",
        (src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
             "which is the same set of numbers as the interleaved"),
         src(FOURIER, "The Fourier Feature Mapping as a Subsampling", "just permuted")),
        PERM, "integer",
        falsifiers=(
            _fal("interleaved_range_short", PERM.with_concl(Le(2 * j + 1, d - 2)), "range 0..d-2"),
            _fal("split_range_short", PERM.with_concl(Le(_H + j, d - 2)), "range 0..d-2"),
        ),
        note="Channels: interleaved (2i, 2i+1), [sin|cos] (i, d/2+i), i < d/2; pairs of slots "
             "with i < j and the same-index pairs cover every pair of distinct slots. An "
             "injective map of d slots into d channels is a bijection.",
    ),
    Claim(
        "encoding.split_layout_entries_match_interleaved",
        "d in {4, 8, 16, 32}: split[j] = interleaved[sigma(j)] with sigma from "
        "Encoding.channel/slot "
        "a bijection, and channel() matching the formulas (2i, 2i+1), (i, d/2+i)",
        src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
            "which is the same set of numbers as the interleaved"),
        _split_entries, "identity",
        uses=("encoding.split_layout_is_permutation",),
        falsifiers=_split_falsifiers,
    ),
    Claim(
        "encoding.no_learned_parameters",
        "The PE table has no free symbols (0 parameters); a learned T x d table has T*d",
        (src(APPENDIX, "2.1 How it is used", "The PE is not a parameter"),
         src(APPENDIX, "Self-test (d)",
             "What is the parameter count of sinusoidal PE versus learned PE"),
         src(INTRO, "What this means in practice", "it needs no learned parameters"),
         src(EXAM, "Learned vs sinusoidal", "no extra parameters to learn")),
        _param_counts, "integer",
        falsifiers=lambda st: (F.shift(st, 1, index=0, name="one_parameter"),
                               F.scale(st, sp.Rational(1, 2), index=1, name="learned_half")),
        note=f"Counts are exact: free symbols of Encoding(d).vector(p) for p < {T_ROWS} and of "
             "Encoding(d).vector(pos) besides pos, d in {4, 32}; the learned table is a matrix of "
             "T*d symbols. (d = 512 behaves the same but costs 0.3 s to build symbolically.)",
    ),
    Claim(
        "encoding.appendix_table_is_offset_one",
        "Seed 002's table [PE(1); ...; PE(T)] starts at position 1: row t-1 of Encoding(d, "
        "offset=1) is PE(t), and its first row is not PE(0)",
        (src(APPENDIX, "2.1 How it is used", "X=X~+[PE(1);PE(2);… ;PE(T)]"),
         src(APPENDIX, "2. The formula", "For position pos∈{0,1,2,… }")),
        _offset_one, "identity",
        falsifiers=_offset_falsifiers,
        note="The formula defines pos in {0, 1, 2, ...} while the table indexes rows from 1; as "
             "0-based rows this is the offset-1 variant (checked for d in {4, 8}).",
    ),
    Claim(
        "encoding.low_pairs_local_high_pairs_global",
        "Low-i pairs encode local position, high-i pairs global position",
        src(APPENDIX, "2. The formula",
            "The intuition: low-ii pairs encode local position, high-ii pairs encode global "
            "position."),
        None, "informal", expect="unknown",
        note="An intuition about what a model reads from the pairs; its mathematical core "
             "(frequencies decrease in i) is encoding.frequencies_strictly_decrease.",
    ),
]
