"""Soundness on statements a hostile user could write (issue 9), one section per class.

Each false statement here was *proved* by some engine before the well-formedness layer, the
hygienic names and the proved lifting preconditions; each must now be refused (IllFormed),
unknown, or refuted with a certified witness.  The true variants beside them must stay proved,
so a fix that refuses everything fails too.  The last section kills one-line mutants of the
engines that the rest of the suite let survive (each test names its mutant).
"""

import itertools

import flint
import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, Var, var
from peproof.encoding import omega_expr
from peproof.engines import (
    cyclotomic,
    facts,
    powers,
    rational,
    realz3,
    witness,
    z3base,
    z3poly,
    z3trig,
)
from peproof.engines.decide import decide_statement, lift, with_default
from peproof.engines.wellformed import IllFormed
from peproof.engines.z3trig import decide_z3
from peproof.kernel.arb import Unsupported, arb_eval

# an engine conflict (a lie the falsification gate caught) fails the test: see tests/conftest.py
pytestmark = pytest.mark.usefixtures("engine_conflicts_fail")

x, VX = var("x", "real")
y, VY = var("y", "real")
r, VR = var("r", "real")
pos, VPOS = var("pos", "real")
d, VD = var("d", "even_pos_integer")
n, VN = var("n", "pos_integer")
m, VM = var("m", "nonneg_integer")
a, VA = var("a", "integer")
b, VB = var("b", "integer")
i = sp.Symbol("i", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True)
W = omega_expr(i, d)
S, C = sp.sin, sp.cos


def pairs(f):
    return sp.Sum(f, (i, 0, d / 2 - 1))


def status(decide, stmt) -> str:
    try:
        return decide(stmt).status
    except IllFormed:
        return "refused"


def not_proved(stmt, *engines):
    for decide in engines or (decide_statement, decide_z3):
        got = status(decide, stmt)
        assert got != "proved", f"{decide.__name__} proved a false statement: {stmt}"


def proved(stmt, decide=decide_statement):
    v = decide(stmt)
    assert v.status == "proved", (stmt, v.reason, v.trace[-3:])


# --------------------------------------------------------------------------- 1. hygiene
# every name an engine gives its own symbols or z3 constants (grep Symbol/Dummy/z3.Real/Int in
# peproof/engines): the lifting's omega/omega0, z3's w0, expoly's Z0 and E_, rational's e0,
# z3's s/c/sa/ca/t/r/p/pi/m, the cache's _v0_<domain>, the Names counter's label!n
INTERNAL = ["omega", "omega0", "omega1", "w0", "w1", "Z0", "Z1", "_Z0", "E_", "e0", "_e0", "i",
            "s", "c", "s0", "c0", "sa5", "ca5", "t0", "r0", "p0", "pi", "m", "canon",
            "_v0_real", "_v0_pos_real", "_v0_?", "x!1", "s!1", "pi!1", "omega!1"]


@pytest.mark.parametrize("name", INTERNAL)
def test_user_symbols_named_like_engine_internals_prove_nothing_false(name):
    u, VU = var(name, "pos_real")
    v, VV = var(name, "real")
    # the lifting's frequency must not be the user's variable
    not_proved(Statement(Eq(pairs(S(W * pos)), pairs(S(u * pos))), (VPOS, VD, VU)))
    not_proved(Statement(Eq(pairs(W), d / 2 * u), (VD, VU)))
    # the procedure's atoms exp(i x) must not be the user's variable
    not_proved(Statement(Eq(S(x), (v - 1 / v) / (2 * sp.I)), (VX, VV), hyps=(Ne(v, 0),)),
               decide_statement)
    # z3's atoms for sin x, pi, powers, exp must not be the user's variable
    not_proved(Statement(Eq(S(x), v), (VX, VV)))
    assert z3poly.prove(Statement(Eq(S(x), v), (VX, VV)))[0] != "proved"
    for engine in (realz3.prove, powers.proof):
        assert engine(Statement(Lt(v, 4), (VV,)), None).status != "proved", engine
    assert rational.decide(Statement(Eq(sp.exp(x), u), (VX, VU))).status != "proved"
    assert powers.proof(Statement(Eq(10**x, u), (VX, VU)), None).status != "proved"


