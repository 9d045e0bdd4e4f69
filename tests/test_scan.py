"""``peproof scan`` on checkpoints written here (no PyTorch): buffers found by name and by
content among weights, judged against a config, sharded folders, ``.npz``, hostile files, the
JSON envelope, and that a weight matrix is read from a sample of its rows only.

The models' own checkpoints (transformers' ``save_pretrained``) are in
``tests/test_scan_models.py``."""

import json
import struct

import numpy as np
import pytest

from peproof.cli import main
from peproof.scan import scan
from peproof.scan.container import Tensor
from peproof.scan.detect import CACHE, INV_FREQ, LEARNED, TABLE, detect

RNG = np.random.default_rng(7)


def write_st(path, tensors: dict, header_extra=None):
    """A safetensors file written by hand (float arrays; bfloat16 given as ml_dtypes)."""
    codes = {"float16": "F16", "float32": "F32", "float64": "F64", "bfloat16": "BF16",
             "int64": "I64"}
    head, blobs, off = {}, [], 0
    for name, a in tensors.items():
        a = np.ascontiguousarray(a)
        b = a.tobytes()
        head[name] = {"dtype": codes[a.dtype.name], "shape": list(a.shape),
                      "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    head.update(header_extra or {})
    h = json.dumps(head).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    return path


def table(n, d, family="paper", layout="sin_cos", base=10000.0, pos=None, dtype=np.float32):
    """Written from the formula (NumPy, float64), independent of the oracle."""
    h = d // 2
    ex = np.arange(h) / (h - 1) if family == "h-1" else 2 * np.arange(h) / d
    p = np.arange(n, dtype=np.float64) if pos is None else pos
    ang = p[:, None] * base ** -ex
    s, c = np.sin(ang), np.cos(ang)
    if layout == "interleaved":
        out = np.empty((n, d))
        out[:, 0::2], out[:, 1::2] = s, c
    else:
        out = np.concatenate([s, c] if layout == "sin_cos" else [c, s], axis=1)
    return out.astype(dtype)


def inv_freq(d, base=10000.0):
    return (1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)).astype(np.float32)


def cache(n, d, base=10000.0):
    ang = np.arange(n, dtype=np.float64)[:, None] * inv_freq(d, base)[None, :].astype(np.float64)
    ang = np.concatenate([ang, ang], axis=1)
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def weights():
    return {"layers.0.q.weight": (RNG.standard_normal((64, 64)) * 0.02).astype(np.float32),
            "layers.0.q.bias": (RNG.standard_normal(64) * 0.02).astype(np.float32),
            "layers.0.norm.weight": np.ones(64, np.float32),
            "layers.0.mlp.weight": RNG.uniform(-0.1, 0.1, (128, 64)).astype(np.float32),
            "embed_tokens.weight": (RNG.standard_normal((100, 64)) * 0.02).astype(np.float32),
            "position_ids": np.arange(64, dtype=np.int64)[None]}


def block(out: str, name: str) -> str:
    """The lines a scan prints for the buffer ``name`` (its line and the indented ones)."""
    lines = out.splitlines()
    k = next(i for i, ln in enumerate(lines) if ln[5:].startswith(name + ":"))
    end = next((i for i in range(k + 1, len(lines)) if not lines[i].startswith("  ")),
               len(lines))
    return "\n".join(lines[k:end])


