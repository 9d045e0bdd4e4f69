"""What the documents print about a verdict's evidence and its Coq check.

The evidence level of each claim is computed here from its result row by
:func:`peproof.evidence.evidence` (never read from a stored field, which a cached run may hold
from older code); the Coq entry (the shape of ``peproof.kernel.coq.check.CoqResult.as_dict``)
gives the status, the version, the axioms ``Print Assumptions`` listed and the ``.v`` file.

The ``.v`` files are linked relative to the build folder: :func:`place_vfiles` makes sure each
one is inside it (``coq/<name>.v``; a file written elsewhere, e.g. by ``peproof prove``, is
copied in) and returns the relative paths the PDF record and the HTML edition link.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

from markupsafe import Markup

from peproof.evidence import BUILT, CONFLICT, KERNEL, LEVELS, NONE, ONE, TWO, evidence

from .latex import tex

COQ_DIR = "coq"
#: short forms of the levels for narrow places (a claim's one-line entry)
SHORT = {KERNEL: "kernel", TWO: "two engines", ONE: "one engine", BUILT: "built",
         CONFLICT: "CONFLICT", NONE: ""}


def coq_entry(row: dict) -> dict:
    return row.get("coq") or {}


def place_vfiles(rows: list[dict], build_dir: Path, roots: tuple[Path, ...] = ()) -> dict:
    """``{claim id: path of its .v file relative to build_dir}`` for every row whose Coq entry
    names a ``.v`` file that exists (a relative name is looked up in ``build_dir`` and then in
    ``roots``); a file outside ``build_dir`` is copied to ``build_dir/coq/``."""
    build_dir = Path(build_dir).resolve()
    out = {}
    for r in rows:
        name = coq_entry(r).get("vfile")
        if not name:
            continue
        p = Path(name)
        cands = [p] if p.is_absolute() else [build_dir / p, *(Path(x) / p for x in roots), p]
        src = next((c.resolve() for c in cands if c.is_file()), None)
        if src is None:
            continue
        if not src.is_relative_to(build_dir):
            dest = build_dir / COQ_DIR / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.is_file() or dest.read_bytes() != src.read_bytes():
                shutil.copyfile(src, dest)
            src = dest
        out[r["id"]] = os.path.relpath(src, build_dir).replace(os.sep, "/")
    return out


def axiom_groups(names) -> list[tuple[str, list[str]]]:
    """Axiom names grouped by their module path (``Classical_Prop.classic`` ->
    ``("Classical_Prop", ["classic"])``), in first-seen order; a bare name has module ``""``."""
    groups: dict[str, list[str]] = {}
    for n in dict.fromkeys(names or ()):
        mod, _, short = n.rpartition(".")
        groups.setdefault(mod, []).append(short)
    return list(groups.items())


def tt_breakable(name: str) -> str:
    """A Coq identifier in typewriter type, breakable only after ``.`` and ``_`` (never inside
    a word)."""
    s = tex(name).replace(r"\_", r"\_\allowbreak{}").replace(".", r".\allowbreak{}")
    return r"\texttt{" + s + "}"


def path_tex(path: str) -> Markup:
    """A relative file name in typewriter type, breakable after ``/`` and ``_`` only (never
    before its extension)."""
    s = tex(path).replace(r"\_", r"\_\allowbreak{}").replace("/", r"/\allowbreak{}")
    return Markup(r"\texttt{" + s + "}")


def axioms_tex(names) -> Markup:
    """``Module: a, b; Other: c`` in typewriter type, breaking after dots and underscores."""
    parts = []
    for mod, shorts in axiom_groups(names):
        items = ", ".join(tt_breakable(s) for s in shorts)
        parts.append((tt_breakable(mod) + r":\ " if mod else "") + items)
    return Markup("; ".join(parts))


def coq_status_word(coq: dict) -> str:
    return coq.get("status") or "Coq not run"


def coq_view(row: dict, links: dict | None = None) -> dict:
    """The Coq check of one claim for the documents (status, version, what the theorem says,
    the lemma, seconds, the axioms, the ``.v`` link)."""
    coq = coq_entry(row)
    checked = coq.get("status") == "checked in Coq"
    return {"ran": bool(coq), "checked": checked, "status": coq_status_word(coq),
            "version": coq.get("coq_version") or "", "what": coq.get("what") or "",
            "lemma": coq.get("lemma") or "", "seconds": coq.get("seconds"),
            "cached": bool(coq.get("cached")), "conflict": coq.get("conflict") or "",
            "axioms": list(dict.fromkeys(coq.get("assumptions") or ())),
            "axioms_tex": axioms_tex(coq.get("assumptions")),
            "axiom_groups": axiom_groups(coq.get("assumptions")),
            "link": (links or {}).get(row["id"]),
            "link_tex": path_tex((links or {}).get(row["id"]) or "")}


def evidence_view(row: dict) -> dict:
    ev = evidence(row)
    return {**ev, "short": SHORT.get(ev["level"], ev["level"]),
            "decided": ev["level"] not in (NONE,)}


# ---------------------------------------------------------------------------- counts
COLUMNS = (("proved", KERNEL), ("proved", TWO), ("proved", ONE), ("proved", BUILT),
           ("refuted", KERNEL), ("refuted", ONE))


def family_counts(rows: list[dict], families: list[str]) -> dict:
    """Per family (in ``families``' order) and in total: claims, verdicts, and the evidence of
    the proved and of the refuted claims (:data:`COLUMNS`), conflicts apart."""
    def empty() -> dict:
        return {"claims": 0, "verdicts": Counter(), "evidence": Counter(), "conflicts": 0}

    per = {f: empty() for f in families}
    total = empty()
    for r in rows:
        status = r["verdict"]["status"]
        lvl = evidence(r)["level"]
        for c in (per.setdefault(r["family"], empty()), total):
            c["claims"] += 1
            c["verdicts"][status] += 1
            if lvl == CONFLICT:
                c["conflicts"] += 1
            elif status in ("proved", "refuted"):
                c["evidence"][(status, lvl)] += 1
    out = [{"name": f, **_cells(c)} for f, c in per.items()]
    return {"families": out, "total": _cells(total), "columns": COLUMNS,
            "levels": LEVELS, "conflicts": total["conflicts"]}


def _cells(c: dict) -> dict:
    return {"claims": c["claims"],
            "verdicts": [c["verdicts"][s] for s in ("proved", "refuted", "unknown")],
            "evidence": [c["evidence"][k] for k in COLUMNS], "conflicts": c["conflicts"],
            "by": {f"{s} {lvl}": c["evidence"][(s, lvl)] for s, lvl in COLUMNS}}


def coq_summary(rows: list[dict]) -> dict:
    """How the Coq pass went over ``rows``: checked / not checked / not installed / not run."""
    c: Counter = Counter()
    for r in rows:
        s = coq_status_word(coq_entry(r))
        c["checked" if s == "checked in Coq" else "absent" if s == "coq not installed"
          else "not run" if s == "Coq not run" else "not checked"] += 1
    versions = sorted({coq_entry(r).get("coq_version") for r in rows
                       if coq_entry(r).get("coq_version")})
    return {"checked": c["checked"], "not_checked": c["not checked"], "absent": c["absent"],
            "not_run": c["not run"], "versions": versions}
