"""``peproof rope-decay``: RoPE's long-term decay bound, certified at every offset, and its
landmarks.

    peproof rope-decay --d 128 --max-offset 62832 [--base 10000] [--from K] [--json]
                       [--out curve.json|curve.csv|curve.npz]

``B(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|`` (Su et al. 2021, section 3.4.3) on ``0 <= k <= N``:
where it first rises, how far it never climbs back to an earlier level, its minimum and maximum
on ``K <= k <= N``, each with a certified interval.  ``--out`` writes the certified curve
(``k, lo, hi`` per offset).  Exit code 0 when every landmark is certified, 1 when some comparison
stayed undecided, 2 on bad input, 4 on a fault of the environment (finished chunks stay in the
checkpoint, as for ``separation``).
"""

from __future__ import annotations

import json
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
from peproof.commands.separation import WORKER_BASE, envelope, render
from peproof.guard import UsageError
from peproof.guard.limits import RATES, Estimate, Limits, count
from peproof.guard.limits import add_arguments as add_limit_arguments
from peproof.guard.paths import out_file
from peproof.guard.positions import parse_count
from peproof.numeric import N_TURN

SCHEMA = "peproof.rope-decay/1"
CURVE_SCHEMA = "peproof.rope-decay-curve/1"
OUT_SUFFIXES = (".json", ".csv", ".npz")


def _iv(b: dict | None) -> str:
    return "-" if b is None else b["text"]


def table(lm: dict) -> str:
    d, n = lm["d"], lm["n_end"]
    rows = [("landmark", "offset", "certified B(k)")]
    if lm["b0"] is not None:
        rows.append(("B(0) = (d+2)/4", "0", f"{lm['b0']} (exact)"))
    kr = lm["first_rise"]
    if kr is None:
        rows.append(("first rise B(k) > B(k-1)", "-", "none certified up to N"))
    else:
        rows.append(("first rise B(k) > B(k-1)", str(kr), _iv(lm["rise"]["at"])))
        rows.append(("  the offset before it", str(kr - 1), _iv(lm["rise"]["before"])))
        rows.append(("strictly decreasing on", f"0..{kr - 1}", ""))
    top, brk = lm["record_prefix"], lm["record_break"]
    if top is None:
        rows.append(("B(k') < B(k) for k < k' <= N, k <=", "?", "undecided"))
    else:
        rows.append(("B(k') < B(k) for k < k' <= N, k <=", str(top), ""))
        if brk:
            rows.append((f"  ends: B({brk['above']['k']}) > B({brk['level']['k']})",
                         str(brk["above"]["k"]), _iv(brk["above"])))
    for name in ("minimum", "maximum"):
        e = lm[name]
        tie = f" (ties {e['ties'][:5]})" if e["ties"] else ""
        rows.append((f"{name} on {lm['k_from']}..{n}", str(e["k"]), _iv(e) + tie))
    head = (f"RoPE decay bound B(k) = (2/d) sum_j |S_j(k)|, d={d} base={lm['base']}, k = 0..{n}\n"
            f"certified: float64 curve with |error| <= {lm['bound']:.1e} (proved), arb where the "
            f"intervals overlap; {lm['seconds']:.2f}s")
    return head + "\n\n" + render(rows)


def write_curve(path: Path, curve, params: dict, ck: str | None = None) -> None:
    """The certified curve as JSON (an envelope), CSV (``k,lo,hi``) or NPZ (arrays)."""
    import numpy as np

    ks = np.arange(curve.k0, curve.n_end + 1)
    if path.suffix == ".json":
        body = envelope(CURVE_SCHEMA, params, [{"k0": curve.k0, "bound": curve.bound,
                                                "lo": curve.lo.tolist(), "hi": curve.hi.tolist()}],
                        curve.seconds)
        data: str | bytes = json.dumps(body)
    elif path.suffix == ".csv":
        lines = ["k,lo,hi"] + [f"{k},{lo!r},{hi!r}" for k, lo, hi in
                               zip(ks.tolist(), curve.lo.tolist(), curve.hi.tolist(), strict=True)]
        data = "\n".join(lines) + "\n"
    else:
        import io

        buf = io.BytesIO()
        np.savez(buf, k=ks, lo=curve.lo, hi=curve.hi)
        data = buf.getvalue()
    write_output(path, data, ck)


def curve_bytes(n: int, suffix: str) -> int:
    """The size of the curve file for ``n`` offsets: about 50 bytes per offset as text, 24 in
    an ``.npz``."""
    return 4096 + n * (24 if suffix == ".npz" else 50)


