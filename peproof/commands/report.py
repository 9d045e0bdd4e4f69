"""``peproof report``: the LaTeX/PDF report of every claim, verdict and numeric check.

    peproof report                      # reports/build/peproof-report.tex and .pdf
    peproof report 'rotation.*'         # only the claims matching a pattern
    peproof report --fresh              # run everything again (default: reuse the results of
                                        # the same commit and sources)
    peproof report --numerics quick|none --no-peers --no-pdf --out DIR
    peproof report --statement 'TEXT' --domain x=real --out DIR   # a report of the user's
    peproof report --claims FILE.py --out DIR                     # own claims only

The generator is the package ``peproof_report`` (``reports/peproof_report/`` in a checkout),
installed with the extra ``peproof[report]``; the core package never imports it.  From a
checkout the output goes to ``reports/build/``, from an installed package to ``./peproof-report``
unless ``--out`` says otherwise.  ``--full`` adds the complete record as a second document.

The output is written all or nothing: the room is checked before anything starts (the previous
report, copied, plus an estimate of the new one), the report is built in a hidden folder beside
``--out`` holding a copy of the previous one (its cached results are reused from there) and
swapped into place at the end (:mod:`peproof.guard.staging`).  A fault during the build -- a
full disk, TeX killed by a signal, SIGINT or SIGTERM -- leaves the previous report as it was
and no partial folder (one line names the fault; the progress lines, ``peproof report: ...``,
are not error messages); a run killed outright leaves a hidden staged folder, which the next
run removes.

Exit codes: 0 the report was written (the PDF too, or the message says exactly what TeX to
install); 1 a verdict differs from the registry's reading, engines disagree, a falsifier
survived or TeX failed (the .tex and the log are written); 2 bad input, or not enough room; 4 a
fault of the machine during the build (a full disk, TeX killed): one line naming it.
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from pathlib import Path

from peproof.guard import ENVIRONMENT_ERRNOS, EnvironmentFault, UsageError
from peproof.guard.paths import check_space, folder_lock, out_folder, resolve_link
from peproof.guard.staging import StagedFolder, folder_bytes, remove_stale

#: bytes a report needs beyond the copy of the previous one: the documents, figures and TeX
#: files, plus the cached results (run.json and results.json hold about 60 KB per claim each)
BASE_BYTES = 4 * 2**20
PER_CLAIM_BYTES = 128 * 2**10

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
    from peproof.user.run import add_arguments

    add_arguments(p)  # a report of the user's claims (--statement / --claims FILE.py)
    p.add_argument("--variant", metavar="SPEC", help="the paper's claims decided for your "
                   "encoding (as peproof prove --variant): variant-report.tex/.pdf and "
                   "variant-results.json in the output folder")
    p.set_defaults(func=run)


def run(args) -> int:
    from peproof import registry
    from peproof.user.run import user_claims, wants_user

    claims = user_claims(args) if wants_user(args) else None  # bad input: exit 2 first
    variant = None
    if getattr(args, "variant", None) and claims is None:  # the paper's claims for your encoding
        from peproof.variant_cli import parse_or_exit

        variant = parse_or_exit(args.variant)
    if claims is None and args.pattern:
        from peproof import scope

        with scope.using(variant):  # a variant has claims of its own (its horizon at its width)
            if not registry.select(args.pattern):
                raise UsageError(f"no claim id matches {args.pattern!r}")
    if args.workers is not None and not 1 <= args.workers <= 64:
        raise UsageError(f"--workers must be between 1 and 64 (each worker is an interpreter "
                         f"of about 200 MiB), got {args.workers}")
    gen = load_generator()
    out = out_folder(args.out) if args.out else None
    out = out or gen.default_build_dir()
    try:  # an --out that is a link: the folder it points to is replaced, the link stays
        out = resolve_link(out)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror}") from None
    n_claims = len(claims) if claims is not None else len(registry.select(args.pattern))
    need = folder_bytes(out) + BASE_BYTES * (2 if args.full else 1) + PER_CLAIM_BYTES * n_claims
    check_space(out, need, what="the report (with a copy of the previous one)")
    with folder_lock(out, "peproof report"):  # one run per folder
        remove_stale(out)
        with _faults_named(out), StagedFolder(out) as stage:
            stage_dir = stage.path
            if variant is not None:  # a document of its own, written all or nothing as well
                from peproof.variant_cli import decide_variant
                from peproof.variant_results import exit_code

                vres = decide_variant(args, variant, stage.path)
                doc = importlib.import_module(gen.__name__ + ".variantdoc")
                tex, message = doc.write(vres, stage.path, compile_pdf=not args.no_pdf)
                code = exit_code(vres)
                stage.commit()
                print(f"wrote {stage_final(stage, tex)}")
                print(message.replace(str(stage_dir), str(out)))
                return code
            user_run = gen.collect_claims(claims, stage.path) if claims is not None else None
            res = gen.build(build_dir=stage.path, pattern=args.pattern, numerics=args.numerics,
                            peers=not args.no_peers, workers=args.workers, fresh=args.fresh,
                            compile_pdf=not args.no_pdf, full=args.full, html=args.html,
                            run=user_run)
            if res.tex_killed:  # a fault of the machine: the previous report stays
                raise EnvironmentFault(f"{res.tex_message}; {out} is unchanged")
            stage.commit()
            res.tex_path, res.pdf_path, res.html_path = (
                stage_final(stage, p) for p in (res.tex_path, res.pdf_path, res.html_path))
            res.more_tex = [stage_final(stage, p) for p in res.more_tex]
            res.more_pdf = [(stage_final(stage, p), n) for p, n in res.more_pdf]
            res.tex_message = res.tex_message.replace(str(stage_dir), str(out))
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


def stage_final(stage: StagedFolder, p):
    """A path the build named inside the staged folder, as it is after the commit."""
    return stage.final(p) if p is not None else None


@contextmanager
def _faults_named(out: Path):
    """A full or read-only disk met while building: one line naming the report's folder (the
    staged folder the write failed in is removed, the previous report stays)."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in ENVIRONMENT_ERRNOS:
            raise
        raise EnvironmentFault(f"{exc.strerror} while writing the report; {out} is "
                               "unchanged") from None
