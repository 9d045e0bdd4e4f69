"""One computation for a whole rotary cache in a 16-bit pipeline.

:func:`.compare.compare_cache` holds each entry to its own bound.  In a 16-bit pipeline that bound
lets a frequency be off by several percent (:func:`.model.freq_rel_error`), so past a few dozen
positions the angle of one entry may be anything: a bfloat16 cache with two rows swapped had every
entry within its own bound and was called "within the error model".  A computation does not choose
its errors entry by entry: one frequency per pair, one position per row, the angle rounded once
or formed in float32.  That is the test the sinusoidal oracle makes of its 16-bit tables
(:mod:`peproof.oracle.common.consistency`); here it is made of each copy of a cache (the
``[c|c]`` halves, or the one copy of an interleaved cache), with the cache model's frequencies,
relative errors, attention factor and bound coefficients.  A copy no single computation gives is
named, with the rows the frequency nearest the model's does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from peproof.formats import Format

from ..common.budget import SLACK
from ..common.consistency import applies, consistent
from ..common.positions import position_vectors


@dataclass(frozen=True)
class _Plan:
    """What :func:`consistent` reads of a sinusoidal plan, for a rotary cache read as the table
    ``[sin | cos]`` of its pairs (positions given with their offset)."""

    omega: np.ndarray
    scale: float
    offset: float = 0.0
    offset_lo: float = 0.0

    @property
    def h(self) -> int:
        return int(self.omega.shape[0])

    @property
    def pair_columns(self) -> tuple[np.ndarray, np.ndarray]:
        return np.arange(self.h), self.h + np.arange(self.h)


@dataclass(frozen=True)
class _Budget:
    """What :func:`consistent` reads of a budget: the pipeline, the frequencies' relative errors
    and the entry bound's coefficients (those of :class:`.model.CacheModel`)."""

    pipe: Format
    ew: np.ndarray
    alpha: float
    beta: float
    gamma: float


class _Table:
    """The copy ``(C, S)`` as ``[S | C]``, formed a slice of rows at a time (no copy of a whole
    cache in float64)."""

    def __init__(self, C, S):
        self.C, self.S = C, S
        self.shape = (C.shape[0], 2 * C.shape[1])

    def __getitem__(self, rows):
        return np.concatenate([np.asarray(self.S[rows], dtype=np.float64),
                               np.asarray(self.C[rows], dtype=np.float64)], axis=1)


def untied(copies, pos: np.ndarray, model) -> str:
    """Why no one computation in ``model.pipe`` gives every row of the cache copies (each
    ``rows x pairs``, at positions ``pos`` with their offset), or ``""`` when one does or when the
    test does not apply (a pipeline wider than 16 bits, a case it cannot enumerate)."""
    return tie_test(copies, pos, model)[0]


def tie_test(copies, pos: np.ndarray, model) -> tuple[str, bool]:
    """``(untied, made)``: :func:`untied`'s answer, and whether the test was made of every copy
    (False in a 16-bit pipeline when it could not be: a frequency bound too loose to follow,
    positions not numbers; True in a wider pipeline, where an entry's own bound is the test)."""
    P = model.pipe
    if not applies(P):
        return "", True
    made = True
    pos = np.asarray(pos, dtype=np.float64)
    plan = _Plan(np.asarray(model.thetas, dtype=np.float64), float(model.attention))
    bud = _Budget(P, np.asarray(model.ew, dtype=np.float64), model.alpha, model.beta,
                  model.gamma)
    unit = float(getattr(model, "pos_scale", 1.0)) or 1.0
    for k, (C, S) in enumerate(copies):
        c = consistent(_Table(C, S), pos, plan, bud, unit=unit)
        made = made and c.ok is not None
        if c.ok is False:
            which = f" (copy {k + 1} of {len(copies)})" if len(copies) > 1 else ""
            rows = ""
            if c.rows:
                more = ", ..." if len(c.rows) > 6 else ""
                rows = (f"; with the frequency nearest the model's, row"
                        f"{'s' if len(c.rows) > 1 else ''} {', '.join(map(str, c.rows[:6]))}"
                        f"{more} do{'' if len(c.rows) > 1 else 'es'} not fit")
            return (f"every entry is within its own bound of {P.name}, yet no one computation "
                    f"gives these rows (rows swapped, shifted or copied?): no single frequency of "
                    f"pair {c.pair}{which} fits every row{rows}"), True
    return "", made


