"""Checkpoints of a chunked scan: finished chunks on disk, signed, locked, never trusted blindly.

A scan is a job function and a list of plain-data jobs (:mod:`peproof.numeric.engine`).  Its
*fingerprint* is a SHA-256 of the job function's name, the **code version** (a hash of the
sources of ``peproof/numeric/*.py`` and ``peproof/encoding.py`` with the package version) and
every job's parameters; its checkpoint lives in ``DIR/<name>-<fingerprint[:16]>/``:

``.peproof.lock``   an ``flock`` held by the one run using the folder (:mod:`peproof.guard.locks`):
                    a second run of the same scan waits and says so, or with ``--no-wait`` is
                    refused; the kernel drops the lock when its holder dies, however it dies;
``manifest.json``   the run: fingerprint, job function, code version, number of chunks, and the
                    parameters every chunk shares;
``manifest.log``    one line per saved chunk, ``{"index", "sha256", "mac"}``: the SHA-256 of the
                    chunk file's bytes and ``HMAC-SHA256(key, "fingerprint:index:sha256")``;
``chunk-<i>.json``  ``{"fingerprint", "code", "index", "job", "result"}`` of chunk ``i``.

**A chunk is resumed only if** its manifest line carries a MAC made with this user's key, its
bytes hash to the SHA-256 of that line, it parses, its fingerprint and code version are this
run's, its index and job are this run's chunk ``i`` and the scan's own check of the result
(``check(job, result)``, e.g. :func:`peproof.numeric.recertify.check_chunk`) passes.  Any other
chunk file is deleted and recomputed, and :attr:`Checkpoint.rejected` names it with the reason.
So a chunk that is not byte for byte what a peproof run of this user wrote for this very chunk
of this very scan (a flipped byte, a truncated or swapped file, a hand edit, another run's
chunk, a file of other code) never reaches the merge, and the checksum cannot be recomputed to
match an edit without the key.  What the merge then certifies again from the encoding, and why
the two layers together leave no corruption that changes a certified result, is argued in
:mod:`peproof.numeric.recertify`.

**The key** (:mod:`peproof.guard.keys`): 32 random bytes in
``$XDG_STATE_HOME/peproof/checkpoint.key`` (default ``~/.local/state/peproof/``), mode 0600,
made on first use.  Where it cannot be kept, or the file is readable by others or not the
user's, the run uses a key of its own, says so (:attr:`Checkpoint.notes`), and its chunks can be
resumed by no other run.

Writes: a chunk file goes to a temporary name in the folder, is flushed, ``fsync``-ed and
renamed (a file is whole or absent), then its manifest line is appended and synced, with SIGINT
and SIGTERM held back meanwhile (:func:`peproof.guard.signals.deferred`, whichever thread
the kernel hands them to); only ``kill -9`` between the two leaves a chunk that is not listed,
which is then recomputed.  Results go through JSON
both when written and when computed (:func:`plain`), so a result read back is the very value a
fresh run hands to the merge (floats are written with ``repr``, which round-trips exactly).

The folder stays until its owner says the work is safe elsewhere: :func:`session` keeps every
checkpoint opened inside it locked, and removes them only when the block ends without an error
(the commands end it after their outputs are written and synced).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import peproof
from peproof.guard import signals
from peproof.guard.keys import mac, user_key
from peproof.guard.locks import LOCK_NAME, FolderLock
from peproof.guard.paths import _stage, fsync_folder

SCHEMA = "peproof.checkpoint/2"
#: in a checkpoint root peproof created: the root goes when the last scan folder in it goes
ROOT_MARK = ".peproof-checkpoints"
_CHUNK = re.compile(r"^chunk-(\d{6,})\.json$")


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
    """Write ``value`` as JSON to ``path``: temporary file, fsync, rename, folder synced."""
    _replace(Path(path), json.dumps(value, allow_nan=True, indent=indent).encode())


def _replace(path: Path, raw: bytes) -> None:
    """``raw`` into ``path`` atomically; a link at ``path`` is replaced, not followed (the
    checkpoint's own files are never written through a link someone put there)."""
    tmp = _stage(path, raw)
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)


# ------------------------------------------------------------------------------- sessions
_sessions: list[list[Checkpoint]] = []
_held: dict[str, Checkpoint] = {}
_noted: list[str] = []  # the key's problem, once said


@contextmanager
def session(remove: bool = True):
    """Keep the checkpoints opened in the block locked until it ends; remove them when it ends
    without an error and ``remove`` is set.  Nested sessions belong to the outermost one (a
    command opens it around the scans and the writing of its outputs)."""
    if _sessions:
        yield
        return
    mine: list[Checkpoint] = []
    _sessions.append(mine)
    ok = False
    try:
        yield
        ok = True
    finally:
        _sessions.pop()
        for ck in mine:
            ck.close(remove=ok and remove)


