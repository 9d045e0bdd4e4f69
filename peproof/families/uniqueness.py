"""Uniqueness: where the slowest pair wraps, and why integer positions never collide.

Main statements
  ``uniqueness.slowest_pair_wraps_at_exact_position``, ``uniqueness.wrap_position_about_62832``
  (refuted), ``uniqueness.wrap_position_d4_and_d512``,
  ``uniqueness.slowest_pair_no_wrap_below_sixty_thousand`` (refuted),
  ``uniqueness.slowest_pair_distinct_angles_before_wrap``,
  ``uniqueness.wrap_beyond_sixty_thousand_iff_d_ge_400``,
  ``uniqueness.d4_near_collision_below_sixty_thousand``, ``uniqueness.pe_injective_on_integers``,
  ``uniqueness.single_pair_injective_on_integers``,
  ``uniqueness.integers_collide_beyond_practical_lengths`` (refuted),
  ``uniqueness.single_pair_eventually_repeats`` (refuted), ``uniqueness.near_repeat_at_710``,
  ``uniqueness.real_positions_periodic_d4``.

Implementation notes
  Seed 000 argues from the slowest pair not having wrapped, at ``2 pi/omega_min``; its
  "62,832" and "sixty thousand" hold only for large d and are refuted at d = 4.  On the
  integers no such argument is needed: ``omega_0 = 1`` with pi irrational makes PE injective,
  and each pair is injective (``omega_i`` algebraic, pi transcendental).  These proofs are
  arguments: the proof function checks the statement's shape (a (sin, cos) pair of one
  frequency, 1 or a rational power of a rational, at two integer positions) and lists the
  facts used as axioms.  "Would eventually repeat" and "rather than for all integers" are
  refuted by proving their negation.  Over the reals the d = 4 encoding is periodic (200 pi).

References
  Seeds 000 (unique representation over practical lengths), 001 (worked example 1, the chord
  analogy), 004 (unique fingerprint); Lindemann (1882) for the transcendence of pi.
"""

from __future__ import annotations

import time

import sympy as sp

from peproof import scope
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, Verdict, mat_eq, var
from peproof.engines import powers
from peproof.engines.decide import refute_at, with_default
from peproof.families import _horizon as H
from peproof.families._common import (
    I_IN_RANGE,
    OMEGA_I,
    V_A,
    V_B,
    V_D,
    V_I,
    V_POS,
    a,
    b,
    d,
    general_pe_pair,
    pos,
)
from peproof.families.worked import E512, near, pe
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.scope import omega as omega_expr
from peproof.seeds import APPENDIX, EXAM, FOURIER, INTRO, src

q, V_Q = var("q", "real")
p, V_P = var("p", "nonneg_integer")
R = sp.Rational
PI2 = 2 * sp.pi
OMEGA_0 = omega_expr(0, d)
OMEGA_MIN = omega_expr(d / 2 - 1, d)
WRAP = PI2 / OMEGA_MIN
#: the horizon in closed form, read off the law in force (paper: 2 pi 10000^((d-2)/d); h-1:
#: 2 pi base; a frequency scale divides it): :mod:`peproof.families._horizon`
WRAP_CLOSED = H.closed_form()
_C, _B, _X = H.split()
#: '' when pair d/2 - 1 is the slowest (the horizon claims' premise), else why not
_SLOWEST_WHY = H.slowest_is_last_why()
PAPER = scope.current() is None
#: "2 pi base" (the seed's approximation "2 pi 10000 ~ 62,832"), for the law in force
APPROX = PI2 * _B / _C
APPROX_INT = int(sp.floor(sp.N(APPROX, 50) + R(1, 2)))
W4, W512 = H.rounded(WRAP_CLOSED.subs(d, 4), 1), H.rounded(WRAP_CLOSED.subs(d, 512), 1)
E4 = Encoding(4)
UNIQUE = "Every position has a unique representation, over practical lengths"
AX_SINCOS = "for real x, y: sin x = sin y and cos x = cos y imply x - y = 2 pi k, k an integer"
AX_PI_IRRATIONAL = "pi is irrational"
AX_LINDEMANN = "pi is transcendental (Lindemann 1882)"
AX_ALGEBRAIC = ("a rational power of a positive rational is a positive algebraic number; "
                "algebraic numbers are closed under products and quotients")


