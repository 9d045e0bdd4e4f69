"""The falsification searches shared inside one claim's decision
(:func:`peproof.kernel.falsify.shared_searches`): made once per (statement, budget) inside a
block, anew outside it, each caller given its own copy of the finding."""

from __future__ import annotations

import collections
import dataclasses

import sympy as sp

from peproof import agreement, registry, testing, verdicts
from peproof.claims import Claim, Rel, Statement, Var
from peproof.kernel import falsify

x = sp.Symbol("x", real=True)
FALSE = Statement(concl=(Rel("==", sp.sin(x), sp.cos(x)),), vars=(Var(x, "real"),))
TRUE = Statement(concl=(Rel("<=", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(2)),),
                 vars=(Var(x, "real"),))


def counting(monkeypatch) -> collections.Counter:
    calls: collections.Counter = collections.Counter()
    real = falsify._search

    def spy(stmt, budget):
        calls[stmt, budget] += 1
        return real(stmt, budget)

    monkeypatch.setattr(falsify, "_search", spy)
    return calls


def test_once_per_statement_inside_a_block_and_anew_outside(monkeypatch):
    calls = counting(monkeypatch)
    with falsify.shared_searches():
        first = falsify.search(FALSE)
        with falsify.shared_searches():  # a nested block shares the outer memo
            again = falsify.search(FALSE)
        assert falsify.search(TRUE) is None
    assert first is not None and first["kind"] == "counterexample"
    assert again == first
    assert calls[FALSE, falsify.DEFAULT] == 1 and calls[TRUE, falsify.DEFAULT] == 1
    falsify.search(FALSE)  # outside any block: searched again (a patched kernel is seen)
    assert calls[FALSE, falsify.DEFAULT] == 2


def test_each_caller_gets_its_own_finding(monkeypatch):
    with falsify.shared_searches():
        first = falsify.search(FALSE)
        first["point"]["x"] = "not the point"
        first["kind"] = "spoilt"
        second = falsify.search(FALSE)
    assert second["kind"] == "counterexample"
    assert second["point"]["x"] != "not the point"


def test_the_budget_is_part_of_the_key(monkeypatch):
    monkeypatch.setattr(falsify, "_search", lambda stmt, budget: {"points": budget.points})
    small = dataclasses.replace(falsify.DEFAULT, points=3)
    with falsify.shared_searches():
        assert falsify.search(FALSE) == {"points": falsify.DEFAULT.points}
        assert falsify.search(FALSE, budget=small) == {"points": 3}


def _fresh_caches(monkeypatch):
    """The registry's verdict and row caches emptied (the claim is decided here whatever ran
    before in this process; they are caches of pure functions, so emptying them changes no
    later result)."""
    verdicts.verdict_of.cache_clear()
    agreement.z3_verdict.cache_clear()
    agreement.row.cache_clear()


def _confirmed_forall_claim():
    """A registered universal claim both the primary engines and z3 prove: both gates search
    its statement."""
    for c in registry.family("rotation"):
        if c.statement is not None and c.statement.quant == "forall" and c.expect == "proved" \
                and c.proof is None:
            return c
    raise AssertionError("no universal rotation claim decided by the default engines")


def test_check_claim_searches_each_statement_once(monkeypatch):
    _fresh_caches(monkeypatch)
    calls = counting(monkeypatch)
    claim = _confirmed_forall_claim()
    v = testing.check_claim(claim)
    assert v.status == "proved"
    assert agreement.row(claim.id)["cells"]["z3"] == "proved", "z3 must gate the claim too"
    assert calls[claim.statement, falsify.DEFAULT] == 1, calls


def test_run_claim_outside_the_registry_searches_each_statement_once(monkeypatch):
    from peproof.results import run_claim

    calls = counting(monkeypatch)
    c = _confirmed_forall_claim()
    claim = Claim("user.copy", c.title, c.sources, c.statement, c.kind)
    row = run_claim(claim, falsifiers=False)
    assert row["verdict"]["status"] == "proved" and row["engines"]["z3"] == "proved"
    assert calls[claim.statement, falsify.DEFAULT] == 1, calls
