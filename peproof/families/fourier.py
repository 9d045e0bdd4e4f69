"""Fourier: the trigonometric system on [-pi, pi] and the truncated feature vector.

Main statements
  ``fourier.period_integral_lemma`` (integral of cos(Lx), sin(Lx) over a period, by the
  fundamental theorem of calculus), ``fourier.cos_cos_orthogonal``,
  ``fourier.sin_sin_orthogonal``, ``fourier.sin_cos_orthogonal``,
  ``fourier.constant_orthogonal``, ``fourier.sq_integrals_eq_pi``,
  ``fourier.trig_functions_not_unit_norm``, ``fourier.normalised_system_orthonormal``,
  ``fourier.coefficients_are_projections`` (the 1/pi factor),
  ``fourier.spectral_example_coefficients`` (sin x + 0.3 sin 20x),
  ``fourier.truncated_feature_length`` (2M + 1), ``fourier.trig_system_complete`` (informal),
  ``fourier.spectral_bias_low_frequencies_first`` (informal).
  The affine change of interval is in :mod:`peproof.families.fourier_affine`.

Implementation notes
  Integrals are ``PiIntegral(f, x)`` objects decided by :mod:`peproof.engines.periodic`:
  exponential expansion, the lemma ``int exp(i L x) = 2 pi [L = 0]`` for integer ``L`` (itself
  proved here from an antiderivative), and a z3 case split on which integer linear forms
  vanish.  ``Delta(p, q)`` is the bracket ``[p = q]``.  Falsifiers are refuted by rigorous ball
  integration (``acb.integral``), independently of the lemma.  ``0.3`` is the exact ``3/10``.

References
  Seed 000, "Recap: Fourier Series as a Basis", "Fourier Series Representing Position",
  "A Position in [-pi, pi)"; any text on Fourier series for the classical facts.
"""

from __future__ import annotations

import time

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Lt, Ne, Statement, Verdict, var
from peproof.engines import expoly
from peproof.engines.periodic import Delta, PiIntegral
from peproof.engines.periodic import proof as periodic_proof
from peproof.families._common import only_for
from peproof.seeds import FOURIER, src

RECAP = "Recap: Fourier Series as a Basis"
REPR = "Fourier Series Representing Position"
POS = "A Position in [-pi, pi)"
x = sp.Symbol("x", real=True)  # the bound variable of every integral
n, V_N = var("n", "pos_integer")
m, V_M = var("m", "pos_integer")
L, V_L = var("L", "integer")
ni, V_NI = var("n", "integer")
mi, V_MI = var("m", "integer")
A0, V_A0 = var("A0", "real")
A, V_A = var("A", "real")
B, V_B = var("B", "real")
M, V_MM = var("M", "pos_integer")
pi = sp.pi


def I(f):  # noqa: E743, N802 - reads like the integral it builds
    return PiIntegral(f, x)


# ------------------------------------------------------------------ the period lemma
LEMMA = Statement((Eq(I(sp.cos(L * x)), 2 * pi * Delta(L, 0)), Eq(I(sp.sin(L * x)), 0)), (V_L,))


def _at(expr: sp.Expr, point) -> sp.Expr:
    """``expr`` at ``x = point`` with the trigonometric calls left unevaluated, so that the
    exponential procedure (not SymPy's evaluation of ``sin(pi L)``) decides the values."""
    return expr.replace(lambda e: isinstance(e, sp.sin | sp.cos),
                        lambda e: type(e)(e.args[0].xreplace({x: point}), evaluate=False))


def _ftc_proof(stmt: Statement, claim) -> Verdict:
    """L = 0: the integrands are cos 0 = 1 and sin 0 = 0.  L != 0: antiderivatives
    sin(Lx)/L and -cos(Lx)/L (derivatives checked by exact differentiation), whose values at
    pi and -pi agree (decided by the exponential procedure: L integer, so exp(2 i pi L) = 1)."""
    from peproof.engines.decide import versions

    t0 = time.perf_counter()
    prims = {sp.cos(L * x): sp.sin(L * x) / L, sp.sin(L * x): -sp.cos(L * x) / L}
    trace, ok = [], True
    for f, prim in prims.items():
        deriv_ok = sp.expand(sp.diff(prim, x) - f) == 0
        jump = sp.expand(L * (_at(prim, pi) - _at(prim, -pi)))
        res = expoly.expand_is_zero(jump)
        ok &= deriv_ok and res.zero
        trace.append(f"L != 0: d/dx[{sp.sstr(prim)}] = {sp.sstr(f)}: {deriv_ok}; "
                     f"L*(F(pi) - F(-pi)) = {sp.sstr(jump)} = 0: {res.zero}")
    at0 = [r.lhs.args[0].xreplace({L: 0}) for r in stmt.concl]
    rhs0 = [r.rhs.xreplace({L: 0}) for r in stmt.concl]
    ok &= at0 == [sp.Integer(1), sp.Integer(0)] and rhs0 == [2 * pi, sp.Integer(0)]
    trace.append(f"L = 0: integrands {at0}, integrals 2 pi and 0; right-hand sides {rhs0}")
    status = "proved" if ok else "unknown"
    return Verdict(status, "sympy-diff+sympy-exp", f"sympy {versions()['sympy']}",
                   "antiderivative and endpoint evaluation",
                   ("fundamental theorem of calculus", "integral of a constant c over [-pi, pi] "
                    "is 2 pi c", "for L != 0 the bracket [L = 0] is 0"),
                   time.perf_counter() - t0, trace=trace)


