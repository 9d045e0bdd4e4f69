"""Faults met by long scans, as an operator meets them, run as real processes (issue 19).

Each case ends in the certified result of an undisturbed run after a resume, or in one line on
stderr with the documented exit code (4: a fault of the environment, the finished chunks kept;
2: refused before the work), and leaves no process and no stray file.  Here: a pool worker and
the main process killed with SIGKILL, a checkpoint with a corrupted chunk and another run's
chunk, two runs on one checkpoint, ``--out`` through a symbolic link, a 250-byte ``--out`` name,
and ``vectors`` into a folder holding an older run's set.  The scheduler's faults are in
``test_faults_dask.py``, the full and read-only disks in ``test_faults_disk.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

if "faults_harness" not in sys.modules:  # one copy for every test_faults* module
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
H = sys.modules["faults_harness"]

# 46 chunks of 2^16 offsets at d = 2048: about 1.5 s of work on one core
KILL = dict(d=2048, n=3 * 10**6, chunk=1 << 16)
KILL_CHUNKS = 46
# 8 chunks at d = 512: about half a second
SMALL = dict(d=512, n=2 * 10**6, chunk=1 << 18)


def scan(p: dict, *extra) -> list[str]:
    return ["separation", "--d", p["d"], "--max-pos", p["n"], "--chunk", p["chunk"], "--json",
            *extra]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("state")


@pytest.fixture
def case(tmp_path, state):
    c = H.Case(tmp_path, state)
    yield c
    c.kill_all()


@pytest.fixture(scope="module")
def ref_kill():
    return H.reference(**KILL)


@pytest.fixture(scope="module")
def ref_small():
    return H.reference(**SMALL)


def test_killed_pool_worker_is_a_fault_of_the_machine_and_the_rerun_resumes(case, ref_kill):
    """Caught: exit 3 'internal error ... please report it' when the OOM killer takes a worker;
    then (issue 26) a message naming the other worker, which the pool itself had stopped with
    SIGTERM after the death, instead of the one killed: the worker started last is killed here,
    and the line must name its pid and SIGKILL, and nothing else."""
    argv = scan(KILL, "--engine", "pool", "--workers", "2", "--no-confirm", "--out", "r.json")
    p = case.start(*argv)
    saved = case.wait_for("checkpoints/*/chunk-*.json", 2, p)
    workers = H.children(p.pid)
    assert saved >= 2 and len(workers) == 2, (saved, workers)
    victim = max(workers)  # not the first in the pool's table (the old message's pick)
    os.kill(victim, signal.SIGKILL)
    rc, out, err = case.finish(p)
    line = H.one_line(err, f"a worker process of the local pool (pid {victim}) was killed by "
                           "SIGKILL (as the out-of-memory killer does)")
    assert "SIGTERM" not in line and str(min(workers)) not in line, line
    assert rc == 4 and "run the same command again to resume" in line and out == "", (rc, line)
    kept = len(list(case.work.glob("checkpoints/*/chunk-*.json")))
    assert kept >= 2
    rc, out, err = case.run(*argv)
    assert rc == 0 and err == "", err
    got = H.from_json(case.work / "r.json")
    assert got["run"]["resumed"] == kept and H.certified(got) == ref_kill
    assert case.strays("r.json") == []


def test_killed_main_process_leaves_no_worker_and_no_lost_work(case, ref_kill):
    """SIGKILL of the command mid-scan: its pool workers die with it, the saved chunks resume.
    Then SIGKILL after every chunk is saved but before the output is written (during the
    mpmath evidence): the rerun resumes all of them.  Caught: the checkpoint was deleted as
    soon as the scan ended, before --out was written."""
    argv = scan(KILL, "--engine", "pool", "--workers", "2", "--sample", "60", "--out", "r.json")
    p = case.start(*argv)
    case.wait_for("checkpoints/*/chunk-*.json", 3, p)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    t = time.monotonic()
    while H.group_alive(p.pid) and time.monotonic() - t < 5:
        time.sleep(0.05)
    assert not H.group_alive(p.pid), "pool workers outlived their parent"
    p = case.start(*argv)
    n = case.wait_saved("checkpoints", KILL_CHUNKS, p)
    assert n == KILL_CHUNKS, f"only {n} of {KILL_CHUNKS} chunks on disk when the scan ended"
    assert not (case.work / "r.json").exists()
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    rc, out, err = case.run(*argv)
    assert rc == 0 and err == "", err  # nothing to recompute, nothing to say
    got = H.from_json(case.work / "r.json")
    assert got["run"]["resumed"] == KILL_CHUNKS and got["run"]["computed"] == 0, got["run"]
    assert H.certified(got) == ref_kill
    assert case.strays("r.json") == []


def _checkpoint_of(case, p: dict) -> Path:
    """A finished checkpoint of the SMALL scan in ``work/ck`` (made in process: the same
    fingerprint as the command's)."""
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify

    sep = certify(p["d"], p["n"], chunk=p["chunk"],
                  run=RunConfig(engine="inline", checkpoint=case.work / "ck",
                                keep_checkpoint=True))
    return Path(sep.run["checkpoint"])


def test_corrupt_and_foreign_chunks_are_recomputed_and_named(case, ref_small, monkeypatch):
    """Issue 19's case: a chunk that still parses, its candidate offset 1 edited to 7, gave
    'certified unique' at 7 with a minimum above D(1), exit 0; and a chunk copied from a run of
    other parameters.  Now both are recomputed, named on stderr, and the result is identical."""
    monkeypatch.setenv("XDG_STATE_HOME", case.env["XDG_STATE_HOME"])
    folder = _checkpoint_of(case, SMALL)
    other = dict(SMALL, n=SMALL["n"] + 1)
    foreign = _checkpoint_of(case, other)
    c0 = folder / "chunk-000000.json"
    rec = json.loads(c0.read_text())
    assert rec["result"]["candidates"][0][0] == 1
    rec["result"]["candidates"][0][0] = 7  # the edit, nothing else
    c0.write_text(json.dumps(rec))
    (folder / "chunk-000003.json").write_bytes((foreign / "chunk-000003.json").read_bytes())
    for f in foreign.iterdir():
        f.unlink()
    foreign.rmdir()
    rc, out, err = case.run(*scan(SMALL, "--engine", "inline", "--no-confirm", "--checkpoint",
                                  "ck"))
    got = H.from_json(out)
    assert rc == 0 and got["argmin"] == [1], (rc, got["argmin"], got["min_sq"], err)
    assert H.certified(got) == ref_small
    line = H.one_line(err, "recomputing 2 chunk(s)")
    assert "chunk-000000.json" in line and "chunk-000003.json" in line, line
    assert {r["index"] for r in got["run"]["rejected"]} == {0, 3}
    assert case.strays() == []  # the folder ck, made by peproof, goes with its last scan


def test_two_runs_on_one_checkpoint(case, ref_kill):
    """The second run waits for the first and says so; with --no-wait it is refused in one line.
    Caught: the first to finish deleted the folder and the other died with 'No such file'."""
    argv = scan(KILL, "--engine", "inline", "--no-confirm", "--checkpoint", "ck")
    first = case.start(*argv, "--out", "a.json")
    case.wait_for("ck/*/chunk-*.json", 1, first)
    second = case.start(*argv, "--out", "b.json")
    rc3, _, err3 = case.run(*argv, "--no-wait", "--out", "c.json")
    line = H.one_line(err3, "is in use by pid")
    assert rc3 == 2 and "--no-wait" in line, (rc3, line)
    rc1, _, err1 = case.finish(first)
    rc2, _, err2 = case.finish(second)
    assert rc1 == 0 and rc2 == 0, (err1, err2)
    assert "waiting for pid" in H.one_line(err2), err2
    for name in ("a.json", "b.json"):
        assert H.certified(H.from_json(case.work / name)) == ref_kill, name
    assert not (case.work / "c.json").exists()
    assert case.strays("a.json", "b.json", "ck") == []


def _main(case, capsys, *argv) -> tuple[int, str, str]:
    """The command in this process (output paths are not process faults), in the case's
    working folder."""
    from peproof.cli import main

    old = os.getcwd()
    os.chdir(case.work)
    try:
        rc = main([str(x) for x in argv])
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return rc, out, err


def test_out_through_a_symbolic_link_and_a_250_byte_name(case, ref_small, capsys):
    """A link ``--out`` writes the file it points to, whose name is 250 bytes long.  Caught:
    the link was replaced by a plain file and its target kept the old contents; a temporary
    name '.NAME.xxxxxxxx.tmp' past 255 bytes made the run fail after all its work
    (ENAMETOOLONG), the checkpoint already gone."""
    name = "é" * 60 + "s" * 125 + ".json"  # 250 bytes in UTF-8
    assert len(name.encode()) == 250
    target = case.work / "real" / name
    target.parent.mkdir()
    target.write_text("old")
    (case.work / "link.json").symlink_to(f"real/{name}")
    rc, _, err = _main(case, capsys, *scan(SMALL, "--no-confirm", "--out", "link.json"))
    assert rc == 0 and err == "", err
    assert (case.work / "link.json").is_symlink()
    assert H.certified(H.from_json(target)) == ref_small
    (case.work / "curve.npz").symlink_to("real/curve.npz")
    rc, _, err = _main(case, capsys, "rope-decay", "--d", "16", "--max-offset", "3000",
                       "--json", "--out", "curve.npz")
    assert rc == 0 and (case.work / "curve.npz").is_symlink(), err
    assert (case.work / "real" / "curve.npz").read_bytes()[:2] == b"PK"
    assert case.strays("real", "link.json", "curve.npz") == []
    assert sorted(p.name for p in target.parent.iterdir()) == ["curve.npz", name]


def test_vectors_replace_an_older_runs_set(case, capsys):
    """Caught: a second run into the same folder left the first run's files beside the new
    manifest (also when the first run was written by a peproof without a set record)."""
    v = ["vectors", "--d", "4", "--positions", "0:5", "--digits", "8", "--out", "v"]
    assert _main(case, capsys, *v)[0] == 0
    assert _main(case, capsys, *v, "--format", "csv", "--dtype", "float32")[0] == 0
    files = sorted(p.name for p in (case.work / "v").iterdir())
    assert files == [".peproof-set", ".peproof.lock", "manifest.json", "rounded_float32.csv",
                     "rounded_float64.csv", "vectors.csv"], files
    (case.work / "v" / ".peproof-set").unlink()  # as an older peproof left it
    assert _main(case, capsys, *v, "--format", "npy")[0] == 0
    files = sorted(p.name for p in (case.work / "v").iterdir() if not p.name.startswith("."))
    assert files == ["manifest.json", "positions.npy", "rounded_float64.npy",
                     "vectors_decimal.npy"], files
    from peproof.oracle.sinusoidal.vectors import verify

    assert verify(case.work / "v") == []


def test_temporary_names_are_bounded_and_links_followed(tmp_path):
    """Unit checks of the guard: a temporary name never passes 255 bytes whatever the target's
    name (multi-byte characters cut whole); a link chain is followed to its end, a loop named."""
    from peproof.guard import UsageError
    from peproof.guard.paths import NAME_MAX, out_file, resolve_link, temp_prefix, write_atomic

    for name in ("x" * 255, "é" * 127 + "x", "€" * 85, "a.json"):
        prefix = temp_prefix(name)
        assert len(os.fsencode(prefix)) + 8 + len(".tmp") <= NAME_MAX, name
        assert prefix.encode("utf-8").decode("utf-8")  # whole characters
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "one").symlink_to("real.json")
    (tmp_path / "two").symlink_to(tmp_path / "one")
    assert resolve_link(tmp_path / "two") == tmp_path / "real.json"
    assert write_atomic(tmp_path / "two", "new") == tmp_path / "real.json"
    assert (tmp_path / "real.json").read_text() == "new" and (tmp_path / "two").is_symlink()
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(UsageError, match="symbolic link"):
        out_file(tmp_path / "loop")
    long = tmp_path / ("é" * 125 + ".json")  # 254 bytes
    write_atomic(long, "x")
    assert long.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["real.json", "one", "two", "loop", long.name])


