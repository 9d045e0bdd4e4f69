"""``peproof horizon``: where float64/float32/float16/bfloat16 recipes stop separating positions.

    peproof horizon --dtype float16 --d 512 [--recipe exp-float] [--max-pos 62832] [--json]
    peproof horizon --dtype all --d 64,128,256,512,768,1024 --out reports/build/horizon.json

For each ``d`` the minimum separation ``delta`` of the ``N`` positions is certified first; then
every (dtype, recipe) is scanned for (a) the first collision, (b) the first position whose
error exceeds ``delta/2``, (c) the first overflow.  Exit code 0 (the horizons are findings, not
failures), 2 on bad input, 4 on a fault of the environment (the checkpoint keeps the finished
chunks, as for ``separation``).
"""

from __future__ import annotations

import time
from decimal import Decimal

from peproof.commands._runs import (
    CHUNK_OVERHEAD,
    add_engine_flags,
    check_room,
    engine_line,
    interrupted,
    run_config,
)
from peproof.commands.separation import (
    DEFAULT_N,
    checkpoint_bytes,
    emit,
    envelope,
    estimate,
    output_bytes,
    parse_ds,
    render,
    validate,
)
from peproof.guard import UsageError
from peproof.guard.limits import RATES, Estimate, Limits, count
from peproof.guard.limits import add_arguments as add_limit_arguments
from peproof.guard.paths import out_file
from peproof.guard.positions import parse_count

SCHEMA = "peproof.horizon/1"


def _choices(values: list[str] | None, allowed: tuple[str, ...], name: str) -> list[str]:
    if not values:
        return list(allowed)
    out: list[str] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if part == "all":
                out += list(allowed)
            elif part in allowed:
                out.append(part)
            else:
                raise UsageError(f"{name} must be one of {', '.join(allowed)} or 'all', "
                                 f"got {part!r}")
    return list(dict.fromkeys(out))


def _pos(x: int | None, limit: int | None = None) -> str:
    if x is None:
        return "none"
    if limit is not None and x >= limit:
        return f"{Decimal(x):.3g}" if x >= 10**9 else str(x)
    return str(x)


def table(d: int, n_pos: int, half: tuple[float, float], rows: list[dict]) -> str:
    head = [("dtype", "recipe", "(a) first collision", "(b) error > delta/2", "(c) overflow",
             "max error", "scanned")]
    for h in rows:
        coll = _pos(h["collision"])
        if h["collision"] is None:
            bound = h["collision_bound"]
            coll = f"none < {n_pos}" + (f" (forced at {_pos(bound, n_pos)})" if bound else "")
        else:
            coll += f" (= pos {h['collision_with']})"
        if h["error_crossing"] is None:
            cross = f"none < {n_pos}"
        else:
            cross = str(h["error_crossing"]) + ("" if h["crossing_certain"] else " (near tie)")
        ovf = "never" if h["overflow"] is None else _pos(h["overflow"], n_pos)
        head.append((h["dtype"], h["recipe"], coll, cross, ovf, f"{h['max_error']:.3g}",
                     str(h["scanned"])))
    title = (f"d = {d}, N = {n_pos}: certified delta/2 in [{half[0]:.10g}, {half[1]:.10g}] "
             "(half the minimum distance between two positions)")
    return title + "\n" + render(head)


