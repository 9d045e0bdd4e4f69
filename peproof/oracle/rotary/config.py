"""What a rotary artefact is expected to be: a :class:`peproof.rope.Rope` from transformers'
``rope_parameters`` (or legacy ``rope_scaling``) dict, or the :class:`~peproof.rope.Rope` given.

The reading follows transformers' own (``modeling_rope_utils``: ``standardize_rope_params``, the
``_validate_*_rope_parameters`` checks and the ``_compute_*`` init functions), so that every
configuration transformers accepts is accepted and modelled as it computes it:

* ``type`` is the legacy name of ``rope_type``; ``rope_theta`` defaults to 10000;
* transformers only *warns* about a factor below 1, ``beta_fast < beta_slow``,
  ``low_freq_factor >= high_freq_factor`` (Llama 4 Scout: 1 and 1, a step at ``L / low``) and
  factor sets of the wrong length: each is modelled as computed (a wrong-length factor set is
  refused here only because no frequency can be formed from it);
* it *raises* on missing required keys: ``factor`` for linear / dynamic, ``short_factor`` and
  ``long_factor`` for LongRoPE (``original_max_position_embeddings`` of yarn / llama3 / longrope
  defaults to ``max_position_embeddings``, as its standardisation sets it);
* YaRN's and LongRoPE's missing ``factor`` is ``max_position_embeddings / original``;
* ``partial_rotary_factor`` with ``head_dim`` (or ``hidden_size / num_attention_heads``): the
  frequencies of ``int(head_dim * factor)`` channels; ``proportional``: ``int(factor * head_dim
  // 2)`` pairs rotate with exponents over the head, the rest do not.
"""

from __future__ import annotations

from fractions import Fraction

from peproof.rope import Rope
from peproof.rope_scaling import (
    Default,
    DynamicNTK,
    Linear,
    Llama3,
    LongRope,
    NTKAware,
    Yarn,
)

from ..common.tables import InputError

KNOWN = ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional")


def _num(v):
    if isinstance(v, float):
        return Fraction(v) if not v.is_integer() else int(v)
    return v


def is_nested(params) -> bool:
    """transformers' per-layer-type ``rope_parameters`` (Gemma 3: ``{"full_attention": {...},
    "sliding_attention": {...}}``): a dict with dict values (the layer types; transformers
    reads only those when a config is nested, and a config may keep flat keys beside them)."""
    return isinstance(params, dict) and any(isinstance(v, dict) for v in params.values())


def head_dim_of(p: dict):
    """``head_dim``, else ``hidden_size // num_attention_heads`` (transformers), else None."""
    if p.get("head_dim"):
        return int(p["head_dim"])
    if p.get("hidden_size") and p.get("num_attention_heads"):
        return int(p["hidden_size"]) // int(p["num_attention_heads"])
    return None


def _need(p: dict, key: str, kind: str):
    if p.get(key) is None:
        raise InputError(f"rope_type {kind} needs {key} (transformers requires it too)")
    return p[key]


