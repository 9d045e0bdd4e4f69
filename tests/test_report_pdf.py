"""The report as PDFs: they build without an overfull box, the record carries every claim id and
verdict, a sabotaged claim changes its verdict, no SymPy string reaches a reader, every printed
interval contains its exact value, two builds give the same bytes, and without TeX the .tex is
still written with the exact packages to install.

Needs TeX (Debian: texlive-latex-base, -latex-recommended, -fonts-recommended, -pictures,
latexmk).  Without it these tests skip on a developer's machine and fail under CI (``CI`` set),
where the set-up must install it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from peproof import registry
from peproof.commands.report import load_generator

gen = load_generator()
from peproof_report import run as R  # noqa: E402
from peproof_report import tex as T  # noqa: E402
from peproof_report.fmt import read_back  # noqa: E402

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
    """Each claim's verdict as the record prints it in the claim's own section: the heading
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
                    quiet=True, full=True)
    assert res.pdf_path is not None, res.tex_message
    assert res.more_pdf, "the record was not written"
    return res


def record_pdf(res):
    return res.more_pdf[0][0]


def test_pdf_builds_and_has_pages(built):
    assert built.pdf_path.read_bytes().startswith(b"%PDF")
    assert built.pages and built.pages > 5
    assert not built.unknown_chars


def test_pdf_text_has_every_claim_id_and_its_verdict(built):
    ids = [c.id for c in registry.select(PATTERN)]
    text = pdf_text(record_pdf(built))
    flat = _squash(text)
    missing = [i for i in ids if i not in flat]
    assert not missing, f"claim ids not in the PDF text: {missing}"
    import json

    rows = json.loads((built.tex_path.parent / "results.json").read_text())["claims"]
    want = {r["id"]: r["verdict"]["status"] for r in rows}
    got = claim_verdicts_in(text, ids)
    assert got == want
    assert "refuted" in got.values() and "proved" in got.values()
    compact = _squash(pdf_text(built.pdf_path))
    assert all(i in compact for i in ids), "the report lists every claim too"


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
                        workers=1, fresh=True, quiet=True, full=True)
    finally:
        monkeypatch.undo()
        _clear_verdict_caches()
    assert res.pdf_path is not None, res.tex_message
    text = pdf_text(record_pdf(res))
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


# ---------------------------------------------------------------------------- what a reader sees
def _logs(res) -> list:
    return [T.log_of(res.tex_path), *(T.log_of(p.with_suffix(".tex")) for p, _ in res.more_pdf)]


def test_no_overfull_box_in_either_document(built):
    """Every line and display fits the page (displays scale down instead of overflowing)."""
    for log in _logs(built):
        text = log.read_text(errors="replace")
        assert "Output written" in text
        bad = re.findall(r"Overfull \\[hv]box.*", text)
        assert not bad, (log.name, bad[:5])


def test_an_overfull_box_is_found_in_the_log(tmp_path):
    """The check above can fail: a too-wide line is reported by TeX and matched."""
    _need_tex()
    (tmp_path / "x.tex").write_text("\\documentclass{article}\\begin{document}"
                                    "\\hbox to 2cm{\\hbox{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}}"
                                    "\\end{document}\n")
    import subprocess

    subprocess.run(["pdflatex", "-interaction=nonstopmode", "x.tex"], cwd=tmp_path,
                   capture_output=True, timeout=120)
    assert re.findall(r"Overfull \\[hv]box.*", (tmp_path / "x.log").read_text(errors="replace"))


SYMPY_ISMS = re.compile(r"\*\*|sqrt\(|\bx_\d\d\b|\bSum\(|too long to print|\bexp\(sqrt|"
                        r"\b(?:sin|cos)\([a-z_]+\*|Abs\(|\bpi\*")


def test_no_sympy_string_where_a_reader_reads(built):
    """The report (PDF text and .tex) carries no SymPy spelling (``**``, ``sqrt(``, ``x_00``,
    ``Sum(``) and no 'too long to print'; the record neither, outside the engines' logs, which
    are set in typewriter type as machine text.  The pattern finds them in the raw results."""
    import json

    raw = (built.tex_path.parent / "results.json").read_text()
    assert SYMPY_ISMS.search(raw), "the check would not catch anything"
    for text in (pdf_text(built.pdf_path), built.tex_path.read_text()):
        found = SYMPY_ISMS.findall(text)
        assert not found, found[:5]
    record = built.more_pdf[0][0].with_suffix(".tex").read_text()
    outside_logs = re.sub(r"\\texttt\{(?:[^{}]|\{[^{}]*\})*\}", " ", record)
    found = SYMPY_ISMS.findall(outside_logs)
    assert not found, found[:5]
    assert json.loads(raw)["claims"]


