"""The findings a reader can stop after: the sources' errors, the headline numbers, what is
proved and what is not.

Which refuted claims are errors of the sources, which are literal readings and which are
inferences the sources reject is data in the registry (:class:`peproof.claims.Erratum`), as is
the order of the errors by consequence; the numbers come from the run's numeric jobs.  A refuted
claim the registry does not classify is listed as such (the tests require none).
"""

from __future__ import annotations

from collections import Counter

from markupsafe import Markup

from . import fmt
from .content import Refs
from .latex import verdict

KIND_TEXT = {"error": "an error of the source", "literal": "false only to the letter",
             "rejected-inference": "an inference the source rejects",
             "unclassified": "not classified in the registry"}


def entries(rows: list[dict], views: dict, refs: Refs, errata: dict) -> dict:
    """Refuted claims of the sources by kind: ``error`` (sorted by rank), ``literal``,
    ``rejected-inference``, and ``unclassified``."""
    by_id = {r["id"]: r for r in rows}
    out: dict[str, list] = {"error": [], "literal": [], "rejected-inference": [],
                            "unclassified": []}
    for r in rows:
        if r["verdict"]["status"] != "refuted" or not r["sources"]:
            continue
        e = errata.get(r["id"])
        v = views[r["id"]]
        comp = r.get("companion")
        crow = by_id.get(comp) if comp else None
        kind = e["kind"] if e else "unclassified"
        item = {
            "view": v, "rank": e["rank"] if e else 0, "kind": kind,
            "kind_text": KIND_TEXT[kind], "ref": Markup(refs.ref(r["id"])),
            "companion_ref": Markup(refs.ref(comp)) if comp else None,
            "consequence": refs.prose(e["consequence"]) if e and e["consequence"] else None,
            "companion": views.get(comp) if crow else None,
            "companion_id": comp,
            "companion_status": Markup(verdict(crow["verdict"]["status"])) if crow else None,
        }
        out[item["kind"]].append(item)
    out["error"].sort(key=lambda i: (i["rank"], i["view"]["id"]))
    return out


def headline(num: dict, nv: dict) -> dict:
    """The numbers of the findings: per dimension the first turn of the slowest pair and the
    span of the frequencies, the closest pairs at small d, and the float16/bfloat16 horizons."""
    from peproof.numeric import N_TURN

    wrap = nv.get("wrap") or []
    half = (len(wrap) + 1) // 2
    out: dict = {"n_turn": fmt.integer(N_TURN), "wrap": wrap, "horizon": None,
                 "wrap_halves": [h for h in (wrap[:half], wrap[half:]) if h]}
    seps = nv.get("separation") or []
    out["close"] = [s for s in seps if s["argmin_raw"] and s["argmin_raw"][0] != 1]
    out["adjacent_closest"] = [s["d"] for s in seps if s["argmin_raw"][:1] == [1]]
    hz = nv.get("horizon")
    if hz:
        low = [dt for dt in hz["dtypes"] if dt in ("float16", "bfloat16")]
        rows = []
        for dt in low:
            cells = [hz["grid"].get((dt, rc)) for rc in hz["recipes"]]
            firsts = [c["raw"] for c in cells if c and c["raw"] is not None]
            rows.append({"dtype": dt, "cells": cells,
                         "earliest": fmt.integer(min(firsts)) if firsts else None})
        out["horizon"] = {"d": hz["d"], "n": hz["n"], "recipes": hz["recipes"], "rows": rows}
    return out


def status_paragraphs(rows: list[dict], summary: dict) -> dict:
    """Counts for the paragraphs on what is proved and what is unknown."""
    kinds = Counter(r["kind"] for r in rows if r["verdict"]["status"] == "proved")
    unknown = [r for r in rows if r["verdict"]["status"] == "unknown"]
    formal_unknown = [r for r in unknown if r["statement"] is not None]
    by_family: dict[str, list[str]] = {}
    for r in unknown:
        by_family.setdefault(r["family"], []).append(r["id"])
    construction = [r for r in rows if r["verdict"]["status"] == "proved"
                    and _construction(r["verdict"])]
    fams: dict[str, set] = {}
    for r in rows:
        fams.setdefault(r["family"], set()).add(r["verdict"]["status"])
    return {
        "complete": [{"name": f, "label": "sec:family-" + f.replace("_", "-")}
                     for f, st in fams.items() if st == {"proved"}],
        "proved_kinds": sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])),
        "unknown": len(unknown), "informal": len(unknown) - len(formal_unknown),
        "formal_unknown": [r["id"] for r in formal_unknown],
        "unknown_by_family": sorted(by_family.items(), key=lambda kv: (-len(kv[1]), kv[0])),
        "construction": len(construction),
        "refuted": summary.get("refuted", 0),
    }


def _construction(v: dict) -> bool:
    from .content import settled_by_construction

    return settled_by_construction(v)
