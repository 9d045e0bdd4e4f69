"""Runs that share a Coq cache never replace each other's compiled library
(peproof/kernel/coq/run.py, ``build_library`` and ``library_dir``).

Seen in a test run: a pass compiled its batches against the library in the shared cache while
another run, which had started compiling the same library before it was there, finished and
replaced it; the first pass's audit then failed ("Compiled library PEBatch.batch0 makes
inconsistent assumptions over library PEProof.Defs") and its claims were "not checked in Coq".
Now a library built meanwhile with the same key is used, and runs with different keys (a
test's process key beside the user's) keep one folder each.

A fake ``coqc`` (a shell script that writes each module's compiled file) stands for Coq: what is
tested is where the real ``build_library`` installs, reads and replaces libraries."""

from __future__ import annotations

import stat
from pathlib import Path

from peproof.kernel.coq import run

FAKE = """#!/bin/sh
for a in "$@"; do last="$a"; done
name=$(basename "$last" .v)
echo "compiled by $$" > "$(dirname "$last")/$name.vo"
"""
VERSION = "8.16.1"
#: the real function (tests/conftest.py wraps it to copy a compiled library, one build per
#: folder at a time: the nested build below would wait for itself)
build_library = getattr(run.build_library, "__wrapped__", run.build_library)


def _fake(tmp_path: Path) -> str:
    exe = tmp_path / "coqc"
    exe.write_text(FAKE)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def _inodes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in folder.iterdir()}


def test_a_library_built_meanwhile_with_the_same_key_is_used_not_replaced(tmp_path,
                                                                          monkeypatch):
    exe, root, key = _fake(tmp_path), tmp_path / "cache", b"k" * 32
    lh = run.library_hash(VERSION)
    dest = run.library_dir(root, lh, key)
    real = run._compile_modules
    theirs = {}

    def meanwhile(*args, **kwargs):
        # another run, started later, installs the same library while this one compiles
        monkeypatch.setattr(run, "_compile_modules", real)
        other = build_library(exe, VERSION, root, key)
        assert other.path == dest and not other.fault
        theirs.update(_inodes(dest))
        return real(*args, **kwargs)

    monkeypatch.setattr(run, "_compile_modules", meanwhile)
    lib = build_library(exe, VERSION, root, key)
    assert theirs, "the other run did not install its library"
    assert lib.path == dest and not lib.fault, lib
    assert _inodes(dest) == theirs, "the library another run installed was replaced"
    assert [p.name for p in root.iterdir()] == [dest.name], list(root.iterdir())


def test_two_keys_keep_two_libraries(tmp_path):
    exe, root = _fake(tmp_path), tmp_path / "cache"
    lh = run.library_hash(VERSION)
    first = build_library(exe, VERSION, root, b"1" * 32)
    kept = _inodes(first.path)
    second = build_library(exe, VERSION, root, b"2" * 32)
    assert first.path != second.path and not first.fault and not second.fault
    assert run._load_library(first.path, lh, b"1" * 32) is not None
    assert _inodes(first.path) == kept
    # each run reads its own again, nothing compiled
    assert build_library(exe, VERSION, root, b"1" * 32).path == first.path
    assert _inodes(first.path) == kept


def test_a_damaged_library_of_this_key_is_still_replaced(tmp_path):
    exe, root, key = _fake(tmp_path), tmp_path / "cache", b"k" * 32
    lib = build_library(exe, VERSION, root, key)
    vo = next(lib.path.glob("*.vo"))
    vo.write_text("damaged")
    again = build_library(exe, VERSION, root, key)
    assert again.path == lib.path and not again.fault
    assert vo.read_text() != "damaged"
    assert run._load_library(lib.path, run.library_hash(VERSION), key) is not None


def _version_script(tmp_path: Path, body: str) -> str:
    exe = tmp_path / "coqc-version"
    tmp = tmp_path / "coqc-version.new"  # replaced, not rewritten: a new file, as an upgrade
    tmp.write_text("#!/bin/sh\n" + body + "\n")
    tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR)
    tmp.replace(exe)
    return str(exe)


def test_the_version_is_read_once_per_executable_and_again_when_it_changes(tmp_path):
    """``coq_version`` asks an executable once per process; another executable (or the same
    path replaced, as an upgrade does) is asked again, and a version that could not be read
    (exit code 1, no output) is never remembered."""
    count = tmp_path / "asked"
    exe = _version_script(tmp_path, f'echo x >> {count}; echo "8.16.1 compiled with OCaml"')
    assert run.coq_version(exe) == "8.16.1" and run.coq_version(exe) == "8.16.1"
    assert count.read_text().count("x") == 1
    exe = _version_script(tmp_path, f'echo x >> {count}; echo "8.17.0 compiled with OCaml"')
    assert run.coq_version(exe) == "8.17.0"
    exe = _version_script(tmp_path, f"echo x >> {count}; exit 1")
    assert run.coq_version(exe) is None and run.coq_version(exe) is None
    assert count.read_text().count("x") == 4
    assert run.coq_version(str(tmp_path / "absent")) is None


def test_the_sweep_removes_only_what_no_live_run_holds(tmp_path):
    """``_sweep`` removes a work folder whose owner is gone (its lock free) and an ownerless one
    older than the grace period; never one whose lock a live process holds (here another
    process), an ownerless one just made, one still being made (``.new-``, its lock perhaps
    not yet taken), or anything else.  ``_owned_tempdir`` hands out the folder locked."""
    import os
    import subprocess
    import sys
    import time

    live, _ = run._owned_tempdir("lib-build-", tmp_path)
    assert live.name.startswith("lib-build-") and (live / ".owner").exists()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         f"fd = os.open({str(live / '.owner')!r}, os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); "
         "print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        run._release(None, _)  # this process lets go: only the other holds it now
        assert holder.stdout.readline().strip() == "held"
        dead, fd = run._owned_tempdir("peproof-coq-", tmp_path)
        os.close(fd)  # its run ended without removing it (as SIGKILL leaves it)
        young = tmp_path / "lib-build-young"
        young.mkdir()
        old = tmp_path / ".stale-lib-x-1"
        old.mkdir()
        os.utime(old, (time.time() - 2 * run._UNOWNED_GRACE,) * 2)
        other = tmp_path / "lib-0123-abcd"
        other.mkdir()
        being_made = tmp_path / ".new-peproof-coq-abcd"  # its run about to take the lock
        being_made.mkdir()
        (being_made / ".owner").write_text("")
        removed = run._sweep(tmp_path)
        assert sorted(removed) == sorted([dead.name, old.name])
        assert live.exists() and young.exists() and other.exists() and being_made.exists()
    finally:
        holder.kill()
        holder.wait()
    assert run._sweep(tmp_path) == [live.name]  # its holder gone


def test_a_file_system_without_locks_keeps_every_folder(tmp_path, monkeypatch):
    """Where ``flock`` is refused (ENOLCK: some NFS mounts) a run still gets its work folder,
    and a sweep, whose own ``flock`` is refused too, removes none of them: as before the
    sweep existed, never a live run's folder."""
    import errno

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(run.fcntl, "flock", no_locks)
    mine, fd = run._owned_tempdir("peproof-coq-", tmp_path)
    try:
        assert mine.is_dir() and mine.name.startswith("peproof-coq-")
        other, fd2 = run._owned_tempdir("lib-build-", tmp_path)
        run._release(None, fd2)  # its run ended (or lives elsewhere): no lock says which
        assert run._sweep(tmp_path) == [] and mine.is_dir() and other.is_dir()
    finally:
        run._release(mine, fd)
