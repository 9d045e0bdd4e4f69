"""The ``uses`` graph of the claims: numbering, layered layouts, per-family views.

Claims are numbered ``f.n`` (family ``f`` in the order of the results, claim ``n`` within it);
both documents use the same numbers.  A layout puts a claim at the depth of its longest chain of
``uses`` below it and orders each layer by a few barycentre sweeps; drawing is in
:mod:`.figures`.
"""

from __future__ import annotations

from collections import Counter


def numbering(rows: list[dict]) -> tuple[dict[str, str], list[str]]:
    """``{claim id: "f.n"}`` and the families in order of first appearance."""
    fams: list[str] = []
    count: Counter = Counter()
    out = {}
    for r in rows:
        f = r["family"]
        if f not in fams:
            fams.append(f)
        count[f] += 1
        out[r["id"]] = f"{fams.index(f) + 1}.{count[f]}"
    return out, fams


def layout(nodes: list[str], uses: dict[str, list[str]]) -> dict[str, tuple[int, int, int]]:
    """``{node: (layer, row, rows in layer)}`` for the subgraph on ``nodes``."""
    inside = set(nodes)
    sub = {a: [u for u in uses.get(a, []) if u in inside] for a in nodes}
    depth: dict[str, int] = {}

    def dep(a: str, seen: tuple = ()) -> int:
        if a in depth:
            return depth[a]
        if a in seen:
            return 0
        d = max((dep(u, (*seen, a)) + 1 for u in sub[a]), default=0)
        depth[a] = d
        return d

    for a in nodes:
        dep(a)
    layers: dict[int, list[str]] = {}
    for a in sorted(nodes):
        layers.setdefault(depth[a], []).append(a)
    order = {a: i for lay in layers.values() for i, a in enumerate(lay)}
    for _ in range(6):
        for k in sorted(layers)[1:]:
            def bary(a, k=k):
                us = [order[u] for u in sub[a]]
                return (sum(us) / len(us) if us else order[a], a)

            layers[k].sort(key=bary)
            for i, a in enumerate(layers[k]):
                order[a] = i
    return {a: (k, i, len(lay)) for k, lay in layers.items() for i, a in enumerate(lay)}


def summary(rows: list[dict], number: dict[str, str]) -> dict:
    """Counts for the text, the claims that rest on unproved ones, edges between families."""
    uses = {r["id"]: list(r["uses"]) for r in rows}
    status = {r["id"]: r["verdict"]["status"] for r in rows}
    nodes = sorted({a for a, us in uses.items() if us} | {u for us in uses.values() for u in us})
    depth = max((k for k, _, _ in layout(nodes, uses).values()), default=0)
    weak = [(a, [u for u in uses[a] if status.get(u) != "proved"]) for a in nodes
            if status.get(a) == "proved" and uses.get(a)]
    fam_edges = Counter((a.split(".")[0], u.split(".")[0]) for a in nodes
                        for u in uses.get(a, []) if a.split(".")[0] != u.split(".")[0])
    return {"size": len(nodes), "edges": sum(len(uses.get(a, [])) for a in nodes),
            "depth": depth, "weak": [(a, bad) for a, bad in weak if bad],
            "family_edges": sorted(fam_edges.items())}


def family_view(family: str, rows: list[dict]) -> dict | None:
    """The claims of ``family`` that take part in an edge, with the outside claims they use
    (``None`` if the family's claims cite nothing and nothing in it is cited from inside)."""
    uses = {r["id"]: list(r["uses"]) for r in rows}
    mine = [r["id"] for r in rows if r["family"] == family]
    mset = set(mine)
    members = {a for a in mine if uses[a]} | {u for a in mine for u in uses[a] if u in mset}
    if not members:
        return None
    outside = sorted({u for a in members for u in uses[a] if u not in mset})
    nodes = sorted(members) + outside
    return {"nodes": nodes, "outside": outside,
            "edges": [(u, a) for a in sorted(members) for u in uses[a]],
            "layout": layout(nodes, uses)}


def whole_view(rows: list[dict]) -> dict:
    uses = {r["id"]: list(r["uses"]) for r in rows}
    nodes = sorted({a for a, us in uses.items() if us} | {u for us in uses.values() for u in us})
    return {"nodes": nodes, "outside": [],
            "edges": [(u, a) for a in nodes for u in uses.get(a, [])],
            "layout": layout(nodes, uses)}
