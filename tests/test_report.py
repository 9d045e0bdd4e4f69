"""The report generator without TeX: escaping, formulas read back, templates, determinism, CLI.

The generator is the package ``peproof_report`` (``reports/peproof_report/`` in a checkout,
installed with the extra ``peproof[report]``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from peproof import registry
from peproof.cli import main
from peproof.commands.report import load_generator

load_generator()
import importlib  # noqa: E402

from peproof_report import content, formulas, latex, run  # noqa: E402
from peproof_report.parse import parse, symbol_table  # noqa: E402

B = importlib.import_module("peproof_report.build")

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = B.TEMPLATES


# ---------------------------------------------------------------------------- escaping
@pytest.mark.parametrize("raw,want", [
    ("a_b", r"a\_b"), ("50%", r"50\%"), ("x^2", r"x\^{}2"), ("{x}", r"\{x\}"),
    ("a & b", r"a \& b"), ("#1", r"\#1"), ("$5", r"\$5"), ("a\\b", r"a\textbackslash{}b"),
    ("~", r"\~{}"), ("a<b>c", r"a\textless{}b\textgreater{}c"), ("|x|", r"\textbar{}x\textbar{}"),
    ("\u03c9\u2248\u03c0", r"\ensuremath{\omega}\ensuremath{\approx}\ensuremath{\pi}"),
    ("a\u200bb", "ab"),
])
def test_tex_escapes_every_special_character(raw, want):
    assert latex.tex(raw) == want


def test_unmapped_character_is_marked_and_recorded():
    latex.reset_unknown()
    assert latex.tex("\u2603") == latex.UNKNOWN
    assert latex.unknown_seen == {"\u2603": 1}
    latex.reset_unknown()


def test_every_text_of_the_registry_has_a_latex_form():
    latex.reset_unknown()
    for c in registry.all_claims():
        for text in [c.title, c.note, *(s.quote for s in c.sources),
                     *(s.section for s in c.sources), *(f.note for f in c.falsifiers)]:
            latex.tex(text)
    assert not latex.unknown_seen, f"characters without a LaTeX form: {latex.unknown_seen}"


def test_breakable_ids_keep_their_text():
    s = latex.tex_breakable("rotation.shift_is_linear")
    assert s.replace(r"\allowbreak{}", "") == r"rotation.shift\_is\_linear"


def test_claim_ids_in_prose_become_numbered_links():
    refs = content.Refs({"rotation.shift_is_linear": "3.4"})
    m = refs.prose("see rotation.shift_is_linear and 5 % more")
    assert r"\claimref{claim:rotation.shift-is-linear}{3.4}" in m and r"5 \%" in m
    assert "shift" not in m.replace("claim:rotation.shift-is-linear", "")


# ---------------------------------------------------------------------------- formulas
SAMPLE = ["rotation.shift_is_linear", "rotation.pair_shift_is_rotation", "norm.sq_eq_half_d",
          "distance.sq_eq_two_sum_one_minus_cos", "index.sin_cos_maps_are_inverse",
          "fourier.period_integral_lemma", "dft.geometric_sum_lemma",
          "uniqueness.wrap_position_about_62832", "worked.sin_five_hundred_seed_value"]


@pytest.mark.parametrize("cid", SAMPLE)
def test_printed_statement_reads_back_as_the_statement(cid):
    p = formulas.render_statement(registry.get(cid).statement)
    assert p.checks, cid
    bad = [(c.status, c.detail, c.text[:80]) for c in p.checks if not c.ok]
    assert not bad, f"{cid}: {bad}"


def test_every_statement_of_the_registry_reads_back():
    """The document's promise: every printed formula denotes what was decided."""
    bad = []
    for c in registry.all_claims():
        if c.statement is None:
            continue
        for ch in formulas.render_statement(c.statement).checks:
            if not ch.ok:
                bad.append((c.id, ch.status, ch.detail))
    assert not bad, bad[:5]


@pytest.mark.parametrize("edit", [
    lambda t: t.replace(r"\sin", r"\COS").replace(r"\cos", r"\sin").replace(r"\COS", r"\cos"),
    lambda t: t.replace("+", "-", 1),
    lambda t: t.replace(r"k\,\omega", r"2\,k\,\omega", 1),
])
def test_a_wrong_printed_formula_is_caught(edit):
    st = registry.get("rotation.pair_shift_is_rotation").statement
    rel = st.concl[1]  # cos(u + v) = cos u cos v - sin u sin v
    text = formulas.latex(rel.rhs)
    wrong = edit(text)
    assert wrong != text
    chk = formulas.check_text(wrong, rel.rhs, symbol_table(rel.rhs),
                              {v.symbol: v.domain for v in st.vars}, {})
    assert chk.status in ("mismatch", "unparsed"), (wrong, chk)