def horizon_estimate(ds: list[int], n_pos: int, jobs: int) -> Estimate:
    """The certified separation of each ``d`` (:func:`estimate`), then ``jobs`` recipe scans of
    ``N x d`` entries in row chunks of ``max(256, 2**21 // h)``, keeping one row hash per
    position (a Python dict: about 200 bytes each) until the first collision."""
    sep = estimate(ds, n_pos, what="horizon")
    mem, secs = sep.memory, sep.seconds
    for d in ds:
        h = max(d // 2, 1)
        rows = min(max(256, (1 << 21) // h), n_pos)
        mem = max(mem, 8 * 16 * rows * d + 200 * n_pos)
        secs += jobs * n_pos * d / RATES["recipe_entry"]
    return Estimate("horizon", mem, secs, f"{jobs} recipe scan(s) of {count(n_pos)} positions "
                    f"x d up to {count(max(ds))}; {sep.detail}")


def cmd_horizon(args) -> int:
    from dataclasses import replace

    from peproof.numeric import checkpoint
    from peproof.numeric import recipes as R
    from peproof.numeric.engine import Interrupted, run_chunks
    from peproof.numeric.horizon import half_separation, jobs_for, scan_job

    ds = parse_ds(args.d)
    dtypes = _choices(args.dtype, tuple(R.DTYPES), "--dtype")
    recipes = _choices(args.recipe, R.RECIPES, "--recipe")
    n_pos = parse_count(args.max_pos, "--max-pos", 2)
    out_path = out_file(args.out)
    Limits.from_args(args).enforce(horizon_estimate(ds, n_pos, len(dtypes) * len(recipes)))
    validate(ds, n_pos, args.family, args.base)
    cfg = run_config(args, "horizon")
    jobs_n = len(dtypes) * len(recipes)
    check_room(out_path, output_bytes(ds, 8) + 2048 * len(ds) * jobs_n, cfg.checkpoint,
               checkpoint_bytes(ds, n_pos, 1 << 20) + len(ds) * jobs_n * (2048 + CHUNK_OVERHEAD))
    t0 = time.perf_counter()
    out, texts = [], []
    try:
        with checkpoint.session(remove=True):  # the checkpoints go once the output is written
            for d in ds:
                sep, half = half_separation(d, n_pos, args.family, args.base,
                                            run=replace(cfg, label=f"separation d={d} N={n_pos}"))
                jobs = jobs_for(d, dtypes, recipes, n_pos, half, args.family, args.base)
                rows, info = run_chunks(scan_job, jobs,
                                        config=replace(cfg, label=f"horizon d={d}"),
                                        sizes=[n_pos] * len(jobs), unit="positions",
                                        estimate=len(jobs) * n_pos * d * 2e-9)
                out.append({"d": d, "n_pos": n_pos, "half_separation": list(half),
                            "separation": sep.as_dict(), "horizons": rows,
                            "run": info.as_dict()})
                texts.append(table(d, n_pos, half, rows) + "\n" + engine_line(info.as_dict()))
            params = {"d": ds, "dtypes": dtypes, "recipes": recipes, "max_pos": n_pos,
                      "family": args.family, "base": args.base}
            emit(envelope(SCHEMA, params, out, time.perf_counter() - t0), args,
                 "\n\n".join(texts), out_path, cfg.checkpoint)
    except Interrupted as exc:
        return interrupted(exc)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("horizon", help="precision horizons of dtype recipes: first collision, "
                       "first error past half the certified separation, first overflow")
    p.add_argument("--dtype", action="append", metavar="DTYPE",
                   help="float64, float32, float16, bfloat16, a comma list or 'all' (default)")
    p.add_argument("--d", action="append", metavar="D",
                   help="model dimension: even integer, comma list, or 'all' (repeatable)")
    p.add_argument("--recipe", action="append", metavar="RECIPE",
                   help="exp-float, exp-int, pow-float, pow-int, f32-cast, or 'all' (default)")
    p.add_argument("--max-pos", default=str(DEFAULT_N), metavar="N",
                   help="positions 0..N-1 scanned; default 62832 = ceil(2 pi 10^4)")
    p.add_argument("--family", choices=("paper", "h-1"), default="paper")
    p.add_argument("--base", default="10000", help="frequency base, an exact number > 1")
    p.add_argument("--json", action="store_true", help="machine-readable envelope on stdout")
    p.add_argument("--out", help="also write the JSON envelope to this file")
    add_engine_flags(p)
    add_limit_arguments(p)
    p.set_defaults(func=cmd_horizon)
