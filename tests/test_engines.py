"""Engine soundness: what the decision procedure proves, what it must not, and how it refutes."""

import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Eq, Le, Statement, Verdict, var
from peproof.encoding import omega_expr
from peproof.engines import expoly, z3poly
from peproof.engines.decide import decide, decide_statement, lift
from peproof.kernel.arb import Unsupported, arb_eval, certified_sign

# an engine conflict (a lie the falsification gate caught) fails the test: see tests/conftest.py
pytestmark = pytest.mark.usefixtures("engine_conflicts_fail")

x, VX = var("x", "real")
y, VY = var("y", "real")
n, VN = var("n", "integer")
S, C = sp.sin, sp.cos

TRUE_IDENTITIES = [
    S(2 * x) - 2 * S(x) * C(x),
    C(3 * x) - (4 * C(x) ** 3 - 3 * C(x)),
    S(x) ** 2 + C(x) ** 2 - 1,
    S(x / 2) ** 2 - (1 - C(x)) / 2,
    S(x + y) * S(x - y) - (S(x) ** 2 - S(y) ** 2),
    S(sp.pi * n),
    C(2 * sp.pi * n + x) - C(x),
]
FALSE_IDENTITIES = [
    S(2 * x) - 2 * S(x),
    C(x + y) - (C(x) * C(y) + S(x) * S(y)),
    S(x) ** 2 - C(x) ** 2,
    S(sp.pi * x),  # x real, not integer
    C(sp.pi * n) - 1,  # (-1)^n
]


@pytest.mark.parametrize("e", TRUE_IDENTITIES, ids=str)
def test_procedure_proves_true_identities(e):
    assert expoly.expand_is_zero(e).zero


@pytest.mark.parametrize("e", FALSE_IDENTITIES, ids=str)
def test_procedure_never_proves_false_identities(e):
    assert not expoly.expand_is_zero(e).zero
    stmt = Statement(Eq(e, 0), tuple(v for v in (VX, VY, VN) if v.symbol in e.free_symbols))
    v = decide_statement(stmt)
    assert v.status == "refuted", v
    w = v.witness
    assert w["certified_by"].startswith("python-flint")


def test_refuted_requires_a_witness():
    with pytest.raises(ValueError, match="witness"):
        Verdict("refuted", "arb", "0", "m")


def test_witness_balls_are_disjoint():
    v = decide_statement(Statement(Eq(S(2 * x), 2 * S(x)), (VX,)))
    point = {sp.Symbol(k, real=True): sp.Rational(val) for k, val in v.witness["point"].items()}
    s, ball = certified_sign(S(2 * x) - 2 * S(x), point)
    assert s != 0 and s is not None and not ball.contains(0)


def test_arb_eval_is_certified_and_refuses_the_unknown():
    ball = arb_eval(sp.sin(500), {}, 200)
    assert ball.contains(arb_eval(sp.sin(500), {}, 400))
    with pytest.raises(Unsupported):
        arb_eval(sp.Function("f")(1), {}, 64)
    assert certified_sign(sp.sin(1) ** 2 + sp.cos(1) ** 2 - 1, {})[0] is None  # never "0" falsely


def test_z3_abstraction_proves_bounds_and_not_more():
    assert z3poly.prove(Statement((Le(S(x), 1), Le(-1, C(x))), (VX,)))[0] == "proved"
    assert z3poly.prove(Statement(Le(S(x), sp.Rational(1, 2)), (VX,)))[0] != "proved"


def test_lift_reduces_to_the_one_frequency_lemma():
    d, VD = var("d", "even_pos_integer")
    i = sp.Symbol("i", integer=True, nonnegative=True)
    w = omega_expr(i, d)
    diff = sp.Sum(S(w * x) ** 2 + C(w * x) ** 2, (i, 0, d / 2 - 1)) - d / 2
    stmt = Statement(Eq(diff, 0), (VX, VD))
    lemma, trace = lift(diff, stmt)
    assert not lemma.has(sp.Sum) and not lemma.has(i)
    assert expoly.expand_is_zero(lemma).zero
    # spreading d/2 over the terms needs d/2 >= 1, proved from the domain: no statement, no lift
    assert lift(diff) is None
    # a false sum must not lift into a true lemma
    bad = sp.Sum(S(w * x) ** 2, (i, 0, d / 2 - 1)) - d / 2
    assert not expoly.expand_is_zero(lift(bad, stmt)[0]).zero


def test_simplify_never_decides(monkeypatch):
    """Every verdict is reached with simplify, trigsimp, nsimplify and equals disabled."""

    def forbidden(*a, **k):
        raise AssertionError("simplify-family function called by an engine")

    for name in ("simplify", "trigsimp", "nsimplify"):
        monkeypatch.setattr(sp, name, forbidden)
    monkeypatch.setattr(sp.Expr, "equals", forbidden)
    for claim in registry.all_claims():
        if claim.kind == "informal" or claim.id.endswith("concrete_d"):
            continue
        v = decide(claim)
        assert v.status == claim.expect, (claim.id, v.status, v.reason)


def test_z3_cache_never_confuses_hypotheses():
    """Regression: the cache key must rename the conclusion and hypotheses together."""
    from peproof.claims import Ne
    from peproof.engines.z3trig import decide_z3

    a, VA = var("a", "real")
    b, VB = var("b", "real")
    h, VH = var("h", "real")
    good = Statement((Ne(a * h, 0),), (VA, VB, VH), hyps=(Ne(a, 0), Ne(h, 0)))
    bad = Statement((Ne(a * h, 0), Ne(b * h, 0)), (VA, VB, VH), hyps=(Ne(a, 0), Ne(h, 0)))
    assert decide_z3(good).status == "proved"
    assert decide_z3(bad).status != "proved"


