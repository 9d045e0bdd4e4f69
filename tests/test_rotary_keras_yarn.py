"""keras-hub's ``rope_type="yarn"`` read from its layer config (issue 24, item 3: every rope
configuration read).  The previous reader refused it ('keras-hub rope_type 'yarn' is not
modelled here'), though keras-hub's YaRN is transformers' (same ramp, truncation, clamping and
amplitude ``0.1 ln s + 1``)."""

import os

import numpy as np
import pytest

from peproof.oracle import VARIANT
from peproof.oracle.rotary.check import check_rotary


def _keras_yarn(n=1024, d=64, **kw):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    keras_hub = pytest.importorskip("keras_hub")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("keras runs another backend in this process")
    layer = keras_hub.layers.RotaryEmbedding(rope_type="yarn", **kw)
    c, s = layer._compute_cos_sin_embedding(keras.ops.convert_to_tensor(
        np.zeros((1, n, d), np.float32)))
    return np.asarray(c.cpu())[0], np.asarray(s.cpu())[0], layer.get_config()


@pytest.mark.parametrize("kw", [
    {"scaling_factor": 4.0, "original_max_position_embeddings": 2048},
    {"scaling_factor": 8.0, "original_max_position_embeddings": 4096, "truncate": False},
    {"scaling_factor": 4.0, "original_max_position_embeddings": 2048, "max_wavelength": 500000},
])
def test_keras_hub_yarn_checked_with_its_config(kw):
    cos, sin, cfg = _keras_yarn(**kw)
    rep = check_rotary(cos=cos, sin=sin, expect=cfg)
    assert rep.ok, rep.render()
    assert rep.expected.scaling.kind == "yarn" and not any("not read" in n for n in rep.notes)
    # the config of another original length is not passed: the artefact rules it out
    other = dict(cfg, original_max_position_embeddings=16384)
    rep = check_rotary(cos=cos, sin=sin, expect=other)
    assert rep.verdict == VARIANT, rep.render()
    assert any("original_max_position_embeddings" in x and "16384 was expected" in x
               for x in rep.diagnoses), rep.diagnoses


def test_keras_hub_yarn_below_one_is_named_not_modelled():
    from peproof.oracle.common.tables import InputError

    cos, sin, cfg = _keras_yarn(scaling_factor=0.5, original_max_position_embeddings=2048)
    with pytest.raises(InputError, match="scaling_factor 0.5 < 1 is not modelled"):
        check_rotary(cos=cos, sin=sin, expect=cfg)
