"""The harness of ``tests/test_faults*.py``: ``peproof`` run as real processes, each in its own
process group, working folder and TMPDIR, with the user's checkpoint key in a state folder of
the session (``XDG_STATE_HOME``), so a case observes the exit code, the one line on stderr, the
processes left alive and the files left behind."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pytest

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
ENV.pop("PEPROOF_TRACEBACK", None)


def group_alive(pgid: int) -> list[int]:
    """Processes (not zombies) of process group ``pgid``."""
    alive = []
    for e in os.listdir("/proc"):
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as fh:
                rest = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(rest[3]) == pgid and rest[0] != b"Z":
            alive.append(int(e))
    return alive


def children(pid: int) -> list[int]:
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat", "rb") as fh:
                    rest = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(rest[1]) == pid and rest[0] != b"Z":
                out.append(int(e))
    return out


class Case:
    """One case: ``root/work`` (cwd), ``root/tmp`` (TMPDIR), ``state`` (the key)."""

    def __init__(self, root: Path, state: Path):
        self.root, self.work, self.tmp = root, root / "work", root / "tmp"
        self.work.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(exist_ok=True)
        # its own folder for prove's .v files: ENV was read at import, before the session's
        # per-worker PEPROOF_COQ_BUILD was set (tests/conftest.py), and without one a command
        # run from the checkout writes into its reports/build/coq (seen: a .v file there
        # rewritten under tests/test_cli_coq_build.py, which checks that folder is left alone)
        self.env = {**ENV, "TMPDIR": str(self.tmp), "XDG_STATE_HOME": str(state),
                    "PEPROOF_COQ_BUILD": str(root / "coq-build")}
        self.procs: list[subprocess.Popen] = []

    def start(self, *argv) -> subprocess.Popen:
        p = subprocess.Popen([sys.executable, "-m", "peproof.cli", *map(str, argv)],
                             cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def run(self, *argv, timeout: float = 120) -> tuple[int, str, str]:
        p = self.start(*argv)
        return self.finish(p, timeout)

    def finish(self, p: subprocess.Popen, timeout: float = 120) -> tuple[int, str, str]:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            raise AssertionError(f"still running after {timeout} s: {err[-1500:]}") from None
        t = time.monotonic()
        while group_alive(p.pid) and time.monotonic() - t < 5:
            time.sleep(0.05)  # a process the kernel is still tearing down
        left = group_alive(p.pid)
        assert not left, f"processes {left} outlived the command"
        return p.returncode, out, err

    def kill_all(self) -> None:
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()

    def wait_for(self, pattern: str, count: int, proc: subprocess.Popen | None = None,
                 limit: float = 120) -> int:
        """Wait until ``count`` files match ``pattern`` under the working folder (or the
        process ended); returns how many there are."""
        t = time.monotonic()
        while True:
            n = len(list(self.work.glob(pattern)))
            if n >= count or (proc is not None and proc.poll() is not None):
                return n
            assert time.monotonic() - t < limit, f"no {pattern} after {limit} s"
            time.sleep(0.01)

    def wait_saved(self, folder: str, count: int, proc: subprocess.Popen | None = None,
                   limit: float = 120) -> int:
        """Wait until the manifests under ``folder`` list ``count`` chunks (or the process
        ended); returns how many they list."""
        t = time.monotonic()
        while True:
            n = 0
            for log in self.work.glob(f"{folder}/*/manifest.log"):
                try:
                    n += log.read_bytes().count(b"\n")
                except OSError:
                    pass
            if n >= count or (proc is not None and proc.poll() is not None):
                return n
            assert time.monotonic() - t < limit, f"fewer than {count} chunks after {limit} s"
            time.sleep(0.01)

    def wait_chunks(self, folder: str, count: int, proc: subprocess.Popen | None = None,
                    limit: float = 120) -> int:
        """Wait until ``count`` chunk files are under ``folder`` (any checkpoint format), then
        until the manifests list them (briefly: they follow each file at once); returns how
        many chunk files there are."""
        n = self.wait_for(f"{folder}/*/chunk-*.json", count, proc, limit)
        if list(self.work.glob(f"{folder}/*/manifest.log")):
            t = time.monotonic()
            while self.wait_saved(folder, 0) < n and time.monotonic() - t < 2:
                time.sleep(0.005)
        return n

    def strays(self, *allowed: str) -> list[str]:
        """Files and folders left in the working folder (but ``allowed``) or in TMPDIR."""
        left = [str(p.relative_to(self.work)) for p in self.work.rglob("*")
                if not any(p.relative_to(self.work).parts[0] == a for a in allowed)]
        return left + [f"TMPDIR/{p.name}" for p in self.tmp.iterdir()]


def one_line(err: str, fragment: str = "") -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err[-3000:]
    assert lines[0].startswith("peproof: "), lines
    assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def certified(sep: dict) -> dict:
    """A separation record without how it ran (time, engine, resumed chunks)."""
    return {k: v for k, v in sep.items() if k not in ("seconds", "run")}


def from_json(out_or_path) -> dict:
    """The first separation record of a JSON envelope (stdout text or a file)."""
    text = Path(out_or_path).read_text() if isinstance(out_or_path, Path) else out_or_path
    return json.loads(text)["results"][0]["separation"]


@lru_cache(maxsize=8)
def _reference(d: int, n: int, chunk: int) -> str:
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify

    sep = certify(d, n, chunk=chunk, run=RunConfig(engine="inline"))
    return json.dumps(certified(json.loads(json.dumps(sep.as_dict()))))


def reference(d: int, n: int, chunk: int) -> dict:
    """The uninterrupted inline run, as JSON gives it back (computed once per session)."""
    return json.loads(_reference(d, n, chunk))


# ----------------------------------------------------------------------------- real disks
def mount(path: Path, options: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")


@contextmanager
def tmpfs(path: Path, size: str, options: str = ""):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount(path, f"size={size}" + (f",{options}" if options else ""))
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte (unbuffered writes: a buffered
    file's close would raise the ENOSPC of its leftover bytes again)."""
    ballast = folder / "ballast"
    with open(ballast, "wb", buffering=0) as fh:
        for size in (65536, 1):  # big blocks, then the last partial block byte by byte
            try:
                while fh.write(b"\0" * size):
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    return ballast
