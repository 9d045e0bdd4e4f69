"""Name the variant a table implements: family and base, layout, offset, scale and dtype.

Implementation notes.  Everything is estimated from the table, then confirmed against references
built by :class:`~peproof.encoding.Encoding`:

1. *Pairing and scale.*  Sine and cosine of one frequency satisfy ``a**2 + b**2 = scale**2`` on
   every row; the pairing (channels ``2i, 2i+1`` or ``i, i+d/2``) with the flattest ``a**2+b**2``
   wins and its median gives the scale.
2. *Frequencies and orientation.*  The phase ``atan2(a, b)`` advances by ``omega_i`` per unit of
   position; a robust slope of the unwrapped phase against the positions gives ``omega_i``, and its
   sign tells whether ``a`` is the sine (positive) or the cosine (negative).
3. *Family and base.*  ``ln omega_i`` is linear in ``i``: slope ``-2 ln(base)/d`` (paper) or
   ``-ln(base)/(d/2-1)`` (h-1), ``+ln 2`` from ``ln pi`` (nerf).  Both readings of the slope give a
   base; round numbers near each are candidates.
4. *Offset.*  The phase left after removing ``omega_i * pos`` is ``offset * omega_i (mod 2 pi)``;
   it is read from the slowest pair and refined pair by pair up to the fastest.
5. *Confirmation.*  Every candidate is compared with its float64 reference within the rounding
   budget of the table's dtype (:func:`peproof.oracle.compare.budget`); among candidates that fit
   the simplest (fewest significant digits, the paper before h-1) is named, the others that fit
   equally are listed, and exactly equal variants (e.g. paper base 10000 = h-1 base 1000 at
   ``d = 8``) are reported as equivalent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np
import sympy as sp

from peproof.encoding import omega_expr
from peproof.formats import Format, format_of_dtype, narrowest_exact

from .budget import Budget
from .estimate import (
    base_candidates,
    digits,
    estimate,
    layout_of,
    offset_estimate,
    scale_candidates,
    snap_offset,
)
from .exact import Plan
from .tables import as_table
from .variant import LAYOUT_NAMES, Variant, scale_label

EST_ROWS = 1024
EVAL_ROWS = 256


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
    equivalent: list = field(default_factory=list)
    alternatives: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    estimates: dict = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        """Every examined entry is within the rounding budget of the dtype."""
        return self.variant is not None and self.budget_ratio <= 1.0

    @property
    def name(self) -> str:
        if self.variant is None:
            return "unidentified (" + "; ".join(self.notes[:1]) + ")"
        return self.variant.name(self.d)

    def to_json(self) -> dict:
        return {
            "variant": self.variant.to_json(self.d) if self.variant else None,
            "name": self.name, "dtype": self.dtype, "stored_dtype": self.stored_dtype,
            "fits_within_rounding": self.fits, "rows_examined": self.rows_examined,
            "residual": {"max_abs": _f(self.residual_abs), "max_ulp": _f(self.residual_ulp),
                         "max_budget_ratio": _f(self.budget_ratio),
                         "rows_within_budget": self.rows_within_budget},
            "equivalent": self.equivalent, "alternatives": self.alternatives,
            "notes": self.notes, "estimates": self.estimates,
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
    return st, narrowest_exact(sample, st)


def identify(table, positions=None, *, dtype=None, pipeline_dtype=None) -> Identification:
    """Identify the variant of ``table`` (``n x d``) whose row ``k`` is at ``positions[k]``.

    ``dtype`` overrides the detected format of the values (e.g. ``"float32"`` for a CSV file);
    ``pipeline_dtype`` the format the table was computed in (default: the same).
    """
    from peproof.formats import get_format

    table = as_table(table) if not isinstance(table, np.ndarray) or table.ndim != 2 else table
    n, d = table.shape
    positions = np.arange(n, dtype=np.float64) if positions is None else np.asarray(
        positions, dtype=np.float64)
    stored_fmt = get_format(dtype) if dtype is not None else None
    rows0 = np.arange(min(n, EST_ROWS))
    st, eff = detect_format(table, rows0, stored_fmt)
    pipe = get_format(pipeline_dtype) if pipeline_dtype is not None else (
        eff if eff.is_binary else get_format("float64"))
    rows = sample_rows(n, positions, pipe.horizon)
    T = np.asarray(table[rows], dtype=np.float64)
    P = positions[rows]
    ident = Identification(None, d, eff.name, st.name, rows_examined=len(rows))
    if d % 2:
        ident.notes.append(f"odd width d={d}: sin/cos pairs need an even number of channels")
        return ident
    if n < 2 or np.ptp(P) == 0:
        ident.notes.append("need at least two rows at different positions to read frequencies")
        return ident
    est = estimate(T, P, eff, ident)
    if est is None:
        return ident
    _choose(ident, table, positions, rows, T, P, est, eff, pipe)
    return ident


# ----------------------------------------------------------------------------- choice
class _ApproxPlan(Plan):
    """A plan whose float64 frequencies come from ``omega_expr`` evaluated by NumPy (a few ulps
    off, instead of correctly rounded from arb): fast enough to rank many candidates."""

    @cached_property
    def omega(self) -> np.ndarray:
        i = sp.Symbol("i", integer=True, nonnegative=True)
        e = self.enc
        f = sp.lambdify(i, omega_expr(i, e.d, e.family, e._base), "numpy")
        return np.broadcast_to(np.asarray(f(np.arange(self.h, dtype=np.float64)),
                                          dtype=np.float64), (self.h,)).copy()


def _evaluate(v: Variant, T, P, stored: Format, pipe: Format, approx: bool = False) -> tuple:
    """(fraction of rows within budget, rms abs error, max ratio, max abs) against ``v``."""
    d = T.shape[1]
    plan = (_ApproxPlan if approx else Plan)(v.encoding(d))
    x = plan.angles(P)
    vals = plan.assemble(np.sin(x), np.cos(x))
    if plan.scale != 1.0:
        vals *= plan.scale
    E = plan.row_bound(P)
    diff = T - vals
    ad = np.abs(diff)
    bud = Budget(plan, pipe, stored)
    B = bud.bound(bud.angle_error(P, x), vals) + E * (1.0 + bud.beta)
    with np.errstate(over="ignore"):
        rr = (ad / B).max(axis=1)
    return (float((rr <= 1).mean()), float(np.sqrt(np.mean(diff * diff))), float(rr.max()),
            float(ad.max()))


def _choose(ident: Identification, table, positions, rows, T, P, est, stored, pipe) -> None:
    d = T.shape[1]
    layout = layout_of(est["pairing"], est["cos_first"], d)
    if layout is None:
        ident.notes.append("interleaved pairs with the cosine first (channel 2i is cos): not a "
                           "layout of peproof.encoding")
        return
    sub = np.arange(min(len(rows), 128))
    if len(rows) > 128:
        sub = np.concatenate([sub, np.linspace(128, len(rows) - 1, 128).astype(np.int64)])
    Ts, Ps = T[sub], P[sub]
    scale0 = scale_candidates(est["scale"], d)[0]
    fams = base_candidates(est, d)
    if not fams:
        ident.notes.append("no frequency family fits the phases")
        return
    offs = snap_offset(offset_estimate(est, P, est["omega"], est["phase_noise"]))
    scored = []
    for fam, base in fams:
        try:
            probe = Variant(fam, base, layout, 0, scale0)
        except ValueError:
            continue
        for off in offs:
            v = probe.with_(offset=off)
            scored.append((_evaluate(v, Ts, Ps, stored, pipe, approx=True), v))
    if not scored:
        ident.notes.append("no candidate variant could be built")
        return
    best, _ = _pick(scored)
    # the scale, with the family, base and offset fixed
    sc = [(_evaluate(best.with_(scale=s), Ts, Ps, stored, pipe, approx=True),
           best.with_(scale=s))
          for s in scale_candidates(est["scale"], d)]
    best, ok2 = _pick(sc)
    _, ok1 = _pick([(s, v.with_(scale=best.scale)) for s, v in scored])
    fit = _evaluate(best, T, P, stored, pipe)
    ident.variant = best.with_(dtype=stored.name)
    ident.rows_within_budget, _, ident.budget_ratio, ident.residual_abs = fit
    plan = Plan(best.encoding(d))
    vals = plan.refine_rows(P)[0] if stored.is_binary and stored.p > 40 else plan.values(P)
    with np.errstate(over="ignore"):
        ident.residual_ulp = float((np.abs(T - vals) / stored.ulp(vals)).max())
    for score, v in ok1 + ok2:  # as well supported by the data as the one named
        if v == best or v.name(d) == best.name(d):
            continue
        if v.same_as(best, d):
            ident.equivalent.append(v.name(d))
        else:
            ident.alternatives.append({"name": v.name(d), "rms_error": score[1],
                                       "max_budget_ratio": score[2]})
    ident.equivalent = sorted(set(ident.equivalent))
    ident.alternatives = ident.alternatives[:5]
    if abs(est.get("fit", {}).get("ln_omega_0", 0.0)) > 0.05 and best.family != "nerf":
        ident.notes.append(f"the fastest frequency reads {math.exp(est['fit']['ln_omega_0']):.6g}"
                           ", not 1: are the positions scaled? pass them explicitly")
    if "note" in est:
        ident.notes.append(est["note"])
    if not ident.fits:
        ident.notes.append(f"closest variant does not fit within the rounding of {stored.name}"
                           f" (max budget ratio {ident.budget_ratio:.3g})")
    ident.estimates["layout"] = LAYOUT_NAMES[layout]
    ident.estimates["scale_label"] = scale_label(sp.sympify(1), d) if best.scale == 1 else str(
        best.scale)


def _pick(scored: list):
    """The simplest candidate that fits as well as the best one.

    Candidates are ranked by the fraction of rows within the rounding budget; among the best,
    every candidate within 10% of the best rms error and within 20% of the best largest
    budget ratio is equally supported by the data, and the simplest of those is named.
    """
    top = max(s[0] for s, _ in scored)
    pool = [(s, v) for s, v in scored if s[0] == top]
    best_rms = min(s[1] for s, _ in pool)
    best_max = min(s[2] for s, _ in pool)
    near = [(s, v) for s, v in pool if s[1] <= 1.1 * best_rms + 1e-300]
    ok = [(s, v) for s, v in near if s[2] <= 1.2 * best_max + 0.02] or near
    return min(ok, key=lambda sv: (_complexity(sv[1]), sv[0][1]))[1], ok


def _complexity(v: Variant) -> tuple:
    fam = {"paper": 0, "h-1": 1, "nerf": 2}[v.family]
    sc = str(v.scale)
    if sc == "1":
        sk = 0
    elif sc in ("sqrt(d)", "1/sqrt(d)"):
        sk = 1
    else:
        try:
            sk = 2 + digits(Fraction(sc))
        except (ValueError, ZeroDivisionError):
            sk = 30
    return (digits(v.base), Fraction(v.offset).denominator, sk, fam)
