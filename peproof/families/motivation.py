"""Motivation: the informal, empirical and design-rationale statements of the seeds.

Main statements
  Formal cores: ``motivation.pe_unchanged_by_gradient_step`` (no trainable weight enters the
  encoding, so a gradient step leaves it as it was), ``motivation.defined_at_every_real_position``
  (every entry is a real number in [-1, 1] and the squared norm is d/2 at every real pos).
  Informal (``unknown`` by design, each with the reason): spectral bias, blurry coordinate
  networks, Fourier features as the remedy, AIAYN's own motivation, extrapolation in practice,
  the ~5000-token use, learned PE's length limit, disentangling content and position, the chord
  analogy, the fixed pattern added once, seed 000's "can be learned", relative offsets being
  easier to learn, word order, the table of frequency choices, the empirical base, history.

Implementation notes
  An informal claim has no statement: it is about training dynamics, experiments, history or
  intent, which no engine here can decide.  Where a sentence has a mathematical core, the core
  is proved here or the note names the family that proves it (ids in other families are named
  in notes only, never in ``uses``).

References
  Rahaman et al. 2019 and Xu et al. 2019 (spectral bias / frequency principle); Tancik et al.
  2020 (Fourier features); Press et al. 2021 (ALiBi); seeds 000, 001, 002, 004.
"""

from __future__ import annotations

import time

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Statement, Verdict, var
from peproof.families._common import I_IN_RANGE, OMEGA_I, V_D, V_I, V_POS, d, i, pos
from peproof.scope import encoding as Encoding  # the law in force (paper or --variant)
from peproof.seeds import APPENDIX, EXAM, FOURIER, INTRO, src

# ------------------------------------------------------------------ no trainable weight
theta, V_THETA = var("theta", "real")  # any trainable weight of the network
eta, V_ETA = var("eta", "pos_real")  # learning rate
g, V_G = var("g", "real")  # the gradient of the loss with respect to theta
DS = (2, 4, 8, 64)
_VECS = {dd: Encoding(dd).vector(pos) for dd in DS}


def _gd_rows():
    """PE_d(pos) seen as a function of (pos, theta): the same after theta -> theta - eta g."""
    rows = []
    for vec in _VECS.values():
        for e in vec:
            rows.append(Eq(e.xreplace({theta: theta - eta * g}), e))
    return Statement(tuple(rows), (V_POS, V_THETA, V_ETA, V_G))


def _free_symbol_proof(stmt: Statement, claim: Claim) -> Verdict:
    """Structural: every entry's free symbols are {pos}; so substituting for theta is the
    identity and each conclusion is ``e == e`` (decided by the exponential procedure)."""
    from peproof.engines import expoly
    from peproof.engines.decide import versions

    t0 = time.perf_counter()
    extra = set()
    for rel in stmt.concl:  # each right side is an entry of PE_d(pos)
        extra |= rel.rhs.free_symbols - {pos}
    ok = not extra and all(r.op == "==" and expoly.expand_is_zero(r.lhs - r.rhs).zero
                           for r in stmt.concl)
    trace = [f"free symbols of the entries of PE_d(pos), d in {DS}: {{pos}} only" if not extra
             else f"extra free symbols {sorted(map(str, extra))}",
             f"{len(stmt.concl)} entries unchanged by theta -> theta - eta g"]
    return Verdict(
        "proved" if ok else "unknown", "sympy-structural+sympy-exp",
        f"sympy {versions()['sympy']}", "free-symbol check, then e - e expands to 0",
        axioms=("a gradient step changes only the network's trainable weights",),
        seconds=time.perf_counter() - t0, trace=trace,
        reason="" if ok else "the encoding has a free symbol besides pos",
    )


def _gd_falsifiers(st):
    learned = _VECS[4][0] + theta  # a learned offset on channel 0
    scaled = _VECS[4][1] * theta  # a learned gain on channel 1
    step = {theta: theta - eta * g}
    vs = (V_POS, V_THETA, V_ETA, V_G)
    return (
        Falsifier("learned_offset", Statement((Eq(learned.xreplace(step), learned),), vs),
                  "PE_0 + theta (a learned table entry) is moved by the step"),
        Falsifier("learned_gain", Statement((Eq(scaled.xreplace(step), scaled),), vs),
                  "theta * PE_1 is moved by the step"),
    )


# ------------------------------------------------------------------ every real position
_S, _C = sp.sin(OMEGA_I * pos), sp.cos(OMEGA_I * pos)
EVERY_REAL = Statement(
    (Le(_S**2, 1), Le(_C**2, 1), Eq(sp.Sum(_S**2 + _C**2, (i, 0, d / 2 - 1)), d / 2)),
    (V_POS, V_D, V_I),
    hyps=(I_IN_RANGE,),
)


