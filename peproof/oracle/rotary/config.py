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
    KerasDynamic,
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
    return isinstance(params, dict) and any(isinstance(v, dict) for v in params.values()) \
        and not is_keras_hub(params)


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
    if is_keras_hub(p):
        return _keras_hub_rope(p, d, layout)
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
    elif kind == "dynamic" and p.get("alpha"):
        # HunYuan: "dynamic" with a fixed alpha is NTK-alpha, a fixed base theta *
        # alpha^(D/(D-2)) over the head (transformers' compute_ntk_alpha_rope_parameters)
        sc = NTKAware(_num(p["alpha"]))
        if hd is not None and hd != d and not extra:
            extra = {"exponent_dim": hd}
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
                      orig, factor, p.get("attention_factor"), _num(p.get("short_mscale")),
                      _num(p.get("long_mscale")))
    else:
        raise InputError(f"unknown rope_type {kind!r}; known: {', '.join(KNOWN)}")
    return Rope(d, base, layout=layout, scaling=sc, **extra)


#: every key of ``rope_parameters`` this reader understands, by rope_type (``None``: any type);
#: :func:`unread_keys` names the others, so that no setting is silently ignored
READ = {None: ("rope_type", "type", "rope_theta", "partial_rotary_factor", "factor", "layout",
               "max_position_embeddings", "head_dim", "hidden_size", "num_attention_heads",
               "rotary_dim", "original_max_position_embeddings"),
        "dynamic": ("alpha",),
        "yarn": ("beta_fast", "beta_slow", "truncate", "attention_factor", "mscale",
                 "mscale_all_dim"),
        "llama3": ("low_freq_factor", "high_freq_factor"),
        "longrope": ("short_factor", "long_factor", "attention_factor", "short_mscale",
                     "long_mscale")}
#: keys transformers reads that this reader does not model, each with what it does; a config
#: that sets one is checked without it and the note says so
NOT_MODELLED = {
    "mrope_section": "multimodal RoPE sections (Qwen2-VL): the channels split among the "
                     "temporal, height and width positions; for text, where the three are "
                     "equal, the 1-D RoPE it equals is checked",
    "mrope_interleaved": "multimodal RoPE sections interleaved (Qwen3-VL); as mrope_section",
    "llama_4_scaling_beta": "Mistral 4 / Ministral 3 scale the queries by 1 + beta ln(1 + "
                            "floor(p / L)) in attention; the cos/sin cache and inv_freq do not "
                            "carry it",
}


def unread_keys(params) -> list[str]:
    """The keys of a flat ``rope_parameters`` dict that :func:`rope_from_config` does not read
    for its rope_type, each as a note (what it is when known: :data:`NOT_MODELLED`)."""
    if not isinstance(params, dict):
        return []
    if is_keras_hub(params):
        return [f"keras-hub key {k!r} not read by the check" for k in params
                if k not in KERAS_HUB]
    kind = params.get("rope_type") or params.get("type") or "default"
    known = set(READ[None]) | set(READ.get(kind, ())) | set(CARRIED)
    if kind == "ntk":
        known.add("factor")
    out = []
    for k in params:
        if k in known:
            continue
        what = NOT_MODELLED.get(k)
        why = f" ({what})" if what else " (not a key peproof knows for this rope_type)"
        out.append(f"rope_parameters key {k!r} not read by the check{why}")
    return out


#: the keys of keras-hub's ``RotaryEmbedding.get_config()`` (its own semantics: ``dynamic``
#: divides every frequency by ``scaling_factor^(d/(d-2))``); the layer's bookkeeping keys too
KERAS_HUB = ("max_wavelength", "scaling_factor", "rope_type", "beta_fast", "beta_slow",
             "original_max_position_embeddings", "truncate", "sequence_axis", "feature_axis",
             "denominator_dim", "name", "trainable", "dtype")


