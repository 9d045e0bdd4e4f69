"""Diagnoses a user can act on: what is wrong with a table, in one line each.

Read after the verdict (:func:`peproof.oracle.check`), on a sample of the rows:

* the parameters in which the identified variant differs from the expected one, named as the
  bugs that produce them (the h-1 denominator, swapped halves, an offset from a padding index);
* a defect confined to some channels or rows, localised and tested against simple causes
  (sin and cos of a pair swapped, a sign flipped, a channel zeroed or scaled, a row zeroed or
  holding another position's values);
* defects spread over the table, tested against pipelines known to produce them (positions or
  frequencies rounded to a 16-bit format before the product);
* NaN or infinity (float16 overflow), and tables that are not sinusoidal at all (rows all equal,
  a transposed table, random initialisation, an uninitialised buffer).

Every test compares the table with values built from the identified variant's encoding and its
error model (:mod:`peproof.oracle.common.budget`); a cause is named only when it explains the
entries.
"""

from __future__ import annotations

import numpy as np

from peproof.formats import BFLOAT16, FLOAT16, get_format

from ..common.budget import Budget
from ..common.exact import Plan
from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .pairs import (
    other_pairing,
    other_pairing_sentence,
    pairs_sentence,
    read_pairs,
    shared_sentence,
)
from .variant import LAYOUT_NAMES, describe_difference, same_frequencies, scale_expr

SAMPLE = 1024
EXPLAINS = 0.99  # a cause must bring this fraction of the sampled entries within the bound
REMOVES = 0.5  # and leave at most this share of those the variant without it leaves outside


def diagnose(rep, arr, pos: np.ndarray, given: bool) -> list[str]:
    out: list[str] = []
    if rep.position_map is not None:  # the whole table, explained by a map of its positions
        out.append(rep.position_map.text)
        want, iv = rep.expected, rep.position_map.variant
        if want is not None and not iv.same_as(want, rep.d):
            out += _variant_lines(want, iv, rep.d)
        return out
    if rep.nonfinite:
        out.append(_nonfinite(rep))
    ident, want, d = rep.identified, rep.expected, rep.d
    iv = ident.variant
    if rep.verdict == OUTSIDE or iv is None:
        if want is not None and not rep.nonfinite and np.isfinite(
                np.asarray(arr[:SAMPLE], dtype=np.float64)).all():
            lines = _pipelines(rep, arr, pos, given, want)
            if lines:  # the expected variant, computed with a known mistake
                rep.explained_by = want
                return out + lines
        return out + _outside(rep, arr, pos)
    if rep.verdict in (CONFORMS, WITHIN):
        return out  # the expected variant fits: no difference the error model explains is named
    if want is not None and not iv.same_as(want, d) and ident.confident:
        got_c, want_c = _constrained(rep, arr, pos, given, iv), _constrained(rep, arr, pos,
                                                                            given, want)
        if got_c >= CONSTRAINED * want_c:
            out += _variant_lines(want, iv, d)
        else:  # it fits where the format allows any value: no evidence against the expected
            free = (f"{rep.pipe.name} leaves the values free: the error model bounds "
                    f"{100 * got_c:.0f}% of its sampled entries below the amplitude, "
                    f"{100 * want_c:.0f}% of the expected variant's")
            diff = describe_difference(want, iv, d)
            out.append(f"the variant named ({diff}) cannot be ruled out, but the table does "
                       f"not show it: it fits mostly where {free}; a table of the expected "
                       "variant with a defect fits it as well"
                       if rep.verdict == VARIANT else
                       f"the closest variant found ({diff}) fits mostly where {free}; not "
                       "evidence of another variant")
    c = rep.counted
    if c is not None and c.over_budget and not rep.nonfinite:
        many = int((c.row_budget > 1.0).sum()) > 8
        lines = _pipelines(rep, arr, pos, given, c.variant) if many else []
        out += lines or _localise(rep, arr, pos, given, c) or (
            [] if many else _pipelines(rep, arr, pos, given, c.variant))
    if not out and rep.verdict == WRONG:  # nothing named yet: pairs sharing one frequency?
        head = np.asarray(arr[:SAMPLE], dtype=np.float64)
        pr = read_pairs(head, pos[: head.shape[0]]) if np.isfinite(head).all() else None
        if pr is not None and pr.shared():
            out.append(shared_sentence(pr)[2:])
    if rep.verdict == DEGENERATE:
        col = rep.collisions
        ex = col["examples"][0]
        out.append(f"positions {', '.join(map(str, ex))} give identical rows "
                   f"({col['identical_row_groups']} such groups); {rep.pipe.name} holds "
                   f"integer positions exactly only up to {rep.pipe.horizon}")
    return out


