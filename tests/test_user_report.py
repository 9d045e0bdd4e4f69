"""``peproof report --statement`` / ``--claims FILE.py``: a report of the user's claims only,
from the same pipeline (results envelope, Coq pass, printed statements) as the registry's.

Sabotage killed: the report command ignoring the user's options (it would report the
registry's claims: the ids test fails), collect_claims dropping the witness (the refuted
conclusion is missing from the page).
"""

from __future__ import annotations

import re

import pytest

from peproof.cli import main

pytest.importorskip("peproof_report")
pytestmark = pytest.mark.timeout(600)  # a Coq pass and a report build each: slow when loaded


def test_a_report_of_a_refuted_statement(tmp_path, capsys):
    out = tmp_path / "rep"
    rc = main(["report", "--statement", "PE(pos, 2) <= 1/2", "--domain", "pos=real",
               "--out", str(out), "--no-pdf", "--html"])
    assert rc == 1  # the user's statement is refuted: like a registry verdict differing
    printed = capsys.readouterr().out
    assert "peproof-report.html" in printed
    page = (out / "peproof-report.html").read_text()
    assert set(re.findall(r'id="claim-([^"]+)"', page)) == {"user.statement"}
    body = page.split('id="claim-user.statement"', 1)[1]
    assert "refuted" in body[:400] and "Refuted: the conclusion <math" in body
    assert "<math" in body
    tex = (out / "peproof-report.tex").read_text()
    assert "user.statement" in tex or "user.statement".replace("_", r"\_") in tex


def test_a_report_of_a_claims_file(tmp_path, capsys):
    f = tmp_path / "mine.py"
    f.write_text("from sympy import cos, sin\n"
                 "from peproof.claims import Claim, Eq, Source, Statement, var\n"
                 "x, X = var('x', 'real')\n"
                 "CLAIMS = [Claim('mine.pythagoras', 'sin^2 + cos^2 = 1', "
                 "Source('mine', 'notes', 'the identity'), "
                 "Statement(Eq(sin(x)**2 + cos(x)**2, 1), (X,)), 'identity')]\n")
    out = tmp_path / "rep"
    assert main(["report", "--claims", str(f), "--out", str(out), "--no-pdf",
                 "--html"]) == 0
    page = (out / "peproof-report.html").read_text()
    assert set(re.findall(r'id="claim-([^"]+)"', page)) == {"mine.pythagoras"}


def test_report_options_are_checked_first(tmp_path, capsys):
    assert main(["report", "--statement", "x ^ 2 == 1", "--domain", "x=real", "--out",
                 str(tmp_path / "r")]) == 2
    assert "'^' at column 3" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
