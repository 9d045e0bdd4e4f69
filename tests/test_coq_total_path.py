"""The direct path of the reflection (peproof/kernel/coq/semantic.py, ``forward_script``): a
statement whose operations are all total is evaluated by ``pe_cbn_goal`` into its real goal and
the real script runs on it at once -- the real goal is not printed a second time for ``cut``
(that elaboration was 1.6 s of the 4 s proof of a d = 512 claim).  Any partial operation, or
any other word that looks like one of ``Sem.v``'s functions (a variable named ``omega``), keeps
the reflection through ``cut``.

On statements that are not the registry's: a total identity is checked by the direct path and
its false twin is not; a statement with a division and the hypothesis that makes it defined is
checked through ``cut``; the same identity over a variable named ``omega`` goes through ``cut``
and is checked too."""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Claim, Eq, Ne, Source, Statement, var
from peproof.kernel.coq import check, run, semantic

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None

x, XV = var("x", "real")
y, YV = var("y", "real")
w, WV = var("omega", "real")

CASES = {
    "total.addition": (Statement((Eq(sp.sin(x + y), sp.sin(x) * sp.cos(y)
                                     + sp.cos(x) * sp.sin(y)),), (XV, YV)), True, True),
    "total.addition_false": (Statement((Eq(sp.sin(x + y), sp.sin(x) + sp.sin(y)),),
                                       (XV, YV)), True, False),
    "partial.division": (Statement((Eq((x + 1) / y, x / y + 1 / y),), (XV, YV), (Ne(y, 0),)),
                         False, True),
    "named.omega": (Statement((Eq(sp.cos(w + y), sp.cos(w) * sp.cos(y)
                                  - sp.sin(w) * sp.sin(y)),), (WV, YV)), False, True),
}


def _claim(key: str) -> Claim:
    return Claim(key, "test", Source("test", "test", "test"), CASES[key][0], "identity")


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_direct_path_only_for_total_statements(key):
    job, info = check.plan(_claim(key), {})
    assert job is not None, info
    direct = CASES[key][1]
    assert ("cut (" not in job.script) is direct, job.script[:400]
    assert ("pe_cbn_goal; (" in job.script) is direct, job.script[:400]


def test_total_word_check():
    assert semantic._total("forall x : R, oeq (osin (Some x)) (oopp (Some x))")
    assert not semantic._total("forall x : R, oeq (odiv (Some x) (Some x)) (Some 1)")
    assert not semantic._total("forall omega : R, oeq (osin (Some omega)) (Some 0)")
    assert not semantic._total("forall x : R, isZ (Some x) -> oeq (Some x) (Some x)")


@pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")
def test_checked_by_either_path_and_the_false_twin_not(coq_shapes, tmp_path_factory):
    cases = {k: (st, ok) for k, (st, _, ok) in CASES.items()}
    res = coq_shapes(tmp_path_factory, cases)
    got = {k: res[k].checked for k in CASES}
    assert got == {k: ok for k, (_, ok) in cases.items()}, {k: res[k].status for k in CASES}
