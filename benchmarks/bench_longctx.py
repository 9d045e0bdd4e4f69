"""Benchmark of the long-context engine (issue 13). Prints figures measured in ONE run.

1. Dask vs the plain process pool on the same scan (d = 512, N = 10^7, chunks of 2^20, as many
   workers as cores): wall time of each, with the Dask LocalCluster's start-up counted and on an
   already running cluster; target: Dask within 1.3x of the pool.
   Pool and Dask runs are interleaved and the medians of three compared; every process uses
   one BLAS thread (as Dask's workers do).
2. Per-offset cost at N = 10^6, 10^7, 10^8 (d = 512, one core, inline, start-up included):
   target flat (the work per offset does not depend on N: each chunk's tables are fresh from
   arb seeds).
3. A paper estimate of N = 10^9 at d = 4096 on 1, 8 and 64 workers from the per-chunk cost
   measured here (one chunk of 2^20 offsets on one core, at offsets near 10^9), as
   ``T(W) = start-up + ceil(chunks / W) * t_chunk + t_merge``; checked against the d = 4096
   runs with N >= 10^8 of ``numeric/data/longctx.json`` (measured on this machine with its
   number of workers) and, with ``--measure N``, against a run made now.

``python benchmarks/bench_longctx.py [--quick] [--measure 1e8]``; ``--quick`` stops the
per-offset series at 10^7.  Ratios, not absolute times, compare across machines (this one has
2 cores shared with other work).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "numeric" / "data" / "longctx.json"


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def dask_vs_pool(d: int, n: int, workers: int, repeat: int = 3) -> float:
    """Returns the LocalCluster's start-up cost (cold minus warm run), for the model of [3]."""
    import statistics

    from distributed import Client

    from peproof.numeric.distributed import local_cluster
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify

    certify(d, 3 * 2**20, run=RunConfig(engine="pool", workers=workers))  # warm the page cache
    t_cold, cold = timed(lambda: certify(d, n, run=RunConfig(engine="dask", workers=workers)))
    pools, warms = [], []
    with local_cluster(workers) as lc, Client(lc) as cl:  # the engine's own LocalCluster
        certify(d, 3 * 2**20, run=RunConfig(client=cl))  # workers import and warm up
        for _ in range(repeat):  # interleaved, so a change of load hits both
            t, pool = timed(lambda: certify(d, n, run=RunConfig(engine="pool", workers=workers)))
            pools.append(t)
            t, warm = timed(lambda: certify(d, n, run=RunConfig(client=cl)))
            warms.append(t)
    t_pool, t_warm = statistics.median(pools), statistics.median(warms)
    same = pool.certified() == cold.certified() == warm.certified()
    print(f"[1] d={d} N={n:.0e}, {pool.chunks} chunks, {workers} workers (medians of {repeat}, "
          f"interleaved): pool {t_pool:.2f} s, dask on a running LocalCluster {t_warm:.2f} s: "
          f"ratio {t_warm / t_pool:.2f}x  target <= 1.3x; one dask run with the LocalCluster's "
          f"start-up {t_cold:.2f} s (ratio {t_cold / t_pool:.2f}x; `auto` uses Dask only above "
          f"~60 s of work); same certified result: {same}")
    return max(t_cold - t_warm, 0.0)


def per_offset(d: int, ns: list[int]) -> None:
    """One core, inline: the cost per offset, start-up included, at each N."""
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify

    certify(d, 5000, run=RunConfig(engine="inline"))  # frequencies and 1024-column table cached
    costs = []
    for n in ns:
        t, sep = timed(lambda n=n: certify(d, n, run=RunConfig(engine="inline")))
        costs.append(t / (n - 1))
        print(f"[2] d={d} N={n:.0e}: {t:.2f} s on one core, {t / (n - 1) * 1e9:.1f} ns per "
              f"offset ({sep.chunks} chunks), min at k={sep.argmin}", flush=True)
    print(f"[2] per-offset cost, N={ns[-1]:.0e} / N={ns[0]:.0e}: {costs[-1] / costs[0]:.2f}x  "
          "target: flat (about 1x)")


