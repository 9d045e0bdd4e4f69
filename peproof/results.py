"""Run claims through the engines and collect the results in a versioned envelope.

The report and the CLI read this structure; nothing in it is typed by hand.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from pathlib import Path

from peproof import __version__, registry
from peproof.claims import Claim, Verdict
from peproof.evidence import counts, evidence

SCHEMA = "peproof.results/1"


def git_commit(root: Path | None = None) -> str:
    root = root or Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run_claim(claim: Claim, falsifiers: bool = True) -> dict:
    from peproof.agreement import row, row_of, z3_of
    from peproof.engines.decide import CONSTRUCTION, decide, refute
    from peproof.verdicts import verdict_of as verdict

    if registry.is_registered(claim):
        v = verdict(claim.id)
        agree = row(claim.id)
    else:  # a claim outside the registry (a user's: peproof.user), decided here, not cached
        from peproof.engines.wellformed import IllFormed
        from peproof.kernel.falsify import shared_searches

        with shared_searches():  # the primary and z3 gates search the same statement
            try:
                v = decide(claim)
                zv = z3_of(claim, v)
            except IllFormed as exc:  # in the user's language, outside the engines' fragment
                why = f"outside the fragment the engines decide: {exc}"
                v = Verdict("unknown", "none", "-", "well-formedness gate", reason=why)
                zv = Verdict("unknown", "z3", "-", "well-formedness gate", reason=why)
            agree = row_of(claim, v, zv)
    out = {
        "id": claim.id,
        "title": claim.title,
        "family": claim.family,
        "kind": claim.kind,
        "statement": str(claim.statement) if claim.statement is not None else None,
        "statement_latex": claim.statement.latex() if claim.statement is not None else None,
        "sources": [{"seed": s.seed, "section": s.section, "quote": s.quote}
                    for s in claim.sources],
        "uses": list(claim.uses),
        "expect": claim.expect,
        "companion": claim.companion,
        "note": claim.note,
        "verdict": v.as_dict(),
        "engines": dict(agree["cells"]),
        "settled_when_built": v.engine == CONSTRUCTION,
        "independently_confirmed": agree["confirmed"],
        "z3": agree["z3"].as_dict(),
        "conflict": agree["conflict"],
        "agrees_with_expectation": v.status == claim.expect,
        "falsifiers": [],
    }
    if falsifiers:
        for f in claim.falsifiers:
            fv = refute(f.statement)
            entry = {"name": f.name, "note": f.note, "statement": str(f.statement),
                     "verdict": fv.as_dict()}
            if agree["cells"]["z3"] not in ("n/a",):
                from peproof.engines.z3trig import decide_z3

                entry["z3_verdict"] = decide_z3(f.statement).as_dict()
            out["falsifiers"].append(entry)
    return out


def _agreement_counts(rows: list[dict]) -> dict:
    out: dict[str, int] = {}
    for r in rows:
        key = " / ".join(f"{k}={v}" for k, v in r["engines"].items())
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def run(claims: list[Claim], falsifiers: bool = True, progress=None, coq: bool = False,
        coq_dir: Path | None = None, recheck: bool = False) -> dict:
    """The envelope of ``claims``; with ``coq``, each row also gets its Coq check (``coq``:
    :meth:`peproof.kernel.coq.check.CoqResult.as_dict`), the ``.v`` files written to
    ``coq_dir``."""
    t0 = time.perf_counter()
    rows = []
    for n, c in enumerate(claims, 1):
        rows.append(run_claim(c, falsifiers))
        if progress:
            progress(n, len(claims), c.id)
    if coq:
        add_coq(rows, claims, coq_dir, recheck=recheck)
    return {
        "schema": SCHEMA,
        "suite_version": __version__,
        "commit": git_commit(),
        "platform": {"python": sys.version.split()[0], "machine": platform.machine(),
                     "system": platform.system()},
        "summary": summarize(rows, time.perf_counter() - t0),
        "claims": rows,
    }


def attach_evidence(rows: list[dict]) -> None:
    """Each row's ``evidence`` (:func:`peproof.evidence.evidence`), computed from the row as it
    stands (:func:`summarize` calls it: a row's ``coq`` entry comes after the engines' pass)."""
    for r in rows:
        r["evidence"] = evidence(r)


def add_coq(rows: list[dict], claims: list[Claim], coq_dir: Path | None = None,
            recheck: bool = False) -> dict:
    """Check the claims of ``rows`` in Coq (statement, or the negation of a refuted one at its
    witness) and store each result as ``row["coq"]``; returns the timing.  The result cache is
    authenticated with the user's key (``recheck``: not read at all)."""
    from peproof.guard.keys import user_key
    from peproof.kernel.coq.check import check_claims

    t0 = time.perf_counter()
    verdicts = {r["id"]: {"status": r["verdict"]["status"], "witness": r["verdict"]["witness"],
                          "engines": r.get("engines") or {},
                          "engine": r["verdict"].get("engine"),
                          "method": r["verdict"].get("method")} for r in rows}
    res = check_claims(claims, verdicts, build_dir=coq_dir, use_cache=not recheck,
                       key=user_key()[0])
    for r in rows:
        if r["id"] in res:
            d = res[r["id"]].as_dict()
            if d["vfile"] and coq_dir is not None:  # relative to the build folder: coq/x.v
                d["vfile"] = str(Path(d["vfile"]).relative_to(Path(coq_dir).parent))
            r["coq"] = d
    return {"seconds": time.perf_counter() - t0}


