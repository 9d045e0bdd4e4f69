"""Error model of RoPE's frequency maps: what a scaled frequency adds to the base frequency's error.

Main statements
  ``error_model.map_two_roundings``, ``error_model.map_three_roundings`` (chains of roundings),
  ``error_model.map_power_of_rounded_base`` (NTK-aware and dynamic bases),
  ``error_model.map_dynamic_factor`` (dynamic NTK's effective factor on the host),
  ``error_model.map_smooth_weight`` (Llama 3's smooth factor, YaRN's published ramp),
  ``error_model.map_blend`` (the blend ``theta ((1 - g)/s + g)`` of YaRN and Llama 3).

Implementation notes
  The rotary oracle (:mod:`peproof.oracle.rotary.model`) judges a rotary artefact by the recipe
  shape of :mod:`peproof.families.error_model` in a binary dtype ``P`` (unit roundoff
  ``u <= 2^-8``).  The base frequency ``theta_j`` carries the relative error
  ``e = (C_OMEGA0 + C_OMEGA1 L) u`` of that model.  A scaling method computes the scaled frequency
  ``theta'_j`` from it by a few more operations (as transformers' ``modeling_rope_utils`` and
  Meta's reference code do); the statements here bound the relative error those operations add,
  and :func:`map_relative_error` composes them (every right-hand side below is nondecreasing in
  the errors it carries, and ``error_model.relative_errors_compose`` multiplies factors
  ``(1 + a)(1 + b)``):

  * linear, LongRoPE: ``fl(theta^ / fl(s))`` or ``1 / fl(fl(lambda) fl(base^t))``: two more
    roundings (``map_two_roundings``, factor ``1 + C2 u``).
  * NTK-aware, dynamic: the base ``b' = b s'^(d/(d-2))`` is computed on the host in float64 and
    rounded to ``P``; ``theta' = b'^(-t)``, ``t = 2j/d`` in ``[0, 1)``, so a base error ``beta``
    becomes ``(1 + beta)^(-t)``, which lies between 1 and ``1/(1 + beta)`` (``x^t`` is monotone in
    ``t``; classical, not machine-checked) and ``map_power_of_rounded_base`` bounds it.  The host's
    float64 error: the effective factor (``map_dynamic_factor``, dynamic only), raised to
    ``e' = d/(d-2) <= 2`` (a relative error ``eta`` becomes at most ``(1 + eta)^2 - 1``), the
    exponent rounded (``s^(e' delta)``, within ``2 e' ln(s) 2^-53`` of 1 while that is below 1/2),
    the float64 ``pow`` within one ulp (the absolute oracle's library axiom) and the product with
    ``b``; :func:`host_base_error` adds these up with a 2x margin on the first-order terms.
  * YaRN (transformers' index ramp): ``ramp = clamp((j - low)/(high - low))`` with at most three
    roundings (the nudged ``high``, the difference, the division; ``map_three_roundings``), the
    clamp 1-Lipschitz, then ``ext = fl(1 - ramp)``: absolute error
    ``G = r3/(1 - r3) + u (1 + r3/(1 - r3))``, ``r3 = C3 u``; the blend by ``map_blend``.
  * Llama 3 and YaRN's published ramp: ``g = (q - lo)/(hi - lo)``, ``q = L theta / (2 pi)``
    computed from ``theta^`` with relative error ``rho = (1 + e)(1 + C3 u) - 1`` (``2 pi`` rounded,
    the wavelength's division, ``L / lambda``); ``map_smooth_weight`` bounds the weight's absolute
    error (three more roundings: the subtraction, ``hi - lo``, the division).  Here the base
    frequency's own error ``e`` is amplified by about ``(s - 1) hi / (hi - lo)``: the weight is
    computed from the rounded frequency.  The bands are continuous
    (``rope.llama3_bands_are_continuous``), so a branch taken on the other side of an edge is the
    clamped weight and stays within the same bound.

  The blend ``map_blend`` is stated for ``theta = 1`` (every term is linear in ``theta`` and the
  rounding model is scale invariant away from underflow, which the oracle's ``max(1, N/theta)``
  covers) and multiplied by ``s``.

References
  Seed 002, 6.A: the encoding "is deterministically computed from" the position; these bounds
  say how far a floating-point computation of the scaled frequencies may land from the exact map
  (:mod:`peproof.rope_scaling`).  Our own derivation, like :mod:`peproof.families.error_model`.
"""

