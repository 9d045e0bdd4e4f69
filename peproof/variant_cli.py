"""The ``--variant`` side of ``peproof prove`` and ``peproof report`` (kept apart from
:mod:`peproof.cli`, which only hands the parsed arguments over)."""

from __future__ import annotations

import json
from pathlib import Path

from peproof.guard import UsageError


def parse_or_exit(text: str):
    """The variant SPEC names; bad SPEC is a :class:`UsageError` (one line, exit 2)."""
    from peproof.variant import VariantError, parse

    try:
        return parse(text)
    except VariantError as exc:
        raise UsageError(str(exc)) from None


def prove_variant(args, out, progress) -> int:
    from peproof.guard.paths import emit, write_atomic
    from peproof.variant_results import exit_code, render, run_variant

    v = parse_or_exit(args.variant)
    from peproof.guard.paths import coq_build_dir

    # the variant's .v files apart from the paper's (same claim ids, other statements)
    paper = coq_build_dir()
    coq_dir = paper.with_name(paper.name + "-variant") if paper is not None else None
    res = run_variant(v, args.pattern, falsifiers=not args.no_falsifiers, progress=progress,
                      coq=not args.no_coq, coq_dir=coq_dir, recheck=args.recheck)
    if not res["claims"]:
        raise UsageError(f"no claim id matches {args.pattern!r}")
    text = json.dumps(res, indent=1, sort_keys=True, default=str)
    if out:
        write_atomic(out, text)
    emit(text if args.json else render(res))
    return exit_code(res)


def decide_variant(args, v, folder: Path) -> dict:
    """``peproof report --variant SPEC``'s run (Coq included, the ``.v`` files in ``folder``'s
    ``coq-variant``); the report command writes the document from it."""
    from peproof.variant_results import run_variant

    res = run_variant(v, args.pattern, coq=True, coq_dir=Path(folder) / "coq-variant",
                      recheck=getattr(args, "fresh", False))
    if not res["claims"]:
        raise UsageError(f"no claim id matches {args.pattern!r}")
    return res


def check_hint(rep) -> str | None:
    """``peproof prove --variant SPEC`` for the variant a ``peproof check`` report identified, or
    None when it is the paper's (or none was identified, or it has no SPEC: a row order other
    than forward is a property of the table, not of the encoding, and is left out)."""
    from peproof.encoding import ParameterError
    from peproof.scope import Sinusoidal
    from peproof.variant import VariantError, is_paper, spec

    ident = getattr(rep, "identified", None)
    ov = getattr(ident, "variant", None)
    d = getattr(rep, "d", None)
    if ov is None or not d:
        return None
    try:
        sv = Sinusoidal(ov.encoding(d))
        if is_paper(sv):
            return None
        return f"peproof prove --variant {spec(sv)}"
    except (VariantError, ParameterError, ValueError):
        return None