def test_parser_reads_the_printers_constructs():
    x, n = sp.Symbol("x", real=True), sp.Symbol("n", integer=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    for e in [sp.sin(x) ** 2 + sp.cos(2 * x), sp.exp(-x / 3) * sp.sqrt(2), sp.floor(n / 2),
              sp.Mod(n, 2) + 1, sp.Sum(sp.cos(i * x), (i, 0, n - 1)),
              sp.Piecewise((x, n > 0), (-x, True)), 10000 ** (-2 * i / n) * x]:
        got = parse(formulas.latex(e), symbol_table(e))
        assert got == e or formulas.same_at_points(got, e, {}, "t"), (e, got)


def test_many_conclusions_of_one_form_print_as_first_and_last_instance():
    """A concrete-d statement (hundreds of instances of a lemma) prints each form of
    conclusion once at each end with the count between, every conclusion accounted for."""
    st = registry.get("norm.sq_eq_half_d_concrete_d").statement
    p = formulas.render_statement(st)
    groups = formulas.group_conclusions(st.concl)
    assert p.shown == len(st.concl) == sum(len(g.members) for g in groups)
    assert len(groups) < 5 < len(st.concl)
    assert len(p.rows) <= p.head + 4 * len(groups)
    assert any(r"\vdots" in r for r in p.rows)
    assert all(c.ok for c in p.checks)


def test_many_variables_are_listed_with_an_ellipsis():
    w = [sp.Symbol(f"w{k}", real=True) for k in range(20)]
    from peproof.claims import Eq, Statement, Var

    st = Statement((Eq(sum(w), sum(w)),), tuple(Var(s, "real") for s in w))
    p = formulas.render_statement(st)
    assert r"\dots" in p.rows[0] and "20 reals" in p.notes


# ---------------------------------------------------------------------------- templates
_ALLOWED_NUMBERS = [
    r"\d*\.?\d+\s*(?:pt|em|ex|cm|mm|in|bp)\b",  # dimensions
    r"\d*\.?\d+\\(?:textwidth|linewidth|textheight|baselineskip)",
    r"[LR]\{\d*\.?\d+\}",  # table columns as fractions of the line
    r"\{HTML\}\{[0-9A-F]{6}\}",  # colours
    r"\\setcounter\{tocdepth\}\{\d\}",
    r"\\begin\{multicols\}\{\d\}",  # layout parameters: columns, heading levels
    r"\\multicolumn\{\d+\}", r"\\cmidrule(?:\(\w+\))?\{\d+-\d+\}",  # a table's own columns
    r"\\renewcommand\{\\arraystretch\}\{[\d.]+\}", r"(?:row|col)span=\"\d+\"",
    r"\\@startsection\{\w+\}\{\d\}",
    r"\\renewcommand\{\\(?:top|bottom|text|floatpage)fraction\}\{[\d.]+\}",
    r"\\char`",
    r"#\d",  # macro parameters
    r"\[\d\]",  # a macro's number of parameters
    # notation, not values: squared norm, half the separation, D at the adjacent offset, a turn
    r"\\\|\^2", r"\\delta/2", r"D\(1\)", r"2\\pi/\\omega_\{\\min\}",
]


def test_templates_contain_no_number_typed_by_hand():
    """Every number of the document comes from the run: in the templates, digits only occur
    in dimensions, column widths, colours and names (float64, a4paper, ...)."""
    for path in sorted(TEMPLATES.glob("*.j2")):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\\VAR\{.*?\}|\\BLOCK\{.*?\}|\\#\{.*?\}", " ", text, flags=re.S)
        for pat in _ALLOWED_NUMBERS:
            text = re.sub(pat, " ", text)
        found = re.findall(r"(?<![A-Za-z_\-\d])\d+(?:\.\d+)?(?![A-Za-z_\d])", text)
        assert not found, f"{path.name}: numbers typed by hand: {found[:10]}"


def test_template_values_are_escaped_unless_marked_latex():
    env = B.environment()
    t = env.from_string(r"\VAR{a} \VAR{b} \VAR{items | mjoin(', ')}")
    from markupsafe import Markup

    out = t.render(a="50% & $", b=Markup(r"\textbf{x}"), items=["a_b", Markup(r"\pi")])
    assert out == r"50\% \& \$ \textbf{x} a\_b, \pi"


# ---------------------------------------------------------------------------- run and merge
def test_merged_envelope_matches_a_single_run():
    from peproof import results

    claims = registry.select("norm.*")
    whole = results.run(claims)
    by_family = [results.run([c]) for c in claims]
    merged = run.merge(by_family, [c.id for c in claims])
    drop = ("seconds",)
    assert {k: v for k, v in merged["summary"].items() if k not in drop} == \
        {k: v for k, v in whole["summary"].items() if k not in drop}
    assert [r["id"] for r in merged["claims"]] == [r["id"] for r in whole["claims"]]
    assert merged["schema"] == whole["schema"]


def _tiny_run(tmp_path: Path) -> dict:
    return run.collect(tmp_path, pattern="rotation.sin_angle_addition", numerics="none",
                       peers=False, workers=1, quiet=True)


def test_tex_is_deterministic_across_processes(tmp_path):
    """The .tex is a function of the run's record: rendered in two interpreters with different
    hash seeds, the bytes agree."""
    data = _tiny_run(tmp_path)
    (tmp_path / "data.json").write_text(json.dumps(data))
    script = (
        "import json, sys; from pathlib import Path\n"
        "from peproof.commands.report import load_generator\n"
        "gen = load_generator()\n"
        "d = json.loads(Path(sys.argv[1]).read_text())\n"
        "out = Path(sys.argv[2]); out.mkdir()\n"
        "gen.build(build_dir=out, run=d, compile_pdf=False, quiet=True)\n"
    )
    texts = []
    for seed in ("1", "2"):
        out = tmp_path / f"b{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", script, str(tmp_path / "data.json"), str(out)],
                       check=True, env=env, cwd=ROOT, timeout=120)
        texts.append((out / B.TEX_NAME).read_bytes())
    assert texts[0] == texts[1]