def test_printed_separations_contain_their_exact_values(built):
    """The separation table's intervals, recomputed independently with mpmath from the
    definition: the least squared distance D(k) at the printed offset, D(1), and the first turn
    2 pi / omega_min, each inside the interval the report prints."""
    import mpmath

    tex = built.tex_path.read_text()
    rows = re.findall(r"^(\d+) & (\$[^&]+\$) & ([\d\\, ]+) & (\$[^&]+\$) & [^&]+ & "
                      r"(\$[^&]+\$)\\\\$", tex, re.M)
    assert rows, "no separation table found"
    with mpmath.workdps(50):
        for d_txt, min_sq, k_txt, adj, wrap in rows:
            d = int(d_txt)
            k = int(k_txt.replace("\\,", "").split(",")[0])
            w = [mpmath.power(10000, -mpmath.mpf(2 * i) / d) for i in range(d // 2)]

            def dk(kk, w=w):
                return 2 * mpmath.fsum(1 - mpmath.cos(wi * kk) for wi in w)

            for printed, exact in ((min_sq, dk(k)), (adj, dk(1))):
                lo, hi = read_back(printed)
                assert lo <= _dec(exact) <= hi, (d, printed, exact)
            turn = 2 * mpmath.pi / w[-1]
            lo, hi = read_back(wrap)
            digits = wrap.replace(r"\,", "").strip("$").replace(r"\ldots", "")
            assert str(_dec(turn)).startswith(digits) if r"\ldots" in wrap else \
                lo <= _dec(turn) <= hi, (d, wrap, turn)


def _dec(x):
    from decimal import Decimal

    import mpmath

    return Decimal(mpmath.nstr(x, 40, strip_zeros=False))


def test_literature_sources_compile_and_read_as_paraphrases(tmp_path):
    """Caught: two literature sources printed one after the other ran together as
    ``\\parbase`` (TeX failed on the whole report); a paraphrase printed as a quotation."""
    _need_tex()
    res = gen.build(build_dir=tmp_path, pattern="rope.dynamic_ntk_*", numerics="none",
                    peers=False, workers=1, quiet=True, full=True)
    assert res.pdf_path is not None, res.tex_message
    assert res.more_pdf, "the record was not written"
    text = _squash(pdf_text(res.pdf_path))
    assert "paraphraseof" in text and "ourparaphrase" in _squash(pdf_text(record_pdf(res)))


# ---------------------------------------------------------------------------- evidence and Coq
sys.path.insert(0, str(Path(__file__).resolve().parent))
import coqrows  # noqa: E402

from peproof.evidence import KERNEL, ONE, TWO, evidence  # noqa: E402

LEVEL_COLUMNS = (("proved", "kernel"), ("proved", "two engines"), ("proved", "one engine"),
                 ("proved", "settled when built"), ("refuted", "kernel"),
                 ("refuted", "one engine"))


def _family_row(rows: list[dict], family: str) -> list[int]:
    """A family's row of the page-1 table, recomputed from the results: verdicts, then the
    evidence of the proved and of the refuted."""
    mine = [r for r in rows if r["family"] == family]
    verdicts = [sum(r["verdict"]["status"] == s for r in mine)
                for s in ("proved", "refuted", "unknown")]
    levels = [sum(r["verdict"]["status"] == s and evidence(r)["level"] == lvl for r in mine)
              for s, lvl in LEVEL_COLUMNS]
    return verdicts + levels


def _page_one_rows(pdf) -> dict[str, list[int]]:
    from pypdf import PdfReader

    text = PdfReader(str(pdf)).pages[0].extract_text()
    return {m.group(1): [int(x) for x in m.group(2).split()]
            for m in re.finditer(r"^([a-z_]+|all \(\d+\)) ((?:\d+ ){8}\d+)$", text, re.M)}


@pytest.fixture(scope="module")
def built_coq(built, tmp_path_factory):
    """The same run with Coq entries on its rows (tests/coqrows.py: .v files written outside
    the build folder), rebuilt: report, record and HTML edition."""
    import json

    run = json.loads((built.tex_path.parent / R.CACHE_NAME).read_text())
    base = tmp_path_factory.mktemp("coq")
    coqrows.add_coq(run["results"]["claims"], base / "elsewhere")
    res = gen.build(build_dir=base / "build", run=run, quiet=True, full=True, html=True)
    assert res.pdf_path is not None, res.tex_message
    return res, run["results"]["claims"]


def test_page_one_shows_each_familys_evidence_beside_its_verdicts(built, built_coq):
    """Page 1's table: per family (and in all) the verdict counts and the evidence levels, as
    recomputed from the results; with Coq entries the kernel columns fill."""
    import json

    for res, rows in ((built, json.loads((built.tex_path.parent / "results.json")
                                         .read_text())["claims"]), built_coq):
        table = _page_one_rows(res.pdf_path)
        fams = sorted({r["family"] for r in rows})
        assert set(table) == {*fams, f"all ({len(rows)})"}, table
        for f in fams:
            assert table[f] == _family_row(rows, f), f
        assert table[f"all ({len(rows)})"] == [sum(c) for c in zip(*(table[f] for f in fams),
                                                                    strict=True)]
    res, rows = built_coq
    assert _family_row(rows, "worked")[3] > 0 and _family_row(rows, "worked")[7] > 0
    text = _squash(pdf_text(res.pdf_path))
    assert f"Coq{coqrows.VERSION}checked" in text


def test_the_chapters_name_each_claims_evidence(built_coq):
    """The family's heading counts the levels; each claim names its own (the one-line entries
    a short tag, the featured ones an Evidence sentence)."""
    res, rows = built_coq
    text = _squash(pdf_text(res.pdf_path))
    worked = [r for r in rows if r["family"] == "worked"]
    n_kernel = sum(evidence(r)["level"] == KERNEL and r["verdict"]["status"] == "proved"
                   for r in worked)
    assert f"evidenceoftheproved:{n_kernel}kernel" in text
    for r in worked:
        lvl = evidence(r)["level"]
        if lvl in (KERNEL, TWO, ONE):
            short = lvl.replace(" ", "")
            assert re.search(re.escape(r["id"]) + r".{0,80}?" + short, text) or \
                re.search(short + r".{0,400}?" + re.escape(r["id"]), text), (r["id"], lvl)


def _uris(pdf) -> list[str]:
    from pypdf import PdfReader

    out = []
    for page in PdfReader(str(pdf)).pages:
        for a in page.get("/Annots") or []:
            act = a.get_object().get("/A") or {}
            if act.get("/S") == "/URI":
                out.append(str(act["/URI"]))
    return out


def test_the_record_links_each_coq_proof_and_shows_its_assumptions(built_coq):
    """Each claim checked in Coq: a link, relative to the record, to its .v file in the build
    folder (copied there from where it was written), its status, version and axioms."""
    res, rows = built_coq
    record = record_pdf(res)
    checked = {r["id"]: r["coq"] for r in rows if r["coq"]["status"] == "checked in Coq"}
    assert checked
    uris = _uris(record)
    vlinks = {u for u in uris if u.endswith(".v")}  # a link broken over two lines: two boxes
    assert vlinks == {f"coq/{cid}.v" for cid in checked}
    for u in vlinks:
        assert "/" not in u.split("coq/", 1)[1] and not u.startswith(("/", "file:"))
        target = record.parent / u
        src = Path(checked[u[4:-2]]["vfile"])
        assert target.is_file() and target.read_bytes() == src.read_bytes(), u
    text = _squash(pdf_text(record))
    for cid in checked:
        m = re.search(re.escape(cid) + r".*?coqcheckedinCoq;Coq" + re.escape(coqrows.VERSION)
                      + r".*?coqaxioms(.*?)trustedbase", text)
        assert m, cid
        for a in coqrows.AXIOMS:  # grouped by module: the module once, then the short names
            assert a.rpartition(".")[2].replace("_", "") in m.group(1).replace("_", ""), a
    assert "notcheckedinCoq:noproofscript" in text


def test_the_coq_fields_fit_the_page(built_coq):
    """Long axiom names and file names break at dots and underscores: no overfull line."""
    res, _ = built_coq
    for log in _logs(res):
        bad = re.findall(r"Overfull \\hbox.*", log.read_text(errors="replace"))
        assert not bad, (log.name, bad[:5])


def test_the_real_coq_pass_is_linked_from_the_record(built):
    """The run's own Coq pass (no fixture): every claim with a .v file is linked from the record
    by a relative link that resolves to that file in the build folder, with its Coq status; a
    claim checked in Coq shows its version and each axiom Print Assumptions listed."""
    import json

    rows = json.loads((built.tex_path.parent / "results.json").read_text())["claims"]
    ran = [r for r in rows if r.get("coq")]
    if not ran:
        pytest.skip("the run had no Coq pass")
    with_file = {r["id"]: r["coq"]["vfile"] for r in ran if r["coq"].get("vfile")}
    if shutil.which("coqc"):
        assert with_file, "Coq is installed but no claim has a .v file"
    record = record_pdf(built)
    uris = {u for u in _uris(record) if u.endswith(".v")}
    assert uris == set(with_file.values())
    for u in uris:
        assert (record.parent / u).is_file(), u
    text = _squash(pdf_text(record))
    for r in ran:
        q = r["coq"]
        m = re.search(re.escape(r["id"]) + r".*?coq" + re.escape(_squash(q["status"])[:40]), text)
        assert m, (r["id"], q["status"])
        if q["status"] == "checked in Coq":
            assert f"Coq{q['coq_version']}" in text
            tail = text[m.end():m.end() + 3000].replace("_", "")
            for a in q["assumptions"]:
                assert a.rpartition(".")[2].replace("_", "") in tail, (r["id"], a)
