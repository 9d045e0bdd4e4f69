"""Assemble the report: collect the run, draw the figures, render the templates, compile.

Output (under ``reports/build/`` unless told otherwise): ``peproof-report.tex``, the figures
``fig-*.pdf``, ``peproof-report.pdf`` (when TeX is installed), the cached run ``run.json`` and
the plain results envelope ``results.json``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from . import content as C
from . import figures, fmt, tex
from .latex import claim_ref, reset_unknown, unknown_seen, verdict
from .run import collect, repo_root, source_state, versions

TEX_NAME = "peproof-report.tex"
PDF_NAME = "peproof-report.pdf"
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


@dataclass
class Outcome:
    tex_path: Path
    pdf_path: Path | None
    tex_message: str
    seconds: float
    tex_seconds: float
    pages: int | None
    reused: bool
    formula_checks: dict
    unknown_chars: dict
    errata: list[str] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    ok: bool = True


def environment():
    """Jinja2 with LaTeX-safe delimiters; every printed value is escaped unless it is Markup."""
    import jinja2

    from .latex import tex as escape

    def finalize(v):
        if isinstance(v, Markup):
            return v
        if v is None:
            return ""
        return escape(v)

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix="%%", line_comment_prefix="%#",
        trim_blocks=True, lstrip_blocks=True, autoescape=False, finalize=finalize,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
    )
    env.filters["mjoin"] = lambda items, sep: Markup(sep.join(
        i if isinstance(i, Markup) else escape(i) for i in items))
    return env


#: the proved claim whose statement defines ``D(k)`` in the numerics section
SUM_OF_COSINES = "distance.sq_eq_two_sum_one_minus_cos"


def _numerics_view(num: dict, render: dict) -> dict:
    out: dict = {"present": bool(num)}
    if not num:
        return out
    seps = num.get("separation") or []
    rows = []
    for r in seps:
        s, mp = r["separation"], r.get("mpmath")
        rows.append({
            "d": fmt.integer(s["d"]), "n": fmt.integer(s["n_pos"]),
            "min_sq": fmt.interval(s["min_sq"]["lo"], s["min_sq"]["hi"], 10),
            "argmin": Markup(", ".join(str(fmt.integer(k)) for k in s["argmin"])),
            "unique": "yes" if s["certified_unique"] else "tie",
            "min_dist": fmt.lower(s["min_dist"]["lo"], 8),
            "adjacent": fmt.interval(s["adjacent_sq"]["lo"], s["adjacent_sq"]["hi"], 8),
            "closer": fmt.integer(s["closer_than_adjacent"]),
            "first_decrease": fmt.integer(s["first_decrease"]),
            "wrap": fmt.interval(s["wrap"]["lo"], s["wrap"]["hi"], 9),
            "wrap_position": fmt.integer(s["wrap_position"]),
            "distinct": "yes" if s["distinct"] else "no",
            "below_wrap": "yes" if (s["wrap_position"] or 0) >= s["n_pos"] else "no",
            "bound": fmt.num(s["float_bound"], 2), "candidates": fmt.integer(s["candidates"]),
            "mp": "-" if mp is None else ("agrees" if mp["agree"] else "DISAGREES"),
            "mp_checks": len(mp["checks"]) if mp else 0,
            "undecided": s["undecided"],
        })
    out["separation"] = rows
    if seps:
        s0 = seps[0]["separation"]
        out["n"] = fmt.integer(s0["n_pos"])
        out["n_raw"] = s0["n_pos"]
        out["reduction"] = [Markup(claim_ref(c)) for c in s0["reduction"]]
        out["reduction_statement"] = C.statement_rows(render.get(SUM_OF_COSINES))
        out["trusted"] = s0["trusted_base"]
        out["all_distinct"] = all(r["separation"]["distinct"] for r in seps)
        out["all_unique"] = all(r["separation"]["certified_unique"] for r in seps)
        out["mp_agree"] = all((r.get("mpmath") or {}).get("agree", False) for r in seps)
        out["mp_dps"] = (seps[0].get("mpmath") or {}).get("dps")
    hz = [num[k] for k in sorted(num) if k.startswith("horizon:")]
    order = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3}
    hz.sort(key=lambda h: order.get(h["dtype"], 9))
    hrows = []
    for h in hz:
        n = h["n"]
        for r in h["rows"]:
            coll = ("none" if r["collision"] is None else None)
            hrows.append({
                "dtype": r["dtype"], "recipe": r["recipe"],
                "collision": Markup(f"none $<$ {fmt.integer(n)}") if coll else
                Markup(f"{fmt.integer(r['collision'])} (= {fmt.integer(r['collision_with'])})"),
                "forced": (fmt.integer(r["collision_bound"]) if r["collision_bound"] < 10**7
                           else fmt.big(r["collision_bound"])) if r["collision_bound"] else
                Markup("never"),
                "crossing": Markup(f"none $<$ {fmt.integer(n)}") if r["error_crossing"] is None
                else Markup(str(fmt.integer(r["error_crossing"]))
                            + ("" if r["crossing_certain"] else r"\textsuperscript{*}")),
                "overflow": Markup("never") if r["overflow"] is None else (
                    fmt.integer(r["overflow"]) if r["overflow"] < 10**7 else
                    fmt.big(r["overflow"])),
                "max_error": fmt.num(r["max_error"], 3),
                "scanned": fmt.integer(r["scanned"]),
            })
    if hz:
        out["horizon"] = {"d": fmt.integer(hz[0]["d"]), "n": fmt.integer(hz[0]["n"]),
                          "half": fmt.interval(*hz[0]["half_separation"], 10), "rows": hrows,
                          "dtypes": [h["dtype"] for h in hz],
                          "any_uncertain": any(r["crossing_certain"] is False
                                               for h in hz for r in h["rows"])}
    if num.get("recipe_error"):
        re_ = num["recipe_error"]
        out["recipe_error"] = {"d": fmt.integer(re_["d"]), "bin": fmt.integer(re_["bin"]),
                               "dtypes": [p["dtype"] for p in re_["panels"]],
                               "recipes": [c["recipe"] for c in re_["panels"][0]["curves"]]}
    if num.get("separation_vs_n"):
        sv = num["separation_vs_n"]
        out["sep_vs_n"] = {"ds": [c["d"] for c in sv["curves"]], "points": len(sv["n_grid"])}
    if num.get("distance"):
        ds = num["distance"]
        out["distance"] = {"ds": [c["d"] for c in ds["curves"]],
                           "ks": [fmt.integer(k) for k in ds["ks"]]}
    return out


def _figures(num: dict, nodes: list[dict], build: Path) -> dict[str, str]:
    out = {}
    if num.get("distance"):
        figures.distance(num["distance"], build / "fig-distance.pdf")
        out["distance"] = "fig-distance.pdf"
    if num.get("separation_vs_n"):
        figures.separation_vs_n(num["separation_vs_n"], build / "fig-separation.pdf")
        out["separation"] = "fig-separation.pdf"
    hz = [num[k] for k in sorted(num) if k.startswith("horizon:")]
    order = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3}
    hz.sort(key=lambda h: order.get(h["dtype"], 9))
    if hz:
        rows = [r for h in hz for r in h["rows"]]
        figures.horizons(rows, hz[0]["n"], build / "fig-horizons.pdf")
        out["horizons"] = "fig-horizons.pdf"
    if num.get("recipe_error"):
        half = {h["dtype"]: h["half_separation"] for h in hz}
        if not half and hz == []:
            half = {}
        figures.recipe_error(num["recipe_error"], half, build / "fig-recipe-error.pdf")
        out["recipe_error"] = "fig-recipe-error.pdf"
    if nodes:
        figures.dependency_graph(nodes, build / "fig-graph.pdf")
        out["graph"] = "fig-graph.pdf"
    return out


def _peers_view(peers: dict | None) -> dict:
    if not peers:
        return {"ran": False, "rows": []}
    rows = []
    for r in peers["rows"]:
        rows.append({**r, "max_abs_f": fmt.num(r.get("max_abs"), 3) if r.get("max_abs")
                     is not None else Markup(r"\textemdash{}"),
                     "shape_f": Markup(r"$\times$".join(str(x) for x in r.get("shape", [])))})
    return {"ran": True, "rows": rows,
            "checked": sum(r["status"] == "checked" for r in peers["rows"]),
            "missing": [r["package"] for r in peers["rows"] if r["status"] == "not installed"]}


def definition() -> list[Markup]:
    """The encoding's two defining equations, printed from :mod:`peproof.encoding`."""
    import sympy as sp

    from peproof.encoding import omega_expr

    from .formulas import latex

    pos, i, d = sp.symbols("pos i d")
    angle = pos * omega_expr(i, d)
    return [Markup(rf"PE({latex(pos)}, {latex(2 * i)}) = {latex(sp.sin(angle))}"),
            Markup(rf"PE({latex(pos)}, {latex(2 * i + 1)}) = {latex(sp.cos(angle))}")]


