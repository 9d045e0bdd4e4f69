"""``peproof scan`` on ``save_pretrained`` checkpoints of architectures the other scan tests do not
use (tiny random models built here from configs; nothing downloaded): ViTMAE (its frozen 2-D
sin-cos table), SAM's vision encoder (a learned ``(1, H, W, D)`` grid and relative tables), DETR
with learned row/column embeddings, PatchTST's normalised sincos table, ModernBERT's two
per-attention-type ``inv_freq`` buffers, Qwen2-VL's text and vision ``inv_freq``, diffusers'
SD3 transformer (a persistent 2-D sin-cos ``pos_embed``); each also broken."""

import json

import numpy as np
import pytest

from peproof.scan import scan
from peproof.scan.detect import LEARNED, SHIFTED, TABLE_2D

pytestmark = pytest.mark.peers
torch = pytest.importorskip("torch")
tr = pytest.importorskip("transformers")
st = pytest.importorskip("safetensors.torch")


def save(model, d):
    torch.manual_seed(0)
    model.save_pretrained(d)
    return d


def edit(d, fn, name="model.safetensors"):
    f = d / name
    sd = st.load_file(str(f))
    fn(sd)
    st.save_file(sd, str(f), metadata={"format": "pt"})


def by_name(rep):
    return {j.found.names[0]: j for j in rep.judged}


