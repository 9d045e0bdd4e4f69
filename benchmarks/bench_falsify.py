"""Benchmark of the falsification gate (issue 18, item 3). Prints figures measured in ONE run.

For every statement of three sources -- the registry's claims (``decide``), their falsifiers
(``refute``) and the hostile battery (``tests/test_soundness_battery.py``, 674 statements,
``decide_statement``) -- the engines decide it, then :func:`peproof.kernel.falsify.gate` judges
the verdict (the engines run with the gate switched off where they call it themselves).
Printed per source and overall, in CPU time (``process_time``: the machine is shared, wall
times move with its load) and in wall time: the gate's median, p90 and max time per statement
(target: median <= 20 ms), the engines' median, and the ratio of the gate's total time to the
engines' total time.  Also counted: conflicts (a certified point against a verdict;
0 expected), and verdicts the gate did not keep (a ``refuted`` whose witness it could not
re-check, a ``proved`` existential without an instance), each listed.

``python benchmarks/bench_falsify.py [registry|falsifiers|battery ...]`` (default: all three).
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _battery():
    spec = importlib.util.spec_from_file_location("battery", ROOT / "tests" /
                                                  "test_soundness_battery.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [build for _, build in mod.cases]


def _items(source: str):
    """``(label, statement, decide-callable)`` of a source."""
    from peproof import registry
    from peproof.engines.decide import decide, decide_statement, refute

    if source == "registry":
        for c in registry.all_claims():
            if c.statement is not None and c.kind != "informal":
                yield c.id, c.statement, lambda c=c: decide(c)
    elif source == "falsifiers":
        for c in registry.all_claims():
            if c.statement is None or c.kind == "informal":
                continue
            for f in c.falsifiers:
                yield f"{c.id}/{f.name}", f.statement, lambda f=f: refute(f.statement)
    else:
        for k, build in enumerate(_battery()):
            try:
                st = build()
            except Exception:  # noqa: BLE001 - a case the claims model refuses to build
                continue
            yield f"battery[{k}]", st, lambda st=st: decide_statement(st)


def measure(source: str) -> dict:
    """The engines decide with the gate switched off (where they call it themselves), then the
    gate judges their verdict: the two times of one statement, measured apart."""
    from peproof.engines.wellformed import IllFormed
    from peproof.kernel import falsify

    gate = falsify.gate
    gate_ms, engine_ms, gate_cpu, engine_cpu, conflicts, not_kept = [], [], [], [], [], []
    for label, st, run in _items(source):
        t0, c0 = time.perf_counter(), time.process_time()
        falsify.gate = _passthrough
        try:
            v = run()
        except IllFormed:
            continue
        finally:
            falsify.gate = gate
        t1, c1 = time.perf_counter(), time.process_time()
        g = gate(st, v)
        t2, c2 = time.perf_counter(), time.process_time()
        engine_ms.append(1e3 * (t1 - t0))
        gate_ms.append(1e3 * (t2 - t1))
        engine_cpu.append(1e3 * (c1 - c0))
        gate_cpu.append(1e3 * (c2 - c1))
        if c2 - c1 > 1.0:
            print(f"  slow gate: {label}: {c2 - c1:.1f} s CPU (engines {c1 - c0:.1f} s)",
                  flush=True)
        if g.conflict:
            conflicts.append(f"{label}: {g.reason[:160]}")
        elif g.status != v.status:
            not_kept.append(f"{label}: {v.status} -> {g.status}: {g.reason[:160]}")
    return {"source": source, "gate": gate_ms, "engine": engine_ms, "gate_cpu": gate_cpu,
            "engine_cpu": engine_cpu, "conflicts": conflicts, "not_kept": not_kept}


def _passthrough(stmt, verdict, **kwargs):
    return verdict


def _p(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def line(name: str, gate_ms: list[float], engine_ms: list[float]) -> str:
    ratio = sum(gate_ms) / sum(engine_ms) if sum(engine_ms) else float("nan")
    return (f"{name:15s} n={len(gate_ms):4d}  gate median {statistics.median(gate_ms):6.2f} ms"
            f"  p90 {_p(gate_ms, 0.9):7.2f}  max {max(gate_ms):8.1f}  | engines median "
            f"{statistics.median(engine_ms):7.2f} ms  | gate/engines total {ratio:.3f}")


def main(sources: list[str]) -> None:
    """CPU time (``time.process_time``: what the gate costs, whatever else loads the machine)
    per line, then the wall time beside it for the overall figures."""
    tot = {k: [] for k in ("gate", "engine", "gate_cpu", "engine_cpu")}
    for s in sources:
        r = measure(s)
        for k in tot:
            tot[k] += r[k]
        print(line(s + " cpu", r["gate_cpu"], r["engine_cpu"]), flush=True)
        print(line(s + " wall", r["gate"], r["engine"]), flush=True)
        for c in r["conflicts"]:
            print(f"  CONFLICT {c}")
        for c in r["not_kept"]:
            print(f"  not kept {c}")
    print(line("all cpu", tot["gate_cpu"], tot["engine_cpu"]))
    print(line("all wall", tot["gate"], tot["engine"]))
    med = statistics.median(tot["gate_cpu"])
    print(f"target: median <= 20 ms per statement: {'met' if med <= 20 else 'NOT met'} "
          f"({med:.2f} ms CPU, {statistics.median(tot['gate']):.2f} ms wall; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main(sys.argv[1:] or ["registry", "falsifiers", "battery"])
