"""Rotary diagnoses name as *expected* only what the user stated, and never a parameter value
the artefact does not rule out (issue 24, item 3).

Caches built with torch the way Meta's ``freqs_cis`` is (``torch.polar``) and torchtune's cache is
(``stack([cos, sin], -1)``), and with transformers' own rope initialisation (YaRN, Llama 3.1).
"""

import re
import warnings

import numpy as np
import pytest

from peproof.oracle import CONFORMS, VARIANT, WITHIN
from peproof.oracle.rotary.check import check_rotary

torch = pytest.importorskip("torch")

D, S = 64, 256


def _angles(base=10000.0, d=D, n=S):
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    return torch.outer(torch.arange(n).float(), inv)


def _expected_sentences(diagnoses):
    return [x for x in diagnoses if "expected" in x]


@pytest.mark.parametrize("native", ["freqs_cis", "torchtune"])
def test_unstated_layout_never_expected(native):
    """A (S, d/2) cache whose library applies it interleaved, checked against rope_parameters
    that say nothing of the layout: the base is named, the layout is not (the old diagnosis was
    'base 10000 where 500000 was expected; layout interleaved where half was expected')."""
    f = _angles()
    arr = torch.polar(torch.ones_like(f), f) if native == "freqs_cis" else \
        torch.stack([f.cos(), f.sin()], -1)
    rep = check_rotary(arr.numpy(), expect={"rope_type": "default", "rope_theta": 500000.0})
    assert rep.verdict == VARIANT, rep.render()
    assert rep.diagnoses == ["base 10000 where 500000 was expected"], rep.diagnoses
    # and with the right base it passes: the layout was never part of the expectation
    rep = check_rotary(arr.numpy(), expect={"rope_type": "default", "rope_theta": 10000.0})
    assert rep.verdict in (CONFORMS, WITHIN) and not rep.diagnoses, rep.render()


def test_stated_layout_is_still_expected():
    """rope_parameters that do state the layout (a ``layout`` key) keep it as the
    expectation: an interleaved (GPT-J) cache is then a variant, named so; the key is read,
    not reported as unread."""
    f = _angles()
    emb = torch.repeat_interleave(f, 2, dim=-1)
    c, s = emb.cos().numpy(), emb.sin().numpy()
    rep = check_rotary(cos=c, sin=s, expect={"rope_theta": 10000.0, "layout": "half"})
    assert rep.verdict == VARIANT, rep.render()
    assert rep.diagnoses[0].startswith("layout interleaved where half was expected"), \
        rep.diagnoses
    assert not any("'layout'" in n for n in rep.notes), rep.notes
    rep = check_rotary(cos=c, sin=s, expect={"rope_theta": 10000.0, "layout": "interleaved"})
    assert rep.verdict in (CONFORMS, WITHIN), rep.render()
    rep = check_rotary(cos=c, sin=s, expect={"rope_theta": 10000.0})  # not stated: no variant
    assert rep.verdict in (CONFORMS, WITHIN) and not rep.diagnoses, rep.render()


def test_unstated_base_is_assumed_not_expected():
    """No rope_theta: transformers takes the model class's default_theta (10000 for most,
    500000 for Qwen3-VL, 1e6 for Qwen2.5-VL; GPT-J's code fixes 10000), so 10000 is compared
    but named as assumed, never as expected.  A stated base is still expected."""
    f = _angles(base=1000000.0)
    c, s = torch.cat([f, f], -1).cos().numpy(), torch.cat([f, f], -1).sin().numpy()
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default"})
    assert rep.verdict == VARIANT, rep.render()
    assert not _expected_sentences(rep.diagnoses), rep.diagnoses
    assert rep.diagnoses[0].startswith("base 1000000 where 10000 was assumed (no rope_theta "
                                       "given"), rep.diagnoses
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000.0})
    assert rep.diagnoses == ["base 1000000 where 10000 was expected"], rep.diagnoses


