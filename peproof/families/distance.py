"""Distance: ||PE(pos) - PE(pos+k)||^2 as a function of the offset, and what "close" means.

Main statements
  ``distance.polarization``, ``distance.sq_eq_d_minus_two_sum_cos``,
  ``distance.sq_eq_two_sum_one_minus_cos``, ``distance.depends_only_on_offset``,
  ``distance.taylor_coefficients_at_zero`` (the small-k expansion), ``distance.speed_sq_eq_sum_omega_sq``,
  ``distance.derivative_is_quarter_turn``, ``distance.half_angle_form``,
  ``distance.lipschitz_in_offset`` (nearby positions are close),
  ``distance.monotone_in_offset`` (refuted), ``distance.not_monotone_in_offset``,
  ``distance.distant_closer_than_adjacent``.

Implementation notes
  Identities are lifted from one-frequency lemmas.  "The distance grows with shape k^2" is made
  exact as Taylor coefficients at k = 0, computed by exact differentiation.  "Nearby positions
  are close" is true as a Lipschitz bound (resting on the classical inequality |sin t| <= |t|,
  recorded as an axiom), but the distance is *not* monotone in k: certified witnesses.

References
  Seed 000, "Smoothness: Similar Positions have Similar Embeddings"; seed 001, worked example 2.
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Statement, Verdict, var
from peproof.families._common import (
    OMEGA_I,
    V_D,
    V_K,
    V_OMEGA,
    V_POS,
    d,
    given_instance,
    k,
    omega,
    only_for,
    pair_sum,
    pos,
)
from peproof.seeds import FOURIER, INTRO, src

q, V_Q = var("q", "real")
t, V_T = var("t", "real")
kr, V_KR = var("k", "real")
kp, V_KP = var("k", "pos_integer")
dd, V_DD = var("d", "even_pos_integer")

S, C = sp.sin, sp.cos


def _dist_summand(w, p, s):
    return (S(w * p) - S(w * (p + s))) ** 2 + (C(w * p) - C(w * (p + s))) ** 2


DIST = pair_sum(_dist_summand(OMEGA_I, pos, k))
NORM_P = pair_sum(S(OMEGA_I * pos) ** 2 + C(OMEGA_I * pos) ** 2)
NORM_PK = pair_sum(S(OMEGA_I * (pos + k)) ** 2 + C(OMEGA_I * (pos + k)) ** 2)
INNER = pair_sum(S(OMEGA_I * pos) * S(OMEGA_I * (pos + k)) + C(OMEGA_I * pos) * C(OMEGA_I * (pos + k)))
SUMCOS = pair_sum(C(OMEGA_I * k))

POLAR = Statement(Eq(DIST, NORM_P + NORM_PK - 2 * INNER), (V_POS, V_K, V_D))
D_MINUS = Statement(Eq(DIST, d - 2 * SUMCOS), (V_POS, V_K, V_D))
TWO_SUM = Statement(Eq(DIST, 2 * pair_sum(1 - C(OMEGA_I * k))), (V_POS, V_K, V_D))
ONLY_OFFSET = Statement(Eq(DIST, pair_sum(_dist_summand(OMEGA_I, q, k))), (V_POS, V_Q, V_K, V_D))

# D(k) = 2 sum (1 - cos(omega_i k)) as a function of a real offset
D_OF_K = 2 * pair_sum(1 - C(OMEGA_I * kr))
TAYLOR = Statement(
    (
        Eq(D_OF_K.subs(kr, 0), 0),
        Eq(sp.diff(D_OF_K, kr).subs(kr, 0), 0),
        Eq(sp.diff(D_OF_K, kr, 2).subs(kr, 0) / 2, pair_sum(OMEGA_I**2)),
        Eq(sp.diff(D_OF_K, kr, 3).subs(kr, 0), 0),
    ),
    (V_D,),
)
_pair_vec = sp.Matrix([S(OMEGA_I * pos), C(OMEGA_I * pos)])
_vel = _pair_vec.diff(pos)
SPEED = Statement(Eq(pair_sum(_vel[0] ** 2 + _vel[1] ** 2), pair_sum(OMEGA_I**2)), (V_POS, V_D))
_one = sp.Matrix([S(omega * pos), C(omega * pos)])
QUARTER = Statement(
    (Eq(_one.diff(pos)[0], omega * C(omega * pos)), Eq(_one.diff(pos)[1], -omega * S(omega * pos))),
    (V_POS, V_OMEGA),
)
HALF_ANGLE = Statement(Eq(1 - C(t), 2 * S(t / 2) ** 2), (V_T,))
LIPSCHITZ = Statement(Le(D_OF_K, kr**2 * pair_sum(OMEGA_I**2)), (V_KR, V_D))


def _lipschitz_proof(stmt: Statement, claim: Claim) -> Verdict:
    """Lift ``rhs - lhs >= 0`` to one frequency, rewrite cos by the (proved) half-angle identity,
    and let z3 close it from the axiom ``sin^2(t/2) <= (t/2)^2``."""
    import z3

    from peproof.engines.decide import lift, versions
    from peproof.verdicts import verdict_of

    rel = stmt.concl[0]
    lifted = lift(rel.rhs - rel.lhs, stmt)
    half = verdict_of("distance.half_angle_form")
    if lifted is None or half.status != "proved":
        return Verdict("unknown", "sympy-exp+z3", versions()["z3"], "chain",
                       reason="statement not liftable or half-angle identity not proved")
    g, trace = lifted  # need: g >= 0 for all real k and omega
    cos_terms = list(g.atoms(sp.cos))
    if len(cos_terms) != 1:
        return Verdict("unknown", "sympy-exp+z3", versions()["z3"], "chain",
                       reason=f"expected one cosine in the lemma, got {cos_terms}")
    u = cos_terms[0].args[0]
    sv = sp.Symbol("s", real=True)
    # cos u = 1 - 2 s^2 with s = sin(u/2) (half-angle identity, proved above)
    g_poly = sp.expand(g.xreplace({cos_terms[0]: 1 - 2 * sv**2}))
    if g_poly.has(sp.sin, sp.cos):
        return Verdict("unknown", "sympy-exp+z3", versions()["z3"], "chain",
                       reason="lemma not polynomial after the half-angle rewrite")
    from peproof.engines.z3poly import poly_to_z3

    syms = sorted(g_poly.free_symbols | u.free_symbols | {sv}, key=str)
    zmap = {x_: z3.Real(str(x_)) for x_ in syms}
    g_z3, u_z3, zs = poly_to_z3(g_poly, zmap), poly_to_z3(u, zmap), zmap[sv]
    solver = z3.Solver()
    solver.add(zs * zs <= (u_z3 / 2) * (u_z3 / 2), z3.Not(g_z3 >= 0))
    ok = solver.check() == z3.unsat
    return Verdict(
        "proved" if ok else "unknown", "sympy-exp+z3",
        f"sympy {versions()['sympy']}, z3 {versions()['z3']}", "lift, half-angle, z3",
        axioms=(
            "|sin t| <= |t| for real t, used as sin^2(t/2) <= (t/2)^2 (classical; not machine-checked here)",
            "termwise lifting: (for all i, g_i >= 0) implies sum_i g_i >= 0",
        ),
        trace=trace + [
            f"cos({sp.sstr(u)}) = 1 - 2 s^2 with s = sin({sp.sstr(u)}/2)   [half-angle, {half.method}]",
            f"lemma as a polynomial: {sp.sstr(g_poly)} >= 0",
            "z3: s^2 <= (u/2)^2 and lemma < 0 is unsatisfiable" if ok else "z3 did not close it",
        ],
        reason="" if ok else "z3 step failed",
    )


# D(k) over integer offsets k >= 1 (``dd`` is the same symbol as ``d``: same name, same domain)
D_K = 2 * pair_sum(1 - C(OMEGA_I * kp))
MONOTONE = Statement(Le(D_K, D_K.subs(kp, kp + 1)), (V_KP, V_DD))
NOT_MONOTONE = Statement(Lt(D_K.subs(kp, kp + 1), D_K), (V_KP, V_DD), quant="exists")
DISTANT = Statement(Lt(D_K, D_K.subs(kp, 1)), (V_KP, V_DD), hyps=(Le(100, kp),), quant="exists")

SMOOTH = "Smoothness: Similar Positions have Similar Embeddings"
CLAIMS = [
    Claim(
        "distance.polarization",
        "||PE(p) - PE(p+k)||^2 = ||PE(p)||^2 + ||PE(p+k)||^2 - 2<PE(p), PE(p+k)>",
        src(FOURIER, SMOOTH, "the squared distance between two encodings is"),
        POLAR,
        "identity",
        falsifiers=(F.subs_rhs(POLAR, {k: 2 * k}, "double_offset", "offset 2k on the right"),
                    F.shift(POLAR, 1)),
    ),
    Claim(
        "distance.sq_eq_d_minus_two_sum_cos",
        "||PE(p) - PE(p+k)||^2 = d - 2 sum_i cos(omega_i k)",
        src(FOURIER, SMOOTH, "$$ = d - 2\\sum_{i=0}^{d/2-1}\\cos(\\omega_i k) $$"),
        D_MINUS,
        "identity",
        uses=("distance.polarization", "norm.sq_eq_half_d", "inner_product.eq_sum_cos_offset"),
        falsifiers=(
            F.subs_rhs(D_MINUS, {d: d / 2}, "half_d", "d/2 in place of d"),
            F.swap_sin_cos(D_MINUS),
        ),
    ),
    Claim(
        "distance.sq_eq_two_sum_one_minus_cos",
        "||PE(p) - PE(p+k)||^2 = 2 sum_i (1 - cos(omega_i k))",
        src(FOURIER, SMOOTH, "$$= 2\\sum_{i=0}^{d/2-1}\\big(1 - \\cos(\\omega_i k)\\big) $$"),
        TWO_SUM,
        "identity",
        uses=("distance.sq_eq_d_minus_two_sum_cos",),
        falsifiers=(F.scale(TWO_SUM, sp.Rational(1, 2), name="missing_factor_two"),
                    F.swap_sin_cos(TWO_SUM)),
    ),
    Claim(
        "distance.depends_only_on_offset",
        "The distance between PE(p) and PE(p+k) does not depend on p",
        src(FOURIER, SMOOTH, "With the inner product result"),
        ONLY_OFFSET,
        "identity",
        uses=("distance.sq_eq_two_sum_one_minus_cos",),
        falsifiers=(F.subs_rhs(ONLY_OFFSET, {k: k + 1}, "k_plus_one", "offset k+1 on the right"),
                    F.scale(ONLY_OFFSET, 2)),
    ),
    Claim(
        "distance.taylor_coefficients_at_zero",
        "D(k) = (sum_i omega_i^2) k^2 + O(k^4): Taylor coefficients of orders 0, 1, 3 vanish",
        (src(FOURIER, SMOOTH, "shows the distance grows with shape $k^2$"),
         src(FOURIER, SMOOTH, "1 - \\cos(\\omega_i k) \\approx \\tfrac{1}{2}\\omega_i^2 k^2")),
        TAYLOR,
        "identity",
        note="Coefficients by exact differentiation of the sum (not by series or simplify).",
        falsifiers=(F.scale(TAYLOR, 2, index=2, name="double_k2_coefficient"),
                    F.shift(TAYLOR, 1, index=1, name="nonzero_linear_term")),
    ),
    Claim(
        "distance.speed_sq_eq_sum_omega_sq",
        "The encoding's speed: ||dPE/dpos||^2 = sum_i omega_i^2 at every position",
        src(FOURIER, SMOOTH, "the encoding is a smooth (infinitely differentiable) function of position"),
        SPEED,
        "identity",
        falsifiers=(F.subs_rhs(SPEED, {d: 2 * d}, "twice_the_pairs", "sum over d pairs"),
                    F.shift(SPEED, 1)),
    ),
    Claim(
        "distance.derivative_is_quarter_turn",
        "d/dpos (sin w p, cos w p) = w (cos w p, -sin w p): the velocity is the pair turned by 90 degrees",
        src(FOURIER, SMOOTH, "built with sines and cosines"),
        QUARTER,
        "identity",
        falsifiers=(F.flip_sign(QUARTER), F.swap_sin_cos(QUARTER)),
    ),
    Claim(
        "distance.half_angle_form",
        "1 - cos t = 2 sin^2(t/2)",
        src(FOURIER, SMOOTH, "For small offsets, expanding"),
        HALF_ANGLE,
        "identity",
        falsifiers=(F.swap_sin_cos(HALF_ANGLE), F.scale(HALF_ANGLE, sp.Rational(1, 2))),
    ),
    Claim(
        "distance.lipschitz_in_offset",
        "Nearby positions are close: D(k) <= k^2 sum_i omega_i^2 for every real k",
        src(FOURIER, SMOOTH, "Thus nearby positions are close"),
        LIPSCHITZ,
        "inequality",
        uses=("distance.half_angle_form", "distance.sq_eq_two_sum_one_minus_cos"),
        falsifiers=(
            F.scale(LIPSCHITZ, sp.Rational(1, 10), name="tenfold_tighter"),
            Falsifier("constant_bound", LIPSCHITZ.with_concl(Le(D_OF_K, 1)),
                      "D(k) <= 1 for all k"),
        ),
        proof=only_for(LIPSCHITZ)(_lipschitz_proof),
    ),
    Claim(
        "distance.monotone_in_offset",
        "(as the seeds suggest) the distance grows with the offset: D(k) <= D(k+1) for all k >= 1",
        (src(FOURIER, SMOOTH, "shows the distance grows with shape $k^2$"),
         src(INTRO, "Worked example 2",
             "nearby positions get similar encodings on most dimensions (helpful for local patterns) while distant positions still end up clearly distinguishable overall")),
        MONOTONE,
        "inequality",
        expect="refuted",
        erratum="literal",
        companion="distance.lipschitz_in_offset",
        note="The k^2 shape holds only near k = 0; the distance oscillates.",
        falsifiers=(F.scale(MONOTONE, sp.Rational(1, 100), name="hundredfold_growth"),
                    F.shift(MONOTONE, -1, name="strict_by_one")),
    ),
    Claim(
        "distance.not_monotone_in_offset",
        "There are d and k with D(k+1) < D(k): the distance is not monotone",
        src(FOURIER, SMOOTH, "shows the distance grows with shape $k^2$"),
        NOT_MONOTONE,
        "existential",
        falsifiers=(
            Falsifier("monotone_everywhere", MONOTONE, "the universal negation"),
            Falsifier("monotone_at_d4",
                      Statement(Le(D_K.subs(dd, 4), D_K.subs({dd: 4, kp: kp + 1})), (V_KP,)),
                      "monotone for d = 4"),
        ),
    ),
    Claim(
        "distance.distant_closer_than_adjacent",
        "At d = 4, positions 629 apart are closer than adjacent positions: D(629) < D(1)",
        src(INTRO, "Worked example 2",
            "distant positions still end up clearly distinguishable overall"),
        DISTANT,
        "existential",
        falsifiers=(
            Falsifier("adjacent_always_closest",
                      Statement(Le(D_K.subs(kp, 1), D_K), (V_KP, V_DD)), "D(1) <= D(k) for all k"),
            Falsifier("far_means_far",
                      Statement(Le(D_K.subs(kp, 1), D_K), (V_KP, V_DD), hyps=(Le(100, kp),)),
                      "D(1) <= D(k) for all k >= 100"),
        ),
        proof=given_instance({"k": 629, "d": 4}),
    ),
]