def _pair_eq(x, y, w=OMEGA_I) -> tuple:
    """Hypotheses 'the pair of frequency w agrees at positions x and y' (from the definition)."""
    return mat_eq(general_pe_pair(x, w), general_pe_pair(y, w))


def _vars_hyps(w, *vs) -> tuple[tuple, tuple]:
    return (vs + (V_D, V_I), (I_IN_RANGE,)) if w == OMEGA_I else (vs + (V_D,), ())


def _period(shift, w=OMEGA_I) -> Statement:
    vs, hyps = _vars_hyps(w, V_A)
    return Statement(_pair_eq(a + shift, a, w), vs, hyps=hyps)


def _separated(w=OMEGA_I) -> Statement:
    (s_a, c_a), (s_b, c_b) = general_pe_pair(a, w), general_pe_pair(b, w)
    vs, hyps = _vars_hyps(w, V_A, V_B)
    return Statement(Le(R(1, 10), (s_a - s_b) ** 2 + (c_a - c_b) ** 2), vs, hyps=hyps + (Ne(a, b),))


# ------------------------------------------------------------------ the injectivity argument
def _frequency_is_algebraic(w: sp.Expr, stmt: Statement) -> tuple[bool, str]:
    """``w`` is ``c**e`` with ``c`` a positive rational and ``e`` rational at every point."""
    if w.is_Rational and w > 0:
        return True, f"omega = {w} is a positive rational"
    if not (w.is_Pow and w.base.is_Rational and w.base > 0):
        return False, f"{w} is not a power of a positive rational"
    ints = {v.symbol for v in stmt.vars if v.domain.endswith("integer")}
    num, den = sp.together(w.exp).as_numer_denom()
    if not (w.exp.free_symbols <= ints):
        return False, "exponent mentions non-integer variables"
    for part in (num, den):
        if part.free_symbols and sp.Poly(part, *sorted(part.free_symbols, key=str)).domain not in (
                sp.ZZ, sp.QQ):
            return False, f"{part} is not a polynomial with rational coefficients"
    if den.is_positive is not True:
        return False, f"denominator {den} not known positive"
    return True, (f"omega = {w}: base {w.base}, exponent {num}/({den}) rational for integer "
                  f"variables, {den} > 0 by the variable domains (SymPy sign rule)")


def injectivity_argument(stmt: Statement, claim: Claim) -> Verdict:
    """Proof function: 'pair of frequency w equal at integers x, y implies x = y'."""
    t0 = time.perf_counter()
    ver = f"peproof argument checker; sympy {sp.__version__}"

    def unknown(why: str) -> Verdict:
        return Verdict("unknown", "argument", ver, "argument from axioms", reason=why,
                       seconds=time.perf_counter() - t0)

    if len(stmt.concl) != 1 or stmt.concl[0].op != "==":
        return unknown("conclusion is not x = y")
    x, y = stmt.concl[0].lhs, stmt.concl[0].rhs
    if not (x.is_Symbol and y.is_Symbol and stmt.domain(x).endswith("integer")
            and stmt.domain(y).endswith("integer")):
        return unknown("x, y must be integer variables")
    trig = [h for h in stmt.hyps if h.op == "==" and h.lhs.has(sp.sin, sp.cos)]
    sins = [h for h in trig if isinstance(h.lhs, sp.sin) and isinstance(h.rhs, sp.sin)]
    coss = [h for h in trig if isinstance(h.lhs, sp.cos) and isinstance(h.rhs, sp.cos)]
    if len(sins) != 1 or len(coss) != 1 or len(trig) != 2:
        return unknown("hypotheses are not one (sin, cos) pair at two positions")
    u, v = sins[0].lhs.args[0], sins[0].rhs.args[0]
    if (coss[0].lhs.args[0], coss[0].rhs.args[0]) != (u, v):
        return unknown("sin and cos hypotheses have different arguments")
    w = u / x
    if w.has(x) or w.has(y) or sp.expand(w * y - v) != 0:
        return unknown("arguments are not w*x and w*y for one frequency w")
    trace = [f"hypotheses: sin({u}) = sin({v}) and cos({u}) = cos({v}), frequency w = {w}"]
    if w == 1:
        axioms = (AX_SINCOS, AX_PI_IRRATIONAL)
        trace += [f"{x} - {y} = 2 pi k for an integer k ({AX_SINCOS})",
                  f"if k != 0 then pi = ({x} - {y})/(2k) is rational: impossible, so k = 0 "
                  f"and {x} = {y}"]
    else:
        ok, why = _frequency_is_algebraic(w, stmt)
        if not ok:
            return unknown(why)
        axioms = (AX_SINCOS, AX_ALGEBRAIC, AX_LINDEMANN)
        trace += [why,
                  f"w ({x} - {y}) = 2 pi k for an integer k ({AX_SINCOS})",
                  f"if {x} != {y} then k != 0 (w > 0) and pi = w ({x} - {y})/(2k) is algebraic: "
                  f"impossible, so {x} = {y}"]
    return Verdict("proved", "argument", ver, "argument from stated axioms (shape machine-checked)",
                   axioms=axioms, seconds=time.perf_counter() - t0, trace=trace)


