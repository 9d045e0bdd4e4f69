"""The mutant list of ``make mutants`` stays in sync with the code (the full mutation run is too
slow for CI; this check is instant): every snippet occurs exactly once in its file, every engine
file and the encoding have mutants, each mutant says why it matters."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutants_run", ROOT / "tests/mutants/run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

MUTANTS = run.load()


def test_every_snippet_occurs_exactly_once():
    assert run.check(MUTANTS) == []


def test_the_encoding_and_every_engine_file_have_at_least_two_mutants():
    engines = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "peproof/engines").glob("*.py")
                     if p.name != "__init__.py")
    per_file = {}
    for m in MUTANTS:
        per_file[m["file"]] = per_file.get(m["file"], 0) + 1
    for f in engines + ["peproof/encoding.py"]:
        assert per_file.get(f, 0) >= 2, f"{f}: {per_file.get(f, 0)} mutant(s)"
    assert len(MUTANTS) >= 60


TRUSTED = {  # the trusted files outside peproof/engines and the fewest mutants each must have
    "peproof/kernel/falsify.py": 4, "peproof/kernel/points.py": 4,
    "peproof/kernel/coq/translate.py": 4, "peproof/kernel/coq/run.py": 4,
    "peproof/kernel/coq/check.py": 4, "peproof/evidence.py": 4,
    "peproof/kernel/coq/library.py": 2, "peproof/kernel/coq/reparse.py": 2,
}


def test_the_trusted_kernel_files_have_mutants_run_against_their_own_tests():
    """The falsification gate, the Coq kernel and the evidence levels are not covered by the
    engine subset of run.py: each of their mutants names its module's tests."""
    per_file: dict = {}
    for m in MUTANTS:
        per_file[m["file"]] = per_file.get(m["file"], 0) + 1
        if m["file"] in TRUSTED:
            assert m.get("tests"), f"{m['id']}: no tests listed"
    for f, least in TRUSTED.items():
        assert per_file.get(f, 0) >= least, f"{f}: {per_file.get(f, 0)} mutant(s)"


def test_each_mutant_changes_one_line():
    for m in MUTANTS:
        old, new = m["old"].splitlines(), m["new"].splitlines()
        assert len(old) == len(new), m["id"]
        assert sum(a != b for a, b in zip(old, new, strict=True)) == 1, m["id"]


def test_the_list_check_catches_a_stale_snippet(tmp_path):
    (tmp_path / "f.py").write_text("a = 1\nb = 1\n")
    good = {"id": "g", "file": "f.py", "old": "a = 1", "new": "a = 2", "why": "w"}
    assert run.check([good], tmp_path) == []
    errors = run.check([{**good, "old": "c = 1"}, {**good, "id": "h", "old": " = 1"},
                        {**good, "id": "i", "new": "a = 1"}, {**good, "id": "g"},
                        {**good, "id": "j", "file": "missing.py"},
                        {"id": "k", "file": "f.py", "old": "a = 1", "new": "a = 3"}], tmp_path)
    assert any("g: snippet occurs 0 times" in e for e in errors)
    assert any("h: snippet occurs 2 times" in e for e in errors)
    assert any("i: replacement equals the original" in e for e in errors)
    assert any("g: duplicate id" in e for e in errors)
    assert any("j: no file missing.py" in e for e in errors)
    assert any("k: missing why" in e for e in errors)
    assert run.check([{**good, "tests": ["f.py", "f.py::test_x"]}], tmp_path) == []
    errors = run.check([{**good, "tests": ["nope.py"]}, {**good, "id": "l", "tests": "f.py"}],
                       tmp_path)
    assert any("g: no test file nope.py" in e for e in errors)
    assert any("l: tests must be a list" in e for e in errors)
    assert run.tests_of(good) == run.TESTS
    assert run.tests_of({**good, "tests": ["f.py"]}) == ("f.py",)
    assert run.tests_of({**good, "tests": ["f.py"]}, ["g.py"]) == ("g.py",)
    with pytest.raises(run.ListError):
        run.mutate("b = 1\n", good)
    assert run.mutate("a = 1\nb = 1\n", good) == "a = 2\nb = 1\n"


def test_documented_equivalents_give_their_reason():
    for m in MUTANTS:
        if "equivalent" in m:
            assert len(m["equivalent"].split()) >= 10, m["id"]


def test_mutants_named_by_the_killing_tests_exist():
    """Each test of tests/test_engine_mutants.py names the mutants it kills ('Kills <id>'):
    those ids must be in the list (a renamed mutant must not leave a stale reference)."""
    import re

    text = (ROOT / "tests/test_engine_mutants.py").read_text()
    ids = {m["id"] for m in MUTANTS}
    prefixes = "|".join(sorted({i.split("-")[0] for i in ids}))
    named = set(re.findall(rf"\b(?:{prefixes})-[A-Za-z0-9.-]*[A-Za-z0-9]", text))
    assert len(named) >= 40, sorted(named)
    assert named <= ids, sorted(named - ids)
