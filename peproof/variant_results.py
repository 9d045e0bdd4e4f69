"""``peproof prove --variant``: the paper's claims decided for the user's encoding.

The claims are the registry's, built for the variant (:func:`peproof.registry.claims_for`) and
decided by :func:`peproof.results.run` -- the same engines, falsification gate, Coq check and
evidence levels -- with the variant in force (:func:`peproof.scope.using`).  The envelope gains a
``variant`` block: the SPEC, the variant's name, and per claim the paper's verdict beside the
variant's; its numbers beside the paper's (:mod:`peproof.variant_numbers`).
"""

from __future__ import annotations

from peproof import registry, scope
from peproof.results import run


def run_variant(variant, pattern: str | None = None, falsifiers: bool = True, progress=None,
                coq: bool = False, coq_dir=None, numbers: bool = True,
                recheck: bool = False) -> dict:
    """The results envelope of the paper's claims (those matching ``pattern``) for
    ``variant``; ``res["variant"]`` says what changed against the paper."""
    from peproof.variant import name, spec

    paper = {c.id: c for c in registry.claims_for(None)}
    with scope.using(variant):
        claims = registry.select(pattern)
        res = run(claims, falsifiers=falsifiers, progress=progress, coq=coq, coq_dir=coq_dir,
                  recheck=recheck)
    stated = {c.id: c.__dict__.get("numbers") for c in claims}
    rows = []
    for r in res["claims"]:
        if stated.get(r["id"]):  # the numbers the variant's statement carries (decided with it)
            r["numbers"] = dict(stated[r["id"]])
        pc = paper.get(r["id"])
        paper_status = pc.expect if pc is not None else None
        status = r["verdict"]["status"]
        reason = r["verdict"].get("reason") or ""
        r["paper_verdict"] = paper_status
        r["not_applicable"] = reason.startswith("not applicable:")
        # a variant's verdict may differ from the paper's: that is the answer, not a failure
        r["agrees_with_expectation"] = True
        rows.append({"id": r["id"], "paper": paper_status, "variant": status,
                     "changed": paper_status != status and not r["not_applicable"],
                     "not_applicable": r["not_applicable"]})
    s = res["summary"]
    s["disagreements"] = []
    block = {
        "spec": spec(variant),
        "name": name(variant),
        "kind": "rope" if isinstance(variant, scope.Rotary) else "sinusoidal",
        "not_applicable": sum(x["not_applicable"] for x in rows),
        "changed": [x["id"] for x in rows if x["changed"]],
        "claims": rows,
    }
    if numbers:
        from peproof.variant_numbers import compare

        block["numbers"] = compare(variant)
    res["variant"] = block
    return res


def exit_code(res: dict) -> int:
    """1 on an engine conflict (engines, gate or Coq), else 0: a claim failing for the variant
    is an answer, not an error."""
    s = res["summary"]
    return 1 if (s["conflicts"] or s.get("gate_conflicts") or s.get("coq_conflicts")) else 0


def render(res: dict) -> str:
    """The text table: per claim the paper's verdict and the variant's, the evidence, the
    witness of a refutation (or why not applicable); then the numbers side by side."""
    v = res["variant"]
    lines = [f"The paper's claims for your encoding: {v['name']}",
             f"  (--variant {v['spec']})", ""]
    head = ("claim", "paper", "your encoding", "evidence", "why / witness")
    table = [head]
    for r in res["claims"]:
        verdict = r["verdict"]
        ev = (r.get("evidence") or {}).get("level", "-")
        why = ""
        if verdict["status"] == "refuted":
            why = (r.get("evidence") or {}).get("witness") or ""
        elif verdict["status"] == "unknown":
            why = verdict.get("reason") or ""
        if r.get("numbers") and verdict["status"] != "unknown":  # the numbers it states
            why = ("states " + ", ".join(f"{k} = {v}" for k, v in r["numbers"].items())
                   + ("; " + why if why else ""))
        st = verdict["status"] + ("  CONFLICT" if r.get("conflict") else "")
        table.append((r["id"], r.get("paper_verdict") or "-", st,
                      ev if ev != "none" else "-", why[:110]))
    widths = [max(len(t[j]) for t in table) for j in range(4)]
    for j, t in enumerate(table):
        lines.append("  ".join(c.ljust(w) for c, w in zip(t[:4], widths, strict=True))
                     + "  " + t[4])
        if j == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 13)
    s = res["summary"]
    lines += ["", f"{s['claims']} claims for your encoding: {s['proved']} proved, "
              f"{s['refuted']} refuted, {s['unknown']} unknown ({v['not_applicable']} of them "
              f"not applicable); {len(v['changed'])} verdict(s) differ from the paper's"]
    nums = v.get("numbers")
    if nums:
        lines += ["", "Numbers (certified unless said otherwise): yours beside the paper's"]
        rows = [("quantity", "your encoding", "paper", "how")]
        rows += [(n["name"], n["variant"], n["paper"], n["how"]) for n in nums]
        w = [max(len(str(x[j])) for x in rows) for j in range(3)]
        for j, x in enumerate(rows):
            lines.append("  ".join(str(c).ljust(ww) for c, ww in zip(x[:3], w, strict=True))
                         + "  " + x[3])
            if j == 0:
                lines.append("  ".join("-" * ww for ww in w) + "  ---")
    if s.get("conflicts") or s.get("gate_conflicts") or s.get("coq_conflicts"):
        lines.append("ENGINE CONFLICTS: " + ", ".join(
            list(s.get("conflicts") or []) + list(s.get("coq_conflicts") or [])
            + [c["id"] for c in s.get("gate_conflicts") or []]))
    return "\n".join(lines)
