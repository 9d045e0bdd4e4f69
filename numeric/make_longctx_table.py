"""Compute the long-context separation table and write it into numeric/README.md.

    python numeric/make_longctx_table.py run --d 64,512,1024,4096 --n 1e6,1e7,1e8 [--workers 1]
    python numeric/make_longctx_table.py readme

``run`` certifies each (d, N) not yet in ``numeric/data/longctx.json`` (``--redo`` to recompute),
skipping those whose estimated time exceeds ``--budget`` seconds; each finished entry is saved at
once, and each scan checkpoints its chunks (``reports/build/longctx-checkpoints``), so an
interrupted sweep resumes where it stopped.  ``readme`` regenerates the table between the
``longctx-table`` markers of ``numeric/README.md`` from the results file (``run`` does too) and
the table of the pre-scan's bound B between the ``longctx-bound`` markers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "longctx.json"
README = HERE / "README.md"
CHECKPOINTS = HERE.parent / "reports" / "build" / "longctx-checkpoints"
BEGIN, END = "<!-- longctx-table:begin -->", "<!-- longctx-table:end -->"
BOUND = "<!-- longctx-bound:begin -->", "<!-- longctx-bound:end -->"


def counts(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip()
        out.append(10 ** int(part[3:]) if part.startswith("10^") else int(float(part)))
    return out


def readme(bound: bool = False) -> None:
    """The results table (and, with ``bound``, the table of B) into the README."""
    from peproof.numeric import longctx

    text = README.read_text(encoding="utf-8")
    text = longctx.replace_section(text, longctx.markdown(longctx.load(DATA)), BEGIN, END)
    if bound:
        text = longctx.replace_section(text, longctx.bound_markdown(longctx.bound_rows()), *BOUND)
    README.write_text(text, encoding="utf-8")


def run(args) -> None:
    from peproof.numeric import longctx
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify, seconds_per_offset

    done = {(e["d"], e["n_pos"]) for e in longctx.load(DATA)["entries"]
            if e["family"] == "paper" and e["base"] == "10000"}
    workers = args.workers or longctx.machine()["cores"]
    for n in counts(args.n):
        for d in counts(args.d):
            if (d, n) in done and not args.redo:
                continue
            est = (n - 1) * seconds_per_offset(d) / workers
            if est > args.budget:
                print(f"skip d={d} N={n}: estimated {est:.0f} s > --budget {args.budget:.0f} s")
                continue
            print(f"d={d} N={n}: estimated {est:.0f} s on {workers} workers", flush=True)
            cfg = RunConfig(engine=args.engine, workers=workers, checkpoint=CHECKPOINTS,
                            progress=True, label=f"d={d} N={n}")
            before = longctx.loadavg()
            sep = certify(d, n, run=cfg)
            longctx.add(DATA, longctx.entry(sep, load_before=before))
            print(f"  min in {sep.min_sq.text} at k={sep.argmin} ({sep.seconds:.1f} s, "
                  f"{sep.run['where']})", flush=True)
            readme()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--d", default="64,512,1024,4096")
    r.add_argument("--n", default="1e6,1e7,1e8")
    r.add_argument("--workers", type=int)
    r.add_argument("--engine", default="auto", choices=("auto", "inline", "pool", "dask"))
    r.add_argument("--budget", type=float, default=3600.0)
    r.add_argument("--redo", action="store_true")
    sub.add_parser("readme")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args)
    readme(bound=args.cmd == "readme")
    return 0


if __name__ == "__main__":
    sys.exit(main())
