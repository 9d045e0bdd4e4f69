"""Checkpoints of a chunked scan: each finished chunk's result on disk, written atomically.

A scan is a job function and a list of plain-data jobs (:mod:`peproof.numeric.engine`).  Its
*fingerprint* is a SHA-256 of the job function's name, the **code version** (a hash of the
sources of ``peproof/numeric/*.py`` and ``peproof/encoding.py`` with the package version) and
every job's parameters; the checkpoint of a scan lives in ``DIR/<name>-<fingerprint[:16]>/``.
A different code version, chunking, ``d``, ``N``, family or base gives another folder, so a
stale checkpoint is never read.  Inside the folder:

``manifest.json``
    the scan's fingerprint, job function, code version and number of chunks;
``chunk-<index>.json``
    ``{"fingerprint", "index", "job", "result"}`` of one finished chunk.

Every file is written to a temporary name in the same folder, flushed, ``fsync``-ed and renamed
(``os.replace`` is atomic on POSIX), so an interrupt or a killed process leaves either the
whole file or none of it.  On load a file whose fingerprint, index or job do not match, or
which does not parse, is ignored (and recomputed); stray temporary files are removed.
Results go through JSON both when written and when computed (:func:`plain`), so a result read
back from a checkpoint is the very value a fresh run hands to the merge (floats are written
with ``repr``, which round-trips exactly).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import peproof

_SOURCES = ("numeric", "encoding.py")


@lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of the package version and the sources the numeric scans run (hex)."""
    root = Path(peproof.__file__).resolve().parent
    h = hashlib.sha256(str(getattr(peproof, "__version__", "")).encode())
    files = sorted((root / "numeric").glob("*.py")) + [root / "encoding.py"]
    for f in files:
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def plain(value):
    """``value`` as JSON reads it back (tuples become lists; floats round-trip exactly)."""
    return json.loads(json.dumps(value, allow_nan=True))


def fn_name(fn) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def fingerprint(fn, jobs: list) -> str:
    spec = {"fn": fn_name(fn), "code": code_version(), "jobs": plain(jobs)}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def write_json_atomic(path: Path, value, indent: int | None = None) -> None:
    """Write ``value`` as JSON to ``path``: temporary file, fsync, rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(value, fh, allow_nan=True, indent=indent)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Checkpoint:
    """The finished chunks of one scan in ``root/<name>-<fingerprint[:16]>/``."""

    def __init__(self, root: str | Path, fn, jobs: list):
        self.fp = fingerprint(fn, jobs)
        name = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__name__
        self.dir = Path(root) / f"{name}-{self.fp[:16]}"
        self.jobs = plain(jobs)
        self.fn = fn_name(fn)
        self.ignored = 0  # files found but not usable (corrupt or not this scan's)
        self._made_root = False

    def _path(self, i: int) -> Path:
        return self.dir / f"chunk-{i:06d}.json"

    def open(self) -> dict[int, object]:
        """Create the folder (and manifest) if needed; return the finished results by index."""
        self._made_root = not self.dir.parent.exists()
        self.dir.mkdir(parents=True, exist_ok=True)
        for stray in self.dir.glob(".*.tmp"):
            stray.unlink(missing_ok=True)
        manifest = self.dir / "manifest.json"
        if not manifest.exists():
            write_json_atomic(manifest, {"fingerprint": self.fp, "fn": self.fn,
                                         "code": code_version(), "chunks": len(self.jobs)})
        done: dict[int, object] = {}
        for f in self.dir.glob("chunk-*.json"):
            try:
                rec = json.loads(f.read_text(encoding="utf-8"))
                i = int(rec["index"])
                ok = (rec["fingerprint"] == self.fp and 0 <= i < len(self.jobs)
                      and rec["job"] == self.jobs[i] and f == self._path(i))
            except (ValueError, KeyError, TypeError, OSError):
                ok = False
            if ok:
                done[i] = rec["result"]
            else:
                self.ignored += 1
        return done

    def save(self, i: int, result) -> None:
        write_json_atomic(self._path(i), {"fingerprint": self.fp, "index": i,
                                          "job": self.jobs[i], "result": result})

    def remove(self) -> None:
        """Delete this scan's folder (and the checkpoint root if :meth:`open` created it and
        nothing else is in it)."""
        shutil.rmtree(self.dir, ignore_errors=True)
        if self._made_root:
            try:
                self.dir.parent.rmdir()
            except OSError:  # not empty: other scans' checkpoints
                pass