def test_a_key_that_cannot_be_kept_or_is_not_private(tmp_path, monkeypatch):
    """The key is made 0600 on first use and read back; a key folder that cannot be made, or a
    key file others may read, is not used: the process signs with a key of its own and says
    why (so nothing it signs is trusted by another run)."""
    from peproof.guard import keys

    try:
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        keys.user_key.cache_clear()
        key, why = keys.user_key()
        path = tmp_path / "state" / "peproof" / "checkpoint.key"
        assert why is None and path.read_bytes() == key and path.stat().st_mode & 0o777 == 0o600
        keys.user_key.cache_clear()
        assert keys.user_key() == (key, None)  # the same key in the next process
        path.chmod(0o644)
        keys.user_key.cache_clear()
        other, why = keys.user_key()
        assert other != key and "not private" in why
        (tmp_path / "file").write_text("x")
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "file"))
        keys.user_key.cache_clear()
        other, why = keys.user_key()
        assert other != key and why.startswith("cannot keep a key in")
    finally:
        keys.user_key.cache_clear()


def test_the_dead_worker_is_named_not_the_one_the_pool_stopped():
    """Two real pool workers; the one started last is killed with SIGKILL; the pool then stops
    the other itself (SIGTERM).  Once both are reaped the message names the killed pid and
    SIGKILL only.  Caught (issue 26): the message named the first worker of the pool's table,
    the one the pool had terminated, 'killed by SIGTERM' (the command-line case above depends
    on which exit code is collected first; this one does not)."""
    from concurrent.futures.process import BrokenProcessPool

    from peproof.guard import signals
    from peproof.numeric import engine

    with pytest.raises(BrokenProcessPool), signals.pool(2) as ex:
        futs = [ex.submit(time.sleep, 60) for _ in range(2)]
        procs = list(ex._processes.values())  # noqa: SLF001 - the pool's own table, in order
        assert len(procs) == 2
        victim = procs[-1]
        os.kill(victim.pid, signal.SIGKILL)
        futs[0].result(timeout=60)
    for p in procs:
        p.join(10)
    assert [p.exitcode for p in procs] == [-signal.SIGTERM, -signal.SIGKILL]
    msg = engine._death(procs)  # noqa: SLF001
    assert msg == (f"a worker process of the local pool (pid {victim.pid}) was killed by "
                   "SIGKILL (as the out-of-memory killer does)"), msg