def run(capsys, *args):
    rc = main([*map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# ----------------------------------------------------------------------------- content
def test_buffers_found_by_content_under_any_name(tmp_path):
    c, s = cache(96, 16)
    ts = {**weights(), "blob.a": table(128, 64), "blob.b": inv_freq(16), "x.c": c, "x.d": s,
          "model.pos_embed": (RNG.standard_normal((64, 64)) * 0.02).astype(np.float32)}
    rep = scan(str(write_st(tmp_path / "m.safetensors", ts)))
    kinds = {tuple(j.found.names): j.found.kind for j in rep.judged}
    assert kinds == {("blob.a",): TABLE, ("blob.b",): INV_FREQ, ("x.c", "x.d"): CACHE,
                     ("model.pos_embed",): LEARNED}
    assert rep.ok and rep.exit_code == 0
    assert rep.skipped == len(weights())  # the weights, the norm, the bias, the position ids
    by = {j.found.names[0]: j for j in rep.judged}
    assert by["blob.a"].identified.startswith("paper family, base 10000, [sin|cos]")
    assert by["model.pos_embed"].ok is None  # learned: not judged


def test_a_cache_scaled_by_an_attention_factor_is_found(tmp_path):
    """YaRN's and LongRoPE's caches hold ``a cos``, ``a sin`` with the attention factor ``a``
    (``0.1 ln s + 1`` = 1.139 at s = 4): found under transformers' names and by content alone
    (before, only caches bounded by 1 were candidates: these were skipped)."""
    c, s = cache(96, 16)
    a = np.float32(0.1 * np.log(4.0) + 1)
    for names in (("rotary_emb.cos_cached", "rotary_emb.sin_cached"), ("buf.u", "buf.v")):
        p = write_st(tmp_path / f"{names[1]}.safetensors",
                     {**weights(), names[0]: c * a, names[1]: s * a})
        rep = scan(str(p))
        assert [(tuple(j.found.names), j.found.kind) for j in rep.judged] == [(names, CACHE)]
        assert rep.ok and "positions" not in rep.judged[0].headline, rep.render()
    # a weight matrix with a constant first row is still no cache half
    w = (RNG.standard_normal((96, 16)) * 0.5).astype(np.float32)
    w[0] = 1.0
    assert detect(scan(str(write_st(tmp_path / "w.safetensors", {**weights(), "x": w,
                                                                  "y": s}))).checkpoint
                  .tensors).found == []


def test_lookalikes_are_not_called_wrong(tmp_path, capsys):
    n = 64
    had = np.array([[1.0]])
    while had.shape[0] < n:
        had = np.block([[had, had], [had, -had]])
    theta = RNG.uniform(0, 2 * np.pi, (n, 32))  # cos/sin pairs of random angles
    rot = np.empty((n, 64))
    rot[:, 0::2], rot[:, 1::2] = np.sin(theta), np.cos(theta)
    ts = {**weights(), "quant.hadamard": (had / 8).astype(np.float32),
          "quant.signs": np.sign(RNG.standard_normal((n, 64))).astype(np.float32),
          "attn.alibi_slopes": (2.0 ** -np.arange(1, 9)).astype(np.float32),
          "features.rotations": rot.astype(np.float32), "rope.cos_cached": cache(64, 16)[0]}
    rc, out, _ = run(capsys, "scan", write_st(tmp_path / "m.safetensors", ts))
    assert "--   rope.cos_cached: named like a positional buffer, not one (a cos half " \
        "without its partner of one shape)" in out
    assert rc == 0 and "hadamard" not in out and "signs" not in out and "alibi" not in out
    assert block(out, "features.rotations").startswith("--   features.rotations: sinusoidal "
                                                       "table (64, 64) float32: not a positional")
    # the same values under a positional name: a broken table, and a failure
    p = write_st(tmp_path / "n.safetensors", {**weights(), "pe": rot.astype(np.float32)})
    rc, out, _ = run(capsys, "scan", p)
    assert rc == 1 and block(out, "pe").startswith("FAIL pe") and "outside the model" in out


def test_no_config_names_a_self_consistent_variant(tmp_path, capsys):
    t = table(200, 32, family="h-1", pos=np.arange(2, 202, dtype=np.float64))
    p = write_st(tmp_path / "m.safetensors", {**weights(), "enc.embed_positions.weight": t})
    rc, out, _ = run(capsys, "scan", p)
    assert rc == 0, out
    assert "ok   enc.embed_positions.weight" in out and "h-1 family" in out and "offset 2" in out


def test_a_weight_matrix_is_read_from_a_sample_of_rows():
    class Proxy:  # rows on demand; reading the whole array is an error
        def __init__(self, a, log):
            self.a, self.log, self.shape, self.dtype = a, log, a.shape, a.dtype

        def reshape(self, *shape):
            return Proxy(self.a.reshape(*shape), self.log)

        def __getitem__(self, idx):
            out = self.a[idx]
            self.log.append(out.size)
            return out

        def __array__(self, *a, **k):
            raise AssertionError("the whole tensor was read")

    big = (RNG.standard_normal((4096, 256)) * 0.02).astype(np.float32)
    log: list = []
    t = Tensor("layers.0.w", big.shape, "float32", "-", lambda: Proxy(big, log))
    det = detect([t])
    assert det.found == [] and det.skipped == 1
    assert 0 < sum(log) <= 8 * 256  # eight rows of 4096


def test_a_torchtune_cache_is_judged_and_a_swapped_one_named(tmp_path, capsys):
    """torchtune's (S, d/2, 2) [cos, sin] cache (once refused by the oracle: the scan marked it
    'not checked') is read, judged and named by its layout; the same with cos and sin exchanged
    is called swapped.  (The real 'not checked' path: tests/test_scan_layouts.py.)"""
    c, s = cache(4096, 16)
    for label, tt, ok in (("good", np.stack([c[:, :8], s[:, :8]], axis=-1), True),
                          ("swapped", np.stack([s[:, :8], c[:, :8]], axis=-1), False)):
        p = write_st(tmp_path / f"{label}.safetensors", {**weights(), "rope.cache": tt})
        rc, out, _ = run(capsys, "scan", p)
        line = block(out, "rope.cache")
        assert (rc == 0) == ok and "cos/sin cache (4096, 8, 2) float32 as torchtune cache" in line
        assert ok or ("FAIL" in line and "cos and sin swapped" in line), out


# ----------------------------------------------------------------------------- configs
def _model(tmp_path, cfg, ts):
    d = tmp_path / "model"
    d.mkdir(parents=True)
    write_st(d / "model.safetensors", {**weights(), **ts})
    (d / "config.json").write_text(json.dumps(cfg))
    return d


MARIAN = {"model_type": "marian", "d_model": 32, "max_position_embeddings": 300}


def test_marian_config_expects_sin_cos_and_names_swapped_halves(tmp_path, capsys):
    good = table(300, 32)
    d = _model(tmp_path, MARIAN, {"encoder.embed_positions.weight": good,
                                  "decoder.embed_positions.weight": table(300, 32, "paper",
                                                                          "cos_sin")})
    rc, out, _ = run(capsys, "scan", d)
    assert rc == 1
    assert block(out, "encoder.embed_positions.weight").startswith("ok ")
    dec = block(out, "decoder.embed_positions.weight")
    assert dec.startswith("FAIL") and "[cos|sin]" in dec and "swapped" in dec
    rc, out, _ = run(capsys, "scan", d, "--no-config")  # without the config: a variant, named
    assert rc == 0 and "[cos|sin] layout" in out


def test_a_table_scaled_like_the_token_embeddings(tmp_path, capsys):
    cfg = {**MARIAN, "scale_embedding": True}
    scaled = (table(300, 32, dtype=np.float64) * np.sqrt(32)).astype(np.float32)
    d = _model(tmp_path, cfg, {"encoder.embed_positions.weight": scaled})
    rc, out, _ = run(capsys, "scan", d)
    enc = block(out, "encoder.embed_positions.weight")
    assert rc == 1 and enc.startswith("FAIL") and "scale sqrt(d)" in enc
    assert "scale_embedding scales the token embeddings, not this table" in enc


def test_float16_positions_and_a_wrong_base_are_named(tmp_path, capsys):
    p16 = np.arange(4096).astype(np.float16).astype(np.float64)
    d = _model(tmp_path, {**MARIAN, "max_position_embeddings": 4096},
               {"encoder.embed_positions.weight": table(4096, 32, pos=p16),
                "decoder.embed_positions.weight": table(4096, 32, base=1000.0)})
    rc, out, _ = run(capsys, "scan", d)
    assert rc == 1
    enc = block(out, "encoder.embed_positions.weight")
    assert enc.startswith("FAIL") and "positions were rounded to float16" in enc
    dec = block(out, "decoder.embed_positions.weight")
    assert dec.startswith("FAIL") and "base 1000," in dec


def test_a_config_that_contradicts_the_buffer(tmp_path, capsys):
    d = _model(tmp_path, {**MARIAN, "d_model": 64}, {"encoder.embed_positions.weight":
                                                     table(300, 32)})
    rc, out, _ = run(capsys, "scan", d)
    assert rc == 1 and "contradicts the config: 32 channels; the config implies 64" in out
    rope = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "rope_theta": 10000.0, "max_position_embeddings": 128}
    ok = {"model.layers.0.self_attn.rotary_emb.inv_freq": inv_freq(16)}
    assert scan(str(_model(tmp_path / "a", rope, ok))).ok
    rc, out, _ = run(capsys, "scan", _model(tmp_path / "b", {**rope, "num_attention_heads": 2},
                                            ok))
    assert rc == 1 and "8 frequencies; the config's head_dim 32 implies 16" in out
    rc, out, _ = run(capsys, "scan", _model(tmp_path / "c", {**rope, "rope_theta": 500000.0},
                                            ok))
    assert rc == 1 and "different variant" in out and "500000" in out


def test_an_architecture_table_applies_to_its_positional_name_only(tmp_path):
    ts = {"encoder.embed_positions.weight": table(300, 32),
          "decoder.time_embedding.table": table(300, 32, "paper", "interleaved")}
    rep = scan(str(_model(tmp_path, MARIAN, ts)))
    assert rep.ok and len(rep.buffers) == 2  # the other table: judged on its own, named
    by = {j.found.names[0]: j for j in rep.judged}
    assert "interleaved layout" in by["decoder.time_embedding.table"].identified
    assert "Marian" in by["encoder.embed_positions.weight"].expected


def test_a_multi_part_config_and_a_buffer_of_another_part(tmp_path):
    cfg = {"model_type": "llava_like",
           "vision_config": {"hidden_size": 32, "num_attention_heads": 2},
           "text_config": {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                           "rope_theta": 10000.0}}
    ts = {"language_model.rotary_emb.inv_freq": inv_freq(16),
          "vision_tower.rotary_emb.inv_freq": inv_freq(8)}  # head 16 of the vision part
    rep = scan(str(_model(tmp_path, cfg, ts)))
    assert rep.ok, rep.render()
    by = {j.found.names[0]: j for j in rep.judged}
    assert "rope_theta 10000" in by["language_model.rotary_emb.inv_freq"].expected
    assert "judged on its own" in " ".join(by["vision_tower.rotary_emb.inv_freq"].scan_notes)
    one = dict(cfg["text_config"])  # the same buffers under a one-part config
    rep = scan(str(_model(tmp_path / "one", one, ts)))
    assert [j.verdict for j in rep.failing] == ["contradicts the config"]


def test_rope_parameters_per_attention_type(tmp_path):
    cfg = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4,
           "head_dim": 16, "max_position_embeddings": 128,
           "rope_parameters": {"full_attention": {"rope_type": "default",
                                                  "rope_theta": 1000000.0},
                               "sliding_attention": {"rope_type": "default",
                                                     "rope_theta": 10000.0}}}
    rep = scan(str(_model(tmp_path, cfg, {"rotary_emb_local.inv_freq": inv_freq(16),
                                          "rotary_emb.inv_freq": inv_freq(16, 1e6)})))
    assert rep.ok and len(rep.buffers) == 2
    rep = scan(str(_model(tmp_path / "x", cfg, {"rotary_emb.inv_freq": inv_freq(16, 5e5)})))
    assert not rep.ok and "none fits" in " ".join(rep.judged[0].scan_notes)


