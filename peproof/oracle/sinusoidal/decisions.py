"""Decisions the float64 fast path leaves open, taken more sharply: the double-double reference
(:meth:`~peproof.oracle.common.exact.Plan.refine`, in batches), then arb balls at escalating
precision (:func:`~peproof.oracle.common.exact.certify`) within a shared budget of certified
decisions; what is still open is counted undecided, never as a failure.
"""

from __future__ import annotations

import flint
import numpy as np

from peproof.formats import Format

from ..common.budget import Budget
from ..common.exact import Plan, certify, exact_pos

ARB_BATCH = 1024  # entries sent to arb at a time


def refine_gathered(plan: Plan, pos, r, c, batch: int = 1 << 15):
    """:meth:`Plan.refine` of the gathered entries ``(pos[r], c)``, in batches (its temporaries
    are a dozen arrays the size of its input)."""
    if len(r) <= batch:
        return plan.refine(pos[r], c)
    parts = [plan.refine(pos[r[k:k + batch]], c[k:k + batch]) for k in range(0, len(r), batch)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def budget_left(res, plan, bud: Budget, pos, t, delta, left, arb_budget) -> np.ndarray:
    """Entries the float64 reference could not place against ``B``: a sharper reference, then
    arb balls (within the shared budget of certified decisions); the rest stay undecided and
    count as neither within nor over.  Returns the mask of entries certified over."""
    out = np.zeros_like(left)
    r, c = np.nonzero(left)
    vv, eb = refine_gathered(plan, pos, r, c)
    tv = t[r, c]
    dl = delta[r, plan.slots[0][c]]
    Bc = bud.alpha * np.minimum(dl, 2.0) + bud.beta * np.abs(vv) + bud.gamma
    ov, wi = bud.decide(np.abs(tv - vv), eb, Bc)
    out[r[ov], c[ov]] = True
    still = ~(ov | wi)
    r, c, tv, dl = r[still], c[still], tv[still], dl[still]
    if not r.size:
        return out
    if r.size > arb_budget[0]:
        res.budget_undecided += int(r.size)
        return out
    arb_budget[0] -= r.size
    res.arb_decisions += int(r.size)
    got = certify(plan, [exact_pos(p) for p in pos[r]], [int(j) for j in c],
                  lambda b, k: bud.ball_decide(b, float(tv[k]), float(dl[k])))
    got = np.array(got, dtype=bool)
    out[r[got], c[got]] = True
    return out


def arb_faithful(res, plan, pos, cols, tv, S, budget) -> int:
    """Certified count of entries more than one ulp from the exact value."""
    if len(pos) > budget[0]:
        res.undecided += len(pos)
        return 0
    budget[0] -= len(pos)
    res.arb_decisions += len(pos)

    def decide(b, k):
        # faithful iff |t - v| <= ulp(v): certain when the ball fits within the smallest ulp
        # over it, impossible when it misses the largest
        lo, hi = b.lower(), b.upper()
        t = flint.arb(float(tv[k]))
        if b.is_exact() and flint.arb(float(b)) == b:  # an exact value: its own ulp, exactly
            return not bool(abs(t - b) <= flint.arb(_ulp1(float(b), S)))
        a_lo = 0.0 if b.contains(0) else min(abs(float(lo)), abs(float(hi)))
        a_hi = max(abs(float(lo)), abs(float(hi)))
        u_min = flint.arb(_ulp1(a_lo * (1 - 2**-50), S))
        u_max = flint.arb(_ulp1(a_hi * (1 + 2**-50), S))
        if lo >= t - u_min and hi <= t + u_min:
            return False  # faithful
        if hi < t - u_max or lo > t + u_max:
            return True
        return None

    total = 0
    for k0 in range(0, len(pos), ARB_BATCH):  # in batches: the balls' memory stays bounded
        sl = slice(k0, k0 + ARB_BATCH)
        got = certify(plan, [exact_pos(p) for p in pos[sl]], [int(c) for c in cols[sl]],
                      lambda b, k, o=k0: decide(b, k + o))
        total += int(sum(got))
    return total


def _ulp1(x: float, S: Format) -> float:
    """:meth:`Format.ulp` of one float, without NumPy's per-call overhead."""
    if S.is_binary:
        import math

        e = math.frexp(abs(x))[1] if x != 0 else S.emin
        return math.ldexp(1.0, max(e, S.emin) - S.p)
    return float(S.ulp(np.array([x]))[0])


def arb_round(plan, pos, cols, S) -> np.ndarray:
    from ..common.exact import round_ball

    got = certify(plan, [exact_pos(p) for p in pos], [int(c) for c in cols],
                  lambda b, _k: round_ball(b, S), start_prec=2 * S.p + 40)
    return np.array(got, dtype=np.float64)
