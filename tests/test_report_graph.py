"""Every family's dependency graph is legible at print size: the report includes it at its
natural size, its labels are at least 6 points, no two labels overlap, and it fits the text
width.  The graphs are drawn from the registry's ``uses`` (no claim is decided here).
"""

from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import pytest

from peproof import registry
from peproof.commands.report import load_generator

load_generator()
from peproof_report import figures, graph  # noqa: E402
from peproof_report.build import TEMPLATES  # noqa: E402

MIN_POINTS = 6.0
TEXT_WIDTH_IN = (21.0 - 2 * 1.8) / 2.54  # A4, margins 1.8 cm (preamble.tex.j2)
TEXT_HEIGHT_IN = (29.7 - 2 * 1.8) / 2.54 - 0.4  # less the running head
ROWS = [{"id": c.id, "family": c.family, "uses": list(c.uses)} for c in registry.all_claims()]
FAMILIES = sorted({r["family"] for r in ROWS})


def included_scale(fig) -> float:
    """The factor the report scales a family's graph by: 1 when it is included without
    options, else from ``width=\\linewidth`` / ``height=X\\textheight`` (keepaspectratio)."""
    text = (Path(TEMPLATES) / "report.tex.j2").read_text()
    m = re.search(r"\\includegraphics(?:\[([^\]]*)\])?\{\\VAR\{f\.graph\}\}", text)
    assert m, "the report no longer includes the family graphs"
    w, h = fig.get_size_inches()
    scale = []
    for opt in (m.group(1) or "").split(","):
        key, _, val = opt.partition("=")
        if key.strip() == "width" and val.strip() == r"\linewidth":
            scale.append(TEXT_WIDTH_IN / w)
        elif key.strip() == "height" and val.strip().endswith(r"\textheight"):
            scale.append(float(val.strip()[: -len(r"\textheight")] or 1) * TEXT_HEIGHT_IN / h)
        elif key.strip() not in ("", "keepaspectratio"):
            raise AssertionError(f"unknown option {opt!r}")
    return min(scale) if scale else 1.0


def labels(fig) -> list:
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    return [(t, t.get_window_extent(r)) for ax in fig.axes for t in ax.texts]


def problems(fig, scale: float) -> list[str]:
    out = []
    w, _ = fig.get_size_inches()
    if w * scale > TEXT_WIDTH_IN:
        out.append(f"{w * scale:.2f} in wider than the text")
    boxes = labels(fig)
    for t, _ in boxes:
        if not t.get_fontsize() * scale >= MIN_POINTS:
            out.append(f"label {t.get_text()} at {t.get_fontsize() * scale:.1f} pt")
    for (t1, b1), (t2, b2) in combinations(boxes, 2):
        if b1.overlaps(b2):
            out.append(f"labels {t1.get_text()} and {t2.get_text()} overlap")
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_family_graph_is_legible_at_print_size(family):
    import matplotlib.pyplot as plt

    view = graph.family_view(family, ROWS)
    if view is None:
        pytest.skip(f"{family}: no claim uses another")
    number, _ = graph.numbering(ROWS)
    fig = figures.graph_figure(view, number, {})
    try:
        found = problems(fig, included_scale(fig))
    finally:
        plt.close(fig)
    assert not found, found[:5]


def test_the_check_catches_small_and_crowded_labels():
    """Can fail: the largest family's graph printed at 80 % has labels under 6 points, and
    squeezed to a third of its height has overlapping labels."""
    import matplotlib.pyplot as plt

    fam = max(FAMILIES, key=lambda f: len((graph.family_view(f, ROWS) or {"nodes": []})["nodes"]))
    number, _ = graph.numbering(ROWS)
    fig = figures.graph_figure(graph.family_view(fam, ROWS), number, {})
    try:
        assert not problems(fig, 1.0)
        assert any(p.endswith(" pt") for p in problems(fig, 0.8))
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, h / 3)
        assert any("overlap" in p for p in problems(fig, 1.0))
    finally:
        plt.close(fig)


def test_a_tall_layer_is_wrapped_into_columns():
    """A layer of more claims than fit the height (GRAPH_MAX_ROWS) is wrapped into columns
    when the width allows; layers that fit are left in one column each."""
    m = figures.GRAPH_MAX_ROWS
    assert figures.wrap_rows([10, 7, 12, 2], 7) == 12
    assert figures.wrap_rows([2, 3 * m], 7) == m
    assert figures.wrap_rows([2 * m + 1, 2 * m + 1], 6) == m  # 3 + 3 columns
    assert figures.wrap_rows([2 * m + 1, 2 * m + 1], 5) == m + 1  # 2 + 2 columns
    assert figures.wrap_rows([2 * m + 1, 2 * m + 1], 2) == 2 * m + 1  # no room to wrap
