"""The report as a PDF: it builds, its text carries every claim id and verdict, a sabotaged claim
changes its verdict in the PDF, two builds give the same bytes, and without TeX the .tex is still
written with the exact packages to install.

Needs TeX (Debian: texlive-latex-base, -latex-recommended, -fonts-recommended, -pictures,
latexmk).  Without it these tests skip on a developer's machine and fail under CI (``CI`` set),
where the set-up must install it.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from peproof import registry
from peproof.commands.report import load_generator

gen = load_generator()
from peproof_report import run as R  # noqa: E402
from peproof_report import tex as T  # noqa: E402

PATTERN = "worked.*"  # proved and refuted claims, one errata entry, quick to decide


def _need_tex():
    if shutil.which("pdflatex") and shutil.which("latexmk"):
        return
    if os.environ.get("CI"):
        pytest.fail("TeX is not installed: CI must install " + " ".join(T.DEBIAN_PACKAGES))
    pytest.skip("TeX is not installed")


def pdf_text(path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def claim_verdicts_in(text: str, ids: list[str]) -> dict[str, str]:
    """Each claim's verdict as the PDF prints it in the claim's own section: the heading
    ``<number> <id>`` is followed by the field ``verdict <status> by``."""
    flat = _squash(text)
    out = {}
    for cid in ids:
        m = re.search(r"\d+\.\d+" + re.escape(cid)
                      + r"(.{0,6000}?)verdict(proved|refuted|unknown)by", flat)
        out[cid] = m.group(2) if m else "missing"
    return out


def _clear_verdict_caches():
    from peproof import agreement, testing

    testing.verdict.cache_clear()
    agreement.row.cache_clear()
    agreement.z3_verdict.cache_clear()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    _need_tex()
    out = tmp_path_factory.mktemp("report")
    res = gen.build(build_dir=out, pattern=PATTERN, numerics="quick", peers=False, workers=1,
                    quiet=True)
    assert res.pdf_path is not None, res.tex_message
    return res


def test_pdf_builds_and_has_pages(built):
    assert built.pdf_path.read_bytes().startswith(b"%PDF")
    assert built.pages and built.pages > 5
    assert not built.unknown_chars


def test_pdf_text_has_every_claim_id_and_its_verdict(built):
    ids = [c.id for c in registry.select(PATTERN)]
    text = pdf_text(built.pdf_path)
    flat = _squash(text)
    missing = [i for i in ids if i not in flat]
    assert not missing, f"claim ids not in the PDF text: {missing}"
    import json

    rows = json.loads((built.tex_path.parent / "results.json").read_text())["claims"]
    want = {r["id"]: r["verdict"]["status"] for r in rows}
    got = claim_verdicts_in(text, ids)
    assert got == want
    assert "refuted" in got.values() and "proved" in got.values()


def test_pdf_lists_the_errata_with_the_seed_sentence(built):
    text = _squash(pdf_text(built.pdf_path))
    assert "Errataofthesources" in text
    # the refuted worked number: its seed sentence and its corrected companion
    assert "worked.sin_five_hundred_seed_value" in text
    assert "worked.sin_five_hundred_three_decimals" in text
    assert built.errata == ["worked.sin_five_hundred_seed_value"]


def test_sabotaged_claim_changes_its_verdict_in_the_pdf(tmp_path, monkeypatch):
    """Replace one claim's statement by its first (wrong) falsifier: the PDF must now print it
    refuted, with a witness."""
    _need_tex()
    cid = "worked.sin_two_three_decimals"
    claim = registry.get(cid)
    wrong = claim.falsifiers[0].statement
    _clear_verdict_caches()
    monkeypatch.setattr(claim, "_statement", wrong)
    try:
        res = gen.build(build_dir=tmp_path, pattern=cid, numerics="none", peers=False,
                        workers=1, fresh=True, quiet=True)
    finally:
        monkeypatch.undo()
        _clear_verdict_caches()
    assert res.pdf_path is not None, res.tex_message
    text = pdf_text(res.pdf_path)
    assert claim_verdicts_in(text, [cid]) == {cid: "refuted"}
    assert "differsfromtheregistry" in _squash(text)
    assert "witness" in text


def test_two_builds_give_the_same_bytes(tmp_path, monkeypatch):
    """Same run record, SOURCE_DATE_EPOCH set: byte-identical .tex and PDF, even when the TeX
    work folder starts empty."""
    _need_tex()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    data = R.collect(tmp_path / "a", pattern="rotation.sin_angle_addition", numerics="none",
                     peers=False, workers=1, quiet=True)
    outs = []
    for name in ("a", "b"):
        res = gen.build(build_dir=tmp_path / name, run=data, quiet=True)
        assert res.pdf_path is not None, res.tex_message
        outs.append((res.tex_path.read_bytes(), res.pdf_path.read_bytes()))
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]


def test_without_tex_the_tex_is_written_and_the_message_says_what_to_install(tmp_path,
                                                                              monkeypatch):
    monkeypatch.setattr(T, "find_tex", lambda: (None, None))
    res = gen.build(build_dir=tmp_path, pattern="rotation.sin_angle_addition", numerics="none",
                    peers=False, workers=1, quiet=True)
    assert res.tex_path.is_file() and res.pdf_path is None
    assert not (tmp_path / "peproof-report.pdf").exists()
    msg = res.tex_message
    assert "TeX not found" in msg and str(res.tex_path) in msg
    for pkg in T.DEBIAN_PACKAGES:
        assert pkg in msg


def test_cli_without_tex_exits_0_and_says_so(tmp_path, monkeypatch, capsys):
    from peproof.cli import main

    monkeypatch.setattr(T, "find_tex", lambda: (None, None))
    rc = main(["report", "rotation.sin_angle_addition", "--numerics", "none", "--no-peers",
               "--workers", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "TeX not found" in out and "apt-get install texlive-latex-base" in out
