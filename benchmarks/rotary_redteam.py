"""Red-team survey of the rotary oracle on caches and inv_freq vectors of real implementations
(transformers' rotary modules of many architectures with their rope configurations, litgpt,
rotary-embedding-torch, x-transformers, mlx, keras-hub), in float32 / bfloat16 / float16.

Prints one row per artefact: library, config, dtype, artefact, verdict blind / against its
configuration, what was identified, and whether that is right (the verdict is ok, and the
blind identification names the base and scaling the library was configured with).  Not a
timed benchmark: a survey for the closing note of issue 20 (``python
benchmarks/rotary_redteam.py [--quick]``)."""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np

from peproof.oracle.rotary.check import check_rotary
from peproof.oracle.rotary.config import rope_parameters_of

warnings.filterwarnings("ignore")
OK = ("conforms", "within the error model of its dtype")
ROWS = []


def row(lib, cfg, dtype, art, blind, exp, right, note=""):
    ROWS.append((lib, cfg, dtype, art, blind, exp, right, note))
    print(f"| {lib} | {cfg} | {dtype} | {art} | {blind} | {exp} | {'yes' if right else 'NO'} |"
          f" {note} |", flush=True)


def judge(truth, rep):
    """Right when ok and the blind identification names the configured base and map."""
    if truth[0] == "longrope":  # per-pair factors: read blind (LongRoPE-like), never wrong;
        return rep.verdict != "wrong"  # checked against its configuration (the other column)
    if rep.verdict not in OK:
        return False
    got = rep.identified
    if got is None:
        return False
    kind, theta, factor = truth
    if kind == "dynamic":
        return got.scaling.kind in ("ntk", "default")
    if float(got._base) != float(theta):
        return False
    if kind == "proportional":
        kind = "linear" if factor not in (None, 1) else "default"
    if got.scaling.kind != kind:
        return False
    return factor is None or kind == "default" or float(got.scaling.factor) == float(factor)


def short(rep):
    r = rep.identified
    if r is None:
        return "-"
    sc = r.scaling
    f = getattr(sc, "factor", None)
    out = f"base {r._base} {sc.kind}" + (f" {f}" if f is not None and sc.kind != "default"
                                           else "")
    if r.exponent_dim != r.d:
        out += f" D={r.exponent_dim}"
    if r.rotated_pairs != r.pairs:
        out += f" rot={r.rotated_pairs}"
    return out


def hf(model, mt, rp, dtypes, n=2048, extra=None, seq_len=None, tag=None):
    import torch
    import transformers

    kw = {"hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 4,
          "max_position_embeddings": 8192, "rope_parameters": dict(rp), **(extra or {})}
    try:
        cfg = transformers.AutoConfig.for_model(mt, **kw)
        mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
        cls = [k for k in dir(mod) if k.endswith("RotaryEmbedding") and "Vision" not in k][0]
        emb = getattr(mod, cls)(cfg)
    except Exception as exc:  # noqa: BLE001 - a survey: record and go on
        row(model, tag or rp.get("rope_type"), "-", "-", f"not built: {type(exc).__name__}",
            "-", True, str(exc)[:60])
        return
    exp = rope_parameters_of(cfg.to_dict())
    one = exp
    if isinstance(exp, dict) and all(isinstance(v, dict) for v in exp.values()):
        one = exp.get("full_attention") or next(iter(exp.values()))
    truth = (one.get("rope_type", "default"), one.get("rope_theta", 10000), one.get("factor"))
    L = n if seq_len is None else seq_len
    for dt in dtypes:
        x = torch.zeros(1, n, 8, dtype=getattr(torch, dt))
        pos = torch.arange(n)[None]
        try:
            out = emb(x, pos)
        except TypeError:
            out = emb(x, pos, "full_attention")
        art = {"cos": out[0], "sin": out[1]} if isinstance(out, tuple) else {"obj": out}
        shape = tuple((out[0] if isinstance(out, tuple) else out).shape)
        b = check_rotary(**art, seq_len=L)
        e = check_rotary(**art, expect=exp, seq_len=L, max_position_embeddings=8192)
        right = judge(truth, b) and e.verdict in OK
        row(model, tag or truth[0], dt, f"cache {shape}" + (f" {b.native}" if "obj" in art
                                                              else ""),
            f"{b.verdict}: {short(b)}", e.verdict, right)
    inv = getattr(emb, "inv_freq", None)
    if inv is not None and inv.ndim == 1:
        b = check_rotary(inv_freq=inv, seq_len=L)
        e = check_rotary(inv_freq=inv, expect=exp, seq_len=L, max_position_embeddings=8192)
        row(model, tag or truth[0], str(inv.dtype).replace("torch.", ""), "inv_freq",
            f"{b.verdict}: {short(b)}", e.verdict, judge(truth, b) and e.verdict in OK)


