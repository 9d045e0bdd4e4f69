"""Name the variant a table implements: family, base and frequency scale, layout, offset, scale,
row order and dtype.

Implementation notes.  Everything is estimated from the table, then confirmed against references
built by :class:`~peproof.encoding.Encoding`:

1. *Rows.*  Rows holding NaN or infinity and all-zero rows are left out of the estimate (zero
   rows among the first three are padding rows, named by :func:`padding_rows`); a table equal to
   its own reversal is a symmetric relative-position table (rows at ``|k - (n-1)/2|``).
2. *Pairing and scale.*  Sine and cosine of one frequency satisfy ``a**2 + b**2 = scale**2`` on
   every row; the pairing (channels ``2i, 2i+1`` or ``i, i+d/2``) with the flattest ``a**2+b**2``
   wins and its median gives the scale.
3. *Frequencies and orientation.*  The phase ``atan2(a, b)`` advances by ``omega_i`` per unit of
   position, read on the rows the dtype resolves; a phase that falls is a cosine-first layout or
   sines at positions listed in reverse: both readings are kept as hypotheses.
4. *Family, base, frequency scale.*  ``ln omega_i`` is linear in ``i``: the slope gives the base
   of the paper and h-1 families (``+ln 2`` is nerf), the intercept the first frequency
   (``max_freq``, possibly in full turns ``2 pi``); round numbers near each are candidates.
5. *Offset.*  The phase left after removing ``omega_i * pos`` is ``offset * omega_i (mod 2 pi)``,
   read slow pair first.
6. *Selection* (:mod:`.choice`).  Every candidate is compared with its reference within the proved
   error model of the table's dtype (:mod:`peproof.oracle.common.budget`); the simplest
   (:mod:`.simplicity`) of those every examined entry of which is within the bound is named, however
   much closer another fits.  When none fits everywhere, candidates are ranked by the fraction of
   *entries* within the bound (a broken pair or row does not hide the variant of the rest), then the
   simplest is named; exactly equal variants are reported as equivalent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from peproof.encoding import row_positions
from peproof.formats import Format, format_of_dtype, narrowest_exact

from ..common.exact import Plan
from ..common.tables import as_table
from .choice import candidates, rank, select
from .estimate import base_candidates, estimate, hypotheses, scale_candidates
from .variant import LAYOUT_NAMES, Variant

EST_ROWS = 384
EVAL_ROWS = 128
CONFIDENT = 0.5  # fraction of entries within the bound for a confident identification


@dataclass
class Identification:
    """The outcome of :func:`identify`: a variant (or ``None``) and the residual behind it."""

    variant: Variant | None
    d: int
    dtype: str
    stored_dtype: str
    rows_examined: int = 0
    residual_abs: float = float("nan")
    residual_ulp: float = float("nan")
    budget_ratio: float = float("nan")
    rows_within_budget: float = 0.0
    entries_within_budget: float = 0.0
    equivalent: list = field(default_factory=list)
    alternatives: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    estimates: dict = field(default_factory=dict)
    left_out_rows: list = field(default_factory=list)
    candidates: list = field(default_factory=list)  # further variants that fit, simplest first
    #: other variants the whole table fits within the error model as well (checked by
    #: :func:`peproof.oracle.sinusoidal.checking.check`): the table cannot tell them apart
    indistinguishable: list = field(default_factory=list)

    @property
    def fits(self) -> bool:
        """Every examined entry is within the error model of the dtype."""
        return self.variant is not None and self.budget_ratio <= 1.0

    #: set when the expected variant is named in place of the one read (:func:`name_expected`):
    #: whether that reading was confident
    read_confidently: bool | None = None

    @property
    def confident(self) -> bool:
        """Most examined entries fit the named variant: what does not is a defect of the table,
        not a doubt about the variant (or, the expected variant named in place of the one
        read, that reading was confident)."""
        if self.read_confidently is not None:
            return self.variant is not None and self.read_confidently
        return self.variant is not None and self.entries_within_budget >= CONFIDENT

    @property
    def name(self) -> str:
        if self.variant is None:
            return "unidentified (" + "; ".join(self.notes[:1]) + ")"
        return self.variant.name(self.d)

    def to_json(self) -> dict:
        return {
            "variant": self.variant.to_json(self.d) if self.variant else None,
            "name": self.name, "dtype": self.dtype, "stored_dtype": self.stored_dtype,
            "fits_within_rounding": self.fits, "confident": self.confident,
            "rows_examined": self.rows_examined,
            "residual": {"max_abs": _f(self.residual_abs), "max_ulp": _f(self.residual_ulp),
                         "max_budget_ratio": _f(self.budget_ratio),
                         "rows_within_budget": self.rows_within_budget,
                         "entries_within_budget": self.entries_within_budget},
            "equivalent": self.equivalent, "alternatives": self.alternatives,
            "indistinguishable_from": self.indistinguishable,
            "notes": self.notes, "estimates": self.estimates,
            "left_out_rows": self.left_out_rows[:20],
        }


def _f(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def sample_rows(n: int, positions: np.ndarray, horizon: int) -> np.ndarray:
    """Rows used for estimation: the first ``EST_ROWS``, then a spread within the horizon."""
    first = np.arange(min(n, EST_ROWS))
    if n <= EST_ROWS:
        return first
    rest = np.unique(np.linspace(EST_ROWS, n - 1, EVAL_ROWS).astype(np.int64))
    rest = rest[np.abs(positions[rest]) < horizon]
    return np.concatenate([first, rest])


def detect_format(table, rows: np.ndarray, stored: Format | None = None) -> tuple[Format, Format]:
    """(stored format, effective format): values of a narrower format stored wider count as it."""
    st = stored or format_of_dtype(table.dtype)
    if st is None:
        raise ValueError(f"unsupported dtype {table.dtype}")
    sample = np.asarray(table[rows], dtype=np.float64)
    sample = sample[np.isfinite(sample).all(axis=1)]
    return st, narrowest_exact(sample, st)


def padding_rows(table) -> list[int]:
    """All-zero rows among the first three rows (fairseq and the models derived from it zero the
    row of ``padding_idx``, 0 or 1): never a row of the encoding, whose pairs have norm
    ``scale``; at most two."""
    head = np.asarray(table[:3], dtype=np.float64)
    rows = [int(k) for k in range(head.shape[0]) if not head[k].any()]
    return rows if 0 < len(rows) <= 2 and len(rows) < table.shape[0] - 1 else []


def is_symmetric(table, rows: np.ndarray) -> bool:
    """Whether row ``k`` equals row ``n-1-k`` (bit for bit) on the sampled rows."""
    n = table.shape[0]
    if n < 5:
        return False
    a = np.asarray(table[rows])
    b = np.asarray(table[(n - 1) - rows])
    # not one row repeated (a constant table); rows 0 and 1 may be equal: a 16-bit format
    # rounds the large positions |k - c| of a table computed in it to one number
    return bool(np.array_equal(a, b)) and bool((a != a[:1]).any())


def name_expected(ident: Identification, want: Variant, dtype: str, spec) -> Variant:
    """Name the expected variant as the identified one, with the residual figures of the
    whole-table comparison ``spec`` against it (the figures of the variant found first are not
    its); whether the table was read confidently is not changed."""
    confident = ident.confident
    ident.variant, ident.equivalent = want.with_(dtype=dtype), []
    if spec.entries:
        ident.rows_examined = spec.rows
        ident.residual_abs, ident.residual_ulp = spec.max_abs, spec.max_ulp
        ident.budget_ratio = spec.max_budget_ratio
        ident.entries_within_budget = 1.0 - spec.over_budget / spec.entries
    ident.read_confidently = confident
    return ident.variant


def prefer_expected(ident: Identification, want, dtype: str, spec, other, d: int) -> bool:
    """A table that is no one computation of the expected variant nor of the identified one
    (verdict wrong): when the identified one leaves no fewer entries outside the error model
    (``other`` against ``spec``), nothing in the table speaks for it -- a 16-bit table with two
    rows swapped fits a simpler family as loosely as its own -- and the expected variant is
    named (:func:`name_expected`), the other in a note."""
    if spec is None or other is None or want is None or other.over_budget < spec.over_budget:
        return False
    ident.notes.append(f"as close, with no fewer entries outside the error model "
                       f"({other.over_budget} against {spec.over_budget}): "
                       f"{ident.variant.name(d)}")
    name_expected(ident, want, dtype, spec)
    return True


def identify(table, positions=None, *, dtype=None, pipeline_dtype=None) -> Identification:
    """Identify the variant of ``table`` (``n x d``) whose row ``k`` is at ``positions[k]``.

    Without ``positions`` the rows may be in forward (``0..n-1``), reversed or symmetric order,
    which is identified too.  ``dtype`` overrides the detected format of the values (e.g.
    ``"float32"`` for a CSV file); ``pipeline_dtype`` the format the table was computed in
    (default: the same).
    """
    with np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore"):
        ident = _identify(table, positions, dtype, pipeline_dtype)
        if positions is None and ident.variant is not None and ident.variant.order in (
                "reversed", "symmetric"):
            ident = _from_the_small_positions(table, ident, dtype, pipeline_dtype)
        return ident


def _from_the_small_positions(table, ident: Identification, dtype, pipeline_dtype
                              ) -> Identification:
    """Rows in reversed or symmetric order: the variant read again from the rows of small
    positions, which a 16-bit format resolves.  :func:`sample_rows` takes the first rows, which
    there hold the largest positions (in bfloat16, a table of positions 2047 .. 0 computed in it
    holds multiples of 8 there), so what is read from them may miss the offset.  Reversed: row
    ``n-1`` is at ``offset``, row 0 at ``n-1+offset``; the table read backwards is in forward
    order with the same offset.  Symmetric ``|k - c| + offset``: rows ``j0 = ceil(c)`` on are in
    forward order with offset ``offset + j0 - c``.  The second reading is kept when it is
    confident and at least as good."""
    from peproof.formats import get_format

    n = table.shape[0]
    pipe = get_format(pipeline_dtype or ident.dtype)
    v = ident.variant
    o = float(v.offset)
    if n <= EST_ROWS or not pipe.is_binary or n <= pipe.horizon:
        return ident  # every position resolved
    if v.order == "reversed":
        if abs(o) >= abs(n - 1 + o):
            return ident  # the small positions are the first rows
        sub, back = np.asarray(table)[::-1], (lambda r: n - 1 - r)
        shift = Fraction(0)
    else:
        c = Fraction(n - 1, 2)
        j0 = math.ceil(c)
        sub, back = np.asarray(table)[j0:], (lambda r: r + j0)
        shift = j0 - c
    alt = _identify(sub, None, dtype, pipeline_dtype)
    if alt.variant is None or alt.variant.order != "forward" or not alt.confident or (
            alt.entries_within_budget < ident.entries_within_budget):
        return ident
    alt.variant = alt.variant.with_(order=v.order, offset=Fraction(alt.variant.offset) - shift)
    alt.left_out_rows = [back(r) for r in alt.left_out_rows]
    alt.notes.append("read from the rows of small positions (" + v.order + " order)")
    return alt


def _identify(table, positions, dtype, pipeline_dtype) -> Identification:
    from peproof.formats import get_format

    table = as_table(table) if not isinstance(table, np.ndarray) or table.ndim != 2 else table
    n, d = table.shape
    given = positions is not None
    positions = np.arange(n, dtype=np.float64) if positions is None else np.asarray(
        positions, dtype=np.float64)
    stored_fmt = get_format(dtype) if dtype is not None else None
    rows0 = np.arange(min(n, EST_ROWS))
    st, eff = detect_format(table, rows0, stored_fmt)
    pipe = get_format(pipeline_dtype) if pipeline_dtype is not None else (
        eff if eff.is_binary else get_format("float64"))
    rows = sample_rows(n, positions, pipe.horizon)
    T = np.asarray(table[rows], dtype=np.float64)
    good = np.isfinite(T).all(axis=1) & T.any(axis=1)
    ident = Identification(None, d, eff.name, st.name, rows_examined=int(good.sum()))
    ident.left_out_rows = [int(r) for r in rows[~good]]
    rows, T = rows[good], T[good]
    orders = ["forward"]
    if not given and is_symmetric(table, sample_rows(n, positions, 2**62)):
        orders = ["symmetric"]
    P = row_positions(n, orders[0])[rows] if not given else positions[rows]
    if d % 2:
        ident.notes.append(f"odd width d={d}: sin/cos pairs need an even number of channels")
        return ident
    if len(rows) < 2 or np.ptp(P) == 0:
        if len(rows) >= 2 or not ident.left_out_rows:
            ident.notes.append("need at least two rows at different positions to read "
                               "frequencies")
        else:
            left = np.asarray(table[np.array(ident.left_out_rows[:64])], dtype=np.float64)
            ident.notes.append("every examined row is all zeros (an unfilled buffer?)"
                               if not np.nan_to_num(left, nan=1.0).any() else
                               "fewer than two rows are finite and non-zero")
        return ident
    est = estimate(T, P, eff, ident)
    if est is None:
        return ident
    hyps = hypotheses(est, d, P, given or orders[0] == "symmetric")
    for h in hyps:
        if h["order"] != "forward" or orders[0] == "symmetric":
            h["order"] = h["order"] if h["order"] != "forward" else orders[0]
            h["P"] = row_positions(n, h["order"])[rows]
    cos_first_interleaved = est["sign"] < 0 and est["pairing"] == "interleaved" and d > 2
    if hyps:
        _choose(ident, rows, T, est, hyps, eff, pipe)
    if cos_first_interleaved and not ident.confident:
        ident.variant = None
        ident.notes.insert(0, "interleaved pairs with the cosine first (channel 2i is cos): not "
                              "a layout of peproof.encoding")
    return ident


# ----------------------------------------------------------------------------- choice
def _choose(ident: Identification, rows, T, est, hyps, stored, pipe) -> None:
    """Name the simplest candidate that fits every examined entry (:mod:`.choice`), else the
    simplest of the best-ranked; fill in its fit, equivalents and alternatives."""
    d = T.shape[1]
    sub = np.arange(min(len(rows), 128))
    if len(rows) > 128:
        sub = np.concatenate([sub, np.linspace(128, len(rows) - 1, 128).astype(np.int64)])
    if not base_candidates(est, d):
        ident.notes.append("no frequency family fits the phases")
        return
    scales = scale_candidates(est["scale"], d)
    scored = candidates(est, hyps, d, T[sub], sub, stored, pipe)
    if not scored:
        ident.notes.append("no candidate variant could be built")
        return
    chosen = select(scored, scales, T, sub, stored, pipe)
    if chosen is not None:
        best, P, fit, kept = chosen
        ident.candidates = kept
        others = [(None, v) for v in kept]
    else:
        best, P, fit, ok = rank(scored, scales, T, sub, stored, pipe)
        others = ok
    ident.variant = best.with_(dtype=stored.name)
    (ident.entries_within_budget, _, ident.budget_ratio, ident.residual_abs,
     ident.rows_within_budget, _) = fit
    plan = Plan(best.encoding(d))
    vals = plan.refine_rows(P)[0] if stored.is_binary and stored.p > 40 else plan.values(P)
    with np.errstate(over="ignore", divide="ignore"):
        ident.residual_ulp = float((np.abs(T - vals) / stored.ulp(vals)).max())
    for score, v in others:  # as well supported by the data as the one named
        if v == best or v.name(d) == best.name(d):
            continue
        if v.same_as(best, d):
            ident.equivalent.append(v.name(d))
        else:
            ident.alternatives.append({"name": v.name(d), "rms_error": score[1] if score else
                                       None, "max_budget_ratio": score[2] if score else None})
    ident.equivalent = sorted(set(ident.equivalent))
    ident.alternatives = ident.alternatives[:5]
    if "note" in est:
        ident.notes.append(est["note"])
    if not ident.fits:
        ident.notes.append(f"closest variant does not fit within the error model of "
                           f"{stored.name} ({100 * ident.entries_within_budget:.1f}% of the "
                           f"examined entries do; max ratio to the bound "
                           f"{ident.budget_ratio:.3g})")
    ident.estimates["layout"] = LAYOUT_NAMES[best.layout]
