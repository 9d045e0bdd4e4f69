"""Is a narrower pipeline a claim the table's own values support?

A float32 table within the error model of a bfloat16 pipeline is not thereby a bfloat16
computation: in a 16-bit pipeline the model lets an entry's angle be almost anything past a few
positions, so a table with a real defect (two pairs sharing one frequency) fits it too.  A
computation in a narrower format ``F`` leaves a trace in the values it stores, whatever its
recipe: some quantity on the way to the stored entries was rounded to ``F``.  This module looks
for that trace and never suggests (nor accepts as given) a pipeline the table does not show:

* the output rounded to ``F`` (``sin``/``cos`` computed in ``F``, then widened): every finite
  entry, divided by nothing, is a value of ``F`` -- checked exactly;
* the angle rounded to ``F``: at every examined row the angle each pair stores (``atan2`` of
  its sine and cosine, unwrapped next to the variant's angle) is a value of ``F`` within the
  error of computing ``sin``/``cos`` of it in the stored format;
* the frequencies rounded to ``F`` (angles then formed in the stored format): at the row whose
  position is 1 the angle is the frequency itself, so there every pair's angle is a value of
  ``F`` as above.

The angle bound: each stored entry carries a relative error at most ``r = 2 u (c_sin + c_scale +
2)`` (``u`` the stored format's unit roundoff: sin/cos, a scale and the storage rounding, the
constants of :mod:`peproof.families.error_model`); ``atan2(s(1+e1), c(1+e2))`` moves the angle
by ``|sin a cos a| |e1 - e2| <= 2 r min(|a|, 1/2)`` to first order, doubled here for the second.
"""

from __future__ import annotations

import numpy as np

from peproof.formats import Format

from .variant import Variant

ROWS = 64  # examined rows for the angle test


def _fmt_dtype(fmt: Format):
    import ml_dtypes

    return {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16,
            "float32": np.float32}.get(fmt.name)


def _on_grid(x: np.ndarray, fmt: Format, tol: np.ndarray) -> np.ndarray:
    """Whether each ``x`` lies within ``tol`` of a finite value of ``fmt``."""
    dt = _fmt_dtype(fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(dt).astype(np.float64)
    return np.isfinite(r) & (np.abs(r - x) <= tol)


def _entries_on_grid(arr, fmt: Format) -> bool:
    a = np.asarray(arr, dtype=np.float64)
    a = a[np.isfinite(a)]
    return bool(a.size) and bool(_on_grid(a, fmt, np.zeros_like(a)).all())


def reachable(arr, pos_rows: np.ndarray, v: Variant, stored: Format, fmt: Format) -> bool:
    """Whether the table's values show a computation in ``fmt`` (narrower than ``stored``) of
    variant ``v`` at row positions ``pos_rows`` (before the variant's offset)."""
    from peproof.families.error_model import CONSTANTS as C

    if fmt.p >= stored.p:
        return True  # not narrower: nothing to show
    if _fmt_dtype(fmt) is None:
        return False
    if _entries_on_grid(arr, fmt):
        return True
    d = arr.shape[1]
    enc = v.encoding(d)
    si = [enc.channel(i, "sin") for i in range(enc.pairs)]
    ci = [enc.channel(i, "cos") for i in range(enc.pairs)]
    w = enc.omegas_f64
    p = np.asarray(pos_rows, np.float64) + float(v.offset)
    u = 2.0 ** -stored.p
    r = 2 * u * (C.c_sin + C.c_scale + 2)

    def grid_rows(idx) -> bool:
        block = np.asarray(arr[idx], dtype=np.float64)
        s, c = block[:, si], block[:, ci]
        amp = np.hypot(s, c)
        use = np.isfinite(amp) & (amp > 0)
        if not use.any():
            return False
        a0 = np.arctan2(s, c)
        near = p[idx][:, None] * w[None, :]  # the variant's angle: picks the turn
        a = a0 + 2 * np.pi * np.round((near - a0) / (2 * np.pi))
        tol = 4 * r * np.minimum(np.abs(a0), 0.5) + 8 * 2.0 ** -53 * np.abs(a)
        return bool(_on_grid(a[use], fmt, tol[use]).all())

    one = np.nonzero(p == 1)[0]
    if one.size and grid_rows(one[:1]):
        return True  # frequencies (or angles) rounded to fmt
    idx = np.nonzero(np.isfinite(p) & (p != 0))[0][:ROWS]
    return bool(idx.size) and grid_rows(idx)  # angles rounded to fmt at every examined row


def unreachable_reason(fmt: Format, stored: Format) -> str:
    return (f"the table's values are not what a {fmt.name} computation stores: neither its "
            f"entries, nor its angles, nor its frequencies (the angles at position 1) are "
            f"{fmt.name} values, as they would be had any step before the {stored.name} storage "
            f"been rounded to {fmt.name}")
