"""Tests that kill the one-line mutants of ``tests/mutants/mutants.toml`` which the rest of the
suite let survive (``make mutants`` runs the list).  Each test names the mutant(s) it kills; each
checks behaviour: a false statement is not proved, a true one not refuted, or an engine gives a
specific answer that follows from the mathematics (not from the code under test).
"""

import flint
import mpmath
import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, Var, var
from peproof.encoding import Encoding, omega_expr, row_positions
from peproof.engines import (
    angles,
    cyclotomic,
    facts,
    periodic,
    powers,
    rational,
    realz3,
    witness,
    z3poly,
)
from peproof.engines.decide import decide_statement, with_default
from peproof.engines.wellformed import IllFormed
from peproof.engines.z3trig import decide_z3
from peproof.kernel.arb import Unsupported, arb_eval

# an engine conflict (a lie the falsification gate caught) fails the test: see tests/conftest.py
pytestmark = pytest.mark.usefixtures("engine_conflicts_fail")

x, VX = var("x", "real")
y, VY = var("y", "real")
z, VZ = var("z", "real")
pos, VPOS = var("pos", "real")
n, VN = var("n", "pos_integer")
k, VK = var("k", "integer")
d, VD = var("d", "even_pos_integer")
i = sp.Symbol("i", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True)
S, C = sp.sin, sp.cos


def status(engine, stmt) -> str:
    try:
        return engine(stmt).status
    except IllFormed:
        return "refused"


def sin_pi(q):
    """``sin(q pi)`` as built (SymPy would evaluate it to radicals)."""
    return sp.sin(sp.pi * q, evaluate=False)


# --------------------------------------------------------------------------- encoding
def test_a_turn_is_two_pi():
    """Kills encoding-turns-pi: with frequencies in turns, position 1 is one full turn of the
    first pair (max_freq 1), position 1/2 half a turn."""
    enc = Encoding(4, turns=True)
    assert enc.vector(1)[:2] == [0, 1]
    assert enc.vector(sp.Rational(1, 2))[:2] == [0, -1]


def test_reversed_rows_are_the_forward_rows_backwards():
    """Kills encoding-reversed-rows: a reversed table of n rows covers the same positions
    0 .. n-1 as the forward one, last row first."""
    for rows in (1, 2, 5):
        assert list(row_positions(rows, "reversed")) == list(range(rows))[::-1]


# --------------------------------------------------------------------------- hygiene
def test_engine_symbols_cannot_be_rebuilt_from_a_small_index():
    """Kills hygiene-guessable-index: a user's ``Dummy('omega', dummy_index=0)`` must not be
    the lifting's frequency symbol (nor ``w0`` z3's)."""
    W = omega_expr(i, d)
    for name, engine in (("omega", decide_statement), ("w0", decide_z3)):
        for idx in range(3):
            u = sp.Dummy(name, dummy_index=idx, positive=True)
            lhs = sp.Sum(S(W * pos), (i, 0, d / 2 - 1))
            rhs = sp.Sum(S(u * pos), (i, 0, d / 2 - 1))
            stmt = Statement(Eq(lhs, rhs), (VPOS, VD, Var(u, "pos_real")))
            assert status(engine, stmt) != "proved", (name, idx)


# --------------------------------------------------------------------------- cyclotomic
def cyc(rel) -> str:
    return cyclotomic.proof(Statement(rel), None).status


def test_cyclotomic_cosine():
    """Kills cyclotomic-cos-minus: cos(pi/3) = 1/2, cos(pi) = -1."""
    assert cyc(Eq(sp.cos(sp.pi / 3, evaluate=False), sp.Rational(1, 2))) == "proved"
    assert cyc(Eq(sp.cos(sp.pi, evaluate=False), 1)) == "refuted"


def test_cyclotomic_negative_powers_are_outside_the_fragment():
    """Kills cyclotomic-negative-power (1/sin(pi/5) evaluated as the empty product 1)."""
    assert cyc(Eq(sin_pi(sp.Rational(1, 5)) ** -1, 1)) != "proved"
    assert cyc(Eq(sin_pi(sp.Rational(1, 6)) ** 2, sp.Rational(1, 4))) == "proved"


