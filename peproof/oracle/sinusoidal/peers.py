"""Real implementations, built the way their users build them (extra ``peproof[peers]``).

One catalogue for the peer tests (``tests/test_peers.py``) and the report: every builder calls
the installed package's own code — nothing of the encoding is computed here, except the PyTorch
tutorial's buffer, which is code its readers paste and is reproduced as the tutorial writes it.
Imports happen inside the builders, so this module loads without the extra.
"""

from __future__ import annotations

import importlib
import math


def tutorial(max_len: int = 2048, d_model: int = 512):
    """The sinusoidal buffer of the PyTorch transformer tutorial, shape ``(max_len, 1, d)``."""
    import torch

    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, 1, d_model)
    pe[:, 0, 0::2] = torch.sin(position * div_term)
    pe[:, 0, 1::2] = torch.cos(position * div_term)
    return pe


def distilbert(n_pos: int = 512, dim: int = 768):
    import torch

    mod = importlib.import_module("transformers.models.distilbert.modeling_distilbert")
    out = torch.empty(n_pos, dim)
    mod.create_sinusoidal_embeddings(n_pos=n_pos, dim=dim, out=out)
    return out


def marian(n_pos: int = 512, dim: int = 512):
    import torch

    mod = importlib.import_module("transformers.models.marian.modeling_marian")
    emb = mod.MarianSinusoidalPositionalEmbedding(n_pos, dim)
    with torch.no_grad():  # what MarianPreTrainedModel._init_weights does
        emb.weight.copy_(emb.create_weight())
        return emb(torch.Size([1, n_pos]))


def whisper(length: int = 1500, channels: int = 384):
    mod = importlib.import_module("transformers.models.whisper.modeling_whisper")
    return mod.sinusoids(length, channels)


def diffusers_timesteps(n: int = 1000, dim: int = 320, **kwargs):
    import torch

    mod = importlib.import_module("diffusers.models.embeddings")
    return mod.get_timestep_embedding(torch.arange(n), dim, **kwargs)


def positional_encodings_1d(n: int = 1000, channels: int = 128, dtype=None):
    import torch

    mod = importlib.import_module("positional_encodings.torch_encodings")
    x = torch.zeros(1, n, channels, dtype=dtype or torch.float32)  # (batch, x, ch)
    return mod.PositionalEncoding1D(channels)(x)[0]


def mlx_sinusoidal(n: int = 2048, dims: int = 512, **kwargs):
    """mlx.nn.SinusoidalPositionalEncoding (mlx's own kernels, CPU build), as a NumPy array."""
    import mlx.core as mx
    import mlx.nn as nn
    import numpy as np

    return np.array(nn.SinusoidalPositionalEncoding(dims, **kwargs)(mx.arange(n)))


def keras_hub_sine(n: int = 2048, d: int = 256, dtype: str | None = None):
    """keras_hub.layers.SinePositionEncoding with the torch backend (KERAS_BACKEND=torch);
    ``dtype`` is the layer's dtype policy (``"bfloat16"``: every step computed in it)."""
    import os

    os.environ.setdefault("KERAS_BACKEND", "torch")
    import torch

    hub = importlib.import_module("keras_hub")
    if dtype is None:
        return hub.layers.SinePositionEncoding()(torch.zeros(1, n, d))[0]
    layer = hub.layers.SinePositionEncoding(dtype=dtype)
    return layer(torch.zeros(1, n, d, dtype=getattr(torch, dtype)))[0].cpu()


def labml(n: int = 2048, d: int = 512):
    mod = importlib.import_module("labml_nn.transformers.positional_encoding")
    return mod.get_positional_encoding(d, n)  # (max_len, 1, d)


def x_transformers_scaled(n: int = 2048, d: int = 512):
    import torch

    mod = importlib.import_module("x_transformers.x_transformers")
    return mod.ScaledSinusoidalEmbedding(d)(torch.zeros(1, n, d))  # scale d**-0.5 at init


def torch_geometric(n: int = 2048, d: int = 256, **kwargs):
    import torch

    mod = importlib.import_module("torch_geometric.nn")
    return mod.PositionalEncoding(d, **kwargs)(torch.arange(n).float())


def performer(n: int = 2048, d: int = 512):
    import torch

    mod = importlib.import_module("performer_pytorch.performer_pytorch")
    return mod.FixedPositionalEmbedding(d, n)(torch.zeros(1, n, d))[0]


