"""Dask as the engine of long scans: an existing cluster by address, or a local one.

``run(call, fn, jobs, pending, on_result, scheduler=..., workers=...)`` submits one Dask task
per pending chunk and hands each result to ``on_result(index, result)`` as it arrives (any
order; the caller merges in chunk order).  With ``scheduler=None`` a
:class:`distributed.LocalCluster` of ``workers`` single-threaded worker *processes* is started
for the scan and closed after it (the numeric work holds the GIL in arb and in NumPy's
elementwise code, so threads would not run it in parallel).

Faults: when a worker process dies, the scheduler moves the tasks it was running or holding to
the other workers (and a local cluster's nanny restarts the process); a task is given up only
after ``distributed.scheduler.allowed-failures`` (3) workers died running it.  A chunk's result
depends only on its job, so a rescheduled chunk returns the same value and the merged result is
bit-identical to an undisturbed run (``numeric/test_longctx_engine.py`` kills a worker process
mid-scan and compares).
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager

#: the local cluster's settings: it shares its machine with other work, so a scheduler or worker
#: starved of CPU for a while (arb holds the GIL, other jobs hold the cores) must not be taken
#: for a dead one; and the chunks are uniform, so every task goes to a worker at once instead
#: of one round trip to the scheduler per finished task (work stealing still balances)
LOCAL_CONFIG = {"distributed.comm.timeouts.connect": "120s",
                "distributed.comm.timeouts.tcp": "600s",
                "distributed.scheduler.worker-ttl": "15 minutes",
                "distributed.scheduler.worker-saturation": float("inf")}


def cores() -> int:
    """The cores this process may run on (the default number of local workers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@contextmanager
def client_for(scheduler: str | None = None, workers: int | None = None):
    """A connected :class:`distributed.Client` and a description of where it runs."""
    from distributed import Client

    if scheduler:
        client = Client(scheduler, timeout="30s")
        try:
            yield client, f"dask scheduler {scheduler}"
        finally:
            client.close()
        return
    n = workers or cores()
    with local_cluster(n) as cluster:
        client = Client(cluster)
        try:
            yield client, f"dask LocalCluster of {n} worker processes"
        finally:
            client.close()


@contextmanager
def local_cluster(n: int):
    """A :class:`distributed.LocalCluster` of ``n`` single-threaded worker processes with
    :data:`LOCAL_CONFIG` (also used by the tests and the benchmark)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(LOCAL_CONFIG):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
        try:
            yield cluster
        finally:
            cluster.close()


def run(call, fn, jobs: list, pending: list[int], on_result, scheduler: str | None = None,
        workers: int | None = None, client=None) -> str:
    """Run ``call(fn, jobs[i])`` for ``i`` in ``pending`` on Dask; return where it ran.

    ``client`` is an already connected Client (the caller owns it); otherwise one is opened
    from ``scheduler`` or a new local cluster.  On an interrupt the pending tasks are cancelled
    before the exception propagates.
    """
    if client is not None:
        _submit_and_collect(client, call, fn, jobs, pending, on_result)
        return f"dask client {client.scheduler.address}"
    with client_for(scheduler, workers) as (cl, where):
        _submit_and_collect(cl, call, fn, jobs, pending, on_result)
        return where


def _submit_and_collect(client, call, fn, jobs, pending, on_result) -> None:
    from distributed import as_completed

    futures = {client.submit(call, fn, jobs[i], pure=False): i for i in pending}
    try:
        for fut in as_completed(list(futures)):
            i = futures.pop(fut)
            res = fut.result()
            fut.release()
            on_result(i, res)
    except BaseException:
        client.cancel(list(futures))
        raise
