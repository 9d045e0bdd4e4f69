"""Benchmark of ``make test`` (issue 26: at most 5 minutes on 2 idle cores). Figures of ONE run.

Runs the fast suites (``pytest proofs tests numeric -m "not slow"``, or the paths given) twice
in this one session: in one process (``-p no:xdist``, as ``make test`` ran before) and on the
xdist workers ``make test`` uses now (``-n auto --dist loadfile``), and prints for each the wall
time, the CPU time of the whole process tree (``RUSAGE_CHILDREN``: what the suite itself used,
whatever else shares the machine), the pytest summary line, and the ratios between the two.  The
load average is printed beside them: above ~1 the wall times include waiting for a core.

    python benchmarks/bench_make_test.py                    # the whole fast suite (~15 min idle)
    python benchmarks/bench_make_test.py tests/test_cli.py  # a subset
    python benchmarks/bench_make_test.py --parallel-only    # the make test figure alone
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 300.0  # seconds of ``make test`` on 2 idle cores


def run(paths: list[str], extra: list[str]) -> tuple[float, float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pytest", *paths, "-q", "-m", "not slow", *extra],
                       cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = r.stdout.strip().splitlines()
    return wall, cpu, (lines[-1] if lines else r.stderr[-300:]), r.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["proofs", "tests", "numeric"])
    ap.add_argument("--parallel-only", action="store_true")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at the start")
    runs = [("xdist (make test)", ["-n", "auto", "--dist", "loadfile"])]
    if not args.parallel_only:
        runs.insert(0, ("one process", ["-p", "no:xdist"]))
    got = {}
    for name, extra in runs:
        wall, cpu, last, rc = run(args.paths, extra)
        got[name] = (wall, cpu)
        print(f"{name:18s}: {wall:7.1f} s wall, {cpu:7.1f} s CPU, exit {rc}: {last}; "
              f"load average now {os.getloadavg()[0]:.2f}")
    wall, cpu = got["xdist (make test)"]
    if args.paths == ["proofs", "tests", "numeric"]:
        print(f"make test: ratio to the {TARGET:.0f} s target {wall / TARGET:.2f} (<= 1 is met)")
    if "one process" in got:
        w1, c1 = got["one process"]
        print(f"speed-up of the wall time {w1 / wall:.2f}x; CPU overhead of the workers "
              f"{cpu / c1:.2f}x")


if __name__ == "__main__":
    main()
