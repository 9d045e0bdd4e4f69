"""Benchmark of the oracle: ``check`` of a 65536 x 512 float32 table against NumPy's own build.

Everything is measured in one run and quoted as ratios to the time NumPy needs to build the
float64 table itself (``Encoding.table``: ``pos[:, None] * omega``, ``sin``, ``cos``, layout),
so the figures travel between machines.  Peak memory of ``check`` is measured with
``tracemalloc`` (NumPy reports its buffers to it) and quoted as a multiple of the table's size.
Not a test: it prints.

    .venv/bin/python benchmarks/bench_oracle.py [--rows 65536] [--d 512] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np


def timed(fn, repeat: int) -> tuple[float, object]:
    times, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    from peproof.encoding import Encoding
    from peproof.oracle import check, identify, reference
    from peproof.oracle.common.exact import Plan
    from peproof.oracle.sinusoidal.variant import PAPER

    n, d = a.rows, a.d
    from peproof.numeric import recipes as R

    enc = Encoding(d)
    enc.omegas_f64  # noqa: B018 - frequencies computed once, outside the timing
    print(f"building the correctly rounded {n} x {d} float32 reference (setup, not timed)...")
    t0 = time.perf_counter()
    table = reference(n, d, dtype="float32")
    t_ref = time.perf_counter() - t0
    cast = Plan(PAPER.encoding(d)).values(np.arange(n, dtype=np.float64)).astype(np.float32)
    # a float32 pipeline (the PyTorch tutorial's recipe, in NumPy): every chunk is off by more
    # than an ulp somewhere, so every chunk is measured against the rounding budget too
    f32 = R.table(enc, "float32", "exp-float", np.arange(n))
    check(table[:64])  # warm up imports and caches

    # every repeat times NumPy's build and each check one after the other (alternated), so a
    # change of the machine's load hits both sides of a ratio alike; ratios are per repeat
    steps = {"np": lambda: enc.table(np.arange(n)), "chk": lambda: check(table),
             "chk2": lambda: check(cast), "chk3": lambda: check(f32),
             "id": lambda: identify(table)}
    times: dict[str, list] = {k: [] for k in steps}
    out: dict[str, object] = {}
    for _ in range(a.repeat):
        for k, fn in steps.items():
            t0 = time.perf_counter()
            out[k] = fn()
            times[k].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = {k: statistics.median([x / y for x, y in zip(v, times["np"], strict=True)])
             for k, v in times.items()}
    t_np, t_chk, t_chk2, t_chk3, t_id = (med[k] for k in ("np", "chk", "chk2", "chk3", "id"))
    rep, rep2, rep3, ident = out["chk"], out["chk2"], out["chk3"], out["id"]

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.npy"
        np.save(path, table)
        mm = np.load(path, mmap_mode="r")
        t_mm, _ = timed(lambda: check(mm), 1)
        tracemalloc.start()
        check(mm)
        _, peak_mm = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    tracemalloc.start()
    check(table)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    size = table.nbytes
    rows = [
        ("NumPy builds the float64 table (baseline)", t_np, 1.0, None),
        ("check(correctly rounded float32 table)", t_chk, ratio["chk"], rep.verdict),
        ("check(float64 computed, cast to float32)", t_chk2, ratio["chk2"], rep2.verdict),
        ("check(computed in float32, tutorial recipe)", t_chk3, ratio["chk3"], rep3.verdict),
        ("check(memory-mapped .npy of it)", t_mm, t_mm / t_np, None),
        ("identify(table)", t_id, ratio["id"], ident.name),
    ]
    print(f"\n{n} x {d} float32 table ({size / 2**20:.0f} MiB), median of {a.repeat} "
          "(ratios: median of the per-repeat ratios)")
    print(f"{'step':44s} {'seconds':>8s} {'x NumPy':>8s}  result")
    for name, t, r, res in rows:
        print(f"{name:44s} {t:8.2f} {r:8.2f}  {res or ''}")
    print(f"\npeak traced memory of check (in-memory table):  {peak / 2**20:7.1f} MiB = "
          f"{peak / size:.2f} x the table")
    print(f"peak traced memory of check (memory-mapped):     {peak_mm / 2**20:7.1f} MiB = "
          f"{peak_mm / size:.2f} x the table")
    print(f"certified arb decisions during check: {rep.spec.arb_decisions}; "
          f"correct rounding undecided (capped): {rep.spec.cr_undecided}")
    print(f"setup: reference() of the whole table took {t_ref:.1f} s "
          f"({t_ref / t_np:.1f} x NumPy's float64 build)")
    worst_t = max(t_chk, t_chk2, t_chk3)
    worst_r = max(ratio["chk"], ratio["chk2"], ratio["chk3"])
    print("\ntargets (ratios measured in this run):")
    print(f"  check <= 3 s and <= 2 x NumPy's float64 build: {t_chk:.2f} s, "
          f"{ratio['chk']:.2f} x (worst of the three tables {worst_t:.2f} s, {worst_r:.2f} x) -> "
          f"{'met' if worst_t <= 3.0 and worst_r <= 2.0 else 'NOT met'}")
    print(f"  identify <= 0.5 s: {t_id:.2f} s ({ratio['id']:.2f} x NumPy's build) -> "
          f"{'met' if t_id <= 0.5 else 'NOT met'}")
    print(f"  peak memory <= 3 x the table: {peak / size:.2f} x -> "
          f"{'met' if peak <= 3 * size else 'NOT met'}")

if __name__ == "__main__":
    main()