def test_engine_level_hygiene_without_the_domain_check():
    """The procedures themselves never confuse a user's term with their own atoms, even for a
    symbol whose assumptions (nonzero) the statement layer would refuse for a domain."""
    from peproof.engines import expoly

    z0 = sp.Symbol("Z0", nonzero=True)
    assert not expoly.expand_is_zero(S(x) - (z0 - 1 / z0) / (2 * sp.I)).zero
    e_ = sp.Function("E_")
    assert not expoly.expand_is_zero(S(x) - (e_(x) - e_(-x)) / (2 * sp.I)).zero
    om = sp.Symbol("omega", positive=True)
    diff = pairs(S(W * pos)) - pairs(S(om * pos))
    lemma, _ = lift(diff, Statement(Eq(diff, 0), (VPOS, VD, Var(om, "pos_real"))))
    assert not expoly.expand_is_zero(lemma).zero


def test_hygiene_true_variants_still_proved():
    u, VU = var("omega", "pos_real")
    proved(Statement(Eq(pairs(S(W * pos) ** 2 + C(W * pos) ** 2), d / 2), (VPOS, VD, VU)))
    proved(Statement(Eq(S(x), (sp.exp(sp.I * x) - sp.exp(-sp.I * x)) / (2 * sp.I)), (VX,)))


def test_z3_constants_are_never_named_after_user_symbols():
    names = z3base.Names()
    made = {names("s") for _ in range(3)} | {names("x!1"), names("x!1")}
    assert len(made) == 5


# --------------------------------------------------------------------------- 2. well-formed
def test_floats_are_refused_naming_the_term():
    eps = sp.Float("1e-20")
    stmt = Statement(Eq((C(x) + eps) ** 2, C(x) ** 2 + 2 * eps * C(x)), (VX,))
    for decide in (decide_statement, decide_z3):
        with pytest.raises(IllFormed, match=r"Float 1\.0*e-20 .*exact") as exc:
            decide(stmt)
        assert "\n" not in str(exc.value)


@pytest.mark.parametrize("rel", [Le(C(x + sp.I) * C(x - sp.I), 1),
                                 Le(0, (sp.exp(sp.I * x) - sp.exp(-sp.I * x)) ** 2),
                                 Ne(sp.exp(sp.I * x), 2)], ids=str)
def test_complex_terms_outside_identities_are_refused(rel):
    for decide in (decide_statement, decide_z3):
        with pytest.raises(IllFormed, match="imaginary unit I"):
            decide(Statement(rel, (VX,)))


def test_complex_view_is_the_exponential_procedure_only():
    # identities over C: true ones proved, false ones not (z3 and arb never see I)
    proved(Statement(Eq(C(x + sp.I) * C(x - sp.I),
                        (C(2 * x) + (sp.exp(2) + sp.exp(-2)) / 2) / 2), (VX,)))
    not_proved(Statement(Eq(sp.exp(sp.I * x), C(x)), (VX,)))
    assert decide_z3(Statement(Eq(S(x), (sp.exp(sp.I * x) - sp.exp(-sp.I * x)) / (2 * sp.I)),
                               (VX,))).status == "unknown"
    with pytest.raises(IllFormed, match="division by the complex quantity"):
        decide_statement(Statement(Eq(1 / (sp.exp(sp.I * x) + 1), 0), (VX,)))
    # the translators refuse I themselves (reading it as a real number proves (x + I)^2 >= 0)
    assert z3poly.prove(Statement(Le(0, (x + sp.I) ** 2), (VX,)))[0] != "proved"
    for term in (x + sp.I, sp.exp(sp.I * x)):
        with pytest.raises(z3trig.NotExpressible):
            z3trig.Translation(Statement((), (VX,)), use_int=False, strict=False).term(term)


