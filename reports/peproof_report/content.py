"""The template context: every value the document prints, derived from the run's data.

Nothing here is typed by hand: counts, verdicts, witnesses, numbers and captions' values come
from the results envelope, the numeric jobs and the registry.  Text values stay plain strings
(the template environment escapes them); LaTeX is returned as :class:`markupsafe.Markup`.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
import pkgutil
import re
from collections import Counter
from functools import cache

from markupsafe import Markup

from . import fmt
from .latex import claim_label, claim_ref, claim_tt, tex, tex_breakable, verdict

TRACE_LINES = 8  # trace lines shown per claim (after folding repeats)
WITNESS_CHARS = 300  # characters of a witness relation shown
#: a note states a tolerance: |x - r| <= t, "N decimals", "within", a percentage
TOLERANCE_RE = re.compile(r"\|[^|]+\|\s*<=\s*[\d.]|\b(?:one|two|three|four|five|\d+)\s+decimals?\b"
                          r"|\bwithin\b|\d\s*%|\brounded\b|\brounding\b", re.I)


# ---------------------------------------------------------------------------- meta
def build_date(commit_time: int | None) -> tuple[int | None, str]:
    """The document's date: ``SOURCE_DATE_EPOCH`` if set, else the commit time."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env), "SOURCE_DATE_EPOCH"
    if commit_time is not None:
        return commit_time, "commit time"
    return None, "not recorded"