def transformers_zoo(quick):
    D2 = ["float32", "bfloat16"]
    archs = [("llama", "llama"), ("mistral", "mistral"), ("qwen2", "qwen2"), ("qwen3", "qwen3"),
             ("gemma", "gemma"), ("gemma2", "gemma2"), ("gemma3", "gemma3_text"),
             ("phi3", "phi3"), ("gpt_neox", "gpt_neox"), ("falcon", "falcon"),
             ("stablelm", "stablelm"), ("persimmon", "persimmon"), ("cohere", "cohere"),
             ("glm", "glm"), ("olmo", "olmo"), ("olmo2", "olmo2"), ("granite", "granite"),
             ("starcoder2", "starcoder2"), ("mixtral", "mixtral"), ("glm4", "glm4"),
             ("nemotron", "nemotron"), ("helium", "helium"), ("cohere2", "cohere2"),
             ("qwen3_moe", "qwen3_moe"), ("gpt_oss", "gpt_oss"), ("smollm3", "smollm3"),
             ("deepseek_v2", "deepseek_v2"), ("exaone4", "exaone4")]
    for model, mt in archs[: 6 if quick else None]:
        hf(model, mt, {"rope_type": "default", "rope_theta": 10000.0}, D2)
    for model, mt in (("llama", "llama"), ("qwen2", "qwen2")):
        hf(model, mt, {"rope_type": "default", "rope_theta": 1000000.0}, ["bfloat16", "float16"],
           tag="default theta 1e6")
    scal = [({"rope_type": "linear", "factor": 2.0}, None),
            ({"rope_type": "linear", "factor": 4.0}, None),
            ({"rope_type": "dynamic", "factor": 2.0}, 16384),
            ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}, None),
            ({"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096,
              "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0}, None),
            ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
              "high_freq_factor": 4.0, "original_max_position_embeddings": 2048}, None),
            ({"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
              "high_freq_factor": 1.0, "original_max_position_embeddings": 2048}, None)]
    for rp, sl in scal:
        rp = dict(rp, rope_theta=500000.0 if rp["rope_type"] == "llama3" else 10000.0)
        tag = rp["rope_type"] + f" {rp['factor']:g}" + (
            " low=high" if rp["rope_type"] == "llama3"
            and rp["low_freq_factor"] == rp["high_freq_factor"] else "")
        n = sl or 2048
        hf("llama", "llama", rp, D2, n=n, seq_len=sl, tag=tag)
    for model, mt in (("phi", "phi"), ("gpt_neox", "gpt_neox"), ("stablelm", "stablelm"),
                      ("persimmon", "persimmon")):
        for rp in ({"rope_type": "default"}, {"rope_type": "linear", "factor": 2.0}):
            rp = dict(rp, rope_theta=10000.0, partial_rotary_factor=0.4)
            hf(model, mt, rp, D2, extra={"partial_rotary_factor": 0.4},
               tag=f"partial 0.4 {rp['rope_type']}")
    hf("glm", "glm", {"rope_type": "default", "rope_theta": 10000.0,
                      "partial_rotary_factor": 0.5}, D2, extra={"partial_rotary_factor": 0.5},
       tag="partial 0.5")
    h = 32
    hf("phi3", "phi3", {"rope_type": "longrope", "rope_theta": 10000.0,
                        "short_factor": [1.0 + 0.02 * j for j in range(h)],
                        "long_factor": [1.5 + 0.3 * j for j in range(h)],
                        "original_max_position_embeddings": 4096}, D2, n=2048, tag="longrope")


def litgpt_zoo():
    import litgpt.model as lm
    import torch

    for extra, cr, tag in ((None, 1, "default"), (None, 2, "condense 2"),
                           ({"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_max_seq_len": 4096}, 1, "llama3 8")):
        cos, sin = lm.build_rope_cache(4096, 128, base=500000, condense_ratio=cr,
                                       extra_config=extra)[:2]
        kind = "llama3" if extra else ("linear" if cr != 1 else "default")
        for dt in ("float32", "bfloat16", "float16"):
            c, s = cos.to(getattr(torch, dt)), sin.to(getattr(torch, dt))
            b = check_rotary(cos=c, sin=s)
            row("litgpt", tag, dt, f"cache {tuple(c.shape)}", f"{b.verdict}: {short(b)}", "-",
                judge((kind, 500000, 8 if extra else cr), b))