def test_second_build_reuses_the_results(tmp_path):
    a = _tiny_run(tmp_path)
    b = _tiny_run(tmp_path)
    assert not a["reused"] and b["reused"]
    assert a["results"] == b["results"]


def test_a_fresh_build_and_a_reusing_build_write_the_same_tex(tmp_path):
    """The first build renders from the same record a later build reuses (witness points,
    engine-agreement counts: no ordering may depend on how the data was produced)."""
    kw = dict(pattern="distance.monotone_in_offset", numerics="none", peers=False, workers=1,
              compile_pdf=False, quiet=True)
    a = B.build(build_dir=tmp_path, fresh=True, **kw)
    first = a.tex_path.read_bytes()
    b = B.build(build_dir=tmp_path, **kw)
    assert not a.reused and b.reused
    assert b.tex_path.read_bytes() == first


def test_date_comes_from_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    epoch, source = content.build_date(12345)
    assert (epoch, source) == (86400, "SOURCE_DATE_EPOCH")
    assert content.date_text(epoch) == "1970-01-02 00:00 UTC"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert content.build_date(12345) == (12345, "commit time")


def test_trace_repeats_are_folded():
    lines = ["a", "b", "c"] * 5 + ["z"]
    assert content.fold_trace(lines) == [("a", 5), ("b", 0), ("c", 0), ("z", 1)]