def date_text(epoch: int | None) -> str:
    if epoch is None:
        return "not recorded (no SOURCE_DATE_EPOCH and no commit)"
    return dt.datetime.fromtimestamp(epoch, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def seed_label(seed_file: str) -> str:
    m = re.match(r"(\d+)_", seed_file)
    return f"seed {m.group(1)}" if m else seed_file


def seeds_info(rows: list[dict]) -> list[dict]:
    from peproof.seeds import seeds_dir

    sd = seeds_dir()
    cited = Counter(s["seed"] for r in rows for s in r["sources"])
    out = []
    for f in sorted(cited):
        opening = ""
        if sd and (sd / f).is_file():
            for line in (sd / f).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    opening = line.strip()
                    break
        out.append({"label": seed_label(f), "file": f, "opening": opening, "claims": cited[f]})
    return out


def family_titles() -> dict[str, str]:
    """Family name -> first line of its module docstring (the family module named like it)."""
    import peproof.families as fam

    out: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(fam.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"peproof.families.{info.name}")
        doc = (mod.__doc__ or "").strip().splitlines()
        claims = getattr(mod, "CLAIMS", ())
        if not claims or not doc:
            continue
        fam_name = claims[0].family
        if fam_name not in out or info.name == fam_name:
            out[fam_name] = doc[0].strip().rstrip(".")
    return out


# ---------------------------------------------------------------------------- pieces
_ID_TOKEN = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*\.[a-z0-9]+(?:_[a-z0-9]+)+\b")


def linkify(text: str, ids: set[str], known: frozenset[str] | None = None) -> Markup:
    """``text`` escaped, with every claim id in it set in typewriter type (and linked when the
    claim is in this report)."""
    out, last = [], 0
    for m in _ID_TOKEN.finditer(text):
        tok = m.group()
        if tok not in ids and (known is None or tok not in known):
            continue
        out.append(tex_breakable(text[last:m.start()]))
        out.append(claim_ref(tok) if tok in ids else claim_tt(tok))
        last = m.end()
    out.append(tex_breakable(text[last:]))
    return Markup("".join(out))



def fold_trace(lines: list[str]) -> list[tuple[str, int]]:
    """Consecutive repeats of a block of 1..4 lines folded into (line, times); blocks are
    returned line by line with the repeat count on their first line."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(lines)
    while i < n:
        best_p, best_k = 1, 1
        for p in range(1, 5):
            k = 1
            while i + (k + 1) * p <= n and lines[i + k * p:i + (k + 1) * p] == lines[i:i + p]:
                k += 1
            if k > 1 and k * p > best_k * best_p:
                best_p, best_k = p, k
        for j in range(best_p):
            out.append((lines[i + j], best_k if j == 0 else 0))
        i += best_p * best_k
    return out


def trace_view(lines: list[str]) -> dict:
    folded = fold_trace(lines)
    shown = folded[:TRACE_LINES]
    items = []
    for line, times in shown:
        s, _ = fmt.clip(line, 240)
        prefix = f"({times}\u00d7) " if times > 1 else ""
        items.append(Markup(tex_breakable(prefix + s)))
    return {"lines": items, "more": max(0, len(folded) - len(shown)), "total": len(lines)}


def witness_view(w: dict | None) -> dict | None:
    if not w:
        return None
    out: dict = {"certified_by": w.get("certified_by", "")}
    if w.get("point") is not None:
        pt = w["point"]
        out["point"] = Markup(", ".join(
            rf"\texttt{{{tex(k)}}} $=$ \texttt{{{tex_breakable(v)}}}" for k, v in pt.items())
            or "no variables")
    for k in ("lhs", "rhs"):
        if w.get(k) is not None:
            out[k] = Markup(rf"\texttt{{{tex_breakable(w[k])}}}")
    if w.get("relation"):
        s, cut = fmt.clip(w["relation"], WITNESS_CHARS)
        out["relation"] = Markup(rf"\texttt{{{tex_breakable(s)}}}")
        out["relation_cut"] = cut
    arg = w.get("argument")
    if arg:
        items = arg if isinstance(arg, list) else [a.strip() for a in arg.split(" / ")]
        out["argument"] = [Markup(tex_breakable(a)) for a in items]
    for k in ("axioms", "negation", "note", "found_by", "kind"):
        if w.get(k):
            val = w[k]
            out[k] = ([Markup(tex_breakable(a)) for a in val] if isinstance(val, list)
                      else Markup(tex_breakable(val)))
    return out


ERRATA_ROWS = 8  # rows of a statement in the errata (the claim's section has it in full)


def statement_rows(render: dict | None, max_rows: int | None = None) -> dict | None:
    """The printed statement; with ``max_rows``, only the conclusions that fit (at least the
    first, unless it alone is longer: then the claim's section is referred to)."""
    if not render or not render.get("statement"):
        return None
    st = render["statement"]
    rows, shown, see_section = list(st["rows"]), st["shown"], False
    def height(a: int, b: int) -> float:  # a row holding a fraction is about twice as tall
        return sum(2.0 if r"\frac" in r else 1.0 for r in rows[a:b])

    if max_rows is not None and height(0, len(rows)) > max_rows and st.get("spans"):
        spans = st["spans"]
        keep = [sp_ for sp_ in spans if height(0, sp_[1]) <= max_rows]
        if keep:
            rows, shown = rows[: keep[-1][1]], len(keep)
        else:
            rows, shown, see_section = [], 0, True
    return {"rows": [Markup(r) for r in rows], "omitted": st["total"] - shown,
            "total": st["total"], "shown": shown, "notes": st["notes"],
            "summarised": st["summarised_sides"] if not see_section else 0,
            "see_section": see_section}


def steps_view(render: dict | None, run_trace: list[str]) -> dict | None:
    s = (render or {}).get("steps")
    if not s or "error" in s:
        return None
    rows = []
    notes = {"difference": "", "laurent": "", "expanded": ""}
    for k, step in enumerate(s["steps"]):
        head = r"\text{lhs} - \text{rhs} &= " if k == 0 else "&= "
        if step["rows"] is None:
            rows.append(Markup(head + rf"\text{{(a sum of {step['terms']} terms, not "
                               r"printed)}" + notes[step["label"]]))
            continue
        body = step["rows"]
        rows.append(Markup(head + body[0] + (notes[step["label"]] if len(body) == 1 else "")))
        for j, r in enumerate(body[1:], 1):
            rows.append(Markup(r"&\qquad " + r + (notes[step["label"]] if j == len(body) - 1
                                                   else "")))
    ran_zero = any(t == "expanded difference: 0" for t in run_trace)
    return {"rows": rows, "atoms": [Markup(a) for a in s["atoms"]], "zero": s["zero"],
            "identical_sides": s.get("identical_sides", False),
            "lifted": s.get("lifted"), "agrees_with_run": s["zero"] == ran_zero}


def _axioms(v: dict) -> list[str]:
    return list(dict.fromkeys(v.get("axioms") or []))


def falsifier_view(f: dict) -> dict:
    v = f["verdict"]
    w = v.get("witness") or {}
    pt = w.get("point")
    if pt:
        point = ", ".join(f"{k}={val}" for k, val in pt.items())
        point, _ = fmt.clip(point, 90)
    else:
        point = w.get("kind") or ("no variables" if pt == {} else "")
    z = f.get("z3_verdict")
    return {"name": Markup(tex_breakable(f["name"])), "note": f.get("note", ""),
            "status": Markup(verdict(v["status"])),
            "engine": v["engine"], "point": point,
            "z3": Markup(verdict(z["status"])) if z and z.get("method") != "not applicable"
            else "n/a"}


# ---------------------------------------------------------------------------- the context
@cache
def known_ids() -> frozenset[str]:
    from peproof import registry

    return frozenset(c.id for c in registry.all_claims())


def claim_view(row: dict, render: dict | None, used_by: list[str], ids: set[str]) -> dict:
    v = row["verdict"]
    z = row.get("z3") or {}
    return {
        "id": row["id"],
        "label": claim_label(row["id"]),
        "tt": Markup(claim_tt(row["id"])),
        "title": row["title"],
        "kind": row["kind"],
        "sources": [{"label": seed_label(s["seed"]), "section": s["section"],
                     "quote": Markup(tex_breakable(s["quote"]))} for s in row["sources"]],
        "statement": statement_rows(render),
        "informal": row["statement"] is None,
        "status": v["status"],
        "verdict": Markup(verdict(v["status"])),
        "engine": v["engine"], "method": v["method"], "version": v["version"],
        "seconds": fmt.seconds(v["seconds"]),
        "axioms": [Markup(tex_breakable(a)) for a in _axioms(v)],
        "reason": Markup(tex_breakable(v.get("reason") or "")),
        "witness": witness_view(v.get("witness")),
        "trace": trace_view(v.get("trace") or []),
        "steps": steps_view(render, v.get("trace") or []),
        "z3": {"cell": row["engines"].get("z3", "n/a"),
               "verdict": Markup(verdict(z["status"])) if z else "",
               "method": z.get("method", ""),
               "axioms": [Markup(tex_breakable(a)) for a in _axioms(z)],
               "reason": Markup(tex_breakable(z.get("reason", "")))},
        "numeric": row["engines"].get("numeric", "n/a"),
        "conflict": row.get("conflict", False),
        "expect": row["expect"],
        "agrees": row["agrees_with_expectation"],
        "note": linkify(row.get("note") or "", ids, known_ids()),
        "uses": [Markup(claim_ref(u) if u in ids else claim_tt(u)) for u in row["uses"]],
        "used_by": [Markup(claim_ref(u)) for u in used_by],
        "companion": (Markup(claim_ref(row["companion"]) if row["companion"] in ids
                             else claim_tt(row["companion"])) if row.get("companion") else None),
        "falsifiers": [falsifier_view(f) for f in row["falsifiers"]],
    }


def engine_cell(row: dict) -> Markup:
    e = row["engines"]
    return Markup(rf"{tex_breakable(row['verdict']['engine'])}\newline "
                  rf"{{\scriptsize z3: {tex(e.get('z3', 'n/a'))}; "
                  rf"num: {tex(e.get('numeric', 'n/a'))}}}")


def errata(rows: list[dict], by_id: dict, views: dict,
           render: dict) -> tuple[list[dict], list[dict]]:
    """Refuted statements of the seeds (with witness and companion), and statements that hold
    only within a stated tolerance."""
    refuted, approx = [], []
    for r in rows:
        if not r["sources"]:
            continue
        status = r["verdict"]["status"]
        if status == "refuted":
            comp = r.get("companion")
            crow = by_id.get(comp) if comp else None
            refuted.append({
                "view": views[r["id"]],
                "short": statement_rows(render.get(r["id"]), ERRATA_ROWS),
                "companion_short": statement_rows(render.get(comp), ERRATA_ROWS)
                if crow else None,
                "companion_id": comp,
                "companion": views.get(comp) if crow else None,
                "companion_status": Markup(verdict(crow["verdict"]["status"])) if crow else None,
            })
        elif status == "proved" and r.get("note") and TOLERANCE_RE.search(r["note"]):
            approx.append({"view": views[r["id"]]})
    return refuted, approx


def graph(rows: list[dict]) -> dict:
    """Layered layout of the ``uses`` graph (longest path from claims that use nothing), with
    the order inside each layer improved by a few barycentre sweeps."""
    uses = {r["id"]: [u for u in r["uses"]] for r in rows}
    status = {r["id"]: r["verdict"]["status"] for r in rows}
    nodes = sorted({a for a, us in uses.items() if us} | {u for us in uses.values() for u in us})
    depth: dict[str, int] = {}

    def dep(a: str, seen=()) -> int:
        if a in depth:
            return depth[a]
        if a in seen:
            return 0
        d = 0
        for u in uses.get(a, []):
            d = max(d, dep(u, (*seen, a)) + 1)
        depth[a] = d
        return d

    for a in nodes:
        dep(a)
    layers: dict[int, list[str]] = {}
    for a in nodes:
        layers.setdefault(depth[a], []).append(a)
    order = {a: i for lay in layers.values() for i, a in enumerate(sorted(lay))}
    for _ in range(6):
        for k in sorted(layers)[1:]:
            def bary(a):
                us = [order[u] for u in uses.get(a, []) if u in order]
                return (sum(us) / len(us) if us else order[a], a)
            layers[k].sort(key=bary)
            for i, a in enumerate(layers[k]):
                order[a] = i
    out_nodes = []
    for k, lay in sorted(layers.items()):
        for i, a in enumerate(lay):
            out_nodes.append({"id": a, "status": status.get(a, "unknown"), "layer": k, "row": i,
                              "rows_in_layer": len(lay), "uses": uses.get(a, [])})
    weak = []
    for a in nodes:
        bad = [u for u in uses.get(a, []) if status.get(u) != "proved"]
        if bad and status.get(a) == "proved":
            weak.append({"id": Markup(claim_ref(a)),
                         "on": [Markup(claim_ref(u) + " (" + verdict(status.get(u, "unknown"))
                                       + ")") for u in bad]})
    fam_edges = Counter((a.split(".")[0], u.split(".")[0]) for a in nodes
                        for u in uses.get(a, []) if a.split(".")[0] != u.split(".")[0])
    return {"nodes": out_nodes, "edges": sum(len(uses.get(a, [])) for a in nodes),
            "depth": max(depth.values(), default=0), "weak": weak,
            "size": len(nodes),
            "family_edges": [{"from": a, "to": b, "count": n}
                             for (a, b), n in sorted(fam_edges.items())]}
