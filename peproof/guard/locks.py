"""One run per folder: an exclusive ``flock`` on ``<folder>/.peproof.lock``.

``report`` and ``vectors`` lock their output folder, the long scans their checkpoint folder
(:mod:`peproof.numeric.checkpoint`).  A second run into a locked folder says on stderr that it
waits and for whom (the holder writes its pid into the lock file), or, with ``wait=False``
(``--no-wait``), is refused in one line (exit code 2).  The kernel drops the lock when its holder
exits, however it exits (``kill -9`` included), so a lock is never left stale.

A holder may delete the folder when it is done (a finished scan removes its checkpoint).  A
waiter then wakes up holding a lock on a file that no longer has a name; it notices (the inode
behind the path is not the one it locked) and locks the folder afresh.
"""

from __future__ import annotations

import fcntl
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from . import UsageError

LOCK_NAME = ".peproof.lock"


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


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 64).decode("ascii", "replace").strip()
        return f"pid {text}" if text.isdigit() else "another process"
    except OSError:
        return "another process"


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class FolderLock:
    """An exclusive lock on ``folder`` held from :meth:`acquire` to :meth:`release`.

    ``noun`` names the folder in messages (``output folder``, ``checkpoint``) and ``flag`` the
    option to change it; ``what`` names the run (``peproof vectors``).
    """

    def __init__(self, folder: str | os.PathLike, what: str = "peproof", wait: bool = True,
                 noun: str = "output folder", flag: str = "--out"):
        self.folder = Path(folder)
        self.what, self.wait, self.noun, self.flag = what, wait, noun, flag
        self.fd: int | None = None
        self.created = False
        self.made_parent = False  # the folder's parent was created here too

    def _open(self) -> int:
        try:
            if not self.folder.exists():
                self.made_parent |= not self.folder.parent.exists()
                self.folder.mkdir(parents=True, exist_ok=True)
                self.created = True
            mode = 0o666 & ~current_umask()
            return os.open(self.folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, mode)
        except OSError as exc:
            raise UsageError(f"cannot use the {self.noun} {self.folder} "
                             f"({exc.strerror or type(exc).__name__})") from None

    def acquire(self) -> FolderLock:
        said = False
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not self.wait:
                    holder = _holder(fd)
                    os.close(fd)
                    raise UsageError(f"the {self.noun} {self.folder} is in use by {holder} "
                                     f"({self.what}); wait for it (without --no-wait) or "
                                     f"choose another {self.flag}") from None
                if not said:
                    print(f"peproof: waiting for {_holder(fd)}, which is using the {self.noun} "
                          f"{self.folder} ...", file=sys.stderr, flush=True)
                    said = True
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
            if _same_file(fd, self.folder / LOCK_NAME):
                break
            os.close(fd)  # the holder removed the folder meanwhile: lock the new one
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def release(self, remove_if_empty: bool = False) -> None:
        """Drop the lock; with ``remove_if_empty`` a folder this lock created goes too when it
        holds nothing but the lock file."""
        if self.fd is None:
            return
        try:
            if remove_if_empty and self.created:
                remove_if_only_lock(self.folder)
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def remove_if_only_lock(folder: Path) -> None:
    try:
        if {p.name for p in folder.iterdir()} <= {LOCK_NAME}:
            (folder / LOCK_NAME).unlink(missing_ok=True)
            folder.rmdir()
    except OSError:
        pass


@contextmanager
def folder_lock(folder: str | os.PathLike, what: str = "peproof", wait: bool = True,
                noun: str = "output folder", flag: str = "--out"):
    """Hold an exclusive lock on ``folder`` (created if missing) for the ``with`` block.

    A second holder waits (saying so on stderr) or, with ``wait=False``, is refused.  If the
    folder was created here and the block fails, the folder is removed again when it holds
    nothing but the lock file, so a refused or interrupted run leaves nothing behind.
    """
    lock = FolderLock(folder, what, wait, noun, flag).acquire()
    ok = False
    try:
        yield lock.folder
        ok = True
    finally:
        lock.release(remove_if_empty=not ok)
