"""What the long-scan commands (``separation``, ``horizon``, ``rope-decay``) share: the engine
flags, the checks of ``--out`` and ``--checkpoint`` before the work, and the order that keeps
finished work safe.

Order of a run:

1. before any work, ``--out`` (a file) and the checkpoint folder are checked for writability and
   for the room they need (:func:`check_room`: the output's size and the checkpoint's are
   estimated from the parameters, as the memory is) -- a refusal is one line, exit code 2;
2. the scans run inside one :func:`peproof.numeric.checkpoint.session`: every checkpoint folder
   is locked for the whole run (a second run of the same scan waits, or is refused with
   ``--no-wait``) and stays on disk;
3. the outputs are written (:func:`write_output`: atomically, synced; a full or read-only disk
   is an environment fault, exit code 4, naming the path and where the finished chunks are);
4. only then does the session end and remove the checkpoint folders.

Checkpoints go to ``--checkpoint DIR`` or, by default, to ``checkpoints/`` in the folder of
``--out``; without either there is none.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

from peproof.guard import ENVIRONMENT_ERRNOS, EnvironmentFault, UsageError, describe_os_error
from peproof.guard.paths import check_space, free_bytes, out_folder, write_atomic
from peproof.guard.positions import parse_count

_ADDRESS = re.compile(r"^([a-z0-9+]+://)?[\w.\-\[\]:]+:\d+$", re.IGNORECASE)
#: bytes of a chunk file and its manifest line beyond the result's own (JSON, keys, job, MAC)
CHUNK_OVERHEAD = 1024


def note(line: str) -> None:
    """A one-line note on stderr (chunks recomputed, a key that cannot be kept...)."""
    print(f"peproof: {line}", file=sys.stderr, flush=True)


def add_engine_flags(p) -> None:
    """``--engine``, ``--scheduler``, ``--scheduler-timeout``, ``--workers``, ``--checkpoint``,
    ``--no-wait`` (separation, horizon, rope-decay)."""
    p.add_argument("--engine", choices=("auto", "inline", "pool", "dask"), default="auto",
                   help="where the chunks run: auto (Dask for long scans, a process pool or "
                   "this process for short ones), inline, pool, dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (e.g. tcp://host:8786)")
    p.add_argument("--scheduler-timeout", metavar="SECONDS", default="60",
                   help="how long to wait for the scheduler's handshake, for a first worker, "
                   "or for a silent scheduler, before giving up (exit code 4; default 60)")
    p.add_argument("--workers", help="local worker processes (default: all cores)")
    p.add_argument("--checkpoint", metavar="DIR", help="save finished chunks here and resume "
                   "from them (default: checkpoints/ in the folder of --out)")
    p.add_argument("--no-wait", action="store_true", help="refuse at once (exit code 2) when "
                   "another run is using the same checkpoint, instead of waiting for it")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not (0 < value <= 86400):
        raise UsageError(f"--scheduler-timeout must be a number of seconds in (0, 86400], "
                         f"got {text!r}")
    return value


def checkpoint_dir(args) -> str | None:
    """``--checkpoint``, else ``checkpoints/`` in the folder of ``--out``, else None."""
    out = getattr(args, "out", None)
    return args.checkpoint or (str(Path(out).parent / "checkpoints") if out else None)


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
    timeout = _seconds(getattr(args, "scheduler_timeout", "60"))
    ck = checkpoint_dir(args)
    if ck and Path(ck).exists() and not Path(ck).is_dir():
        raise UsageError(f"--checkpoint must be a folder, {ck!r} is a file")
    return RunConfig(engine=args.engine, scheduler=args.scheduler, workers=workers,
                     checkpoint=ck, progress=not args.json, label=label,
                     wait=not getattr(args, "no_wait", False), scheduler_timeout=timeout,
                     notify=note, keep_checkpoint=False,
                     checkpoint_default=bool(ck and not args.checkpoint))


def check_room(out: Path | None, out_bytes: float, ck: str | None, ck_bytes: float) -> None:
    """Before the work: the checkpoint folder can be written, and the file systems of ``--out``
    and of the checkpoint have room for what will be written there (one line, exit code 2)."""
    if ck:
        out_folder(ck, "--checkpoint")
    needs: dict[int, list] = {}
    for path, size, flag, what in ((out, out_bytes, "--out", "the output"),
                                   (Path(ck) if ck else None, ck_bytes, "--checkpoint",
                                    "the checkpoint")):
        if path is None:
            continue
        try:
            key = free_bytes(path)[1].stat().st_dev
        except OSError:
            continue
        needs.setdefault(key, []).append((path, size, flag, what))
    for items in needs.values():
        total = sum(size for _, size, _, _ in items)
        path, _, flag, _ = items[0]
        what = " and ".join(w for _, _, _, w in items)
        check_space(path, total, flag, what)


def write_output(path: Path, data: str | bytes, ck: str | None) -> None:
    """``data`` to ``path`` atomically; a full or read-only disk is an environment fault that
    says where the finished chunks are kept (the checkpoint is removed only after this)."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        if exc.errno not in ENVIRONMENT_ERRNOS and not isinstance(exc, PermissionError):
            raise
        exc.filename = str(path)  # the output, not its temporary name
        kept = (f"; the finished chunks stay in {ck}: make room (or choose another --out) and "
                "run the same command again to resume") if ck else ""
        raise EnvironmentFault(describe_os_error(exc, "writing") + kept) from None


def engine_line(run: dict) -> str:
    resumed = f", {run['resumed']} resumed from the checkpoint" if run.get("resumed") else ""
    redone = f", {len(run['rejected'])} recomputed" if run.get("rejected") else ""
    return (f"engine: {run['engine']} ({run['where']}), {run['chunks']} chunks{resumed}"
            f"{redone}, {run['seconds']:.2f}s")


def interrupted(exc) -> int:
    """One line on stderr for an interrupted scan; exit code 128 + the signal (130, 143)."""
    print(f"peproof: {exc}", file=sys.stderr)
    return 128 + int(getattr(exc, "signum", 2))
