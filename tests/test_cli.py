"""The command line: exit codes, JSON envelope, one-line errors."""

import json
import re
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


def _table_column(out: str, name: str) -> dict[str, str]:
    """``{claim id: cell}`` of the column ``name`` of ``peproof prove``'s table (cells are
    sliced at the header's column starts: a cell may hold spaces)."""
    lines = out.splitlines()
    head = lines[0]
    cols = [m.start() for m in re.finditer(r"(?<=  )\S", head)]
    start = head.index(name)
    end = min([c for c in cols if c > start], default=None)
    cells = {}
    for line in lines[2:]:
        if not line.strip():
            break
        cells[line.split()[0]] = line[start:end].strip()
    return cells


@pytest.mark.parametrize("pattern", ["index.*", "distance.monotone*"])
def test_prove_shows_each_claims_evidence_in_the_table_and_the_json(capsys, pattern):
    from peproof.evidence import ALL, LEVELS_OF

    assert main(["prove", pattern, "--no-falsifiers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["prove", pattern, "--no-falsifiers"]) == 0
    out = capsys.readouterr().out
    want = {c["id"]: c["evidence"]["level"] for c in data["claims"]}
    assert all(lvl in ALL for lvl in want.values())
    assert _table_column(out, "evidence") == {i: (lvl if lvl != "none" else "-")
                                              for i, lvl in want.items()}
    s = data["summary"]
    assert s["evidence"] == {lvl: list(want.values()).count(lvl) for lvl in ALL}
    for status in ("proved", "refuted"):
        if s[status]:
            counts = ", ".join(f"{lvl} {s['evidence_' + status][lvl]}"
                               for lvl in LEVELS_OF[status])
            assert f"evidence of the {status}: {counts}" in out
    if pattern == "index.*":  # kernel exactly where Coq checked the statement itself; without
        # Coq, an exhaustive check confirmed by z3, and z3 beside z3
        for c in data["claims"]:
            coq = c.get("coq") or {}
            exact = coq.get("status") == "checked in Coq" and coq.get("exact_statement")
            assert (want[c["id"]] == "kernel") == bool(exact), c["id"]
        assert main(["prove", pattern, "--no-falsifiers", "--no-coq", "--json"]) == 0
        bare = json.loads(capsys.readouterr().out)
        assert {"two engines", "one engine"} <= {c["evidence"]["level"] for c in bare["claims"]}
    else:  # a refutation: kernel when Coq proved the negation, else one engine; its witness
        c = data["claims"][0]
        coq = c.get("coq") or {}
        kernel = coq.get("status") == "checked in Coq" and coq.get("what") == "negation"
        assert c["evidence"]["level"] == ("kernel" if kernel else "one engine")
        assert c["evidence"]["coq"] == (coq.get("status") or "Coq not run")
        assert c["evidence"]["witness"].startswith("at ") and "certified by" in \
            c["evidence"]["witness"]


@pytest.mark.parametrize("args", [["prove", "no.such.claim"], ["prove", "--bogus"], ["frobnicate"]])
def test_bad_input_is_one_line_exit_2(args):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("wrap", ["ctypes", "numeric"])
def test_an_interrupt_wrapped_on_its_way_out_is_still_an_interrupt(capsys, monkeypatch, wrap):
    """SIGTERM that arrives inside a ctypes call (z3's) leaves it as ``ctypes.ArgumentError``,
    and inside the numeric engine as that engine's own error: either way ``peproof`` says it
    was interrupted by SIGTERM, in one line, exit 143 -- not "internal error", exit 3 (seen
    with a real SIGTERM while ``peproof prove`` decided).  The same error without a signal is
    still an internal error."""
    import ctypes
    import signal

    from peproof import cli
    from peproof.guard import signals
    from peproof.numeric.engine import Interrupted as NumericInterrupted

    def wrapped():
        return (ctypes.ArgumentError("argument 1: Interrupted: SIGTERM") if wrap == "ctypes"
                else NumericInterrupted(0, 1, None, signal.SIGTERM))

    def interrupted(args):
        try:
            signals._handler(signal.SIGTERM, None)  # the real handler: records, raises
        except signals.Interrupted:
            raise wrapped() from None

    monkeypatch.setattr(cli, "cmd_prove", interrupted)
    assert main(["prove"]) == 143
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["peproof: interrupted by SIGTERM; stopped"], err

    def no_signal(args):
        raise wrapped()

    monkeypatch.setattr(cli, "cmd_prove", no_signal)
    assert main(["prove"]) == 3
    assert "internal error" in capsys.readouterr().err