def test_cyclotomic_field_decides_equalities_only():
    """Kills cyclotomic-inequalities-accepted: sin(pi/5) > 0, so sin(pi/5) < 0 is refuted (by
    the default engines: an order relation is outside the cyclotomic fragment)."""
    lt = Statement(Lt(sin_pi(sp.Rational(1, 5)), 0))
    v = cyclotomic.proof(lt, None)
    assert v.status == "unknown" and v.method == "not applicable" and "relation <" in v.reason
    assert with_default(cyclotomic.proof)(lt).status == "refuted"
    assert cyc(Ne(sin_pi(sp.Rational(1, 5)), 0)) == "proved"


def test_cyclotomic_sums_include_their_upper_limit():
    """Kills cyclotomic-sum-off-by-one: sum_{j=0}^{3} sin^2(j pi/2) = 0 + 1 + 0 + 1 = 2."""
    total = sp.Sum(sin_pi(j / 2) ** 2, (j, 0, 3))
    assert cyc(Eq(total, 2)) == "proved"
    assert cyc(Eq(total, 1)) == "refuted"


def test_cyclotomic_refuses_reversed_ranges():
    """Kills cyclotomic-reversed-range: hi = lo - 2 is reversed (undefined), hi = lo - 1 empty."""
    field = cyclotomic.Field(4)
    with pytest.raises(Unsupported, match="reversed"):
        field.ev(sp.Sum(1, (j, 0, -2)), {})
    assert field.ev(sp.Sum(1, (j, 0, -1)), {}) == 0


# --------------------------------------------------------------------------- arb
def test_arb_never_rounds_a_ball_that_straddles_an_integer():
    """Kills arb-floor-of-midpoint: sin^2 + cos^2 at 1 is a ball around 1, whose floor is
    0 or 1 depending on where in the ball the value lies: no answer."""
    with pytest.raises(Unsupported, match="straddles"):
        arb_eval(sp.floor(S(x) ** 2 + C(x) ** 2), {x: 1})
    with pytest.raises(Unsupported, match="straddles"):
        arb_eval(sp.ceiling(S(x) ** 2 + C(x) ** 2), {x: 1})
    true = Statement(Eq(sp.floor(S(x) ** 2 + C(x) ** 2), 1), (VX,))
    assert witness.find_counterexample(true) is None


def test_arb_refuses_a_range_reversed_by_one():
    """Kills arb-reversed-range: k = -1 gives the range 0 .. -2 (reversed, not empty)."""
    total = sp.Sum(1, (j, 0, k - 1))
    with pytest.raises(Unsupported, match="reversed"):
        arb_eval(total, {k: -1})
    assert arb_eval(total, {k: 0}) == 0


def test_arb_piecewise_needs_a_decided_condition():
    """Kills arb-accept-undecided-condition: at x = 1 the balls cannot tell whether
    sin^2 + cos^2 >= 1, so neither branch may be taken."""
    pw = sp.Piecewise((1, S(x) ** 2 + C(x) ** 2 >= 1), (2, True))
    with pytest.raises(Unsupported, match="Piecewise"):
        arb_eval(pw, {x: 1})
    assert arb_eval(sp.Piecewise((1, x >= 1), (2, True)), {x: 1}) == 1


def test_arb_powers_abs_max():
    """Kills arb-negative-power (2^-2 = 1/4), arb-abs-dropped (|-3| = 3) and arb-max-min-swap
    (max(1, 2) = 2, min(1, 2) = 1): exact arguments give exact balls."""
    quarter = flint.arb(flint.fmpq(1, 4))
    assert (arb_eval(x**-2, {x: 2}) == quarter) is True
    assert (arb_eval(sp.Abs(x), {x: -3}) == 3) is True
    assert (arb_eval(sp.Max(x, y), {x: 1, y: 2}) == 2) is True
    assert (arb_eval(sp.Min(x, y), {x: 1, y: 2}) == 1) is True


# --------------------------------------------------------------------------- decide
def test_identical_sides_settle_only_weak_relations():
    """Kills decide-construction-strict: x < x is false for every x."""
    assert decide_statement(Statement(Lt(x, x), (VX,))).status == "refuted"
    assert decide_statement(Statement(Le(x, x), (VX,))).status == "proved"


def test_closed_strict_inequality_with_equal_sides_is_refuted():
    """Kills decide-arb-strict: sum_{j=0}^{2} 1 = 3 exactly, so 3 < 3 is false."""
    three = sp.Sum(1, (j, 0, 2))
    assert decide_statement(Statement(Lt(three, 3))).status == "refuted"
    assert decide_statement(Statement(Le(three, 3))).status == "proved"


