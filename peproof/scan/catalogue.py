"""What an architecture's reference code stores as its positional table, read from its config.

Keyed by the config's ``model_type``.  The family and layout of each entry are those of the
oracle's catalogue of real implementations (:mod:`peproof.oracle.sinusoidal.peers`): the models
whose ``create_weight`` builds the paper's frequencies with sin in the first half and cos in the
second (``CREATE_WEIGHT``: Pegasus, RoFormer, the time-series models), the fairseq-style models
whose ``get_embedding`` builds the ``h-1`` exponent ``ln(10000) / (d/2 - 1)``, [sin|cos], with
the row of ``padding_idx`` zeroed (``PADDED``: M2M100, NLLB-MoE, XGLM, Speech2Text, ...), and
the ones with their own builder there (Marian, Whisper's encoder, DistilBERT, XLM, FSMT,
MusicGen's [cos|sin]).  ``tests/test_scan_models.py`` checks every entry against the builder in
``peers`` by identifying the table it builds.

Rows and width are given where the architecture's code fixes them from the config (``None``
where it does not): fairseq-style tables hold ``padding_idx + 1`` rows before the first position
a sequence uses (M2M100's fixed offset 2, FSMT's ``pad_token_id + 1``); ``scale_embedding``
scales the token embeddings, never the positional table, so every expected scale is 1.  An
entry applies to the tensors named as the architecture names its positional table
(``embed_positions``, ``position_embeddings``); any other table in the checkpoint is judged on
its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .oracle_api import CREATE_WEIGHT, PADDED, text_config_of

ARCH_NAME = re.compile(r"(^|\.)(embed_positions|position_embeddings)(\.weights?)?$")


#: architectures whose reference code builds a frozen 2-D sin-cos table (not a parameter the
#: training changes) at the tensors named so: model_type -> (name pattern, builder)
SINCOS_2D = {"vit_mae": (re.compile(r"(^|\.)(position_embeddings|decoder_pos_embed)$"),
                         "ViTMAE's build_2d_sinusoidal_position_embedding, frozen "
                         "(requires_grad=False)")}


def sincos_2d_source(model_type: str | None, name: str) -> str | None:
    """The builder when ``model_type`` builds a frozen 2-D sin-cos table at ``name``."""
    ent = SINCOS_2D.get(str(model_type or ""))
    return ent[1] if ent is not None and ent[0].search(name) else None


@dataclass(frozen=True)
class TableSpec:
    family: str  # paper | h-1 | learned
    layout: str = "sin_cos"  # interleaved | sin_cos | cos_sin
    rows: int | None = None
    width: int | None = None
    padding_row: int | None = None
    source: str = ""
    base: int = 10000

    @property
    def learned(self) -> bool:
        return self.family == "learned"

    def describe(self) -> str:
        if self.learned:
            return f"a learned embedding ({self.source})"
        lay = {"sin_cos": "[sin|cos]", "cos_sin": "[cos|sin]"}.get(self.layout, self.layout)
        shape = (f", {self.rows or '?'} x {self.width or '?'}" if self.rows or self.width else "")
        pad = f", row {self.padding_row} zeroed" if self.padding_row is not None else ""
        return f"{self.family} family, base {self.base}, {lay}{shape}{pad} ({self.source})"


def _int(cfg: dict, *keys):
    for k in keys:
        v = cfg.get(k)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def _side(name: str, cfg: dict, source_key: str, target_key: str):
    """The number of positions of the encoder or the decoder side named in ``name``."""
    if re.search(r"(^|\.)decoder\.", name):
        return _int(cfg, target_key, "max_position_embeddings")
    return _int(cfg, source_key, "max_position_embeddings")


def _plus(a, b):
    return None if a is None or b is None else a + b


def arch_key(model_type: str | None) -> str:
    """A ``model_type`` compared without case, hyphens and underscores: transformers spells some
    with hyphens (``kosmos-2``, ``nllb-moe``) and the catalogue keys with underscores or none."""
    return re.sub(r"[-_]", "", (model_type or "").lower())


_CW = {arch_key(k): k for k in CREATE_WEIGHT}
_PD = {arch_key(k): k for k in PADDED}


def table_spec(model_type: str | None, name: str, cfg: dict) -> TableSpec | None:
    """The table the architecture builds at tensor ``name`` (any positional name if ``name`` is
    empty), or ``None`` if it is not known.  A multimodal config's sizes are read from its text
    model's part (:func:`peproof.oracle.rotary.text_config_of`)."""
    if name and not ARCH_NAME.search(name):
        return None
    mt = arch_key(model_type)
    cfg = text_config_of(cfg)
    d_model = _int(cfg, "d_model", "hidden_size")
    mpe = _int(cfg, "max_position_embeddings")
    pad = _int(cfg, "pad_token_id")
    if mt == "marian":
        return TableSpec("paper", "sin_cos", mpe, d_model,
                         source="transformers MarianSinusoidalPositionalEmbedding.create_weight")
    if mt == "whisper":
        if re.search(r"(^|\.)decoder\.", name):
            return TableSpec("learned", rows=_int(cfg, "max_target_positions"), width=d_model,
                             source="Whisper's decoder positions are learned")
        return TableSpec("h-1", "sin_cos", _int(cfg, "max_source_positions"), d_model,
                         source="Whisper's encoder sinusoids (h-1 timescales)")
    if mt == "distilbert":
        if not cfg.get("sinusoidal_pos_embds"):
            return TableSpec("learned", source="DistilBERT without sinusoidal_pos_embds")
        return TableSpec("paper", "interleaved", mpe, _int(cfg, "dim"),
                         source="DistilBERT create_sinusoidal_embeddings")
    if mt in ("xlm", "flaubert"):
        if not cfg.get("sinusoidal_embeddings"):
            return TableSpec("learned", source=f"{model_type} without sinusoidal_embeddings")
        return TableSpec("paper", "interleaved", mpe, _int(cfg, "emb_dim"),
                         source="XLM create_sinusoidal_embeddings")
    if mt == "fsmt":
        return TableSpec("h-1", "sin_cos", _plus(mpe, _plus(pad, 1)), d_model, pad,
                         source="FSMT (fairseq) SinusoidalPositionalEmbedding.get_embedding")
    if mt in _CW:
        cls = CREATE_WEIGHT[_CW[mt]]
        rows, width = None, None
        if mt == "pegasus":
            rows, width = mpe, d_model
        elif mt == "roformer":
            heads = _int(cfg, "num_attention_heads")
            rows, width = mpe, (d_model // heads if d_model and heads else None)
        elif "context_length" in cfg:
            rows = _plus(_int(cfg, "context_length"), _int(cfg, "prediction_length"))
            width = d_model
        return TableSpec("paper", "sin_cos", rows, width,
                         source=f"transformers {cls}.create_weight")
    if mt in _PD:
        cls = PADDED[_PD[mt]]
        rows = None
        if mt in ("m2m100", "nllbmoe", "xglm", "seamlessm4t", "kosmos2"):
            rows = _plus(mpe, 2)
        elif mt == "speechtotext":
            rows = _plus(_side(name, cfg, "max_source_positions", "max_target_positions"), 2)
        return TableSpec("h-1", "sin_cos", rows, _int(cfg, "d_model", "embed_dim", "hidden_size"),
                         pad, source=f"transformers {cls}.get_embedding (fairseq)")
    if mt in ("musicgen", "musicgenmelody"):
        return TableSpec("h-1", "cos_sin", mpe, d_model,
                         source="transformers MusicgenSinusoidalPositionalEmbedding.get_embedding")
    return None


#: architectures whose rotary cos/sin cache is stored as ONE array under their positional name,
#: and the library layout it is in (the rotary oracle's name for it): GPT-J's and CodeGen's
#: ``embed_positions`` = ``cat(sin, cos)`` of ``rotary_dim / 2`` frequencies (transformers'
#: ``create_sinusoidal_positions``); judged as rotary caches, not as sinusoidal tables
ROTARY_TABLE = {"gptj": "gptj", "codegen": "gptj"}
#: names that say which library's single-array cache a tensor is: vLLM's ``cos_sin_cache``
#: (``cat(cos, sin)`` of ``rotary_dim / 2`` frequencies)
NATIVE_NAME = ((re.compile(r"(^|[._])cos_sin_cache$"), "vllm"),)


def native_layout(model_type: str | None, name: str) -> str | None:
    """The library layout a one-array rotary cache at tensor ``name`` is expected in (a name
    the rotary oracle reads: ``"vllm"``, ``"gptj"``), from its name or its architecture;
    None when neither says (the oracle then reads the layout from the content)."""
    for rx, native in NATIVE_NAME:
        if rx.search(name):
            return native
    mt = arch_key(model_type)
    if mt in ROTARY_TABLE and ARCH_NAME.search(name):
        return ROTARY_TABLE[mt]
    return None
