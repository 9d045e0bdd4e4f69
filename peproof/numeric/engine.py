"""One engine for every chunked scan: inline, a local process pool, or Dask.

    value, info = run_chunks(job_fn, jobs, merge, config=RunConfig(...), sizes=..., estimate=...)

``jobs`` are plain data (dicts of numbers and strings); ``job_fn(job)`` is a module-level
function returning plain data; ``merge(results)`` receives the results **in job order**,
whatever order the engine finished them in, so the merge (the certified one of
:mod:`peproof.numeric.separation`, a horizon table, the RoPE decay curve) is the same code on
every engine.  Each result is passed through JSON (:func:`.checkpoint.plain`) on the worker,
so a result read back from a checkpoint and a fresh one are the same value.

Engines (``RunConfig.engine``):

``inline``   in this process, one chunk after the other;
``pool``     a local :class:`concurrent.futures.ProcessPoolExecutor`;
``dask``     :mod:`peproof.numeric.distributed`: ``RunConfig.scheduler`` (an address) or a
             ``LocalCluster`` of worker processes started for the scan;
``auto``     (default) inline for one pending chunk or one worker; else Dask when the
             caller's estimate of the pending work exceeds ``dask_threshold`` seconds of one
             core (a local cluster's start-up, a few seconds, is then under ~5%), else the pool;
             Dask whenever a scheduler address is given;
``executor`` any caller-owned ``concurrent.futures.Executor`` (``RunConfig.executor``).

Every worker reports the code version it ran (:func:`.checkpoint.code_version`); a result from
other code is refused, and so is a result failing the scan's own ``check(job, result)``.  With
``RunConfig.checkpoint`` each finished chunk is saved atomically and signed
(:class:`.checkpoint.Checkpoint`), the folder is locked for the run, and a rerun of the same scan
computes only the chunks missing or failing their checks (``RunConfig.notify`` is told which,
and :attr:`RunInfo.rejected` lists them); ``redo={index: reason}`` recomputes chunks the
caller's re-certification refused.  The checkpoint stays until the outermost
:func:`.checkpoint.session` ends without an error (a command ends it after writing its outputs).

Ctrl-C or SIGTERM stops the engine (pending work cancelled, workers stopped) and raises
:class:`Interrupted`; a fault of the machine (a pool worker killed, as the out-of-memory killer
does; the Dask scheduler stopped, silent or without workers; the checkpoint's disk full or
read-only) raises :class:`Fault`, an :class:`~peproof.guard.EnvironmentFault` (exit code 4) whose
one line names the fault and where the finished chunks are.  Either way the checkpoint holds
every chunk finished before it.  The SIGTERM handler is installed only for the duration of the
scan, in the main thread.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from peproof.guard import ENVIRONMENT_ERRNOS, EnvironmentFault, describe_os_error, signals
from peproof.numeric import checkpoint, distributed
from peproof.numeric.checkpoint import Checkpoint, code_version, plain
from peproof.numeric.progress import Bar, wanted

ENGINES = ("auto", "inline", "pool", "dask")
#: estimated seconds of one core above which ``auto`` starts a Dask local cluster
DASK_THRESHOLD = 60.0


@dataclass
class RunConfig:
    engine: str = "auto"
    scheduler: str | None = None  # address of an existing Dask scheduler
    workers: int | None = None  # local processes (pool or LocalCluster); default: the cores
    checkpoint: str | Path | None = None  # folder for finished chunks (resume after interrupt)
    checkpoint_default: bool = False  # the folder is a default (not named by the user): it goes
    # too when the run leaves it empty
    keep_checkpoint: bool = False  # keep the chunk files after a finished scan
    progress: bool = False  # a progress bar on stderr when it is a terminal
    label: str = "scan"
    executor: Executor | None = None
    dask_threshold: float = DASK_THRESHOLD
    callback: Callable[[int, int], None] | None = field(default=None, repr=False)
    client: object | None = field(default=None, repr=False)  # a connected dask Client
    wait: bool = True  # the checkpoint is in use by another run: wait for it, or refuse
    scheduler_timeout: float = distributed.TIMEOUT  # handshake, wait for workers, silence
    notify: Callable[[str], None] | None = field(default=None, repr=False)  # one-line notes


@dataclass
class RunInfo:
    engine: str  # inline | pool | dask | executor | checkpoint (nothing left to compute)
    where: str  # e.g. "dask LocalCluster of 2 worker processes"
    chunks: int
    resumed: int  # chunks read from the checkpoint
    computed: int
    estimate_seconds: float | None  # the caller's estimate of the whole scan on one core
    seconds: float
    checkpoint: str | None
    rejected: list[dict] = field(default_factory=list)  # chunks recomputed: index, file, why
    resumed_indices: list[int] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        out = asdict(self)
        out.pop("resumed_indices")
        return out


class Interrupted(Exception):  # noqa: N818 (what the user did, not an internal error)
    """The scan was stopped (Ctrl-C / SIGTERM); finished chunks are in the checkpoint."""

    def __init__(self, done: int, total: int, checkpoint: str | None, signum: int = 2):
        self.done, self.total, self.checkpoint = done, total, checkpoint
        self.signum = signum  # SIGINT (2) or SIGTERM (15): the exit code is 128 + signum
        where = (f"; {done} of {total} chunks saved in {checkpoint}: run the same command "
                 "again to resume") if checkpoint else f" after {done} of {total} chunks"
        name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, f"signal {signum}")
        super().__init__(f"interrupted by {name}; stopped{where}")


class Fault(EnvironmentFault):
    """A fault of the machine stopped the scan; finished chunks are in the checkpoint."""

    def __init__(self, what: str, done: int, total: int, checkpoint: str | None):
        self.done, self.total, self.checkpoint = done, total, checkpoint
        if checkpoint:
            where = (f"; {done} of {total} chunks saved in {checkpoint}: run the same command "
                     "again to resume")
        else:
            where = (f"; stopped after {done} of {total} chunks (--checkpoint DIR keeps them "
                     "for a rerun)") if done else ""
        super().__init__(what + where)


def rejected_line(ck_dir, rejected: list[dict], limit: int = 4) -> str:
    """One line naming the chunks recomputed and why (the first ``limit`` of them)."""
    parts = [f"{r['file']} ({r['reason']})" for r in rejected[:limit]]
    more = f" and {len(rejected) - limit} more" if len(rejected) > limit else ""
    return (f"checkpoint {ck_dir}: recomputing {len(rejected)} chunk(s) that failed their "
            f"checks: {'; '.join(parts)}{more}")


#: one chunk (or one check of a chunk) at a time in a process: the working precision of
#: python-flint (``flint.ctx``) and of mpmath (``mpmath.mp``) is one setting per process, not
#: per thread, so a chunk on one thread of an executor or of a Dask worker with several threads
#: ran at the precision another chunk had just set or restored.  Seen: a RoPE decay curve on a
#: ThreadPoolExecutor(2) under load, "chunk 1 as computed fails the scan's check: its bound is
#: not the one its seeds give".  Nothing is lost: a 10^6-offset decay curve on two threads
#: took as long as inline, with the lock or without it (measured once, session 15).
COMPUTING = threading.RLock()


def call(fn, job):
    """Worker side: run one chunk; the result as plain data with the code version."""
    with COMPUTING:  # the chunk
        return {"code": code_version(), "result": plain(fn(job))}


def choose(config: RunConfig, pending: int, estimate: float | None) -> str:
    """The engine ``auto`` resolves to (see the module docstring)."""
    if config.engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {config.engine!r}")
    if config.executor is not None:
        return "executor"
    if config.scheduler or config.client is not None:
        return "dask"
    if config.engine != "auto":
        return config.engine
    if pending <= 1 or config.workers == 1:
        return "inline"
    if estimate is not None and estimate > config.dask_threshold:
        return "dask"
    return "pool"


@contextmanager
def _sigterm_interrupts():
    """SIGTERM raises KeyboardInterrupt while the scan runs (main thread only), unless the
    ``peproof`` entry point's handler (:mod:`peproof.guard.signals`) already does so."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is signals._handler):
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _pool(fn, jobs, pending, on_result, ex: Executor) -> None:
    futs = {ex.submit(call, fn, jobs[i]): i for i in pending}
    procs = dict(getattr(ex, "_processes", None) or {})
    try:
        for f in as_completed(futs):
            on_result(futs[f], f.result())
    except BrokenProcessPool:
        procs.update(getattr(ex, "_processes", None) or {})
        raise EnvironmentFault(_death(procs.values())) from None
    except BaseException:
        for f in futs:
            f.cancel()
        raise