def refuted_by_negation(companion_id: str):
    """Proof function for 'exists x != y with ...': refuted when the companion proves
    'for all: ... implies x = y', which is exactly its negation (checked structurally)."""

    def proof(stmt: Statement, claim: Claim) -> Verdict:
        from peproof import registry
        from peproof.verdicts import verdict_of

        t0 = time.perf_counter()
        comp = registry.get(companion_id).statement
        ne = [h for h in stmt.hyps if h.op == "!="]
        shape = (stmt.quant == "exists" and len(ne) == 1 and comp.quant == "forall"
                 and comp.concl == (Eq(ne[0].lhs, ne[0].rhs),)
                 and set(comp.hyps) == (set(stmt.hyps) - {ne[0]}) | set(stmt.concl)
                 and set(comp.vars) == set(stmt.vars))
        cv = verdict_of(companion_id)
        ver = f"peproof argument checker; sympy {sp.__version__}"
        if not shape or cv.status != "proved":
            return Verdict("unknown", "argument", ver, "proof of the negation",
                           reason=f"negation not established (shape {shape}, {cv.status})")
        witness = {"kind": "proof of the negation", "negation": companion_id,
                   "statement": str(comp), "argument": " / ".join(cv.trace),
                   "axioms": list(cv.axioms),
                   "certified_by": "argument checker: the companion is the exact negation "
                                   "(checked structurally), proved from the stated axioms"}
        return Verdict("refuted", "argument", ver, "proof of the negation", axioms=cv.axioms,
                       seconds=time.perf_counter() - t0, witness=witness,
                       trace=[f"negation = {companion_id}: {comp}"] + cv.trace)

    return proof


# ------------------------------------------------------------------ statements
WRAP_EXACT = Statement(
    (Eq(WRAP, WRAP_CLOSED),) + mat_eq(general_pe_pair(WRAP, OMEGA_MIN),
                                                       general_pe_pair(0, OMEGA_MIN)),
    (V_D,),
)
WRAP_ABOUT = Statement(near(WRAP, APPROX_INT, R(APPROX_INT, 20)), (V_D,))
WRAP_NUMBERS = Statement(
    (Eq(WRAP.subs(d, 4), WRAP_CLOSED.subs(d, 4)),) + near(WRAP.subs(d, 4), W4, R(1, 20))
    + near(WRAP.subs(d, 512), W512, R(1, 20))
)
NO_WRAP_60K = Statement(Lt(OMEGA_MIN * p, PI2), (V_D, V_P), hyps=(Lt(p, 60000),))
BEFORE_WRAP = Statement(
    (Le(0, OMEGA_MIN * pos), Lt(OMEGA_MIN * pos, OMEGA_MIN * q), Lt(OMEGA_MIN * q, PI2)),
    (V_D, V_POS, V_Q), hyps=(Le(0, pos), Lt(pos, q), Lt(q, WRAP)),
)
THRESH = Statement((Le(60000, WRAP), Lt(WRAP.subs(d, 398), 60000)), (V_D,), hyps=(Le(400, d),))
NEAR_D4 = Statement(tuple(r for j in range(4) for r in near(E4.entry(13823, j), E4.entry(0, j),
                                                              R(1, 100))))
