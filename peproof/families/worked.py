"""Worked numbers: every number the seeds compute by hand, checked in ball arithmetic.

Main statements
  ``worked.d4_pos1_entries_three_decimals``, ``worked.fast_pair_moved_slow_pair_barely``,
  ``worked.sin_two_three_decimals``, ``worked.sin_five_hundred_seed_value`` (refuted),
  ``worked.sin_five_hundred_three_decimals``, ``worked.seed_value_is_sin_fifty``,
  ``worked.fast_sin_modest_vs_large_change``, ``worked.slow_pair_barely_vs_clearly``,
  ``worked.slow_pair_d512_barely_moves_by_500``, ``worked.d4_nearby_similar_distant_distinct``,
  ``worked.two_pi_ten_thousand_rounds_to_62832``, ``worked.d4_omega_one_is_hundredth``,
  ``worked.fast_period_about_six_tokens``, ``worked.d4_vectors_at_0_1_2``,
  ``worked.coordinates_in_standard_basis``.

Implementation notes
  A number printed with k decimals is read as "rounded to k decimals": ``|x - r| <= 5 10^-(k+1)``
  (for instance ``0.841`` means ``|x - 0.841| <= 5e-4``); a number rounded to an integer
  means ``|x - r| <= 1/2``.  Words such as "modest", "large", "barely", "clearly" get explicit
  thresholds, stated in each claim's note.  Every entry is taken from
  ``Encoding(4)`` (or ``Encoding(512)``) of :mod:`peproof.encoding`, so a claim about
  ``PE_(1,2)`` checks the definition, not a retyped ``sin(1/100)``.  Closed statements are
  decided by arb (certified signs); a wrong printed value is refuted with its ball.

References
  Seeds 001 (worked examples 1 and 2), 000 (d = 4 frequencies, 2 pi 10000, standard basis),
  002 (period of the fastest pair, self-test (a)).
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Statement, mat_eq
from peproof.families._common import V_D, d
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.scope import omega as omega_expr
from peproof.seeds import APPENDIX, FOURIER, INTRO, src

E4 = Encoding(4)
E512 = Encoding(512)
R = sp.Rational
HALF_MILLI = R(5, 10000)  # three decimals
EX1, EX2 = "Worked example 1: computing two dimensions by hand", (
    "Worked example 2: distinguishing nearby versus distant positions")


class LazyOmegas:
    """``Encoding.omega(i)`` on demand: ``Encoding(512).omegas`` builds all 256 powers
    (0.3 s in SymPy) where a claim needs two."""

    def __init__(self, enc: Encoding):
        self.enc = enc

    def __getitem__(self, i: int) -> sp.Expr:
        return self.enc.omega(i)


def pe(p, j: int, enc: Encoding = E4) -> sp.Expr:
    """Channel ``j`` of ``enc`` at position ``p`` (from the one definition)."""
    return enc.entry(p, j, LazyOmegas(enc))


def near(x, r, tol=HALF_MILLI) -> tuple[Le, Le]:
    """``|x - r| <= tol`` as two inequalities: SymPy would auto-evaluate ``Abs`` of a closed
    expression by a numerical sign test, which must not take part in a verdict."""
    r = sp.sympify(r)
    return Le(r - tol, x), Le(x, r + tol)


def apart(x, y, tol) -> tuple[Le, Le]:
    """``|x - y| <= tol`` (two inequalities)."""
    return Le(-tol, x - y), Le(x - y, tol)


def chord_sq(p, q, i: int, enc: Encoding = E4) -> sp.Expr:
    """Squared distance between pair ``i`` at positions ``p`` and ``q``."""
    s, c = enc.channel(i, "sin"), enc.channel(i, "cos")
    return (pe(p, s, enc) - pe(q, s, enc)) ** 2 + (pe(p, c, enc) - pe(q, c, enc)) ** 2


def _flat(rels) -> tuple:
    out = []
    for r in rels:
        out += _flat(r) if isinstance(r, tuple | list) else [r]
    return tuple(out)


def _closed(*rels) -> Statement:
    return Statement(_flat(rels))


def _fal(name: str, note: str, *rels) -> Falsifier:
    return Falsifier(name, _closed(*rels), note)


def _near_d(r, tol) -> Statement:
    return Statement(near(2 * sp.pi / omega_expr(0, d), r, tol), (V_D,))


# ------------------------------------------------------------------ worked example 1
EX1_VALUES = (R("0.841"), R("0.540"), R("0.010"), R("1.000"))
EX1_ENTRIES = (sp.sin(1), sp.cos(1), sp.sin(R(1, 100)), sp.cos(R("0.01")))
POS1 = _closed(*[Eq(pe(1, j), e) for j, e in enumerate(EX1_ENTRIES)],
               *[near(pe(1, j), r) for j, r in enumerate(EX1_VALUES)])
MOVED = _closed(Le(R(1, 4), chord_sq(1, 0, 0)), Le(chord_sq(1, 0, 1), R(1, 2500)))

# ------------------------------------------------------------------ worked example 2
SIN2 = _closed(Eq(pe(2, 0), sp.sin(2)), near(pe(2, 0), R("0.909")))
SIN500_SEED = _closed(Eq(pe(500, 0), sp.sin(500)), near(pe(500, 0), R("-0.262")))
SIN500 = _closed(near(pe(500, 0), R("-0.468")))
SIN50 = _closed(near(pe(50, 0), R("-0.262")))
FAST = _closed(apart(pe(2, 0), pe(1, 0), R(1, 10)), Le(R(1, 2), pe(1, 0) - pe(500, 0)))
SLOW = _closed(Le(chord_sq(1, 2, 1), R(1, 2500)), Le(R(1, 4), chord_sq(1, 500, 1)))
SLOW512 = _closed(Le(chord_sq(1, 500, 255, E512), R(1, 100)))
NEARBY = _closed(*[apart(pe(2, j), pe(1, j), R(1, 10)) for j in (0, 2, 3)],
                 Le(R(1, 2), pe(1, 1) - pe(2, 1)),
                 Le(1, sum((pe(500, j) - pe(1, j)) ** 2 for j in range(4))))

# ------------------------------------------------------------------ seeds 000 and 002
TWO_PI_10K = _closed(near(2 * sp.pi * 10000, 62832, R(1, 2)))
OMEGA1 = _closed(Eq(omega_expr(1, 4), R("0.01")), Eq(omega_expr(0, 4), 1))
PERIOD6 = _near_d(6, R(1, 2))


def _vectors_012() -> Statement:
    rows = []
    for p in (0, 1, 2):
        written = [sp.sin(p), sp.cos(p), sp.sin(R(p, 100)), sp.cos(R(p, 100))]
        rows += mat_eq(E4.vector(p), written)
    return _closed(*rows)


_BASIS = sp.eye(3)
BASIS = _closed(*mat_eq(1 * _BASIS[:, 0] + 2 * _BASIS[:, 1] + 3 * _BASIS[:, 2], [1, 2, 3]))

CLAIMS = [
    Claim(
        "worked.d4_pos1_entries_three_decimals",
        "d = 4, pos = 1: PE = (sin 1, cos 1, sin(1/100), cos(0.01)) = (0.841, 0.540, 0.010, 1.000)",
        (src(INTRO, EX1, "$PE_{(1,0)} = \\sin(1) = 0.841$"),
         src(INTRO, EX1, "$PE_{(1,1)} = \\cos(1) = 0.540$"),
         src(INTRO, EX1, "$PE_{(1,2)} = \\sin(1/100) = 0.010$"),
         src(INTRO, EX1, "$PE_{(1,3)} = \\cos(0.01) = 1.000$")),
        POS1, "numeric",
        falsifiers=(
            _fal("sin_cos_values_swapped", "0.540 for sin 1", near(pe(1, 0), R("0.540"))),
            _fal("slow_sin_decimal_slip", "0.100 for sin(1/100)", near(pe(1, 2), R("0.100"))),
            _fal("last_digit", "0.842 for sin 1", near(pe(1, 0), R("0.842"))),
        ),
        note="Three decimals: |x - r| <= 5e-4. cos(0.01) = 0.99995 rounds to 1.000.",
    ),
    Claim(
        "worked.fast_pair_moved_slow_pair_barely",
        "d = 4, from pos 0 to 1: the fast pair moves by a chord >= 1/2, the slow pair by <= 1/50",
        src(INTRO, EX1, "Dimension pair 0 (fast wave) has already moved substantially by "
                        "position 1, while pair 1 (slow wave) has barely moved"),
        MOVED, "numeric",
        falsifiers=(
            _fal("slow_moved", "slow chord >= 1/2", Le(R(1, 4), chord_sq(1, 0, 1))),
            _fal("fast_barely", "fast chord <= 1/50", Le(chord_sq(1, 0, 0), R(1, 2500))),
        ),
        note="'Substantially' = chord |pair(1) - pair(0)| >= 1/2 (actual 2 sin(1/2) = 0.959); "
             "'barely' = chord <= 1/50 (actual 2 sin(1/200) = 0.0100). Stated on squares.",
    ),
    Claim(
        "worked.sin_two_three_decimals",
        "PE_(2,0) = sin 2 = 0.909 (3 decimals)",
        src(INTRO, EX2, "$\\sin(1)=0.841$ versus $\\sin(2)=0.909$ — a modest change"),
        SIN2, "numeric",
        falsifiers=(_fal("last_digit", "0.910", near(pe(2, 0), R("0.910"))),
                    _fal("cos_channel", "cos 2 = 0.909", near(pe(2, 1), R("0.909")))),
        note="Three decimals: |x - r| <= 5e-4 (sin 2 = 0.90930).",
    ),
    Claim(
        "worked.sin_five_hundred_seed_value",
        "PE_(500,0) = sin 500 = -0.262 (3 decimals)",
        src(INTRO, EX2, "$\\sin(1)=0.841$ versus $\\sin(500)=-0.262$ — a large change"),
        SIN500_SEED, "numeric",
        expect="refuted", companion="worked.sin_five_hundred_three_decimals",
        erratum=("error", 9, "A worked number is wrong (it is sin 50), so the example's 'large change' is computed from the wrong value."),
        falsifiers=(_fal("last_digit", "-0.261", near(pe(500, 0), R("-0.261"))),
                    _fal("sign_slip", "+0.262", near(pe(500, 0), R("0.262")))),
        note="sin 500 = -0.46777..., not -0.262 (|difference| = 0.206). The seed's value is "
             "sin 50 = -0.26237 (worked.seed_value_is_sin_fifty).",
    ),
    Claim(
        "worked.sin_five_hundred_three_decimals",
        "sin 500 = -0.468 (3 decimals)",
        src(INTRO, EX2, "$\\sin(1)=0.841$ versus $\\sin(500)=-0.262$"),
        SIN500, "numeric",
        falsifiers=(_fal("last_digit", "-0.467", near(pe(500, 0), R("-0.467"))),
                    _fal("sign_slip", "+0.468", near(pe(500, 0), R("0.468")))),
        note="Three decimals: |sin 500 + 0.468| <= 5e-4 (sin 500 = -0.467772).",
    ),
    Claim(
        "worked.seed_value_is_sin_fifty",
        "The seed's -0.262 is sin 50 to 3 decimals (500 with a zero dropped)",
        src(INTRO, EX2, "$\\sin(1)=0.841$ versus $\\sin(500)=-0.262$"),
        SIN50, "numeric",
        falsifiers=(_fal("cos_fifty", "cos 50", near(pe(50, 1), R("-0.262"))),
                    _fal("sin_five", "sin 5", near(pe(5, 0), R("-0.262")))),
        note="A diagnosis of the slip in worked.sin_five_hundred_seed_value, not a seed claim.",
    ),
    Claim(
        "worked.fast_sin_modest_vs_large_change",
        "Fast sine: |sin 2 - sin 1| <= 1/10 (modest), |sin 500 - sin 1| >= 1/2 (large)",
        (src(INTRO, EX2, "Compare positions 1 and 2 on the fast pair"),
         src(INTRO, EX2, "Compare positions 1 and 500 on that same fast dimension")),
        FAST, "numeric",
        uses=("worked.sin_five_hundred_three_decimals",),
        falsifiers=(_fal("modest_is_tiny", "<= 1/100", apart(pe(2, 0), pe(1, 0), R(1, 100))),
                    _fal("large_is_huge", ">= 3/2", Le(R(3, 2), pe(1, 0) - pe(500, 0)))),
        note="Thresholds: modest |difference| <= 1/10 (actual 0.068); large: sin 1 - sin 500 "
             ">= 1/2 (actual 1.309; with the seed's wrong -0.262 it would be 1.103, so the "
             "comparison survives the slip). |x| <= t is stated as -t <= x <= t.",
    ),
    Claim(
        "worked.slow_pair_barely_vs_clearly",
        "d = 4, slow pair: chord(1, 2) <= 1/50 (barely) and chord(1, 500) >= 1/2 (clearly)",
        src(INTRO, EX2, "The slow pair, meanwhile, barely distinguishes 1 and 2, but clearly "
                        "distinguishes 1 and 500"),
        SLOW, "numeric",
        falsifiers=(_fal("far_barely", "chord(1,500) <= 1/50", Le(chord_sq(1, 500, 1), R(1, 2500))),
                    _fal("near_clearly", "chord(1,2) >= 1/2", Le(R(1, 4), chord_sq(1, 2, 1)))),
        note="Chord of the (sin, cos) pair at omega = 1/100, on squares: chord(1,2) = 0.0100, "
             "chord(1,500) = 1.205. Holds for the seed's d = 4, not for d = 512 "
             "(worked.slow_pair_d512_barely_moves_by_500).",
    ),
    Claim(
        "worked.slow_pair_d512_barely_moves_by_500",
        "d = 512: the slowest pair moves by a chord <= 1/10 from position 1 to 500",
        src(INTRO, EX2, "The slow pair, meanwhile, barely distinguishes 1 and 2, but clearly "
                        "distinguishes 1 and 500"),
        SLOW512, "numeric",
        falsifiers=(_fal("clearly", "chord >= 1/2", Le(R(1, 4), chord_sq(1, 500, 255, E512))),
                    _fal("tiny", "chord <= 1/30", Le(chord_sq(1, 500, 255, E512), R(1, 900)))),
        note="Context for the seed's d = 4 example: at the paper's d = 512 the slowest pair "
             "moves 0.052 between positions 1 and 500; 'clearly distinguishes' depends on d.",
    ),
    Claim(
        "worked.d4_nearby_similar_distant_distinct",
        "d = 4: PE(1), PE(2) agree within 1/10 on 3 of 4 channels; |PE(500) - PE(1)|^2 >= 1",
        (src(INTRO, EX2, "nearby positions get similar encodings on most dimensions"),
         src(INTRO, EX2, "distant positions still end up clearly distinguishable overall")),
        NEARBY, "numeric",
        falsifiers=(_fal("all_four_close", "fast cosine within 1/10 too",
                         apart(pe(2, 1), pe(1, 1), R(1, 10))),
                    _fal("distant_close", "|PE(500) - PE(1)|^2 <= 1/10",
                         Le(sum((pe(500, j) - pe(1, j)) ** 2 for j in range(4)), R(1, 10)))),
        note="'Most dimensions' = 3 of 4 within 1/10; the fast cosine drops by "
             "cos 1 - cos 2 = 0.956 >= 1/2 (stated). Distant: squared distance 3.16 >= 1.",
    ),
    Claim(
        "worked.two_pi_ten_thousand_rounds_to_62832",
        "2 pi 10000 = 62,832 rounded to an integer",
        src(FOURIER, "Every position has a unique representation, over practical lengths",
            "\\approx 2\\pi \\cdot 10000 \\approx 62{,}832"),
        TWO_PI_10K, "numeric",
        falsifiers=(_fal("rounded_down", "62831", near(2 * sp.pi * 10000, 62831, R(1, 2))),
                    _fal("three_figures", "62800", near(2 * sp.pi * 10000, 62800, R(1, 2)))),
        note="|2 pi 10000 - 62832| <= 1/2 (2 pi 10000 = 62831.853).",
    ),
    Claim(
        "worked.d4_omega_one_is_hundredth",
        "d = 4: omega_0 = 10000^0 = 1 and omega_1 = 10000^(-1/2) = 0.01",
        src(FOURIER, "The Fourier Feature Mapping as a Subsampling",
            "\\omega_1 = 10000^{-1/2} = 0.01"),
        OMEGA1, "numeric",
        uses=("encoding.d4_frequencies_one_and_hundredth",),
        falsifiers=(F.subs_rhs(OMEGA1, {R("0.01"): R("0.001")}, "thousandth"),
                    F.subs_rhs(OMEGA1, {R("0.01"): R("0.1")}, "tenth")),
    ),
    Claim(
        "worked.fast_period_about_six_tokens",
        "The fastest pair (omega_0 = 1) completes a cycle every 2 pi = 6 tokens, rounded",
        src(APPENDIX, "2. The formula",
            "(period 2π2\\pi, very fast — one full cycle every ∼6\\sim 6 tokens)"),
        PERIOD6, "numeric",
        uses=("encoding.first_pair_period_two_pi",),
        falsifiers=(
            Falsifier("quarter_token", _near_d(6, R(1, 4)), "within 1/4"),
            Falsifier("exactly_six", Statement(Eq(2 * sp.pi / omega_expr(0, d), 6), (V_D,)),
                      "exactly 6"),
        ),
        note="'~6' read as rounding to an integer: |2 pi - 6| <= 1/2 (2 pi = 6.283).",
    ),
    Claim(
        "worked.d4_vectors_at_0_1_2",
        "d = 4: PE(0), PE(1), PE(2) written out",
        src(APPENDIX, "Self-test (a)",
            "For d=4d = 4, write out the four-component vector PE(pos)\\text{PE}(\\text{pos}) "
            "for pos=0,1,2\\text{pos} = 0, 1, 2 explicitly"),
        _vectors_012, "identity",
        uses=("encoding.d4_vector_interleaved",),
        falsifiers=lambda st: (F.swap_sin_cos(st), F.shift(st, R(1, 10), index=range(4, 12))),
    ),
    Claim(
        "worked.coordinates_in_standard_basis",
        "1 e_1 + 2 e_2 + 3 e_3 = (1, 2, 3)",
        (src(FOURIER, "Fourier Series Representing Position",
             "v = 1 \\cdot [1,0,0]^T + 2 \\cdot [0,1,0]^T + 3 \\cdot [0,0,1]^T"),
         src(FOURIER, "Fourier Series Representing Position", "is the point $[1,2,3]^T$")),
        BASIS, "numeric",
        falsifiers=(F.shift(BASIS, 1), F.subs_rhs(BASIS, {3: 2}, "last_coordinate", index=2)),
    ),
]
