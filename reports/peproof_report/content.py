"""The template context for one claim: every value the documents print about it.

Nothing here is typed by hand: verdicts, witnesses, statements and numbers come from the results
envelope, the renderings computed next to the proofs (:mod:`.render`) and the registry.  Text
values stay plain strings (the template environment escapes them); LaTeX is returned as
:class:`markupsafe.Markup`.  Claims are referred to by number (``3.4``) with a link and the page
(``\\claimref``); the number, not the id, is what a reader follows.
"""

from __future__ import annotations

import datetime as dt
import os
import re

from markupsafe import Markup

from . import fmt
from .formulas import width
from .latex import claim_label, claim_tt, tex, tex_breakable, verdict
from .mathtext import quote_tex, title_tex

TRACE_LINES = 8  # trace lines shown per claim in the record (after folding repeats)
#: a note states a tolerance: |x - r| <= t, "N decimals", "within", a percentage
TOLERANCE_RE = re.compile(r"\|[^|]+\|\s*<=\s*[\d.]|\b(?:one|two|three|four|five|\d+)\s+decimals?\b"
                          r"|\bwithin\b|\d\s*%|\brounded\b|\brounding\b", re.I)
#: the method suffix of a verdict settled when its statement was built (both sides identical)
CONSTRUCTION_SUFFIX = "(both sides identical as built)"


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


def seed_info(seed_file: str):
    """The project's data about a seed (title, kind, short name), or a stand-in naming the
    file when the registry cites one the project does not describe."""
    from peproof.seeds import SeedInfo, source_info

    return source_info(seed_file) or SeedInfo(seed_file, "source text", seed_file)


def seed_key(seed_file: str) -> str:
    """The bibliography key of a seed (``seed-000``) or of a cited work (``lit-...``)."""
    from peproof.seeds import LITERATURE

    if seed_file in LITERATURE:
        return "lit-" + re.sub(r"[^A-Za-z0-9]+", "-", seed_file).strip("-").lower()
    m = re.match(r"(\d+)_", seed_file)
    return f"seed-{m.group(1) if m else seed_file}"


# ---------------------------------------------------------------------------- references
class Refs:
    """Claim numbers and the LaTeX that refers to a claim (link and page)."""

    def __init__(self, number: dict[str, str]):
        self.number = number

    def ref(self, cid: str) -> str:
        if cid in self.number:
            return rf"\claimref{{{claim_label(cid)}}}{{{self.number[cid]}}}"
        return claim_tt(cid)

    def named(self, cid: str) -> str:
        """Number and id (for the places where the id helps: errata, the index)."""
        if cid in self.number:
            return (rf"\claimref{{{claim_label(cid)}}}{{{self.number[cid]}}}~"
                    rf"{{\small{claim_tt(cid)}}}")
        return claim_tt(cid)

    def prose(self, text: str) -> Markup:
        """A sentence with ASCII mathematics and claim ids (notes, consequences)."""
        return Markup(title_tex(text, link=self.ref))


# ---------------------------------------------------------------------------- pieces
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
    """The engine's log, machine text set as such (typewriter, in the record only)."""
    folded = fold_trace(lines)
    shown = folded[:TRACE_LINES]
    items = []
    for line, times in shown:
        s, _ = fmt.clip(line, 240)
        prefix = f"({times}\u00d7) " if times > 1 else ""
        items.append(Markup(tex_breakable(prefix + s)))
    return {"lines": items, "more": max(0, len(folded) - len(shown)), "total": len(lines)}


def point_tex(point: dict | None) -> Markup | None:
    """A witness point as mathematics: ``d = 4,\\ k = 3`` (values read as SymPy numbers)."""
    if point is None:
        return None
    if not point:
        return Markup("no variables")
    from .render import value_tex

    parts = [f"{value_tex(k, is_name=True)} = {value_tex(v)}" for k, v in point.items()]
    return Markup("$" + r",\ ".join(parts) + "$")