def test_no_inconsistent_definedness_axiom():
    den = S(x) ** 2 + C(x) ** 2 - 1  # identically zero
    for rel in (Lt(5, 1 / den), Lt(1 / den, -5)):
        stmt = Statement(rel, (VX,))
        not_proved(stmt)
        assert z3poly.prove(stmt)[0] != "proved"
        assert "side condition not proved" in decide_statement(stmt).reason
    # true variant: the denominator is proved non-zero, then the bound
    proved(Statement(Le(1 / (S(x) ** 2 + C(x) ** 2 + 1), 1), (VX,)))
    proved(Statement(Le(1 / (S(x) ** 2 + C(x) ** 2 + 1), 1), (VX,)), decide_z3)


def test_undefined_subterms_prove_nothing():
    not_proved(Statement(Le(sp.sqrt(S(x) - 2), -1), (VX,)))
    not_proved(Statement(Le(sp.log(x), x - 1), (VX,)))  # log of a possibly negative x
    not_proved(Statement(Le(sp.tan(x), 10), (VX,)))  # poles of tan
    not_proved(Statement(Le(0, x ** sp.Rational(1, 3)), (VX,)))  # complex root of x < 0
    assert z3poly.prove(Statement(Le(sp.sqrt(S(x) - 2), -1), (VX,)))[0] != "proved"
    proved(Statement(Le(1, sp.sqrt(S(x) + 2)), (VX,)))  # radicand proved >= 0


@pytest.mark.parametrize("stmt, match", [
    (lambda: Statement(Eq(sp.Function("f")(x), 0), (VX,)), "allowed are"),
    (lambda: Statement(Lt(x, sp.oo), (VX,)), "finite exact"),
    (lambda: Statement(Lt(sp.GoldenRatio, 2)), "allowed constants"),
    (lambda: Statement(Eq(sp.sqrt(sp.Symbol("x", positive=True) ** 2), 1),
                       (Var(sp.Symbol("x", positive=True), "real"), )), "beyond its domain"),
    (lambda: Statement(Eq(x, sp.Symbol("x")), (VX, Var(sp.Symbol("x"), "real"))), "distinct"),
    (lambda: Statement(Eq(sp.Sum(i, (i, -3, 3)), 6)), "nonnegative index"),
    (lambda: Statement(Eq(S(x), S(x)), (VX,), hyps=(Eq(sp.I * x, sp.I),)), "imaginary unit"),
    (lambda: Statement(Eq(sp.Piecewise((1, x > 0)), sp.Piecewise((1, x > 0))), (VX,)),
     "otherwise branch"),
], ids=["unknown_function", "infinity", "other_constant", "assumptions",
        "duplicate_names", "index_assumption", "I_in_hypothesis", "piecewise_not_exhaustive"])
def test_refusals_are_one_line_and_name_the_problem(stmt, match):
    with pytest.raises(IllFormed, match=match) as exc:
        decide_statement(stmt())
    assert "\n" not in str(exc.value)


def test_a_matrix_side_is_refused_when_the_relation_is_built():
    """(Issue 18: matrices are compared shapes first, entry by entry, by claims.mat_eq.)  A
    relation between matrices is refused as it is built, no longer by the engines' gate."""
    with pytest.raises(ValueError, match="mat_eq") as exc:
        Eq(sp.Matrix([x]), sp.Matrix([x]))
    assert "\n" not in str(exc.value)


def test_symbol_stronger_than_its_domain_would_prove_a_falsehood():
    # x positive=True declared real: SymPy builds sqrt(x**2) as x; must be refused, not proved
    xp = sp.Symbol("x", positive=True)
    with pytest.raises(IllFormed):
        decide_statement(Statement(Eq(sp.sqrt(xp ** 2), xp), (Var(xp, "real"),)))
    # n integer=True declared real: sin(pi n) = 0 would be proved for every real n
    ni = sp.Symbol("n", integer=True)
    with pytest.raises(IllFormed, match="beyond its domain"):
        decide_statement(Statement(Eq(S(sp.pi * ni), 0), (Var(ni, "real"),)))
    # a plain symbol (weaker assumptions) is fine, and gets the honest verdict
    xs = sp.Symbol("x")
    assert decide_statement(Statement(Eq(sp.sqrt(xs ** 2), xs), (Var(xs, "real"),))).status \
        == "refuted"


