"""``peproof scan`` on checkpoints holding the native rotary cache layouts of the major libraries
(issue 20), end to end: found, read in the library's layout, judged against the config and
named by that layout on the scan's line and in its JSON; a corrupted copy of each (halves
swapped, a wrong base, float16 positions) is named as the bug, with the config and without one.

Each cache is built the way its library's source builds it (torchtune and vLLM are not installed
here; their steps are followed, not their code copied; GPT-J's is transformers' own):

* torchtune ``RotaryPositionalEmbeddings``: ``theta = 1 / base ** (arange(0, d, 2)[: d // 2] / d)``
  (float32), the angles ``outer(arange(S), theta)``, ``cache = stack([cos, sin], -1)``:
  ``(S, d/2, 2)``, beside the ``theta`` buffer;
* Meta's (and torchtitan's) ``precompute_freqs_cis``: ``torch.polar(ones, angles)``, complex64
  ``(S, d/2)``; a converter's real view ``view_as_real(freqs_cis)``: ``(S, d/2, 2)``;
* vLLM's ``RotaryEmbedding._compute_cos_sin_cache``: ``cat((cos, sin), -1)`` of the float32
  angles: ``(S, rotary_dim)``, cast to the model's dtype;
* GPT-J's ``embed_positions``: transformers' ``create_sinusoidal_positions``, ``cat(sin, cos)``.
"""

import json

import pytest

from peproof.cli import main
from peproof.oracle.rotary import FREQS_CIS, GPTJ, TORCHTUNE, VLLM
from peproof.scan import scan
from peproof.scan.detect import CACHE, INV_FREQ

pytestmark = pytest.mark.peers
torch = pytest.importorskip("torch")
tr = pytest.importorskip("transformers")

N, HEAD = 4096, 16
LLAMA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
         "rope_theta": 10000.0, "max_position_embeddings": N}
GPTJ_CFG = {"model_type": "gptj", "n_embd": 64, "n_head": 4, "rotary_dim": HEAD,
            "n_positions": N}


