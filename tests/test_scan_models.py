"""``peproof scan`` on checkpoints written by transformers' ``save_pretrained`` (tiny, randomly
initialised models built here from configs; nothing is downloaded), on copies with a positional
buffer broken the way converters break them, on ``.pt`` state dicts and sharded folders; and the
scan's catalogue of architectures against the oracle's catalogue of real implementations.

Which buffers transformers 5 stores: Marian (MarianModel), Pegasus, Whisper (encoder sinusoids,
decoder learned), FSMT, DistilBERT with ``sinusoidal_pos_embds`` store their tables; ESM and
Wav2Vec2-Conformer store a persistent rotary ``inv_freq``; GPT-2 and BART store learned
positions.  M2M100 and Speech2Text keep their tables and Llama / Phi their ``inv_freq`` out of the
checkpoint (non-persistent buffers); older versions and converters stored them, so those
checkpoints get the model's own buffers added under the names they had.
"""

import json
import shutil

import numpy as np
import pytest

from peproof.cli import main
from peproof.scan import scan
from peproof.scan.detect import CACHE, INV_FREQ, LEARNED, TABLE

pytestmark = pytest.mark.peers
torch = pytest.importorskip("torch")
tr = pytest.importorskip("transformers")
st = pytest.importorskip("safetensors.torch")