# --------------------------------------------------------------------------- rational
def test_rational_engine_keeps_exp_atoms_apart():
    """Kills rational-one-atom: exp(x)/(exp(x) + exp(y)) is 1/2 only where x = y."""
    ex, ey = sp.exp(x), sp.exp(y)
    assert rational.decide(Statement(Eq(ex / (ex + ey), sp.Rational(1, 2)), (VX, VY))).status \
        != "proved"
    assert rational.decide(Statement(Eq(ex / (ex + ey) + ey / (ex + ey), 1), (VX, VY))).status \
        == "proved"


# --------------------------------------------------------------------------- realz3
def test_real_z3_needs_every_conclusion():
    """Kills realz3-any-conclusion: for 0 < x < 1, x < 2 holds but x < 0 does not."""
    stmt = Statement((Lt(x, 2), Lt(x, 0)), (VX,), hyps=(Lt(0, x), Lt(x, 1)))
    assert with_default(realz3.prove)(stmt).status == "refuted"
    assert realz3.prove(Statement((Lt(x, 2), Lt(0, x)), (VX,),
                                  hyps=(Lt(0, x), Lt(x, 1)))).status == "proved"


def test_real_z3_reciprocal_powers():
    """Kills realz3-negative-power: 1/x > 1 for 0 < x < 1; 1/x^2 <= 1/x holds for x >= 1 and
    fails for 0 < x < 1."""
    inside = (Lt(0, x), Lt(x, 1))
    assert realz3.prove(Statement(Lt(1, 1 / x), (VX,), hyps=inside)).status == "proved"
    assert with_default(realz3.prove)(Statement(Le(1 / x, 1), (VX,), hyps=inside)).status \
        == "refuted"
    assert realz3.prove(Statement(Le(1 / x**2, 1 / x), (VX,), hyps=(Le(1, x),))).status \
        == "proved"
    assert with_default(realz3.prove)(Statement(Le(1 / x**2, 1 / x), (VX,),
                                                hyps=(Lt(0, x), Lt(x, 1)))).status == "refuted"


# --------------------------------------------------------------------------- signs
def test_sign_rules_on_bases_of_real_powers():
    """Kills signs-even-power-positive and signs-sum-of-nonneg-positive (x^2 + y^2 may be 0, so
    (x^2 + y^2)^z is not known to be defined, let alone positive) and signs-product-sign
    (-exp(x) < 0: (-exp(x))^y is not a real power)."""
    for base in (x**2 + y**2, -sp.exp(x)):
        stmt = Statement(Lt(0, base**z), (VX, VY, VZ))
        assert not facts.check(stmt).ok, base
        assert decide_statement(stmt).status != "proved", base
    assert decide_statement(Statement(Lt(0, (x**2 + y**2 + 1) ** z), (VX, VY, VZ))).status \
        == "proved"


def test_reciprocals_are_not_integer_valued():
    """Kills signs-negative-power-integer: a sum up to 1/n is not a sum over an integer range
    (at n = 2 the 'sum_{j=0}^{1/2} 1 = 3/2' reading is false)."""
    stmt = Statement(Eq(sp.Sum(1, (j, 0, 1 / n)), 1 / n + 1), (VN,))
    assert not facts.check(stmt).ok
    assert decide_statement(stmt).status != "proved"


# --------------------------------------------------------------------------- wellformed
def test_log_needs_a_positive_argument():
    """Kills wellformed-log-nonneg: the identity holds where log x is defined (x > 0) only."""
    ident = Eq(S(sp.log(x)) ** 2 + C(sp.log(x)) ** 2, 1)
    assert decide_statement(Statement(ident, (VX,), hyps=(Lt(0, x),))).status == "proved"
    assert decide_statement(Statement(ident, (VX,), hyps=(Le(0, x),))).status != "proved"


def test_tan_needs_a_nonzero_cosine():
    """Kills wellformed-tan-unchecked: tan^2 x <= tan^2 x + 1 says nothing at x = pi/2, where
    tan is undefined; with cos x != 0 assumed it is proved (tan an opaque real for z3)."""
    bound = Le(sp.tan(x) ** 2, sp.tan(x) ** 2 + 1)
    assert decide_statement(Statement(bound, (VX,))).status != "proved"
    assert decide_statement(Statement(bound, (VX,), hyps=(Ne(C(x), 0),))).status == "proved"


