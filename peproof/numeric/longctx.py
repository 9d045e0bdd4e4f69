"""The long-context results table: certified minimum separation for large ``d`` and ``N``.

Results file (JSON, schema ``peproof.longctx/1``; ``numeric/data/longctx.json`` in the repo)::

    {"schema": "peproof.longctx/1",
     "about": "...",                       # one sentence: what the table is
     "entries": [                          # one per (d, N, family, base), sorted by d then N
        {"d": 4096, "n_pos": 100000000, "family": "paper", "base": "10000",
         "separation": {...},              # Separation.as_dict(): min_sq / min_dist balls
                                           # {lo, hi, text}, argmin, certified_unique,
                                           # distinct, adjacent_sq, closer_than_adjacent,
                                           # first_decrease, float_bound, candidates,
                                           # chunks, seconds, run (engine, where, ...)
         "offsets_per_second": 1.2e6,      # (N - 1) / separation.seconds
         "date": "2026-12-01T05:12:00+00:00",
         "machine": {"cores": 2, "cpu": "...", "system": "Linux", "python": "3.11.7",
                     "numpy": "...", "flint": "...", "suite_version": "0.1.0",
                     "code_version": "<sha256 of the numeric sources>"}}]}

An entry is added or replaced (atomically) as soon as its scan finishes, so an interrupted
sweep keeps every finished entry; the scans checkpoint their chunks, so an interrupted entry
resumes.  :func:`markdown` renders the table that ``numeric/make_longctx_table.py`` writes into
``numeric/README.md``; nothing in that table is typed by hand.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from pathlib import Path

from peproof.numeric.checkpoint import code_version, write_json_atomic

SCHEMA = "peproof.longctx/1"
ABOUT = ("certified minimum of ||PE(a) - PE(b)||^2 over positions 0 <= a < b < N "
         "(float64 pre-scan with a proved bound, every candidate in arb)")
DS = (64, 512, 1024, 4096)
NS = (10**6, 10**7, 10**8, 10**9)


def machine() -> dict:
    import flint
    import numpy as np

    import peproof
    from peproof.numeric.distributed import cores

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": cores(), "cpu": cpu, "system": platform.system(),
            "python": platform.python_version(), "numpy": np.__version__,
            "flint": flint.__version__, "suite_version": peproof.__version__,
            "code_version": code_version()}


def load(path: Path) -> dict:
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA:
            raise ValueError(f"{path} is not a {SCHEMA} file")
        return data
    return {"schema": SCHEMA, "about": ABOUT, "entries": []}


def loadavg() -> float | None:
    """The machine's 1-minute load average (None where the system has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def entry(sep, when: _dt.datetime | None = None, load_before: float | None = None) -> dict:
    """The results-file entry of a finished scan; ``load_before`` is :func:`loadavg` taken when
    the scan started, stored with the one at its end: a time measured while other work ran
    says so (this machine has 2 cores shared with other work)."""
    s = sep.as_dict()
    return {"d": sep.d, "n_pos": sep.n_pos, "family": sep.family, "base": sep.base,
            "separation": s, "offsets_per_second": (sep.n_pos - 1) / max(sep.seconds, 1e-9),
            "date": (when or _dt.datetime.now(_dt.UTC)).isoformat(timespec="seconds"),
            "machine": machine(), "load": {"start": load_before, "end": loadavg()}}


def load_text(e: dict) -> str:
    """``load 0.3-2.1`` (1-minute load average at the scan's start and end), or ``load ?`` for
    entries measured before the load was recorded."""
    ld = e.get("load") or {}
    vals = [v for v in (ld.get("start"), ld.get("end")) if v is not None]
    if not vals:
        return "load ?"
    return "load " + "-".join(f"{v:.1f}" for v in vals)


def add(path: Path, new: dict) -> dict:
    """Add or replace the entry of the same (d, N, family, base); write atomically."""
    data = load(path)
    key = (new["d"], new["n_pos"], new["family"], new["base"])
    rows = [e for e in data["entries"] if (e["d"], e["n_pos"], e["family"], e["base"]) != key]
    rows.append(new)
    rows.sort(key=lambda e: (e["family"], e["base"], e["d"], e["n_pos"]))
    data["entries"] = rows
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, data, indent=1)
    return data


def _pow10(n: int) -> str:
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10**e and e > 1 else str(n)