def omega() -> Markup:
    import sympy as sp

    from peproof.encoding import omega_expr

    from .formulas import latex

    i, d = sp.symbols("i d")
    return Markup(rf"\omega_{{{latex(i)}}} = {latex(omega_expr(i, d))}")


def context(run: dict, root: Path) -> dict:
    res = run["results"]
    rows = res["claims"]
    by_id = {r["id"]: r for r in rows}
    ids = set(by_id)
    used_by: dict[str, list[str]] = {}
    for r in rows:
        for u in r["uses"]:
            used_by.setdefault(u, []).append(r["id"])
    render = run["render"]
    views = {r["id"]: C.claim_view(r, render.get(r["id"]), used_by.get(r["id"], []), ids)
             for r in rows}
    titles = C.family_titles()
    fams: dict[str, list] = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(views[r["id"]])
    families = [{"name": f, "title": titles.get(f, f), "claims": cl,
                 "counts": Counter(v["status"] for v in cl)} for f, cl in fams.items()]
    refuted, approx = C.errata(rows, by_id, views, render)
    state = source_state(root)
    epoch, date_source = C.build_date(state["commit_time"])
    checks = Counter()
    unchecked = []
    for cid, r in render.items():
        chs = list(((r or {}).get("statement") or {}).get("checks", []))
        chs += list(((r or {}).get("steps") or {}).get("checks", []) or [])
        for ch in chs:
            checks[ch["status"]] += 1
            if ch["status"] not in ("identical", "equal at random points"):
                unchecked.append({"id": Markup(claim_ref(cid)), "status": ch["status"],
                                  "detail": ch["detail"]})
    g = C.graph(rows)
    summ = res["summary"]
    axioms = Counter(a for r in rows for a in (r["verdict"].get("axioms") or []))
    engines = Counter(r["verdict"]["engine"] for r in rows)
    vers = versions()
    return {
        "definition": definition(),
        "omega": omega(),
        "meta": {
            "version": res["suite_version"], "commit": state["commit"],
            "commit_short": state["commit"][:12], "modified": state["modified"],
            "date": C.date_text(epoch), "date_source": date_source,
            "platform": f"{vers['system']} {vers['machine']}, Python {vers['python']}",
            "versions": vers, "fingerprint": run["fingerprint"][:16],
            "pattern": run["options"].get("pattern"),
            "numerics_mode": run["options"].get("numerics"),
        },
        "summary": {**summ, "engine_agreement": sorted(summ["engine_agreement"].items(),
                                                       key=lambda kv: (-kv[1], kv[0])),
                    "proof_seconds": fmt.seconds(summ["seconds"])},
        "verdict_word": {s: Markup(verdict(s)) for s in ("proved", "refuted", "unknown")},
        "seeds": C.seeds_info(rows),
        "table": [{"ref": Markup(claim_ref(r["id"])), "title": r["title"],
                   "sources": ", ".join(dict.fromkeys(C.seed_label(s["seed"]).split()[-1]
                                                      for s in r["sources"])),
                   "verdict": Markup(verdict(r["verdict"]["status"])),
                   "engines": C.engine_cell(r), "seconds": fmt.seconds(r["verdict"]["seconds"]),
                   "flag": (not r["agrees_with_expectation"]) or r.get("conflict")}
                  for r in rows],
        "families": families,
        "errata": refuted, "approx": approx,
        "numerics": _numerics_view(run.get("numerics") or {}, render),
        "graph": g,
        "peers": _peers_view(run.get("peers")),
        "checks": {"counts": sorted(checks.items()), "total": sum(checks.values()),
                   "unchecked": unchecked},
        "axioms": axioms.most_common(), "engines": engines.most_common(),
    }


