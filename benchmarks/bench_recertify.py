"""What the final re-certification of a separation scan costs, as a ratio to the scan itself.

    python benchmarks/bench_recertify.py                 # d = 512, N = 10^7 and 10^8
    python benchmarks/bench_recertify.py --n 1e6,1e7 --d 1024

For each N, in one run and one process (inline engine, so the times are one core's):

* ``scan``     the float64 pre-scan of every chunk (:func:`peproof.numeric.scan.scan_chunk`);
* ``check``    :func:`peproof.numeric.recertify.check_chunk` on every result (the bound
               recomputed from the chunk's arb seed, the structure);
* ``audit``    :func:`peproof.numeric.recertify.audit` (every named value in arb);
* ``merge``    the certified merge that existed before (minimum, ties, closer count, first
               decrease in arb);
* ``final``    :func:`peproof.numeric.recertify.final` (the result against D(1) and the first
               steps of D);
* ``resume``   reading the chunks back from a checkpoint: SHA-256, MAC and ``check`` per chunk.

The ratio printed is (check + audit + final) / scan: what the re-certification adds; the
merge is shown beside it (it was always there).  The machine's 1-minute load average is printed
before and after: this machine's 2 cores are shared with other work.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from peproof.encoding import Encoding
from peproof.numeric import recertify, scan
from peproof.numeric import separation as S
from peproof.numeric.checkpoint import Checkpoint, plain, session


def one(d: int, n_pos: int, chunk: int = S.CHUNK) -> dict:
    enc = Encoding(d)
    dk = S.ArbD(enc)
    adj = S.Ball.of(dk(1))
    jobs = S._jobs(enc, n_pos, chunk, (adj.lo, adj.hi), shrink=1.0, slack=2.0**-40)
    t = {}
    t0 = time.perf_counter()
    res = [plain(scan.scan_chunk(j)) for j in jobs]
    t["scan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    bad = [recertify.check_chunk(j, r) for j, r in zip(plain(jobs), res, strict=True)]
    t["check"] = time.perf_counter() - t0
    assert not any(bad), bad
    t0 = time.perf_counter()
    assert not recertify.audit(dk, res)
    t["audit"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    und: list[str] = []
    k_low, ties, min_ball, _ = S._minimum(dk, res, und)
    S._closer(dk, res, und)
    first = S._first_decrease(dk, res, n_pos, und)
    t["merge"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    assert not recertify.final(dk, jobs, n_pos, min_ball, first)
    t["final"] = time.perf_counter() - t0
    root = tempfile.mkdtemp(prefix="bench-recertify-")
    try:
        with session(remove=True):
            ck = Checkpoint(root, scan.scan_chunk, jobs, recertify.check_chunk)
            ck.open()
            for i, r in enumerate(res):
                ck.save(i, r)
            recertify._expected.cache_clear()  # a resume starts cold
            again = Checkpoint(root, scan.scan_chunk, jobs, recertify.check_chunk)
            t0 = time.perf_counter()
            assert len(again.open()) == len(jobs) and not again.rejected
            t["resume"] = time.perf_counter() - t0
    finally:
        shutil.rmtree(root, ignore_errors=True)
    t.update(chunks=len(jobs), argmin=k_low, first=first)
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--n", default="1e7,1e8")
    args = ap.parse_args()
    ns = [int(float(x)) for x in args.n.split(",")]
    print(f"d = {args.d}; load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'N':>10} {'chunks':>6} {'scan s':>9} {'check s':>8} {'audit s':>8} {'final s':>8} "
          f"{'merge s':>8} {'resume s':>9} {'recert/scan':>12} {'resume/scan':>12}")
    for n in ns:
        t = one(args.d, n)
        extra = t["check"] + t["audit"] + t["final"]
        print(f"{n:>10.0e} {t['chunks']:>6} {t['scan']:>9.2f} {t['check']:>8.3f} "
              f"{t['audit']:>8.3f} {t['final']:>8.3f} {t['merge']:>8.3f} {t['resume']:>9.3f} "
              f"{extra / t['scan']:>12.4f} {t['resume'] / t['scan']:>12.4f}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
