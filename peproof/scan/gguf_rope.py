"""A GGUF file's RoPE: its metadata read as transformers' ``rope_parameters`` and checked, with
the frequency tensors llama.cpp stores, by the rotary oracle.

llama.cpp keeps no ``inv_freq``: it rotates pair ``i`` by ``pos * freq_base^(-2i/n_rot) /
f_i`` where ``n_rot`` is ``<arch>.rope.dimension_count`` and ``f_i`` a stored per-frequency
factor -- ``rope_freqs.weight`` (Llama 3's converter writes there the factors its ``llama3``
scaling divides by; the metadata keeps only the base), or Phi-3's ``rope_factors_long.weight`` /
``rope_factors_short.weight`` (LongRoPE, long past ``rope.scaling.original_context_length``).
Each such tensor is turned into the frequencies llama.cpp rotates by and judged as an
``inv_freq``:

* ``rope_freqs`` against the ``rope_parameters`` of a ``config.json`` given (or beside the
  file), else against the scaling the oracle identifies in it *at the metadata's base and
  ``n_rot``* (a vector that is no known scaling, or one of another base, fails);
* the LongRoPE factors against LongRoPE with the factors of the config (or, without one, the
  stored ones: then only their count, the base and the form are checked) at the length each
  set is used for; the metadata's ``rope.scaling.attn_factor`` against the attention factor
  the converter derives (``sqrt(1 + ln s / ln L)``, ``s = context_length / L``).

The metadata itself (``freq_base``, ``dimension_count``, ``scaling.type`` / ``factor`` /
``original_context_length``, YaRN's ``beta_fast`` / ``beta_slow``, the older ``scale_linear``) is
read into a ``rope_parameters`` dict, built into the oracle's :class:`~peproof.rope.Rope`
(``rope_from_config``: the objects of the safetensors + config path) and, with a config, compared
key by key.  A ``rope.*`` key not read is named in a note.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from . import oracle_api
from .container import Tensor
from .detect import INV_FREQ, Found
from .judge import CONTRADICTS, NOT_CHECKED, Judged, _from_rotary, judge

READ = {"freq_base", "dimension_count", "scaling.type", "scaling.factor", "scale_linear",
        "scaling.original_context_length", "scaling.attn_factor", "scaling.yarn_beta_fast",
        "scaling.yarn_beta_slow", "scaling.finetuned"}
FACTORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")
METADATA = "rope metadata"


def rope_parameters(meta: dict) -> tuple[dict, list[str]]:
    """The metadata's RoPE as a flat ``rope_parameters`` dict (with the sizes the oracle reads)
    and the ``rope.*`` keys not read; ``{}`` when the file has no architecture or rope keys."""
    arch = meta.get("general.architecture")
    if not isinstance(arch, str):
        return {}, []
    pre = f"{arch}.rope."
    keys = {k[len(pre):]: v for k, v in meta.items() if k.startswith(pre)}
    unread = [pre + k for k in keys if k not in READ]
    heads = meta.get(f"{arch}.attention.head_count")
    width = meta.get(f"{arch}.embedding_length")
    n_rot = keys.get("dimension_count")
    if n_rot is None and isinstance(heads, int) and isinstance(width, int) and heads:
        n_rot = meta.get(f"{arch}.attention.key_length") or width // heads
    if not keys:  # no RoPE stated (GPT-2's learned positions)
        return {}, unread
    p: dict = {"rope_theta": float(keys.get("freq_base", 10000.0)), "rope_type": "default"}
    if isinstance(n_rot, int) and n_rot > 0:
        p["head_dim"] = n_rot
    ctx = meta.get(f"{arch}.context_length")
    if isinstance(ctx, int) and ctx > 0:
        p["max_position_embeddings"] = ctx
    kind = str(keys.get("scaling.type", "none")).lower()
    factor = keys.get("scaling.factor")
    if kind == "none" and keys.get("scale_linear") not in (None, 1, 1.0):
        kind, factor = "linear", keys["scale_linear"]
    orig = keys.get("scaling.original_context_length")
    if kind == "linear":
        p.update(rope_type="linear", factor=float(factor) if factor is not None else None)
    elif kind == "yarn":
        p.update(rope_type="yarn", factor=factor, original_max_position_embeddings=orig)
        for k in ("beta_fast", "beta_slow"):
            if keys.get(f"scaling.yarn_{k}") is not None:
                p[k] = float(keys[f"scaling.yarn_{k}"])
    elif kind == "longrope":
        p.update(rope_type="longrope", original_max_position_embeddings=orig)
    elif kind != "none":
        p["rope_type"] = kind  # the oracle names a type it does not know
    else:  # llama3's factors are stored in rope_freqs; a converter may state these too
        if orig is not None:
            p["original_max_position_embeddings"] = orig
        if factor is not None:
            p["factor"] = float(factor)
    if keys.get("scaling.attn_factor") is not None:
        p["attn_factor"] = float(keys["scaling.attn_factor"])
    return p, unread


def rope_checks(meta: dict, tensors: list[Tensor], cfg: dict | None
                ) -> tuple[list[Judged], set[str], list[str]]:
    """The judged frequency tensors and metadata, the tensor names consumed, and notes."""
    params, unread = rope_parameters(meta)
    notes = [f"GGUF metadata key {k} not read (peproof does not model it)" for k in unread]
    byname = {t.name: t for t in tensors}
    present = [n for n in FACTORS if n in byname]
    if not params:
        return [], set(present), notes + ([f"{', '.join(present)} stored but the metadata "
                                           "gives no architecture or RoPE"] if present else [])
    stored = {n: np.asarray(byname[n].array(), dtype=np.float64).reshape(-1) for n in present}
    if FACTORS[1] in stored and params["rope_type"] == "default":
        params["rope_type"] = "longrope"  # Phi-3's converter writes no scaling.type
    out = [_metadata(params, cfg)]
    n_rot = params.get("head_dim")
    for name in present:
        t, f = byname[name], stored[name]
        if n_rot is None or f.size != n_rot // 2:
            bad = (f"{f.size} factors; the metadata's rope.dimension_count {n_rot} implies "
                   f"{n_rot // 2 if n_rot else '?'}")
            fd = Found(INV_FREQ, [name], t.shape, t.dtype, [t], "per-frequency factors", "name")
            out.append(Judged(fd, CONTRADICTS, False, f"{CONTRADICTS}: {bad}", diagnoses=[bad]))
            continue
        base = params["rope_theta"]
        with np.errstate(all="ignore"):
            eff = base ** (-2.0 * np.arange(n_rot // 2) / n_rot) / f
        src = f"freq_base^(-2i/{n_rot}) / {name.removesuffix('.weight')}: llama.cpp's frequencies"
        vt = Tensor(name, (f.size,), "float32", t.file, lambda e=eff: e.astype(np.float32))
        fd = Found(INV_FREQ, [name], t.shape, t.dtype, [vt], src, "name")
        try:
            out.append(_factors(fd, name, params, cfg, stored))
        except (oracle_api.InputError, ValueError, TypeError) as exc:
            out.append(Judged(fd, NOT_CHECKED, False, f"{NOT_CHECKED}: the oracle does not read "
                              f"it ({str(exc).splitlines()[0][:200]})"))
    return out, set(present), notes


def _factors(fd: Found, name: str, params: dict, cfg: dict | None, stored: dict) -> Judged:
    if cfg is not None and name == "rope_freqs.weight":
        return judge(fd, cfg)  # the config's llama3 (or other) parameters
    arr = fd.tensors[0].array()
    n_rot = params["head_dim"]
    if name == "rope_freqs.weight":
        rep = oracle_api.check_rotary(inv_freq=arr)
        if rep.identified is None:
            return _from_rotary(fd, rep, "a RoPE at the metadata's freq_base and n_rot")
        exp = replace(rep.identified, base=params["rope_theta"])
        stated = {k: v for k, v in (("factor", params.get("factor")), (
            "original_max_position_embeddings", params.get("original_max_position_embeddings")))
            if v is not None}
        if stated and exp.scaling.kind == "llama3":  # what the metadata states, if anything
            exp = replace(exp, scaling=replace(exp.scaling, **{
                k: Fraction(v) if isinstance(v, float) else v for k, v in stated.items()}))
        rep = oracle_api.check_rotary(inv_freq=arr, expect=exp)
        return _from_rotary(fd, rep, f"{exp.scaling.describe()} (identified in rope_freqs) at the"
                            f" metadata's freq_base {params['rope_theta']:g}, n_rot {n_rot}")
    # LongRoPE: long past the original context, short up to it
    rp = (oracle_api.rope_parameters_of(cfg) if cfg is not None else None) or {}
    lf = rp.get("long_factor") if cfg is not None else None
    sf = rp.get("short_factor") if cfg is not None else None
    long_ = name == FACTORS[1]
    own = {k: stored[k].tolist() if k in stored else [1.0] * stored[name].size for k in FACTORS[1:]}
    exp = {"rope_type": "longrope", "rope_theta": params["rope_theta"], "head_dim": n_rot,
           "long_factor": lf if lf is not None else own[FACTORS[1]],
           "short_factor": sf if sf is not None else own[FACTORS[2]],
           "original_max_position_embeddings": params.get("original_max_position_embeddings"),
           "max_position_embeddings": params.get("max_position_embeddings")}
    if exp["original_max_position_embeddings"] is None or exp["max_position_embeddings"] is None:
        return Judged(fd, NOT_CHECKED, False, f"{NOT_CHECKED}: LongRoPE factors without "
                      "rope.scaling.original_context_length and context_length in the metadata")
    seq = exp["max_position_embeddings"] if long_ else exp["original_max_position_embeddings"]
    rep = oracle_api.check_rotary(inv_freq=arr, expect=exp, seq_len=seq,
                                  max_position_embeddings=exp["max_position_embeddings"])
    whose = "the config's" if (lf if long_ else sf) is not None else "the stored (no config: " \
        "count, base and form checked)"
    return _from_rotary(fd, rep, f"LongRoPE with {whose} {'long' if long_ else 'short'} factors "
                        f"at seq_len {seq}, freq_base {params['rope_theta']:g}, n_rot {n_rot}")


def _metadata(params: dict, cfg: dict | None) -> Judged:
    """The metadata's RoPE built by the oracle, its attention factor, and against the config."""
    shown = {k: v for k, v in params.items() if k != "attn_factor"}
    if shown["rope_type"] == "default":  # a factor stated beside rope_freqs is llama3's
        shown = {k: v for k, v in shown.items() if k != "factor"}
    fd = Found(METADATA, ["GGUF rope metadata"], (), "metadata", [], ", ".join(
        f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in shown.items()), "name")
    problems = []
    n_rot = params.get("head_dim")
    try:
        if params["rope_type"] != "longrope" and n_rot:
            rope = oracle_api.rope_from_config(shown, n_rot, params.get("max_position_embeddings"))
            rope.scaling.validate(rope.d)
    except (oracle_api.InputError, ValueError, TypeError) as exc:
        return Judged(fd, NOT_CHECKED, False, f"{NOT_CHECKED}: the oracle does not read it "
                      f"({str(exc).splitlines()[0][:200]})")
    af = params.get("attn_factor")
    ctx = params.get("max_position_embeddings")
    orig = params.get("original_max_position_embeddings")
    if af is not None and params["rope_type"] in ("longrope", "default") and ctx and orig:
        s = ctx / orig
        want = float(np.sqrt(1 + np.log(s) / np.log(orig))) if s > 1 else 1.0
        if abs(af - want) > 1e-6 * want:
            problems.append(f"rope.scaling.attn_factor {af:.9g} where LongRoPE's sqrt(1 + ln s /"
                            f" ln L) at s = {ctx}/{orig} gives {want:.9g}")
    if cfg is not None:
        problems += _against_config(params, cfg)
    if problems:
        return Judged(fd, CONTRADICTS, False, f"{CONTRADICTS}: {problems[0]}",
                      expected="the config's RoPE" if cfg else None, diagnoses=problems)
    return Judged(fd, oracle_api.CONFORMS, True, "read: " + fd.note + (
        "; agrees with the config" if cfg is not None else ""))


