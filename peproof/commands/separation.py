"""``peproof separation``: certified minimum separation of the positions ``0 .. N-1``.

    peproof separation --d 512 --max-pos 62832 [--family paper|h-1] [--base 10000] [--json]
    peproof separation --d all --max-pos 1e6 --out reports/build/separation.json
    peproof separation --d 4096 --max-pos 1e9 --scheduler tcp://10.0.0.5:8786 --checkpoint DIR

Long scans run on Dask (a LocalCluster started for the scan, or ``--scheduler ADDRESS``), small
ones inline or on a process pool (``--engine`` forces one; the JSON says which ran).  Finished
chunks are saved to ``--checkpoint DIR`` (default: ``checkpoints/`` beside ``--out``); after
Ctrl-C or SIGTERM (exit code 130) the same command resumes from them.

Exit code 0 when every requested ``d`` is certified (positions pairwise distinct, the minimum
separated from every other offset, mpmath agreeing), 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from pathlib import Path

from peproof.guard import UsageError
from peproof.guard.limits import RATES, Estimate, Limits, count
from peproof.guard.limits import add_arguments as add_limit_arguments
from peproof.guard.paths import emit as say
from peproof.guard.paths import out_file, write_atomic
from peproof.numeric import D_ALL
from peproof.numeric import N_TURN as DEFAULT_N  # ceil(2 pi 10000)

SCHEMA = "peproof.separation/1"
#: memory of one pool worker before its chunk (an interpreter with NumPy and python-flint)
WORKER_BASE = 150 * 2**20


def parse_count(text: str, name: str, low: int) -> int:
    """An integer written as ``62832``, ``1_000_000``, ``1e6``, ``10^6`` or ``10**6`` (and
    >= ``low``), read exactly (``1e23`` is ten to the 23, not the float64 nearest to it)."""
    from peproof.guard.positions import exact_number

    try:
        value = exact_number(text, name)
    except UsageError:
        value = None
    if value is None or value.denominator != 1:
        raise UsageError(f"{name} must be an integer >= {low} (e.g. 62832, 1e6, 10^6), "
                         f"got {text!r}")
    if value < low:
        raise UsageError(f"{name} must be an integer >= {low}, got {int(value)}")
    if value >= 2**63:
        raise UsageError(f"{name} must be an integer below 2**63 (about 9.2e18), got "
                         f"{text.strip()[:40]!r}")
    return int(value)


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


def add_engine_flags(p) -> None:
    """``--engine``, ``--scheduler``, ``--workers``, ``--checkpoint`` (separation, horizon)."""
    p.add_argument("--engine", choices=("auto", "inline", "pool", "dask"), default="auto",
                   help="where the chunks run: auto (Dask for long scans, a process pool or "
                   "this process for short ones), inline, pool, dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (e.g. tcp://host:8786)")
    p.add_argument("--workers", help="local worker processes (default: all cores)")
    p.add_argument("--checkpoint", metavar="DIR", help="save finished chunks here and resume "
                   "from them (default: checkpoints/ beside --out)")


_ADDRESS = re.compile(r"^([a-z0-9+]+://)?[\w.\-\[\]:]+:\d+$", re.IGNORECASE)


def run_config(args, label: str):
    """The engine configuration of ``args`` (validated: UsageError on bad input)."""
    from peproof.numeric.engine import RunConfig

    workers = parse_count(args.workers, "--workers", 1) if args.workers else None
    if args.scheduler and not _ADDRESS.match(args.scheduler):
        raise UsageError("--scheduler must be a Dask scheduler address such as "
                         f"tcp://127.0.0.1:8786, got {args.scheduler!r}")
    if args.scheduler and args.engine not in ("auto", "dask"):
        raise UsageError(f"--scheduler runs on Dask; it cannot be combined with --engine "
                         f"{args.engine}")
    ck = args.checkpoint or (str(Path(args.out).parent / "checkpoints") if args.out else None)
    if ck and Path(ck).exists() and not Path(ck).is_dir():
        raise UsageError(f"--checkpoint must be a folder, {ck!r} is a file")
    return RunConfig(engine=args.engine, scheduler=args.scheduler, workers=workers,
                     checkpoint=ck, progress=not args.json, label=label)


def engine_line(run: dict) -> str:
    resumed = f", {run['resumed']} resumed from the checkpoint" if run.get("resumed") else ""
    return (f"engine: {run['engine']} ({run['where']}), {run['chunks']} chunks{resumed}, "
            f"{run['seconds']:.2f}s")


def interrupted(exc) -> int:
    """One line on stderr for an interrupted scan; exit code 128 + the signal (130, 143)."""
    print(f"peproof: {exc}", file=sys.stderr)
    return 128 + int(getattr(exc, "signum", 2))


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
    Limits.from_args(args).enforce(estimate(ds, n_pos, chunk, cfg.workers,
                                            0 if args.no_confirm else args.sample))
    validate(ds, n_pos, args.family, args.base)
    t0 = time.perf_counter()
    results, ok = [], True
    for d in ds:
        try:
            sep = certify(d, n_pos, args.family, args.base, chunk=chunk,
                          run=replace(cfg, label=f"separation d={d} N={n_pos}"))
        except Interrupted as exc:
            return interrupted(exc)
        except OSError as exc:  # an unreachable --scheduler
            raise UsageError(f"cannot run on {cfg.scheduler or 'the engine'}: {exc}") from None
        row = {"separation": sep.as_dict()}
        if not args.no_confirm:
            row["mpmath"] = confirm(sep, sample=args.sample, seed=args.seed)
            ok &= row["mpmath"]["agree"]
        ok &= sep.distinct and sep.certified_unique and not sep.undecided
        results.append(row)
    params = {"d": ds, "max_pos": n_pos, "family": args.family, "base": args.base,
              "chunk": chunk, "sample": args.sample, "seed": args.seed}
    env = envelope(SCHEMA, params, results, time.perf_counter() - t0)
    emit(env, args, table(results), out)
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


def emit(env: dict, args, text: str, out: Path | None) -> None:
    """The envelope to ``out`` (atomically; validated by :func:`peproof.guard.paths.out_file`
    before the work) and to stdout as JSON, or the table for people."""
    if out:
        write_atomic(out, json.dumps(env, indent=1))
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
