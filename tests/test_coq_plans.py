"""The kept plans of the Coq pass (peproof/kernel/coq/plans.py): a rebuild reads each claim's
job instead of planning it again, and a kept plan is believed only when it is signed with the
caller's key for exactly this claim, statement, verdict and code.

The Coq run itself is replaced here by a recorder (these tests are about which job reaches
it); tests/test_coq_kernel.py and the report run the real one.
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Claim, Rel, Source, Statement, Var
from peproof.kernel.coq import check, plans, run

KEY = b"k" * 32
OTHER = b"o" * 32
IDS = ["rotation.sin_angle_addition", "rotation.cos_angle_addition", "norm.squared_norm_is_half_d"]


@pytest.fixture
def coq(monkeypatch, tmp_path):
    """``run.check_jobs`` recorded (every job said checked, the cache folder created as the
    real one does); ``plan`` counted."""
    seen = {"jobs": [], "planned": []}

    def fake(jobs, cache_dir=None, **kw):
        (cache_dir or tmp_path).mkdir(parents=True, exist_ok=True)
        seen["jobs"].append({j.key: j for j in jobs})
        return {j.key: run.Outcome("checked", coq_version="8.16.1") for j in jobs}

    real_plan = check.plan

    def counted(claim, verdict):
        seen["planned"].append(claim.id)
        return real_plan(claim, verdict)

    monkeypatch.setattr(run, "check_jobs", fake)
    monkeypatch.setattr(check, "plan", counted)
    return seen


def _claims():
    have = {c.id for c in registry.select(None)}
    return [registry.get(i) for i in IDS if i in have]


def test_a_rebuild_reads_the_plans_and_gets_the_same_jobs(coq, tmp_path):
    claims = _claims()
    assert len(claims) >= 2
    first = check.check_claims(claims, {}, cache_dir=tmp_path, key=KEY)
    assert sorted(coq["planned"]) == sorted(c.id for c in claims)
    assert len(list((tmp_path / "plans").glob("*.json"))) == len(claims)
    coq["planned"].clear()
    again = check.check_claims(claims, {}, cache_dir=tmp_path, key=KEY)
    assert coq["planned"] == [], "a kept plan was planned again"
    assert coq["jobs"][0] == coq["jobs"][1]  # the same Job objects' fields, claim by claim
    assert {k: r.as_dict() for k, r in first.items()} == {k: r.as_dict() for k, r in again.items()}


def test_recheck_and_a_caller_without_a_key_plan_afresh(coq, tmp_path):
    claims = _claims()
    check.check_claims(claims, {}, cache_dir=tmp_path, key=KEY)
    coq["planned"].clear()
    check.check_claims(claims, {}, cache_dir=tmp_path, key=KEY, use_cache=False)
    assert len(coq["planned"]) == len(claims)
    coq["planned"].clear()
    other = tmp_path / "nokey"
    check.check_claims(claims, {}, cache_dir=other)
    assert len(coq["planned"]) == len(claims) and not (other / "plans").exists()


def _entry(tmp_path):
    (p,) = (tmp_path / "plans").glob("*.json")
    return p, json.loads(p.read_text())


def _weaker(d):
    """The kept job's theorem replaced by a true one of no content."""
    d = json.loads(json.dumps(d))
    d["data"]["job"]["goal"] = "True"
    d["data"]["job"]["script"] = "exact I"
    return d


def test_a_forged_edited_or_copied_plan_is_planned_again(coq, tmp_path):
    claim = _claims()[0]
    check.check_claims([claim], {}, cache_dir=tmp_path, key=KEY)
    p, good = _entry(tmp_path)
    real_goal = coq["jobs"][0][claim.id].goal
    forged = [
        _weaker(good),  # edited, MAC kept
        run.record(OTHER, "plan", good["name"], _weaker(good)["data"]),  # another user's key
        run.record(KEY, "result", good["name"], _weaker(good)["data"]),  # another kind
        dict(run.record(KEY, "plan", "b" * 64, _weaker(good)["data"]), name=good["name"]),
    ]
    for entry in forged:
        p.write_text(json.dumps(entry))
        coq["planned"].clear()
        check.check_claims([claim], {}, cache_dir=tmp_path, key=KEY)
        assert coq["planned"] == [claim.id], entry
        assert coq["jobs"][-1][claim.id].goal == real_goal
    # control: a weaker plan signed as this one IS read back (the test can tell)
    p.write_text(json.dumps(run.record(KEY, "plan", good["name"], _weaker(good)["data"])))
    coq["planned"].clear()
    check.check_claims([claim], {}, cache_dir=tmp_path, key=KEY)
    assert coq["planned"] == [] and coq["jobs"][-1][claim.id].goal == "True"