def rope_from_config(params, d: int, max_position_embeddings=None, layout="half") -> Rope:
    """A :class:`Rope` from transformers' ``rope_parameters`` (or ``rope_scaling``) dict."""
    if isinstance(params, Rope):
        return params
    if isinstance(params, str):
        params = {"rope_type": params}
    p = dict(params)
    kind = p.get("rope_type") or p.get("type") or "default"
    base = _num(p.get("rope_theta") if p.get("rope_theta") is not None else 10000)
    mpe = max_position_embeddings or p.get("max_position_embeddings")
    if kind in ("llama3", "yarn", "longrope") and p.get("original_max_position_embeddings") is None:
        if mpe is None:
            raise InputError(f"rope_type {kind} needs original_max_position_embeddings (or "
                             "max_position_embeddings, which transformers takes for it)")
        p["original_max_position_embeddings"] = mpe
    extra = {}
    prf = p.get("partial_rotary_factor")
    prf = 1 if prf is None else prf
    hd = head_dim_of(p)
    if kind == "proportional":  # exponents over the head, the last pairs unrotated
        head = hd if hd is not None else d
        extra = {"exponent_dim": head, "rotated_pairs": min(int(prf * head // 2), d // 2)}
        kind = "linear" if p.get("factor", 1) not in (1, None) else "default"
    elif prf != 1 and hd is not None:
        # transformers: the frequencies of int(head_dim * partial_rotary_factor) channels
        # (odd for Phi's 64 * 0.4), in 2 * ceil(that / 2) cache columns
        rot = int(hd * prf)
        if rot + rot % 2 == d:
            extra = {"exponent_dim": rot}
    if kind == "default":
        sc = Default()
    elif kind == "linear":
        sc = Linear(_num(_need(p, "factor", kind)))
    elif kind in ("ntk", "ntk-aware"):
        sc = NTKAware(_num(_need(p, "factor", kind)))
    elif kind == "dynamic":
        if mpe is None:
            raise InputError("dynamic NTK needs max_position_embeddings")
        sc = DynamicNTK(_num(_need(p, "factor", kind)), mpe)
    elif kind == "yarn":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor")
        if factor is None:
            if mpe is None:
                raise InputError("rope_type yarn without factor needs max_position_embeddings")
            factor = Fraction(mpe) / Fraction(orig)
        sc = Yarn(_num(factor), orig, _num(p.get("beta_fast") or 32),
                  _num(p.get("beta_slow") or 1),
                  truncate=p.get("truncate", True), attention_factor=p.get("attention_factor"),
                  mscale=p.get("mscale"), mscale_all_dim=p.get("mscale_all_dim"))
    elif kind == "llama3":
        lo, hi = p.get("low_freq_factor"), p.get("high_freq_factor")
        sc = Llama3(_num(_need(p, "factor", kind)), _num(1 if lo is None else lo),
                    _num(4 if hi is None else hi), p["original_max_position_embeddings"])
    elif kind == "longrope":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor") or (Fraction(mpe) / Fraction(orig) if mpe else None)
        sc = LongRope(tuple(_need(p, "short_factor", kind)), tuple(_need(p, "long_factor", kind)),
                      orig, factor, p.get("attention_factor"))
    else:
        raise InputError(f"unknown rope_type {kind!r}; known: {', '.join(KNOWN)}")
    return Rope(d, base, layout=layout, scaling=sc, **extra)


#: legacy top-level names of a config.json (GPT-NeoX's ``rotary_pct`` / ``rotary_emb_base``,
#: StableLM's early ``rope_pct``) and the key each stands for
ALIASES = {"rotary_pct": "partial_rotary_factor", "rope_pct": "partial_rotary_factor",
           "rotary_emb_base": "rope_theta", "rotary_embedding_base": "rope_theta"}
#: top-level keys of a config.json that the RoPE reads (transformers' standardisation copies
#: them into ``rope_parameters``; Phi-3's top-level original length takes priority)
CARRIED = ("rope_theta", "partial_rotary_factor", "max_position_embeddings", "head_dim",
           "hidden_size", "num_attention_heads")


def rope_parameters_of(cfg: dict) -> dict:
    """The ``rope_parameters`` a model's ``config.json`` implies, as transformers standardises
    them: ``rope_parameters`` or legacy ``rope_scaling`` (``{"type": ...}``), the top-level
    ``rope_theta`` / ``partial_rotary_factor`` (or their legacy names), the head's size and
    ``max_position_embeddings`` carried in; nested per-layer-type dicts keep their nesting."""
    top = {ALIASES.get(k, k): v for k, v in cfg.items()}
    rp = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {"rope_type": "default"}

    def one(d: dict) -> dict:
        d = dict(d)
        for k in CARRIED:
            if top.get(k) is not None:
                d.setdefault(k, top[k])
        if top.get("original_max_position_embeddings") is not None and (
                d.get("rope_type") or d.get("type")) in ("llama3", "yarn", "longrope"):
            d["original_max_position_embeddings"] = top["original_max_position_embeddings"]
        return d

    if is_nested(rp):
        return {k: one(v) for k, v in rp.items() if isinstance(v, dict)}
    return one(rp)
