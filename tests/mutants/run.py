"""Mutation testing: run every mutant of ``tests/mutants/mutants.toml`` against the engine tests.

``make mutants`` (or ``python tests/mutants/run.py [--jobs N] [--only ID ...]``).

Each mutant runs against its own ``tests`` (the test files of its module) when it lists them,
else against the engine subset :data:`TESTS`; ``--tests`` overrides both.

Each worker copies the tree (``peproof``, ``tests``, ``proofs``, ``numeric``,
``pyproject.toml``) into a temporary folder once; per mutant it replaces the snippet in the
copy, runs a fast engine-focused pytest subset there (``-x``: stop at the first failure; a
wall-clock limit per mutant) and puts the original text back.  The working tree is never
written.  The copy's ``peproof`` is the one imported (pytest runs in the copy, which
``python -m`` puts first on ``sys.path``; checked before the first mutant).

Each pytest run gets a fresh, empty Coq result cache (``PEPROOF_COQ_CACHE``): a result is
keyed by the job's inputs, not by the code that judged it, so a mutant of the Coq runner must
neither read results cached by the real code nor leave its own in the user's cache.

A mutant is *killed* when a test fails (or the run times out), *survived* when every test
passes.  A mutant documented as ``equivalent`` is expected to survive; one that is killed is
reported so that the note can be removed.  A snippet that does not occur exactly once is an
error: the list must follow the code.  Exit status 0 only when every non-equivalent mutant is
killed.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIST = Path(__file__).with_name("mutants.toml")
COPY = ("peproof", "tests", "proofs", "numeric", "pyproject.toml")
# targeted tests first (they kill most mutants in a second or two), the whole registry last
TESTS = (
    "tests/test_engine_mutants.py",
    "tests/test_soundness_adversarial.py",
    "tests/test_soundness_round4.py",
    "tests/test_fragments.py",
    "tests/test_layers.py",
    "tests/test_wellformed_rules.py",
    "tests/test_engines.py",
    "tests/test_kernel_flint_check.py",
    "tests/test_encoding.py",
    "proofs",
)
KEYS = {"id", "file", "old", "new", "why", "equivalent", "tests"}
TIMEOUT = 300.0


class ListError(ValueError):
    """The mutant list is malformed or out of sync with the code."""


def load(path: Path = LIST) -> list[dict]:
    with open(path, "rb") as fh:
        return tomllib.load(fh).get("mutant", [])


def check(mutants: list[dict], root: Path = ROOT) -> list[str]:
    """Every problem with the list (empty when it is in sync with the code under ``root``)."""
    errors, seen = [], set()
    for n, m in enumerate(mutants):
        name = m.get("id", f"#{n}")
        missing = {"id", "file", "old", "new", "why"} - set(m)
        if missing:
            errors.append(f"{name}: missing {', '.join(sorted(missing))}")
            continue
        if set(m) - KEYS:
            errors.append(f"{name}: unknown key(s) {', '.join(sorted(set(m) - KEYS))}")
        if name in seen:
            errors.append(f"{name}: duplicate id")
        seen.add(name)
        if m["old"] == m["new"]:
            errors.append(f"{name}: replacement equals the original")
        if not m["why"].strip():
            errors.append(f"{name}: no reason given")
        tests = m.get("tests", [])
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            errors.append(f"{name}: tests must be a list of test paths")
        else:
            for t in tests:
                if not (root / t.split("::")[0]).exists():
                    errors.append(f"{name}: no test file {t.split('::')[0]}")
        path = root / m["file"]
        if not path.is_file():
            errors.append(f"{name}: no file {m['file']}")
            continue
        count = path.read_text().count(m["old"])
        if count != 1:
            errors.append(f"{name}: snippet occurs {count} times in {m['file']} (must be once): "
                          f"{m['old'].strip()[:60]!r}")
    return errors


def mutate(text: str, m: dict) -> str:
    """``text`` with the mutant's snippet replaced (it must occur exactly once)."""
    if text.count(m["old"]) != 1:
        raise ListError(f"{m['id']}: snippet not found exactly once in {m['file']}")
    return text.replace(m["old"], m["new"], 1)


def _copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns(".pytest_cache", "*.egg-info", "build")
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)