def test_side_conditions_are_recorded_in_the_trace():
    a_, VA_ = var("a", "real")
    stmt = Statement(Lt(0, 1 / (x - a_)), (VX, VA_), hyps=(Lt(a_, x),))
    v = decide_statement(stmt)
    assert v.status == "proved"
    assert any("-a + x != 0" in t and "z3" in t for t in v.trace), v.trace
    # without the hypothesis the denominator may vanish: no proof
    assert decide_statement(Statement(Lt(0, 1 / (x - a_) ** 2), (VX, VA_))).status != "proved"


# --------------------------------------------------------------------------- 3. lifting
def test_lifting_needs_a_positive_base():
    stmt = Statement(Eq(sp.Sum(sp.Max(r ** j, 0), (j, 0, n - 1)), sp.Sum(r ** j, (j, 0, n - 1))),
                     (VR, VN), hyps=(Ne(r, 0),))
    assert decide_statement(stmt).status == "refuted"  # r = -5/2, n = 2
    p, VP = var("p", "pos_real")
    proved(Statement(Eq(sp.Sum(sp.Max(p ** j, 0), (j, 0, n - 1)), sp.Sum(p ** j, (j, 0, n - 1))),
                     (VP, VN)))


def test_lifting_divides_only_by_a_count_proved_positive():
    v = decide_statement(Statement(Eq(sp.Sum(1 / m, (j, 0, m - 1)), 1), (VM,)))
    assert v.status == "refuted" and v.witness["point"] == {"m": "0"}
    proved(Statement(Eq(sp.Sum(1 / n, (j, 0, n - 1)), 1), (VN,)))


def test_lifting_refuses_sums_with_different_limits():
    """Kills the mutant 'lift sums whose limits differ' (decide.lift and z3trig.lift_z3)."""
    diff = pairs(1) - sp.Sum(1, (i, 0, d / 2))
    stmt = Statement(Eq(diff, 0), (VD,))
    assert lift(diff, stmt) is None
    assert z3trig.lift_z3(diff, stmt) is None
    not_proved(stmt)
    same = Statement(Eq(pairs(C(W * pos)), pairs(C(W * pos))), (VPOS, VD))
    assert lift(pairs(C(W * pos)) - pairs(C(W * pos) ** 2), same) is not None


def test_one_convention_for_reversed_ranges():
    # SymPy's Karr convention makes this true for every integer k; read as an empty sum it is
    # false at k = -2.  Every engine must mean the same: not proved, not refuted.
    k, VK = var("k", "integer")
    stmt = Statement(Eq(sp.Sum(1, (j, 0, k - 1)), k), (VK,))
    assert decide_statement(stmt).status == "unknown"
    assert decide_z3(stmt).status == "unknown"
    assert witness.find_counterexample(stmt) is None
    with pytest.raises(Unsupported, match="reversed"):
        arb_eval(sp.Sum(1, (j, 0, k - 1)), {k: -2})
    assert arb_eval(sp.Sum(1, (j, 0, k - 1)), {k: 0}) == 0  # hi = lo - 1: empty, 0
    proved(Statement(Eq(sp.Sum(1, (j, 0, n - 1)), n), (VN,)))


def test_nested_sums_follow_the_same_convention():
    # SymPy merges nested sums into one Sum with several limits (the last is the outermost)
    l_ = sp.Symbol("l", integer=True)
    tri = sp.Sum(sp.Sum(1, (j, 0, l_)), (l_, 0, n - 1))
    assert len(tri.limits) == 2
    assert arb_eval(tri, {n: 4}) == 10
    assert decide_statement(Statement(Eq(tri, n ** 2 / 2), (VN,))).status == "refuted"
    # an inner range that may be reversed (l - 2 < -1 at l = 0) is never read either way
    bad = Statement(Eq(sp.Sum(sp.Sum(1, (j, 0, l_ - 2)), (l_, 0, n - 1)), 0), (VN,))
    assert "range not reversed" in decide_statement(bad).reason
    with pytest.raises(Unsupported, match="reversed"):
        arb_eval(bad.concl[0].lhs, {n: 1})


