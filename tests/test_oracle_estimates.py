"""Continuous parameters estimated from the table, then the simplest exact value in the interval.

A frequency scale or a factor is read off the artefact with an interval and the simplest number
inside it (a power of two, few decimal digits, else the smallest denominator: Stern-Brocot) is
the candidate, checked on the whole artefact: keras-hub's ``dynamic`` (every frequency divided
by ``s^(d/(d-2))``, 4.1829... for ``s = 4`` at ``d = 64``) and a timestep embedding whose first
frequency is 125/128 (``t = k/1024`` times 1000 steps) are named, where a fixed list of
candidates had none (previous code: 'outside the model' for both).
"""

import os

import numpy as np
import pytest

from peproof.oracle import OUTSIDE, check, check_rotary


def test_timestep_embedding_at_k_over_1024_times_1000_steps():
    torch = pytest.importorskip("torch")
    half = 32
    t = torch.arange(512).float() / 1024 * 1000
    freqs = torch.exp(-np.log(10000) * torch.arange(half).float() / half)
    a = t[:, None] * freqs[None]
    emb = torch.cat([torch.sin(a), torch.cos(a)], -1).numpy()
    rep = check(emb, expect="any")
    assert rep.ok
    assert "max frequency 125/128" in rep.identified.name
    assert check(emb).verdict != OUTSIDE


def _keras(s, rope_type="dynamic", n=512, d=64):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    keras_hub = pytest.importorskip("keras_hub")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("keras runs another backend in this process")
    layer = keras_hub.layers.RotaryEmbedding(max_wavelength=10000, scaling_factor=s,
                                             rope_type=rope_type)
    c, si = layer._compute_cos_sin_embedding(keras.ops.convert_to_tensor(
        np.zeros((1, n, d), np.float32)))
    return np.asarray(c.cpu())[0], np.asarray(si.cpu())[0], layer.get_config()


@pytest.mark.parametrize("s", [4.0, 2.0])
def test_keras_hub_dynamic_named_blind_and_with_its_config(s):
    cos, sin, cfg = _keras(s)
    blind = check_rotary(cos=cos, sin=sin)
    assert blind.ok
    assert any(f"every frequency divided by {int(s)}^(d/(d-2))" in x for x in blind.notes)
    assert check_rotary(cos=cos, sin=sin, expect=cfg).ok
    other = check_rotary(cos=cos, sin=sin, expect=dict(cfg, scaling_factor=8.0 / s))
    assert not other.ok  # the wrong factor is never within the model
