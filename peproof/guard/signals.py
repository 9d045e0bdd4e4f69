"""SIGINT and SIGTERM: one exception, worker pools stopped, no process left behind.

The ``peproof`` entry point calls :func:`install`: both signals then raise :class:`Interrupted`
(a ``KeyboardInterrupt``) in the main thread, so ``finally`` blocks run, temporary files are
removed and nothing half-written is renamed into place.  Work that runs on processes goes
through :func:`pool` (or calls :func:`stop` on its own executor): on any exception, a signal
included, queued work is cancelled and the worker processes are terminated instead of being
waited for.  Workers ignore SIGINT (a Ctrl-C reaches the whole process group; the parent
decides) and ask the kernel to send them SIGTERM when their parent dies, so even a parent killed
with SIGKILL leaves no worker behind.  :func:`reap_descendants` is the last net: after an
interrupt the CLI terminates every process still descending from it (a TeX compiler, a user
function's helpers).

Any :class:`concurrent.futures.Executor` works with :func:`stop` (a process pool has its
workers terminated, any other executor is shut down without waiting and its queued work
cancelled), so a Dask or thread executor can take the place of the local pool.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager

_PR_SET_PDEATHSIG = 1
#: helper processes of multiprocessing that end by themselves when their parent does
_SELF_ENDING = ("multiprocessing.resource_tracker",)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM was received; ``exit_code`` is ``128 + signum`` (130, 143)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_received: list[int] = []


def received() -> int | None:
    """The signal received since :func:`install` (SIGINT / SIGTERM), or None."""
    return _received[0] if _received else None


def _handler(signum, _frame):
    if _received:  # already stopping: a second signal must not break the clean-up
        return
    _received.append(signum)
    raise Interrupted(signum)


def install():
    """Route SIGINT and SIGTERM to :class:`Interrupted`; returns a function restoring the
    previous handlers (so in-process callers such as tests are left as they were)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    _received.clear()
    old = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore():
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        _received.clear()

    return restore


