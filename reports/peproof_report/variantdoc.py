"""``peproof report --variant``: "the paper's claims for your encoding" as a LaTeX/PDF document.

Written from the envelope of :func:`peproof.variant_results.run_variant` (nothing typed by hand):
the SPEC and the variant's name, the counts, the variant's numbers beside the paper's, then one
row per claim: the paper's verdict, the variant's, its evidence and the certified witness of a
refutation (or why it is unknown / not applicable).  Also writes the envelope as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
            "|": r"\textbar{}"}


def esc(text: str, limit: int = 0) -> str:
    """``text`` as LaTeX text (every special character escaped; non-ASCII dropped to ``?``)."""
    s = str(text)
    if limit and len(s) > limit:
        s = s[:limit - 3] + "..."
    s = s.encode("ascii", "replace").decode("ascii")
    return "".join(_SPECIAL.get(ch, ch) for ch in s)


def document(res: dict) -> str:
    v = res["variant"]
    s = res["summary"]
    out = [r"\documentclass[10pt]{article}",
           r"\usepackage[a4paper,landscape,margin=1.5cm]{geometry}",
           r"\usepackage{array,longtable,booktabs}",
           r"\newcolumntype{L}[1]{>{\raggedright\arraybackslash}p{#1\linewidth}}",
           r"\begin{document}",
           r"\section*{The paper's claims for your encoding}",
           rf"\noindent {esc(v['name'])}\\ \texttt{{--variant {esc(v['spec'])}}}\\[1ex]",
           rf"{s['claims']} claims: {s['proved']} proved, {s['refuted']} refuted, "
           rf"{s['unknown']} unknown ({v['not_applicable']} not applicable); "
           rf"{len(v['changed'])} verdict(s) differ from the paper's; "
           rf"evidence of the proved: " + esc(", ".join(
               f"{k} {n}" for k, n in (s.get("evidence_proved") or {}).items() if n)) + ".",
           ""]
    nums = v.get("numbers") or []
    if nums:
        out += [r"\subsection*{Numbers: yours beside the paper's}",
                r"\begin{longtable}{@{}L{0.3}L{0.22}L{0.22}L{0.2}@{}}\toprule",
                r"quantity & your encoding & paper & how\\\midrule"]
        out += [f"{esc(n['name'])} & {esc(n['variant'], 120)} & {esc(n['paper'], 60)} & "
                f"{esc(n['how'])}\\\\" for n in nums]
        out += [r"\bottomrule\end{longtable}", ""]
    out += [r"\subsection*{Claims}",
            r"\begin{longtable}{@{}L{0.3}L{0.06}L{0.07}L{0.08}L{0.43}@{}}\toprule",
            r"claim & paper & yours & evidence & witness / why\\\midrule\endhead"]
    for r in res["claims"]:
        ver = r["verdict"]
        ev = (r.get("evidence") or {}).get("level", "-")
        why = ((r.get("evidence") or {}).get("witness") or "") if ver["status"] == "refuted" \
            else (ver.get("reason") or "")
        if r.get("numbers") and ver["status"] != "unknown":  # the numbers the claim states
            why = "states " + ", ".join(f"{k} = {x}" for k, x in r["numbers"].items()) + (
                "; " + why if why else "")
        mark = r"\textbf{" + esc(ver["status"]) + "}" if (
            r.get("paper_verdict") != ver["status"] and not r.get("not_applicable")) \
            else esc(ver["status"])
        out.append(f"\\texttt{{{esc(r['id'])}}} & {esc(r.get('paper_verdict') or '-')} & "
                   f"{mark} & {esc(ev)} & {esc(why, 220)}\\\\")
    out += [r"\bottomrule\end{longtable}", r"\end{document}", ""]
    return "\n".join(out)


def write(res: dict, build_dir: Path, compile_pdf: bool = True) -> tuple[Path, str]:
    """Write ``variant-report.tex`` and ``variant-results.json`` into ``build_dir`` (atomically)
    and compile the PDF; returns the .tex path and the compiler's one-line message."""
    from peproof.guard.paths import write_atomic

    from .tex import compile_pdf as compile_tex

    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    tex = build_dir / "variant-report.tex"
    write_atomic(build_dir / "variant-results.json",
                 json.dumps(res, indent=1, sort_keys=True, default=str))
    write_atomic(tex, document(res))
    if not compile_pdf:
        return tex, f"wrote {tex}"
    r = compile_tex(tex, build_dir / "variant-report.pdf")
    return tex, r.message
