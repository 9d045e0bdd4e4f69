"""Case splits with arguments of equal value merged first (peproof/kernel/coq/case_scripts.py,
``merges``; CheckSem.v's ``pe_same_arg``), on statements that are not the registry's.

Each statement below has more partial operations than a case split is given
(``case_scripts.MAX_PARTIAL``) unless arguments equal as rational functions are made one term:
then the merges are required, and a merge Coq cannot prove fails the script.

* equal only by ``field``: ``k - L + (s P + s L)/s`` and ``l + k``, where ``P`` is a
  ``Piecewise`` that is ``l`` under the hypothesis ``L <= l`` (the other branch is excluded by
  the hypothesis, not by algebra), and ``s <> 0`` comes from its decision.  Checked; the same
  with ``l + k + 1`` is false and not checked.
* arguments that look alike and are not equal (``l + k`` and ``l + k + 1``, side by side with
  a pair that is): only the equal pair is merged, and the statement is checked -- a merge of
  the unequal pair would fail in Coq, and with it the script.
* a denominator that can be zero: ``(x y + k y)/y`` and ``x + k`` are equal as rational
  functions, but the first is undefined at ``y = 0``, where the statement is false: the merge
  must not be made (Coq cannot prove it) and the statement is not checked; with the
  hypothesis ``y <> 0`` the same merge is proved and the statement is checked.

The printed theorem stays the statement itself: the merges are steps of the proof.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Ne, Statement, var
from peproof.kernel.coq import case_scripts, run, translate

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

s, SV = var("s", "pos_real")
L, LV = var("L", "pos_real")
l_, LLV = var("l", "pos_real")
x, XV = var("x", "pos_real")
y, YV = var("y", "real")
K = 11  # three partial operations a conclusion: 33 decisions, over the 32 a split is given
P = sp.Piecewise((L, L > l_), (l_, True))  # l under L <= l: a decision, not algebra


def _a(k):
    """``k - L + (s P + s L)/s``: ``l + k`` by ``field`` (``s <> 0``) once ``P`` is ``l``."""
    return k - L + (s * P + s * L) / s


def _over(concl, vs, hyps=()):
    return Statement(tuple(concl), vs, tuple(hyps))


Q = sp.Piecewise((0, y > 0), (1, True))  # the Piecewise that makes it a case split
DEN = (Le(Q, 1),) + tuple(Eq(sp.sqrt((x * y + k * y) / y), sp.sqrt(x + k))
                           for k in range(1, K + 1))
CASES = {
    "merge.field": (_over((Eq(sp.sqrt(_a(k)), sp.sqrt(l_ + k)) for k in range(1, K + 1)),
                          (SV, LV, LLV), (Le(L, l_),)), True),
    "merge.field_false": (_over((Eq(sp.sqrt(_a(k)), sp.sqrt(l_ + k + 1))
                                 for k in range(1, K + 1)), (SV, LV, LLV), (Le(L, l_),)), False),
    "merge.unequal_beside": (_over((Eq(sp.sqrt(_a(k)) + sp.sqrt(l_ + k + 1),
                                       sp.sqrt(l_ + k) + sp.sqrt(l_ + k + 1))
                                    for k in range(1, 10)), (SV, LV, LLV), (Le(L, l_),)), True),
    "merge.zero_denominator": (_over(DEN, (XV, YV)), False),
    "merge.nonzero_denominator": (_over(DEN, (XV, YV), (Ne(y, 0),)), True),
}


def _plan(key):
    st = CASES[key][0]
    g = translate.translate(st)
    return g, case_scripts.merges(g, st)


def _reps(steps):
    return {b for _, b in steps}


def test_every_case_needs_its_merges():
    """Without merging, each case is over the split's budget; merged, within it."""
    for key, (st, _) in CASES.items():
        g, (steps, merged) = _plan(key)
        assert not g.real, key
        assert case_scripts.split_size(list(g.sem_concls), list(g.sem_hyps)) > \
            case_scripts.MAX_PARTIAL >= case_scripts.split_size(merged, list(g.sem_hyps)), key
        assert steps and "pe_same_arg" in case_scripts.script(st, g).text, key


def test_only_equal_arguments_are_proposed():
    """``l + k`` and ``l + k + 1`` stand side by side with ``k - L + (s P + s L)/s``: each
    proposal replaces the long argument by ``l + k``, none merges ``l + k + 1``."""
    _, (steps, merged) = _plan("merge.unequal_beside")
    assert _reps(steps) == {f"(oadd (Some l) (Some {k}))" for k in range(1, 10)}, steps
    assert all("opw" in a for a, _ in steps), steps
    for k in range(1, 10):
        assert f"(oadd (Some l) (Some {k + 1}))" in " ".join(merged)
    # and directly: the readings of unequal terms are not equal, of equal ones are
    ll, ss, LL = (sp.Symbol(n, real=True) for n in ("l", "s", "L"))
    assert not case_scripts.equal_values(ll + 1, ll + 2)
    assert not case_scripts.equal_values(ss * ll / LL, ss * (ll - LL) / LL + 1)
    assert case_scripts.equal_values(-ss + 1 + ss * ll / LL, 1 + ss * (ll - LL) / LL)


def test_a_branch_the_hypotheses_exclude_is_not_compared():
    """``k - L + (s P + s L)/s`` is ``l + k`` on the branch ``P = l`` only: proposed where the
    hypotheses make that the branch taken (``L <= l``), not where they allow both."""
    _, (steps, _) = _plan("merge.field")
    assert len(steps) == K
    st = CASES["merge.field"][0]
    both = Statement(st.concl, st.vars)  # no hypothesis: the branch L > l is possible
    g = translate.translate(both)
    assert case_scripts.merges(g, both)[0] == []


@pytest.fixture(scope="module")
def checked(tmp_path_factory, coq_shapes):
    if not HAVE_COQ:
        pytest.skip("coqc not installed")
    # a false case with a forged 'proved' must still fail in Coq
    verdicts = {k: {"status": "proved"} for k in CASES}
    return coq_shapes(tmp_path_factory, CASES, verdicts=verdicts)


@needs_coq
@pytest.mark.timeout(900)  # the first test of the module builds the batch (fixture above)
@pytest.mark.parametrize("key", sorted(CASES))
def test_merged_case_split_checks_the_true_shapes_only(checked, key):
    r = checked[key]
    assert r.checked is CASES[key][1], (key, r.status)
    # the theorem is the statement itself, whatever the merges did
    assert r.goal == translate.translate(CASES[key][0]).text, key
    assert r.exact or not r.checked, key