def coq_summary(rows: list[dict]) -> dict:
    """Counts of the Coq column (absent when no row was checked in Coq)."""
    cq = [r["coq"] for r in rows if r.get("coq")]
    if not cq:
        return {}
    checked = [c for c in cq if c["status"] == "checked in Coq"]
    return {
        "coq_checked": len(checked),
        "coq_checked_negation": sum(c["what"] == "negation" for c in checked),
        "coq_not_checked": sum(c["status"].startswith("not checked") for c in cq),
        "coq_absent": sum(c["status"] == "coq not installed" for c in cq),
        "coq_conflicts": [r["id"] for r in rows if (r.get("coq") or {}).get("conflict")],
        "coq_version": next((c["coq_version"] for c in checked), ""),
        "coq_seconds": round(sum(c["seconds"] for c in cq if not c["cached"]), 3),
    }


def gate_conflicts(rows: list[dict]) -> list[dict]:
    """``{"id", "engine", "said", "gate", "point"}`` for every verdict of ``rows`` carrying an
    engine conflict (``Verdict.conflict``)."""
    out = []
    for r in rows:
        found = [(r["id"], r["verdict"]), (f"{r['id']} (z3)", r.get("z3") or {})]
        found += [(f"{r['id']} / falsifier {f['name']}", f["verdict"]) for f in r["falsifiers"]]
        for name, v in found:
            c = v.get("conflict")
            if c:
                out.append({"id": name, "engine": c["engine"].get("engine"),
                            "said": c["engine"].get("status"), "gate": c.get("what", ""),
                            "point": c.get("point")})
    return out


def evidence_counts(rows) -> dict[str, int]:
    """``{level: claims}`` over ``rows`` (see :mod:`peproof.evidence`)."""
    return counts(list(rows))


def summarize(rows: list[dict], seconds: float) -> dict:
    """The summary of an envelope's claim rows (counts, falsifiers, disagreements, agreement,
    evidence); each row's ``evidence`` is (re)computed first (:func:`attach_evidence`)."""
    attach_evidence(rows)
    fals = [f for r in rows for f in r["falsifiers"]]
    built = [r["id"] for r in rows if r.get("settled_when_built")]
    proved = sum(r["verdict"]["status"] == "proved" for r in rows)
    return {
        "claims": len(rows),
        **{s: sum(r["verdict"]["status"] == s for r in rows)
           for s in ("proved", "refuted", "unknown")},
        # "proved" counts both; these split it: settled when built (identical sides as built,
        # engine "construction") vs decided by an engine, and how many a second engine confirmed
        "proved_by_construction": len(built),
        "proved_by_engine": proved - len(built),
        "settled_when_built": built,
        "independently_confirmed": sum(bool(r.get("independently_confirmed")) for r in rows),
        # exponential proofs re-checked by the second kernel (FLINT) from their certificates
        "kernel_rechecked_claims": sum(r["verdict"]["status"] == "proved"
                                       and bool(r["verdict"].get("certificates")) for r in rows),
        "kernel_certificates": sum(len(r["verdict"].get("certificates") or ())
                                   for r in rows if r["verdict"]["status"] == "proved"),
        "falsifiers": len(fals),
        "falsifiers_refuted": sum(f["verdict"]["status"] == "refuted" for f in fals),
        "disagreements": [r["id"] for r in rows if not r["agrees_with_expectation"]],
        "conflicts": [r["id"] for r in rows if r["conflict"]],
        # verdicts the falsification gate met with a certified point against them (the claim's,
        # its z3 cell's, a falsifier's): each an engine conflict, never a proof
        "gate_conflicts": gate_conflicts(rows),
        "engine_agreement": _agreement_counts(rows),
        # the strongest evidence of each verdict (peproof.evidence): every level, zeros too;
        # "evidence_proved" / "evidence_refuted" split the counts by verdict
        "evidence": evidence_counts(rows),
        "evidence_proved": evidence_counts(r for r in rows if r["verdict"]["status"] == "proved"),
        "evidence_refuted": evidence_counts(r for r in rows
                                            if r["verdict"]["status"] == "refuted"),
        "seconds": round(seconds, 3),
        **coq_summary(rows),
    }


def all_results(pattern: str | None = None, falsifiers: bool = True, progress=None) -> dict:
    return run(registry.select(pattern), falsifiers, progress)
