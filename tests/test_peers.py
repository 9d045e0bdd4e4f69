"""The oracle against real implementations installed from PyPI, run as their users run them.  Needs
the extra ``peproof[peers]`` (torch, transformers, diffusers, positional-encodings, safetensors,
mlx, keras and keras-hub with the torch backend, labml-nn, x-transformers, torch-geometric,
performer-pytorch, reformer-pytorch); each test skips cleanly when its package is absent.  No model
weights are downloaded: every table is computed by the package's own code (the builders are
:mod:`peproof.oracle.sinusoidal.peers`).  Tables are checked through the Python API and, for some,
through the command line on a file the package's own writer produced (``torch.save``,
``safetensors``) or on ``module:function``.

Each test states the variant the package implements (read from its source) and asserts the
identified variant and the verdict: ``conforms`` or ``within the error model`` against that
variant (no correct table is ever called wrong), ``different variant`` against the paper where
it differs.  ``peproof report`` prints the table of all of them.
"""

import json

import numpy as np
import pytest

from peproof.cli import main
from peproof.oracle import CONFORMS, ROUNDING, VARIANT, Variant, check
from peproof.oracle.sinusoidal import peers

pytestmark = pytest.mark.peers

PAPER_NAME = "paper family, base 10000, interleaved layout, offset 0, scale 1"
H1_SINCOS = "h-1 family, base 10000, [sin|cos] layout"


