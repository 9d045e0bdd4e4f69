"""Benchmark of the proof suite (issue: the proof suite). Prints figures measured in ONE run.

* ``pytest proofs`` wall time in a subprocess, its ratio to 8 s (issue 26's target on this 2-core
  machine), its CPU time and the machine's load average (the wall time means little under
  load; the CPU time is what the suite itself costs);
* the exponential decision procedure against ``sympy.simplify`` on the same identities
  (target >= 4x faster); simplify gets a time limit per identity, a time-out counts at the
  limit;
* the block-by-block check of d = 1024: rotation, inner product and norm (target <= 2 s).

Ratios, not absolute times, are the figures to compare across machines.
``python benchmarks/bench_proofs.py pytest`` prints the ``pytest proofs`` figure only;
``... pytest --compare`` also the same suite in one process (``PEPROOF_PROOFS_WORKERS=1``).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


TARGET_PYTEST_PROOFS = 8.0  # seconds of wall time on the 2-core reference machine (issue 26)


def pytest_proofs_seconds(workers: str = "") -> float:
    """``pytest proofs`` (the README command) in a subprocess: its wall time and ratio to the
    8 s target, the CPU time of the process (``RUSAGE_CHILDREN``: what the suite itself used,
    whatever else shares the machine) and the load average before and after, to read the
    wall time against.  ``workers="1"``: the claims decided one by one in their tests
    (``PEPROOF_PROOFS_WORKERS=1``), as before they were decided ahead on every core."""
    load0 = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = {**os.environ, "PEPROOF_PROOFS_WORKERS": workers}
    r = subprocess.run([sys.executable, "-m", "pytest", "proofs", "-q", "-p", "no:randomly"],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    secs = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    load1 = os.getloadavg()
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
    what = "pytest proofs" + (" (one process)" if workers == "1" else "")
    print(f"{what}: {secs:.2f} s wall, ratio to the {TARGET_PYTEST_PROOFS:.0f} s target "
          f"{secs / TARGET_PYTEST_PROOFS:.2f} (<= 1 is met); CPU {cpu:.2f} s "
          f"(user {after.ru_utime - before.ru_utime:.2f}); {os.cpu_count()} CPUs, load average "
          f"{load0[0]:.2f} before, {load1[0]:.2f} after (above ~1 the wall time includes waiting "
          f"for a core)")
    print(f"  exit code {r.returncode}: {last}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("  note: PYTHONDONTWRITEBYTECODE is set, so every import compiles from source")
    return secs


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def decision_vs_simplify(limit: float = 5.0) -> None:
    import sympy as sp

    from peproof import registry
    from peproof.engines import expoly
    from peproof.engines.decide import lift

    diffs = []
    for c in registry.all_claims():
        st = c.statement
        if c.kind != "identity" or st is None or c.id.endswith("concrete_d") or c.proof:
            continue
        for r in st.concl:
            if r.op != "==":
                continue
            e = r.lhs - r.rhs
            if e.has(sp.Sum):
                lifted = lift(e)
                if lifted is None:
                    continue
                e = lifted[0]
            if e.has(sp.sin, sp.cos):
                diffs.append((c.id, e))
    t_dec = 0.0
    proved = 0
    for _, e in diffs:
        t0 = time.perf_counter()
        proved += expoly.expand_is_zero(e).zero
        t_dec += time.perf_counter() - t0
    t_simp = 0.0
    zero, timeouts = 0, 0
    signal.signal(signal.SIGALRM, _alarm)
    for _, e in diffs:
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            zero += sp.simplify(e) == 0
        except _Timeout:
            timeouts += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        t_simp += time.perf_counter() - t0
    print(f"identities: {len(diffs)} (the trigonometric equalities of the registry, lifted)")
    print(f"  exp-rewrite decision procedure: {t_dec:.3f} s, proved {proved}/{len(diffs)}")
    print(f"  sympy.simplify(lhs - rhs) == 0: {t_simp:.3f} s, zero {zero}/{len(diffs)}, "
          f"time-outs {timeouts} (limit {limit} s each)")
    print(f"  ratio simplify / decision procedure: {t_simp / t_dec:.1f}x (target >= 4x)")


def block_by_block_d1024() -> None:
    from peproof.claims import Claim
    from peproof.engines.decide import decide
    from peproof.families import inner_product, norm, rotation

    total = 0.0
    for label, builder, lemma in (
        ("rotation", rotation._shift_concrete, "rotation.pair_shift_is_rotation"),
        ("inner product", inner_product._concrete,
         "inner_product.pair_term_eq_cos_offset"),
        ("norm", norm._concrete, "norm.pair_sq_eq_one"),
    ):
        from peproof.families._common import instance_proof

        t0 = time.perf_counter()
        cid = f"bench.{label.replace(' ', '_')}_d1024"
        claim = Claim(cid, label, (), lambda b=builder: b((1024,)),
                      "identity", proof=instance_proof(lemma))
        v = decide(claim)
        secs = time.perf_counter() - t0
        total += secs
        rows = len(claim.statement.concl)
        print(f"  d=1024 {label}: {v.status} in {secs:.2f} s ({rows} blocks/rows)")
    print(f"block-by-block d=1024 total: {total:.2f} s (target <= 2 s)")


def main() -> None:
    print("peproof proof-suite benchmark (one run, this machine)")
    if sys.argv[1:] == ["pytest"]:  # only the pytest proofs figure
        pytest_proofs_seconds()
        return
    if sys.argv[1:] == ["pytest", "--compare"]:  # one process against every core, one run
        one = pytest_proofs_seconds("1")
        every = pytest_proofs_seconds()
        print(f"  decided ahead on every core / one process: {every / one:.2f}")
        return
    block_by_block_d1024()
    decision_vs_simplify()
    pytest_proofs_seconds()


if __name__ == "__main__":
    main()
