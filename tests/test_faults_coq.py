"""Faults of the Coq pass, on real processes (issue 26, item 4): ``coqc`` killed with SIGKILL (the
out-of-memory killer) while it compiles the library and in the middle of a batch, a damaged or
half-written compiled library, a full or read-only cache folder (real tmpfs mounts: root only,
skipped with the reason otherwise), ``coqc`` missing, SIGINT / SIGTERM during the pass.

In each case ``peproof prove`` gives either "not checked in Coq: <the fault>" naming it, or one
line with exit code 4 (130 / 143 for the signals): never a wrong status, a traceback or a
corrupted cache; a fault of the environment is never cached and the next run, the fault gone,
checks the claim by itself.

The faults come from a ``PEPROOF_COQC`` wrapper that runs the real ``coqc`` and, when one of its
arguments matches ``FAULT_ON``, has it killed with SIGKILL half a second later (``FAULT=kill``)
or replaces it with a process that never ends (``FAULT=hang``).

Run on the branch's base (260c44d) these failed: the library killed mid-compile (cached as
"library module(s) ... did not compile ... coqc failed", every later run the same), a kill
mid-batch ("coqc failed: coqc failed", the signal not named), a truncated .vo ("Defs.vo:
premature end of file. Try to rebuild it." on every later run), SIGINT and SIGTERM (still
running 120 s after the signal: the pass waited for its coqc).  A missing coqc was handled.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from peproof.guard import keys
from peproof.kernel.coq import run as coqrun

if "faults_harness" not in sys.modules:  # one copy for every test_faults* module
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
H = sys.modules["faults_harness"]

REAL = coqrun.coqc()
pytestmark = [pytest.mark.skipif(REAL is None or coqrun.coq_version() is None,
                                 reason="coqc not installed (make coq installs it)"),
              pytest.mark.timeout(900)]
CLAIM = "rotation.sin_angle_addition"
CHECKED = "checked in Coq"

WRAPPER = """#!/bin/sh
# a coqc whose run the test can have killed or hung (FAULT, FAULT_ON)
hit=""
for a in "$@"; do
  case "$a" in *"$FAULT_ON"*) [ -n "$FAULT_ON" ] && hit=1 ;; esac
done
if [ -n "$hit" ] && [ "$FAULT" = kill ]; then
  ( sleep 0.5; kill -9 $$ ) &
fi
if [ -n "$hit" ] && [ "$FAULT" = hang ]; then
  echo $$ >> "$FAULT_PIDS"
  exec sleep 1000
fi
exec {real} "$@"
"""


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="module")
def built(tmp_path_factory, state, coq_library, resign_coq_library):
    """A cache folder with the library compiled (under the module's key), copied by the cases
    that need it: the run's compiled library (tests/conftest.py's ``coq_library``) with its
    record signed with the cases' user key, as ``peproof prove`` would have left it; checked
    by a real ``peproof prove`` that uses it (and does not compile it again)."""
    root = tmp_path_factory.mktemp("coqbuilt")
    cache = root / "cache"
    c = H.Case(root / "case", state)
    c.env["PEPROOF_COQ_CACHE"] = str(cache)
    installed = shutil.which("coqc")
    if coq_library is not None and installed and Path(REAL).resolve() == Path(installed).resolve():
        with pytest.MonkeyPatch.context() as mp:  # the cases' key (their state folder)
            mp.setenv("XDG_STATE_HOME", str(state))
            keys.user_key.cache_clear()
            key, why = keys.user_key()
            keys.user_key.cache_clear()
        assert why is None, why
        lh = coqrun.library_hash(coqrun.coq_version(REAL))
        resign_coq_library(coq_library, coqrun.library_dir(cache, lh, key), lh,
                           coqrun._PROCESS_KEY, key)
    seeded = {p.name: p.stat().st_ino for p in cache.glob("lib-*/*.vo")}
    rc, out, err = c.run(*prove(), timeout=900)
    assert rc == 0 and coq_status(out) == CHECKED, (rc, err[-2000:])
    if seeded:  # the seeded library was used: the same files, none compiled again
        assert {p.name: p.stat().st_ino for p in cache.glob("lib-*/*.vo")} == seeded
    shutil.rmtree(cache / "results")
    return cache


@pytest.fixture
def case(tmp_path, state):
    c = H.Case(tmp_path, state)
    wrapper = tmp_path / "coqc"
    wrapper.write_text(WRAPPER.format(real=REAL))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    c.env.update(PEPROOF_COQC=str(wrapper), PEPROOF_COQ_CACHE=str(tmp_path / "cache"),
                 FAULT="", FAULT_ON="", FAULT_PIDS=str(tmp_path / "hung"))
    yield c
    c.kill_all()
    for pid in hung(c):
        _kill(pid)


def _user_key(c) -> bytes:
    """The checkpoint key of the case's state folder (peproof.guard.keys' layout)."""
    return (Path(c.env["XDG_STATE_HOME"]) / "peproof" / "checkpoint.key").read_bytes()


def prove() -> list[str]:
    return ["prove", CLAIM, "--no-falsifiers", "--json"]


def coq_status(out: str) -> str:
    return json.loads(out)["claims"][0]["coq"]["status"]


def hung(c) -> list[int]:
    p = Path(c.env["FAULT_PIDS"])
    return [int(x) for x in p.read_text().split()] if p.exists() else []


def wait_hung(c, p) -> None:
    """Until the case's hanging coqc has started (the command still running)."""
    t0 = time.monotonic()
    while not hung(c):
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < 600, "coqc never started"
        time.sleep(0.05)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def cache_is_sound(cache: Path) -> None:
    """Every file of the cache is a signed record or a compiled library file: no temporary
    left, no result entry that is not a signed record."""
    for p in cache.rglob("*"):
        assert not p.name.endswith(".tmp") and not p.name.startswith(("lib-build-",
                                                                        "peproof-coq-")), p
    for p in (cache / "results").glob("*.json") if (cache / "results").exists() else ():
        d = json.loads(p.read_text())
        assert set(d) == {"kind", "name", "data", "mac"} and p.stem == d["name"], p