def estimate(d: int, n_end: int, k0: int = 0, workers: int | None = None) -> Estimate:
    """Memory and time of the certified curve from the scan's structure
    (:func:`peproof.numeric.rope_decay.evaluate`): per worker, the ``h x COLS`` phase table and
    three ``h x COLS`` float64 work arrays (plus the seeds), a chunk's values as JSON numbers; in
    the parent the merged curve (mid, lo, hi and the chunks' lists); time ``N h`` phase terms and
    a set-up quadratic in ``h`` (measured: d = 1024, 4096, 16384 at N = 100 took 1.8, 5.4 and
    57 s wall, about 1.5 s of it start-up)."""
    import os

    from peproof.numeric.rope_decay import CHUNK, COLS

    h = max(d // 2, 1)
    n = max(n_end + 1 - k0, 1)
    chunks = -(-n // CHUNK)
    par = 1 if chunks == 1 else min(workers or os.cpu_count() or 1, chunks)
    per_worker = 8 * h * COLS * 6 + 40 * min(CHUNK, n)
    mem = (per_worker + (WORKER_BASE if par > 1 else 0)) * par + 64 * n
    secs = h * h / RATES["rope_setup"] + n * h / RATES["rope_term"] / par
    return Estimate("rope-decay", mem, secs, f"d={count(d)}: {count(n)} offsets x {count(h)} "
                    "pairs")


def cmd_rope_decay(args) -> int:
    from peproof.numeric import checkpoint
    from peproof.numeric.engine import Interrupted
    from peproof.numeric.rope_decay import CHUNK, check_params
    from peproof.numeric.rope_landmarks import certified_landmarks

    if args.d is None:
        raise UsageError("--d is required: the rotary dimension, an even integer >= 2")
    try:
        d = int(args.d)
    except ValueError:
        raise UsageError(f"--d must be an even integer >= 2, got {args.d!r}") from None
    n_end = parse_count(args.max_offset, "--max-offset", 1)
    k_from = parse_count(args.k_from, "--from", 0)
    out = Path(args.out) if args.out else None
    if out is not None and out.suffix not in OUT_SUFFIXES:
        raise UsageError(f"--out must end in {', '.join(OUT_SUFFIXES)}, got {args.out!r}")
    out = out_file(out)
    from peproof.encoding import ParameterError  # SymPy: not imported by the other commands

    try:
        check_params(d, n_end, args.base)
        if k_from > n_end:
            raise ParameterError(f"--from must be at most --max-offset ({n_end}), got {k_from}")
    except ParameterError as exc:
        raise UsageError(str(exc)) from None
    cfg = run_config(args, f"rope-decay d={d} N={n_end}")
    Limits.from_args(args).enforce(estimate(d, n_end, 0, cfg.workers))
    n = n_end + 1
    check_room(out, curve_bytes(n, out.suffix) if out else 0, cfg.checkpoint,
               n * 22 + -(-n // CHUNK) * CHUNK_OVERHEAD)
    t0 = time.perf_counter()
    try:
        with checkpoint.session(remove=True):  # the checkpoint goes once the curve is written
            curve, lm = certified_landmarks(d, n_end, args.base, max(k_from, 0), run=cfg)
            lm = lm.as_dict()
            params = {"d": d, "max_offset": n_end, "base": args.base, "from": k_from}
            env = envelope(SCHEMA, params, [lm], time.perf_counter() - t0)
            if out is not None:
                write_curve(out, curve, params, cfg.checkpoint)
    except Interrupted as exc:
        return interrupted(exc)
    print(json.dumps(env, indent=1) if args.json else table(lm))
    if not args.json and curve.run:
        print(engine_line(curve.run))
    if not args.json and lm["undecided"]:
        print("\n".join(f"undecided: {u}" for u in lm["undecided"]))
    return 1 if lm["undecided"] else 0


def add_parser(sub) -> None:
    p = sub.add_parser("rope-decay", help="RoPE's long-term decay bound B(k), certified at every "
                       "offset 0..N, and its landmarks")
    p.add_argument("--d", metavar="D", help="rotary dimension (even integer >= 2)")
    p.add_argument("--max-offset", default=str(N_TURN), metavar="N",
                   help="largest offset N (default 62832 = ceil(2 pi 10^4))")
    p.add_argument("--base", default="10000", help="frequency base, an exact number > 1")
    p.add_argument("--from", dest="k_from", default="1", metavar="K",
                   help="minimum and maximum are taken on K..N (default 1)")
    p.add_argument("--json", action="store_true", help="machine-readable envelope on stdout")
    p.add_argument("--out", help="also write the certified curve (.json, .csv or .npz)")
    add_engine_flags(p)
    add_limit_arguments(p)
    p.set_defaults(func=cmd_rope_decay)