def _transformers_cache(rp, hd, n=512, mpe=16384):
    tr = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = tr.LlamaConfig(hidden_size=hd * 4, num_attention_heads=4, head_dim=hd,
                         max_position_embeddings=mpe, rope_parameters=dict(rp))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inv, att = ROPE_INIT_FUNCTIONS[rp["rope_type"]](cfg, "cpu")
    f = torch.outer(torch.arange(n).float(), inv.float())
    emb = torch.cat([f, f], -1)
    return (emb.cos() * att).numpy(), (emb.sin() * att).numpy(), inv.numpy()


_IV = re.compile(r"original_max_position_embeddings (\d+) is the simplest in \[([\d.e+]+), "
                 r"([\d.e+]+)\]")


def _no_self_contradiction(rep):
    """No diagnosis names a length as wrong whose expected value lies in an interval the
    report printed for it."""
    ivs = [(float(a), float(b)) for _, a, b in _IV.findall(" ".join(rep.notes))]
    for m in re.finditer(r"original_max_position_embeddings (\d+) where (\d+) was expected",
                         " ".join(rep.diagnoses)):
        y = float(m.group(2))
        assert not any(a <= y <= b for a, b in ivs), (m.group(0), ivs)


def test_length_inside_own_interval_not_named():
    """transformers' YaRN (factor 4, original length 4096) at head_dim 16: the ramp allows
    original lengths [2010.6, 6283.2] and 2048 is named (the simplest); a config with the right
    length and the wrong factor was diagnosed 'yarn(factor=4, original_max_position_embeddings=
    2048, ...) where yarn(factor=8, original_max_position_embeddings=4096, ...)'.  Now only the
    factor is named."""
    rp = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
          "original_max_position_embeddings": 4096}
    c, s, inv = _transformers_cache(rp, 16)
    want = dict(rp, factor=8.0)
    for rep in (check_rotary(cos=c, sin=s, expect=want, seq_len=4096),
                check_rotary(inv_freq=inv, expect=want)):
        assert rep.verdict == VARIANT, rep.render()
        text = " ".join(rep.diagnoses)
        assert "factor 4 where 8 was expected" in text, rep.diagnoses
        assert "original_max_position_embeddings 2048" not in text, rep.diagnoses
        _no_self_contradiction(rep)
    # the right config still passes
    assert check_rotary(cos=c, sin=s, expect=rp, seq_len=4096).ok


def test_parameters_off_only_together_not_named_alone():
    """transformers' YaRN (factor 4, original length 8192) at head_dim 8 fits yarn(factor 2,
    2048) as well; against factor 8 with the right length 8192, the old diagnosis named
    'original_max_position_embeddings 2048 where 8192', false for this table.  Neither expected
    value alone is named wrong now: the report says they do not fit together."""
    rp = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
          "original_max_position_embeddings": 8192}
    c, s, _ = _transformers_cache(rp, 8)
    rep = check_rotary(cos=c, sin=s, expect=dict(rp, factor=8.0), seq_len=4096)
    assert rep.verdict == VARIANT, rep.render()
    text = " ".join(rep.diagnoses)
    assert "where 8192 was expected" not in text, rep.diagnoses
    assert "do not fit together" in text, rep.diagnoses
    _no_self_contradiction(rep)


def test_expected_value_that_fits_is_not_named():
    """The fit half of the check, with no interval to lean on: a yarn(4, 2048) identification
    of a yarn(4, 4096) inv_freq against yarn(8, 4096): the length 4096, put into the
    identified RoPE, fits the vector, so only the factor is named."""
    from peproof.formats import get_format
    from peproof.oracle.rotary.diagnose import _diff
    from peproof.oracle.rotary.expected import ASPECTS
    from peproof.oracle.rotary.inv_freq import compare_freqs
    from peproof.oracle.rotary.model import freq_map, thetas
    from peproof.rope import Rope
    from peproof.rope_scaling import Yarn

    rp = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
          "original_max_position_embeddings": 4096}
    _, _, inv = _transformers_cache(rp, 16, n=2)
    f32 = get_format("float32")

    def fits(r):
        return compare_freqs(inv.astype(np.float64), thetas(r), f32, f32, freq_map(r)).fits

    got, want = Rope(16, 10000, scaling=Yarn(4, 2048)), Rope(16, 10000, scaling=Yarn(8, 4096))
    assert fits(got) and fits(Rope(16, 10000, scaling=Yarn(4, 4096)))
    assert _diff(want, got, 1, 1, 16, ASPECTS, {}, fits) == \
        "factor 4 where 8 was expected (yarn scaling)"
    # without the check both would be named (as one sentence, neither alone)
    assert "original_max_position_embeddings" in _diff(want, got, 1, 1, 16, ASPECTS, {}, None)