def test_z3_engine_never_proves_false_identities():
    from peproof.engines.z3trig import decide_z3

    for e in FALSE_IDENTITIES:
        stmt = Statement(Eq(e, 0), tuple(v for v in (VX, VY, VN) if v.symbol in e.free_symbols))
        assert decide_z3(stmt).status != "proved", e


def test_z3_engine_proves_true_identities():
    from peproof.engines.z3trig import decide_z3

    for e in TRUE_IDENTITIES[:5]:
        stmt = Statement(Eq(e, 0), tuple(v for v in (VX, VY, VN) if v.symbol in e.free_symbols))
        assert decide_z3(stmt).status == "proved", e


def test_constant_pi_angles_are_exact():
    m, VM = var("m", "integer")
    assert expoly.expand_is_zero(C(sp.pi * (2 * m + 1)) + 1).zero
    assert not expoly.expand_is_zero(C(sp.pi * (2 * m + 1)) - 1).zero


def test_exhaustive_layout_proof_certifies_only_its_statement():
    """The exhaustive layout check must not certify a statement it was not written for."""
    from peproof.families import index

    claim = registry.get("index.encoding_layouts_match_maps")
    assert index._layouts_match(claim.statement, claim).status == "proved"
    for f in claim.falsifiers:
        assert index._layouts_match(f.statement, claim).status != "proved", f.name


def test_uniqueness_chain_reads_its_statement():
    """Handed K+1 instead of K, the chain must not come back proved."""
    from peproof.families import uniqueness_chain as U

    for d in (4, 512):
        claim = registry.get(f"uniqueness.lowest_angle_inside_turn_d{d}")
        assert claim.proof(claim.statement, claim).status == "proved"
        wrong = U._statement_for(U.omega_min(d), U.wrap_count(d) + 1)
        assert claim.proof(wrong, claim).status != "proved"
        other_base = U._statement_for(U.omega_min(d) * 2, U.wrap_count(d))
        assert claim.proof(other_base, claim).status != "proved"


def test_numeric_column_flags_a_witness_it_cannot_confirm():
    """A refutation whose witness point does not fail numerically is reported inconsistent."""
    from peproof.agreement import numeric_cell
    from peproof.claims import Claim

    stmt = Statement(Eq(S(x) ** 2 + C(x) ** 2, 1), (VX,))  # true everywhere
    claim = Claim("test.true_identity", "t", (), stmt, "identity")
    fake = Verdict("refuted", "arb", "0", "m", witness={"point": {"x": "1/2"}, "certified_by": "x"})
    assert numeric_cell(claim, fake) == "inconsistent"
    wrong = Statement(Eq(S(x) ** 2, 1), (VX,))
    claim2 = Claim("test.false_identity", "t", (), wrong, "identity")
    real = Verdict("refuted", "arb", "0", "m", witness={"point": {"x": "1/2"}, "certified_by": "x"})
    assert numeric_cell(claim2, real) == "consistent"


def test_z3_refutes_alpha_equivalent_statements_alike():
    """Regression: a cached sat answer carried the first statement's variable names, so an
    alpha-equivalent second statement came back unknown instead of refuted."""
    from peproof.engines import z3trig

    u, VU = var("u", "real")
    first = Statement(Eq(S(2 * x), 2 * S(x) * S(x)), (VX,))
    second = Statement(Eq(S(2 * u), 2 * S(u) * S(u)), (VU,))
    z3trig._CACHE.clear()
    assert z3trig.decide_z3(first).status == "refuted"
    assert all(entry[0] != "sat" for entry in z3trig._CACHE.values()), "sat answer cached"
    assert z3trig.decide_z3(second).status == "refuted"


def test_each_z3_trig_query_has_a_context_of_its_own(monkeypatch):
    """Every query of the z3 trig engine runs in a fresh ``z3.Context``: z3's heuristics follow
    its terms' ids, which in the shared main context depend on every earlier query (one
    falsifier of ``distance.depends_only_on_offset`` took 0.1 s in a fresh process and 15 s
    after the claim itself, stopped by the wall-clock limit, not the deterministic budget).
    Every solver a decision makes is recorded: none is in the main context, no two share one."""
    import z3

    from peproof.engines.z3trig import decide_z3

    x, VX = var("x", "real")
    y, VY = var("y", "real")
    stmts = [Statement((Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),), (VX,)),
             Statement((Eq(sp.sin(x + y), sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)),),
                       (VX, VY)),
             Statement((Eq(sp.sin(2 * x), sp.sin(x)),), (VX,))]
    for st in stmts:  # once as the engine runs (its domain values found and kept)
        decide_z3(st, cache=False)
    made, real = [], z3.Solver

    def solver(*args, **kwargs):
        s = real(*args, **kwargs)
        made.append(s.ctx)
        return s

    monkeypatch.setattr(z3, "Solver", solver)
    got = [decide_z3(st, cache=False).status for st in stmts]
    assert got[:2] == ["proved", "proved"] and got[2] != "proved", got
    assert len(made) >= len(stmts)
    assert all(c is not z3.main_ctx() for c in made)
    assert len({id(c) for c in made}) == len(made)