def recovers(c) -> None:
    """The fault gone, the next run checks the claim by itself."""
    c.env.update(FAULT="", FAULT_ON="")
    rc, out, err = c.run(*prove(), timeout=900)
    assert rc == 0 and err == "" and coq_status(out) == CHECKED, (rc, err[-2000:], out[-500:])
    cache_is_sound(Path(c.env["PEPROOF_COQ_CACHE"]))


# -- coqc killed -------------------------------------------------------------------------------

def test_coqc_killed_while_compiling_the_library_is_not_cached(case):
    """SIGKILL during the library's compilation: the claim is 'not checked in Coq: coqc was
    killed by signal 9 (SIGKILL) ...', and the next run compiles the library and checks it.
    Failed on the previous code: 'library module(s) ... did not compile' and the same answer
    on every later run (the failure was recorded in built.json)."""
    case.env.update(FAULT="kill", FAULT_ON="lib-build-")
    rc, out, err = case.run(*prove(), timeout=900)
    status = coq_status(out)
    assert rc == 0 and status.startswith("not checked in Coq: "), (rc, err, status)
    assert "killed by signal 9 (SIGKILL)" in status, status
    cache = Path(case.env["PEPROOF_COQ_CACHE"])
    assert not list(cache.glob("lib-*/built.json")), "a killed build was recorded"
    recovers(case)


def test_coqc_killed_mid_batch_names_the_signal_and_is_not_cached(case, built):
    """SIGKILL while coqc compiles the batch of lemmas: 'not checked in Coq: coqc was killed by
    signal 9 (SIGKILL)', nothing cached, the next run checks the claim.  Failed on the previous
    code: 'coqc failed: ...' without the signal."""
    shutil.copytree(built, case.env["PEPROOF_COQ_CACHE"])
    case.env.update(FAULT="kill", FAULT_ON="batch")
    rc, out, err = case.run(*prove(), timeout=900)
    status = coq_status(out)
    assert rc == 0 and "killed by signal 9 (SIGKILL)" in status, (rc, err, status)
    assert not list(Path(case.env["PEPROOF_COQ_CACHE"], "results").glob("*.json"))
    recovers(case)