def test_expected_value_inside_own_interval_is_not_named():
    """The interval half, with no fit to lean on: a length inside the interval the
    identification derived for it is taken, not named; one outside it is named."""
    from peproof.oracle.rotary.diagnose import _diff
    from peproof.oracle.rotary.expected import ASPECTS
    from peproof.rope import Rope
    from peproof.rope_scaling import Yarn

    iv = {"original_max_position_embeddings": (2010.62, 6283.19)}
    got = Rope(16, 10000, scaling=Yarn(4, 2048))
    inside = Rope(16, 10000, scaling=Yarn(8, 4096))
    assert _diff(inside, got, 1, 1, 16, ASPECTS, iv, None) == \
        "factor 4 where 8 was expected (yarn scaling)"
    outside = Rope(16, 10000, scaling=Yarn(4, 8192))
    assert _diff(outside, got, 1, 1, 16, ASPECTS, iv, None) == \
        "original_max_position_embeddings 2048 where 8192 was expected (yarn scaling)"


def test_report_says_what_was_filled_in():
    """The expected RoPE printed carries the layout and base the user did not state: the
    report says they were filled in, in text and JSON; a Rope given states everything."""
    from peproof.rope import Rope

    f = _angles()
    arr = torch.polar(torch.ones_like(f), f).numpy()
    rep = check_rotary(arr, expect={"rope_type": "default"})
    assert rep.unstated == ("layout", "base") and rep.to_json()["expected_unstated"] == \
        ["layout", "base"]
    assert "(not stated, filled in: layout, base)" in rep.render()
    rep = check_rotary(arr, expect={"rope_theta": 10000.0, "layout": "interleaved"})
    assert rep.unstated == () and "not stated" not in rep.render()
    rep = check_rotary(arr, expect=Rope(D, 10000, layout="interleaved"))
    assert rep.unstated == () and rep.ok


def _scaled_default_cache(a, d=D, n=2048):
    inv = (1.0 / (np.float32(10000) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))))
    ang = np.arange(n, dtype=np.float32)[:, None] * inv.astype(np.float32)[None, :]
    emb = np.concatenate([ang, ang], 1)
    return (np.cos(emb) * a).astype(np.float32), (np.sin(emb) * a).astype(np.float32)


def test_attention_the_amplitude_allows_is_not_named():
    """A plain RoPE cache times 0.1 ln 4 + 1 (YaRN's amplitude at factor 4) against YaRN 4:
    the frequencies differ, the amplitude is the expected one; the old diagnosis added
    'attention factor 1.13862944 where 1.13862944 was expected'."""
    import math

    c, s = _scaled_default_cache(np.float32(0.1 * math.log(4) + 1))
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "yarn", "factor": 4,
                                             "original_max_position_embeddings": 4096,
                                             "rope_theta": 10000})
    assert rep.verdict == VARIANT, rep.render()
    assert not any("attention factor" in x for x in rep.diagnoses), rep.diagnoses


def test_amplitude_alone_off_is_a_named_variant():
    """The expected RoPE times an amplitude no named bug explains: a variant naming the
    amplitude (was 'outside the model: not a RoPE cache peproof can express')."""
    c, s = _scaled_default_cache(np.float32(1.25))
    rep = check_rotary(cos=c, sin=s, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == VARIANT, rep.render()
    assert rep.diagnoses == ["attention factor 1.25 where 1 was expected"], rep.diagnoses
