"""``peproof report --out DIR`` written all or nothing, under real faults (issue 26, item 2).

Each case runs ``peproof report`` as a real process over a previous report of another claim (so
a half-done run would show as changed files): a disk with 40 KiB free (a real tmpfs, root only),
the disk filling mid-build, TeX killed by SIGKILL, SIGTERM while TeX runs.  The previous report
must stay byte for byte, no staged or partial folder may be left, and exactly one line on stderr
names the fault (the progress lines, ``peproof report: ...``, are not error messages).

Caught on the previous code: 40 KiB free gave exit 4, three lines, and a lock file left behind;
a first report on a disk that fills left its folder; a killed TeX or a SIGTERM left the new
``.tex`` over the previous report's (and a killed TeX removed its PDF).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

if "faults_harness" not in sys.modules:  # one copy for every test_faults* module
    _spec = importlib.util.spec_from_file_location(
        "faults_harness", Path(__file__).with_name("faults_harness.py"))
    sys.modules["faults_harness"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["faults_harness"])
H = sys.modules["faults_harness"]

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = "rotation.sin_angle_addition"  # the report already in the folder
NEW = "rotation.cos_angle_addition"  # the report the faulty run builds
QUICK = ("--numerics", "none", "--no-peers", "--workers", "1")

pytestmark = pytest.mark.timeout(900)


def _case(root: Path, state: Path, bin_dir: Path | None = None) -> H.Case:
    c = H.Case(root, state)
    paths = [str(ROOT), str(ROOT / "reports")]  # this tree's generator, not an installed one
    if c.env.get("PYTHONPATH"):
        paths.append(c.env["PYTHONPATH"])
    c.env["PYTHONPATH"] = os.pathsep.join(paths)
    c.env["PEPROOF_COQC"] = str(root / "no-coqc")  # the Coq column says 'coq not installed'
    if bin_dir is not None:
        c.env["PATH"] = f"{bin_dir}{os.pathsep}{c.env.get('PATH', '')}"
    return c


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file of a report and its hash (the folder's lock file, ``.peproof.lock``, is the
    lock a run holds, not a part of the report)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".peproof.lock"}


@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    """A report of :data:`PREVIOUS` (the .tex and a stand-in PDF: its bytes are what counts)."""
    root = tmp_path_factory.mktemp("previous")
    c = _case(root, tmp_path_factory.mktemp("state"))
    rc, out, err = c.run("report", PREVIOUS, *QUICK, "--no-pdf", "--out", "rep", timeout=600)
    assert rc == 0, err[-2000:]
    rep = c.work / "rep"
    (rep / "peproof-report.pdf").write_bytes(b"%PDF-1.5 the previous report\n")
    assert PREVIOUS in (rep / "results.json").read_text()
    return rep


@pytest.fixture
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("state")


def _fault_line(err: str, fragment: str) -> str:
    """Exactly one line names the fault; every other line is a progress line."""
    lines = err.strip().splitlines()
    faults = [ln for ln in lines if not ln.startswith("peproof report: ")]
    assert len(faults) == 1 and "Traceback" not in err, err[-3000:]
    assert faults[0].startswith("peproof: ") and fragment in faults[0], (fragment, faults)
    return faults[0]


def _fake_tex(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("pdflatex", "latexmk"):
        p = folder / name
        p.write_text("#!/bin/sh\n" + body + "\n")
        p.chmod(0o755)
    return folder


def _wait_line(proc, fragment: str) -> list[str]:
    seen = []
    while True:
        line = proc.stderr.readline()
        assert line, f"the run ended before {fragment!r}: {''.join(seen)}"
        seen.append(line)
        if fragment in line:
            return seen


def test_no_room_is_refused_before_the_work(tmp_path, state):
    """40 KiB free: refused at once, one line, exit 2, nothing written on that disk."""
    c = _case(tmp_path, state)
    with H.tmpfs(c.work / "disk", "1m"):
        ballast = H.fill(c.work / "disk")
        os.truncate(ballast, ballast.stat().st_size - 40 * 1024)
        rc, out, err = c.run("report", NEW, *QUICK, "--out", "disk/rep", timeout=300)
        line = H.one_line(err, "--out disk/rep: the report")
        assert rc == 2 and "free on the file system" in line and out == "", (rc, line)
        assert sorted(p.name for p in (c.work / "disk").iterdir()) == ["ballast"]
    assert c.strays("disk") == []


def test_disk_full_mid_build_leaves_nothing(tmp_path, state):
    """A first report on a disk that fills while the claims are decided: exit 4, one line
    naming the disk's fault and the folder, no folder left (not even its lock)."""
    c = _case(tmp_path, state)
    with H.tmpfs(c.work / "disk", "32m"):
        p = c.start("report", NEW, *QUICK, "--fresh", "--out", "disk/rep")
        seen = _wait_line(p, "deciding")
        os.killpg(p.pid, signal.SIGSTOP)  # nothing written between the line and the stop
        ballast = H.fill(c.work / "disk")
        os.killpg(p.pid, signal.SIGCONT)
        rc, out, err = c.finish(p, timeout=600)
        line = _fault_line("".join(seen) + err, "No space left on device")
        assert rc == 4 and "disk/rep is unchanged" in line, (rc, line)
        assert sorted(x.name for x in (c.work / "disk").iterdir()) == ["ballast"]
        ballast.unlink()
    assert c.strays("disk") == []


