"""Assemble the documents: collect the run, draw the figures, render the templates, compile.

Two documents from one context: the report (``peproof-report``, compact: findings, errata, one
section per family, numerics with their figures, the oracle, the claim index) and, with
``full=True``, the record (``peproof-record``: every claim with its trace, falsifiers, engine
columns and trusted base).  Output goes to the checkout's ``reports/build/`` (or
``./peproof-report`` for an installed package) unless told otherwise: the ``.tex`` files, the
figures ``fig-*.pdf``, the PDFs (when TeX is installed), the cached run ``run.json`` and the plain
results envelope ``results.json``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from . import biblio, evidview, figures, findings, fmt, graph, numview, ropeview, tex
from . import content as C
from .latex import reset_unknown, tex_breakable, unknown_seen, verdict
from .mathtext import title_tex
from .run import collect, default_build_dir, repo_root, source_state, versions

TEX_NAME = "peproof-report.tex"
PDF_NAME = "peproof-report.pdf"
RECORD_TEX = "peproof-record.tex"
RECORD_PDF = "peproof-record.pdf"
TEMPLATES = Path(__file__).resolve().parent / "templates"
FAMILY_GRAPH_MIN = 4  # claims a family's dependency graph needs to be drawn


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
    more_tex: list[Path] = field(default_factory=list)
    more_pdf: list[tuple[Path, int | None]] = field(default_factory=list)
    quotes: dict = field(default_factory=dict)
    phases: dict = field(default_factory=dict)  # seconds per phase (also in timing.json)
    html_path: Path | None = None  # the HTML edition (``html=True``)
    tex_killed: bool = False  # TeX was killed by a signal (``tex_message`` names it)


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
    env.filters["fit"] = fit_row
    env.filters["breakable"] = lambda x: Markup(tex_breakable(x))
    env.filters["href"] = href_url
    return env


def href_url(path: str) -> Markup:
    """A relative path as the first argument of ``\\href``: percent-encoded but for letters,
    digits and ``/ . _ - ~`` (which hyperref takes as they are), each ``%`` escaped for TeX."""
    from urllib.parse import quote

    return Markup(quote(str(path), safe="/._-~").replace("%", r"\%"))


def fit_row(row: Markup) -> Markup:
    """A display row ``left & right`` with ``right`` scaled down if it is wider than the line
    (``\\fitrow``): long formulas never make an overfull box."""
    left, amp, right = str(row).partition("&")
    if not amp:
        return Markup(r"&\fitrow{" + left + "}")
    return Markup(left + r"&\fitrow{" + right + "}")


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


def formulas_of_the_numbers() -> dict[str, Markup]:
    """The formulas the headline numbers evaluate, printed from :mod:`peproof.encoding`:
    the first turn ``2 pi / omega_min`` and the span ``log10(omega_0 / omega_min)`` in decades,
    and the sources' ``d/2`` (all as functions of a symbolic ``d``)."""
    import sympy as sp

    from peproof.encoding import omega_expr

    from .formulas import latex

    d = sp.Symbol("d", positive=True, even=True)
    w_min = omega_expr(d / 2 - 1, d)
    span = sp.factor(sp.simplify(sp.expand_log(sp.log(omega_expr(0, d) / w_min, 10),
                                                force=True)))
    return {"wrap": Markup(latex(2 * sp.pi / w_min)), "span": Markup(latex(span)),
            "omega_min": Markup(latex(w_min)), "half_d": Markup(latex(d / 2)),
            "log_span": Markup(rf"\log_{{{latex(sp.Integer(10))}}}(\omega_{{{latex(0)}}}"
                               r"/\omega_{\min})")}


# ---------------------------------------------------------------------------- quotes
def verify_quotes(rows: list[dict]) -> dict:
    """Every quoted sentence found in its seed text, when the texts are present (the document
    does not depend on it; the command reports it)."""
    from peproof.seeds import normalise, seeds_dir

    sd = seeds_dir()
    out = {"folder": str(sd) if sd else None, "checked": 0, "missing": [], "absent": 0}
    texts: dict[str, str | None] = {}
    for r in rows:
        for s in r["sources"]:
            if s["seed"] not in texts:
                f = sd / s["seed"] if sd else None
                texts[s["seed"]] = normalise(f.read_text(encoding="utf-8")) \
                    if f and f.is_file() else None
            t = texts[s["seed"]]
            if t is None:
                out["absent"] += 1
            elif normalise(s["quote"]) in t:
                out["checked"] += 1
            else:
                out["missing"].append(f"{r['id']}: {s['quote'][:60]}")
    return out


