"""``peproof check FILE|module:function``: identify and check a sinusoidal table.

Exit codes: 0 the table conforms (or is within the error model of its dtype), 1 a different
variant, wrong, degenerate (identical rows at distinct positions) or outside the model, 2 bad
input (one line on stderr).
"""

from __future__ import annotations

import json
import math
import sys

from peproof.guard import UsageError
from peproof.guard.limits import add_arguments as add_limit_arguments

HELP = ("identify a sinusoidal positional-encoding table and check it against the paper (or "
        "another variant)")


#: the expectation's options and their defaults (the paper's encoding)
EXPECT_DEFAULTS = {"expect": "paper", "base": "10000", "layout": "interleaved", "offset": "0",
                   "scale": "1", "max_freq": "1", "min_freq": None, "turns": False,
                   "order": "forward"}

def add_parser(sub) -> None:
    p = sub.add_parser("check", help=HELP, description=HELP + ". Reads .npy, .npz, "
                       ".safetensors, .pt (weights only), .csv and text files, or calls "
                       "module:function as f(n, d). Pickles are refused.")
    p.add_argument("source", help="a table file, or module:function called as f(n, d)")
    p.add_argument("--d", type=int, help="the width d (required for module:function; checked "
                   "against files; reshapes a 1-D array)")
    p.add_argument("--n", type=int, help="rows to ask a module:function for (default 2048)")
    p.add_argument("--key", help="which array of an .npz / .safetensors / .pt dictionary")
    p.add_argument("--expect", default="paper", help="paper (default), h-1, nerf, or any "
                   "(accept whatever variant is identified)")
    p.add_argument("--base", default="10000", help="expected base (default 10000)")
    p.add_argument("--layout", default="interleaved",
                   help="expected layout: interleaved (default), sin_cos, cos_sin")
    p.add_argument("--offset", default="0", help="expected position offset (default 0)")
    p.add_argument("--scale", default="1", help="expected scale: a number, 'sqrt(d)' or "
                   "'1/sqrt(d)' (default 1)")
    p.add_argument("--max-freq", default="1", help="expected first (largest) frequency "
                   "(default 1)")
    p.add_argument("--min-freq", help="expected smallest frequency (mlx's min_freq): sets the "
                   "base to max-freq / min-freq")
    p.add_argument("--turns", action="store_true", help="expected frequencies in full turns "
                   "(multiplied by 2 pi)")
    p.add_argument("--order", default="forward", choices=("forward", "reversed", "symmetric"),
                   help="expected order of the rows: forward 0..n-1 (default), reversed "
                   "n-1..0, symmetric |k - (n-1)/2|")
    p.add_argument("--allow-collisions", action="store_true", help="accept identical rows at "
                   "distinct positions (otherwise the verdict is degenerate, exit 1)")
    p.add_argument("--positions", help="positions of the rows: 'start:stop[:step]' (default "
                   "0:n)")
    p.add_argument("--dtype", help="format of the values, if not what the file says "
                   "(float16, bfloat16, float32, float64; decimalD / fixedK for text)")
    p.add_argument("--pipeline-dtype", help="dtype the table was computed in (default: its own)")
    p.add_argument("--worst", type=int, default=5, help="worst positions to list (default 5)")
    p.add_argument("--json", action="store_true", help="the versioned JSON envelope on stdout")
    p.add_argument("--out", help="also write the JSON envelope to this file")
    p.add_argument("--time-limit", metavar="SECONDS", type=float,
                   help="module:function: seconds the call may take, imports included "
                   "(default 120)")
    p.add_argument("--memory-limit", metavar="SIZE",
                   help="module:function: address space the call may use (default: half the "
                   "physical memory, 2G to 16G)")
    add_limit_arguments(p)
    from peproof.oracle.rotary.cli import add_arguments as add_rotary_arguments

    add_rotary_arguments(p)  # --kind, --sin, --rope, ...: inv_freq vectors and cos/sin caches
    p.set_defaults(func=run)


