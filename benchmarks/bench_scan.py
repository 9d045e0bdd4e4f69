"""Benchmark of ``peproof scan`` on a synthetic 4 GB safetensors checkpoint (budget: 5 s, 500 MB).

The checkpoint: ``--matrices`` float32 weight matrices of 4096 x 4096 (64 MiB each; 62 make
3.9 GiB) with random values, and two positional buffers among them under neutral names: a
Whisper-large-sized sinusoidal table (1500 x 1280, h-1 family, [sin|cos], float32) and a RoPE
``inv_freq`` of 64 frequencies (head 128, base 10000), with a config.json beside it.  It is
written into a temporary folder (``--tmp``, default the system's) and deleted afterwards.

``peproof scan`` runs as a child process (``python -m peproof.cli scan DIR --json``), twice:
with the file in the page cache as written ("warm"), and after its pages were dropped from the
cache with ``posix_fadvise(DONTNEED)`` ("cold": every sampled row comes from the disk).  Wall
time and the child's peak resident memory (``wait4``'s ``ru_maxrss``: the interpreter, its
imports and every mapped page the scan touched) are printed with their ratios to the budget;
the scan must find exactly the two buffers and pass them.  Not a test: it prints.

    .venv/bin/python benchmarks/bench_scan.py [--matrices 62] [--tmp DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BUDGET_S, BUDGET_MB = 5.0, 500.0
SIDE = 4096


def write_checkpoint(folder: Path, matrices: int) -> Path:
    rng = np.random.default_rng(1)
    block = (rng.standard_normal((SIDE, SIDE), dtype=np.float32) * 0.02).tobytes()
    pos = np.arange(1500, dtype=np.float64)[:, None] * np.exp(
        -np.log(10000) * np.arange(640) / 639)[None, :]
    table = np.concatenate([np.sin(pos), np.cos(pos)], axis=1).astype(np.float32).tobytes()
    inv = (1.0 / 10000 ** (np.arange(0, 128, 2) / 128)).astype(np.float32).tobytes()
    entries, off = [], 0
    half = matrices // 2
    names = ([f"layers.{k}.weight" for k in range(half)] + ["audio.table"]
             + [f"layers.{k}.weight" for k in range(half, matrices)] + ["attn.buffer"])
    for name in names:
        shape, n = ({"audio.table": ([1500, 1280], len(table)),
                     "attn.buffer": ([64], len(inv))}.get(name, ([SIDE, SIDE], len(block))))
        entries.append((name, shape, off, off + n))
        off += n
    head = json.dumps({nm: {"dtype": "F32", "shape": sh, "data_offsets": [b, e]}
                       for nm, sh, b, e in entries}).encode()
    path = folder / "model.safetensors"
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(head)) + head)
        for name, *_ in entries:
            fh.write(table if name == "audio.table" else inv if name == "attn.buffer" else block)
    (folder / "config.json").write_text(json.dumps({"model_type": "synthetic"}))
    return path


def drop_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def run_scan(folder: Path, tmp: Path) -> tuple[float, float, float, dict, int]:
    """``(wall s, CPU s, peak RSS in MB, the JSON envelope, exit code)`` of one scan."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out, err = tmp / "scan.json", tmp / "scan.err"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "peproof.cli", "scan", str(folder),
                                 "--json"], stdout=fo, stderr=fe, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak, not all children's
        wall = time.perf_counter() - t0
    proc.returncode = rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        raise SystemExit(f"scan failed ({rc}): {err.read_text()[:300]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, json.loads(out.read_text()), rc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrices", type=int, default=62)
    ap.add_argument("--tmp", default=None)
    a = ap.parse_args()
    need = a.matrices * SIDE * SIDE * 4
    tmp = Path(tempfile.mkdtemp(prefix="bench-scan-", dir=a.tmp))
    try:
        free = shutil.disk_usage(tmp).free
        if free < need + 2**30:
            raise SystemExit(f"{tmp}: {free / 2**30:.1f} GiB free, the checkpoint needs "
                             f"{need / 2**30:.1f} GiB; pass --tmp DIR on a larger disk")
        t0 = time.perf_counter()
        path = write_checkpoint(tmp, a.matrices)
        size = path.stat().st_size
        print(f"wrote {path.name}: {size / 1e9:.2f} GB ({size / 2**30:.2f} GiB), "
              f"{a.matrices + 2} tensors, in {time.perf_counter() - t0:.1f} s (setup, not timed)")
        rows = []
        for label in ("warm", "cold"):
            if label == "cold":
                drop_cache(path)
            load = os.getloadavg()[0]
            wall, cpu, rss, env, rc = run_scan(tmp, Path(tempfile.gettempdir()))
            found = sorted((b["names"][0], b["kind"], b["verdict"]["code"], b["verdict"]["ok"])
                           for b in env["buffers"])
            assert rc == 0 and [f[:2] for f in found] == [("attn.buffer", "inv_freq"), (
                "audio.table", "sinusoidal table")] and all(f[3] for f in found), found
            rows.append((label, wall, cpu, rss, found, env["seconds"], load))
        print(f"\npeproof scan of a {size / 1e9:.2f} GB checkpoint (child process; budget "
              f"{BUDGET_S:g} s, {BUDGET_MB:g} MB)")
        print(f"  {'cache':6s} {'wall s':>7s} {'x 5 s':>6s} {'CPU s':>6s} {'x 5 s':>6s} "
              f"{'peak MB':>8s} {'x 500 MB':>9s} {'scan() s':>9s} {'load':>5s}")
        for label, wall, cpu, rss, _, own, load in rows:
            print(f"  {label:6s} {wall:7.2f} {wall / BUDGET_S:6.2f} {cpu:6.2f} "
                  f"{cpu / BUDGET_S:6.2f} {rss:8.0f} {rss / BUDGET_MB:9.2f} {own:9.2f} "
                  f"{load:5.1f}")
        print("  wall and CPU: the whole child (interpreter start-up and imports included); "
              "scan(): the scan itself; load: the 1-minute load average of the machine "
              f"({os.cpu_count()} cores) when it started")
        print("  buffers found: " + "; ".join(f"{n} ({k}): {v}" for n, k, v, _ in rows[0][4]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
