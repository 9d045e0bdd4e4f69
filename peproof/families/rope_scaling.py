"""RoPE scaling methods: what each frequency map does, decided from its one definition.

Main statements
  ``rope.linear_scaling_is_position_interpolation``,
  ``rope.ntk_keeps_highest_divides_lowest_by_factor`` (and the geometric law between),
  ``rope.ntk_is_default_with_changed_base`` (an inv_freq vector cannot tell them apart),
  ``rope.dynamic_ntk_unscaled_within_original_length``,
  ``rope.dynamic_ntk_factor_is_length_ratio`` (refuted) and its correction
  ``rope.dynamic_ntk_effective_factor``,
  ``rope.yarn_ramp_keeps_fast_and_interpolates_slow_pairs``,
  ``rope.yarn_published_and_code_ramps_differ``,
  ``rope.yarn_attention_factor_squares_into_logits``,
  ``rope.llama3_bands_are_continuous``, ``rope.llama3_band_between_interpolation_and_identity``,
  ``rope.longrope_factors_select_and_reduce_to_linear``.

Implementation notes
  Every map is :mod:`peproof.rope_scaling`'s, evaluated by its SymPy backend with symbolic
  parameters (a comparison with symbols becomes a ``Piecewise``).  Piecewise statements are split
  into cases (:func:`peproof.families._rope_proofs.by_cases`, impossible cases shown by z3);
  equations between powers with symbolic exponents are decided on their logarithms
  (:func:`peproof.families._rope_proofs.power_products`).  YaRN's ramp is stated over
  ``r = L / lambda = L theta / (2 pi)``, where the published conditions are polynomial.

References
  Chen et al. 2023 (position interpolation); Peng et al. 2023 (YaRN: NTK-aware, NTK-by-parts,
  dynamic scaling, the attention temperature); Meta's Llama 3.1 code; Ding et al. 2024
  (LongRoPE); transformers' ``modeling_rope_utils``; seed 002 section 5.
"""

from __future__ import annotations

import sympy as sp

from peproof import falsify as F
from peproof import scope
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Ne, Statement, var
from peproof.families._common import I_IN_RANGE, OMEGA_I, V_D, V_I, d, i
from peproof.families._rope_proofs import by_cases, power_products
from peproof.families.rope import U2, V2, V_M, V_N, _vars, dot, m, n
from peproof.rope import rotate, theta_expr
from peproof.rope_scaling import (
    DynamicNTK,
    Linear,
    Llama3,
    LongRope,
    NTKAware,
    Yarn,
    sym_backend,
)
from peproof.seeds import APPENDIX, cite, src

#: the base the methods are stated at: the paper's 10000, or a RoPE variant's (prove --variant)
BASE = scope.rope_base()
X = sym_backend()
s, V_S = var("s", "pos_real")
big, V_BIG = var("L", "pos_real")
ln, V_LN = var("l", "pos_real")
lf, V_LF = var("lf", "pos_real")
hf, V_HF = var("hf", "pos_real")
rho, V_RHO = var("rho", "pos_real")
r_lo, V_RLO = var("r_lo", "pos_real")
r_hi, V_RHI = var("r_hi", "pos_real")
a_, V_A = var("a", "pos_real")
b_, V_B = var("b", "pos_real")
SCALED = src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
             "Defined at all positions; can be scaled (NTK / YaRN")
HF_ROPE = "github:huggingface/transformers"
YARN = "arXiv:2309.00071"


def freq(scaling, j, dd=d, seq_len=None):
    """Pair ``j``'s scaled frequency (base 10000) from the map's one definition."""
    return scaling.frequency(X, j, dd, BASE, theta_expr(j, dd, BASE), seq_len)


# ------------------------------------------------------------------ linear, NTK-aware
LINEAR = Statement(Eq(m * freq(Linear(s), i), (m / s) * OMEGA_I), (V_M, V_S, V_D, V_I),
                   hyps=(I_IN_RANGE,))
D4 = (Le(4, d),)
NTK = NTKAware(s)
NTK_ST = Statement(
    (Eq(freq(NTK, 0), theta_expr(0, d, BASE)),
     Eq(freq(NTK, d / 2 - 1), theta_expr(d / 2 - 1, d, BASE) / s),
     Eq(freq(NTK, i), OMEGA_I * s ** (-2 * i / (d - 2)))),
    (V_S, V_D, V_I), hyps=D4 + (I_IN_RANGE,),
)
NTK_BASE = Statement(Eq(freq(NTK, i), theta_expr(i, d, BASE * s ** (d / (d - 2)))),
                     (V_S, V_D, V_I), hyps=D4 + (I_IN_RANGE,))