# ---------------------------------------------------------------------------- context
def family_label(f: str) -> str:
    return "sec:family-" + f.replace("_", "-")


#: module of a family -> the numerics shown with its claims in the report (figure keys)
MODULE_NUMERICS = {"rope_decay": "rope_decay", "rope_scaling": "rope_scaling"}
#: theorems per module in the report: the first main statements its docstring names
THEOREMS_PER_MODULE = 3
#: modules whose theorems are chosen here rather than by their docstring's order: the RoPE
#: chapter's statements (the decay readings are shown beside their figure)
FEATURED = {
    "rope": ("rope.score_block_depends_only_on_offset", "rope.norm_block_preserved",
             "rope.complex_view_is_rotation", "rope.rotate_half_form_is_half_layout"),
    "rope_layouts": ("rope.half_from_interleaved_is_encoding_reordering",
                     "rope.half_layout_is_permuted_interleaved_concrete_d"),
    "rope_decay": ("rope.abel_summation_identity_concrete_d", "rope.abel_bound_concrete_d"),
}


def theorems(reg: dict) -> set[str]:
    """The claims the report prints with their statements: per module its featured claims, else
    the first :data:`THEOREMS_PER_MODULE` main statements of its docstring."""
    out: set[str] = set()
    for mod, ids in (reg.get("main") or {}).items():
        out.update(FEATURED.get(mod, ids[:THEOREMS_PER_MODULE]))
    return out


def _groups(cl: list[dict], reg: dict) -> list[dict]:
    """A family's claims by the module that states them (in the results' order), each split
    into its theorems (statement and proof) and the others (one line each; the record has
    them in full)."""
    main = theorems(reg)
    chosen = {i for mod in FEATURED.values() for i in mod}
    modules = reg.get("modules") or {}
    titles = reg.get("module_titles") or {}
    out: dict[str, dict] = {}
    for v in cl:
        mod = modules.get(v["id"], "")
        g = out.setdefault(mod, {"module": mod, "title": Markup(title_tex(titles.get(mod, ""))),
                                 "plain": titles.get(mod, ""), "main": [], "rest": [],
                                 "numerics": MODULE_NUMERICS.get(mod)})
        featured = v["id"] in main and not v["informal"] and (
            v["id"] in chosen or not v["construction"])
        (g["main"] if featured else g["rest"]).append(v)
    return list(out.values())


def _families(rows, views, fams, reg: dict) -> list[dict]:
    titles = reg["family_titles"]
    evid = {f["name"]: f for f in evidview.family_counts(rows, fams)["families"]}
    out = []
    for n, f in enumerate(fams, 1):
        cl = [views[r["id"]] for r in rows if r["family"] == f]
        groups = _groups(cl, reg)
        out.append({"name": f, "number": n, "title": Markup(title_tex(titles.get(f, f))),
                    "label": family_label(f),
                    "plain": titles.get(f, f), "claims": cl, "groups": groups,
                    "split": len(groups) > 1,
                    "counts": Counter(v["status"] for v in cl),
                    "evidence": evid[f],
                    "papers": list(biblio.FAMILY_PAPERS.get(f, ())),
                    "graph": None})
    return out


def _checks(render: dict, refs: C.Refs) -> dict:
    checks: Counter = Counter()
    unchecked = []
    for cid, r in render.items():
        chs = list(((r or {}).get("statement") or {}).get("checks", []))
        chs += list(((r or {}).get("compact") or {}).get("checks", []))
        chs += list(((r or {}).get("steps") or {}).get("checks", []) or [])
        chs += list(((r or {}).get("witness") or {}).get("checks", []) or [])
        for ch in chs:
            checks[ch["status"]] += 1
            if ch["status"] not in ("identical", "equal at random points"):
                unchecked.append({"id": Markup(refs.ref(cid)), "status": ch["status"],
                                  "detail": ch["detail"]})
    return {"counts": sorted(checks.items()), "total": sum(checks.values()),
            "unchecked": unchecked}