@contextmanager
def deferred(signums=(signal.SIGINT, signal.SIGTERM)):
    """Hold ``signums`` back while the block runs: one that arrives meanwhile is delivered
    (its previous handler run, or the default action taken) right after the block.

    Masking the signals (``pthread_sigmask``) alone does not do it in a process with other
    threads -- a process pool's manager thread, say: the kernel then delivers the signal to
    a thread that does not mask it, and Python runs the handler in the main thread at its
    next instruction, inside the block.  So the main thread's handlers are replaced for the
    block by one that only records the signal, and the calling thread masks them too (a
    handler can be installed only from the main thread; the others rely on the mask)."""
    signums = tuple(signums)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(signums))
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        return
    got: list[tuple[int, object]] = []

    def record(signum, frame):
        got.append((signum, frame))

    old = {s: signal.signal(s, record) for s in signums}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)  # a masked one arrives here
        for signum, frame in got[:1]:  # the first: a second would be the same request
            h = old[signum]
            if callable(h):
                h(signum, frame)
            elif h in (signal.SIG_DFL, None):
                signal.raise_signal(signum)


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask Linux to send ``sig`` to this process when its parent exits (no-op elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def worker_init() -> None:
    """Initializer of pool workers: SIGINT ignored, SIGTERM fatal, dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def stop(ex: Executor, grace: float = 2.0) -> None:
    """Stop ``ex`` now: queued work cancelled, worker processes (if any) terminated."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    thread = getattr(ex, "_executor_manager_thread", None)  # ``shutdown`` forgets it
    try:
        ex.shutdown(wait=False, cancel_futures=True)
    except TypeError:  # executors without cancel_futures
        ex.shutdown(wait=False)
    except Exception:  # noqa: BLE001, S110 - stopping must not raise over the real error
        pass
    for p in procs:
        if p.exitcode is None:
            p.terminate()
    # Exit is read from each process's sentinel (closed by the kernel when it dies), not from
    # ``is_alive``: the executor's own thread may reap a worker at the same moment, and then
    # ``is_alive`` reports a dead process as running.
    left = _wait_exit(procs, grace)
    for p in left:
        try:
            p.kill()
        except OSError:  # already reaped by the executor's thread
            pass
    _wait_exit(left, 10.0)
    # the executor's thread marks the futures of the dead workers as failed; wait for it so
    # that no future is left running after ``stop``
    if thread is not None and thread is not threading.current_thread():
        thread.join(10.0)


def _wait_exit(procs, timeout: float) -> list:
    """The processes of ``procs`` still running after at most ``timeout`` seconds."""
    from multiprocessing.connection import wait

    left = {p.sentinel: p for p in procs}
    deadline = time.monotonic() + timeout
    while left:
        rest = deadline - time.monotonic()
        if rest <= 0:
            break
        for s in wait(list(left), rest):
            del left[s]
    return list(left.values())


def _gone(p) -> bool:
    """Has process ``p`` ended (its sentinel closed by the kernel)?"""
    from multiprocessing.connection import wait

    try:
        return bool(wait([p.sentinel], 0))
    except (ValueError, OSError):  # the sentinel is closed: the process was joined
        return True


def _watch(p) -> None:
    """Mark ``p`` when this process stops it while it still runs (the pool terminating its
    other workers after one died, or :func:`stop`): such a worker did not die by itself."""
    if getattr(p, "_peproof_watched", False):
        return
    p._peproof_watched, p._peproof_stopped = True, False
    for name in ("terminate", "kill"):
        real = getattr(p, name)

        def stopping(real=real):
            if not _gone(p):
                p._peproof_stopped = True
            real()

        setattr(p, name, stopping)


def died_by_themselves(procs, grace: float = 5.0) -> list[tuple[int, int]] | None:
    """``(pid, exit code)`` of the pool workers that ended on their own -- killed from outside
    (the out-of-memory killer, an operator) or crashed -- and not stopped by the pool or by
    this process; a negative code is the signal.  None when the processes were not started by
    :func:`pool` (then which one died first is not known)."""
    procs = list(procs)
    if not procs or not all(getattr(p, "_peproof_watched", False) for p in procs):
        return None
    deadline = time.monotonic() + grace
    out = []
    for p in procs:
        if p._peproof_stopped:
            continue
        p.join(max(0.0, deadline - time.monotonic()))  # its exit code, once it is reaped
        if p.exitcode not in (None, 0):
            out.append((p.pid, p.exitcode))
    return out


class _Pool(ProcessPoolExecutor):
    """Processes are started (at ``submit``) with SIGINT blocked, a mask they inherit through
    ``fork`` and ``exec``: a Ctrl-C sent to the whole group while a worker, the forkserver or
    the resource tracker is still importing can no longer make it print a traceback.  The
    parent's SIGINT stays pending meanwhile and is delivered when ``submit`` returns.  Each
    worker is watched (:func:`_watch`), so that when one dies the pool can say which."""

    def _spawn_process(self):
        super()._spawn_process()
        for p in list(self._processes.values()):
            _watch(p)

    def submit(self, *args, **kwargs):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: the longest folder a forkserver's socket may live in: an AF_UNIX address holds 107 bytes, and
#: multiprocessing puts the socket at <temp dir>/pymp-XXXXXXXX/listener-XXXXXXXX
_SOCKET_DIR_MAX = 60


def _short_socket_dir() -> None:
    """Give multiprocessing a temporary folder short enough for the forkserver's socket: under
    a long ``$TMPDIR`` (a test's, a deep home) ``bind`` failed with 'AF_UNIX path too long'
    and the command said 'error: OSError'.  The folder is made in /tmp (or /dev/shm) only then,
    is private (mkdtemp: mode 0700) and is removed at exit as multiprocessing's own is."""
    import multiprocessing.process as mpp
    import multiprocessing.util as mpu
    import shutil
    import tempfile

    cfg = mpp.current_process()._config
    if cfg.get("tempdir") is not None or len(tempfile.gettempdir()) <= _SOCKET_DIR_MAX:
        return
    for base in ("/tmp", "/dev/shm"):
        try:
            short = tempfile.mkdtemp(prefix="pymp-", dir=base)
        except OSError:
            continue
        mpu.Finalize(None, shutil.rmtree, args=(short, True), exitpriority=-100)
        cfg["tempdir"] = short
        return


@contextmanager
def pool(max_workers: int, mp_context=None):
    """A :class:`ProcessPoolExecutor` whose workers are stopped on any exception (a signal
    included) instead of being waited for; on success it is shut down normally."""
    if mp_context is not None and mp_context.get_start_method() == "forkserver":
        _short_socket_dir()
    ex = _Pool(max_workers=max_workers, mp_context=mp_context, initializer=worker_init)
    try:
        yield ex
    except BaseException:
        stop(ex)
        raise
    ex.shutdown(wait=True)


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return kids
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        rest = data[data.rfind(b")") + 2:].split()
        if len(rest) > 1 and rest[0] != b"Z":
            kids.setdefault(int(rest[1]), []).append(int(e))
    return kids


def descendants(pid: int | None = None) -> list[int]:
    """Live (non-zombie) processes descending from ``pid`` (default: this one), via /proc."""
    kids = _children_map()
    out, todo = [], [os.getpid() if pid is None else pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _self_ending(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().decode("utf-8", "replace")
    except OSError:
        return True
    return any(m in cmd for m in _SELF_ENDING)


def reap_descendants(grace: float = 2.0) -> int:
    """Terminate (then kill) every process still descending from this one; returns how many
    were signalled.  multiprocessing's resource tracker is left to end by itself."""
    pids = [p for p in descendants() if not _self_ending(p)]
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + grace
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        _reap_zombies()
        alive = {p for p in alive if _alive(p)}
        if alive:
            time.sleep(0.02)
    for p in alive:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    _reap_zombies()
    return len(pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2:][:1] != b"Z"


def _reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
