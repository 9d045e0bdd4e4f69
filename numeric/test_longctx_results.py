"""The long-context results file and the README table generated from it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from peproof.numeric import longctx
from peproof.numeric.engine import RunConfig
from peproof.numeric.separation import certify

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "longctx.json"
BEGIN, END = "<!-- longctx-table:begin -->", "<!-- longctx-table:end -->"


def test_readme_table_is_the_one_generated_from_the_results_file():
    """A hand edit of the table (or a results file changed without `make_longctx_table.py
    readme`) fails here."""
    text = (HERE / "README.md").read_text(encoding="utf-8")
    data = longctx.load(DATA)
    assert longctx.replace_section(text, longctx.markdown(data), BEGIN, END) == text
    edited = text.replace("| 1 | yes |", "| 2 | yes |", 1)
    assert longctx.replace_section(edited, longctx.markdown(data), BEGIN, END) != edited


def test_results_file_schema_and_certified_entries():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["schema"] == longctx.SCHEMA and data["entries"]
    for e in data["entries"]:
        s = e["separation"]
        assert (e["d"], e["n_pos"]) == (s["d"], s["n_pos"])
        assert s["min_sq"]["lo"] <= s["min_sq"]["hi"] and s["distinct"], e["d"]
        assert s["run"]["chunks"] == s["chunks"] and e["machine"]["code_version"]
        assert e["date"][:4].isdigit()


def test_entry_add_replace_and_summary(tmp_path):
    f = tmp_path / "r.json"
    sep = certify(16, 3000, run=RunConfig(engine="inline"))
    longctx.add(f, longctx.entry(sep))
    longctx.add(f, longctx.entry(sep))  # same (d, N, family, base): replaced, not doubled
    data = longctx.load(f)
    assert len(data["entries"]) == 1
    assert data["entries"][0]["separation"]["min_sq"] == json.loads(
        json.dumps(sep.as_dict()["min_sq"]))
    assert "minimum is at offset 1" in longctx.summary(data)
    odd = copy.deepcopy(data)
    odd["entries"][0]["separation"]["argmin"] = [7]  # the summary is computed, so it notices
    assert "not: d=16 N=3000" in longctx.summary(odd)


def test_entries_carry_the_load_they_were_measured_under(tmp_path):
    """A time in the table says how busy the machine was: the load at the scan's start and end
    is stored and shown; entries from before the load was recorded say ``load ?``."""
    f = tmp_path / "r.json"
    sep = certify(16, 3000, run=RunConfig(engine="inline"))
    e = longctx.entry(sep, load_before=1.25)
    assert e["load"]["start"] == 1.25
    assert e["load"]["end"] is None or e["load"]["end"] >= 0
    longctx.add(f, e)
    row = longctx.markdown(longctx.load(f)).splitlines()[2]
    assert ", load 1.2" in row or ", load 1.3" in row
    old = copy.deepcopy(e)
    del old["load"]
    assert longctx.load_text(old) == "load ?"
    assert longctx.load_text({"load": {"start": 0.5, "end": 3.0}}) == "load 0.5-3.0"