def _seeds(rows: list[dict]) -> list[dict]:
    cited = Counter(s["seed"] for r in rows for s in r["sources"])
    out = []
    for f in sorted(cited):
        info = C.seed_info(f)
        out.append({"key": C.seed_key(f), "file": f, "title": info.title, "kind": info.kind,
                    "short": info.short, "origin": info.origin, "claims": cited[f]})
    return out


def context(run: dict, root: Path | None, links: dict | None = None) -> dict:
    """The templates' context; ``links``: the claims' ``.v`` files relative to the build folder
    (:func:`.evidview.place_vfiles`)."""
    res = run["results"]
    rows = res["claims"]
    number, fams = graph.numbering(rows)
    refs = C.Refs(number)
    used_by: dict[str, list[str]] = {}
    for r in rows:
        for u in r["uses"]:
            used_by.setdefault(u, []).append(r["id"])
    render = run["render"]
    views = {r["id"]: C.claim_view(r, render.get(r["id"]), used_by.get(r["id"], []), refs,
                                   links)
             for r in rows}
    state = source_state(root)
    epoch, date_source = C.build_date(state["commit_time"])
    summ = res["summary"]
    vers = versions()
    num = run.get("numerics") or {}
    from peproof.numeric import D_ALL

    nv = numview.view(num, D_ALL)
    errs = findings.entries(rows, views, refs, run["registry"]["errata"])
    seeds = _seeds(rows)
    construction = sum(1 for r in rows if C.settled_by_construction(r["verdict"]))
    agreement = Counter()
    for r in rows:
        cells = dict(r["engines"])
        if C.settled_by_construction(r["verdict"]):
            cells["primary"] = "construction"
        agreement[" / ".join(f"{k}={v}" for k, v in cells.items())] += 1
    return {
        "definition": definition(), "omega": omega(), "formula": formulas_of_the_numbers(),
        "meta": {
            "version": res["suite_version"], "commit": state["commit"],
            "commit_short": state["commit"][:12], "modified": state["modified"],
            "checkout": root is not None,
            "date": C.date_text(epoch), "date_source": date_source,
            "platform": f"{vers['system']} {vers['machine']}, Python {vers['python']}",
            "versions": vers, "fingerprint": run["fingerprint"][:16],
            "pattern": run["options"].get("pattern"),
            "numerics_mode": run["options"].get("numerics"),
        },
        "summary": {**summ, "proof_seconds": fmt.seconds(summ["seconds"]),
                    "construction": construction,
                    "evidence_table": {**evidview.family_counts(rows, fams),
                                       "labels": {f: family_label(f) for f in fams}},
                    "coq": evidview.coq_summary(rows),
                    "agreement": sorted(agreement.items(), key=lambda kv: (-kv[1], kv[0]))},
        "verdict_word": {s: Markup(verdict(s)) for s in ("proved", "refuted", "unknown")},
        "seeds": seeds,
        "bib": biblio.entries(vers, run.get("peers"), seeds),
        "families": _families(rows, views, fams, run["registry"]),
        "rope": {"decay": ropeview.decay_view(num, views, refs),
                 "scaling": ropeview.scaling_view(num)},
        "longctx": ropeview.longctx_view(root),
        "findings": errs,
        "headline": findings.headline(num, nv),
        "status": findings.status_paragraphs(rows, summ),
        "numerics": nv,
        "graph": _graph_summary(rows, refs),
        "peers": _peers_view(run.get("peers")),
        "checks": _checks(render, refs),
        "index": _index(rows, views, number),
        "axioms": [(C.axiom_tex(a), n) for a, n in Counter(
            a for r in rows for a in (r["verdict"].get("axioms") or [])).most_common()],
        "engines": Counter(r["verdict"]["engine"] for r in rows).most_common(),
        "number": number,
    }


