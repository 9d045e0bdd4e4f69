"""peproof.rope_scaling against transformers' own rope initialisation, every rope_type.

Each case builds a tiny config, runs transformers' ``ROPE_INIT_FUNCTIONS[rope_type]`` (float32
frequencies, a float attention factor) and compares it with the exact map of
:mod:`peproof.rope_scaling` (arb, correctly rounded): the right map must agree within float32's
rounding of a power (relative 1e-5 here, where different maps differ by percents), and the
nearest *wrong* map must not.  This is what part 3's identification will stand on.
"""

import math

import numpy as np
import pytest

from peproof.rope import Rope
from peproof.rope_scaling import Default, DynamicNTK, Linear, Llama3, LongRope, NTKAware, Yarn

pytestmark = pytest.mark.peers
HEAD = 128
TOL = 1e-5


def hf(rope_type: str, seq_len=None, max_pos=8192, **params):
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    rp = {"rope_type": rope_type, "rope_theta": 10000.0, **params}
    cfg = transformers.LlamaConfig(hidden_size=2 * HEAD, num_attention_heads=2, head_dim=HEAD,
                                   max_position_embeddings=max_pos, rope_parameters=rp)
    if rope_type == "default":
        return 10000.0 ** -(np.arange(0, HEAD, 2) / HEAD), 1.0
    inv, att = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)
    return inv.double().numpy(), float(att)


def ours(scaling, seq_len=None):
    r = Rope(HEAD, 10000, scaling=scaling)
    return r.thetas_f64(seq_len), float(r.attention_factor_arb(seq_len=seq_len).mid())


def rel(a, b):
    return float(np.max(np.abs(a - b) / np.abs(b)))


CASES = [
    ("default", {}, None, Default(), Linear(2)),
    ("linear", {"factor": 4.0}, None, Linear(4), NTKAware(4)),
    ("dynamic", {"factor": 2.0}, 20000, DynamicNTK(2, 8192), NTKAware(20000 / 8192)),
    ("dynamic", {"factor": 2.0}, 4000, DynamicNTK(2, 8192), Linear(2)),
    ("yarn", {"factor": 16.0, "original_max_position_embeddings": 4096}, None,
     Yarn(16, 4096), Yarn(16, 4096, ramp="ratio")),
    ("yarn", {"factor": 8.0, "original_max_position_embeddings": 2048, "beta_fast": 16.0,
              "beta_slow": 2.0, "truncate": False}, None,
     Yarn(8, 2048, 16, 2, truncate=False), Yarn(8, 2048, 16, 2)),
    ("llama3", {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192}, None, Llama3(8, 1, 4, 8192),
     Linear(8)),
]


@pytest.mark.parametrize("rope_type,params,seq_len,right,wrong", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_map_matches_transformers(rope_type, params, seq_len, right, wrong):
    got, att = hf(rope_type, seq_len, **params)
    want, want_att = ours(right, seq_len)
    assert rel(got, want) < TOL, f"{rope_type}: {right.describe()} differs by {rel(got, want)}"
    assert math.isclose(att, want_att, rel_tol=1e-12), f"{rope_type}: attention {att}"
    other, _ = ours(wrong, seq_len)
    assert rel(got, other) > 100 * TOL, f"{rope_type}: {wrong.describe()} also fits"


def test_longrope_short_and_long_sets():
    short = [1.0 + 0.05 * j for j in range(HEAD // 2)]
    long_ = [2.0 + 0.25 * j for j in range(HEAD // 2)]
    params = {"short_factor": short, "long_factor": long_,
              "original_max_position_embeddings": 4096}
    sc = LongRope(tuple(short), tuple(long_), 4096, factor=32768 / 4096)
    for seq_len in (4096, 4097):
        got, att = hf("longrope", seq_len, max_pos=32768, **params)
        want, want_att = ours(sc, seq_len)
        assert rel(got, want) < TOL, f"seq_len {seq_len}: {rel(got, want)}"
        assert math.isclose(att, want_att, rel_tol=1e-12)
    got, _ = hf("longrope", 4096, max_pos=32768, **params)
    assert rel(got, ours(sc, 4097)[0]) > 0.1  # the sets really differ


def test_yarn_ramps_differ_where_the_claim_says():
    """The published ramp does not reproduce transformers (rope.yarn_published_and_code_ramps_
    differ): pair 30 of d = 128 differs, pairs 10 and 60 agree."""
    got, _ = hf("yarn", factor=16.0, original_max_position_embeddings=4096)
    paper, _ = ours(Yarn(16, 4096, ramp="ratio"))
    assert abs(got[30] - paper[30]) / paper[30] > 0.1
    assert abs(got[10] - paper[10]) / paper[10] < TOL
    assert abs(got[60] - paper[60]) / paper[60] < TOL
