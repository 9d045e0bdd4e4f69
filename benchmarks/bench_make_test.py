"""Benchmark of ``make test`` (issue 26: at most 5 minutes on 2 idle cores). Figures of ONE run.

Runs the fast suites (``pytest proofs tests numeric -m "not slow"``, or the paths given) twice
in this one session: in one process (``-p no:xdist``, as ``make test`` ran before) and on the
xdist workers ``make test`` uses now (``-n auto --dist loadfile``), and prints for each the wall
time, the CPU time of the whole process tree (``RUSAGE_CHILDREN``: what the suite itself used,
whatever else shares the machine), the pytest summary line, and the ratios between the two.  The
load average is printed beside them: above ~1 the wall times include waiting for a core.

The CPU floor is the CPU time divided by the cores: the wall time no scheduling of this work can
beat on this machine (the target needs CPU <= cores x 300 s).  ``--coqc`` also puts a logging
``coqc`` first on ``PATH`` (it runs the real one, forwards SIGINT / SIGTERM, dies with it and
exits as it does) and prints the number of coqc runs and their CPU time: the share of the work
that is Coq's kernel, which no change to peproof's Python can shorten.

    python benchmarks/bench_make_test.py                    # the whole fast suite (~15 min idle)
    python benchmarks/bench_make_test.py tests/test_cli.py  # a subset
    python benchmarks/bench_make_test.py --parallel-only    # the make test figure alone
    python benchmarks/bench_make_test.py --parallel-only --coqc  # and the coqc share
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 300.0  # seconds of ``make test`` on 2 idle cores


#: the logging coqc of ``--coqc`` (a Python script run by this interpreter)
SHIM = """#!{python}
import ctypes, json, os, signal, sys
real = os.environ["PEPROOF_BENCH_REAL_COQC"]
pid = os.fork()
if pid == 0:
    try:  # PR_SET_PDEATHSIG: the real coqc never outlives this process (a test kills it)
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    os.execv(real, [real] + sys.argv[1:])
for s in (signal.SIGTERM, signal.SIGINT):
    signal.signal(s, lambda n, f: os.kill(pid, n))
_, status, ru = os.wait4(pid, 0)
with open(os.path.join(os.environ["PEPROOF_BENCH_COQC_LOG"], str(os.getpid())), "w") as fh:
    json.dump({{"cpu": ru.ru_utime + ru.ru_stime}}, fh)
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def coqc_shim(folder: Path) -> dict | None:
    """The environment that puts the logging coqc of ``folder`` first on PATH (None: no coqc)."""
    real = shutil.which("coqc")
    if real is None:
        return None
    (folder / "bin").mkdir()
    (folder / "log").mkdir()
    shim = folder / "bin" / "coqc"
    shim.write_text(SHIM.format(python=sys.executable))
    shim.chmod(0o755)
    return {"PATH": f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "PEPROOF_BENCH_REAL_COQC": real, "PEPROOF_BENCH_COQC_LOG": str(folder / "log")}


def coqc_runs(folder: Path) -> tuple[int, float]:
    """(runs, CPU seconds) the logging coqc recorded."""
    cpu = [json.loads(p.read_text())["cpu"] for p in (folder / "log").iterdir()]
    return len(cpu), sum(cpu)


def run(paths: list[str], extra: list[str], env: dict | None = None
        ) -> tuple[float, float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pytest", *paths, "-q", "-m", "not slow", *extra],
                       cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = r.stdout.strip().splitlines()
    return wall, cpu, (lines[-1] if lines else r.stderr[-300:]), r.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["proofs", "tests", "numeric"])
    ap.add_argument("--parallel-only", action="store_true")
    ap.add_argument("--coqc", action="store_true",
                    help="also count the coqc runs of the make test run and their CPU time")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at the start")
    runs = [("xdist (make test)", ["-n", "auto", "--dist", "loadfile"])]
    if not args.parallel_only:
        runs.insert(0, ("one process", ["-p", "no:xdist"]))
    got = {}
    shim = Path(tempfile.mkdtemp(prefix="bench-make-test-")) if args.coqc else None
    try:
        env = coqc_shim(shim) if shim else None
        if shim and env is None:
            print("--coqc: no coqc on PATH, nothing to count")
        for name, extra in runs:
            wall, cpu, last, rc = run(args.paths, extra, env if "make" in name else None)
            got[name] = (wall, cpu)
            print(f"{name:18s}: {wall:7.1f} s wall, {cpu:7.1f} s CPU, exit {rc}: {last}; "
                  f"load average now {os.getloadavg()[0]:.2f}")
        coq = coqc_runs(shim) if env else None
    finally:
        if shim:
            shutil.rmtree(shim, ignore_errors=True)
    wall, cpu = got["xdist (make test)"]
    cores = os.cpu_count() or 1
    whole = args.paths == ["proofs", "tests", "numeric"]
    if whole:
        print(f"make test: ratio to the {TARGET:.0f} s target {wall / TARGET:.2f} (<= 1 is met)")
    print(f"CPU floor on {cores} cores: {cpu / cores:.1f} s (CPU / cores: the wall time no "
          f"scheduling beats)" + (f", ratio to the target {cpu / cores / TARGET:.2f}; the "
                                  f"target needs CPU <= {cores * TARGET:.0f} s" if whole else ""))
    if coq:
        n, c = coq
        print(f"coqc: {n} runs, {c:.1f} s CPU ({c / cpu:.0%} of the CPU time); everything else "
              f"{cpu - c:.1f} s")
    if "one process" in got:
        w1, c1 = got["one process"]
        print(f"speed-up of the wall time {w1 / wall:.2f}x; CPU overhead of the workers "
              f"{cpu / c1:.2f}x")


if __name__ == "__main__":
    main()
