"""'No sin/cos pairs' is said only when no pairing of the channels has them (issue 24, item 5).

vit-pytorch's ``posemb_sincos_2d`` (simple_vit: ``cat(x.sin, x.cos, y.sin, y.cos)``) pairs
channel ``i`` with ``i + d/4``: neither the interleaved nor the half-split pairing the model
reads.  The previous diagnosis said "channels do not form sin/cos pairs of constant amplitude",
false for this table.  vit_pytorch's package ``__init__`` imports torchvision, so the module file
is loaded by itself.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from peproof.oracle import OUTSIDE, check


def _simple_vit():
    pytest.importorskip("einops")
    torch = pytest.importorskip("torch")
    spec = importlib.util.find_spec("vit_pytorch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("vit_pytorch not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "simple_vit.py"
    if not path.is_file():
        pytest.skip("vit_pytorch has no simple_vit.py")
    s = importlib.util.spec_from_file_location("_peproof_test_simple_vit", path)
    mod = importlib.util.module_from_spec(s)
    try:
        s.loader.exec_module(mod)
    except ImportError as exc:
        pytest.skip(f"simple_vit does not import: {exc}")
    return torch, mod


def test_2d_table_pairs_are_named_not_denied():
    torch, mod = _simple_vit()
    t = mod.posemb_sincos_2d(h=16, w=16, dim=64).numpy()
    rep = check(t)
    assert rep.verdict == OUTSIDE, rep.render()
    text = " ".join(rep.diagnoses)
    assert "do not form sin/cos pairs" not in text, rep.diagnoses
    assert rep.diagnoses[0].startswith("the channels form 32 sin/cos pairs, every pair on one "
                                       "circle, but neither interleaved nor in halves: channels "
                                       "(0, 16), (1, 17)"), rep.diagnoses
    # the sentence is true of the table: channel i and i + 16 lie on one circle
    r2 = t[:, :16] ** 2 + t[:, 16:32] ** 2
    assert np.allclose(r2, 1, atol=1e-6)


def test_random_table_still_has_no_pairs():
    rng = np.random.default_rng(0)
    rep = check((rng.standard_normal((256, 64)) * 0.02).astype(np.float32))
    assert rep.verdict == OUTSIDE
    assert not any("sin/cos pairs, every pair" in x for x in rep.diagnoses), rep.diagnoses
