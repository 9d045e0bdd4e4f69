"""Evidence for the error model's constants: what real libraries' float32 (and 16-bit) sin, cos
and frequency recipes actually do, measured against exact values.

The constants of :mod:`peproof.families.error_model` are the criterion; these measurements are
evidence that they cover the libraries (``tests/test_error_model_libraries.py`` asserts it,
``benchmarks/bench_error_model.py`` prints the figures).  Libraries are imported lazily; one that
is not installed is skipped.

* ``sin_cos``: a library's ``sin``/``cos`` on float32 arguments against float64 NumPy (accurate to
  far below a float32 ulp), as the worst ratio to the model's library step
  ``2 c_sin u (|f(x)| + N) + c_red u |x|`` and as plain ulps.
* ``frequencies``: a library's own frequency recipe in a dtype against the exact frequencies
  (mpmath at 40 digits), as relative error in units of ``u`` and as the worst ratio to the
  model's ``(c_omega0 + c_omega1 L) u max(1, N / omega)``.
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

import numpy as np

from peproof.families.error_model import CONSTANTS
from peproof.formats import BINARY

from .budget import tiny


def grid(seed: int = 0, size: int = 4000) -> np.ndarray:
    """float32 arguments: small, the range of positions, and every binade up to 2**24."""
    rng = np.random.default_rng(seed)
    xs = [rng.uniform(-7, 7, size), rng.uniform(0, 2**12, size), rng.uniform(0, 2**17, size),
          rng.uniform(0, 2**20, size), np.exp2(rng.uniform(-30, 24, size))]
    return np.concatenate(xs).astype(np.float32)


def _numpy(fn, x, dt):
    return getattr(np, fn)(x.astype(dt))


def _torch(fn, x, dt):
    import torch

    t = torch.from_numpy(x.astype(np.float32)).to(getattr(torch, dt))
    return getattr(torch, fn)(t).float().numpy()


def _mlx(fn, x, dt):
    import mlx.core as mx

    return np.array(getattr(mx, fn)(mx.array(x.astype(np.float32)).astype(getattr(mx, dt)))
                    .astype(mx.float32))


def _jax(fn, x, dt):
    import jax.numpy as jnp

    return np.asarray(getattr(jnp, fn)(jnp.asarray(x.astype(np.float32)).astype(getattr(
        jnp, dt))).astype(jnp.float32))


def _keras(fn, x, dt):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras

    return np.asarray(keras.ops.convert_to_numpy(getattr(keras.ops, fn)(
        keras.ops.cast(x.astype(np.float32), dt)))).astype(np.float32)


LIBRARIES = {"numpy": _numpy, "torch": _torch, "mlx": _mlx, "jax": _jax, "keras": _keras}


def available(name: str) -> bool:
    mod = {"numpy": "numpy", "torch": "torch", "mlx": "mlx.core", "jax": "jax.numpy",
           "keras": "keras"}[name]
    try:
        if name == "keras":
            os.environ.setdefault("KERAS_BACKEND", "torch")
        __import__(mod)
        return True
    except Exception:  # noqa: BLE001 - any import failure means: not measurable here
        return False


def sin_cos(lib: str, fn: str, dtype: str = "float32", x: np.ndarray | None = None) -> dict:
    """Worst error of ``lib``'s ``fn`` in ``dtype`` on ``x`` (default :func:`grid`)."""
    fmt = BINARY[dtype]
    x = grid() if x is None else x
    if dtype != "float32":  # 16-bit arguments: the rounded argument is the one evaluated
        with np.errstate(over="ignore"):
            x = fmt.round(x.astype(np.float64)).astype(np.float32)
        x = x[np.isfinite(x)]
    xd = x.astype(np.float64)
    exact = getattr(np, fn)(xd)
    with np.errstate(over="ignore", invalid="ignore"):
        got = np.asarray(LIBRARIES[lib](fn, x, dtype), dtype=np.float64)
    err = np.abs(got - exact)
    u, n = fmt.u, tiny(fmt)
    c = CONSTANTS
    model = 2 * c.c_sin * u * (np.abs(exact) + n) + c.c_red * u * np.abs(xd)
    small = np.abs(xd) <= 7
    ulps = err / fmt.ulp(exact)
    return {"library": lib, "function": fn, "dtype": dtype,
            "max_ulp_small_args": float(ulps[small].max()), "max_ulp": float(ulps.max()),
            "max_ratio_to_model": float((err / model).max())}


