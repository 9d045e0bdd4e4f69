"""Run fuzz cases (:mod:`fragment`) through every engine and judge each verdict with the
falsification gate (:mod:`peproof.kernel.falsify`).

A verdict is WRONG when

* the gate returns an engine conflict: a ``proved`` with a certified counterexample (or, for
  ``exists``, a certified non-instance), a ``refuted`` whose witness is certified not to be one,
  a ``refuted`` existential with a certified instance;
* or it contradicts the truth the construction settled (``proved`` of an existential with
  contradictory hypotheses, of matrices of different shapes);
* or it is a ``refuted`` whose witness the kernel cannot re-check, or a ``proved`` existential
  without a re-checkable instance, returned as such (an entry whose own gate turned it into
  ``unknown`` is counted, not failed);
* or it is a ``refuted`` of a statement Coq proves, or a ``proved`` whose negation Coq proves
  at a boundary point (:func:`coq_judge`: every refuted statement and a few proved ones, the
  ORIGINAL statement in lib/Sem.v's meaning, tried with the registry's proof scripts, in one
  batch after the cases; skipped, and said so in the report, when ``coqc`` is absent).

Refusals (``IllFormed``), crashes and time-outs are counted, not failed.
Usable as a script: ``python tests/fuzz/run.py CASES [SEED] [REPORT.json]`` (long runs).
"""

from __future__ import annotations

import collections
import json
import signal
import sys
import time
import traceback
from pathlib import Path

import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fragment import case  # noqa: E402

from peproof.claims import Statement, Verdict  # noqa: E402
from peproof.guard.keys import user_key  # noqa: E402
from peproof.kernel.falsify import Budget, gate  # noqa: E402

TIME_LIMIT = 30.0  # seconds per engine call (a hang is reported, not waited for)
#: the judge searches harder than the gate inside the entries: a wrong verdict that slipped past
#: an entry's own gate is still found
JUDGE = Budget(points=64, conclusions=32, work=20000)


def engines() -> dict:
    """Every engine's entry point by name (:mod:`peproof.engines.registry`)."""
    from peproof.engines.registry import ENGINES

    return {name: e.decide for name, e in ENGINES.items()}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def judged_statement(name: str, stmt: Statement) -> Statement:
    """What the engine's answer is a claim about (expoly ignores hypotheses: its zero is an
    identity everywhere)."""
    if name == "expoly.expand_is_zero":
        return Statement(stmt.concl, stmt.vars)
    return stmt


def judge(name: str, stmt: Statement, v: Verdict, truth: bool | None) -> tuple[str, dict | None]:
    """``(outcome, finding)``; a finding is a wrong verdict, whether the gate inside the entry
    caught it (a conflict returned) or not (the judge's own gate run)."""
    if v.conflict:
        return "conflict", {"why": v.reason, "gate": v.conflict.get("gate"),
                            "caught_by": "the entry's own gate"}
    g = gate(judged_statement(name, stmt), v, budget=JUDGE)
    if g.conflict:
        return "conflict", {"why": g.reason, "gate": g.conflict.get("gate")}
    if truth is False and v.status == "proved":
        return "wrong", {"why": "proved a statement false by construction"}
    if truth is True and v.status == "refuted":
        return "wrong", {"why": "refuted a statement true by construction"}
    if g.status != v.status:  # a refuted witness / an exists instance the kernel cannot check
        return f"not re-checked ({v.status})", {"why": g.reason, "gate": None}
    if v.status == "unknown" and "not kept" in v.reason:
        return "unknown (not kept by its own gate)", None
    return v.status, None


#: boundary values tried as witnesses of a proved statement's negation, by domain
BOUNDARY = {"real": ("0", "-1", "1/2"), "rational": ("0", "-1", "1/2"), "pos_real": ("1/2", "1"),
            "integer": ("0", "-1", "1"), "nonneg_integer": ("0", "1"),
            "pos_integer": ("1", "2"), "even_pos_integer": ("2", "4")}
MAX_PROVED = 12  # proved statements judged in Coq per run (two points each): a small budget


