"""Probe of the rotary oracle on 16-bit caches, correct and with two rows swapped.

352 caches: PyTorch recipes (every step in float32 then cast; the ``inv_freq`` buffer cast to the
16-bit dtype with the product in float32; every step in 16 bits) at bases 10^4, 10^5, 5 10^5 and
10^6, d 64 and 128, 64 / 300 / 2048 rows, and transformers' own Llama rotary module with Llama 3's
and Llama 3.2's maps (factors 8 and 32), linear 4 and YaRN 4, with and without ``model.to(dtype)``;
each in bfloat16 and float16, once as made and once with the rows at three quarters and the next
swapped.  Each is checked blind and against the RoPE that made it.

Prints the count of each verdict for correct and swapped caches, blind and against the
expectation, and every swapped cache called within the error model (there should be none) and
every correct cache that is not (with an expectation there should be none).  ``--json FILE``
writes every row, to compare two trees (``PYTHONPATH=<tree> python benchmarks/rotary_swap_probe.py
--json a.json``).  Not a timed benchmark: about 2 minutes.
"""

from __future__ import annotations

import argparse
import collections
import json
import warnings

warnings.filterwarnings("ignore")

OK = ("conforms", "within the error model of its dtype")
LLAMA3 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
HF = (LLAMA3, dict(LLAMA3, factor=32.0), {"rope_type": "linear", "rope_theta": 10000.0,
                                          "factor": 4.0},
      {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
       "original_max_position_embeddings": 4096})


def _recipe(torch, recipe, base, d, n, dt):
    inv32 = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    if recipe == "float32":
        f = torch.outer(torch.arange(n).float(), inv32)
    elif recipe == "buffer16":
        f = torch.outer(torch.arange(n).float(), inv32.to(dt).float())
    else:
        f = torch.outer(torch.arange(n, dtype=dt), inv32.to(dt))
    emb = torch.cat((f, f), dim=-1)
    return emb.cos().to(dt).float().numpy(), emb.sin().to(dt).float().numpy()


def _hf(torch, params, d, n, dt, cast):
    import transformers
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(head_dim=d, hidden_size=d * 4, num_attention_heads=4,
                                   max_position_embeddings=131072, rope_parameters=dict(params))
    e = LlamaRotaryEmbedding(cfg)
    e = e.to(dt) if cast else e
    with torch.no_grad():
        c, s = e(torch.zeros(1, n, d, dtype=dt), torch.arange(n)[None])
    return c.float().numpy()[0].copy(), s.float().numpy()[0].copy()


def main() -> None:
    import torch

    from peproof.oracle.rotary.check import check_rotary
    from peproof.rope import Rope

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write every row to this file")
    args = ap.parse_args()
    rows = []

    def run(tag, c, s, dt, expect, kw=None):
        for swapped in (False, True):
            cc, ss = c, s
            if swapped:
                r = len(c) * 3 // 4
                cc, ss = c.copy(), s.copy()
                cc[[r, r + 1]], ss[[r, r + 1]] = cc[[r + 1, r]], ss[[r + 1, r]]
            for ex in (None, expect):
                rep = check_rotary(cos=cc, sin=ss, dtype=dt, expect=ex,
                                   **((kw or {}) if ex is not None else {}))
                rows.append({"tag": tag, "swapped": swapped, "expect": ex is not None,
                             "verdict": rep.verdict,
                             "identified": rep.identified.describe() if rep.identified else ""})

    for name in ("bfloat16", "float16"):
        dt = getattr(torch, name)
        for base in (10000.0, 100000.0, 500000.0, 1000000.0):
            for d in (64, 128):
                for n in (64, 300, 2048):
                    for recipe in ("float32", "buffer16", "all16"):
                        c, s = _recipe(torch, recipe, base, d, n, dt)
                        run(f"{name} {recipe} base {base:g} d {d} n {n}", c, s, name,
                            Rope(d, base))
        for params in HF:
            for n in (300, 2048):
                for cast in (False, True):
                    c, s = _hf(torch, params, 128, n, dt, cast)
                    run(f"{name} transformers {params['rope_type']} {params.get('factor', '')} "
                        f"n {n}{' model.to(dtype)' if cast else ''}", c, s, name, params,
                        {"max_position_embeddings": 131072})
    counts = collections.Counter(("swapped" if r["swapped"] else "correct",
                                  "expected" if r["expect"] else "blind", r["verdict"])
                                 for r in rows)
    for k, v in sorted(counts.items()):
        print(f"{v:4d}  {k[0]:8s} {k[1]:9s} {k[2]}")
    bad = [r for r in rows if r["swapped"] and r["verdict"] in OK]
    lost = [r for r in rows if not r["swapped"] and r["expect"] and r["verdict"] not in OK
            and r["verdict"] != "degenerate"]
    print(f"swapped caches within the error model: {len(bad)}")
    for r in bad:
        print("   ", r["tag"], "expected" if r["expect"] else "blind", r["identified"])
    print(f"correct caches not within against their expectation (degenerate aside): {len(lost)}")
    for r in lost:
        print("   ", r["tag"], r["verdict"])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh)
    print(f"{len(rows)} checks; correct blind within: "
          f"{sum(1 for r in rows if not r['swapped'] and not r['expect'] and r['verdict'] in OK)}")


if __name__ == "__main__":
    main()
