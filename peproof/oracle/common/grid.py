"""Is a number a value of a narrower format?  The trace a computation in that format leaves in
the values it stores (:mod:`peproof.oracle.sinusoidal.advice`, the rotary check's narrower
pipelines): each ``x`` within ``tol`` of a finite value of the format."""

from __future__ import annotations

import numpy as np

from peproof.formats import Format


def format_dtype(fmt: Format):
    """The NumPy dtype of a binary format narrower than float64, else None."""
    import ml_dtypes

    return {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16,
            "float32": np.float32}.get(fmt.name)


def on_grid(x: np.ndarray, fmt: Format, tol: np.ndarray) -> np.ndarray:
    """Whether each ``x`` lies within ``tol`` of a finite value of ``fmt``."""
    dt = format_dtype(fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(dt).astype(np.float64)
    return np.isfinite(r) & (np.abs(r - x) <= tol)


def angle_tolerance(a0: np.ndarray, a: np.ndarray, stored: Format) -> np.ndarray:
    """How far an angle read back as ``atan2`` of its stored sine and cosine (principal value
    ``a0``, unwrapped ``a``) may be from the angle computed: each entry's relative error at most
    ``r = 2 u (c_sin + c_scale + 2)`` moves the angle by ``|sin a cos a| |e1 - e2| <= 2 r
    min(|a0|, 1/2)`` to first order, doubled for the second; plus float64's own rounding."""
    from peproof.families.error_model import CONSTANTS as C

    r = 2 * 2.0 ** -stored.p * (C.c_sin + C.c_scale + 2)
    return 4 * r * np.minimum(np.abs(a0), 0.5) + 8 * 2.0 ** -53 * np.abs(a)