def _theta(base=10000.0, d=HEAD):
    return 1.0 / (base ** (torch.arange(0, d, 2)[: d // 2].float() / d))


def _angles(base=10000.0, f16=False):
    t = torch.arange(N, dtype=torch.float32)
    if f16:  # the positions held in float16 (a converter's half-precision arange)
        t = t.half().float()
    return torch.outer(t, _theta(base)).float()


def torchtune(a, swap=False):
    parts = [a.cos(), a.sin()]
    return {"layers.0.attn.pos_embeddings.cache": torch.stack(parts[::-1] if swap else parts,
                                                               dim=-1),
            "layers.0.attn.pos_embeddings.theta": _theta()}


def meta(a, swap=False):
    z = torch.polar(torch.ones_like(a), a)
    return {"freqs_cis": torch.complex(z.imag, z.real) if swap else z}


def meta_real(a, swap=False):
    z = torch.view_as_real(meta(a)["freqs_cis"])
    return {"freqs_cis": z.flip(-1) if swap else z}


def vllm(a, swap=False):
    parts = [a.cos(), a.sin()]
    return {"model.layers.0.self_attn.rotary_emb.cos_sin_cache":
            torch.cat(parts[::-1] if swap else parts, dim=-1)}


def gptj(a, swap=False):
    if not swap and a is _angles_paper:
        from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions

        return {"transformer.rotary_emb.embed_positions": create_sinusoidal_positions(N, HEAD)}
    parts = [a.sin(), a.cos()]
    return {"transformer.rotary_emb.embed_positions": torch.cat(parts[::-1] if swap else parts,
                                                                dim=-1)}


_angles_paper = _angles()
LAYOUTS = {"torchtune": (torchtune, TORCHTUNE, LLAMA), "meta freqs_cis": (meta, FREQS_CIS, LLAMA),
           "meta view_as_real": (meta_real, TORCHTUNE, LLAMA), "vllm": (vllm, VLLM, LLAMA),
           "gpt-j": (gptj, GPTJ, GPTJ_CFG)}
BUGS = {"good": (lambda f: f(_angles_paper), None),
        "swapped halves": (lambda f: f(_angles_paper, swap=True), "cos and sin swapped"),
        "a wrong base": (lambda f: f(_angles(base=500000.0)), "base=500000"),
        "float16 positions": (lambda f: f(_angles(f16=True)), "positions held in float16")}


def _write(folder, tensors: dict, cfg, fmt: str):
    folder.mkdir(parents=True)
    g = torch.Generator().manual_seed(0)
    ts = {**{k: v.detach().contiguous() for k, v in tensors.items()},
          "layers.0.attn.q.weight": torch.randn(64, 64, generator=g) * 0.02}
    if fmt == "safetensors":
        from safetensors.torch import save_file

        save_file(ts, str(folder / "model.safetensors"))
    else:
        torch.save(ts, folder / "pytorch_model.bin")
    if cfg is not None:
        (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def _cache(rep):
    caches = [j for j in rep.judged if j.found.kind == CACHE]
    assert len(caches) == 1, rep.render()
    return caches[0]


@pytest.mark.parametrize("fmt", ["safetensors", "pt"])
@pytest.mark.parametrize("bug", list(BUGS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_native_layout_in_a_checkpoint(tmp_path, layout, bug, fmt, capsys):
    build, native, cfg = LAYOUTS[layout]
    make, words = BUGS[bug]
    d = _write(tmp_path / "m", make(build), cfg, fmt)
    rep = scan(str(d))
    j = _cache(rep)
    assert j.layout == native, rep.render()
    if layout == "torchtune":  # its theta buffer is an inv_freq, found by content
        assert [x.found.kind for x in rep.judged if x is not j] == [INV_FREQ]
    if words is None:
        assert rep.ok and j.ok, rep.render()
    else:
        assert not j.ok and words in " ".join([j.headline] + j.diagnoses), rep.render()
    rc = main(["scan", str(d), "--json"])
    env = json.loads(capsys.readouterr().out)
    assert rc == rep.exit_code
    [b] = [b for b in env["buffers"] if b["kind"] == CACHE]
    assert b["layout"] == native and b["oracle"]["native_layout"] == native


@pytest.mark.parametrize("bug", ["good", "swapped halves", "float16 positions"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_native_layout_without_a_config(tmp_path, layout, bug):
    """Without a config: the good cache passes and is named; a swapped one and one at float16
    positions are named as such (read again with cos and sin exchanged, or from the first rows
    that fit).  GPT-J's embed_positions without its config is a sinusoidal table (the same
    numbers): [sin|cos], and swapped a [cos|sin] table, a variant that passes when nothing says
    which was meant (MusicGen's); its float16 positions are named by the sinusoidal oracle."""
    build, native, _ = LAYOUTS[layout]
    make, words = BUGS[bug]
    rep = scan(str(_write(tmp_path / "m", make(build), None, "safetensors")))
    if layout == "gpt-j":
        [j] = rep.judged
        assert j.found.kind == "sinusoidal table" and j.layout == "", rep.render()
        if bug == "float16 positions":
            assert not j.ok and "float16" in " ".join([j.headline] + j.diagnoses)
        else:
            assert j.ok and ("[cos|sin]" if bug == "swapped halves" else "[sin|cos]") in \
                j.passes_as, rep.render()
        return
    j = _cache(rep)
    assert j.layout == native
    if words is None:
        assert rep.ok and j.ok, rep.render()
    else:
        assert not j.ok and words in " ".join([j.headline] + j.diagnoses), rep.render()


def test_the_line_names_the_layout(tmp_path, capsys):
    d = _write(tmp_path / "m", vllm(_angles_paper), LLAMA, "safetensors")
    rc = main(["scan", str(d)])
    out = capsys.readouterr().out
    assert rc == 0 and ("cos/sin cache (4096, 16) float32 as vLLM cos_sin_cache (S, d) "
                        "[cos | sin]: within the error model") in out, out


def test_gptj_from_save_pretrained_with_its_buffer(tmp_path):
    """transformers' GPT-J keeps embed_positions out of the checkpoint; added under its name as
    a converter stores it, it is the rotary cache of the config (rotary_dim 16 of a 16-wide
    head here), judged as such; a copy whose rotary_dim says 32 contradicts the config."""
    tr.logging.set_verbosity_error()
    m = tr.GPTJForCausalLM(tr.GPTJConfig(vocab_size=100, n_embd=64, n_layer=1, n_head=4,
                                         rotary_dim=HEAD, n_positions=N))
    m.save_pretrained(tmp_path / "gptj")
    from safetensors.torch import load_file, save_file

    f = tmp_path / "gptj" / "model.safetensors"
    sd = load_file(str(f))
    sd["transformer.rotary_emb.embed_positions"] = m.transformer.rotary_emb.embed_positions
    save_file(sd, str(f), metadata={"format": "pt"})
    rep = scan(str(tmp_path / "gptj"))
    j = _cache(rep)
    assert rep.ok and j.layout == GPTJ and "rotary_dim 16" not in j.headline, rep.render()
    cfg = json.loads((tmp_path / "gptj" / "config.json").read_text())
    (tmp_path / "gptj" / "config.json").write_text(json.dumps({**cfg, "rotary_dim": 32}))
    rep = scan(str(tmp_path / "gptj"))
    assert [j.verdict for j in rep.failing] == ["contradicts the config"], rep.render()
    assert "8 cache columns; the config's rotary_dim 32 implies 32" in rep.failing[0].headline


def test_a_buffer_the_oracle_cannot_read_is_not_checked(tmp_path, capsys):
    """GPT-J's config says embed_positions is its rotary cache; a tensor there of an odd width
    is no cache the oracle reads: not checked, with the oracle's reason, and a failure."""
    bad = torch.randn(N, 15) * 0.02
    d = _write(tmp_path / "m", {"transformer.rotary_emb.embed_positions": bad}, GPTJ_CFG,
               "safetensors")
    rc = main(["scan", str(d)])
    out = capsys.readouterr().out
    assert rc == 1 and "FAIL transformer.rotary_emb.embed_positions" in out
    assert "not checked: the oracle does not read it (an array of shape (4096, 15)" in out


def test_a_half_precision_complex_freqs_cis(tmp_path):
    """A complex32 ``freqs_cis`` in a ``.pt`` (NumPy has no complex32): read as its real view in
    float16, judged with float16's error model; at a wrong base it fails.  Before, the scan of the
    whole checkpoint ended in exit 2 ('a tensor of dtype torch.complex32')."""
    import warnings

    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    for base, ok in ((10000.0, True), (500000.0, False)):
        z = meta(_angles(base=base))["freqs_cis"].to(torch.complex32)
        rep = scan(str(_write(tmp_path / str(base), {"freqs_cis": z}, LLAMA, "pt")))
        j = _cache(rep)
        assert (j.found.dtype, j.layout, rep.ok) == ("float16", TORCHTUNE, ok), rep.render()