def _st(x, concl):
    return Statement(concl=(concl,), vars=(Var(x, "real"),))


def test_the_key_follows_the_statement_the_verdict_and_the_code(monkeypatch):
    x = sp.Symbol("x", real=True)
    src = Source("test", "test", "test")
    a = Claim("t.a", "test", src, _st(x, Rel("<=", sp.sin(x), 1)), "identity")
    same = Claim("t.a", "test", src, _st(x, Rel("<=", sp.sin(x), 1)), "identity")
    other_id = Claim("t.b", "test", src, _st(x, Rel("<=", sp.sin(x), 1)), "identity")
    other_rel = Claim("t.a", "test", src, _st(x, Rel("<", sp.sin(x), 1)), "identity")
    other_num = Claim("t.a", "test", src, _st(x, Rel("<=", sp.sin(x), sp.Rational(1, 2))),
                      "identity")
    k = plans.key_of(a, {"status": "proved"})
    assert plans.key_of(same, {"status": "proved"}) == k
    assert len({k, plans.key_of(other_id, {"status": "proved"}),
                plans.key_of(other_rel, {"status": "proved"}),
                plans.key_of(other_num, {"status": "proved"}),
                plans.key_of(a, {"status": "refuted"}),
                plans.key_of(a, {"status": "refuted", "witness": {"point": {"x": "1"}}}),
                plans.key_of(a, {"status": "proved", "method": "another"})}) == 7
    # the engines' other statuses are not read by the planner: the same plan
    assert plans.key_of(a, {"status": "proved", "engines": {"z3": "unknown"}}) == k
    monkeypatch.setattr(plans, "code_hash", lambda: "another tree")
    assert plans.key_of(a, {"status": "proved"}) != k


def test_the_digest_reads_assumptions_and_exact_numbers():
    d = lambda e: plans.digest(e, {})  # noqa: E731
    x, xp = sp.Symbol("x"), sp.Symbol("x", positive=True)
    assert d(x) != d(xp)
    assert d(sp.sin(x)) != d(sp.sin(xp)) and d(sp.sin(x)) != d(sp.cos(x))
    assert d(sp.Rational(1, 3)) != d(sp.Rational(1, 2)) and d(sp.Integer(2)) != d(sp.Integer(3))
    assert d(sp.pi) != d(sp.E) and d(x + 1) == d(1 + x)
    assert d(sp.Sum(x, (x, 0, 3))) != d(sp.Sum(x, (x, 0, 4)))
    j1, j2 = sp.Dummy("j"), sp.Dummy("j")
    assert d(sp.Tuple(j1, j2)) != d(sp.Tuple(j1, j1))  # two dummies of one name: two symbols


def test_the_code_hash_reads_every_source_file(monkeypatch, tmp_path):
    pkg = tmp_path / "peproof"
    (pkg / "kernel").mkdir(parents=True)
    (pkg / "a.py").write_text("A = 1\n")
    (pkg / "kernel" / "b.py").write_text("B = 1\n")
    monkeypatch.setattr(plans, "PACKAGE", pkg)
    plans.code_hash.cache_clear()
    try:
        h0 = plans.code_hash()
        plans.code_hash.cache_clear()
        (pkg / "kernel" / "b.py").write_text("B = 2\n")
        h1 = plans.code_hash()
        assert h1 != h0
        plans.code_hash.cache_clear()
        (pkg / "kernel" / "Lib.v").write_text("Lemma nil : True. Proof. exact I. Qed.\n")
        assert plans.code_hash() != h1  # a library lemma's name can rename a binder
    finally:
        plans.code_hash.cache_clear()
