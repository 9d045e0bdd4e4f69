"""Run (or reuse) everything the report shows: proofs, numerics, renderings of the statements.

The expensive part is cached in ``run.json`` of the output folder under a *fingerprint*: the
commit, the contents of every source file of the ``peproof`` package and of this package's job
modules, the versions of the engines and the options.  (Not the seed texts: no verdict depends
on them, and a report is the same with or without them.)  A build whose fingerprint matches
reuses the results (so two builds of one commit print the same times and give a byte-identical
``.tex``); ``fresh=True`` runs everything again.  The printed statements are cached beside the
results under the fingerprint and the printing modules' contents (:func:`render_fingerprint`).

Jobs run on a process pool, longest first: one job per claim family (decide every claim with
:func:`peproof.results.run`, then render its statements) and one per numeric task.  With
``workers=1`` everything runs in this process (the sabotage test relies on it).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from peproof.guard.signals import pool

from . import numerics as N

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS")
CACHE_NAME = "run.json"
CACHE_SCHEMA = "peproof.report-run/1"
#: modules of this package whose output is cached with the results
JOB_MODULES = ("run.py", "numerics.py", "peers.py")
#: modules whose output (the printed statements) is cached beside the results
RENDER_MODULES = ("render.py", "formulas.py", "named.py", "parse.py")


def package_dir() -> Path:
    import peproof

    return Path(peproof.__file__).resolve().parent


def repo_root() -> Path | None:
    """The source checkout this ``peproof`` comes from (``pyproject.toml`` and
    ``reports/peproof_report`` beside the package), or None for an installed package."""
    root = package_dir().parent
    if (root / "pyproject.toml").is_file() and (root / "reports" / "peproof_report").is_dir():
        return root
    return None


def default_build_dir() -> Path:
    """``reports/build`` of the checkout, else ``./peproof-report``."""
    root = repo_root()
    return root / "reports" / "build" if root else Path.cwd() / "peproof-report"


def git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def source_state(root: Path | None) -> dict:
    """Commit, whether tracked files differ from it, and the commit time (an installed package
    has none of them)."""
    if root is None:
        return {"commit": "unknown", "modified": False, "commit_time": None}
    commit = git(root, "rev-parse", "HEAD")
    status = git(root, "status", "--porcelain", "--untracked-files=no")
    ctime = git(root, "log", "-1", "--format=%ct")
    return {"commit": commit or "unknown", "modified": bool(status),
            "commit_time": int(ctime) if ctime and ctime.isdigit() else None}


def versions() -> dict:
    import flint
    import mpmath
    import numpy
    import sympy
    import z3

    import peproof
    from peproof.kernel.coq.run import coq_version

    return {"python": sys.version.split()[0], "sympy": sympy.__version__,
            "coq": coq_version() or "not installed",
            "python-flint": flint.__version__, "z3": z3.get_version_string(),
            "mpmath": mpmath.__version__, "numpy": numpy.__version__,
            "peproof": peproof.__version__, "machine": platform.machine(),
            "system": platform.system()}


def fingerprint(root: Path | None, options: dict) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"options": options, "versions": versions(),
                         "commit": source_state(root)["commit"]}, sort_keys=True).encode())
    pkg = package_dir()
    files = sorted(pkg.rglob("*.py")) + sorted(pkg.rglob("*.v"))  # .v: the Coq library
    files += [Path(__file__).parent / m for m in JOB_MODULES]
    for f in files:
        if f.is_file():
            h.update(str(f.relative_to(f.parent.parent)).encode())
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


# ---------------------------------------------------------------------------- jobs
def family_job(family: str, ids: list[str], prove: bool, falsifiers: bool = True,
               witnesses: dict | None = None) -> dict:
    """Decide the claims of one family (``prove``) and render their statements (with the
    refuted conclusion of each witness: from this run, or ``witnesses`` from the cache)."""
    from peproof import registry, results

    from .render import render_claim

    t0 = time.perf_counter()
    claims = [registry.get(i) for i in ids]
    out: dict = {"family": family}
    if prove:
        out["envelope"] = results.run(claims, falsifiers)
        witnesses = {r["id"]: r["verdict"].get("witness") for r in out["envelope"]["claims"]}
    witnesses = witnesses or {}
    out["render"] = {c.id: render_claim(c, witnesses.get(c.id)) for c in claims}
    out["seconds"] = time.perf_counter() - t0
    return out


def numeric_job(name: str, fn: str, args: tuple) -> dict:
    t0 = time.perf_counter()
    data = getattr(N, fn)(*args)
    return {"name": name, "data": data, "seconds": time.perf_counter() - t0}


def peers_job() -> dict:
    from . import peers

    t0 = time.perf_counter()
    return {"name": "peers", "data": peers.run(), "seconds": time.perf_counter() - t0}


def numeric_tasks(mode: str) -> list[tuple[str, str, tuple, float]]:
    """(name, function, arguments, estimated seconds) of the numeric jobs of ``mode``."""
    if mode == "none":
        return []
    from peproof.numeric import recipes as R

    p = N.default() if mode == "default" else N.quick()
    scale = 1.0 if mode == "default" else 0.1
    tasks = [
        ("separation", "separation", (list(p["ds"]), p["n"]), 5 * scale),
        ("separation_vs_n", "separation_vs_n", (list(p["sep_fig_ds"]), p["n"]), 1 * scale),
        ("distance", "distance", (list(p["fig_ds"]), list(p["distance_k"])), 0.5),
        ("wrap_span", "wrap_span", (p["wrap_d_max"],), 0.5),
        ("recipe_error", "recipe_error", (p["horizon_d"], list(p["dtypes"]),
                                          list(p["recipes"]), p["n"], p["bin"], p["stride"]),
         4 * scale),
    ]
    from peproof.numeric import N_TURN

    rope_n = N_TURN if mode == "default" else 4096
    tasks += [
        ("rope_decay", "rope_decay", (list(N.ROPE_DS if mode == "default" else N.ROPE_DS[:1]),
                                      rope_n), 3 * scale),
        ("rope_scaling", "rope_scaling", (), 1.0),
    ]
    est = {"float64": 8.5, "float32": 6, "float16": 4.5, "bfloat16": 3.2}
    dtypes = p["horizon_dtypes"]
    recipes = R.RECIPES if mode == "default" else p["recipes"]
    for dt in dtypes:
        tasks.append((f"horizon:{dt}", "horizon", (p["horizon_d"], dt, list(recipes), p["n"]),
                      est.get(dt, 3) * scale))
    return tasks


# ---------------------------------------------------------------------------- results
def merge(envelopes: list[dict], order: list[str]) -> dict:
    """One ``peproof.results/1`` envelope from per-family envelopes (rows in registry order;
    the summary recomputed the way :func:`peproof.results.run` computes it; ``seconds`` is the
    total time spent deciding, summed over the families)."""
    from peproof import results

    rows_by_id = {r["id"]: r for e in envelopes for r in e["claims"]}
    rows = [rows_by_id[i] for i in order if i in rows_by_id]
    first = envelopes[0] if envelopes else results.run([], False)
    return {
        "schema": first["schema"],
        "suite_version": first["suite_version"],
        "commit": first["commit"],
        "platform": first["platform"],
        "summary": results.summarize(rows, sum(e["summary"]["seconds"] for e in envelopes)),
        "claims": rows,
    }


def _say(msg: str) -> None:
    print(f"peproof report: {msg}", file=sys.stderr, flush=True)


def registry_data() -> dict:
    """What the documents read from the registry itself rather than from the results: the
    families' titles (first line of each family module's docstring) and the classification of
    refuted claims (:class:`peproof.claims.Erratum`)."""
    import importlib
    import pkgutil

    import peproof.families as fam
    from peproof import registry

    titles: dict[str, str] = {}
    main: dict[str, list[str]] = {}
    modules: dict[str, str] = {}
    module_titles: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(fam.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"peproof.families.{info.name}")
        doc = (mod.__doc__ or "").strip().splitlines()
        claims = getattr(mod, "CLAIMS", ())
        if claims and doc and (claims[0].family not in titles or info.name == claims[0].family):
            titles[claims[0].family] = doc[0].strip().rstrip(".")
        main[info.name] = main_statements(mod.__doc__ or "", [c.id for c in claims])
        if claims and doc:
            module_titles[info.name] = doc[0].strip().rstrip(".")
            modules.update({c.id: info.name for c in claims})
    errata = {c.id: {"kind": c.erratum.kind, "rank": c.erratum.rank,
                     "consequence": c.erratum.consequence}
              for c in registry.all_claims() if getattr(c, "erratum", None)}
    return {"family_titles": titles, "errata": errata, "main": main, "modules": modules,
            "module_titles": module_titles}


def main_statements(doc: str, ids: list[str]) -> list[str]:
    """The claims a family module names under ``Main statements`` in its docstring (ids in
    double backquotes, ``*`` as a wildcard), in the docstring's order (the most central first)."""
    import fnmatch
    import re

    m = re.search(r"^Main statements\s*$(.*?)(?:^\S|\Z)", doc, re.M | re.S)
    if not m:
        return []
    out: list[str] = []
    for p in re.findall(r"``([a-z0-9_]+\.[a-z0-9_*]+)``", m.group(1)):
        out += [i for i in ids if fnmatch.fnmatchcase(i, p) and i not in out]
    return out