def cli_json(capsys, *args):
    rc = main(["check", *map(str, args), "--json"])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def test_pytorch_tutorial_recipe(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pe = peers.tutorial(5000, 512)
    rep = check(pe)
    assert rep.identified.name == PAPER_NAME + ", float32"
    assert rep.verdict == ROUNDING  # float32 angles: right recipe, float32's errors
    # the exp recipe, as the tutorial writes it: it reproduces more entries bit for bit than
    # the pow recipe (row 0 alone is equal under every recipe, so "> 0" would prove nothing)
    assert rep.spec.recipe_equal["exp"] > rep.spec.recipe_equal["pow"]
    torch.save(pe, tmp_path / "pe.pt")
    rc, env = cli_json(capsys, tmp_path / "pe.pt")
    assert rc == 0 and env["verdict"]["code"] == "within_model"
    assert env["identified"]["name"] == PAPER_NAME + ", float32"
    half = check(pe.half())
    assert half.identified.name == PAPER_NAME + ", float16" and half.verdict == ROUNDING


def test_distilbert_create_sinusoidal_embeddings(tmp_path, capsys):
    pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    pytest.importorskip("transformers.models.distilbert.modeling_distilbert")
    out = peers.distilbert(512, 768)
    rep = check(out)
    assert rep.identified.name == PAPER_NAME + ", float32"
    assert rep.verdict == CONFORMS  # float64 numpy, cast once: within one ulp everywhere
    st.save_file({"position_embeddings.weight": out}, str(tmp_path / "pe.safetensors"))
    rc, env = cli_json(capsys, tmp_path / "pe.safetensors")
    assert rc == 0 and env["verdict"]["code"] == "conforms"


def test_marian_sinusoidal_positional_embedding(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers.models.marian.modeling_marian")
    table = peers.marian(512, 512)
    rep = check(table)
    assert rep.verdict == VARIANT
    assert rep.identified.name == ("paper family, base 10000, [sin|cos] layout, offset 0, "
                                   "scale 1, float32")
    assert check(table, layout="sin_cos").ok
    torch.save({"embed_positions.weight": table.detach()}, tmp_path / "sd.pt")
    rc, env = cli_json(capsys, tmp_path / "sd.pt", "--layout", "sin_cos")
    assert rc == 0


@pytest.mark.parametrize("cls_path", [
    "transformers.models.speech_to_text.modeling_speech_to_text:"
    "Speech2TextSinusoidalPositionalEmbedding",
    "transformers.models.m2m_100.modeling_m2m_100:M2M100SinusoidalPositionalEmbedding",
])
def test_fairseq_style_embeddings_start_at_two(tmp_path, capsys, cls_path):
    torch = pytest.importorskip("torch")
    mod_name, cls_name = cls_path.split(":")
    mod = pytest.importorskip(mod_name)
    emb = getattr(mod, cls_name)(1024, 256, padding_idx=1)
    input_ids = torch.full((1, 1000), 5)  # no padding: positions 2 .. 1001
    table = emb(input_ids)
    rep = check(table)
    assert rep.verdict == VARIANT
    assert rep.identified.name == H1_SINCOS + ", offset 2, scale 1, float32"
    assert check(table, expect="h-1", layout="sin_cos", offset=2).ok
    np.save(tmp_path / "out.npy", table.numpy())
    rc, env = cli_json(capsys, tmp_path / "out.npy", "--expect", "h-1", "--layout", "sin_cos",
                       "--offset", "2")
    assert rc == 0
    # the raw buffer: row padding_idx = 1 is zeroed: a padding row, named and left out
    raw = check(emb.weights, expect="h-1", layout="sin_cos")
    assert raw.ok and raw.padding == [1] and raw.identified.variant.same_as(
        Variant("h-1", 10000, "sin_cos"), 256)
    assert "row 1 all zeros: padding row, left out" in raw.headline


def test_whisper_sinusoids_as_module_function(capsys):
    pytest.importorskip("torch")
    mod = pytest.importorskip("transformers.models.whisper.modeling_whisper")
    target = f"{mod.__name__}:sinusoids"  # called as sinusoids(length, channels)
    rc, env = cli_json(capsys, target, "--d", "384", "--n", "1500")
    assert rc == 1 and env["verdict"]["code"] == "variant"
    assert env["identified"]["name"] == H1_SINCOS + ", offset 0, scale 1, float32"
    rc, env = cli_json(capsys, target, "--d", "384", "--n", "1500", "--expect", "h-1",
                       "--layout", "sin_cos")
    assert rc == 0 and env["verdict"]["code"] in ("conforms", "within_model")


@pytest.mark.parametrize("flip,shift,family,layout", [
    (False, 1, "h-1", "sin_cos"),    # the defaults (DDPM)
    (True, 0, "paper", "cos_sin"),   # Stable Diffusion's UNet: Timesteps(320, True, 0)
    (True, 1, "h-1", "cos_sin"),
    (False, 0, "paper", "sin_cos"),
])
def test_diffusers_timestep_embedding(tmp_path, capsys, flip, shift, family, layout):
    torch = pytest.importorskip("torch")
    emb_mod = pytest.importorskip("diffusers.models.embeddings")
    st = pytest.importorskip("safetensors.torch")
    t = torch.arange(1000)
    table = peers.diffusers_timesteps(1000, 320, flip_sin_to_cos=flip,
                                      downscale_freq_shift=shift)
    rep = check(table)
    want = Variant(family, 10000, layout)
    assert rep.verdict == VARIANT and rep.identified.variant.same_as(want, 320), rep.headline
    assert check(table, expect=want).verdict in (CONFORMS, ROUNDING)
    # the module users build
    module = emb_mod.Timesteps(320, flip_sin_to_cos=flip, downscale_freq_shift=shift)
    assert torch.equal(module(t), table)
    st.save_file({"emb": table}, str(tmp_path / "t.safetensors"))
    rc, env = cli_json(capsys, tmp_path / "t.safetensors", "--expect", family, "--layout",
                       layout)
    assert rc == 0


def test_diffusers_scaled_timesteps():
    torch = pytest.importorskip("torch")
    emb_mod = pytest.importorskip("diffusers.models.embeddings")
    t = torch.arange(1000, dtype=torch.float32) / 1000  # continuous time in [0, 1)
    table = emb_mod.get_timestep_embedding(t, 256, flip_sin_to_cos=True,
                                           downscale_freq_shift=0, scale=1000)
    # `scale` multiplies the angle: the rows sit at positions 1000 * t (t rounded to float32)
    positions = 1000 * t.double().numpy()
    rep = check(table, positions=positions, expect="paper", layout="cos_sin")
    assert rep.ok and rep.identified.variant.same_as(Variant("paper", 10000, "cos_sin"), 256)


def test_positional_encodings_1d(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("positional_encodings.torch_encodings")
    table = peers.positional_encodings_1d(1000, 128)  # (batch, x, ch) as its users call it
    rep = check(table)
    assert rep.identified.name == PAPER_NAME + ", float32"
    assert rep.verdict == ROUNDING
    # it computes 1 / 10000 ** (2i/d): the pow recipe matches more entries than exp
    assert rep.spec.recipe_equal["pow"] > rep.spec.recipe_equal["exp"]
    half = peers.positional_encodings_1d(1000, 128, dtype=torch.float16)
    rh = check(half)
    assert rh.identified.name == PAPER_NAME + ", float16" and rh.ok
    torch.save(table.clone(), tmp_path / "pe.pt")
    rc, env = cli_json(capsys, tmp_path / "pe.pt")
    assert rc == 0 and env["identified"]["name"] == PAPER_NAME + ", float32"


# ----------------------------------------------------------------------------- more packages
def _ok_as(table, variant: Variant, d: int, **kw):
    rep = check(table, expect="any", **kw)
    assert rep.identified.variant is not None and rep.identified.variant.same_as(variant, d), (
        rep.identified.name)
    assert rep.ok, rep.render()
    exp = check(table, expect=variant, **kw)
    assert exp.ok, exp.render()
    return rep


@pytest.mark.parametrize("kwargs,variant", [
    ({}, Variant("h-1", 10000, "sin_cos", scale="sqrt(2/d)")),
    ({"cos_first": True}, Variant("h-1", 10000, "cos_sin", scale="sqrt(2/d)")),
    ({"full_turns": True}, Variant("h-1", 10000, "sin_cos", scale="sqrt(2/d)", turns=True)),
    ({"min_freq": 1e-5, "max_freq": 0.5},
     Variant("h-1", 50000, "sin_cos", scale="sqrt(2/d)", max_freq="1/2")),
])
def test_mlx_sinusoidal_positional_encoding(kwargs, variant):
    """mlx computes its frequencies as the exponential of an interpolated logarithm in float32
    (relative error up to ~31 u at base 500000): within the model, never wrong."""
    pytest.importorskip("mlx.core")
    _ok_as(peers.mlx_sinusoidal(2048, 256, **kwargs), variant, 256)


def test_keras_hub_sine_position_encoding_with_the_torch_backend(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("KERAS_BACKEND", "torch")  # as its users run it without TensorFlow
    pytest.importorskip("keras_hub")
    table = peers.keras_hub_sine(2048, 256)
    rep = _ok_as(table, Variant(), 256)
    assert rep.verdict in (CONFORMS, ROUNDING) and check(table).ok  # the paper's variant


def test_labml_get_positional_encoding():
    pytest.importorskip("labml_nn.transformers.positional_encoding")
    table = peers.labml(2048, 512)
    _ok_as(table, Variant(), 512)
    assert check(table).ok


def test_x_transformers_scaled_sinusoidal_embedding():
    pytest.importorskip("x_transformers")
    rep = check(peers.x_transformers_scaled(2048, 512))
    assert rep.verdict == VARIANT
    assert rep.identified.variant.same_as(Variant("paper", 10000, "sin_cos", scale="1/sqrt(d)"),
                                          512)
    assert "channels laid out as [sin|cos]" in rep.diagnoses[0]
    assert "scale 1/sqrt(d)" in rep.diagnoses[1]


@pytest.mark.parametrize("kwargs,variant", [
    ({}, Variant("h-1", 10000, "sin_cos")),
    ({"granularity": 0.5}, Variant("h-1", 10000, "sin_cos", max_freq=2)),
])
def test_torch_geometric_positional_encoding(kwargs, variant):
    pytest.importorskip("torch_geometric")
    _ok_as(peers.torch_geometric(2048, 256, **kwargs), variant, 256)


@pytest.mark.parametrize("build", [peers.performer, peers.reformer], ids=["performer",
                                                                         "reformer"])
def test_lucidrains_fixed_positional_embeddings(build):
    pytest.importorskip("einops")
    try:
        table = build(2048, 512)
    except ImportError as exc:
        pytest.skip(str(exc))
    _ok_as(table, Variant("paper", 10000, "sin_cos"), 512)


@pytest.mark.parametrize("model", sorted(peers.PADDED))
def test_transformers_models_with_a_padding_row(model):
    """fairseq's convention: the buffer's row padding_idx = 1 is zeroed.  Named and left out;
    the rest is the h-1 [sin|cos] variant within the model of float32."""
    pytest.importorskip(f"transformers.models.{model}.modeling_{model}")
    table = peers.transformers_padded(model, 1024, 256)
    rep = check(table, expect="h-1", layout="sin_cos")
    assert rep.ok and rep.padding == [1], rep.render()
    assert rep.counted.excluded_rows == 1 and rep.counted.rows == table.shape[0] - 1
    assert "row 1 all zeros: padding row, left out" in rep.headline
    paper = check(table)  # against the paper: a named variant, counts against it
    assert paper.verdict == VARIANT and paper.padding == [1]
    assert paper.counted is paper.other and paper.counted.over_budget == 0


def test_transformers_musicgen_is_cos_first():
    pytest.importorskip("transformers.models.musicgen.modeling_musicgen")
    _ok_as(peers.musicgen(1024, 256), Variant("h-1", 10000, "cos_sin"), 256)


def test_diffusers_1d_sincos_pos_embed():
    pytest.importorskip("diffusers.models.embeddings")
    table = peers.diffusers_sincos_1d(1024, 256)  # float64 numbers
    _ok_as(table, Variant("paper", 10000, "sin_cos"), 256)
