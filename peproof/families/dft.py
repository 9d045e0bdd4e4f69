"""DFT: positions 0 .. N-1 and the discrete Fourier series; the Transformer frequencies.

Main statements
  ``dft.mirror_cos``, ``dft.mirror_sin`` (frequency N - k mirrors k on integer samples),
  ``dft.upper_half_mirrors_lower_half``, ``dft.n_distinct_frequencies``,
  ``dft.endpoint_sines_vanish`` (k = 0 and k = N/2), ``dft.nyquist_frequency``,
  ``dft.nyquist_entry_alternates`` (cos(pi pos) = (-1)^pos), ``dft.dimension_count_even``,
  ``dft.dimension_count_odd_n`` (the even-N count is one short for odd N),
  ``dft.transformer_frequencies_are_dfs_frequencies`` (refuted: omega_0 = 1 = 2 pi k/N would
  make pi rational), ``dft.transformer_frequencies_not_dfs_frequencies`` (its companion, from
  Lindemann's theorem).  Orthogonality and the basis are in
  :mod:`peproof.families.dft_orthogonality`.

Implementation notes
  SymPy evaluates ``sin(pi n)``, ``cos(pi n)`` for an integer symbol ``n`` on construction
  (to ``0``, ``(-1)**n``); such relations are built unevaluated so that the exponential
  procedure, not the constructor, decides them.  The mirror identities need integer positions:
  each has a falsifier with a real position, refuted by a certified witness.  The arguments
  about pi record their axioms (irrationality, transcendence) and check the algebra exactly.

References
  Seed 000, "A Discrete Set {0, 1, ..., N-1} with the Discrete Fourier Series" and "The Fourier
  Feature Mapping as a Subsampling of the Discrete Fourier Series".
"""

from __future__ import annotations

import time

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, Verdict, var
from peproof.engines import expoly, realz3
from peproof.engines.decide import with_default
from peproof.families._common import I_IN_RANGE, OMEGA_I, V_D, V_I, d, only_for
from peproof.scope import omega as omega_expr  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, src

DFS = "A Discrete Set {0, 1, ..., N-1} with the Discrete Fourier Series"
SUB = "The Fourier Feature Mapping as a Subsampling of the Discrete Fourier Series"
pi = sp.pi
n, V_N = var("n", "integer")
nr, V_NR = var("n", "real")  # a non-integer position, for the falsifiers
k, V_K = var("k", "integer")
l, V_L = var("l", "integer")  # noqa: E741
m, V_M = var("m", "integer")
mr, V_MR = var("m", "real")
mp, V_MP = var("m", "pos_integer")
N, V_NN = var("N", "pos_integer")
Ne_, V_NE = var("N", "even_pos_integer")


def uneval(f, *factors):
    """``f(product)`` with neither the product nor ``f`` evaluated on construction."""
    return f(sp.Mul(*factors, evaluate=False), evaluate=False)