def _index(rows: list[dict], views: dict, number: dict) -> list[dict]:
    """The claim index: per family (alphabetical), the claims' names (alphabetical) with their
    numbers and pages."""
    fams: dict[str, list] = {}
    for r in rows:
        fam, _, name = r["id"].partition(".")
        fams.setdefault(fam, []).append({"name": Markup(tex_breakable(name)),
                                         "label": views[r["id"]]["label"],
                                         "number": number[r["id"]], "sort": name})
    return [{"family": f, "claims": sorted(cl, key=lambda x: x["sort"])}
            for f, cl in sorted(fams.items())]


def _graph_summary(rows: list[dict], refs: C.Refs) -> dict:
    s = graph.summary(rows, refs.number)
    status = {r["id"]: r["verdict"]["status"] for r in rows}
    return {"size": s["size"], "edges": s["edges"], "depth": s["depth"],
            "weak": [{"id": Markup(refs.ref(a)),
                      "on": [Markup(refs.ref(u) + " (" + verdict(status.get(u, "unknown")) + ")")
                             for u in bad]} for a, bad in s["weak"]],
            "family_edges": [{"from": a, "to": b, "count": n} for (a, b), n in
                             s["family_edges"]]}


def _variant_tex(text: str) -> Markup:
    """The oracle's name of a variant (``..., scale 1/sqrt(d)=0.0441942, float32``): the
    scale's formula typeset, the rest as text."""
    import re

    from .latex import tex as escape
    from .mathtext import ascii_math

    out, last = [], 0
    for m in re.finditer(r"(?<=scale )[^,]+", text):
        out += [escape(text[last:m.start()]), r"\(" + ascii_math(m.group().strip()) + r"\)"]
        last = m.end()
    return Markup("".join([*out, escape(text[last:])]))


def _peers_view(peers: dict | None) -> dict:
    """The oracle's rows; verdict codes and headlines are read from the results, never typed."""
    if not peers:
        return {"ran": False, "rows": [], "verdicts": []}
    rows = []
    for r in peers["rows"]:
        rows.append({**r, "max_abs_f": fmt.num(r.get("max_abs"), 3) if r.get("max_abs")
                     is not None else Markup(r"\textemdash{}"),
                     "shape_f": Markup(r"$\times$\allowbreak{}".join(str(x)
                                                                    for x in r.get("shape", []))),
                     "implementation_f": Markup(tex_breakable(r["implementation"])),
                     "package_f": Markup(tex_breakable(r["package"])),
                     "headline_f": Markup(title_tex(r.get("headline") or "")),
                     "identified_f": _variant_tex(r.get("identified") or "")
                     + (Markup("; indistinguishable here from: ")
                        + Markup("; ").join(_variant_tex(x) for x in r["indistinguishable"])
                        if r.get("indistinguishable") else "")})
    verdicts = Counter(r["verdict"] for r in peers["rows"] if r["status"] == "checked")
    return {"ran": True, "rows": rows,
            "checked": sum(r["status"] == "checked" for r in peers["rows"]),
            "verdicts": sorted(verdicts.items()),
            "missing": [r["package"] for r in peers["rows"] if r["status"] == "not installed"]}


