"""The error model's evidence: every installed library's sin/cos and frequency recipes, measured.

Prints the constants of ``peproof.families.error_model`` and, for each library and dtype, the
largest error measured (in ulps and in units of ``u``) and its ratio to what the model allows
(``<= 1`` everywhere is what the constants are chosen for).  Not a test: it prints (the test is
``tests/test_error_model_libraries.py``).

    .venv/bin/python benchmarks/bench_error_model.py
"""

from __future__ import annotations


def main() -> None:
    from peproof.families.error_model import CONSTANTS
    from peproof.oracle.common import evidence as E

    print("constants (units of u, or ulps for c_sin):", CONSTANTS.as_dict())
    print(f"\n{'library':8s} {'fn':4s} {'dtype':9s} {'max ulp |x|<=7':>15s} {'max ulp':>10s} "
          f"{'ratio to model':>15s}")
    for lib in E.LIBRARIES:
        if not E.available(lib):
            print(f"{lib:8s} not installed")
            continue
        for dt in ("float32", "float16", "bfloat16"):
            for fn in ("sin", "cos"):
                r = E.sin_cos(lib, fn, dt)
                print(f"{lib:8s} {fn:4s} {dt:9s} {r['max_ulp_small_args']:15.3g} "
                      f"{r['max_ulp']:10.3g} {r['max_ratio_to_model']:15.3f}")
    print(f"\n{'library':8s} {'recipe':7s} {'dtype':9s} {'worst at':>18s} {'rel. err / u':>13s} "
          f"{'L':>6s} {'ratio to model':>15s}")
    for lib in ("numpy", "torch", "jax", "mlx"):
        if not E.available(lib):
            continue
        for how in ("exp", "pow", "h1", "interp"):
            for dt in ("float32", "float16", "bfloat16"):
                ds = (16, 64, 256, 512) + ((1024, 4096) if dt != "bfloat16" else ())
                bases = (10000, 500000) if dt != "float16" else (10000,)
                w = max((E.frequencies(lib, how, dt, d, b) for d in ds for b in bases),
                        key=lambda r: r["max_ratio_to_model"])
                at = f"d={w['d']} base={int(w['base'])}"
                print(f"{lib:8s} {how:7s} {dt:9s} {at:>18s} {w['max_rel_error_u']:13.2f} "
                      f"{w['L']:6.2f} {w['max_ratio_to_model']:15.3f}")


if __name__ == "__main__":
    main()
