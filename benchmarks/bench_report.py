"""Benchmark of the report (issue: reports/). Prints figures measured in ONE run.

* a build as from a clean checkout: no cached results, no TeX auxiliary files, proofs and the
  default numerics included, in a fresh interpreter (``peproof report --fresh --out DIR``);
  target: <= 60 s in total;
* a rebuild of the same commit reusing the results (nothing changed): target <= 10 s;
* a rebuild reusing the results whose documents must be typeset again (the TeX stamps removed,
  as after a change to the templates): target <= 10 s;
* the page counts of the report (target <= 40) and of the record (``--full``), and whether two
  builds give byte-identical ``.tex`` and PDF files (``SOURCE_DATE_EPOCH`` is the commit time
  unless set).

Run: ``python benchmarks/bench_report.py [--quick] [--full]`` (``--quick``: numerics quick, no
peers; ``--full``: also the record).  The machine's load is printed: the figures are only as
good as the cores that were free.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEPROOF = [sys.executable, "-m", "peproof"]


def build(out: Path, fresh: bool, quick: bool, full: bool) -> tuple[float, str]:
    cmd = [*PEPROOF, "report", "--out", str(out)]
    if fresh:
        cmd.append("--fresh")
    if quick:
        cmd += ["--numerics", "quick", "--no-peers"]
    if full:
        cmd.append("--full")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - t0
    text = p.stdout + p.stderr
    if p.returncode not in (0, 1):
        print(text, file=sys.stderr)
    return seconds, text


def pages(text: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"wrote \S*?(peproof-\w+)\.pdf \((\d+) pages", text)}


def files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("peproof-*.*"))
            if p.suffix in (".tex", ".pdf")}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        clean, text = build(out, fresh=True, quick=args.quick, full=args.full)
        first, n_pages = files(out), pages(text)
        reuse, _ = build(out, fresh=False, quick=args.quick, full=args.full)
        second = files(out)
        for stamp in out.glob("tex-*/last-compile.sha256"):
            stamp.unlink()
        for aux in out.glob("tex-*"):
            shutil.rmtree(aux)
        retex, text3 = build(out, fresh=False, quick=args.quick, full=args.full)
        third = files(out)
    line = next((s for s in text.splitlines() if "printed formulas" in s), "")
    mode = "quick" if args.quick else "default"
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start")
    print(f"clean build (proofs, {mode} numerics, TeX{', record' if args.full else ''}): "
          f"{clean:.1f} s (target <= 60 s: {'ok' if clean <= 60 else 'OVER'})")
    print(f"rebuild reusing the results, nothing changed: {reuse:.1f} s "
          f"(target <= 10 s: {'ok' if reuse <= 10 else 'OVER'})")
    print(f"rebuild reusing the results, typeset again from empty TeX files: {retex:.1f} s "
          f"(target <= 10 s: {'ok' if retex <= 10 else 'OVER'})")
    for name, n in sorted(n_pages.items()):
        target = " (target <= 40)" if name == "peproof-report" else ""
        print(f"  {name}.pdf: {n} pages{target}")
    print(f"  byte-identical across the three builds: "
          f"{first == second == third and bool(first)} ({', '.join(first)})")
    print(f"  {line}")
    tex = re.search(r"TeX ([\d.]+) s", text3)
    print(f"  TeX in the third build: {tex.group(1) if tex else '?'} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