from __future__ import annotations

import math

import sympy as sp

from peproof.claims import Claim, Le, Statement, Verdict, var
from peproof.families._common import only_for
from peproof.families.error_model import QUOTE, SECTION, _f
from peproof.seeds import APPENDIX, src

A = sp.Abs
SOURCE = src(APPENDIX, SECTION, QUOTE)

#: the largest unit roundoff the statements allow (bfloat16's ``u``)
U_MAX = sp.Rational(1, 256)
#: two roundings on a product/quotient chain: ``|prod (1 + delta_k)^(+-1) - 1| <= C2 u``
C2 = sp.Rational(129, 64)
#: three roundings
C3 = sp.Rational(195, 64)
#: ``(1 + beta)^(-t) - 1`` for ``|beta| <= b <= B_MAX``: at most ``C_POW b``
C_POW = sp.Rational(65, 64)
B_MAX = sp.Rational(1, 128)
#: dynamic NTK's effective factor on the host: relative error at most ``(C_DYN s + 1) v``
C_DYN = 4

d1, V_D1 = var("delta_1", "real")
d2, V_D2 = var("delta_2", "real")
d3, V_D3 = var("delta_3", "real")
d4, V_D4 = var("delta_4", "real")
u, V_U = var("u", "pos_real")
v, V_V = var("v", "pos_real")
beta, V_BETA = var("beta", "real")
w, V_W = var("w", "pos_real")
b, V_B = var("b", "pos_real")
s, V_S = var("s", "pos_real")
r, V_R = var("r", "pos_real")
g, V_G = var("g", "real")
r1, V_R1 = var("r_1", "pos_real")
G, V_GG = var("G", "pos_real")
q, V_Q = var("q", "pos_real")
lo, V_LO = var("lo", "pos_real")
hi, V_HI = var("hi", "pos_real")
rho, V_RHO = var("rho", "real")
rb, V_RB = var("rho_b", "pos_real")
P, V_P = var("P", "pos_real")
r3, V_R3 = var("r_3", "pos_real")
pp, V_PP = var("p", "real")
e1, V_E1 = var("e_1", "real")
e2, V_E2 = var("e_2", "real")
h, V_H = var("h", "real")

ROUND_U = (Le(A(d1), u), Le(A(d2), u), Le(u, U_MAX))
TWO = Statement(
    (Le(A((1 + d1) * (1 + d2) - 1), C2 * u),
     Le(A((1 + d1) / (1 + d2) - 1), C2 * u),
     Le(A(1 / ((1 + d1) * (1 + d2)) - 1), C2 * u)),
    (V_D1, V_D2, V_U), hyps=ROUND_U)

THREE = Statement(
    (Le(A((1 + d1) * (1 + d2) * (1 + d3) - 1), C3 * u),
     Le(A((1 + d1) * (1 + d2) / (1 + d3) - 1), C3 * u),
     Le(A((1 + d1) / ((1 + d2) * (1 + d3)) - 1), C3 * u),
     Le(A(1 / ((1 + d1) * (1 + d2) * (1 + d3)) - 1), C3 * u)),
    (V_D1, V_D2, V_D3, V_U), hyps=ROUND_U + (Le(A(d3), u),))

# w lies between 1 and 1/(1 + beta): (w - 1)(w (1 + beta) - 1) <= 0
POWER = Statement(
    Le(A(w - 1), C_POW * b), (V_BETA, V_W, V_B),
    hyps=(Le(A(beta), b), Le(b, B_MAX), Le((w - 1) * (w * (1 + beta) - 1), 0)))

