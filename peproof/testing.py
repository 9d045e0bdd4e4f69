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
    if v.reason:
        lines.append(f"  reason: {v.reason}")
    if v.witness:
        lines.append(f"  witness: {v.witness}")
    lines += [f"  trace: {t}" for t in v.trace[-4:]]
    return "\n".join(lines)


def check_claim(claim: Claim) -> Verdict:
    """Assert the computed verdict matches the team's reading (refutations need a proved
    companion) and that no two engines conflict."""
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