def is_keras_hub(p: dict) -> bool:
    """A keras-hub layer config: ``max_wavelength`` (transformers says ``rope_theta``)."""
    return "max_wavelength" in p and "rope_theta" not in p


def _keras_hub_rope(p: dict, d: int, layout: str) -> Rope:
    kind = p.get("rope_type") or "linear"
    s = _num(p.get("scaling_factor", 1) or 1)
    base = _num(p.get("max_wavelength") or 10000)
    extra = {"exponent_dim": int(p["denominator_dim"])} if p.get("denominator_dim") else {}
    if kind == "linear":
        sc = Linear(s) if s != 1 else Default()
    elif kind == "dynamic":
        sc = KerasDynamic(s)
    elif kind == "yarn":
        # keras-hub's YaRN is transformers' (the same ramp, truncation and clamping, cos/sin
        # times 0.1 ln s + 1), its exponent always over the rotated channels (denominator_dim
        # unused); below s = 1 its amplitude 0.1 ln s + 1 < 1 is not transformers' (1)
        if s < 1:
            raise InputError(f"keras-hub yarn with scaling_factor {p.get('scaling_factor')} "
                             "< 1 is not modelled here (its amplitude 0.1 ln s + 1 is below 1)")
        bf, bs = p.get("beta_fast"), p.get("beta_slow")
        L = p.get("original_max_position_embeddings")
        sc = Yarn(s, _num(4096 if L is None else L), _num(32 if bf is None else bf),
                  _num(1 if bs is None else bs),
                  truncate=bool(p.get("truncate", True)))
        extra = {}
    else:
        raise InputError(f"keras-hub rope_type {kind!r} is not modelled here (linear, dynamic,"
                         " yarn)")
    return Rope(d, base, layout=layout, scaling=sc, **extra)


#: other spellings of the keys the RoPE reads, each standing for the key it maps to (the canonical
#: key wins when both are given): GPT-NeoX's ``rotary_pct`` / ``rotary_emb_base``, StableLM's
#: early ``rope_pct``, Wav2Vec2-Conformer's ``rotary_embedding_base``, and the ``attribute_map``
#: names transformers resolves (GPT-J / CodeGen / GPT-2 ``n_head``, ``n_embd``, ``n_positions``)
ALIASES = (("rotary_pct", "partial_rotary_factor"), ("rope_pct", "partial_rotary_factor"),
           ("rotary_emb_base", "rope_theta"), ("rotary_embedding_base", "rope_theta"),
           ("n_head", "num_attention_heads"), ("num_heads", "num_attention_heads"),
           ("encoder_attention_heads", "num_attention_heads"), ("n_embd", "hidden_size"),
           ("d_model", "hidden_size"), ("n_positions", "max_position_embeddings"))
#: top-level keys of a config.json that the RoPE reads (transformers' standardisation copies
#: them into ``rope_parameters``; Phi-3's top-level original length takes priority).
#: ``rotary_dim`` (GPT-J, CodeGen, MiniMax-M2): the rotated channels of a head, exponents over
#: them (MiniMax's config turns it into ``partial_rotary_factor = rotary_dim / head_dim``)
CARRIED = ("rope_theta", "partial_rotary_factor", "max_position_embeddings", "head_dim",
           "hidden_size", "num_attention_heads", "rotary_dim")
#: legacy top-level keys of a per-layer-type RoPE (transformers turns them into nested
#: ``rope_parameters``): the key -> (the layer type it sets, the key of the other type's base,
#: whether ``rope_scaling`` applies to the sliding layers too): Gemma 3 (and 3n, T5Gemma 2),
#: ModernBERT
LAYER_TYPE_KEYS = {"rope_local_base_freq": ("sliding_attention", "rope_theta", False),
                   "local_rope_theta": ("sliding_attention", "global_rope_theta", True)}


