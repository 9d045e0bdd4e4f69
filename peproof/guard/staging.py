"""An output folder written all or nothing: built beside its target, swapped in at the end.

:class:`StagedFolder` makes a hidden folder next to the target (same file system, so the final
rename is atomic), holding a copy of the target's previous files (what a build reuses: its
cached results, its TeX auxiliary files).  The command writes only there.  :meth:`commit`
syncs it and exchanges it with the target in one ``renameat2(RENAME_EXCHANGE)`` (two renames
where the kernel lacks it), then removes the previous folder; :meth:`discard` -- or any
exception or signal inside the ``with`` block -- removes the staged folder and leaves the
target exactly as it was.  A reader sees the old report or the new one, never a mix.

Where no folder can be made beside the target (a parent we may not write in, a target that is
a mount point) the staged folder is made inside the target instead and committed entry by entry
(each entry renamed into place, the previous ones set aside and then removed).

The caller holds the target's folder lock (:func:`.locks.folder_lock`) for the whole build: a
staged folder of the same target left by a run killed with SIGKILL is then known to be stale
and is removed by the next run (:func:`remove_stale`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
import tempfile
from pathlib import Path

from .locks import LOCK_NAME
from .paths import fsync_folder, temp_prefix

STAGE_TAG = "staged-"
#: names of the fallback's folders inside the target (:meth:`StagedFolder._inside`)
INSIDE_PREFIX = ".peproof-staged-"
OLD_PREFIX = ".peproof-previous-"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def stage_prefix(target: Path) -> str:
    return temp_prefix(target.name) + STAGE_TAG


def remove_stale(target: Path) -> list[Path]:
    """Remove the staged folders of ``target`` left by killed runs (the caller holds the
    target's lock, so no live run owns one); returns what was removed."""
    gone = []
    prefix = stage_prefix(target)
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return gone
    try:
        entries += [p for p in target.iterdir()
                    if p.name.startswith((INSIDE_PREFIX, OLD_PREFIX))]
    except OSError:
        pass
    for p in entries:
        if p.name.startswith((prefix, INSIDE_PREFIX, OLD_PREFIX)) and p.is_dir() \
                and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
            gone.append(p)
    return gone


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (0 when it does not exist)."""
    total = 0
    for dirpath, _, files in os.walk(folder):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def _exchange(a: Path, b: Path) -> bool:
    """Swap ``a`` and ``b`` atomically; False when the system cannot (then nothing moved)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _sync_tree(folder: Path) -> None:
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.islink(p):
                continue
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_folder(dirpath)


class StagedFolder:
    """``with StagedFolder(target) as stage: ...; stage.commit()`` (see the module doc)."""

    def __init__(self, target: str | os.PathLike, copy_previous: bool = True):
        self.target = Path(target)
        self.copy_previous = copy_previous
        self.path: Path | None = None
        self.staged_at: Path | None = None  # the staged folder's name (kept after the commit)
        self.committed = False
        self.inside = False  # staged inside the target (no room for a folder beside it)

    def __enter__(self) -> StagedFolder:
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.path = self._beside() or self._inside()
        self.staged_at = self.path
        try:
            os.chmod(self.path, self._mode())
            if self.copy_previous and self.target.is_dir():
                shutil.copytree(self.target, self.path, symlinks=True, dirs_exist_ok=True,
                                ignore=lambda d, names: self._skip(names)
                                if Path(d) == self.target else [])
        except BaseException:
            self.discard()
            raise
        return self

    def _beside(self) -> Path | None:
        """A staged folder beside the target, or None where none can be made there: a parent
        we may not write in, or a target that is a mount point (a rename cannot cross)."""
        try:
            if self.target.is_dir() and \
                    os.stat(self.target).st_dev != os.stat(self.target.parent).st_dev:
                return None
            return Path(tempfile.mkdtemp(prefix=stage_prefix(self.target),
                                         dir=self.target.parent))
        except (PermissionError, OSError) as exc:
            if isinstance(exc, PermissionError) or exc.errno in (errno.EROFS, errno.EACCES):
                return None
            raise

    def _inside(self) -> Path:
        """The fallback: a staged folder inside the target, committed entry by entry (each
        entry renamed into place; the set is then not swapped in one step)."""
        self.inside = True
        self.target.mkdir(exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=INSIDE_PREFIX, dir=self.target))

    @staticmethod
    def _skip(names) -> list[str]:
        return [n for n in names if n == LOCK_NAME or n.startswith(INSIDE_PREFIX)
                or n.startswith(OLD_PREFIX)]

    def _mode(self) -> int:
        try:
            return os.stat(self.target).st_mode & 0o7777
        except OSError:
            from .locks import current_umask

            return 0o777 & ~current_umask()

    def final(self, p: str | os.PathLike | None) -> Path | None:
        """Where ``p`` (a path inside the staged folder) is once committed."""
        if p is None:
            return None
        p = Path(p)
        at = self.staged_at
        return self.target / p.relative_to(at) if at and p.is_relative_to(at) else p

    def commit(self) -> None:
        assert self.path is not None and not self.committed
        _sync_tree(self.path)
        if self.inside:
            return self._commit_inside()
        if self.target.exists() and _exchange(self.path, self.target):
            old = self.path  # the previous folder, under the staged name now
        else:
            old = None
            if self.target.exists():
                old = Path(tempfile.mkdtemp(prefix=stage_prefix(self.target) + "old-",
                                            dir=self.target.parent))
                os.rename(self.target, old / "previous")
            try:
                os.rename(self.path, self.target)
            except BaseException:
                if old is not None:
                    os.rename(old / "previous", self.target)
                raise
        fsync_folder(self.target.parent)
        self.committed = True
        self.path = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def _commit_inside(self) -> None:
        old = Path(tempfile.mkdtemp(prefix=OLD_PREFIX, dir=self.target))
        for e in list(self.target.iterdir()):
            if not self._skip([e.name]):
                os.rename(e, old / e.name)
        for e in list(self.path.iterdir()):
            os.rename(e, self.target / e.name)
        fsync_folder(self.target)
        os.rmdir(self.path)
        self.committed, self.path = True, None
        shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None

    def __exit__(self, *exc) -> None:
        if not self.committed:
            self.discard()