def render_fingerprint(fp: str) -> str:
    h = hashlib.sha256(fp.encode())
    for m in RENDER_MODULES:
        h.update(hashlib.sha256((Path(__file__).parent / m).read_bytes()).digest())
    return h.hexdigest()


def _load(cache_path: Path) -> dict:
    if not cache_path.is_file():
        return {}
    try:
        c = json.loads(cache_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return c if c.get("schema") == CACHE_SCHEMA else {}


def collect(build: Path, pattern: str | None = None, numerics: str = "default",
            peers: bool = True, workers: int | None = None, fresh: bool = False,
            falsifiers: bool = True, quiet: bool = False) -> dict:
    """Everything the documents need, from the cache when it is fresh (module docstring).

    Two levels: the results (proofs, numerics, oracle) under the fingerprint of the code they
    depend on, and the printed statements under that fingerprint and the printing modules'.  A
    build whose results are fresh but whose printing changed only prints again.

    Returns ``{"fingerprint", "options", "results", "numerics", "peers", "render", "reused",
    "timing"}``.
    """
    say = (lambda m: None) if quiet else _say
    root = repo_root()
    options = {"pattern": pattern, "numerics": numerics, "peers": peers,
               "falsifiers": falsifiers}
    fp = fingerprint(root, options)
    rfp = render_fingerprint(fp)
    cache_path = build / CACHE_NAME
    old = _load(cache_path)
    previous = old.get("job_seconds") or {}  # estimates for the scheduling below
    cached = old if not fresh and old.get("fingerprint") == fp else None
    render_cached = cached is not None and cached.get("render_fingerprint") == rfp \
        and isinstance(cached.get("render"), dict)
    t0 = time.perf_counter()
    prove = cached is None
    claims, families = [], {}
    if not render_cached:  # the registry is loaded only when something is decided or printed
        from peproof import registry

        claims = registry.select(pattern)
        for c in claims:
            families.setdefault(c.family, []).append(c.id)
    jobs: list[tuple[float, str, object, tuple]] = []
    if not render_cached:
        wit = {} if prove else {r["id"]: r["verdict"].get("witness")
                                for r in cached["results"]["claims"]}
        for fam, ids in families.items():
            est = previous.get(f"family:{fam}", 2.5 * len(ids) / 10) if prove \
                else len(ids) / 25
            jobs.append((est, f"family:{fam}", family_job,
                         (fam, ids, prove, falsifiers, {i: wit.get(i) for i in ids})))
    if prove:
        for name, fn, args, est in numeric_tasks(numerics):
            jobs.append((previous.get(name, est), name, numeric_job, (name, fn, args)))
        if peers:
            jobs.append((previous.get("peers", 6.0), "peers", peers_job, ()))
    jobs.sort(key=lambda j: -j[0])
    workers = workers or min(os.cpu_count() or 1, 8)
    if not jobs:
        say("reusing the results and printed statements of this commit")
    else:
        say(("reusing the results of this commit, printing the statements; " if not prove else
             f"deciding {len(claims)} claims, running the numerics; ")
            + f"{len(jobs)} jobs on {workers} process{'es' if workers > 1 else ''}")
    t_jobs = time.time()
    timeline: list[dict] = []
    outputs = _run_jobs(jobs, workers, quiet, timeline)
    seconds = time.perf_counter() - t0
    if render_cached:
        render = cached["render"]
    else:
        render = {}
        for name, out in outputs.items():
            if name.startswith("family:"):
                render.update(out["render"])
    from peproof.cli import write_atomic

    if prove:
        order = [c.id for c in claims]
        envs = [outputs[f"family:{f}"]["envelope"] for f in families]
        num = {name: out["data"] for name, out in outputs.items()
               if not name.startswith("family:") and name not in ("peers", "coq")}
        merged = merge(envs, order)
        # the Coq pass: once, after the engines (it reads their witnesses), on 2 coqc workers
        from peproof import results as R

        say(f"checking the claims in Coq (.v files in {build / 'coq'})")
        t_coq = time.perf_counter()
        R.add_coq(merged["claims"], claims, build / "coq", recheck=fresh)  # --fresh: Coq too
        outputs["coq"] = {"seconds": time.perf_counter() - t_coq}
        merged["summary"] = R.summarize(merged["claims"], merged["summary"]["seconds"])
        run = {"schema": CACHE_SCHEMA, "fingerprint": fp, "options": options,
               "results": merged, "numerics": num,
               "job_seconds": {n: round(o["seconds"], 3) for n, o in outputs.items()},
               "peers": outputs["peers"]["data"] if "peers" in outputs else None,
               "registry": registry_data()}
    else:
        run = {k: v for k, v in cached.items() if k not in ("render", "render_fingerprint")}
        if "registry" not in run:
            run["registry"] = registry_data()
    if not render_cached:
        text = json.dumps({**run, "render_fingerprint": rfp, "render": render}, indent=1,
                          sort_keys=True)
        write_atomic(cache_path, text)
        stored = json.loads(text)  # the documents read exactly what a later build reuses
        run, render = ({k: v for k, v in stored.items()
                        if k not in ("render", "render_fingerprint")}, stored["render"])
    if prove:
        write_atomic(build / "results.json", json.dumps(run["results"], indent=1,
                                                         sort_keys=True))
    return {**run, "render": render, "reused": not prove,
            "timing": {"collect_seconds": seconds, "jobs_start": t_jobs, "jobs": timeline}}


def _timed(fn, args: tuple) -> tuple[dict, float, float, int, float]:
    """``fn(*args)`` with its wall-clock start and end (``time.time``), the process id and the
    CPU seconds it took: the run's timeline (``timing.json``, not cached: it is not part of
    the documents)."""
    c0 = time.process_time()
    t0 = time.time()
    out = fn(*args)
    return out, t0, time.time(), os.getpid(), time.process_time() - c0


def _run_jobs(jobs: list, workers: int, quiet: bool,
              timeline: list | None = None) -> dict[str, dict]:
    outputs: dict[str, dict] = {}
    timeline = [] if timeline is None else timeline
    if not jobs:
        return outputs
    if workers == 1:
        for _, name, fn, args in jobs:
            outputs[name], t0, t1, pid, cpu = _timed(fn, args)
            timeline.append({"job": name, "start": t0, "end": t1, "pid": pid, "cpu": cpu})
        return outputs
    # fresh interpreters with one BLAS/OpenMP thread each: the parent's NumPy is already
    # initialised, and forked children sharing its thread pools oversubscribe the cores
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")
    ctx = multiprocessing.get_context("forkserver")
    with pool(workers, mp_context=ctx) as ex:  # workers stopped on any signal
        futs = {name: ex.submit(_timed, fn, args) for _, name, fn, args in jobs}
        done = 0
        for name, f in futs.items():
            outputs[name], t0, t1, pid, cpu = f.result()
            timeline.append({"job": name, "start": t0, "end": t1, "pid": pid, "cpu": cpu})
            done += 1
            if not quiet and sys.stderr.isatty():
                sys.stderr.write(f"\r  [{done}/{len(jobs)}] {name:40s}")
        if not quiet and sys.stderr.isatty():
            sys.stderr.write("\n")
    return outputs
