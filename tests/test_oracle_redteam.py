"""Red team of issue 24: tables and caches from code paths the other tests never used, built as
their users build them (no weights), each with the verdict and the identification the oracle
must give.  Positions in reversed order with an offset (XLNet's and FastSpeech2-Conformer's
relative encodings), an h-1 table in halves (TimesFM), a bfloat16 computation whose positions
collide past 256, rotary angles (CLVP), a one-column-per-pair cache (torchscale) and a cache
scaled per position (XPOS), which must not pass."""

import pytest

from peproof.oracle import DEGENERATE, check, check_rotary

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def _timesfm(dtype=None):
    from transformers import TimesFmConfig
    from transformers.models.timesfm.modeling_timesfm import TimesFmPositionalEmbedding

    m = TimesFmPositionalEmbedding(TimesFmConfig(hidden_size=64, min_timescale=1,
                                                 max_timescale=10000))
    if dtype is None:
        return m(seq_length=512)[0].numpy()
    m = m.to(dtype)
    return m(position=torch.arange(512, dtype=dtype)[None])[0]


def test_timesfm_is_h_minus_1_in_halves():
    rep = check(_timesfm(), expect="any")
    assert rep.ok
    assert rep.identified.name.startswith("h-1 family, base 10000, [sin|cos] layout, offset 0")


def test_timesfm_in_bfloat16_collides_past_256():
    import ml_dtypes

    t = _timesfm(torch.bfloat16).float().numpy().astype(ml_dtypes.bfloat16)
    rep = check(t, expect="h-1", layout="sin_cos")
    assert rep.verdict == DEGENERATE
    assert "bfloat16 holds integer positions exactly only up to 256" in " ".join(rep.diagnoses)


def test_xlnet_relative_encoding_reversed_from_klen():
    from transformers import XLNetConfig, XLNetModel

    m = XLNetModel(XLNetConfig(d_model=64, n_layer=1, n_head=2, d_inner=32, vocab_size=10,
                               attn_type="bi"))
    pe = m.relative_positional_encoding(256, 256, bsz=None)[:, 0].detach().numpy()
    rep = check(pe, expect="any")
    assert rep.ok
    assert rep.identified.name.startswith("paper family, base 10000, [sin|cos] layout, offset "
                                          "-255, scale 1, rows in reversed order")


def test_fastspeech2_conformer_relative_encoding():
    from transformers import FastSpeech2ConformerConfig
    from transformers.models.fastspeech2_conformer.modeling_fastspeech2_conformer import (
        FastSpeech2ConformerRelPositionalEncoding,
    )

    m = FastSpeech2ConformerRelPositionalEncoding(FastSpeech2ConformerConfig(hidden_size=64),
                                                  {"positional_dropout_rate": 0.0})
    pe = m.extend_pos_enc(torch.zeros(1, 128, 64))[0].numpy()
    rep = check(pe, expect="any")
    assert rep.ok
    assert rep.identified.name.startswith("paper family, base 10000, interleaved layout, offset "
                                          "-127, scale 1, rows in reversed order")


def test_clvp_rotary_angles():
    from transformers import ClvpEncoderConfig
    from transformers.models.clvp.modeling_clvp import ClvpRotaryPositionalEmbedding

    ang = ClvpRotaryPositionalEmbedding(ClvpEncoderConfig(projection_dim=768,
                                                          num_attention_heads=12))(
        torch.zeros(1, 512, 8))[0].numpy()
    rep = check_rotary(angles=ang)
    assert rep.ok and rep.identified.d == 32 and rep.identified._base == 10000


@pytest.mark.parametrize("theta", [10000, 50000])
def test_local_attention_sinusoidal_embeddings(theta):
    la = pytest.importorskip("local_attention.rotary")
    freqs, _ = la.SinusoidalEmbeddings(64, theta=theta)(torch.zeros(1, 512, 64))
    rep = check_rotary(cos=freqs.cos().numpy(), sin=freqs.sin().numpy())
    assert rep.ok and rep.identified._base == theta


def test_torchscale_cache_and_xpos():
    xp = pytest.importorskip("torchscale.component.xpos_relative_position")
    sin, cos = xp.fixed_pos_embedding(torch.zeros(512, 32))
    rep = check_rotary(cos=cos.numpy(), sin=sin.numpy())
    assert rep.ok and rep.identified.d == 64 and rep.identified._base == 10000
    m = xp.XPOS(64, scale_base=512)
    scale = m.scale ** (torch.arange(512) - 256).to(m.scale).div(m.scale_base)[:, None]
    sin, cos = xp.fixed_pos_embedding(scale)
    cos, sin = xp.duplicate_interleave(cos * scale), xp.duplicate_interleave(sin * scale)
    assert not check_rotary(cos=cos.numpy(), sin=sin.numpy()).ok  # amplitudes vary per row


def test_local_attention_under_half_is_read_as_a_float16_computation():
    """``.half()``: positions and inv_freq in float16, cos/sin then taken in float32 (previous
    code: 'outside the model', the float32 cache read in float32 only).  Its angles at position 1
    are float16 values, so it is read in that pipeline: positions collide from 2048."""
    la = pytest.importorskip("local_attention.rotary")
    freqs, _ = la.SinusoidalEmbeddings(64).half()(torch.zeros(1, 4096, 64, dtype=torch.float16))
    a = freqs.float()
    rep = check_rotary(cos=a.cos().numpy(), sin=a.sin().numpy())
    assert rep.verdict == DEGENERATE
    assert rep.notes[0].startswith("read as a float16 computation stored as float32")
    assert "positions collide" in rep.diagnoses[0]


def test_a_wide_cache_without_a_16_bit_trace_is_not_read_as_one():
    """Neighbouring pairs sharing one frequency (float32 angles): no pipeline is borrowed."""
    w = (1.0 / 10000 ** (2 * (torch.arange(32) // 2) * 2 / 64)).float()
    a = torch.arange(512).float()[:, None] * w
    a = torch.cat([a, a], -1)
    rep = check_rotary(cos=a.cos().numpy(), sin=a.sin().numpy())
    assert not rep.ok
    assert not any("read as a" in x for x in rep.notes)
