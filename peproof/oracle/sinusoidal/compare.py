"""Stream a table against one variant: errors against the spec-exact and pipeline references.

For every entry ``t`` at position ``p`` and channel ``j`` with exact value ``v`` (a ball around the
float64 fast path, see :mod:`peproof.oracle.common.exact`):

* **spec-exact**: ``|t - v|`` absolutely and in ulps of the stored format ``S``; an entry
  *conforms* when it is within one ulp (a faithful rounding).  Whether it is the correctly rounded
  value is counted too.  Every such decision is certified: taken from the fast path only when its
  error bound cannot change it, else from arb balls at escalating precision.
* **error model**: every entry against the proved bound ``B`` of computing this variant in the
  pipeline format ``P`` (the table's own dtype unless told otherwise) by *any* recipe of the
  model's shape (:mod:`peproof.oracle.common.budget`, :mod:`peproof.families.error_model`).  A table
  within ``B`` everywhere differs from the encoding only as a computation in ``P`` may.  Known
  recipes (the ``exp`` and ``pow`` forms) are also run in ``P`` and compared bit for bit: evidence
  of how the table was made, never the criterion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from peproof.families.error_model import CONSTANTS
from peproof.formats import Format

from ..common.budget import VACUOUS_ANGLE, Budget
from ..common.exact import Plan, exact_pos
from .decisions import arb_faithful, arb_round, budget_left, refine_gathered
from .recipes import recipes, run_recipe
from .variant import Variant

ULP_BINS = np.arange(-12, 42)  # bin k: error in [2**k, 2**(k+1)) ulps (ends open)
ABS_BINS = np.arange(-64, 4)  # the same for the absolute error
MAX_ARB = 20000
MAX_ARB_CR = 2000
RECIPE_ALL_ROWS = 2048  # the recipes run on every row up to here, then on every 8th chunk
RECIPE_EVERY = 8  # certified decisions per comparison before the rest are reported undecided
STRUCTURE_ANGLE = 2.0**-6  # rows whose angle error may reach this are checked pair by pair


def _hist(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Histogram of nonnegative errors in binades: bin ``k`` holds ``[2**edges[k],
    2**(edges[k]+1))``, read from the float64 exponent bits (one shift, one ``bincount`` over the
    2048 exponents); the first bin also holds everything smaller (exact zeros included), the last
    everything larger (infinity and NaN included)."""
    e = np.ascontiguousarray(x).view(np.int64) >> 52  # sign bit 0: the biased exponent
    c = np.bincount(e.ravel(), minlength=4096)
    lo, hi = 1023 + int(edges[0]), 1023 + int(edges[-1])
    out = c[lo:hi + 1].copy()
    out[0] += c[:lo].sum()
    out[-1] += c[hi + 1:].sum()
    return out


@dataclass
class Comparison:
    """Everything measured about one table against one variant."""

    variant: Variant
    d: int
    stored: Format
    pipe: Format
    rows: int = 0
    entries: int = 0
    max_abs: float = 0.0
    max_ulp: float = 0.0
    sum_ulp: float = 0.0
    hist_u: np.ndarray = field(default_factory=lambda: np.zeros(len(ULP_BINS), np.int64))
    hist_a: np.ndarray = field(default_factory=lambda: np.zeros(len(ABS_BINS), np.int64))
    recipe_rows: int = 0
    not_faithful: int = 0
    undecided: int = 0
    arb_decisions: int = 0
    correctly_rounded: int = 0
    not_correctly_rounded: int = 0
    cr_undecided: int = 0
    over_budget: int = 0
    budget_undecided: int = 0
    budget_entries: int = 0  # entries whose budget was evaluated (the others are within 1 ulp)
    max_budget_ratio: float = 0.0
    vacuous: int = 0
    first_vacuous_pos: float | None = None
    recipe_equal: dict = field(default_factory=dict)
    recipe_max_ulp: dict = field(default_factory=dict)
    row_max_ulp: list = field(default_factory=list)
    row_arg: list = field(default_factory=list)
    row_budget: list = field(default_factory=list)
    row_barg: list = field(default_factory=list)
    worst: list = field(default_factory=list)
    channel_over: np.ndarray | None = None  # over-budget entries per channel
    row_index: np.ndarray | None = None  # table row of each entry of the row_* arrays
    excluded_rows: int = 0
    nonfinite: int = 0

    @property
    def faithful(self) -> bool:
        """Every entry within one ulp of the exact value, certified."""
        return self.not_faithful == 0 and self.undecided == 0

    @property
    def within_budget(self) -> bool:
        return self.over_budget == 0

    @property
    def hist_ulp(self) -> np.ndarray:
        return self.hist_u

    @property
    def hist_abs(self) -> np.ndarray:
        return self.hist_a

    def quantile(self, q: float, which: str = "ulp") -> float:
        """An upper bound of the ``q`` quantile of the error, from the histogram."""
        if not self.entries:
            return 0.0
        h, edges = (self.hist_ulp, ULP_BINS) if which == "ulp" else (self.hist_abs, ABS_BINS)
        top = self.max_ulp if which == "ulp" else self.max_abs
        k = min(int(np.searchsorted(np.cumsum(h), q * self.entries)), len(edges) - 1)
        return float(min(top, 2.0 ** (edges[k] + 1)))