# ------------------------------------------------------------------ dynamic NTK (d = 8)
DYN = DynamicNTK(s, big)
DYN_SAME = Statement(
    tuple(Eq(freq(DYN, j, 8, ln), theta_expr(j, 8, BASE)) for j in range(4))
    + tuple(Eq(freq(DYN, j, 8, big), theta_expr(j, 8, BASE)) for j in range(4)),
    (V_S, V_BIG, V_LN), hyps=(Lt(ln, big),),
)
DYN_RATIO = Statement(Eq(freq(DYN, 3, 8, ln), freq(NTKAware(ln / big), 3, 8)),
                      (V_S, V_BIG, V_LN), hyps=(Le(big, ln), Le(1, s)))
DYN_EFF = Statement(
    tuple(Eq(freq(DYN, j, 8, ln), freq(NTKAware(1 + s * (ln - big) / big), j, 8))
          for j in range(4))
    + tuple(Eq(freq(DynamicNTK(1, big), j, 8, ln), freq(NTKAware(ln / big), j, 8))
            for j in range(4)),
    (V_S, V_BIG, V_LN), hyps=(Lt(big, ln),),
)


# ------------------------------------------------------------------ YaRN
def _theta_at(r):
    """The frequency whose wavelength fits ``r`` times into ``L``: ``2 pi r / L``."""
    return 2 * sp.pi * r / big


YR = Yarn(s, big, ramp="ratio")


def yfreq(y, theta):
    return y.frequency(X, 0, 2, BASE, theta)


YARN_LIMITS = Statement(
    (Eq(yfreq(YR, _theta_at(r_hi)), _theta_at(r_hi)),
     Eq(yfreq(YR, _theta_at(r_lo)), _theta_at(r_lo) / s),
     Eq(yfreq(YR, _theta_at(32)), _theta_at(32)),
     Eq(yfreq(YR, _theta_at(1)), _theta_at(1) / s)),
    (V_S, V_BIG, V_RLO, V_RHI), hyps=(Lt(32, r_hi), Lt(r_lo, 1)),
)
_RAMPS = {kind: Yarn(16, 4096, ramp=kind) for kind in ("ratio", "index")}
RAMPS_DIFFER = Statement(
    (Ne(freq(_RAMPS["ratio"], 30, 128), freq(_RAMPS["index"], 30, 128)),
     Eq(freq(_RAMPS["ratio"], 10, 128), freq(_RAMPS["index"], 10, 128)),
     Eq(freq(_RAMPS["ratio"], 60, 128), freq(_RAMPS["index"], 60, 128))))


def _scaled_block_score(factor):
    def rot(x, p):
        return [factor * e for e in rotate(x, p, [OMEGA_I])]

    return dot(rot(U2, m), rot(V2, n))


TEMPERATURE = (sp.log(s) / 10 + 1) ** 2  # 1/t with sqrt(1/t) = 0.1 ln s + 1 (YaRN, eq. 22)
ATT = Statement(
    Eq(_scaled_block_score(Yarn(s, 4096).attention(X)),
       TEMPERATURE * dot(U2, rotate(V2, n - m, [OMEGA_I]))),
    _vars(U2, V2) + (V_M, V_N, V_S, V_D, V_I), hyps=(I_IN_RANGE, Lt(1, s)),
)

# ------------------------------------------------------------------ Llama 3.1
L3 = Llama3(s, lf, hf, big)
SHORT, LONG = L3.edges(X)
L3_EDGES = Statement(
    (Eq(L3.blend(X, 2 * sp.pi / SHORT), 2 * sp.pi / SHORT),
     Eq(L3.blend(X, 2 * sp.pi / LONG), 2 * sp.pi / LONG / s),
     Eq(L3.frequency(X, 0, 2, BASE, 2 * sp.pi / SHORT), 2 * sp.pi / SHORT),
     Eq(L3.frequency(X, 0, 2, BASE, 2 * sp.pi / LONG), 2 * sp.pi / LONG / s)),
    (V_S, V_BIG, V_LF, V_HF), hyps=(Lt(lf, hf),),
)
_TH = 2 * sp.pi * rho / big  # a frequency inside the band: L / wavelength = rho
L3_BAND = Statement(
    (Le(_TH / s, L3.blend(X, _TH)), Le(L3.blend(X, _TH), _TH)),
    (V_S, V_BIG, V_LF, V_HF, V_RHO), hyps=(Le(1, s), Lt(lf, rho), Lt(rho, hf)),
)