def witness_view(w: dict | None, render: dict | None, refs: Refs) -> dict | None:
    if not w:
        return None
    rw = (render or {}).get("witness") or {}
    pt = w.get("point")
    out: dict = {"certified_by": w.get("certified_by", ""), "point": point_tex(pt),
                 "point_short": point_tex(pt) if pt is None or len(pt) <= POINT_COORDS else
                 Markup(f"a certified point of {len(pt)} variables (in the record)"),
                 "relation": Markup(rw["relation"]) if rw.get("relation") else None,
                 "relation_row": Markup("&" + rw["relation"]) if rw.get("relation") else None,
                 "short": bool(rw.get("relation")) and width(rw["relation"]) <= SHORT_RELATION,
                 "conclusion": rw.get("conclusion"),
                 "legend": Markup("; ".join(rw["legend"])) if rw.get("legend") else None}
    for k in ("lhs", "rhs"):
        out[k] = fmt.ball(w[k], 12) if w.get(k) is not None else None
        out[k + "_short"] = fmt.ball(w[k], 5) if w.get(k) is not None else None
    arg = w.get("argument")
    if arg:
        items = arg if isinstance(arg, list) else [a.strip() for a in arg.split(" / ")]
        out["argument"] = [Markup(tex_breakable(a)) for a in items]
    neg = w.get("negation")
    if neg:
        out["negation"] = Markup(refs.ref(neg)) if neg in refs.number else refs.prose(neg)
    for k in ("axioms", "note", "found_by", "kind"):
        if w.get(k):
            val = w[k]
            one = {"axioms": axiom_tex, "note": refs.prose}.get(
                k, lambda a: Markup(tex_breakable(a)))
            out[k] = [one(a) for a in val] if isinstance(val, list) else one(val)
    return out


_CODE_MATH = re.compile(r"\*\*|\b(?:exp|sin|cos|sqrt|log)\(")


def paraphrase_tex(text: str) -> str:
    """Our paraphrase of a cited work: its ASCII mathematics typeset (``sqrt(1/t)``,
    ``b s^(|D|/(|D|-2))``); a paraphrase of code (names like ``seq_len``) set as code."""
    if re.search(r"[a-z]{2,}_[a-z]{2,}", text):
        return r"\texttt{" + tex_breakable(text) + "}"
    return title_tex(text)


def z3_reason_tex(reason: str) -> str:
    """z3's reason; the expression it quotes from the engine (``... term exp(s0)``, ``unknown
    on Abs(...)``, ``sat on ...``), machine text, set in typewriter type like the logs."""
    m = re.search(r"(?<=term )|(?<=unknown on )|(?<=sat on )", reason)
    if not m:
        return tex_breakable(reason)
    end = len(reason) - 1 if reason.endswith(")") and reason.count("(") < reason.count(")") \
        else len(reason)
    return (tex_breakable(reason[:m.start()]) + r"\texttt{" + tex_breakable(reason[m.start():end])
            + "}" + tex_breakable(reason[end:]))


def axiom_tex(a: str) -> Markup:
    """An engine's axiom: its mathematics typeset when the engine wrote it as a program does
    (``c**x``, ``exp(u)``), otherwise the text as it is (breakable; the trusted base's
    enclosures keep their digits)."""
    return Markup(title_tex(a) if _CODE_MATH.search(a) else tex_breakable(a))


POINT_COORDS = 4  # coordinates of a witness point printed in the report (the record: all)
SHORT_RELATION = 40  # estimated width of a refuted relation quoted in the findings
COMPACT_LINES = 4  # display rows of a statement in the report (the record prints them all)


