"""Round to nearest, ties to even, with a ``p``-bit significand: exactly, on rationals.

:class:`RoundBinary` is the SymPy function ``RN_p(x)`` the precision claims
(:mod:`peproof.families.precision`) are stated with: it evaluates exactly on rationals
(:func:`round_exact`, integer arithmetic on the significand) and states its definition with
``floor``, ``log`` and ``Piecewise`` for the engines that read definitions.  :func:`exhaustive` is
the proof function deciding a universal statement over ``n <= M`` of ``RN`` terms at every ``n``
in exact integer arithmetic (NumPy ``int64``, every intermediate kept below ``2**62``).
No exponent limits: overflow and subnormals are not modelled (no position here comes near them).

It lives outside :mod:`peproof.families` so that a variant's claims (whose family modules are
imported afresh) and the paper's share one ``RoundBinary`` class.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import sympy as sp

from peproof.claims import Claim, Statement, Verdict, var

n, V_N = var("n", "nonneg_integer")
#: the scaled search stops here (a claim "none below" past it)
SEARCH_LIMIT = 2**26


def round_exact(x: Fraction, p: int) -> Fraction:
    """``x`` rounded to nearest, ties to even, with a ``p``-bit significand (exact)."""
    if x == 0:
        return Fraction(0)
    sign, x = (-1, -x) if x < 0 else (1, x)
    k = x.numerator.bit_length() - x.denominator.bit_length()  # 2**k <= x < 2**(k+1) after:
    while Fraction(2) ** k > x:
        k -= 1
    while Fraction(2) ** (k + 1) <= x:
        k += 1
    unit = Fraction(2) ** (k - p + 1)
    q = x / unit
    whole = q.numerator // q.denominator
    rest = q - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    return sign * whole * unit


class RoundBinary(sp.Function):
    """``RN_p(x)``: ``x >= 0`` rounded to nearest (ties to even) with a ``p``-bit significand
    (a position; a negative ``x`` is outside its domain: 0 by the definition, never evaluated)."""

    nargs = 2

    @classmethod
    def eval(cls, x, p):
        if isinstance(x, sp.Rational) and x >= 0 and isinstance(p, sp.Integer) and p >= 1:
            r = round_exact(Fraction(int(x.p), int(x.q)), int(p))
            return sp.Rational(r.numerator, r.denominator)
        return None

    def peproof_definition(self):
        x, p = self.args
        if isinstance(x, sp.Rational) and isinstance(p, sp.Integer):  # a closed call (built
            return RoundBinary.eval(x, p)  # unevaluated for display): its exact value
        e = sp.floor(sp.log(x) / sp.log(2)) - p + 1
        q = x / 2**e
        ties = sp.And(sp.Eq(q - sp.floor(q), sp.Rational(1, 2)), sp.Eq(sp.Mod(sp.floor(q), 2), 0))
        rounded = sp.Piecewise((sp.floor(q), ties), (sp.floor(q + sp.Rational(1, 2)), True))
        return sp.Piecewise((0, x <= 0), (2**e * rounded, True))  # positions: x >= 0


def _linear(e: sp.Expr) -> tuple[int, int, int] | None:
    """``(A, B, D)`` with ``e = (A n + B)/D``, all integers, ``A, B >= 0``, or None."""
    poly = sp.Poly(e, n) if e.free_symbols <= {n} else None
    if poly is None or poly.degree() > 1 or poly.domain not in (sp.ZZ, sp.QQ):
        return None
    a, b = (poly.coeff_monomial(n), poly.coeff_monomial(1))
    a, b = sp.Rational(a), sp.Rational(b)
    den = sp.ilcm(a.q, b.q)
    A, B = int(a * den), int(b * den)
    return (A, B, int(den)) if A >= 0 and B >= 0 else None


def _rn_block(A: int, B: int, D: int, ns: np.ndarray, p: int) -> np.ndarray | None:
    """``RN_p((A n + B)/D)`` for every ``n`` of ``ns``, exact (as float64, which holds every
    ``p <= 52``-bit result exactly); None when an intermediate may not fit in int64."""
    top = A * int(ns.max(initial=0)) + B
    if top >= 2**40 or D >= 2**20 or p > 40:
        return None
    num = A * ns + B
    out = np.zeros(ns.shape, dtype=np.float64)
    pos = num > 0
    if not pos.any():
        return out
    nu = num[pos]
    if D == 1:  # an integer below 2**40: frexp's exponent is its bit length, exactly
        k = np.frexp(nu.astype(np.float64))[1].astype(np.int64) - 1
    else:
        k = np.floor(np.log2(nu.astype(np.float64)) - math.log2(D)).astype(np.int64)
    for _ in range(2 if D != 1 else 0):  # a float estimate is off by at most one: correct it
        lo = np.where(k >= 0, D << np.maximum(k, 0), D) > np.where(
            k >= 0, nu, nu << np.maximum(-k, 0))
        k = k - lo
        hi = np.where(k + 1 >= 0, D << np.maximum(k + 1, 0), D) <= np.where(
            k + 1 >= 0, nu, nu << np.maximum(-(k + 1), 0))
        k = k + hi
    if int(k.max()) > 40 or int(k.min()) < -20:  # shifts below keep every value < 2**62
        return None
    e = k - p + 1
    res = np.empty(nu.shape, dtype=np.float64)
    for ev in range(int(e.min()), int(e.max()) + 1):
        m = e == ev
        if not m.any():
            continue
        if ev >= 0:
            den, x = D << ev, nu[m]
        else:
            den, x = D, nu[m] << (-ev)
        q, r = np.divmod(x, den)
        up = (2 * r > den) | ((2 * r == den) & (q % 2 == 1))
        res[m] = np.ldexp((q + up).astype(np.float64), ev)
    out[pos] = res
    return out


def exhaustive(stmt: Statement, claim: Claim | None = None) -> Verdict:
    """Proof function: every conclusion at every ``n`` of ``0 .. M`` (the hypothesis ``n <= M``),
    ``RN`` evaluated in exact integer arithmetic; closed conclusions are numbers already."""
    t0 = time.perf_counter()
    ver = f"numpy {np.__version__} int64, exact"

    def unknown(why: str) -> Verdict:
        return Verdict("unknown", "python (exhaustive)", ver, "exhaustive exact rounding",
                       reason=why, seconds=time.perf_counter() - t0)

    if stmt.quant != "forall" or [v.symbol for v in stmt.vars] not in ([n], []):
        return unknown("only a universal statement over one nonnegative integer n")
    tops = [h.rhs for h in stmt.hyps if h.op == "<=" and h.lhs == n and h.rhs.is_Integer]
    if len(stmt.hyps) != (1 if stmt.vars else 0) or (stmt.vars and not tops):
        return unknown("the hypotheses must be n <= M (an integer) and nothing else")
    top = int(tops[0]) if tops else 0
    sides = []
    for r in stmt.concl:
        forms = []
        for e in (r.lhs, r.rhs):
            if isinstance(e, RoundBinary) and e.args[1].is_Integer:
                lin = _linear(e.args[0])
                if lin is None:
                    return unknown(f"{e.args[0]} is not (A n + B)/D with A, B >= 0")
                forms.append(("rn", lin, int(e.args[1])))
            elif e.is_Rational:
                forms.append(("num", e, None))
            else:
                return unknown(f"{e} is neither RN_p of a linear term nor a number")
        sides.append((r.op, forms))
    chunk = 1 << 20
    for start in range(0, top + 1, chunk):
        ns = np.arange(start, min(top, start + chunk - 1) + 2, dtype=np.int64)  # one past
        memo: dict = {}

        def values(kind, f, p, ns=ns, memo=memo):
            if kind == "num":
                return (np.full(len(ns) - 1, float(f)) if f.q & (f.q - 1) == 0 else None)
            A, B, D = f
            if A == 0:  # closed: one value
                one = _rn_block(0, B, D, ns[:1], p)
                return None if one is None else np.full(len(ns) - 1, one[0])
            prev = memo.get((A, B - A, D, p))
            if prev is not None:  # (A n + B)/D is an evaluated form at n + 1
                return prev[1:]
            if (A, B, D, p) not in memo:  # over the chunk and one past it
                memo[A, B, D, p] = _rn_block(A, B, D, ns, p)
            full = memo[A, B, D, p]
            return None if full is None else full[:-1]

        ns_out = ns[:-1]
        for op, forms in sides:
            vals = []
            for kind, f, p in forms:
                vals.append(values(kind, f, p))
                if vals[-1] is None:
                    return unknown("an intermediate would not fit in int64 (or a number is not "
                                   "dyadic)")
            ok = {"==": vals[0] == vals[1], "!=": vals[0] != vals[1], "<=": vals[0] <= vals[1],
                  "<": vals[0] < vals[1]}[op]
            if not ok.all():
                bad = int(ns_out[np.argmin(ok)])
                return Verdict(
                    "refuted", "python (exhaustive)", ver, "exhaustive exact rounding",
                    witness={"point": {"n": str(bad)} if stmt.vars else {},
                             "relations": [str(r) for r in stmt.concl],
                             "values": [float(v[np.argmin(ok)]) for v in vals],
                             "certified_by": "exact integer arithmetic on the significand"},
                    seconds=time.perf_counter() - t0)
    return Verdict("proved", "python (exhaustive)", ver, "exhaustive exact rounding",
                   seconds=time.perf_counter() - t0,
                   trace=[f"every n in 0..{top}: each conclusion evaluated with RN in exact "
                          "integer arithmetic (int64, significand and remainder)"])


def first_collision(s: sp.Rational, p: int) -> int | None:
    """The least ``P >= 0`` with ``RN_p(s P) = RN_p(s (P + 1))`` below the search limit."""
    A, D = int(s.p), int(s.q)
    chunk = 1 << 20
    for start in range(0, SEARCH_LIMIT, chunk):
        ns = np.arange(start, start + chunk + 1, dtype=np.int64)
        v = _rn_block(A, 0, D, ns, p)
        if v is None:
            return None
        same = v[:-1] == v[1:]
        if same.any():
            return start + int(np.argmax(same))
    return None