def text_config_of(cfg: dict) -> dict:
    """The part of a multimodal config that holds the language model's RoPE: ``text_config``
    when the top level has no attention heads (transformers' ``get_text_config``), else ``cfg``;
    the top level's ``model_type`` kept."""
    if not any(k in cfg for k in ("num_attention_heads", "n_head", "num_heads")) and \
            isinstance(cfg.get("text_config"), dict):
        return {**cfg["text_config"], "model_type": cfg.get("model_type")}
    return cfg


def _canonical(cfg: dict) -> dict:
    top = dict(cfg)
    for alias, key in ALIASES:
        if top.get(key) is None and cfg.get(alias) is not None:
            top[key] = cfg[alias]
    if top.get("rotary_dim") is not None and top.get("partial_rotary_factor") is not None:
        top.pop("rotary_dim")  # a partial_rotary_factor given is what transformers reads
    return top


def _legacy_layer_types(top: dict, rp: dict):
    """Gemma 3's ``rope_local_base_freq`` / ModernBERT's ``local_rope_theta`` beside flat
    settings: nested ``rope_parameters`` as transformers builds them, else None."""
    for key, (local, other, both) in LAYER_TYPE_KEYS.items():
        if top.get(key) is None or is_nested(rp):
            continue
        full = dict(rp)
        full.pop("rope_theta", None)
        if top.get(other) is not None:
            full["rope_theta"] = top[other]
        sliding = {k: v for k, v in rp.items() if k != "rope_theta"} if both else {
            "rope_type": "default"}
        sliding["rope_theta"] = top[key]
        return {"full_attention": full, local: sliding}
    return None


def rope_parameters_of(cfg: dict) -> dict:
    """The ``rope_parameters`` a model's ``config.json`` implies, as transformers standardises
    them: the text model's part (:func:`text_config_of`), ``rope_parameters`` or legacy
    ``rope_scaling`` (``{"type": ...}``), the top-level ``rope_theta`` / ``partial_rotary_factor``
    / ``rotary_dim`` (or their other spellings, :data:`ALIASES`), the head's size and
    ``max_position_embeddings`` carried in; nested per-layer-type dicts keep their nesting, and
    legacy per-layer-type keys (:data:`LAYER_TYPE_KEYS`) make them."""
    top = _canonical(text_config_of(cfg))
    rp = top.get("rope_parameters") or top.get("rope_scaling") or {"rope_type": "default"}
    if not isinstance(rp, dict):
        raise InputError(f"rope_parameters is a JSON {type(rp).__name__}; transformers expects "
                         "an object")
    rp = _legacy_layer_types(top, rp) or rp

    def one(d: dict) -> dict:
        d = dict(d)
        for k in CARRIED:
            if top.get(k) is not None:
                d.setdefault(k, top[k])
        if d.get("partial_rotary_factor") is not None:
            d.pop("rotary_dim", None)
        if top.get("original_max_position_embeddings") is not None and (
                d.get("rope_type") or d.get("type")) in ("llama3", "yarn", "longrope"):
            d["original_max_position_embeddings"] = top["original_max_position_embeddings"]
        return d

    if is_nested(rp):
        return {k: one(v) for k, v in rp.items() if isinstance(v, dict)}
    return one(rp)


def stored_frequencies(params: dict) -> int | None:
    """How many ``inv_freq`` entries (pairs of a cache) transformers' initialisation of these
    flat ``rope_parameters`` stores: ``ceil(dim / 2)`` for ``dim = rotary_dim`` or
    ``int(head_dim * partial_rotary_factor)`` (``arange(0, dim, 2)``), ``head_dim / 2`` for
    ``proportional`` (the unrotated pairs stored as zeros); None when the head's size is not
    given."""
    kind = params.get("rope_type") or params.get("type") or "default"
    hd = head_dim_of(params)
    if kind == "proportional":
        return hd // 2 if hd else None
    if params.get("rotary_dim"):
        return -(-int(params["rotary_dim"]) // 2)
    if hd is None:
        return None
    prf = params.get("partial_rotary_factor")
    return -(-int(hd * (1 if prf is None else prf)) // 2)
