"""``peproof check`` and ``peproof vectors``: verdicts, exit codes, JSON, golden vectors."""

import csv
import hashlib
import json

import mpmath
import numpy as np
import pytest

from peproof.cli import main
from peproof.oracle import reference
from peproof.oracle.sinusoidal.vectors import verify


def out_of(capsys, *args):
    rc = main([*map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_check_exit_codes_and_text(tmp_path, capsys):
    good = tmp_path / "good.npy"
    np.save(good, reference(300, 64))
    rc, out, _ = out_of(capsys, "check", good)
    assert rc == 0 and "verdict    : CONFORMS" in out
    other = tmp_path / "other.npy"
    np.save(other, reference(300, 64, family="h-1", layout="sin_cos", offset=2))
    rc, out, _ = out_of(capsys, "check", other)
    assert rc == 1 and "different variant: h-1 family, base 10000, [sin|cos] layout, offset 2" \
        in out
    rc, out, _ = out_of(capsys, "check", other, "--expect", "h-1", "--layout", "sin_cos",
                        "--offset", "2")
    assert rc == 0
    rc, _, _ = out_of(capsys, "check", other, "--expect", "any")
    assert rc == 0
    broken = reference(300, 64)
    broken[100, 3] = -broken[100, 3]
    np.save(tmp_path / "broken.npy", broken)
    rc, out, _ = out_of(capsys, "check", tmp_path / "broken.npy", "--worst", "1")
    assert rc == 1 and "verdict    : wrong" in out
    assert "     100     3" in out  # the worst position and channel are listed


def test_an_unstated_expectation_is_called_the_default(tmp_path, capsys):
    """Issue 24, item 3: "X where Y was expected" says whose expectation Y is -- the default
    (the paper's) when the user stated none, and no such note when they stated another."""
    p = tmp_path / "sc.npy"
    np.save(p, reference(128, 32, layout="sin_cos"))
    rc, out, _ = out_of(capsys, "check", p)
    assert rc == 1 and "where interleaved was expected" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("expected   :"))
    assert "the default expectation, the paper's" in line
    rc, out, _ = out_of(capsys, "check", p, "--json")
    assert json.loads(out)["expected_by_default"] is True
    rc, out, _ = out_of(capsys, "check", p, "--expect", "h-1", "--json")
    assert json.loads(out)["expected_by_default"] is False
    rc, out, _ = out_of(capsys, "check", p, "--expect", "h-1")
    assert rc == 1 and "the default expectation" not in out


def test_check_json_envelope_and_out_file(tmp_path, capsys):
    p = tmp_path / "t.npy"
    np.save(p, reference(128, 32, scale="sqrt(d)"))
    rc, out, _ = out_of(capsys, "check", p, "--json", "--scale", "sqrt(d)",
                        "--out", tmp_path / "r.json")
    env = json.loads(out)
    assert rc == 0 and env["schema"] == "peproof.check/1"
    assert env["verdict"] == {"text": "conforms", "code": "conforms", "exit_code": 0,
                              "diagnoses": [], "reasons": []}
    assert env["identified"]["variant"]["scale"] in ("4*sqrt(2)", "sqrt(d)")
    assert env["input"]["path"] == str(p) and env["input"]["shape"] == [128, 32]
    assert env["platform"]["numpy"] and env["precision"]["ulps_of"] == "float32"
    assert json.loads((tmp_path / "r.json").read_text())["summary"] == env["summary"]


def test_check_module_function(tmp_path, capsys, monkeypatch):
    (tmp_path / "mytables.py").write_text(
        "from peproof.oracle import reference\n"
        "def pe(n, d):\n    return reference(n, d, layout='cos_sin')\n"
        "def bad(n, d):\n    return 'not a table'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc, out, _ = out_of(capsys, "check", "mytables:pe", "--d", "32", "--n", "100",
                        "--layout", "cos_sin")
    assert rc == 0 and "(100 x 32, float32)" in out
    rc, _, err = out_of(capsys, "check", "mytables:bad", "--d", "32")
    assert rc == 2 and len(err.strip().splitlines()) == 1


def test_check_positions_option(tmp_path, capsys):
    p = tmp_path / "t.npy"
    np.save(p, reference(np.arange(500, 600), 16))
    assert out_of(capsys, "check", p, "--positions", "500:600")[0] == 0
    rc, out, _ = out_of(capsys, "check", p)
    assert rc == 1 and "offset 500" in out  # read from row 0 it looks like an offset


@pytest.mark.parametrize("fmt", ["json", "csv", "npy"])
def test_vectors_formats_and_manifest(tmp_path, capsys, fmt):
    out = tmp_path / fmt
    rc, text, _ = out_of(capsys, "vectors", "--d", "8", "--positions", "0:6", "--format", fmt,
                         "--digits", "30", "--dtype", "float32", "--family", "h-1",
                         "--out", out)
    assert rc == 0 and "manifest.json" in text
    man = json.loads((out / "manifest.json").read_text())
    assert man["schema"] == "peproof.vectors-manifest/1" and verify(out) == []
    for f in man["files"]:
        assert hashlib.sha256((out / f["name"]).read_bytes()).hexdigest() == f["sha256"]
    with mpmath.workdps(60):
        w3 = mpmath.power(10000, -mpmath.mpf(3) / 3)  # h-1, d=8: omega_i = 10000**(-i/3)
        exact = mpmath.cos(5 * w3)  # position 5, interleaved: channel 7 = cos of pair 3
        expected = mpmath.nstr(exact, 30, min_fixed=1, max_fixed=0)
    if fmt == "json":
        doc = json.loads((out / "vectors.json").read_text())
        got = doc["values"][5][7]
        hexes = doc["rounded_hex"]["float32"]
        assert float.fromhex(hexes[5][7]) == float(reference(6, 8, family="h-1")[5, 7])
    elif fmt == "csv":
        rows = list(csv.reader((out / "vectors.csv").open()))
        assert rows[0][:2] == ["position", "c0"] and rows[6][0] == "5"
        got = rows[6][8]
    else:
        arr = np.load(out / "vectors_decimal.npy", allow_pickle=False)
        got = str(arr[5, 7])
        r32 = np.load(out / "rounded_float32.npy", allow_pickle=False)
        assert np.array_equal(r32, reference(6, 8, family="h-1", dtype="float32"))
    assert float(mpmath.mpf(got)) == float(exact)
    assert mpmath.mpf(got) == mpmath.mpf(expected)


def test_vectors_decimal_strings_are_correctly_rounded(tmp_path, capsys):
    out = tmp_path / "v"
    assert out_of(capsys, "vectors", "--d", "4", "--positions", "0:40", "--digits", "25",
                  "--out", out)[0] == 0
    doc = json.loads((out / "vectors.json").read_text())
    with mpmath.workdps(80):
        for p in range(40):
            for j, s in enumerate(doc["values"][p]):
                i = j // 2
                w = mpmath.power(10000, -mpmath.mpf(2 * i) / 4)
                v = (mpmath.sin if j % 2 == 0 else mpmath.cos)(p * w)
                assert mpmath.mpf(s) == mpmath.mpf(mpmath.nstr(v, 25, min_fixed=1,
                                                                max_fixed=0)), (p, j, s)


@pytest.mark.parametrize("args,fragment", [
    (["--d", "7"], "even integer"),
    (["--d", "8", "--digits", "0"], "--digits"),
    (["--d", "8", "--positions", "5:5"], "selects no position"),
    (["--d", "8", "--positions", "x"], "positions"),
    (["--d", "8", "--family", "rope"], "family must be one of"),
    (["--d", "8", "--dtype", "decimal5"], "--dtype"),
])
def test_vectors_bad_input(tmp_path, capsys, args, fragment):
    rc, _, err = out_of(capsys, "vectors", *args, "--out", tmp_path / "o")
    assert rc == 2 and fragment in err and len(err.strip().splitlines()) == 1, err