def sincos_2d(d, grid, cls_row=True):
    """[row half | column half], each [sin | cos] (written here from the formula)."""
    def one(dd, pos):
        om = 1.0 / 10000 ** (np.arange(dd // 2) / (dd / 2))
        o = np.outer(pos.reshape(-1), om)
        return np.concatenate([np.sin(o), np.cos(o)], 1)
    gh, gw = np.meshgrid(np.arange(grid, dtype=np.float64), np.arange(grid, dtype=np.float64),
                         indexing="ij")
    e = np.concatenate([one(d // 2, gw), one(d // 2, gh)], 1)
    if cls_row:
        e = np.concatenate([np.zeros((1, d)), e])
    return torch.tensor(e[None], dtype=torch.float32)


VITMAE = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
              image_size=32, patch_size=4)


def test_vit_mae_frozen_table(tmp_path):
    """ViTMAE freezes its position embeddings (requires_grad=False) at a 2-D sin-cos table.
    transformers 5.25 built from a config leaves them all zeros (its initialize_weights returns
    early once the patch projection is flagged initialised): named as such, and a table written
    the way the reference builds it passes as 2-D sinusoidal."""
    m = tr.ViTMAEModel(tr.ViTMAEConfig(**VITMAE))
    d = save(m, tmp_path / "vit_mae")
    j = by_name(scan(str(d)))["embeddings.position_embeddings"]
    if not m.embeddings.position_embeddings.detach().abs().max() > 0:
        assert j.ok is False and j.code == "contradicts_config" and "all zeros" in j.headline
    else:  # a transformers that builds the table
        assert j.found.kind == TABLE_2D
    edit(d, lambda sd: sd.update({"embeddings.position_embeddings": sincos_2d(32, 8)}))
    rep = scan(str(d))
    j = by_name(rep)["embeddings.position_embeddings"]
    assert j.found.kind == TABLE_2D and j.ok is None and rep.ok
    # random values where the frozen table belongs: contradicts the architecture
    edit(d, lambda sd: sd.update({"embeddings.position_embeddings": torch.randn(1, 65, 32)}))
    j = by_name(scan(str(d)))["embeddings.position_embeddings"]
    assert j.ok is False and j.code == "contradicts_config"


def test_sam_vision_grid_and_relative_tables(tmp_path):
    m = tr.SamVisionModel(tr.SamVisionConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=2, mlp_dim=32, image_size=64,
        patch_size=8, output_channels=16, use_rel_pos=True, window_size=2,
        global_attn_indexes=[0]))
    d = save(m, tmp_path / "sam")
    edit(d, lambda sd: sd.update({k: torch.randn(*v.shape) for k, v in sd.items()
                                  if "pos" in k}))
    rep = scan(str(d))
    got = {n: j.found.kind for n, j in by_name(rep).items()}
    assert got == {"vision_encoder.pos_embed": LEARNED,
                   "vision_encoder.layers.0.attn.rel_pos_h": LEARNED,
                   "vision_encoder.layers.0.attn.rel_pos_w": LEARNED}, rep.render()
    assert "8 x 8 grid" in by_name(rep)["vision_encoder.pos_embed"].found.note
    assert rep.ok and not rep.skipped_named


def test_detr_learned_row_and_column_embeddings(tmp_path):
    cfg = tr.DetrConfig(
        use_timm_backbone=False, use_pretrained_backbone=False,
        backbone_config=tr.ResNetConfig(embedding_size=8, hidden_sizes=[8, 8, 8, 16],
                                        depths=[1, 1, 1, 1], out_features=["stage4"]),
        d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=10,
        position_embedding_type="learned")
    rep = scan(str(save(tr.DetrModel(cfg), tmp_path / "detr")))
    js = by_name(rep)
    for axis in ("row", "column"):
        j = js[f"position_embedding.{axis}_embeddings.weight"]
        assert j.found.kind == LEARNED and j.code == "learned"
        assert f"{axis} table of a 2-D position embedding" in j.headline


def test_patchtst_normalised_sincos(tmp_path):
    m = tr.PatchTSTModel(tr.PatchTSTConfig(
        num_input_channels=2, context_length=32, patch_length=4, patch_stride=4, d_model=16,
        num_hidden_layers=1, num_attention_heads=2, ffn_dim=16,
        positional_encoding_type="sincos"))
    d = save(m, tmp_path / "patchtst")
    j = by_name(scan(str(d)))["encoder.positional_encoder.position_enc"]
    assert j.found.kind == SHIFTED and j.ok is None and "shifted and scaled" in j.headline
    # random values there (a learned encoding): no longer shifted sinusoids
    edit(d, lambda sd: sd.update({"encoder.positional_encoder.position_enc":
                                  torch.randn(8, 16) * 0.1}))
    j = by_name(scan(str(d)))["encoder.positional_encoder.position_enc"]
    assert j.found.kind == LEARNED


def _with_buffers(m, d):
    save(m, d)
    bufs = {n: b for n, b in m.named_buffers() if n.endswith("inv_freq")}
    edit(d, lambda sd: sd.update({k: v.detach().clone() for k, v in bufs.items()}))
    return d


def test_modernbert_per_attention_type_buffers(tmp_path):
    """Each of ModernBERT's buffers is named by its attention type: judged against that type's
    theta only, so two buffers swapped by a converter both fail."""
    cfg = tr.ModernBertConfig(vocab_size=100, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                              cls_token_id=1, sep_token_id=2, hidden_size=64,
                              intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                              global_rope_theta=160000.0, local_rope_theta=10000.0,
                              max_position_embeddings=256)
    d = _with_buffers(tr.ModernBertModel(cfg), tmp_path / "modernbert")
    rep = scan(str(d))
    assert rep.ok and rep.counts()["positional_buffers"] == 4, rep.render()
    a, b = "rotary_emb.full_attention_inv_freq", "rotary_emb.sliding_attention_inv_freq"

    def swap(sd):
        sd[a], sd[b] = sd[b].clone(), sd[a].clone()
        for k in [k for k in sd if "original" in k]:
            del sd[k]
    edit(d, swap)
    rep = scan(str(d))
    js = by_name(rep)
    assert js[a].ok is False and js[b].ok is False
    assert "160000 was expected" in " ".join(js[a].diagnoses)


def test_qwen2_vl_text_and_vision_inv_freq(tmp_path):
    cfg = tr.Qwen2VLConfig(
        text_config=dict(vocab_size=100, hidden_size=64, intermediate_size=64,
                         num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                         rope_parameters={"rope_type": "default", "mrope_section": [2, 3, 3],
                                          "rope_theta": 1000000.0},
                         max_position_embeddings=512),
        vision_config=dict(depth=1, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=1,
                           patch_size=4, spatial_merge_size=2, temporal_patch_size=2,
                           in_channels=3))
    d = _with_buffers(tr.Qwen2VLModel(cfg), tmp_path / "qwen2_vl")
    rep = scan(str(d))
    assert rep.ok, rep.render()
    js = by_name(rep)
    assert "base=1000000" in js["language_model.rotary_emb.inv_freq"].passes_as
    assert "base=10000" in js["visual.rotary_pos_emb.inv_freq"].passes_as
    t, v = "language_model.rotary_emb.inv_freq", "visual.rotary_pos_emb.inv_freq"

    def damage(sd):  # the text RoPE at base 10000, the vision one (axial, d = 8) at 1000
        sd[t] = 1.0 / 10000 ** (torch.arange(0, 16, 2) / 16)
        sd[v] = 1.0 / 1000 ** (torch.arange(0, 8, 2) / 8)
        for k in [k for k in sd if "original" in k]:
            del sd[k]
    edit(d, damage)
    js = by_name(scan(str(d)))
    assert js[t].ok is False and js[v].ok is False
    assert "10000 was expected" in " ".join(js[v].diagnoses)


def test_sd3_transformer_pos_embed(tmp_path):
    diffusers = pytest.importorskip("diffusers")
    m = diffusers.SD3Transformer2DModel(
        sample_size=16, patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8,
        num_attention_heads=2, joint_attention_dim=16, caption_projection_dim=16,
        pooled_projection_dim=16, out_channels=4, pos_embed_max_size=16)
    d = save(m, tmp_path / "sd3")
    name = "diffusion_pytorch_model.safetensors"
    j = by_name(scan(str(d)))["pos_embed.pos_embed"]
    assert j.found.kind == TABLE_2D and j.ok is None
    # a 1-D table there instead (a converter flattening the grid wrongly): found as one
    pos = np.arange(256)[:, None] * 10000.0 ** (-np.arange(8) / 8)
    one = np.concatenate([np.sin(pos), np.cos(pos)], 1)[None]
    edit(d, lambda sd: sd.update({"pos_embed.pos_embed": torch.tensor(one, dtype=torch.float32)}),
         name)
    j = by_name(scan(str(d)))["pos_embed.pos_embed"]
    assert j.found.kind != TABLE_2D
    assert json.loads((d / "config.json").read_text())["pos_embed_max_size"] == 16
