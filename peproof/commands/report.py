"""``peproof report``: the LaTeX/PDF report of every claim, verdict and numeric check.

    peproof report                      # reports/build/peproof-report.tex and .pdf
    peproof report 'rotation.*'         # only the claims matching a pattern
    peproof report --fresh              # run everything again (default: reuse the results of
                                        # the same commit and sources)
    peproof report --numerics quick|none --no-peers --no-pdf --out DIR

The generator is the package ``peproof_report`` (``reports/peproof_report/`` in a checkout),
installed with the extra ``peproof[report]``; the core package never imports it.  From a
checkout the output goes to ``reports/build/``, from an installed package to ``./peproof-report``
unless ``--out`` says otherwise.  ``--full`` adds the complete record as a second document.

Exit codes: 0 the report was written (the PDF too, or the message says exactly what TeX to
install); 1 a verdict differs from the registry's reading, engines disagree, a falsifier
survived or TeX failed; 2 bad input.
"""

from __future__ import annotations

import sys

from peproof.guard import UsageError
from peproof.guard.paths import folder_lock, out_folder

HELP = "build the LaTeX/PDF report (findings, errata, proofs, numerics, oracle)"


def load_generator():
    """The installed generator, or a one-line :class:`UsageError` naming the extra."""
    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
        import peproof_report
    except ImportError as exc:
        raise UsageError(f"the report needs the extra 'report' ({exc.name} is missing): "
                         "pip install 'peproof[report]'") from None
    return peproof_report


def add_parser(sub) -> None:
    p = sub.add_parser("report", help=HELP, description=HELP + ".")
    p.add_argument("pattern", nargs="?", help="only claims whose id matches (glob or substring)")
    p.add_argument("--out", help="output folder (default: reports/build in a checkout, else "
                   "./peproof-report)")
    p.add_argument("--full", action="store_true",
                   help="also write the full record (every trace, falsifier, engine column and "
                   "the trusted base) as a second document")
    p.add_argument("--fresh", action="store_true",
                   help="decide every claim, check it in Coq and run the numerics again, even if "
                   "the results of this commit are cached (the Coq cache is not read)")
    p.add_argument("--numerics", choices=("default", "quick", "none"), default="default",
                   help="numeric checks: default (N = 62832, every d), quick (small), none")
    p.add_argument("--no-peers", action="store_true",
                   help="skip the oracle on installed implementations (torch, transformers...)")
    p.add_argument("--no-pdf", action="store_true", help="write the .tex only")
    p.add_argument("--html", action="store_true",
                   help="also write the HTML edition (peproof-report.html, clickable graphs)")
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
    out = out or gen.default_build_dir()
    with folder_lock(out, "peproof report"):  # one run per folder
        res = gen.build(build_dir=out, pattern=args.pattern, numerics=args.numerics,
                        peers=not args.no_peers, workers=args.workers, fresh=args.fresh,
                        compile_pdf=not args.no_pdf, full=args.full, html=args.html)
    print(f"wrote {res.tex_path}" + "".join(f" and {p}" for p in res.more_tex))
    if res.html_path:
        print(f"wrote {res.html_path}")
    if not args.no_pdf:
        print(res.tex_message if res.pdf_path is None else
              f"wrote {res.pdf_path} ({res.pages} pages; TeX {res.tex_seconds:.1f} s)"
              + "".join(f"\nwrote {p} ({n} pages)" for p, n in res.more_pdf))
    checks = res.formula_checks
    bad = sum(n for k, n in checks.items() if k not in ("identical", "equal at random points"))
    print(f"{'reused the results of this commit' if res.reused else 'ran the proofs and numerics'}"
          f"; {sum(checks.values())} printed formulas read back"
          + (f", {bad} NOT confirmed" if bad else ", all confirmed")
          + f"; errata: {len(res.errata)}; {res.seconds:.1f} s")
    q = res.quotes
    if q.get("folder") and q["checked"] + len(q["missing"]):
        print(f"quotes: {q['checked']} found in the seed texts ({q['folder']})"
              + (f"; {len(q['missing'])} NOT found: {'; '.join(q['missing'][:3])}"
                 if q["missing"] else ""))
    else:
        print("seed texts not found: quotes not checked (the documents do not depend on them)")
    if res.unknown_chars:
        print("characters without a LaTeX form: " + " ".join(sorted(res.unknown_chars)),
              file=sys.stderr)
    summary = res.summary
    failed = bool(summary.get("disagreements") or summary.get("conflicts")
                  or summary.get("falsifiers", 0) != summary.get("falsifiers_refuted", 0))
    return 1 if failed or not res.ok or bad or q.get("missing") else 0
