"""Floors of the squared distance, checked in Coq from a certificate (``lib/Floor.v``).

The shape, recognised by what the statement says (never by a claim's id)::

    forall a b (integers), 0 <= a < b <= N - 1:
        Sum((1 - cos(k w_j))**2 + sin(k w_j)**2, (j, lo, hi))
            <= Sum((sin(a w_j) - sin(b w_j))**2 + (cos(a w_j) - cos(b w_j))**2, (j, lo, hi))

"no two positions below N are closer than 0 and k" (the separation family's floors).  Both
sides are ``G(n) = sum_j (2 - 2 cos(n w_j))`` at ``n = k`` and ``n = b - a`` (Floor.v's
``pair_sq``, ``one_sq``; the arguments compared by ``field``), so the claim is
``G(k) <= G(n)`` for ``1 <= n <= N - 1``.  Python proposes a certificate (:func:`blocks`): the
offsets cut into blocks, each with the frequencies whose terms are counted; Coq's
``floor_scan`` checks every block in interval arithmetic (``chk``, computed by the VM and by
the kernel at Qed), so a wrong block, a wrong frequency or a wrong ``k`` fails the proof and
never passes it.  The float model here only decides which blocks to propose.

Other shapes are left to the other scripts (None).  A floor of this shape is refused with a
reason (a string), never a proof, when its frequencies cannot be evaluated, when it has more
than 4096 terms (a block packs its terms in 12 bits), when its certificate would exceed
:data:`MAX_BLOCKS` or :data:`MAX_TERM_EVALS`, or when the floats cannot separate the floor from
another offset by :data:`MARGIN` (an offset as close as ``k``, or closer: then the statement
is likely false).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from peproof.kernel.coq.semantic import Unprintable
from peproof.kernel.coq.translate import Untranslatable

#: the class of these proofs: the printed theorem itself (check.py uses the text as it is)
STATEMENT = "floor-statement"
#: Floor.v is loaded with the interval library (its PEI operations are Decay.v's)
NEEDS = frozenset({"interval", "floor"})
#: the size of a certificate a claim is given.  Measured (coqc 8.16, idle): 2,430 blocks of 2
#: terms (the d = 4 floor) in 2.6 s, most of it elaborating the list of blocks; 31 blocks of 256
#: terms (d = 512) in 0.4 s.  A claim gets 10 s, and twice the time under load.
MAX_BLOCKS = 5000
#: blocks times terms (each term of a block is a few interval operations in the VM, twice)
MAX_TERM_EVALS = 100000
#: how far above the floor a block's float lower bound must be (the interval evaluation in
#: Coq, on 53-bit floats, loses far less than this; a closer competitor makes a single block)
MARGIN = 1e-9


@dataclass(frozen=True)
class Shape:
    lo: int
    hi: int
    j: sp.Symbol
    omega: sp.Expr  # the frequency w_j, a function of j
    k: int
    first: sp.Symbol  # the smaller position (a)
    second: sp.Symbol  # the larger one (b)
    top: int  # N - 1


def _pair(body, j):
    """``(u, v)`` of ``(sin u - sin v)**2 + (cos u - cos v)**2`` (either order), or None."""
    terms = sp.Add.make_args(body)
    if len(terms) != 2 or not all(t.is_Pow and t.exp == 2 for t in terms):
        return None
    for t in terms:
        parts = sp.Add.make_args(t.base)
        sins = [x for x in parts if isinstance(x, sp.sin)]
        negs = [-x for x in parts if isinstance(-x, sp.sin)]
        if len(parts) == 2 and len(sins) == 1 and len(negs) == 1:
            u, v = sins[0].args[0], negs[0].args[0]
            other = next(x for x in terms if x is not t).base
            if other in (sp.cos(u) - sp.cos(v), sp.cos(v) - sp.cos(u)):
                return u, v
    return None


def _floor_arg(body):
    """``x`` of ``(1 - cos x)**2 + sin(x)**2``, or None."""
    terms = sp.Add.make_args(body)
    if len(terms) != 2 or not all(t.is_Pow and t.exp == 2 for t in terms):
        return None
    sins = [t.base for t in terms if isinstance(t.base, sp.sin)]
    rest = [t.base for t in terms if not isinstance(t.base, sp.sin)]
    if len(sins) != 1 or len(rest) != 1:
        return None
    x = sins[0].args[0]
    return x if rest[0] in (1 - sp.cos(x), sp.cos(x) - 1) else None


def shape(st) -> Shape | None:
    if st.quant != "forall" or len(st.concl) != 1 or len(st.vars) != 2:
        return None
    r = st.concl[0]
    if r.op != "<=" or not (isinstance(r.lhs, sp.Sum) and isinstance(r.rhs, sp.Sum)):
        return None
    if len(r.lhs.limits) != 1 or len(r.rhs.limits) != 1:
        return None
    (j, lo, hi), (j2, lo2, hi2) = r.lhs.limits[0], r.rhs.limits[0]
    if not all(x.is_Integer for x in (lo, hi, lo2, hi2)) or (lo, hi) != (lo2, hi2) or lo > hi:
        return None
    floor = _floor_arg(r.lhs.function)
    pair = _pair(r.rhs.function.xreplace({j2: j}), j)
    if floor is None or pair is None:
        return None
    names = {v.symbol for v in st.vars}
    if any(v.domain not in ("nonneg_integer", "integer") for v in st.vars):
        return None
    first = second = top = None
    for h in st.hyps:
        if h.op == "<" and h.lhs in names and h.rhs in names:
            first, second = h.lhs, h.rhs
    for h in st.hyps:  # b <= N - 1, or b < N
        if h.op in ("<=", "<") and second is not None and h.lhs == second and h.rhs.is_Integer:
            top = int(h.rhs) - (h.op == "<")
    if first is None or second is None or top is None or top < 1:
        return None
    if not any(v.symbol == first and v.domain == "nonneg_integer" for v in st.vars):
        return None
    u, v = pair
    for a_, b_ in ((first, second), (second, first)):
        om_u, om_v = sp.cancel(u / a_), sp.cancel(v / b_)
        if om_u == om_v and not (om_u.free_symbols & names):
            omega = om_u
            break
    else:
        return None
    kk = sp.cancel(floor / omega)
    if not kk.is_Integer or kk <= 0:
        return None
    return Shape(int(lo), int(hi), j, omega, int(kk), first, second, top)


def _omegas(sh: Shape) -> list[float]:
    f = sp.lambdify(sh.j, sh.omega, "mpmath")
    return [float(f(i)) for i in range(sh.lo, sh.hi + 1)]


def _best_range(vals: list[float]) -> tuple[int, int, float]:
    """The contiguous run of terms with the largest sum (Kadane): ``(i0, i1, sum)``."""
    best, cur, start, b0, b1 = -math.inf, 0.0, 0, 0, -1
    for i, x in enumerate(vals):
        if cur <= 0:
            cur, start = x, i
        else:
            cur += x
        if cur > best:
            best, b0, b1 = cur, start, i
    return b0, b1, best


def blocks(om: list[float], k: int, n1: int, n2: int) -> list | str:
    """The certificate: ``[(n0, n1, i0, i1)]`` (``i`` counted from the first frequency)
    covering ``[n1, n2]`` except ``k``, each block's float lower bound above ``G(k)`` by
    :data:`MARGIN`; the reason instead when an offset other than ``k`` is not (a competitor
    too close) or the certificate grows past :data:`MAX_BLOCKS` / :data:`MAX_TERM_EVALS`."""
    floor = sum(2 - 2 * math.cos(k * w) for w in om)
    aw = [abs(w) for w in om]
    evals = 0

    def low(a: int, b: int):  # Floor.v's lowt: the value at a, less its largest move on [a, b]
        nonlocal evals
        evals += len(om)
        h = b - a
        vals = [2 - 2 * math.cos(a * w) - 2 * abs(math.sin(a * w)) * h * x - (h * w) ** 2
                for w, x in zip(om, aw, strict=True)]
        i0, i1, s = _best_range(vals)
        return (i0, i1) if s > floor + MARGIN * (1 + abs(floor)) else None

    out, n = [], n1
    while n <= n2:
        if n == k:
            n += 1
            continue
        if low(n, n) is None:
            return (f"the offset {n} comes within {MARGIN:g} (relative) of the floor at {k}, "
                    "or closer, in float arithmetic: no certificate separates them")
        w = 1
        stop = k - 1 if n < k else n2
        while n + 2 * w - 1 <= stop and low(n, n + 2 * w - 1) is not None:
            w *= 2
        a, b = w, 2 * w
        while b - a > 1:
            mid = (a + b) // 2
            if n + mid - 1 <= stop and low(n, n + mid - 1) is not None:
                a = mid
            else:
                b = mid
        out.append((n, n + a - 1) + low(n, n + a - 1))
        n += a
        if len(out) > MAX_BLOCKS or len(out) * len(om) > MAX_TERM_EVALS:
            return (f"the certificate of this floor passes {len(out)} blocks of {len(om)} terms "
                    f"before offset {n} of {n2}, over the {MAX_BLOCKS} blocks / "
                    f"{MAX_TERM_EVALS} block terms a claim is given in the Coq pass's budget")
    return out


def pack(n0: int, n1: int, i0: int, i1: int) -> int:
    """One block as Floor.v's ``chk`` reads it: ``len * 2^24 + i0 * 2^12 + i1`` (its first
    offset is where the previous block ended)."""
    return (n1 - n0 + 1) * 2**24 + i0 * 2**12 + i1


def proof(st, goal, refuted: bool):
    """``(text, klass, needs)`` of the printed theorem for a floor statement, the reason (a
    string) a floor is refused, or None for another shape."""
    if refuted or goal.printer is None:
        return None
    sh = shape(st)
    if sh is None:
        return None
    pr = goal.printer
    names = {b.symbol: b.name for b in goal.binders}
    if sh.first not in names or sh.second not in names:
        return None
    if sh.omega.free_symbols - {sh.j}:
        return "the floor's frequencies depend on more than the summation index"
    if sh.hi - sh.lo >= 4096:
        return f"a floor of {sh.hi - sh.lo + 1} terms (a certificate block packs at most 4096)"
    try:
        om_values = _omegas(sh)
        with pr.binding(sh.j, "pe_i", integer=True):
            inv = pr.term(1 / sh.omega)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, Untranslatable,
            Unprintable) as exc:
        return f"the floor's frequencies are not real numbers the script can print ({exc})"
    bl = blocks(om_values, sh.k, 1, sh.top)
    if isinstance(bl, str):
        return bl
    certificate = " :: ".join(str(pack(n0, n1, i0, i1)) for n0, n1, i0, i1 in bl)
    om = f"(fun pe_i : Z => 1 / {inv})"
    n = f"({names[sh.second]} - {names[sh.first]})%Z"
    text = (f"intros; pe_cbn; pe_sums; pe_dec; "
            f"pe_floor {om} {sh.k}%Z {n} (({certificate} :: nil)%Z) 1%Z {sh.top}%Z")
    return text, STATEMENT, NEEDS
