"""``peproof vectors``: golden vectors (decimal strings and a checksummed manifest).

The output folder is locked for the run; its size is estimated with the work and refused up
front when the folder's file system lacks the room (exit code 2); the new set of files replaces
the one an older run left there as a whole (the files its manifest listed and the new one does
not have are removed once the new manifest is in place); a disk that fills while writing
leaves the folder as it was (exit code 4).
"""

from __future__ import annotations

import sys

from peproof.guard import UsageError
from peproof.guard.limits import Estimate, Limits, count, work
from peproof.guard.limits import add_arguments as add_limit_arguments
from peproof.guard.paths import emit

HELP = "write golden vectors of the encoding (exact decimal strings) and a checksummed manifest"


def add_parser(sub) -> None:
    p = sub.add_parser("vectors", help=HELP, description=HELP + ".")
    p.add_argument("--d", type=int, required=True, help="width d (even)")
    p.add_argument("--positions", default="0:2048", help="'start:stop[:step]', exact integers "
                   "or fractions (default 0:2048; negative starts work: --positions -5:5)")
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
                   "(default ./peproof-vectors); locked while it is written")
    add_limit_arguments(p)
    p.set_defaults(func=run)


def output_bytes(n: int, d: int, digits: int, dtypes: int, fmt: str) -> int:
    """The size of the files ``vectors`` writes: per entry a decimal string (``digits`` + sign,
    point and exponent, quoted and separated in JSON) and a hex float per dtype (about 26
    bytes in text), or ``4 (digits + 8)`` bytes of unicode and 8 per dtype in ``.npy``; per
    position its text; and the manifest."""
    entries = n * d
    if fmt == "npy":
        per = 4 * (digits + 8) + 8 * dtypes
    else:
        per = (digits + 10) + 26 * dtypes
    return entries * per + n * (24 + 8 * dtypes) + 16 * 1024


def estimate(n: int, d: int, digits: int, dtypes: int, fmt: str) -> Estimate:
    """Every entry is a certified decimal string (arb balls) held as a Python ``str`` (about
    ``digits + 60`` bytes with its list slot), then written out (``digits + 4`` bytes of text,
    or ``4 (digits + 8)`` in a ``.npy`` of unicode), plus ``dtypes`` float64 tables."""
    entries = n * d
    text = (digits + 4) if fmt != "npy" else 4 * (digits + 8)
    mem = entries * ((digits + 60) + 2 * text + 16 * dtypes)
    return work(f"vectors for {count(n)} positions x d={count(d)}", entries * (1 + dtypes / 4),
                "golden_entry", mem, f"{count(entries)} entries at {digits} digits")


def run(args) -> int:
    from peproof.encoding import ParameterError
    from peproof.formats import get_format
    from peproof.guard import positions as P
    from peproof.guard.paths import check_space, folder_lock, out_folder
    from peproof.oracle.common.tables import InputError
    from peproof.oracle.sinusoidal.variant import Variant
    from peproof.oracle.sinusoidal.vectors import write

    if not 1 <= args.digits <= 200:
        raise UsageError(f"--digits must be between 1 and 200, got {args.digits}")
    if args.d < 2 or args.d % 2:
        raise UsageError(f"--d must be an even integer >= 2, got {args.d}")
    pos = P.parse(args.positions)
    if len(pos) == 0:
        raise UsageError(f"--positions {args.positions!r} selects no position")
    try:
        dtypes = ["float64"] + [get_format(t).name for t in args.dtype]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if any(not get_format(t).is_binary for t in dtypes):
        raise UsageError("--dtype must be float16, bfloat16, float32 or float64")
    dtypes = tuple(dict.fromkeys(dtypes))
    Limits.from_args(args).enforce(estimate(len(pos), args.d, args.digits, len(dtypes),
                                            args.format))
    try:
        variant = Variant(args.family, args.base, args.layout, args.offset, args.scale)
        variant.encoding(args.d)
    except (ParameterError, InputError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    values = list(pos)
    if args.format == "npy":
        P.npy_array(values)  # a position .npy cannot hold is refused before the work
    out = out_folder(args.out)
    check_space(out, output_bytes(len(pos), args.d, args.digits, len(dtypes), args.format),
                "--out", "the vectors")
    with folder_lock(out, "peproof vectors"):
        _adopt_older_run(out)
        man = write(out, args.format, args.d, values, variant, args.digits, dtypes,
                    progress=_progress)
    emit(f"wrote {len(man['files'])} file(s) and manifest.json to {out} "
         f"({pos.describe()} x {args.d} channels, {args.digits} digits)")
    for f in man["files"]:
        emit(f"  {f['name']}  {f['bytes']} bytes  sha256 {f['sha256'][:16]}...")
    return 0


def _adopt_older_run(out) -> None:
    """Files an older run's manifest lists become the folder's current set, so that the new
    set replaces them (an older peproof kept no record of its set besides the manifest)."""
    import json

    from peproof.guard.paths import adopt_set, previous_set

    if previous_set(out):
        return
    try:
        man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        names = [f["name"] for f in man["files"] if isinstance(f, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return
    if man.get("created_by") == "peproof vectors":
        adopt_set(out, names + ["manifest.json"])


def _progress(n: int, total: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r[{n}/{total}] positions")
        if n == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