def chunk_seconds(d: int, repeat: int = 3) -> tuple[float, float]:
    """One chunk of 2^20 offsets near 10^9 on one core (inline, median of ``repeat``), and the
    arb merge time."""
    import statistics

    from peproof.numeric import scan
    from peproof.numeric.separation import CHUNK, ArbD

    job = {"d": d, "family": "paper", "base": "10000", "a": 10**9 - CHUNK, "b": 10**9,
           "adj": (0.0, 0.0)}
    scan.scan_chunk({**job, "b": job["a"] + 1})  # column table and frequencies cached
    t = statistics.median(timed(lambda: scan.scan_chunk(job))[0] for _ in range(repeat))
    dk = ArbD(scan.encoding(d, "paper", "10000"))
    t_arb, _ = timed(lambda: [dk(k) for k in (1, 2, 3, 10**9 - 1)])
    return t, t_arb / 4 * 3  # merge: a handful of arb evaluations (candidates, D(1), D(2))


def estimate(d: int, n: int, measure: int | None, workers: int, startup: float) -> None:
    from peproof.numeric import longctx
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import CHUNK, certify

    t_chunk, t_merge = chunk_seconds(d)
    chunks = math.ceil((n - 1) / CHUNK)

    def model(w: int, n_pos: int = n) -> float:
        return startup + math.ceil(math.ceil((n_pos - 1) / CHUNK) / w) * t_chunk + t_merge

    print(f"[3] d={d}: one chunk of 2^20 offsets on one core {t_chunk:.2f} s "
          f"({t_chunk / CHUNK * 1e9:.0f} ns per offset); N={n:.0e} is {chunks} chunks; "
          f"model T(W) = {startup:.1f} s start-up + ceil({chunks}/W) x {t_chunk:.2f} s + "
          f"{t_merge:.2f} s arb")
    for w in (1, 8, 64):
        print(f"[3] paper estimate d={d} N={n:.0e} on {w:2d} workers: {model(w):8.0f} s "
              f"({model(w) / 3600:.2f} h)")
    checks = []
    if DATA.exists():
        for e in json.loads(DATA.read_text())["entries"]:
            if e["d"] == d and e["family"] == "paper" and e["n_pos"] >= 10**8:
                checks.append((e["n_pos"], e["machine"]["cores"], e["separation"]["seconds"],
                               f"numeric/data/longctx.json, {e['date'][:16]}, "
                               f"{e['separation']['run']['where']}, {longctx.load_text(e)}"))
    if measure:
        before = longctx.loadavg()
        t, sep = timed(lambda: certify(d, measure, run=RunConfig(workers=workers)))
        ld = longctx.load_text({"load": {"start": before, "end": longctx.loadavg()}})
        checks.append((measure, workers, t, f"measured now, {sep.run['where']}, {ld}"))
    for n_pos, w, secs, what in checks:
        print(f"[3] check: d={d} N={n_pos:.0e} on {w} workers took {secs:.0f} s, the model "
              f"says {model(w, n_pos):.0f} s (measured / model {secs / model(w, n_pos):.2f}) "
              f"[{what}]")
    print(f"[3] (the model's chunk time was measured at load {longctx.loadavg()}; a check run "
          "at a higher 1-minute load than that is slower by about the ratio of the loads per "
          "core)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="per-offset series to 10^7 only")
    ap.add_argument("--measure", type=float, help="also run d = 4096 at this N and compare")
    args = ap.parse_args()
    # one BLAS thread per process everywhere, as Dask's nanny sets for its workers: the pool's
    # forked workers would otherwise run several each and the comparison would not be like for
    # like (set before NumPy is first imported)
    import os

    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    from peproof.numeric.distributed import cores

    workers = cores()
    startup = dask_vs_pool(512, 10**7, workers)
    per_offset(512, [10**6, 10**7] if args.quick else [10**6, 10**7, 10**8])
    estimate(4096, 10**9, int(args.measure) if args.measure else None, workers, startup)


if __name__ == "__main__":
    main()