# the library's build in the fast suite, a batch's in the slow one
@pytest.mark.parametrize("where", ["lib-build-", pytest.param("batch", marks=pytest.mark.slow)])
def test_the_command_killed_leaves_its_work_folder_to_the_next_run(case, built, where):
    """SIGKILL to ``peproof prove`` itself (the out-of-memory killer picks the largest process)
    while coqc compiles the library or a batch: its work folder stays in the cache, since
    nothing of the killed run can remove it; the next run removes it and checks the claim.
    Failed on the previous code: the folder stayed for ever (a 1.3 MB ``lib-build-*`` of a
    killed run was found in a user's cache seven hours later)."""
    cache = Path(case.env["PEPROOF_COQ_CACHE"])
    if where == "batch":
        shutil.copytree(built, cache)
    case.env.update(FAULT="hang", FAULT_ON=where)
    p = case.start(*prove())
    wait_hung(case, p)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    for pid in hung(case):
        _kill(pid)
    prefix = "lib-build-" if where == "lib-build-" else "peproof-coq-"
    left = [x.name for x in cache.iterdir() if x.name.startswith(prefix)]
    assert left, "the killed run left no work folder: nothing for the next run to remove"
    if where == "lib-build-":  # the library itself is compiled by the cases above
        shutil.copytree(built, cache, dirs_exist_ok=True)
    recovers(case)
    assert not [n for n in left if (cache / n).exists()]


# -- a damaged library, coqc missing ----------------------------------------------------------

# "emptied" is the sweep's third case (slow): truncated and replaced stay in the fast suite
@pytest.mark.parametrize("damage", ["truncated", pytest.param("emptied", marks=pytest.mark.slow),
                                    "replaced"])