# --------------------------------------------------------------------------- 4. Mod, floor
def _z3_value(term, env):
    import z3

    s = z3.Solver()
    s.add(*env)
    out = z3.Int("out") if term.is_int() else z3.Real("out")
    s.add(out == term)
    assert s.check() == z3.sat
    val = s.model()[out]
    return sp.Integer(val.as_long()) if term.is_int() else sp.Rational(str(val.as_fraction()))


def _const(q):
    import z3

    q = sp.Rational(q)
    return z3.Q(int(q.p), int(q.q))


GRID_INT = [-7, -4, -3, -1, 0, 1, 2, 5, 7]
GRID_RAT = [sp.Rational(-7, 3), sp.Rational(-1, 2), sp.Integer(0), sp.Rational(5, 2), 3]


@pytest.mark.parametrize("translator", ["z3poly", "z3trig"])
@pytest.mark.parametrize("domain", ["integer", "rational"])
@pytest.mark.parametrize("use_int", [False, True])
def test_z3_translators_mean_sympys_mod_floor_ceiling(translator, domain, use_int):
    """Each translator's term for Mod(p, q), floor(p/q), ceiling(p/q) at grid points equals
    SymPy's value (kills 'z3 % for Mod', which is Euclidean: always >= 0)."""
    if use_int and domain != "integer":
        pytest.skip("z3 integers only for integer variables")
    (p_, vp), (q_, vq) = var("p", domain), var("q", domain)
    stmt = Statement((), (vp, vq))
    grid = GRID_INT if domain == "integer" else GRID_RAT
    exprs = [sp.Mod(p_, q_)] + ([] if use_int else [sp.floor(p_ / q_), sp.ceiling(p_ / q_)])
    if use_int:
        exprs += [sp.floor(p_ / 3), sp.floor(-p_ / 2)]
    for e in exprs:
        if translator == "z3poly":
            tr = z3poly._Abstraction(stmt, use_int=use_int)
            term = tr.conv(e)
        else:
            tr = z3trig.Translation(stmt, use_int=use_int, strict=False)
            term = tr.term(e)
        for p, q in itertools.product(grid, grid):
            if q == 0:
                continue
            zp, zq = tr.vars[p_], tr.vars[q_]
            env = [zp == (int(p) if zp.is_int() else _const(p)),
                   zq == (int(q) if zq.is_int() else _const(q))]
            want = e.subs({p_: p, q_: q})
            assert _z3_value(term, env) == want, (translator, e, p, q)


def test_mod_takes_the_sign_of_the_divisor():
    stmt = Statement(Le(0, sp.Mod(a, b)), (VA, VB), hyps=(Ne(b, 0),))
    for decide in (decide_statement, decide_z3):
        v = decide(stmt)
        assert v.status == "refuted", decide
        assert int(v.witness["point"]["b"]) < 0
    proved(Statement((Le(0, sp.Mod(a, b)), Lt(sp.Mod(a, b), b)), (VA, VB), hyps=(Lt(0, b),)))
    proved(Statement((Lt(b, sp.Mod(a, b)), Le(sp.Mod(a, b), 0)), (VA, VB), hyps=(Lt(b, 0),)))
    proved(Statement((Lt(b, sp.Mod(a, b)), Le(sp.Mod(a, b), 0)), (VA, VB), hyps=(Lt(b, 0),)),
           decide_z3)
    assert decide_statement(Statement(Le(0, sp.Mod(x, -1)), (VX,))).status == "refuted"


def test_arb_means_sympys_mod_floor_ceiling():
    """Kills the mutant 'arb's Mod rounds with ceiling' (it then refutes a true statement)."""
    for p, q in itertools.product(GRID_RAT + [sp.Integer(v) for v in GRID_INT], GRID_RAT):
        if q == 0:
            continue
        for e in (sp.Mod(p, q, evaluate=False), sp.floor(p / q, evaluate=False),
                  sp.ceiling(p / q, evaluate=False)):
            want = e.doit()
            ball = arb_eval(e, {}, 128)
            with flint.ctx.workprec(256):
                assert abs(ball - flint.arb(flint.fmpq(int(want.p), int(want.q)))) < \
                    flint.arb(2) ** -100, (e, want, ball)
    ok = Statement((Le(0, sp.Mod(a, 3)), Lt(sp.Mod(a, 3), 3), Eq(sp.Mod(a, 3), a - 3 *
                                                                sp.floor(a / 3))), (VA,))
    assert witness.find_counterexample(ok) is None
    proved(ok, decide_z3)
    # irrational arguments go through the ball arithmetic: the sign of the divisor again
    for p, q in itertools.product((sp.pi, -sp.pi, 7 * sp.pi), (3, -3, sp.Rational(5, 2))):
        e = sp.Mod(p, q)
        assert e.is_Add, e  # SymPy's exact value, e.g. pi - 3
        ball = arb_eval(sp.Mod(p, q, evaluate=False), {}, 128)
        assert abs(ball - arb_eval(e, {}, 128)) < flint.arb(2) ** -100, (p, q, ball)