INJ_ALL = Statement(Eq(a, b), (V_A, V_B, V_D), hyps=_pair_eq(a, b, OMEGA_0))
INJ_PAIR = Statement(Eq(a, b), (V_A, V_B, V_D, V_I), hyps=(I_IN_RANGE,) + _pair_eq(a, b))
EXISTS_ALL = Statement(_pair_eq(a, b, OMEGA_0), (V_A, V_B, V_D), hyps=(Ne(a, b),), quant="exists")
EXISTS_PAIR = Statement(_pair_eq(a, b), (V_A, V_B, V_D, V_I), hyps=(I_IN_RANGE, Ne(a, b)),
                        quant="exists")


NEAR_710 = Statement(
    near(pe(710, 0, E512), 0, R(1, 10000)) + near(pe(710, 1, E512), 1, R(1, 10000))
    + near(pe(355, 0, E512), 0, R(1, 10000)) + (Le(pe(355, 1, E512), R(-99, 100)),)
)
REAL_PERIOD = Statement(mat_eq(E4.vector(pos + 200 * sp.pi), E4.vector(pos))
                        + mat_eq(E4.vector(200 * sp.pi), E4.vector(0)), (V_POS,))
_fal = Falsifier


_SRC_WRAP = src(FOURIER, UNIQUE, "pos = \\frac{2\\pi}{\\omega_{\\min}}")
_SRC_ABOUT = src(FOURIER, UNIQUE, "\\approx 2\\pi \\cdot 10000 \\approx 62{,}832")
_SRC_TURN = src(FOURIER, UNIQUE,
                "this angle is distinct for every position until it completes a full turn")
_SRC_60K = src(FOURIER, UNIQUE, "So for any sequence shorter than roughly sixty thousand tokens, "
                                "the lowest frequency pair alone already assigns a distinct "
                                "angle to each position")
_SRC_REPEAT = src(INTRO, "Worked example 1: computing two dimensions by hand",
                  "any single pair alone would eventually repeat")
_SRC_WAVE = src(INTRO, "Worked example 2: distinguishing nearby versus distant positions",
                "no single wave alone uniquely identifies a position")

