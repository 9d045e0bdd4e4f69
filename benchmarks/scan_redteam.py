"""Red-team survey of ``peproof scan`` on checkpoints written by transformers' ``save_pretrained``
of small randomly initialised models (nothing downloaded), for the closing note of issue 20.

For every architecture: the model is built from a small config and saved; the positional
buffers transformers keeps out of the checkpoint (non-persistent ``inv_freq``, cos/sin caches,
fairseq-style tables, GPT-J's ``embed_positions``) are added under the names the model gives
them, as older versions and converters stored them (the ``added`` column); then the checkpoint
is scanned with its config.  Then a copy with its first positional buffer broken the way
converters break them (halves swapped for tables and caches, the base changed for ``inv_freq``)
is scanned.  Printed per architecture: what is persisted, the buffers found (kind), the verdict
on the saved checkpoint and on the broken copy, and whether both are right (the good checkpoint
passes with every stored positional buffer found, learned ones named learned; the broken copy
fails on the broken buffer, naming the bug).

    .venv/bin/python benchmarks/scan_redteam.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

#: in tests/test_scan_models.py (the others are new to the scan's tests)
TESTED = {"marian", "pegasus", "whisper", "fsmt", "distilbert", "m2m_100", "speech_to_text",
          "esm", "wav2vec2_conformer", "llama", "phi", "gpt2", "bart"}
DEC = dict(vocab_size=100, hidden_size=128, num_attention_heads=4, num_key_value_heads=4,
           num_hidden_layers=2, intermediate_size=64, max_position_embeddings=512)
S2S = dict(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
           decoder_ffn_dim=32, pad_token_id=1, bos_token_id=0, eos_token_id=2,
           decoder_start_token_id=2, max_position_embeddings=512)


def models():
    """``name -> (builder, what this architecture is)``; each builder returns a model."""
    import transformers as tr

    def dec(cls_cfg, cls_model, **kw):
        return lambda: getattr(tr, cls_model)(getattr(tr, cls_cfg)(**{**DEC, **kw}))

    return {
        "marian": (lambda: tr.MarianMTModel(tr.MarianConfig(**S2S, decoder_vocab_size=100)),
                   "[sin|cos] tables (MarianMTModel does not save them)"),
        "pegasus": (lambda: tr.PegasusForConditionalGeneration(tr.PegasusConfig(**S2S)),
                    "persisted create_weight tables"),
        "whisper": (lambda: tr.WhisperForConditionalGeneration(tr.WhisperConfig(
            **{k: v for k, v in S2S.items() if k != "max_position_embeddings"},
            max_source_positions=64, max_target_positions=32, num_mel_bins=8)),
            "persisted h-1 encoder table, learned decoder"),
        "esm": (lambda: tr.EsmForMaskedLM(tr.EsmConfig(
            vocab_size=33, hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
            intermediate_size=64, position_embedding_type="rotary", pad_token_id=1)),
            "persisted rotary inv_freq"),
        "gptj": (lambda: tr.GPTJForCausalLM(tr.GPTJConfig(
            vocab_size=100, n_embd=128, n_layer=2, n_head=4, rotary_dim=16, n_positions=512)),
            "rotary cache embed_positions [sin|cos], rotary_dim 16 of 32"),
        "codegen": (lambda: tr.CodeGenForCausalLM(tr.CodeGenConfig(
            vocab_size=100, n_embd=128, n_layer=2, n_head=4, rotary_dim=16, n_positions=512,
            n_ctx=512)), "rotary cache embed_positions [sin|cos]"),
        "gpt_neox": (dec("GPTNeoXConfig", "GPTNeoXForCausalLM", rotary_pct=0.25,
                         rotary_emb_base=10000), "partial rotary 0.25"),
        "stablelm": (dec("StableLmConfig", "StableLmForCausalLM", partial_rotary_factor=0.25),
                     "partial rotary 0.25"),
        "persimmon": (dec("PersimmonConfig", "PersimmonForCausalLM", partial_rotary_factor=0.5,
                          rope_theta=25000.0), "partial rotary 0.5, base 25000"),
        "qwen2": (dec("Qwen2Config", "Qwen2ForCausalLM", rope_theta=1000000.0), "base 10^6"),
        "mistral": (dec("MistralConfig", "MistralForCausalLM"), "default"),
        "gemma2": (dec("Gemma2Config", "Gemma2ForCausalLM", head_dim=32), "default, head_dim"),
        "gemma3_text": (dec("Gemma3TextConfig", "Gemma3ForCausalLM", head_dim=32,
                            num_hidden_layers=6, rope_parameters={
                                "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                   "rope_theta": 1000000.0},
                                "sliding_attention": {"rope_type": "default",
                                                      "rope_theta": 10000.0}}),
                        "per layer type: linear 8 base 10^6 / default 10^4"),
        "cohere": (dec("CohereConfig", "CohereForCausalLM"), "interleaved rotary"),
        "deepseek_v3": (dec("DeepseekV3Config", "DeepseekV3ForCausalLM", rope_parameters={
            "rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
            "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0,
            "rope_theta": 10000.0}, max_position_embeddings=163840, n_routed_experts=4,
            num_experts_per_tok=2, moe_intermediate_size=32, q_lora_rank=16, kv_lora_rank=16,
            qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16, first_k_dense_replace=1,
            n_group=1, topk_group=1), "YaRN 40"),
        "phi3": (dec("Phi3Config", "Phi3ForCausalLM", pad_token_id=0,
                     max_position_embeddings=4096, rope_parameters={
                         "rope_type": "longrope", "short_factor": [1.0] * 16,
                         "long_factor": [2.0] * 16, "original_max_position_embeddings": 1024,
                         "rope_theta": 10000.0}), "LongRoPE"),
        "olmo2": (dec("Olmo2Config", "Olmo2ForCausalLM", rope_theta=500000.0), "base 5*10^5"),
        "starcoder2": (dec("Starcoder2Config", "Starcoder2ForCausalLM", rope_theta=100000.0),
                       "base 10^5"),
        "llama_dynamic": (dec("LlamaConfig", "LlamaForCausalLM", rope_parameters={
            "rope_type": "dynamic", "factor": 4.0, "rope_theta": 10000.0}), "dynamic NTK 4"),
        "moonshine": (lambda: tr.MoonshineForConditionalGeneration(tr.MoonshineConfig(
            vocab_size=100, hidden_size=64, intermediate_size=64, encoder_num_hidden_layers=1,
            decoder_num_hidden_layers=1, encoder_num_attention_heads=4,
            decoder_num_attention_heads=4, partial_rotary_factor=0.5, pad_token_id=0)),
            "encoder-decoder, partial rotary 0.5"),
        "xglm": (lambda: tr.XGLMForCausalLM(tr.XGLMConfig(
            vocab_size=100, d_model=64, num_layers=1, attention_heads=4, ffn_dim=64,
            max_position_embeddings=512, pad_token_id=1)), "fairseq table, padding row"),
        "roformer": (lambda: tr.RoFormerModel(tr.RoFormerConfig(
            vocab_size=100, hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
            intermediate_size=64, max_position_embeddings=512)),
            "create_weight table of the head width"),
        "xlm": (lambda: tr.XLMModel(tr.XLMConfig(vocab_size=100, emb_dim=64, n_layers=1,
                                                  n_heads=4, max_position_embeddings=512,
                                                  sinusoidal_embeddings=True)),
                "sinusoidal_embeddings=True"),
        "informer": (lambda: tr.InformerModel(tr.InformerConfig(
            prediction_length=24, context_length=48, d_model=32, encoder_layers=1,
            decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
            encoder_ffn_dim=32, decoder_ffn_dim=32, lags_sequence=[1, 2, 3])),
            "create_weight table"),
        "time_series_transformer": (lambda: tr.TimeSeriesTransformerModel(
            tr.TimeSeriesTransformerConfig(prediction_length=24, context_length=48, d_model=32,
                                           encoder_layers=1, decoder_layers=1,
                                           encoder_attention_heads=2, decoder_attention_heads=2,
                                           encoder_ffn_dim=32, decoder_ffn_dim=32,
                                           lags_sequence=[1, 2, 3])), "create_weight table"),
        "speecht5": (lambda: tr.SpeechT5ForTextToSpeech(tr.SpeechT5Config(
            vocab_size=100, hidden_size=64, encoder_layers=1, decoder_layers=1,
            encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
            decoder_ffn_dim=64, speech_decoder_prenet_units=32, speech_decoder_postnet_units=32,
            num_mel_bins=8, max_text_positions=256, max_speech_positions=256)),
            "sinusoidal text positions (fairseq) + scaled speech table"),
        "kosmos2": (lambda: tr.Kosmos2Model(tr.Kosmos2Config(
            text_config={"vocab_size": 100, "embed_dim": 64, "layers": 1, "attention_heads": 4,
                         "ffn_dim": 64, "max_position_embeddings": 256},
            vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                           "intermediate_size": 32, "image_size": 32, "patch_size": 16},
            latent_query_num=4)), "fairseq text table in a multimodal config"),
        "nllb_moe": (lambda: tr.NllbMoeModel(tr.NllbMoeConfig(
            **S2S, num_experts=2, encoder_sparse_step=1, decoder_sparse_step=1)),
            "fairseq tables, model_type nllb-moe"),
        "trocr": (lambda: tr.TrOCRForCausalLM(tr.TrOCRConfig(
            vocab_size=100, d_model=64, decoder_layers=1, decoder_attention_heads=4,
            decoder_ffn_dim=64, max_position_embeddings=256, use_learned_position_embeddings=False,
            pad_token_id=1)), "fairseq table (use_learned_position_embeddings=False)"),
        "falcon": (lambda: tr.FalconForCausalLM(tr.FalconConfig(
            vocab_size=100, hidden_size=128, num_attention_heads=4, num_hidden_layers=2,
            max_position_embeddings=512, alibi=False)), "rotary (alibi=False)"),
        "bloom": (lambda: tr.BloomForCausalLM(tr.BloomConfig(
            vocab_size=100, hidden_size=64, n_layer=1, n_head=4)), "ALiBi: no positional buffer"),
        "opt": (lambda: tr.OPTForCausalLM(tr.OPTConfig(
            vocab_size=100, hidden_size=64, num_hidden_layers=1, ffn_dim=64,
            num_attention_heads=4, max_position_embeddings=256, word_embed_proj_dim=64)),
            "learned positions (offset 2)"),
    }


#: per-layer names older transformers versions gave the rotary buffers (one copy per layer,
#: before the model-level ``rotary_emb``): these checkpoints get their buffer under them
HISTORICAL = {"mistral": "model.layers.{i}.self_attn.rotary_emb.inv_freq",
              "qwen2": "model.layers.{i}.self_attn.rotary_emb.inv_freq",
              "falcon": "transformer.h.{i}.self_attention.rotary_emb.inv_freq",
              "gpt_neox": "gpt_neox.layers.{i}.attention.rotary_emb.inv_freq",
              "gptj": "transformer.h.{i}.attn.embed_positions",
              "codegen": "transformer.h.{i}.attn.embed_positions"}


def added(name: str, model, saved: set) -> dict:
    """The model's positional buffers that save_pretrained left out (every buffer except
    position ids / token type ids and scalars), under the names the model gives them, or the
    per-layer names of :data:`HISTORICAL`."""
    out = {}
    sd = model.state_dict()
    # buffers kept out (non-persistent), and positional weights save_pretrained ignores
    # (MarianMTModel's _keys_to_ignore_on_save): older versions stored both
    cands = list(model.named_buffers()) + [(n, t) for n, t in sd.items() if n not in saved
                                           and "embed_positions" in n]
    for n, b in cands:
        if n in saved or b.dim() == 0 or not (b.dtype.is_floating_point or b.is_complex()):
            continue
        if "position_ids" in n or "token_type" in n or "original_inv_freq" in n:
            continue
        out[n] = b.detach().contiguous().clone()
    if name in HISTORICAL and len(out) == 1:
        (b,) = out.values()
        layers = model.config.num_hidden_layers
        out = {HISTORICAL[name].format(i=i): b.clone() for i in range(layers)}
    return out


def break_one(found, t):
    """``(broken tensors by name, words one of which the scan should say)``, the way converters
    break them:
    an ``inv_freq`` at another base (every frequency raised to the power 1.25: the base to the
    power 1.25, the map kept), a table with its sin and cos exchanged (the halves, or the two
    channels of each interleaved pair), a cache's cos and sin exchanged."""
    import torch

    names = found.names
    if found.kind == "inv_freq":
        return {names[0]: (t[names[0]].double() ** 1.25).to(t[names[0]].dtype)}, (
            "base", "variant", "outside")
    swap = ("swap", "cosine first")
    if len(names) == 2:
        return {names[0]: t[names[1]], names[1]: t[names[0]]}, swap
    x = t[names[0]]
    w = x.shape[-1]
    if "interleaved" in found.note:
        return {names[0]: x.reshape(*x.shape[:-1], w // 2, 2).flip(-1).reshape(x.shape)}, swap
    if x.dim() == 2:
        return {names[0]: torch.cat([x[:, w // 2:], x[:, :w // 2]], dim=-1)}, swap
    return {names[0]: x.flip(-1)}, swap


def write(folder: Path, tensors: dict) -> None:
    from safetensors.torch import load_file, save_file

    f = folder / "model.safetensors"
    sd = load_file(str(f))
    sd.update(tensors)
    save_file(sd, str(f), metadata={"format": "pt"})


def survey(names, root: Path) -> list:
    import torch
    import transformers as tr

    from peproof.oracle.rotary import short_layout
    from peproof.scan import scan

    tr.logging.set_verbosity_error()
    rows = []
    for name, (build, what) in models().items():
        if names and name not in names:
            continue
        try:
            torch.manual_seed(0)
            m = build()
            d = root / name
            m.save_pretrained(d)
        except Exception as exc:  # an architecture this transformers version builds otherwise
            rows.append((name, what, "-", "-", f"not built: {type(exc).__name__}: "
                         f"{str(exc)[:80]}", "-", "-"))
            continue
        from safetensors import safe_open

        with safe_open(str(d / "model.safetensors"), "pt") as fh:
            saved = set(fh.keys())
        extra = added(name, m, saved)
        if extra:
            write(d, extra)
        rep = scan(str(d))
        found = [(j.found.names, j.found.kind, j.ok, j.headline, j.layout) for j in rep.judged]
        learned_only = all(j.ok is None for j in rep.judged)
        good_right = rep.ok and bool(rep.judged) and all(
            n in {x for j in rep.judged for x in j.found.names + j.copies}
            for n in extra if not n.endswith("original_inv_freq"))
        # the broken copy
        target = next((j for j in rep.judged if j.ok), None)
        broke = "-"
        bad_right = None
        if target is not None:
            with safe_open(str(d / "model.safetensors"), "pt") as fh:
                t = {n: fh.get_tensor(n) for n in target.found.names}
            brk, words = break_one(target.found, t)
            d2 = root / f"{name}-broken"
            shutil.copytree(d, d2)
            write(d2, brk)
            rb = scan(str(d2))
            failing = list(rb.failing)
            said = " ".join([failing[0].headline] + failing[0].diagnoses) if failing else ""
            bad_right = (len(failing) == 1 and set(brk) <= set(failing[0].found.names)
                         and any(w in said for w in words))
            broke = f"{failing[0].headline[:110]}" if failing else "PASSED (not caught)"
        kinds = "; ".join(f"{'+'.join(n)}: {k}" + (f" [{short_layout(lay)}]" if lay else "") + (
            " ok" if ok else " --" if ok is None else " FAIL") for n, k, ok, _, lay in found)
        verdict = rep.headline + ("" if rep.ok else ": " + "; ".join(
            j.headline[:100] for j in rep.failing))
        right = ("yes" if good_right and bad_right in (True, None) else
                 "yes (learned, not judged)" if learned_only and rep.judged and rep.ok else
                 "yes (nothing stored)" if not rep.judged and not extra else "NO")
        persisted = ", ".join(sorted({n.split(".")[-1] for n in saved if any(
            n in j.found.names + j.copies for j in rep.judged)})) or "none"
        rows.append((name, what, persisted, ", ".join(sorted({n.split(".")[-1]
                                                             for n in extra})) or "none",
                     kinds or "none", verdict, broke, right))
        print(" | ".join(str(x) for x in rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", default=None, help="also write the rows as JSON here")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="scan-redteam-"))
    try:
        rows = survey(set(a.only or ()), root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\n| model | what | persisted | added | buffers found | verdict | broken copy | "
          "right? |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        tag = "" if r[0] in TESTED else " (new)"
        print("| " + " | ".join([r[0] + tag] + [str(x).replace("|", "/") for x in r[1:]]) + " |")
    n_right = sum(1 for r in rows if r[-1].startswith("yes"))
    print(f"\n{n_right} of {len(rows)} right; {sum(r[0] not in TESTED for r in rows)} "
          "architectures not in tests/test_scan_models.py")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
