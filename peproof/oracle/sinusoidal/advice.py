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

from ..common.grid import angle_tolerance, format_dtype, on_grid
from .variant import Variant

ROWS = 64  # examined rows for the angle test


def _entries_on_grid(arr, fmt: Format) -> bool:
    a = np.asarray(arr, dtype=np.float64)
    a = a[np.isfinite(a)]
    return bool(a.size) and bool(on_grid(a, fmt, np.zeros_like(a)).all())


def reachable(arr, pos_rows: np.ndarray, v: Variant, stored: Format, fmt: Format) -> bool:
    """Whether the table's values show a computation in ``fmt`` (narrower than ``stored``) of
    variant ``v`` at row positions ``pos_rows`` (before the variant's offset)."""
    if fmt.p >= stored.p:
        return True  # not narrower: nothing to show
    if format_dtype(fmt) is None:
        return False
    if _entries_on_grid(arr, fmt):
        return True
    d = arr.shape[1]
    enc = v.encoding(d)
    si = [enc.channel(i, "sin") for i in range(enc.pairs)]
    ci = [enc.channel(i, "cos") for i in range(enc.pairs)]
    w = enc.omegas_f64
    p = np.asarray(pos_rows, np.float64) + float(v.offset)

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
        tol = angle_tolerance(a0, a, stored)
        return bool(on_grid(a[use], fmt, tol[use]).all())

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


def pipeline_unsupported(arr, rows: np.ndarray, v: Variant, stored: Format,
                         pipe: Format) -> str | None:
    """Why a given pipeline ``pipe`` narrower than the table's dtype, under which the table
    passed as ``v`` at row positions ``rows``, is not one the values show, else ``None``."""
    if pipe.p >= stored.p or reachable(arr, rows, v, stored, pipe):
        return None
    return unreachable_reason(pipe, stored)


#: how many further candidates are tried on the whole table, and how many named at most
ALSO_TRIED, ALSO_NAMED = 6, 3


def also_fitting(whole, ident, d: int) -> list[str]:
    """The other candidates (simplest first) that the whole table fits within the error model
    as well as the named variant: a table that fits several says nothing to choose between
    them, and the verdict says so."""
    named = ident.variant
    out: list[str] = []
    tried = 0
    for c in ident.candidates:
        if tried >= ALSO_TRIED or len(out) >= ALSO_NAMED:
            break
        if c.same_as(named, d) or any(c.name(d) == o for o in out):
            continue
        tried += 1
        got = whole.judge(c)
        if got is not None and got[1] is not None:
            out.append(c.name(d))
    return out
