"""Declared fragments and the falsification gate on every return path (issue 18, items 2 and 3).

* Every engine states its fragment as data (``FRAGMENT`` at the top of its module) and is
  listed in :mod:`peproof.engines.registry` with its gated entry point.
* A statement outside an engine's fragment is refused BEFORE any rewriting: ``unknown``, method
  ``not applicable``, the reason naming the engine, the node and where it occurs.
* Sign-sensitive nodes never reach the exponential procedure.
* Every verdict passes the falsification gate on the ORIGINAL statement: each registered entry,
  ``decide_statement``, ``decide`` (claims, proof functions), ``refute``, ``with_default``,
  ``refute_at``; a lying engine becomes an engine conflict, which ``peproof prove`` reports with
  both verdicts and the point, exit code 1.
"""

import importlib

import pytest
import sympy as sp

from peproof.claims import Claim, Eq, Le, Lt, Ne, Source, Statement, Verdict, var
from peproof.engines import decide as decide_mod
from peproof.engines import expoly, gate
from peproof.engines.fragment import SIGN_SENSITIVE, Fragment, refusal, term_refusal
from peproof.engines.objects import PiIntegral
from peproof.engines.registry import ENGINES, get
from peproof.kernel import falsify

x, VX = var("x", "real")
y, VY = var("y", "real")
n, VN = var("n", "pos_integer")
S, C = sp.sin, sp.cos
i = sp.Symbol("i", integer=True, nonnegative=True)

MODULES = {"expoly": "expoly", "z3poly": "z3poly", "z3trig": "z3trig", "periodic": "periodic",
           "cyclotomic": "cyclotomic", "rational": "rational", "realz3": "realz3",
           "powers": "powers", "angles": "angles", "decide": "decide"}


def test_every_engine_is_registered_with_the_fragment_its_module_declares():
    assert set(ENGINES) == set(MODULES)
    for name, mod in MODULES.items():
        module = importlib.import_module(f"peproof.engines.{mod}")
        assert isinstance(module.FRAGMENT, Fragment), name
        assert ENGINES[name].fragment is module.FRAGMENT, name
        fn = ENGINES[name].decide
        assert fn is decide_mod.decide_statement or fn.fragment is module.FRAGMENT, name
    with pytest.raises(KeyError, match="engines: decide"):
        get("simplify")


# one statement outside each engine's fragment, and the node (or the reason) it must name
OUTSIDE = {
    "expoly": (Statement(Eq(sp.Max(S(x) ** 2, sp.Rational(1, 2)), sp.Rational(1, 2)), (VX,)),
               "Max in conclusion 1 lhs"),
    "z3poly": (Statement(Lt(x, 1), (VX,), hyps=(Lt(x, 0),), quant="exists"), "exists"),
    "z3trig": (Statement(Le(sp.Max(S(x), C(x)), 2), (VX,)), "Max in conclusion 1 lhs"),
    "periodic": (Statement(Eq(PiIntegral(sp.Abs(S(x)), x), 4)), "Abs in conclusion 1 lhs"),
    "cyclotomic": (Statement(Eq(S(x) ** 2 + C(x) ** 2, 1), (VX,)), "variables"),
    "rational": (Statement(Eq(S(x), S(x) + 0 * x + sp.exp(0) - 1), (VX,)),
                 "sin in conclusion 1 lhs"),
    "realz3": (Statement(Le(S(x), 1), (VX,)), "sin in conclusion 1 lhs"),
    "powers": (Statement(Le(sp.floor(x), x), (VX,)), "floor in conclusion 1 lhs"),
    "angles": (Statement(Eq(S(x), S(x) + 0 * y), (VX, VY)), "relation =="),
}


@pytest.mark.parametrize("name", sorted(OUTSIDE))
def test_a_statement_outside_the_fragment_is_refused_before_rewriting(name):
    stmt, words = OUTSIDE[name]
    assert refusal(ENGINES[name].fragment, stmt) is not None
    v = ENGINES[name].decide(stmt)
    assert v.status == "unknown" and v.method == gate.NOT_APPLICABLE, (name, v)
    assert ENGINES[name].fragment.engine in v.reason and words in v.reason, v.reason
    # the engine's own work never started: the refusal is the whole trace
    assert v.trace == [f"refused: {v.reason}"]


def test_the_default_engines_accept_every_well_formed_statement():
    for stmt, _ in OUTSIDE.values():
        assert refusal(ENGINES["decide"].fragment, stmt) is None, stmt


@pytest.mark.parametrize("cls", SIGN_SENSITIVE, ids=lambda c: c.__name__)
def test_no_sign_sensitive_node_reaches_the_exponential_procedure(cls):
    assert cls not in expoly.FRAGMENT.nodes
    samples = {sp.Piecewise: sp.Piecewise((S(x), C(x) > 0), (0, True)),
               sp.Mod: sp.Mod(S(x), 1), sp.Max: sp.Max(S(x), C(x)), sp.Min: sp.Min(S(x), C(x)),
               sp.arg: sp.arg(S(x) + 2, evaluate=False)}
    node = samples.get(cls)
    if node is None:
        try:
            node = cls(S(x), evaluate=False)
        except (TypeError, ValueError):
            pytest.skip(f"{cls.__name__} is not built from one term")
    if not node.has(cls) and not isinstance(node, cls):
        pytest.skip("SymPy built something else")
    why = term_refusal(expoly.FRAGMENT, node + C(x), "the term", complex_view=True)
    assert why is not None
    res = expoly.expand_is_zero(node + S(x) ** 2 + C(x) ** 2 - 1 - node + node)
    assert not res.zero and res.trace[0].startswith("refused")