def statement_view(printed: dict | None, max_rows: int | None = None) -> dict | None:
    """A printed statement (from :func:`.formulas.render_statement`) for the templates; with
    ``max_rows``, a longer one shows its first rows and says how many follow in the record."""
    if not printed:
        return None
    rows = [Markup(r) for r in printed["rows"]]
    cut = 0
    # a row holding a fraction is about twice as tall
    heights = [2 if r"\frac" in r else 1 for r in rows]
    if max_rows and sum(heights) > max_rows + 1:
        keep, used = 0, 0
        while keep < len(rows) and used + heights[keep] <= max_rows:
            used += heights[keep]
            keep += 1
        keep = max(keep, 1)
        cut = len(rows) - keep
        rows = rows[:keep] + [Markup(rf"&\quad\vdots\quad\text{{({cut} more lines: in the "
                                     "record)}")]
    return {"rows": rows, "total": printed["total"], "cut": cut,
            "shown": printed["shown"], "groups": printed.get("groups", 1),
            "groups_shown": printed.get("groups_shown", 1),
            "more_groups": printed.get("groups", 1) - printed.get("groups_shown", 1),
            "notes": printed["notes"]}


def steps_view(render: dict | None, run_trace: list[str]) -> dict | None:
    s = (render or {}).get("steps")
    if not s or "error" in s:
        return None
    rows = []
    for k, step in enumerate(s["steps"]):
        head = r"\text{lhs} - \text{rhs} &= " if k == 0 else "&= "
        if step["rows"] is None:
            rows.append(Markup(head + rf"\text{{(a sum of {step['terms']} terms)}}"))
            continue
        body = step["rows"]
        rows.append(Markup(head + body[0]))
        for r in body[1:]:
            rows.append(Markup(r"&\qquad " + r))
    ran_zero = any(t == "expanded difference: 0" for t in run_trace)
    printed = all(step["rows"] is not None for step in s["steps"])
    return {"rows": rows, "atoms": [Markup(a) for a in s["atoms"]], "zero": s["zero"],
            "identical_sides": s.get("identical_sides", False), "printed": printed,
            "lifted": s.get("lifted"), "agrees_with_run": s["zero"] == ran_zero}


def falsifier_view(f: dict) -> dict:
    v = f["verdict"]
    w = v.get("witness") or {}
    z = f.get("z3_verdict")
    point = point_tex(w.get("point")) if w.get("point") is not None else \
        Markup(tex(w.get("kind") or ""))
    return {"name": Markup(tex_breakable(f["name"])), "note": Markup(title_tex(f.get("note", ""))),
            "status": Markup(verdict(v["status"])), "engine": v["engine"], "point": point,
            "z3": Markup(verdict(z["status"])) if z and z.get("method") != "not applicable"
            else "n/a"}


def first_clause(text: str) -> str:
    """The first clause of a reason (up to its first colon or full stop), for the report; the
    record prints it whole."""
    m = re.match(r"^(.*?[^.\s])(?::\s|\.\s|;\s|$)", text.strip(), re.S)
    return m.group(1) if m else text


def settled_by_construction(v: dict) -> bool:
    """The verdict's statement was settled when it was built: method or engine
    ``construction`` (as the soundness work labels it) or the older suffix on the method."""
    m = v.get("method") or ""
    return (m == "construction" or v.get("engine") == "construction"
            or m.endswith(CONSTRUCTION_SUFFIX))


def method_text(v: dict) -> str:
    m = v.get("method") or ""
    if m.endswith(CONSTRUCTION_SUFFIX):
        m = m[: -len(CONSTRUCTION_SUFFIX)].strip()
    return m


