"""More real implementations, run as their users run them (extra ``peproof[peers]``).

Each expected verdict is argued from the package's source, not from the oracle:

* ``create_weight`` models (Pegasus, Informer, TimeSeriesTransformer, Autoformer, RoFormer) and
  XLM's ``create_sinusoidal_embeddings`` compute the angle ``pos / 10000 ** (2 (j // 2) / dim)``
  and its sin and cos in float64 NumPy (errors of a few 1e-16), then cast to float32: every
  entry is within one float32 ulp of the exact value, so the verdict is ``conforms``; sin in the
  first half and cos in the second ([sin|cos]), paper exponent 2i/d; XLM interleaves.
* FSMT's ``get_embedding`` is fairseq's: ``exp(-i ln(10000) / (half - 1))`` in float32 (the h-1
  exponent), ``[sin|cos]``, the row ``padding_idx`` zeroed: within the error model of float32,
  row 1 named as padding.
* PegasusX computes its table in the activations' dtype: ``position_ids * div_term`` promotes
  the int64 positions to that dtype, so in bfloat16 position 257 (not representable with 8
  significand bits) rounds to 256 (ties to even) and the two rows are equal; in float16 the
  same happens to 2049 and 2048.  Distinct positions with identical rows: ``degenerate``.
* keras-hub's ``SinePositionEncoding`` with the dtype policy ``"bfloat16"`` computes every step
  in bfloat16 (positions cast to it, frequencies by ``power`` in it, the product, sin and cos):
  rows 256 and 257 are equal, so with collisions allowed it is within the model of bfloat16;
  two rows of distinct rounded positions swapped (300 and 302) are no computation's output.
* PatchTST's ``sincos`` encoding is the paper's table, then ``(pe - pe.mean()) / (pe.std() *
  10)``: not a table of the variant space (no scale moves the centre of the pairs' circle off
  the origin), so ``outside the model``; the diagnosis names the affine transform.
"""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from peproof.oracle import (
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    ROUNDING,
    VARIANT,
    WITHIN,
    WRONG,
    Variant,
    check,
)
from peproof.oracle.sinusoidal import peers

pytestmark = pytest.mark.peers


@pytest.mark.parametrize("model", sorted(peers.CREATE_WEIGHT))
def test_transformers_create_weight_models_conform(model):
    pytest.importorskip(f"transformers.models.{model}.modeling_{model}")
    table = peers.transformers_create_weight(model, 1024, 256)
    want = Variant("paper", 10000, "sin_cos")
    rep = check(table, expect=want)
    assert rep.verdict == CONFORMS, rep.render()
    assert rep.identified.variant.same_as(want, 256)


def test_xlm_create_sinusoidal_embeddings_conforms():
    pytest.importorskip("transformers.models.xlm.modeling_xlm")
    rep = check(peers.xlm(512, 256))
    assert rep.verdict == CONFORMS, rep.render()


def test_fsmt_fairseq_embedding_with_its_padding_row():
    pytest.importorskip("transformers.models.fsmt.modeling_fsmt")
    table = peers.fsmt(1024, 256, padding_idx=1)
    assert not np.asarray(table[1]).any() and np.asarray(table[2]).any()
    rep = check(table, expect="h-1", layout="sin_cos")
    assert rep.verdict in (CONFORMS, ROUNDING) and rep.padding == [1], rep.render()
    assert rep.identified.variant.same_as(Variant("h-1", 10000, "sin_cos"), 256)


@pytest.mark.parametrize("dtype,first", [("bfloat16", 256), ("float16", 2048)])
def test_pegasus_x_in_16_bits_collides(dtype, first):
    pytest.importorskip("transformers.models.pegasus_x.modeling_pegasus_x")
    table = peers.pegasus_x(4096, 256, dtype)
    rows = table.float().numpy()
    # the collision itself, seen in the package's output: rows first and first + 1 are equal
    assert np.array_equal(rows[first], rows[first + 1])
    assert not np.array_equal(rows[first - 1], rows[first])
    rep = check(table, expect="h-1", layout="sin_cos")
    assert rep.verdict == DEGENERATE and rep.exit_code == 1, rep.render()
    assert rep.collisions["examples"][0][:2] == [first, first + 1]
    line = rep.diagnoses[-1]
    assert f"positions {first}, {first + 1} give identical rows" in line
    assert f"{dtype} holds integer positions exactly only up to {first}" in line
    allowed = check(table, expect="h-1", layout="sin_cos", allow_collisions=True)
    assert allowed.verdict != DEGENERATE


def test_pegasus_x_in_float32_is_within_the_model():
    pytest.importorskip("transformers.models.pegasus_x.modeling_pegasus_x")
    rep = check(peers.pegasus_x(4096, 256, "float32"), expect="h-1", layout="sin_cos")
    assert rep.verdict in (CONFORMS, ROUNDING), rep.render()


