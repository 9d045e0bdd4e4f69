"""The RoPE chapter and the long-context table as the documents print them.

Every number comes from the run: the certified landmarks of the decay bound ``B(k)`` from the
numeric job ``rope_decay`` (:func:`.numerics.rope_decay`), the scaling maps from ``rope_scaling``,
the long-context separation table from the results file of the long scans
(``numeric/data/longctx.json``, written by ``numeric/make_longctx_table.py``).  The decay claims
of the registry state landmarks of their own; :func:`decay_view` compares them with the scan's
and says so in red when they differ.
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from . import fmt
from .latex import tex

DECAY_ID = "rope.decay_bound_{}_d{}"
#: the formulas of RoFormer's bound (Su et al. 2021, section 3.4.3), as the chapter prints them
DECAY_TEX = {
    "score": Markup(r"\sum_j h_j e^{\mathrm{i} k\theta_j}"),
    "bound": Markup(r"\max_j|h_{j+1}-h_j| \cdot \tfrac{d}{2} B(k)"),
    "B": Markup(r"B(k) = \tfrac{2}{d}\sum_{j=1}^{d/2}|S_j(k)|"),
    "S": Markup(r"S_j(k) = \sum_{l<j} e^{\mathrm{i} k \theta_l}"),
    "at_zero": Markup("B(0)"), "mono": Markup(r"B(k+1) \le B(k)"),
}


def _ball(b: dict | None, digits: int = 6) -> Markup | None:
    return None if b is None else fmt.ball(b["text"], digits)


def decay_view(num: dict, views: dict, refs) -> dict | None:
    """Per ``d``: the certified landmarks, and the refuted monotone reading with its corrected
    statement (the claims of the ``rope`` family, when the run decided them)."""
    data = num.get("rope_decay")
    if not data:
        return None
    rows = []
    for c in data["curves"]:
        lm, d = c["landmarks"], c["d"]
        mono = views.get(DECAY_ID.format("monotone", d))
        fixed = views.get(DECAY_ID.format("never_regains_early_levels", d))
        until = views.get(DECAY_ID.format("decreasing_until_first_rise", d))
        brk = lm.get("record_break")
        rows.append({
            "d": d, "d_f": fmt.integer(d),
            "b0": Markup(f"${lm['b0']}$") if lm.get("b0") else None,
            "first_rise": fmt.integer(lm["first_rise"]) if lm["first_rise"] is not None
            else None, "first_rise_raw": lm["first_rise"],
            "before": _ball(lm["rise"]["before"]) if lm.get("rise") else None,
            "at": _ball(lm["rise"]["at"]) if lm.get("rise") else None,
            "before_k": fmt.integer(lm["first_rise"] - 1) if lm["first_rise"] else None,
            "record": fmt.integer(lm["record_prefix"]) if lm["record_prefix"] is not None
            else None,
            "break_level": fmt.integer(brk["level"]["k"]) if brk else None,
            "break_above": fmt.integer(brk["above"]["k"]) if brk else None,
            "min_k": fmt.integer(lm["minimum"]["k"]), "min_k_raw": lm["minimum"]["k"],
            "min": _ball(lm["minimum"]), "min_ties": len(lm["minimum"]["ties"]),
            "max_k": fmt.integer(lm["maximum"]["k"]), "max": _ball(lm["maximum"]),
            "bound": fmt.num(lm["bound"], 2),
            "undecided": lm["undecided"],
            "mono": mono, "fixed": fixed, "until": until,
            "mono_ref": Markup(refs.ref(mono["id"])) if mono else None,
            "fixed_ref": Markup(refs.ref(fixed["id"])) if fixed else None,
            "until_ref": Markup(refs.ref(until["id"])) if until else None,
            "mismatch": _mismatch(d, lm),
        })
    first = data["curves"][0]["landmarks"] if data["curves"] else {}
    return {"n_end": fmt.integer(data["n_end"]), "close": data["close"], "rows": rows,
            "k_from": fmt.integer(first.get("k_from", 1)),
            "base": fmt.integer(int(first["base"])) if first.get("base", "").isdigit()
            else first.get("base"), "tex": DECAY_TEX,
            "ds": [r["d_f"] for r in rows], "any_claims": any(r["mono"] for r in rows)}


def _mismatch(d: int, lm: dict) -> list[str]:
    """Where the landmarks the decay claims state (``LANDMARKS`` of the family module) differ
    from the ones the scan certified."""
    try:
        from peproof.families.rope_decay import LANDMARKS
    except ImportError:
        return []
    if d not in LANDMARKS:
        return []
    rise, top, _ = LANDMARKS[d]
    out = []
    if lm["first_rise"] != rise:
        out.append(f"the claims state the first rise at {rise}, the scan finds "
                   f"{lm['first_rise']}")
    if lm["record_prefix"] != top:
        out.append(f"the claims state the record prefix {top}, the scan finds "
                   f"{lm['record_prefix']}")
    return out


def scaling_view(num: dict) -> dict | None:
    data = num.get("rope_scaling")
    if not data:
        return None
    return {"llama": Markup("Llama~3.1"), "wave": Markup(r"2\pi/\theta_j"),
            "d": fmt.integer(data["d"]), "factor": fmt.integer(data["factor"]),
            "length": fmt.integer(data["length"]), "base": fmt.integer(data["base"]),
            "methods": [{"label": m["label"], "attention": fmt.num(m["attention"], 4),
                         "lowest": fmt.num(m["multiplier"][-1], 4),
                         "highest": fmt.num(m["multiplier"][0], 4)}
                        for m in data["methods"]]}


# ---------------------------------------------------------------------------- long contexts
def longctx_path(root: Path | None) -> Path | None:
    if root is None:
        return None
    p = root / "numeric" / "data" / "longctx.json"
    return p if p.is_file() else None


def _pow10(n: int) -> Markup:
    e = len(str(n)) - 1
    return Markup(f"$10^{{{e}}}$") if n == 10**e and e > 1 else fmt.integer(n)


def longctx_view(root: Path | None) -> dict | None:
    """The certified minimum separation for long contexts, from the results file of the long
    scans (one row per entry: d, N, the minimum of the squared distance, its offset, whether it
    is certified unique, the engine and the time)."""
    path = longctx_path(root)
    if path is None:
        return None
    from peproof.numeric import longctx

    data = longctx.load(path)
    rows = []
    for e in sorted(data["entries"], key=lambda e: (e["family"], e["base"], e["d"], e["n_pos"])):
        s = e["separation"]
        run = s.get("run") or {}
        rows.append({"d": fmt.integer(e["d"]), "n": _pow10(e["n_pos"]),
                     "min_sq": fmt.ball(s["min_sq"]["text"], 10),
                     "argmin": Markup(", ".join(str(fmt.integer(k)) for k in s["argmin"])),
                     "unique": "yes" if s["certified_unique"] else "no (tie)",
                     "closer": "?" if s["closer_than_adjacent"] is None
                     else fmt.integer(s["closer_than_adjacent"]),
                     "engine": run.get("engine", "?"),
                     "seconds": fmt.integer(round(s["seconds"])),
                     "family": e["family"], "base": e["base"]})
    if not rows:
        return None
    ents = data["entries"]
    at_one = [e for e in ents if e["separation"]["argmin"] == [1]
              and e["separation"]["certified_unique"]]
    machines = sorted({f"{e['machine']['cores']} cores, {e['machine']['cpu']}" for e in ents})
    dates = sorted(e["date"][:10] for e in ents)
    return {"rows": rows, "count": len(rows), "at_one": len(at_one),
            "sq": Markup(r"\|PE(a) - PE(b)\|^2"),
            "largest": _pow10(max(e["n_pos"] for e in ents)),
            "families": sorted({(e["family"], e["base"]) for e in ents}),
            "machines": [tex(m) for m in machines], "first_date": dates[0],
            "last_date": dates[-1], "file": "numeric/data/longctx.json",
            "max_seconds": fmt.integer(round(max(e["separation"]["seconds"] for e in ents)))}