def untied_angles(copies, pos: np.ndarray, model) -> str:
    """The same test for an angle table (each copy ``rows x pairs`` of stored angles
    ``fl(p~ W_i)``): for every way the positions may have been formed
    (:func:`~peproof.oracle.common.positions.position_vectors`), each row ``k`` allows the
    frequencies ``W_i`` whose product with its position rounds (in the pipeline, once more from
    float32, then to the stored format) to the stored angle, an interval; the table is one
    computation when, for one way of forming the positions, every pair's intervals meet within
    the model's relative error of its frequency.  Returns why not, or ``""``."""
    P = model.pipe
    if not applies(P):
        return ""
    pos = np.asarray(pos, dtype=np.float64)
    th = np.asarray(model.thetas, dtype=np.float64)
    ew = np.asarray(model.ew, dtype=np.float64)
    # the model's bound with the frequency exact, the product rounded in float32 (or not) before
    # its rounding in the pipeline, then stored
    k, cc = float(model.kk(2.0**-24)), float(model.cc)
    w_lo, w_hi = th * (1.0 - ew) / SLACK, th * (1.0 + ew) * SLACK
    unit = float(getattr(model, "pos_scale", 1.0)) or 1.0
    rows = np.arange(pos.shape[0])
    for j, A in enumerate(copies):
        first = None
        for pt in position_vectors(P, pos, rows, unit):
            bad = _meet(A, pt, k, cc, w_lo, w_hi)
            if bad is None:
                first = None
                break
            first = first or bad
        if first is not None:
            pair, misfit = first
            which = f" (copy {j + 1} of {len(copies)})" if len(copies) > 1 else ""
            rows_txt = ""
            if misfit:
                more = ", ..." if len(misfit) > 6 else ""
                rows_txt = (f"; rows {', '.join(map(str, misfit[:6]))}{more} allow no frequency "
                            "the others allow")
            return (f"every angle is within its own bound of {P.name}, yet no one computation "
                    f"gives these rows (rows swapped, shifted or copied?): no single frequency of "
                    f"pair {pair}{which} gives every row's angle{rows_txt}")
    return ""


def _intervals(A, pt: np.ndarray, k0: int, k1: int, k: float, cc: float, w_hi: np.ndarray):
    """Rows ``k0..k1``: the frequencies each allows, ``(lo, hi)`` per entry (a row at position 0
    allows every frequency)."""
    p = pt[k0:k1, None]
    t = np.asarray(A[k0:k1], dtype=np.float64)
    ap = np.abs(p)
    b = ap * w_hi[None, :] * k + cc + 2.0**-50 * (np.abs(t) + ap * w_hi[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = (t - b) / p, (t + b) / p
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    zero = np.broadcast_to(p == 0.0, lo.shape)
    # widened by the divisions' float64 error, outward whatever the sign
    lo = np.where(zero | np.isnan(lo), -np.inf, lo - np.abs(lo) * 2.0**-49)
    hi = np.where(zero | np.isnan(hi), np.inf, hi + np.abs(hi) * 2.0**-49)
    return lo, hi


def _meet(A, pt: np.ndarray, k: float, cc: float, w_lo: np.ndarray, w_hi: np.ndarray):
    """``None`` when every pair's row intervals meet (positions ``pt``), else ``(pair, rows)``:
    the first pair whose intervals do not, with the rows that exclude the frequency most rows
    allow (the median of the intervals' middles)."""
    if not np.isfinite(pt).all():
        return None  # positions not numbers: the test does not apply
    lo, hi = w_lo.copy(), w_hi.copy()
    n = pt.shape[0]
    step = max(1, (1 << 18) // max(1, lo.size))
    for k0 in range(0, n, step):
        a, b = _intervals(A, pt, k0, min(n, k0 + step), k, cc, w_hi)
        lo = np.maximum(lo, a.max(axis=0))
        hi = np.minimum(hi, b.min(axis=0))
    empty = lo > hi
    if not empty.any():
        return None
    i = int(np.nonzero(empty)[0][0])
    a, b = _intervals(np.asarray(A)[:, i:i + 1], pt, 0, n, k, cc, w_hi[i:i + 1])  # its column
    a, b = np.maximum(a[:, 0], w_lo[i]), np.minimum(b[:, 0], w_hi[i])
    mids = 0.5 * (a + b)
    fin = np.isfinite(mids)
    w = float(np.median(mids[fin])) if fin.any() else float(w_lo[i])
    return i, [int(r) for r in np.nonzero((a > w) | (b < w))[0][:8]]
