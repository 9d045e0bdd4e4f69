"""Benchmark of the z3 engine (issue: a second, independent engine). One run, ratios printed.

* all z3 work that ``pytest proofs`` does: the z3 column of the agreement matrix for every
  claim plus the claims whose own proof is z3 (target <= 5 s in total);
* the d = 1024 orthogonality of M_k block by block, one uncached query per block (target
  <= 2 s), against ONE whole-vector query at d = 32 (all 16 blocks in a single query).
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof import registry
from peproof.claims import Statement, mat_eq
from peproof.encoding import Encoding
from peproof.engines.z3trig import Translation, decide_z3
from peproof.families._common import V_K, k, rot


def all_z3_work() -> None:
    from peproof.agreement import z3_verdict
    from peproof.testing import verdict

    for c in registry.all_claims():  # build the statements first: that is not z3 work
        _ = c.statement
    t0 = time.perf_counter()
    cells: dict[str, int] = {}
    for c in registry.all_claims():
        v = z3_verdict(c.id)
        key = "n/a" if v.method == "not applicable" else v.status
        cells[key] = cells.get(key, 0) + 1
    t_matrix = time.perf_counter() - t0
    t1 = time.perf_counter()
    own = [c for c in registry.all_claims() if c.proof is not None and "z3" in verdict(c.id).engine]
    t_own = sum(verdict(c.id).seconds for c in own)
    print(f"z3 column over {len(registry.all_claims())} claims: {t_matrix:.2f} s  {cells}")
    print(f"claims whose own proof runs z3: {len(own)}, {t_own:.2f} s "
          f"(measured {time.perf_counter() - t1:.2f} s incl. other engines)")
    print(f"all z3 work in pytest proofs: about {t_matrix + t_own:.2f} s (target <= 5 s)")


def _ortho(d: int, symbolic: bool = False) -> list[Statement]:
    """Blocks R(w k)^T R(w k) = I with the encoding's frequencies, or with symbols w_i."""
    from peproof.families._common import pair_symbols

    enc = Encoding(d)
    if symbolic:
        ws, wvars = pair_symbols(enc.pairs)
        return [Statement(mat_eq(rot(w * k).T * rot(w * k), sp.eye(2)), (V_K, v))
                for w, v in zip(ws, wvars, strict=True)]
    return [Statement(mat_eq(rot(w * k).T * rot(w * k), sp.eye(2)), (V_K,)) for w in enc.omegas]


def block_by_block(d: int, symbolic: bool = False) -> tuple[float, str]:
    blocks = _ortho(d, symbolic)
    t0 = time.perf_counter()
    statuses = {decide_z3(st, cache=False).status for st in blocks}
    return time.perf_counter() - t0, ",".join(sorted(statuses))


def whole_vector(d: int, symbolic: bool, timeout_ms: int = 30000) -> tuple[float, str]:
    """ONE query for all blocks.  With the encoding's own frequencies the angles are rationally
    related (omega_4 = 1/10 at d = 32, ...), so one query must tie k, k/10, k/100, ... together
    through multiple-angle polynomials of a common base angle (the engine's per-block limit on
    multiples is lifted here for the comparison)."""
    import peproof.engines.z3trig as zt

    blocks = _ortho(d, symbolic)
    whole = Statement(tuple(r for st in blocks for r in st.concl),
                      tuple(dict.fromkeys(v for st in blocks for v in st.vars)))
    t0 = time.perf_counter()
    old, zt.MAX_MULTIPLE = zt.MAX_MULTIPLE, 10**6
    try:
        tr = Translation(whole, use_int=False)
        goal = z3.And([tr.rel(r) for r in whole.concl])
    finally:
        zt.MAX_MULTIPLE = old
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*tr.axioms, z3.Not(goal))
    res = s.check()
    return time.perf_counter() - t0, str(res)


def main() -> None:
    print("peproof z3 benchmark (one run, this machine)")
    all_z3_work()
    t_b, st_b = block_by_block(1024)
    print(f"d=1024 orthogonality, 512 blocks, one uncached query each: {t_b:.2f} s ({st_b})"
          " (target <= 2 s)")
    for d in (8, 32):
        tb, _ = block_by_block(d)
        t_w, st_w = whole_vector(d, symbolic=False, timeout_ms=20000)
        t_s, st_s = whole_vector(d, symbolic=True)
        print(f"d={d}: block by block {tb:.3f} s | one whole-vector query with the encoding's "
              f"frequencies {t_w:.2f} s ({st_w}), ratio {t_w / max(tb, 1e-9):.0f}x | with "
              f"independent symbolic frequencies {t_s:.3f} s ({st_s})")


if __name__ == "__main__":
    main()
