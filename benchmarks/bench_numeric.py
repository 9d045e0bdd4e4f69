"""Benchmark of the certified numerics (issue: numeric/). Prints figures measured in ONE run.

* certified minimum for d = 512, N = 62832 (target <= 1 s), against
  - a full arb scan of every offset (goal: ours >= 10x faster), and
  - an mpmath scan at 50 digits, extrapolated from a sample of offsets (goal >= 100x faster);
* certified minimum for d = 512, N = 10^6 (target <= 15 s);
* peak resident memory for d = 512, N = 10^7 on a local process pool (target <= 1 GB), measured
  in a fresh interpreter: its own peak plus ``workers`` times the largest worker peak.

Ratios, not absolute times, are the figures to compare across machines.  Run:
``python benchmarks/bench_numeric.py [--quick]`` (``--quick`` extrapolates the arb scan from a
sample instead of running it in full).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

D, N_TURN = 512, 62832


def timed(f, repeat: int = 3):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def arb_scan(n_pos: int, sample: int | None = None) -> tuple[float, int, float]:
    """Every offset (or a sample, extrapolated) in arb; returns (seconds, argmin, min mid)."""
    from peproof.encoding import Encoding
    from peproof.numeric.separation import ArbD

    dk = ArbD(Encoding(D))
    dk.omegas(128)
    ks = range(1, n_pos) if sample is None else random.Random(0).sample(range(1, n_pos), sample)
    t0 = time.perf_counter()
    best, k_best = None, None
    for k in ks:
        b = dk(k)
        if best is None or b.upper() < best.upper():
            best, k_best = b, k
    secs = time.perf_counter() - t0
    if sample is not None:
        secs *= (n_pos - 1) / sample
    return secs, k_best, float(best.mid())


def mpmath_scan_extrapolated(n_pos: int, sample: int = 100) -> float:
    from peproof.numeric.confirm import d_mp

    d_mp(D, "paper", "10000", 1)  # frequencies to 60 digits, once
    ks = random.Random(1).sample(range(1, n_pos), sample)
    t0 = time.perf_counter()
    for k in ks:
        d_mp(D, "paper", "10000", k)
    return (time.perf_counter() - t0) * (n_pos - 1) / sample


MEMORY_SCRIPT = """
import json, resource, time
from peproof.numeric.separation import certify
t0 = time.perf_counter()
sep = certify(512, 10**7, workers={workers})
secs = time.perf_counter() - t0
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({{"seconds": secs, "own_mb": own, "child_mb": child, "chunks": sep.chunks,
                  "min": sep.min_sq.text, "argmin": sep.argmin}}))
"""


def memory_at_ten_million(workers: int) -> dict:
    r = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT.format(workers=workers)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="extrapolate the arb scan")
    args = ap.parse_args()
    from peproof.numeric.separation import certify

    certify(8, 100)  # imports warm; the caches for d = 512 stay cold
    cold, _ = timed(lambda: certify(D, N_TURN), repeat=1)
    ours, sep = timed(lambda: certify(D, N_TURN))
    print(f"certified minimum d={D} N={N_TURN}: {ours:.3f} s (median of 3; first call with "
          f"cold tables {cold:.3f} s)  min ||PE(a)-PE(b)||^2 in {sep.min_sq.text} at "
          f"k={sep.argmin}  target <= 1 s")
    arb_secs, k_arb, v_arb = arb_scan(N_TURN, 3000 if args.quick else None)
    how = "extrapolated from 3000 offsets" if args.quick else "every offset"
    print(f"full arb scan ({how}): {arb_secs:.1f} s  (argmin {k_arb}, {v_arb:.12g})  "
          f"ratio {arb_secs / ours:.0f}x (vs cold: {arb_secs / cold:.0f}x)  goal >= 10x")
    mp_secs = mpmath_scan_extrapolated(N_TURN)
    print(f"mpmath scan at 50 digits (extrapolated from 100 offsets): {mp_secs:.0f} s  "
          f"ratio {mp_secs / ours:.0f}x (vs cold: {mp_secs / cold:.0f}x)  goal >= 100x")
    t6, sep6 = timed(lambda: certify(D, 10**6), repeat=1)
    print(f"certified minimum d={D} N=10^6: {t6:.2f} s  min in {sep6.min_sq.text} at "
          f"k={sep6.argmin}  target <= 15 s")
    workers = os.cpu_count() or 1
    mem = memory_at_ten_million(workers)
    total = mem["own_mb"] + workers * mem["child_mb"]
    print(f"d={D} N=10^7 on {workers} local processes: {mem['seconds']:.2f} s, {mem['chunks']} "
          f"chunks; peak memory <= {total:.0f} MB (main {mem['own_mb']:.0f} MB + {workers} x "
          f"worker {mem['child_mb']:.0f} MB)  target <= 1024 MB")


if __name__ == "__main__":
    main()
