"""The all-or-nothing output folder (:mod:`peproof.guard.staging`, issue 26 item 2): swapped in
whole on success, untouched on a fault, and the fallback inside a target that is a mount point
(a real tmpfs, root only)."""

from __future__ import annotations

import os
import subprocess

import pytest

from peproof.guard.staging import StagedFolder, remove_stale


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _previous(folder):
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("old a")
    (folder / "gone.txt").write_text("old, not in the new set")
    (folder / "sub" / "b.txt").write_text("old b")


def _build(stage_path):
    """What a build does: rewrite a file, remove one, add one (the previous files are there)."""
    assert (stage_path / "sub" / "b.txt").read_text() == "old b"
    (stage_path / "a.txt").write_text("new a")
    (stage_path / "gone.txt").unlink()
    (stage_path / "c.txt").write_text("new c")


NEW = {"a.txt": "new a", "c.txt": "new c", "sub/b.txt": "old b"}


def test_commit_swaps_the_whole_folder(tmp_path):
    target = tmp_path / "rep"
    _previous(target)
    with StagedFolder(target) as st:
        _build(st.path)
        assert _tree(target)["a.txt"] == "old a"  # nothing visible before the commit
        st.commit()
    assert _tree(target) == NEW
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # no staged or previous folder


def test_a_fault_leaves_the_previous_folder(tmp_path):
    target = tmp_path / "rep"
    _previous(target)
    before = _tree(target)
    with pytest.raises(OSError), StagedFolder(target) as st:
        _build(st.path)
        raise OSError(28, "No space left on device")
    assert _tree(target) == before
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]


def test_stale_staged_folders_are_removed(tmp_path):
    target = tmp_path / "rep"
    _previous(target)
    st = StagedFolder(target).__enter__()  # a run killed before its exit: the folder stays
    assert st.path.exists()
    assert remove_stale(target) == [st.path] and not st.path.exists()
    assert (tmp_path / "other").mkdir() is None and remove_stale(target) == []


def test_a_mount_point_is_staged_inside(tmp_path):
    """The target is a mount point (a rename cannot cross it): staged inside, committed entry
    by entry, nothing of the staging left."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    target = tmp_path / "rep"
    target.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(target)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        _previous(target)
        with StagedFolder(target) as st:
            assert st.inside and st.path.parent == target
            _build(st.path)
            st.commit()
        assert _tree(target) == NEW
        assert sorted(p.name for p in target.iterdir()) == ["a.txt", "c.txt", "sub"]
        with pytest.raises(KeyboardInterrupt), StagedFolder(target) as st:
            (st.path / "a.txt").write_text("half")
            raise KeyboardInterrupt
        assert _tree(target) == NEW
        assert sorted(p.name for p in target.iterdir()) == ["a.txt", "c.txt", "sub"]
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)