def test_where_the_refused_node_occurs_is_named():
    stmt = Statement((Eq(S(x), S(x)), Le(C(x), 2 + sp.Abs(S(x)))), (VX,), hyps=(Lt(0, x),))
    why = refusal(ENGINES["realz3"].fragment, stmt)
    assert why.startswith("real z3: sin in conclusion 1 lhs (sin(x))")
    why = refusal(ENGINES["z3trig"].fragment, Statement(Lt(0, 1), (VX,),
                                                        hyps=(Lt(sp.Max(x, 0), 1),)))
    assert "Max in hypothesis 1 lhs" in why
    nested = sp.Sum(sp.Sum(S(x), (i, 0, 2)) * S(x), (i, 0, 3))
    why = refusal(ENGINES["z3trig"].fragment, Statement(Eq(nested, 0), (VX,)))
    assert "Sum" in why and "summand of a side" in why


# ----------------------------------------------------------------------------- the gate
FALSE = Statement(Eq(S(x) ** 2, C(x) ** 2), (VX,))  # false at x = 0


def _liar(status="proved", witness=None):
    def core(stmt, checked=None, *a, **k):
        return Verdict(status, "liar", "-", "sabotage", witness=witness)
    return core


def test_a_lying_engine_behind_the_entry_is_an_engine_conflict():
    liar = gate.entry(ENGINES["z3poly"].fragment, "liar", "sabotage")(_liar())
    v = liar(FALSE)
    assert v.status == "unknown" and v.conflict and v.reason.startswith("engine conflict")
    assert v.conflict["engine"]["status"] == "proved" and v.conflict["point"]
    bogus = {"point": {"x": "1/4"}}  # certified true there: no counterexample
    true = Statement(Le(x**2, x**2 + 1), (VX,))
    v = gate.entry(ENGINES["z3poly"].fragment, "liar", "sabotage")(_liar("refuted", bogus))(true)
    assert v.status == "unknown" and v.conflict


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_registered_entry_passes_the_gate_on_the_original_statement(name, monkeypatch):
    seen = []
    real = falsify.gate

    def spy(stmt, verdict, **kw):
        seen.append(stmt)
        return real(stmt, verdict, **kw)

    monkeypatch.setattr(falsify, "gate", spy)
    stmt = {"cyclotomic": Statement(Eq(C(sp.pi / 3) * 2, 1)),
            "periodic": Statement(Eq(PiIntegral(C(n * x) ** 2, x), sp.pi), (VN,)),
            "angles": Statement(Lt(0, (S(x) - S(y)) ** 2 + (C(x) - C(y)) ** 2), (VX, VY),
                                (Le(0, x), Le(x, 1), Le(0, y), Le(y, 1), Ne(x, y))),
            "z3trig": Statement(Eq(sp.Sum(S(x) ** 2 + C(x) ** 2, (i, 0, n - 1)), n), (VX, VN)),
            }.get(name, Statement(Le(x**2, x**2 + 1), (VX,)))
    ENGINES[name].decide(stmt)
    assert seen and all(s is stmt for s in seen), name  # the statement as given, never rewritten


def test_decide_statement_decide_refute_with_default_refute_at_pass_the_gate(monkeypatch):
    monkeypatch.setattr(decide_mod, "_decide_statement", lambda stmt, search=True: Verdict(
        "proved", "liar", "-", "sabotage"))
    assert decide_mod.decide_statement(FALSE).conflict
    assert decide_mod.refute(FALSE).conflict
    assert decide_mod.with_default(lambda s: Verdict("proved", "liar", "-", "m"))(FALSE).conflict
    assert decide_mod.refute_at({"x": 1})(Statement(Eq(S(x) ** 2 + C(x) ** 2, 1), (VX,)),
                                          None).conflict is None  # not a point: default engines
    claim = Claim("test.liar", "a lying proof", (Source("s", "s", "s"),), FALSE, "identity",
                  proof=lambda st, c: Verdict("proved", "liar", "-", "sabotage"))
    v = decide_mod.decide(claim)
    assert v.status == "unknown" and v.conflict and v.conflict["engine"]["engine"] == "liar"


def test_peproof_prove_exits_1_and_shows_both_verdicts_and_the_point(monkeypatch, capsys):
    from peproof import registry
    from peproof.agreement import row, z3_verdict
    from peproof.cli import main
    from peproof.verdicts import verdict_of

    cid = "dft.mirror_cos"  # a witness where the conclusion is certified TRUE: a bogus one
    claim = registry.get(cid)

    def clear():
        for f in (verdict_of, row, z3_verdict):
            f.cache_clear()

    clear()
    monkeypatch.setattr(claim, "proof", lambda st, c: Verdict(
        "refuted", "liar", "-", "sabotage", witness={"point": {"N": "1", "k": "2", "n": "-3"}}))
    try:
        code = main(["prove", cid, "--no-falsifiers"])
    finally:
        monkeypatch.undo()
        clear()
    out = capsys.readouterr().out
    assert code == 1
    assert f"ENGINE CONFLICT {cid}: liar said refuted; the falsification gate:" in out
    assert "'N': '1'" in out and "every conclusion is true at the point" in out


def test_a_verdict_changed_after_the_gate_is_gated_again():
    """The gate is not run twice on one verdict for one statement, unless the verdict's status
    or witness changed in between (a proof function editing an engine's verdict in place)."""
    true = Statement(Le(x**2, x**2 + 1), (VX,))
    v = decide_mod.decide_statement(true)
    assert v.status == "proved" and gate.finish(true, v) is v
    v.status, v.witness = "refuted", {"point": {"x": "1/4"}}
    again = gate.finish(true, v)
    assert again.status == "unknown" and again.conflict