# ----------------------------------------------------------------------------- variant
#: the identified variant's differences are named only when the error model constrains at
#: least this fraction as many of its entries as of the expected variant's (:func:`_constrained`)
CONSTRAINED = 0.5


def _constrained(rep, arr, pos, given, iv) -> float:
    """The fraction of the sampled entries whose bound under the variant ``iv`` is below the
    amplitude ``|s|``: the entries that can tell it from another variant.  A 16-bit pipeline
    leaves an entry free where its angle is lost to rounding (a position far beyond the
    format's horizon); a variant placed there fits any table on those entries, as an offset of
    millions in bfloat16 fits a table whose rows were shifted by one."""
    _, P, _ = _sample(rep, arr, pos, given, iv=iv)
    plan, _, B = _model(rep, P, iv=iv)
    with np.errstate(invalid="ignore"):
        return float((B < abs(plan.scale)).mean()) if B.size else 0.0


def _variant_lines(want, got, d: int) -> list[str]:
    out = []
    if want.family == "paper" and got.family == "h-1" and same_base(want, got):
        out.append("the frequencies use the h-1 exponent i/(d/2-1) (tensor2tensor, fairseq) "
                   "where the paper's 2i/d was expected")
    elif want.family == "h-1" and got.family == "paper" and same_base(want, got):
        out.append("the frequencies use the paper's exponent 2i/d where the h-1 exponent "
                   "i/(d/2-1) was expected")
    elif not same_frequencies(want, got, d):
        out.append(f"frequencies of {got.family} base {got.base}"
                   + (f", max frequency {got.max_freq}" if got.max_freq != 1 else "")
                   + (" in full turns" if got.turns else "")
                   + f" where {want.family} base {want.base} was expected")
    pair = {want.layout, got.layout}
    if pair == {"sin_cos", "cos_sin"}:
        out.append(f"sin and cos halves swapped: {LAYOUT_NAMES[got.layout]} where "
                   f"{LAYOUT_NAMES[want.layout]} was expected")
    elif want.layout != got.layout:
        out.append(f"channels laid out as {LAYOUT_NAMES[got.layout]} where "
                   f"{LAYOUT_NAMES[want.layout]} was expected")
    if want.offset != got.offset:
        k = got.offset - want.offset
        why = {1: " (off by one: a padding index counted as a position?)",
               2: " (fairseq-style: positions start after padding_idx = 1)"}.get(k, "")
        out.append(f"positions start at {got.offset} where {want.offset} was expected{why}")
    if scale_expr(want.scale, d) != scale_expr(got.scale, d):
        out.append(f"scale {got.scale} where {want.scale} was expected")
    if want.order != got.order:
        out.append(f"rows in {got.order} order where {want.order} was expected")
    return out


def same_base(a, b) -> bool:
    return a.base == b.base and a.max_freq == b.max_freq and a.turns == b.turns