def test_keras_hub_in_bfloat16_is_one_computation(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("KERAS_BACKEND", "torch")
    pytest.importorskip("keras_hub")
    table = peers.keras_hub_sine(1024, 128, dtype="bfloat16")
    rows = table.float().numpy()
    assert np.array_equal(rows[256], rows[257]) and not np.array_equal(rows[300], rows[302])
    assert check(table).verdict == DEGENERATE
    rep = check(table, allow_collisions=True)
    assert rep.verdict == ROUNDING, rep.render()
    bad = table.clone()
    bad[[300, 302]] = bad[[302, 300]]
    rep = check(bad, allow_collisions=True)
    assert rep.verdict == WRONG, rep.render()
    assert "no one computation gives these rows" in rep.diagnoses[0]


def test_patchtst_normalised_table_is_named_as_an_affine_transform():
    pytest.importorskip("transformers.models.patchtst.modeling_patchtst")
    table = peers.patchtst(64, 128)
    rep = check(table)
    assert rep.verdict == OUTSIDE, rep.render()
    text = rep.headline
    assert "affine transform of a sinusoidal table" in text and "random" not in text
    assert "paper family, base 10000, interleaved layout" in text
    # independently: the table is an affine image of the paper table, built here in NumPy
    t = np.asarray(table, dtype=np.float64)
    p = np.arange(64.0)[:, None]
    w = 10000.0 ** (-np.arange(0, 128, 2) / 128.0)
    paper = np.empty((64, 128))
    paper[:, 0::2], paper[:, 1::2] = np.sin(p * w), np.cos(p * w)
    A = np.stack([paper.ravel(), np.ones(paper.size)], axis=1)
    (a, b), *_ = np.linalg.lstsq(A, t.ravel(), rcond=None)
    assert np.abs(a * paper + b - t).max() < 1e-6 and abs(b) > 0.01

def test_a_random_table_is_not_called_an_affine_transform():
    """The affine diagnosis must not fire on random initialisation."""
    rng = np.random.default_rng(0)
    rep = check(rng.standard_normal((64, 128)).astype(np.float32) * 0.02)
    assert rep.verdict == OUTSIDE and "affine" not in rep.headline


# ---- relative tables, TimesFM, Qwen2.5-Omni (argued from transformers' source)
# Parakeet: ``arange(S-1, -S, -1)`` float positions times ``1 / 10000 ** (arange(0, d, 2) / d)``
# (float32), sin and cos stacked then reshaped: interleaved, rows at positions S-1 .. -(S-1),
# i.e. reversed order with offset -(S-1) over 2S-1 rows; cast to the activations' dtype.
# Wav2Vec2-Conformer: the positive half flipped (S-1 .. 0) then the negative half (-1 .. -(S-1)):
# the same law.  Computed in float32 (not correctly rounded): within, or conforms.
@pytest.mark.parametrize("model", ["parakeet", "wav2vec2_conformer"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_transformers_relative_tables_are_reversed_with_a_negative_offset(model, dtype):
    pytest.importorskip(f"transformers.models.{model}.modeling_{model}")
    S, d = 512, 64
    table = peers.transformers_relative(model, S, d, dtype)
    want = Variant("paper", 10000, "interleaved", offset=-(S - 1), order="reversed")
    rep = check(table, expect=want)
    assert rep.verdict in (CONFORMS, WITHIN), rep.render()
    assert rep.identified.variant.same_as(want, d), rep.identified.variant.name(d)
    if dtype != "float32":  # two distinct rows swapped: no computation gives that table
        t = table.float().numpy().astype({"bfloat16": ml_dtypes.bfloat16,
                                          "float16": np.float16}[dtype])
        a = next(i for i in range(8, 2 * S - 2) if not np.array_equal(t[i], t[i + 1]))
        t[[a, a + 1]] = t[[a + 1, a]]
        assert check(t, expect=want).verdict == WRONG


# TimesFM: ``min_timescale * exp(arange(h) * -ln(max/min) / (h - 1))``: the h-1 exponent with
# base max/min and maximum frequency min_timescale; [sin|cos]; float32.
@pytest.mark.parametrize("lo,hi", [(1, 10000), (2, 500)])
def test_transformers_timesfm_positional_embedding(lo, hi):
    pytest.importorskip("transformers.models.timesfm.modeling_timesfm")
    want = Variant("h-1", Fraction(hi, lo), "sin_cos", max_freq=lo)
    rep = check(peers.timesfm(1024, 256, lo, hi), expect=want)
    assert rep.verdict in (CONFORMS, WITHIN), rep.render()
    assert rep.identified.variant.same_as(want, 256), rep.identified.variant.name(256)


# Qwen2.5-Omni: whisper's sinusoids (``exp(-ln(10000) / (h - 1) * i)``, [sin|cos]); against
# the paper: a different variant, named h-1.
def test_transformers_qwen_omni_sinusoids_are_h_1():
    pytest.importorskip("transformers.models.qwen2_5_omni.modeling_qwen2_5_omni")
    rep = check(peers.qwen_omni_sinusoids(1500, 256))
    assert rep.verdict == VARIANT, rep.render()
    assert rep.identified.variant.same_as(Variant("h-1", 10000, "sin_cos"), 256)
