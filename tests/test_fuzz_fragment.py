"""Fuzzing over the whole fragment (issue 18, item 7): random statements over every node the
engines meet (tests/fuzz/fragment.py), each engine called directly and through
``decide_statement`` (tests/fuzz/run.py), every verdict judged by the falsification gate
(certified points, peproof.kernel.falsify) and by the truth the construction settles.

Fixed seed; ``PEPROOF_FUZZ_EXAMPLES`` cases (CI default below, ``make fuzz`` runs more;
``PEPROOF_FUZZ_SEED`` changes the seed).  The counts, the wrong verdicts grouped by class and the
crashes are merged into the JSON file named by ``PEPROOF_FUZZ_REPORT`` under ``"fragment"``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parent / "fuzz"))

from fragment import FAMILIES, case  # noqa: E402
from run import coq_judge, run  # noqa: E402

from peproof.claims import DOMAINS, Eq, Le, Lt, Statement, Verdict, var  # noqa: E402
from peproof.kernel.coq import run as coqrun  # noqa: E402

EXAMPLES = int(os.environ.get("PEPROOF_FUZZ_EXAMPLES", "120"))
SEED = int(os.environ.get("PEPROOF_FUZZ_SEED", "18"))


def _write(report: dict) -> None:
    path = os.environ.get("PEPROOF_FUZZ_REPORT")
    if not path:
        return
    p = Path(path)
    data = json.loads(p.read_text()) if p.exists() else {}
    data["fragment"] = report
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=1, sort_keys=True))


def _show(findings: list[dict], limit: int = 12) -> str:
    lines = [f"{len(findings)} wrong verdict(s):"]
    for f in findings[:limit]:
        lines.append(f"  case {f['case']} ({f['family']}), {f['engine']} said {f['verdict']}: "
                     f"{f['statement']}\n      {f['why'][:300]}")
    return "\n".join(lines)


@pytest.mark.timeout(120 + 3 * EXAMPLES)
def test_no_engine_returns_a_wrong_verdict():
    report = run(EXAMPLES, SEED)
    _write(report)
    assert not report["findings"], _show(report["findings"])


def _liar(stmt):
    return Verdict("proved", "liar", "-", "sabotage")


def _forger(stmt):
    return Verdict("refuted", "forger", "-", "sabotage", witness={
        "point": {v.symbol.name: "2" for v in stmt.vars}})


def test_the_fuzzer_fails_on_an_injected_bug():
    """An engine that proves everything, one that refutes everything at a made-up point: the
    judge flags both (the fuzz test above would fail)."""
    report = run(40, SEED, table={"liar": _liar, "forger": _forger})
    engines = {f["engine"] for f in report["findings"]}
    assert engines == {"liar", "forger"}, report["verdicts"]
    kinds = {f["gate"]["kind"] for f in report["findings"] if f.get("gate")}
    assert {"counterexample", "bad witness"} <= kinds, kinds


def test_the_generator_covers_the_fragment():
    """The node types of the issue's list, every domain, both quantifiers, several conclusions,
    nested and empty ranges, matrices of different shapes, unsatisfiable hypotheses."""
    nodes, domains, seen = set(), set(), set()
    for k in range(max(EXAMPLES, 400)):
        c = case(k, SEED)
        seen.add(c.family)
        try:
            st = c.build()
        except ValueError:
            seen.add("refused construction")
            continue
        domains |= {v.domain for v in st.vars}
        seen.add(st.quant)
        if len(st.concl) > 1:
            seen.add("several conclusions")
        if c.note == "contradictory":
            seen.add("contradictory hypotheses")
        for r in st.concl + st.hyps:
            for e in (r.lhs, r.rhs):
                for s in sp.preorder_traversal(e):
                    nodes.add(type(s).__name__)
                    if isinstance(s, sp.Sum) and (len(s.limits) > 1 or s.function.has(sp.Sum)):
                        seen.add("nested sum")
                    if isinstance(s, sp.Sum | sp.Product) and s.limits[0][1] - s.limits[0][2] == 1:
                        seen.add("empty range")
                    if s == sp.I:
                        seen.add("complex view")
    want = {"Abs", "Max", "Min", "Piecewise", "sign", "floor", "ceiling", "Mod", "frac", "re",
            "im", "Sum", "Product", "sin", "cos", "tan", "exp", "log", "Pow"}
    assert want <= nodes, want - nodes
    assert set(DOMAINS) <= domains, set(DOMAINS) - domains
    assert set(FAMILIES) | {"forall", "exists", "several conclusions", "nested sum",
                            "empty range", "contradictory hypotheses", "complex view"} <= seen


@pytest.mark.skipif(coqrun.coqc() is None, reason="coqc not installed")
@pytest.mark.timeout(900)
def test_a_refutation_of_a_statement_coq_proves_is_a_wrong_verdict(coq_worker_cache):
    """The Coq judge: a refuted sin^2 + cos^2 = 1 is a finding (Coq proves it), and so is a
    refuted true Piecewise statement (Sem.v states Piecewise's meaning); a refuted sin x = 0
    (false) and a true refuted statement Coq cannot translate (sign) are not."""
    x, vx = var("x", "real")
    true = Statement((Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),), (vx,))
    false = Statement((Eq(sp.sin(x), 0),), (vx,))
    odd = Statement((Eq(sp.Piecewise((sp.sin(x) ** 2, x > 0), (1 - sp.cos(x) ** 2, True)),
                        sp.sin(x) ** 2),), (vx,))
    signed = Statement((Eq(sp.sign(x) ** 2 * x, x),), (vx,))
    refs = [{"case": 1, "engine": "forger", "stmt": true},
            {"case": 2, "engine": "forger", "stmt": false},
            {"case": 3, "engine": "forger", "stmt": odd},
            {"case": 4, "engine": "forger", "stmt": signed}]
    found, counts = coq_judge(refs, cache_dir=coq_worker_cache)
    assert [f["case"] for f in found] == [1, 3], (found, counts)
    assert all("refuted a statement Coq proved" in f["why"] for f in found)
    assert counts.get("checked in Coq") == 2, counts


@pytest.mark.skipif(coqrun.coqc() is None, reason="coqc not installed")
@pytest.mark.timeout(900)
def test_a_proof_whose_negation_coq_proves_at_a_boundary_is_a_wrong_verdict(coq_worker_cache):
    """The Coq judge on proved statements (issue 23): x**(3/2) <= 0 |- 0 < x is false at x = 0
    (SymPy: 0**(3/2) = 0), and Coq proves its negation there now that the theorem states the
    original meaning (the old translator's premise 0 < x made that impossible); a proved
    sin^2 + cos^2 = 1 is no finding."""
    x, vx = var("x", "real")
    false = Statement((Lt(0, x),), (vx,), (Le(x ** sp.Rational(3, 2), 0),))
    true = Statement((Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),), (vx,))
    proofs = [{"case": 7, "engine": "forger", "stmt": false},
              {"case": 8, "engine": "forger", "stmt": true}]
    found, counts = coq_judge([], cache_dir=coq_worker_cache, proofs=proofs)
    assert [f["case"] for f in found] == [7], (found, counts)
    assert "negation Coq proved at {'x': '0'}" in found[0]["why"]