# --------------------------------------------------------------------------- 6. construction
def test_settled_when_built_is_its_own_engine_and_never_agreement():
    from peproof.agreement import row
    from peproof.engines.decide import CONSTRUCTION
    from peproof.verdicts import verdict_of

    v = verdict_of("encoding.first_frequency_eq_one")
    assert v.engine == CONSTRUCTION and v.method == "settled when built"
    assert any("as built: 1 == 1" in t for t in v.trace)
    r = row("encoding.first_frequency_eq_one")
    assert r["cells"]["z3"] == CONSTRUCTION and not r["confirmed"]
    real = row("norm.sq_eq_half_d")  # proved by the lifting and by z3: confirmed
    assert real["cells"]["primary"] == "proved" and real["confirmed"]


def test_results_summary_splits_construction_from_engines():
    from peproof import registry
    from peproof.results import run

    res = run([registry.get("encoding.first_frequency_eq_one"),
               registry.get("norm.sq_eq_half_d")], falsifiers=False)
    s = res["summary"]
    assert s["proved"] == 2 and s["proved_by_construction"] == 1 and s["proved_by_engine"] == 1
    assert s["settled_when_built"] == ["encoding.first_frequency_eq_one"]
    assert s["independently_confirmed"] == 1
    assert [c["settled_when_built"] for c in res["claims"]] == [True, False]


# --------------------------------------------------------------------------- mutants
def test_pi_axiom_is_true():
    """Kills 'realz3: pi < 3.1' (and any too-tight pi enclosure in powers)."""
    for bound in (sp.Rational(31, 10), sp.Rational(314, 100)):
        st = Statement(Lt(sp.pi, bound))
        assert with_default(realz3.prove)(st).status == "refuted"
        assert with_default(powers.prove_statement)(st).status == "refuted"
        st = Statement(Lt(x, bound), (VX,), hyps=(Lt(x, sp.pi),))
        assert realz3.prove(st).status != "proved"
        assert powers.proof(st, None).status != "proved"
    assert realz3.prove(Statement(Lt(x, 4), (VX,), hyps=(Lt(x, sp.pi),))).status == "proved"


def test_even_domain_starts_at_two():
    """Kills 'even_pos_integer: d >= 4' in the domain axioms (every z3 translator)."""
    st = Statement(Le(4, d), (VD,))
    assert z3poly.prove(st)[0] != "proved"
    for engine in (decide_statement, decide_z3, with_default(realz3.prove),
                   with_default(powers.prove_statement)):
        v = engine(st)
        assert v.status == "refuted" and v.witness["point"] == {"d": "2"}
    proved(Statement(Le(2, d), (VD,)), decide_z3)


def test_rational_engine_needs_a_zero_numerator():
    """Kills 'the rational engine accepts a two-term numerator'."""
    e = sp.exp(x)
    assert rational.decide(Statement(Eq(e / (e + 1), 1 / (e + 1)), (VX,))).status != "proved"
    assert rational.decide(Statement(Eq(e / (e + 1), 1 - 1 / (e + 1)), (VX,))).status == "proved"
    assert rational.prove_eq(Eq(e / (e + 1), 1 / (e + 1)), rational._Atoms())[0] is False


