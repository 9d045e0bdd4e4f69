"""Landmarks of the certified decay curve ``B(k)`` (:mod:`peproof.numeric.rope_decay`).

Every landmark is certified: a comparison holds when the certified intervals of the curve
separate, or else when arb separates the two values at up to 1024 bits; a comparison neither can
decide goes to ``undecided`` and the landmark is reported as not certified.

``first_rise``        least ``k > k0`` with ``B(k) > B(k-1)``, every earlier step a certified fall
``extremum``          least / largest ``B`` on ``K <= k <= N``, ties (not separated) reported
``record_prefix``     largest ``K`` with ``B(k') < B(k)`` for all ``k0 <= k <= K``, ``k < k' <= N``
                      ("the curve never climbs back to the level of any offset up to K"), with
                      the certified witness ``B(k') > B(K + 1)`` that ends it

:func:`certified_landmarks` checks the landmarks against the encoding once more: the arb ball of
``B`` at every landmark offset must meet the curve's interval there; a chunk read back from a
checkpoint that fails is recomputed (a freshly computed one failing is a bug).  The curve's other
values rest on the checkpoint's integrity (:mod:`peproof.numeric.checkpoint`).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import flint
import numpy as np

from peproof.numeric.rope_decay import TRUSTED_BASE, ArbB, Curve, certify_curve, sign
from peproof.numeric.separation import Ball
from peproof.rope import decay_bound_at_zero

CAP = 5000  # candidates resolved in arb per landmark before giving up (reported)


def first_rise(c: Curve, arb: ArbB, undecided: list[str]) -> int | None:
    """Least ``k`` in ``k0+1 .. N`` with ``B(k) > B(k-1)`` after certified falls only."""
    falls = c.hi[1:] < c.lo[:-1]  # step i: B(k0 + i + 1) < B(k0 + i), certain
    pos = 0
    while True:
        rest = np.nonzero(~falls[pos:])[0]
        if not rest.size:
            return None
        i = pos + int(rest[0])
        k = c.k0 + i + 1
        s = sign(c, arb, k, k - 1)
        if s is None:
            undecided.append(f"sign of B({k}) - B({k - 1}) not decided up to 1024 bits")
            return None
        if s > 0:
            return k
        pos = i + 1


def extremum(c: Curve, arb: ArbB, start: int, kind: str,
             undecided: list[str]) -> tuple[int, list[int]]:
    """``(k, ties)``: the certified least (``kind="min"``) or largest ``B`` on ``start..N``."""
    i0 = c.index(start)
    lo, hi = c.lo[i0:], c.hi[i0:]
    if kind == "min":
        cands = np.nonzero(lo <= hi.min())[0]
    else:
        cands = np.nonzero(hi >= lo.max())[0]
    ks = [start + int(i) for i in cands[:CAP]]
    if cands.size > CAP:
        undecided.append(f"{cands.size} offsets near the {kind}imum; only {CAP} compared")
    want = -1 if kind == "min" else 1
    best = ks[0]
    for k in ks[1:]:  # keep the best so far; a certified better one replaces it
        if sign(c, arb, k, best) == want:
            best = k
    ties = [k for k in ks if k != best and sign(c, arb, k, best) != -want]
    if ties:
        undecided.append(f"{kind}imum at {best} not separated from offsets {ties[:10]}")
    return best, ties


def record_prefix(c: Curve, arb: ArbB,
                  undecided: list[str]) -> tuple[int | None, tuple[int, int] | None]:
    """``(K, (K + 1, k'))``: every ``k0 <= k <= K`` has ``B(k) > B(k')`` for all ``k < k' <= N``;
    at ``K + 1`` the certified witness ``B(k') > B(K + 1)``.  ``K = k0 - 1`` when ``k0`` itself
    fails; ``(None, None)`` when a comparison is undecided; the witness is None when every offset
    to ``N`` is a record."""
    after = np.append(np.maximum.accumulate(c.hi[::-1])[::-1][1:], -np.inf)
    n = c.n_end - c.k0 + 1
    for i in range(n):
        k = c.k0 + i
        if c.lo[i] > after[i]:
            continue
        cands = i + 1 + np.nonzero(c.hi[i + 1:] >= c.lo[i])[0]
        above = cands[c.lo[cands] > c.hi[i]]
        if above.size:
            return k - 1, (k, c.k0 + int(above[np.argmax(c.lo[above])]))
        if cands.size > CAP:
            undecided.append(f"record at {k}: {cands.size} offsets to compare in arb")
            return None, None
        order = cands[np.argsort(-c.hi[cands])]
        for j in order:
            s = arb.sign(c.k0 + int(j), k)
            if s is None:
                undecided.append(f"B({c.k0 + int(j)}) vs B({k}) not decided up to 1024 bits")
                return None, None
            if s > 0:
                return k - 1, (k, c.k0 + int(j))
    return c.n_end, None


@dataclass
class Landmarks:
    d: int
    base: str
    n_end: int
    k_from: int
    bound: float
    b0: str | None  # exact B(0) = (d+2)/4 when the curve starts at 0
    first_rise: int | None
    rise: dict | None  # balls of B(k_r - 1) and B(k_r)
    record_prefix: int | None
    record_break: dict | None  # the witness ending the record prefix
    minimum: dict
    maximum: dict
    chunks: int
    seconds: float
    undecided: list[str] = field(default_factory=list)
    trusted_base: tuple[str, ...] = TRUSTED_BASE

    def as_dict(self) -> dict:
        return asdict(self)


def _ball(arb: ArbB, k: int) -> dict:
    return {"k": k, **asdict(Ball.of(arb(k)))}


def audit(c: Curve, lm: Landmarks) -> dict[int, str]:
    """``{chunk index: why}`` for the landmark offsets whose arb ball misses the curve."""
    arb = ArbB(c.d, c.base)
    balls = [lm.minimum, lm.maximum] + [b for part in (lm.rise, lm.record_break) if part
                                        for b in part.values()]
    bad: dict[int, str] = {}
    for b in balls:
        k = b["k"]
        i = c.index(k)
        ball = arb(k)
        if ball > flint.arb(float(c.hi[i])) or ball < flint.arb(float(c.lo[i])):
            bad[c.chunk_of(k)] = (f"its value of B({k}) misses the arb ball "
                                  f"{ball.str(8, radius=False)} by more than its bound")
    return bad


def certified_landmarks(d, n_end: int, base="10000", k_from: int = 1, *, run=None,
                        **kw) -> tuple[Curve, Landmarks]:
    """The curve and its landmarks, checked once more against arb (module docstring)."""
    from peproof.numeric.checkpoint import session

    keep = bool(run is not None and run.keep_checkpoint)
    redo: dict[int, str] = {}
    with session(remove=not keep):
        for attempt in (0, 1):
            c = certify_curve(d, n_end, base, run=run, redo=redo, **kw)
            lm = landmarks(d, n_end, base, k_from, curve=c)
            bad = audit(c, lm)
            if not bad:
                return c, lm
            fresh = sorted(set(bad) - set(c.resumed or ()))
            if fresh or attempt:
                i = (fresh or sorted(bad))[0]
                raise RuntimeError(f"chunk {i} of the decay curve as computed fails the final "
                                   f"re-certification: {bad[i]}")
            redo = bad
    raise AssertionError("unreachable")


def landmarks(d, n_end: int, base="10000", k_from: int = 1, *, curve: Curve | None = None,
              **kw) -> Landmarks:
    """Every landmark of the curve on ``0 <= k <= N`` (min and max on ``k_from <= k <= N``)."""
    t0 = time.perf_counter()
    c = curve or certify_curve(d, n_end, base, **kw)
    if not c.k0 <= k_from <= c.n_end:
        from peproof.encoding import ParameterError

        raise ParameterError(f"--from must be in {c.k0}..{c.n_end}, got {k_from}")
    arb = ArbB(c.d, c.base)
    und: list[str] = []
    kr = first_rise(c, arb, und)
    kstar, brk = record_prefix(c, arb, und)
    kmin, tmin = extremum(c, arb, k_from, "min", und)
    kmax, tmax = extremum(c, arb, k_from, "max", und)
    return Landmarks(
        d=c.d, base=c.base, n_end=c.n_end, k_from=k_from, bound=c.bound,
        b0=str(decay_bound_at_zero(c.d)) if c.k0 == 0 else None,
        first_rise=kr,
        rise=None if kr is None else {"before": _ball(arb, kr - 1), "at": _ball(arb, kr)},
        record_prefix=kstar,
        record_break=None if brk is None else {"level": _ball(arb, brk[0]),
                                               "above": _ball(arb, brk[1])},
        minimum={**_ball(arb, kmin), "ties": tmin},
        maximum={**_ball(arb, kmax), "ties": tmax},
        chunks=c.chunks, seconds=c.seconds + time.perf_counter() - t0, undecided=und,
    )