def reformer(n: int = 2048, d: int = 512):
    import torch

    mod = importlib.import_module("reformer_pytorch.reformer_pytorch")
    return mod.FixedPositionalEmbedding(d)(torch.zeros(1, n, d))[0]


#: transformers models whose sinusoidal embedding zeroes the row of ``padding_idx`` (fairseq's
#: convention): (model module, class)
PADDED = {
    "xglm": "XGLMSinusoidalPositionalEmbedding",
    "m2m_100": "M2M100SinusoidalPositionalEmbedding",
    "nllb_moe": "NllbMoeSinusoidalPositionalEmbedding",
    "kosmos2": "Kosmos2TextSinusoidalPositionalEmbedding",
    "trocr": "TrOCRSinusoidalPositionalEmbedding",
    "speecht5": "SpeechT5SinusoidalPositionalEmbedding",
    "speech_to_text": "Speech2TextSinusoidalPositionalEmbedding",
    "seamless_m4t": "SeamlessM4TSinusoidalPositionalEmbedding",
}


def transformers_padded(model: str, n: int = 1024, dim: int = 256, padding_idx: int = 1):
    """The buffer a transformers model holds: row ``padding_idx`` zeroed."""
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    return getattr(mod, PADDED[model])(n, dim, padding_idx=padding_idx).weights


def musicgen(n: int = 1024, dim: int = 256):
    mod = importlib.import_module("transformers.models.musicgen.modeling_musicgen")
    return mod.MusicgenSinusoidalPositionalEmbedding(n, dim).weights


def diffusers_sincos_1d(n: int = 1024, dim: int = 256):
    """diffusers' get_1d_sincos_pos_embed_from_grid (DiT, PixArt), in float64."""
    import torch

    mod = importlib.import_module("diffusers.models.embeddings")
    return mod.get_1d_sincos_pos_embed_from_grid(dim, torch.arange(n), output_type="pt")


#: transformers models that build their table with ``create_weight`` (float64 angles
#: ``pos / 10000 ** (2 (j // 2) / dim)`` in NumPy, sin in the first half, cos in the second,
#: cast to float32): (model module, class)
CREATE_WEIGHT = {
    "pegasus": "PegasusSinusoidalPositionalEmbedding",
    "informer": "InformerSinusoidalPositionalEmbedding",
    "time_series_transformer": "TimeSeriesSinusoidalPositionalEmbedding",
    "autoformer": "AutoformerSinusoidalPositionalEmbedding",
    "roformer": "RoFormerSinusoidalPositionalEmbedding",
}


def transformers_create_weight(model: str, n: int = 1024, dim: int = 256):
    """The table such a model's ``_init_weights`` copies into its embedding."""
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    return getattr(mod, CREATE_WEIGHT[model])(n, dim).create_weight()


def xlm(n_pos: int = 512, dim: int = 256):
    """XLM's (and Flaubert's) create_sinusoidal_embeddings into a float32 buffer."""
    import torch

    mod = importlib.import_module("transformers.models.xlm.modeling_xlm")
    return mod.create_sinusoidal_embeddings(n_pos, dim, torch.empty(n_pos, dim))


def fsmt(n: int = 1024, dim: int = 256, padding_idx: int = 1):
    """FSMT's fairseq-style SinusoidalPositionalEmbedding.get_embedding (row padding_idx zeroed)."""
    mod = importlib.import_module("transformers.models.fsmt.modeling_fsmt")
    return mod.SinusoidalPositionalEmbedding.get_embedding(n, dim, padding_idx)


def pegasus_x(n: int = 4096, dim: int = 256, dtype: str = "float32"):
    """PegasusX computes its table on the fly in the dtype of the activations."""
    import torch

    mod = importlib.import_module("transformers.models.pegasus_x.modeling_pegasus_x")
    x = torch.zeros(1, n, dim, dtype=getattr(torch, dtype))
    return mod.PegasusXSinusoidalPositionalEmbedding(dim)(x)[0]


def patchtst(num_patches: int = 64, d_model: int = 128):
    """PatchTST's 'sincos' positional encoding: the paper's table, then (pe - mean) / (10 std)."""
    tr = importlib.import_module("transformers")
    mod = importlib.import_module("transformers.models.patchtst.modeling_patchtst")
    cfg = tr.PatchTSTConfig(positional_encoding_type="sincos", d_model=d_model,
                            use_cls_token=False)
    return mod.PatchTSTPositionalEncoding(cfg, num_patches).position_enc.detach()


