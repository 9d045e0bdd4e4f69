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


#: (implementation, distribution, builder) for the report's table
CATALOGUE = (
    ("PyTorch tutorial recipe (float32)", "torch", tutorial),
    ("DistilBERT create_sinusoidal_embeddings", "transformers", distilbert),
    ("Marian sinusoidal positional embedding", "transformers", marian),
    ("Whisper sinusoids", "transformers", whisper),
    ("diffusers get_timestep_embedding (defaults)", "diffusers", diffusers_timesteps),
    ("positional-encodings PositionalEncoding1D", "positional-encodings",
     positional_encodings_1d),
)
