"""Norm: every encoding vector lies on the sphere of squared radius d/2.

Main statements
  ``norm.pair_sq_eq_one`` (lemma), ``norm.sq_eq_half_d`` (every even d, lifted),
  ``norm.sq_eq_half_d_concrete_d`` (d = 2 .. 1024, block by block),
  ``norm.same_sphere_for_all_positions``.

Implementation notes
  ``||PE(pos)||^2`` is summed pair by pair: channels ``2i`` and ``2i+1`` contribute
  ``sin^2 + cos^2``; the lift replaces ``d/2`` by ``sum_{i<d/2} 1``.  Concrete ``d`` use the
  encoding's own layout with the frequencies left as symbols (the identity holds for any).

References
  Seed 000, "Smoothness: Similar Positions have Similar Embeddings".
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Statement, var
from peproof.families._common import (
    OMEGA_I,
    V_D,
    V_OMEGA,
    V_POS,
    concrete_vector,
    d,
    instance_proof,
    omega,
    pair_sum,
    pair_symbols,
    pos,
)
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, src

q, V_Q = var("q", "real")
CONCRETE_D = (2, 4, 6, 8, 10, 16, 64, 512, 1024)

PAIR = Statement(Eq(sp.sin(omega * pos) ** 2 + sp.cos(omega * pos) ** 2, 1), (V_POS, V_OMEGA))
ALL_D = Statement(
    Eq(pair_sum(sp.sin(OMEGA_I * pos) ** 2 + sp.cos(OMEGA_I * pos) ** 2), d / 2), (V_POS, V_D)
)
SAME_SPHERE = Statement(
    Eq(
        pair_sum(sp.sin(OMEGA_I * pos) ** 2 + sp.cos(OMEGA_I * pos) ** 2),
        pair_sum(sp.sin(OMEGA_I * q) ** 2 + sp.cos(OMEGA_I * q) ** 2),
    ),
    (V_POS, V_Q, V_D),
)


def _concrete(ds=CONCRETE_D):
    """For each d: the squares of the two channels of pair i (found through the layout) sum to 1,
    and there are d/2 pairs covering the d channels exactly once."""
    ws, wvars = pair_symbols(max(ds) // 2)
    rows = []
    for dd in ds:
        enc = Encoding(dd)
        v = concrete_vector(dd, pos)
        for p in range(enc.pairs):
            js, jc = enc.channel(p, "sin"), enc.channel(p, "cos")
            rows.append(Eq(v[js] ** 2 + v[jc] ** 2, 1))
        covered = sorted(enc.channel(p, w) for p in range(enc.pairs) for w in ("sin", "cos"))
        rows.append(Eq(sp.Integer(len(covered)) - sp.Integer(len(set(covered))), 0))
        rows.append(Eq(sp.Integer(sum(1 for _ in range(enc.pairs))), sp.Integer(dd) / 2))
    return Statement(tuple(rows), (V_POS,) + wvars)


CLAIMS = [
    Claim(
        "norm.pair_sq_eq_one",
        "One pair: sin^2 + cos^2 = 1",
        src(FOURIER, "Smoothness", "each frequency pair contributes $\\sin^2 + \\cos^2 = 1$"),
        PAIR,
        "identity",
        falsifiers=(
            F.shift(PAIR, 1),
            Falsifier("sine_only", PAIR.with_concl(Eq(sp.sin(omega * pos) ** 2, 1)),
                      "the cosine term dropped"),
        ),
    ),
    Claim(
        "norm.sq_eq_half_d",
        "||PE(pos)||^2 = d/2 for every position and every even d",
        src(FOURIER, "Smoothness", "First note the encoding has constant norm"),
        ALL_D,
        "identity",
        uses=("norm.pair_sq_eq_one",),
        falsifiers=(
            F.subs_rhs(ALL_D, {d: 2 * d}, "d_half_to_d", "d in place of d/2"),
            F.shift(ALL_D, 1, name="half_d_plus_one"),
            F.scale(ALL_D, sp.Rational(1, 2), name="quarter_d"),
        ),
    ),
    Claim(
        "norm.sq_eq_half_d_concrete_d",
        "||PE(pos)||^2 = d/2 for d in {2, ..., 1024}, block by block through the layout",
        src(FOURIER, "Smoothness", "\\|\\phi(pos)\\|^2 = \\sum_{i=0}^{d/2-1} 1 = \\frac{d}{2}"),
        _concrete,
        "identity",
        uses=("norm.pair_sq_eq_one",),
        falsifiers=lambda st: (
            F.shift(st.with_concl(st.concl[:20]), 1),
            F.scale(st.with_concl(st.concl[:20]), 2),
        ),
        note="d = " + ", ".join(map(str, CONCRETE_D)),
        proof=instance_proof("norm.pair_sq_eq_one"),
    ),
    Claim(
        "norm.same_sphere_for_all_positions",
        "All positions lie on one sphere: ||PE(pos)|| = ||PE(q)|| (radius sqrt(d/2))",
        src(FOURIER, "Smoothness", "Every position as a point on the L2 Sphere"),
        SAME_SPHERE,
        "identity",
        uses=("norm.sq_eq_half_d",),
        falsifiers=(
            Falsifier(
                "sines_only",
                SAME_SPHERE.with_concl(Eq(SAME_SPHERE.concl[0].lhs,
                                          pair_sum(sp.sin(OMEGA_I * q) ** 2))),
                "the cosine channels dropped on the right",
            ),
            F.shift(SAME_SPHERE, 1),
        ),
    ),
]
