"""A model's ``config.json`` and the rotary embedding it implies.

The RoPE settings are read by the oracle's reader, as transformers reads them
(:func:`peproof.oracle.rope_parameters_of`: ``rope_parameters`` -- one dict, or one per
attention type such as ``full_attention`` / ``sliding_attention`` -- or the older
``rope_scaling`` + ``rope_theta`` + ``partial_rotary_factor``, the older per-model keys
``rotary_pct`` / ``rotary_emb_base`` / ``rotary_dim`` / ``rotary_embedding_base``, the
``attribute_map`` spellings ``n_head`` / ``n_embd``, Gemma 3's ``rope_local_base_freq``, a
multimodal config's ``text_config``), and the number of frequencies its initialisation stores by
:func:`peproof.oracle.rotary.stored_frequencies`.  This module adds what only the scan needs:
whether the config describes a rotary embedding at all, the length it implies for each setting,
and whether a buffer of another length may belong to another part of the model.

Architectures whose rotary width follows another rule (:data:`OWN_WIDTH`) get no expected
length.  In a config with several parts (``vision_config``, ``audio_config`` ...), a buffer of
another length may belong to another part: it is judged on its own rather than called a
contradiction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .oracle_api import InputError, rope_parameters_of, stored_frequencies, text_config_of

#: model types whose rotary embedding has a width the config does not give by the default rule
OWN_WIDTH = {"clvp"}
ROTARY_KEYS = ("rope_parameters", "rope_scaling", "rope_theta", "rotary_pct", "rotary_emb_base",
               "rotary_embedding_base", "rotary_dim", "partial_rotary_factor",
               "rope_local_base_freq", "local_rope_theta")


def read_config(path: str) -> dict:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"--config {path} is a folder; give its config.json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the config ({type(exc).__name__})") from None
    try:
        cfg = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{path}: the config is not valid JSON ({exc})") from None
    if not isinstance(cfg, dict):
        raise InputError(f"{path}: the config is a JSON {type(cfg).__name__}; a model's "
                         "config.json is an object")
    return cfg


@dataclass
class RopeExpect:
    params: dict  # a flat rope_parameters dict for the oracle's check_rotary
    frequencies: int | None  # how many inv_freq entries the config implies (None: unknown)
    label: str  # "" or the attention type ("sliding_attention", ...)
    max_position_embeddings: int | None
    why: str  # how the width was read, for messages
    strict: bool = True  # another length contradicts the config (one-part configs)


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def text_part(cfg: dict) -> dict:
    return text_config_of(cfg)


def is_rotary(cfg: dict) -> bool:
    c = text_part(cfg)
    return (any(k in c and c[k] is not None for k in ROTARY_KEYS)
            or c.get("position_embedding_type") == "rotary"
            or c.get("position_embeddings_type") == "rotary")


def _why(p: dict) -> str:
    """How the number of frequencies was read, for messages."""
    if p.get("rotary_dim"):
        return f"rotary_dim {p['rotary_dim']}"
    hd = p.get("head_dim") or (p["hidden_size"] // p["num_attention_heads"])
    if (p.get("rope_type") or p.get("type")) == "proportional":
        return f"head_dim {hd} (proportional)"
    prf = p.get("partial_rotary_factor")
    return f"head_dim {hd}" + (f" x partial_rotary_factor {prf}" if prf not in (None, 1) else "")


def rope_expectations(cfg: dict) -> list[RopeExpect]:
    """The RoPE settings the config implies (several for per-attention-type settings)."""
    if not is_rotary(cfg):
        return []
    c = text_part(cfg)
    mt = str(c.get("model_type") or "")
    rp = rope_parameters_of(cfg)
    sets = list(rp.items()) if all(isinstance(v, dict) for v in rp.values()) else [("", rp)]
    parts = [k for k, v in cfg.items() if k.endswith("_config") and isinstance(v, dict)]
    out = []
    for label, p in sets:
        p = dict(p)
        p.setdefault("rope_type", p.pop("type", "default"))
        freqs = None if mt in OWN_WIDTH else stored_frequencies(p)
        mpe = _num(p.get("max_position_embeddings"))
        out.append(RopeExpect(p, freqs, label, int(mpe) if mpe else None,
                              _why(p) if freqs is not None else "", not parts))
    return out + _vision(cfg)


def _vision(cfg: dict) -> list[RopeExpect]:
    """A vision part's axial RoPE (Qwen2-VL: ``vision_config.rope_parameters`` of type
    ``axial``): one set of frequencies ``theta^(-2i/s)`` over ``s = head_dim // 2`` channels, used
    for the patch's row and column alike -- a default RoPE of ``d = s``."""
    v = cfg.get("vision_config")
    rp = v.get("rope_parameters") if isinstance(v, dict) else None
    if not isinstance(rp, dict) or rp.get("rope_type") != "axial":
        return []
    heads = v.get("num_heads") or v.get("num_attention_heads")
    width = v.get("embed_dim") or v.get("hidden_size")
    hd = v.get("head_dim") or (width // heads if _num(width) and _num(heads) and heads else None)
    if not _num(hd) or hd < 4:
        return []
    s = int(hd) // 2
    p = {"rope_type": "default", "rope_theta": rp.get("rope_theta", 10000.0), "head_dim": s}
    return [RopeExpect(p, s // 2, VISION, None, f"vision_config head_dim {hd} // 2 (axial)",
                       False)]


VISION = "vision_config (axial)"