def _informal(cid: str, title: str, sources, note: str, uses=()) -> Claim:
    return Claim(cid, title, sources, None, "informal", uses=uses, expect="unknown", note=note)


EMPIRICAL = ("An empirical statement about trained networks: no engine decides it from "
             "the definition")
WHY = "What Problem are we Trying to Solve?"
PRACTICE = "4. Why sinusoidal PE worked in practice (and where it failed)"
GD = "motivation.pe_unchanged_by_gradient_step"
REAL = "motivation.defined_at_every_real_position"

CLAIMS = [
    Claim(
        GD,
        "No trainable weight enters PE(pos): a gradient step theta -> theta - eta g leaves every "
        "entry unchanged (d = 2, 4, 8, 64)",
        (
            src(APPENDIX, "2.1 How it is used", "never updated by gradient descent"),
            src(APPENDIX, PRACTICE, "Determinism. No parameters"),
            src(APPENDIX, PRACTICE,
                "the encoding is the same at training and inference, at every length"),
            src(APPENDIX, "Self-test", "Why is sinusoidal PE deterministic rather than learned?"),
        ),
        _gd_rows,
        "identity",
        falsifiers=_gd_falsifiers,
        proof=_free_symbol_proof,
        note="theta stands for any weight of the network; the proof checks that the only free "
        "symbol of Encoding(d).vector(pos) is pos (parameter counts: encoding family).",
    ),
    Claim(
        REAL,
        "PE is defined at every real position: each entry is a real number in [-1, 1] and "
        "||PE(pos)||^2 = d/2, for every real pos and every even d",
        (
            src(APPENDIX, PRACTICE,
                "Sinusoidal functions are defined at every real-valued position"),
            src(APPENDIX, PRACTICE, "If you train on length 1000 and infer at length 5000"),
            src(INTRO, "What this means in practice",
                "since the formula is defined for any position"),
            src(EXAM, "Learned vs sinusoidal", "since the formula is defined for any pos"),
        ),
        EVERY_REAL,
        "inequality",
        falsifiers=(
            F.scale(EVERY_REAL, sp.Rational(1, 2), index=0, name="bound_half"),
            F.shift(EVERY_REAL, 1, index=2, name="norm_off_by_one"),
        ),
        note="sin and cos of a real number are real and finite; the bounds by z3 on the "
        "abstraction s^2 + c^2 = 1, the norm by the lifted one-frequency lemma.  Being "
        "computable at pos = 5000 says nothing about how a trained model behaves there "
        "(motivation.extrapolation_poor_in_practice).",
    ),
    _informal(
        "motivation.spectral_bias_low_frequencies_first",
        "Spectral bias / frequency principle: MLPs fit low frequencies first, high ones later",
        (
            src(FOURIER, WHY, "naturally learn low frequencies in data first, then high "
                              "frequencies with more training iterations"),
            src(FOURIER, WHY,
                "Spectral bias is the lens emphasized later in the coordinate MLP literature"),
        ),
        EMPIRICAL + " (training dynamics of gradient descent).  The seed's worked instance "
        "sin(x) + 0.3 sin(20x) is recorded by the fourier family.",
    ),
    _informal(
        "motivation.raw_coordinates_give_blurry_reconstructions",
        "Coordinate MLPs fed raw coordinates produce blurry reconstructions (NeRF, random "
        "Fourier features); vision wants sharp images",
        (
            src(FOURIER, WHY,
                "feeding raw coordinates into a network produces blurry reconstructions"),
            src(FOURIER, WHY, "where we want *crisp, sharp* images and not *blurry* ones"),
        ),
        EMPIRICAL + " (an experimental finding of Mildenhall et al. and Tancik et al.).",
    ),
    _informal(
        "motivation.fourier_features_remedy_spectral_bias",
        "Feeding sines and cosines of the position as features lets the network read high "
        "frequencies instead of synthesising them",
        (
            src(FOURIER, WHY,
                "hand it sines and cosines of the position directly as input features"),
            src(FOURIER, "Fourier Series Representing Position",
                "It can then read low and high frequencies directly off the vector instead of "
                "synthesizing them"),
        ),
        EMPIRICAL + ".  The mathematical part, that the features contain the high "
        "frequencies explicitly, is the definition (nerf.gamma_written_out for NeRF).",
    ),
    _informal(
        "motivation.aiayn_motivation_not_spectral_bias",
        "AIAYN motivates the encoding by relative positions and extrapolation, not spectral bias",
        (
            src(FOURIER, WHY, "The original Transformer paper does not motivate its sinusoidal "
                              "encoding through spectral bias"),
            src(APPENDIX, "3. The \"linear in PE(pos)\" property",
                "AIAYN motivates the sinusoidal choice with one statement"),
        ),
        "A statement about the content of a paper, checkable by reading it, not by an engine. "
        "The relative-position property itself is proved in the rotation family.",
    ),
    _informal(
        "motivation.extrapolation_poor_in_practice",
        "Trained at length T, sinusoidal-PE Transformers degrade sharply beyond 2T; "
        "extrapolation holds only in principle",
        (
            src(APPENDIX, PRACTICE, "degrade sharply at lengths"),
            src(APPENDIX, PRACTICE, "Empirically, sinusoidal PE does not extrapolate as well as "
                                    "the math suggests"),
            src(INTRO, "What this means in practice",
                "can, in principle, extrapolate to sequence lengths longer than anything seen in "
                "training"),
            src(APPENDIX, "Self-test", "Was their reasoning vindicated by later research?"),
            src(APPENDIX, PRACTICE, "the learned attention patterns of the model are shaped "
                                    "during training by the position distribution it sees"),
        ),
        EMPIRICAL + " (Press et al. 2021, ALiBi).  The 'in principle' half is formal and "
        "proved: " + REAL + ".",
        uses=(REAL,),
    ),
    _informal(
        "motivation.used_up_to_5000_tokens",
        "The original Transformer used sinusoidal PE successfully up to ~5000-token sequences",
        (src(APPENDIX, PRACTICE, "used sinusoidal PE successfully for translation up to ~5000 "
                                 "token sequences"),),
        "A historical, experimental fact about one model; nothing to decide from the formula.",
    ),
    _informal(
        "motivation.learned_pe_limited_to_training_length",
        "Learned positional embeddings are limited to the maximum length seen in training",
        (
            src(EXAM, "Learned vs sinusoidal",
                "but limited to the maximum sequence length seen during training"),
            src(EXAM, "Learned vs sinusoidal", "a trainable lookup table per position"),
        ),
        "About a different encoding (a trainable T_max x d lookup table, which has no row for "
        "pos >= T_max by construction); its practical limit is empirical.  The contrast, "
        "sinusoidal PE at any real pos, is " + REAL + ".",
        uses=(REAL,),
    ),
    _informal(
        "motivation.model_disentangles_content_and_position",
        "From the sum embedding + PE the model learns to separate 'what' from 'where'",
        (
            src(EXAM, "Combining with token embeddings", "the model learns to disentangle"),
            src(EXAM, "Combining with token embeddings", "It's a sum, not a concatenation"),
            src(INTRO, "The mechanics", "carries both"),
            src(EXAM, "Combining with token embeddings", "the two signals occupy largely "
                "different, learnable patterns in the embedding space"),
        ),
        EMPIRICAL + ".  Mathematically the sum alone is not invertible (many (x, PE) pairs "
        "give one vector); the score's four content/position terms are "
        "attention.additive_pe_score_four_terms.",
    ),
    _informal(
        "motivation.chord_unique_though_notes_repeat",
        "No single wave identifies a position, the combination does, as a chord is unique "
        "though its notes repeat",
        (src(INTRO, "Worked example 2: distinguishing nearby versus distant positions",
             "the same way a chord is unique even though individual notes repeat"),),
        "An analogy; its formal core is the uniqueness family (e.g. "
        "uniqueness.injective_on_integers: distinct integer positions get distinct encodings "
        "although every single pair is periodic).  For NeRF frequencies the chord is NOT "
        "unique on the integers (nerf.integer_positions_take_two_values).",
    ),
    _informal(
        "motivation.fixed_pattern_added_once",
        "PE is a fixed, deterministic pattern added once at the input, not recomputed per layer; "
        "later layers see position only through the residual stream",
        (
            src(INTRO, "What this means in practice",
                "It's a fixed, deterministic pattern added once at the input, not recomputed at "
                "every layer"),
            src(APPENDIX, "2.1 How it is used",
                "Every subsequent layer sees position information only through this initial "
                "additive signal"),
            src(APPENDIX, "1. Why this appendix exists",
                "every subsequent layer inherited that signal through the residual stream"),
            src(INTRO, "The mechanics", "is simply added to it before the first attention layer"),
        ),
        "About the architecture (where PE is added), not the encoding.  The formal part, "
        "fixed and deterministic, is proved in " + GD + ".",
        uses=(GD,),
    ),
    _informal(
        "motivation.pe_can_be_learned_by_network",
        "Seed 000: the positional encoding is 'a value ... that can be learned by the network'",
        (src(FOURIER, WHY, "that can be learned by the network"),),
        "Contradicts the other seeds for the sinusoidal encoding, which is not learned (seed "
        "002: 'never updated by gradient descent'; seed 001: 'needs no learned parameters'): "
        "proved in " + GD + ".  It is true of learned PE, or if read as 'information the "
        "network can learn to use'; as the sentence is ambiguous it stays informal.",
        uses=(GD,),
    ),
    _informal(
        "motivation.relative_offsets_easier_to_learn",
        "Because PE(pos+k) is linear in PE(pos), relative offsets are easier to learn and "
        "generalise to new absolute positions",
        (
            src(APPENDIX, "3.3 What this is good for", "which is harder"),
            src(INTRO, "The mechanics",
                "helping the model generalize to relative distances at new absolute positions"),
            src(EXAM, "Why sine/cosine pairs specifically",
                "relative distance between words usually matters more than absolute index"),
            src(INTRO, "Practice", "Why does the addition-formula property help a transformer "
                "generalize to relative offsets it has seen before"),
        ),
        "About learnability and language, not decidable.  Formal core: one fixed bilinear map "
        "peaks at a fixed offset at every absolute position "
        "(attention.fixed_linear_map_attends_to_offset_three), but with content added the score "
        "is not relative (attention.linearity_implies_relative_score, refuted).",
        uses=("attention.fixed_linear_map_attends_to_offset_three",),
    ),
    _informal(
        "motivation.word_order_matters",
        "Word order changes meaning ('dog bites man' vs 'man bites dog'), so position is needed",
        (src(INTRO, "Sinusoidal Positional Encoding",
             "\"dog bites man\" and \"man bites dog\" contain the same words"),
         src(INTRO, "Sinusoidal Positional Encoding", "smuggle position information into a "
             "mechanism that otherwise has no concept of it at all")),
        "A fact about language.  Its formal counterpart: attention alone is permutation "
        "equivariant, so the two orders give the same multiset of outputs "
        "(attention.self_attention_is_permutation_equivariant).",
        uses=("attention.self_attention_is_permutation_equivariant",),
    ),
    _informal(
        "motivation.frequency_choices_across_methods",
        "Frequency choices: random Gaussian (RFF), geometric (diffusion timesteps), learned "
        "(learned Fourier features)",
        (
            src(FOURIER, "Another choice of frequencies: NeRF",
                "Random Fourier Features | Random Gaussian frequencies"),
            src(FOURIER, "Another choice of frequencies: NeRF",
                "Diffusion timestep embeddings | Fixed geometric (log spaced) frequencies"),
            src(FOURIER, "Another choice of frequencies: NeRF",
                "Learned Fourier features | Learned during training"),
        ),
        "Descriptions of other methods (literature facts).  The rows with mathematical content "
        "are proved elsewhere: nerf.frequencies_geometric_both_families (Transformer, NeRF), "
        "attention.rope_uses_paper_frequencies (RoPE), nerf.gaussian_b_mixes_coordinates (RFF).",
        uses=("nerf.frequencies_geometric_both_families",),
    ),
    _informal(
        "motivation.base_is_empirical_hyperparameter",
        "The base 10000 is an empirical hyperparameter that AIAYN does not motivate",
        (src(APPENDIX, "2. The formula", "it's a hyperparameter"),),
        "About the authors' choice; the frequencies for any base are one definition "
        "(Encoding(d, base=...)), and nothing here singles out 10000.",
    ),
    _informal(
        "motivation.historical_adoption",
        "Sinusoidal PE was canonical 2017 to ~2020, then displaced by learned PE and RoPE "
        "(LLaMA, Mistral, Qwen, Gemini)",
        (
            src(APPENDIX, "1. Why this appendix exists",
                "This was the canonical positional encoding from 2017 to ~2020"),
            src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
                "LLaMA, Mistral, Qwen, Gemini"),
            src(APPENDIX, "1. Why this appendix exists",
                "survives in the literature as the historical reference design"),
            src(INTRO, "What this means in practice", "each trade off differently"),
            src(APPENDIX, "4.2 What failed", "which encode n−mn - m in the score matrix directly"),
            src(APPENDIX, "5. Sinusoidal PE versus RoPE: side by side",
                "can be scaled (NTK / YaRN"),
        ),
        "History of the field; nothing to decide.  RoPE's relative score is "
        "attention.rope_score_depends_only_on_offset.",
        uses=("attention.rope_score_depends_only_on_offset",),
    ),
]
