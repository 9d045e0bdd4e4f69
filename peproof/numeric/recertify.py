"""The separation scan's chunks checked before the merge uses them, and the result certified
again at the end from the encoding; why no corrupted chunk can change a certified result.

A chunk result (:func:`peproof.numeric.scan.scan_chunk`) holds three kinds of fields.

(E) **Fields fixed by the job**: ``a``, ``b``, the proved bound ``bound`` with its ``pad`` and the
    candidate ``window``.  :func:`check_chunk` recomputes them exactly (the bound from the arb
    seeds of the chunk's own tables, the same error bookkeeping as :mod:`.expo`, and the job's
    ``shrink`` and ``slack``) and requires equality, as it requires every offset a list names to
    lie in the chunk, lists sorted and within ``cap``, ``min``/``argmin`` to be the least named
    candidate, the candidates within ``window`` of it, and the counts to agree with the names.
(N) **Named values**: each candidate ``(k, D~(k))``, the offsets certainly closer than ``D(1)``,
    the first certain decrease.  :func:`audit` evaluates them in arb from the encoding
    (``D(k) = 4 sum_j sin^2(omega_j k / 2)``): a stored value whose distance from the arb ball of
    ``D(k)`` exceeds the chunk's bound, a "certainly closer" offset with ``D(k) > D(1)``, a
    "certain" decrease with ``D(k+1) > D(k)``, each marks its chunk as lying.
(U) **Statements about offsets the chunk does not name**: no other offset of ``a..b-1`` has
    ``D~(k)`` within the window of the chunk's minimum; exactly ``closer_sure`` offsets are
    certainly closer than ``D(1)`` and the others near it are in ``closer_maybe``; no certain
    decrease precedes ``decrease_sure`` and the undecided steps before it are
    ``decrease_maybe``.  No check short of scanning the chunk again can confirm these: a chunk
    that *omits* the true minimum from its candidates, or lowers ``closer_sure``, passes (E) and
    (N) untouched.

What the output reports is computed from (N) only through arb: the minimum's ball and its ties
are arb values at named candidates, the undecided closer offsets and steps are decided in arb,
and the first decrease is confirmed in arb.  So a lie in (E) or (N) is caught, and its chunk is
recomputed.  A lie in (U) is excluded by the integrity of the chunk instead
(:mod:`peproof.numeric.checkpoint`): a resumed chunk must be byte for byte a file this user's
peproof wrote for this chunk of this scan, its SHA-256 listed in the manifest under a MAC made
with a key kept outside the checkpoint (``~/.local/state/peproof/checkpoint.key``, mode 0600),
or it is recomputed.  A change of any byte of a chunk (a flip, a truncation, an edit, another
run's chunk, two chunks swapped) changes its SHA-256; a matching manifest line needs the key.
Together: **a corruption made without the key is recomputed before the merge; one made with the
key must still survive (E) and (N), so only a deliberate forgery of a universal statement by
the key's owner could change a result** (as editing the code could).  Last, :func:`final`
checks the merged result against the encoding once more: a minimum claimed must not lie above
``D(1)`` (an omitted candidate of chunk 0 shows here), and the steps of ``D`` on the first
offsets are re-certified one by one up to the first decrease (at most :data:`PREFIX`): a
contradiction names the chunk holding the offset it concerns, which is recomputed.

A freshly computed chunk failing any of this is a bug (or a broken worker): the run stops with an
internal error instead of using it.  ``numeric/test_recertify.py`` corrupts a real checkpoint in
hundreds of ways, and forges chunks *with* the key to show which lies the arb layer catches on
its own (every (E) and (N) lie) and which only the integrity layer does (the (U) lies).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

from peproof.numeric import expo, scan

#: offsets at the start whose steps ``D(k+1) - D(k)`` :func:`final` certifies one by one
PREFIX = 64
_LISTS = ("closer_sure_at", "closer_maybe", "decrease_maybe")
#: the fields of a chunk result, all required and no other
KEYS = frozenset({"a", "b", "bound", "pad", "window", "min", "argmin", "candidates", "overflow",
                  "closer_sure", "closer_sure_at", "closer_maybe", "closer_overflow",
                  "decrease_sure", "decrease_maybe", "decrease_overflow"})


@lru_cache(maxsize=64)
def _doubling_err(d: int, family: str, base: str, step: int, n: int) -> Fraction:
    """The error bound :func:`expo.doubling` gives a table of ``n`` columns (no table built)."""
    om = list(scan._omegas(d, family, base, scan.TABLE_PREC))
    err, width, m = Fraction(0), 1, 0
    while width < n:
        s = expo.seed(om, step * (1 << m), scan.TABLE_PREC)
        err = max(err, expo.mul_err(err, s.err))
        width += min(width, n - width)
        m += 1
    return err


def expected(job: dict) -> dict:
    """``bound``, ``pad`` and ``window`` that :func:`scan.scan_chunk` computes for ``job``,
    recomputed from the job alone (one arb seed at ``a`` and cached doubling errors)."""
    return dict(_expected(job["d"], job["family"], job["base"], job["a"], job["b"],
                          job.get("cols", scan.COLS), job.get("shrink", 1.0),
                          job.get("slack", 2.0**-40)))


@lru_cache(maxsize=4096)
def _expected(d: int, family: str, base: str, a: int, b: int, cols: int, shrink: float,
              slack: float) -> tuple:
    n = b - a + 1  # the scan evaluates D(b) too
    cols = max(1, min(cols, n))
    rows = -(-n // cols)
    om = list(scan._omegas(d, family, base, scan.TABLE_PREC))
    e_r = expo.mul_err(expo.seed(om, a, scan.TABLE_PREC).err,
                       _doubling_err(d, family, base, cols, rows))
    _, e_j = scan._column_table(d, family, base, cols)
    pad = 8 * float(np.spacing(np.float64(2 * d + 1)))
    bound = expo.fraction_up(scan.chunk_bound(d // 2, e_r, e_j)) * shrink + pad
    return (("bound", bound), ("pad", pad), ("window", 2 * bound + slack))


def _ints(xs, lo: int, hi: int, cap: int) -> bool:
    return (isinstance(xs, list) and len(xs) <= cap
            and all(type(k) is int and lo <= k < hi for k in xs)
            and all(x < y for x, y in zip(xs, xs[1:], strict=False)))


def _number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def check_chunk(job: dict, r) -> str | None:  # noqa: C901 - one check per field, in order
    """None when the stored result ``r`` of ``job`` passes the (E) checks and the structure of
    the named fields (module docstring); else what is wrong, in a few words."""
    if not isinstance(r, dict) or set(r) != KEYS:
        return "not a chunk result (its fields differ)"
    a, b, cap = job["a"], job["b"], job.get("cap", 20000)
    if r.get("a") != a or r.get("b") != b:
        return "its offsets are not the job's"
    want = expected(job)
    for key in ("bound", "pad", "window"):
        if r.get(key) != want[key]:
            return f"its {key} is not the bound this chunk's tables give"
    cands = r.get("candidates")
    if (not isinstance(cands, list) or not cands or len(cands) > cap
            or not all(isinstance(c, list) and len(c) == 2 and type(c[0]) is int
                       and _number(c[1]) for c in cands)):
        return "malformed candidates"
    ks = [c[0] for c in cands]
    if not _ints(ks, a, b, cap):
        return "candidates outside the chunk or out of order"
    if not _number(r.get("min")) or r["min"] != min(c[1] for c in cands):
        return "its minimum is not its least candidate"
    if r.get("argmin") != next(k for k, v in cands if v == r["min"]):
        return "its argmin is not the offset of its minimum"
    if any(v > r["min"] + r["window"] for _, v in cands):
        return "a candidate lies outside the window"
    for key in ("overflow", "closer_overflow", "decrease_overflow"):
        if type(r.get(key)) is not bool:
            return f"malformed {key}"
    if r["overflow"] != (len(cands) == cap and r["overflow"]):
        return "overflow without a full candidate list"
    for key in _LISTS:
        if not _ints(r.get(key), max(a, 2) if key != "decrease_maybe" else a, b, cap):
            return f"{key} outside the chunk or out of order"
    for flag, key in (("closer_overflow", "closer_maybe"), ("decrease_overflow",
                                                            "decrease_maybe")):
        if r[flag] and len(r[key]) != cap:
            return f"{flag} without a full {key}"
    n_sure = r.get("closer_sure")
    if type(n_sure) is not int or not len(r["closer_sure_at"]) == min(n_sure, cap) <= n_sure:
        return "closer_sure does not match the offsets it names"
    if set(r["closer_sure_at"]) & set(r["closer_maybe"]):
        return "an offset both certainly and possibly closer"
    ds = r.get("decrease_sure")
    if ds is not None and not (type(ds) is int and a <= ds < b):
        return "decrease_sure outside the chunk"
    if ds is not None and any(k >= ds for k in r["decrease_maybe"]):
        return "an undecided step after the first certain decrease"
    return None


def _outside(ball: flint.arb, value: float, bound: float) -> bool:
    """True when arb certifies ``|ball - value| > bound``."""
    diff = ball - flint.arb(value)
    return bool(diff > flint.arb(bound) or diff < -flint.arb(bound))


def audit(dk, res: list[dict]) -> dict[int, str]:
    """The (N) checks in arb: ``{chunk index: what it got wrong}`` (empty when none)."""
    bad: dict[int, str] = {}
    d1 = dk(1)
    for i, r in enumerate(res):
        for k, v in r["candidates"]:
            ball = dk(k)
            if _outside(ball, v, r["bound"]):
                bad[i] = (f"its candidate D~({k}) = {v!r} is not within its bound of D({k}) in "
                          f"arb, {ball.str(8, radius=False)}")
                break
        if i in bad:
            continue
        for k in r["closer_sure_at"]:
            if dk(k) > d1:
                bad[i] = f"it says D({k}) < D(1), arb says otherwise"
                break
        k = r["decrease_sure"]
        if i not in bad and k is not None and dk(k + 1) > dk(k):
            bad[i] = f"it says D({k + 1}) < D({k}), arb says otherwise"
    return bad


def chunk_of(jobs: list[dict], k: int) -> int:
    """The index of the chunk scanning offset ``k`` (and the step ``D(k+1) - D(k)``)."""
    lo, hi = 0, len(jobs) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if jobs[mid]["a"] <= k:
            lo = mid
        else:
            hi = mid - 1
    return lo


def final(dk, jobs: list[dict], n_pos: int, min_ball: flint.arb,
          first: int | None) -> dict[int, str]:
    """The merged result against the encoding (module docstring): ``{chunk: why}``."""
    bad: dict[int, str] = {}
    d1 = dk(1)
    if min_ball > d1:
        bad[chunk_of(jobs, 1)] = ("the minimum it led to lies above D(1): an offset is "
                                  "missing from its candidates")
        return bad
    if first is not None and not dk(first + 1) < dk(first):
        bad[chunk_of(jobs, first)] = f"arb does not confirm its first decrease at {first}"
        return bad
    top = min(PREFIX, n_pos - 2, first if first is not None else PREFIX)
    prev = d1
    for k in range(1, top + 1):
        nxt = dk(k + 1)
        if k < (first if first is not None else n_pos) and nxt < prev:
            bad[chunk_of(jobs, k)] = f"D({k + 1}) < D({k}) in arb, a decrease it does not report"
            return bad
        if nxt < min_ball:
            bad[chunk_of(jobs, k + 1)] = f"D({k + 1}) lies below the minimum it led to"
            return bad
        prev = nxt
    return bad
