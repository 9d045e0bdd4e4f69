"""Helpers shared by ``pytest proofs`` and the meta-tests (importable, no pytest dependency)."""

from __future__ import annotations

from peproof import registry
from peproof.claims import Claim, Verdict
from peproof.verdicts import verdict_of as verdict  # noqa: F401 - re-exported


def failure_message(claim: Claim, v: Verdict, expected: str) -> str:
    lines = [
        f"claim {claim.id}: expected {expected}, got {v.status}",
        f"  statement: {claim.statement}",
        f"  engine: {v.engine} ({v.method}), {v.seconds:.3f}s",
    ]
    lines += evidence_lines(claim)
    if v.reason:
        lines.append(f"  reason: {v.reason}")
    if v.witness:
        lines.append(f"  witness: {v.witness}")
    lines += [f"  trace: {t}" for t in v.trace[-4:]]
    return "\n".join(lines)


def evidence_lines(claim: Claim) -> list[str]:
    """The claim's evidence level (:mod:`peproof.evidence`) and Coq status, for a failure
    message: the claim's result row, with its Coq check run for it (only when a test fails)."""
    from peproof.evidence import evidence
    from peproof.results import add_coq, run_claim

    try:
        row = run_claim(claim, falsifiers=False)
    except Exception as exc:  # noqa: BLE001 - a message must not hide the failure it reports
        return [f"  evidence: not computed ({type(exc).__name__}: {exc})"]
    try:  # the claim's own Coq check (cached by content; "coq not installed" without coqc)
        add_coq([row], [claim])
    except Exception as exc:  # noqa: BLE001
        row["coq"] = {"status": f"Coq not run ({type(exc).__name__}: {exc})"}
    ev = evidence(row)
    out = [f"  evidence: {ev['level']}" + (f" ({ev['why']})" if ev["why"] else ""),
           f"  Coq: {ev['coq']}"]
    if ev["witness"]:
        out.append(f"  certified witness: {ev['witness']}")
    return out


def check_claim(claim: Claim) -> Verdict:
    """Assert the computed verdict matches the team's reading (refutations need a proved
    companion) and that no two engines conflict.  The falsification searches of the claim's
    engines are made once per statement (:func:`peproof.kernel.falsify.shared_searches`)."""
    from peproof.kernel.falsify import shared_searches

    with shared_searches():
        return _check_claim(claim)


def _check_claim(claim: Claim) -> Verdict:
    v = verdict(claim.id)
    assert v.status == claim.expect, failure_message(claim, v, claim.expect)
    if claim.expect == "refuted":
        assert v.witness, f"claim {claim.id}: refuted without a certified witness"
        assert claim.companion, f"claim {claim.id}: refuted but names no corrected companion"
        comp = registry.get(claim.companion)
        cv = verdict(comp.id)
        expected = f"proved (companion of {claim.id})"
        assert cv.status == "proved", failure_message(comp, cv, expected)
    from peproof.agreement import row

    r = row(claim.id)
    assert not r["conflict"], (
        f"claim {claim.id}: ENGINES DISAGREE {r['cells']}\n"
        + failure_message(claim, r["z3"], "no conflict with " + v.status)
    )
    return v
