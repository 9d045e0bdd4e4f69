"""The rotary bug zoo: caches built the way known bugs build them, each named by one diagnosis.

Every cache is built here in float32 with NumPy, the way the buggy code builds it (the correct
build is :func:`build`); each test asserts a non-conforming verdict and the specific diagnosis.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from peproof.oracle import CONFORMS, DEGENERATE, VARIANT, WITHIN, WRONG
from peproof.oracle.rotary.check import check_rotary

D, N = 64, 4096


def inv_freq(base=10000.0, d=D, dtype=np.float32):
    return (1.0 / (np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))))\
        .astype(dtype)


def build(freqs, pos=None, n=N, att=1.0, layout="half", pdtype=np.float32):
    """cos/sin the way transformers does: angles fl(p * w) in float32, cos/sin, times att."""
    p = np.arange(n, dtype=pdtype) if pos is None else pos
    ang = p.astype(np.float32)[:, None] * freqs.astype(np.float32)[None, :]
    emb = np.concatenate([ang, ang], 1) if layout == "half" else np.repeat(ang, 2, axis=1)
    return (np.cos(emb) * np.float32(att)).astype(np.float32), \
        (np.sin(emb) * np.float32(att)).astype(np.float32)


def test_correct_cache_is_not_flagged():
    c, s = build(inv_freq())
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict in (CONFORMS, WITHIN), rep.render()


def test_positions_held_in_float16():
    pos = np.arange(N).astype(np.float16)  # positions cast to half before the product
    c, s = build(inv_freq(), pos=pos)
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == WRONG, rep.render()
    assert "positions held in float16" in rep.diagnoses[0], rep.diagnoses
    assert rep.collisions["identical_row_groups"] > 0


def test_positions_in_float16_throughout_is_degenerate():
    """A cache computed entirely in float16: within float16's model, but rows collide."""
    w = inv_freq()
    p = np.arange(N).astype(np.float16)
    ang = (p[:, None] * w.astype(np.float16)[None, :]).astype(np.float16)
    emb = np.concatenate([ang, ang], 1)
    c, s = np.cos(emb).astype(np.float16), np.sin(emb).astype(np.float16)
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == DEGENERATE, rep.render()
    assert "identical rows" in rep.diagnoses[0]
    ok = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000},
                      allow_collisions=True)
    assert ok.verdict in (CONFORMS, WITHIN)


def test_inv_freq_turned_to_bfloat16_when_rebuilt():
    import ml_dtypes

    w = inv_freq().astype(ml_dtypes.bfloat16).astype(np.float32)  # model.to(bf16), cache rebuilt
    c, s = build(w)
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == WRONG, rep.render()
    assert "inv_freq rounded to bfloat16" in rep.diagnoses[0], rep.diagnoses


def test_inv_freq_vector_in_bfloat16_stored_back():
    import ml_dtypes

    w = inv_freq().astype(ml_dtypes.bfloat16).astype(np.float32)
    rep = check_rotary(inv_freq=w, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == WRONG and "inv_freq rounded to bfloat16" in rep.diagnoses[0]


def test_sin_and_cos_swapped():
    c, s = build(inv_freq())
    rep = check_rotary(cos=s, sin=c, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == WRONG, rep.render()
    assert rep.diagnoses[0].startswith("cos and sin swapped"), rep.diagnoses


YARN = {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 512,
        "rope_theta": 10000}


def _yarn_freqs():
    from peproof.oracle.rotary.config import rope_from_config

    r = rope_from_config(YARN, D)
    return r.thetas_numpy().astype(np.float32), 0.1 * math.log(16) + 1


def test_yarn_correct_is_within():
    w, a = _yarn_freqs()
    c, s = build(w, att=a)
    rep = check_rotary(cos=c, sin=s, expect=YARN)
    assert rep.verdict in (CONFORMS, WITHIN), rep.render()
    assert rep.identified.scaling.kind == "yarn"


def test_yarn_attention_factor_squared():
    w, a = _yarn_freqs()
    c, s = build(w, att=a * a)
    rep = check_rotary(cos=c, sin=s, expect=YARN)
    assert rep.verdict == WRONG, rep.render()
    assert rep.diagnoses[0].startswith("attention factor applied twice"), rep.diagnoses


def test_yarn_attention_factor_applied_twice():
    w, a = _yarn_freqs()
    c, s = build(w, att=a)
    c, s = (c * np.float32(a)).astype(np.float32), (s * np.float32(a)).astype(np.float32)
    rep = check_rotary(cos=c, sin=s, expect=YARN)
    assert rep.verdict == WRONG, rep.render()
    assert rep.diagnoses[0].startswith("attention factor applied twice"), rep.diagnoses


def test_dynamic_ntk_that_is_static():
    """Configured dynamic (factor 4, L 2048) at seq_len 4096, built with the full factor 4."""
    from peproof.rope import Rope
    from peproof.rope_scaling import NTKAware

    w = Rope(D, 10000, scaling=NTKAware(4)).thetas_numpy().astype(np.float32)
    c, s = build(w)
    dyn = {"rope_type": "dynamic", "factor": 4, "rope_theta": 10000}
    rep = check_rotary(cos=c, sin=s, expect=dyn, max_position_embeddings=2048)
    assert rep.verdict != CONFORMS and rep.verdict != WITHIN, rep.render()
    assert any("'dynamic' NTK that is static" in x for x in rep.diagnoses), rep.diagnoses
    # the genuine dynamic map at seq_len 4096 (effective factor 4*4096/2048 - 3 = 5) passes
    good = Rope(D, 10000, scaling=NTKAware(5)).thetas_numpy().astype(np.float32)
    c, s = build(good)
    assert check_rotary(cos=c, sin=s, expect=dyn, max_position_embeddings=2048).ok


def test_wrong_base():
    c, s = build(inv_freq(base=10000.0))
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 500000})
    assert rep.verdict == VARIANT, rep.render()
    assert rep.diagnoses[0] == "base 10000 where 500000 was expected", rep.diagnoses


