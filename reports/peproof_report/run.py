"""Run (or reuse) everything the report shows: proofs, numerics, renderings of the statements.

The expensive part is cached in ``reports/build/run.json`` under a *fingerprint*: the commit,
the contents of every source file of ``peproof/`` and of this package's job modules, the seeds,
the versions of the engines and the options.  A build whose fingerprint matches reuses the
results (so two builds of one commit print the same times and give a byte-identical ``.tex``);
``fresh=True`` runs everything again.

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


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent


def git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def source_state(root: Path) -> dict:
    """Commit, whether tracked files differ from it, and the commit time."""
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

    return {"python": sys.version.split()[0], "sympy": sympy.__version__,
            "python-flint": flint.__version__, "z3": z3.get_version_string(),
            "mpmath": mpmath.__version__, "numpy": numpy.__version__,
            "peproof": peproof.__version__, "machine": platform.machine(),
            "system": platform.system()}


def fingerprint(root: Path, options: dict) -> str:
    from peproof.seeds import seeds_dir

    h = hashlib.sha256()
    h.update(json.dumps({"options": options, "versions": versions(),
                         "commit": source_state(root)["commit"]}, sort_keys=True).encode())
    files = sorted((root / "peproof").rglob("*.py"))
    files += [Path(__file__).parent / m for m in JOB_MODULES]
    sd = seeds_dir()
    if sd:
        files += sorted(sd.glob("*.txt"))
    for f in files:
        if f.is_file():
            h.update(f.name.encode())
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


# ---------------------------------------------------------------------------- jobs
def family_job(family: str, ids: list[str], prove: bool, falsifiers: bool = True) -> dict:
    """Decide the claims of one family (``prove``) and render their statements."""
    from peproof import registry, results

    from .render import render_claim

    t0 = time.perf_counter()
    claims = [registry.get(i) for i in ids]
    out: dict = {"family": family}
    if prove:
        out["envelope"] = results.run(claims, falsifiers)
    out["render"] = {c.id: render_claim(c) for c in claims}
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
        ("recipe_error", "recipe_error", (p["horizon_d"], list(p["dtypes"]),
                                          list(p["recipes"]), p["n"], p["bin"]), 4 * scale),
    ]
    est = {"float64": 8.5, "float32": 6, "float16": 4.5, "bfloat16": 3.2}
    dtypes = tuple(R.DTYPES) if mode == "default" else p["dtypes"]
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


def collect(build: Path, pattern: str | None = None, numerics: str = "default",
            peers: bool = True, workers: int | None = None, fresh: bool = False,
            falsifiers: bool = True, quiet: bool = False) -> dict:
    """Everything the document needs, from the cache when it is fresh (see module docstring).

    Returns ``{"fingerprint", "options", "results", "numerics", "peers", "render", "reused",
    "timing"}``.
    """
    from peproof import registry

    say = (lambda m: None) if quiet else _say
    root = repo_root()
    claims = registry.select(pattern)
    options = {"pattern": pattern, "numerics": numerics, "peers": peers,
               "falsifiers": falsifiers}
    fp = fingerprint(root, options)
    cache_path = build / CACHE_NAME
    cached, previous = None, {}
    if cache_path.is_file():
        try:
            c = json.loads(cache_path.read_text(encoding="utf-8"))
            previous = c.get("job_seconds") or {}  # estimates for the scheduling below
            if not fresh and c.get("schema") == CACHE_SCHEMA and c.get("fingerprint") == fp:
                cached = c
        except (OSError, ValueError):
            cached = None
    t0 = time.perf_counter()
    families: dict[str, list[str]] = {}
    for c in claims:
        families.setdefault(c.family, []).append(c.id)
    prove = cached is None
    jobs: list[tuple[float, str, object, tuple]] = []
    for fam, ids in families.items():
        est = previous.get(f"family:{fam}", 2.5 * len(ids) / 10) if prove else len(ids) / 25
        jobs.append((est, f"family:{fam}", family_job, (fam, ids, prove, falsifiers)))
    if prove:
        for name, fn, args, est in numeric_tasks(numerics):
            jobs.append((previous.get(name, est), name, numeric_job, (name, fn, args)))
        if peers:
            jobs.append((previous.get("peers", 6.0), "peers", peers_job, ()))
    jobs.sort(key=lambda j: -j[0])
    workers = workers or min(os.cpu_count() or 1, 8)
    say(("reusing the results of this commit; " if not prove else
         f"deciding {len(claims)} claims, running the numerics; ")
        + f"{len(jobs)} jobs on {workers} process{'es' if workers > 1 else ''}")
    outputs: dict[str, dict] = {}
    if workers == 1:
        for _, name, fn, args in jobs:
            outputs[name] = fn(*args)
    else:
        # fresh interpreters with one BLAS/OpenMP thread each: the parent's NumPy is already
        # initialised, and forked children sharing its thread pools oversubscribe the cores
        for var in THREAD_VARS:
            os.environ.setdefault(var, "1")
        ctx = multiprocessing.get_context("forkserver")
        with pool(workers, mp_context=ctx) as ex:  # workers stopped on any signal
            futs = {name: ex.submit(fn, *args) for _, name, fn, args in jobs}
            done = 0
            for name, f in futs.items():
                outputs[name] = f.result()
                done += 1
                if not quiet and sys.stderr.isatty():
                    sys.stderr.write(f"\r  [{done}/{len(jobs)}] {name:40s}")
            if not quiet and sys.stderr.isatty():
                sys.stderr.write("\n")
    seconds = time.perf_counter() - t0
    render = {}
    for name, out in outputs.items():
        if name.startswith("family:"):
            render.update(out["render"])
    if prove:
        order = [c.id for c in claims]
        envs = [outputs[f"family:{f}"]["envelope"] for f in families]
        num = {name: out["data"] for name, out in outputs.items()
               if not name.startswith("family:") and name != "peers"}
        run = {"schema": CACHE_SCHEMA, "fingerprint": fp, "options": options,
               "results": merge(envs, order), "numerics": num,
               "job_seconds": {n: round(o["seconds"], 3) for n, o in outputs.items()},
               "peers": outputs["peers"]["data"] if "peers" in outputs else None}
        from peproof.cli import write_atomic

        text = json.dumps(run, indent=1, sort_keys=True)
        write_atomic(cache_path, text)
        run = json.loads(text)  # the document reads exactly what a later build will reuse
        write_atomic(build / "results.json", json.dumps(run["results"], indent=1,
                                                         sort_keys=True))
    else:
        run = cached
    return {**run, "render": render, "reused": not prove,
            "timing": {"collect_seconds": seconds}}
