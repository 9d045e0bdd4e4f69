"""Identification again, from rows that can be trusted, when the whole table names nothing well.

:func:`~.identification.identify` reads the variant from the first rows and a spread over the
table.  When most of those rows hold other positions' encodings (positions clipped at row 87 of
600, every row of a slice near 65000 on float16's grid), what it reads is an invented variant or
nothing ("outside the model", "random initialisation").  :func:`reread` reads the table again:

1. from a **trustworthy prefix**: the rows before the first row that repeats an earlier row bit for
   bit or holds NaN or infinity (distinct positions never give identical rows of a sinusoidal
   table within its format's horizon), and, when no such row shows where the trouble starts, the
   first half and the first quarter of the rows;
2. at the positions **rounded to a 16-bit format** (float16, bfloat16; with the expected
   variant's offset added first), up to the first that overflows it: the rows of a table whose
   positions were cast before the product are the encoding at those positions.

A reading is kept when the variant it names fits every row it examined within the error model
and is confident, and it fits a larger share of its rows than the first reading.  What the rest
of the table holds is then explained by :mod:`.posmap`; the verdict still rests on the whole
table at its own positions (:mod:`.checking`), so a second reading can name, never excuse.
"""

from __future__ import annotations

import numpy as np

from peproof.formats import BFLOAT16, FLOAT16, Format

from .identification import Identification, identify

MIN_ROWS = 16
CHUNK = 4096


def first_repeat_or_nonfinite(arr, limit: int | None = None) -> int | None:
    """The first row that holds NaN or infinity or equals an earlier row bit for bit (``None``
    when there is none among the first ``limit`` rows)."""
    n, d = arr.shape
    limit = n if limit is None else min(n, limit)
    rng = np.random.default_rng(12345)
    w = rng.integers(0, 2**63, d, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    seen: dict[int, int] = {}
    for k0 in range(0, limit, CHUNK):
        t = np.ascontiguousarray(np.asarray(arr[k0:min(k0 + CHUNK, limit)], dtype=np.float64))
        bad = ~np.isfinite(t).all(axis=1)
        with np.errstate(over="ignore"):
            f = (t.view(np.uint64) * w).sum(axis=1, dtype=np.uint64)
        stop = int(np.argmax(bad)) if bad.any() else t.shape[0]
        for j in range(stop):
            key = int(f[j])
            r = seen.get(key)
            if r is not None and np.array_equal(np.asarray(arr[r]), np.asarray(arr[k0 + j])):
                return k0 + j
            seen.setdefault(key, k0 + j)
        if stop < t.shape[0]:
            return k0 + stop
    return None


def _better(alt: Identification, ident: Identification, forward_only: bool) -> bool:
    if alt.variant is None or not (alt.confident and alt.fits):
        return False
    if forward_only and alt.variant.order != "forward":
        return False
    return ident.variant is None or not ident.fits or (
        alt.entries_within_budget > ident.entries_within_budget)


def reread(arr, pos: np.ndarray, given: bool, ident: Identification, stored: Format,
           pipe: Format, offset: float = 0.0) -> Identification | None:
    """A better identification (see the module's text), or ``None``; ``offset`` is the expected
    variant's (the positions rounded are ``pos + offset``)."""
    if ident.variant is not None and ident.confident and ident.fits:
        return None
    n = arr.shape[0]
    kw = {"dtype": stored.name, "pipeline_dtype": pipe.name}
    ends = []
    r = first_repeat_or_nonfinite(arr)
    if r is not None and r >= MIN_ROWS:
        ends.append((r, f"read from rows 0 .. {r - 1}, before the first row that repeats an "
                        "earlier one or is not finite"))
    elif r is None:
        ends += [(n // 2, "read from the first half of the rows"),
                 (n // 4, "read from the first quarter of the rows")]
    best = None
    for m, note in ends:
        if m < MIN_ROWS or m >= n:
            continue
        alt = identify(arr[:m], pos[:m] if given else None, **kw)
        if _better(alt, best or ident, not given):
            alt.notes.append(note)
            best = alt
            break
    for fmt in (FLOAT16, BFLOAT16):
        if fmt.p > pipe.p:  # positions of a wider pipeline rounded to a narrower format
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            q = fmt.round(pos + offset)  # read as positions, the offset in them
        if np.array_equal(q, pos):
            continue
        fin = np.isfinite(q)
        m = int(np.argmin(fin)) if not fin.all() else n
        if m < MIN_ROWS or not fin[:m].all():
            continue
        alt = identify(arr[:m], q[:m], **kw)
        if _better(alt, best or ident, False):
            alt.notes.append(f"read at the positions rounded to {fmt.name}")
            best = alt
    return best