def test_a_range_that_may_be_reversed_is_never_summed():
    """Kills wellformed-range-off-by-one: with k >= -1 the range 0 .. k-1 is reversed at k = -1,
    so not even an identity of the summands proves the sums equal."""
    lhs = sp.Sum(S(j) ** 2 + C(j) ** 2, (j, 0, k - 1))
    stmt = Statement(Eq(lhs, sp.Sum(1, (j, 0, k - 1))), (VK,), hyps=(Le(-1, k),))
    assert decide_statement(stmt).status == "unknown"
    assert "range not reversed" in decide_statement(stmt).reason
    ok = Statement(Eq(lhs, sp.Sum(1, (j, 0, k - 1))), (VK,), hyps=(Le(0, k),))
    assert decide_statement(ok).status == "proved"


def test_a_real_power_needs_a_positive_base_to_be_nonzero():
    """Kills wellformed-root-nonzero: (x^2)^(y) with x = 0 is 0 or undefined, so 1/that is not
    known to be defined; with a base proved positive it is."""
    bad = Statement(Lt(0, 1 / (x**2 + y**2) ** z), (VX, VY, VZ))
    assert not facts.check(bad).ok
    assert "side condition not proved" in decide_statement(bad).reason
    good = Statement(Lt(0, 1 / (x**2 + y**2 + 1) ** z), (VX, VY, VZ))
    assert facts.check(good).ok


# --------------------------------------------------------------------------- witness
def test_counterexamples_need_certified_hypotheses():
    """Kills witness-undecided-hypothesis: sin^2 + cos^2 < 1 is false everywhere, so the
    statement is vacuously true; the balls cannot decide the hypothesis, so no point refutes."""
    stmt = Statement(Lt(x, 0), (VX,), hyps=(Lt(S(x) ** 2 + C(x) ** 2, 1),))
    assert witness.find_counterexample(stmt) is None
    assert decide_statement(stmt).status != "refuted"


def test_strict_truth_at_equality():
    """Kills witness-strict-as-weak: x < 0 implies x != 0 (true), and 0 < 0 is false."""
    stmt = Statement(Ne(x, 0), (VX,), hyps=(Lt(x, 0),))
    assert witness.find_counterexample(stmt) is None
    assert witness.truth(Lt(x, 0), {x: 0}) is False
    assert witness.truth(Le(x, 0), {x: 0}) is True


def test_an_instance_satisfies_every_conclusion():
    """Kills witness-instance-any: no x is both negative and positive."""
    stmt = Statement((Lt(x, 0), Lt(0, x)), (VX,), quant="exists")
    assert witness.find_instance(stmt) is None
    assert decide_statement(stmt).status != "proved"
    assert decide_statement(Statement((Lt(x, 1), Lt(0, x)), (VX,), quant="exists")).status \
        == "proved"


# --------------------------------------------------------------------------- powers
def pw(rel, hyps=(), vars_=(VX,)) -> str:
    """The powers engine, then the default engines (which refute with a certified point)."""
    return with_default(powers.prove_statement)(Statement(rel, vars_, hyps)).status


def test_powers_of_different_bases_are_different():
    """Kills powers-mix-bases: 2^x = 3^x only at x = 0."""
    assert pw(Eq(2**x, 3**x)) == "refuted"
    assert pw(Eq(2**x, 3**x), hyps=(Lt(0, x),)) != "proved"
    assert pw(Lt(2**x, 2 ** (x + 1))) == "proved"


def test_log_linear_bound_rounds_kappa_down():
    """Kills powers-kappa-upper-end: 10^x < 3 iff x < log10(3).  A hypothesis x < b with b a
    hair above log10(3) (1e-60, inside a 128-bit ball of it) leaves 10^x >= 3 possible: not
    proved; b below it by more than the ball's radius (1e-12): proved."""
    with mpmath.workdps(100):
        t = mpmath.log10(3)
        above = sp.Rational(str(mpmath.nstr(t + mpmath.mpf("1e-60"), 90)))
        below = sp.Rational(str(mpmath.nstr(t - mpmath.mpf("1e-12"), 90)))
    assert pw(Lt(10**x, 3), hyps=(Lt(x, above),)) != "proved"
    assert pw(Lt(10**x, 3), hyps=(Lt(x, below),)) == "proved"


