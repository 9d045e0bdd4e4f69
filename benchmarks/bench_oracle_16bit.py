"""Benchmark of ``check`` on 16-bit tables with rows moved: CPU, moved table over clean one.

A 16-bit table with its rows shifted, swapped or reversed has every entry within its own bound,
and only the one-computation test (:mod:`peproof.oracle.common.consistency`) tells it is
wrong: it follows every candidate frequency across the rows.  Shifted by one row, a bfloat16 table
at base 500000 makes about a million candidates fail at once; their misfit rows, kept by a loop
per candidate, made its ``check`` take 126 s of CPU against about 1 s for the clean table.

Each table is checked clean and moved, one after the other in one process, and the ratio
(moved / clean CPU) is printed, so the figures travel between machines.  ``--against REV`` also
measures that git revision, in a child process of the same run, and prints both.  Not a test:
it prints.

    .venv/bin/python benchmarks/bench_oracle_16bit.py [--against REV]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (family, base, layout, offset, scale, d, n, dtype, how the rows are moved)
CASES = [
    ("h-1", 500000, "cos_sin", -2, "1/sqrt(d)", 26, 161, "bfloat16", "shift"),
    ("h-1", 500000, "cos_sin", 1, 1, 48, 175, "bfloat16", "shift"),
    ("paper", 500000, "cos_sin", 7, "sqrt(d)", 40, 183, "bfloat16", "shift"),
    ("paper", 10000, "interleaved", 0, 1, 64, 1024, "bfloat16", "shift"),
    ("paper", 10000, "interleaved", 0, 1, 64, 1024, "float16", "swap"),
]

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from peproof.oracle import Variant, check, reference
out = []
for fam, base, lay, off, sc, d, n, dt, how in json.loads(sys.argv[2]):
    v = Variant(fam, base, lay, off, sc)
    t = reference(n, d, family=fam, base=base, layout=lay, offset=off, scale=sc, dtype=dt)
    x = t.astype(np.float64)
    if how == "shift":
        x = np.roll(x, 1, axis=0)
    else:
        x[[n // 2, n // 2 + 1]] = x[[n // 2 + 1, n // 2]]
    moved = x.astype(t.dtype)
    check(t[:8], expect=v)  # imports and caches, not timed
    c0 = time.process_time(); a = check(t, expect=v).verdict
    c1 = time.process_time(); b = check(moved, expect=v).verdict
    c2 = time.process_time()
    out.append({"clean": c1 - c0, "moved": c2 - c1, "clean_verdict": a, "moved_verdict": b})
print(json.dumps(out))
"""


def measure(tree: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-c", _CHILD, str(tree), json.dumps(CASES)],
                             capture_output=True, text=True, check=True, cwd=tmp)
    return json.loads(res.stdout.strip().splitlines()[-1])


def show(label: str, rows: list[dict]) -> None:
    print(f"\n== {label}: CPU seconds of check, clean and with its rows moved")
    print(f"{'table':62s} {'clean':>7s} {'moved':>8s} {'ratio':>7s}  verdict (moved)")
    for case, r in zip(CASES, rows, strict=True):
        fam, base, lay, off, sc, d, n, dt, how = case
        name = f"{fam} {base} {lay} off {off} sc {sc}, {n}x{d} {dt} {how}"
        print(f"{name:62s} {r['clean']:7.2f} {r['moved']:8.2f} "
              f"{r['moved'] / r['clean']:7.1f}  {r['moved_verdict']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default=None, metavar="REV",
                    help="also measure that git revision in the same run")
    args = ap.parse_args(argv)
    if args.against:
        with tempfile.TemporaryDirectory() as tmp:
            arch = subprocess.run(["git", "-C", str(ROOT), "archive", args.against],
                                  capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=arch, check=True)
            show(args.against, measure(Path(tmp)))
    show("this tree", measure(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
