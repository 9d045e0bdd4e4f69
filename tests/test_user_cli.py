"""``peproof prove --statement`` and ``--claims FILE.py``: the user's claims through the
registry's pipeline (engines, gate, evidence, Coq, envelope, exit codes); bad input in one
line with exit 2 and no code of the text run.

Sabotages these tests kill: a user claim decided by the registry's id cache (RegistryError:
exit 3 instead of 0/1), the witness line dropped, the plugin's exceptions let through (a
traceback, exit 3), the duplicate/collision checks removed; the sentinel test fails when the
statement goes through ``sympy.parse_expr`` (test_the_sentinel_test_can_fail shows it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from peproof.cli import main

TRUE = "PE(pos, 0)**2 + PE(pos, 1)**2 == 1"
FALSE = "PE(pos, 2) <= 1/2"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "peproof", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_a_true_statement_is_proved_with_its_evidence(capsys):
    assert main(["prove", "--statement", TRUE, "--domain", "pos=real", "--no-coq",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    (row,) = res["claims"]
    assert row["id"] == "user.statement" and row["verdict"]["status"] == "proved"
    assert row["evidence"]["level"] in ("kernel", "two engines", "one engine")
    assert res["summary"]["proved"] == 1 and res["schema"] == "peproof.results/1"


def test_a_false_statement_is_refuted_with_its_certified_witness(capsys):
    assert main(["prove", "--statement", FALSE, "--domain", "pos=real", "--no-coq"]) == 1
    out = capsys.readouterr().out
    assert "user.statement  refuted" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("user.statement: refuted at"))
    assert "pos = " in line and "certified_by" in line
    # the witness really refutes it: the entry at that point exceeds 1/2 (mpmath, 30 digits)
    from fractions import Fraction

    import mpmath

    p = Fraction(line.split("pos = ")[1].split()[0])
    with mpmath.workdps(30):
        assert mpmath.sin(mpmath.mpf(p.numerator) / p.denominator
                          * mpmath.power(10000, mpmath.mpf(-2) / 512)) > 0.5


def test_hypotheses_and_the_existential(capsys):
    # false for all x, true under x >= 1; and an existential with a witness
    assert main(["prove", "--statement", "x**2 >= x", "--domain", "x=real", "--no-coq"]) == 1
    capsys.readouterr()
    assert main(["prove", "--statement", "x**2 >= x", "--assume", "x >= 1", "--domain",
                 "x=real", "--no-coq"]) == 0
    capsys.readouterr()
    assert main(["prove", "--statement", "PE(pos, 0) == 0", "--domain", "pos=real",
                 "--exists", "--no-coq", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["claims"][0]["verdict"]["status"] == "proved"


@pytest.mark.parametrize("args, message", [
    (["--statement", "x ^ 2 == 1", "--domain", "x=real"], "'^' at column 3"),
    (["--statement", "x == 1"], "name 'x' at column 1: not declared"),
    (["--statement", "x == 1", "--domain", "x=complex"], "unknown domain 'complex'"),
    (["--assume", "x > 0"], "need --statement"),
    (["--statement", "x == 1", "--claims", "a.py", "--domain", "x=real"], "one at a time"),
    (["rotation.*", "--statement", "x == 1", "--domain", "x=real"], "a claim pattern"),
])
def test_bad_options_exit_2_in_one_line(capsys, args, message):
    assert main(["prove", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_hostile_text_runs_no_code(tmp_path):
    """A real process: exit 2, one line naming the token, and the sentinel file not made."""
    sentinel = tmp_path / "SENTINEL"
    for text in [f"__import__('os').system('touch {sentinel}') == 1",
                 f"x == (lambda: __import__('os').system('touch {sentinel}'))()",
                 f"x.__class__.__init__.__globals__['os'].system('touch {sentinel}') == 1"]:
        p = run("prove", "--statement", text, "--domain", "x=real", "--no-coq", cwd=tmp_path)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and "column" in p.stderr
        assert "Traceback" not in p.stderr
    assert not sentinel.exists()


def test_the_sentinel_test_can_fail(tmp_path):
    """The same text through ``sympy.parse_expr`` (what the parser replaces) does make the
    sentinel: the check above watches the right file."""
    sentinel = tmp_path / "SENTINEL"
    if not shutil.which("touch"):
        pytest.skip("no touch")
    code = ("import sympy\ntry:\n    sympy.parse_expr(" +
            repr(f"__import__('os').system('touch {sentinel}')") + ")\nexcept Exception:\n"
            "    pass\n")
    subprocess.run([sys.executable, "-c", code], timeout=120, check=True)
    assert sentinel.exists()


# ------------------------------------------------------------------ claims files
PLUGIN = '''
from peproof.claims import Claim, Eq, Le, Source, Statement, var

x, X = var("x", "real")
SRC = Source("mine", "notes", "two facts")
CLAIMS = [
    Claim("mine.pythagoras", "sin^2 + cos^2", SRC,
          Statement(Eq({sq}, 1), (X,)), "identity"),
    Claim("mine.sin_small", "sin x <= x/2", SRC, Statement(Le({sin}, x / 2), (X,)),
          "inequality", expect="{expect}"),
]
'''


def _plugin(tmp_path, expect="refuted", name="mine.py", text=None):
    f = tmp_path / name
    f.write_text(text if text is not None else PLUGIN.format(
        sq="__import__('sympy').sin(x)**2 + __import__('sympy').cos(x)**2",
        sin="__import__('sympy').Abs(__import__('sympy').sin(x))", expect=expect))
    return f


def test_a_claims_file_goes_through_the_pipeline(tmp_path, capsys):
    f = _plugin(tmp_path)
    assert main(["prove", "--claims", str(f), "--no-coq", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    got = {r["id"]: r["verdict"]["status"] for r in res["claims"]}
    assert got == {"mine.pythagoras": "proved", "mine.sin_small": "refuted"}
    assert all(r["evidence"]["level"] != "none" for r in res["claims"])
    # a wrong expectation exits 1, like the registry's
    assert main(["prove", "--claims", str(_plugin(tmp_path, "proved", "m2.py")),
                 "--no-coq"]) == 1
    assert "mine.sin_small" in capsys.readouterr().out


BAD = [
    ("x = (", "the file raised SyntaxError"),
    ("raise RuntimeError('boom')", "the file raised RuntimeError: boom (line 1)"),
    ("import sys\nsys.exit(3)", "the file raised SystemExit: 3 (line 2)"),
    ("X = 1", "defines no CLAIMS"),
    ("CLAIMS = 'abc'", "CLAIMS must be a list"),
    ("CLAIMS = []", "CLAIMS is empty"),
    ("CLAIMS = [1]", "CLAIMS[0] is a int"),
    ("from peproof.claims import Claim, Source\n"
     "CLAIMS = [Claim('Bad Id', 't', Source('a', 'b', 'c'), None, 'informal')]",
     "the file raised ValueError: claim id 'Bad Id' must look like"),
    ("from peproof.claims import Claim, Source\ns = Source('a', 'b', 'c')\n"
     "CLAIMS = [Claim('m.a', 't', s, None, 'informal'), Claim('m.a', 't', s, None, "
     "'informal')]", "claim id 'm.a' appears twice"),
    ("from peproof import registry\nCLAIMS = [registry.all_claims()[0]]",
     "is already a claim of the registry"),
    ("from peproof.claims import Claim, Source\n"
     "CLAIMS = [Claim('m.a', 't', Source('a', 'b', 'c'), 'x == 1', 'identity')]",
     "statement must be a peproof.claims.Statement"),
    ("from peproof.claims import Claim, Source\n"
     "def build():\n    return 1 / 0\n"
     "CLAIMS = [Claim('m.a', 't', Source('a', 'b', 'c'), build, 'identity')]",
     "building m.a raised ZeroDivisionError: division by zero (line 3)"),
    ("from peproof.claims import Claim, Source\n"
     "CLAIMS = [Claim('m.a', 't', Source('a', 'b', 'c'), None, 'informal', uses=['m.zz'])]",
     "'m.zz' (companion or uses) names no claim"),
]


@pytest.mark.parametrize("text, message", BAD, ids=range(len(BAD)))
def test_a_bad_claims_file_exits_2_in_one_line(tmp_path, capsys, text, message):
    f = _plugin(tmp_path, text=textwrap.dedent(text))
    assert main(["prove", "--claims", str(f), "--no-coq"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_a_claims_file_must_be_a_python_file(tmp_path, capsys):
    assert main(["prove", "--claims", str(tmp_path / "none.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "c.txt").write_text("CLAIMS = []")
    assert main(["prove", "--claims", str(tmp_path / "c.txt")]) == 2
    assert "a Python file (.py)" in capsys.readouterr().err


# ------------------------------------------------------------------ heavy text, real processes
HEAVY = {
    "tower": ("x == 10**10**10", "exponent 10000000000"),
    "tower9": ("x == 9**9**9**9", "exponent"),
    "power of a power": ("x == (10**100)**(10**4)", "power with exponent 10000"),
    "deep": ("x == " + "(" * 900 + "1" + ")" * 900, "nesting"),
    "long": ("x == " + "1+" * 1500 + "1", "characters, at most 2000"),
    "floor": ("x == floor(exp(exp(exp(exp(10)))))", "floor's argument"),
    "sum": ("x == Sum(i, (i, 1, 10**100))", "Sum's limits"),
}


@pytest.fixture(scope="module")
def heavy(hostile):
    for key, (text, _) in HEAVY.items():
        hostile.start(f"statement/{key}", lambda root, t=text: [
            "prove", "--statement", t, "--domain", "x=real", "--no-coq"])
    return hostile


@pytest.mark.parametrize("key", sorted(HEAVY))
def test_heavy_text_is_refused_in_a_bounded_process(heavy, key):
    """As a real process under the harness's 3 GiB address-space limit (and its kill after 60
    s: a hang shows as a killed process, rc -9): exit 2, one line naming the culprit, no
    traceback, no file left behind."""
    r = heavy.result(f"statement/{key}")
    lines = r.err.strip().splitlines()
    assert r.rc == 2, (r.rc, r.err[-500:])
    assert len(lines) == 1 and "Traceback" not in r.err and not r.stray
    assert HEAVY[key][1] in lines[0], lines[0]


@pytest.mark.parametrize("family, base, d", [("paper", 10000, 4), ("h-1", 500, 8)])
def test_the_vocabulary_of_another_encoding_goes_through_the_pipeline(family, base, d):
    """What ``--variant`` plugs in: the statement built for another Encoding, matrices and
    all, decided by the same pipeline; the same text with a wrong shift is refuted."""
    from peproof import results as R
    from peproof.encoding import Encoding
    from peproof.user.statement import user_claim

    enc = Encoding(d, family=family, base=base)
    doms = ["k=integer", "pos=real"]
    good = user_claim("M(k) * PE(pos) == PE(pos + k)", domains=doms, enc=enc)
    bad = user_claim("M(k) * PE(pos) == PE(pos + 2*k)", domains=doms, enc=enc,
                     claim_id="user.wrong_shift")
    rows = R.run([good, bad], falsifiers=False)["claims"]
    assert [r["verdict"]["status"] for r in rows] == ["proved", "refuted"]
    assert len(good.statement.concl) == d and family in rows[0]["sources"][0]["section"]
    assert rows[1]["verdict"]["witness"]["point"]["k"] != "0"


def test_a_variant_encoding_is_the_statements_vocabulary(monkeypatch):
    """``--variant`` (parsed by peproof.variant, another module: a stand-in here) sets the
    encoding of PE/omega/d/base; a parser error or a RoPE variant is one usage line."""
    import argparse
    import types

    from peproof.encoding import Encoding
    from peproof.guard import UsageError
    from peproof.user.run import user_claims

    enc = Encoding(8, family="h-1", base=500)

    def parse(spec):
        if spec == "rope":
            return object()
        if spec != "family=h-1,base=500,d=8":
            raise ValueError(f"--variant: unknown key in {spec!r}")
        return enc

    monkeypatch.setitem(sys.modules, "peproof.variant", types.SimpleNamespace(parse=parse))
    args = argparse.Namespace(statement="omega(1) == base**(-1/(d/2 - 1))", assume=[],
                              domain=[], exists=False, claims=None, pattern=None,
                              variant="family=h-1,base=500,d=8")
    (c,) = user_claims(args)
    r = c.statement.concl[0]
    assert r.lhs == enc.omega(1) == r.rhs and "h-1" in c.sources[0].section
    for spec, message in (("rope", "is a object"), ("x=1", "unknown key")):
        args.variant = spec
        with pytest.raises(UsageError, match=message):
            user_claims(args)
