"""Products: what the dot product of token-plus-position vectors contains.

Main statements
  ``products.sin_mul_sin``, ``products.cos_mul_cos`` (product-to-sum identities),
  ``products.four_term_expansion`` (``(a_j + PE_a,j)(b_j + PE_b,j)`` and its sum over ``j``),
  ``products.same_index_same_function`` (channel ``j`` of both vectors is the same function, in
  every layout, so the position-position term is ``sin*sin`` or ``cos*cos``),
  ``products.sin_sin_component`` (Case 1), ``products.cos_cos_component`` (Case 2),
  ``products.component_depends_on_position_sum`` (one component really carries
  ``cos(omega (pos_a + pos_b))``), ``products.pair_sum_cancels_position_sum`` and
  ``products.position_dot_depends_on_difference`` (the ``+`` terms cancel in the dot product),
  ``products.position_dot_concrete_layouts``.

Implementation notes
  The seed writes ``PE_{a,i}`` for a channel and ``omega_i`` for a pair with the same letter; in
  the paper's interleaved layout channel ``2i`` holds ``sin(omega_i pos)`` and ``2i+1`` holds
  ``cos(omega_i pos)``, which is how Case 1 and Case 2 are stated here (symbolic ``d`` and ``i``,
  built from ``omega_expr``).  The Case 1 / Case 2 right-hand sides in the seed open one more
  parenthesis than they close, ``\\frac{1}{2} (cos(..(pos_a-pos_b)) - (cos (..(pos_a+pos_b)))``;
  the missing ``)`` is read at the end, so ``1/2`` multiplies both cosines (the other placement,
  ``1/2`` on the first cosine only, is recorded as a falsifier and is refuted).
  Everything is decided by the exponential rewrite; sums over ``i`` are lifted.

References
  Seed 000, "Adding Positional Encodings to Tokens", Case 1 and Case 2.
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Ne, Statement, var
from peproof.encoding import LAYOUTS
from peproof.families._common import (
    I_IN_RANGE,
    OMEGA_I,
    V_D,
    V_I,
    general_pe_pair,
    i,
    pair_sum,
    pair_symbols,
)
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, src

SEC = "Adding Positional Encodings to Tokens"
CASE1, CASE2 = "Case 1: Multiplying Two Sines", "Case 2: Multiplying Two Cosines"
x, V_X = var("a", "real")
y, V_Y = var("b", "real")
pa, V_PA = var("pos_a", "real")
pb, V_PB = var("pos_b", "real")
t, V_T = var("t", "real")
ta, V_TA = var("a_j", "real")
tb, V_TB = var("b_j", "real")
half = sp.Rational(1, 2)

# ------------------------------------------------------------------ product to sum
SIN_SIN = Statement(Eq(sp.sin(x) * sp.sin(y), half * (sp.cos(x - y) - sp.cos(x + y))), (V_X, V_Y))
COS_COS = Statement(Eq(sp.cos(x) * sp.cos(y), half * (sp.cos(x - y) + sp.cos(x + y))), (V_X, V_Y))

# ------------------------------------------------------------------ the four terms
PA, PB = general_pe_pair(pa), general_pe_pair(pb)  # channels (2i, 2i+1) of PE(pos_a), PE(pos_b)


def _four(p, q):
    return Eq((ta + p) * (tb + q), ta * tb + ta * q + tb * p + p * q)


def _four_terms():
    """Per channel (symbolic d, i; both channels of pair i) and summed over the d = 4 vector."""
    enc = Encoding(4)
    va, vb = enc.vector(pa), enc.vector(pb)
    toks = sp.symbols("a0:4 b0:4", real=True)
    ta4, tb4 = toks[:4], toks[4:]

    def dot(u, v):
        return sp.Add(*[p * q for p, q in zip(u, v, strict=True)])

    tilde_a = [s + p for s, p in zip(ta4, va, strict=True)]
    tilde_b = [s + p for s, p in zip(tb4, vb, strict=True)]
    summed = Eq(dot(tilde_a, tilde_b), dot(ta4, tb4) + dot(ta4, vb) + dot(tb4, va) + dot(va, vb))
    from peproof.claims import Var

    return Statement(
        (_four(PA[0], PB[0]), _four(PA[1], PB[1]), summed),
        tuple(Var(s, "real") for s in toks) + (V_TA, V_TB, V_PA, V_PB, V_D, V_I),
        hyps=(I_IN_RANGE,),
    )


FOUR = _four_terms()


# ------------------------------------------------------------------ same index, same function
def _same_index(ds=(2, 4, 8), mixed=False):
    """For every layout and d: channel j = channel(i, f) of PE(pos_a) and of PE(pos_b) is
    f(w_i pos), so their product is f(w_i pos_a) f(w_i pos_b) with one f; the d channels are
    covered once (so the dot product is a sum of exactly such terms)."""
    ws, wvars = pair_symbols(max(ds) // 2)
    fn = {"sin": sp.sin, "cos": sp.cos}
    rows = []
    for dd in ds:
        for layout in LAYOUTS:
            enc = Encoding(dd, layout=layout)
            va, vb = enc.vector(pa, ws), enc.vector(pb, ws)
            for p in range(enc.pairs):
                for which in ("sin", "cos"):
                    j = enc.channel(p, which)
                    other = fn["cos" if which == "sin" else "sin"] if mixed else fn[which]
                    rows.append(Eq(va[j] * vb[j], fn[which](ws[p] * pa) * other(ws[p] * pb)))
            chans = {enc.channel(p, w) for p in range(enc.pairs) for w in ("sin", "cos")}
            rows.append(Eq(sp.Integer(len(chans)), sp.Integer(dd)))
    return Statement(tuple(rows), (V_PA, V_PB) + wvars)


SAME_INDEX = _same_index()

# ------------------------------------------------------------------ Case 1 and Case 2
# the seed's right-hand sides, the unclosed parenthesis closed at the end
CASE1_RHS = half * (sp.cos(OMEGA_I * (pa - pb)) - (sp.cos(OMEGA_I * (pa + pb))))
CASE2_RHS = half * (sp.cos(OMEGA_I * (pa - pb)) + (sp.cos(OMEGA_I * (pa + pb))))
SIN_COMPONENT = Statement(Eq(PA[0] * PB[0], CASE1_RHS), (V_PA, V_PB, V_D, V_I), (I_IN_RANGE,))
COS_COMPONENT = Statement(Eq(PA[1] * PB[1], CASE2_RHS), (V_PA, V_PB, V_D, V_I), (I_IN_RANGE,))


def _half_on_first(sign):
    """The other placement of the missing parenthesis: 1/2 on the difference term only."""
    return half * sp.cos(OMEGA_I * (pa - pb)) + sign * sp.cos(OMEGA_I * (pa + pb))


# ------------------------------------------------------------------ the + terms
W0 = OMEGA_I.xreplace({i: 0})  # omega_0 = 10000**0 = 1 for every d, from the definition


def _shifted(f, s):
    return f(W0 * (pa + s)) * f(W0 * (pb + s))


DEPENDS_ON_SUM = Statement(
    (Ne(_shifted(sp.sin, 0), _shifted(sp.sin, t)), Ne(_shifted(sp.cos, 0), _shifted(sp.cos, t))),
    (V_PA, V_PB, V_T),
    quant="exists",
)
PAIR_CANCEL = Statement(
    Eq(PA[0] * PB[0] + PA[1] * PB[1], sp.cos(OMEGA_I * (pa - pb))),
    (V_PA, V_PB, V_D, V_I),
    (I_IN_RANGE,),
)
DOT_ALL_D = Statement(
    Eq(pair_sum(PA[0] * PB[0] + PA[1] * PB[1]), pair_sum(sp.cos(OMEGA_I * (pa - pb)))),
    (V_PA, V_PB, V_D),
)


def _dot_concrete(ds=(2, 4, 8)):
    """sum_j PE_a,j PE_b,j = sum_i cos(w_i (pos_a - pos_b)) over the channels of each layout."""
    ws, wvars = pair_symbols(max(ds) // 2)
    rows = []
    for dd in ds:
        for layout in LAYOUTS:
            enc = Encoding(dd, layout=layout)
            va, vb = enc.vector(pa, ws), enc.vector(pb, ws)
            lhs = sp.Add(*[p * q for p, q in zip(va, vb, strict=True)])
            rows.append(Eq(lhs, sp.Add(*[sp.cos(ws[p] * (pa - pb)) for p in range(enc.pairs)])))
    return Statement(tuple(rows), (V_PA, V_PB) + wvars)


DOT_CONCRETE = _dot_concrete()


def _universal(stmt: Statement, name: str, note: str) -> Falsifier:
    return Falsifier(name, Statement(tuple(Eq(r.lhs, r.rhs) for r in stmt.concl), stmt.vars), note)


CLAIMS = [
    Claim(
        "products.sin_mul_sin",
        "sin a sin b = (cos(a - b) - cos(a + b)) / 2",
        src(FOURIER, CASE1, "sin(a) sin(b) = \\frac{1}{2} (cos(a-b) - cos(a+b))"),
        SIN_SIN,
        "identity",
        falsifiers=(F.flip_sign(SIN_SIN), F.swap_sin_cos(SIN_SIN)),
    ),
    Claim(
        "products.cos_mul_cos",
        "cos a cos b = (cos(a - b) + cos(a + b)) / 2",
        src(FOURIER, CASE2,
            "\\cos(a)\\cos(b)=\\frac{1}{2}\\left(\\cos(a-b)+\\cos(a+b)\\right)"),
        COS_COS,
        "identity",
        falsifiers=(F.flip_sign(COS_COS), F.scale(COS_COS, 2, name="no_half")),
    ),
    Claim(
        "products.four_term_expansion",
        "(a_j + PE_a,j)(b_j + PE_b,j) = a_j b_j + a_j PE_b,j + b_j PE_a,j + PE_a,j PE_b,j "
        "(both channels of every pair; and summed over j for d = 4)",
        (
            src(FOURIER, SEC,
                "a_i b_i + a_i PE_{b,i} + b_i PE_{a,i} + PE_{a,i}PE_{b,i}"),
            src(FOURIER, SEC, "As we can see we have four terms"),
        ),
        FOUR,
        "identity",
        falsifiers=(
            F.subs_rhs(FOUR, {ta: 0}, "token_a_cross_term_dropped",
                       "a_j set to 0 on the right only (drops a_j b_j and a_j PE_b,j)"),
            F.shift(FOUR, 1),
        ),
    ),
    Claim(
        "products.same_index_same_function",
        "Channel j of PE(pos_a) and of PE(pos_b) is the same function f(w_i pos), f in {sin, cos},"
        " in every layout: the position term is sin*sin or cos*cos, never sin*cos",
        src(FOURIER, SEC, "we only dot the same indices of the position vector together"),
        SAME_INDEX,
        "identity",
        falsifiers=(
            Falsifier("mixed_sin_cos", _same_index((2, 4), mixed=True),
                      "sin(w pos_a) cos(w pos_b): the product of partner channels"),
            F.subs_rhs(SAME_INDEX.with_concl(SAME_INDEX.concl[:12]), {pb: pa + 1},
                       "other_position", "pos_b replaced by pos_a + 1 on the right"),
        ),
        note="d in {2, 4, 8} x layouts interleaved, sin_cos, cos_sin; frequencies left symbolic",
    ),
    Claim(
        "products.sin_sin_component",
        "Case 1: PE_a,2i PE_b,2i = (cos(w_i(pos_a - pos_b)) - cos(w_i(pos_a + pos_b))) / 2",
        (
            src(FOURIER, CASE1, "PE_{a,i}PE_{b,i} = sin(\\omega_i\\ pos_a) sin(\\omega_i\\ pos_b)"),
            src(FOURIER, CASE1,
                "\\frac{1}{2} (cos(\\omega_i (pos_a-pos_b)) - (cos (\\omega_i (pos_a+pos_b)))"),
        ),
        SIN_COMPONENT,
        "identity",
        uses=("products.sin_mul_sin",),
        falsifiers=(
            Falsifier("half_on_first_term_only",
                      SIN_COMPONENT.map_rhs(lambda e: _half_on_first(-1)),
                      "the other reading of the unbalanced parenthesis"),
            Falsifier("plus_sign", SIN_COMPONENT.map_rhs(lambda e: CASE2_RHS),
                      "the Case 2 sign for a product of sines"),
        ),
        note="the seed's formula has one unclosed parenthesis; it is closed at the end",
    ),
    Claim(
        "products.cos_cos_component",
        "Case 2: PE_a,2i+1 PE_b,2i+1 = (cos(w_i(pos_a - pos_b)) + cos(w_i(pos_a + pos_b))) / 2",
        (
            src(FOURIER, CASE2, "PE_{a,i}PE_{b,i} = cos(\\omega_i\\ pos_a) cos(\\omega_i\\ pos_b)"),
            src(FOURIER, CASE2,
                "\\frac{1}{2} (cos(\\omega_i (pos_a-pos_b)) + (cos (\\omega_i (pos_a+pos_b)))"),
        ),
        COS_COMPONENT,
        "identity",
        uses=("products.cos_mul_cos",),
        falsifiers=(
            Falsifier("half_on_first_term_only", COS_COMPONENT.map_rhs(lambda e: _half_on_first(1)),
                      "the other reading of the unbalanced parenthesis"),
            Falsifier("minus_sign", COS_COMPONENT.map_rhs(lambda e: CASE1_RHS),
                      "the Case 1 sign for a product of cosines"),
        ),
        note="the seed's formula has one unclosed parenthesis; it is closed at the end",
    ),
    Claim(
        "products.component_depends_on_position_sum",
        "One component product is not a function of pos_a - pos_b alone: shifting both positions"
        " changes it (the cos(w(pos_a + pos_b)) term is really there), pair 0, both cases",
        src(FOURIER, CASE1, "both positions can be related to each other through a difference "
            "and addition fed into the cosine"),
        DEPENDS_ON_SUM,
        "existential",
        uses=("products.sin_sin_component", "products.cos_cos_component"),
        falsifiers=(
            _universal(DEPENDS_ON_SUM, "shift_invariant",
                       "every common shift leaves the component product unchanged"),
            Falsifier("sin_shift_invariant",
                      Statement(Eq(_shifted(sp.sin, 0), _shifted(sp.sin, t)), (V_PA, V_PB, V_T)),
                      "the sine case alone, shift invariant"),
        ),
        note="omega_0 = 10000**0 = 1 for every d; the instance is certified in arb",
    ),
    Claim(
        "products.pair_sum_cancels_position_sum",
        "The two channels of pair i together: the cos(w_i(pos_a + pos_b)) halves cancel, "
        "PE_a,2i PE_b,2i + PE_a,2i+1 PE_b,2i+1 = cos(w_i(pos_a - pos_b))",
        src(FOURIER, CASE2, "we get that both positions can be related to each other through a "
            "difference and addition fed into the cosine"),
        PAIR_CANCEL,
        "identity",
        uses=("products.sin_sin_component", "products.cos_cos_component"),
        falsifiers=(
            Falsifier("sum_term_survives", PAIR_CANCEL.map_rhs(
                lambda e: e + sp.cos(OMEGA_I * (pa + pb))), "cos(w(pos_a+pos_b)) kept"),
            F.subs_rhs(PAIR_CANCEL, {pb: -pb}, "sum_not_difference",
                       "cos(w_i(pos_a + pos_b)) in place of the difference"),
        ),
    ),
    Claim(
        "products.position_dot_depends_on_difference",
        "sum_j PE_a,j PE_b,j = sum_i cos(w_i(pos_a - pos_b)) for every even d: the position-"
        "position term of the dot product depends on pos_a - pos_b only",
        src(FOURIER, SEC,
            "PE_{a,i}PE_{b,i}$ how the position of $a$ relates to the position of $b"),
        DOT_ALL_D,
        "identity",
        uses=("products.pair_sum_cancels_position_sum",),
        falsifiers=(
            F.subs_rhs(DOT_ALL_D, {pb: -pb}, "sum_not_difference", "pos_a + pos_b on the right"),
            F.scale(DOT_ALL_D, sp.Rational(1, 2), name="half_the_sum"),
        ),
    ),
    Claim(
        "products.position_dot_concrete_layouts",
        "sum_j PE_a,j PE_b,j = sum_i cos(w_i(pos_a - pos_b)) for d in {2, 4, 8}, every layout",
        src(FOURIER, SEC, "we only dot the same indices of the position vector together"),
        DOT_CONCRETE,
        "identity",
        uses=("products.same_index_same_function", "products.pair_sum_cancels_position_sum"),
        falsifiers=(
            F.subs_rhs(DOT_CONCRETE, {pb: -pb}, "sum_not_difference", "pos_a + pos_b on the right"),
            F.swap_sin_cos(DOT_CONCRETE),
        ),
        note="frequencies left as symbols w_i, so the rows hold for every choice of frequencies",
    ),
    Claim(
        "products.dot_product_motivation",
        "Adding PE to tokens lets the query-key dot product encode how tokens and positions relate"
        " ('one of the main reasons' sinusoidal encodings are used)",
        src(FOURIER, CASE2, "This is one of the main reasons why Sinusoidal Positional Encodings "
            "are used for Transformers"),
        None,
        "informal",
        expect="unknown",
        note="a design motivation, not a mathematical statement; the mathematical content (four "
             "terms, the position term depends on pos_a - pos_b) is in the claims above",
    ),
]
