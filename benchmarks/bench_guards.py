"""Benchmark of the guards: ``peproof check`` of a 65536 x 512 float32 ``.npy``, with and without.

"without" is what the command did before the guards: ``np.load(mmap_mode="r")``, ``check``,
``render``.  "with" is ``peproof check FILE`` itself (``peproof.cli.main``): the regular-file
test, the header read and size check, the work estimate, the validated output and the
BrokenPipe-safe print around the same ``check``.  Both run in one process, alternately, and the
ratio of their medians is printed (1.00 = the guards cost nothing measurable).  Refusals are
timed too: an absurd request must be answered in well under a second.  Not a test: it prints.

    .venv/bin/python benchmarks/bench_guards.py [--rows 65536] [--d 512] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    from peproof.cli import main as cli
    from peproof.oracle import check, reference

    print(f"building the {a.rows} x {a.d} float32 reference (setup, not timed)...")
    table = reference(a.rows, a.d, dtype="float32")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.npy"
        np.save(path, table)

        def without():
            rep = check(np.load(path, mmap_mode="r"), source={"path": str(path)})
            rep.render(5)
            return rep.exit_code

        def with_guards():
            with contextlib.redirect_stdout(io.StringIO()):
                return cli(["check", str(path), "--out", str(Path(tmp) / "r.json")])

        assert without() == with_guards() == 0  # warm-up, and the same verdict
        t_without, t_with = [], []
        for _ in range(a.repeat):
            for fn, acc in ((without, t_without), (with_guards, t_with)):
                t0 = time.perf_counter()
                fn()
                acc.append(time.perf_counter() - t0)
    m0, m1 = statistics.median(t_without), statistics.median(t_with)
    print(f"\n{a.rows} x {a.d} float32 .npy, median of {a.repeat} (alternating)")
    print(f"  check without the guards   {m0:8.3f} s")
    print(f"  peproof check (guarded)    {m1:8.3f} s   (also writes the JSON envelope)")
    print(f"  ratio guarded / unguarded  {m1 / m0:8.3f}")

    refusals = [["separation", "--d", "100000000"],
                ["separation", "--d", "512", "--max-pos", "10**12"],
                ["horizon", "--d", "512", "--max-pos", "10**12"],
                ["vectors", "--d", "512", "--positions", "0:10**12"]]
    print("\nrefusals (in-process, after imports):")
    for argv in refusals:
        with contextlib.redirect_stderr(io.StringIO()):
            cli(argv)  # imports
            t0 = time.perf_counter()
            rc = cli(argv)
            dt = time.perf_counter() - t0
        print(f"  {' '.join(argv):50s} exit {rc}  {dt * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