def test_powers_below_exponent_zero_are_below_one():
    """Kills powers-decreasing-below-zero: 10^-x < 1 for x > 0 (a sum, so not log-linear: the
    exponential abstraction decides)."""
    assert pw(Lt(10 ** (-x) + 10 ** (-x), 2), hyps=(Lt(0, x),)) == "proved"
    assert pw(Lt(1, 10 ** (-x)), hyps=(Lt(0, x),)) == "refuted"


def test_powers_are_increasing_in_the_exponent():
    """Kills powers-monotone-reversed: x < y gives 10^x < 10^y (sums: the abstraction's
    monotonicity axioms, not the log-linear reduction)."""
    hyp = (Lt(x, y),)
    assert pw(Lt(10**x + 1, 10**y + 1), hyps=hyp, vars_=(VX, VY)) == "proved"
    assert pw(Lt(10**y + 1, 10**x + 1), hyps=hyp, vars_=(VX, VY)) != "proved"
    assert pw(Lt(2**y + 1, 2**x + 1), hyps=hyp, vars_=(VX, VY)) != "proved"


def test_log_linear_exact_kappa():
    """Kills powers-kappa-sign: 10^x < 100 iff x < 2."""
    assert pw(Lt(10**x, 100), hyps=(Lt(x, 2),)) == "proved"
    assert pw(Lt(10**x, 100), hyps=(Lt(x, 3),)) != "proved"
    assert pw(Lt(100 * 10**x, 1), hyps=(Lt(x, -2),)) == "proved"


# --------------------------------------------------------------------------- angles
def test_separation_needs_cos_below_one_on_every_multiple_of_two_pi():
    """Kills angles-multiple-of-4pi: with omega = pi and |p - q| <= 3, p - q = 2 is allowed and
    gives cos(pi (p - q)) = 1: the pair does not separate (p = 2, q = 0 give 0)."""
    p, vp = var("p", "real")
    q, vq = var("q", "real")
    pair = (S(sp.pi * p) - S(sp.pi * q)) ** 2 + (C(sp.pi * p) - C(sp.pi * q)) ** 2
    box = (Le(0, p), Le(p, 3), Le(0, q), Le(q, 3), Ne(p, q))
    assert angles.prove_separation(Statement(Lt(0, pair), (vp, vq), box)).status != "proved"
    box1 = (Le(0, p), Le(p, 1), Le(0, q), Le(q, 1), Ne(p, q))
    assert angles.prove_separation(Statement(Lt(0, pair), (vp, vq), box1)).status == "proved"


# --------------------------------------------------------------------------- periodic
t = sp.Symbol("t", real=True)


def test_period_integral_strict_bound_at_equality():
    """Kills periodic-holds-strict: the integral of sin^2 over a period is exactly pi."""
    integral = periodic.PiIntegral(S(t) ** 2, t)
    assert periodic.decide(Statement(Lt(integral, sp.pi))).status != "proved"
    assert periodic.decide(Statement(Le(integral, sp.pi))).status == "proved"


def test_root_of_unity_sum_at_the_smallest_even_size():
    """Kills periodic-even-from-4: sum_{j<d} cos(4 pi j/d) is 0 for even d >= 4 but 2 at d = 2."""
    total = sp.Sum(C(4 * sp.pi * j / d), (j, 0, d - 1))
    assert periodic.decide(Statement(Eq(total, 0), (VD,))).status == "refuted"
    assert periodic.decide(Statement(Eq(total, 0), (VD,), hyps=(Le(4, d),))).status == "proved"


# --------------------------------------------------------------------------- z3
def test_z3_trig_multiples_of_pi():
    """Kills z3trig-cos-pi-n-one (cos(pi n) = (-1)^n) and z3trig-half-pi-sin-zero
    (sin(pi n/2) = 1 at n = 1)."""
    assert decide_z3(Statement(Eq(C(sp.pi * k), 1), (VK,))).status != "proved"
    assert decide_z3(Statement(Eq(C(sp.pi * k) ** 2, 1), (VK,))).status == "proved"
    assert decide_z3(Statement(Eq(S(sp.pi * k / 2), 0), (VK,))).status != "proved"
    assert decide_z3(Statement(Eq(S(sp.pi * k / 2) * C(sp.pi * k / 2), 0), (VK,))).status \
        == "proved"


