"""Signals, concurrency and the output channel: the command ends cleanly whatever happens to it.

* SIGINT and SIGTERM during ``separation`` and ``report`` (each with a pool of worker
  processes): exit code 130 / 143, one line, no process of its group left alive, nothing
  half-written.
* Two ``report`` runs into one ``--out``: both succeed, the second waits for the first.
* A closed stdout (``peproof prove --json | head``): no traceback, exit 0 or 141.
* Files are written with the user's umask (the atomic writer used to give 0600).
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from peproof.guard import UsageError
from peproof.guard.paths import LOCK_NAME, folder_lock

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
if "faults_harness" not in sys.modules:  # the process helpers, one copy for the fault tests
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
group_alive = sys.modules["faults_harness"].group_alive


def start(argv, cwd: Path, tmp: Path, **kw):
    tmp.mkdir(exist_ok=True)
    return subprocess.Popen([sys.executable, "-m", "peproof.cli", *map(str, argv)], cwd=cwd,
                            env={**ENV, "TMPDIR": str(tmp)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kw)


def interrupt_when_busy(proc, sig: int, to_group: bool, workers: int, limit: float = 90):
    """Wait until ``proc`` has ``workers`` live descendants, then send ``sig`` (to its process
    group, as a Ctrl-C does, or to it alone, as ``kill`` does)."""
    t0 = time.monotonic()
    while len(group_alive(proc.pid)) < 1 + workers:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < limit, "the workers never started"
        time.sleep(0.05)
    time.sleep(0.5)  # let them get busy
    (os.killpg if to_group else os.kill)(proc.pid, sig)
    t_sig = time.monotonic()
    out, err = proc.communicate(timeout=60)
    t_end = time.monotonic()
    assert t_end - t_sig < 8, f"{t_end - t_sig:.1f} s from the signal to the exit"
    while group_alive(proc.pid) and time.monotonic() - t_end < 3:
        time.sleep(0.05)  # a process the kernel is still tearing down
    return out, err, group_alive(proc.pid)


RUNS = {
    "separation": ["separation", "--d", "1024", "--max-pos", "10**8", "--workers", "2",
                   "--no-confirm", "--allow-large", "--out", "sep.json"],
    "report": ["report", "--fresh", "--no-pdf", "--no-peers", "--numerics", "quick",
               "--workers", "2", "--out", "rep"],
}


@pytest.mark.parametrize("sig,to_group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["SIGINT to the group", "SIGTERM to the command"])
@pytest.mark.parametrize("what", list(RUNS))
def test_signal_stops_everything(tmp_path, what, sig, to_group):
    """Caught: orphaned pool workers (they survived SIGTERM), a traceback per worker on
    Ctrl-C, a half-written output, a wrong exit code."""
    work = tmp_path / "work"
    work.mkdir()
    proc = start(RUNS[what], work, tmp_path / "tmp")
    out, err, left = interrupt_when_busy(proc, sig, to_group, workers=2)
    assert not left, f"{what}: processes {left} survived {sig.name}"
    assert proc.returncode == 128 + sig, (proc.returncode, err[-2000:])
    lines = err.strip().splitlines()  # the report says what it starts: then one line
    # a scan on the engine says where its finished chunks are kept for a resume
    assert lines[-1].startswith(f"peproof: interrupted by {sig.name}; stopped"), err[-2000:]
    assert "Traceback" not in err and len(lines) <= 2, err[-2000:]
    assert not list((tmp_path / "tmp").iterdir()), "temporary files left behind"
    # a scan keeps its finished chunks for a resume (issue 13), each whole: nothing else stays
    chunks = list(work.glob("checkpoints/*/chunk-*.json"))
    for p in chunks:
        assert json.loads(p.read_text())["result"], p
    kept = chunks + [p for p in work.glob("checkpoints/*/manifest.json")
                     if json.loads(p.read_text())]
    # and what lists them (issue 19: one signed line per chunk, each parsing) and the mark of a
    # checkpoint folder peproof made
    for log in work.glob("checkpoints/*/manifest.log"):
        assert len([json.loads(x) for x in log.read_text().splitlines()]) == len(chunks)
        kept.append(log)
    kept += list(work.glob("checkpoints/.peproof-checkpoints"))
    if chunks:
        assert "run the same command again to resume" in lines[-1], lines[-1]
    leftovers = [p for p in work.rglob("*") if p.name != LOCK_NAME and p not in kept]
    assert not [p for p in leftovers if p.is_file()], leftovers


def test_two_reports_into_one_folder_both_succeed(tmp_path):
    """Caught: the second run compiling in the same TeX folder (a corrupted .aux)."""
    work = tmp_path / "work"
    work.mkdir()
    argv = ["report", "rotation.sin_*", "--numerics", "none", "--no-peers", "--fresh",
            "--workers", "1", "--out", "same"]
    first = start(argv, work, tmp_path / "tmp")
    time.sleep(0.3)
    second = start(argv, work, tmp_path / "tmp")
    res = [p.communicate(timeout=600) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, [e[-1500:] for _, e in res]
    assert any("waiting for" in e for _, e in res), "no run waited for the other"
    pdf = work / "same" / "peproof-report.pdf"
    if pdf.exists():
        assert pdf.read_bytes()[:5] == b"%PDF-"


def test_closed_stdout_ends_quietly(tmp_path):
    """Caught: BrokenPipeError tracebacks (``peproof prove --json | head``)."""
    r, w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "peproof.cli", "prove", "--json",
                             "rotation.sin_*"], stdout=w, stderr=subprocess.PIPE, env=ENV,
                            stdin=subprocess.DEVNULL)
    os.close(w)
    os.close(r)  # the reader is gone before the first byte
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 141), (proc.returncode, err)
    assert err == b"", err.decode()[-2000:]


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_files_follow_the_umask(tmp_path, mask):
    """Caught: the atomic writer's 0600 whatever the umask."""
    r = subprocess.run([sys.executable, "-m", "peproof.cli", "vectors", "--d", "4",
                        "--positions", "0:3", "--digits", "5", "--out", "v"], cwd=tmp_path,
                       env=ENV, capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: os.umask(mask))
    assert r.returncode == 0, r.stderr
    for name in ("vectors.json", "manifest.json"):
        assert (tmp_path / "v" / name).stat().st_mode & 0o777 == 0o666 & ~mask, name