def ret_zoo():
    import rotary_embedding_torch as ret
    import torch

    for kw, tag in (({}, "default"), ({"interpolate_factor": 2.0}, "interpolate 2"),
                    ({"theta": 50000}, "theta 5e4")):
        rot = ret.RotaryEmbedding(dim=64, **kw)
        f = rot(rot.get_seq_pos(2048, device="cpu", dtype=torch.float32))
        for dt in ("float32", "bfloat16"):
            c, s = f.cos().to(getattr(torch, dt)), f.sin().to(getattr(torch, dt))
            b = check_rotary(cos=c, sin=s)
            kind = "linear" if "interpolate_factor" in kw else "default"
            row("rotary-embedding-torch", tag, dt, f"cache {tuple(c.shape)}",
                f"{b.verdict}: {short(b)}", "-",
                judge((kind, kw.get("theta", 10000), kw.get("interpolate_factor")), b))


def xtransformers_zoo():
    import torch
    from x_transformers.x_transformers import RotaryEmbedding

    for kw, tag in (({}, "default"), ({"interpolation_factor": 2.0}, "interpolation 2"),
                    ({"base_rescale_factor": 2.0}, "base rescale 2")):
        rot = RotaryEmbedding(64, **kw)
        freqs, _ = rot(torch.arange(2048))
        freqs = freqs.reshape(2048, -1)
        for dt in ("float32", "bfloat16"):
            c, s = freqs.cos().to(getattr(torch, dt)), freqs.sin().to(getattr(torch, dt))
            b = check_rotary(cos=c, sin=s)
            if "base_rescale_factor" in kw:
                right = b.verdict in OK  # base 10000 * 2**(64/62): an NTK base, not round
            else:
                kind = "linear" if kw else "default"
                right = judge((kind, 10000, kw.get("interpolation_factor")), b)
            row("x-transformers", tag, dt, f"cache {tuple(c.shape)}", f"{b.verdict}: {short(b)}",
                "-", right)


def mlx_zoo():
    import mlx.core as mx
    import mlx.nn as nn
    import torch

    d, n = 64, 1024
    for trad in (False, True):
        for scale, off in ((1.0, 0), (0.25, 100), (0.5, 4096)):
            for dt in ("float32", "bfloat16", "float16"):
                x = np.zeros((1, n, d), np.float32)
                if trad:
                    x[..., 0::2] = 1
                else:
                    x[..., : d // 2] = 1
                out = nn.RoPE(d, traditional=trad, base=10000, scale=scale)(
                    mx.array(x).astype(getattr(mx, dt)), offset=off)
                out = np.array(out.astype(mx.float32))[0]
                c, s = (out[:, 0::2], out[:, 1::2]) if trad else (out[:, : d // 2],
                                                                 out[:, d // 2:])
                tdt = getattr(torch, dt)  # the values in their own dtype
                b = check_rotary(cos=torch.tensor(c).to(tdt), sin=torch.tensor(s).to(tdt))
                kind = "default" if scale == 1 else "linear"
                right = judge((kind, 10000, 1 / scale), b) and (
                    off == 0 or f"positions start at {off}" in " ".join(b.notes))
                row("mlx.nn.RoPE", f"traditional={trad} scale {scale} offset {off}", dt,
                    "rotated unit vectors", f"{b.verdict}: {short(b)}", "-", right)


def keras_zoo():
    import os

    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras_hub

    for kw, tag in (({}, "default"), ({"scaling_factor": 4.0}, "scaling 4"),
                    ({"max_wavelength": 500000}, "wavelength 5e5")):
        layer = keras_hub.layers.RotaryEmbedding(**kw)
        for start in (0, 64):
            x = np.zeros((1, 1024, 64), np.float32)
            cos, sin = layer._compute_cos_sin_embedding(x, start_index=start)
            c, s = np.asarray(cos.cpu()), np.asarray(sin.cpu())
            b = check_rotary(cos=c, sin=s)
            kind = "linear" if "scaling_factor" in kw else "default"
            right = judge((kind, kw.get("max_wavelength", 10000), kw.get("scaling_factor")), b)
            row("keras-hub", f"{tag} start {start}", "float32", f"cache {tuple(c.shape)}",
                f"{b.verdict}: {short(b)}", "-", right)


def main():
    quick = "--quick" in sys.argv
    print("| library | config | dtype | artefact | blind verdict: identified | against its "
          "config | right? | note |")
    print("|---|---|---|---|---|---|---|---|")
    for f in (transformers_zoo, litgpt_zoo, ret_zoo, xtransformers_zoo, mlx_zoo, keras_zoo):
        try:
            f(quick) if f is transformers_zoo else f()
        except ImportError as exc:
            print(f"| {f.__name__} | not installed: {exc} |")
    bad = [r for r in ROWS if not r[6]]
    print(f"\n{len(ROWS)} artefacts, {len(ROWS) - len(bad)} right, {len(bad)} not")


if __name__ == "__main__":
    main()