# eff = s r - (s - 1), r = l'/L >= 1, computed fl(fl(fl(s l') / L) - fl(s - 1)) in float64 (v):
# the first two roundings as one factor 1 + p, |p| <= v (2 + v)
EFF = s * r - (s - 1)
EFF_HAT = (s * r * (1 + pp) - (s - 1) * (1 + d3)) * (1 + d4)
DYN = Statement(
    Le(A(EFF_HAT - EFF), EFF * (C_DYN * s + 1) * v),
    (V_S, V_R, V_PP, V_D3, V_D4, V_V),
    hyps=(Le(1, s), Le(1, r), Le(A(pp), v * (2 + v)), Le(A(d3), v), Le(A(d4), v),
          Le(v, sp.Rational(1, 8))))

# the weight g = (q - lo)/(hi - lo) of a q in [lo, hi], computed from q (1 + rho) with a chain P
SMOOTH = Statement(
    Le(A((q * (1 + rho) - lo) * P - (q - lo)), (hi - lo) * r3 + hi * rb * (1 + r3)),
    (V_Q, V_LO, V_HI, V_RHO, V_RB, V_P, V_R3),
    hyps=(Le(lo, q), Le(q, hi), Le(A(rho), rb), Le(A(P - 1), r3)))

# the blend, times s, at theta = 1: s ((1 - g)/s + g) = 1 - g + s g, computed with the weight h
# (|h - g| <= G, both in [0, 1]) and chains 1 + e_1 (1/s, 1 - h, the product) and 1 + e_2
X_S = 1 - g + s * g
BLEND_LHS = (1 + e1) * (1 - h) + s * (1 + e2) * h - X_S
BLEND_RHS = X_S * (r1 + G * (s - 1) * (1 + r1))
BLEND_HYPS = (Le(1, s), Le(0, g), Le(g, 1), Le(0, h), Le(h, 1), Le(A(h - g), G), Le(A(e1), r1),
              Le(A(e2), r1))
BLEND_VARS = (V_S, V_G, V_H, V_E1, V_E2, V_R1, V_GG)
BLEND = Statement(Le(A(BLEND_LHS), BLEND_RHS), BLEND_VARS, hyps=BLEND_HYPS)
BLEND_LEMMAS = (
    Le(A(e1 * (1 - h) + s * e2 * h), r1 * (1 + (s - 1) * h)),
    Le(A((s - 1) * (h - g)), (s - 1) * G),
    Le(r1 * (1 + (s - 1) * h) + (s - 1) * G, BLEND_RHS),
)


@only_for(BLEND)
def _blend_proof(stmt: Statement, claim: Claim) -> Verdict:
    """Three lemmas under the statement's hypotheses, each decided by z3 (the chains' part, the
    weight's part, their sum against the right-hand side), then z3 on the statement with the
    lemmas added to its hypotheses (the triangle inequality)."""
    from peproof.engines import z3poly
    from peproof.engines.decide import versions

    ver = f"z3 {versions()['z3']}"
    trace, axioms = [], []
    for lem in BLEND_LEMMAS:
        res, ax, _, detail = z3poly.prove(Statement(lem, stmt.vars, hyps=stmt.hyps))
        trace.append(f"lemma {lem}: {res} ({detail[:80]})")
        axioms += ax
        if res != "proved":
            return Verdict("unknown", "z3", ver, "lemmas", trace=trace,
                           reason=f"lemma not proved: {lem}")
    res, ax, _, detail = z3poly.prove(Statement(stmt.concl, stmt.vars,
                                                hyps=stmt.hyps + BLEND_LEMMAS))
    trace.append(f"statement with the lemmas as hypotheses: {res} ({detail[:80]})")
    ok = res == "proved"
    return Verdict("proved" if ok else "unknown", "z3", ver, "lemmas, z3",
                   axioms=tuple(dict.fromkeys(axioms + ax)), trace=trace,
                   reason="" if ok else "final step not proved")


