"""The shared guards (``peproof.guard``): exact positions, estimates, atomic writes, pools.

The end-to-end behaviour is in ``test_hostile_*.py``; here each mechanism is pinned where a
mistake would hide: a position routed through float64, an estimate that allocates, a writer
that ignores the umask, a pool that waits for its workers instead of stopping them.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from peproof.cli import main
from peproof.guard import UsageError, signals
from peproof.guard import positions as P
from peproof.guard.limits import Estimate, Limits, human_bytes, parse_size
from peproof.guard.paths import out_file, out_folder, write_atomic
from peproof.guard.signals import pool, stop

BIG = 2**53


# ----------------------------------------------------------------------------- positions
def test_ranges_are_exact_and_never_materialised():
    r = P.parse("0:10**12")
    assert len(r) == 10**12 and r[-1] == 10**12 - 1  # instantly: no array of 10**12
    odd = P.parse(f"{BIG + 1}:{BIG + 4}")
    assert list(odd) == [BIG + 1, BIG + 2, BIG + 3]  # float64 would give BIG, BIG+2, BIG+4
    assert list(P.parse("-5:5")) == list(range(-5, 5))
    assert list(P.parse("10:0:-3")) == [10, 7, 4, 1]
    thirds = list(P.parse("0:1:1/3"))
    assert thirds == [0, Fraction(1, 3), Fraction(2, 3)]
    assert len(P.parse("0:1:0.1")) == 10  # 0.1 is read as 1/10, not as a double
    assert list(P.parse("2**53+1:2**53+3")) == [BIG + 1, BIG + 2]


@pytest.mark.parametrize("text", ["1:x", "5", "0:5:0", "nan:5", "1:2:3:4", "0:1e99999",
                                  "0:10**10**10", "0:__import__('os')", "0:2**0.5"])
def test_bad_ranges_are_one_line(text):
    with pytest.raises(UsageError) as e:
        P.parse(text)
    assert "\n" not in str(e.value)


def test_formats_hold_positions_exactly_or_refuse():
    assert P.json_values([0, BIG]) == [0, BIG]  # numbers a float64 reader holds
    assert P.json_values([0, BIG + 1]) == ["0", str(BIG + 1)]  # all strings past 2**53
    assert P.json_values([Fraction(1, 4)]) == ["0.25"]
    assert P.text(Fraction(-1, 3)) == "-1/3" and P.text(Fraction(-3, 40)) == "-0.075"
    a = P.npy_array([BIG + 1, -(2**63)])
    assert a.dtype == np.int64 and int(a[0]) == BIG + 1
    assert P.npy_array([Fraction(1, 4)]).dtype == np.float64
    with pytest.raises(UsageError, match="int64"):
        P.npy_array([2**63])
    with pytest.raises(UsageError, match="float64 number"):
        P.npy_array([Fraction(1, 3)])
    assert P.parse(f"{BIG - 1}:{BIG + 1}").float64().tolist() == [BIG - 1, BIG]
    with pytest.raises(UsageError, match="not a float64 number"):
        P.parse(f"{BIG}:{BIG + 2}").float64()


def _mp_entry(pos: Fraction, j: int, d: int, digits: int) -> str:
    with mpmath.workdps(digits + 40):
        w = mpmath.power(10000, -mpmath.mpf(2 * (j // 2)) / d)
        x = mpmath.mpf(pos.numerator) / pos.denominator * w
        return (mpmath.sin if j % 2 == 0 else mpmath.cos)(x)


@pytest.mark.parametrize("fmt", ["json", "csv", "npy"])
def test_vectors_past_2_53_are_the_positions_asked_for(tmp_path, capsys, fmt):
    """Caught: positions through float64 (rows for 2**53, 2**53+2, 2**53+4; exit 0)."""
    out = tmp_path / "v"
    assert main(["vectors", "--d", "4", "--positions", f"{BIG + 1}:{BIG + 4}", "--digits",
                 "30", "--format", fmt, "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["parameters"]["positions"]["first"] == str(BIG + 1)
    if fmt == "json":
        doc = json.loads((out / "vectors.json").read_text())
        pos = [int(p) for p in doc["positions"]]
        vals = doc["values"]
        f64 = [[float.fromhex(x) for x in row] for row in doc["rounded_hex"]["float64"]]
    elif fmt == "csv":
        rows = (out / "vectors.csv").read_text().splitlines()[1:]
        pos = [int(r.split(",")[0]) for r in rows]
        vals = [r.split(",")[1:] for r in rows]
        f64 = [[float.fromhex(x) for x in r.split(",")[1:]]
               for r in (out / "rounded_float64.csv").read_text().splitlines()[1:]]
    else:
        pos = np.load(out / "positions.npy").tolist()
        vals = np.load(out / "vectors_decimal.npy").tolist()
        f64 = np.load(out / "rounded_float64.npy").tolist()
    assert pos == [BIG + 1, BIG + 2, BIG + 3]
    with mpmath.workdps(80):
        for k, p in enumerate(pos):
            for j in range(4):
                exact = _mp_entry(Fraction(p), j, 4, 30)
                assert abs(mpmath.mpf(vals[k][j]) - exact) < mpmath.mpf(10) ** -29, (p, j)
                assert f64[k][j] == float(exact), (p, j)  # mpmath rounds to nearest
    assert vals[0] != vals[1]


def test_vectors_at_10_21_are_distinct_and_exact(tmp_path):
    """Caught: position 10**21 written twice (10**21 + 1 rounded to 10**21 in float64)."""
    out = tmp_path / "v"
    assert main(["vectors", "--d", "2", "--positions", "10**21:10**21+2", "--digits", "20",
                 "--out", str(out)]) == 0
    doc = json.loads((out / "vectors.json").read_text())
    assert doc["positions"] == [str(10**21), str(10**21 + 1)]  # strings past 2**53
    with mpmath.workdps(80):
        for k, p in enumerate((10**21, 10**21 + 1)):
            assert abs(mpmath.mpf(doc["values"][k][0]) - _mp_entry(Fraction(p), 0, 2, 20)) \
                < mpmath.mpf(10) ** -19


def test_fractional_steps_are_exact(tmp_path):
    out = tmp_path / "v"
    assert main(["vectors", "--d", "2", "--positions", "0:1:1/3", "--digits", "20",
                 "--out", str(out)]) == 0
    doc = json.loads((out / "vectors.json").read_text())
    assert doc["positions"] == ["0", "1/3", "2/3"]
    with mpmath.workdps(80):
        got = mpmath.mpf(doc["values"][1][0])
        assert abs(got - _mp_entry(Fraction(1, 3), 0, 2, 20)) < mpmath.mpf(10) ** -19


# ----------------------------------------------------------------------------- limits
@pytest.mark.parametrize("argv,flag", [
    (["separation", "--d", "100000000"], "--max-memory"),
    (["separation", "--d", "512", "--max-pos", "10**12"], "--allow-large"),
    (["horizon", "--d", "512", "--max-pos", "10**12"], "--max-memory"),
    (["horizon", "--d", "512", "--max-pos", "10**12", "--max-memory", "1P"], "--allow-large"),
    (["vectors", "--d", "512", "--positions", "0:10**12"], "--max-memory"),
])
def test_absurd_requests_are_refused_within_a_second(capsys, argv, flag):
    """Caught: an estimate that allocates or computes (the time excludes the imports)."""
    main(argv)
    capsys.readouterr()
    t0 = time.perf_counter()
    assert main(argv) == 2
    seconds = time.perf_counter() - t0
    err = capsys.readouterr().err.strip()
    assert flag in err and "about" in err and len(err.splitlines()) == 1, err
    assert seconds < 1.0, seconds


def test_estimates_refuse_only_beyond_the_limits():
    small = Estimate("x", 2**20, 1.0)
    Limits().enforce(small)
    with pytest.raises(UsageError, match="--max-memory"):
        Limits(max_memory=2**19).enforce(small)
    slow = Estimate("x", 1, 10**6)
    with pytest.raises(UsageError, match="--allow-large"):
        Limits().enforce(slow)
    Limits(allow_large=True).enforce(slow)
    assert parse_size("1.5G") == 3 * 2**29 and parse_size("512m") == 2**29
    assert human_bytes(3 * 2**30) == "3 GiB"


def test_the_default_report_numerics_are_within_the_limits():
    """The limits must not refuse what ``make report`` runs (every d at N = 62832)."""
    from peproof.commands.horizon import horizon_estimate
    from peproof.commands.separation import estimate
    from peproof.numeric import D_ALL, N_TURN

    Limits().enforce(estimate(list(D_ALL), N_TURN, sample=8))
    Limits().enforce(horizon_estimate(list(D_ALL), N_TURN, 20))


# ----------------------------------------------------------------------------- files
def test_atomic_write_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "a.txt", "hello")
        write_atomic(tmp_path / "b.bin", b"\0\1")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "b.bin").read_bytes() == b"\0\1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin"]


def test_out_paths_are_checked_up_front(tmp_path):
    with pytest.raises(UsageError, match="is a directory"):
        out_file(tmp_path)
    with pytest.raises(UsageError, match="does not exist"):
        out_file(tmp_path / "no" / "x.json")
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="not a directory"):
        out_folder(tmp_path / "f")
    assert out_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # validated, not created
    assert list(tmp_path.iterdir()) == [tmp_path / "f"]  # the probe left nothing


# ----------------------------------------------------------------------------- pools
def _sleep(s):
    time.sleep(s)
    return s


def test_pool_stops_its_workers_instead_of_waiting():
    """Caught: ``with ProcessPoolExecutor()`` waiting for running work after an interrupt."""
    with pytest.raises(KeyboardInterrupt):
        with pool(2) as ex:
            futs = [ex.submit(_sleep, 60) for _ in range(4)]
            deadline = time.monotonic() + 30
            while not all(f.running() for f in futs[:2]) and time.monotonic() < deadline:
                time.sleep(0.05)
            procs = list(ex._processes.values())
            t0 = time.perf_counter()
            raise KeyboardInterrupt
    assert time.perf_counter() - t0 < 20  # not the 60 s the running tasks would take
    # read from /proc, not ``is_alive`` (which can call a worker the executor's thread is
    # reaping "started"); a zombie has stopped running.  A worker whose exit has begun (its
    # sentinel closed) takes a moment more to become one on a loaded machine.
    end = time.monotonic() + 5
    while any(signals._alive(p.pid) for p in procs) and time.monotonic() < end:
        time.sleep(0.01)
    assert len(procs) == 2 and not any(signals._alive(p.pid) for p in procs), procs
    assert all(f.cancelled() or f.done() for f in futs)


def test_stop_takes_any_executor():
    ex = ThreadPoolExecutor(1)
    ex.submit(time.sleep, 0.2)
    queued = ex.submit(time.sleep, 5)
    stop(ex)
    assert queued.cancelled()


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != ".peproof.lock"}


@pytest.mark.parametrize("failure", ["disk full", "interrupt"])
def test_a_failed_vectors_write_leaves_the_folder_as_it_was(tmp_path, monkeypatch, capsys, failure):
    """Caught: new vector files beside the old manifest (its checksums then lie), or a folder
    left without its manifest, when the disk fills or Ctrl-C comes in the middle of a write."""
    import errno

    import peproof.guard.paths as G
    from peproof.oracle.sinusoidal.vectors import verify

    out = tmp_path / "v"
    argv = ["vectors", "--d", "4", "--digits", "8", "--format", "csv", "--dtype", "float32",
            "--out", str(out)]
    assert main([*argv, "--positions", "0:3"]) == 0
    before = _snapshot(out)
    real, calls = G._stage, []

    def fails_on_the_second_file(path, raw):
        calls.append(path)
        if len(calls) == 2:
            if failure == "interrupt":
                raise KeyboardInterrupt
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, raw)

    monkeypatch.setattr(G, "_stage", fails_on_the_second_file)
    capsys.readouterr()
    code = main([*argv, "--positions", "0:5"])
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    if failure == "interrupt":
        assert code == 130 and err == "peproof: interrupted"
    else:
        # a full disk is the machine's fault, not bad input: exit code 4 (issue 19)
        assert code == 4 and err.startswith("peproof: environment fault: No space left on "
                                            "device"), (code, err)
    assert len(calls) == 2
    assert _snapshot(out) == before  # the old vectors and their manifest, byte for byte
    assert verify(out) == []
    monkeypatch.setattr(G, "_stage", real)
    assert main([*argv, "--positions", "0:5"]) == 0 and verify(out) == []
    assert _snapshot(out) != before


def test_the_signing_key_follows_the_state_folder(tmp_path, monkeypatch):
    """A process that read its key once and then signs for a child given another state folder
    (XDG_STATE_HOME) signs with the child's key, not the first one it read (under xdist a
    worker's earlier test read the default key, and a checkpoint it signed for a child with its
    own state folder was 'not signed with this user's checkpoint key')."""
    from peproof.guard import keys

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a"))
    first = keys.user_key()[0]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "b"))
    second = keys.user_key()[0]
    assert first != second
    assert second == (tmp_path / "b" / "peproof" / "checkpoint.key").read_bytes()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "a"))
    assert keys.user_key()[0] == first == (tmp_path / "a" / "peproof" /
                                          "checkpoint.key").read_bytes()