# ------------------------------------------------------------------ orthogonality and norms
COS_COS = Statement(Eq(I(sp.cos(n * x) * sp.cos(m * x)), pi * Delta(n, m)), (V_N, V_M))
SIN_SIN = Statement(Eq(I(sp.sin(n * x) * sp.sin(m * x)), pi * Delta(n, m)), (V_N, V_M))
SIN_COS = Statement(Eq(I(sp.sin(ni * x) * sp.cos(mi * x)), 0), (V_NI, V_MI))
CONST = Statement(
    (Eq(I(sp.Integer(1)), 2 * pi), Eq(I(sp.cos(n * x)), 0), Eq(I(sp.sin(n * x)), 0)), (V_N,)
)
SQ = Statement((Eq(I(sp.cos(n * x) ** 2), pi), Eq(I(sp.sin(n * x) ** 2), pi)), (V_N,))
NOT_UNIT = Statement(
    (Ne(I(sp.cos(n * x) ** 2), 1), Ne(I(sp.sin(n * x) ** 2), 1), Ne(I(sp.Integer(1)), 1)), (V_N,)
)
one_hat = 1 / sp.sqrt(2 * pi)


def c_hat(k):
    return sp.cos(k * x) / sp.sqrt(pi)


def s_hat(k):
    return sp.sin(k * x) / sp.sqrt(pi)


ORTHONORMAL = Statement(
    (
        Eq(I(one_hat**2), 1),
        Eq(I(c_hat(n) ** 2), 1),
        Eq(I(s_hat(n) ** 2), 1),
        Eq(I(c_hat(n) * c_hat(m)), Delta(n, m)),
        Eq(I(s_hat(n) * s_hat(m)), Delta(n, m)),
        Eq(I(s_hat(n) * c_hat(m)), 0),
        Eq(I(one_hat * c_hat(n)), 0),
        Eq(I(one_hat * s_hat(n)), 0),
    ),
    (V_N, V_M),
)

# ------------------------------------------------------------------ coefficients
F_GEN = A0 / 2 + A * sp.cos(m * x) + B * sp.sin(m * x)
PROJ = Statement(
    (
        Eq(I(F_GEN * sp.cos(n * x)) / pi, A * Delta(n, m)),
        Eq(I(F_GEN * sp.sin(n * x)) / pi, B * Delta(n, m)),
        Eq(I(F_GEN) / pi, A0),
    ),
    (V_A0, V_A, V_B, V_N, V_M),
)
F_SB = sp.sin(x) + sp.Rational(3, 10) * sp.sin(20 * x)  # the spectral-bias example
SPECTRAL = Statement(
    (
        Eq(I(F_SB * sp.sin(n * x)) / pi, Delta(n, 1) + sp.Rational(3, 10) * Delta(n, 20)),
        Eq(I(F_SB * sp.cos(n * x)) / pi, 0),
        Eq(I(F_SB) / pi, 0),
        Eq(I(F_SB * sp.sin(x)) / pi, 1),
        Eq(I(F_SB * sp.sin(20 * x)) / pi, sp.Rational(3, 10)),
    ),
    (V_N,),
)


# ------------------------------------------------------------------ the truncated vector
def fourier_features(p, top: int) -> list:
    """``[cos(0 p), cos(p), sin(p), ..., cos(top p), sin(top p)]`` as the seed lists it."""
    out = [sp.cos(0 * p)]
    for k in range(1, top + 1):
        out += [sp.cos(k * p), sp.sin(k * p)]
    return out


