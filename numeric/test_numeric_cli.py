"""``peproof separation`` and ``peproof horizon``: output, JSON, exit codes, one-line errors."""

import json
import subprocess
import sys

import pytest

from peproof.cli import main


def run(*args):
    # as the installed ``peproof`` script does (``python -m peproof.cli`` would load the CLI
    # twice, as ``__main__`` and as ``peproof.cli``, with two different UsageError classes)
    code = "import sys; from peproof.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)


def test_separation_table(capsys):
    assert main(["separation", "--d", "4,8", "--max-pos", "62832", "--sample", "1"]) == 0
    out = capsys.readouterr().out
    assert "13823" in out and "62832" in out and "ok" in out


def test_separation_json_and_out_file(capsys, tmp_path):
    f = tmp_path / "sep.json"
    assert main(["separation", "--d", "16", "--max-pos", "1e4", "--json", "--out", str(f),
                 "--no-confirm"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "peproof.separation/1"
    sep = data["results"][0]["separation"]
    assert sep["n_pos"] == 10**4 and sep["distinct"] and sep["certified_unique"]
    assert "distance.sq_eq_two_sum_one_minus_cos" in sep["reduction"]
    assert json.loads(f.read_text())["results"] == data["results"]


def test_horizon_table(capsys):
    assert main(["horizon", "--dtype", "bfloat16", "--d", "16", "--recipe", "exp-float",
                 "--max-pos", "2000"]) == 0
    out = capsys.readouterr().out
    assert "257 (= pos 256)" in out and "delta/2" in out


def test_horizon_json(capsys):
    assert main(["horizon", "--dtype", "float16", "--d", "8", "--recipe", "exp-int,pow-float",
                 "--max-pos", "3000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["results"][0]["horizons"]
    assert [r["recipe"] for r in rows] == ["exp-int", "pow-float"]
    assert rows[1]["overflow"] == 65520


@pytest.mark.parametrize("args", [
    ["separation", "--d", "7"],
    ["separation", "--d", "512", "--max-pos", "1"],
    ["separation", "--d", "512", "--base", "1"],
    ["separation", "--d", "512", "--base", "0.5"],
    ["separation", "--d", "512", "--family", "nerf"],
    ["separation", "--d", "abc"],
    ["separation"],
    ["separation", "--d", "512", "--max-pos", "1.5"],
    ["separation", "--d", "2", "--family", "h-1"],
    ["separation", "--d", "8", "--chunk", "0"],
    ["horizon", "--d", "64", "--dtype", "float8"],
    ["horizon", "--d", "64", "--recipe", "cosine"],
    ["horizon", "--d", "63"],
    ["horizon", "--d", "64", "--max-pos", "0"],
])
def test_bad_input_is_one_line_exit_2(args, tmp_path, capsys):
    out = tmp_path / "never.json"
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("peproof: error: ")
    assert not out.exists()


@pytest.mark.parametrize("args", [["separation", "--d", "7"], ["horizon", "--d", "8",
                                                               "--dtype", "float8"]])
def test_bad_input_in_a_fresh_process(args):
    r = run(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_horizon_float64_overflow_is_printed(capsys):
    assert main(["horizon", "--dtype", "float64,float32", "--d", "8", "--recipe", "exp-float",
                 "--max-pos", "500"]) == 0
    out = capsys.readouterr().out
    assert "1.80e+308" in out and "3.40e+38" in out