def boundary_points(stmt: Statement, k: int = 2) -> list[dict]:
    """``k`` points of ``stmt``'s variables at the boundaries of partial operations (every
    variable at its domain's first boundary value, then its second, ...)."""
    out = []
    for n in range(k):
        pt = {}
        for v in stmt.vars:
            vals = BOUNDARY.get(v.domain)
            if not vals:
                return out
            pt[v.symbol.name] = vals[min(n, len(vals) - 1)]
        if pt not in out:
            out.append(pt)
    return out


def coq_judge(refutations: list[dict], cache_dir=None,
              proofs: list[dict] = ()) -> tuple[list[dict], dict]:
    """``(findings, counts)``: each refuted statement (``{"case", "engine", "stmt"}``) whose
    statement Coq's kernel accepts is a wrong verdict, and so is each proved one (``proofs``,
    ``forall`` statements) whose NEGATION Coq proves at one of its :func:`boundary_points`.
    Statements are checked once each (several engines may decide one case); one batch."""
    from types import SimpleNamespace

    from peproof.kernel.coq import check

    claims, who, verdicts = [], collections.defaultdict(list), {}
    for r in refutations:
        cid = f"fuzz.case{r['case']}"
        if cid not in who:
            claims.append(SimpleNamespace(id=cid, statement=r["stmt"]))
        who[cid].append(r)
    seen: set = set()
    for r in proofs:
        st = r["stmt"]
        if st.quant != "forall" or not st.vars or r["case"] in seen or len(seen) >= MAX_PROVED:
            continue
        seen.add(r["case"])
        for n, pt in enumerate(boundary_points(st)):
            cid = f"fuzz.case{r['case']}_not{n}"
            claims.append(SimpleNamespace(id=cid, statement=st))
            verdicts[cid] = {"status": "refuted", "witness": {"point": pt}}
            who[cid].append(r)
    if not claims:
        return [], {}
    # the result cache is signed with the user's key (else each run recompiles the library)
    res = check.check_claims(claims, verdicts, cache_dir=cache_dir, key=user_key()[0])
    counts = collections.Counter()
    findings = []
    for cid, cr in res.items():
        neg = cid in verdicts
        counts[("negation " if neg else "") + ("checked in Coq" if cr.checked
                                               else cr.status.split(":")[0])] += 1
        if cr.checked:
            why = ("proved a statement whose negation Coq proved at "
                   f"{verdicts[cid]['witness']['point']}" if neg else
                   "refuted a statement Coq proved")
            for r in who[cid]:
                findings.append({**r, "why": f"{why} ({cr.coq_version}; "
                                 f"{', '.join(cr.assumptions) or 'no axioms'})"})
    return findings, dict(counts)


def full_text(stmt: Statement, cap: int = 800) -> str:
    """The statement with every conclusion (``str`` shows three)."""
    names = ", ".join(f"{v.symbol}:{v.domain}" for v in stmt.vars)
    hyp = ("; " + ", ".join(str(h) for h in stmt.hyps)) if stmt.hyps else ""
    body = " and ".join(str(r) for r in stmt.concl)
    text = f"{stmt.quant} {names}{hyp}: {body}" if stmt.vars or stmt.hyps or \
        stmt.quant == "exists" else body
    return text if len(text) <= cap else text[:cap] + " ..."


def node_kinds(stmt: Statement) -> list[str]:
    kinds = set()
    for r in stmt.concl + stmt.hyps:
        for e in (r.lhs, r.rhs):
            for s in sp.preorder_traversal(e):
                if isinstance(s, sp.Function | sp.Sum | sp.Product):
                    kinds.add(type(s).__name__)
    return sorted(kinds)


