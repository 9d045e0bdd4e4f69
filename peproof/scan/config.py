"""A model's ``config.json`` and the rotary embedding it implies.

Both spellings of transformers' configs are read: version 5's ``rope_parameters`` (one dict, or
one per attention type such as ``full_attention`` / ``sliding_attention``) and version 4's
``rope_theta`` + ``rope_scaling`` + ``partial_rotary_factor``, with the older per-model keys
(GPT-NeoX ``rotary_pct`` / ``rotary_emb_base``, GPT-J ``rotary_dim``, Wav2Vec2-Conformer and
SeamlessM4T ``rotary_embedding_base``).  A multimodal config's ``text_config`` is read when the
top level has no attention heads.

The rotary dimension follows transformers' default initialisation: ``head_dim`` (or
``hidden_size // num_attention_heads``) times ``partial_rotary_factor``, truncated, and
``ceil(dim / 2)`` frequencies (``arange(0, dim, 2)``); for ``rope_type == "proportional"`` the
exponent runs over the whole head and ``head_dim / 2`` frequencies are stored.  Architectures
whose rotary width follows another rule (:data:`OWN_WIDTH`) get no expected length.  In a config
with several parts (``vision_config``, ``audio_config`` ...), a buffer of another length may
belong to another part: it is judged on its own rather than called a contradiction.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .oracle_api import InputError

#: model types whose rotary embedding has a width the config does not give by the default rule
OWN_WIDTH = {"clvp"}
ROTARY_KEYS = ("rope_parameters", "rope_scaling", "rope_theta", "rotary_pct", "rotary_emb_base",
               "rotary_embedding_base", "rotary_dim", "partial_rotary_factor")


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
    params: dict  # a rope_parameters dict for the oracle's check_rotary
    frequencies: int | None  # how many inv_freq entries the config implies (None: unknown)
    label: str  # "" or the attention type ("sliding_attention", ...)
    max_position_embeddings: int | None
    why: str  # how the width was read, for messages
    strict: bool = True  # another length contradicts the config (one-part configs)


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def text_part(cfg: dict) -> dict:
    if "num_attention_heads" not in cfg and isinstance(cfg.get("text_config"), dict):
        return {**cfg["text_config"], "model_type": cfg.get("model_type")}
    return cfg


def is_rotary(cfg: dict) -> bool:
    c = text_part(cfg)
    return (any(k in c and c[k] is not None for k in ROTARY_KEYS)
            or c.get("position_embedding_type") == "rotary"
            or c.get("position_embeddings_type") == "rotary")


def rope_expectations(cfg: dict) -> list[RopeExpect]:
    """The RoPE settings the config implies (several for per-attention-type settings)."""
    c = text_part(cfg)
    if not is_rotary(cfg):
        return []
    mt = str(c.get("model_type") or "")
    heads = _num(c.get("num_attention_heads") or c.get("n_head") or c.get("num_heads")
                 or c.get("encoder_attention_heads"))
    hidden = _num(c.get("hidden_size") or c.get("n_embd") or c.get("d_model"))
    head_dim = _num(c.get("head_dim")) or (hidden // heads if hidden and heads else None)
    base = (_num(c.get("rope_theta")) or _num(c.get("rotary_emb_base"))
            or _num(c.get("rotary_embedding_base")) or 10000)
    rp = c.get("rope_parameters")
    if isinstance(rp, dict) and rp and all(isinstance(v, dict) for v in rp.values()):
        sets = list(rp.items())
    elif isinstance(rp, dict):
        sets = [("", rp)]
    else:
        rs = c.get("rope_scaling")
        sets = [("", dict(rs) if isinstance(rs, dict) else {})]
    out = []
    for label, p in sets:
        p = dict(p)
        p.setdefault("rope_type", p.get("type", "default"))
        p.setdefault("rope_theta", base)
        prf = _num(p.get("partial_rotary_factor")) or _num(c.get("partial_rotary_factor")) \
            or _num(c.get("rotary_pct")) or 1
        rot_dim = _num(c.get("rotary_dim")) if mt in ("gptj", "codegen") else None
        freqs, why = None, ""
        if rot_dim:
            freqs, why = math.ceil(rot_dim / 2), f"rotary_dim {rot_dim}"
            prf = 1
        elif head_dim and mt not in OWN_WIDTH:
            if p["rope_type"] == "proportional":
                freqs, why = head_dim // 2, f"head_dim {head_dim} (proportional)"
            else:
                dim = int(head_dim * prf)
                freqs = math.ceil(dim / 2)
                why = f"head_dim {head_dim}" + (f" x partial_rotary_factor {prf}"
                                                if prf != 1 else "")
        if prf != 1:
            p["partial_rotary_factor"] = prf
            if head_dim:
                p["head_dim"] = head_dim
        mpe = _num(c.get("max_position_embeddings"))
        parts = [k for k, v in cfg.items() if k.endswith("_config") and isinstance(v, dict)]
        out.append(RopeExpect(p, freqs, label, int(mpe) if mpe else None, why, not parts))
    return out
