"""``peproof scan`` on llama.cpp GGUF files written here with the ``gguf`` package's writer:
Llama 3's ``rope_freqs`` (the llama3 factors, computed here as llama.cpp's converter computes
them), Phi-3's LongRoPE factor tensors and attention factor, the RoPE metadata against a
config.json, learned and sinusoidal tables stored as tensors; then broken copies, and hostile
files in a child process with a bounded address space."""

import json
import math
import struct

import numpy as np
import pytest

from peproof.cli import main
from peproof.scan import scan

from .test_scan import RNG, table

gguf = pytest.importorskip("gguf")


def llama3_factors(dim, base, factor=8.0, lo=1.0, hi=4.0, old=8192):
    """What llama.cpp's convert_hf_to_gguf stores as rope_freqs for rope_type llama3 (written
    here from its description: 1 above the high-frequency wavelength, ``factor`` below the low
    one, the smooth blend between)."""
    freqs = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float32) / dim))
    out = []
    for f in freqs:
        wl = 2 * math.pi / f
        if wl < old / hi:
            out.append(1.0)
        elif wl > old / lo:
            out.append(factor)
        else:
            sm = (old / wl - lo) / (hi - lo)
            out.append(1 / ((1 - sm) / factor + sm))
    return np.array(out, np.float32)


