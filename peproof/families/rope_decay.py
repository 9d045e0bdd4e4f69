"""RoPE's long-term decay: the Abel-summation bound and the certified decay curve.

Main statements
  ``rope.abel_summation_identity_concrete_d`` (summation by parts, Su et al. eq. 36),
  ``rope.abel_bound_concrete_d`` (the bound |sum h_j e^(i k theta_j)| <= max|h_(j+1) - h_j|
  sum |S_(j+1)|, from the identity by the triangle inequality),
  ``rope.decay_bound_at_zero``, and for d = 64, 128, 256 and offsets up to N = 62832:
  ``rope.decay_bound_monotone_d*`` (the monotone reading of "decays", refuted),
  ``rope.decay_bound_decreasing_until_first_rise_d*`` (what is monotone, exactly),
  ``rope.decay_bound_never_regains_early_levels_d*`` (the corrected reading: the curve never
  climbs back to the level of any offset up to K, with K exact).

Implementation notes
  ``B_d(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|`` is :class:`peproof.rope.DecayBound` (its
  ``rewrite(Sum)`` is the definition).  The decay statements are decided at every integer point
  of their box by :func:`peproof.numeric.rope_box.decide` (float64 curve with a proved error
  bound, arb where the intervals overlap); it reads the statement it is handed, so falsifiers
  and negations are decided, not assumed.  Summation by parts holds for any ``h`` and any
  frequencies: it is stated with symbols ``h_j``, ``w_j`` and decided by the exponential
  procedure; the bound adds three named facts of the complex modulus (the engines have no
  support for square roots in inequalities).

References
  Su et al. 2021 (RoFormer), section 3.4.3 and figure 2; seed 002 section 5.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from peproof import falsify as F
from peproof import scope
from peproof.claims import Claim, Eq, Falsifier, Le, Lt, Statement, Var, Verdict, var
from peproof.families._common import only_for
from peproof.numeric import N_TURN
from peproof.rope import DecayBound, abel_parts, decay_bound_at_zero, running_sums
from peproof.seeds import cite

k, V_K = var("k", "nonneg_integer")
t, V_T = var("t", "pos_integer")
kr, V_KR = var("k", "real")
ABEL_D = (2, 4, 8, 16)
#: d -> (first rise k_r, record prefix K*, the offset whose B exceeds B(K* + 1))
LANDMARKS = {64: (12, 9, 48207), 128: (19, 17, 19), 256: (38, 36, 38)}
#: the base of the curve: the paper's 10000, or a RoPE variant's (``peproof prove --variant``)
BASE = scope.rope_base()
_UNMAPPED_WHY = scope.rope_unmapped_why()


def certified_landmarks_for(dd: int, base, n_end: int) -> tuple[int, int, int]:
    """``(first rise, record prefix K*, the offset above B(K* + 1))`` of ``B_dd`` at ``base``,
    certified (:func:`peproof.numeric.rope_landmarks.certified_landmarks`): the numbers of
    :data:`LANDMARKS` for another base."""
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.rope_landmarks import certified_landmarks

    _, lm = certified_landmarks(dd, n_end, str(base), run=RunConfig(engine="inline",
                                                                    label="rope landmarks"))
    if lm.first_rise is None or lm.record_prefix is None or lm.record_break is None:
        raise ValueError(f"the decay curve of d = {dd}, base {base} has no certified first rise "
                         f"or record prefix below {n_end}: {'; '.join(lm.undecided[:1])}")
    return lm.first_rise, lm.record_prefix, lm.record_break["above"]["k"]


if BASE != 10000 and not _UNMAPPED_WHY:  # a RoPE variant's base: its own landmarks
    LANDMARKS = {dd: certified_landmarks_for(dd, BASE, N_TURN) for dd in LANDMARKS}

DECAY = cite("arXiv:2104.09864", "section 3.4.3 and figure 2",
             "the relative upper bound (1/(d/2)) sum_i |S_i| decays as the relative distance "
             "grows, which gives RoPE its long-term decay")
def B(d: int, arg) -> sp.Expr:
    return DecayBound(d, arg, BASE)


# ------------------------------------------------------------------ summation by parts
def _abel(ds=ABEL_D, part=None):
    hs = [sp.Symbol(f"h_{j}", real=True) for j in range(max(ds) // 2)]
    ws = [sp.Symbol(f"w_{j}", positive=True) for j in range(max(ds) // 2)]
    rows = []
    for dd in ds:
        n = dd // 2
        for f in (sp.cos, sp.sin):
            lhs, rhs = abel_parts(hs[:n], [f(kr * w) for w in ws[:n]])
            rows.append(Eq(lhs, rhs))
    return Statement(tuple(rows), (V_KR,) + tuple(Var(h, "real") for h in hs)
                     + tuple(Var(w, "pos_real") for w in ws))


def _modulus(re, im):
    return sp.sqrt(re**2 + im**2)


@cache
def _abel_bound(n: int = 2):
    """|sum_j h_j z_j| <= M sum_j |S_(j+1)| for every M >= max_j |h_(j+1) - h_j|, h_n = 0
    (d = 2n)."""
    hs = [sp.Symbol(f"h_{j}", real=True) for j in range(n)]
    ws = [sp.Symbol(f"w_{j}", positive=True) for j in range(n)]
    top, v_top = var("M", "real")
    zc, zs = [sp.cos(kr * w) for w in ws], [sp.sin(kr * w) for w in ws]
    (lc, _), (ls, _) = abel_parts(hs, zc), abel_parts(hs, zs)
    hh = hs + [sp.Integer(0)]
    sc, ss = running_sums(zc), running_sums(zs)
    return Statement(
        (Le(_modulus(lc, ls), top * sp.Add(*[_modulus(a, b) for a, b in zip(sc, ss, strict=True)])),),
        (V_KR,) + tuple(Var(h, "real") for h in hs) + tuple(Var(w, "pos_real") for w in ws)
        + (v_top,),
        hyps=tuple(Le(sp.Abs(hh[j + 1] - hh[j]), top) for j in range(n)),
    )


MODULUS_AXIOMS = (
    "triangle inequality for complex numbers: |sum_j a_j| <= sum_j |a_j|",
    "homogeneity of the modulus: |c z| = |c| |z| for real c",
    "|h_(j+1) - h_j| <= M (the hypotheses)",
)


@only_for(_abel_bound)
def _abel_bound_proof(stmt: Statement, claim: Claim) -> Verdict:
    """The identity (a proved claim) plus the three facts of the modulus, recorded as axioms."""
    from peproof.verdicts import verdict_of

    ident = verdict_of("rope.abel_summation_identity_concrete_d")
    if ident.status != "proved":
        return Verdict("unknown", "chain", "-", "identity + modulus facts",
                       reason=f"the identity is {ident.status}")
    return Verdict(
        "proved", "chain", "-", "identity + modulus facts",
        axioms=("rope.abel_summation_identity_concrete_d (proved: "
                f"{ident.engine}, {ident.method})",) + MODULUS_AXIOMS,
        trace=["|sum h_j z_j| = |sum (h_(j+1) - h_j) S_(j+1)| by the identity (h_(d/2) = 0)",
               "<= sum |h_(j+1) - h_j| |S_(j+1)| by the triangle inequality and homogeneity",
               "<= M sum |S_(j+1)| for every M >= max_j |h_(j+1) - h_j|"],
    )


# ------------------------------------------------------------------ the decay curve
def _decay_proof(stmt: Statement, claim: Claim) -> Verdict:
    from peproof.numeric.rope_box import decide

    return decide(stmt, N_TURN)


AT_ZERO = Statement(tuple(Eq(B(dd, 0), decay_bound_at_zero(dd)) for dd in LANDMARKS))


def _monotone(d: int) -> Statement:
    return Statement(Le(B(d, k + 1), B(d, k)), (V_K,), hyps=(Le(k, N_TURN - 1),))


def _until_rise(d: int) -> Statement:
    rise = LANDMARKS[d][0]
    return Statement((Lt(B(d, k + 1), B(d, k)), Lt(B(d, rise - 1), B(d, rise))), (V_K,),
                     hyps=(Le(k, rise - 2),))


def _never_regains(d: int) -> Statement:
    _, top, above = LANDMARKS[d]
    return Statement((Lt(B(d, k + t), B(d, k)), Lt(B(d, top + 1), B(d, above))), (V_K, V_T),
                     hyps=(Le(k, top), Le(k + t, N_TURN)))


def _halved(st: Statement) -> Falsifier:
    return F.scale(st.with_concl(st.concl[:1]), sp.Rational(1, 2), name="halved")


def _reversed(st: Statement) -> Falsifier:
    r = st.concl[0]
    return Falsifier("reversed", st.with_concl((type(r)(r.op, r.rhs, r.lhs),)),
                     "the two sides exchanged: the curve rising")


def _decay_claims(d: int) -> list[Claim]:
    rise, top, above = LANDMARKS[d]
    mono, until, never = _monotone(d), _until_rise(d), _never_regains(d)
    base = f"rope.decay_bound_{{}}_d{d}"
    return [
        Claim(
            base.format("monotone"),
            f"The monotone reading of RoFormer's decay: B_{d}(k+1) <= B_{d}(k) for every "
            f"0 <= k < N = {N_TURN} (refuted: a certified rise)",
            DECAY, mono, "inequality", uses=("rope.abel_bound_concrete_d",),
            expect="refuted", companion=base.format("never_regains_early_levels"),
            erratum="literal",  # "decays" read as monotone; the envelope reading is proved
            falsifiers=(_halved(mono), _reversed(mono)), proof=_decay_proof,
            note=f"The first rise is at k = {rise} (rope.decay_bound_decreasing_until_first_rise_"
            f"d{d}); the corrected statement is rope.decay_bound_never_regains_early_levels_d{d}.",
        ),
        Claim(
            base.format("decreasing_until_first_rise"),
            f"B_{d} strictly decreases on 0..{rise - 1} and rises at {rise}: B_{d}({rise}) > "
            f"B_{d}({rise - 1})",
            DECAY, until, "inequality", uses=("rope.abel_bound_concrete_d",),
            falsifiers=(_halved(until), _reversed(until)), proof=_decay_proof,
        ),
        Claim(
            base.format("never_regains_early_levels"),
            f"The corrected reading: for every k <= {top} and k < k' <= N = {N_TURN}, B_{d}(k') "
            f"< B_{d}(k) (the curve never climbs back to those levels); {top} is the largest "
            f"such k: B_{d}({above}) > B_{d}({top + 1})",
            DECAY, never, "inequality", uses=("rope.abel_bound_concrete_d",),
            falsifiers=(_halved(never), _reversed(never)), proof=_decay_proof,
            note=f"Certified at all {(top + 1) * N_TURN - top * (top + 1) // 2} pairs (k, k') of "
            "the box from the float64 curve with a proved error bound, arb where the intervals "
            "overlap.  Past k = " + str(top) + " the curve does come back: it oscillates with "
            "a slowly falling envelope rather than decaying monotonically.",
        ),
    ]


CLAIMS = [
    Claim(
        "rope.abel_summation_identity_concrete_d",
        "Summation by parts: sum_j h_j z_j = -sum_j (h_(j+1) - h_j) S_(j+1) with h_(d/2) = 0, "
        "z_j = exp(i k w_j) (real and imaginary parts), d in {2, 4, 8, 16}, any h and w",
        cite("arXiv:2104.09864", "section 3.4.3 (equation 36)",
             "with h_(d/2) = 0, Abel transformation rewrites sum_i h_i e^(i(m-n) theta_i) as "
             "-sum_i S_(i+1) (h_(i+1) - h_i)"),
        _abel,
        "identity",
        falsifiers=lambda st: (
            Falsifier("shifted_partial_sums", _abel_shifted(),
                      "S_j in place of S_(j+1) on the right (d = 4)"),
            F.flip_sign(st.with_concl(st.concl[2:4]), name="sign_flip"),
        ),
        note="Holds for every sequence h and every frequencies; RoFormer applies it with "
        "h_j = q_[2j:2j+1] k*_[2j:2j+1] and w_j = theta_j.",
    ),
    Claim(
        "rope.abel_bound_concrete_d",
        "|sum_j h_j e^(i k w_j)| <= M sum_j |S_(j+1)| for every M >= max_j |h_(j+1) - h_j|, "
        "h_(d/2) = 0, d = 4",
        cite("arXiv:2104.09864", "section 3.4.3 (equation 37)",
             "|sum_i h_i e^(i(m-n) theta_i)| <= (max_i |h_(i+1) - h_i|) sum_i |S_(i+1)|"),
        _abel_bound,
        "inequality",
        uses=("rope.abel_summation_identity_concrete_d",),
        falsifiers=lambda st: (F.scale(st, sp.Rational(1, 2), name="halved_bound"),
                               F.scale(st, 0, name="zero_bound")),
        note="Chain: the proved identity, then the triangle inequality and homogeneity of the "
        "complex modulus (named axioms; the engines have no square roots in inequalities).",
        proof=_abel_bound_proof,
    ),
    Claim(
        "rope.decay_bound_at_zero",
        "B_d(0) = (d + 2)/4: every phase is 1, |S_j(0)| = j (d = 64, 128, 256)",
        DECAY,
        AT_ZERO,
        "numeric",
        falsifiers=(F.shift(AT_ZERO, sp.Rational(1, 4), name="d_plus_3_over_4"),
                    F.scale(AT_ZERO, 2, name="doubled")),
    ),
    *[c for dd in LANDMARKS for c in _decay_claims(dd)],
]


def _abel_shifted() -> Statement:
    """The identity with the running sums one step early (a falsifier), d = 4."""
    st = _abel((4,))
    hs = [v.symbol for v in st.vars if v.symbol.name.startswith("h_")]
    ws = [v.symbol for v in st.vars if v.symbol.name.startswith("w_")]
    rows = []
    for r, f in zip(st.concl, (sp.cos, sp.sin), strict=True):
        zs = [f(kr * w) for w in ws]
        early = [sp.Integer(0)] + running_sums(zs)[:-1]
        hh = hs + [sp.Integer(0)]
        rows.append(Eq(r.lhs, -sp.Add(*[(hh[j + 1] - hh[j]) * early[j]
                                        for j in range(len(zs))])))
    return st.with_concl(tuple(rows))


def build(variant=None) -> list[Claim]:
    """The claims for ``variant`` (imported with it in force: :data:`BASE`, :data:`LANDMARKS`);
    the decay-curve claims are not applicable to a RoPE whose frequencies are mapped."""
    from peproof.variant_claims import not_applicable

    if not _UNMAPPED_WHY:
        return CLAIMS
    mapped = _mapped_claims(variant)
    curve = ("rope.decay_bound_monotone", "rope.decay_bound_decreasing",
             "rope.decay_bound_never")
    return [mapped.get(c.id) or not_applicable(
                c, f"the decay curve of this RoPE is not certified: {_UNMAPPED_WHY}")
            if c.id.startswith(curve) else c for c in CLAIMS]


def _mapped_thetas(variant, dd: int) -> tuple | None:
    """The variant's frequencies at width ``dd`` (its map applied to ``base**(-2j/dd)``), or
    None when the variant rotates only part of the pairs."""
    from dataclasses import replace

    r = variant.rope
    if r.rotated_pairs != r.pairs or r.exponent_dim != r.d:
        return None
    rr = r if dd == r.d else replace(r, d=dd, exponent_dim=None, rotated_pairs=None)
    return tuple(rr.theta(j) for j in range(dd // 2))


def _mapped_claims(variant) -> dict[str, Claim]:
    """The first-rise claims restated over the variant's mapped frequencies (the bound is a sum
    over any list of pair frequencies: :class:`peproof.decay_mapped.FreqDecayBound`), decided in
    arb at every offset of their box; the never-regains claims, which need the certified curve to
    N = 62,832, stay not applicable (saying why)."""
    from peproof.decay_mapped import FreqDecayBound, exhaustive_arb, first_rise
    from peproof.variant_claims import not_applicable

    if not isinstance(variant, scope.Rotary):
        return {}
    kind = variant.rope.scaling.kind
    # dynamic methods take the sequence length: Rope.theta without one is the frequencies up to
    # max_position_embeddings (transformers' effective factor 1 there)
    at = (" (the frequencies at sequence lengths up to max_position_embeddings, where the "
          "dynamic factor is 1)") if kind == "dynamic" else ""
    out: dict[str, Claim] = {}
    for dd in LANDMARKS:
        base = f"rope.decay_bound_{{}}_d{dd}"
        thetas = _mapped_thetas(variant, dd)
        rise = first_rise(thetas, 400) if thetas is not None else None
        never = next(c for c in CLAIMS if c.id == base.format("never_regains_early_levels"))
        out[never.id] = not_applicable(never, (
            f"the landmark K* needs B_{dd} certified at every offset to N = {N_TURN} "
            f"(peproof/numeric/rope_decay.py's float64 curve with a proved error bound), which "
            f"takes the unmapped frequencies base**(-2j/d) only; under the {kind} map only the "
            "first rise is certified (rope.decay_bound_decreasing_until_first_rise_d"
            f"{dd})"))
        if rise is None:
            for name in ("monotone", "decreasing_until_first_rise"):
                c = next(c for c in CLAIMS if c.id == base.format(name))
                out[c.id] = not_applicable(c, (
                    f"no certified first rise of the {kind}-mapped curve below k = 400 "
                    "(arb; partial rotation or an undecided comparison)"))
            continue

        def bm(arg, thetas=thetas):
            return FreqDecayBound(arg, sp.Tuple(*thetas))

        mono = Statement(Le(bm(k + 1), bm(k)), (V_K,), hyps=(Le(k, N_TURN - 1),))
        until = Statement((Lt(bm(k + 1), bm(k)), Lt(bm(rise - 1), bm(rise))), (V_K,),
                          hyps=(Le(k, rise - 2),))
        out[base.format("monotone")] = Claim(
            base.format("monotone"),
            f"The monotone reading of RoFormer's decay under the {kind} map: B_{dd}(k+1) <= "
            f"B_{dd}(k) for every 0 <= k < N = {N_TURN} (refuted: a certified rise)",
            DECAY, mono, "inequality", uses=("rope.abel_bound_concrete_d",),
            falsifiers=(_halved(mono), _reversed(mono)), proof=exhaustive_arb,
            note=f"B over the {kind}-mapped frequencies{at} (peproof/decay_mapped.py); the "
                 f"first rise is at k = {rise}.")
        out[base.format("decreasing_until_first_rise")] = Claim(
            base.format("decreasing_until_first_rise"),
            f"Under the {kind} map: B_{dd} strictly decreases on 0..{rise - 1} and rises at "
            f"{rise}: B_{dd}({rise}) > B_{dd}({rise - 1})",
            DECAY, until, "inequality", uses=("rope.abel_bound_concrete_d",),
            falsifiers=(_halved(until), _reversed(until)), proof=exhaustive_arb,
            note=f"B over the {kind}-mapped frequencies{at}, certified in arb at every offset of "
                 "the box (peproof/decay_mapped.py).")
        out[base.format("decreasing_until_first_rise")].numbers = {"first_rise": rise}
    return out