CLAIMS = [
    Claim(
        "uniqueness.slowest_pair_wraps_at_exact_position",
        "The slowest pair completes its first turn at pos = 2 pi/omega_min = " + H.text(),
        (_SRC_WRAP, _SRC_TURN), WRAP_EXACT, "identity",
        falsifiers=(
            _fal("half_turn", Statement(_pair_eq(sp.pi / OMEGA_MIN, 0, OMEGA_MIN), (V_D,)),
                 "wraps at pi/omega_min"),
            _fal("two_pi_ten_thousand", Statement(Eq(WRAP, PI2 * 10000), (V_D,)),
                 "the approximation 2 pi 10000 as an identity") if _X != 1 else
            _fal("paper_exponent", Statement(Eq(WRAP, PI2 / _C * _B ** ((d - 2) / d)), (V_D,)),
                 "the paper's exponent (d-2)/d where the law's cancels to 1"),
        ),
        note="" if PAPER else "The closed form is read off the frequency law "
             "(peproof/families/_horizon.py): 2 pi/omega(d/2 - 1) written as (2 pi/c) b^x with "
             "the exponent x over one denominator; the engines decide that the two are equal.",
    ),
    Claim(
        "uniqueness.wrap_position_about_62832",
        f"2 pi/omega_min ≈ {H.text_approx()} ≈ {APPROX_INT:,} for every d (5 % relative "
        "tolerance)",
        _SRC_ABOUT, WRAP_ABOUT, "numeric",
        expect="refuted", companion="uniqueness.slowest_pair_wraps_at_exact_position",
        erratum=("error", 1, "The position where the slowest pair completes its first turn depends on d: for small d it comes far before the 'practical lengths' the source promises."),
        falsifiers=(_fal("one_percent", Statement(near(WRAP, 62832, R(62832, 100)), (V_D,)), "1 %"),
                    _fal("exact", Statement(Eq(WRAP, 62832), (V_D,)), "equality")) if PAPER else
                   (_fal("half", Statement(near(WRAP, R(APPROX_INT, 2), R(APPROX_INT, 40)), (V_D,)),
                         "half of it"),
                    _fal("exact", Statement(Eq(WRAP, APPROX_INT), (V_D,)), "equality")),
        proof=None if PAPER else H.rewrite_by("uniqueness.slowest_pair_wraps_at_exact_position"),
        note=("For your encoding: |2 pi/omega_min - N| <= 5 % of N with N = 2 pi base/c rounded, "
              "c the frequency scale; decided with 2 pi/omega_min rewritten into its closed "
              "form (uniqueness.slowest_pair_wraps_at_exact_position).") if not PAPER else "Read as |2 pi/omega_min - 62832| <= 5 % of 62832 (two inequalities). Witness d = 4: "
             "200 pi = 628.3. The value depends on d (60611.5 at d = 512, within 5 %; "
             "uniqueness.wrap_position_d4_and_d512); the 5 % reading holds iff d >= 360 "
             "(encoding.max_wavelength_within_five_percent_for_d_ge_360, same quantity).",
    ),
    Claim(
        "uniqueness.wrap_position_d4_and_d512",
        f"The first wrap is at {sp.sstr(WRAP_CLOSED.subs(d, 4)).replace('*', ' ')} = "
        f"{H.decimal(W4, 1)} for d = 4 and at {H.decimal(W512, 1)} for d = 512" if not PAPER else
        "The first wrap is at 200 pi = 628.3 for d = 4 and at 60,611.5 for d = 512",
        _SRC_ABOUT, WRAP_NUMBERS, "numeric",
        uses=("uniqueness.slowest_pair_wraps_at_exact_position",),
        falsifiers=(_fal("seed_value_at_512", Statement(near(WRAP.subs(d, 512), 62832, R(1, 2))),
                         "62,832 at d = 512") if PAPER else
                    _fal("next_unit_at_512", Statement(near(WRAP.subs(d, 512), W512 + 1,
                                                            R(1, 2))), "one more at d = 512"),
                    _fal("d4_last_digit", Statement(near(WRAP.subs(d, 4), W4 + R(1, 10),
                                                         R(1, 20))), "last digit + 1")),
        note="One decimal: |x - r| <= 0.05.",
    ),
    Claim(
        "uniqueness.slowest_pair_no_wrap_below_sixty_thousand",
        "For every d, positions below 60,000 keep the slowest angle omega_min pos below 2 pi",
        _SRC_60K, NO_WRAP_60K, "inequality",
        expect="refuted", companion="uniqueness.slowest_pair_distinct_angles_before_wrap",
        erratum=("error", 2, "The source's reason for uniqueness below sixty thousand tokens holds only for d >= 400; for smaller d the slowest angle has already turned once."),
        falsifiers=(_fal("below_pi", NO_WRAP_60K.with_concl(Lt(OMEGA_MIN * p, sp.pi)), "pi"),
                    _fal("below_one", NO_WRAP_60K.with_concl(Lt(OMEGA_MIN * p, 1)), "1 rad")),
        note="The seed's reason ('distinct because no full turn yet') formalised; witness d = 4, "
             "pos = 629: omega_min pos = 6.29 > 2 pi (the wrap is at 628.3). It holds iff "
             "d >= 400 (uniqueness.wrap_beyond_sixty_thousand_iff_d_ge_400). The conclusion "
             "'distinct angles mod 2 pi' is nevertheless true on the integers for every d, for a "
             "different reason (uniqueness.single_pair_injective_on_integers); near "
             "collisions do occur (uniqueness.d4_near_collision_below_sixty_thousand).",
        proof=refute_at({"d": 4, "p": 629}),
    ),
    Claim(
        "uniqueness.slowest_pair_distinct_angles_before_wrap",
        "For 0 <= pos < q < 2 pi/omega_min: 0 <= omega_min pos < omega_min q < 2 pi",
        _SRC_TURN, BEFORE_WRAP, "inequality",
        uses=("uniqueness.slowest_pair_wraps_at_exact_position",),
        falsifiers=(_fal("below_pi", BEFORE_WRAP.with_concl(Lt(OMEGA_MIN * q, sp.pi)), "pi"),
                    _fal("strictly_positive", BEFORE_WRAP.with_concl(Lt(0, OMEGA_MIN * pos)),
                         "angle > 0 at pos = 0")),
        note="The angle is strictly increasing on [0, 2 pi/omega_min) and stays in [0, 2 pi), "
             "so positions there get distinct angles (real positions, hence integers).",
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "uniqueness.wrap_beyond_sixty_thousand_iff_d_ge_400",
        "2 pi/omega_min >= 60,000 for d >= 400, and < 60,000 at d = 398",
        src(FOURIER, UNIQUE, "shorter than roughly sixty thousand tokens"), THRESH, "inequality",
        uses=("uniqueness.slowest_pair_wraps_at_exact_position",),
        falsifiers=(_fal("above_61000", THRESH.with_concl(Le(61000, WRAP)), "61,000"),
                    _fal("every_d", Statement(Le(60000, WRAP), (V_D,)), "no hypothesis on d")),
        proof=with_default(powers.prove_statement),
    ),
    Claim(
        "uniqueness.d4_near_collision_below_sixty_thousand",
        "d = 4: PE(13823) and PE(0) agree within 0.01 in every channel",
        src(FOURIER, UNIQUE, "and the full encoding is therefore unique"), NEAR_D4, "numeric",
        falsifiers=(_fal("thousandth", Statement(near(E4.entry(13823, 0), 0, R(1, 1000))),
                         "within 0.001"),
                    _fal("neighbour", Statement(near(E4.entry(13822, 0), 0, R(1, 100))),
                         "position 13822")),
        note="13823 = 22 * 200 pi + 0.0077: both pairs are 0.0077 rad from their start. Exact "
             "uniqueness holds (uniqueness.pe_injective_on_integers); numerically, positions "
             "below 60,000 can be this close at d = 4.",
    ),
    Claim(
        "uniqueness.pe_injective_on_integers",
        "PE_d(a) = PE_d(b) for integers a, b implies a = b (already on the pair omega_0 = 1)",
        (src(INTRO, "Worked example 1: computing two dimensions by hand",
             "giving each position a genuinely unique combined fingerprint"),
         src(EXAM, "The sinusoidal formula", "gives every position a unique, smoothly-varying "
                                             "fingerprint"),
         src(INTRO, "The analogy: giving every seat a unique, decodable fingerprint",
             "such that no two seats ever show the same combination"),
         src(FOURIER, UNIQUE, "and the full encoding is therefore unique")),
        INJ_ALL, "integer",
        uses=("encoding.first_frequency_eq_one",),
        falsifiers=(_fal("period_six", _period(6, OMEGA_0), "integer period 6"),
                    _fal("separated", _separated(OMEGA_0), "distinct integers 1/sqrt(10) apart")),
        note="Hypotheses use channels 0 and 1 only (a weaker hypothesis than PE(a) = PE(b)).",
        proof=injectivity_argument,
    ),
    Claim(
        "uniqueness.single_pair_injective_on_integers",
        "Every single pair (sin omega_i pos, cos omega_i pos) is injective on the integers",
        (_SRC_REPEAT, _SRC_WAVE), INJ_PAIR, "integer",
        falsifiers=(_fal("period_six", _period(6), "integer period 6"),
                    _fal("separated", _separated(), "distinct integers 1/sqrt(10) apart")),
        note="omega_i = 10000^(-2i/d) is algebraic and pi transcendental, so omega_i (a - b) is "
             "never a nonzero multiple of 2 pi. (Even the sine channel alone is injective on "
             "integers: a + b = pi (2k + 1) is impossible too.)",
        proof=injectivity_argument,
    ),
    Claim(
        "uniqueness.integers_collide_beyond_practical_lengths",
        "Uniqueness fails for some integers: there are a != b with PE(a) = PE(b) on pair 0",
        (src(FOURIER, UNIQUE, "rather than for all integers"), src(FOURIER, UNIQUE, UNIQUE)),
        EXISTS_ALL, "existential",
        expect="refuted", companion="uniqueness.pe_injective_on_integers",
        erratum=("error", 8, "Distinct integer positions never have equal encodings, at any length; what degrades is their separation and finite precision, not uniqueness."),
        falsifiers=(_fal("period_710", _period(710, OMEGA_0), "near period 710 as exact"),
                    _fal("period_44", _period(44, OMEGA_0), "near period 44 as exact")),
        note="A collision of the full vectors is a collision on channels 0 and 1, so refuting "
             "this weaker existential refutes the seed's. Refuted by proving the negation "
             "(pi irrational). The property holds for all integers; what fails in practice is "
             "separation (uniqueness.near_repeat_at_710).",
        proof=refuted_by_negation("uniqueness.pe_injective_on_integers"),
    ),
    Claim(
        "uniqueness.single_pair_eventually_repeats",
        "Some single pair repeats: exist d, i and integers a != b with pair_i(a) = pair_i(b)",
        (_SRC_REPEAT, _SRC_WAVE), EXISTS_PAIR, "existential",
        expect="refuted", companion="uniqueness.single_pair_injective_on_integers",
        erratum="literal",
        falsifiers=(_fal("period_710", _period(710), "near period 710 as exact"),
                    _fal("period_628", _period(628), "near period 628 as exact")),
        note="Refuted by proving the negation (pi transcendental). True over real positions "
             "(uniqueness.real_positions_periodic_d4) and in finite precision "
             "(uniqueness.near_repeat_at_710), not on the integers.",
        proof=refuted_by_negation("uniqueness.single_pair_injective_on_integers"),
    ),
    Claim(
        "uniqueness.near_repeat_at_710",
        "omega = 1 pair: positions 0 and 710 differ by < 1e-4; 355 matches only the sine "
        "(cos 355 ~ -1)",
        _SRC_REPEAT, NEAR_710, "numeric",
        falsifiers=(_fal("tol_1e5", Statement(near(pe(710, 0, E512), 0, R(1, 10**5))), "1e-5"),
                    _fal("cos_at_355", Statement(near(pe(355, 1, E512), 1, R(1, 10000))), "")),
        note="710 = 226 pi + 6.0e-5 and 355 = 113 pi + 3.0e-5 (an odd multiple of pi, so the "
             "cosine flips sign): approximate, never exact, repeats.",
    ),
    Claim(
        "uniqueness.real_positions_periodic_d4",
        "Over real positions the d = 4 encoding has period 200 pi: PE(pos + 200 pi) = PE(pos), "
        "PE(200 pi) = PE(0)",
        src(APPENDIX, "4.1 What worked", "Sinusoidal functions are defined at every real-valued "
                                         "position"),
        REAL_PERIOD, "identity",
        falsifiers=(
            _fal("period_100_pi", Statement(mat_eq(E4.vector(pos + 100 * sp.pi), E4.vector(pos)),
                                            (V_POS,)), "half the period"),
            _fal("period_200", Statement(mat_eq(E4.vector(pos + 200), E4.vector(pos)), (V_POS,)),
                 "200 without pi"),
        ),
        note="omega_1 = 1/100 is rational, so 200 pi is a common period; a real collision "
             "PE(0) = PE(200 pi) shows why injectivity needs integer positions.",
    ),
]


CLAIMS += H.your_width(WRAP, (_SRC_WRAP, _SRC_ABOUT))

#: the claims whose statement reads pair d/2 - 1 as the slowest
HORIZON_IDS = frozenset({
    "uniqueness.slowest_pair_wraps_at_exact_position", "uniqueness.wrap_position_about_62832",
    "uniqueness.wrap_position_d4_and_d512", "uniqueness.slowest_pair_no_wrap_below_sixty_thousand",
    "uniqueness.slowest_pair_distinct_angles_before_wrap",
    "uniqueness.wrap_beyond_sixty_thousand_iff_d_ge_400", "uniqueness.wrap_position_at_your_width",
})


def build(variant=None) -> list[Claim]:
    """The claims for ``variant`` (imported with it in force); the horizon claims say why they
    have no meaning for a law whose frequencies grow with the pair index (nerf)."""
    if not _SLOWEST_WHY:
        return CLAIMS
    from peproof.variant_claims import not_applicable

    return [not_applicable(c, _SLOWEST_WHY) if c.id in HORIZON_IDS else c for c in CLAIMS]