def test_killed_tex_keeps_the_previous_report(tmp_path, state, previous):
    """TeX killed by SIGKILL (the out-of-memory killer): exit 4, one line saying so, the
    previous report byte for byte (its PDF too), no staged folder."""
    c = _case(tmp_path, state, _fake_tex(tmp_path / "bin", "kill -KILL $$"))
    shutil.copytree(previous, c.work / "rep")
    before = _snapshot(c.work / "rep")
    rc, out, err = c.run("report", NEW, *QUICK, "--out", "rep", timeout=600)
    line = _fault_line(err, "was killed by SIGKILL")
    assert rc == 4 and "rep is unchanged" in line, (rc, line)
    assert _snapshot(c.work / "rep") == before
    assert sorted(x.name for x in c.work.iterdir()) == ["rep"]
    assert c.strays("rep") == []


def test_sigterm_while_tex_runs_keeps_the_previous_report(tmp_path, state, previous):
    """SIGTERM while TeX compiles: exit 143, one line, TeX stopped with it, the previous
    report byte for byte, no staged folder."""
    mark = tmp_path / "tex-started"
    c = _case(tmp_path, state, _fake_tex(tmp_path / "bin", f': > "{mark}"; exec sleep 120'))
    shutil.copytree(previous, c.work / "rep")
    before = _snapshot(c.work / "rep")
    p = c.start("report", NEW, *QUICK, "--out", "rep")
    import time

    t0 = time.monotonic()
    while not mark.exists():
        assert p.poll() is None, p.communicate()[1][-2000:]
        assert time.monotonic() - t0 < 600, "TeX never started"
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGTERM)
    rc, out, err = c.finish(p, timeout=120)  # also: no process of the group left (TeX too)
    _fault_line(err, "interrupted by SIGTERM")
    assert rc == 143
    assert _snapshot(c.work / "rep") == before
    assert sorted(x.name for x in c.work.iterdir()) == ["rep"]
    assert c.strays("rep") == []


def test_out_through_a_link_replaces_the_folder_it_points_to(tmp_path, state, previous):
    """``--out`` a symbolic link to the previous report: the new report lands in the folder
    the link points to, the link stays a link, nothing is left beside either (a swap of the
    link itself would replace it by a folder and leave the old link under a staged name)."""
    c = _case(tmp_path, state)
    shutil.copytree(previous, c.work / "real")
    (c.work / "link").symlink_to("real")
    rc, out, err = c.run("report", NEW, *QUICK, "--no-pdf", "--out", "link", timeout=600)
    assert rc == 0, err[-2000:]
    assert (c.work / "link").is_symlink() and os.readlink(c.work / "link") == "real"
    assert NEW in (c.work / "real" / "results.json").read_text()
    assert sorted(x.name for x in c.work.iterdir()) == ["link", "real"]