def _death(procs) -> str:
    """What ended a pool worker: the pid and the signal (or exit code) of each worker that
    died by itself, as far as this process knows it -- never a worker the pool stopped after
    the death (it terminates the others with SIGTERM)."""
    procs = list(procs)
    dead = signals.died_by_themselves(procs)
    if dead is None:  # a pool we did not start: only an exit code alone among them is known
        codes = [(p.pid, p.exitcode) for p in procs if p.exitcode not in (None, 0)]
        dead = codes if len(codes) == 1 else []
    if not dead:
        return "a worker process of the local pool died abruptly (which one and why is unknown)"
    oom = " (as the out-of-memory killer does)" if any(c == -signal.SIGKILL for _, c in dead) \
        else ""
    if len(dead) == 1:
        (pid, code), = dead
        return f"a worker process of the local pool (pid {pid}) {_how(code)}{oom}"
    what = ", ".join(f"pid {pid} {_how(code)}" for pid, code in dead)
    return f"{len(dead)} worker processes of the local pool died: {what}{oom}"


def _how(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def run_chunks(job_fn, jobs: list, merge: Callable | None = None, *,
               config: RunConfig | None = None, sizes: list[int] | None = None,
               estimate: float | None = None, unit: str = "offsets", check=None,
               redo: dict[int, str] | None = None):
    """Run every job (see the module docstring); return ``(merge(results), RunInfo)``.

    ``sizes`` are the units (offsets) of each job, for the progress bar's rate and time left;
    ``estimate`` is the caller's estimate in seconds of the whole scan on one core; ``check``
    the scan's check of a result (None when it is accepted, else why not); ``redo`` chunks to
    compute again even when the checkpoint holds them, with the reason.
    """
    cfg = config or RunConfig()
    with checkpoint.session(remove=not cfg.keep_checkpoint):
        return _run(job_fn, jobs, merge, cfg, sizes, estimate, unit, check, redo or {})


def _run(job_fn, jobs, merge, cfg: RunConfig, sizes, estimate, unit, check, redo):
    t0 = time.perf_counter()
    total = len(jobs)
    sizes = list(sizes) if sizes is not None else [1] * total
    ck = (Checkpoint(cfg.checkpoint, job_fn, jobs, check, cfg.wait, cfg.checkpoint_default)
          if cfg.checkpoint is not None else None)
    results: dict[int, object] = ck.open() if ck else {}
    if ck and redo:
        ck.discard({i: why for i, why in redo.items() if i in results})
    for i in redo:
        results.pop(i, None)
    rejected = list(ck.rejected) if ck else []
    if ck and cfg.notify:
        for note in ck.notes:
            cfg.notify(note)
        if rejected:
            cfg.notify(rejected_line(ck.dir, rejected))
    resumed = len(results)
    pending = [i for i in range(total) if i not in results]
    todo = estimate * sum(sizes[i] for i in pending) / max(sum(sizes), 1) if estimate else None
    engine = choose(cfg, len(pending), todo) if pending else "checkpoint"
    workers = cfg.workers or distributed.cores()
    bar = (Bar(cfg.label, total, sum(sizes), unit, done_chunks=resumed,
               done_units=sum(sizes[i] for i in results)) if cfg.progress and wanted() else None)
    mine = code_version()

    def on_result(i: int, out: dict) -> None:
        if out["code"] != mine:
            raise RuntimeError(f"a worker runs other peproof code ({out['code'][:12]}, this "
                               f"process {mine[:12]}): install the same version everywhere")
        with COMPUTING:  # its check
            why = check(plain(jobs[i]), out["result"]) if check else None
        if why:
            raise RuntimeError(f"chunk {i} as computed fails the scan's check: {why}")
        if ck:
            try:
                ck.save(i, out["result"])
            except OSError as exc:
                if exc.errno not in ENVIRONMENT_ERRNOS and not isinstance(exc, PermissionError):
                    raise
                raise EnvironmentFault(describe_os_error(exc, "writing the checkpoint")) from None
        results[i] = out["result"]  # counted as saved only now
        if bar:
            bar.advance(sizes[i])
        if cfg.callback:
            cfg.callback(len(results), total)

    where = {"inline": "this process", "checkpoint": "checkpoint",
             "executor": type(cfg.executor).__name__}.get(engine, "")
    try:
        with _sigterm_interrupts():
            if engine == "inline":
                for i in pending:
                    on_result(i, call(job_fn, jobs[i]))
            elif engine == "pool":
                n = min(workers, len(pending))
                # workers ignore Ctrl-C, die with this process and are terminated (not waited
                # for) on any exception: the chunks in flight are lost, the saved ones stay
                with signals.pool(n) as ex:
                    _pool(job_fn, jobs, pending, on_result, ex)
                where = f"local process pool of {n} workers"
            elif engine == "executor":
                _pool(job_fn, jobs, pending, on_result, cfg.executor)
            elif engine == "dask":
                where = distributed.run(call, job_fn, jobs, pending, on_result, cfg.scheduler,
                                        cfg.workers, client=cfg.client,
                                        timeout=cfg.scheduler_timeout)
    except KeyboardInterrupt as exc:
        raise Interrupted(len(results), total, str(ck.dir) if ck else None,
                          getattr(exc, "signum", signal.SIGINT)) from None
    except EnvironmentFault as exc:
        raise Fault(str(exc), len(results), total, str(ck.dir) if ck else None) from None
    finally:
        if bar:
            bar.close()
    value = [results[i] for i in range(total)]
    info = RunInfo(engine=engine, where=where, chunks=total, resumed=resumed,
                   computed=total - resumed, estimate_seconds=estimate,
                   seconds=time.perf_counter() - t0, checkpoint=str(ck.dir) if ck else None,
                   rejected=rejected, resumed_indices=sorted(set(range(total)) - set(pending)))
    return (merge(value) if merge else value), info
