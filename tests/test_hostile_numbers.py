"""More hostile requests, each run as a real process (harness: ``conftest.py``): numbers past
what float64 or an index can hold, zero denominators, tables too small to fit a frequency, and
a command started with its stdout closed.

Each of these ended in "internal error" (exit code 3) before: an ``OverflowError`` from a
value such as ``1e309`` reaching float64, ``ZeroDivisionError`` from ``--base 1/0`` or
``--min-freq 0``, ``OverflowError`` from ``len()`` of a range of 2**1102 positions, a
``KeyError`` in the identification of a 2 x 2 table, an ``AttributeError`` writing to a
closed stdout.  Refusals are exit code 2, one line naming the option and what is allowed, no
traceback, no stray file.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from peproof.oracle import reference

CASES: dict[str, tuple] = {}


def simple(name, fragment, *argv, npy=None):
    def make(root):
        if npy is not None:
            np.save(root / "work" / "t.npy", npy)
        return list(argv)
    CASES[name] = (make, fragment)


GOOD = reference(64, 16)
simple("separation --max-pos 1e309", "below 2**63", "separation", "--d", "8", "--max-pos",
       "1e309")
simple("rope-decay --max-offset 10**30", "below 2**63", "rope-decay", "--d", "8",
       "--max-offset", "10**30")
simple("vectors --offset 1e309", "1.8e308", "vectors", "--d", "4", "--positions", "0:4",
       "--offset", "1e309", "--out", "v")
simple("vectors --scale 1e309", "1.8e308", "vectors", "--d", "4", "--positions", "0:4",
       "--scale", "1e309", "--out", "v")
simple("check --base 1e309", "1.8e308", "check", "t.npy", "--base", "1e309", npy=GOOD)
simple("check --min-freq 0", "min_freq must be a number > 0", "check", "t.npy", "--min-freq",
       "-0", npy=GOOD)
simple("separation --base 1/0", "base must be an exact number", "separation", "--d", "8",
       "--max-pos", "100", "--base", "1/0")
simple("vectors --positions step 2**-1100", "at most 2**62", "vectors", "--d", "4",
       "--positions", "0:4:2**-1100", "--out", "v")
# rope-decay had no estimate: d = 10**20 ran 18 s into a MemoryError, N = 10**11 would have
# run for days; now refused up front like separation and horizon
simple("rope-decay --d 10**20", "--allow-large", "rope-decay", "--d", str(10**20),
       "--max-offset", "100")
simple("rope-decay --max-offset 10**11", "--allow-large", "rope-decay", "--d", "128",
       "--max-offset", str(10**11))
simple("rope-decay --d 65536 --max-memory 1G", "over the limit of 1 GiB", "rope-decay", "--d",
       "65536", "--max-offset", "100", "--max-memory", "1G")



def _loop(root):
    os.symlink("b.npy", root / "work" / "a.npy")
    os.symlink("a.npy", root / "work" / "b.npy")
    return ["check", "a.npy"]


def _dangling(root):
    os.symlink("gone.npy", root / "work" / "a.npy")
    return ["check", "a.npy"]


# these were one line and exit 2 already, but lied: "no such file" for a link that exists,
# "empty (0 bytes)" for a /proc file full of text
CASES["symlink loop"] = (_loop, "loop of symbolic links")
CASES["dangling symlink"] = (_dangling, "points to gone.npy, which does not exist")
simple("/proc file", "not empty (a pseudo-file", "check", "/proc/self/status")


@pytest.fixture(scope="module", autouse=True)
def _prefetch(hostile):
    for key, (make, _) in CASES.items():
        hostile.start(f"numbers/{key}", make)
    hostile.start("numbers/2x2 table", lambda root: (
        np.save(root / "work" / "t.npy", GOOD[:2, :2]), ["check", "t.npy"])[1])


@pytest.mark.parametrize("key", list(CASES))
def test_refused_in_one_line(hostile, key):
    r = hostile.result(f"numbers/{key}")
    hostile.refused(r, CASES[key][1], seconds=30)
    assert r.out == "", r.out[:200]


def test_a_table_too_small_to_fit_a_frequency_is_judged(hostile):
    """Caught: ``KeyError: 'fit'`` (exit 3) identifying a 2 x 2 table."""
    r = hostile.result("numbers/2x2 table")
    assert r.rc in (0, 1), (r.rc, r.err[-2000:])
    assert r.err == "" and "verdict" in r.out, (r.err[-2000:], r.out[:500])
    assert not r.stray, r.stray


def test_stdout_closed_from_the_start(tmp_path):
    """Caught: ``AttributeError: 'NoneType' object has no attribute 'write'`` (exit 3) when
    started as ``peproof separation >&-``."""
    proc = subprocess.run(
        [sys.executable, "-m", "peproof.cli", "separation", "--d", "8", "--max-pos", "100"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        cwd=tmp_path, preexec_fn=lambda: os.close(1), timeout=120,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode in (0, 141), (proc.returncode, proc.stderr.decode()[-2000:])
    assert proc.stderr == b"", proc.stderr.decode()[-2000:]
    assert not list(tmp_path.iterdir())