# ---------------------------------------------------------------------------- figures
class _Drawer:
    """Draws a figure unless the file exists and was drawn from the same data by the same
    code (``figures.json`` in the output folder keeps a digest per file)."""

    def __init__(self, build: Path):
        import hashlib
        import json

        self.build, self.json = build, json
        self.index_path = build / "figures.json"
        try:
            self.index = json.loads(self.index_path.read_text()) if self.index_path.is_file() \
                else {}
        except ValueError:
            self.index = {}
        code = hashlib.sha256(Path(figures.__file__).read_bytes()).hexdigest()
        self.digest = lambda name, args: hashlib.sha256(
            (code + name + json.dumps(args, sort_keys=True, default=str)).encode()).hexdigest()

        self.pending: list[tuple[str, str, object, tuple, dict]] = []

    def __call__(self, name: str, fn, *args, **kw) -> str:
        """Queue ``name`` to be drawn by :meth:`save` (unless it is up to date)."""
        key = self.digest(name, [args, kw])
        path = self.build / name
        if not (path.is_file() and self.index.get(name) == key):
            self.pending.append((name, key, fn, (*args, path), kw))
        return name

    def save(self, workers: int = 1) -> None:
        """Draw the queued figures (on ``workers`` processes, the most costly first: each
        figure is its own matplotlib job on plain data) and record their digests."""
        from peproof.cli import write_atomic

        if workers > 1 and len(self.pending) > 1:
            import multiprocessing
            import os

            from peproof.guard.signals import pool

            from .run import THREAD_VARS

            for var in THREAD_VARS:
                os.environ.setdefault(var, "1")
            ctx = multiprocessing.get_context("forkserver")
            order = sorted(self.pending, key=lambda t: -len(self.json.dumps(t[3], default=str)))
            with pool(min(workers, len(order)), mp_context=ctx) as ex:
                futs = [ex.submit(fn, *args, **kw) for _, _, fn, args, kw in order]
                for f in futs:
                    f.result()
        else:
            for _, _, fn, args, kw in self.pending:
                fn(*args, **kw)
        for name, key, *_ in self.pending:
            self.index[name] = key
        self.pending = []
        write_atomic(self.index_path, self.json.dumps(self.index, indent=1, sort_keys=True))


def _figures(run: dict, ctx: dict, build: Path, workers: int = 1) -> dict[str, str]:
    num = run.get("numerics") or {}
    nv = ctx["numerics"]
    draw = _Drawer(build)
    out: dict = dict.fromkeys(("distance", "separation", "wrap_span", "recipe_error", "graph",
                               "rope_decay", "rope_scaling"))
    rows = run["results"]["claims"]
    if num.get("distance"):
        adjacent = {}
        for item in num.get("separation") or []:
            s = item["separation"]
            adjacent[s["d"]] = s["adjacent_sq"]["lo"]
        out["distance"] = draw("fig-distance.pdf", figures.distance, num["distance"], adjacent)
    if num.get("separation_vs_n"):
        out["separation"] = draw("fig-separation.pdf", figures.separation_vs_n,
                                 num["separation_vs_n"])
    if nv.get("wrap_all"):
        from peproof.numeric import D_ALL, N_TURN

        plain = [{k: r[k] for k in ("d", "wrap_mid", "span_value")} for r in nv["wrap_all"]]
        out["wrap_span"] = draw("fig-wrap-span.pdf", figures.wrap_and_span, plain, N_TURN,
                                list(D_ALL))
    if num.get("recipe_error"):
        half = {h["dtype"]: h["half_separation"] for h in numview.horizons(num)}
        out["recipe_error"] = draw("fig-recipe-error.pdf", figures.recipe_error,
                                   num["recipe_error"], half)
    if num.get("rope_decay"):
        out["rope_decay"] = draw("fig-rope-decay.pdf", figures.rope_decay, num["rope_decay"])
    if num.get("rope_scaling"):
        out["rope_scaling"] = draw("fig-rope-scaling.pdf", figures.rope_scaling,
                                   num["rope_scaling"])
    status = {r["id"]: r["verdict"]["status"] for r in rows}
    for fam in ctx["families"]:
        view = graph.family_view(fam["name"], rows)
        if view is None or len(view["nodes"]) < FAMILY_GRAPH_MIN:
            continue
        fam["graph"] = draw(f"fig-graph-{fam['name']}.pdf", figures.dependency_graph, view,
                            ctx["number"], status)
        # the section's heading, first lines and graph are kept on one page
        fam["graph_height"] = f"{figures.graph_height(view) + 1.1:.2f}in"
    if ctx["graph"]["size"]:
        out["graph"] = draw("fig-graph.pdf", figures.whole_graph, graph.whole_view(rows),
                            ctx["number"], status)
    draw.save(workers)
    return out


def _write_timing(build_dir: Path, phases: dict, timing: dict, total: float) -> None:
    """``timing.json``: the phases of this build and the collect jobs' timeline (seconds from
    the start of the jobs, per process); read by ``benchmarks/bench_report.py``."""
    import json

    from peproof.cli import write_atomic

    start = timing.get("jobs_start")
    jobs = [{"job": j["job"], "pid": j["pid"], "start": round(j["start"] - start, 3),
             "end": round(j["end"] - start, 3), "cpu": round(j["cpu"], 3)}
            for j in timing.get("jobs") or []] \
        if start else []
    write_atomic(build_dir / "timing.json", json.dumps(
        {"total": round(total, 3), "phases": phases, "jobs": jobs}, indent=1))