def test_interleaved_where_half_split_expected():
    c, s = build(inv_freq(), layout="interleaved")
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000},
                       layout="half")
    assert rep.verdict == VARIANT, rep.render()
    assert rep.diagnoses[0].startswith("layout interleaved where half was expected")
    assert rep.layout == "interleaved"


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_layout_detected(layout):
    c, s = build(inv_freq(), layout=layout)
    rep = check_rotary(cos=c, sin=s)
    assert rep.layout == layout and rep.ok


def test_one_corrupted_entry_is_wrong():
    c, s = build(inv_freq())
    c = c.copy()
    c[1000, 5] += 1e-3
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000},
                       d=D)
    assert rep.verdict == WRONG, rep.render()
    assert rep.tally.worst[0]["position"] == 1000


def _llama3_blend(w, factor=8.0, lo=1.0, hi=4.0, L=8192, reverse=False):
    """Llama 3.1's frequencies (NumPy, float32); ``reverse`` turns the blend around."""
    w = w.astype(np.float64)
    g = np.clip((L / (2 * np.pi / w) - lo) / (hi - lo), 0, 1)  # 1: kept, 0: interpolated
    if reverse:
        g = 1 - g
    return ((1 - g) * w / factor + g * w).astype(np.float32)


@pytest.mark.parametrize("artefact", ["inv_freq", "cache"])
def test_blend_reversed(artefact):
    """The high frequencies interpolated and the low ones kept (litgpt 0.5.13's YaRN does this)."""
    want = {"rope_type": "llama3", "rope_theta": 500000, "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    for rev in (False, True):
        w = _llama3_blend(inv_freq(500000.0), reverse=rev)
        art = {"inv_freq": w} if artefact == "inv_freq" else dict(zip(("cos", "sin"),
                                                                       build(w), strict=True))
        rep = check_rotary(**art, expect=want)
        if not rev:
            assert rep.verdict in (CONFORMS, WITHIN), rep.render()
        else:
            assert rep.verdict == WRONG, rep.render()
            assert rep.diagnoses[0].startswith("the blend reversed"), rep.diagnoses


LR_SHORT = [1.0 + 0.03 * j for j in range(D // 2)]
LR_LONG = [1.0 + 0.75 * j for j in range(D // 2)]
LR = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": LR_SHORT,
      "long_factor": LR_LONG, "original_max_position_embeddings": 2048}


def _longrope(factors):
    """LongRoPE's frequencies the way transformers builds them (float32)."""
    ext = np.asarray(factors, dtype=np.float32)
    pos = np.float32(10000.0) ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D))
    return (1.0 / (ext * pos)).astype(np.float32)


def test_longrope_factors_read_not_checked():
    """From the frequencies alone: the factors they imply for a given base, LongRoPE-like, never
    'conforms' (the model's factors are needed to check them)."""
    w = _longrope(LR_LONG)
    blind = check_rotary(inv_freq=w)
    assert not blind.ok and blind.verdict != WRONG, blind.render()
    rep = check_rotary(inv_freq=w, base=10000)
    assert rep.verdict not in (CONFORMS, WITHIN, WRONG), rep.render()
    assert rep.diagnoses[0].startswith("identified: LongRoPE-like"), rep.diagnoses
    assert "not checkable without the model's short_factor / long_factor" in rep.diagnoses[0]
    assert np.allclose(rep.implied["factors"], LR_LONG, rtol=1e-6)
    assert rep.implied["all_at_least_1"]
    c, s = build(w)
    crep = check_rotary(cos=c, sin=s, base=10000)
    assert crep.diagnoses[0].startswith("identified: LongRoPE-like"), crep.render()
    assert np.allclose(crep.implied["factors"], LR_LONG, rtol=1e-3)
    # factors below 1 (wavelengths shortened) are not LongRoPE's shape
    low = check_rotary(inv_freq=_longrope([1.0] + [0.9] * (D // 2 - 1)), base=10000)
    assert "not LongRoPE's shape" in low.diagnoses[0] and low.implied["pairs_below_1"][0] == 1


@pytest.mark.parametrize("artefact", ["inv_freq", "cache"])
def test_longrope_checked_against_its_factors(artefact):
    att = math.sqrt(1 + math.log(32768 / 2048) / math.log(2048))  # LongRoPE's, for 16 x

    def art(w):
        return {"inv_freq": w} if artefact == "inv_freq" else dict(zip(
            ("cos", "sin"), build(w, att=att), strict=True))
    kw = {"expect": LR, "max_position_embeddings": 32768}
    assert check_rotary(**art(_longrope(LR_LONG)), seq_len=4096, **kw).ok
    assert check_rotary(**art(_longrope(LR_SHORT)), seq_len=2048, **kw).ok
    bad = check_rotary(**art(_longrope(LR_SHORT)), seq_len=4096, **kw)  # the set not switched
    assert bad.verdict == WRONG, bad.render()
    assert bad.diagnoses[0].startswith("LongRoPE's short factors where the long ones are due")
    one = list(LR_LONG)
    one[20] *= 1.01  # one factor 1 % off
    off = check_rotary(**art(_longrope(one)), seq_len=4096, **kw)
    assert not off.ok, off.render()


def test_blind_16_bit_inv_freq_is_never_called_wrong():
    """An inv_freq buffer cast to bfloat16 (model.to(bfloat16)), checked with no expectation:
    its frequencies are known to ~4e-3, a round base or factor read from them is a guess, and a
    guess that does not fit is no evidence of a bug (before: 'wrong' as linear factor 5 of base
    6000, or a crash on an undecided horizon).  With its RoPE given it is judged."""
    import ml_dtypes

    w = inv_freq(base=10000.0).astype(ml_dtypes.bfloat16)
    for lin in (1.0, 4.0):
        v = (w.astype(np.float32) / np.float32(lin)).astype(ml_dtypes.bfloat16)
        rep = check_rotary(inv_freq=v)
        assert rep.verdict != WRONG, rep.render()
        assert rep.horizon["float16"]["positions_collide_from"] == 2048
    ok = check_rotary(inv_freq=w, pipeline_dtype="float32",
                      expect={"rope_type": "default", "rope_theta": 10000})
    assert ok.verdict in (CONFORMS, WITHIN), ok.render()
    bad = check_rotary(inv_freq=w, pipeline_dtype="float32",
                       expect={"rope_type": "default", "rope_theta": 500000})
    assert bad.verdict == VARIANT and bad.diagnoses[0].startswith("base 10000 where 500000"), \
        bad.render()


def test_horizon_of_an_exact_tie():
    """theta_0 = 7/10 (linear factor 10/7): 1465 * 0.7 = 1025.5 is a float16 tie no ball
    decides; rounded exactly (to 1026, as is 1466 * 0.7 = 1026.2) the angle of pair 0 first
    collides at 1465 (below 1463 the step 0.7 exceeds float16's spacing of 0.5)."""
    from peproof.oracle.rotary.horizon import _horizon0
    from peproof.rope import Rope
    from peproof.rope_scaling import Linear

    hz = _horizon0(Rope(D, 10000, scaling=Linear(Fraction(10, 7))), "float16", None)
    assert hz["theta0_angle_collides_from"] == 1465
