"""The ``peproof`` command line.

Exit codes: 0 ok, 1 a check failed, 2 bad input (one-line message, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: one line, exit 2
        raise UsageError(message)


def _progress(n: int, total: int, label: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r[{n}/{total}] {label[:60]:60s}")
        if n == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same directory, so nothing half-written is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_prove(args) -> int:
    from peproof import registry
    from peproof.results import run

    claims = registry.select(args.pattern)
    if not claims:
        raise UsageError(f"no claim id matches {args.pattern!r} (try 'peproof prove' for all, "
                         "or a pattern such as 'rotation.*')")
    res = run(claims, falsifiers=not args.no_falsifiers, progress=_progress)
    if args.out:
        write_atomic(Path(args.out), json.dumps(res, indent=1, sort_keys=True))
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True))
    else:
        print(render_table(res))
    bad_f = res["summary"]["falsifiers"] - res["summary"]["falsifiers_refuted"]
    return 1 if res["summary"]["disagreements"] or res["summary"]["conflicts"] or bad_f else 0


def render_table(res: dict) -> str:
    rows = [("claim", "verdict", "engine", "time", "z3", "numeric", "falsifiers")]
    for c in res["claims"]:
        v = c["verdict"]
        nf = len(c["falsifiers"])
        nr = sum(f["verdict"]["status"] == "refuted" for f in c["falsifiers"])
        mark = "" if c["agrees_with_expectation"] else f"  (expected {c['expect']})"
        if c.get("conflict"):
            mark += "  ENGINES DISAGREE"
        eng = c.get("engines", {})
        rows.append((c["id"], v["status"] + mark, v["engine"], f"{v['seconds']:.3f}s",
                     eng.get("z3", "-"), eng.get("numeric", "-"),
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
            "confirmed by z3 as well")
    if s.get("conflicts"):
        lines.append("ENGINE CONFLICTS (proved by one engine, refuted by another): "
                     + ", ".join(s["conflicts"]))
    if s["disagreements"]:
        lines.append("verdicts differing from the registry's expectation: "
                     + ", ".join(s["disagreements"]))
    return "\n".join(lines)


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
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except UsageError as exc:
        print(f"peproof: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("peproof: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # run through the package module, so subcommands share this module's UsageError
    from peproof.cli import main as _main

    sys.exit(_main())
