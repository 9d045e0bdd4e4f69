"""The Dask scheduler's faults, with real ``dask scheduler`` / ``dask worker`` processes and a
TCP listener that accepts and never answers (issue 19, items 5 and 6).

Caught on the previous code: a listener that never answers hung ``separation`` past 150 s
despite its 30 s connect timeout (distributed waits for the handshake without a limit); a
scheduler without workers waited forever; a scheduler killed mid-run ended with exit code 3 and
a 36-line traceback.  Now each is one line naming the address, exit code 4, within
``--scheduler-timeout`` and a few seconds, and a rerun resumes from the checkpoint.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

if "faults_harness" not in sys.modules:  # one copy for every test_faults* module
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
H = sys.modules["faults_harness"]

pytest.importorskip("distributed")
DASK = Path(sys.executable).with_name("dask")
P = dict(d=2048, n=3 * 10**6, chunk=1 << 16)  # 46 chunks


def scan(*extra) -> list[str]:
    return ["separation", "--d", P["d"], "--max-pos", P["n"], "--chunk", P["chunk"], "--json",
            "--no-confirm", *extra]


@pytest.fixture
def case(tmp_path, tmp_path_factory):
    c = H.Case(tmp_path, tmp_path_factory.mktemp("state"))
    yield c
    c.kill_all()


class Silent:
    """A TCP listener that accepts every connection and never says a word."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                self.conns.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


class Cluster:
    """``dask scheduler`` (and ``workers`` ``dask worker`` processes running this peproof) on
    127.0.0.1, each in its own process group."""

    def __init__(self, case: H.Case, workers: int = 0):
        self.case, self.procs = case, []
        info = case.root / "scheduler.json"
        self.scheduler = self._start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--dashboard-address", ":0", "--scheduler-file", info])
        t = time.monotonic()
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() - t < 60, "the scheduler did not start"
            time.sleep(0.05)
        self.address = json.loads(info.read_text())["address"]
        for _ in range(workers):
            self._start([DASK, "worker", self.address, "--nthreads", "1", "--no-dashboard",
                         "--host", "127.0.0.1"])

    def _start(self, argv) -> subprocess.Popen:
        scratch = self.case.root / "dask-tmp"  # the cluster's own scratch space, not ours
        scratch.mkdir(exist_ok=True)
        p = subprocess.Popen([str(a) for a in argv], cwd=self.case.root,
                             env={**self.case.env, "TMPDIR": str(scratch)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except OSError:
                    pass
            p.wait()


def test_a_listener_that_never_answers(case):
    silent = Silent()
    try:
        t0 = time.monotonic()
        rc, out, err = case.run(*scan("--scheduler", silent.address, "--scheduler-timeout", "2"),
                                timeout=60)
        took = time.monotonic() - t0
    finally:
        silent.close()
    line = H.one_line(err, f"the Dask scheduler {silent.address} did not answer within 2 s")
    assert rc == 4 and out == "" and took < 30, (rc, line, took)
    assert case.strays() == []


def test_a_scheduler_without_workers(case):
    """A real ``dask scheduler`` with no worker: said at once on stderr, while the command still
    waits (issue 26: it waited the whole timeout in silence), then the timeout's one line."""
    cluster = Cluster(case)
    try:
        p = case.start(*scan("--scheduler", cluster.address, "--scheduler-timeout", "10"))
        first = p.stderr.readline()
        waiting = p.poll() is None  # the line came while the command was still waiting
        rc, out, err = case.finish(p, timeout=120)
    finally:
        cluster.close()
    assert first == (f"peproof: waiting for a worker at {cluster.address} (up to 10 s, "
                     "--scheduler-timeout)\n"), first + err
    assert waiting, "the waiting line came only when the command ended"
    line = H.one_line(err, f"the Dask scheduler {cluster.address} has no workers (waited 10 s")
    assert rc == 4 and out == "", (rc, line)
    assert case.strays("scheduler.json") == []


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "stopped"])
def test_a_scheduler_stopped_mid_run_then_resume(case, how):
    """The scheduler killed (or stopped: a silent scheduler) once chunks are saved: one line,
    exit 4, the saved chunks kept; the same command on the local engine resumes them and ends
    in the undisturbed run's result."""
    ref = H.reference(**P)
    cluster = Cluster(case, workers=1)
    # a lost connection is seen at once; a stopped scheduler after --scheduler-timeout
    argv = scan("--checkpoint", "ck", *(["--scheduler-timeout", "3"] if how == signal.SIGSTOP
                                        else []))
    try:
        p = case.start(*argv, "--scheduler", cluster.address)
        saved = case.wait_chunks("ck", 2, p)
        assert saved >= 2 and p.poll() is None, "the run ended before the scheduler stopped"
        os.killpg(cluster.scheduler.pid, how)
        rc, out, err = case.finish(p, timeout=90)
    finally:
        cluster.close()
    what = "lost the connection" if how == signal.SIGKILL else "stopped answering"
    line = H.one_line(err, what)
    assert rc == 4 and cluster.address in line and "run the same command again" in line, line
    kept = case.wait_saved("ck", 0)
    rc, out, err = case.run(*argv, "--engine", "pool", "--workers", "2")
    assert rc == 0 and err == "", err
    got = H.from_json(out)
    assert got["run"]["resumed"] == kept and H.certified(got) == ref
    assert case.strays("scheduler.json") == []
