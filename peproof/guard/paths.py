"""Files in and out: what a path is, ``--out`` checked up front, atomic writes, folder locks.

* :func:`kind_of` names what a path is (a FIFO, a character device, a folder...) from ``stat``
  alone: a FIFO is never opened (opening one blocks) and ``/dev/zero`` is never read.
* :func:`out_file` and :func:`out_folder` validate ``--out`` before any work starts: a folder
  where a file is wanted, a missing or read-only parent, a FIFO in the way; a write probe (a
  temporary file created and removed) is the test, so a read-only file system or a directory
  the user may not write to is caught whatever ``os.access`` would say for root.
* :func:`write_atomic` writes a temporary file in the same folder and renames it over the
  target, with the permissions an ordinary ``open(path, "w")`` would give (``0666 & ~umask``),
  so a reader sees the old file or the new one, never half of it; the file and then its folder
  are synced.  Temporary names keep at most 200 bytes of the target's name, so they never pass
  the 255-byte limit of a file name.  A target that is a symbolic link writes the file the link
  points to (as ``>`` and ``cp`` do), atomically beside that file; the link stays.
  :func:`write_group_atomic` does the same for a set of files and the index that lists them
  (all staged before any is replaced, the index renamed last), and removes the files of the
  previous set that the new one no longer has, so no stale file stays beside a new index.
* :func:`check_space` refuses before the work when the output's file system lacks the room
  the output needs (each command estimates its output size, as it estimates its memory).
* :func:`folder_lock` (:mod:`.locks`) holds ``fcntl.flock`` on ``<folder>/.peproof.lock`` for a
  whole run: a second run into the same folder says it is waiting and starts when the first is
  done.
* :func:`emit` prints to stdout; a closed pipe (``peproof prove --json | head``) silences the
  rest of the output instead of raising.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

from . import UsageError
from .locks import LOCK_NAME, current_umask, folder_lock

__all__ = ["LOCK_NAME", "folder_lock", "out_file", "out_folder", "write_atomic",
           "write_group_atomic", "check_space", "resolve_link", "emit"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str | None:
    """``None`` for a regular file, else what the ``st_mode`` says the path is."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _probe(folder: Path, flag: str, shown: str) -> None:
    """Create and remove a temporary file in ``folder``: the real test of writability."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".peproof-probe-")
    except OSError as exc:
        raise UsageError(f"{flag} {shown}: cannot write in {folder} "
                         f"({exc.strerror or type(exc).__name__})") from None
    os.close(fd)
    os.unlink(tmp)


def _stat(p: Path, flag: str, shown: str):
    try:
        return os.stat(p)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        block = next((a for a in reversed(p.parents) if a.exists() and not a.is_dir()), None)
        raise UsageError(f"{flag} {shown}: {block or 'a parent'} is not a directory") from None
    except OSError as exc:
        raise UsageError(f"{flag} {shown}: {exc.strerror or type(exc).__name__}") from None


def _named(value, flag: str, noun: str):
    """``(path, text, stat or None)`` of an ``--out`` value; an empty value is refused."""
    shown = str(value)
    if not shown.strip():
        raise UsageError(f"{flag} needs {noun}, got an empty string")
    p = Path(value)
    return p, shown, _stat(p, flag, shown)


def out_file(value: str | os.PathLike | None, flag: str = "--out") -> Path | None:
    """Validate an output *file* before any work: its folder exists and takes a new file, and
    the name is not a folder, FIFO or device.  A symbolic link is judged by the file it points
    to (that is where the output goes); a loop is refused."""
    if value is None:
        return None
    p, shown, st = _named(value, flag, "a file name")
    try:
        target = resolve_link(p)
    except OSError:
        raise UsageError(f"{flag} {shown} is a symbolic link that loops") from None
    if st is not None:
        kind = kind_of(st.st_mode)
        if kind == "a directory":
            raise UsageError(f"{flag} {shown} is a directory; give a file name such as "
                             f"{p / 'results.json'}")
        if kind is not None:
            raise UsageError(f"{flag} {shown} is {kind}, not a regular file")
    parent = target.parent
    if not parent.exists():
        raise UsageError(f"{flag} {shown}: the folder {parent} does not exist (create it first)")
    if not parent.is_dir():
        raise UsageError(f"{flag} {shown}: {parent} is not a directory")
    _probe(parent, flag, shown)
    return p


def out_folder(value: str | os.PathLike, flag: str = "--out") -> Path:
    """Validate an output *folder* before any work: an existing folder we can write in, or a
    new one whose nearest existing ancestor is a writable folder (created later, when locked)."""
    p, shown, st = _named(value, flag, "a folder name")
    if st is not None:
        kind = kind_of(st.st_mode)
        if kind != "a directory":
            raise UsageError(f"{flag} {shown} exists and is {kind or 'a file'}, not a directory")
        _probe(p, flag, shown)
        return p
    anc = p.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise UsageError(f"{flag} {shown}: {anc} is not a directory")
    _probe(anc, flag, shown)
    return p


#: the longest file name most file systems take (bytes); a temporary name never exceeds it
NAME_MAX = 255
#: bytes of the target's name kept in a temporary name (``.`` + this + ``.`` + 8 + ``.tmp``)
TEMP_KEEP = 200
#: the hidden file listing the set of files a group write put in a folder
SET_NAME = ".peproof-set"


def temp_prefix(name: str) -> str:
    """``.<name>.`` with the name cut to :data:`TEMP_KEEP` bytes (at a character boundary),
    so that ``mkstemp``'s temporary name stays within :data:`NAME_MAX` bytes whatever the
    target is called."""
    raw = os.fsencode(name)
    if len(raw) > TEMP_KEEP:
        raw = raw[:TEMP_KEEP]
        while raw and (raw[-1] & 0xC0) == 0x80:  # a UTF-8 continuation byte: drop the rest
            raw = raw[:-1]
        if raw and raw[-1] >= 0xC0:
            raw = raw[:-1]
    return "." + os.fsdecode(raw) + "."


def resolve_link(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` lands on, as shell redirection and ``cp`` see it: ``path``
    itself, or the end of its chain of symbolic links (a relative link read against the link's
    folder; the end may not exist yet).  A loop raises ``OSError(ELOOP)``."""
    p, hops = Path(path), 0
    while p.is_symlink():
        hops += 1
        if hops > 40:
            raise OSError(errno.ELOOP, "Too many levels of symbolic links", str(path))
        p = p.parent / os.readlink(p)
    return p