def _against_config(params: dict, cfg: dict) -> list[str]:
    rp = oracle_api.rope_parameters_of(cfg) or {}
    if any(isinstance(v, dict) for v in rp.values()):
        return []  # per-layer-type settings: compared by the tensors, not here
    out = []
    theta = rp.get("rope_theta", 10000)
    if abs(float(theta) - params["rope_theta"]) > 1e-6 * float(theta):
        out.append(f"freq_base {params['rope_theta']:g} where the config's rope_theta is "
                   f"{float(theta):g}")
    kind = rp.get("rope_type") or rp.get("type") or "default"
    gk = params["rope_type"]
    if kind in ("linear", "yarn", "longrope") and gk != kind:
        out.append(f"rope.scaling.type {gk} where the config's rope_type is {kind}")
    if kind in ("linear", "yarn") and gk == kind and rp.get("factor") is not None and \
            params.get("factor") is not None and abs(float(rp["factor"]) - params["factor"]) > \
            1e-6 * float(rp["factor"]):
        out.append(f"rope.scaling.factor {params['factor']:g} where the config's factor is "
                   f"{float(rp['factor']):g}")
    o = rp.get("original_max_position_embeddings")
    if kind in ("yarn", "longrope") and o and params.get("original_max_position_embeddings") \
            not in (None, o):
        out.append(f"rope.scaling.original_context_length "
                   f"{params['original_max_position_embeddings']} where the config's "
                   f"original_max_position_embeddings is {o}")
    try:
        want = oracle_api.stored_frequencies(dict(rp, rope_type=kind))
    except (KeyError, TypeError, ValueError, ZeroDivisionError, oracle_api.InputError):
        want = None
    if want is not None and params.get("head_dim") and params["head_dim"] // 2 != want:
        out.append(f"rope.dimension_count {params['head_dim']} where the config implies "
                   f"{2 * want} rotated channels")
    return out