IDS = dict(pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
SEQ2SEQ = dict(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
               encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
               decoder_ffn_dim=32, **IDS)
DEC = dict(vocab_size=100, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
           num_attention_heads=4)


def _add(folder, tensors: dict):
    """Buffers written into the checkpoint as older transformers versions stored them."""
    f = folder / "model.safetensors"
    sd = st.load_file(str(f))
    sd.update({k: v.detach().contiguous().clone() for k, v in tensors.items()})
    st.save_file(sd, str(f), metadata={"format": "pt"})


def _llama_cache(m, n):
    cos, sin = m.model.rotary_emb(torch.zeros(1, n, 64), torch.arange(n)[None])
    return {"model.rotary_emb.cos_cached": cos[0], "model.rotary_emb.sin_cached": sin[0]}


def build(name: str, root):
    torch.manual_seed(0)
    d = root / name
    extra = {}
    if name == "marian":
        m = tr.MarianModel(tr.MarianConfig(**SEQ2SEQ, decoder_vocab_size=100,
                                           max_position_embeddings=4096))
    elif name == "pegasus":
        m = tr.PegasusForConditionalGeneration(tr.PegasusConfig(**SEQ2SEQ,
                                                                max_position_embeddings=64))
    elif name == "whisper":
        m = tr.WhisperForConditionalGeneration(tr.WhisperConfig(
            **SEQ2SEQ, max_source_positions=64, max_target_positions=32, num_mel_bins=8))
    elif name == "fsmt":
        kw = {k: v for k, v in SEQ2SEQ.items() if k != "vocab_size"}
        m = tr.FSMTForConditionalGeneration(tr.FSMTConfig(
            src_vocab_size=100, tgt_vocab_size=100, langs=["en", "de"],
            max_position_embeddings=64, **kw))
    elif name == "distilbert":
        m = tr.DistilBertModel(tr.DistilBertConfig(vocab_size=100, dim=32, n_layers=1, n_heads=2,
                                                   hidden_dim=32, max_position_embeddings=64,
                                                   sinusoidal_pos_embds=True))
    elif name == "m2m_100":
        m = tr.M2M100Model(tr.M2M100Config(**SEQ2SEQ, max_position_embeddings=64))
        extra = {n: b for n, b in m.named_buffers() if "embed_positions" in n}
    elif name == "speech_to_text":
        m = tr.Speech2TextForConditionalGeneration(tr.Speech2TextConfig(
            **SEQ2SEQ, max_source_positions=64, max_target_positions=32,
            input_feat_per_channel=8, conv_channels=16))
        extra = {n: b for n, b in m.named_buffers() if "embed_positions" in n}
    elif name == "esm":
        m = tr.EsmForMaskedLM(tr.EsmConfig(vocab_size=33, hidden_size=32, num_hidden_layers=1,
                                           num_attention_heads=2, intermediate_size=32,
                                           position_embedding_type="rotary",
                                           max_position_embeddings=64, pad_token_id=1))
    elif name == "wav2vec2_conformer":
        m = tr.Wav2Vec2ConformerModel(tr.Wav2Vec2ConformerConfig(
            vocab_size=20, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=32, position_embeddings_type="rotary", conv_dim=(8, 8),
            conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2))
    elif name == "llama":
        m = tr.LlamaForCausalLM(tr.LlamaConfig(**DEC, max_position_embeddings=256, rope_parameters={
            "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
            "original_max_position_embeddings": 64, "rope_theta": 500000.0}))
        extra = {f"model.layers.{i}.self_attn.rotary_emb.inv_freq": m.model.rotary_emb.inv_freq
                 for i in range(2)}
    elif name == "phi":
        m = tr.PhiForCausalLM(tr.PhiConfig(**DEC, partial_rotary_factor=0.4,
                                           max_position_embeddings=128))
        extra = {"model.rotary_emb.inv_freq": m.model.rotary_emb.inv_freq}
    elif name == "llama_cache":
        m = tr.LlamaForCausalLM(tr.LlamaConfig(**DEC, max_position_embeddings=4096))
        extra = _llama_cache(m, 4096)
    elif name == "gpt2":
        m = tr.GPT2LMHeadModel(tr.GPT2Config(vocab_size=100, n_embd=32, n_layer=1, n_head=2,
                                             n_positions=64))
    elif name == "bart":
        m = tr.BartForConditionalGeneration(tr.BartConfig(**SEQ2SEQ, max_position_embeddings=64))
    else:
        raise ValueError(name)
    m.save_pretrained(d)
    if extra:
        _add(d, extra)
    return d, m


#: what each checkpoint holds (the architecture's facts): buffer names -> kind; all pass
EXPECTED = {
    "marian": {"encoder.embed_positions.weight": TABLE, "decoder.embed_positions.weight": TABLE},
    "pegasus": {"model.encoder.embed_positions.weight": TABLE,
                "model.decoder.embed_positions.weight": TABLE},
    "whisper": {"model.encoder.embed_positions.weight": TABLE,
                "model.decoder.embed_positions.weight": LEARNED},
    "fsmt": {"model.encoder.embed_positions.weight": TABLE,
             "model.decoder.embed_positions.weight": TABLE},
    "distilbert": {"embeddings.position_embeddings.weight": TABLE},
    "m2m_100": {"encoder.embed_positions.weights": TABLE, "decoder.embed_positions.weights": TABLE},
    "speech_to_text": {"model.encoder.embed_positions.weights": TABLE,
                       "model.decoder.embed_positions.weights": TABLE},
    "esm": {"esm.encoder.layer.*.attention.self.rotary_embeddings.inv_freq": INV_FREQ},
    "wav2vec2_conformer": {"encoder.embed_positions.inv_freq": INV_FREQ},
    "llama": {"model.layers.0.self_attn.rotary_emb.inv_freq": INV_FREQ,
              "model.layers.1.self_attn.rotary_emb.inv_freq": INV_FREQ},
    "phi": {"model.rotary_emb.inv_freq": INV_FREQ},
    "llama_cache": {"model.rotary_emb.cos_cached": CACHE, "model.rotary_emb.sin_cached": CACHE},
    "gpt2": {"transformer.wpe.weight": LEARNED},
    "bart": {"model.encoder.embed_positions.weight": LEARNED,
             "model.decoder.embed_positions.weight": LEARNED},
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    tr.logging.set_verbosity_error()
    cache: dict = {}

    def get(name):
        if name not in cache:
            cache[name] = build(name, root)
        return cache[name]

    return get


def _kinds(rep) -> dict:
    out = {}
    for j in rep.judged:
        for n in j.found.names + j.copies:
            out[n] = j.found.kind
    return out


@pytest.mark.parametrize("name", list(EXPECTED))
def test_save_pretrained_checkpoints_pass(models, name, capsys):
    d, _ = models(name)
    rep = scan(str(d))
    assert rep.model_type and _kinds(rep) == EXPECTED[name]
    assert rep.ok, rep.render()
    learned = [j for j in rep.judged if j.found.kind == LEARNED]
    assert all(j.ok is None for j in learned)  # recognised as learned, not judged
    rc = main(["scan", str(d)])
    capsys.readouterr()
    assert rc == 0


# ----------------------------------------------------------------------------- broken copies
def _copy_with(models, tmp_path, name, tensors: dict):
    d, m = models(name)
    out = tmp_path / f"{name}-broken"
    shutil.copytree(d, out)
    _add(out, tensors)
    return out


def _marian_table(n=4096, dim=32, base=10000.0, pos=None, swap=False):
    """Marian's formula in PyTorch, the way a converter rewrites it."""
    p = torch.arange(n, dtype=torch.float64) if pos is None else pos.double()
    j = torch.arange(dim // 2, dtype=torch.float64)
    ang = p[:, None] / base ** (2 * j / dim)
    halves = [torch.cos(ang), torch.sin(ang)] if swap else [torch.sin(ang), torch.cos(ang)]
    return torch.cat(halves, dim=1).float()


def _failing(rep) -> dict:
    return {n: j for j in rep.failing for n in j.found.names}


@pytest.mark.parametrize("bug, table, words", [
    ("float16 positions", lambda: _marian_table(pos=torch.arange(4096).half()),
     "positions were rounded to float16"),
    ("a wrong base", lambda: _marian_table(base=1000.0), "base 1000"),
    ("swapped halves", lambda: _marian_table(swap=True), "swapped"),
    ("re-initialised", lambda: torch.randn(4096, 32) * 0.02, "sinusoidal table here"),
])
def test_broken_marian_table_is_named(models, tmp_path, bug, table, words):
    d = _copy_with(models, tmp_path, "marian", {"encoder.embed_positions.weight": table()})
    rep = scan(str(d))
    bad = _failing(rep)
    assert list(bad) == ["encoder.embed_positions.weight"], bug
    j = bad["encoder.embed_positions.weight"]
    assert words in " ".join([j.headline] + j.diagnoses), (bug, j.headline, j.diagnoses)


def test_broken_rotary_buffers_are_named(models, tmp_path):
    d, m = models("esm")
    name = "esm.encoder.layer.*.attention.self.rotary_embeddings.inv_freq"
    wrong = 1.0 / 500000 ** (torch.arange(0, 16, 2).float() / 16)
    j = _failing(scan(str(_copy_with(models, tmp_path, "esm", {name: wrong}))))[name]
    assert "different variant" in j.headline and "500000" in j.headline
    # the llama3 scaling dropped by a converter: the default frequencies under a llama3 config
    d, m = models("llama")
    plain = 1.0 / 500000 ** (torch.arange(0, 16, 2).float() / 16)
    names = [f"model.layers.{i}.self_attn.rotary_emb.inv_freq" for i in range(2)]
    rep = scan(str(_copy_with(models, tmp_path, "llama", dict.fromkeys(names, plain))))
    assert set(_failing(rep)) == {names[0]} and rep.judged[0].copies == [names[1]]
    assert "llama3" in rep.judged[0].expected and not rep.ok
    # a cos/sin cache computed at float16 positions
    d, m = models("llama_cache")
    pos = torch.arange(4096).half().float()
    ang = pos[:, None] * m.model.rotary_emb.inv_freq[None, :]
    ang = torch.cat([ang, ang], dim=1)
    broken = {"model.rotary_emb.cos_cached": ang.cos(), "model.rotary_emb.sin_cached": ang.sin()}
    rep = scan(str(_copy_with(models, tmp_path, "llama_cache", broken)))
    assert not rep.ok and set(_failing(rep)) == set(broken)


# ----------------------------------------------------------------------------- containers
def test_state_dict_pt_and_a_pickle(models, tmp_path, capsys):
    d, m = models("marian")
    out = tmp_path / "pt"
    out.mkdir()
    shutil.copy(d / "config.json", out / "config.json")
    torch.save(m.state_dict(), out / "pytorch_model.bin")
    rep = scan(str(out))
    assert rep.checkpoint.format == "pt" and rep.ok
    assert _kinds(rep) == EXPECTED["marian"]
    import argparse

    torch.save({"model": m.state_dict(), "args": argparse.Namespace(arch="marian")},
               tmp_path / "fairseq.pt")
    rc = main(["scan", str(tmp_path / "fairseq.pt")])
    err = capsys.readouterr().err
    assert rc == 2 and "refused" in err and "Namespace" in err


def test_sharded_bin_state_dict(models, tmp_path):
    """pytorch_model-0000k-of-00002.bin shards and their index, as transformers 4 wrote them."""
    d, m = models("marian")
    out = tmp_path / "bin"
    out.mkdir()
    shutil.copy(d / "config.json", out / "config.json")
    sd = m.state_dict()
    names = list(sd)
    parts = {"pytorch_model-00001-of-00002.bin": names[: len(names) // 2],
             "pytorch_model-00002-of-00002.bin": names[len(names) // 2:]}
    for f, ks in parts.items():
        torch.save({k: sd[k] for k in ks}, out / f)
    wm = {k: f for f, ks in parts.items() for k in ks}
    (out / "pytorch_model.bin.index.json").write_text(json.dumps({"weight_map": wm}))
    rep = scan(str(out))
    assert rep.checkpoint.format == "pt" and len(rep.checkpoint.files) == 2
    assert rep.ok and _kinds(rep) == EXPECTED["marian"]


def test_sharded_save_pretrained(models, tmp_path):
    d, m = models("whisper")
    m.save_pretrained(tmp_path / "sharded", max_shard_size="40KB")
    index = json.loads((tmp_path / "sharded" / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) > 1
    rep = scan(str(tmp_path / "sharded"))
    assert len(rep.checkpoint.files) > 1 and rep.ok
    assert _kinds(rep) == EXPECTED["whisper"]


# ----------------------------------------------------------------------------- the catalogue
def test_catalogue_agrees_with_the_peer_builders():
    """Every architecture the scan expects a table from, against the table its code builds."""
    from peproof.oracle import identify
    from peproof.oracle.sinusoidal import peers as P
    from peproof.scan.catalogue import table_spec

    builders = {"marian": P.marian, "whisper": P.whisper, "distilbert": P.distilbert,
                "xlm": P.xlm, "fsmt": P.fsmt, "musicgen": P.musicgen,
                **{m: (lambda n, d, m=m: P.transformers_padded(m, n, d)) for m in P.PADDED},
                **{m: (lambda n, d, m=m: P.transformers_create_weight(m, n, d))
                   for m in P.CREATE_WEIGHT}}
    cfg = {"sinusoidal_pos_embds": True, "sinusoidal_embeddings": True, "pad_token_id": 1}
    for mt, b in builders.items():
        spec = table_spec(mt, "model.encoder.embed_positions.weight", cfg)
        t = b(256, 64)
        v = identify(np.asarray(t.detach() if hasattr(t, "detach") else t, np.float64)).variant
        assert v is not None, mt
        assert (v.family, v.layout, int(v.base)) == (spec.family, spec.layout, spec.base), mt


# ----------------------------------------------------------------------------- rope configs
#: rope_type -> (rope_parameters, a falsifier: parameters under which the stored buffer is wrong;
#: a dynamic scaling and LongRoPE's long factors act only past the original length, so the
#: buffer transformers stores at init holds the base and the short factors)
ROPE_TYPES = {
    "linear": ({"rope_type": "linear", "factor": 4.0}, {"factor": 8.0}),
    "dynamic": ({"rope_type": "dynamic", "factor": 2.0}, {"rope_theta": 20000.0}),
    "yarn": ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
             {"factor": 8.0}),
    "llama3": ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                "high_freq_factor": 4.0, "original_max_position_embeddings": 2048},
               {"factor": 16.0}),
    "longrope": ({"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [1.5] * 32,
                  "original_max_position_embeddings": 2048}, {"short_factor": [2.0] * 32}),
}


@pytest.mark.parametrize("kind", list(ROPE_TYPES))
def test_inv_freq_of_every_rope_type_against_its_config(tmp_path, kind):
    """transformers' own initialisation of each rope_type, stored and scanned with the config
    save_pretrained writes; the same buffer under the falsifying parameters fails."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    def ckpt(folder, rp, inv):
        cfg = tr.LlamaConfig(**DEC, head_dim=64, max_position_embeddings=8192,
                             rope_parameters={"rope_theta": 10000.0, **rp})
        m = tr.LlamaForCausalLM(cfg)
        m.save_pretrained(folder)
        if inv is None:
            inv, _ = ROPE_INIT_FUNCTIONS[rp["rope_type"]](m.config, "cpu")
        _add(folder, {"model.rotary_emb.inv_freq": inv})
        return inv

    tr.logging.set_verbosity_error()
    rp, falsifier = ROPE_TYPES[kind]
    inv = ckpt(tmp_path / "a", rp, None)
    rep = scan(str(tmp_path / "a"))
    assert rep.ok and [j.found.kind for j in rep.judged] == [INV_FREQ], rep.render()
    ckpt(tmp_path / "b", {**rp, **falsifier}, inv)
    assert not scan(str(tmp_path / "b")).ok