def test_cyclotomic_sine_has_the_right_sign():
    """Kills 'the sign of sin in the cyclotomic engine'."""
    def sin_u(q):
        return sp.sin(sp.pi * q, evaluate=False)

    assert cyclotomic.proof(Statement(Eq(sin_u(sp.Rational(1, 6)), sp.Rational(1, 2))),
                            None).status == "proved"
    assert cyclotomic.proof(Statement(Eq(sin_u(sp.Rational(1, 6)), -sp.Rational(1, 2))),
                            None).status == "refuted"
    assert cyclotomic.proof(Statement(Eq(sin_u(sp.Rational(-1, 2)), -1)), None).status == "proved"


def test_cos_of_odd_multiples_of_pi_is_minus_one():
    """Kills 'cos(pi q) = 1 for odd q' in z3trig (and in the exponential procedure)."""
    shifted = sp.cos(x + sp.pi, evaluate=False)
    assert decide_z3(Statement(Eq(shifted, -C(x)), (VX,))).status == "proved"
    assert decide_z3(Statement(Eq(shifted, C(x)), (VX,))).status != "proved"
    assert decide_statement(Statement(Eq(shifted, -C(x)), (VX,))).status == "proved"
    assert decide_statement(Statement(Eq(shifted, C(x)), (VX,))).status == "refuted"
    three = sp.cos(x + 3 * sp.pi, evaluate=False)
    assert decide_z3(Statement(Eq(three, -C(x)), (VX,))).status == "proved"


def test_wellformed_is_the_gate_of_every_entry_point():
    bad = Statement(Lt(5, 1 / (S(x) ** 2 + C(x) ** 2 - 1)), (VX,))
    assert not facts.check(bad).ok
    for engine in (decide_statement, decide_z3, realz3.prove, lambda s: powers.proof(s, None),
                   lambda s: rational.decide(s)):
        assert engine(bad).status != "proved"


# --------------------------------------------------------------------------- found beyond
def test_existential_statements_are_never_proved_as_universal_ones():
    """realz3, powers and periodic used to prove 'exists' by proving 'forall' (vacuously true
    under inconsistent hypotheses): an instance is needed."""
    from peproof.engines import periodic

    empty = (Lt(x, 0), Lt(0, x))
    for stmt in (Statement(Lt(x, 0), (VX,), hyps=empty, quant="exists"),
                 Statement(Lt(10 ** x, 0), (VX,), hyps=empty, quant="exists")):
        for engine in (realz3.prove, lambda s: powers.proof(s, None),
                       lambda s: periodic.proof(s, None)):
            assert engine(stmt).status != "proved"
    assert realz3.prove(Statement(Lt(x, 0), (VX,), quant="exists")).status == "unknown"
    assert with_default(realz3.prove)(Statement(Lt(x, 0), (VX,), quant="exists")).status \
        == "proved"  # a certified instance, found by the default engines


def test_numeric_evidence_never_reads_a_variable_as_a_constant():
    from peproof.agreement import _mp_value

    pi_u, _ = var("pi", "real")
    val = _mp_value(pi_u + sp.pi, {pi_u: 1})
    assert val is None or abs(val - 4.14159265358979) < 1e-9, val
    i_u, _ = var("i", "real")
    val = _mp_value(i_u + sp.Sum(i, (i, 0, 3)), {i_u: 10})
    assert val is None or val == 16, val


# --------------------------------------------------------------------------- 6. termwise lifting
# by relation (z3's lifting): ``f_i R g_i`` for every term gives ``sum f R sum g`` for == and <=
# only; < needs a non-empty range (0 < 0 is false), != never follows (1 + (-1) = 0), and the
# range hypotheses lo <= i <= hi of a lift shared with other conclusions in one z3 query make
# that whole query vacuous when the range is empty.  Each false statement was proved by decide_z3.
def test_disequality_of_sums_is_never_lifted_termwise():
    for stmt in (Statement(Ne(sp.Sum(2 * i - 1, (i, 0, 1)), 0)),
                 Statement(Ne(sp.Sum(2 * i - d + 1, (i, 0, d - 1)), 0), (VD,)),
                 Statement(Ne(sp.Sum(i, (i, 0, n - 1)), sp.Sum(n - 1 - i, (i, 0, n - 1))), (VN,))):
        not_proved(stmt)
        assert z3trig.check_relation(stmt.concl[0], stmt, cache=False)[0] == "n/a"