def compare(table, positions: np.ndarray, variant: Variant, stored: Format, pipe: Format,
            chunk_entries: int = 1 << 16, worst_k: int = 5, certify_cr: bool = True,
            progress=None, row_hook=None, keep: np.ndarray | None = None) -> Comparison:
    """Stream ``table`` (``n x d``, any array-like with row slicing) against ``variant``.

    ``keep`` (a boolean mask of the rows) leaves rows out of every count (padding rows); the
    ``row_hook`` still sees every row."""
    n, d = table.shape
    if len(positions) != n:
        raise ValueError(f"{len(positions)} positions for {n} rows")
    plan = Plan(variant.encoding(d))
    res = Comparison(variant, d, stored, pipe)
    res.channel_over = np.zeros(d, np.int64)
    recs = recipes(plan, pipe)
    for r in recs:
        res.recipe_equal[r.name] = 0
        res.recipe_max_ulp[r.name] = 0.0
    bud = Budget(plan, pipe, stored)
    rows = max(1, chunk_entries // d)
    arb_budget = [MAX_ARB, MAX_ARB_CR]
    index = []
    for ci, k0 in enumerate(range(0, n, rows)):
        pos = np.asarray(positions[k0:k0 + rows], dtype=np.float64)
        t = np.asarray(table[k0:k0 + rows], dtype=np.float64)
        if row_hook is not None:
            row_hook(k0, t)
        idx = np.arange(k0, k0 + t.shape[0])
        if keep is not None:
            sel = keep[k0:k0 + rows]
            if not sel.all():
                res.excluded_rows += int((~sel).sum())
                pos, t, idx = pos[sel], t[sel], idx[sel]
                if not len(idx):
                    continue
        if keep is not None:
            index.append(idx)
        _chunk(res, plan, bud, pos, t, recs, arb_budget, certify_cr,
               with_recipes=k0 < RECIPE_ALL_ROWS or ci % RECIPE_EVERY == 0)
        if progress:
            progress(min(k0 + rows, n), n)
    _finish(res, table, positions, plan, worst_k,
            (np.concatenate(index) if index else np.zeros(0, np.int64))
            if res.excluded_rows else None)
    return res


def _chunk(res: Comparison, plan: Plan, bud: Budget, pos, t, recs, arb_budget, certify_cr,
           with_recipes: bool) -> None:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # huge ulp errors (of exact zeros) may overflow to inf
        v, ul = _chunk_body(res, plan, bud, pos, t, arb_budget, certify_cr)
        if with_recipes and recs:
            _recipes(res, plan, pos, t, v, ul, recs)


def _chunk_body(res: Comparison, plan: Plan, bud: Budget, pos, t, arb_budget, certify_cr
                ) -> tuple[np.ndarray, np.ndarray]:
    S, P = res.stored, res.pipe
    x = plan.angles(pos)
    if S.is_binary and S.p > 40:  # float64 tables need the double-double reference
        v, E = plan.refine_rows(pos)
    else:
        v = plan.sincos(x)
        if plan.scale != 1.0:
            v *= plan.scale
        E = plan.row_bound(pos)
    ad = np.abs(t - v)
    amax = float(ad.max())
    if not amax < np.inf:  # NaN or infinity in the table: certainly outside every bound
        bad = ~np.isfinite(ad)
        ad[bad] = np.inf
        res.nonfinite += int(bad.sum())
        amax = np.inf
    ul = S.ulp(v)
    eu = ad / ul
    res.rows += t.shape[0]
    res.entries += t.size
    res.max_abs = max(res.max_abs, amax)
    res.sum_ulp += float(eu.sum())
    res.hist_u += _hist(eu, ULP_BINS)
    res.hist_a += _hist(ad, ABS_BINS)
    arg = eu.argmax(axis=1)
    rmax = eu[np.arange(eu.shape[0]), arg]
    res.max_ulp = max(res.max_ulp, float(rmax.max()))
    res.row_arg.append(arg.astype(np.int32))
    res.row_max_ulp.append(rmax.astype(np.float32))

    # ---- faithful (within one ulp of the exact value), certified
    # ulp(v) lies between the ulps at |v^| - E and |v^| + E (the ulp grows with |v|)
    nf_before = res.not_faithful
    cand = ad > ul - E  # all others are within one ulp for certain
    n_cand = int(cand.sum())
    if n_cand:
        if n_cand < cand.size // 8:  # few: work on the gathered entries
            r, c = np.nonzero(cand)
            Ec = E[r, 0] if E.shape[1] == 1 else E[r, c]
            ad1, av1 = ad[r, c], np.abs(v[r, c])
            sure_ok = ad1 + Ec <= S.ulp(np.maximum(av1 - Ec, 0.0))
            sure_bad = ad1 - Ec > S.ulp(av1 + Ec)
            res.not_faithful += int(sure_bad.sum())
            keep = ~(sure_ok | sure_bad)
            r, c = r[keep], c[keep]
        else:  # many (a low-precision pipeline): decide on the whole chunk
            # ulp(|v| + E) is ul, or 2 ul where |v| + E reaches the top of v's binade
            # (ul 2**p), as long as E is below a quarter of that binade's start; entries
            # where it is not (values near 0) are taken with the exact ulp
            if S.is_binary:
                top = np.abs(v)
                top += E
                top = top >= ul * 2.0**S.p
                sure_bad = ad - E > ul + ul * top
                del top
                risky = sure_bad & (E >= ul * 2.0**(S.p - 3))
                if risky.any():
                    r_, c_ = np.nonzero(risky)
                    Er = E[r_, 0] if E.shape[1] == 1 else E[r_, c_]
                    sure_bad[r_, c_] = ad[r_, c_] - Er > S.ulp(np.abs(v[r_, c_]) + Er)
                del risky
            else:
                sure_bad = ad - E > S.ulp(np.abs(v) + E)
            res.not_faithful += int(sure_bad.sum())
            r, c = np.nonzero(cand & ~sure_bad)  # near one ulp, or tiny values: refined below
        if r.size:
            tv = t[r, c]
            vv, eb = refine_gathered(plan, pos, r, c)
            ad1, a = np.abs(tv - vv), np.abs(vv)
            ok = ad1 + eb <= S.ulp(np.maximum(a - eb, 0.0))
            bad = ad1 - eb > S.ulp(a + eb)
            res.not_faithful += int(bad.sum())
            left = ~(ok | bad)
            if left.any():
                if res.not_faithful:  # the table is certainly not within 1 ulp everywhere:
                    res.undecided += int(left.sum())  # arb would only refine a count
                else:
                    res.not_faithful += arb_faithful(res, plan, pos[r[left]], c[left],
                                                      tv[left], S, arb_budget)

    # ---- correctly rounded: t = RN(v) iff |t - v| <= ul(v) / 2 (ties aside), see _cr_note
    if S.is_binary:
        half = 0.5 * ul
        half -= ad  # half an ulp minus the error: > E is certainly, < -E certainly not
        n_yes = int(np.count_nonzero(half > E))
        n_no = int(np.count_nonzero(half < -E))
        res.correctly_rounded += n_yes
        res.not_correctly_rounded += n_no
        if n_yes + n_no < half.size:
            amb = np.abs(half) <= E
            r, c = np.nonzero(amb)
            tv = t[r, c]
            vv, eb = refine_gathered(plan, pos, r, c)
            ad1, h1 = np.abs(tv - vv), 0.5 * S.ulp(vv)
            y1, n1 = ad1 + eb < h1, ad1 - eb > h1
            # near a power of two the ulp of v and of its estimate may differ: leave to arb
            edge = S.ulp(np.abs(vv) + eb) != S.ulp(np.maximum(np.abs(vv) - eb, 0.0))
            y1, n1 = y1 & ~edge, n1 & ~edge
            res.correctly_rounded += int(y1.sum())
            res.not_correctly_rounded += int(n1.sum())
            left = ~(y1 | n1)
            r, c, tv = r[left], c[left], tv[left]
            if r.size and certify_cr and r.size <= arb_budget[1]:
                arb_budget[1] -= r.size
                got = arb_round(plan, pos[r], c, S)
                eq = int((got == tv).sum())
                res.correctly_rounded += eq
                res.not_correctly_rounded += r.size - eq
                res.arb_decisions += r.size
            else:
                res.cr_undecided += r.size

    # ---- the error model of a computation in P
    # the angle alone may be off by a radian or more (vacuous): only possible in rows whose
    # largest angle error bound reaches it, read from the row's largest angle
    shortcut = P == S and nf_before == res.not_faithful and res.undecided == 0
    reach = (np.abs(pos + plan.offset) * float(plan.omega.max()) * float(bud.K1.max())
             + bud.m >= VACUOUS_ANGLE)
    delta = None if shortcut and not reach.any() else bud.angle_error(pos, x)
    vac = delta >= VACUOUS_ANGLE if delta is not None else None
    if vac is not None and vac.any():
        res.vacuous += 2 * int(vac.sum())
        first = float(np.abs(pos[vac.any(axis=1)] + plan.offset).min())
        res.first_vacuous_pos = first if res.first_vacuous_pos is None else min(
            first, res.first_vacuous_pos)
    if shortcut:
        # every entry of the chunk is within one ulp, which decides the verdict (conforms):
        # B is not needed; eu / c_s (B >= c_s ulp for normal values) only ranks the worst
        res.row_budget.append(None)  # filled in _finish from the row maxima, when needed
        res.row_barg.append(None)
    else:
        B = bud.bound(delta, v)
        res.budget_entries += t.size
        ratio = ad / B
        # where the angle may be far off, the bound of each entry is loose; the pair's
        # structure is not (|entry| <= amplitude, sin^2 + cos^2 = s^2 within the model)
        srows = np.nonzero(delta.max(axis=1) >= STRUCTURE_ANGLE)[0]
        extra = None
        if srows.size:
            if srows.size == t.shape[0]:
                srows = slice(None)
            pr = bud.pair_ratio(x[srows], t[srows])
            hit = np.nonzero(pr.max(axis=1) > 1.0)[0]  # rows with a pair certainly outside
            if hit.size:
                rows_hit = np.arange(t.shape[0])[srows][hit]
                sr = plan.assemble(pr[hit], pr[hit])
                extra = np.zeros(t.shape, dtype=bool)
                extra[rows_hit] = sr > 1.0
                ratio[rows_hit] = np.fmax(ratio[rows_hit], sr)
            del pr
        barg = ratio.argmax(axis=1)
        rb = ratio[np.arange(ratio.shape[0]), barg]
        res.row_budget.append(rb.astype(np.float32))
        res.row_barg.append(barg.astype(np.int32))
        res.max_budget_ratio = max(res.max_budget_ratio, float(rb.max()))
        # rows certainly within: their largest ratio plus the reference's slack relative to
        # their smallest bound is at most 1; the others are decided entry by entry
        sl = E * (1.0 + bud.beta)
        if sl.shape[1] == 1:
            todo = np.nonzero(rb + sl[:, 0] / B.min(axis=1) > 1.0)[0]
        else:
            todo = np.arange(B.shape[0])
        if todo.size > B.shape[0] // 2:  # most rows: decide in place, no gathered copies
            todo = slice(None)
        if not isinstance(todo, np.ndarray) or todo.size:
            over, within = bud.decide(ad[todo], E[todo], B[todo])
            left = ~(over | within)
            del within
            if left.any():
                over = over | budget_left(res, plan, bud, pos[todo], t[todo], delta[todo],
                                           left, arb_budget)
            if extra is not None:
                extra[todo] |= over
                over = extra
        else:
            over = extra
        if over is not None:
            n_over = int(over.sum())
            if n_over:
                res.over_budget += n_over
                res.channel_over += over.sum(axis=0)

    return v, ul


def _recipes(res: Comparison, plan: Plan, pos, t, v, ul, recs) -> None:
    """The recipes, bit for bit (on a sample of the chunks; after the chunk's other arrays are
    freed)."""
    S, P = res.stored, res.pipe
    res.recipe_rows += t.shape[0]
    for rec in recs:
        rv = run_recipe(plan, rec, pos, P)
        if S != P:
            rv = S.round(rv)
        res.recipe_equal[rec.name] += int((rv == t).sum())
        res.recipe_max_ulp[rec.name] = max(res.recipe_max_ulp[rec.name],
                                           float((np.abs(rv - v) / ul).max()))


_CR_NOTE = """Why ``|t - v| <= ul(v)/2`` decides correct rounding without the ulp of ``t``: if ``t``
and ``v`` share a binade the spacing around ``t`` is ``ul(v)``; if not, ``t`` can only be the power
of two between them, whose half-spacing on ``v``'s side is again ``ul(v)/2``.  The first pass
compares with the estimate's ulp; it can only err when ``v`` lies within ``E`` of a power of two,
and then ``ad + E`` already reaches the threshold, so neither quick answer fires wrongly."""


def _finish(res: Comparison, table, positions, plan: Plan, k: int,
            index: np.ndarray | None) -> None:
    """Keep per-row maxima; list the worst entries: by ulps while every entry is within one ulp,
    else by how far beyond the rounding budget they are (where the table breaks)."""
    def cat(xs: list, dt) -> np.ndarray:  # one list at a time, emptied as it goes
        out = np.concatenate(xs) if xs else np.zeros(0, dt)
        xs.clear()
        return out

    if any(x is not None for x in res.row_budget):  # chunks within 1 ulp: eu / c_sin ranks
        c = CONSTANTS.c_sin
        res.row_budget = [rm_ / c if rb_ is None else rb_ for rm_, rb_ in
                          zip(res.row_max_ulp, res.row_budget, strict=True)]
        res.row_barg = [ra_ if rba_ is None else rba_ for ra_, rba_ in
                        zip(res.row_arg, res.row_barg, strict=True)]
        rb, rba = cat(res.row_budget, np.float32), cat(res.row_barg, np.int32)
    else:
        rb = rba = None
        res.row_budget.clear()
        res.row_barg.clear()
    rm, ra = cat(res.row_max_ulp, np.float32), cat(res.row_arg, np.int32)
    if rb is None:
        rb, rba = rm / CONSTANTS.c_sin, ra
    res.row_max_ulp, res.row_arg, res.row_budget, res.row_barg = rm, ra, rb, rba
    if index is None:
        index = np.arange(rm.size)
    res.row_index = index
    if not rm.size:
        return
    by_ulp = res.faithful
    key, arg = (rm, ra) if by_ulp else (rb, rba)
    top = np.argsort(-key, kind="stable")[:k]
    top = top[key[top] > 0]
    for k_ in top:
        j, r = int(arg[k_]), int(index[k_])
        p = float(positions[r])
        t = float(np.asarray(table[r:r + 1], dtype=np.float64)[0, j])
        ball = plan.balls([exact_pos(p)], [j], 128)[0]
        v = float(ball.mid())
        ul = float(res.stored.ulp(np.array([v]))[0])
        res.worst.append({
            "row": int(r), "position": _num(p), "channel": j, "pair": int(plan.slots[0][j]),
            "component": "cos" if plan.slots[1][j] else "sin", "table": t, "exact": v,
            "abs_error": abs(t - v), "ulp_error": abs(t - v) / ul,
            "budget_ratio": float(rb[k_]) if j == int(rba[k_]) else None,
        })


def _num(p: float):
    return int(p) if float(p).is_integer() else p

