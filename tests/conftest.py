"""``pytest proofs``: one test per claim, test id = claim id."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# ----------------------------------------------------------------------------- hostile input
# The harness of tests/test_hostile_*.py: a command run as a real ``peproof`` process under an
# address-space limit and a timeout, with its own TMPDIR and working folder, so that the exit
# code, the one-line message, the time, the peak memory and any stray file are all observed.
# Cases are started in the background two at a time (the machine has 2 cores) as soon as a
# module asks for them; each test waits for its own.

import resource  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

HOSTILE_AS = 3 * 2**30  # address space of a command under test (the user code child: less)


@dataclass
class Ran:
    rc: int
    out: str
    err: str
    seconds: float
    max_rss: int  # bytes
    cpu: float  # user + system seconds
    stray: list = field(default_factory=list)  # files left in TMPDIR or the working folder


def _files(folder: Path) -> set:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def run_hostile(argv, root: Path, *, timeout=60.0, address_space=HOSTILE_AS, env=None,
                keep=()) -> Ran:
    """``python -m peproof.cli *argv`` in ``root/work`` with TMPDIR ``root/tmp``; ``keep``
    names files the command is meant to create (anything else new is a stray)."""
    work, tmp = root / "work", root / "tmp"
    work.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(exist_ok=True)
    before = _files(work)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    full_env = {**os.environ, "TMPDIR": str(tmp), "OPENBLAS_NUM_THREADS": "1",
                "OMP_NUM_THREADS": "1", **(env or {})}
    full_env.pop("PEPROOF_TRACEBACK", None)
    with open(root / "stdout", "w+b") as so, open(root / "stderr", "w+b") as se:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "peproof.cli", *map(str, argv)],
                                cwd=work, env=full_env, stdin=subprocess.DEVNULL, stdout=so,
                                stderr=se, preexec_fn=limit, start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything it left running
        except OSError:
            pass
        so.seek(0)
        se.seek(0)
        out, err = so.read().decode(errors="replace"), se.read().decode(errors="replace")
    stray = sorted((_files(work) - before - set(keep)) | {f"TMPDIR/{f}" for f in _files(tmp)})
    return Ran(proc.returncode, out, err, seconds, usage.ru_maxrss * 1024,
               usage.ru_utime + usage.ru_stime, stray)


class HostileRunner:
    """Starts cases in the background (two at a time) and hands back their results.

    ``start(key, make, **kw)``: ``make(root)`` builds the case's files under ``root`` and
    returns its argv; ``result(key)`` waits for it.  ``run`` is :func:`run_hostile`.
    """

    run = staticmethod(run_hostile)

    def __init__(self, base: Path):
        self.base = base
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.futures: dict = {}

    def _case(self, key, make, kw):
        root = self.base / key.replace("/", "_").replace(" ", "_")
        root.mkdir(parents=True, exist_ok=True)
        (root / "work").mkdir(exist_ok=True)
        return run_hostile(make(root), root, **kw)

    def start(self, key: str, make, **kw):
        if key not in self.futures:
            self.futures[key] = self.pool.submit(self._case, key, make, kw)
        return self.futures[key]

    def result(self, key: str) -> Ran:
        return self.futures[key].result()

    @staticmethod
    def refused(r: Ran, fragment: str = "", rc: int = 2, seconds: float = 20.0) -> str:
        """Exit code ``rc``, exactly one line on stderr starting ``peproof:`` and holding
        ``fragment``, no traceback, no stray file, within ``seconds``; returns the line."""
        lines = r.err.strip().splitlines()
        assert r.rc == rc, (r.rc, r.err[-2000:])
        assert "Traceback" not in r.err and len(lines) == 1, r.err[-2000:]
        assert lines[0].startswith("peproof: "), lines
        assert fragment.lower() in lines[0].lower(), (fragment, lines[0])
        assert r.seconds < seconds, (r.seconds, lines[0])
        assert not r.stray, r.stray
        return lines[0]


@pytest.fixture(scope="session")
def hostile(tmp_path_factory):
    runner = HostileRunner(tmp_path_factory.mktemp("hostile"))
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


# ----------------------------------------------------------------------------- engine conflicts
@pytest.fixture
def engine_conflicts_fail(monkeypatch):
    """Any engine conflict (an engine's verdict met by the falsification gate with a certified
    point against it) fails the test at once.  The engines' own tests use it: the gate turns a
    lying engine's ``proved`` into ``unknown``, which a test asserting "not proved" would
    accept -- here the lie itself is the failure (and a mutant that makes an engine lie is
    killed, not masked by the gate)."""
    from peproof.kernel import falsify

    real = falsify.gate

    def strict(stmt, verdict, **kwargs):
        out = real(stmt, verdict, **kwargs)
        if out.conflict:
            raise AssertionError(f"engine conflict (an engine lied): {out.reason}")
        return out

    monkeypatch.setattr(falsify, "gate", strict)
