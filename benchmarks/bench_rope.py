"""Benchmark of RoPE's certified decay curve (issue 12). Prints figures measured in ONE run.

* certified ``B(k)`` for d = 128 and every k <= 62832 (target <= 2 s), cold (first call in the
  process: arb frequencies and seed tables included) and warm (median of 3);
* against a float64 NumPy evaluation of the same curve (``exp(1j k theta)``, running sums,
  moduli; uncertified), and an arb evaluation of every offset extrapolated from a sample;
* the landmarks of ``peproof rope-decay`` (curve + every certified comparison) for d = 64, 128
  and 256, and the decided ``rope`` claims of the family;
* the largest difference between the float64 curve and the certified one, in units of the
  proved bound (the float64 curve is not inside the certified bound: its angles are rounded).

Ratios, not absolute times, are the figures to compare across machines.  Run:
``python benchmarks/bench_rope.py``.
"""

from __future__ import annotations

import random
import time

import numpy as np
from bench_numeric import timed  # run as ``python benchmarks/bench_rope.py``

D, N = 128, 62832


def float64_curve(d: int, n: int, block: int = 4096) -> np.ndarray:
    """The same curve in plain float64 NumPy (no error bound)."""
    th = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    out = np.empty(n + 1)
    for a in range(0, n + 1, block):
        ks = np.arange(a, min(a + block, n + 1), dtype=np.float64)
        z = np.exp(1j * np.outer(ks, th))
        out[a: a + ks.size] = np.abs(np.cumsum(z, axis=1)).sum(axis=1) * (2.0 / d)
    return out


def arb_extrapolated(d: int, n: int, sample: int = 300) -> float:
    import flint

    from peproof.rope import decay_bound_arb

    ks = random.Random(0).sample(range(n + 1), sample)
    with flint.ctx.workprec(128):
        decay_bound_arb(d, flint.arb(1))  # frequencies cached
        t0 = time.perf_counter()
        for k in ks:
            decay_bound_arb(d, flint.arb(k))
    return (time.perf_counter() - t0) * (n + 1) / sample


def main() -> None:
    from peproof.numeric.rope_decay import certify_curve
    from peproof.numeric.rope_landmarks import landmarks

    t0 = time.perf_counter()
    curve = certify_curve(D, N)
    cold = time.perf_counter() - t0
    warm, curve = timed(lambda: certify_curve(D, N))
    flt, fc = timed(lambda: float64_curve(D, N))
    arb = arb_extrapolated(D, N)
    worst = float(np.max(np.abs(fc - curve.mid)))
    print(f"certified B(k), d={D}, k = 0..{N}: cold {cold:.3f}s, warm {warm:.3f}s "
          f"(target <= 2 s), proved bound {curve.bound:.2e}")
    print(f"float64 NumPy curve (uncertified): {flt:.3f}s -> certified/float64 = "
          f"{warm / flt:.2f}x")
    print(f"arb at every offset (extrapolated from 300): {arb:.1f}s -> arb/certified = "
          f"{arb / warm:.0f}x")
    print(f"max |float64 - certified midpoint| = {worst:.2e} = {worst / curve.bound:.0f} x the "
          "proved bound (the float64 curve rounds its angles k*theta)")
    for d in (64, 128, 256):
        secs, lm = timed(lambda d=d: landmarks(d, N), repeat=1)
        print(f"landmarks d={d}: {secs:.3f}s; first rise {lm.first_rise}, never regains up to "
              f"{lm.record_prefix}, min at {lm.minimum['k']}, undecided {len(lm.undecided)}")
    from peproof import registry
    from peproof.verdicts import verdict_of

    claims = registry.family("rope")
    t0 = time.process_time()
    stats = [verdict_of(c.id).status for c in claims]
    print(f"rope family: {len(claims)} claims decided in {time.process_time() - t0:.2f}s CPU "
          f"({stats.count('proved')} proved, {stats.count('refuted')} refuted, "
          f"{stats.count('unknown')} unknown)")


if __name__ == "__main__":
    main()
