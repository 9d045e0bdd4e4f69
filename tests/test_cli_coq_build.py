"""Where ``peproof prove`` writes its Coq files: ``$PEPROOF_COQ_BUILD`` when set (each test
worker has its own, tests/conftest.py), reports/build/coq in a checkout otherwise -- so two
workers never write the same .v file of the checkout."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from peproof import cli
from peproof.cli import main
from peproof.guard.paths import coq_build_dir

CHECKOUT_COQ = Path(cli.__file__).resolve().parent.parent / "reports" / "build" / "coq"


def _snapshot(folder: Path) -> dict:
    if not folder.is_dir():
        return {}
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}


def test_the_suite_gives_this_worker_its_own_folder():
    own = Path(os.environ["PEPROOF_COQ_BUILD"])
    assert own.resolve() != CHECKOUT_COQ.resolve()
    assert coq_build_dir() == own


def test_the_default_is_the_checkouts_folder(monkeypatch):
    monkeypatch.delenv("PEPROOF_COQ_BUILD")
    assert coq_build_dir() == (CHECKOUT_COQ if CHECKOUT_COQ.parent.parent.is_dir()
                                   else None)


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")
def test_prove_writes_its_v_files_where_told_and_not_into_the_checkout(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setenv("PEPROOF_COQ_BUILD", str(tmp_path / "coq"))
    before = _snapshot(CHECKOUT_COQ)
    main(["prove", "rotation.sin_*", "--no-falsifiers", "--json"])
    rows = json.loads(capsys.readouterr().out)["claims"]
    vfiles = [r["coq"]["vfile"] for r in rows if r.get("coq", {}).get("vfile")]
    assert vfiles, "no claim of the pattern got a .v file"
    for v in vfiles:  # relative to the build folder: coq/NAME.v
        assert (tmp_path / v).is_file(), v
    assert _snapshot(CHECKOUT_COQ) == before