@lru_cache(maxsize=64)
def exact_frequencies(d: int, base: float, family: str) -> np.ndarray:
    import mpmath

    h = d // 2
    with mpmath.workdps(40):
        b = mpmath.mpf(base)
        if family == "paper":
            return np.array([float(b ** (-mpmath.mpf(2 * i) / d)) for i in range(h)])
        return np.array([float(b ** (-mpmath.mpf(i) / (h - 1))) for i in range(h)])


def _t(lib, dtype):
    """``(module, arange in dtype, to float64 NumPy)`` of a library."""
    if lib == "torch":
        import torch

        dt = getattr(torch, dtype)
        return torch, (lambda *a: torch.arange(*a).to(dt)), (lambda a: a.double().numpy())
    if lib == "jax":
        import jax.numpy as jnp

        dt = getattr(jnp, dtype)
        return jnp, (lambda *a: jnp.arange(*a).astype(dt)), (
            lambda a: np.asarray(a.astype(jnp.float32), dtype=np.float64))
    if lib == "mlx":
        import mlx.core as mx

        dt = getattr(mx, dtype)
        return mx, (lambda *a: mx.arange(*a).astype(dt)), (
            lambda a: np.array(a.astype(mx.float32), dtype=np.float64))
    import ml_dtypes

    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    return np, (lambda *a: np.arange(*a).astype(dt)), (lambda a: np.asarray(a, np.float64))


def recipe(lib: str, how: str, dtype: str, d: int, base: float) -> tuple[np.ndarray, str]:
    """A library's frequencies by one of the common recipes: ``exp`` (the PyTorch tutorial),
    ``pow`` (``1 / base ** (2i/d)``), ``h1`` (tensor2tensor's ``exp(-i ln(base)/(h-1))``),
    ``interp`` (mlx: exp of a logarithm interpolated between the extreme frequencies)."""
    m, ar, out = _t(lib, dtype)
    h = d // 2
    if how == "exp":
        return out(m.exp(ar(0, d, 2) * (-math.log(base) / d))), "paper"
    if how == "pow":
        return out(1.0 / (base ** (ar(0, d, 2) / d))), "paper"
    if how == "h1":
        return out(m.exp(ar(h) * (-math.log(base) / (h - 1)))), "h-1"
    one_zero = 1 - ar(h) / (h - 1)
    lo, hi = math.log(1 / base), 0.0
    return out(m.exp(one_zero * (hi - lo) + lo)), "h-1"


def frequencies(lib: str, how: str, dtype: str, d: int, base: float,
                model_dtype: str | None = None) -> dict:
    """Relative error of a recipe's frequencies in units of ``u`` (of ``model_dtype``, default
    the recipe's dtype), and the ratio to the model."""
    w, family = recipe(lib, how, dtype, d, base)
    fmt = BINARY[model_dtype or dtype]
    ex = exact_frequencies(d, base, family)
    u, n = fmt.u, tiny(fmt)
    L = float(np.abs(np.log(ex)).max())
    rel = np.abs(w - ex) / np.maximum(ex, n) / u
    c = CONSTANTS
    return {"library": lib, "recipe": how, "dtype": dtype, "d": d, "base": base, "L": L,
            "max_rel_error_u": float(rel.max()),
            "max_ratio_to_model": float(rel.max() / (c.c_omega0 + c.c_omega1 * L))}
