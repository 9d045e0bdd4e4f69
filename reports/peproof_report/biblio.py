"""The bibliography: the papers behind the encoding, the tools the verdicts rest on, the source
documents (from :data:`peproof.seeds.SOURCES`) and the implementations the oracle checked (with
the versions the run found installed)."""

from __future__ import annotations

from markupsafe import Markup

from .latex import tex

#: (key, label, entry) of the papers; the entries are LaTeX
PAPERS = (
    ("vaswani2017", "Vaswani et al., 2017",
     r"A.~Vaswani, N.~Shazeer, N.~Parmar, J.~Uszkoreit, L.~Jones, A.~N.~Gomez, "
     r"\L.~Kaiser, I.~Polosukhin. \emph{Attention Is All You Need}. Advances in Neural "
     r"Information Processing Systems~30 (NeurIPS 2017). arXiv:1706.03762."),
    ("mildenhall2020", "Mildenhall et al., 2020",
     r"B.~Mildenhall, P.~P.~Srinivasan, M.~Tancik, J.~T.~Barron, R.~Ramamoorthi, R.~Ng. "
     r"\emph{NeRF: Representing Scenes as Neural Radiance Fields for View Synthesis}. "
     r"ECCV 2020. arXiv:2003.08934."),
    ("tancik2020", "Tancik et al., 2020",
     r"M.~Tancik, P.~P.~Srinivasan, B.~Mildenhall, S.~Fridovich-Keil, N.~Raghavan, "
     r"U.~Singhal, R.~Ramamoorthi, J.~T.~Barron, R.~Ng. \emph{Fourier Features Let Networks "
     r"Learn High Frequency Functions in Low Dimensional Domains}. NeurIPS 2020. "
     r"arXiv:2006.10739."),
    ("su2021", "Su et al., 2021",
     r"J.~Su, Y.~Lu, S.~Pan, A.~Murtadha, B.~Wen, Y.~Liu. \emph{RoFormer: Enhanced "
     r"Transformer with Rotary Position Embedding}. arXiv:2104.09864, 2021."),
)
#: the tools the verdicts rest on: (key, label, entry, version key of run.versions())
TOOLS = (
    ("sympy", "SymPy", r"A.~Meurer et al. \emph{SymPy: symbolic computing in Python}. "
     r"PeerJ Computer Science~3:e103, 2017.", "sympy"),
    ("arb", "Arb", r"F.~Johansson. \emph{Arb: efficient arbitrary-precision midpoint-radius "
     r"interval arithmetic}. IEEE Transactions on Computers~66(8), 2017; used through "
     r"python-flint.", "python-flint"),
    ("z3", "Z3", r"L.~de Moura, N.~Bj{\o}rner. \emph{Z3: An Efficient SMT Solver}. TACAS 2008.",
     "z3"),
    ("mpmath", "mpmath", r"The mpmath development team. \emph{mpmath: a Python library for "
     r"arbitrary-precision floating-point arithmetic}.", "mpmath"),
    ("numpy", "NumPy", r"C.~R.~Harris et al. \emph{Array programming with NumPy}. Nature~585, "
     r"2020.", "numpy"),
)
#: papers a family's section cites (optional: a family without an entry cites none)
FAMILY_PAPERS = {
    "encoding": ("vaswani2017",), "rotation": ("vaswani2017",),
    "attention": ("vaswani2017", "su2021"), "nerf": ("mildenhall2020", "tancik2020"),
    "motivation": ("vaswani2017", "tancik2020"), "rope": ("su2021",),
}


def entries(versions: dict, peers: dict | None, seeds: list[dict]) -> list[dict]:
    """Every bibliography entry, in the order printed: papers, sources, implementations,
    tools."""
    out = [{"key": k, "label": lab, "text": Markup(t)} for k, lab, t in PAPERS]
    for s in seeds:
        if s["file"].startswith(("arXiv:", "github:")):  # a cited work: its reference
            out.append({"key": s["key"], "label": s["short"], "text": Markup(tex(s["title"]))})
            continue
        origin = f" {tex(s['origin'])}." if s["origin"] else ""
        out.append({"key": s["key"], "label": s["short"],
                    "text": Markup(rf"\emph{{{tex(s['title'])}}}. {tex(s['kind']).capitalize()}."
                                   rf"{origin} Source text \texttt{{{tex(s['file'])}}}.")})
    seen = set()
    for r in (peers or {}).get("rows", []):
        if r.get("version") is None or r["package"] in seen:
            continue
        seen.add(r["package"])
        out.append({"key": "pkg-" + r["package"], "label": r["package"],
                    "text": Markup(rf"\texttt{{{tex(r['package'])}}} {tex(r['version'])} "
                                   r"(PyPI), the implementation checked by the oracle.")})
    for key, label, text, vkey in TOOLS:
        ver = versions.get(vkey)
        out.append({"key": key, "label": label,
                    "text": Markup(text + (rf" Version {tex(ver)} in this run." if ver else ""))})
    return out
