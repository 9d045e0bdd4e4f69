"""The oracle on real implementations, as their packages compute them (extra ``peproof[peers]``).

Each entry builds a table with the package's own code (no weights are downloaded) and runs
:func:`peproof.oracle.check` against the paper's encoding.  A package that is not installed is
reported as such; nothing is invented in its place.
"""

from __future__ import annotations

import time

from peproof.oracle.sinusoidal.peers import CATALOGUE


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


#: (implementation, distribution, builder): the oracle's catalogue of peers
PEERS = CATALOGUE


def run() -> dict:
    from peproof.oracle import check

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    rows = []
    for name, dist, build in PEERS:
        version = _version(dist)
        row = {"implementation": name, "package": dist, "version": version}
        if version is None:
            rows.append({**row, "status": "not installed"})
            continue
        t0 = time.perf_counter()
        try:
            table, kw = build(), {}
            table = table.detach().cpu().numpy() if hasattr(table, "detach") else table
            rep = check(table, expect="paper", **kw)
            env = rep.to_json()
        except Exception as exc:  # noqa: BLE001 - a peer's failure is a finding, not a crash
            rows.append({**row, "status": "failed", "error": f"{type(exc).__name__}: {exc}"[:200]})
            continue
        summ = env.get("summary", {})
        other = next((c for c in env.get("checks", []) if c.get("id") == "identified_variant"),
                     None)
        max_abs = other.get("max_abs") if other else summ.get("max_abs")
        rows.append({**row, "status": "checked", "shape": list(table.shape),
                     "identified": env["identified"]["name"], "verdict": env["verdict"]["code"],
                     "indistinguishable": env["identified"].get("indistinguishable_from", []),
                     "headline": env["verdict"]["text"], "max_ulp": summ.get("max_ulp"),
                     "max_abs": max_abs, "seconds": time.perf_counter() - t0})
    return {"schema": "peproof.check/1", "rows": rows}
