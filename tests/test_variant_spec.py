"""``--variant SPEC``: the parser, its round trip, its one-line errors, and the one object shared
with the oracle (``check(variant=...)``, the hint of ``peproof check``)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from peproof.encoding import Encoding
from peproof.rope import Rope
from peproof.rope_scaling import Llama3
from peproof.scope import Rotary, Sinusoidal
from peproof.variant import VariantError, parse, spec

LLAMA3 = ("family=rope,base=500000,d=128,rope_type=llama3,factor=8,low_freq_factor=1,"
          "high_freq_factor=4,original_max_position_embeddings=8192")


def test_pairs_give_the_encoding_built_by_hand():
    assert parse("family=h-1,base=10000,d=384") == Sinusoidal(Encoding(384, family="h-1"))
    assert parse("family=paper,d=512,layout=sin_cos,offset=2,scale=sqrt(d)") == Sinusoidal(
        Encoding(512, layout="sin_cos", offset=2, scale=sp.sqrt(512)))
    assert parse("d=64,max_freq=1/2,turns=true") == Sinusoidal(
        Encoding(64, max_freq=Fraction(1, 2), turns=True))


def test_rope_spec_forms_agree():
    by_hand = Rotary(Rope(128, 500000, scaling=Llama3(8, 1, 4, 8192)))
    assert parse(LLAMA3) == by_hand
    js = json.dumps({"rope_type": "llama3", "rope_theta": 500000, "factor": 8.0,
                     "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "head_dim": 128})
    assert parse(js) == by_hand


def test_config_files(tmp_path):
    llama = tmp_path / "config.json"
    llama.write_text(json.dumps({
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "rope_theta": 500000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}))
    assert parse(str(llama)) == Rotary(Rope(128, 500000, scaling=Llama3(8, 1, 4, 8192)))
    whisper = tmp_path / "w" / "config.json"
    whisper.parent.mkdir()
    whisper.write_text(json.dumps({"model_type": "whisper", "d_model": 384,
                                   "max_source_positions": 1500}))
    assert parse(str(whisper)) == Sinusoidal(Encoding(384, family="h-1", layout="sin_cos"))


@pytest.mark.parametrize("text", [
    "family=h-1,base=10000,d=384",
    "family=paper,base=10000,d=512",
    "family=h-1,base=10000,d=384,layout=sin_cos",
    "family=paper,base=500000,d=64,layout=cos_sin,offset=3/2,scale=1/sqrt(d)",
    "family=nerf,d=20",
    "family=paper,d=16,max_freq=1/4,turns=true",
    LLAMA3,
    "family=rope,base=10000,d=64,layout=interleaved",
    "family=rope,base=10000,d=64,rope_type=linear,factor=4",
])
def test_spec_round_trip(text):
    v = parse(text)
    assert parse(spec(v)) == v


@pytest.mark.parametrize("text, names", [
    ("family=h-1,base=10000", "d is missing"),
    ("family=h2,d=64", "family must be one of"),
    ("family=h-1,d=385", "d must be an even integer"),
    ("family=h-1,d=2", "d must be an even integer >= 4"),
    ("family=paper,d=64,colour=red", "unknown key 'colour'"),
    ("family=paper,d=64,base=1", "base must be a number > 1"),
    ("family=paper,d=64,base=ten", "base must be"),
    ("family=paper,d=64,layout=diagonal", "layout must be one of"),
    ("family=paper,d=64,turns=maybe", "turns must be true or false"),
    ("family=paper,d=64,d=128", "given twice"),
    ("family=paper,d=64,scale=__import__('os')", "expected a number"),
    ("paper", "is not key=value"),
    ("{not json", "not valid JSON"),
    ('{"rope_type": "llama3", "rope_theta": 500000}', "head_dim"),
    ("family=rope,d=128,rope_type=llama3", "rope_type llama3 needs"),
    ("family=rope,d=128,rope_type=wobbly", "unknown rope_type"),
    ("missing.json", "no such file"),
])
def test_bad_spec_is_one_line_exit_2(text, names, capsys, tmp_path, monkeypatch):
    with pytest.raises(VariantError, match="^--variant: .*" + names.replace("(", r"\(")):
        parse(text)
    from peproof.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["prove", "--variant", text, "--no-coq", "--out", "res.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and names in err
    assert not (tmp_path / "res.json").exists()


def _table(enc: Encoding, n: int = 600) -> np.ndarray:
    """The table from mpmath, independent of Encoding.table (float64 rounding of each entry)."""
    import mpmath

    mpmath.mp.dps = 30
    h = enc.d // 2
    if enc.family == "h-1":
        w = [mpmath.e ** (-j * mpmath.log(enc._base) / (h - 1)) for j in range(h)]
    else:
        w = [mpmath.mpf(enc._base) ** (-mpmath.mpf(2 * j) / enc.d) for j in range(h)]
    out = np.empty((n, enc.d))
    for p in range(n):
        s = [float(mpmath.sin(p * x)) for x in w]
        c = [float(mpmath.cos(p * x)) for x in w]
        out[p] = s + c if enc.layout == "sin_cos" else [v for pair in zip(s, c, strict=True)
                                                       for v in pair]
    return out


def test_oracle_check_takes_the_parsed_variant():
    from peproof.oracle import check

    v = parse("family=h-1,base=10000,d=64,layout=sin_cos")
    table = _table(v.enc)
    rep = check(table, variant=v)
    assert rep.exit_code == 0
    old = check(table, expect="h-1", layout="sin_cos")
    assert (rep.exit_code, rep.headline if hasattr(rep, "headline") else None) == (
        old.exit_code, old.headline if hasattr(old, "headline") else None)
    # the same table judged against the paper's variant, as one object: a different variant
    assert check(table, variant=parse("family=paper,base=10000,d=64,layout=sin_cos")
                 ).exit_code == 1


def test_check_hint_round_trips(tmp_path, capsys):
    from peproof.cli import main

    enc = Encoding(64, family="h-1", layout="sin_cos")
    np.save(tmp_path / "t.npy", _table(enc))
    assert main(["check", str(tmp_path / "t.npy")]) == 1  # expected the paper: a variant
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if "peproof prove --variant" in x]
    assert len(line) == 1
    text = line[0].split("--variant ", 1)[1].strip()
    assert parse(text) == Sinusoidal(enc)
    # the paper's own table gets no hint
    np.save(tmp_path / "p.npy", _table(Encoding(64)))
    assert main(["check", str(tmp_path / "p.npy")]) == 0
    assert "--variant" not in capsys.readouterr().out


def test_prove_and_report_variant_cli(tmp_path, capsys):
    """The envelope reads as the paper's claims for the variant: per claim the paper's verdict
    beside the variant's, the variant's numbers beside the paper's; the report writes the same."""
    pytest.importorskip("jinja2")
    from peproof.cli import main

    out = tmp_path / "res.json"
    assert main(["prove", "encoding.span_*", "--variant", "family=h-1,base=10000,d=384",
                 "--no-coq", "--json", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert json.loads(capsys.readouterr().out)["variant"] == res["variant"]
    v = res["variant"]
    assert parse(v["spec"]) == parse("family=h-1,base=10000,d=384")
    rows = {r["id"]: r for r in v["claims"]}
    assert rows["encoding.span_orders_exact"] == {
        "id": "encoding.span_orders_exact", "paper": "proved", "variant": "refuted",
        "changed": True, "not_applicable": False}
    assert rows["encoding.span_four_orders_exact_reading"]["variant"] == "proved"
    claims = {r["id"]: r for r in res["claims"]}
    assert claims["encoding.span_orders_exact"]["evidence"]["witness"]
    nums = {n["key"]: n for n in v["numbers"]}
    assert nums["horizon"]["variant"] != nums["horizon"]["paper"]
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "reports"))
    rep = tmp_path / "rep"
    assert main(["report", "encoding.span_orders_exact", "--variant",
                 "family=h-1,base=10000,d=384", "--no-pdf", "--out", str(rep)]) == 0
    tex = (rep / "variant-report.tex").read_text()
    assert "span\\_orders\\_exact" in tex and "refuted" in tex and "62831.853" in tex
    assert json.loads((rep / "variant-results.json").read_text())["variant"]["spec"] == v["spec"]
