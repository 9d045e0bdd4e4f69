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

Every wait on the scheduler is bounded by ``timeout`` (``--scheduler-timeout``, default
:data:`TIMEOUT` s), and each ends in an :class:`~peproof.guard.EnvironmentFault` naming the
address: the handshake (``distributed``'s own connect waits for the scheduler's first message
without a limit, so a listener that accepts and never answers hung the run; here the first
exchange runs under ``asyncio.wait_for``), the wait for a first worker, and while the chunks run a
watchdog: whenever no chunk has finished for a few seconds the scheduler is asked for its
identity, and a scheduler that does not answer within ``timeout``, a lost connection or no
worker for ``timeout`` seconds stops the scan (a ``--scheduler`` without workers is said at
once on stderr: ``waiting for a worker at ADDR (up to 60 s, --scheduler-timeout)``).  A chunk
given up after killing three workers (``KilledWorker``, typically the out-of-memory killer) is a
fault of the machine too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import socket
import sys
import time
from contextlib import contextmanager

from peproof.guard import EnvironmentFault

#: seconds for the scheduler's handshake, for a first worker, and for a silent scheduler
TIMEOUT = 60.0
#: seconds without a finished chunk before the watchdog asks the scheduler how it is
POLL = 2.0

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


def _split(address: str) -> tuple[str, int] | None:
    rest = address.split("://", 1)[-1]
    host, _, port = rest.rpartition(":")
    if not port.isdigit() or not host:
        return None
    return host.strip("[]"), int(port)


async def _identity(address: str, timeout: float) -> dict:
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def probe(address: str, timeout: float = TIMEOUT) -> dict:
    """The scheduler's identity within ``timeout`` seconds, or an EnvironmentFault saying why
    not (nothing listening, no answer, not a Dask scheduler)."""
    hp = _split(address)
    if hp and ("://" not in address or address.startswith("tcp://")):
        try:  # a refused connection is said at once (distributed retries it until timeout)
            socket.create_connection(hp, timeout=timeout).close()
        except OSError as exc:
            raise EnvironmentFault(f"cannot reach the Dask scheduler {address} "
                                   f"({exc.strerror or exc})") from None
    try:
        info = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout))
    except TimeoutError:
        raise EnvironmentFault(f"the Dask scheduler {address} did not answer within "
                               f"{timeout:g} s (--scheduler-timeout)") from None
    except OSError as exc:
        raise EnvironmentFault(f"cannot reach the Dask scheduler {address} ({exc})") from None
    if not isinstance(info, dict) or info.get("type") != "Scheduler":
        raise EnvironmentFault(f"{address} answered, but not as a Dask scheduler")
    return info


@contextmanager
def client_for(scheduler: str | None = None, workers: int | None = None,
               timeout: float = TIMEOUT):
    """A connected :class:`distributed.Client` and a description of where it runs."""
    from distributed import Client

    if scheduler:
        probe(scheduler, timeout)
        try:
            client = Client(scheduler, timeout=f"{timeout}s")
        except OSError as exc:
            raise EnvironmentFault(f"cannot connect to the Dask scheduler {scheduler} "
                                   f"({exc})") from None
        try:
            yield client, f"dask scheduler {scheduler}"
        finally:
            _close(client, timeout)
        return
    n = workers or cores()
    with local_cluster(n) as cluster:
        client = Client(cluster)
        try:
            yield client, f"dask LocalCluster of {n} worker processes"
        finally:
            _close(client, timeout)


def _close(client, timeout: float) -> None:
    try:
        client.close(timeout=min(timeout, 10.0))
    except Exception:  # noqa: BLE001 - closing after a fault must not hide the fault
        pass


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
        workers: int | None = None, client=None, timeout: float = TIMEOUT) -> str:
    """Run ``call(fn, jobs[i])`` for ``i`` in ``pending`` on Dask; return where it ran.

    ``client`` is an already connected Client (the caller owns it); otherwise one is opened
    from ``scheduler`` or a new local cluster.  On an interrupt or a fault the pending tasks are
    cancelled before the exception propagates.
    """
    if client is not None:
        with quiet():
            _submit_and_collect(client, call, fn, jobs, pending, on_result, timeout)
        return f"dask client {client.scheduler.address}"
    with quiet(), client_for(scheduler, workers, timeout) as (cl, where):
        _submit_and_collect(cl, call, fn, jobs, pending, on_result, timeout,
                            announce=bool(scheduler))
        return where