j = sp.Symbol("j", integer=True)
LENGTH = Statement(
    (Eq(1 + sp.Sum(2, (j, 1, M)), 2 * M + 1),)
    + tuple(Eq(sp.Integer(len(fourier_features(x, t))), 2 * t + 1) for t in range(0, 9))
    + (Eq(fourier_features(x, 3)[0], 1), Eq(sp.sin(0 * x), 0)),
    (V_MM,),
)


def _only(stmt: Statement, *idx: int) -> Statement:
    """The conclusions ``idx`` alone (a falsifier keeps only what it mutates: each true
    conclusion left in would be integrated at every precision by the witness search)."""
    return stmt.with_concl([stmt.concl[j] for j in idx])


def _without_one_over_pi(stmt: Statement) -> Falsifier:
    return Falsifier("without_one_over_pi", _only(stmt, 0).map_rhs(lambda e: pi * e),
                     "the coefficient formula without its 1/pi factor")


CLAIMS = [
    Claim(
        "fourier.period_integral_lemma",
        "For every integer L: int_{-pi}^{pi} cos(Lx) dx = 2 pi [L = 0], int sin(Lx) dx = 0",
        src(FOURIER, RECAP, "They are orthogonal, hence linearly independent"),
        LEMMA,
        "identity",
        falsifiers=(F.scale(_only(LEMMA, 0), sp.Rational(1, 2), name="half_period"),
                    F.shift(_only(LEMMA, 1), 1)),
        proof=only_for(LEMMA)(_ftc_proof),
        note="the lemma behind every integral in this family (exp(iLx) = cos Lx + i sin Lx)",
    ),
    Claim(
        "fourier.cos_cos_orthogonal",
        "int_{-pi}^{pi} cos(nx) cos(mx) dx = pi [n = m] for integers n, m >= 1",
        src(FOURIER, RECAP, "They are orthogonal, hence linearly independent"),
        COS_COS,
        "identity",
        uses=("fourier.period_integral_lemma",),
        falsifiers=(F.scale(COS_COS, 2), F.subs_rhs(COS_COS, {Delta(n, m): 1}, "never_zero",
                                                    "pi for every n, m")),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.sin_sin_orthogonal",
        "int_{-pi}^{pi} sin(nx) sin(mx) dx = pi [n = m] for integers n, m >= 1",
        src(FOURIER, RECAP, "They are orthogonal, hence linearly independent"),
        SIN_SIN,
        "identity",
        uses=("fourier.period_integral_lemma",),
        falsifiers=(F.flip_sign(SIN_SIN), F.subs_rhs(SIN_SIN, {Delta(n, m): 0}, "always_zero",
                                                     "0 for every n, m")),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.sin_cos_orthogonal",
        "int_{-pi}^{pi} sin(nx) cos(mx) dx = 0 for all integers n, m",
        src(FOURIER, RECAP, "They are orthogonal, hence linearly independent"),
        SIN_COS,
        "identity",
        uses=("fourier.period_integral_lemma",),
        falsifiers=(F.shift(SIN_COS, 1), Falsifier(
            "cos_cos_instead", Statement(Eq(SIN_COS.concl[0].lhs, pi * Delta(ni, mi)),
                                         SIN_COS.vars), "the cos-cos value pi [n = m]")),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.constant_orthogonal",
        "int 1 = 2 pi, and cos(nx), sin(nx) (n >= 1) are orthogonal to the constant",
        src(FOURIER, RECAP, "\\{1, \\cos(nx), \\sin(nx)\\}_{n \\ge 1}"),
        CONST,
        "identity",
        uses=("fourier.period_integral_lemma",),
        falsifiers=(F.scale(_only(CONST, 0), sp.Rational(1, 2), name="int_one_eq_pi"),
                    F.shift(_only(CONST, 1, 2), 1)),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.sq_integrals_eq_pi",
        "int cos^2(nx) = int sin^2(nx) = pi for n >= 1",
        src(FOURIER, RECAP, "the trig functions are orthogonal but not unit norm"),
        SQ,
        "identity",
        uses=("fourier.period_integral_lemma",),
        falsifiers=(F.scale(_only(SQ, 0), 2), F.shift(_only(SQ, 1), -pi)),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.trig_functions_not_unit_norm",
        "Before normalising the functions are not unit norm: int cos^2 = int sin^2 = pi != 1, "
        "int 1^2 = 2 pi != 1",
        src(FOURIER, RECAP, "the trig functions are orthogonal but not unit norm"),
        NOT_UNIT,
        "inequality",
        uses=("fourier.sq_integrals_eq_pi",),
        falsifiers=(
            Falsifier("unit_norm", Statement(tuple(Eq(r.lhs, r.rhs) for r in NOT_UNIT.concl),
                                             NOT_UNIT.vars), "= 1 in place of != 1"),
            Falsifier("below_one", NOT_UNIT.with_concl(Lt(NOT_UNIT.concl[0].lhs, 1)),
                      "int cos^2(nx) < 1"),
        ),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.normalised_system_orthonormal",
        "1/sqrt(2 pi), cos(nx)/sqrt(pi), sin(nx)/sqrt(pi) (n >= 1) are orthonormal",
        src(FOURIER, RECAP, "form an **orthonormal basis** of $L^2[-\\pi,\\pi]$"),
        ORTHONORMAL,
        "identity",
        uses=("fourier.cos_cos_orthogonal", "fourier.sin_sin_orthogonal",
              "fourier.sin_cos_orthogonal", "fourier.constant_orthogonal"),
        falsifiers=(F.scale(_only(ORTHONORMAL, 1, 3), 2), F.shift(_only(ORTHONORMAL, 0, 5), 1)),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.coefficients_are_projections",
        "For f = A0/2 + A cos(mx) + B sin(mx): (1/pi) int f cos(nx) = A [n = m], "
        "(1/pi) int f sin(nx) = B [n = m], (1/pi) int f = A0 (the 1/pi factor)",
        (
            src(FOURIER, RECAP, "which is where the coefficient's $\\tfrac{1}{\\pi}$ factor "
                "comes from"),
            src(FOURIER, RECAP, "The coefficients $a_n, b_n$ are then just the projections of $f$"),
        ),
        PROJ,
        "identity",
        uses=("fourier.cos_cos_orthogonal", "fourier.sin_sin_orthogonal",
              "fourier.sin_cos_orthogonal", "fourier.constant_orthogonal"),
        falsifiers=(_without_one_over_pi(PROJ),
                    F.scale(_only(PROJ, 2), sp.Rational(1, 2), name="a0_halved")),
        proof=periodic_proof,
    ),
    Claim(
        "fourier.spectral_example_coefficients",
        "f = sin x + 0.3 sin 20x: b_n = [n = 1] + 0.3 [n = 20], a_n = 0 (n >= 1), a_0 = 0; "
        "b_1 = 1, b_20 = 0.3",
        src(FOURIER, REPR, "is the coefficient list with $b_1 = 1$, $b_{20} = 0.3$, and every "
            "other coefficient zero"),
        SPECTRAL,
        "identity",
        uses=("fourier.coefficients_are_projections",),
        falsifiers=(
            F.shift(_only(SPECTRAL, 4), sp.Rational(1, 10), name="b20_eq_0_4"),
            F.shift(_only(SPECTRAL, 1), sp.Rational(1, 10), name="cosine_coefficient"),
        ),
        proof=periodic_proof,
        note="0.3 read as the exact 3/10; the case split is n = 1, n = 20, neither",
    ),
    Claim(
        "fourier.truncated_feature_length",
        "phi(x) = [cos 0x, cos x, sin x, ..., cos Mx, sin Mx] has 2M + 1 entries; the first is 1",
        (
            src(FOURIER, POS,
                "Truncating at frequency $M$ gives a finite vector of length $2M + 1$"),
            src(FOURIER, POS, "there is no $\\sin(0x)$ entry since it is identically zero"),
        ),
        LENGTH,
        "identity",
        falsifiers=(F.shift(LENGTH, 1, index=range(0, 4)), F.scale(LENGTH, 2, index=(0, 9))),
        note="symbolic M >= 1 by the sum 1 + sum_{j=1}^M 2; M = 0 .. 8 by building the vector",
    ),
    Claim(
        "fourier.trig_system_complete",
        "The closed span of {1, cos nx, sin nx} is all of L^2[-pi, pi] (completeness)",
        src(FOURIER, RECAP, "their closed span is the whole space, so nothing is left out"),
        None,
        "informal",
        expect="unknown",
        note="a classical theorem of analysis (e.g. via Fejer's theorem or Stone-Weierstrass); "
             "no engine here reasons about L^2 limits, so it is recorded, not decided",
    ),
    Claim(
        "fourier.spectral_bias_low_frequencies_first",
        "An MLP trained on sin(x) + 0.3 sin(20x) fits the sin(x) component first",
        src(FOURIER, "What Problem are we Trying to Solve?",
            "it'll learn the $\\sin(x)$ component first then the $\\sin(20x)$ component much "
            "later"),
        None,
        "informal",
        expect="unknown",
        note="an empirical observation about training dynamics, not a mathematical statement "
             "about the encoding",
    ),
]
