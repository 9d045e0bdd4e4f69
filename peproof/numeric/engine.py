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
other code is refused.  With ``RunConfig.checkpoint`` each finished chunk is saved atomically
(:class:`.checkpoint.Checkpoint`) and a rerun of the same scan computes only the missing
chunks.  Ctrl-C or SIGTERM stops the engine (pending work cancelled, workers stopped) and
raises :class:`Interrupted`: the checkpoint then holds every chunk finished before it.  The
SIGTERM handler is installed only for the duration of the scan, in the main thread.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from peproof.guard import signals
from peproof.numeric import distributed
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
    keep_checkpoint: bool = False  # keep the chunk files after a finished scan
    progress: bool = False  # a progress bar on stderr when it is a terminal
    label: str = "scan"
    executor: Executor | None = None
    dask_threshold: float = DASK_THRESHOLD
    callback: Callable[[int, int], None] | None = field(default=None, repr=False)
    client: object | None = field(default=None, repr=False)  # a connected dask Client


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

    def as_dict(self) -> dict:
        return asdict(self)


class Interrupted(Exception):  # noqa: N818 (what the user did, not an internal error)
    """The scan was stopped (Ctrl-C / SIGTERM); finished chunks are in the checkpoint."""

    def __init__(self, done: int, total: int, checkpoint: str | None, signum: int = 2):
        self.done, self.total, self.checkpoint = done, total, checkpoint
        self.signum = signum  # SIGINT (2) or SIGTERM (15): the exit code is 128 + signum
        where = (f"; {done} of {total} chunks saved in {checkpoint}: run the same command "
                 "again to resume") if checkpoint else f" after {done} of {total} chunks"
        name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, f"signal {signum}")
        super().__init__(f"interrupted by {name}; stopped{where}")


def call(fn, job):
    """Worker side: run one chunk; the result as plain data with the code version."""
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
    try:
        for f in as_completed(futs):
            on_result(futs[f], f.result())
    except BaseException:
        for f in futs:
            f.cancel()
        raise


def run_chunks(job_fn, jobs: list, merge: Callable | None = None, *,
               config: RunConfig | None = None, sizes: list[int] | None = None,
               estimate: float | None = None, unit: str = "offsets"):
    """Run every job (see the module docstring); return ``(merge(results), RunInfo)``.

    ``sizes`` are the units (offsets) of each job, for the progress bar's rate and time left;
    ``estimate`` is the caller's estimate in seconds of the whole scan on one core.
    """
    cfg = config or RunConfig()
    t0 = time.perf_counter()
    total = len(jobs)
    sizes = list(sizes) if sizes is not None else [1] * total
    ck = Checkpoint(cfg.checkpoint, job_fn, jobs) if cfg.checkpoint is not None else None
    results: dict[int, object] = ck.open() if ck else {}
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
        results[i] = out["result"]
        if ck:
            ck.save(i, out["result"])
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
                                        cfg.workers, client=cfg.client)
    except KeyboardInterrupt as exc:
        raise Interrupted(len(results), total, str(ck.dir) if ck else None,
                          getattr(exc, "signum", signal.SIGINT)) from None
    finally:
        if bar:
            bar.close()
    value = [results[i] for i in range(total)]
    info = RunInfo(engine=engine, where=where, chunks=total, resumed=resumed,
                   computed=total - resumed, estimate_seconds=estimate,
                   seconds=time.perf_counter() - t0,
                   checkpoint=str(ck.dir) if ck and cfg.keep_checkpoint else None)
    if ck and not cfg.keep_checkpoint:
        ck.remove()
    return (merge(value) if merge else value), info