def run(args) -> int:
    from peproof.encoding import ParameterError
    from peproof.guard import positions as P
    from peproof.guard.limits import Limits, count, parse_size, work
    from peproof.guard.paths import emit, out_file, write_atomic
    from peproof.oracle import check as oracle_check
    from peproof.oracle.common.loaders import load
    from peproof.oracle.common.tables import InputError

    if args.d is not None and args.d < 1:
        raise UsageError(f"--d must be a positive even integer, got {args.d}")
    if args.n is not None and args.n < 1:
        raise UsageError(f"--n must be a positive integer, got {args.n}")
    if args.worst < 0:
        raise UsageError(f"--worst must be >= 0, got {args.worst}")
    if args.time_limit is not None and not 0 < args.time_limit < 1e7:
        raise UsageError(f"--time-limit must be a positive number of seconds, got "
                         f"{args.time_limit}")
    from peproof.oracle.rotary.cli import maybe_run

    code = maybe_run(args)  # a rotary artefact (inv_freq, cos/sin cache): its own oracle
    if code is not None:
        return code
    limits = Limits.from_args(args)
    mem_limit = parse_size(args.memory_limit, "--memory-limit") if args.memory_limit else None
    out = out_file(args.out)
    positions = P.parse(args.positions) if args.positions else None
    try:
        table, info = load(args.source, key=args.key, d=args.d, n=args.n, limits=limits,
                           time_limit=args.time_limit, memory_limit=mem_limit)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    except MemoryError:
        raise UsageError(f"{args.source}: not enough memory to read it; store the table as "
                         ".npy or .safetensors, which are streamed") from None
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - hostile files must never produce a traceback
        raise UsageError(f"{args.source}: cannot read it ({type(exc).__name__}: "
                         f"{_line(exc)})") from None
    shape = tuple(getattr(table, "shape", ()))
    entries = math.prod(int(x) for x in shape) if shape else 0
    # the oracle streams the table by row chunks: its memory is a chunk, its time the entries
    limits.enforce(work(f"checking {args.source}", entries, "check_entry", 64 * 2**20,
                        f"{count(entries)} entries"))
    if positions is not None and len(positions) > max(shape, default=0):
        raise UsageError(f"--positions gives {count(len(positions))} positions for a table of "
                         f"shape {shape}")
    dtype = args.dtype or info.get("text_format")
    try:
        pos = positions.float64() if positions is not None else None
        rep = oracle_check(table, d=args.d, positions=pos, expect=args.expect,
                           base=args.base, layout=args.layout, offset=args.offset,
                           scale=args.scale, max_freq=args.max_freq, min_freq=args.min_freq,
                           turns=args.turns, order=args.order,
                           allow_collisions=args.allow_collisions,
                           dtype=dtype, pipeline_dtype=args.pipeline_dtype,
                           progress=_progress, source=info)
    except (InputError, ParameterError) as exc:
        raise UsageError(f"{args.source}: {exc}") from None
    except MemoryError:
        raise UsageError(f"{args.source}: not enough memory; store the table as .npy or "
                         ".safetensors, which are streamed") from None
    except ValueError as exc:
        raise UsageError(f"{args.source}: {_line(exc)}") from None
    from peproof.variant_cli import check_hint

    # no other expectation stated: the diagnoses' "expected" is the default one, said so
    rep.expected_by_default = all(getattr(args, k) == v for k, v in EXPECT_DEFAULTS.items())
    hint = check_hint(rep)  # the identified variant is not the paper's: prove its claims
    env = None
    if args.json or out:
        env = rep.to_json()
        env["prove_variant"] = hint
    if out:
        write_atomic(out, json.dumps(env, indent=1, default=_default) + "\n")
    text = rep.render(args.worst)
    if hint:
        text += f"\nthe paper's claims for this encoding: {hint}"
    emit(json.dumps(env, indent=1, default=_default) if args.json else text)
    return rep.exit_code


def _line(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    return s[0][:300] if s else type(exc).__name__


def _default(o):
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def _progress(n: int, total: int) -> None:
    if sys.stderr.isatty() and total > 16384:
        sys.stderr.write(f"\r[{n}/{total}] rows checked")
        if n == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