def fsync_folder(folder: str | os.PathLike) -> None:
    """Make a rename in ``folder`` durable (a file system without directory fsync is skipped)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _stage(path: Path, raw: bytes) -> str:
    """Write ``raw`` to a synced temporary file next to ``path``; returns its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path.name), suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _raw(data: str | bytes, encoding: str) -> bytes:
    return data.encode(encoding) if isinstance(data, str) else data


def write_atomic(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` through a synced temporary file in the same folder and a
    rename (the folder synced after it); the file gets the mode ``open()`` would give it
    (``0666 & ~umask``).  A ``path`` that is a symbolic link writes the file it points to,
    atomically beside that file, and the link stays.  Returns the file written."""
    target = resolve_link(path)
    tmp = _stage(target, _raw(data, encoding))
    try:
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)
    return target


def _plain_name(name: object) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..", SET_NAME, LOCK_NAME)
            and "/" not in name and "\0" not in name)


def previous_set(folder: str | os.PathLike) -> list[str]:
    """The names the last group write put in ``folder`` (its :data:`SET_NAME` file)."""
    try:
        names = json.loads((Path(folder) / SET_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [n for n in names if _plain_name(n)] if isinstance(names, list) else []


def adopt_set(folder: str | os.PathLike, names) -> None:
    """Record ``names`` (files an older run wrote, e.g. those its manifest lists) as the
    folder's current set, so the next group write replaces them too."""
    keep = sorted({n for n in names if _plain_name(n)} | set(previous_set(folder)))
    if keep:
        write_atomic(Path(folder) / SET_NAME, json.dumps(keep))


def write_group_atomic(folder: str | os.PathLike, files: dict[str, str | bytes],
                       last: tuple[str, str | bytes], encoding: str = "utf-8") -> None:
    """Write a set of files and then ``last`` (the index that lists them, e.g. a manifest), and
    replace the set the previous group write left in the folder as a whole.

    Every file is first written to a synced temporary file; only when all of them are on disk
    is the old index removed, the files renamed into place and the new index renamed last.  A
    failure or a signal while writing (a full disk, Ctrl-C) leaves the folder as it was: the
    temporaries are removed and the old files and old index are untouched.  A reader who finds
    an index always finds the files it lists (renames are atomic and the index goes last).
    Files of the previous set that the new one does not have are removed after the new index
    is in place; the set is recorded in :data:`SET_NAME` (first as old + new, then as new), so
    a run stopped half-way leaves a record the next run completes.  Names listed there and not
    ours to write (another run's, the user's) are never touched: only names a group write put
    there, or that :func:`adopt_set` was given.
    """
    folder = Path(folder)
    old = previous_set(folder)
    new = list(files) + [last[0]]
    staged: list[tuple[str, Path]] = []
    try:
        for name, data in files.items():
            target = resolve_link(folder / name)
            staged.append((_stage(target, _raw(data, encoding)), target))
        index = resolve_link(folder / last[0])
        index_tmp = _stage(index, _raw(last[1], encoding))
        staged.append((index_tmp, index))
        if set(old) - set(new):
            write_atomic(folder / SET_NAME, json.dumps(sorted(set(old) | set(new))))
        index.unlink(missing_ok=True)
        for tmp, target in staged[:-1]:
            os.replace(tmp, target)
        os.replace(index_tmp, index)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
    for name in sorted(set(old) - set(new)):
        (folder / name).unlink(missing_ok=True)
    write_atomic(folder / SET_NAME, json.dumps(sorted(new)))


def free_bytes(path: str | os.PathLike) -> tuple[int, Path]:
    """Bytes an unprivileged write may still use on the file system of ``path`` (its nearest
    existing ancestor, links followed), and that ancestor."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize, p


def check_space(path: str | os.PathLike, need: float, flag: str = "--out",
                what: str = "the output") -> None:
    """Refuse (one line, exit code 2) before the work when the file system of ``path`` has less
    free space than ``need`` bytes plus a margin (10% and 64 KiB)."""
    from .limits import human_bytes

    try:
        free, where = free_bytes(path)
    except OSError:
        return  # no statvfs here: the write itself will say
    want = need * 1.1 + 64 * 1024
    if free < want:
        raise UsageError(f"{flag} {path}: {what} would take about {human_bytes(want)}, and only "
                         f"{human_bytes(free)} is free on the file system of {where}")


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so later writes and the final flush are quiet."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def emit(text: str) -> bool:
    """Print ``text`` and a newline to stdout; ``False`` (and stdout silenced) if the reader
    has gone away."""
    if sys.stdout is None:  # started with stdout closed (>&-): nobody to tell
        return False
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return True
    except BrokenPipeError:
        silence_stdout()
        return False


def coq_build_dir():
    """Where ``prove`` writes the claims' ``.v`` files: ``$PEPROOF_COQ_BUILD`` when set (the
    test suites give each worker its own folder), else ``reports/build/coq`` in a checkout,
    else nowhere (None)."""
    if os.environ.get("PEPROOF_COQ_BUILD"):
        return Path(os.environ["PEPROOF_COQ_BUILD"])
    checkout = Path(__file__).resolve().parents[2] / "reports"
    return checkout / "build" / "coq" if checkout.is_dir() else None
