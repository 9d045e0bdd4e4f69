"""What a rotary artefact is expected to be: a :class:`peproof.rope.Rope` from transformers'
``rope_parameters`` (or ``rope_scaling``) dict, or the :class:`~peproof.rope.Rope` given."""

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


def rope_from_config(params, d: int, max_position_embeddings=None, layout="half") -> Rope:
    """A :class:`Rope` from transformers' ``rope_parameters`` (or ``rope_scaling``) dict."""
    if isinstance(params, Rope):
        return params
    if isinstance(params, str):
        params = {"rope_type": params}
    p = dict(params)
    kind = p.get("rope_type", p.get("type", "default"))
    base = p.get("rope_theta", 10000)
    if isinstance(base, float):
        base = Fraction(base) if not base.is_integer() else int(base)
    mpe = max_position_embeddings or p.get("max_position_embeddings")
    extra = {}
    prf = p.get("partial_rotary_factor", 1)
    if kind == "proportional":  # transformers: exponent over the head, the last pairs unrotated
        extra = {"exponent_dim": d, "rotated_pairs": int(prf * d // 2)}
        kind = "linear" if p.get("factor", 1) != 1 else "default"
    elif prf != 1 and p.get("head_dim"):
        # transformers' default: the frequencies of int(head_dim * partial_rotary_factor)
        # channels (odd for Phi's 64 * 0.4), in 2 * ceil(that / 2) cache columns
        rot = int(p["head_dim"] * prf)
        if rot + rot % 2 == d:
            extra = {"exponent_dim": rot}
    if kind == "default":
        sc = Default()
    elif kind == "linear":
        sc = Linear(p["factor"])
    elif kind in ("ntk", "ntk-aware"):
        sc = NTKAware(p["factor"])
    elif kind == "dynamic":
        if mpe is None:
            raise InputError("dynamic NTK needs max_position_embeddings")
        sc = DynamicNTK(p["factor"], mpe)
    elif kind == "yarn":
        orig = p.get("original_max_position_embeddings") or mpe
        factor = p.get("factor") or Fraction(mpe) / Fraction(orig)
        sc = Yarn(factor, orig, p.get("beta_fast") or 32, p.get("beta_slow") or 1,
                  truncate=p.get("truncate", True), attention_factor=p.get("attention_factor"),
                  mscale=p.get("mscale"), mscale_all_dim=p.get("mscale_all_dim"))
    elif kind == "llama3":
        sc = Llama3(p["factor"], p.get("low_freq_factor", 1), p.get("high_freq_factor", 4),
                    p["original_max_position_embeddings"])
    elif kind == "longrope":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor") or (Fraction(mpe) / Fraction(orig) if mpe else None)
        sc = LongRope(tuple(p["short_factor"]), tuple(p["long_factor"]), orig, factor,
                      p.get("attention_factor"))
    else:
        raise InputError(f"unknown rope_type {kind!r}; known: default, linear, ntk, dynamic, "
                         "yarn, llama3, longrope, proportional")
    return Rope(d, base, layout=layout, scaling=sc, **extra)
