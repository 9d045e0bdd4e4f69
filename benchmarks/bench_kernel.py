"""Benchmark of the second kernel and the fuzzer (issue 9). Prints figures measured in ONE run.

* the FLINT re-check of every certificate the registry's exponential proofs carry (target
  <= 1 s in total), with the number of claims and certificates, and its ratio to the time the
  SymPy procedure (rewrite + expand) spent on the same zero tests;
* the differential fuzzer at its CI budget (target <= 60 s wall), with the cases run and the
  verdict counts;
* ``pytest proofs`` wall time (target <= 15 s on this 2-core machine).

Ratios, not absolute times, are the figures to compare across machines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def flint_recheck() -> None:
    from peproof import registry
    from peproof.engines import expoly
    from peproof.kernel import flint_check as kernel_flint
    from peproof.verdicts import verdict_of

    t0 = time.perf_counter()
    with expoly.recording() as log:  # every zero test SymPy passed while deciding the registry
        verdicts = {c.id: verdict_of(c.id) for c in registry.select(None)}
    decide_secs = time.perf_counter() - t0
    certs = [(cid, c) for cid, v in verdicts.items() if v.status == "proved"
             for c in v.certificates]
    claims = {cid for cid, _ in certs}
    t0 = time.perf_counter()
    bad = [cid for cid, c in certs if not kernel_flint.check(c).zero]
    flint_secs = time.perf_counter() - t0
    sympy_secs = sum(e["sympy_seconds"] for e in log)
    print(f"registry decided in {decide_secs:.2f} s; {len(log)} zero tests passed by SymPy "
          f"({sympy_secs:.3f} s in rewrite + expand)")
    print(f"FLINT re-check: {len(certs)} certificates of {len(claims)} proved claims in "
          f"{flint_secs:.3f} s (target <= 1 s); not zero: {bad or 'none'}")
    if sympy_secs:
        print(f"  FLINT / SymPy time ratio: {flint_secs / sympy_secs:.3f} "
              f"(SymPy {sympy_secs / max(len(log), 1) * 1e3:.2f} ms per zero test, "
              f"FLINT {flint_secs / max(len(certs), 1) * 1e3:.2f} ms per certificate)")


def fuzz_ci() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "fuzz.json"
        env = dict(os.environ, PEPROOF_FUZZ_REPORT=str(report))
        env.pop("PEPROOF_FUZZ_EXAMPLES", None)  # the CI budget
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "pytest", "tests/test_fuzz_trig.py", "-q",
                            "-p", "no:randomly"], cwd=ROOT, env=env, capture_output=True,
                           text=True)
        secs = time.perf_counter() - t0
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
        counts = json.loads(report.read_text()) if report.exists() else {}
    cases = counts.get("true cases", 0) + counts.get("false cases", 0)
    print(f"fuzzer (CI budget): {cases} cases in {secs:.2f} s wall (target <= 60 s; {last})")
    print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


def pytest_proofs() -> None:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pytest", "proofs", "-q", "-p", "no:randomly"],
                       cwd=ROOT, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
    print(f"pytest proofs: {secs:.2f} s wall (target <= 15 s; {last})")


if __name__ == "__main__":
    flint_recheck()
    fuzz_ci()
    pytest_proofs()