def write_gguf(path, arch="llama", meta=None, tensors=None, n_rot=64, base=500000.0,
               ctx=131072):
    w = gguf.GGUFWriter(str(path), arch)
    w.add_context_length(ctx)
    w.add_embedding_length(256)
    w.add_head_count(4)
    if n_rot is not None:
        w.add_rope_dimension_count(n_rot)
    if base is not None:
        w.add_rope_freq_base(base)
    for k, v in (meta or {}).items():
        k = k.format(arch=arch)
        if isinstance(v, str):
            w.add_string(k, v)
        elif isinstance(v, float):
            w.add_float32(k, v)
        elif isinstance(v, int):
            w.add_uint32(k, v)
        else:
            w.add_array(k, v)
    w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(64)])
    ts = {"token_embd.weight": (RNG.standard_normal((64, 256)) * 0.02).astype(np.float32),
          "blk.0.attn_q.weight": (RNG.standard_normal((256, 256)) * 0.02).astype(np.float32),
          **(tensors or {})}
    for name, a in ts.items():
        w.add_tensor(name, a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def verdicts(rep):
    return {j.found.names[0]: j.code for j in rep.judged}


def run(capsys, *args):
    rc = main([*map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# ----------------------------------------------------------------------------- Llama 3
def test_llama3_rope_freqs_pass_at_the_metadata_base(tmp_path):
    p = write_gguf(tmp_path / "m.gguf", tensors={"rope_freqs.weight":
                                                 llama3_factors(64, 500000.0)})
    rep = scan(str(p))
    assert rep.checkpoint.format == "gguf"
    assert verdicts(rep) == {"GGUF rope metadata": "conforms",
                             "rope_freqs.weight": "within_model"}, rep.render()
    j = next(j for j in rep.judged if j.found.names == ["rope_freqs.weight"])
    assert "llama3(factor=8" in j.identified and "original_max_position_embeddings=8192" in \
        j.identified and "freq_base 500000" in j.expected


def test_reading_agrees_with_gguf_reader(tmp_path):
    """The scan's own reading of a file (header walk, memory maps) against the gguf package's
    GGUFReader: the same tensors, shapes and values, and the same metadata scalars."""
    from peproof.scan.gguf import read_gguf

    p = write_gguf(tmp_path / "m.gguf", meta={"{arch}.rope.scaling.factor": 8.0}, tensors={
        "rope_freqs.weight": llama3_factors(64, 500000.0),
        "half.weight": RNG.standard_normal((3, 5)).astype(np.float16)})
    ours, meta = read_gguf(p)
    r = gguf.GGUFReader(str(p))
    assert [t.name for t in ours] == [t.name for t in r.tensors]
    for a, b in zip(ours, r.tensors, strict=True):
        assert a.shape == tuple(reversed(b.shape.tolist()))
        assert np.array_equal(a.array(), b.data.reshape(a.shape))
    for key in ("llama.rope.freq_base", "llama.context_length", "llama.rope.scaling.factor"):
        assert meta[key] == r.fields[key].parts[-1][0].item()
    assert meta["general.architecture"] == "llama"
    assert meta["tokenizer.ggml.tokens"] == "<64 strings>"


@pytest.mark.parametrize("why, factors, meta", [
    # the converter read another rope_theta than the one written in the metadata
    ("base", llama3_factors(64, 10000.0), {}),
    # one factor damaged
    ("damaged", np.where(np.arange(32) == 20, 3.0, llama3_factors(64, 500000.0)), {}),
    # factors that turn freq_base 500000 into base 10000 (a clean default RoPE, not this one)
    ("rebased", (10000.0 / 500000.0) ** (np.arange(32) / 32), {}),
    # factors of original context 4096 where the metadata states 8192
    ("stated", llama3_factors(64, 500000.0, old=4096),
     {"{arch}.rope.scaling.original_context_length": 8192}),
])
def test_llama3_rope_freqs_broken(tmp_path, why, factors, meta):
    p = write_gguf(tmp_path / "m.gguf", meta=meta,
                   tensors={"rope_freqs.weight": factors.astype(np.float32)})
    rep = scan(str(p))
    j = next(j for j in rep.judged if j.found.names == ["rope_freqs.weight"])
    assert j.ok is False and rep.exit_code == 1, (why, j.headline)


def test_llama3_rope_freqs_against_a_config(tmp_path):
    cfg = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
           "max_position_embeddings": 131072, "rope_theta": 500000.0,
           "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    good = write_gguf(tmp_path / "good.gguf", n_rot=64, tensors={
        "rope_freqs.weight": llama3_factors(64, 500000.0)})
    assert scan(str(good)).ok
    bad = write_gguf(tmp_path / "bad.gguf", tensors={
        "rope_freqs.weight": llama3_factors(64, 500000.0, factor=32.0)})
    rep = scan(str(bad))
    assert verdicts(rep)["rope_freqs.weight"] != "within_model" and not rep.ok
    # the metadata itself against the config: another freq_base
    other = write_gguf(tmp_path / "other.gguf", base=10000.0, tensors={
        "rope_freqs.weight": llama3_factors(64, 10000.0)})
    rep = scan(str(other))
    meta = next(j for j in rep.judged if j.found.names == ["GGUF rope metadata"])
    assert meta.code == "contradicts_config" and "freq_base 10000" in meta.headline
    assert "rope_theta is 500000" in meta.headline


def test_metadata_scaling_read_and_unknown_keys_named(tmp_path):
    p = write_gguf(tmp_path / "m.gguf", meta={"{arch}.rope.scaling.type": "linear",
                                              "{arch}.rope.scaling.factor": 4.0,
                                              "{arch}.rope.dimension_sections": [16, 24, 24, 0]})
    rep = scan(str(p))
    meta = next(j for j in rep.judged if j.found.names == ["GGUF rope metadata"])
    assert meta.ok and "rope_type linear" in meta.headline and "factor 4" in meta.headline
    assert any("llama.rope.dimension_sections not read" in n for n in rep.notes)
    bad = write_gguf(tmp_path / "bad.gguf", meta={"{arch}.rope.scaling.type": "yarn",
                                                  "{arch}.rope.scaling.factor": -2.0,
                                                  "{arch}.rope.scaling.original_context_length":
                                                      4096})
    meta = next(j for j in scan(str(bad)).judged if j.found.names == ["GGUF rope metadata"])
    assert meta.ok is False


# ----------------------------------------------------------------------------- Phi-3
def phi3(tmp_path, name="m.gguf", attn=None, long_=None, short=None, n=48):
    rng = np.random.default_rng(3)
    long_ = np.sort(rng.uniform(1, 30, n // 2)).astype(np.float32) if long_ is None else long_
    short = np.sort(rng.uniform(1, 2, n // 2)).astype(np.float32) if short is None else short
    s = 131072 / 4096
    attn = math.sqrt(1 + math.log(s) / math.log(4096)) if attn is None else attn
    p = write_gguf(tmp_path / name, arch="phi3", n_rot=n, base=10000.0, meta={
        "{arch}.rope.scaling.attn_factor": attn,
        "{arch}.rope.scaling.original_context_length": 4096},
        tensors={"rope_factors_long.weight": long_, "rope_factors_short.weight": short})
    return p, long_, short


def test_phi3_longrope_factors(tmp_path):
    p, long_, short = phi3(tmp_path)
    rep = scan(str(p))
    assert rep.ok and set(verdicts(rep)) == {"GGUF rope metadata", "rope_factors_long.weight",
                                             "rope_factors_short.weight"}, rep.render()
    # against a config: long and short swapped by a converter
    cfg = {"model_type": "phi3", "hidden_size": 256, "num_attention_heads": 4,
           "partial_rotary_factor": 48 / 64, "max_position_embeddings": 131072,
           "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
           "rope_scaling": {"type": "longrope", "long_factor": long_.tolist(),
                            "short_factor": short.tolist()}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert scan(str(p)).ok
    sw, _, _ = phi3(tmp_path, "swapped.gguf", long_=short, short=long_)
    rep = scan(str(sw))
    v = verdicts(rep)
    assert v["rope_factors_long.weight"] not in ("conforms", "within_model")
    assert v["rope_factors_short.weight"] not in ("conforms", "within_model")


def test_phi3_attention_factor_and_count(tmp_path):
    p, _, _ = phi3(tmp_path, attn=1.0)
    meta = next(j for j in scan(str(p)).judged if j.found.names == ["GGUF rope metadata"])
    assert meta.code == "contradicts_config" and "attn_factor 1 " in meta.headline
    q, _, _ = phi3(tmp_path, "short.gguf", long_=np.ones(20, np.float32))
    j = next(j for j in scan(str(q)).judged if j.found.names == ["rope_factors_long.weight"])
    assert j.code == "contradicts_config" and "20 factors" in j.headline


# ----------------------------------------------------------------------------- tables
def test_tables_stored_as_tensors(tmp_path):
    """GPT-2's learned ``position_embd`` is named learned; a sinusoidal table stored in a GGUF
    (a converter keeping a non-persistent buffer) is judged; a [cos|sin] copy of it fails
    against a config of Marian."""
    p = write_gguf(tmp_path / "m.gguf", arch="gpt2", n_rot=None, base=None, tensors={
        "position_embd.weight": (RNG.standard_normal((128, 256)) * 0.02).astype(np.float32),
        "enc.pe": table(128, 64), "dec.pe": table(128, 64)[:, ::-1].copy()})
    rep = scan(str(p))
    v = verdicts(rep)
    assert v["position_embd.weight"] == "learned" and v["enc.pe"] == "conforms"
    assert v["dec.pe"] not in ("conforms", "within_model") and not rep.ok
    assert "GGUF rope metadata" not in v


# ----------------------------------------------------------------------------- hostile
def raw_gguf(kvs=b"", infos=b"", data=b"", n_t=0, n_kv=0, version=3, magic=b"GGUF"):
    head = magic + struct.pack("<IQQ", version, n_t, n_kv) + kvs + infos
    pad = (-len(head)) % 32
    return head + b"\0" * pad + data


def s(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def info(name=b"t", dims=(4,), code=0, off=0):
    return s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) \
        + struct.pack("<IQ", code, off)


HOSTILE = {
    "wrong_magic": (lambda good: b"GGUX" + good[4:], "magic"),
    "truncated": (lambda good: good[: len(good) // 2], "the file has"),
    "tiny": (lambda good: good[:10], "shorter than a GGUF header"),
    "version1": (lambda good: raw_gguf(version=1) + b"\0" * 64, "version 1"),
    "tensor_count": (lambda good: good[:8] + struct.pack("<Q", 2**60) + good[16:],
                     "tensors and"),
    "kv_count": (lambda good: raw_gguf(n_kv=2**62) + b"\0" * 64, "metadata entries claimed"),
    "gigabyte_string": (lambda good: raw_gguf(
        s(b"general.name") + struct.pack("<IQ", 8, 2**33) + b"abc", n_kv=1),
        "past the end"),
    "string_array": (lambda good: raw_gguf(
        s(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2**40) + b"\0" * 64, n_kv=1),
        "an array of"),
    "numeric_array": (lambda good: raw_gguf(
        s(b"x.scores") + struct.pack("<IIQ", 9, 6, 2**58) + b"\0" * 64, n_kv=1),
        "past the end"),
    "offset": (lambda good: raw_gguf(infos=info(off=2**40), data=b"\0" * 16, n_t=1),
               "needs bytes"),
    "dims": (lambda good: raw_gguf(infos=info(dims=(2**31, 2**31, 2**31)), data=b"\0" * 16,
                                   n_t=1), "shape"),
    "ndims": (lambda good: raw_gguf(infos=s(b"t") + struct.pack("<I", 2**31), n_t=1),
              "dimensions"),
    "type": (lambda good: raw_gguf(infos=info(code=999), data=b"\0" * 16, n_t=1),
             "unknown type"),
    "key_length": (lambda good: raw_gguf(struct.pack("<Q", 2**40) + b"\0" * 64, n_kv=1),
                   "metadata key 0"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_gguf_is_one_line_exit_2(tmp_path, capsys, case):
    good = write_gguf(tmp_path / "good.gguf", tensors={
        "rope_freqs.weight": llama3_factors(64, 500000.0)}).read_bytes()
    make, words = HOSTILE[case]
    p = tmp_path / f"{case}.gguf"
    p.write_bytes(make(good))
    rc, out, err = run(capsys, "scan", p)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert words in err and "Traceback" not in err, err


@pytest.mark.timeout(600)
def test_hostile_gguf_memory_is_bounded(tmp_path, hostile):
    """In a child with a 3 GiB address space: the absurd counts and lengths are refused before
    anything is allocated from them (peak RSS under 400 MiB: PyTorch is not even imported)."""
    good = write_gguf(tmp_path / "good.gguf").read_bytes()
    for case in ("kv_count", "gigabyte_string", "string_array", "numeric_array", "dims",
                 "tensor_count"):
        root = tmp_path / case
        (root / "work").mkdir(parents=True)
        (root / "work" / "x.gguf").write_bytes(HOSTILE[case][0](good))
        r = hostile.run(["scan", "x.gguf"], root, timeout=120)
        assert r.rc == 2 and len(r.err.strip().splitlines()) == 1, (case, r.err[-500:])
        assert HOSTILE[case][1] in r.err and "not a readable GGUF file" in r.err, r.err
        assert r.max_rss < 400 * 2**20, (case, r.max_rss)