def build(build_dir: Path | None = None, pattern: str | None = None, numerics: str = "default",
          peers: bool = True, workers: int | None = None, fresh: bool = False,
          compile_pdf: bool = True, quiet: bool = False, run: dict | None = None) -> Outcome:
    """Build the report (see the module docstring); ``run`` replaces :func:`collect`."""
    t0 = time.perf_counter()
    root = repo_root()
    build_dir = build_dir or root / "reports" / "build"
    build_dir.mkdir(parents=True, exist_ok=True)
    if run is None:
        run = collect(build_dir, pattern=pattern, numerics=numerics, peers=peers,
                      workers=workers, fresh=fresh, quiet=quiet)
    reset_unknown()
    ctx = context(run, root)
    ctx["figures"] = _figures(run.get("numerics") or {}, ctx["graph"]["nodes"], build_dir)
    text = environment().get_template("report.tex.j2").render(**ctx)
    from peproof.cli import write_atomic

    tex_path = build_dir / TEX_NAME
    write_atomic(tex_path, text)
    t_tex = 0.0
    pdf, message, pages, missing = None, "", None, False
    if compile_pdf:
        t1 = time.perf_counter()
        res = tex.compile_pdf(tex_path, build_dir / PDF_NAME, epoch=C.build_date(
            source_state(root)["commit_time"])[0])
        t_tex = time.perf_counter() - t1
        pdf, message, pages, missing = res.pdf, res.message, res.pages, res.missing
    return Outcome(tex_path=tex_path, pdf_path=pdf, tex_message=message,
                   seconds=time.perf_counter() - t0, tex_seconds=t_tex, pages=pages,
                   reused=run.get("reused", False), formula_checks=dict(ctx["checks"]["counts"]),
                   unknown_chars=dict(unknown_seen),
                   errata=[e["view"]["id"] for e in ctx["errata"]],
                   summary=run["results"]["summary"],
                   ok=not compile_pdf or pdf is not None or missing)
