"""The falsification gate (peproof.kernel.falsify): it catches a sabotaged engine, rejects a
forged witness, keeps honest verdicts, and flips its roles for existential statements."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, Verdict, var
from peproof.engines import expoly
from peproof.engines.decide import decide_statement
from peproof.kernel.arb import PiMul, evaluate
from peproof.kernel.falsify import (
    Budget,
    check_witness,
    gate,
    gated,
    parse_value,
    recheck_witness,
    search,
)

x, VX = var("x", "real")
y, VY = var("y", "real")
n, VN = var("n", "pos_integer")
a, VA = var("a", "integer")
p, VP = var("p", "pos_real")
S, C, R = sp.sin, sp.cos, sp.Rational


def proved(engine="test") -> Verdict:
    return Verdict("proved", engine, "-", "decision procedure")


def refuted(point: dict, engine="test") -> Verdict:
    return Verdict("refuted", engine, "-", "certified counterexample",
                   witness={"point": point, "relation": "?"})


def _exact(text: str) -> sp.Expr:
    v = parse_value(text)
    if isinstance(v, PiMul):
        return sp.pi * sp.Rational(v.q.numerator, v.q.denominator)
    return sp.Rational(v.numerator, v.denominator) if isinstance(v, F | int) else v


def _holds(rel, vals: dict) -> bool:
    b = rel.sympy().subs(vals)
    if b in (sp.true, sp.false):
        return bool(b)
    diff = sp.N((rel.lhs - rel.rhs).subs(vals).doit(), 50)
    return {"==": abs(diff) < 1e-40, "!=": abs(diff) > 1e-40, "<": diff < 0,
            "<=": diff <= 0}[rel.op]


def _false_at(stmt: Statement, point: dict) -> bool:
    """Independent check of a reported point: SymPy substitutes the exact values and evaluates
    at 50 digits (floats: a cross-check of the certified result, never a certificate)."""
    vals = {v.symbol: _exact(point[v.symbol.name]) for v in stmt.vars}
    return all(_holds(h, vals) for h in stmt.hyps) and not all(_holds(r, vals)
                                                               for r in stmt.concl)


def test_gate_turns_a_sabotaged_proof_into_a_conflict(monkeypatch):
    """The exponential procedure sabotaged to call every difference zero: decide_statement then
    proves sin(x) == cos(x); the gate answers with a conflict and a certified point."""
    bad = Statement(Eq(S(x), C(x)), (VX,))

    class Zero:
        zero, trace, terms, atoms = True, ["sabotaged"], 0, 0
        sympy_zero, certificate, flint = True, None, None

    monkeypatch.setattr(expoly, "expand_is_zero", lambda e: Zero())
    monkeypatch.setattr(expoly, "kernel_verdict", lambda v, log: v)
    from peproof.engines import decide as decide_mod

    v = decide_mod._decide_statement(bad)  # the engines before the gate
    assert v.status == "proved"  # the sabotage worked
    g = gate(bad, v)
    # decide_statement applies the gate itself (engines branch): the same conflict
    assert decide_statement(bad).conflict["gate"]["kind"] == "counterexample"
    assert g.status == "unknown" and g.method == "engine conflict"
    assert g.reason.startswith("engine conflict")
    assert g.conflict["engine"]["status"] == "proved"
    assert g.conflict["gate"]["kind"] == "counterexample"
    assert _false_at(bad, g.conflict["point"])
    assert "conflict" in g.as_dict()


@pytest.mark.parametrize("stmt", [
    Statement(Eq(sp.Max(S(x) ** 2, R(1, 2)), R(1, 2)), (VX,)),
    Statement(Eq(sp.Abs(C(x) ** 2 - S(x) ** 2), C(x) ** 2 - S(x) ** 2), (VX,)),
    Statement(Eq(sp.Piecewise((1, S(x) ** 2 > 0), (0, True)), 0), (VX,)),
    Statement((Eq(sp.Sum(sp.Symbol("i", integer=True) + S(x) ** 2,
                         (sp.Symbol("i", integer=True), 0, 2)), 3 * S(x) ** 2),
               Eq(sp.Sum(S(x) ** 2, (sp.Symbol("i", integer=True), 0, 0)), S(x) ** 2)), (VX,)),
    Statement(Lt(x, 1), (VX,), hyps=(Lt(0, x), Lt(x, 2))),
    Statement(Le(sp.floor(x / 2) * 2, x - 1), (VX,)),
    Statement(Eq(sp.Mod(a, 3), a), (VA,)),
])
def test_issue_examples_false_statements_are_found(stmt):
    found = search(stmt)
    assert found is not None and found["kind"] == "counterexample", stmt
    assert _false_at(stmt, found["point"])
    assert gate(stmt, proved()).method == "engine conflict"


@pytest.mark.parametrize("stmt", [
    Statement(Eq(S(2 * x), 2 * S(x) * C(x)), (VX,)),
    Statement(Le(S(x) * C(x), R(1, 2)), (VX,)),
    Statement(Eq(sp.Abs(x) ** 2, x ** 2), (VX,)),
    Statement(Lt(sp.Mod(a, 3), 3), (VA,)),
    Statement(Lt(x, 1), (VX,), hyps=(Lt(0, x), Lt(x, 1))),
    Statement(Eq(S(x), 2), (VX,), hyps=(Lt(x, 0), Lt(0, x))),  # vacuous
    Statement(Eq(sp.Sum(1, (sp.Symbol("i", integer=True), 0, n - 1)), n), (VN,)),
    Statement(Eq(sp.sqrt(p) ** 2, p), (VP,)),
    # false for x < 0 only where log x is undefined: no certified counterexample exists
    Statement(Eq(sp.log(x ** 2), 2 * sp.log(x)), (VX,)),
])
def test_true_statements_pass_the_gate(stmt):
    assert search(stmt) is None
    v = gate(stmt, proved())
    assert v.status == "proved" and "falsification gate" in v.trace[-1]


def test_recheck_rejects_forged_witnesses():
    stmt = Statement(Lt(S(x), R(1, 2)), (VX,), hyps=(Lt(0, x),))
    v = decide_statement(stmt)
    assert v.status == "refuted" and recheck_witness(stmt, v.witness)
    assert gate(stmt, v).status == "refuted"
    # the point moved to where the statement holds: certified not a counterexample -> conflict
    forged = refuted({"x": "1/10"})
    assert check_witness(stmt, forged.witness)[0] == "wrong"
    assert not recheck_witness(stmt, forged.witness)
    assert gate(stmt, forged).method == "engine conflict"
    # a hypothesis false there, a value outside the domain: wrong
    assert check_witness(stmt, {"point": {"x": "-2"}})[0] == "wrong"
    ni = Statement(Lt(n, 3), (VN,))
    assert check_witness(ni, {"point": {"n": "-5"}})[0] == "wrong"
    assert check_witness(ni, {"point": {"n": "5/2"}})[0] == "wrong"
    assert check_witness(ni, {"point": {"n": "5"}})[0] == "ok"
    # no point, an unknown name, an unparsable value: inconclusive -> unknown, never refuted
    for w in ({"relation": "x"}, {"point": {"z": "1"}}, {"point": {"x": "__import__('os')"}},
              {"point": {}}):
        assert check_witness(stmt, w)[0] == "inconclusive", w
        g = gate(stmt, Verdict("refuted", "t", "-", "m", witness=w))
        assert g.status == "unknown" and g.conflict is None, w
    # a point given as a multiple of pi or a closed number is re-evaluated exactly
    assert check_witness(stmt, {"point": {"x": "pi/2"}})[0] == "ok"
    assert check_witness(stmt, {"point": {"x": "1 + 2*pi (ball [7.28 +/- 0.01])"}})[0] == "ok"


def test_exists_roles_flip():
    contradictory = Statement(Lt(x, 0), (VX,), hyps=(Lt(x, 0), Lt(0, x)), quant="exists")
    # proved without an instance: not kept (unknown, no conflict: nothing certified against it)
    g = gate(contradictory, proved("rational"))
    assert g.status == "unknown" and g.conflict is None
    # proved with an instance that is not one: conflict
    inst = Verdict("proved", "arb", "-", "certified instance", witness={"point": {"x": "1"}})
    assert gate(contradictory, inst).method == "engine conflict"
    # a refuted existential with a certified instance: conflict
    sat = Statement(Eq(S(x), 0), (VX,), quant="exists")
    found = search(sat)
    assert found and found["kind"] == "instance"
    assert evaluate(S(x), {x: parse_value(found["point"]["x"])})[0] == 0
    ref = Verdict("refuted", "t", "-", "proof of the negation", witness={"argument": "..."})
    assert gate(sat, ref).method == "engine conflict"
    # a proved existential with a good instance passes
    ok = Verdict("proved", "arb", "-", "certified instance", witness={"point": {"x": "pi"}})
    assert gate(sat, ok).status == "proved"


def test_search_is_reproducible_and_bounded():
    i = sp.Symbol("i", integer=True)
    big = Statement(tuple(Eq(S(k * x) ** 2 + C(k * x) ** 2, 1) for k in range(1, 401))
                    + (Eq(S(x), C(x)),), (VX,))
    found = search(big)
    assert found is not None and found["index"] == 400  # the last conclusions are sampled
    assert search(big) == found
    long_sum = Statement(Eq(sp.Sum(S(i * x) ** 2, (i, 0, 2 * 10**4)), 0), (VX,))
    found = search(long_sum, budget=Budget(points=4, work=50_000))
    assert search(long_sum, budget=Budget(points=4, work=5000)) is None  # beyond the budget
    assert found is not None


def test_gated_decorator_and_unknown_passthrough():
    bad = Statement(Eq(S(x), C(x)), (VX,))
    engine = gated(lambda stmt: proved("liar"))
    assert engine(bad).method == "engine conflict"
    u = Verdict("unknown", "t", "-", "m", reason="r")
    assert gate(bad, u) is u


def test_points_stay_in_their_domains():
    from peproof.kernel.points import member, points

    vs = [var(f"v{k}", dom)[1] for k, dom in enumerate(
        ["real", "pos_real", "rational", "integer", "nonneg_integer", "pos_integer",
         "even_pos_integer"])]
    st = Statement(Ne(sum(v.symbol for v in vs), sp.pi), tuple(vs))
    seen = 0
    for env in points(st, 200):
        seen += 1
        for v in vs:
            assert member(v.domain, env[v.symbol]), (v, env[v.symbol])
            val = env[v.symbol]
            if v.domain == "rational" or v.domain.endswith("integer"):
                assert isinstance(val, int | F)
    assert seen == 200
