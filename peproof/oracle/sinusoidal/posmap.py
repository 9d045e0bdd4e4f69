"""Rows that hold the encoding of other positions, explained by one map of the positions.

A table can be the right encoding evaluated at the wrong positions: positions clipped to a maximum
(every row from some row on holds the last position's encoding), cast to a 16-bit format before the
product (rows follow that format's grid: beyond 2048 in float16 two positions share a row, beyond
32768 thirty-two do, and past 65519 the position overflows to infinity and the row is NaN),
repeated (a table of ``L`` rows tiled: position ``p`` holds ``p mod L``), or shifted from some row
on (a row inserted).  Row by row such a table fails; what it is becomes plain once the positions
are mapped.

Given the identified variant (read from rows it fits, see :mod:`.reread`) and the rows where the
table departs from it (outside the error model, NaN, or equal to an earlier row), :func:`explain`

1. reads the position each departing row holds from its phases (:func:`decode`: the slowest pair
   gives the position modulo its period, each faster pair refines it while the dtype still
   resolves that pair's angle; every branch of the slowest pair within the table's range of
   positions is followed and the one all resolved pairs agree with is kept);
2. proposes the maps of the module's list, their parameters from what step 1 read at the first
   departing row: grid (no parameter), clipped at ``c``, repeated with period ``L``, shifted by
   ``s`` from that row;
3. keeps the first map under which the **whole table** is within the error model of the variant
   (every entry, and in a 16-bit pipeline one computation, :mod:`.whole`), rows the map sends past
   the format's largest number being NaN or infinite in the table, screened first on a sample.

A map is a description of a table already judged: it is only sought for a table outside the model
at its own positions, so it can never turn a verdict into "within".  The first row where the map
departs from the identity is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from peproof.formats import BFLOAT16, FLOAT16

from ..common.budget import Budget
from ..common.exact import Plan
from .compare import compare
from .variant import Variant
from .whole import Whole, level

RESOLVED = 0.3  # radians of angle error up to which a pair refines the position
MAX_BRANCHES = 256
MAX_HELD = 12  # positions tried as the one the first departing row holds
SCREEN = 256


@dataclass
class PositionMap:
    """A map of the positions under which the whole table is the variant."""

    kind: str  # "float16 grid", "bfloat16 grid", "clipped", "repeated", "shifted"
    first_row: int  # the first row where the map departs from the identity
    first_position: float  # its position
    holds: float  # the position that row holds (inf: overflowed)
    rows: int  # rows the map moves
    text: str
    param: float | None = None
    variant: Variant | None = None  # the variant the table is under the map

    def to_json(self) -> dict:
        return {"kind": self.kind, "first_row": self.first_row,
                "first_position": _p(self.first_position), "holds": _p(self.holds),
                "rows_moved": self.rows, "parameter": _p(self.param), "text": self.text}


def _p(x):
    if x is None:
        return None
    x = float(x)
    if not np.isfinite(x):
        return str(x)
    return int(x) if x.is_integer() else x


def decode(T: np.ndarray, plan: Plan, bud: Budget, lo: float, hi: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """``(x, sigma)``: the position (offset included, ``x = p + offset``) each row of ``T``
    holds, read from its phases, and how far off it may be (the angle error the dtype allows at
    the fastest pair that refined it, over that pair's frequency); ``lo .. hi`` is the range of
    ``x`` searched (the table's own positions).  NaN for a row whose pairs do not agree."""
    sc, cc = plan.pair_columns
    sg = 1.0 if plan.scale >= 0 else -1.0
    ph = np.arctan2(sg * T[:, sc], sg * T[:, cc])  # rows x h
    w = plan.omega
    order = np.argsort(w, kind="stable")
    w0 = float(w[order[0]])
    if not w0 > 0:
        return np.full(T.shape[0], np.nan), np.full(T.shape[0], np.inf)
    period = 2.0 * np.pi / w0
    base = np.mod(ph[:, order[0]], 2.0 * np.pi) / w0
    m0 = int(np.floor(lo / period)) - 1
    m1 = int(np.ceil(hi / period)) + 1
    if m1 - m0 > MAX_BRANCHES:
        m1 = m0 + MAX_BRANCHES
    noise = 4.0 * max(bud.stored.u, bud.pipe.u, 2.0**-50)
    best = np.full(T.shape[0], np.nan)
    best_r = np.full(T.shape[0], np.inf)
    best_s = np.full(T.shape[0], np.inf)
    for m in range(m0, m1 + 1):
        x = base + m * period
        for i in order[1:]:
            err = np.abs(x) * w[i] * bud.K1[i] + noise
            ok = (err < RESOLVED) & np.isfinite(ph[:, i])
            if not ok.any():
                break
            dlt = _wrap(ph[:, i] - x * w[i])
            x = np.where(ok, x + dlt / w[i], x)
        err = np.abs(x)[:, None] * (w * bud.K1)[None, :] + noise
        res = np.abs(_wrap(ph - x[:, None] * w[None, :]))
        use = (err < RESOLVED) & np.isfinite(ph)
        r = np.where(use, res / err, 0.0).max(axis=1)
        r = np.where(use.any(axis=1) & np.isfinite(x), r, np.inf)
        sig = np.where(use, err / w[None, :], np.inf).min(axis=1)
        better = r < best_r
        best = np.where(better, x, best)
        best_r = np.where(better, r, best_r)
        best_s = np.where(better, sig, best_s)
    return np.where(best_r <= 4.0, best, np.nan), best_s


def _wrap(x):
    return (x + np.pi) % (2.0 * np.pi) - np.pi


def _snap(q: float, sigma: float, grid: np.ndarray) -> list[float]:
    """The table's positions within ``3 sigma`` (at least the nearest two) of ``q``, nearest
    first, at most :data:`MAX_HELD`."""
    if not np.isfinite(q):
        return []
    r = max(3.0 * sigma, 0.5) if np.isfinite(sigma) else 0.5
    a, b = np.searchsorted(grid, q - r), np.searchsorted(grid, q + r, side="right")
    k = np.searchsorted(grid, q)
    near = np.unique(np.concatenate([grid[a:b], grid[max(0, k - 1):k + 1]]))
    return [float(x) for x in sorted(near, key=lambda x: abs(x - q))[:MAX_HELD]]


def explain(whole: Whole, v: Variant, first: int, held=()) -> PositionMap | None:
    """The first map (see the module's text) under which the whole table is ``v``, with ``first``
    the first row known to depart from ``v`` at its own position and ``held`` positions that row
    is known to hold (that of an earlier row it equals bit for bit), tried before those read
    from its phases; ``None`` when no map explains the table."""
    arr, n, d = whole.arr, whole.n, whole.arr.shape[1]
    P = whole.rows(v).astype(np.float64)
    plan = Plan(v.encoding(d))
    off = plan.offset
    maps: list[tuple[str, np.ndarray, float | None]] = []
    for fmt in (FLOAT16, BFLOAT16):
        with np.errstate(over="ignore", invalid="ignore"):
            q = fmt.round(P + off) - off
        if not np.array_equal(q, P):
            maps.append((fmt.name + " grid", q, None))
    r0 = int(first)
    t0 = np.asarray(arr[r0:r0 + 1], dtype=np.float64)
    if np.isfinite(t0).all() or held:
        bud = Budget(plan, whole.pipe, whole.stored)
        lo, hi = float(np.min(P) + off), float(np.max(P) + off)
        x, sig = decode(t0, plan, bud, min(lo, 0.0), hi)
        grid = np.unique(P)
        cands = [float(c) for c in held] + [c for c in _snap(x[0] - off, sig[0], grid)
                                            if c not in held]
        k = np.arange(n)
        for c in cands:
            if c < P[r0]:
                maps.append(("clipped", np.where(k >= r0, np.minimum(P, c), P), c))
        for c in cands:
            L = P[r0] - c
            if L > 0:
                maps.append(("repeated", np.where(k >= r0, P[0] + np.mod(P - P[0], L), P), L))
                maps.append(("shifted", np.where(k >= r0, P - L, P), L))
    for kind, q, param in maps:
        if _fits(whole, v, P, q):
            return _describe(kind, P, q, param, v, d, off, whole.pipe)
    return None


def _fits(whole: Whole, v: Variant, P: np.ndarray, q: np.ndarray) -> bool:
    """The whole table is ``v`` at positions ``q``; rows whose ``q`` is not finite hold NaN or
    infinity only.  Screened on the moved rows and a spread of the others first."""
    arr, n = whole.arr, whole.n
    fin = np.isfinite(q)
    moved = np.nonzero(q != P)[0]
    if not moved.size:
        return False
    keep = fin if whole.keep is None else (fin & whole.keep)
    sample = np.unique(np.concatenate([
        moved[np.linspace(0, moved.size - 1, min(moved.size, SCREEN)).astype(np.int64)],
        np.linspace(0, n - 1, min(n, SCREEN)).astype(np.int64)]))
    for rows in (sample, None):
        sub = arr if rows is None else np.asarray(arr[rows])
        qq = q if rows is None else q[rows]
        kk = keep if rows is None else keep[rows]
        gone = ~(fin if rows is None else fin[rows])
        if gone.any():
            bad = np.nonzero(gone)[0]
            for k0 in range(0, bad.size, 4096):
                blk = np.asarray(sub[bad[k0:k0 + 4096]], dtype=np.float64)
                if np.isfinite(blk).all(axis=1).any():
                    return False  # a row sent past the format's range holds numbers
        if not kk.any():
            return False
        c = compare(sub, np.where(fin if rows is None else fin[rows], qq, 0.0), v, whole.stored,
                    whole.pipe, keep=kk)
        if rows is not None:
            if level(c) is None:
                return False
        else:
            w2 = Whole(arr, np.where(fin, q, 0.0), True, whole.stored, whole.pipe, kk)
            return w2.level(v, c) is not None
    return False


def _describe(kind: str, P, q, param, v: Variant, d: int, v_off: float, pipe) -> PositionMap:
    moved = np.nonzero(q != P)[0]
    r0 = int(moved[0])
    p0, q0 = float(P[r0]), float(q[r0])
    gone = np.nonzero(~np.isfinite(q))[0]
    if kind.endswith("grid"):
        fmt = kind.split()[0]
        F = FLOAT16 if fmt == "float16" else BFLOAT16
        fin = moved[np.isfinite(q[moved])]
        steps = F.ulp(q[fin] + v_off) if fin.size else np.zeros(0)
        step = ((f" (steps of {_p(steps.min())}" + (
            f" .. {_p(steps.max())}" if steps.max() > steps.min() else "") + ")")
            if steps.size else "")
        at = "position" if not v_off else "position, offset included,"
        a0, b0 = p0 + v_off, q0 + v_off  # what was rounded: the position with its offset
        over = (f"{fmt} overflow: from row {int(gone[0])} ({at} {_p(P[gone[0]] + v_off)}) on the "
                f"position is infinite in {fmt} (largest finite number {F.max:.0f}) and the rows "
                "hold NaN") if gone.size else ""
        if pipe == F and gone.size:  # rounding the positions is the pipeline's own: in the model
            text = (f"{over}; the rows before hold the encoding at the positions rounded to "
                    f"{fmt}, within its error model (from row {r0} on{step})")
        else:
            text = (f"positions were rounded to {fmt} before the product (exact only up to "
                    f"{F.horizon}): from row {r0} on ({at} {_p(a0)} became {_p(b0)}) rows "
                    f"hold the encoding of their position rounded to {fmt}{step}"
                    + (f"; {over}" if over else ""))
    elif kind == "clipped":
        own = np.nonzero(P[:r0] == param)[0]  # the row whose own position it is
        r_c = int(own[-1]) if own.size and int(own[-1]) == r0 - 1 else r0
        count = int(moved[-1]) - r_c + 1
        text = (f"positions clipped at {_p(param)} from row {r0} on: rows {r_c} .. "
                f"{int(moved[-1])} ({count} rows) all hold the encoding of position "
                f"{_p(param)}; the rows before them fit {v.name(d)}")
    elif kind == "repeated":
        text = (f"the rows repeat with period {_p(param)} from row {r0} on: position p holds the "
                f"encoding of {_p(P[0])} + (p - {_p(P[0])}) mod {_p(param)} (a table of "
                f"{_p(param)} rows tiled?)")
    else:
        text = (f"from row {r0} on every row holds the encoding of the position {_p(param)} "
                f"before its own (position {_p(p0)} holds {_p(q0)}: a row inserted, or "
                f"positions shifted?)")
    return PositionMap(kind, r0, p0, q0, int(moved.size), text, param)


def unread_positions(head: np.ndarray, u: float) -> str | None:
    """For a table no variant was read from: when its finite rows are nevertheless sin/cos pairs
    of one amplitude (either pairing), what its rows show about their positions (runs of
    identical consecutive rows, rows of NaN from some row on), so that it is not taken for an
    uninitialised buffer; ``None`` when the rows are not such pairs."""
    n, d = head.shape
    fin = np.isfinite(head).all(axis=1)
    T = head[fin]
    if d < 2 or d % 2 or T.shape[0] < 2:
        return None
    h = d // 2
    tol = 64.0 * max(u, 2.0**-40)
    amp = None
    for a, b in ((T[:, 0::2], T[:, 1::2]), (T[:, :h], T[:, h:])):
        r2 = a * a + b * b
        med = float(np.median(r2))
        if med > 0 and float(np.abs(r2 / med - 1.0).max()) <= tol:
            amp = med ** 0.5
            break
    if amp is None:
        return None
    m = int(np.argmin(fin)) if not fin.all() else n  # the rows before the first NaN row
    same = np.all(head[1:m] == head[:m - 1], axis=1)
    starts = np.nonzero(np.r_[True, ~same])[0]
    runs = np.diff(np.r_[starts, m])
    bits = []
    if runs.size > 2 and np.median(runs[1:-1]) > 1:
        bits.append(f"consecutive rows repeat in runs of about {round(float(runs[1:-1].mean()))} "
                    "(positions on a coarser grid, such as a 16-bit format's)")
    if not fin.all():
        k = int(np.argmin(fin))
        bits.append(f"rows from row {k} on hold NaN or infinity" if not fin[k:].any() else
                    f"{int((~fin).sum())} rows hold NaN or infinity (first: row {k})")
    if not bits:  # no sign of other positions: the identification's own note says more
        return None
    return (f"the finite rows are sin/cos pairs of amplitude {amp:.6g} (a sinusoidal table), but "
            "not at positions 0 .. n-1 of a variant peproof reads: " + "; ".join(bits)
            + "; give the rows' positions (positions=..., --positions) or the expected offset")


def position_map(rep, whole: Whole) -> PositionMap | None:
    """The map of the positions under which the whole table of the check's report ``rep`` (a
    :class:`~peproof.oracle.sinusoidal.checking.Report`) is the expected variant, else the
    identified one, each from the first row known to depart from it at its own
    position: outside the error model, NaN or infinite, or equal to an earlier row."""
    if not rep.identified.confident:
        return None
    out = None
    for c in (rep.spec, rep.other):
        if c is None:
            continue
        first = []
        if c.row_index is not None and c.row_budget is not None and len(c.row_budget):
            over = np.nonzero(c.row_budget > 1.0)[0]
            if over.size:
                first.append(int(c.row_index[over[0]]))
        if rep.nonfinite:
            first.append(int(rep.nonfinite["first_row"]))
        rows = rep.collisions.get("first_rows") or []
        if len(rows) > 1:
            first.append(int(rows[1]))
        if not first:
            continue
        r0 = min(first)
        held = [float(whole.rows(c.variant)[rows[0]])] if r0 in rows[1:] else []
        out = explain(whole, c.variant, r0, held)
        if out is not None:
            out.variant = c.variant
            return out
    return out