def test_folder_lock_refuses_or_waits(tmp_path):
    """Caught: two writers in one folder at once."""
    folder = tmp_path / "out"
    folder.mkdir()
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(UsageError, match="in use"):
            with folder_lock(folder, wait=False):
                pass
    finally:
        os.close(fd)
    with folder_lock(folder, wait=False):
        assert (folder / LOCK_NAME).read_text().strip() == str(os.getpid())


def test_failed_run_removes_the_folder_it_created(tmp_path):
    folder = tmp_path / "new" / "out"
    with pytest.raises(RuntimeError):
        with folder_lock(folder):
            raise RuntimeError("the run failed")
    assert not folder.exists()


def test_vectors_into_one_folder_concurrently(tmp_path):
    """Two writers of one folder: both finish and the manifest matches the files."""
    from peproof.oracle.sinusoidal.vectors import verify

    procs = [subprocess.Popen([sys.executable, "-m", "peproof.cli", "vectors", "--d", "4",
                               "--positions", f"0:{n}", "--digits", "8", "--out", "v"],
                              cwd=tmp_path, env=ENV, stderr=subprocess.PIPE, text=True)
             for n in (300, 200)]
    for p in procs:
        p.wait(timeout=120)
        assert p.returncode == 0, p.stderr.read()
    assert verify(tmp_path / "v") == []
    assert json.loads((tmp_path / "v" / "manifest.json").read_text())["parameters"]
