"""``check``: one table (or a callable producing it) against an expected variant, with a verdict.

Verdicts, from best to worst:

``conforms``
    Every entry is within one ulp of the exact value of the expected variant (certified; the
    report also counts how many are the correctly rounded value).
``conforms up to the rounding of its dtype``
    Not every entry is within one ulp, but every entry is within the rounding budget of a
    computation of the expected variant in the table's dtype (see :mod:`.compare`): the recipe is
    right and the errors are the ones that dtype makes.
``different variant``
    The table does not match the expectation but matches another member of the family, which is
    named (the h-1 frequencies, another layout, an offset, a scale).
``wrong``
    Neither: the worst positions show where it breaks.

Exit codes of the command line: 0 for the first two, 1 for the others (2 is for bad input).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from peproof.formats import Format, get_format

from .compare import Comparison, compare
from .identification import Identification, detect_format, identify, sample_rows
from .tables import InputError, as_table, call_table, check_finite
from .variant import Variant

CONFORMS = "conforms"
ROUNDING = "conforms up to the rounding of its dtype"
VARIANT = "different variant"
WRONG = "wrong"
CODES = {CONFORMS: "conforms", ROUNDING: "rounding", VARIANT: "variant", WRONG: "wrong"}


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
    seconds: float = 0.0

    @property
    def code(self) -> str:
        return CODES[self.verdict]

    @property
    def ok(self) -> bool:
        return self.verdict in (CONFORMS, ROUNDING)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def headline(self) -> str:
        if self.verdict == VARIANT:
            return f"{VARIANT}: {self.identified.name}"
        return self.verdict

    def to_json(self) -> dict:
        from .report import envelope

        return envelope(self)

    def render(self, worst: int = 5) -> str:
        from .report import render

        return render(self, worst)

    def __str__(self) -> str:
        return self.render()


def parse_expect(expect="paper", *, base=10000, layout="interleaved", offset=0,
                 scale=1) -> Variant | None:
    """The expected variant; ``expect="any"`` accepts whatever :func:`identify` finds."""
    if isinstance(expect, Variant):
        return expect
    if expect in (None, "any", "identified"):
        return None
    return Variant(expect, base, layout, offset, scale)


def check(table_or_callable, *, d: int | None = None, n: int | None = None, positions=None,
          expect="paper", base=10000, layout="interleaved", offset=0, scale=1, dtype=None,
          pipeline_dtype=None, progress=None, source: dict | None = None) -> Report:
    """Check a table (``n x d``) or a callable ``f(n, d)`` against the expected variant.

    ``positions`` gives the position of every row (default ``0 .. n-1``; an offset of the
    variant is added to them).  ``dtype`` overrides the detected format of the values and
    ``pipeline_dtype`` the format the table was computed in (default: the same).
    """
    t0 = time.perf_counter()
    obj = table_or_callable
    if callable(obj) and not hasattr(obj, "shape"):
        obj = call_table(obj, 2048 if n is None else n, d)
    arr = as_table(obj, d)
    n_rows, width = arr.shape
    pos = _positions(positions, n_rows)
    want = parse_expect(expect, base=base, layout=layout, offset=offset, scale=scale)
    if want is not None and want.family == "h-1" and width < 4:
        raise InputError("the h-1 family needs d >= 4")
    st, eff = detect_format(arr, np.arange(min(n_rows, 1024)),
                            get_format(dtype) if dtype is not None else None)
    pipe = get_format(pipeline_dtype) if pipeline_dtype is not None else (
        eff if eff.is_binary else get_format("float64"))
    check_finite(arr, sample_rows(n_rows, pos, 2**62))
    ident = identify(arr, pos, dtype=eff.name, pipeline_dtype=pipe.name)
    fp = _Fingerprints(width)

    def hook(k0, t):
        if not np.isfinite(t).all():
            check_finite(arr[k0:k0 + t.shape[0]])
        fp.add(k0, t)

    target = want if want is not None else ident.variant
    spec = other = None
    reasons: list[str] = []
    if target is None:
        verdict = WRONG
        reasons.append("no variant of the family was identified: " + "; ".join(ident.notes))
    else:
        spec = compare(arr, pos, target, eff, pipe, progress=progress, row_hook=hook)
        verdict = _level(spec)
        if verdict is None:
            iv = ident.variant
            if want is not None and iv is not None and not iv.same_as(want, width):
                other = compare(arr, pos, iv, eff, pipe)
                verdict = VARIANT if _level(other) else WRONG
                if verdict == VARIANT:
                    reasons.append("differs from the expectation in " + _diff(want, iv, width))
            else:
                verdict = WRONG
            if verdict == WRONG:
                reasons.append(f"{spec.over_budget} of {spec.entries} entries exceed the "
                               f"rounding budget of {pipe.name}")
    for c in (spec, other):
        if c is not None and c.vacuous and verdict in (ROUNDING, VARIANT):
            reasons.append(f"{c.vacuous} entries, from position {_p(c.first_vacuous_pos)} on, "
                           f"are beyond the reach of {pipe.name}: a computation in it may "
                           "return any value there, so they constrain nothing")
            break
    if spec is None:  # still scan the rows for finiteness and collisions
        for k0 in range(0, n_rows, 4096):
            hook(k0, np.asarray(arr[k0:k0 + 4096], dtype=np.float64))
    rep = Report(verdict, width, n_rows, st, eff, pipe, want, ident, spec, other,
                 collisions=fp.result(arr, pos), horizon=_horizon(pos, pipe, spec),
                 source=source or {}, reasons=reasons)
    rep.seconds = time.perf_counter() - t0
    return rep


def _diff(want: Variant, got: Variant, d: int) -> str:
    """The parameters in which two variants differ, e.g. ``layout [sin|cos] (expected ...)``."""
    from .variant import LAYOUT_NAMES, same_frequencies, scale_expr

    out = []
    if not same_frequencies(want, got, d):
        if want.family != got.family:
            out.append(f"family {got.family} (expected {want.family})")
        if want.base != got.base or want.family == got.family:
            out.append(f"base {got.base} (expected {want.base})")
    if want.layout != got.layout:
        out.append(f"layout {LAYOUT_NAMES[got.layout]} (expected {LAYOUT_NAMES[want.layout]})")
    if want.offset != got.offset:
        out.append(f"offset {got.offset} (expected {want.offset})")
    if scale_expr(want.scale, d) != scale_expr(got.scale, d):
        out.append(f"scale {got.scale} (expected {want.scale})")
    return ", ".join(out) or "nothing (equivalent)"


def _level(c: Comparison) -> str | None:
    if c.faithful:
        return CONFORMS
    if c.within_budget:
        return ROUNDING
    return None


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


class _Fingerprints:
    """Identical rows, found by a random projection of each row and confirmed bit for bit."""

    def __init__(self, d: int):
        self.w = np.random.default_rng(12345).standard_normal(d)
        self.parts: list[np.ndarray] = []

    def add(self, k0: int, t: np.ndarray) -> None:
        self.parts.append(t @ self.w)

    def result(self, arr, pos) -> dict:
        f = np.concatenate(self.parts) if self.parts else np.zeros(0)
        order = np.argsort(f, kind="stable")
        fs = f[order]
        dup = np.nonzero(fs[1:] == fs[:-1])[0]
        groups: dict[int, list[int]] = {}
        for k in dup:
            a, b = int(order[k]), int(order[k + 1])
            if np.array_equal(np.asarray(arr[a]), np.asarray(arr[b])):
                root = groups.get(a, [a])
                root.append(b)
                for r in root:
                    groups[r] = root
        uniq = {id(g): g for g in groups.values()}
        sets = sorted((sorted(g) for g in uniq.values()), key=lambda g: g[0])
        return {
            "identical_row_groups": len(sets),
            "rows_in_collisions": int(sum(len(g) for g in sets)),
            "distinct_rows": int(len(f) - sum(len(g) - 1 for g in sets)),
            "examples": [[_p(pos[r]) for r in g[:4]] for g in sets[:5]],
        }


def _p(x: float):
    return int(x) if float(x).is_integer() else float(x)


def _horizon(pos: np.ndarray, pipe: Format, spec: Comparison | None) -> dict:
    h = pipe.horizon
    beyond = int((np.abs(pos) > h).sum())
    out = {"dtype": pipe.name, "integer_positions_exact_up_to": h,
           "rows_beyond": beyond,
           "rows_whose_position_rounds_in_dtype": int((pipe.round(pos) != pos).sum())}
    if spec is not None:
        out["budget_vacuous_entries"] = spec.vacuous
        out["budget_vacuous_from_position"] = (None if spec.first_vacuous_pos is None
                                               else _p(spec.first_vacuous_pos))
    return out


def assert_sinusoidal(table, expect="paper", layout="interleaved", *, base=10000, offset=0,
                      scale=1, allow_rounding: bool = True, worst: int = 5, **kw) -> Report:
    """Assert that ``table`` is the expected sinusoidal encoding (for other projects' tests).

    Passes on ``conforms`` and, unless ``allow_rounding=False``, on ``conforms up to the
    rounding of its dtype``; otherwise raises ``AssertionError`` whose message names the
    identified variant and lists the worst positions.
    """
    rep = check(table, expect=expect, layout=layout, base=base, offset=offset, scale=scale, **kw)
    good = rep.verdict == CONFORMS or (allow_rounding and rep.verdict == ROUNDING)
    if not good:
        raise AssertionError(rep.render(worst))
    return rep
