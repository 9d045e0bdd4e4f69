"""Variants judged against the whole table: the step from "fits the examined rows" to a verdict.

:mod:`.identification` names the simplest variant that fits the rows it examined and keeps the
further candidates that fit them too.  A verdict rests on every row, so :class:`Whole` judges a
variant on the whole table, with the standard of every "within": each entry within the error
model of the pipeline (:mod:`.compare`) and, in a 16-bit pipeline, one computation for all rows
(:mod:`.consistency`).  Candidates are screened first on a sample (the rows of smallest positions,
which every format resolves, and rows spread over the table), so a candidate that fails costs
little.

Three uses, each before a table is called "wrong":

* :meth:`Whole.first_fitting` -- the next candidates, simplest first, when the one named fails on
  rows identification did not examine;
* :meth:`Whole.nearby_offset` -- the named variant with its offset moved a little (a 16-bit format
  blurs the rows an offset is read from);
* :meth:`Whole.toward` -- a variant differing from the expected one in fewer parameters than the
  named one: each difference the error model explains is taken back, so that a diagnosis names
  only the differences the table shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from peproof.formats import Format

from ..common.consistency import applies
from ..common.verdicts import CONFORMS, WITHIN
from .compare import Comparison, compare
from .variant import Variant

SCREEN_ROWS = 128


def level(c: Comparison) -> str | None:
    if c.faithful:
        return CONFORMS
    if c.within_budget:
        return WITHIN
    return None


def rows_at(v: Variant, pos: np.ndarray, given: bool, n: int) -> np.ndarray:
    """The positions of the rows under variant ``v``: the given ones, else ``v``'s row order."""
    return pos if given or v.order == "forward" else v.positions(n)


def one_computation(arr, pos: np.ndarray, v: Variant, stored: Format, pipe: Format,
                    keep, out: list) -> str | None:
    """``WITHIN`` when one computation explains the whole table, else ``None`` (and the reason
    appended to ``out``).

    Every entry within its own bound of a 16-bit pipeline ``pipe`` is not enough: there the bound
    lets the angle of one entry be anything beyond a few positions, so rows swapped or shifted
    would pass.  The table is within the model when one computation gives every row: one
    frequency per pair, one position per row (exact, or rounded to ``pipe``), the angle rounded
    to ``pipe`` or computed in float32 or wider (:mod:`peproof.oracle.common.consistency`).
    """
    from ..common.budget import Budget
    from ..common.consistency import consistent
    from ..common.exact import Plan

    if not applies(pipe):
        return WITHIN
    plan = Plan(v.encoding(arr.shape[1]))
    c = consistent(arr, pos, plan, Budget(plan, pipe, stored), keep, unit=float(v.max_freq))
    if c.ok is None or c.ok:  # the refinement does not apply: the entries' bound decides
        return WITHIN
    rows = ""
    if c.rows:
        rows = (f"; with the frequency nearest the variant's, row{'s' if len(c.rows) > 1 else ''}"
                f" {', '.join(map(str, c.rows[:6]))}{', ...' if len(c.rows) > 6 else ''} do"
                f"{'' if len(c.rows) > 1 else 'es'} not fit")
    sc, cc = plan.pair_columns
    out.append(f"every entry is within its own bound of {pipe.name}, yet no one computation gives "
               f"these rows (rows swapped, shifted or copied?): no single frequency of pair "
               f"{c.pair} (channels {int(sc[c.pair])}, {int(cc[c.pair])}) fits every row{rows}")
    return None


