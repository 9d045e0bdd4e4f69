"""``peproof vectors``: golden vectors (decimal strings and a checksummed manifest)."""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "write golden vectors of the encoding (exact decimal strings) and a checksummed manifest"


def add_parser(sub) -> None:
    p = sub.add_parser("vectors", help=HELP, description=HELP + ".")
    p.add_argument("--d", type=int, required=True, help="width d (even)")
    p.add_argument("--positions", default="0:2048", help="'start:stop[:step]' (default 0:2048)")
    p.add_argument("--format", default="json", choices=("json", "npy", "csv"),
                   help="json (default), npy or csv")
    p.add_argument("--digits", type=int, default=40, help="significant digits (default 40)")
    p.add_argument("--family", default="paper", help="paper (default), h-1 or nerf")
    p.add_argument("--base", default="10000", help="base (default 10000)")
    p.add_argument("--layout", default="interleaved", help="interleaved, sin_cos or cos_sin")
    p.add_argument("--offset", default="0", help="position offset (default 0)")
    p.add_argument("--scale", default="1", help="scale: a number, 'sqrt(d)' or '1/sqrt(d)'")
    p.add_argument("--dtype", action="append", default=[],
                   help="also give the values correctly rounded to this dtype (repeatable; "
                        "float64 always)")
    p.add_argument("--out", default="peproof-vectors", help="output directory "
                   "(default ./peproof-vectors)")
    p.set_defaults(func=run)


def run(args) -> int:
    from peproof.cli import UsageError
    from peproof.encoding import ParameterError
    from peproof.formats import get_format
    from peproof.oracle.reference import positions_array
    from peproof.oracle.tables import InputError
    from peproof.oracle.variant import Variant
    from peproof.oracle.vectors import write

    if not 1 <= args.digits <= 200:
        raise UsageError(f"--digits must be between 1 and 200, got {args.digits}")
    try:
        variant = Variant(args.family, args.base, args.layout, args.offset, args.scale)
        variant.encoding(args.d)
        pos = positions_array(args.positions)
        dtypes = ["float64"] + [get_format(t).name for t in args.dtype]
        if any(not get_format(t).is_binary for t in dtypes):
            raise UsageError("--dtype must be float16, bfloat16, float32 or float64")
    except (ParameterError, InputError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if len(pos) == 0:
        raise UsageError(f"--positions {args.positions!r} selects no position")
    if len(pos) * args.d > 20_000_000:
        raise UsageError(f"{len(pos)} x {args.d} entries is too many for exact vectors "
                         "(limit 20 million); split the range")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    man = write(out, args.format, args.d, pos, variant, args.digits, tuple(dict.fromkeys(dtypes)),
                progress=_progress)
    print(f"wrote {len(man['files'])} file(s) and manifest.json to {out} "
          f"({len(pos)} positions x {args.d} channels, {args.digits} digits)")
    for f in man["files"]:
        print(f"  {f['name']}  {f['bytes']} bytes  sha256 {f['sha256'][:16]}...")
    return 0


def _progress(n: int, total: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r[{n}/{total}] positions")
        if n == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