# ------------------------------------------------------------------ LongRoPE (d = 8)
LR = LongRope((a_,) * 4, (b_,) * 4, 4096)
LONGROPE = Statement(
    tuple(Eq(freq(LR, j, 8, 4096), theta_expr(j, 8, BASE) / a_) for j in range(4))
    + tuple(Eq(freq(LR, j, 8, 4097), theta_expr(j, 8, BASE) / b_) for j in range(4))
    + tuple(Eq(freq(LongRope((s,) * 4, (s,) * 4, 4096), j, 8), freq(Linear(s), j, 8))
            for j in range(4)),
    (V_A, V_B, V_S),
)

NTK_SRC = (cite(YARN, "section 3.1 (NTK-aware interpolation)",
                "the base b becomes b' = b s^(|D|/(|D|-2)): the highest frequency is kept and the "
                "lowest is scaled as position interpolation scales it"), SCALED)
YARN_SRC = cite(YARN, "section 3.2 (NTK-by-parts, equations 17-18)",
                "gamma(r) is 0 for r < alpha, 1 for r > beta and (r - alpha)/(beta - alpha) "
                "between; h(theta) = (1 - gamma(r)) theta/s + gamma(r) theta, r = L/lambda")
DYN_SRC = (cite(YARN, "section 3.3 (dynamic scaling)",
                "dynamic NTK recomputes the scale at every step as s = max(1, l'/L) for the "
                "current length l'"),
           cite(HF_ROPE, "_compute_dynamic_ntk_parameters",
                "base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** "
                "(dim / (dim - 2)) with seq_len at least max_position_embeddings"))
L3_SRC = cite("github:meta-llama/llama-models", "apply_scaling",
              "wavelengths below L/high_freq_factor keep their frequency, above L/low_freq_factor "
              "are divided by the factor, and between them smooth = (L/wavelen - low_freq_factor)"
              "/(high_freq_factor - low_freq_factor) blends the two")


def _first(st, k=1):
    return st.with_concl(st.concl[:k])


