"""``pytest proofs`` decides its claims ahead on every core (peproof.testing.decide_ahead): the
verdicts a forked child returns are the ones this process computes, they are used (not decided
again), and a child that dies, hangs or fails on a claim costs time, never a verdict."""

from __future__ import annotations

import contextlib
import os
import time

import psutil
import pytest

from peproof import agreement, registry, testing, verdicts

# a slice across the families: proved, refuted (with companions) and unknown claims
SAMPLE = [c for n, c in enumerate(registry.all_claims()) if n % 9 == 0]


@pytest.fixture
def fresh(monkeypatch):
    """Empty verdict caches before and after (other tests of this worker keep theirs)."""
    verdicts.verdict_of.cache_clear()
    agreement.z3_verdict.cache_clear()
    agreement.row.cache_clear()
    yield
    verdicts.verdict_of.cache_clear()
    agreement.z3_verdict.cache_clear()
    agreement.row.cache_clear()


def _summary(cid: str) -> tuple:
    v = verdicts.verdict_of(cid)
    r = agreement.row(cid)
    return (v.status, v.engine, v.method, repr(v.witness), r["cells"], r["conflict"],
            r["z3"].status)


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_children_return_the_verdicts_this_process_computes(fresh, monkeypatch):
    assert len(SAMPLE) >= 25 and {c.expect for c in SAMPLE} >= {"proved", "refuted"}
    before = _children()
    figures = testing.decide_ahead(SAMPLE, workers=2)
    assert figures["workers"] == 2 and figures["by_children"] > 0, figures
    assert _children() <= before, "a child was left running"
    primed = {cid for _, cid in verdicts._PRIMED}
    assert len(primed) >= figures["by_children"]
    # the primed verdicts are read, not decided again
    calls = []
    real = verdicts.decide
    monkeypatch.setattr(verdicts, "decide", lambda c: calls.append(c.id) or real(c))
    ahead = {c.id: _summary(c.id) for c in SAMPLE}
    assert not set(calls) & primed, set(calls) & primed
    monkeypatch.undo()
    # the same claims decided here, one after the other
    verdicts.verdict_of.cache_clear()
    agreement.z3_verdict.cache_clear()
    agreement.row.cache_clear()
    here = {c.id: _summary(c.id) for c in SAMPLE}
    assert ahead == here


def _in_children(monkeypatch, act) -> None:
    """The children's decisions replaced by ``act()`` (this process decides as before)."""
    parent = os.getpid()
    real = testing._decide_one

    def decide(claim):
        if os.getpid() != parent:
            act()
        return real(claim)

    monkeypatch.setattr(testing, "_decide_one", decide)


def test_a_child_that_dies_costs_no_verdict(fresh, monkeypatch):
    _in_children(monkeypatch, lambda: os._exit(9))
    before = _children()
    figures = testing.decide_ahead(SAMPLE[:8], workers=2)
    assert figures["by_children"] == 0 and _children() <= before
    monkeypatch.undo()
    assert all(verdicts.verdict_of(c.id).status == c.expect for c in SAMPLE[:8])


def test_a_child_that_hangs_is_stopped_after_its_grace(fresh, monkeypatch):
    _in_children(monkeypatch, lambda: time.sleep(120))
    monkeypatch.setattr(testing, "CHILD_GRACE", 1.0)
    before = _children()
    t0 = time.monotonic()
    figures = testing.decide_ahead(SAMPLE[:6], workers=2)
    assert time.monotonic() - t0 < 30
    assert figures["by_children"] == 0 and _children() <= before


def test_a_decision_that_raises_is_left_to_its_test(fresh, monkeypatch):
    bad = SAMPLE[3].id
    real = testing._decide_one

    def failing(claim):
        if claim.id == bad:
            raise RuntimeError("an engine's bug")
        return real(claim)

    monkeypatch.setattr(testing, "_decide_one", failing)
    figures = testing.decide_ahead(SAMPLE[:10], workers=2)
    assert figures["by_children"] <= 9
    assert bad not in {cid for _, cid in verdicts._PRIMED}
    assert bad not in {cid for _, cid in agreement._PRIMED_ROWS}


class _StillRunning(BaseException):
    """Not an ``Exception``: the deciding's ``except Exception`` must not swallow it."""


@contextlib.contextmanager
def _watchdog(seconds: float):
    """Raise :class:`_StillRunning` in the block after ``seconds`` (SIGALRM), as the test's own
    failure: an alarm already set (pytest-timeout's) is set again afterwards for what is left
    of it.  Under ``_limited`` this is the outer alarm it keeps."""
    import signal

    def bark(signum, frame):
        raise _StillRunning(f"still running after {seconds} s: the claim limit did not stop "
                            "the endless decision")

    before = signal.getitimer(signal.ITIMER_REAL)[0]
    old = signal.signal(signal.SIGALRM, bark)
    t0 = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if before:
            signal.setitimer(signal.ITIMER_REAL, max(before - (time.monotonic() - t0), 1e-3))


