"""Helpers shared by ``pytest proofs`` and the meta-tests (importable, no pytest dependency)."""

from __future__ import annotations

from pathlib import Path

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


def _decide_one(claim: Claim) -> dict:
    """What :func:`_check_claim` reads of ``claim``: its verdict, its companion's when it is
    expected refuted, its agreement row (with its z3 verdict), decided as the test decides
    them (the falsification searches shared)."""
    from peproof import scope
    from peproof.agreement import row, z3_verdict
    from peproof.kernel.falsify import shared_searches as shared

    with shared():
        out = {"scope": scope.key(), "verdicts": {claim.id: verdict(claim.id)}}
        if claim.expect == "refuted" and claim.companion:
            out["verdicts"][claim.companion] = verdict(claim.companion)
        out["z3"], out["row"] = z3_verdict(claim.id), row(claim.id)
    return out


def _prime(claim_id: str, got: dict) -> None:
    from peproof import agreement, verdicts

    for cid, v in got["verdicts"].items():
        verdicts.prime(got["scope"], cid, v)
    agreement.prime(got["scope"], claim_id, got["z3"], got["row"])


#: seconds one claim's decision may take here before it is left to its test (where pytest's
#: time limit, 60 s, reports it): a decision that never ends must not hang the whole run
CLAIM_LIMIT = 60.0


class _OutOfTime(BaseException):
    """Not an ``Exception``: an engine's ``except Exception`` (a failure read as "unknown")
    must not swallow the time limit and turn it into a verdict (pytest-timeout's own failure
    is a ``BaseException`` for the same reason)."""


def _limited(fn, seconds: float):
    """``fn()`` stopped after ``seconds`` (SIGALRM, in the main thread only).  An alarm already
    set (pytest-timeout's, in a test) is kept: it fires at its own time, through its own
    handler, and is set again for what is left of it afterwards."""
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        return fn()
    old = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    before = signal.getitimer(signal.ITIMER_REAL)[0]

    def alarm(signum, frame):
        if before and time.monotonic() - t0 >= before - 1e-3 and callable(old):
            return old(signum, frame)
        raise _OutOfTime

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, before) if before else seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if before:
            signal.setitimer(signal.ITIMER_REAL, max(before - (time.monotonic() - t0), 1e-3))


#: seconds a child may still take after this process has decided its share (a claim's test has
#: 60 s): then it is stopped, and what it did not return is decided by the tests themselves
CHILD_GRACE = 60.0


def decide_ahead(claims: list[Claim], workers: int | None = None) -> dict:
    """Decide ``claims`` (what :func:`check_claim` reads: verdict, companion, agreement row) on
    ``workers`` processes -- this one and children forked from it, each taking the next claim
    as it finishes one -- and prime this process's caches with the children's results, so that
    ``pytest proofs`` asserts on verdicts computed beside each other on every core.

    The children run the same functions on the same registry (forked after it was built); a
    child's results come back pickled in a private temporary folder this process made, between
    processes of this run only.  A child that fails, dies or outlives :data:`CHILD_GRACE` costs
    time, never a verdict: a claim it did not return is decided in this process when its test
    asks for it (and a claim whose decision raised, or took over :data:`CLAIM_LIMIT`, is left to
    its test, where the error or the time-out is reported).  Returns the figures
    ``{"claims", "workers", "by_children"}``."""
    import os
    import pickle
    import shutil
    import signal
    import tempfile
    import time

    workers = min(workers or (os.cpu_count() or 1), len(claims))
    if workers < 2 or not hasattr(os, "fork"):
        return {"claims": len(claims), "workers": 1, "by_children": 0}
    import multiprocessing

    counter = multiprocessing.get_context("fork").Value("i", 0)

    mine: list[int] = []  # this process's current run of claims (each process its own copy)

    def take() -> int | None:
        """The next claim of this process: runs of neighbouring claims (one family's claims share
        their SymPy subexpressions, cached per process), long at first and single at the end
        (guided self-scheduling: a run is 1/(4 * workers) of what is left), so that both
        processes end together."""
        if not mine:
            with counter.get_lock():
                n = counter.value
                size = max(1, (len(claims) - n) // (4 * workers))
                counter.value = n + size
            mine.extend(range(n, min(n + size, len(claims))))
        return mine.pop(0) if mine else None

    folder = Path(tempfile.mkdtemp(prefix="peproof-ahead-"))
    children: list[int] = []
    try:
        for _ in range(workers - 1):
            pid = os.fork()
            if pid == 0:  # the child: decide, write each result, never return into pytest
                try:
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    while (n := take()) is not None:
                        try:
                            got = _limited(lambda n=n: _decide_one(claims[n]), CLAIM_LIMIT)
                            data = pickle.dumps((claims[n].id, got))
                        except (Exception, _OutOfTime):  # noqa: BLE001 - left to its test
                            continue
                        part = folder / f"{n}.part"
                        part.write_bytes(data)
                        part.rename(folder / f"{n}.pkl")
                finally:
                    os._exit(0)
            children.append(pid)
        while (n := take()) is not None:
            try:
                _limited(lambda n=n: _decide_one(claims[n]), CLAIM_LIMIT)
            except (Exception, _OutOfTime):  # noqa: BLE001 - left to the claim's test
                pass
        deadline = time.monotonic() + CHILD_GRACE
        running = set(children)
        while running and time.monotonic() < deadline:
            for pid in list(running):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    running.discard(pid)
            time.sleep(0.02)
        for pid in running:  # out of time: what it did not finish is left to the tests
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        children = []
        got = 0
        for f in folder.glob("*.pkl"):
            cid, data = pickle.loads(f.read_bytes())
            _prime(cid, data)
            got += 1
        return {"claims": len(claims), "workers": workers, "by_children": got}
    finally:
        for pid in children:  # interrupted: no child is left behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        shutil.rmtree(folder, ignore_errors=True)