CLAIMS = [
    Claim(
        "error_model.map_two_roundings",
        "Two roundings on a product or quotient chain move it by at most (129/64) u relative "
        "(u <= 2^-8)",
        SOURCE, TWO, "inequality",
        uses=("error_model.relative_errors_compose",),
        falsifiers=(
            _f("first_order_only", TWO, Le(A(1 / ((1 + d1) * (1 + d2)) - 1), 2 * u),
               "the second-order term dropped",
               at={"u": "1/256", "delta_1": "-1/256", "delta_2": "-1/256"}),
            _f("one_rounding_counted", TWO, Le(A((1 + d1) / (1 + d2) - 1), u),
               "only one of the two roundings",
               at={"u": "1/256", "delta_1": "1/256", "delta_2": "-1/256"}),
        ),
    ),
    Claim(
        "error_model.map_three_roundings",
        "Three roundings on a product or quotient chain move it by at most (195/64) u relative "
        "(u <= 2^-8)",
        SOURCE, THREE, "inequality",
        uses=("error_model.relative_errors_compose",),
        falsifiers=(
            _f("first_order_only", THREE,
               Le(A(1 / ((1 + d1) * (1 + d2) * (1 + d3)) - 1), 3 * u),
               "the second-order terms dropped",
               at={"u": "1/256", "delta_1": "-1/256", "delta_2": "-1/256", "delta_3": "-1/256"}),
            _f("two_roundings_counted", THREE,
               Le(A((1 + d1) * (1 + d2) / (1 + d3) - 1), C2 * u),
               "only two of the three roundings",
               at={"u": "1/256", "delta_1": "1/256", "delta_2": "1/256", "delta_3": "-1/256"}),
        ),
    ),
    Claim(
        "error_model.map_power_of_rounded_base",
        "A value between 1 and 1/(1 + beta), |beta| <= b <= 1/128 (a rounded base raised to a "
        "power in [-1, 0]), is within (65/64) b of 1",
        SOURCE, POWER, "inequality",
        falsifiers=(
            _f("first_order_only", POWER, Le(A(w - 1), b),
               "1/(1 - b) - 1 taken as b", at={"b": "1/128", "beta": "-1/128", "w": "128/127"}),
            _f("halved_by_the_exponent", POWER, Le(A(w - 1), b / 2),
               "the exponent's factor t < 1 taken as 1/2",
               at={"b": "1/128", "beta": "1/128", "w": "128/129"}),
        ),
    ),
    Claim(
        "error_model.map_dynamic_factor",
        "Dynamic NTK's factor s r - (s - 1) (r >= 1) computed with four roundings of at most v "
        "is within (4 s + 1) v relative",
        SOURCE, DYN, "inequality",
        falsifiers=(
            _f("factor_independent_of_s", DYN, Le(A(EFF_HAT - EFF), EFF * 5 * v),
               "the cancellation with s - 1 ignored",
               at={"r": 1, "v": "1/64", "s": 100, "p": "129/4096", "delta_3": 0, "delta_4": 0}),
            _f("relative_to_one_rounding", DYN, Le(A(EFF_HAT - EFF), EFF * s * v),
               "the rounding of the product and the quotient counted once",
               at={"r": 1, "v": "1/64", "s": 2, "p": "129/4096", "delta_3": 0, "delta_4": 0}),
        ),
    ),
    Claim(
        "error_model.map_smooth_weight",
        "A weight (q - lo)/(hi - lo) of q in [lo, hi] computed from q (1 + rho), |rho| <= rho_b, "
        "with a chain |P - 1| <= r_3, errs by at most r_3 + hi rho_b (1 + r_3)/(hi - lo)",
        SOURCE, SMOOTH, "inequality",
        uses=("error_model.map_three_roundings",),
        falsifiers=(
            _f("amplification_dropped", SMOOTH,
               Le(A((q * (1 + rho) - lo) * P - (q - lo)), (hi - lo) * (r3 + rb * (1 + r3))),
               "the frequency's error not amplified by hi/(hi - lo)",
               at={"lo": 1, "hi": 2, "q": 2, "P": 1}),
            _f("chain_dropped", SMOOTH,
               Le(A((q * (1 + rho) - lo) * P - (q - lo)), hi * rb * (1 + r3)),
               "the weight's own roundings dropped", at={"rho": 0, "lo": 1, "hi": 2, "q": 2}),
        ),
    ),
    Claim(
        "error_model.map_blend",
        "The blend (1 - g)/s + g computed with a weight h, |h - g| <= G, and chains |e_1|, "
        "|e_2| <= r_1 errs by at most r_1 + G (s - 1)(1 + r_1) relative",
        SOURCE, BLEND, "inequality",
        uses=("error_model.relative_errors_compose",),
        falsifiers=(
            _f("weight_error_not_amplified", BLEND, Le(A(BLEND_LHS), X_S * (r1 + G)),
               "the weight's error taken as relative, not amplified by s - 1",
               at={"g": 0, "e_1": 0, "e_2": 0, "r_1": "1/64", "s": 3}),
            _f("chains_dropped", BLEND, Le(A(BLEND_LHS), X_S * G * (s - 1) * (1 + r1)),
               "the chains e_1, e_2 ignored", at={"h": 0, "g": 0}),
        ),
        proof=_blend_proof,
    ),
]


