"""The Coq library: its compile time, and how pe_auto scales with a concrete width.

For widths d = 64 ... 4096 it builds the statement "the shift by k is blockwise the rotation"
for d/2 symbolic frequencies w_j (two relations per block, as rotation.shift_is_linear_concrete_d
states it), prints it with the translator, and times in Coq (user seconds, from ``Time``) the
statement's elaboration, ``intros; pe_auto`` and ``Qed``.  Linear scaling shows as a constant
time per relation.  Not a test: it prints (needs coqc).

    .venv/bin/python benchmarks/bench_coq_library.py [widths...]
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sympy as sp


def statement(d: int):
    from peproof.claims import Eq, Statement, var

    pos, vp = var("pos", "real")
    k, vk = var("k", "integer")
    ws = [var(f"w_{j}", "pos_real") for j in range(d // 2)]
    concl = []
    for w, _ in ws:
        concl.append(Eq(sp.sin(w * (k + pos)), sp.sin(k * w) * sp.cos(pos * w)
                        + sp.sin(pos * w) * sp.cos(k * w)))
        concl.append(Eq(sp.cos(w * (k + pos)), -sp.sin(k * w) * sp.sin(pos * w)
                        + sp.cos(k * w) * sp.cos(pos * w)))
    return Statement(concl=tuple(concl), vars=(vp, vk, *(v for _, v in ws)))


def main(widths: list[int]) -> None:
    from peproof.kernel.coq import library
    from peproof.kernel.coq.translate import translate

    coqc = shutil.which("coqc")
    if coqc is None:
        print("coqc not installed")
        return
    work = Path(tempfile.mkdtemp(prefix="bench-coqlib-"))
    t = time.perf_counter()
    library.audit(coqc, work)
    print(f"library: compiled and audited in {time.perf_counter() - t:.1f} s wall")
    print(f"{'d':>6s} {'relations':>9s} {'elaborate':>9s} {'pe_auto':>8s} {'Qed':>6s} "
          f"{'ms/relation':>11s}")
    for d in widths:
        goal = translate(statement(d)).text
        body = ("From Coq Require Import ZArith Reals Lia Lra Nsatz.\n"
                "From PEProof Require Import Defs PE Tactics.\nOpen Scope R_scope.\n"
                f"Time Definition stmt := ({goal}).\n"
                f"Theorem shift : stmt.\nProof. unfold stmt. Time (intros; pe_auto).\nTime Qed.\n")
        (work / "Bench.v").write_text(body)
        r = subprocess.run([coqc, "-q", "-Q", str(work), library.LOGICAL, "Bench.v"], cwd=work,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{d:6d} failed: {(r.stdout + r.stderr).strip().splitlines()[-1][:200]}")
            continue
        el, tac, qed = (float(x) for x in re.findall(r"\(([0-9.]+)u", r.stdout)[:3])
        n = d
        print(f"{d:6d} {n:9d} {el:9.2f} {tac:8.2f} {qed:6.2f} {1000 * (tac + qed) / n:11.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [64, 256, 1024, 4096])
