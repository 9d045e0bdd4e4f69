"""What the Coq pass does to be fast must not change what it checks.

- A large statement is elaborated with ``Some`` read as ``@Some R`` (:func:`run.some_hint`):
  the same term, or no term at all -- a statement whose ``Some`` is not real does not
  elaborate and is not checked; the audit of a hinted statement still refuses a lemma of
  another statement.
- :func:`pe_conj` (lib/Tactics.v) builds its proof tree as a term: a false conjunct still
  fails the whole conjunction.
- The library's modules are compiled side by side: a module that does not compile is recorded,
  and so is every module that imports it; the others compile.

Speed itself is measured by benchmarks/bench_coq.py, never asserted here.
"""

from __future__ import annotations

import pytest

from peproof.kernel.coq import run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")


def _job(key, goal, script):
    return run.Job(key, key, goal, script)


def _big(n: int, atom: str) -> str:
    """``forall x : R, atom /\\ ... /\\ atom`` (``n`` copies)."""
    return "forall x : R, " + " /\\ ".join([atom] * n)


def test_the_hint_is_for_large_statements_without_a_boolean_some():
    real = _big(600, "oeq (osin (Some x)) (osin (Some x))")
    assert len(real) >= run.SOME_HINT_MIN and run.some_hint(real)
    assert not run.some_hint(real[:1000])  # small: as it is
    assert not run.some_hint(real + " /\\ oand (Some true) (Some true) = Some true")
    assert not run.some_hint(real + " /\\ Some  ( false ) = Some false")
    job = _job("h", real, "intros; repeat split")
    assert run.SOME_HINT in run.lemma_text(job)
    assert run.SOME_HINT not in run.lemma_text(_job("s", "forall x : R, x = x", "reflexivity"))


def test_a_cheap_kind_is_one_batch_and_a_costly_one_is_shared_evenly():
    cheap = [run.Job(f"p{i}", f"p{i}", "True", "exact I", frozenset({"pi"})) for i in range(6)]
    costly = [run.Job(f"c{i}", f"c{i}", "True", "exact I" + " " * 6000 * i) for i in range(30)]
    batches = run._make_batches(cheap + costly, 2, 150)
    kinds = [sorted(b.needs) for b in batches]
    assert kinds.count(["pi"]) == 1 and kinds.count([]) == 2
    loads = [sum(run._cost(j) for j in b.jobs) for b in batches if not b.needs]
    assert max(loads) - min(loads) <= max(run._cost(j) for j in costly)
    assert sorted(j.key for b in batches for j in b.jobs) == sorted(j.key for j in cheap + costly)


def test_a_batch_counts_the_audit_that_waits_for_it():
    """A small batch of CoqInterval's group goes before a larger small batch of the plain
    group: its audit (the walk of CoqInterval, ~7 s) waits for it and should run beside the
    rest, not after it.  By its own cost alone the plain batch would go first."""
    interval = [run.Job("i0", "i0", "True", "exact I", frozenset({"interval"}))]
    integral = [run.Job(f"g{i}", f"g{i}", "True", "exact I", frozenset({"integral"}))
                for i in range(8)]
    batches = run._make_batches(integral + interval, 2, 150)
    kinds = [sorted(b.needs) for b in batches]
    assert kinds == [["interval"], ["integral"]], kinds
    assert sum(map(run._cost, integral)) > sum(map(run._cost, interval))


@needs_coq
@pytest.mark.timeout(600)
def test_hinted_statements_mean_what_they_say(coq_worker_cache, monkeypatch):
    """Under the hint: a large real statement is checked; one whose ``Some`` holds an integer
    (``Some k``, ``k : Z``: no coercion to ``R``) does not elaborate, so is not checked; and a
    lemma of another statement is refused by the audit, which re-states the goal with the hint
    in a module of its own."""
    atom = "oeq (osin (ocos (osin (ocos (Some {v}))))) (osin (ocos (osin (ocos (Some {v})))))"
    ok = _big(250, atom.format(v="x"))
    ints = "forall k : Z, " + " /\\ ".join([atom.format(v="k")] * 250)
    wrong = _big(251, atom.format(v="x"))
    script = "intros; repeat split"
    original = run.lemma_text

    def sabotaged(job, n=None):  # the lemma proves another (true) statement than the goal
        if job.key == "wrong":
            job = run.Job(job.key, job.lemma, ok, job.script)
        return original(job, n)

    monkeypatch.setattr(run, "lemma_text", sabotaged)
    jobs = [_job("ok", ok, script), _job("ints", ints, script), _job("wrong", wrong, script)]
    assert all(run.some_hint(j.statement) for j in jobs)
    out = run.check_jobs(jobs, cache_dir=coq_worker_cache, use_cache=False, workers=1)
    assert out["ok"].status == "checked", out["ok"]
    assert out["ints"].status == "failed", out["ints"]
    assert out["wrong"].status == "failed" and "printed statement" in out["wrong"].reason, \
        out["wrong"]


@needs_coq
@pytest.mark.timeout(600)
def test_a_false_conjunct_fails_the_conjunction(coq_worker_cache):
    leaves = [f"x + {i} = {i} + x" for i in range(40)]
    true = "forall x y : R, " + " /\\ ".join(f"({a})" for a in leaves)
    false = "forall x y : R, " + " /\\ ".join(f"({a})" for a in leaves[:20] + ["x = y"]
                                              + leaves[20:])
    jobs = [_job("conj_true", true, "pe_auto"), _job("conj_false", false, "pe_auto")]
    out = run.check_jobs(jobs, cache_dir=coq_worker_cache, use_cache=False)
    assert out["conj_true"].status == "checked", out["conj_true"]
    assert out["conj_false"].status == "failed", out["conj_false"]


@needs_coq
@pytest.mark.timeout(600)
def test_a_module_that_does_not_compile_and_its_importers_are_recorded(tmp_path, monkeypatch):
    real = run.library_sources()
    broken = dict(real, Sem=real["Sem"] + "\nLemma broken : 1 = 2.\nProof. reflexivity. Qed.\n")
    monkeypatch.setattr(run, "library_sources", lambda: broken)
    lib = run.build_library(run.coqc(), run.coq_version(), tmp_path, workers=2)
    assert not lib.fault
    assert "Sem" in lib.errors and "Sem" not in lib.modules
    importers = {n for n in real if "Sem" in run._deps(real[n], real)}
    assert importers and all(
        lib.errors.get(n) == "a module it imports did not compile" for n in importers)
    assert {"Defs", "PE", "Tactics", "Check"} <= lib.modules