# ----------------------------------------------------------------------------- evaluation
def _num(x) -> float:
    return float(x)


def host_base_error(kind: str, factor: float, d: int, ratio: float = 1.0) -> float:
    """Relative error (in units of ``v = 2^-53``, times ``v``) of the NTK/dynamic base computed
    on the host in float64: the effective factor (``map_dynamic_factor``, dynamic only) raised to
    ``e' = d/(d - 2)`` (at most squared: ``e' <= 2``), the exponent's rounding
    (``|s^(e' delta) - 1| <= 2 e' |ln s| v``), ``pow`` within one ulp (``2 v``) and the product
    with the base (``v``), composed by ``error_model.relative_errors_compose``."""
    v = 2.0**-53
    ep = d / (d - 2)
    eff = factor
    eta = 0.0
    if kind == "dynamic":
        eff = factor * ratio - (factor - 1)
        eta = (_num(C_DYN) * factor + 1) * v
    z = 2 * ep * abs(math.log(max(eff, 1e-300))) * v
    if z > 0.5:
        return math.inf
    return (1 + eta) ** 2 * (1 + z) * (1 + 2 * v) * (1 + v) - 1


def map_relative_error(scaling, d: int, seq_len, u: float, e: float, pipe_is_host: bool) -> float:
    """The scaled frequency's relative error bound, given the base frequency's ``e`` in a pipeline
    of unit roundoff ``u`` (``pipe_is_host``: the pipeline is float64, so the host's base needs
    no extra rounding).  ``inf`` when a statement's hypotheses do not hold (the oracle then has
    no bound)."""
    if u > _num(U_MAX):
        return math.inf
    k = scaling.kind
    c2, c3 = _num(C2) * u, _num(C3) * u

    def comp(*xs):  # error_model.relative_errors_compose
        out = 1.0
        for x_ in xs:
            out *= 1 + x_
        return out - 1

    if k == "default":
        return e
    if k in ("linear", "longrope"):
        return comp(e, c2)
    if k in ("ntk", "dynamic"):
        s_ = float(scaling.factor)
        ratio = 1.0
        if k == "dynamic":
            big = float(scaling.max_position_embeddings)
            ratio = max(float(seq_len) if seq_len is not None else big, big) / big
        hb = host_base_error(k, s_, d, ratio)
        bb = hb if pipe_is_host else comp(hb, u)
        if not bb <= _num(B_MAX):
            return math.inf
        return comp(e, _num(C_POW) * bb)
    if k in ("yarn", "llama3"):
        s_ = float(scaling.factor)
        if s_ < 1:
            return math.inf
        r1 = comp(c3, c3)
        if k == "llama3" and getattr(scaling, "is_step", False):
            return comp(e, c2)  # no blend: theta or theta / s, linear's chain (the step's edge
            # is the oracle's to guard: a pair near it may fall on either side)
        if k == "yarn" and scaling.ramp == "index":
            rp = c3 / (1 - c3)
            G_ = rp + u * (1 + rp)
        else:
            if k == "yarn":
                lo_, hi_ = float(scaling.beta_slow), float(scaling.beta_fast)
            else:
                lo_, hi_ = float(scaling.low_freq_factor), float(scaling.high_freq_factor)
            rb_ = comp(e, c3)
            G_ = c3 + hi_ * rb_ * (1 + c3) / (hi_ - lo_)
        blend = r1 + G_ * (s_ - 1) * (1 + r1)
        return comp(e, u, blend)
    return math.inf
