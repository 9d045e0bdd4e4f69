"""Benchmark of the report (issue: reports/). Prints figures measured in ONE run.

* a build as from a clean checkout: no cached results, no TeX auxiliary files, proofs and the
  default numerics included, in a fresh interpreter (``peproof report --fresh --out DIR``);
  target: <= 60 s in total, the TeX compile itself <= 10 s;
* a second build of the same commit (results reused, TeX files warm), and whether its ``.tex``
  and PDF are byte-identical to the first (``SOURCE_DATE_EPOCH`` is the commit time unless set).

Run: ``python benchmarks/bench_report.py [--quick]`` (``--quick``: numerics quick, no peers).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEPROOF = [sys.executable, "-m", "peproof"]


def build(out: Path, fresh: bool, quick: bool) -> tuple[float, float | None, int | None, str]:
    cmd = [*PEPROOF, "report", "--out", str(out)]
    if fresh:
        cmd.append("--fresh")
    if quick:
        cmd += ["--numerics", "quick", "--no-peers"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - t0
    text = p.stdout + p.stderr
    m = re.search(r"\((\d+) pages; TeX ([\d.]+) s\)", text)
    if p.returncode != 0 or not m:
        print(text, file=sys.stderr)
    return seconds, float(m.group(2)) if m else None, int(m.group(1)) if m else None, text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        total, tex, pages, text = build(out, fresh=True, quick=args.quick)
        first = ((out / "peproof-report.tex").read_bytes(),
                 (out / "peproof-report.pdf").read_bytes() if tex else b"")
        total2, tex2, _, _ = build(out, fresh=False, quick=args.quick)
        second = ((out / "peproof-report.tex").read_bytes(),
                  (out / "peproof-report.pdf").read_bytes() if tex2 else b"")
    cpus = os.cpu_count()
    print(f"clean build (proofs, {'quick' if args.quick else 'default'} numerics, TeX): "
          f"{total:.1f} s on {cpus} cores (target <= 60 s: {'ok' if total <= 60 else 'OVER'})")
    if tex is not None:
        print(f"  TeX compile from empty auxiliary files: {tex:.1f} s "
              f"(target <= 10 s: {'ok' if tex <= 10 else 'OVER'}); {pages} pages")
    print(f"second build of the same commit (results reused): {total2:.1f} s "
          f"({total / total2:.1f}x faster than the clean build)")
    print(f"  .tex byte-identical: {first[0] == second[0]}; PDF byte-identical: "
          f"{first[1] == second[1] and bool(first[1])}")
    line = next((s for s in text.splitlines() if "printed formulas" in s), "")
    print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
