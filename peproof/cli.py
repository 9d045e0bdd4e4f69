"""The ``peproof`` command line.

Exit codes: 0 ok, 1 a check failed, 2 bad input (one-line message, never a traceback), 3 an
internal error, 4 a fault of the environment (disk, worker, scheduler; rerun to resume).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from peproof.guard import ENVIRONMENT_ERRNOS, EnvironmentFault, UsageError
from peproof.guard.paths import emit, out_file, write_atomic

__all__ = ["UsageError", "main", "write_atomic"]


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # a value such as '-5:5' or '-0.5' is a value, never an option: no option of ours
        # starts with '-' and a digit
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message):  # argparse's own errors: one line, exit 2
        raise UsageError(message)


def _progress(n: int, total: int, label: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r[{n}/{total}] {label[:60]:60s}")
        if n == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_prove(args) -> int:
    from peproof import registry
    from peproof.guard.paths import coq_build_dir as _coq_build_dir
    from peproof.results import run

    out = out_file(args.out)
    from peproof.user.run import user_claims, wants_user, witness_lines

    user = wants_user(args)
    if getattr(args, "variant", None) and not user:  # the paper's claims for your encoding
        from peproof.variant_cli import prove_variant

        return prove_variant(args, out, _progress)
    claims = user_claims(args) if user else registry.select(args.pattern)
    if not claims:
        raise UsageError(f"no claim id matches {args.pattern!r} (try 'peproof prove' for all, "
                         "or a pattern such as 'rotation.*')")
    res = run(claims, falsifiers=not args.no_falsifiers, progress=_progress,
              coq=not args.no_coq, coq_dir=_coq_build_dir(), recheck=args.recheck)
    if out:
        write_atomic(out, json.dumps(res, indent=1, sort_keys=True))
    emit(json.dumps(res, indent=1, sort_keys=True) if args.json else
         "\n".join([render_table(res)] + (witness_lines(res) if user else [])))
    s = res["summary"]
    bad_f = s["falsifiers"] - s["falsifiers_refuted"]
    return 1 if (s["disagreements"] or s["conflicts"] or s.get("gate_conflicts")
                 or s.get("coq_conflicts") or bad_f) else 0


def render_table(res: dict) -> str:
    rows = [("claim", "verdict", "evidence", "engine", "time", "z3", "numeric", "coq",
             "falsifiers")]
    for c in res["claims"]:
        v = c["verdict"]
        nf = len(c["falsifiers"])
        nr = sum(f["verdict"]["status"] == "refuted" for f in c["falsifiers"])
        mark = "" if c["agrees_with_expectation"] else f"  (expected {c['expect']})"
        if c.get("conflict"):
            mark += "  ENGINES DISAGREE"
        eng = c.get("engines", {})
        engine = v["engine"] + (" (+FLINT re-check)" if len(v.get("kernels") or ()) > 1 else "")
        ev = (c.get("evidence") or {}).get("level", "-")
        rows.append((c["id"], v["status"] + mark, ev if ev != "none" else "-", engine,
                     f"{v['seconds']:.3f}s", eng.get("z3", "-"), eng.get("numeric", "-"),
                     _coq_cell(c.get("coq")),
                     f"{nr}/{nf} refuted" if nf else "-"))
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    s = res["summary"]
    lines.append("")
    lines.append(
        f"{s['claims']} claims: {s['proved']} proved, {s['refuted']} refuted, "
        f"{s['unknown']} unknown; falsifiers refuted {s['falsifiers_refuted']}/{s['falsifiers']}; "
        f"{s['seconds']:.1f}s"
    )
    if "proved_by_construction" in s:
        lines.append(
            f"of the proved: {s['proved_by_engine']} decided by an engine, "
            f"{s['proved_by_construction']} settled when built (engine 'construction': identical "
            f"sides as built, never counted as agreement); {s['independently_confirmed']} "
            "proved by the z3 column as well (two engines only when the primary engine does not "
            "rest on z3 itself)")
    for status in ("proved", "refuted"):
        ev = s.get(f"evidence_{status}")
        if ev and s.get(status):
            lines.append(f"evidence of the {status}: " + evidence_line(ev, status)
                         + ("; each names its certified witness" if status == "refuted" else ""))
    if s.get("kernel_rechecked_claims"):
        lines.append(f"exponential proofs re-checked by the FLINT kernel: "
                     f"{s['kernel_rechecked_claims']} claim(s), {s['kernel_certificates']} "
                     "certificate(s)")
    if "coq_checked" in s:
        lines.append(f"Coq {s['coq_version'] or ''}: {s['coq_checked']} claim(s) checked "
                     f"({s['coq_checked_negation']} as the negation at a certified witness), "
                     f"{s['coq_not_checked']} not checked, {s['coq_absent']} without coq; "
                     f"{s['coq_seconds']:.1f}s of coqc")
    if s.get("conflicts"):
        lines.append("ENGINE CONFLICTS (proved by one engine, refuted by another): "
                     + ", ".join(s["conflicts"]))
    if s.get("coq_conflicts"):
        lines.append("ENGINE CONFLICTS WITH COQ (Coq proved what an engine refuted, or the "
                     "negation of what an engine proved): " + ", ".join(s["coq_conflicts"]))
    for c in s.get("gate_conflicts") or ():
        lines.append(f"ENGINE CONFLICT {c['id']}: {c['engine']} said {c['said']}; the "
                     f"falsification gate: {c['gate']} (point {c['point']})")
    if s["disagreements"]:
        lines.append("verdicts differing from the registry's expectation: "
                     + ", ".join(s["disagreements"]))
    return "\n".join(lines)


def evidence_line(counts: dict, status: str = "proved") -> str:
    """``kernel 3, two engines 52, one engine 135, settled when built 33``: the levels a
    ``status`` verdict can have (a refutation is kernel or one engine), and any other level
    with claims (conflicts)."""
    from peproof.evidence import ALL, LEVELS_OF

    return ", ".join(f"{lvl} {counts.get(lvl, 0)}" for lvl in ALL
                     if counts.get(lvl) or lvl in LEVELS_OF[status])


def _coq_cell(coq: dict | None) -> str:
    if not coq:
        return "-"
    st = coq["status"]
    if st == "checked in Coq":
        return ("negation checked" if coq["what"] == "negation" else "checked") + \
            (" CONFLICT" if coq.get("conflict") else "")
    return "not installed" if st == "coq not installed" else "not checked"


def build_parser() -> argparse.ArgumentParser:
    from peproof import __version__

    p = _Parser(prog="peproof", description="Proofs and checks of the sinusoidal positional "
                "encoding of 'Attention Is All You Need'.")
    p.add_argument("--version", action="version", version=f"peproof {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    pr = sub.add_parser("prove", help="decide every claim (or those matching a pattern) and "
                        "print the verdict table")
    pr.add_argument("pattern", nargs="?", help="claim id, substring or glob such as 'rotation.*'")
    pr.add_argument("--json", action="store_true", help="machine-readable results on stdout")
    pr.add_argument("--out", help="also write the JSON results to this file")
    pr.add_argument("--no-falsifiers", action="store_true", help="skip the falsifiers")
    pr.add_argument("--no-coq", action="store_true",
                    help="skip the Coq checks (the .v files go to reports/build/coq in a checkout)")
    from peproof.user.run import add_arguments

    add_arguments(pr)  # --statement --assume --domain --exists --claims (peproof.user)
    pr.add_argument("--variant", metavar="SPEC", help="decide the paper's claims for your "
                    "encoding: family=h-1,base=10000,d=384 (keys family, base, d, layout, "
                    "max_freq, turns, offset, scale; family=rope with rope_parameters keys), a "
                    "rope_parameters JSON, or a config.json")
    pr.add_argument("--recheck", action="store_true",
                    help="check every claim in Coq again, ignoring the cached Coq results")
    pr.set_defaults(func=cmd_prove)
    # further subcommands live in peproof/commands/<name>.py, each with add_parser(sub)
    import importlib
    import pkgutil

    import peproof.commands as cmds

    for info in sorted(pkgutil.iter_modules(cmds.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"peproof.commands.{info.name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; every outcome is an exit code and at most one line on stderr.

    0 ok, 1 a check failed, 2 bad input, 3 an internal error (a bug: ``PEPROOF_TRACEBACK=1``
    shows the traceback), 4 a fault of the environment met during the work (a full or read-only
    disk, a killed worker, a Dask scheduler stopped, silent or without workers: the line names
    it; finished chunks stay in the checkpoint), 130 / 143 interrupted by SIGINT / SIGTERM, 141
    stdout closed early.
    """
    from peproof.guard import signals

    restore = signals.install()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            emit(parser.format_help().rstrip())
            return 2
        return args.func(args)
    except UsageError as exc:
        return _fail(f"error: {exc}", 2)
    except EnvironmentFault as exc:
        return _fail(f"environment fault: {exc}", 4)
    except signals.Interrupted as exc:
        _reap(argv)
        return _fail(f"interrupted by {exc.name}; stopped", exc.exit_code)
    except KeyboardInterrupt:
        _reap(argv)
        return _fail("interrupted", 130)
    except BrokenPipeError:
        from peproof.guard.paths import silence_stdout

        silence_stdout()  # the reader went away (| head): nothing to say, nowhere to say it
        return 141
    except OSError as exc:
        if _traceback():
            raise
        where = f": {exc.filename}" if exc.filename else ""
        if exc.errno in ENVIRONMENT_ERRNOS:
            return _fail(f"environment fault: {exc.strerror}{where}", 4)
        return _fail(f"error: {exc.strerror or type(exc).__name__}{where}", 2)
    except MemoryError:
        return _fail("error: out of memory (ask for less, or see --max-memory)", 2)
    except Exception as exc:  # noqa: BLE001 - never a traceback unless asked for
        if signals.received() is not None:  # the interrupt, wrapped on its way out (a ctypes
            # call of z3 turns it into ArgumentError, the numeric engine into its own error)
            interrupted = signals.Interrupted(signals.received())
            _reap(argv)
            return _fail(f"interrupted by {interrupted.name}; stopped", interrupted.exit_code)
        if _traceback():
            raise
        line = (str(exc).strip().splitlines() or [""])[0][:200]
        return _fail(f"internal error ({type(exc).__name__}: {line}); please report it; "
                     "PEPROOF_TRACEBACK=1 shows the traceback", 3)
    finally:
        restore()


def _reap(argv) -> None:
    """The last net after an interrupt: terminate every process still descending from this
    one (only as the ``peproof`` program itself: ``argv`` None; an in-process caller such as a
    test suite keeps its own children)."""
    if argv is None:
        from peproof.guard import signals

        signals.reap_descendants()


def _traceback() -> bool:
    return os.environ.get("PEPROOF_TRACEBACK", "") not in ("", "0")


def _fail(message: str, code: int) -> int:
    try:
        print(f"peproof: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
    return code


if __name__ == "__main__":
    # run through the package module, so subcommands share this module's UsageError
    from peproof.cli import main as _main

    sys.exit(_main())