class Checkpoint:
    """The finished chunks of one scan in ``root/<name>-<fingerprint[:16]>/``.

    ``check(job, result)`` returns None for a result the scan accepts, else the reason it does
    not; ``wait`` False refuses (instead of waiting) when another run holds the folder.
    """

    def __init__(self, root: str | Path, fn, jobs: list, check=None, wait: bool = True,
                 owns_root: bool = False):
        self.fp = fingerprint(fn, jobs)
        name = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__name__
        self.root = Path(root)
        self.dir = self.root / f"{name}-{self.fp[:16]}"
        self.jobs = plain(jobs)
        self.fn = fn_name(fn)
        self.check, self.wait = check, wait
        self.rejected: list[dict] = []  # {"index", "file", "reason"} of every chunk recomputed
        self.notes: list[str] = []
        self._lock: FolderLock | None = None
        self._torn = False  # the manifest log holds lines to drop
        self._made_root = owns_root  # remove the root too when it is left empty

    @property
    def ignored(self) -> int:
        return len(self.rejected)

    def path(self, i: int) -> Path:
        return self.dir / f"chunk-{i:06d}.json"

    # ----------------------------------------------------------------- open, lock, verify
    def open(self) -> dict[int, object]:
        """Lock the folder (create it and its manifest if needed); return the results of the
        chunks that pass every check, by index.  Rejected files are deleted and named in
        :attr:`rejected`."""
        key = str(self.dir.resolve())
        if key in _held and _held[key] is not self:
            other = _held[key]  # this process already holds it (a re-run inside one session)
            self._lock, self._made_root = other._lock, other._made_root
            other._lock = None
        else:
            made = not self.root.exists()
            self._lock = FolderLock(self.dir, "a peproof scan", self.wait, "checkpoint",
                                    "--checkpoint").acquire()
            mark = self.root / ROOT_MARK
            if (made or self._lock.made_parent or self._made_root) and not mark.exists():
                try:
                    os.close(os.open(mark, os.O_WRONLY | os.O_CREAT, 0o644))
                except OSError:  # a nicety: without it the empty root merely stays
                    pass
            self._made_root = mark.exists()
        _held[key] = self
        if _sessions and self not in _sessions[-1]:
            _sessions[-1].append(self)
        note = user_key()[1]
        if note and not _noted:
            _noted.append(note)  # said once per process
            self.notes.append(f"{note}: the chunks this run saves cannot be resumed by another "
                              "run")
        for stray in self.dir.glob(".*.tmp"):
            stray.unlink(missing_ok=True)
        self._write_manifest()
        entries = self._read_log()
        done: dict[int, object] = {}
        files = {}
        for f in self.dir.iterdir():
            m = _CHUNK.match(f.name)
            if m:
                files[int(m.group(1))] = f
        for i in sorted(set(files) | set(entries)):
            reason, result = self._verify(i, files.get(i), entries.get(i))
            if reason is None:
                done[i] = result
            else:
                self._reject(i, reason, files.get(i))
        if self.rejected or self._torn:
            self._rewrite_log({i: entries[i] for i in done})
        return done

    def _write_manifest(self) -> None:
        head = {"schema": SCHEMA, "fingerprint": self.fp, "fn": self.fn, "code": code_version(),
                "chunks": len(self.jobs), "params": _common(self.jobs)}
        path = self.dir / "manifest.json"
        try:
            if json.loads(path.read_text(encoding="utf-8")) == head:
                return
        except (OSError, ValueError):
            pass
        write_json_atomic(path, head, indent=1)

    def _read_log(self) -> dict[int, dict]:
        entries: dict[int, dict] = {}
        self._torn = False
        try:
            lines = (self.dir / "manifest.log").read_text(encoding="utf-8",
                                                          errors="replace").splitlines()
        except FileNotFoundError:
            return entries
        for line in lines:
            try:
                e = json.loads(line)
                i = e["index"]
                if (isinstance(i, int) and not isinstance(i, bool) and isinstance(e["sha256"], str)
                        and isinstance(e["mac"], str)):
                    self._torn |= i in entries
                    entries[i] = e
                    continue
            except (ValueError, KeyError, TypeError):
                pass
            self._torn = True  # a line torn by a kill, or not ours: its chunk counts as unlisted
        return entries

    def _rewrite_log(self, entries: dict[int, dict]) -> None:
        text = "".join(json.dumps(entries[i], sort_keys=True) + "\n" for i in sorted(entries))
        _replace(self.dir / "manifest.log", text.encode())

    def _verify(self, i: int, f: Path | None, e: dict | None) -> tuple[str | None, object]:
        if not 0 <= i < len(self.jobs):
            return f"not a chunk of this run (it has {len(self.jobs)})", None
        if f is None:
            return "listed in the manifest but missing", None
        if e is None:
            return "not listed in the manifest", None
        if not hmac.compare_digest(e["mac"].encode("utf-8", "surrogatepass"),
                                   mac(self.fp, i, e["sha256"]).encode()):
            return "its manifest line is not signed with this user's checkpoint key", None
        try:
            raw = f.read_bytes()
        except OSError as exc:
            return f"unreadable ({exc.strerror})", None
        if hashlib.sha256(raw).hexdigest() != e["sha256"]:
            return "its SHA-256 differs from the manifest", None
        try:
            rec = json.loads(raw)
            if rec["fingerprint"] != self.fp or rec["code"] != code_version():
                return "it belongs to another run (other parameters or code)", None
            if rec["index"] != i or rec["job"] != self.jobs[i]:
                return f"it is not chunk {i} of this run", None
            result = rec["result"]
        except (ValueError, KeyError, TypeError):
            return "it is not a chunk record", None
        try:
            why = self.check(self.jobs[i], result) if self.check else None
        except Exception as exc:  # noqa: BLE001 - a result too broken to check is refused
            why = f"{type(exc).__name__} while checking it"
        return (f"its result fails the scan's check ({why})", None) if why else (None, result)

    def _reject(self, i: int, reason: str, f: Path | None) -> None:
        self.rejected.append({"index": i, "file": (f or self.path(i)).name, "reason": reason})
        if f is not None:
            f.unlink(missing_ok=True)

    # ------------------------------------------------------------------------ save, discard
    def save(self, i: int, result) -> None:
        """Write chunk ``i`` and append its manifest line, with SIGINT and SIGTERM held back
        meanwhile (delivered right after), so an interrupt never separates the two."""
        with signals.deferred((signal.SIGINT, signal.SIGTERM)):
            self._save(i, result)

    def _save(self, i: int, result) -> None:
        raw = json.dumps({"fingerprint": self.fp, "code": code_version(), "index": i,
                          "job": self.jobs[i], "result": result}, allow_nan=True,
                         sort_keys=True).encode()
        path = self.path(i)
        try:
            _replace(path, raw)
            sha = hashlib.sha256(raw).hexdigest()
            line = json.dumps({"index": i, "mac": mac(self.fp, i, sha), "sha256": sha},
                              sort_keys=True) + "\n"
            path = self.dir / "manifest.log"
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if os.write(fd, line.encode()) != len(line):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            exc.filename = str(path)  # the file being written, not its temporary name
            raise

    def discard(self, bad: dict[int, str]) -> None:
        """Delete chunks whose results the final re-certification refused (``{index: why}``)
        and drop their manifest lines; they are named in :attr:`rejected`."""
        entries = self._read_log()
        for i, why in sorted(bad.items()):
            self._reject(i, why, self.path(i) if self.path(i).exists() else None)
            entries.pop(i, None)
        self._rewrite_log(entries)

    def close(self, remove: bool) -> None:
        """Release the lock; with ``remove`` delete the folder first (and the checkpoint root
        when peproof created it, by this run or an earlier one, or ``owns_root`` was given,
        and nothing else is in it)."""
        _held.pop(str(self.dir.resolve()), None)
        lock, self._lock = self._lock, None
        if lock is None:
            return
        try:
            if remove:
                for p in self.dir.iterdir():
                    if p.name != LOCK_NAME:
                        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
                (self.dir / LOCK_NAME).unlink(missing_ok=True)
                self.dir.rmdir()
                if self._made_root:
                    try:
                        if {p.name for p in self.root.iterdir()} <= {ROOT_MARK}:
                            (self.root / ROOT_MARK).unlink(missing_ok=True)
                            self.root.rmdir()
                    except OSError:  # in use again, or another scan's checkpoint is there
                        pass
        finally:
            lock.release()

    def remove(self) -> None:
        self.close(remove=True)


def _common(jobs: list) -> dict:
    """The parameters every job shares (d, N's chunks' family, base ...), for the manifest."""
    if not jobs or not all(isinstance(j, dict) for j in jobs):
        return {}
    first = jobs[0]
    return {k: v for k, v in first.items() if all(j.get(k) == v for j in jobs)}