def transformers_relative(model: str, n: int = 1024, dim: int = 128, dtype: str = "float32"):
    """A conformer's relative table: rows at positions ``n-1, n-2, ..., -(n-1)`` (``2n - 1``
    rows), paper frequencies, sin and cos interleaved, as the model hands it to attention:
    Parakeet computes it on the fly in float32 and casts it to the activations' dtype;
    Wav2Vec2-Conformer builds its buffer in float32 (``extend_pe``) and casts it the same way."""
    import torch

    tr = importlib.import_module("transformers")
    x = torch.zeros(1, n, dim, dtype=getattr(torch, dtype))
    if model == "parakeet":
        mod = importlib.import_module("transformers.models.parakeet.modeling_parakeet")
        cfg = tr.ParakeetEncoderConfig(hidden_size=dim, num_attention_heads=4)
        return mod.ParakeetEncoderRelPositionalEncoding(cfg)(x)[0]
    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    cfg = tr.Wav2Vec2ConformerConfig(hidden_size=dim, num_attention_heads=4,
                                     max_source_positions=n)
    return mod.Wav2Vec2ConformerRelPositionalEmbedding(cfg).pe[0].to(getattr(torch, dtype))


def timesfm(n: int = 1024, dim: int = 256, min_timescale: int = 1, max_timescale: int = 10000):
    """TimesFM's positional embedding: frequencies ``min_timescale * exp(-i ln(max/min) /
    (h - 1))`` in float32, [sin|cos]."""
    tr = importlib.import_module("transformers")
    mod = importlib.import_module("transformers.models.timesfm.modeling_timesfm")
    cfg = tr.TimesFmConfig(hidden_size=dim, min_timescale=min_timescale,
                           max_timescale=max_timescale)
    return mod.TimesFmPositionalEmbedding(cfg)(seq_length=n)[0]


def qwen_omni_sinusoids(n: int = 1500, channels: int = 256):
    """Qwen2.5-Omni's audio encoder table (whisper's recipe): h-1 exponent, [sin|cos]."""
    mod = importlib.import_module("transformers.models.qwen2_5_omni.modeling_qwen2_5_omni")
    return mod.SinusoidsPositionEmbedding(n, channels).positional_embedding


def _padded(model: str):
    def build(n: int = 1024, dim: int = 256):
        return transformers_padded(model, n, dim)

    build.__name__ = f"transformers_padded_{model}"
    return build


#: (implementation, distribution, builder) for the report's table and the peer tests
CATALOGUE = (
    ("PyTorch tutorial recipe (float32)", "torch", tutorial),
    ("DistilBERT create_sinusoidal_embeddings", "transformers", distilbert),
    ("Marian sinusoidal positional embedding", "transformers", marian),
    ("Whisper sinusoids", "transformers", whisper),
    ("diffusers get_timestep_embedding (defaults)", "diffusers", diffusers_timesteps),
    ("positional-encodings PositionalEncoding1D", "positional-encodings",
     positional_encodings_1d),
    ("mlx SinusoidalPositionalEncoding (defaults)", "mlx", mlx_sinusoidal),
    ("keras-hub SinePositionEncoding (torch backend)", "keras-hub", keras_hub_sine),
    ("labml-nn get_positional_encoding", "labml-nn", labml),
    ("x-transformers ScaledSinusoidalEmbedding", "x-transformers", x_transformers_scaled),
    ("torch-geometric PositionalEncoding", "torch-geometric", torch_geometric),
    ("performer-pytorch FixedPositionalEmbedding", "performer-pytorch", performer),
    ("reformer-pytorch FixedPositionalEmbedding", "reformer-pytorch", reformer),
    *((f"transformers {m} sinusoidal embedding (padding row)", "transformers", _padded(m))
      for m in PADDED),
    ("transformers MusicGen sinusoidal embedding", "transformers", musicgen),
    ("diffusers get_1d_sincos_pos_embed_from_grid", "diffusers", diffusers_sincos_1d),
    ("transformers Parakeet relative positional encoding", "transformers",
     lambda n=1024, dim=128: transformers_relative("parakeet", n, dim)),
    ("transformers Wav2Vec2-Conformer relative positional embedding", "transformers",
     lambda n=1024, dim=128: transformers_relative("wav2vec2_conformer", n, dim)),
    ("transformers TimesFM positional embedding", "transformers", timesfm),
    ("transformers Qwen2.5-Omni audio sinusoids", "transformers", qwen_omni_sinusoids),
)
