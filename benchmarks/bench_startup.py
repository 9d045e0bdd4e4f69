"""Benchmark of a command's start: what a ``peproof`` process pays before its work. Figures of ONE
run, best of ``--repeat`` each (this machine is shared).

The suites start a few hundred ``peproof`` processes (the hostile-input, fault and CLI tests run
the commands as users do), and a user's script may call ``peproof check`` once per table: the
imports are paid every time.  Printed: the CPU time (user + system, of the child) of

- ``import numpy`` alone, then with each heavy import a command may pay (``ml_dtypes``, SymPy),
  and the ratio of each to ``numpy`` alone: ml_dtypes 0.7.0 took 0.42 s here against 0.01 s for
  0.6.0, hence the ``<0.7`` bound in pyproject.toml;
- ``peproof --help`` and ``peproof check`` of a 4 x 8 table, start to exit.

    python benchmarks/bench_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_of(argv: list[str], cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(argv: list[str], cwd: str, repeat: int) -> float:
    return min(cpu_of(argv, cwd) for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    py = sys.executable
    import ml_dtypes
    import numpy as np

    print(f"ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "t.npy", np.zeros((4, 8), np.float32))
        base = best([py, "-c", "import numpy"], tmp, args.repeat)
        print(f"{'import numpy':34s} {base:6.3f} s CPU")
        for what in ("ml_dtypes", "sympy"):
            t = best([py, "-c", f"import numpy, {what}"], tmp, args.repeat)
            print(f"{'import numpy, ' + what:34s} {t:6.3f} s CPU  ({t / base:5.1f} x numpy alone)")
        cli = [py, "-m", "peproof.cli"]
        for name, argv in (("peproof --help", cli + ["--help"]),
                           ("peproof check (4 x 8 table)", cli + ["check", "t.npy"])):
            t = best(argv, tmp, args.repeat)
            print(f"{name:34s} {t:6.3f} s CPU  ({t / base:5.1f} x numpy alone)")


if __name__ == "__main__":
    main()
