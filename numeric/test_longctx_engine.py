"""The chunk engine: same certified result on every engine, chunking and order; a killed Dask
worker; checkpoints (stale ones never reused); refused foreign code."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from concurrent.futures import Executor, Future

import pytest

from peproof.numeric import checkpoint, engine, scan
from peproof.numeric.engine import RunConfig, run_chunks
from peproof.numeric.separation import certify

D, N, CHUNK = 256, 400_000, 1 << 16  # 7 chunks of a few tens of ms


@pytest.fixture(scope="module")
def reference():
    return certify(D, N, chunk=CHUNK, run=RunConfig(engine="inline"))


@pytest.fixture(scope="module")
def cluster():
    """One local Dask cluster of 2 worker processes for the tests of this module."""
    distributed = pytest.importorskip("distributed")
    from peproof.numeric.distributed import local_cluster

    with local_cluster(2) as lc, distributed.Client(lc) as client:
        yield lc, client


def _same_run(a, b):
    """Everything but the timing and engine: bit-identical for the same chunking."""
    da, db = a.as_dict(), b.as_dict()
    return {k: (da[k], db[k]) for k in da if k not in ("seconds", "run") and da[k] != db[k]}


class ReversedExecutor(Executor):
    """Runs jobs in reverse submission order (as a cluster may finish them)."""

    def __init__(self):
        self.queue = []

    def submit(self, fn, *args):
        f = Future()
        self.queue.append((f, fn, args))
        if len(self.queue) == self.expected:
            for fut, g, a in reversed(self.queue):
                fut.set_result(g(*a))
        return f


def test_pool_dask_and_reversed_order_agree_bit_for_bit(reference, cluster):
    _, client = cluster
    pool = certify(D, N, chunk=CHUNK, run=RunConfig(engine="pool", workers=2))
    dask = certify(D, N, chunk=CHUNK, run=RunConfig(client=client))
    rev = ReversedExecutor()
    rev.expected = reference.chunks
    backwards = certify(D, N, chunk=CHUNK, run=RunConfig(executor=rev))
    assert dask.run["engine"] == "dask" and pool.run["engine"] == "pool"
    for other in (pool, dask, backwards):
        assert _same_run(reference, other) == {}, other.run
    # another chunking: the float bound and candidate count change, the mathematics does not
    other = certify(D, N, chunk=99_991, run=RunConfig(client=client))
    assert other.chunks != reference.chunks and other.certified() == reference.certified()


def test_scheduler_address_from_the_command_line(cluster, capsys):
    from peproof.cli import main

    lc, _ = cluster
    assert main(["separation", "--d", "64", "--max-pos", "3e5", "--chunk", "65536",
                 "--scheduler", lc.scheduler_address, "--json", "--no-confirm"]) == 0
    run = json.loads(capsys.readouterr().out)["results"][0]["separation"]["run"]
    assert run["engine"] == "dask" and lc.scheduler_address in run["where"], run


def test_merge_in_completion_order_would_differ(reference, monkeypatch):
    """The check above can fail: a merge fed chunks in the order they finished (here reversed)
    would report a later first decrease of D (it did, silently, before the final
    re-certification); now the re-certification finds the decrease the merge missed and stops
    with an internal error instead of a wrong result."""
    real = engine.run_chunks

    def completion_order(*args, **kw):
        value, info = real(*args, **kw)
        return value[::-1], info

    monkeypatch.setattr("peproof.numeric.separation.run_chunks", completion_order)
    with pytest.raises(RuntimeError, match="final re-certification: D\\(25\\) < D\\(24\\)"):
        certify(D, N, chunk=CHUNK, run=RunConfig(engine="inline"))
    assert reference.first_decrease == 24


def test_killed_worker_costs_only_its_chunks(cluster):
    """SIGKILL a worker process that is running a chunk; Dask reschedules its work and the
    result is bit-identical to the undisturbed inline run."""
    _, client = cluster
    d, chunk = 1024, 1 << 15  # 13 chunks of ~0.1 s
    client.wait_for_workers(2)
    killed = {}

    def kill_busy_worker(done, total):
        if killed or done >= total:
            return
        # one snapshot of the scheduler's assignments: asked again after ``client.run``, the
        # busy worker may have finished its chunk meanwhile (this read 0 tasks under load)
        processing = client.processing()
        busy = [w for w, keys in processing.items() if keys]
        pids = client.run(os.getpid)
        if busy:
            killed.update(pid=pids[busy[0]], done=done, total=total,
                          tasks=len(processing[busy[0]]))
            os.kill(killed["pid"], signal.SIGKILL)

    sep = certify(d, N, chunk=chunk, run=RunConfig(client=client, callback=kill_busy_worker))
    assert killed, "no worker was busy when the first chunk finished"
    assert killed["done"] < killed["total"] and killed["tasks"] >= 1
    with pytest.raises(ProcessLookupError):
        os.kill(killed["pid"], 0)
    assert sep.run["computed"] == sep.chunks
    calm = certify(d, N, chunk=chunk, run=RunConfig(engine="inline"))
    assert _same_run(calm, sep) == {}  # bit for bit, float bound and candidates included


def test_checkpoint_resume_and_staleness(tmp_path, reference, monkeypatch):
    cfg = RunConfig(engine="inline", checkpoint=tmp_path, keep_checkpoint=True)
    first = certify(D, N, chunk=CHUNK, run=cfg)
    folder = first.run["checkpoint"]
    files = sorted(os.listdir(folder))
    assert len([f for f in files if f.startswith("chunk-")]) == first.chunks
    again = certify(D, N, chunk=CHUNK, run=cfg)
    assert again.run["resumed"] == first.chunks and again.run["computed"] == 0
    assert _same_run(reference, again) == {}
    # another N, another chunking, other code: another fingerprint, nothing reused
    assert certify(D, N + 1, chunk=CHUNK, run=cfg).run["resumed"] == 0
    assert certify(D, N, chunk=CHUNK + 1, run=cfg).run["resumed"] == 0
    monkeypatch.setattr(checkpoint, "code_version", lambda: "0" * 64)
    monkeypatch.setattr(engine, "code_version", lambda: "0" * 64)
    assert certify(D, N, chunk=CHUNK, run=cfg).run["resumed"] == 0


def test_corrupt_or_foreign_chunk_files_are_recomputed(tmp_path):
    jobs = [{"d": 8, "family": "paper", "base": "10000", "a": a, "b": a + 100,
             "adj": (0.0, 1.0)} for a in range(1, 1000, 100)]
    ck = checkpoint.Checkpoint(tmp_path, scan.scan_chunk, jobs)
    ck.open()
    for i in (0, 1):
        ck.save(i, engine.call(scan.scan_chunk, jobs[i])["result"])
    (ck.dir / "chunk-000002.json").write_text('{"fingerprint": "')  # torn write
    rec = (ck.dir / "chunk-000001.json").read_text().replace(ck.fp, "f" * 64)
    (ck.dir / "chunk-000003.json").write_text(rec)  # another scan's record
    (ck.dir / ".chunk-000004.json.abc.tmp").write_text("{")  # a temp file left by a kill
    again = checkpoint.Checkpoint(tmp_path, scan.scan_chunk, jobs)
    done = again.open()
    assert sorted(done) == [0, 1] and again.ignored == 2
    assert not list(again.dir.glob(".*.tmp"))


def test_results_from_other_code_are_refused(monkeypatch):
    monkeypatch.setattr(engine, "call", lambda fn, job: {"code": "x" * 64, "result": fn(job)})
    with pytest.raises(RuntimeError, match="other peproof code"):
        run_chunks(abs, [1, -2], config=RunConfig(engine="inline"))


def test_auto_engine_choice():
    cfg = RunConfig()
    assert engine.choose(cfg, 1, 1e6) == "inline"
    assert engine.choose(cfg, 8, 1.0) == "pool"
    assert engine.choose(cfg, 8, 10 * engine.DASK_THRESHOLD) == "dask"
    assert engine.choose(RunConfig(scheduler="tcp://127.0.0.1:1"), 1, None) == "dask"
    assert engine.choose(RunConfig(workers=1), 8, 1e6) == "inline"
    with pytest.raises(ValueError, match="engine must be"):
        engine.choose(RunConfig(engine="spark"), 2, 1.0)


def test_sigterm_interrupts_and_leaves_a_resumable_checkpoint(tmp_path, reference):
    """SIGTERM in the middle of an inline scan: Interrupted with the chunks saved so far;
    the rerun computes only the rest and ends in the same result."""
    cfg = RunConfig(engine="inline", checkpoint=tmp_path, keep_checkpoint=True,
                    callback=lambda done, total: done == 3 and os.kill(os.getpid(),
                                                                        signal.SIGTERM))
    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(engine.Interrupted, match="3 of 7 chunks saved") as exc:
        certify(D, N, chunk=CHUNK, run=cfg)
    assert signal.getsignal(signal.SIGTERM) is before  # handler restored
    assert exc.value.done == 3
    t0 = time.perf_counter()
    rest = certify(D, N, chunk=CHUNK, run=RunConfig(engine="inline", checkpoint=tmp_path))
    assert rest.run["resumed"] == 3 and rest.run["computed"] == 4, time.perf_counter() - t0
    assert _same_run(reference, rest) == {}
    assert list(tmp_path.iterdir()) == []  # the checkpoint is removed after success


def test_horizon_recipes_run_as_chunk_jobs():
    """The horizon scans are engine jobs too: a process pool gives the rows of the inline run
    (a job that lost a parameter on the way, e.g. the certified delta/2, would differ)."""
    from peproof.numeric.horizon import horizons

    kw = dict(dtypes=("bfloat16", "float16"), recipes=("exp-float", "pow-int"), n_pos=3000)
    one = horizons(16, run=RunConfig(engine="inline"), **kw)
    two = horizons(16, run=RunConfig(engine="pool", workers=2), **kw)
    strip = [{k: v for k, v in h.as_dict().items() if k != "seconds"} for h in one]
    assert strip == [{k: v for k, v in h.as_dict().items() if k != "seconds"} for h in two]
    assert [h.collision for h in one] == [257, None, 2049, None]
    assert all(isinstance(h.half_separation, tuple) for h in two)


def test_default_checkpoint_folder_is_cleaned_but_a_given_one_is_kept(tmp_path):
    made = tmp_path / "made-by-the-scan"
    certify(8, 5000, chunk=1000, run=RunConfig(engine="inline", checkpoint=made))
    assert not made.exists()
    certify(8, 5000, chunk=1000, run=RunConfig(engine="inline", checkpoint=tmp_path))
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_another_thread_receives_waits_for_the_chunks_manifest_line(
        tmp_path, monkeypatch, sig):
    """A pool's manager thread does not mask SIGINT / SIGTERM: the kernel hands it the
    signal, and Python runs the entry point's handler in the main thread at its next
    instruction -- between the chunk file and its manifest line, where masking the main
    thread alone let it through (found by tests/test_hostile_signals.py: three chunks, two
    lines).  Here a second thread sends the signal while the chunk is being written; the
    interrupt must come after the line."""
    from peproof.guard import signals

    jobs = [{"d": 8, "family": "paper", "base": "10000", "a": a, "b": a + 100,
             "adj": (0.0, 1.0)} for a in (1, 101)]
    ck = checkpoint.Checkpoint(tmp_path, scan.scan_chunk, jobs)
    ck.open()
    result = engine.call(scan.scan_chunk, jobs[0])["result"]
    real = checkpoint._replace

    def replace_then_signal(path, raw):
        real(path, raw)
        t = threading.Thread(target=os.kill, args=(os.getpid(), sig))
        t.start()
        t.join()
        time.sleep(0.05)  # the main thread runs instructions: a pending handler would run

    monkeypatch.setattr(checkpoint, "_replace", replace_then_signal)
    restore = signals.install()
    try:
        with pytest.raises(signals.Interrupted) as exc:
            ck.save(0, result)
    finally:
        restore()
    assert exc.value.signum == sig
    lines = (ck.dir / "manifest.log").read_text().splitlines()
    assert [json.loads(x)["index"] for x in lines] == [0]
    assert sorted(checkpoint.Checkpoint(tmp_path, scan.scan_chunk, jobs).open()) == [0]


def _precision_seen(job: dict) -> dict:
    """A chunk that sets its working precision, holds it a while, and says what it saw."""
    import flint

    time.sleep(job["before"])
    with flint.ctx.workprec(job["prec"]):
        time.sleep(job["hold"])
        return {"seen": flint.ctx.prec}


def _check_precision(job: dict, result: dict) -> str | None:
    """A scan's check that computes at its own precision while other chunks may run."""
    import flint

    with flint.ctx.workprec(500):
        time.sleep(0.3)
        seen = flint.ctx.prec
    return None if seen == 500 else f"the check ran at {seen} bits, not 500"


def test_chunks_on_threads_keep_their_own_precision():
    """python-flint's working precision (and mpmath's) is one per process: two chunks on the
    threads of one executor (or of a Dask worker with several threads) set and restored it
    under each other, and a RoPE decay curve failed its own check under load ("its bound is not
    the one its seeds give").  A chunk, and the check of a chunk, now run one at a time in a
    process: each sees the precision it set (engine.COMPUTING)."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [{"prec": 200, "before": 0.0, "hold": 0.4}, {"prec": 300, "before": 0.1, "hold": 0.4},
            {"prec": 400, "before": 0.0, "hold": 0.2}]
    with ThreadPoolExecutor(3) as ex:
        got, _ = run_chunks(_precision_seen, jobs, list, check=_check_precision,
                            config=RunConfig(executor=ex))
    assert [r["seen"] for r in got] == [200, 300, 400], got
