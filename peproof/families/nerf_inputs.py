"""NeRF inputs: what does not carry over from token positions, and the per-coordinate matrix B.

Main statements
  ``nerf.sines_vanish_on_integers``, ``nerf.period_two`` (gamma(p + 2) = gamma(p)),
  ``nerf.integer_positions_take_two_values`` (gamma(2n) = gamma(0), gamma(2n+1) = gamma(1):
  NeRF frequencies cannot tell token positions apart),
  ``nerf.injective_on_half_open_interval`` (gamma is injective on [-1, 1)),
  ``nerf.endpoints_collide`` (gamma(-1) = gamma(1)), ``nerf.typical_configuration`` (informal),
  ``nerf.b_mixes_input_coordinates`` (refuted for NeRF's per-coordinate mapping) with its
  companion ``nerf.per_coordinate_b_does_not_mix``, and ``nerf.gaussian_b_mixes_coordinates``.

Implementation notes
  Every NeRF frequency is an integer multiple of pi, so gamma has period 2 and sees integers
  only through their parity.  Injectivity on [-1, 1) rests on the first pair alone, with the
  angle pi p in [-pi, pi) (:mod:`peproof.engines.angles`).  For x in R^3 the per-coordinate
  mapping is [sin(Bx), cos(Bx)] with B = I_3 (x) (omega_0, ..., omega_(L-1))^T, a 3L x 3 matrix
  with one non-zero entry per row.

References
  Mildenhall et al. 2020, section 5.1; Rahimi and Recht 2007, Tancik et al. 2020 (Gaussian
  random Fourier features); seed 000, "Another choice of frequencies: NeRF".
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, Var, mat_eq, var
from peproof.engines.angles import prove_separation
from peproof.families._common import V_I, pair
from peproof.families.nerf import L_NERF, NERF, SEC, V_P, W_I, p
from peproof.seeds import FOURIER, src

nn, V_NN = var("n", "integer")
q, V_Q = var("q", "real")

_P = sp.Symbol("P_", real=True)


def gamma_at(x) -> list[sp.Expr]:
    """``gamma(x)`` from the one definition with every sin/cos left unevaluated.

    SymPy would evaluate ``sin(k pi)`` itself at construction and leave ``0 == 0``; kept
    unevaluated, the exponential procedure decides (``exp(i pi k)^2 = 1`` for integer ``k``).
    """
    return [type(e)(e.args[0].xreplace({_P: x}), evaluate=False) for e in NERF.vector(_P)]


# ------------------------------------------------------------------ integers and period 2
SINES = Statement((Eq(sp.sin(W_I * nn, evaluate=False), 0),), (V_NN, V_I))
PERIOD = Statement(
    mat_eq(pair(W_I, p + 2), pair(W_I, p)) + mat_eq(NERF.vector(p + 2), NERF.vector(p)),
    (V_P, V_I),
)
G0, G1 = gamma_at(0), gamma_at(1)
TWO_VALUES = Statement(
    mat_eq(gamma_at(2 * nn), G0) + mat_eq(gamma_at(2 * nn + 1), G1) + (Ne(G0[1], G1[1]),),
    (V_NN,),
)

# ------------------------------------------------------------------ the interval [-1, 1)
SEP = sp.Add(*[(a - b) ** 2 for a, b in zip(NERF.vector(p), NERF.vector(q), strict=True)])
FIRST_PAIR = (sp.sin(sp.pi * p) - sp.sin(sp.pi * q)) ** 2 + (
    sp.cos(sp.pi * p) - sp.cos(sp.pi * q)) ** 2
HALF_ANGLE = sp.Add(*[2 - 2 * sp.cos(w * (p - q) / 2) for w in NERF.omegas])
AT = {p: sp.Rational(1, 2), q: 0}
HALF_OPEN = (Le(-1, p), Lt(p, 1), Le(-1, q), Lt(q, 1), Ne(p, q))
INJECTIVE = Statement((Lt(0, SEP),), (V_P, V_Q), hyps=HALF_OPEN)
ENDPOINTS = Statement(mat_eq(gamma_at(-1), G1))

# ------------------------------------------------------------------ the matrix B
XS = sp.symbols("x0 x1 x2", real=True)
V_XS = tuple(Var(x, "real") for x in XS)
B = sp.Matrix(3 * L_NERF, 3, lambda r, c: NERF.omegas[r % L_NERF] if r // L_NERF == c else 0)
MIXING = sp.Add(
    *[(B[r, c] * B[r, e]) ** 2 for r in range(B.rows) for c in range(3) for e in range(c + 1, 3)]
)
BX = B * sp.Matrix(XS)


def _per_coordinate():
    rows = [Eq(MIXING, 0)]
    for r in range(B.rows):
        c, j = divmod(r, L_NERF)
        rows.append(Eq(BX[r], NERF.omegas[j] * XS[c]))
        rows.append(Eq(sp.sin(BX[r]), NERF.vector(XS[c])[NERF.channel(j, "sin")]))
        rows.append(Eq(sp.cos(BX[r]), NERF.vector(XS[c])[NERF.channel(j, "cos")]))
    return Statement(tuple(rows), V_XS)


bs = sp.symbols("b0 b1 b2", real=True)
hh, V_HH = var("h", "real")
_row = sp.Matrix([bs])


def _moved(c: int) -> sp.Expr:
    step = sp.Matrix([XS[j] + (hh if j == c else 0) for j in range(3)])
    return (_row * step)[0, 0] - (_row * sp.Matrix(XS))[0, 0]


# b1 last: the witness grid reaches b1 = 0 after four points
V_GAUSS = V_XS + (V_HH, Var(bs[0], "real"), Var(bs[2], "real"), Var(bs[1], "real"))
GAUSS = Statement(
    (Ne(_moved(0), 0), Ne(_moved(1), 0)), V_GAUSS, hyps=(Ne(bs[0], 0), Ne(bs[1], 0), Ne(hh, 0))
)

CLAIMS = [
    Claim(
        "nerf.sines_vanish_on_integers",
        "Does not carry over: sin(2^i pi n) = 0 at every integer n, for every frequency",
        src(FOURIER, SEC, "with inputs normalized to $[-1, 1]$"),
        SINES,
        "identity",
        falsifiers=(
            Falsifier("real_positions", Statement((Eq(sp.sin(W_I * p), 0),), (V_P, V_I)),
                      "the same at real p"),
            F.shift(SINES, 1),
        ),
    ),
    Claim(
        "nerf.period_two",
        "gamma(p + 2) = gamma(p) for every real p: every NeRF frequency is a multiple of pi",
        src(FOURIER, SEC, r"\omega_i = 2^i \pi, \qquad i = 0, 1, \dots, L-1"),
        PERIOD,
        "identity",
        falsifiers=(
            F.swap_sin_cos(PERIOD),
            F.subs_rhs(PERIOD, {p: p + 1}, "period_one", "gamma(p + 2) = gamma(p + 1)", index=0),
        ),
        note="for every i (2^i is an integer) and for L = 10 entry by entry",
    ),
    Claim(
        "nerf.integer_positions_take_two_values",
        "On the integers gamma sees only parity: gamma(2n) = gamma(0), gamma(2n+1) = gamma(1), "
        "and gamma(0) != gamma(1); e.g. gamma(0) = gamma(2), so NeRF cannot index tokens",
        src(FOURIER, SEC, "with inputs normalized to $[-1, 1]$"),
        TWO_VALUES,
        "identity",
        uses=("nerf.sines_vanish_on_integers", "nerf.period_two"),
        falsifiers=lambda st: (
            F.flip_sign(st.with_concl(st.concl[20:22])),
            Falsifier("odd_for_even", Statement(mat_eq(gamma_at(2 * nn)[:2], G1[:2]), (V_NN,)),
                      "gamma(2n) = gamma(1) on the first pair"),
        ),
        note="L = 10; gamma(0) = (0, 1, 0, 1, ...), gamma(1) = (0, -1, 0, 1, ...).  Meant for "
        "coordinates in [-1, 1], not for token positions 0, 1, 2, ...",
    ),
    Claim(
        "nerf.injective_on_half_open_interval",
        "gamma is injective on [-1, 1): p != q there gives ||gamma(p) - gamma(q)||^2 > 0 "
        "(the first pair's angle pi p lies in [-pi, pi))",
        src(FOURIER, SEC, "with inputs normalized to $[-1, 1]$"),
        INJECTIVE,
        "inequality",
        falsifiers=(
            Falsifier("first_pair_alone", Statement((Eq(SEP.subs(AT), FIRST_PAIR.subs(AT)),)),
                      "the distance carried by the first pair alone (at p = 1/2, q = 0)"),
            Falsifier("half_frequencies", Statement((Eq(SEP.subs(AT), HALF_ANGLE.subs(AT)),)),
                      "2L - 2 sum_j cos(2^j pi (p - q) / 2), every frequency halved "
                      "(at p = 1/2, q = 0)"),
        ),
        proof=prove_separation,
        note="L = 10; the argument uses the first pair only, so it holds for every L.  The "
        "falsifiers are closed instances at p = 1/2, q = 0 (the grid has few points in "
        "[-1, 1), and collisions such as p = 1, q = -1 are exact zeros no ball can certify).",
    ),
    Claim(
        "nerf.endpoints_collide",
        "gamma(-1) = gamma(1): the closed interval [-1, 1] is one point too long for injectivity",
        src(FOURIER, SEC, "with inputs normalized to $[-1, 1]$"),
        ENDPOINTS,
        "identity",
        uses=("nerf.period_two",),
        falsifiers=(F.shift(ENDPOINTS, 1, index=1), F.flip_sign(ENDPOINTS, index=1)),
        note="L = 10; for every L this is nerf.period_two at p = -1",
    ),
    Claim(
        "nerf.typical_configuration",
        "NeRF encodes each coordinate separately, inputs normalised to [-1, 1], L = 10 for "
        "positions",
        (
            src(FOURIER, SEC, "typically uses $L = 10$ for spatial coordinates"),
            src(FOURIER, SEC, "NeRF also applies this mapping to each input coordinate separately"),
        ),
        None,
        "informal",
        expect="unknown",
        note="A fact about the NeRF paper's configuration (L = 10 for the 3D position, L = 4 for "
        "the viewing direction), not about the mathematics: nothing to decide.  Its formal "
        "consequences are proved here: 2L = 20 features (nerf.gamma_written_out), injectivity "
        "on [-1, 1) and the collision at +-1.",
    ),
    Claim(
        "nerf.b_mixes_input_coordinates",
        "For NeRF's x in R^3, B is a genuine m x 3 matrix and Bx mixes the input coordinates "
        "(some row of B has two non-zero entries)",
        (
            src(FOURIER, SEC, "becomes a genuine $m \\times 3$ matrix rather than a column vector"),
            src(FOURIER, SEC, "$B x$ mixes the input coordinates before taking sines and cosines"),
        ),
        Statement((Lt(0, MIXING),)),
        "numeric",
        expect="refuted",
        erratum=("error", 11, "NeRF's matrix B acts on each coordinate separately; it does not mix them (random Fourier features do)."),
        companion="nerf.per_coordinate_b_does_not_mix",
        falsifiers=(
            Falsifier("mixing_two", Statement((Eq(MIXING, 2),)), "sum of products equals 2"),
            Falsifier("mixing_at_least_one", Statement((Le(1, MIXING),)),
                      "the mixing measure is at least 1"),
        ),
        note="The mixing measure sum_r sum_(c<c') (B_rc B_rc')^2 is exactly 0 for NeRF's "
        "B = I_3 (x) (pi, 2 pi, ..., 2^9 pi)^T: the seed's sentence contradicts its own 'each "
        "input coordinate separately'.  It is true for Gaussian random Fourier features "
        "(nerf.gaussian_b_mixes_coordinates).",
    ),
    Claim(
        "nerf.per_coordinate_b_does_not_mix",
        "NeRF's B has one non-zero entry per row: (Bx)_(cL+j) = 2^j pi x_c and "
        "[sin(Bx), cos(Bx)] is gamma(x_0), gamma(x_1), gamma(x_2) side by side",
        src(FOURIER, SEC, "NeRF also applies this mapping to each input coordinate separately"),
        _per_coordinate,
        "identity",
        falsifiers=lambda st: (
            F.subs_rhs(st.with_concl(st.concl[1:4]), {XS[0]: XS[1]}, "coordinate_mixed",
                       "row 0 reads x1"),
            F.swap_sin_cos(st.with_concl(st.concl[2:4])),
        ),
        note="L = 10, B is 30 x 3; the mixing measure is 0",
    ),
    Claim(
        "nerf.gaussian_b_mixes_coordinates",
        "A row b of B with b0, b1 != 0 (almost sure for Gaussian entries) mixes: (Bx)_r moves "
        "when x0 alone or x1 alone moves",
        src(FOURIER, SEC, "Random Fourier Features | Random Gaussian frequencies"),
        GAUSS,
        "inequality",
        falsifiers=(
            Falsifier("zero_entry_allowed", Statement(GAUSS.concl, V_GAUSS,
                      hyps=(Ne(bs[0], 0), Ne(hh, 0))), "b1 = 0 no longer excluded"),
            Falsifier("independent_of_x1", Statement((Eq(_moved(1), 0),), V_GAUSS,
                      hyps=GAUSS.hyps), "(Bx)_r does not depend on x1"),
        ),
        note="z3 on b1 h != 0.  Not machine-checked: a Gaussian entry is non-zero with "
        "probability 1 (the normal law has a density), so a Gaussian B satisfies the "
        "hypotheses almost surely and Bx genuinely mixes the coordinates.",
    ),
]
