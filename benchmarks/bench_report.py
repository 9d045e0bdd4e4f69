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
good as the cores that were free.  For each build the phases (``timing.json`` of the build
folder: collect, context, figures, templates, TeX) are printed, and for the clean build the CPU
seconds of the collect jobs (proofs, numerics, oracle on peers) with how busy the workers were:
the CPU seconds do not depend on the load of the machine, the wall-clock ones do.
"""

from __future__ import annotations

import argparse
import json
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


def timing(out: Path) -> dict:
    try:
        return json.loads((out / "timing.json").read_text())
    except (OSError, ValueError):
        return {}


def phases(t: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in (t.get("phases") or {}).items())


def jobs_summary(t: dict) -> list[str]:
    jobs = t.get("jobs") or []
    if not jobs:
        return []
    cpu = sum(j["cpu"] for j in jobs)
    span = max(j["end"] for j in jobs) - min(j["start"] for j in jobs)
    procs = sorted({j["pid"] for j in jobs})
    busy = sum(j["end"] - j["start"] for j in jobs)
    top = sorted(jobs, key=lambda j: -j["cpu"])[:6]
    return [f"collect jobs: {len(jobs)} on {len(procs)} processes, {cpu:.1f} CPU s in {span:.1f} s "
            f"of wall clock (the workers busy {busy:.1f} s, so they got {cpu / max(busy, 1e-9):.0%}"
            f" of a core while running; {cpu / max(len(procs), 1):.1f} s with whole free cores)",
            "  most CPU: " + ", ".join(f"{j['job']} {j['cpu']:.1f}" for j in top)]


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
        first, n_pages, t_clean = files(out), pages(text), timing(out)
        reuse, _ = build(out, fresh=False, quick=args.quick, full=args.full)
        second, t_reuse = files(out), timing(out)
        for stamp in out.glob("tex-*/last-compile.sha256"):
            stamp.unlink()
        for aux in out.glob("tex-*"):
            shutil.rmtree(aux)
        retex, text3 = build(out, fresh=False, quick=args.quick, full=args.full)
        third, t_retex = files(out), timing(out)
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    line = next((s for s in text.splitlines() if "printed formulas" in s), "")
    mode = "quick" if args.quick else "default"
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start, "
          f"{load_end:.1f} at the end")
    print(f"clean build (proofs, {mode} numerics, TeX{', record' if args.full else ''}): "
          f"{clean:.1f} s = {clean / 60:.2f} x the 60 s target "
          f"({'ok' if clean <= 60 else 'OVER'})")
    print(f"  phases (s): {phases(t_clean)}")
    for job_line in jobs_summary(t_clean):
        print(f"  {job_line}")
    print(f"rebuild reusing the results, nothing changed: {reuse:.1f} s = {reuse / 10:.2f} x "
          f"the 10 s target ({'ok' if reuse <= 10 else 'OVER'})")
    print(f"  phases (s): {phases(t_reuse)}")
    print(f"rebuild reusing the results, typeset again from empty TeX files: {retex:.1f} s = "
          f"{retex / 10:.2f} x the 10 s target ({'ok' if retex <= 10 else 'OVER'})")
    print(f"  phases (s): {phases(t_retex)}")
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
