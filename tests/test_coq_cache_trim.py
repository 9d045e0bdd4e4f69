"""The Coq cache's kept entries are trimmed, the least recently used first
(:func:`peproof.kernel.coq.run.trim_entries`).

Every change of peproof's code or of its Coq library files the plans and results under new keys;
the old entries were never read again and never removed (141 MB of plans, 8,796 files, in a
developer's cache).  A cache hit marks its entry as used, so what a user runs keeps its entries
and what an older version wrote goes first."""

import os
import shutil
import time

import pytest

from peproof.kernel.coq import plans, run


def _entry(root, sub, name, size, age):
    folder = root / sub
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.json"
    p.write_bytes(b"x" * size)
    t = time.time() - age
    os.utime(p, (t, t))
    return p


def test_the_least_recently_used_entries_go_first_down_to_three_quarters(tmp_path):
    # 10 entries of 1000 bytes, entry k used k hours ago, half results and half plans
    made = [_entry(tmp_path, ("results", "plans")[k % 2], f"e{k}", 1000, 3600 * k)
            for k in range(10)]
    keep = [tmp_path / "lib-abc" / "Defs.vo", tmp_path / "results" / ".e99.json.1.2.tmp",
            tmp_path / "results" / "notes.txt"]
    for p in keep:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"y" * 5000)
    # 10000 bytes > 8000: removed down to 3/4 of 8000 = 6000, the four oldest
    assert run.trim_entries(tmp_path, limit=8000) == 4
    left = [p.exists() for p in made]
    assert left == [True] * 6 + [False] * 4, left  # the six most recent stay
    assert all(p.exists() for p in keep)  # the library, a file being written, anything else


def test_nothing_is_removed_under_the_limit(tmp_path):
    made = [_entry(tmp_path, "results", f"e{k}", 1000, k) for k in range(4)]
    assert run.trim_entries(tmp_path, limit=4000) == 0
    assert all(p.exists() for p in made)
    assert run.trim_entries(tmp_path / "absent", limit=0) == 0  # no folder: nothing to do


def test_a_hit_marks_its_entry_used(tmp_path):
    key = os.urandom(32)
    folder = tmp_path / "results"
    folder.mkdir()
    old = time.time() - 86400
    data = {"status": "checked", "reason": "", "assumptions": [], "seconds": 0.1}
    p = folder / "n1.json"
    run._write_cached(p, run.record(key, "result", "n1", data))
    os.utime(p, (old, old))
    assert run._read_cached(p, key, "n1") is not None
    assert p.stat().st_mtime > old + 3600
    # a miss (signed with another key) is not marked
    os.utime(p, (old, old))
    assert run._read_cached(p, os.urandom(32), "n1") is None
    assert p.stat().st_mtime == pytest.approx(old)
    # and a plan
    plans.store(tmp_path, key, "p1", {"job": None, "info": {}})
    q = tmp_path / "plans" / "p1.json"
    os.utime(q, (old, old))
    assert plans.load(tmp_path, key, "p1") is not None
    assert q.stat().st_mtime > old + 3600


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")
def test_a_pass_trims_the_cache_it_writes(tmp_path, monkeypatch):
    """A real pass: the cache holds an older version's entries; the pass keeps its own result
    and removes the old entries once the limit is passed."""
    old = [_entry(tmp_path, "results", f"old{k}", 4000, 86400 + k) for k in range(5)]
    monkeypatch.setattr(run, "CACHE_BYTES", 9000)
    job = run.Job("k1", "trim_one", "1 + 1 = 2", "lra", frozenset(), False)
    out = run.check_jobs([job], cache_dir=tmp_path)
    assert out["k1"].status == "checked", out["k1"].reason
    mine = [p for p in (tmp_path / "results").glob("*.json") if not p.name.startswith("old")]
    assert len(mine) == 1
    size = sum(p.stat().st_size for p in (tmp_path / "results").glob("*.json"))
    assert size <= 9000 * 3 // 4
    assert sum(p.exists() for p in old) < len(old)
    assert not old[-1].exists()  # the oldest went first