def run(cases: int, seed: int, only: list[str] | None = None, table: dict | None = None,
        progress=None, coq: bool = True) -> dict:
    """Run cases ``0 .. cases-1`` of ``seed``; returns the report (findings first).  ``coq``:
    the refuted statements are then tried in Coq (:func:`coq_judge`)."""
    from peproof.engines.wellformed import IllFormed

    table = table or engines()
    if only:
        table = {k: f for k, f in table.items() if k in only}
    counts: dict = collections.defaultdict(collections.Counter)
    families: collections.Counter = collections.Counter()
    findings, crashes, refutations, proofs = [], [], [], []
    old = signal.signal(signal.SIGALRM, _alarm)
    t0 = time.perf_counter()
    try:
        for k in range(cases):
            c = case(k, seed)
            families[c.family] += 1
            try:
                stmt = c.build()
            except ValueError as exc:  # a construction the claims model refuses (mat_eq)
                counts["construction"][f"refused: {str(exc)[:40]}"] += 1
                continue
            for name, fn in table.items():
                signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
                try:
                    v = fn(stmt)
                except IllFormed:
                    counts[name]["refused"] += 1
                    continue
                except _Timeout:
                    counts[name]["time-out"] += 1
                    crashes.append({"case": k, "engine": name, "statement": full_text(stmt),
                                    "error": f"time-out ({TIME_LIMIT:.0f} s)"})
                    continue
                except Exception as exc:  # noqa: BLE001 - a crash is reported with its case
                    counts[name]["crash"] += 1
                    crashes.append({"case": k, "engine": name, "statement": str(stmt),
                                    "error": f"{type(exc).__name__}: {exc}"[:300],
                                    "where": traceback.format_exc().splitlines()[-3][:200]})
                    continue
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                outcome, finding = judge(name, stmt, v, c.truth)
                counts[name][outcome] += 1
                about = {"case": k, "seed": seed, "family": c.family, "engine": name,
                         "verdict": v.status, "method": v.method, "statement": full_text(stmt),
                         "nodes": node_kinds(stmt), "note": c.note}
                if finding:
                    findings.append({**about, "srepr": sp.srepr(stmt.concl), **finding})
                elif outcome == "refuted":
                    refutations.append({**about, "stmt": stmt})
                elif outcome == "proved":
                    proofs.append({**about, "stmt": stmt})
            if progress:
                progress(k, findings, counts)
    finally:
        signal.signal(signal.SIGALRM, old)
    coq_counts: dict = {"not run": len(refutations)}
    if coq:
        from peproof.kernel.coq import run as coqrun

        if coqrun.coqc():
            found, coq_counts = coq_judge(refutations, proofs=proofs)
            for f in found:
                f.pop("stmt")
                counts[f["engine"]]["refuted, proved in Coq"] += 1
            findings += found
        else:
            coq_counts = {"coq not installed": len(refutations)}
    return {"seed": seed, "cases": cases, "seconds": round(time.perf_counter() - t0, 1),
            "coq_refuted": coq_counts,
            "families": dict(families), "verdicts": {k: dict(v) for k, v in counts.items()},
            "findings": findings, "classes": classes(findings), "crashes": crashes[:50],
            "crash_count": len(crashes)}


def classes(findings: list[dict]) -> dict:
    """Findings grouped by (engine, family, node kinds); the shortest statement of each."""
    out: dict = {}
    for f in findings:
        key = f"{f['engine']} | {f['family']} | {','.join(f['nodes']) or '-'}"
        cur = out.setdefault(key, {"count": 0, "shortest": f["statement"], "case": f["case"],
                                   "why": f["why"]})
        cur["count"] += 1
        if len(f["statement"]) < len(cur["shortest"]):
            cur.update(shortest=f["statement"], case=f["case"], why=f["why"])
    return out


if __name__ == "__main__":
    n_cases = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    run_seed = int(sys.argv[2]) if len(sys.argv) > 2 else 18
    out = Path(sys.argv[3]) if len(sys.argv) > 3 else None

    def show(k, found, counts):
        if k % 50 == 49:
            print(f"{k + 1} cases, {len(found)} wrong verdicts", flush=True)
            if out:
                out.write_text(json.dumps({"partial": k + 1, "findings": found,
                                           "classes": classes(found),
                                           "verdicts": {e: dict(c) for e, c in counts.items()}},
                                          indent=1))

    report = run(n_cases, run_seed, progress=show)
    text = json.dumps(report, indent=1)
    if out:
        out.write_text(text)
    print(json.dumps({k: report[k] for k in ("cases", "seconds", "verdicts", "coq_refuted",
                                             "classes", "crash_count")}, indent=1))