def test_z3_lifting_divides_only_by_a_count_proved_positive():
    """Kills z3trig-lift-count-nonneg: sum_{i<m} 1/m = 1 fails at m = 0 (empty sum)."""
    m, vm = var("m", "nonneg_integer")
    ii = sp.Symbol("i", integer=True, nonnegative=True)
    assert decide_z3(Statement(Eq(sp.Sum(1 / m, (ii, 0, m - 1)), 1), (vm,))).status != "proved"
    assert decide_z3(Statement(Eq(sp.Sum(1 / n, (ii, 0, n - 1)), 1), (VN,))).status == "proved"


def test_z3_max_is_the_larger_argument():
    """Kills z3poly-max-as-min."""
    assert z3poly.prove(Statement(Le(x, sp.Max(x, y)), (VX, VY)))[0] == "proved"
    assert z3poly.prove(Statement(Le(sp.Max(x, y), x), (VX, VY)))[0] != "proved"
    assert z3poly.prove(Statement(Le(sp.Min(x, y), x), (VX, VY)))[0] == "proved"


def test_cyclotomic_evaluator_refuses_a_negative_power_by_itself():
    """Kills cyclotomic-negative-power at its own layer: the fragment gate refuses ``x**-1``
    before the evaluator sees it (the test above passes with the mutant), so the evaluator's
    own guard is held here: ``1/sin(pi/5)`` is not the empty product 1."""
    from peproof.kernel.arb import Unsupported

    e = sin_pi(sp.Rational(1, 5)) ** -1
    field = cyclotomic.Field(cyclotomic.field_order([e]))
    with pytest.raises(Unsupported):
        field.ev(e, {})
    assert field.ev(sin_pi(sp.Rational(1, 5)) ** 2, {}) != field.const(1)


def test_exponential_reduction_agrees_with_its_flint_recheck():
    """Kills expoly-reduce-mod-L at its own layer: with ``Z^L = 1`` taken for ``Z = exp(i pi
    k/L)`` SymPy's reduction calls ``sin(pi k/2)`` zero; the FLINT re-check disagrees and the
    statement is still refuted (by arb), so the verdict alone does not show the fault.  The
    reduction itself must not call it zero, and the periodic identity must be zero for both."""
    from peproof.engines import expoly

    res = expoly.expand_is_zero(S(sp.pi * k / 2))
    assert not res.sympy_zero
    res = expoly.expand_is_zero(S(sp.pi * k / 2 + 2 * sp.pi * k) - S(sp.pi * k / 2))
    assert res.sympy_zero and res.zero


def test_exponential_procedure_reduces_only_integer_multiples_of_pi():
    """Kills expoly-real-as-integer (cos(2 pi x) = 1 for integer x only) and
    expoly-reduce-mod-L (exp(i pi k/2) has period 4 in k, not 2: sin(pi k/2) = 1 at k = 1)."""
    assert decide_statement(Statement(Eq(C(2 * sp.pi * x), 1), (VX,))).status == "refuted"
    assert decide_statement(Statement(Eq(C(2 * sp.pi * k), 1), (VK,))).status == "proved"
    assert decide_statement(Statement(Eq(S(sp.pi * k / 2), 0), (VK,))).status == "refuted"
    assert decide_statement(Statement(Eq(S(sp.pi * k / 2 + 2 * sp.pi * k), S(sp.pi * k / 2)),
                                      (VK,))).status == "proved"


# --------------------------------------------------------------------------- layers (issue 18)
def test_the_fragment_gate_reads_quantifier_hypotheses_nesting_and_the_complex_view():
    """Kills fragment-quantifier-ignored, fragment-hypotheses-not-read, fragment-nested-sums,
    fragment-I-everywhere, fragment-rules-not-checked."""
    from peproof.engines import decide, z3trig
    from peproof.engines.fragment import refusal

    v = realz3.prove(Statement(Lt(x, 1), (VX,), hyps=(Lt(x, 0), Lt(0, x)), quant="exists"))
    assert v.method == "not applicable" and "exists" in v.reason
    assert "hypothesis 1" in refusal(z3trig.FRAGMENT, Statement(
        Lt(0, 1), (VX,), hyps=(Lt(sp.Max(x, 0), 1),)))
    nested = sp.Sum(sp.Sum(S(x), (i, 0, 2)) * S(x), (i, 0, 3))
    assert "summand of a side" in refusal(z3trig.FRAGMENT, Statement(Eq(nested, 0), (VX,)))
    assert "the constant I" in refusal(decide.FRAGMENT, Statement(Lt(x, x + sp.I), (VX,)))
    assert refusal(decide.FRAGMENT, Statement(Eq(x, x + sp.I), (VX,))) is None
    assert "breaks its rule" in refusal(z3trig.FRAGMENT, Statement(Le(S(S(x)), 1), (VX,)))