class Watchdog:
    """Asks the scheduler how it is whenever the chunks stall (see the module docstring)."""

    def __init__(self, client, timeout: float, announce: bool = False):
        self.client, self.timeout, self.announce = client, timeout, announce
        self.address = getattr(client.scheduler, "address", "?")
        self.no_workers_since: float | None = None

    @staticmethod
    def say(line: str) -> None:
        """A note on stderr while the scan waits (not an error: the fault, if any, follows)."""
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass

    def check(self) -> None:
        from distributed.utils import TimeoutError as DaskTimeout

        try:
            info = self.client.sync(self.client.scheduler.identity,
                                    callback_timeout=self.timeout)
        except (DaskTimeout, TimeoutError):
            raise EnvironmentFault(f"the Dask scheduler {self.address} stopped answering (no "
                                   f"reply within {self.timeout:g} s, --scheduler-timeout)"
                                   ) from None
        except (OSError, asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
            raise EnvironmentFault(f"lost the connection to the Dask scheduler {self.address} "
                                   f"({type(exc).__name__})") from None
        if info.get("workers"):
            self.no_workers_since = None
            return
        now = time.monotonic()
        if self.no_workers_since is None:  # said at once, not after the silent wait
            self.no_workers_since = now
            if self.announce:  # a scheduler named by --scheduler (a local cluster has its own)
                self.say(f"peproof: waiting for a worker at {self.address} (up to "
                         f"{self.timeout:g} s, --scheduler-timeout)")
        if now - self.no_workers_since >= self.timeout:
            raise EnvironmentFault(f"the Dask scheduler {self.address} has no workers (waited "
                                   f"{self.timeout:g} s, --scheduler-timeout)")

    def lost(self, exc: BaseException) -> EnvironmentFault:
        """The fault to raise when a chunk or a wait failed with ``exc`` (a lost connection)."""
        if isinstance(exc, OSError):
            why = f" ({type(exc).__name__})"
        else:  # the client cancels every chunk when the connection drops
            why = " (its chunks were cancelled)"
        return EnvironmentFault(f"lost the connection to the Dask scheduler {self.address}{why}")


def _submit_and_collect(client, call, fn, jobs, pending, on_result, timeout,
                        announce: bool = False) -> None:
    dog = Watchdog(client, timeout, announce)
    futures: dict = {}
    try:
        dog.check()
        futures = {client.submit(call, fn, jobs[i], pure=False): i for i in pending}
        while futures:
            for fut in _next_done(futures, dog, timeout):
                i = futures.pop(fut)
                res = _result(fut, dog)
                fut.release()
                on_result(i, res)
    except BaseException:
        try:
            client.cancel(list(futures))
        except Exception:  # noqa: BLE001, S110 - the scheduler may be gone: this error wins
            pass
        raise


def _next_done(futures: dict, dog: Watchdog, timeout: float) -> list:
    """The futures finished within the next poll (none when the watchdog found all well)."""
    from distributed import wait
    from distributed.utils import TimeoutError as DaskTimeout

    try:
        done, _ = wait(list(futures), timeout=min(POLL, timeout), return_when="FIRST_COMPLETED")
        return list(done)
    except (DaskTimeout, TimeoutError):
        dog.check()
        return []
    except (OSError, asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
        raise dog.lost(exc) from None


def _result(fut, dog: Watchdog):
    from distributed import KilledWorker
    from distributed.utils import TimeoutError as DaskTimeout

    try:  # fetching the result goes through the scheduler: bounded too
        return fut.result(timeout=dog.timeout)
    except (DaskTimeout, TimeoutError):
        dog.check()
        raise EnvironmentFault(f"the result of a chunk did not arrive within {dog.timeout:g} s "
                               f"from the Dask scheduler {dog.address} (--scheduler-timeout)"
                               ) from None
    except KilledWorker as exc:
        raise EnvironmentFault(f"a chunk was given up after the workers running it died "
                               f"({exc}); out of memory?") from None
    except (OSError, asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
        raise dog.lost(exc) from None


@contextmanager
def quiet():
    """``distributed`` logs a lost scheduler as tracebacks on stderr; while the scan runs its
    loggers keep quiet (the fault is said in one line by the caller)."""
    import distributed  # noqa: F401 - its import sets these levels: set them after it

    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.client",
                                               "distributed.core", "distributed.comm",
                                               "distributed.utils", "distributed.batched")]
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    yield  # after a fault they stay quiet: the client's thread may still report the lost
    for lg, level in zip(loggers, old, strict=True):  # connection while the process ends
        lg.setLevel(level)
