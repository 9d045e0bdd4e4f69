"""Every rope configuration key the installed transformers reads is read by the oracle or named.

The walk reads the source of transformers' rope init functions (``ROPE_INIT_FUNCTIONS``) and of
every ``models/*/modeling_*.py`` for the keys taken out of ``rope_parameters`` / ``rope_scaling``
(directly, or through a name bound to them), so a key a new release of transformers starts to
read fails here until :data:`peproof.oracle.rotary.config.READ` maps it or
:data:`~peproof.oracle.rotary.config.NOT_MODELLED` says what it is.  Then the keys found to
matter are checked on transformers' own rotary modules: HunYuan's ``dynamic`` with ``alpha`` (a
fixed NTK base) and PhiMoE's ``short_mscale`` / ``long_mscale`` with its defect (the short
factors kept past the original context).
"""

import inspect
import pathlib
import re

import pytest

from peproof.oracle import check_rotary
from peproof.oracle.rotary.config import NOT_MODELLED, READ, unread_keys

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

KEY = r"""\s*(?:\[\s*["'](\w+)["']\s*\]|\.get\(\s*["'](\w+)["'])"""
DIRECT = re.compile(r"rope_(?:parameters|scaling)(?:_dict)?(?:\[[^]\n]*\])?" + KEY)
BOUND = re.compile(r"(\w+)\s*=\s*[\w.]*rope_(?:parameters|scaling)\b(?!\s*\()")


def keys_in(src: str) -> set[str]:
    out = {a or b for a, b in DIRECT.findall(src)}
    for name in set(BOUND.findall(src)):
        out |= {a or b for a, b in re.findall(re.escape(name) + KEY, src)}
    return out


def transformers_keys() -> set[str]:
    from transformers import modeling_rope_utils as mru

    keys = set()
    for fn in mru.ROPE_INIT_FUNCTIONS.values():
        keys |= keys_in(inspect.getsource(fn))
    root = pathlib.Path(transformers.__file__).parent / "models"
    for f in root.glob("*/modeling_*.py"):
        keys |= keys_in(f.read_text(encoding="utf-8", errors="replace"))
    return keys


def test_every_key_transformers_reads_is_read_or_named():
    from transformers.configuration_utils import ALLOWED_LAYER_TYPES

    found = transformers_keys()
    # the walk is not vacuous: it finds the keys the issue names
    assert {"alpha", "short_mscale", "long_mscale", "truncate", "mscale_all_dim", "beta_fast",
            "beta_slow", "rope_theta"} <= found
    mapped = {k for ks in READ.values() for k in ks} | set(NOT_MODELLED)
    missing = sorted(k for k in found if k not in mapped and k not in ALLOWED_LAYER_TYPES)
    assert not missing, f"rope keys transformers reads that the oracle neither maps nor names: " \
                        f"{missing}"


def test_an_unknown_key_is_named_never_dropped():
    notes = unread_keys({"rope_type": "yarn", "factor": 4, "beta_fast": 32, "alpha": 3,
                         "mrope_section": [16, 24, 24], "flux": 1})
    assert notes == [
        "rope_parameters key 'alpha' not read by the check (not a key peproof knows for this "
        "rope_type)",
        "rope_parameters key 'mrope_section' not read by the check (" + NOT_MODELLED[
            "mrope_section"] + ")",
        "rope_parameters key 'flux' not read by the check (not a key peproof knows for this "
        "rope_type)"]


def _cache(module, n, hd):
    cos, sin = module(torch.zeros(1, 1, hd), torch.arange(n)[None])
    return cos[0].numpy(), sin[0].numpy()


def test_hunyuan_dynamic_with_alpha_is_a_fixed_ntk_base():
    from transformers import HunYuanDenseV1Config
    from transformers.models.hunyuan_v1_dense.modeling_hunyuan_v1_dense import (
        HunYuanDenseV1RotaryEmbedding,
    )

    hd = 64
    rp = {"rope_type": "dynamic", "rope_theta": 10000.0, "alpha": 1000.0, "factor": 1.0}
    cfg = HunYuanDenseV1Config(hidden_size=2 * hd, num_attention_heads=2, num_key_value_heads=2,
                               head_dim=hd, max_position_embeddings=1024, rope_parameters=rp,
                               num_hidden_layers=1, intermediate_size=8, vocab_size=16)
    cos, sin = _cache(HunYuanDenseV1RotaryEmbedding(cfg), 512, hd)
    exp = dict(rp, head_dim=hd, max_position_embeddings=1024)
    assert check_rotary(cos=cos, sin=sin, expect=exp).ok
    # the previous reader took it as dynamic NTK with factor 1 (the plain RoPE): wrong
    assert not check_rotary(cos=cos, sin=sin, expect={**exp, "alpha": None}).ok
    # blind, the factor is estimated from the base's interval (previous: 'outside the model',
    # a base 9680000 over the exponent -2j/63 that does not fit)
    blind = check_rotary(cos=cos, sin=sin)
    assert blind.ok and blind.describe(blind.identified) == "d=64 base=10000 layout=half " \
                                                            "ntk(factor=1000)"


def _phimoe(n, hd=32, orig=256):
    from transformers import PhimoeConfig
    from transformers.models.phimoe.modeling_phimoe import PhimoeRotaryEmbedding

    h = hd // 2
    rp = {"rope_type": "longrope", "rope_theta": 10000.0,
          "short_factor": [1.0 + 0.05 * i for i in range(h)],
          "long_factor": [1.0 + 0.5 * i for i in range(h)],
          "short_mscale": 1.1, "long_mscale": 1.3, "original_max_position_embeddings": orig}
    cfg = PhimoeConfig(hidden_size=2 * hd, num_attention_heads=2, num_key_value_heads=2,
                       max_position_embeddings=4 * orig, rope_parameters=rp, num_hidden_layers=1,
                       intermediate_size=8, num_local_experts=2)
    return _cache(PhimoeRotaryEmbedding(cfg), n, hd), dict(rp, head_dim=hd,
                                                             max_position_embeddings=4 * orig)


def test_phimoe_short_mscale_read_and_its_defect_named_for_its_cause():
    (cos, sin), exp = _phimoe(200)
    assert check_rotary(cos=cos, sin=sin, expect=exp).ok  # amplitude short_mscale = 1.1
    rep = check_rotary(cos=cos, sin=sin, expect={k: v for k, v in exp.items()
                                                 if k != "short_mscale"})
    assert not rep.ok  # without it the amplitude is expected wrong
    (cos, sin), exp = _phimoe(600)
    rep = check_rotary(cos=cos, sin=sin, expect=exp)
    assert not rep.ok
    assert any("short factors where the long ones are due" in x and
               "rope_init_fn called without seq_len" in x for x in rep.diagnoses), rep.diagnoses