# ----------------------------------------------------------------------------- sampling
def _sample(rep, arr, pos, given, keep_rows: int = SAMPLE, iv=None):
    """First rows (not padding): ``(row indices, positions under the variant ``iv`` (default:
    the identified one), table values)``."""
    iv = iv or rep.identified.variant
    n = arr.shape[0]
    rows = np.arange(min(n, keep_rows // 2 + len(rep.padding)))
    if n > len(rows):  # and a spread over the rest, where later defects show
        rows = np.unique(np.concatenate([rows, np.linspace(len(rows), n - 1,
                                                           keep_rows // 2).astype(np.int64)]))
    rows = rows[~np.isin(rows, rep.padding)]
    P = pos if given or iv.order == "forward" else iv.positions(n)
    return rows, P[rows], np.asarray(arr[rows], dtype=np.float64)


def _model(rep, P, omega=None, iv=None):
    """Values of a variant (default: the identified one) at positions ``P`` (optionally other
    frequencies) and the error model's bound for each entry."""
    iv = iv or rep.identified.variant
    plan = Plan(iv.encoding(rep.d))
    w = plan.omega if omega is None else omega
    x = (P + plan.offset)[:, None] * w[None, :]
    v = plan.assemble(np.sin(x), np.cos(x)) * plan.scale
    bud = Budget(plan, rep.pipe, rep.dtype)
    B = bud.bound(bud.angle_error(P, plan.angles(P)), v) + plan.row_bound(P) * (1 + bud.beta)
    return plan, v, B


def _explains(within: float, base: float) -> bool:
    """A cause that leaves ``within`` of the sampled entries within the bound, where the
    variant without it leaves ``base``, explains the table: most entries, and at most half as
    many outside as without it (a float16 table with a channel zeroed was said to have its
    frequencies rounded to bfloat16: one entry in 32000 more within; positions rounded where
    the format leaves the values free change nothing the bound can see)."""
    return within >= EXPLAINS and within > base and 1 - within <= REMOVES * (1 - base)


def _fraction_within(t, v, B) -> float:
    with np.errstate(invalid="ignore"):
        return float((np.abs(t - v) <= B).mean())


# ----------------------------------------------------------------------------- localise
def _localise(rep, arr, pos, given, c) -> list[str]:
    d = rep.d
    ch = np.nonzero(c.channel_over)[0]
    rb = c.row_budget
    bad = c.row_index[rb > 1.0] if c.row_index is not None else np.zeros(0, int)
    by_rows = len(bad) and len(bad) <= max(1, len(rb) // 4)
    by_channels = len(ch) and len(ch) <= max(2, d // 4)
    if by_rows and by_channels:  # the defect is confined to whichever is the smaller share
        by_channels = len(ch) / d < len(bad) / max(1, len(rb))
    if by_channels:
        return _channels(rep, arr, pos, given, ch)
    if by_rows:
        return _rows(rep, arr, pos, given, bad)
    return []


def _channels(rep, arr, pos, given, ch) -> list[str]:
    rows, P, T = _sample(rep, arr, pos, given)
    plan, v, B = _model(rep, P)
    pairs = sorted({int(plan.slots[0][j]) for j in ch})
    out = []
    for i in pairs[:4]:
        js, jc = plan.enc.channel(i, "sin"), plan.enc.channel(i, "cos")
        ts, tc = T[:, js], T[:, jc]
        vs, vc, bs, bc = v[:, js], v[:, jc], B[:, js], B[:, jc]
        chans = f"pair {i} (channels {js}, {jc})"
        if _fraction_within(ts, vc, bc) >= EXPLAINS and _fraction_within(tc, vs, bs) >= EXPLAINS:
            out.append(f"{chans}: sin and cos swapped")
            continue
        said = {j: _one_channel(j, i, "sin" if j == js else "cos", t_, v_, b_)
                for j, t_, v_, b_ in ((js, ts, vs, bs), (jc, tc, vc, bc)) if j in ch}
        alone = {j: bool((np.abs(T[:, j] - v[:, j]) > B[:, j]).any()) for j in said}
        for j in sorted(said, key=lambda j: not alone[j]):  # outside only through its pair last
            other = jc if j == js else js
            out.append(said[j] if alone[j] or not alone.get(other) else
                       f"{said[j].split(':')[0]}: no sampled entry outside the error model on "
                       f"its own; outside with channel {other}, the other half of its pair")
        if not said:
            out.append(f"{chans}: entries outside the error model")
    if len(pairs) > 4:
        out.append(f"... and {len(pairs) - 4} more pairs")
    return out


def _one_channel(j, i, comp, t, v, b) -> str:
    head = f"pair {i} (channel {j}, {comp})"
    if not t.any():
        return f"{head}: all zeros"
    if _fraction_within(t, -v, b) >= EXPLAINS:
        return f"{head}: sign flipped"
    if np.ptp(t) == 0:
        return f"{head}: constant {t[0]:.6g}"
    big = np.abs(v) > 0.1 * np.abs(v).max()
    if big.any():
        k = float(np.median(t[big] / v[big]))
        if k and _fraction_within(t, k * v, b * max(1.0, abs(k))) >= EXPLAINS > \
                _fraction_within(t, v, b):  # a scale explains what the values alone do not
            return f"{head}: scaled by {k:.6g}"
    n_out = int((np.abs(t - v) > b).sum())
    return f"{head}: {n_out} of the first {len(t)} entries outside the error model"


def _rows(rep, arr, pos, given, bad) -> list[str]:
    rows, P, T = _sample(rep, arr, pos, given, keep_rows=4096)
    plan, v, B = _model(rep, P)
    out = []
    for r in bad[:4]:
        r = int(r)
        t = np.asarray(arr[r], dtype=np.float64)
        p = _p(pos[r] if given or rep.identified.variant.order == "forward"
               else rep.identified.variant.positions(arr.shape[0])[r])
        head = f"row {r} (position {p})"
        if not t.any():
            out.append(f"{head}: all zeros")
            continue
        err = np.abs(v - t[None, :]) <= B
        hit = np.nonzero(err.all(axis=1))[0]
        hit = [k for k in hit if rows[k] != r]
        if len(hit) == 1:
            out.append(f"{head}: holds the values of position {_p(P[hit[0]])} (rows swapped or "
                       "shifted?)")
            continue
        if hit:  # the error model of the dtype does not single one out: say only that
            near = sorted(hit, key=lambda k: abs(P[k] - float(p)))[:3]
            out.append(f"{head}: its values fit {len(hit)} other sampled positions (nearest: "
                       f"{', '.join(str(_p(P[k])) for k in near)}), which {rep.pipe.name}'s error "
                       "model cannot tell apart, but not its own (rows swapped or shifted?)")
            continue
        out.append(f"{head}: entries outside the error model")
    if len(bad) > 4:
        out.append(f"... and {len(bad) - 4} more rows")
    return out


# ----------------------------------------------------------------------------- pipelines
def _pipelines(rep, arr, pos, given, v) -> list[str]:
    """Pipelines known to spoil a whole table, tried against variant ``v``: positions or
    frequencies rounded to a 16-bit format before the product (in a wider pipeline)."""
    rows, P, T = _sample(rep, arr, pos, given, iv=v)
    plan = Plan(v.encoding(rep.d))
    base = _fraction_within(T, *_model(rep, P, iv=v)[1:])
    for fmt in (FLOAT16, BFLOAT16):
        if fmt.p >= rep.pipe.p:
            continue
        q = fmt.round(P + plan.offset) - plan.offset
        if not np.array_equal(q, P) and _explains(_fraction_within(T, *_model(rep, q, iv=v)[1:]),
                                                  base):
            k = np.nonzero(q != P)[0]
            return [f"positions were rounded to {fmt.name} before the product (exact only up "
                    f"to {fmt.horizon}; position {_p(P[k[0]])} became {_p(q[k[0]])})"]
        w = fmt.round(plan.omega)
        if not np.array_equal(w, plan.omega) and _explains(_fraction_within(
                T, *_model(rep, P, omega=w, iv=v)[1:]), base):
            return [f"the frequencies were rounded to {fmt.name} before the product "
                    f"(relative error up to {fmt.u:.2g})"]
    return _exponents(rep, T, P, plan, v, base)


def _exponents(rep, T, P, plan, v, base) -> list[str]:
    """The variant's frequencies with the exponent's denominator off by one (``2i/(d-1)`` for
    the paper's ``2i/d``, ``i/(h-2)`` for h-1's ``i/(h-1)``): a typo that no base of the family
    reproduces."""
    from .variant import family_rate

    d, h = rep.d, rep.d // 2
    rate = family_rate(v.family, d) if v.family != "nerf" else None
    if rate is None or h < 3:
        return []
    k, den = (2, d) if v.family == "paper" else (1, h - 1)
    lnb = float(np.log(float(v.base)))
    i = np.arange(h, dtype=np.float64)
    for den2 in (den - 1, den + 1):
        w = plan.omega[0] * np.exp(-lnb * k * i / den2)
        if _explains(_fraction_within(T, *_model(rep, P, omega=w, iv=v)[1:]), base):
            what = {"paper": f"2i/d = 2i/{d}", "h-1": f"i/(d/2-1) = i/{h - 1}"}[v.family]
            return [f"the frequencies use the exponent {k if k > 1 else ''}i/{den2} where the "
                    f"{v.family} family's {what} was expected (the denominator off by "
                    f"{den2 - den:+d})"]
    return []


# ----------------------------------------------------------------------------- non-finite
def _nonfinite(rep) -> str:
    nf = rep.nonfinite
    p = nf["first_position"]
    fmts = {rep.dtype.name, rep.pipe.name, rep.stored.name}
    if "float16" in fmts and nf["contiguous_to_end"]:
        return (f"float16 overflow: rows from position {p} on hold inf or NaN (float16's "
                f"largest finite number is {get_format('float16').max:.0f}: the position or the "
                "angle overflowed)")
    if nf["contiguous_to_end"]:
        return f"rows from position {p} (row {nf['first_row']}) on hold NaN or infinity"
    return (f"{nf['entries']} entries in {nf['rows']} rows hold NaN or infinity (first at row "
            f"{nf['first_row']}, position {p})")


# ----------------------------------------------------------------------------- outside
def _outside(rep, arr, pos) -> list[str]:
    n, d = arr.shape
    head = np.asarray(arr[: min(n, SAMPLE)], dtype=np.float64)
    fin = head[np.isfinite(head)]
    out = []
    if n > 1 and np.isfinite(head).all() and (head == head[0]).all():
        out.append(f"every row is the same vector: the table was added along the wrong axis "
                   f"(indexed by the batch, not the position)?{_which_position(rep, head[0])}")
        return out
    if n != d and n % 2 == 0 and n >= 4 and d >= 2:
        from .identification import identify

        t = identify(np.ascontiguousarray(head.T) if n <= SAMPLE else
                     np.asarray(arr, dtype=np.float64).T)
        if t.confident:
            out.append(f"the table is transposed ({n} x {d}): its columns are the encoding "
                       f"({t.name}); pass table.T")
            return out
    from .posmap import unread_positions

    line = unread_positions(head, rep.dtype.u if rep.dtype.is_binary else 2.0**-24)
    if line:
        return out + [line]
    if fin.size and (np.abs(fin).max() > 1e6 or (fin[fin != 0].size and
                                                  np.abs(fin[fin != 0]).min() < 1e-30)
                     or fin.size < head.size):
        lo = np.abs(fin[fin != 0]).min() if (fin != 0).any() else 0.0
        out.append(f"values span {lo:.3g} .. {np.abs(fin).max():.3g}"
                   + (" with NaN or infinity" if fin.size < head.size else "")
                   + ": an uninitialised buffer (torch.empty, np.empty) that was never filled?")
        return out
    if np.isfinite(head).all() and n >= 8:
        line = _affine(rep, head)
        if line:
            return out + [line]
    pr = read_pairs(head, pos[: head.shape[0]]) if np.isfinite(head).all() else None
    if pr is not None:  # exact sin/cos pairs: never called random, whatever their frequencies
        return out + [pairs_sentence(pr) + shared_sentence(pr)] + rep.identified.notes[:1]
    other = other_pairing(head[:256]) if np.isfinite(head).all() else None
    if other is not None:  # pairs in another layout (a 2-D table's x and y parts): not random
        return out + [other_pairing_sentence(other)] + rep.identified.notes[:1]
    if fin.size > 64:
        m, s = float(fin.mean()), float(fin.std())
        kurt = float(((fin - m) ** 4).mean() / s**4) if s > 0 else 0.0
        if s > 0 and abs(m) < 0.2 * s and 1.5 < kurt < 4.5:
            out.append(f"values look like random initialisation (mean {m:.3g}, std {s:.3g}, no "
                       "sin/cos pairs): was the buffer re-initialised, e.g. by an init pass over "
                       "all parameters?")
            return out
    return out + rep.identified.notes[:1]


def _affine(rep, head: np.ndarray) -> str | None:
    """A sinusoidal table moved and scaled as a whole, ``a E + b`` (PatchTST normalises its
    table: ``(E - mean) / (10 std)``): the pairs then lie on one circle of radius ``a`` around
    ``(b, b)``.  For each pairing, ``b`` and ``a`` are fitted by least squares on
    ``x^2 + y^2 = 2 b (x + y) + (a^2 - 2 b^2)``; if the circle fits every sampled pair and
    ``(table - b) / a`` is identified with confidence, the transform is named."""
    from .identification import identify

    n, d = head.shape
    if d < 4 or d % 2:
        return None
    u = max(rep.dtype.u, 2.0**-52)
    for sl in ((slice(0, None, 2), slice(1, None, 2)), (slice(0, d // 2), slice(d // 2, d))):
        x, y = head[:, sl[0]].ravel(), head[:, sl[1]].ravel()
        A = np.stack([2 * (x + y), np.ones_like(x)], axis=1)
        (b, c), *_ = np.linalg.lstsq(A, x * x + y * y, rcond=None)
        a2 = c + 2 * b * b
        if not a2 > 0:
            continue
        a = float(np.sqrt(a2))
        spread = np.abs(np.hypot(x - b, y - b) - a).max() / a
        if spread > 64 * u or (abs(b) <= 64 * u * a and abs(a - 1) <= 64 * u):
            continue
        ident = identify((head - b) / a, dtype=rep.dtype.name if rep.dtype.is_binary else None)
        if ident.confident:
            return (f"an affine transform of a sinusoidal table: (table - ({b:.6g})) / {a:.6g} "
                    f"is {ident.name} (mean-centred and scaled, as PatchTST's "
                    "(pe - mean) / (10 std)?); peproof checks the table before such a transform")
    return None


def _which_position(rep, row) -> str:
    from .variant import Variant

    v = rep.expected or Variant()
    plan = Plan(v.encoding(rep.d))
    P = np.arange(4096, dtype=np.float64)
    ref = plan.values(P)
    hit = np.nonzero(np.abs(ref - row[None, :]).max(axis=1) <= 1e-3 * abs(plan.scale))[0]
    return f" (each row is the encoding of position {_p(P[hit[0]])})" if hit.size else ""


def _p(x):
    return int(x) if float(x).is_integer() else float(x)