def test_a_decision_that_never_ends_is_left_to_its_test(fresh, monkeypatch):
    """Decided in its test, a claim whose decision never ends meets pytest's time limit; decided
    ahead, it is stopped after CLAIM_LIMIT and left to its test (the run goes on).  Five of the
    six claims never end, so this process meets one whichever claims the child takes (a child
    stuck without its limit is only stopped after its grace: this process's limit is the one a
    mutant could lose unseen)."""
    stuck = {c.id for c in SAMPLE[:5]}
    real = testing._decide_one

    def endless(claim):
        if claim.id in stuck:
            while True:
                time.sleep(0.05)
        return real(claim)

    monkeypatch.setattr(testing, "_decide_one", endless)
    monkeypatch.setattr(testing, "CLAIM_LIMIT", 1.0)
    monkeypatch.setattr(testing, "CHILD_GRACE", 5.0)
    t0 = time.monotonic()
    with _watchdog(25.0):  # without the claim limit the decision never ends: fail, not hang
        testing.decide_ahead(SAMPLE[:6], workers=2)
    assert time.monotonic() - t0 < 30
    assert not stuck & {cid for _, cid in agreement._PRIMED_ROWS}


def test_the_claim_limit_stops_a_decision_and_keeps_pytests_own_alarm():
    """``_limited`` stops an endless call after its limit, and pytest-timeout's alarm (set for
    this test) is set again afterwards for what is left of it."""
    import signal

    before = signal.getitimer(signal.ITIMER_REAL)[0]
    t0 = time.monotonic()
    with pytest.raises(testing._OutOfTime):
        testing._limited(lambda: time.sleep(120), 1.0)
    assert time.monotonic() - t0 < 10
    assert testing._limited(lambda: 7, 1.0) == 7
    after = signal.getitimer(signal.ITIMER_REAL)[0]
    assert (after > 0) == (before > 0), (before, after)


def test_the_claim_limit_is_not_swallowed_by_an_engines_except_exception():
    """An engine that reads any ``Exception`` as "unknown" must not turn the time limit into a
    verdict (which the caches would then keep): the limit passes through it."""
    def engine():
        try:
            time.sleep(120)
        except Exception:  # noqa: BLE001 - what an engine's fallback does
            return "unknown"
        return "proved"

    with pytest.raises(testing._OutOfTime):
        testing._limited(engine, 1.0)


def test_the_suite_decides_ahead_when_it_runs_and_not_when_it_only_lists(monkeypatch):
    """``proofs/conftest.py`` starts the deciding after collection for a run of the suite, but
    not for ``--collect-only`` (a listing: nothing is decided) nor on an xdist worker."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location(
        "proofs_conftest_under_test", registry.__file__.replace(
            "peproof/registry.py", "proofs/conftest.py"))
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    called = []
    monkeypatch.setattr(testing, "decide_ahead", lambda claims, workers: called.append(claims))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PEPROOF_PROOFS_WORKERS", raising=False)
    items = [SimpleNamespace(callspec=SimpleNamespace(params={"claim": c})) for c in SAMPLE]
    assert len(items) >= conftest.MIN_CLAIMS

    def session(collectonly):
        return SimpleNamespace(items=items, config=SimpleNamespace(
            option=SimpleNamespace(collectonly=collectonly)))

    conftest._decide_ahead(session(True))
    assert called == []
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    conftest._decide_ahead(session(False))
    assert called == []
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    conftest._decide_ahead(session(False))
    assert called == [SAMPLE]


def test_each_process_takes_runs_of_neighbouring_claims(tmp_path, monkeypatch):
    """Claims are handed out in runs of neighbours (one family's claims share their SymPy
    subexpressions, and each process caches its own): each take is an eighth of what is left
    with two processes, down to single claims at the end, so the claims each process decided
    form few runs of neighbours, and every claim is decided exactly once.  (One claim at a time to
    each process cost about a second of CPU in ``pytest proofs``, every family's cache warmed
    in both processes.)"""
    claims = registry.all_claims()[:64]
    log = tmp_path / "log"

    def decide(claim):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {claims.index(claim)}\n")
        time.sleep(0.01)
        return {}

    monkeypatch.setattr(testing, "_decide_one", decide)
    monkeypatch.setattr(testing, "_prime", lambda cid, got: None)
    figures = testing.decide_ahead(claims, workers=2)
    rows = [line.split() for line in log.read_text().splitlines()]
    done = sorted(int(n) for _, n in rows)
    assert done == list(range(64)), done
    by_pid: dict = {}
    for pid, n in rows:
        by_pid.setdefault(pid, []).append(int(n))
    assert len(by_pid) == 2 and figures["by_children"] > 0, by_pid
    # the takes: an eighth of what is left each time (8, 7, 6, 5, 4, 4, 3, ...), 27 for 64
    # claims; a process's claims form at most that many runs of neighbours, whatever the
    # interleaving (runs taken back to back merge); one claim at a time makes about 64
    left, takes = 64, 0
    while left:
        left -= max(1, left // 8)
        takes += 1
    runs = sum(1 + sum(b != a + 1 for a, b in zip(order, order[1:], strict=False))
               for order in by_pid.values())
    assert runs <= takes == 27, (runs, by_pid)