def test_a_damaged_compiled_library_is_compiled_again(case, built, damage):
    """A compiled module cut in half (a run killed while writing it), emptied, or replaced by
    another module's file: the next run compiles the library again and checks the claim.
    Failed on the previous code: the damaged file was loaded by every run ('not checked')."""
    cache = Path(case.env["PEPROOF_COQ_CACHE"])
    shutil.copytree(built, cache)
    lib = next(cache.glob("lib-*"))
    vo = lib / "Defs.vo"
    data = vo.read_bytes()
    vo.write_bytes({"truncated": data[:len(data) // 2], "emptied": b"",
                    "replaced": (lib / "PE.vo").read_bytes()}[damage])
    recovers(case)
    assert coqrun._load_library(lib, json.loads((lib / "built.json").read_text())["name"],
                                _user_key(case)) is not None


def test_coqc_missing_is_no_verdict_and_nothing_is_cached(case):
    case.env["PEPROOF_COQC"] = str(case.root / "no-such-coqc")
    rc, out, err = case.run(*prove(), timeout=300)
    assert rc == 0 and err == "" and coq_status(out) == "coq not installed", (rc, err)
    assert not Path(case.env["PEPROOF_COQ_CACHE"]).exists()


# -- full and read-only cache folders (tmpfs: root only) ---------------------------------------

def _tmpfs(path: Path, options: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _fill(folder: Path) -> Path:
    ballast = folder / "ballast"
    with open(ballast, "wb", buffering=0) as fh:  # unbuffered: nothing left to flush at close
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    return ballast


def _fault_or_one_line(rc: int, out: str, err: str, fragment: str) -> None:
    """Either the claim says 'not checked in Coq: ... <fragment>' (exit 0), or one line with
    exit code 4 naming it; never a traceback, never checked."""
    if rc == 4:
        H.one_line(err, fragment)
        return
    status = coq_status(out)
    assert rc == 0 and err == "", (rc, err[-2000:])
    assert status.startswith("not checked in Coq: ") and fragment in status, status


def test_a_full_cache_folder(case, built):
    """The cache folder full before the library is compiled: the fault is named ('No space
    left on device'); with room again the next run compiles and checks.  Then full after the
    library was compiled: the claim is checked (only its result is not kept) and the next run
    checks it again."""
    cache = Path(case.env["PEPROOF_COQ_CACHE"])
    _tmpfs(cache, "size=24m")
    try:
        ballast = _fill(cache)
        rc, out, err = case.run(*prove(), timeout=900)
        _fault_or_one_line(rc, out, err, "No space left on device")
        cache_is_sound(cache)
        ballast.unlink()
        recovers(case)
        shutil.rmtree(cache / "results")
        ballast = _fill(cache)
        rc, out, err = case.run(*prove(), timeout=900)
        assert rc == 0 and err == "" and coq_status(out) == CHECKED, (rc, err[-2000:])
        cache_is_sound(cache)
        ballast.unlink()
        recovers(case)
    finally:
        _umount(cache)


def test_a_read_only_cache_folder(case, built):
    """The cache folder read-only with the library compiled and no result: the claim is
    checked all the same (the batch compiled in TMPDIR, its result not kept) and nothing is
    left behind; read-only and empty, the fault is named ('Read-only file system') or one
    line with exit 4.  Writable again, the next run checks and keeps the result."""
    cache = Path(case.env["PEPROOF_COQ_CACHE"])
    _tmpfs(cache, "size=64m")
    try:
        shutil.copytree(built, cache, dirs_exist_ok=True)
        subprocess.run(["mount", "-o", "remount,ro", str(cache)], check=True)
        rc, out, err = case.run(*prove(), timeout=900)
        assert rc == 0 and err == "" and coq_status(out) == CHECKED, (rc, err[-2000:])
        assert not list((cache / "results").glob("*")) and not list(case.tmp.iterdir())
        subprocess.run(["mount", "-o", "remount,rw", str(cache)], check=True)
        for p in cache.iterdir():
            shutil.rmtree(p)
        subprocess.run(["mount", "-o", "remount,ro", str(cache)], check=True)
        rc, out, err = case.run(*prove(), timeout=900)
        _fault_or_one_line(rc, out, err, "Read-only file system")
        subprocess.run(["mount", "-o", "remount,rw", str(cache)], check=True)
        recovers(case)
        assert list((cache / "results").glob("*.json"))
    finally:
        _umount(cache)


# -- SIGINT and SIGTERM during the Coq pass -----------------------------------------------------

# each signal once in the fast suite (SIGTERM here, SIGINT during the report's pass below)
@pytest.mark.parametrize("sig", [pytest.param(signal.SIGINT, marks=pytest.mark.slow),
                                 signal.SIGTERM])
def test_an_interrupt_during_the_coq_pass_stops_coqc_and_the_next_run_recovers(case, built,
                                                                                sig):
    """SIGINT / SIGTERM to ``peproof prove`` while coqc runs (here a coqc that never ends):
    exit code 130 / 143, one line, no coqc left running, no temporary left in the cache, and
    the next run checks the claim.  Failed on the previous code: the interrupt waited for the
    running coqc (the command never ended)."""
    shutil.copytree(built, case.env["PEPROOF_COQ_CACHE"])
    case.env.update(FAULT="hang", FAULT_ON="batch")
    p = case.start(*prove())
    wait_hung(case, p)
    time.sleep(0.3)
    os.kill(p.pid, sig)
    rc, out, err = case.finish(p, timeout=120)
    H.one_line(err, "interrupted")
    assert rc == 128 + sig and out == "", (rc, err)
    t0 = time.monotonic()
    while any(alive(pid) for pid in hung(case)) and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in hung(case)), "coqc outlived the command"
    cache_is_sound(Path(case.env["PEPROOF_COQ_CACHE"]))
    recovers(case)


@pytest.mark.parametrize("sig", [signal.SIGINT,
                                 pytest.param(signal.SIGTERM, marks=pytest.mark.slow)])
def test_an_interrupt_during_the_reports_coq_pass(case, built, sig):
    """The same during ``peproof report`` (one claim, no numerics, no PDF): exit code 130 /
    143 with the interrupt as the last line of stderr (the report's progress lines come before
    it), no coqc left running; the next report checks the claim in Coq.  SIGTERM failed on the
    base 260c44d: still running 120 s after the signal."""
    shutil.copytree(built, case.env["PEPROOF_COQ_CACHE"])
    case.env.update(FAULT="hang", FAULT_ON="batch")
    argv = ["report", CLAIM, "--numerics", "none", "--no-pdf", "--no-peers", "--out", "rep"]
    p = case.start(*argv)
    wait_hung(case, p)
    time.sleep(0.3)
    os.kill(p.pid, sig)
    rc, out, err = case.finish(p, timeout=120)
    lines = err.strip().splitlines()
    assert rc == 128 + sig and "Traceback" not in err, (rc, err[-2000:])
    assert lines[-1].startswith("peproof: interrupted"), lines
    assert not any(alive(pid) for pid in hung(case)), "coqc outlived the command"
    cache_is_sound(Path(case.env["PEPROOF_COQ_CACHE"]))
    case.env.update(FAULT="", FAULT_ON="")
    rc, out, err = case.run(*argv, timeout=900)
    assert rc == 0, (rc, err[-2000:])
    rows = json.loads((case.work / "rep" / "results.json").read_text())["claims"]
    assert [r["coq"]["status"] for r in rows if r["id"] == CLAIM] == [CHECKED]
