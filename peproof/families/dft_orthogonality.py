"""DFT (orthogonality part): the N real DFS vectors are orthogonal and form a basis of R^N.

Main statements
  ``dft.geometric_sum_lemma`` (sum_{n<N} exp(2 pi i m n/N) = N [N | m], real form),
  ``dft.cos_cos_orthogonal``, ``dft.sin_sin_orthogonal``, ``dft.sin_cos_orthogonal``
  (symbolic N, k, l), ``dft.real_dfs_basis_concrete`` (Gram matrix for N = 2, 4, 6, 8 in exact
  cyclotomic arithmetic), ``dft.real_dfs_basis`` (every even N, from the orthogonality claims
  and linear algebra).

Implementation notes
  Sums ``Sum(f, (n, 0, N - 1))`` are decided by :mod:`peproof.engines.periodic`: exponential
  expansion, the geometric-sum lemma, and a z3 case analysis of which of ``k +- l`` can be a
  multiple of ``N`` in range (z3 proves a window ``lo N < L < hi N`` first, so ``N | L``
  becomes a disjunction of linear equations).  The summation variable is a plain symbol so
  that ``cos(pi n)`` is not rewritten to ``(-1)**n`` on construction.  Concrete Gram matrices
  are computed exactly in ``Q(zeta_M)`` (:mod:`peproof.engines.cyclotomic`), independently of
  the lemma; falsifiers are refuted by pointwise sums in arb.

References
  Seed 000, "A Discrete Set {0, 1, ..., N-1} with the Discrete Fourier Series".
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Statement, Verdict, var
from peproof.engines import cyclotomic, expoly, realz3
from peproof.engines.decide import with_default
from peproof.engines.periodic import LEMMA_SUM, Delta
from peproof.engines.periodic import proof as periodic_proof
from peproof.families._common import only_for
from peproof.families.dft import DFS, dfs_encoding, uneval
from peproof.seeds import FOURIER, src

pi = sp.pi
t = sp.Symbol("n")  # summation variable: no assumptions, so cos(pi n) stays a cosine
k, V_K = var("k", "integer")
l, V_L = var("l", "integer")  # noqa: E741
m, V_M = var("m", "integer")
N, V_N = var("N", "even_pos_integer")
Np, V_NP = var("N", "pos_integer")
half = sp.Rational(1, 2)
BASIS_QUOTE = "That is exactly a complete basis for functions on $\\{0, \\dots, N-1\\}$"


def S(f, size=N):  # noqa: N802
    """``sum_{n=0}^{size-1} f``."""
    return sp.Sum(f, (t, 0, size - 1))


def c(kk, size=N):
    return sp.cos(2 * pi * kk * t / size)


def s(kk, size=N):
    return sp.sin(2 * pi * kk * t / size)


IN_RANGE = (Le(0, k), Le(k, N / 2), Le(0, l), Le(l, N / 2))
INTERIOR = (Le(1, k), Le(k, N / 2 - 1), Le(1, l), Le(l, N / 2 - 1))

GEOM = Statement(
    (Eq(S(c(m, Np), Np), Np * Delta(m, 0)), Eq(S(s(m, Np), Np), 0)),
    (V_NP, V_M),
    (Le(0, m), Le(m, Np - 1)),
)
COS_COS = Statement(
    Eq(S(c(k) * c(l)), N / 2 * (Delta(k, l) + Delta(k + l, 0) + Delta(k + l, N))),
    (V_K, V_L, V_N),
    IN_RANGE,
)
SIN_SIN = Statement(Eq(S(s(k) * s(l)), N / 2 * Delta(k, l)), (V_K, V_L, V_N), INTERIOR)
SIN_COS = Statement(Eq(S(s(k, Np) * c(l, Np), Np), 0), (V_K, V_L, V_NP))

CONCRETE_N = (2, 4, 6, 8)


def _sample(expr: sp.Expr, value: int) -> sp.Expr:
    """``expr`` at ``n = value`` with sin/cos left unevaluated (SymPy would turn cos(pi/4) into
    sqrt(2)/2; the cyclotomic evaluator reads the angles instead)."""
    return expr.replace(lambda e: isinstance(e, sp.sin | sp.cos),
                        lambda e: type(e)(e.args[0].xreplace({t: value}), evaluate=False))


def _gram(sizes=CONCRETE_N):
    """sum_{n<N} PE_DFS(n)_a PE_DFS(n)_b = diag(N, N/2, ..., N/2, N)_ab for a <= b, the sums
    written out term by term."""
    rows = []
    for size in sizes:
        vec = dfs_encoding(t, size)
        for a in range(size):
            for b in range(a, size):
                want = 0 if a != b else (size if a in (0, size - 1) else sp.Rational(size, 2))
                terms = [_sample(vec[a] * vec[b], v) for v in range(size)]
                rows.append(Eq(sp.Add(*terms), want))
    return Statement(tuple(rows))


BASIS = Statement(
    (Eq(sp.Add(1, sp.Mul(2, N / 2 - 1, evaluate=False), 1, evaluate=False), N),
     Lt(0, N / 2), Lt(0, N)),
    (V_N,),
)
LINALG = (
    "pairwise orthogonal nonzero vectors are linearly independent (take the inner product of a "
    "vanishing combination with each vector)",
    "N linearly independent vectors in R^N form a basis (dimension count)",
)


def _geometric_proof(stmt: Statement, claim) -> Verdict:
    """r = exp(2 pi i m/N): r^N = exp(2 pi i m) = 1 (decided), r = 1 iff N | m iff m = 0 in range
    (z3), so for m != 0 the finite geometric series (r^N - 1)/(r - 1) vanishes; for m = 0 every
    term is 1.  Evidence: every conclusion exactly in Q(zeta) for N = 1 .. 6, m = 0 .. N-1."""
    from peproof.engines.decide import versions

    t0 = time.perf_counter()
    r_pow = expoly.expand_is_zero(uneval(sp.cos, 2, pi, m) - 1).zero and expoly.expand_is_zero(
        uneval(sp.sin, 2, pi, m)).zero
    zm, zn, zw = z3.Ints("m N w")
    solver = z3.Solver()
    solver.add(zn >= 1, zm >= 0, zm <= zn - 1, zm == zw * zn, zm != 0)
    only_zero = "proved" if solver.check() == z3.unsat else "not proved"
    checked = 0
    for size in range(1, 7):
        inst = Statement(tuple(r.map(lambda e, mm=mm, size=size: e.xreplace({m: mm, Np: size}))
                               for mm in range(size) for r in stmt.concl))
        if cyclotomic.proof(inst, None).status != "proved":
            return Verdict("unknown", "cyclotomic", "-", "geometric series",
                           reason=f"an instance with N = {size} is not confirmed")
        checked += len(inst.concl)
    trace = [f"r^N = exp(2 pi i m) = 1 for integer m: {r_pow} (exponential procedure)",
             f"0 <= m <= N-1 and N | m imply m = 0: {only_zero} (z3)",
             "m != 0: r != 1 and sum r^n = (r^N - 1)/(r - 1) = 0; m = 0: sum of N ones",
             f"evidence: {checked} instances (N = 1 .. 6, every m) exact in cyclotomic fields"]
    ok = r_pow and only_zero == "proved"
    return Verdict("proved" if ok else "unknown", "argument+z3+cyclotomic",
                   f"sympy {versions()['sympy']}, z3 {versions()['z3']}", "geometric series",
                   ("finite geometric series: (r - 1) sum_{n<N} r^n = r^N - 1",
                    "exp(2 pi i q) = 1 only for integer q", LEMMA_SUM),
                   time.perf_counter() - t0, trace=trace)


def _basis_proof(stmt: Statement, claim) -> Verdict:
    from peproof.verdicts import verdict_of as verdict  # the per-process cache

    t0 = time.perf_counter()
    used = {u: verdict(u).status for u in claim.uses}
    v = with_default(realz3.prove)(stmt)
    trace = [f"{u}: {st}" for u, st in used.items()] + [
        "Gram matrix diag(N, N/2, ..., N/2, N): the N vectors are pairwise orthogonal, nonzero",
        f"count 1 + 2(N/2 - 1) + 1 = N and positive diagonal: {v.status} ({v.engine})"]
    ok = v.status == "proved" and all(st == "proved" for st in used.values())
    return Verdict("proved" if ok else "unknown", "argument+z3", v.version, "linear algebra",
                   LINALG + v.axioms, time.perf_counter() - t0, trace=trace)


CLAIMS = [
    Claim(
        "dft.geometric_sum_lemma",
        "For 0 <= m <= N-1: sum_{n<N} cos(2 pi m n/N) = N [m = 0], sum_{n<N} sin(2 pi m n/N) = 0",
        src(FOURIER, DFS, "restricting the Fourier construction to functions sampled at these $N$"
            " points"),
        GEOM,
        "identity",
        falsifiers=(F.scale(GEOM.with_concl(GEOM.concl[:1]), half),
                    F.shift(GEOM.with_concl(GEOM.concl[1:]), 1)),
        proof=only_for(GEOM)(_geometric_proof),
        note="the lemma behind every sum in this family; its general case rests on the recorded "
             "geometric-series axiom, checked exactly for N <= 6",
    ),
    Claim(
        "dft.cos_cos_orthogonal",
        "For 0 <= k, l <= N/2: sum_n cos(2 pi k n/N) cos(2 pi l n/N) = (N/2)([k = l] + "
        "[k + l = 0] + [k + l = N]): N/2 [k = l] inside, N at k = l in {0, N/2}",
        src(FOURIER, DFS, BASIS_QUOTE),
        COS_COS,
        "identity",
        uses=("dft.geometric_sum_lemma",),
        falsifiers=(
            F.subs_rhs(COS_COS, {Delta(k + l, 0): 0, Delta(k + l, N): 0}, "no_endpoint_terms",
                       "N/2 [k = l] also at k = l in {0, N/2}"),
            F.scale(COS_COS, 2),
        ),
        proof=periodic_proof,
    ),
    Claim(
        "dft.sin_sin_orthogonal",
        "For 0 < k, l < N/2: sum_n sin(2 pi k n/N) sin(2 pi l n/N) = (N/2) [k = l]",
        src(FOURIER, DFS, "contributes a cosine and a sine"),
        SIN_SIN,
        "identity",
        uses=("dft.geometric_sum_lemma",),
        falsifiers=(F.flip_sign(SIN_SIN), F.subs_rhs(SIN_SIN, {N / 2: N}, "norm_n", "N [k = l]")),
        proof=periodic_proof,
    ),
    Claim(
        "dft.sin_cos_orthogonal",
        "For all integers k, l and N >= 1: sum_n sin(2 pi k n/N) cos(2 pi l n/N) = 0",
        src(FOURIER, DFS, "contributes a cosine and a sine"),
        SIN_COS,
        "identity",
        uses=("dft.geometric_sum_lemma",),
        falsifiers=(F.shift(SIN_COS, 1), Falsifier(
            "cos_cos_value", Statement(Eq(SIN_COS.concl[0].lhs, Np / 2 * Delta(k, l)),
                                       SIN_COS.vars), "(N/2) [k = l]")),
        proof=periodic_proof,
    ),
    Claim(
        "dft.real_dfs_basis_concrete",
        "N = 2, 4, 6, 8: the N vectors (PE_DFS(n)_a)_n have Gram matrix diag(N, N/2, ..., N/2, N)"
        " exactly, so they are a basis of R^N",
        src(FOURIER, DFS, BASIS_QUOTE),
        _gram,
        "identity",
        falsifiers=lambda st: (F.shift(st.with_concl(st.concl[-3:]), 1),
                               F.scale(st.with_concl(st.concl[:1]), 2)),
        proof=cyclotomic.proof,
        note="exact arithmetic in Q(zeta_24); a diagonal Gram matrix with positive diagonal is "
             "invertible, so the N vectors have rank N",
    ),
    Claim(
        "dft.real_dfs_basis",
        "For every even N the N real DFS vectors are pairwise orthogonal and nonzero, hence a "
        "basis of R^N",
        src(FOURIER, DFS, BASIS_QUOTE),
        BASIS,
        "identity",
        uses=("dft.cos_cos_orthogonal", "dft.sin_sin_orthogonal", "dft.sin_cos_orthogonal",
              "dft.dimension_count_even"),
        falsifiers=(F.shift(BASIS, 1, index=0),
                    Falsifier("nonpositive_diagonal", BASIS.with_concl(Lt(N, N / 2)),
                              "the diagonal entry N/2 exceeds N")),
        proof=_basis_proof,
    ),
]