def build(build_dir: Path | None = None, pattern: str | None = None, numerics: str = "default",
          peers: bool = True, workers: int | None = None, fresh: bool = False,
          compile_pdf: bool = True, quiet: bool = False, run: dict | None = None,
          full: bool = False, html: bool = False) -> Outcome:
    """Build the report (and with ``full`` the record); ``run`` replaces :func:`collect`."""
    t0 = time.perf_counter()
    root = repo_root()
    build_dir = Path(build_dir) if build_dir else default_build_dir()
    build_dir.mkdir(parents=True, exist_ok=True)
    phases: dict[str, float] = {}
    mark = [time.perf_counter()]

    def phase(name: str) -> None:
        now = time.perf_counter()
        phases[name] = round(now - mark[0], 3)
        mark[0] = now

    if run is None:
        run = collect(build_dir, pattern=pattern, numerics=numerics, peers=peers,
                      workers=workers, fresh=fresh, quiet=quiet)
    phase("collect")
    reset_unknown()
    # a relative .v name is relative to the folder the Coq pass wrote into: this one, or the
    # checkout's reports/build (peproof prove)
    links = evidview.place_vfiles(run["results"]["claims"], build_dir,
                                  tuple(p for p in (default_build_dir(), root) if p))
    ctx = context(run, root, links)
    phase("context")
    import os

    ctx["figures"] = _figures(run, ctx, build_dir,
                              workers if workers is not None else min(os.cpu_count() or 1, 8))
    phase("figures")
    env = environment()
    from peproof.cli import write_atomic

    docs = [(TEX_NAME, PDF_NAME, "report.tex.j2")]
    if full:
        docs.append((RECORD_TEX, RECORD_PDF, "record.tex.j2"))
    tex_paths = []
    for tname, _, template in docs:
        path = build_dir / tname
        write_atomic(path, env.get_template(template).render(**ctx, document=tname[:-4]))
        tex_paths.append(path)
    html_path = None
    if html:
        from . import html as H

        html_path = H.write(run, build_dir, links)
    phase("templates")
    t_tex = 0.0
    pdfs: list[tuple[Path | None, int | None]] = []
    message, missing, killed = "", False, False
    if compile_pdf:
        t1 = time.perf_counter()
        epoch = C.build_date(source_state(root)["commit_time"])[0]
        results = tex.compile_many([(p, build_dir / pdf) for p, (_, pdf, _) in
                                    zip(tex_paths, docs, strict=True)], epoch=epoch)
        t_tex = time.perf_counter() - t1
        for r in results:
            pdfs.append((r.pdf, r.pages))
            missing = missing or r.missing
            if r.pdf is None and (not message or r.killed):
                message, killed = r.message, killed or r.killed
    phase("tex")
    _write_timing(build_dir, phases, run.get("timing") or {}, time.perf_counter() - t0)
    main_pdf, pages = pdfs[0] if pdfs else (None, None)
    return Outcome(phases=phases, html_path=html_path, tex_path=tex_paths[0], pdf_path=main_pdf,
                   tex_message=message, tex_killed=killed,
                   seconds=time.perf_counter() - t0, tex_seconds=t_tex, pages=pages,
                   reused=run.get("reused", False), formula_checks=dict(ctx["checks"]["counts"]),
                   unknown_chars=dict(unknown_seen),
                   errata=[e["view"]["id"] for k in ("error", "literal", "rejected-inference",
                                                     "unclassified")
                           for e in ctx["findings"][k]],
                   summary=run["results"]["summary"],
                   ok=not compile_pdf or all(p is not None for p, _ in pdfs) or missing,
                   more_tex=tex_paths[1:], more_pdf=[(p, n) for p, n in pdfs[1:] if p],
                   quotes=verify_quotes(run["results"]["claims"]))