# ---------------------------------------------------------------------------- cli
def test_cli_writes_the_tex(tmp_path, capsys):
    rc = main(["report", "rotation.sin_angle_addition", "--numerics", "none", "--no-peers",
               "--no-pdf", "--workers", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    tex = (tmp_path / B.TEX_NAME).read_text()
    assert "rotation.sin" in tex and r"\vproved" in tex
    assert "printed formulas read back" in out and "all confirmed" in out


@pytest.mark.parametrize("args,msg", [
    (["report", "no_such.claim_id"], "no claim id matches"),
    (["report", "--workers", "0"], "--workers"),
    (["report", "--numerics", "lots"], "invalid choice"),
])
def test_cli_bad_input_is_one_line_exit_2(args, msg, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_cli_out_must_be_a_folder(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["report", "rotation.sin_angle_addition", "--no-pdf", "--out", str(f)]) == 2
    assert "folder" in capsys.readouterr().err


def test_cli_without_the_report_extra_says_which_extra(monkeypatch, capsys):
    """Without jinja2 (the extra ``report`` not installed) the command names the extra in one
    line and exits 2."""
    import builtins

    real = builtins.__import__

    def fake(name, *a, **kw):
        if name == "jinja2":
            raise ImportError("no jinja2", name="jinja2")
        return real(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", fake)
    assert main(["report", "rotation.sin_angle_addition", "--no-pdf"]) == 2
    err = capsys.readouterr().err
    assert "peproof[report]" in err and "jinja2" in err and err.count("\n") == 1


def _imports_report(path: Path) -> bool:
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(n.split(".")[0] == "peproof_report" for n in names):
            return True
    return False


def test_core_never_imports_the_report():
    """Only the command that runs the report imports it; the check itself can fail."""
    files = [p for p in (ROOT / "peproof").rglob("*.py")]
    importers = sorted(str(p.relative_to(ROOT)) for p in files if _imports_report(p))
    assert importers == ["peproof/commands/report.py"], importers
    assert _imports_report(ROOT / "tests" / "test_report.py")  # the detector sees an import


# ---------------------------------------------------------------------------- sources as data
def test_the_documents_do_not_depend_on_the_seed_texts(tmp_path, monkeypatch):
    """Built from one run, with the seed texts present and with PEPROOF_SEEDS pointing to an
    empty folder: byte-identical .tex files (sources are named by the project's data); the
    quotes are checked only when the texts are there."""
    from peproof.seeds import seeds_dir

    texts = seeds_dir()
    if texts is None:
        pytest.skip("the seed texts are not present on this machine")
    data = run.collect(tmp_path / "run", pattern="worked.*", numerics="none", peers=False,
                       workers=1, quiet=True)
    outs = []
    (tmp_path / "empty").mkdir()
    for name, folder in (("with", texts), ("without", tmp_path / "empty")):
        monkeypatch.setenv("PEPROOF_SEEDS", str(folder))
        res = B.build(build_dir=tmp_path / name, run=data, compile_pdf=False, quiet=True,
                      full=True)
        outs.append((res, res.tex_path.read_bytes(), res.more_tex[0].read_bytes()))
    (with_, a, ra), (without, b, rb) = outs
    assert a == b and ra == rb
    assert with_.quotes["checked"] > 0 and not with_.quotes["missing"]
    assert without.quotes["checked"] == 0 and without.quotes["absent"] > 0
    assert b"Sinusoidal Positional Encoding" in ra  # the titles come from the project's data


def test_a_quote_missing_from_its_seed_is_reported(tmp_path, monkeypatch):
    """The quote check can fail: a seed text that lacks a quoted sentence is reported."""
    from peproof.seeds import SEEDS, seeds_dir

    if seeds_dir() is None:
        pytest.skip("the seed texts are not present on this machine")
    for f in SEEDS:
        (tmp_path / f).write_text("nothing quoted here\n")
    monkeypatch.setenv("PEPROOF_SEEDS", str(tmp_path))
    rows = [{"id": "worked.x_y", "sources": [{"seed": SEEDS[0], "quote": "a sentence"}]}]
    q = B.verify_quotes(rows)
    assert q["checked"] == 0 and q["missing"] == ["worked.x_y: a sentence"]


# ---------------------------------------------------------------------------- other branches' data
def test_verdict_fields_the_record_does_not_know_are_printed(tmp_path):
    """A field a later engine adds to a verdict (a second kernel's certificate) appears in the
    record as it is; a method labelled ``construction`` is shown as settled by construction and
    counted apart in the agreement table."""
    import copy

    data = _tiny_run(tmp_path / "run")
    data = copy.deepcopy(data)
    row = data["results"]["claims"][0]
    row["verdict"]["kernels"] = ["sympy-exp", "flint-fmpz-poly"]
    row["verdict"]["method"] = "construction"
    res = B.build(build_dir=tmp_path / "out", run=data, compile_pdf=False, quiet=True,
                  full=True)
    record = res.more_tex[0].read_text()
    assert "fmpz" in record and "kernels" in record
    assert "by construction" in record
    assert "primary=construction" in record
    assert content.settled_by_construction({"method": "decision procedure (both sides "
                                                      "identical as built)"})
    assert not content.settled_by_construction({"method": "decision procedure"})