def markdown(data: dict) -> str:
    """The README table: one row per entry, with the run's date, engine and machine, and a
    summary sentence computed from the entries."""
    head = ("| d | N | min ‖PE(a)−PE(b)‖² in | at offset k | unique | #k closer than k=1 "
            "| first decrease | float bound B | engine | time | date, machine |")
    lines = [head, "|" + "---|" * 11]
    for e in data["entries"]:
        s, m = e["separation"], e["machine"]
        run = s.get("run", {})
        closer = "?" if s["closer_than_adjacent"] is None else str(s["closer_than_adjacent"])
        lines.append(
            f"| {e['d']} | {_pow10(e['n_pos'])} | [{s['min_sq']['lo']:.10g}, "
            f"{s['min_sq']['hi']:.10g}] | {', '.join(map(str, s['argmin']))} | "
            f"{'yes' if s['certified_unique'] else 'TIE'} | {closer} | "
            f"{s['first_decrease'] if s['first_decrease'] is not None else '-'} | "
            f"{s['float_bound']:.1e} | {run.get('where', '?')} | {s['seconds']:.0f} s | "
            f"{e['date'][:10]}, {m['cores']} cores {m['cpu']}, {load_text(e)} |")
    fams = sorted({(e["family"], e["base"]) for e in data["entries"]})
    note = ", ".join(f"family {f}, base {b}" for f, b in fams) or "no entries yet"
    return "\n".join(lines) + f"\n\n{summary(data)} ({note}; generated from " \
        "`numeric/data/longctx.json`.)\n"


def summary(data: dict) -> str:
    """One sentence on what the entries show (computed, so it cannot go stale)."""
    rows = data["entries"]
    if not rows:
        return "No entries."
    adjacent = [e for e in rows if e["separation"]["argmin"] == [1]
                and e["separation"]["certified_unique"]
                and e["separation"]["closer_than_adjacent"] == 0]
    largest = max(e["n_pos"] for e in rows)
    if len(adjacent) == len(rows):
        return (f"In all {len(rows)} entries (N up to {_pow10(largest)}) the minimum is at "
                "offset 1, certified unique: no two positions are closer than adjacent ones.")
    other = [f"d={e['d']} N={_pow10(e['n_pos'])}" for e in rows if e not in adjacent]
    return (f"{len(adjacent)} of {len(rows)} entries have their unique minimum at offset 1; "
            f"not: {', '.join(other)}.")


def replace_section(text: str, table: str, begin: str, end: str) -> str:
    if begin not in text or end not in text:
        raise ValueError(f"markers {begin!r} / {end!r} not found")
    a = text.index(begin) + len(begin)
    b = text.index(end)
    return text[:a] + "\n" + table + text[b:]


def bound_rows(ds=(64, 512, 1024, 4096, 8192), offsets=(1, 10**9)) -> list[dict]:
    """The pre-scan's bound ``B`` for a full chunk (the scan's table shapes) starting near each
    offset, with its two leading terms: tables ``2h(e_R + e_J)`` and product ``2 gamma_2h h``."""
    from peproof.numeric import expo, scan
    from peproof.numeric.separation import CHUNK

    out = []
    for d in ds:
        h = d // 2
        om = list(scan._omegas(d, "paper", "10000", scan.TABLE_PREC))
        _, e_j = scan._column_table(d, "paper", "10000", scan.COLS)
        rows = -(-(CHUNK + 1) // scan.COLS)  # a chunk evaluates its b - a + 1 offsets
        for a in offsets:
            e_r = expo.shifted(om, a, scan.COLS, rows, scan.TABLE_PREC).err
            gamma = 2 * h * expo.U / (1 - 2 * h * expo.U)
            out.append({"d": d, "offset": a, "e_R": float(e_r), "e_J": float(e_j),
                        "tables": float(2 * h * (e_r + e_j)),
                        "product": float(2 * gamma * h),
                        "B": float(scan.chunk_bound(h, e_r, e_j))})
    return out


def bound_markdown(rows: list[dict]) -> str:
    lines = ["| d | chunk starting at | e_R | e_J | tables 2h(e_R+e_J) | product 2γ₂ₕh | B |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['d']} | {_pow10(r['offset'])} | {r['e_R']:.4e} | {r['e_J']:.4e} | "
                     f"{r['tables']:.2e} | {r['product']:.2e} | {r['B']:.12e} |")
    return "\n".join(lines) + "\n"