def _env(tree: Path) -> dict:
    env = dict(os.environ)
    if "PEPROOF_SEEDS" not in env:  # peproof.seeds looks next to the checkout, not the copy
        for cand in (ROOT.parent / "shared" / "seeds", ROOT / "seeds"):
            if cand.is_dir():
                env["PEPROOF_SEEDS"] = str(cand)
                break
    env.update(CI="true", PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return env


def _drop_bytecode(path: Path) -> None:
    for pyc in (path.parent / "__pycache__").glob(path.stem + ".*.pyc"):
        pyc.unlink()


def _check_import(tree: Path) -> None:
    out = subprocess.run([sys.executable, "-c", "import peproof; print(peproof.__file__)"],
                         cwd=tree, env=_env(tree), capture_output=True, text=True, check=True)
    got = Path(out.stdout.strip()).resolve()
    if tree.resolve() not in got.parents:
        raise SystemExit(f"mutants: the copy's peproof is not the one imported ({got})")


def _pytest(tree: Path, timeout: float, tests=TESTS) -> tuple[str, float, str]:
    cmd = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:randomly",
           "-m", "not slow", "-rfE", "--no-header", "--tb=no"]
    # a fresh Coq result cache per run: results are keyed by the job's inputs, not by the code
    # that judged them, so a mutant's results must neither be read back by a later run nor be
    # left in the user's cache
    cache = Path(tempfile.mkdtemp(prefix="coq-cache-", dir=tree))
    env = _env(tree) | {"PEPROOF_COQ_CACHE": str(cache)}
    t0 = time.perf_counter()
    try:
        res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                             timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return "killed", time.perf_counter() - t0, f"timeout after {timeout:.0f} s"
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    secs = time.perf_counter() - t0
    out = res.stdout + res.stderr
    if res.returncode == 0:
        return "survived", secs, ""
    first = re.search(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    if res.returncode in (1, 2) and first:
        return "killed", secs, first.group(1)
    return "error", secs, f"pytest exit {res.returncode}: {out.strip()[-300:]}"


def tests_of(m: dict, override=None) -> tuple[str, ...]:
    """The tests a mutant runs against: ``--tests`` if given, else its own ``tests`` (the
    module's test files, fastest first), else the engine subset :data:`TESTS`."""
    return tuple(override or m.get("tests") or TESTS)


def run_one(tree: Path, m: dict, timeout: float, tests=TESTS) -> tuple[str, float, str]:
    path = tree / m["file"]
    original = path.read_text()
    try:
        path.write_text(mutate(original, m))
        _drop_bytecode(path)
        return _pytest(tree, timeout, tests)
    finally:
        path.write_text(original)
        _drop_bytecode(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--only", nargs="*", default=None, help="mutant ids to run")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per mutant")
    ap.add_argument("--tests", nargs="*", default=None,
                    help="test paths to run instead of the default subset (e.g. to show that "
                    "one new test kills its mutant)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the check that the unmutated tree passes")
    args = ap.parse_args(argv)
    mutants = load()
    errors = check(mutants)
    if errors:
        print("mutants: the list is out of sync with the code:", *errors, sep="\n  ")
        return 2
    if args.only:
        unknown = set(args.only) - {m["id"] for m in mutants}
        if unknown:
            print(f"mutants: unknown id(s) {', '.join(sorted(unknown))}")
            return 2
        mutants = [m for m in mutants if m["id"] in args.only]
    suites = list(dict.fromkeys(tests_of(m, args.tests) for m in mutants))
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="peproof-mutants-") as tmp:
        trees: queue.Queue = queue.Queue()
        for k in range(max(1, args.jobs)):
            tree = Path(tmp) / f"w{k}"
            tree.mkdir()
            _copy_tree(tree)
            trees.put(tree)
        first = trees.get()
        _check_import(first)
        if not args.no_baseline:
            for tests in suites:
                status, secs, detail = _pytest(first, args.timeout, tests)
                print(f"baseline (no mutant): {status} in {secs:.0f} s {detail}"
                      + (f" [{' '.join(tests)[:70]}]" if len(suites) > 1 else ""), flush=True)
                if status != "survived":
                    print("mutants: the unmutated tree does not pass the test subset")
                    return 2
        trees.put(first)
        results: dict[str, tuple] = {}
        lock = threading.Lock()
        todo: queue.Queue = queue.Queue()
        for m in mutants:
            todo.put(m)

        def worker():
            tree = trees.get()
            while True:
                try:
                    m = todo.get_nowait()
                except queue.Empty:
                    return
                res = run_one(tree, m, args.timeout, tests_of(m, args.tests))
                with lock:
                    results[m["id"]] = res
                    status, secs, detail = res
                    tag = " (documented equivalent)" if m.get("equivalent") else ""
                    print(f"{len(results):3d}/{len(mutants)} {status:8s} {secs:6.1f} s  "
                          f"{m['id']}{tag}  {detail}", flush=True)

        threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    wall = time.perf_counter() - t_start
    equiv = [m for m in mutants if m.get("equivalent")]
    real = [m for m in mutants if not m.get("equivalent")]
    killed = [m for m in real if results[m["id"]][0] == "killed"]
    survived = [m for m in real if results[m["id"]][0] == "survived"]
    errored = [m for m in mutants if results[m["id"]][0] == "error"]
    equiv_killed = [m for m in equiv if results[m["id"]][0] == "killed"]
    print()
    for m in survived:
        print(f"SURVIVED {m['id']} ({m['file']}): {m['why']}")
    for m in errored:
        print(f"ERROR    {m['id']}: {results[m['id']][2]}")
    for m in equiv_killed:
        print(f"NOTE     {m['id']} is documented as equivalent but was killed by "
              f"{results[m['id']][2]}: remove the note")
    print(f"mutation score: {len(killed)}/{len(real)} killed"
          f" ({len(equiv)} documented equivalent, not counted); "
          f"{len(survived)} survived, {len(errored)} error(s); wall time {wall:.0f} s "
          f"with {args.jobs} worker(s)")
    return 0 if not survived and not errored else 1


if __name__ == "__main__":
    sys.exit(main())
