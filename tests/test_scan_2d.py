"""``peproof scan`` on positional tensors whose positional word is not the last component of
their name (the learned row and column tables of a 2-D position embedding, Florence-2's
``image_position_embed.row_embeddings.weight``), on 2-D sin-cos embeddings (MAE, DiT, SD3's
``get_2d_sincos_pos_embed``: named, not judged), and on sinusoidal content under names with no
positional word.  Tables are written from the formulas here (NumPy), not by the oracle."""

import numpy as np
import pytest

from peproof.scan import scan
from peproof.scan.detect import LEARNED, TABLE, TABLE_2D, detect, positional_module

from .test_scan import RNG, table, weights, write_st


def sincos_1d(d, pos):
    om = 1.0 / 10000 ** (np.arange(d // 2) / (d / 2))
    o = np.outer(np.asarray(pos, np.float64).reshape(-1), om)
    return np.concatenate([np.sin(o), np.cos(o)], axis=1)


def sincos_2d(d, grid, cls_row=False):
    """MAE's layout: [row half | column half], each [sin | cos], over a grid x grid patches."""
    gh, gw = np.meshgrid(np.arange(grid, dtype=np.float64), np.arange(grid, dtype=np.float64),
                         indexing="ij")
    emb = np.concatenate([sincos_1d(d // 2, gh), sincos_1d(d // 2, gw)], axis=1)
    if cls_row:
        emb = np.concatenate([np.zeros((1, d)), emb])
    return emb.astype(np.float32)[None]


def florence_like():
    return {**weights(),
            "image_position_embed.row_embeddings.weight":
                RNG.standard_normal((50, 64)).astype(np.float32),
            "image_position_embed.column_embeddings.weight":
                RNG.standard_normal((50, 64)).astype(np.float32),
            "visual_temporal_embed.pos_idx_to_embed": table(100, 64)}


def test_learned_row_and_column_tables_are_named_learned(tmp_path):
    rep = scan(str(write_st(tmp_path / "m.safetensors", florence_like())))
    kinds = {j.found.names[0]: (j.found.kind, j.code) for j in rep.judged}
    assert kinds["image_position_embed.row_embeddings.weight"] == (LEARNED, "learned")
    assert kinds["image_position_embed.column_embeddings.weight"] == (LEARNED, "learned")
    assert kinds["visual_temporal_embed.pos_idx_to_embed"] == (TABLE, "conforms")
    row = next(j for j in rep.judged if "row_" in j.found.names[0])
    assert "row table of a 2-D position embedding" in row.headline
    assert "image_position_embed" in row.headline
    assert rep.ok and rep.counts()["not_judged"] == 2
    text = rep.render()
    assert "image_position_embed.column_embeddings.weight: learned" in text


@pytest.mark.parametrize("name, module", [
    ("image_position_embed.row_embeddings.weight", "image_position_embed"),
    ("vision.rel_pos_h", "rel_pos_h"),
    ("encoder.posemb.weight", "posemb"),
    ("model.pos_embedding.table", "pos_embedding"),
    ("layers.0.q_proj.weight", None),
    ("composer.weight", None),  # "pos" inside a word is no positional word
    ("purpose_head.weight", None),
])
def test_positional_module(name, module):
    assert positional_module(name) == module


def test_weights_outside_positional_modules_stay_skipped(tmp_path):
    ts = {**weights(), "composer.proj.weight": RNG.standard_normal((64, 64)).astype(np.float32),
          "blocks.0.pos_conv.weight": RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)}
    rep = scan(str(write_st(tmp_path / "m.safetensors", ts)))
    assert rep.judged == [] and rep.skipped == len(ts)


def test_2d_sincos_embedding_is_named_not_judged(tmp_path):
    ts = {**weights(), "pos_embed": sincos_2d(64, 14, cls_row=True),
          "patch_embed.grid": sincos_2d(32, 8)}  # no positional word: found by content
    rep = scan(str(write_st(tmp_path / "m.safetensors", ts)))
    got = {j.found.names[0]: (j.found.kind, j.found.by, j.ok) for j in rep.judged}
    assert got == {"pos_embed": (TABLE_2D, "name and content", None),
                   "patch_embed.grid": (TABLE_2D, "content", None)}
    assert rep.ok and all("2-D sinusoidal (not judged)" in j.headline for j in rep.judged)


def test_1d_tables_are_not_taken_for_2d():
    """An interleaved 1-D table's halves are each interleaved tables too: it stays 1-D; a
    [sin|cos] table, random matrices and a sign matrix are no 2-D table."""
    from peproof.scan.container import Tensor

    cands = {"a": table(64, 32, layout="interleaved"), "b": table(64, 32),
             "c": RNG.standard_normal((64, 32)).astype(np.float32),
             "d": np.sign(RNG.standard_normal((64, 32))).astype(np.float32)}
    ts = [Tensor(k, v.shape, "float32", "-", lambda v=v: v) for k, v in cands.items()]
    got = {f.names[0]: f.kind for f in detect(ts).found}
    assert got == {"a": TABLE, "b": TABLE}


def test_sinusoidal_content_without_a_positional_word(tmp_path):
    """A table stored under an exporter's name (``onnx::Add_24``) or a buffer index: found by
    its content, judged, and a broken copy fails."""
    ts = {**weights(), "onnx::Add_24": table(300, 64), "buffers.17": table(300, 64, "h-1")}
    rep = scan(str(write_st(tmp_path / "m.safetensors", ts)))
    assert {j.found.names[0]: j.found.by for j in rep.judged} == {
        "onnx::Add_24": "content", "buffers.17": "content"}
    assert rep.ok
    bad = table(300, 64)
    bad[:, 1], bad[:, 33] = bad[:, 0], bad[:, 32]  # two pairs share a frequency
    rep = scan(str(write_st(tmp_path / "b.safetensors", {**weights(), "onnx::Add_24": bad})))
    assert [j.found.names[0] for j in rep.judged] == ["onnx::Add_24"]
    assert rep.judged[0].ok is False and rep.judged[0].code == "wrong"
