"""Encoding, continued: how far the frequencies and wavelengths spread.

Main statements
  ``encoding.min_frequency_about_ten_thousandth`` (refuted),
  ``encoding.min_frequency_within_five_percent_for_d_ge_378``,
  ``encoding.span_orders_exact``, ``encoding.span_d_over_two_orders`` (refuted),
  ``encoding.span_d_over_two_only_at_d4``, ``encoding.span_four_orders_exact_reading`` (refuted),
  ``encoding.span_four_orders_rounded_for_d_ge_16``, ``encoding.wavelength_range_exact``,
  ``encoding.inverse_frequency_range``, ``encoding.seed_wavelengths_one_to_ten_thousand`` (refuted),
  ``encoding.max_wavelength_about_two_pi_ten_thousand`` (refuted),
  ``encoding.max_wavelength_within_five_percent_for_d_ge_360``.

Implementation notes
  The seeds round the slowest frequency to ``1/10000`` and the longest wavelength to
  ``2 pi 10000``; both are exact only in the limit ``d -> oo`` (``omega_min = 10000^(-1+2/d)``).
  Each "≈" is stated with an explicit tolerance (5 % relative unless said otherwise, recorded
  in the claim's note), refuted for every d where it fails with a certified witness, and
  paired with the exact statement and with the sharp threshold on d beyond which the
  approximation holds.  "Orders of magnitude" is ``log10(omega_0/omega_min)``, stated without
  logarithms as ``omega_0/omega_min = 10^(4(d-2)/d)``.

References
  Seeds 000 (unique representation, wavelengths), 002 (section 2 and 4.1), 004 (wavelength term).
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Statement
from peproof.engines import powers
from peproof.engines.decide import refute_at, with_default
from peproof.families._common import I_IN_RANGE, OMEGA_I, V_D, V_I, d, i
from peproof.scope import omega as omega_expr  # the law in force (paper or --variant)
from peproof.seeds import APPENDIX, EXAM, FOURIER, src

PI2 = 2 * sp.pi
OMEGA_0 = omega_expr(0, d)
OMEGA_MIN = omega_expr(d / 2 - 1, d)
SPAN = OMEGA_0 / OMEGA_MIN
WAVE_I = PI2 / OMEGA_I
WAVE_MAX = PI2 / OMEGA_MIN
TWO_PI_10K = PI2 * 10000
FIVE_PCT = sp.Rational(1, 20)


def _at(expr: sp.Expr, dd: int) -> sp.Expr:
    return expr.subs(d, dd)


def _fal(name: str, stmt: Statement, note: str) -> Falsifier:
    return Falsifier(name, stmt, note)


def _near(x, r, tol) -> tuple[Le, Le]:
    """``|x - r| <= tol`` as two inequalities (no ``Abs``, whose SymPy auto-evaluation would
    decide a sign numerically)."""
    return Le(r - tol, x), Le(x, r + tol)


# ------------------------------------------------------------------ omega_min ~ 1/10000
MIN_ABOUT = Statement(_near(10000 * OMEGA_MIN, 1, FIVE_PCT), (V_D,))
GE_378 = Le(378, d)
MIN_5PCT = Statement(
    (Lt(1, 10000 * OMEGA_MIN), Le(10000 * OMEGA_MIN, 1 + FIVE_PCT),
     Lt(1 + FIVE_PCT, 10000 * _at(OMEGA_MIN, 376))),
    (V_D,), hyps=(GE_378,),
)

# ------------------------------------------------------------------ orders of magnitude
SPAN_EXACT = Statement((Eq(SPAN, 10 ** (4 * (d - 2) / d)), Lt(SPAN, 10**4), Le(1, SPAN)), (V_D,))
SPAN_HALF_D = Statement(Eq(SPAN, 10 ** (d / 2)), (V_D,))
ONLY_D4 = Statement((Eq(d, 4), Eq(_at(SPAN, 4), 10**2)), (V_D,),
                    hyps=(Eq(4 * (d - 2) / d, d / 2),))
SPAN_FOUR = Statement(Eq(SPAN, 10**4), (V_D,))
GE_16 = Le(16, d)
SPAN_ROUNDED = Statement(
    (Le(10 ** sp.Rational(7, 2), SPAN), Lt(SPAN, 10**4),
     Lt(_at(SPAN, 14), 10 ** sp.Rational(7, 2))),
    (V_D,), hyps=(GE_16,),
)

# ------------------------------------------------------------------ wavelengths
WAVE_RANGE = Statement(
    (Le(PI2, WAVE_I), Le(WAVE_I, WAVE_MAX), Eq(PI2 / OMEGA_0, PI2),
     Eq(WAVE_MAX, PI2 * 10000 ** ((d - 2) / d))),
    (V_D, V_I), hyps=(I_IN_RANGE,),
)
INV_FREQ = Statement(
    (Eq(1 / OMEGA_I, 10000 ** (2 * i / d)), Eq(WAVE_I, PI2 * (1 / OMEGA_I)), Le(1, 1 / OMEGA_I),
     Le(1 / OMEGA_I, 1 / OMEGA_MIN), Lt(1 / OMEGA_MIN, 10000),
     *_near(1 / _at(OMEGA_MIN, 512), sp.Rational("9646.6"), sp.Rational(1, 20))),
    (V_D, V_I), hyps=(I_IN_RANGE,),
)
SEED_WAVES = Statement(
    (Le(WAVE_MAX, 2 * 10000), Le(sp.Integer(10000) / 2, WAVE_MAX), Le(PI2 / OMEGA_0, 2),
     Le(sp.Rational(1, 2), PI2 / OMEGA_0)),
    (V_D,),
)
WAVE_ABOUT = Statement(_near(WAVE_MAX, TWO_PI_10K, FIVE_PCT * TWO_PI_10K), (V_D,))
GE_360 = Le(360, d)
WAVE_5PCT = Statement(
    (Le((1 - FIVE_PCT) * TWO_PI_10K, WAVE_MAX), Lt(WAVE_MAX, TWO_PI_10K),
     Lt(_at(WAVE_MAX, 358), (1 - FIVE_PCT) * TWO_PI_10K)),
    (V_D,), hyps=(GE_360,),
)

_SRC_MIN = src(FOURIER, "Every position has a unique representation, over practical lengths",
               "\\omega_{\\min} = 10000^{-(d-2)/d} \\approx \\frac{1}{10000}")
_SRC_SPAN_HALF = src(APPENDIX, "2. The formula", "The frequencies span d/2d/2 orders of magnitude")
_SRC_SPAN_FOUR = src(APPENDIX, "4.1 What worked", "Frequencies span 4 orders of magnitude")
_SRC_WAVES = src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
                 "The wavelengths run from $2\\pi$ at the highest frequency up to about "
                 "$2\\pi \\cdot 10,000$ at the lowest")
_SRC_SEED_WAVES = src(APPENDIX, "2. The formula",
                      "wavelengths from ∼1\\sim 1 to ∼10000\\sim 10000 tokens")

CLAIMS = [
    Claim(
        "encoding.min_frequency_about_ten_thousandth",
        "omega_min ≈ 1/10000 for every d (5 % relative tolerance)",
        _SRC_MIN, MIN_ABOUT, "numeric",
        expect="refuted", companion="encoding.last_frequency_exact",
        erratum=("error", 5, "The lowest frequency is 1/10000 only in the limit of large d; at small d it is larger by orders of magnitude."),
        falsifiers=(_fal("one_percent", Statement(_near(10000 * OMEGA_MIN, 1, sp.Rational(1, 100)),
                                                  (V_D,)), "1 % tolerance"),
                    _fal("at_most_ten_thousandth", Statement(Le(OMEGA_MIN, sp.Rational(1, 10000)),
                                                             (V_D,)), "omega_min <= 1/10000")),
        note="Read as |10000 omega_min - 1| <= 1/20 (two inequalities). False for small d: "
             "d = 4 gives omega_min = "
             "1/100, a factor 100. Exactly omega_min = 10000^(-1+2/d) > 1/10000; the 5 % "
             "reading holds iff d >= 378 "
             "(encoding.min_frequency_within_five_percent_for_d_ge_378).",
    ),
    Claim(
        "encoding.min_frequency_within_five_percent_for_d_ge_378",
        "1/10000 < omega_min <= 1.05/10000 for d >= 378, and not at d = 376",
        _SRC_MIN, MIN_5PCT, "inequality",
        uses=("encoding.last_frequency_exact",),
        falsifiers=(_fal("one_percent", MIN_5PCT.with_concl(
                        Le(10000 * OMEGA_MIN, sp.Rational(101, 100))), "1 % at d >= 378"),
                    _fal("at_most_ten_thousandth", MIN_5PCT.with_concl(
                        Le(10000 * OMEGA_MIN, 1)), "omega_min <= 1/10000")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.span_orders_exact",
        "omega_0 / omega_min = 10^(4(d-2)/d): the frequencies span 4(d-2)/d < 4 orders of "
        "magnitude",
        (_SRC_SPAN_HALF, _SRC_SPAN_FOUR),
        SPAN_EXACT, "identity",
        uses=("encoding.first_frequency_eq_one", "encoding.last_frequency_exact"),
        falsifiers=(F.subs_rhs(SPAN_EXACT, {10**4: 10**3}, "below_three_orders", index=1),
                    _fal("exactly_four", SPAN_EXACT.with_concl(Eq(SPAN, 10**4)), "span 10^4")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.span_d_over_two_orders",
        "The frequencies span d/2 orders of magnitude: omega_0 / omega_min = 10^(d/2)",
        _SRC_SPAN_HALF, SPAN_HALF_D, "identity",
        expect="refuted", companion="encoding.span_orders_exact",
        erratum=("error", 4, "The span of the frequencies is about four decades for every d, not d/2: the sentence overstates it by hundreds of orders of magnitude at d = 512."),
        falsifiers=(_fal("d_orders", Statement(Eq(SPAN, 10**d), (V_D,)), "d orders"),
                    _fal("quarter_d_orders", Statement(Eq(SPAN, 10 ** (d / 4)), (V_D,)),
                         "d/4 orders")),
        note="Witness d = 512: 10^3.984 against 10^256. The span is 4(d-2)/d orders, equal to "
             "d/2 only at d = 4 (encoding.span_d_over_two_only_at_d4).",
        proof=refute_at({"d": 512}),
    ),
    Claim(
        "encoding.span_d_over_two_only_at_d4",
        "4(d-2)/d = d/2 forces d = 4 (where the span is 10^2)",
        _SRC_SPAN_HALF, ONLY_D4, "integer",
        falsifiers=(_fal("only_at_d8", Statement(Eq(d, 8), (V_D,), hyps=(Eq(8 * (d - 2), d**2),)),
                         "d = 8 (hypothesis multiplied by 2d > 0)"),
                    _fal("only_at_d2", Statement(Eq(d, 2), (V_D,), hyps=(Eq(8 * (d - 2), d**2),)),
                         "d = 2 (hypothesis multiplied by 2d > 0)")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.span_four_orders_exact_reading",
        "Frequencies span exactly 4 orders of magnitude: omega_0 / omega_min = 10^4",
        _SRC_SPAN_FOUR, SPAN_FOUR, "identity",
        expect="refuted", companion="encoding.span_orders_exact",
        erratum="literal",
        falsifiers=(F.subs_rhs(SPAN_FOUR, {10**4: 10**5}, "five_orders"),
                    F.subs_rhs(SPAN_FOUR, {10**4: 10**3}, "three_orders")),
        note="Verdict: false as an exact statement for every d (the span is 4(d-2)/d < 4; "
             "witness d = 512, span 3.984), true in the rounded reading for d >= 16 "
             "(encoding.span_four_orders_rounded_for_d_ge_16).",
        proof=refute_at({"d": 512}),
    ),
    Claim(
        "encoding.span_four_orders_rounded_for_d_ge_16",
        "For d >= 16 the span rounds to 4 orders (10^3.5 <= omega_0/omega_min < 10^4); at d = 14 "
        "it does not",
        _SRC_SPAN_FOUR, SPAN_ROUNDED, "inequality",
        uses=("encoding.span_orders_exact",),
        falsifiers=(_fal("above_3_9_orders", SPAN_ROUNDED.with_concl(
                        Le(10 ** sp.Rational(39, 10), SPAN)), "10^3.9 for d >= 16"),
                    _fal("exactly_four", SPAN_ROUNDED.with_concl(Eq(SPAN, 10**4)), "10^4")),
        note="'Rounds to 4' means 3.5 <= 4(d-2)/d < 4.5; 4(d-2)/d >= 3.5 iff d >= 16.",
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.wavelength_range_exact",
        "Wavelengths 2 pi/omega_i run from 2 pi (i = 0) to 2 pi 10000^((d-2)/d) (i = d/2-1)",
        _SRC_WAVES, WAVE_RANGE, "inequality",
        uses=("encoding.frequencies_strictly_decrease",),
        falsifiers=(_fal("max_too_small", WAVE_RANGE.with_concl(
                        Le(WAVE_I, PI2 * 10000 ** ((d - 4) / d))), "max 2 pi 10000^((d-4)/d)"),
                    _fal("seed_range", WAVE_RANGE.with_concl(Le(WAVE_I, 10000)),
                         "wavelengths at most 10000")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.inverse_frequency_range",
        "1/omega_i = 10000^(2i/d) = wavelength/(2 pi) runs from 1 to 10000^((d-2)/d) < 10000 "
        "(9646.6 at d = 512)",
        (src(EXAM, "The sinusoidal formula", "10000^(2i/d_model) — a wavelength term"),
         _SRC_SEED_WAVES),
        INV_FREQ, "inequality",
        falsifiers=(_fal("max_below_thousand", INV_FREQ.with_concl(Lt(1 / OMEGA_MIN, 1000)),
                         "1/omega_min < 1000"),
                    _fal("exponent_i_over_d", INV_FREQ.with_concl(
                        Eq(1 / OMEGA_I, 10000 ** (i / d))), "exponent i/d")),
        note="Seed 004's 'wavelength term' 10000^(2i/d) is the wavelength divided by 2 pi; "
             "seed 002's '~1 to ~10000' fits this quantity, not the wavelength.",
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "encoding.seed_wavelengths_one_to_ten_thousand",
        "Wavelengths run from ~1 to ~10000 tokens (within a factor 2)",
        _SRC_SEED_WAVES, SEED_WAVES, "numeric",
        expect="refuted", companion="encoding.wavelength_range_exact",
        erratum=("error", 7, "The range quoted is that of 1/omega_i; the wavelengths themselves are 2 pi times longer."),
        falsifiers=(F.subs_rhs(SEED_WAVES, {2: 1}, "shortest_exactly_one", index=2),
                    F.subs_rhs(SEED_WAVES, {20000: 10000}, "longest_exactly_ten_thousand",
                               index=0)),
        note="Read as 5000 <= longest <= 20000 and 1/2 <= shortest <= 2. Witness d = 512: the "
             "longest wavelength is 2 pi 10000^(510/512) = 60611.5, and the shortest is "
             "2 pi = 6.28 for every d (also outside the tolerance). The exact range is "
             "[2 pi, 2 pi 10000^((d-2)/d)]; '1 to 10000' is the range of 1/omega_i "
             "(encoding.inverse_frequency_range).",
        proof=refute_at({"d": 512}),
    ),
    Claim(
        "encoding.max_wavelength_about_two_pi_ten_thousand",
        "The longest wavelength is about 2 pi 10000 for every d (5 % relative tolerance)",
        (_SRC_WAVES, src(APPENDIX, "2. The formula", "period ∼2π⋅10000")),
        WAVE_ABOUT, "numeric",
        expect="refuted", companion="encoding.wavelength_range_exact",
        erratum=("error", 6, "The longest wavelength, like the wrap position, depends on d and is far shorter than 2 pi 10000 at small d."),
        falsifiers=(_fal("one_percent", Statement(_near(WAVE_MAX, TWO_PI_10K,
                                                        TWO_PI_10K / 100), (V_D,)), "1 %"),
                    _fal("exact", Statement(Eq(WAVE_MAX, TWO_PI_10K), (V_D,)), "equality")),
        note="Read as |2 pi/omega_min - 2 pi 10000| <= 5 % of 2 pi 10000. Witness d = 4: 200 pi = "
             "628.3. Holds iff d >= 360 "
             "(encoding.max_wavelength_within_five_percent_for_d_ge_360); "
             "at d = 512 the value is 60611.5, 3.5 % short.",
    ),
    Claim(
        "encoding.max_wavelength_within_five_percent_for_d_ge_360",
        "0.95 * 2 pi 10000 <= 2 pi/omega_min < 2 pi 10000 for d >= 360, and not at d = 358",
        _SRC_WAVES, WAVE_5PCT, "inequality",
        uses=("encoding.wavelength_range_exact",),
        falsifiers=(_fal("one_percent", WAVE_5PCT.with_concl(
                        Le(sp.Rational(99, 100) * TWO_PI_10K, WAVE_MAX)), "1 % at d >= 360"),
                    _fal("reaches_two_pi_10000", WAVE_5PCT.with_concl(Le(TWO_PI_10K, WAVE_MAX)),
                         "reaches 2 pi 10000")),
        proof=with_default(powers.prove_statement),
    ),
]