def test_strict_inequality_of_sums_needs_a_nonempty_range():
    lt = Lt(sp.Sum(i + S(x) ** 2, (i, 0, m - 1)), sp.Sum(i + S(x) ** 2 + 1, (i, 0, m - 1)))
    not_proved(Statement(lt, (VX, VM)))  # m = 0: 0 < 0
    not_proved(Statement(Lt(sp.Sum(i, (i, 0, m - 1)), sp.Sum(i + 1, (i, 0, m - 1))), (VM,)))
    # true variants: the range proved non-empty (n >= 1), or a non-strict relation
    proved(Statement(lt.map(lambda e: e.subs(m, n)), (VX, VN)), decide_z3)
    proved(Statement(Le(lt.lhs, lt.rhs), (VX, VM)), decide_z3)


def test_an_empty_lift_range_does_not_make_other_conclusions_vacuous():
    for first in (Le(sp.Sum(S(x) ** 2, (i, 0, -1)), sp.Sum(1, (i, 0, -1))),
                  Eq(sp.Sum(i * S(x), (i, 0, -1)), sp.Sum(i, (i, 0, -1)))):
        not_proved(Statement((first, Le(S(x), 0)), (VX,)))  # sin x <= 0 is false
    # true variants: alone (an empty sum is 0 <= 0), or beside a true row on a non-empty range
    proved(Statement(Le(sp.Sum(S(x) ** 2, (i, 0, m - 1)), sp.Sum(1, (i, 0, m - 1))), (VX, VM)),
           decide_z3)
    proved(Statement((Le(sp.Sum(S(x) ** 2, (i, 0, n - 1)), sp.Sum(1, (i, 0, n - 1))),
                      Le(S(x), 1)), (VX, VN)), decide_z3)


# --------------------------------------------------------------------------- 7. model points
# z3's model point was keyed by name, the lifting's index Dummy ``i`` included: a user variable
# ``i`` took the index's value 0, outside its domain pos_integer, and the point "refuted" a
# true statement.  Now the lifting's symbols are left out of the point, and check_point (used by
# every engine that certifies a solver's or heuristic's point) refuses points outside the domain.
IU, VIU = var("i", "pos_integer")
TRUE_FOR_I_POSITIVE = [  # Sum_{j<n} (1 - j) <= 1 <= i
    Statement(Le(sp.Sum(1 - i, (i, 0, n - 1)), IU), (VN, VIU)),
    Statement(Le(sp.Sum(1 - i, (i, 0, n - 1)) + 1, 2 * IU), (VIU, VN)),
]


@pytest.mark.parametrize("stmt", TRUE_FOR_I_POSITIVE, ids=str)
def test_a_lifted_index_never_lends_its_value_to_a_user_variable(stmt):
    assert status(decide_z3, stmt) != "refuted"
    assert status(decide_statement, stmt) != "refuted"
    res, _, detail = z3trig.check_relation(stmt.concl[0], stmt, cache=False)
    assert res == "sat"  # the termwise lemma fails at i = 0 (j = 0 in the text above)
    assert detail["model_point"]["i"] >= 1  # the user's i, inside pos_integer


@pytest.mark.parametrize("domain, outside, inside", [
    ("pos_integer", [0, -3, sp.Rational(1, 2)], [1, 7]),
    ("nonneg_integer", [-1, sp.Rational(5, 2)], [0, 4]),
    ("even_pos_integer", [0, 1, 3, -2], [2, 8]),
    ("integer", [sp.Rational(1, 3)], [-4, 0]),
    ("pos_real", [0, -1], [sp.Rational(1, 100)]),
])
def test_check_point_refuses_points_outside_the_domain(domain, outside, inside):
    from fractions import Fraction

    u, vu = var("u", domain)
    stmt = Statement(Lt(10**6, u), (vu,))  # false at every point, in the domain or not
    for val in outside:
        for form in (val, Fraction(int(sp.Rational(val).p), int(sp.Rational(val).q))):
            assert witness.check_point(stmt, {u: form}) is None, (domain, form)
    for val in inside:
        assert witness.check_point(stmt, {u: val}) is not None, (domain, val)