# ---------------------------------------------------------------------------- one claim
def claim_view(row: dict, render: dict | None, used_by: list[str], refs: Refs,
               links: dict | None = None) -> dict:
    """Everything the documents print about one claim; ``links``: the claims' ``.v`` files
    relative to the build folder (:func:`.evidview.place_vfiles`)."""
    from .evidview import coq_view, evidence_view

    v = row["verdict"]
    z = row.get("z3") or {}
    render = render or {}
    from peproof.seeds import LITERATURE, SOURCES

    sources = []
    for s in row["sources"]:
        info = seed_info(s["seed"])
        sources.append({"short": info.short, "key": seed_key(s["seed"]),
                        "known": s["seed"] in SOURCES or s["seed"] in LITERATURE,
                        "paraphrase": s["seed"] in LITERATURE,
                        # a cited work's section may name code (modeling_rope_utils._compute_...):
                        # plain text, breakable, never read as mathematics
                        "section": Markup(tex_breakable(s["section"]) if s["seed"] in LITERATURE
                                          else title_tex(s["section"])),
                        "quote": Markup(paraphrase_tex(s["quote"]) if s["seed"] in LITERATURE
                                        else quote_tex(s["quote"]))})
    full = statement_view(render.get("statement"))
    compact = statement_view(render.get("compact") or render.get("statement"), COMPACT_LINES)
    construction = settled_by_construction(v)
    return {
        "id": row["id"], "number": refs.number[row["id"]], "family": row["family"],
        "label": claim_label(row["id"]), "tt": Markup(claim_tt(row["id"])),
        "title": Markup(title_tex(row["title"])), "kind": row["kind"],
        "sources": sources,
        "source_keys": list(dict.fromkeys(s["key"] for s in sources)),
        "statement": full, "compact": compact,
        "legend": Markup("; ".join(render["legend"])) if render.get("legend") else None,
        "informal": row["statement"] is None,
        "status": v["status"], "verdict": Markup(verdict(v["status"])),
        "construction": construction,
        "engine": v["engine"], "method": method_text(v), "version": v["version"],
        "seconds": fmt.seconds(v["seconds"]),
        "axioms": [axiom_tex(a) for a in dict.fromkeys(v.get("axioms") or [])],
        "reason": refs.prose(v.get("reason") or ""),
        "reason_short": refs.prose(first_clause(v.get("reason") or "")),
        "witness": witness_view(v.get("witness"), render, refs),
        "trace": trace_view(v.get("trace") or []),
        "steps": steps_view(render, v.get("trace") or []),
        "z3": {"cell": row["engines"].get("z3", "n/a"),
               "verdict": Markup(verdict(z["status"])) if z else "",
               "method": z.get("method", ""),
               "axioms": [axiom_tex(a) for a in dict.fromkeys(z.get("axioms") or [])],
               "reason": Markup(z3_reason_tex(z.get("reason", "")))},
        "numeric": row["engines"].get("numeric", "n/a"),
        "conflict": row.get("conflict", False),
        "evidence": evidence_view(row), "coq": coq_view(row, links),
        "expect": row["expect"], "agrees": row["agrees_with_expectation"],
        "note": refs.prose(row.get("note") or ""),
        "uses": [Markup(refs.ref(u)) for u in row["uses"]],
        "used_by": [Markup(refs.ref(u)) for u in used_by],
        "companion": Markup(refs.ref(row["companion"])) if row.get("companion") else None,
        "falsifiers": [falsifier_view(f) for f in row["falsifiers"]],
        "extra": extra_fields(v),
    }


#: verdict fields the record prints in their own places
VERDICT_FIELDS = {"status", "engine", "version", "method", "axioms", "seconds", "witness",
                  "trace", "reason"}


def extra_fields(v: dict) -> list[dict]:
    """Fields of a verdict beyond the ones the record knows (a second kernel's certificate, a
    method's label added by a later engine): printed as they are, so nothing a verdict records
    is hidden."""
    out = []
    for k in sorted(set(v) - VERDICT_FIELDS):
        val = v[k]
        if val in (None, "", [], {}):
            continue
        text = "; ".join(map(str, val)) if isinstance(val, list) else str(val)
        out.append({"name": k.replace("_", " "), "value": Markup(tex_breakable(
            fmt.clip(text, 400)[0]))})
    return out


def engine_cell(row: dict) -> Markup:
    e = row["engines"]
    return Markup(rf"{tex_breakable(row['verdict']['engine'])}\newline "
                  rf"{{\scriptsize z3: {tex(e.get('z3', 'n/a'))}; "
                  rf"num: {tex(e.get('numeric', 'n/a'))}}}")
