"""The HTML edition: the report's claims, verdicts, statements, errata and dependency graphs as
one self-contained page, whose graphs are clickable (each node links to its claim).

It is written from the same run as the PDF (:func:`peproof_report.run.collect`): the results'
rows, the printed statements (``render``: the rows the PDF typesets, as LaTeX source), the
registry's family titles and errata classification, the numbering of :mod:`.graph`.  Graphs are
inline SVG drawn by :func:`.figures.graph_figure` with a link on every node; formulas are
MathML converted from the LaTeX at build time (:mod:`.mathml`); nothing is fetched from the
network when the page is read.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from markupsafe import Markup

from . import evidview, figures, graph, mathml
from .build import FAMILY_GRAPH_MIN, TEMPLATES

HTML_NAME = "peproof-report.html"
ERRATA_KINDS = (("error", "Errors of the sources"),
                ("literal", "Statements false only to the letter"),
                ("rejected-inference", "Inferences the sources themselves reject"))
ERRATA_ORDER = tuple(k for k, _ in ERRATA_KINDS)


def anchor(cid: str) -> str:
    """The element id of a claim (``claim-rope.decay_bound_at_zero``)."""
    return "claim-" + cid


def svg(view: dict, number: dict, status: dict, labels: str = "number",
        width: float = figures.WIDTH) -> str:
    """A graph as inline SVG, every node (marker and label) a link to its claim."""
    import matplotlib.pyplot as plt

    links = {a: "#" + anchor(a) for a in view["nodes"] if a in number}  # claims of the page
    fig = figures.graph_figure(view, number, status, labels, width, links=links)
    buf = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none"}):  # labels as text: searchable, selectable
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight",
                    pad_inches=0.02)
    plt.close(fig)
    # in-page links (matplotlib opens every link in a new window)
    text = buf.getvalue().replace(' target="_blank"', "")
    text = re.sub(r"^<\?xml[^>]*>\s*", "", text)
    text = re.sub(r"^<!DOCTYPE[^>]*>\s*", "", text, flags=re.S)
    return text


def context(run: dict, links: dict | None = None) -> dict:
    """The page's context; ``links``: the claims' ``.v`` files relative to the page's folder
    (:func:`.evidview.place_vfiles`)."""
    rows = run["results"]["claims"]
    render = run.get("render") or {}
    reg = run.get("registry") or {}
    number, fams = graph.numbering(rows)
    status = {r["id"]: r["verdict"]["status"] for r in rows}
    used_by: dict[str, list[str]] = {}
    for r in rows:
        for u in r["uses"]:
            used_by.setdefault(u, []).append(r["id"])
    claims = {}
    for r in rows:
        rd = render.get(r["id"]) or {}
        st = rd.get("compact") or rd.get("statement") or {}
        w = rd.get("witness") or {}
        claims[r["id"]] = {
            "id": r["id"], "anchor": anchor(r["id"]), "number": number[r["id"]],
            "title": r["title"], "status": r["verdict"]["status"],
            "engine": r["verdict"]["engine"], "method": r["verdict"].get("method") or "",
            "statement": [mathml.html(row) for row in st.get("rows") or []],
            "statement_more": (st.get("total", 0) or 0) - (st.get("shown", 0) or 0),
            "refuted": mathml.html(w["relation"], "inline") if w.get("relation") else None,
            "legend": rd.get("legend") or [],
            "sources": [s["quote"] for s in r["sources"]],
            "uses": [(u, anchor(u) if u in number else None, number.get(u, u))
                     for u in r["uses"]],
            "used_by": [(u, anchor(u), number[u]) for u in used_by.get(r["id"], [])],
            "evidence": evidview.evidence_view(r), "coq": evidview.coq_view(r, links),
        }
    families = []
    titles = reg.get("family_titles") or {}
    evid = evidview.family_counts(rows, fams)
    by_family = {f["name"]: f for f in evid["families"]}
    for f in fams:
        ids = [r["id"] for r in rows if r["family"] == f]
        view = graph.family_view(f, rows)
        families.append({
            "name": f, "anchor": "family-" + f, "title": titles.get(f, f),
            "number": fams.index(f) + 1, "claims": [claims[i] for i in ids],
            "counts": {s: sum(status[i] == s for i in ids) for s in ("proved", "refuted",
                                                                    "unknown")},
            "evidence": by_family[f],
            "graph": svg(view, number, status) if view and len(view["nodes"]) >= FAMILY_GRAPH_MIN
            else None})
    errata = reg.get("errata") or {}
    found = [(errata[i], claims[i]) for i in claims if i in errata]
    errs = {k: [c for e, c in sorted(found, key=lambda ec: (ec[0]["rank"] or 0, ec[1]["id"]))
                if e["kind"] == k] for k in ERRATA_ORDER}
    consequence = {i: e["consequence"] for i, e in errata.items()}
    whole = graph.whole_view(rows)
    res = run["results"]
    return {"meta": {"commit": res["commit"], "commit_short": res["commit"][:12],
                     "version": res["suite_version"]},
            "errata_kinds": ERRATA_KINDS,
            "style": (Path(TEMPLATES) / "report.css").read_text(encoding="utf-8"),
            "summary": run["results"]["summary"], "families": families, "errata": errs,
            "evidence": evid, "coq": evidview.coq_summary(rows),
            "consequence": consequence,
            "graph": svg(whole, number, status, labels="full", width=10.5)
            if whole["nodes"] else None}


def write(run: dict, build_dir: Path, links: dict | None = None) -> Path:
    """Write ``peproof-report.html`` into ``build_dir``; returns its path.  ``links``: the
    claims' ``.v`` files relative to ``build_dir`` (placed there by
    :func:`.evidview.place_vfiles`, which is called here when not given)."""
    import jinja2

    from peproof.cli import write_atomic

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["raw"] = Markup  # our SVG and style sheet, not data
    path = Path(build_dir) / HTML_NAME
    if links is None:
        links = evidview.place_vfiles(run["results"]["claims"], Path(build_dir))
    write_atomic(path, env.get_template("report.html.j2").render(**context(run, links)))
    return path
