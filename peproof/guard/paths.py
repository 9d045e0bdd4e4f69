"""Files in and out: what a path is, ``--out`` checked up front, atomic writes, folder locks.

* :func:`kind_of` names what a path is (a FIFO, a character device, a folder...) from ``stat``
  alone: a FIFO is never opened (opening one blocks) and ``/dev/zero`` is never read.
* :func:`out_file` and :func:`out_folder` validate ``--out`` before any work starts: a folder
  where a file is wanted, a missing or read-only parent, a FIFO in the way; a write probe (a
  temporary file created and removed) is the test, so a read-only file system or a directory
  the user may not write to is caught whatever ``os.access`` would say for root.
* :func:`write_atomic` writes a temporary file in the same folder and renames it over the
  target, with the permissions an ordinary ``open(path, "w")`` would give (``0666 & ~umask``),
  so a reader sees the old file or the new one, never half of it; :func:`write_group_atomic`
  does the same for a set of files and the index that lists them (all staged before any is
  replaced, the index renamed last).
* :func:`folder_lock` holds ``fcntl.flock`` on ``<folder>/.peproof.lock`` for a whole run: a
  second run into the same folder says it is waiting and starts when the first is done.
* :func:`emit` prints to stdout; a closed pipe (``peproof prove --json | head``) silences the
  rest of the output instead of raising.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from . import UsageError

LOCK_NAME = ".peproof.lock"

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


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (``/proc``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
    the name is not a folder, FIFO or device."""
    if value is None:
        return None
    p, shown, st = _named(value, flag, "a file name")
    if st is not None:
        kind = kind_of(st.st_mode)
        if kind == "a directory":
            raise UsageError(f"{flag} {shown} is a directory; give a file name such as "
                             f"{p / 'results.json'}")
        if kind is not None:
            raise UsageError(f"{flag} {shown} is {kind}, not a regular file")
    parent = p.parent
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


def _stage(path: Path, raw: bytes) -> str:
    """Write ``raw`` to a synced temporary file next to ``path``; returns its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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


def write_atomic(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename;
    the file gets the mode ``open()`` would give it (``0666 & ~umask``)."""
    path = Path(path)
    tmp = _stage(path, _raw(data, encoding))
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_group_atomic(folder: str | os.PathLike, files: dict[str, str | bytes],
                       last: tuple[str, str | bytes], encoding: str = "utf-8") -> None:
    """Write a set of files and then ``last`` (the index that lists them, e.g. a manifest).

    Every file is first written to a synced temporary file; only when all of them are on disk
    is the old index removed, the files renamed into place and the new index renamed last.  A
    failure or a signal while writing (a full disk, Ctrl-C) leaves the folder as it was: the
    temporaries are removed and the old files and old index are untouched.  A reader who finds
    an index always finds the files it lists (renames are atomic and the index goes last).
    """
    folder = Path(folder)
    staged: list[tuple[str, Path]] = []
    try:
        for name, data in files.items():
            staged.append((_stage(folder / name, _raw(data, encoding)), folder / name))
        index_tmp = _stage(folder / last[0], _raw(last[1], encoding))
        staged.append((index_tmp, folder / last[0]))
        (folder / last[0]).unlink(missing_ok=True)
        for tmp, target in staged[:-1]:
            os.replace(tmp, target)
        os.replace(index_tmp, folder / last[0])
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 64).decode("ascii", "replace").strip()
        return f"pid {text}" if text.isdigit() else "another process"
    except OSError:
        return "another process"


@contextmanager
def folder_lock(folder: str | os.PathLike, what: str = "peproof", wait: bool = True):
    """Hold an exclusive lock on ``folder`` (created if missing) for the ``with`` block.

    A second holder waits (saying so on stderr) or, with ``wait=False``, is refused.  If the
    folder was created here and the block fails, the folder is removed again when it holds
    nothing but the lock file, so a refused or interrupted run leaves nothing behind.
    """
    folder = Path(folder)
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666 & ~current_umask())
    except OSError as exc:
        raise UsageError(f"cannot use the output folder {folder} "
                         f"({exc.strerror or type(exc).__name__})") from None
    ok = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise UsageError(f"{folder} is in use by {_holder(fd)} ({what}); wait for it "
                                 "or choose another --out") from None
            print(f"peproof: waiting for {_holder(fd)}, which is writing to {folder} ...",
                  file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield folder
        ok = True
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        if created and not ok:
            _remove_if_empty(folder)


def _remove_if_empty(folder: Path) -> None:
    try:
        if {p.name for p in folder.iterdir()} <= {LOCK_NAME}:
            (folder / LOCK_NAME).unlink(missing_ok=True)
            folder.rmdir()
    except OSError:
        pass


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
