"""What the Coq pass does not attempt, and says so (issue 23, items 4-5): a goal over
``check.MAX_GOAL_CHARS`` and a quantified sum of more than ``tactics.MAX_SUM_TERMS`` terms get
no proof script -- they ran out of their time on every run, were never cached, and cost every
report and every rebuild from the cache their full time limit.  The claim is "not checked in
Coq" with the reason, and the verdict's own engine is named as what it rests on instead.

No coqc runs here: these are the planner's decisions.  Each test fails without its rule (the
job is planned: ``plan`` returns a job instead of the reason).
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import Claim, Lt, Source, Statement, var
from peproof.kernel.coq import check, tactics


def _claim(cid, st):
    return Claim(cid, "test", Source("test", "test", "test"), st, "inequality")


def _separation(terms: int) -> Statement:
    """``0 < sum_j (sin(a w_j) - sin(b w_j))^2`` for ``a < b``: the shape of the separation
    scans, with ``terms`` frequencies."""
    a, A = var("a", "nonneg_integer")
    b, B = var("b", "nonneg_integer")
    j = sp.Symbol("j", integer=True)
    w = sp.Integer(10000) ** (-j / sp.Integer(terms))
    s = sp.Sum((sp.sin(a * w) - sp.sin(b * w)) ** 2, (j, 0, terms - 1))
    return Statement([Lt(0, s)], [A, B], hyps=[Lt(a, b), Lt(b, 100)])


VERDICT = {"status": "proved", "witness": None, "engines": {}, "engine": "float64+arb",
           "method": "certified scan"}


def test_a_long_quantified_sum_is_not_attempted_and_its_engine_is_named():
    job, info = check.plan(_claim("t.long", _separation(tactics.MAX_SUM_TERMS + 1)), VERDICT)
    assert job is None, "a job was planned for a sum over the limit"
    assert info.status.startswith("not checked in Coq: no proof script: a sum of "
                                  f"{tactics.MAX_SUM_TERMS + 1} terms"), info.status
    assert "rests on float64+arb (certified scan), outside the kernel" in info.status


def test_a_sum_at_the_limit_is_still_attempted():
    job, _ = check.plan(_claim("t.short", _separation(tactics.MAX_SUM_TERMS)), VERDICT)
    assert job is not None


def test_a_goal_over_the_size_limit_is_not_attempted(monkeypatch):
    claim = _claim("t.big", _separation(8))
    job, _ = check.plan(claim, VERDICT)
    assert job is not None and len(job.statement) > 100
    monkeypatch.setattr(check, "MAX_GOAL_CHARS", 100)
    job, info = check.plan(claim, VERDICT)
    assert job is None
    assert "over the 0 KB a script is given" in info.status, info.status


def test_without_the_deciding_engine_nothing_is_claimed_about_it():
    job, info = check.plan(_claim("t.long", _separation(tactics.MAX_SUM_TERMS + 1)),
                           {"status": "proved", "witness": None})
    assert job is None and "outside the kernel" not in info.status
