"""A secret of the user's, for signing what peproof writes and must trust when it reads it back.

32 random bytes in ``$XDG_STATE_HOME/peproof/checkpoint.key`` (default
``~/.local/state/peproof/``), created with mode 0600 in a 0700 folder on first use (two runs
creating it at once end with the same key: the second links in the first one's file).  A key
file that is not the user's own or that others may read is not used; nor is one that cannot be
kept (a read-only home): the process then has a key of its own, and :func:`user_key` says why,
so that nothing it signed is trusted by another run.  The checkpoints of
:mod:`peproof.numeric.checkpoint` sign each chunk's SHA-256 with :func:`mac`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from functools import lru_cache
from pathlib import Path


def key_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "peproof" / "checkpoint.key"


def _new_key(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if another run created the key meanwhile: read theirs
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_bytes()


def user_key() -> tuple[bytes, str | None]:
    """``(key, None)``, or a key of this process alone and why the user's key is not used.
    Read once per key file: the key follows ``$XDG_STATE_HOME`` when it changes (a process that
    signs for a child given another state folder must sign with the child's key)."""
    return _user_key(key_path())


user_key.cache_clear = lambda: _user_key.cache_clear()  # type: ignore[attr-defined]


@lru_cache(maxsize=8)
def _user_key(path: Path) -> tuple[bytes, str | None]:
    try:
        if not path.exists():
            key = _new_key(path)
        else:
            st = path.stat()
            if st.st_uid != os.getuid() or st.st_mode & 0o077:
                return os.urandom(32), f"{path} is not private to this user"
            key = path.read_bytes()
        if len(key) != 32:
            return os.urandom(32), f"{path} is not a checkpoint key"
        return key, None
    except OSError as exc:
        return os.urandom(32), f"cannot keep a key in {path} ({exc.strerror or exc})"


def mac(fp: str, index: int, sha: str) -> str:
    """HMAC-SHA256 of ``fp:index:sha`` under the user's key (hex); any text is accepted (a
    corrupted manifest may hold lone surrogates)."""
    msg = f"{fp}:{index}:{sha}".encode("utf-8", "surrogatepass")
    return hmac.new(user_key()[0], msg, hashlib.sha256).hexdigest()
