"""The Coq pass's parts (peproof/kernel/coq/run.py, check.py): audits shared by the batches of
a pass, the library compiled while the claims are planned, and the planner's shortcuts.

* Every compiled batch is audited, but not one coqc run each: the lemmas resting on
  CoqInterval in one audit, the others in another (one with a single worker), each goal read
  where only its meaning modules are imported.  A lemma that does not prove its printed goal,
  or one resting on an axiom, fails alone, whichever batch it came from.
* ``check_claims`` starts the library's build before it plans (the build is coqc's work on
  the other core); a fault or an interrupt while planning stops the build: no coqc left
  running, nothing installed.
* ``more_scripts._varies`` spares SymPy's ``trigsimp`` only the sums it can see are not
  constant: the constant ones still get their guess.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
import sympy as sp

from peproof import registry
from peproof.kernel.coq import check, more_scripts, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

PLAIN = "forall x : R, x + 0 = x"
#: a goal of the CoqInterval kind (its batch imports CoqInterval and Decay, its audit Decay)
INTERVAL = "forall x : R, 0 <= x <= 1 -> x * x <= 2"


def _job(key, goal=PLAIN, script="intros; ring", needs=frozenset()):
    return run.Job(key, key, goal, script, frozenset(needs))


def _jobs(interval: bool = True):
    """Jobs of three kinds (plain, Round, CoqInterval), or two without CoqInterval: each
    audit of CoqInterval's lemmas walks its library (~5 s)."""
    return [_job("p1"), _job("p2", script="intros; ring" + " "),
            _job("r1", "forall x : R, x * 1 = x", "intros; ring", {"round"}),
            _job("r2", "forall x : R, 1 * x = x", "intros; ring", {"round"})] + ([
            _job("i1", INTERVAL, "intros x [H1 H2]; interval", {"interval"}),
            _job("i2", INTERVAL, "intros x H; nra" + " ", {"interval"})] if interval else [])


def _counting(monkeypatch) -> list:
    """The files coqc compiles (batches and audits), in the order they are compiled."""
    seen = []
    real = run._coqc

    def coqc(exe, lib, workdir, path):
        seen.append(path.stem)
        return real(exe, lib, workdir, path)

    monkeypatch.setattr(run, "_coqc", coqc)
    return seen


@needs_coq
@pytest.mark.parametrize("workers, interval, audits", [(1, False, 1), (2, True, 2)])
def test_batches_of_every_kind_share_their_audits(coq_worker_cache, monkeypatch, workers,
                                                   interval, audits):
    """Batches of two kinds (plain, Round) with one worker: one audit run; of three (and
    CoqInterval's) with two: two runs, CoqInterval's and the rest.  Every lemma checked, each
    with the union's assumptions of its own audit."""
    seen = _counting(monkeypatch)
    jobs = _jobs(interval)
    out = run.check_jobs(jobs, cache_dir=coq_worker_cache, use_cache=False, workers=workers)
    assert {k: o.status for k, o in out.items()} == dict.fromkeys(
        (j.key for j in jobs), "checked"), out
    ran = [s for s in seen if "audit" in s]
    assert len(ran) == audits, seen
    assert len([s for s in seen if s.startswith("batch")]) == len({j.needs for j in jobs}), seen
    assert out["p1"].scope == out["r1"].scope == "batch of 4", out["p1"].scope
    if interval:  # the plain and Round lemmas audited without CoqInterval's axioms
        assert any(a.startswith("FloatAxioms") for a in out["i1"].assumptions)
        assert not any(a.startswith("FloatAxioms") for a in out["p1"].assumptions)


SABOTAGE = {
    # a lemma proving another statement than the one printed (the audit's type check)
    "p2": "Theorem {n} : forall x : R, x = x.\nProof. reflexivity. Qed.\n",
    # a lemma resting on an axiom (Print Assumptions of the union), in the second batch
    "r2": "Axiom cheat : False.\nTheorem {n} :\n{g}.\nProof. exfalso; exact cheat. Qed.\n",
}


@needs_coq
def test_a_sabotaged_lemma_fails_alone_in_a_shared_audit(coq_worker_cache, monkeypatch):
    """Both sabotages audited in one run with honest lemmas of two kinds: the wrong statement
    (the plain batch) and the axiom (the Round batch, not the audit's first lemma) each fail,
    and every honest lemma stays checked."""
    original = run.lemma_text

    def sabotaged(job, n=None):
        if job.key in SABOTAGE:
            return SABOTAGE[job.key].format(n=job.lemma, g=job.goal)
        return original(job, n)

    monkeypatch.setattr(run, "lemma_text", sabotaged)
    out = run.check_jobs(_jobs(False), cache_dir=coq_worker_cache, use_cache=False, workers=1)
    assert out["p2"].status == "failed" and "printed statement" in out["p2"].reason, out["p2"]
    assert out["r2"].status == "failed" and "cheat" in out["r2"].reason, out["r2"]
    for k in ("p1", "r1"):
        assert out[k].status == "checked", (k, out[k])


