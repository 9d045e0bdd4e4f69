"""``peproof separation``: certified minimum separation of the positions ``0 .. N-1``.

    peproof separation --d 512 --max-pos 62832 [--family paper|h-1] [--base 10000] [--json]
    peproof separation --d all --max-pos 1e6 --out reports/build/separation.json
    peproof separation --d 4096 --max-pos 1e9 --scheduler tcp://10.0.0.5:8786 --checkpoint DIR

Long scans run on Dask (a LocalCluster started for the scan, or ``--scheduler ADDRESS``), small
ones inline or on a process pool (``--engine`` forces one; the JSON says which ran).  Finished
chunks are saved to ``--checkpoint DIR`` (default: ``checkpoints/`` in the folder of ``--out``)
and kept until the output is written; after Ctrl-C or SIGTERM (exit code 130), or a fault of the
machine (exit code 4), the same command resumes from them (:mod:`peproof.commands._runs`).

Exit code 0 when every requested ``d`` is certified (positions pairwise distinct, the minimum
separated from every other offset, mpmath agreeing), 1 otherwise, 2 on bad input, 4 on a fault
of the environment (a full disk, a killed worker, a scheduler gone).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

from peproof.commands._runs import (
    CHUNK_OVERHEAD,
    add_engine_flags,
    check_room,
    engine_line,
    interrupted,
    run_config,
    write_output,
)
from peproof.guard import UsageError
from peproof.guard.limits import RATES, Estimate, Limits, count
from peproof.guard.limits import add_arguments as add_limit_arguments
from peproof.guard.paths import emit as say
from peproof.guard.paths import out_file
from peproof.guard.positions import parse_count
from peproof.numeric import D_ALL
from peproof.numeric import N_TURN as DEFAULT_N  # ceil(2 pi 10000)

__all__ = ["add_engine_flags", "engine_line", "interrupted", "run_config", "DEFAULT_N"]

SCHEMA = "peproof.separation/1"
#: memory of one pool worker before its chunk (an interpreter with NumPy and python-flint)
WORKER_BASE = 150 * 2**20


def parse_ds(values: list[str] | None) -> list[int]:
    """``--d`` values: integers, comma lists, or ``all`` (the issue's list)."""
    if not values:
        raise UsageError("--d is required: an even integer, a comma list, or 'all' "
                         f"({','.join(map(str, D_ALL))})")
    out: list[int] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if part == "all":
                out += list(D_ALL)
                continue
            try:
                out.append(parse_count(part, "--d", 2))
            except UsageError:
                raise UsageError(
                    f"--d must be an even integer >= 2 or 'all', got {part!r}") from None
    return list(dict.fromkeys(out))


def envelope(kind: str, params: dict, results: list[dict], seconds: float) -> dict:
    from peproof import __version__

    return {"schema": kind, "suite_version": __version__, "params": params,
            "platform": {"python": sys.version.split()[0], "machine": platform.machine(),
                         "system": platform.system()},
            "seconds": round(seconds, 3), "results": results}


def render(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(x: float, digits: int = 10) -> str:
    return f"{x:.{digits}g}"


def table(results: list[dict]) -> str:
    rows = [("d", "N", "min |PE(a)-PE(b)|^2 in", "at k", "unique", "min dist >=", "D(1)",
             "#closer", "1st decr", "wrap 2pi/w_min", "float bound", "mp50", "time")]
    for r in results:
        s = r["separation"]
        mp = r.get("mpmath")
        rows.append((
            str(s["d"]), str(s["n_pos"]),
            f"[{_fmt(s['min_sq']['lo'], 12)}, {_fmt(s['min_sq']['hi'], 12)}]",
            ",".join(map(str, s["argmin"])), "yes" if s["certified_unique"] else "TIE",
            _fmt(s["min_dist"]["lo"], 8), _fmt(s["adjacent_sq"]["lo"], 8),
            "?" if s["closer_than_adjacent"] is None else str(s["closer_than_adjacent"]),
            "-" if s["first_decrease"] is None else str(s["first_decrease"]),
            _fmt((s["wrap"]["lo"] + s["wrap"]["hi"]) / 2, 9),
            f"{s['float_bound']:.1e}", "-" if mp is None else ("ok" if mp["agree"] else "FAIL"),
            f"{s['seconds']:.2f}s"))
    return render(rows)


def output_bytes(ds: list[int], sample: int) -> int:
    """The size of the JSON envelope: about 2 KiB per ``d`` and 400 bytes per mpmath check."""
    return 1024 + len(ds) * (2048 + 400 * (sample + 4))


def checkpoint_bytes(ds: list[int], n_pos: int, chunk: int) -> int:
    """A chunk file and its manifest line: the result (about 1 KiB) and the overhead."""
    return len(ds) * -(-(n_pos - 1) // chunk) * (1024 + CHUNK_OVERHEAD)


def estimate(ds: list[int], n_pos: int, chunk: int = 1 << 20, workers: int | None = None,
             sample: int = 0, what: str = "separation") -> Estimate:
    """Memory and time of certifying ``N = n_pos`` positions for every ``d`` in ``ds``, from
    the scan's own structure (:mod:`peproof.numeric.scan`): per chunk of ``n`` offsets, a
    ``rows x 2h`` and a ``2h x COLS`` float64 phase table and about a dozen float64 arrays of
    ``n``; ``N h`` cosine terms in BLAS products; ``h`` frequencies in arb; ``mpmath`` terms."""
    from peproof.numeric.scan import COLS

    mem, secs, parts = 0.0, 0.0, []
    for d in ds:
        h = max(d // 2, 1)
        n = min(chunk, n_pos - 1) + 1
        cols = min(COLS, n)
        rows = -(-n // cols)
        chunks = -(-(n_pos - 1) // chunk)
        par = 1 if chunks == 1 else min(workers or os.cpu_count() or 1, chunks)
        per_chunk = 8 * (rows * 2 * h + 2 * h * cols + 12 * n) + 400 * h
        # plus, in the parent, a job, a future and a result of a few KiB per chunk
        mem = max(mem, (per_chunk + (WORKER_BASE if par > 1 else 0)) * par + 4096 * chunks)
        scan_s = (n_pos - 1) * h / RATES["pair_scan"] / par
        secs += scan_s + 6 * h / RATES["arb_omega"] + (sample + 4) * h / RATES["mp_term"]
        parts.append(f"d={count(d)}: {count(n_pos - 1)} offsets x {count(h)} pairs")
    return Estimate(what, mem, secs, ", ".join(parts[:3]) + (" ..." if len(parts) > 3 else ""))


def cmd_separation(args) -> int:
    from dataclasses import replace

    from peproof.numeric import checkpoint
    from peproof.numeric.confirm import confirm
    from peproof.numeric.engine import Interrupted
    from peproof.numeric.separation import certify

    ds = parse_ds(args.d)
    n_pos = parse_count(args.max_pos, "--max-pos", 2)
    chunk = parse_count(args.chunk, "--chunk", 1)
    if args.sample < 0:
        raise UsageError(f"--sample must be >= 0, got {args.sample}")
    out = out_file(args.out)
    cfg = run_config(args, "separation")
    sample = 0 if args.no_confirm else args.sample
    Limits.from_args(args).enforce(estimate(ds, n_pos, chunk, cfg.workers, sample))
    validate(ds, n_pos, args.family, args.base)
    check_room(out, output_bytes(ds, sample), cfg.checkpoint, checkpoint_bytes(ds, n_pos, chunk))
    t0 = time.perf_counter()
    results, ok = [], True
    try:
        with checkpoint.session(remove=True):  # the checkpoints go once the output is written
            for d in ds:
                sep = certify(d, n_pos, args.family, args.base, chunk=chunk,
                              run=replace(cfg, label=f"separation d={d} N={n_pos}"))
                row = {"separation": sep.as_dict()}
                if not args.no_confirm:
                    row["mpmath"] = confirm(sep, sample=args.sample, seed=args.seed)
                    ok &= row["mpmath"]["agree"]
                ok &= sep.distinct and sep.certified_unique and not sep.undecided
                results.append(row)
            params = {"d": ds, "max_pos": n_pos, "family": args.family, "base": args.base,
                      "chunk": chunk, "sample": args.sample, "seed": args.seed}
            env = envelope(SCHEMA, params, results, time.perf_counter() - t0)
            emit(env, args, table(results), out, cfg.checkpoint)
    except Interrupted as exc:
        return interrupted(exc)
    if not args.json:
        for r in results:
            say(f"d={r['separation']['d']}: {engine_line(r['separation']['run'])}")
        notes = [f"d={r['separation']['d']}: {u}" for r in results
                 for u in r["separation"]["undecided"]]
        say("\n".join(notes) if notes else
            f"all {len(results)} minima certified in arb (reduction: "
            "distance.sq_eq_two_sum_one_minus_cos, inner_product.depends_only_on_offset)")
    return 0 if ok else 1


def validate(ds, n_pos: int, family: str, base: str) -> None:
    """Every (d, N, family, base) is allowed, or one UsageError naming the domain."""
    from peproof.encoding import ParameterError
    from peproof.numeric.separation import check_params

    try:
        for d in ds:
            check_params(d, n_pos, family, base)
    except ParameterError as exc:
        raise UsageError(str(exc)) from None


def emit(env: dict, args, text: str, out: Path | None, ck: str | None = None) -> None:
    """The envelope to ``out`` (atomically; validated by :func:`peproof.guard.paths.out_file`
    before the work) and to stdout as JSON, or the table for people."""
    if out:
        write_output(out, json.dumps(env, indent=1), ck)
    say(json.dumps(env, indent=1) if args.json else text)


def add_parser(sub) -> None:
    p = sub.add_parser("separation", help="certified minimum separation of positions 0..N-1 "
                       "(float64 scan with a proved bound, arb for every candidate)")
    p.add_argument("--d", action="append", metavar="D",
                   help="model dimension: even integer, comma list, or 'all' (repeatable)")
    p.add_argument("--max-pos", default=str(DEFAULT_N), metavar="N",
                   help="number of positions N (offsets 1..N-1); default 62832 = ceil(2 pi 10^4)")
    p.add_argument("--family", choices=("paper", "h-1"), default="paper")
    p.add_argument("--base", default="10000", help="frequency base, an exact number > 1")
    p.add_argument("--json", action="store_true", help="machine-readable envelope on stdout")
    p.add_argument("--out", help="also write the JSON envelope to this file")
    add_engine_flags(p)
    p.add_argument("--chunk", default=str(1 << 20), help="offsets per chunk (bounds memory)")
    p.add_argument("--no-confirm", action="store_true", help="skip the mpmath evidence")
    p.add_argument("--sample", type=int, default=8, help="random offsets checked by mpmath")
    p.add_argument("--seed", type=int, default=0, help="seed of the random sample")
    add_limit_arguments(p)
    p.set_defaults(func=cmd_separation)
