"""``check``: one table (or a callable producing it) against an expected variant, with a verdict.

Verdicts, one meaning each:

``conforms``
    Every entry is within one ulp of the exact value of the expected variant (certified).
``within the error model of its dtype``
    Every entry is within the proved error bound of computing the expected variant in the table's
    dtype by any recipe of the model's shape (:mod:`peproof.families.error_model`): the formula
    is right and the errors are the ones that dtype makes.  In a 16-bit pipeline, where one
    entry's bound lets its angle be anything beyond a few positions, the rows must moreover be
    one computation's: one frequency per pair, one position per row
    (:mod:`peproof.oracle.common.consistency`), so rows swapped, shifted or copied fail.
``different variant``
    Not the expected variant, but within the error model of another one, which is named.
``wrong``
    A confident identification (most entries fit a named variant) and entries outside every
    rounding model: the worst are listed and the defect is named where it can be.
``degenerate``
    Distinct positions give identical rows (the property the suite proves is lost); names the
    first colliding positions and the dtype's horizon.  ``allow_collisions`` keeps the verdict
    the rest of the check gives.
``outside the model``
    Not a table peproof can express; says what it saw.

All-zero rows among the first three rows are padding rows: named and left out.  Exit codes of
the command line: 0 for the first two, 1 for the others (2 is for bad input).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from peproof.encoding import Encoding
from peproof.formats import Format, get_format

from ..common.consistency import applies
from ..common.rowscan import RowScan, horizon
from ..common.tables import InputError, as_table, call_table
from ..common.verdicts import (
    CODES,
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    VARIANT,
    WITHIN,
    WRONG,
)
from .advice import also_fitting, pipeline_unsupported
from .compare import Comparison, compare
from .identification import (
    Identification,
    detect_format,
    identify,
    name_expected,
    padding_rows,
    prefer_expected,
)
from .posmap import PositionMap, position_map
from .reread import reread
from .variant import Variant, describe_difference
from .whole import Whole, rows_at


@dataclass
class Report:
    """The result of :func:`check`; ``to_json()`` is the versioned envelope."""

    verdict: str
    d: int
    n: int
    stored: Format
    dtype: Format
    pipe: Format
    expected: Variant | None
    identified: Identification
    spec: Comparison | None
    other: Comparison | None = None
    collisions: dict = field(default_factory=dict)
    horizon: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)
    reasons: list = field(default_factory=list)
    diagnoses: list = field(default_factory=list)
    padding: list = field(default_factory=list)
    nonfinite: dict = field(default_factory=dict)
    allow_collisions: bool = False
    explained_by: Variant | None = None
    position_map: PositionMap | None = None
    seconds: float = 0.0
    expected_by_default: bool = False  # the default expectation (the paper's): none stated

    @property
    def code(self) -> str:
        return CODES[self.verdict]

    @property
    def ok(self) -> bool:
        return self.verdict in (CONFORMS, WITHIN)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def counted(self) -> Comparison | None:
        """The comparison the headline counts come from: against the identified variant when it
        differs from the expected one and the verdict rests on it."""
        if self.other is not None and self.verdict in (VARIANT, WRONG, DEGENERATE):
            if self.identified.confident:
                return self.other
        return self.spec

    @property
    def headline(self) -> str:
        name = self.identified.name if self.identified.variant is not None else None
        if self.verdict == VARIANT:
            head = f"{VARIANT}: {name}"
        elif self.verdict == WRONG and self.explained_by is not None:
            head = f"{WRONG} ({self.explained_by.name(self.d)})"
        elif self.verdict == WRONG and name:
            head = f"{WRONG} ({name})"
        elif self.verdict == OUTSIDE:
            head = f"{OUTSIDE}: " + (self.diagnoses[0] if self.diagnoses else
                                     "; ".join(self.identified.notes[:1]))
        else:
            head = self.verdict
        if self.padding:
            head += "; " + _padding_text(self.padding)
        return head

    def to_json(self) -> dict:
        from .report import envelope

        return envelope(self)

    def render(self, worst: int = 5, full: bool = True) -> str:
        from .report import render

        return render(self, worst, full)

    def __str__(self) -> str:
        return self.render()


def _padding_text(rows: list[int]) -> str:
    which = ", ".join(str(r) for r in rows)
    return (f"row{'s' if len(rows) > 1 else ''} {which} all zeros: padding "
            f"row{'s' if len(rows) > 1 else ''}, left out")


def parse_expect(expect="paper", *, base=10000, layout="interleaved", offset=0, scale=1,
                 max_freq=1, min_freq=None, turns=False, order="forward") -> Variant | None:
    """The expected variant; ``expect="any"`` accepts whatever :func:`identify` finds.
    ``min_freq`` (with ``max_freq``) gives the base as ``max_freq / min_freq``."""
    if isinstance(expect, Variant):
        return expect
    if expect in (None, "any", "identified"):
        return None
    if min_freq is not None:
        from fractions import Fraction

        from .variant import _exact_number

        lo = Fraction(_exact_number(min_freq, "min_freq"))
        if lo <= 0:
            from .variant import ParameterError

            raise ParameterError(f"min_freq must be a number > 0, got {min_freq!r}")
        base = Fraction(_exact_number(max_freq, "max_freq")) / lo
    return Variant(expect, base, layout, offset, scale, max_freq=max_freq, turns=turns,
                   order=order)


def check(table_or_callable, *, d: int | None = None, n: int | None = None, positions=None,
          expect="paper", base=10000, layout="interleaved", offset=0, scale=1, max_freq=1,
          min_freq=None, turns=False, order="forward", dtype=None, pipeline_dtype=None,
          allow_collisions: bool = False, progress=None, source: dict | None = None,
          variant=None) -> Report:
    """Check a table (``n x d``) or a callable ``f(n, d)`` against the expected variant.

    ``variant`` is the expected variant as one object, in place of ``expect`` and its keyword
    arguments: an :class:`~peproof.encoding.Encoding` (its ``d`` is the width, as ``d=``), what
    ``peproof prove --variant`` parses (:func:`peproof.variant.parse`, holding one), or a
    :class:`Variant`.

    ``positions`` gives the position of every row (default: the rows' order of the variant,
    ``0 .. n-1`` forward; an offset of the variant is added to them).  ``dtype`` overrides the
    detected format of the values and ``pipeline_dtype`` the format the table was computed in
    (default: the same).  ``allow_collisions`` accepts identical rows at distinct positions.
    """
    if variant is not None:
        expect, vd = _expected_of(variant)
        d = vd if d is None else d
    with np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore"):
        # NaN payloads, overflowing casts of a broken table: judged, not warned about
        args = (table_or_callable, d, n, positions, expect, base, layout, offset, scale,
                max_freq, min_freq, turns, order, dtype)
        rep = _check(*args, pipeline_dtype, allow_collisions, progress, source)
        v = rep.expected if rep.expected is not None else rep.identified.variant
        why = None
        if rep.ok and v is not None and rep.pipe.p < rep.dtype.p and \
                hasattr(table_or_callable, "shape"):
            rows = rows_at(v, _positions(positions, rep.n), positions is not None, rep.n)
            why = pipeline_unsupported(as_table(table_or_callable, rep.d), rows, v, rep.dtype,
                                       rep.pipe)
        if why is None:
            return rep
        # a narrower pipeline the values do not show is a hypothesis the table refutes: judged
        # in its own dtype, and said so
        rep = _check(*args, None, allow_collisions, progress, source)
        rep.reasons.insert(0, f"pipeline_dtype='{pipeline_dtype}' set aside: {why}")
        return rep


def _expected_of(variant) -> tuple[Variant, int | None]:
    """``(Variant, d)`` of the ``variant=`` argument of :func:`check`."""
    if isinstance(variant, Variant):
        return variant, None
    enc = getattr(variant, "enc", variant)
    if not isinstance(enc, Encoding):
        raise InputError(f"variant must be an Encoding, a Variant or a parsed --variant SPEC, "
                         f"got {type(variant).__name__}")
    return Variant(enc.family, enc._base, enc.layout, enc._offset, enc._scale,
                   max_freq=enc._max_freq, turns=bool(enc.turns)), enc.d


def _check(table_or_callable, d, n, positions, expect, base, layout, offset, scale, max_freq,
           min_freq, turns, order, dtype, pipeline_dtype, allow_collisions, progress,
           source) -> Report:
    t0 = time.perf_counter()
    obj = table_or_callable
    if callable(obj) and not hasattr(obj, "shape"):
        obj = call_table(obj, 2048 if n is None else n, d)
    arr = as_table(obj, d)
    n_rows, width = arr.shape
    given = positions is not None
    pos = _positions(positions, n_rows)
    want = parse_expect(expect, base=base, layout=layout, offset=offset, scale=scale,
                        max_freq=max_freq, min_freq=min_freq, turns=turns, order=order)
    if want is not None and want.family == "h-1" and width < 4:
        raise InputError("the h-1 family needs d >= 4")
    if want is not None:
        want.encoding(width)  # parameters valid at this d (bad input, not a verdict)
    st, eff = detect_format(arr, np.arange(min(n_rows, 256)),
                            get_format(dtype) if dtype is not None else None)
    pipe = get_format(pipeline_dtype) if pipeline_dtype is not None else (
        eff if eff.is_binary else get_format("float64"))
    pad = padding_rows(arr)
    keep = None
    if pad:
        keep = np.ones(n_rows, bool)
        keep[pad] = False
    ident = identify(arr, pos if given else None, dtype=eff.name, pipeline_dtype=pipe.name)
    ident = reread(arr, pos, given, ident, eff, pipe,
                   float(want.offset) if want is not None else 0.0) or ident
    whole = Whole(arr, pos, given, eff, pipe, keep)
    scan = RowScan(width, keep)
    iv = ident.variant
    target = want if want is not None else iv
    spec = other = None
    if target is not None:
        spec = compare(arr, whole.rows(target), target, eff, pipe, progress=progress,
                       row_hook=scan.add, keep=keep)
    else:
        for k0 in range(0, n_rows, 4096):  # still scan the rows for collisions and NaN
            scan.add(k0, np.asarray(arr[k0:k0 + 4096], dtype=np.float64))
    level = whole.level(target, spec) if spec is not None else None
    if level is not None and want is not None and iv is not None and not iv.same_as(want, width):
        # the expected variant fits: whatever else fits too, the table is the one expected
        ident.notes.append(f"also within the error model: {iv.name(width)}")
        iv = name_expected(ident, want, eff.name, spec)
    if level is None and iv is not None and want is not None and not iv.same_as(want, width):
        other = compare(arr, whole.rows(iv), iv, eff, pipe, keep=keep)
    o_level = whole.level(iv, other) if other is not None else None
    if level is None and o_level is None and iv is not None and ident.confident:
        # before "wrong": the further candidates that fit the examined rows, simplest first, then
        # the named variant with its offset moved a little (a 16-bit format blurs the rows an
        # offset is read from), each on the whole table
        alt = whole.first_fitting(c for c in ident.candidates
                                  if want is None or not c.same_as(want, width))
        note = "the simplest variant that fits every row"
        if alt is None:
            alt = whole.nearby_offset(iv, want)
            note = "offset read again from the whole table"
        if alt is not None:
            iv, cmp2, lvl2 = alt
            ident.variant = iv.with_(dtype=eff.name)
            ident.notes.append(f"{note}: {iv.name(width)}")
            if want is not None and iv.same_as(want, width):
                spec, level = cmp2, lvl2
            else:
                other, o_level = cmp2, lvl2
                if want is None:
                    spec, level = cmp2, lvl2
    if level is None and o_level is not None and want is not None:
        # name only the differences the table shows: those the error model explains go back
        back = whole.toward(iv, want, width)
        if back is not None:
            iv, other, o_level = back
            ident.variant = iv.with_(dtype=eff.name)
            ident.notes.append("named with the expected parameters wherever the whole table "
                               "fits them")
    tied = whole.tied
    if level is not None:
        verdict = level
    elif o_level is not None:
        verdict = VARIANT
    elif ident.confident:
        verdict = WRONG
    else:
        verdict = OUTSIDE
    if verdict == WRONG and prefer_expected(ident, want, eff.name, spec, other, width):
        iv, other = ident.variant, None  # the other variant fits no better (a note says so)
    collisions = scan.collisions(arr, whole.rows(target)
                                 if target is not None else pos)
    reasons: list[str] = []
    if collisions.get("identical_row_groups"):
        if allow_collisions:
            reasons.append("identical rows at distinct positions accepted (allow_collisions)")
        elif verdict in (CONFORMS, WITHIN, VARIANT):
            verdict = DEGENERATE
    rep = Report(verdict, width, n_rows, st, eff, pipe, want, ident, spec, other,
                 collisions=collisions, horizon=horizon(whole.rows(target)
                                                          if target is not None else pos,
                                                          pipe, spec),
                 source=source or {}, reasons=reasons, padding=pad,
                 nonfinite=scan.nonfinite_info(pos), allow_collisions=allow_collisions)
    if rep.verdict == WRONG:
        pm = rep.position_map = position_map(rep, whole)
        if pm is not None:
            rep.explained_by = pm.variant
            if want is not None and pm.variant.same_as(want, width):
                ident.variant = want.with_(dtype=eff.name)  # the expected, at other positions
                rep.other = None  # the counts are against it
    from .diagnose import diagnose

    rep.diagnoses = diagnose(rep, arr, pos, given)
    if rep.verdict in (WRONG, OUTSIDE) and rep.position_map is None and \
            rep.explained_by is None and (rep.verdict == OUTSIDE or not rep.diagnoses):
        # nothing more specific: the expected (else the identified) variant computed in a
        # narrower pipeline than the table's dtype, the whole table within that model
        v = want if want is not None else (iv if ident.confident else None)
        fmt = whole.narrower(v) if v is not None else None
        if fmt is not None:
            rep.verdict, rep.explained_by = WRONG, v
            rep.diagnoses = [
                f"every entry is within the error model of a {fmt.name} pipeline (angles, "
                f"positions or frequencies computed in {fmt.name}, the result stored as "
                f"{eff.name}): pipeline_dtype='{fmt.name}' (--pipeline-dtype {fmt.name}) "
                "accepts that"]
    if tied and rep.verdict not in (CONFORMS, WITHIN, VARIANT) and rep.position_map is None:
        rep.diagnoses.insert(0, tied[0])
    if rep.explained_by is not None and rep.verdict == OUTSIDE:
        rep.verdict = WRONG  # the expected variant, computed with a mistake diagnose named
    if rep.verdict == OUTSIDE and collisions.get("distinct_rows") == 1 and n_rows > 1:
        rep.verdict = DEGENERATE  # every row the same vector
    rep.reasons += _reasons(rep)
    if rep.verdict in (CONFORMS, WITHIN, VARIANT, DEGENERATE) and ident.variant is not None:
        ident.indistinguishable = also_fitting(whole, ident, width)
    rep.seconds = time.perf_counter() - t0
    return rep


def _reasons(rep: Report) -> list[str]:
    out = []
    want, iv, d = rep.expected, rep.identified.variant, rep.d
    if rep.verdict in (VARIANT, WRONG, DEGENERATE) and want is not None and iv is not None \
            and not iv.same_as(want, d) and rep.identified.confident:
        out.append("differs from the expectation in " + describe_difference(want, iv, d))
    c = rep.counted
    if c is not None and rep.verdict in (WRONG, DEGENERATE, VARIANT) and c.over_budget:
        out.append(f"{c.over_budget} of {c.entries} entries are outside the error model of "
                   f"{rep.pipe.name} (against {'the identified' if c is rep.other else 'the'}"
                   " variant)")
    for cmp_ in (rep.spec, rep.other):
        if cmp_ is not None and cmp_.vacuous and rep.verdict in (WITHIN, VARIANT, DEGENERATE):
            out.append(f"{cmp_.vacuous} entries, from position {_p(cmp_.first_vacuous_pos)} on, "
                       f"are beyond the reach of {rep.pipe.name}: a computation in it may "
                       "return any value there, so on their own they constrain nothing"
                       + (" (the rows are still tied together: one frequency per pair, one "
                          "position per row)" if applies(rep.pipe) else ""))
            break
    col = rep.collisions
    if col.get("identical_row_groups") and rep.verdict != DEGENERATE:
        ex = col["examples"][0]
        out.append(f"{col['identical_row_groups']} groups of identical rows "
                   f"({col['rows_in_collisions']} rows); first: positions "
                   f"{', '.join(map(str, ex))}; {rep.pipe.name} holds integer positions exactly "
                   f"up to {rep.pipe.horizon}")
    return out


def _positions(positions, n: int) -> np.ndarray:
    if positions is None:
        return np.arange(n, dtype=np.float64)
    p = np.asarray(positions)
    if p.dtype == object or p.dtype.kind not in "iuf" or p.ndim != 1:
        raise InputError("positions must be a 1-D array of numbers")
    if p.shape[0] != n:
        raise InputError(f"{p.shape[0]} positions for a table of {n} rows")
    p = p.astype(np.float64)
    if not np.isfinite(p).all() or (np.abs(p) > 2.0**53).any():
        raise InputError("positions must be finite and at most 2**53 in size")
    return p


def _p(x: float):
    return int(x) if float(x).is_integer() else float(x)


def assert_sinusoidal(table, expect="paper", layout="interleaved", *, base=10000, offset=0,
                      scale=1, allow_rounding: bool = True, worst: int = 3, **kw) -> Report:
    """Assert that ``table`` is the expected sinusoidal encoding (for other projects' tests).

    Passes on ``conforms`` and, unless ``allow_rounding=False``, on ``within the error model of
    its dtype``; otherwise raises ``AssertionError`` with a short message: the verdict, the
    diagnosis, the worst entries and how to see more.  Its frames are hidden from pytest's
    traceback.
    """
    __tracebackhide__ = True
    rep = check(table, expect=expect, layout=layout, base=base, offset=offset, scale=scale, **kw)
    good = rep.verdict == CONFORMS or (allow_rounding and rep.verdict == WITHIN)
    if not good:
        raise AssertionError(rep.render(worst, full=False))
    return rep