def test_a_sign_free_fragment_refuses_a_sign_sensitive_node():
    """Kills fragment-no-sign-free-check."""
    from peproof.engines.fragment import Fragment

    with pytest.raises(ValueError, match="sign-sensitive"):
        Fragment("e", nodes={sp.Max: ("any",)}, sign_free=True)


def test_side_conditions_need_every_factor_a_certified_sign_and_are_never_dropped():
    """Kills facts-product-any-factor, facts-closed-sign-any, facts-unproved-dropped."""
    assert not facts.check(Statement(Le(sp.log(x * y), x * y), (VX, VY), (Lt(0, x),))).ok
    assert facts.check(Statement(Le(sp.log(x * y), x * y), (VX, VY), (Lt(0, x), Lt(0, y)))).ok
    assert not facts.check(Statement(Le(sp.sqrt(sp.pi - 4), x), (VX,))).ok  # certified < 0
    assert facts.check(Statement(Le(sp.sqrt(4 - sp.pi), x), (VX,))).ok
    assert not facts.check(Statement(Lt(5, 1 / (S(x) ** 2 + C(x) ** 2 - 1)), (VX,))).ok


def test_every_entry_gates_fragment_side_conditions_kernels_and_falsification():
    """Kills gate-no-falsification, gate-no-fragment, gate-side-conditions-ignored,
    gate-no-flint-recheck, registry-expoly-ungated, registry-fragment-swapped."""
    from peproof.claims import Verdict
    from peproof.engines import expoly, gate, z3poly, z3trig
    from peproof.engines.registry import ENGINES

    liar = gate.entry(z3poly.FRAGMENT, "liar", "m")(
        lambda st, checked: Verdict("proved", "liar", "-", "m"))
    with pytest.raises(AssertionError, match="engine conflict"):  # the strict fixture
        liar(Statement(Eq(S(x), C(x)), (VX,)))
    v = ENGINES["expoly"].decide(Statement(Eq(sp.Max(S(x) ** 2, 1), 1), (VX,)))
    assert v.method == gate.NOT_APPLICABLE and "Max" in v.reason
    assert ENGINES["expoly"].decide.fragment is expoly.FRAGMENT
    assert ENGINES["z3trig"].fragment is z3trig.FRAGMENT
    # a reversed range read as an empty one: sum_{i=0}^{-n} i = 0 fails at n = 2 (Karr: 1)
    assert status(decide_z3, Statement(Eq(sp.Sum(i, (i, 0, -n)), 0), (VN,))) != "proved"
    v = powers.prove_statement(Statement(Eq(S(2 * x), 2 * S(x) * C(x)), (VX,)))
    assert v.status == "proved" and v.kernels == (expoly.SYMPY_KERNEL, "FLINT re-check "
                                                  "(python-flint fmpq_mpoly)")


def test_the_lifting_spreads_the_remainder():
    """Kills lifting-remainder-dropped: sum_{i=0}^{2} (sin^2 + cos^2 - 1) = 1 is false (0)."""
    total = sp.Sum(S(x) ** 2 + C(x) ** 2 - 1, (i, 0, 2))
    assert status(decide_statement, Statement(Eq(total, 1), (VX,))) != "proved"
    assert decide_statement(Statement(Eq(total + 1, 1), (VX,))).status == "proved"


def test_brackets_integrals_and_versions_mean_what_they_say():
    """Kills objects-delta-inverted, objects-integral-half-period, versions-z3-as-sympy,
    versions-flint-as-sympy."""
    import z3

    from peproof.engines.objects import Delta, PiIntegral
    from peproof.engines.versions import versions

    assert Delta(3, 3) == 1 and Delta(3, 4) == 0
    t = sp.Symbol("t", real=True)
    ball = arb_eval(PiIntegral(C(t) ** 2 + 1, t), {}, 64)
    assert abs(ball - 3 * flint.arb.pi()) < flint.arb(2) ** -40
    assert versions()["z3"] == z3.get_version_string()
    assert versions()["python-flint"] == flint.__version__