# ----------------------------------------------------------------------------- containers
def test_sharded_folder_and_its_index(tmp_path, capsys):
    d = tmp_path / "sharded"
    d.mkdir()
    a = {**weights(), "encoder.embed_positions.weight": table(300, 32)}
    b = {"decoder.embed_positions.weight": table(300, 32, base=1000.0),
         "lm_head.weight": (RNG.standard_normal((50, 32)) * 0.02).astype(np.float32)}
    write_st(d / "model-00001-of-00002.safetensors", a)
    write_st(d / "model-00002-of-00002.safetensors", b)
    wm = {**{k: "model-00001-of-00002.safetensors" for k in a},
          **{k: "model-00002-of-00002.safetensors" for k in b}}
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": wm}))
    (d / "config.json").write_text(json.dumps(MARIAN))
    rep = scan(str(d))
    assert len(rep.checkpoint.files) == 2 and len(rep.checkpoint.tensors) == len(wm)
    verdicts = {j.found.names[0]: j.ok for j in rep.judged}
    assert verdicts == {"encoder.embed_positions.weight": True,
                        "decoder.embed_positions.weight": False}
    rc, _, _ = run(capsys, "scan", d / "model.safetensors.index.json")  # the index itself
    assert rc == 1
    for bad, why in ((dict(wm, extra="model-00003-of-00002.safetensors"), "missing"),
                     (dict(wm, **{"lm_head.weight": "../x.safetensors"}), "not a file name"),
                     (dict(wm, **{"lm_head.weight": "model-00001-of-00002.safetensors"}),
                      "mapped to"), ({}, "weight_map")):
        (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": bad}))
        rc, out, err = run(capsys, "scan", d)
        assert rc == 2 and out == "" and why in err and len(err.strip().splitlines()) == 1


def test_npz_checkpoint(tmp_path, capsys):
    p = tmp_path / "m.npz"
    np.savez(p, **{k: v for k, v in weights().items()}, pe=table(100, 16, "paper",
                                                                  "interleaved"))
    rc, out, _ = run(capsys, "scan", p)
    assert rc == 0 and "ok   pe: sinusoidal table (100, 16)" in out


def test_bfloat16_and_float16_buffers(tmp_path):
    import ml_dtypes

    ts = {"enc.embed_positions.weight": table(512, 64).astype(ml_dtypes.bfloat16),
          "rotary_emb.inv_freq": inv_freq(32).astype(np.float16)}
    rep = scan(str(write_st(tmp_path / "m.safetensors", {**weights(), **ts})))
    assert {j.found.dtype for j in rep.judged} == {"bfloat16", "float16"} and rep.ok


# ----------------------------------------------------------------------------- hostile input
def _hostile(tmp_path):
    ok = write_st(tmp_path / "ok.safetensors", {"a": table(10, 4)})
    raw = ok.read_bytes()
    (tmp_path / "random.safetensors").write_bytes(RNG.bytes(4096))
    (tmp_path / "empty.safetensors").write_bytes(b"")
    (tmp_path / "truncated.safetensors").write_bytes(raw[:-20])
    (tmp_path / "header.safetensors").write_bytes(struct.pack("<Q", 10**12) + raw[8:])
    (tmp_path / "notjson.safetensors").write_bytes(struct.pack("<Q", 4) + b"{{{{" + raw[8:])
    write_st(tmp_path / "offsets.safetensors", {"a": table(10, 4)},
             {"b": {"dtype": "F32", "shape": [4], "data_offsets": [0, 4]}})
    write_st(tmp_path / "negative.safetensors", {"a": table(10, 4)},
             {"b": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})
    (tmp_path / "x.pkl").write_bytes(b"\x80\x04K\x01.")
    (tmp_path / "garbage.pt").write_bytes(RNG.bytes(300))
    (tmp_path / "legacy.bin").write_bytes(b"\x80\x02" + RNG.bytes(300))
    (tmp_path / "model.txt").write_text("1 2 3\n")
    np.save(tmp_path / "objects.npy", np.array([1, 2]))  # the npz below holds a pickle
    with open(tmp_path / "objects.npz", "wb") as fh:
        np.savez(fh, a=np.array([{"x": 1}], dtype=object))
    (tmp_path / "nothing").mkdir()
    cfgdir = tmp_path / "badcfg"
    cfgdir.mkdir()
    write_st(cfgdir / "model.safetensors", {"a": table(10, 4)})
    (cfgdir / "config.json").write_text("[1, 2]")


@pytest.mark.parametrize("name, words", [
    ("random.safetensors", "not a safetensors file"),
    ("empty.safetensors", "empty"),
    ("truncated.safetensors", "truncated"),
    ("header.safetensors", "header length"),
    ("notjson.safetensors", "not JSON"),
    ("offsets.safetensors", "do not match"),
    ("negative.safetensors", "corrupt safetensors entry"),
    ("x.pkl", "pickle files are refused"),
    ("garbage.pt", "not a torch file"),
    ("legacy.bin", "legacy"),
    ("model.txt", "unknown checkpoint type"),
    ("objects.npz", "pickle"),
    ("nothing", "holds no checkpoint"),
    ("missing.safetensors", "no such file"),
    ("badcfg", "config is a JSON list"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, name, words):
    _hostile(tmp_path)
    rc, out, err = run(capsys, "scan", tmp_path / name)
    assert rc == 2 and out == ""
    assert err.startswith("peproof: error: ") and len(err.strip().splitlines()) == 1
    assert words in err and "Traceback" not in err


def test_judging_estimated_too_long_is_refused_up_front(tmp_path, capsys, monkeypatch):
    import peproof.guard.limits as L

    p = write_st(tmp_path / "m.safetensors", {**weights(), "pe": table(4000, 64)})
    monkeypatch.setitem(L.RATES, "check_entry", 100.0)  # 256000 entries: 43 minutes
    rc, out, err = run(capsys, "scan", p)
    assert rc == 2 and out == "" and "judging the positional buffers" in err
    assert "--allow-large" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setitem(L.RATES, "check_entry", 1.5e6)
    assert run(capsys, "scan", p)[0] == 0


def test_config_flags(tmp_path, capsys):
    p = write_st(tmp_path / "m.safetensors", {"pe": table(50, 8)})
    rc, _, err = run(capsys, "scan", p, "--config", tmp_path / "nope.json")
    assert rc == 2 and "no such file" in err
    rc, _, err = run(capsys, "scan", p, "--config", tmp_path, "--no-config")
    assert rc == 2 and "exclude" in err


# ----------------------------------------------------------------------------- JSON
def test_json_envelope(tmp_path, capsys):
    d = _model(tmp_path, MARIAN, {"encoder.embed_positions.weight": table(300, 32),
                                  "decoder.embed_positions.weight": table(300, 32, "h-1")})
    rc, out, _ = run(capsys, "scan", d, "--json", "--out", tmp_path / "r.json")
    env = json.loads(out)
    assert rc == 1 and env["schema"] == "peproof.scan/1"
    assert env["verdict"] == {"text": "1 of 2 positional buffer(s) fail", "ok": False,
                              "exit_code": 1}
    assert env["input"]["model_type"] == "marian" and env["input"]["tensors"] == 8
    assert env["summary"]["positional_buffers"] == 2 and env["summary"]["failing"] == 1
    codes = {b["names"][0]: b["verdict"]["code"] for b in env["buffers"]}
    assert codes == {"encoder.embed_positions.weight": "conforms",
                     "decoder.embed_positions.weight": "variant"}
    assert all(b["oracle"]["schema"] == "peproof.check/1" for b in env["buffers"])
    assert json.loads((tmp_path / "r.json").read_text())["summary"] == env["summary"]


# ----------------------------------------------------------------------------- a real process
def test_a_real_process_maps_what_it_reads_only(tmp_path, hostile):
    """``peproof scan`` as a process under the hostile harness (3 GiB address space) on 256 MiB
    of weight matrices and a table, against the same table alone: the matrices add less to its
    peak resident memory than a quarter of one of them (reading them would add 256 MiB)."""
    tab = {"enc.embed_positions.weight": table(1024, 64)}
    block = (RNG.standard_normal((4096, 4096)) * 0.02).astype(np.float32)
    runs = {}
    for label, ts in (("alone", tab), ("big", {**{f"layers.{k}.weight": block
                                                  for k in range(4)}, **tab})):
        root = tmp_path / label
        (root / "work").mkdir(parents=True)
        write_st(root / "work" / "model.safetensors", ts)
        r = hostile.run(["scan", "model.safetensors"], root, timeout=120)
        assert r.rc == 0 and "ok   enc.embed_positions.weight" in r.out and not r.stray, r.err
        runs[label] = r
    assert "4 other tensors skipped" in runs["big"].out
    grew = runs["big"].max_rss - runs["alone"].max_rss
    assert grew < 16 * 2**20, (grew, runs["alone"].max_rss)