@dataclass
class Whole:
    """One table with its rows' positions, formats and rows left out (padding)."""

    arr: object
    pos: np.ndarray
    given: bool
    stored: Format
    pipe: Format
    keep: np.ndarray | None
    tied: list = field(default_factory=list)  # why a 16-bit table is not one computation

    @property
    def n(self) -> int:
        return self.arr.shape[0]

    def rows(self, v: Variant) -> np.ndarray:
        return rows_at(v, self.pos, self.given, self.n)

    def level(self, v: Variant, c: Comparison) -> str | None:
        """The level of a whole-table comparison, one computation included."""
        lvl = level(c)
        if lvl == WITHIN:
            lvl = one_computation(self.arr, self.rows(v), v, self.stored, self.pipe, self.keep,
                                  self.tied)
        return lvl

    def judge(self, v: Variant) -> tuple[Comparison, str | None] | None:
        """``(comparison, level)`` of ``v`` on the whole table, or ``None`` when ``v`` already
        fails on the screening sample (or cannot be built at this ``d``)."""
        try:
            v.encoding(self.arr.shape[1])
        except Exception:  # noqa: BLE001 - a parameter the variant cannot take at this d
            return None
        rows = self.rows(v)
        sample = np.unique(np.concatenate([
            np.argsort(np.abs(rows.astype(np.float64)), kind="stable")[:SCREEN_ROWS],
            np.linspace(0, self.n - 1, min(self.n, SCREEN_ROWS)).astype(np.int64)]))
        ks = self.keep[sample] if self.keep is not None else None
        if level(compare(np.asarray(self.arr[sample]), rows[sample], v, self.stored, self.pipe,
                         keep=ks)) is None:
            return None
        full = compare(self.arr, rows, v, self.stored, self.pipe, keep=self.keep)
        return full, self.level(v, full)

    def first_fitting(self, variants) -> tuple[Variant, Comparison, str] | None:
        """The first of ``variants`` (simplest first) within the model on the whole table."""
        for v in variants:
            got = self.judge(v)
            if got is not None and got[1] is not None:
                return v, got[0], got[1]
        return None

    def nearby_offset(self, iv: Variant, want: Variant | None):
        """The first variant that differs from ``iv`` only in its offset (moved by a multiple of
        1/2 up to 4, or the expected offset) and explains the whole table."""
        o = Fraction(iv.offset)
        cands = [o + Fraction(k, 2) for k in sorted(range(-8, 9), key=abs) if k]
        if want is not None and Fraction(want.offset) not in cands and \
                Fraction(want.offset) != o:
            cands.insert(0, Fraction(want.offset))
        out = []
        for off in cands:
            try:
                out.append(iv.with_(offset=off))
            except Exception:  # noqa: BLE001 - an offset the variant cannot take
                continue
        return self.first_fitting(out)

    def toward(self, iv: Variant, want: Variant, d: int):
        """``iv`` with every parameter group in which it differs from ``want`` (frequencies,
        layout, offset, scale, row order) taken back to ``want``'s where the whole table still
        fits: ``(variant, comparison, level)`` of the result, or ``None`` when no difference can
        be taken back."""
        groups = (("family", "base", "max_freq", "turns"), ("layout",), ("offset",),
                  ("scale",), ("order",))
        best = None
        cur = iv
        for g in groups:
            kw = {k: getattr(want, k) for k in g}
            if all(getattr(cur, k) == kw[k] for k in g):
                continue
            try:
                v = cur.with_(**kw)
            except Exception:  # noqa: BLE001
                continue
            if v.same_as(cur, d):
                continue
            got = self.judge(v)
            if got is not None and got[1] is not None:
                cur, best = v, (v, got[0], got[1])
        return best

    def narrower(self, v: Variant) -> Format | None:
        """The first 16-bit format narrower than the pipeline in whose error model (as a
        pipeline, the table stored as it is) ``v`` explains the whole table, else ``None``."""
        from peproof.formats import BFLOAT16, FLOAT16

        from .advice import reachable

        for fmt in (FLOAT16, BFLOAT16):
            if fmt.p >= self.pipe.p:
                continue
            w = Whole(self.arr, self.pos, self.given, self.stored, fmt, self.keep)
            got = w.judge(v)
            if got is not None and got[1] is not None and \
                    reachable(self.arr, self.rows(v), v, self.stored, fmt):
                return fmt  # the values show a computation in fmt (:mod:`.advice`)
        return None
