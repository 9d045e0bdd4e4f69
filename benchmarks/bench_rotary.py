"""Benchmark: ``check`` of a 131072 x 128 float32 cos/sin cache pair (target <= 3 s), quoted
against NumPy's float64 build of the same cache measured in the same run."""

import time

import numpy as np

from peproof.oracle.rotary.check import check_rotary

N, D = 131072, 128


def build(dtype):
    w = 1.0 / (dtype(10000) ** (np.arange(0, D, 2, dtype=dtype) / dtype(D)))
    a = np.arange(N, dtype=dtype)[:, None] * w[None].astype(dtype)
    e = np.concatenate([a, a], 1)
    return np.cos(e), np.sin(e)


def main():
    c, s = build(np.float32)
    t = time.perf_counter()
    build(np.float64)
    t_np = time.perf_counter() - t
    t = time.perf_counter()
    rep = check_rotary(cos=c, sin=s)
    t_check = time.perf_counter() - t
    print(f"verdict: {rep.verdict}; identified: {rep.describe(rep.identified)}")
    print(f"check of a {N} x {D} float32 cos/sin pair: {t_check:.2f} s (target <= 3 s)")
    print(f"NumPy float64 build of the same cache: {t_np:.2f} s; ratio {t_check / t_np:.1f}x")


if __name__ == "__main__":
    main()
