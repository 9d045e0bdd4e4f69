"""Full and read-only disks under a long scan, on real tmpfs mounts (root only; skipped with the
reason otherwise) -- issue 19, items 2, 5 and 6.

Caught on the previous code: the checkpoint was deleted before ``--out`` was written, so a full
output disk lost every finished chunk (the rerun started from chunk 0); a full or read-only
checkpoint disk gave 'cannot run on the engine: [Errno 28] ...' without the path; nothing was
checked for room before the work.  Now: refused before the work when the room is missing (exit
code 2, the sizes named), or one line with the path and exit code 4 when the disk fills or turns
read-only during the work, and the rerun resumes to the undisturbed run's result.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

if "faults_harness" not in sys.modules:  # one copy for every test_faults* module
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
H = sys.modules["faults_harness"]

P = dict(d=2048, n=3 * 10**6, chunk=1 << 16)  # 46 chunks, a few seconds inline
CHUNKS = 46


def scan(*extra) -> list[str]:
    return ["separation", "--d", P["d"], "--max-pos", P["n"], "--chunk", P["chunk"], "--json",
            "--engine", "inline", *extra]


_mount, tmpfs, fill = H.mount, H.tmpfs, H.fill  # shared with test_faults_report


@pytest.fixture(scope="module")
def ref():
    return H.reference(**P)


@pytest.fixture
def case(tmp_path, tmp_path_factory):
    c = H.Case(tmp_path, tmp_path_factory.mktemp("state"))
    yield c
    c.kill_all()


def test_checkpoint_disk_fills_then_turns_read_only(case, ref):
    """The checkpoint's disk fills mid-scan (exit 4, the chunk file named), then, freed and
    resumed, turns read-only mid-scan (exit 4, 'Read-only file system'); the last rerun ends in
    the undisturbed result."""
    with tmpfs(case.work / "disk", "512k"):
        argv = scan("--no-confirm", "--checkpoint", "disk/ck", "--out", "r.json")
        p = case.start(*argv)
        case.wait_chunks("disk/ck", 2, p)
        ballast = fill(case.work / "disk")
        rc, out, err = case.finish(p)
        line = H.one_line(err, "No space left on device writing the checkpoint disk/ck/")
        assert rc == 4 and "run the same command again to resume" in line, (rc, line)
        ballast.unlink()
        saved = case.wait_saved("disk/ck", 0)
        p = case.start(*argv)
        case.wait_chunks("disk/ck", saved + 2, p)
        scan_dir = next(x for x in (case.work / "disk" / "ck").iterdir() if x.is_dir())
        _mount(scan_dir, "ro,size=4k")  # the folder turns read-only under the run
        rc, out, err = case.finish(p)
        subprocess.run(["umount", "-l", str(scan_dir)], check=True)
        line = H.one_line(err, "Read-only file system writing the checkpoint")
        assert rc == 4 and "chunks saved in disk/ck" in line, (rc, line)
        rc, out, err = case.run(*argv)
        assert rc == 0 and err == "", err
        got = H.from_json(case.work / "r.json")
        assert got["run"]["resumed"] >= saved + 2 and H.certified(got) == ref
        assert [p.name for p in (case.work / "disk").iterdir()] == []
    assert case.strays("r.json", "disk") == []


def test_output_disk_fills_after_the_work(case, ref):
    """Every chunk saved, then the output's disk is full when the result is written: exit 4
    naming the output and where the chunks are; the rerun resumes every chunk and writes it."""
    with tmpfs(case.work / "out", "256k"):
        argv = scan("--checkpoint", "ck", "--out", "out/r.json")  # the mpmath evidence last
        p = case.start(*argv)
        assert case.wait_chunks("ck", CHUNKS, p) == CHUNKS
        ballast = fill(case.work / "out")
        rc, out, err = case.finish(p)
        line = H.one_line(err, "No space left on device writing out/r.json; the finished chunks "
                               "stay in ck")
        assert rc == 4 and out == "", (rc, line)
        assert [x.name for x in (case.work / "out").iterdir()] == ["ballast"]  # nothing half
        ballast.unlink()
        rc, out, err = case.run(*argv)
        assert rc == 0 and err == "", err
        got = H.from_json(case.work / "out" / "r.json")
        assert got["run"]["resumed"] == CHUNKS and H.certified(got) == ref
    assert case.strays("out") == []


def test_no_room_is_refused_before_the_work(case):
    """A full output disk, a full checkpoint disk and a vectors folder too small for its
    estimated output: each refused at once, in one line with the sizes, exit code 2."""
    with tmpfs(case.work / "full", "64k"):
        fill(case.work / "full")
        for argv, fragment in (
                (scan("--out", "full/r.json"), "--out full/r.json: the output and the checkpoint "
                                               "would take about"),
                (scan("--checkpoint", "full/ck"), "--checkpoint full/ck: the checkpoint would "
                                                  "take about"),
                (["vectors", "--d", "64", "--positions", "0:2000", "--digits", "20", "--out",
                  "full/v"], "--out full/v: the vectors would take about")):
            rc, out, err = case.run(*argv, timeout=60)
            line = H.one_line(err, fragment)
            assert rc == 2 and "is free on the file system of" in line and out == "", line
        assert sorted(x.name for x in (case.work / "full").iterdir()) == ["ballast"]
    assert case.strays("full") == []