@needs_coq
def test_the_library_compiles_while_the_claims_are_planned(tmp_path, monkeypatch):
    """The first claim's planning waits for the library's build to have started: were the
    library built after the planning (as before), it would wait in vain; and the batches use
    that build, not one of their own."""
    started = threading.Event()
    real_build, real_plan = run.build_library, check.plan
    waited = []

    builds = []

    def build_library(*args, **kwargs):
        builds.append(args)
        started.set()
        return real_build(*args, **kwargs)

    def plan(claim, verdict):
        if not waited:
            waited.append(started.wait(30))
        return real_plan(claim, verdict)

    monkeypatch.setattr(run, "build_library", build_library)
    monkeypatch.setattr(check, "plan", plan)
    claims = [registry.get("rotation.sin_angle_addition")]
    out = check.check_claims(claims, cache_dir=tmp_path)
    assert waited == [True]
    assert len(builds) == 1, builds  # the batches use the library built ahead
    assert out["rotation.sin_angle_addition"].status == check.CHECKED, out


@needs_coq
@pytest.mark.coq_compiles
@pytest.mark.parametrize("fault", [RuntimeError, KeyboardInterrupt])
def test_a_fault_while_planning_stops_the_library_build(tmp_path, monkeypatch, fault):
    """Planning fails (a bug, an interrupt) while coqc compiles the library: the exception
    goes on, no coqc of the build is left running and no library is installed (the next run
    builds it whole)."""
    real_plan = check.plan
    pids = []

    def plan(claim, verdict):
        deadline = time.monotonic() + 60
        while not run._LIVE and time.monotonic() < deadline:
            time.sleep(0.05)
        with run._LIVE_LOCK:
            pids.extend(p.pid for p in run._LIVE)
        real_plan(claim, verdict)
        raise fault("planning stopped")

    monkeypatch.setattr(check, "plan", plan)
    with pytest.raises(fault):
        check.check_claims([registry.get("rotation.sin_angle_addition")], cache_dir=tmp_path)
    assert pids, "the library was not being compiled while planning"
    assert not run._LIVE
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    time.sleep(0.5)  # nothing goes on in the background
    assert not list(tmp_path.glob("lib-*")), list(tmp_path.iterdir())
    assert not list(tmp_path.glob("lib-build-*")), list(tmp_path.iterdir())


def test_constant_sums_keep_their_guess_and_varying_ones_skip_trigsimp(monkeypatch):
    """``_varies`` (the cheap test before trigsimp) never calls a constant summand varying --
    else the sum's constant is lost and its Coq script with it -- and does call the sums of
    the encoding's products varying (their trigsimp took most of a second of planning)."""
    i, d, n = sp.symbols("i d n", integer=True, positive=True)
    pos, k, x = sp.symbols("pos k x", real=True)
    w = 10000 ** (-2 * i / d)
    constant = [sp.sin(pos * w) ** 2 + sp.cos(pos * w) ** 2,
                sp.sin(2 ** i * sp.pi * x) ** 2 + sp.cos(2 ** i * sp.pi * x) ** 2,
                (sp.sin(pos * w) ** 2 + sp.cos(pos * w) ** 2) * 3,
                sp.cos(k) ** 2 + sp.sin(k) ** 2 - 2]
    varying = [sp.sin(pos * w) * sp.sin((pos + k) * w) + sp.cos(pos * w) * sp.cos((pos + k) * w),
               (sp.sin(pos * w) - sp.sin((k + pos) * w)) ** 2
               + (sp.cos(pos * w) - sp.cos((k + pos) * w)) ** 2]
    for f in constant:
        assert not more_scripts._varies(f), f
    # constant only where its assumptions hold (k odd): sampled off its parity, it would vary
    odd = sp.Symbol("k", integer=True, odd=True, positive=True)
    assert not more_scripts._varies(2 * sp.floor(odd / 2) - odd + sp.sin(x) ** 2
                                    + sp.cos(x) ** 2)
    for f in varying:
        assert more_scripts._varies(f), f
    calls = []
    real = sp.trigsimp
    monkeypatch.setattr(more_scripts.sp, "trigsimp", lambda e: calls.append(e) or real(e))
    for f, c in zip(constant, (1, 1, 3, -1), strict=True):
        assert more_scripts.constant_summand([sp.Sum(f, (i, 0, n))]) == c, f
    assert more_scripts.constant_summand([sp.Sum(f, (i, 0, n)) for f in varying]) is None
    assert len(calls) == len(constant)  # the varying sums never reached trigsimp
