"""``peproof report``: the LaTeX/PDF report of every claim, verdict and numeric check.

    peproof report                      # reports/build/peproof-report.tex and .pdf
    peproof report 'rotation.*'         # only the claims matching a pattern
    peproof report --fresh              # run everything again (default: reuse the results of
                                        # the same commit and sources)
    peproof report --numerics quick|none --no-peers --no-pdf --out DIR

The generator is a checkout-level job: it lives in ``reports/peproof_report/`` beside its
templates, next to the ``peproof`` package of a source checkout (the core package never
imports it).  Run outside a checkout, the command says so in one line.

Exit codes: 0 the report was written (the PDF too, or the message says exactly what TeX to
install); 1 a verdict differs from the registry's reading, engines disagree, a falsifier
survived or TeX failed; 2 bad input.
"""

from __future__ import annotations

import sys
from pathlib import Path

from peproof.guard import UsageError
from peproof.guard.paths import folder_lock, out_folder

HELP = "build the LaTeX/PDF report (proofs, errata, numerics, oracle) in reports/build/"


def reports_dir() -> Path:
    """The checkout's ``reports/`` folder (beside the ``peproof`` package)."""
    import peproof

    return Path(peproof.__file__).resolve().parent.parent / "reports"


def load_generator():
    here = reports_dir()
    if not (here / "peproof_report" / "build.py").is_file():
        raise UsageError(f"the report generator is not at {here}/peproof_report: "
                         "'peproof report' runs from a source checkout of peproof")
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    import peproof_report

    return peproof_report


def add_parser(sub) -> None:
    p = sub.add_parser("report", help=HELP, description=HELP + ".")
    p.add_argument("pattern", nargs="?", help="only claims whose id matches (glob or substring)")
    p.add_argument("--out", help="output folder (default: reports/build of the checkout)")
    p.add_argument("--fresh", action="store_true",
                   help="decide every claim and run the numerics again, even if the results "
                   "of this commit are cached")
    p.add_argument("--numerics", choices=("default", "quick", "none"), default="default",
                   help="numeric checks: default (N = 62832, every d), quick (small), none")
    p.add_argument("--no-peers", action="store_true",
                   help="skip the oracle on installed implementations (torch, transformers...)")
    p.add_argument("--no-pdf", action="store_true", help="write the .tex only")
    p.add_argument("--workers", type=int, help="processes (default: all cores)")
    p.set_defaults(func=run)


def run(args) -> int:
    from peproof import registry

    if args.pattern and not registry.select(args.pattern):
        raise UsageError(f"no claim id matches {args.pattern!r}")
    if args.workers is not None and not 1 <= args.workers <= 64:
        raise UsageError(f"--workers must be between 1 and 64 (each worker is an interpreter "
                         f"of about 200 MiB), got {args.workers}")
    gen = load_generator()
    out = out_folder(args.out) if args.out else None
    with folder_lock(out or reports_dir() / "build", "peproof report"):  # one run per folder
        res = gen.build(build_dir=out, pattern=args.pattern, numerics=args.numerics,
                        peers=not args.no_peers, workers=args.workers, fresh=args.fresh,
                        compile_pdf=not args.no_pdf)
    print(f"wrote {res.tex_path}")
    if not args.no_pdf:
        print(res.tex_message if res.pdf_path is None else
              f"wrote {res.pdf_path} ({res.pages} pages; TeX {res.tex_seconds:.1f} s)")
    checks = res.formula_checks
    bad = sum(n for k, n in checks.items() if k not in ("identical", "equal at random points"))
    print(f"{'reused the results of this commit' if res.reused else 'ran the proofs and numerics'}"
          f"; {sum(checks.values())} printed formulas read back"
          + (f", {bad} NOT confirmed" if bad else ", all confirmed")
          + f"; errata: {len(res.errata)}; {res.seconds:.1f} s")
    if res.unknown_chars:
        print("characters without a LaTeX form: " + " ".join(sorted(res.unknown_chars)),
              file=sys.stderr)
    summary = res.summary
    failed = bool(summary.get("disagreements") or summary.get("conflicts")
                  or summary.get("falsifiers", 0) != summary.get("falsifiers_refuted", 0))
    return 1 if failed or not res.ok or bad else 0
