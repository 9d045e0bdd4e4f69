"""The command line: exit codes, JSON envelope, one-line errors."""

import json
import subprocess
import sys

import pytest

from peproof.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "peproof.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_prove_pattern_prints_table(capsys):
    assert main(["prove", "rotation.sin_*"]) == 0
    out = capsys.readouterr().out
    assert "rotation.sin_angle_addition" in out and "proved" in out
    assert "1 claims: 1 proved, 0 refuted, 0 unknown" in out
    # an exponential proof names its second kernel, and the summary counts the re-checks
    assert "(+FLINT re-check)" in out and "re-checked by the FLINT kernel: 1 claim(s)" in out


def test_prove_json_envelope(capsys, tmp_path):
    out_file = tmp_path / "r.json"
    assert main(["prove", "distance.monotone*", "--json", "--out", str(out_file)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "peproof.results/1"
    assert data["claims"][0]["verdict"]["status"] == "refuted"
    assert data["claims"][0]["verdict"]["witness"]["certified_by"]
    assert json.loads(out_file.read_text())["summary"] == data["summary"]


@pytest.mark.parametrize("args", [["prove", "no.such.claim"], ["prove", "--bogus"], ["frobnicate"]])
def test_bad_input_is_one_line_exit_2(args):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