CLAIMS = [
    Claim(
        "rope.linear_scaling_is_position_interpolation",
        "Linear scaling theta_i / s at position m turns pair i by the angle of position m / s "
        "(position interpolation), every even d and pair",
        (cite("arXiv:2306.15595", "section 2.2 (equation 4)",
              "position interpolation replaces the position m by m L/L' (m/s) and keeps the "
              "rotary frequencies"),
         cite(HF_ROPE, "_compute_linear_scaling_rope_parameters",
              "inv_freq /= factor, equivalent to scaling the position ids")),
        LINEAR, "identity",
        falsifiers=(F.subs_rhs(LINEAR, {s: 1 / s}, "extrapolated", "position m s on the right"),
                    F.subs_rhs(LINEAR, {s: 2 * s}, "twice_the_factor", "m / (2 s)")),
    ),
    Claim(
        "rope.ntk_keeps_highest_divides_lowest_by_factor",
        "NTK-aware base b s^(d/(d-2)): theta'_0 = theta_0, theta'_(d/2-1) = theta_(d/2-1)/s "
        "exactly, and theta'_i = theta_i s^(-2i/(d-2)) between, every even d >= 4",
        NTK_SRC, NTK_ST, "identity",
        falsifiers=(
            Falsifier("highest_divided", _first(NTK_ST).map_rhs(lambda e: e / s),
                      "the highest frequency divided by s too"),
            Falsifier("naive_base_times_s", Statement(
                (Eq(theta_expr(d / 2 - 1, d, BASE * s), theta_expr(d / 2 - 1, d, BASE) / s),),
                (V_S, V_D), hyps=D4), "base b s (no exponent d/(d-2)) divides the lowest "
                "frequency by s"),
        ),
        note="The lowest frequency is divided by s exactly, so its wavelength stretches by s as "
        "under position interpolation; with the naive base b s it is divided by s^((d-2)/d) only.",
        proof=power_products,
    ),
    Claim(
        "rope.ntk_is_default_with_changed_base",
        "NTK-aware scaling is the default RoPE with base 10000 s^(d/(d-2)): from its frequencies "
        "alone it cannot be told from a model trained with that base",
        NTK_SRC, NTK_BASE, "identity",
        falsifiers=(F.subs_rhs(NTK_BASE, {s: 2 * s}, "factor_doubled", "base 10000 (2s)^..."),
                    F.scale(NTK_BASE, 1 / s, name="divided_by_s")),
        proof=power_products,
    ),
    Claim(
        "rope.dynamic_ntk_unscaled_within_original_length",
        "Dynamic NTK (transformers) leaves every frequency unchanged while the sequence length "
        "l <= L (d = 8, any factor s)",
        DYN_SRC, DYN_SAME, "identity",
        falsifiers=(F.scale(_first(DYN_SAME, 4), 1 / s, name="scaled_already"),
                    Falsifier("static_ntk_inside", DYN_SAME.with_concl(tuple(
                        Eq(r.lhs, freq(NTKAware(s), j, 8)) for j, r in
                        enumerate(DYN_SAME.concl[:4]))), "the static NTK base already at l < L")),
        proof=by_cases(power_products),
    ),
    Claim(
        "rope.dynamic_ntk_factor_is_length_ratio",
        "Reading: transformers' dynamic NTK at length l >= L is NTK-aware scaling with the "
        "factor l/L of the YaRN paper (refuted unless s = 1)",
        DYN_SRC, DYN_RATIO, "identity",
        expect="refuted", companion="rope.dynamic_ntk_effective_factor",
        erratum="literal",  # the paper's s = l/L read into transformers' code
        falsifiers=(F.scale(DYN_RATIO, 2, name="doubled"),
                    F.subs_rhs(DYN_RATIO, {ln: 2 * ln}, "ratio_doubled", "factor 2 l / L")),
    ),
    Claim(
        "rope.dynamic_ntk_effective_factor",
        "transformers' dynamic NTK at length l > L is NTK-aware scaling with the factor "
        "1 + s (l - L)/L (= s l/L - s + 1); it equals l/L for every l only when s = 1 (d = 8)",
        DYN_SRC, DYN_EFF, "identity",
        uses=("rope.dynamic_ntk_unscaled_within_original_length",),
        falsifiers=(F.subs_rhs(_first(DYN_EFF, 4), {s: 2 * s}, "slope_2s",
                               "factor 1 + 2 s (l - L)/L"),
                    F.scale(_first(DYN_EFF, 4), 1 / s, name="divided_by_s")),
        note="At l = s L the effective factor is s^2 - s + 1, not s: the dynamic method reaches "
        "the static NTK factor s only at l = (2 - 1/s) L.",
        proof=by_cases(power_products),
    ),
    Claim(
        "rope.yarn_ramp_keeps_fast_and_interpolates_slow_pairs",
        "YaRN's published ramp: a pair whose wavelength fits r > 32 times into L keeps its "
        "frequency, r < 1 is divided by s, continuously at r = 32 and r = 1",
        (YARN_SRC, SCALED), YARN_LIMITS, "identity",
        falsifiers=(Falsifier("fast_pairs_interpolated", _first(YARN_LIMITS).map_rhs(
                        lambda e: e / s), "r > 32 divided by s"),
                    Falsifier("slow_pairs_kept", YARN_LIMITS.with_concl(
                        (Eq(YARN_LIMITS.concl[1].lhs, _theta_at(r_lo)),)), "r < 1 unchanged")),
        note="alpha = beta_slow = 1 and beta = beta_fast = 32 (the paper's values for LLaMA).",
        proof=by_cases(lambda st, c: _default(st)),
    ),
    Claim(
        "rope.yarn_published_and_code_ramps_differ",
        "YaRN's ramp as published (linear in r = L/lambda) and as the reference code and "
        "transformers compute it (linear in the pair index between floor/ceil of the correction "
        "dimensions) agree outside the band and differ inside it (d = 128, L = 4096, s = 16: "
        "pairs 10 and 60 agree, pair 30 differs)",
        (YARN_SRC, cite(HF_ROPE, "_compute_yarn_parameters",
                        "find_correction_range floors and ceils the dimensions of beta_fast and "
                        "beta_slow and linear_ramp_factor interpolates over the pair index")),
        RAMPS_DIFFER, "numeric",
        falsifiers=(Falsifier("ramps_equal", RAMPS_DIFFER.with_concl(
                        (Eq(RAMPS_DIFFER.concl[0].lhs, RAMPS_DIFFER.concl[0].rhs),)),
                        "the two ramps agree on pair 30"),
                    Falsifier("pair_30_interpolated", RAMPS_DIFFER.with_concl(
                        (Eq(RAMPS_DIFFER.concl[0].lhs, theta_expr(30, 128, BASE) / 16),)),
                        "pair 30 fully interpolated by the published ramp")),
        note="An oracle that identifies YaRN must know both ramps: they give different "
        "inv_freq vectors for the same parameters.",
    ),
    Claim(
        "rope.yarn_attention_factor_squares_into_logits",
        "YaRN's factor 0.1 ln s + 1 on cos and sin multiplies every RoPE logit by its square, "
        "the paper's 1/t (every even d, every pair, s > 1)",
        (cite(YARN, "section 3.4 (equation 22)", "sqrt(1/t) = 0.1 ln(s) + 1, and scaling both "
              "q and k by sqrt(1/t) divides the logits by t"),
         cite(HF_ROPE, "_compute_yarn_parameters, get_mscale",
              "attention_factor = 0.1 * log(factor) + 1, applied to the cos and sin caches")),
        ATT, "identity",
        uses=("rope.score_block_depends_only_on_offset",),
        falsifiers=(F.subs_rhs(ATT, {TEMPERATURE: sp.sqrt(TEMPERATURE)}, "factor_once",
                               "the logits scaled by 0.1 ln s + 1 once"),
                    F.subs_rhs(ATT, {TEMPERATURE: TEMPERATURE**2}, "factor_twice",
                               "the factor applied to the logits again")),
        proof=by_cases(lambda st, c: _default(st)),
    ),
    Claim(
        "rope.llama3_bands_are_continuous",
        "Llama 3.1's map is continuous: the blend equals theta at wavelength L/high_freq_factor "
        "and theta/s at L/low_freq_factor, and the full map takes those values there",
        L3_SRC, L3_EDGES, "identity",
        falsifiers=(Falsifier("short_edge_interpolated", _first(L3_EDGES).map_rhs(
                        lambda e: e / s), "the blend gives theta/s at the short edge"),
                    Falsifier("long_edge_kept", L3_EDGES.with_concl(
                        (Eq(L3_EDGES.concl[1].lhs, 2 * sp.pi / LONG),)),
                        "the blend keeps theta at the long edge")),
        proof=by_cases(lambda st, c: _default(st)),
    ),
    Claim(
        "rope.llama3_band_between_interpolation_and_identity",
        "Inside Llama 3.1's blend band (low_freq_factor < L/lambda < high_freq_factor) the "
        "frequency lies between theta/s and theta (s >= 1)",
        L3_SRC, L3_BAND, "inequality",
        uses=("rope.llama3_bands_are_continuous",),
        falsifiers=(Falsifier("below_interpolation", L3_BAND.with_concl(
                        (Le(L3_BAND.concl[1].lhs, L3_BAND.concl[0].lhs),)),
                        "the blend at most theta/s"),
                    Falsifier("above_identity", L3_BAND.with_concl(
                        (Le(L3_BAND.concl[1].rhs, L3_BAND.concl[1].lhs),)),
                        "the blend at least theta")),
    ),
    Claim(
        "rope.longrope_factors_select_and_reduce_to_linear",
        "LongRoPE divides theta_j by the short factor up to the original length and by the long "
        "factor past it (transformers: seq_len > original); all factors s is linear scaling",
        (cite("arXiv:2402.13753", "section 3 (equation 5)", "each frequency gets its own "
              "rescale factor lambda_j: theta_j / lambda_j"),
         cite(HF_ROPE, "_compute_longrope_parameters",
              "long_factor when seq_len > original_max_position_embeddings, else short_factor")),
        LONGROPE, "identity",
        falsifiers=(Falsifier("long_set_at_original_length", LONGROPE.with_concl(tuple(
                        Eq(r.lhs, r.rhs * a_ / b_) for r in LONGROPE.concl[:4])),
                        "the long factors already at seq_len = 4096"),
                    F.scale(LONGROPE.with_concl(LONGROPE.concl[8:]), sp.Rational(1, 2),
                            name="half_of_linear")),
    ),
]


def _default(st):
    from peproof.engines.decide import decide_statement

    return decide_statement(st)