def dfs_encoding(p, size: int) -> list:
    """The seed's ``PE_DFS(p)`` for an even ``size``: constant, interior (sin, cos) pairs,
    Nyquist cosine."""
    out = [sp.cos(0 * p)]
    for kk in range(1, size // 2):
        out += [sp.sin(2 * pi * kk * p / size), sp.cos(2 * pi * kk * p / size)]
    return out + [sp.cos(pi * p)]


def _mirror(f, sign, pos, pos_var):
    return Statement(Eq(f(2 * pi * (N - k) * pos / N), sign * f(2 * pi * k * pos / N)),
                     (V_NN, V_K, pos_var))


MIRROR_COS, MIRROR_COS_REAL = _mirror(sp.cos, 1, n, V_N), _mirror(sp.cos, 1, nr, V_NR)
MIRROR_SIN, MIRROR_SIN_REAL = _mirror(sp.sin, -1, n, V_N), _mirror(sp.sin, -1, nr, V_NR)

UPPER = Statement(
    (
        Eq(sp.cos(2 * pi * k * n / Ne_), sp.cos(2 * pi * (Ne_ - k) * n / Ne_)),
        Eq(sp.sin(2 * pi * k * n / Ne_), -sp.sin(2 * pi * (Ne_ - k) * n / Ne_)),
        Le(1, Ne_ - k),
        Le(Ne_ - k, Ne_ / 2 - 1),
    ),
    (V_NE, V_K, V_N),
    (Le(Ne_ / 2 + 1, k), Le(k, Ne_ - 1)),
)


def _freq(kk):
    return 2 * pi * kk / N


DISTINCT = Statement(
    (Le(0, _freq(k)), Lt(_freq(k), _freq(l)), Lt(_freq(l), 2 * pi)),
    (V_NN, V_K, V_L),
    (Le(0, k), Lt(k, l), Le(l, N - 1)),
)
ENDPOINTS = Statement(
    (
        Eq(sp.sin(2 * pi * 0 * n / Ne_), 0),
        Eq(uneval(sp.sin, 2, pi, Ne_ / 2, n, 1 / Ne_), 0),
        Eq(uneval(sp.sin, pi, n), 0),
    ),
    (V_NE, V_N),
)
NYQUIST = Statement(Eq(sp.Mul(2 * pi / Ne_, Ne_ / 2, evaluate=False), pi), (V_NE,))
ALTERNATES = Statement(
    (Eq(uneval(sp.cos, pi, 2 * m), 1), Eq(uneval(sp.cos, pi, 2 * m + 1), -1)), (V_M,)
)
COUNT_EVEN = Statement(
    (Eq(sp.Add(1, sp.Mul(2, Ne_ / 2 - 1, evaluate=False), 1, evaluate=False), Ne_),)
    + tuple(Eq(sp.Integer(len(dfs_encoding(nr, s))), s) for s in range(2, 18, 2))
    + (Eq(dfs_encoding(nr, 8)[0], 1), Eq(dfs_encoding(nr, 8)[-1], sp.cos(pi * nr))),
    (V_NE, V_NR),
)
# odd N = 2m + 1, floor(N/2) = m: the even-N count, the shortfall, and the odd-N count
COUNT_ODD = Statement(
    (
        Eq(1 + 2 * (mp - 1) + 1, (2 * mp + 1) - 1),
        Ne(1 + 2 * (mp - 1) + 1, 2 * mp + 1),
        Eq(1 + 2 * mp, 2 * mp + 1),
    ),
    (V_MP,),
)

# ------------------------------------------------------------------ the Transformer frequencies
OMEGA_0 = omega_expr(0, d)  # = 10000**0 = 1 for every d, from the one definition
ARE_DFS = Statement(Eq(OMEGA_0, 2 * pi * k / N), (V_D, V_K, V_NN), quant="exists")
NOT_DFS = Statement(Ne(OMEGA_I, 2 * pi * k / N), (V_D, V_I, V_K, V_NN), (I_IN_RANGE,))
IRRATIONAL = "pi is irrational (Lambert 1761)"
TRANSCENDENTAL = "pi is transcendental (Lindemann 1882)"


def _solve_for_pi(rel) -> sp.Expr:
    """``rel`` is linear in pi: return the value of pi it forces (exact, by hand)."""
    P = sp.Symbol("P")
    e = sp.expand((rel.lhs - rel.rhs).xreplace({pi: P}) * N)
    coeff, rest = e.coeff(P, 1), e.coeff(P, 0)
    assert sp.expand(coeff * P + rest - e) == 0
    return -rest / coeff


def _pi_irrational_refutation(stmt: Statement, claim) -> Verdict:
    from peproof.engines.decide import versions

    t0 = time.perf_counter()
    rel = stmt.concl[0]
    if stmt.quant != "exists" or len(stmt.concl) != 1 or rel.op != "==":
        return Verdict("unknown", "argument", "-", "proof of the negation",
                       reason="the argument refutes an existential equation only")
    forced = _solve_for_pi(rel)
    zero_k = rel.lhs.xreplace({k: 0}) - rel.rhs.xreplace({k: 0})
    num, den = sp.fraction(sp.together(forced))
    syms = sorted(forced.free_symbols, key=sp.default_sort_key)
    rational = all(s.is_integer for s in syms) and all(
        sp.Poly(e, *syms).domain.is_ZZ or sp.Poly(e, *syms).domain.is_QQ for e in (num, den))
    ok = rel.lhs == 1 and zero_k == 1 and rational
    steps = [
        f"omega_0 = {sp.sstr(OMEGA_0)} (from omega_expr(0, d))",
        f"k = 0: the equation reads {sp.sstr(rel.lhs.xreplace({k: 0}))} = 0, false",
        f"k != 0: the equation forces pi = {sp.sstr(forced)}, a quotient of integers",
        "so an instance would make pi rational, contradicting the axiom",
    ]
    if not ok:
        return Verdict("unknown", "argument", "-", "proof of the negation", trace=steps,
                       reason="the algebra did not have the expected shape")
    wit = {
        "kind": "proof of the negation",
        "negation": "for every d and all integers k, N >= 1: omega_0 = 1 != 2 pi k/N",
        "argument": steps,
        "axioms": [IRRATIONAL],
        "certified_by": "argument from the axiom 'pi is irrational'; the algebra (solving a "
                        "linear equation for pi) done exactly in SymPy",
    }
    return Verdict("refuted", "argument", f"sympy {versions()['sympy']}",
                   "proof of the negation", (IRRATIONAL,), time.perf_counter() - t0,
                   witness=wit, trace=steps)


def _lindemann_proof(stmt: Statement, claim) -> Verdict:
    from peproof.engines.decide import versions

    t0 = time.perf_counter()
    w, vw = var("w", "pos_real")
    rel = stmt.concl[0]
    # case k <= 0: 2 pi k/N <= 0 < omega_i (omega_i > 0 by SymPy's sign rule)
    pos = OMEGA_I.is_positive is True
    sign_case = with_default(realz3.prove)(Statement(Ne(w, rel.rhs), (vw, V_K, V_NN), (Le(k, 0),)))
    # case k >= 1: omega_i = base**e with a rational base and a rational exponent is algebraic
    base, expo = OMEGA_I.as_base_exp()
    algebraic = base.is_Rational and base > 0 and expo.is_rational is True
    forced = sp.expand(rel.rhs * N / (2 * k))  # must be exactly pi
    steps = [
        f"omega_i = {sp.sstr(OMEGA_I)} > 0: {pos}",
        f"k <= 0: 2 pi k/N <= 0 < omega_i ({sign_case.status} by z3 with omega_i generalised "
        "to a positive w)",
        f"k >= 1: omega_i = {sp.sstr(base)}**({sp.sstr(expo)}), rational base, rational "
        f"exponent: algebraic ({algebraic}); omega_i = 2 pi k/N would give pi = omega_i * N/(2k)"
        f" (the right side times N/(2k) is {sp.sstr(forced)}), an algebraic number",
        "contradiction with the transcendence of pi (for i = 0, omega_0 = 1 and irrationality "
        "suffices)",
    ]
    ok = pos and sign_case.status == "proved" and algebraic and forced == pi
    return Verdict("proved" if ok else "unknown", "argument+z3",
                   f"sympy {versions()['sympy']}, z3 {versions()['z3']}", "case split and axioms",
                   (TRANSCENDENTAL, IRRATIONAL, "a positive rational to a rational power is "
                    "algebraic; algebraic numbers form a field") + sign_case.axioms,
                   time.perf_counter() - t0, trace=steps)


def _exp_proof(stmt: Statement, claim) -> Verdict:
    """The exponential procedure, with atoms ``Z = exp(i pi/L)`` of the constant monomial ``pi``
    replaced by their value (SymPy's exact ``exp(I*pi/L)``; the core procedure only uses
    ``Z**(2L) = 1`` for them, which cannot show ``cos(pi) = -1``)."""
    from peproof.engines.decide import decide_statement, versions

    t0 = time.perf_counter()
    trace = []
    if any(rel.op != "==" for rel in stmt.concl):
        return decide_statement(stmt)  # this procedure decides equalities only
    for rel in stmt.concl:
        lp, atoms = expoly.reduce_to_laurent(rel.lhs - rel.rhs)
        consts = {z: sp.exp(sp.I * pi / den) for z, (mono, den) in atoms.items() if mono == pi}
        # constant angles are exact exponentials in reduce_to_laurent (its pi atom is unused):
        # the procedure itself decides, with its FLINT re-check
        zero = expoly.expand_is_zero(rel.lhs - rel.rhs).zero
        trace.append(f"{rel}: atoms {sorted(map(str, atoms))}, pi-constants {sorted(map(str, consts))}; "
                     f"expanded difference zero: {zero}")
        if not zero:
            return decide_statement(stmt)
    return Verdict("proved", "sympy-exp", f"sympy {versions()['sympy']}",
                   "exponential procedure with exact pi constants", (),
                   time.perf_counter() - t0, trace=trace)


def _real_position(stmt_real: Statement) -> Falsifier:
    return Falsifier("non_integer_position", stmt_real,
                     "the same identity at a real position n: fails off the integers")


CLAIMS = [
    Claim(
        "dft.mirror_cos",
        "cos(2 pi (N - k) n/N) = cos(2 pi k n/N) for integers n, k",
        src(FOURIER, DFS, "On integer samples they give the same cosine and equal but opposite "
            "sines"),
        MIRROR_COS,
        "identity",
        falsifiers=(_real_position(MIRROR_COS_REAL), F.flip_sign(MIRROR_COS)),
    ),
    Claim(
        "dft.mirror_sin",
        "sin(2 pi (N - k) n/N) = -sin(2 pi k n/N) for integers n, k",
        src(FOURIER, DFS, "On integer samples they give the same cosine and equal but opposite "
            "sines"),
        MIRROR_SIN,
        "identity",
        falsifiers=(_real_position(MIRROR_SIN_REAL), F.flip_sign(MIRROR_SIN)),
    ),
    Claim(
        "dft.upper_half_mirrors_lower_half",
        "For even N and k in N/2+1 .. N-1: frequency k is the mirror of N - k, which lies in "
        "1 .. N/2-1 (so k = 0 .. N/2 suffice)",
        src(FOURIER, DFS, "are mirror images of the lower half and do not add new information"),
        UPPER,
        "identity",
        uses=("dft.mirror_cos", "dft.mirror_sin"),
        falsifiers=(
            F.subs_rhs(UPPER, {k: k + 1}, "neighbour_frequency", "N - k - 1 on the right",
                       index=(0, 1)),
            Falsifier("mirror_in_upper_half", UPPER.with_concl(Le(Ne_ / 2, Ne_ - k)),
                      "the mirror N - k lands in the upper half"),
        ),
    ),
    Claim(
        "dft.n_distinct_frequencies",
        "omega_k = 2 pi k/N, k = 0 .. N-1, are N distinct numbers in [0, 2 pi) (increasing in k)",
        src(FOURIER, DFS, "On $N$ samples there are $N$ distinct frequencies"),
        DISTINCT,
        "inequality",
        falsifiers=(
            Falsifier("zero_excluded", DISTINCT.with_concl(Lt(0, _freq(k))),
                      "in (0, 2 pi): the frequency 0 left out"),
            Falsifier("decreasing", DISTINCT.with_concl(Lt(_freq(l), _freq(k))),
                      "decreasing in k"),
        ),
        proof=with_default(realz3.prove),
        note="distinct numbers in [0, 2 pi) are distinct angles mod 2 pi, so the complex "
             "exponentials exp(i omega_k n) differ too",
    ),
    Claim(
        "dft.endpoint_sines_vanish",
        "The sine vanishes at k = 0 and k = N/2: sin(0) = 0 and sin(2 pi (N/2) n/N) = "
        "sin(pi n) = 0 for every integer n",
        (
            src(FOURIER, DFS, "at $k = N/2$ we have $\\sin(\\pi n) = 0$ for every integer $n$"),
            src(FOURIER, DFS, "since $sin(\\pi n) = 0$, $\\forall n \\in \\mathbb{Z}$"),
        ),
        ENDPOINTS,
        "identity",
        falsifiers=(
            _real_position(Statement(Eq(uneval(sp.sin, pi, nr), 0), (V_NE, V_NR))),
            Falsifier("cosine_vanishes", Statement(Eq(uneval(sp.cos, pi, n), 0), (V_NE, V_N)),
                      "cos(pi n) = 0"),
        ),
    ),
    Claim(
        "dft.nyquist_frequency",
        "omega_{N/2} = (2 pi/N)(N/2) = pi",
        src(FOURIER, DFS, "\\omega_{N/2} = \\tfrac{2\\pi}{N}\\cdot \\tfrac{N}{2} = \\pi"),
        NYQUIST,
        "identity",
        falsifiers=(F.scale(NYQUIST, 2), F.shift(NYQUIST, 1)),
    ),
    Claim(
        "dft.nyquist_entry_alternates",
        "The Nyquist entry cos(pi pos) is (-1)^pos on the integers: 1 at even, -1 at odd pos",
        src(FOURIER, DFS, "The final term is the **Nyquist** term $\\cos(\\pi\\, pos)$"),
        ALTERNATES,
        "identity",
        falsifiers=(
            F.flip_sign(ALTERNATES),
            _real_position(Statement(Eq(uneval(sp.cos, pi, 2 * mr), 1), (V_MR,))),
        ),
        proof=_exp_proof,
        note="(-1)**pos is stated by parity (pos = 2m, 2m + 1): arb cannot evaluate (-1)**x",
    ),
    Claim(
        "dft.dimension_count_even",
        "For even N: 1 + 2(N/2 - 1) + 1 = N, and PE_DFS has N entries (N = 2 .. 16), "
        "starting with 1 and ending with cos(pi pos)",
        (
            src(FOURIER, DFS, "1 + 2\\left(\\tfrac{N}{2} - 1\\right) + 1 = N"),
            src(FOURIER, DFS, "basis functions for $N$ positions"),
        ),
        COUNT_EVEN,
        "identity",
        falsifiers=(F.shift(COUNT_EVEN, 1, index=range(3)), F.scale(COUNT_EVEN, 2, index=0)),
    ),
    Claim(
        "dft.dimension_count_odd_n",
        "For odd N = 2m + 1 (N/2 rounded down to m) the even-N count gives N - 1, not N; odd N "
        "has no Nyquist term and 1 + 2m = N is the right count",
        src(FOURIER, DFS, "the encoding for an even $N$ is"),
        COUNT_ODD,
        "integer",
        falsifiers=(
            Falsifier("even_formula_works_for_odd", COUNT_ODD.with_concl(
                Eq(1 + 2 * (mp - 1) + 1, 2 * mp + 1)), "the even-N formula claimed for odd N"),
            F.shift(COUNT_ODD, 1, index=2),
        ),
        note="the seed states the count for even N only; this records what happens for odd N",
    ),
    Claim(
        "dft.transformer_frequencies_are_dfs_frequencies",
        "Seed (section title): the Transformer's frequencies are a subset of the DFS "
        "frequencies: for some N, k, omega_0 = 1 = 2 pi k/N",
        (
            src(FOURIER, SUB, "so we select a subset of the frequencies"),
            src(FOURIER, SUB, "Choosing $d/2$ of them gives a **Fourier Feature Mapping**"),
        ),
        ARE_DFS,
        "existential",
        expect="refuted",
        erratum=("error", 12, "The Transformer's frequencies are not frequencies of any discrete Fourier series: omega_0 = 1 is not a rational multiple of 2 pi."),
        companion="dft.transformer_frequencies_not_dfs_frequencies",
        falsifiers=(
            Falsifier("every_k_n", Statement(ARE_DFS.concl, ARE_DFS.vars),
                      "1 = 2 pi k/N for all k, N"),
            Falsifier("rational_frequency", Statement(Eq(OMEGA_0, sp.Rational(1, 2) * k / N),
                                                      ARE_DFS.vars), "1 = k/(2N) for all k, N"),
        ),
        proof=_pi_irrational_refutation,
        note="omega_0 = 1 = 2 pi k/N would make pi = N/(2k) rational",
    ),
    Claim(
        "dft.transformer_frequencies_not_dfs_frequencies",
        "No omega_i = 10000^(-2i/d) equals 2 pi k/N for integers k and N >= 1",
        src(FOURIER, SUB, "The Transformer picks a geometric progression"),
        NOT_DFS,
        "inequality",
        falsifiers=(
            Falsifier("equal", Statement(Eq(OMEGA_I, 2 * pi * k / N), NOT_DFS.vars, NOT_DFS.hyps),
                      "equality for all k, N"),
            Falsifier("rational_target", Statement(Ne(OMEGA_I, k / N), NOT_DFS.vars,
                                                   NOT_DFS.hyps),
                      "without the pi the statement fails: omega_0 = 1 = N/N"),
        ),
        proof=only_for(NOT_DFS)(_lindemann_proof),
    ),
]
