"""Ambiguity disclosed: when other variants fit the whole table within the error model too, the
verdict names the simplest and lists the others ("indistinguishable here from: ..."), in the
text, the JSON envelope and the report's peer table.  Each listed variant is re-checked here as
the expectation and must pass: the disclosure is a claim about the table, not a guess."""

import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from peproof.oracle import check, reference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))


def test_a_bfloat16_table_lists_the_variants_it_cannot_tell_apart():
    t = reference(300, 64).astype(ml_dtypes.bfloat16)
    rep = check(t)
    assert rep.ok and rep.identified.variant.family == "paper"
    also = rep.identified.indistinguishable
    assert also, "a bfloat16 table of 64 channels fits other bases of the h-1 family too"
    assert rep.to_json()["identified"]["indistinguishable_from"] == also
    assert "indistinguishable here from: " + "; ".join(also) in rep.render()
    for name in also:  # every disclosed variant does fit the whole table
        m = re.match(r"(paper|h-1|nerf) family, base (\d+)", name)
        assert m, name
        assert check(t, expect=m.group(1), base=int(m.group(2))).ok, name


def test_a_float32_table_is_not_ambiguous():
    rep = check(reference(300, 64).astype(np.float32))
    assert rep.ok and rep.identified.indistinguishable == []
    assert "indistinguishable" not in rep.render()


def test_the_peer_table_shows_it():
    from peproof_report.build import _peers_view

    row = {"status": "checked", "implementation": "x", "package": "p", "verdict": "within",
           "identified": "paper family, base 10000", "max_abs": 1e-3, "shape": [3, 4],
           "indistinguishable": ["h-1 family, base 7000"]}
    view = _peers_view({"rows": [row]})
    assert "indistinguishable here from: h-1 family, base 7000" in str(
        view["rows"][0]["identified_f"])
    assert "indistinguishable" not in str(_peers_view({"rows": [
        {**row, "indistinguishable": []}]})["rows"][0]["identified_f"])
