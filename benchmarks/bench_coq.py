"""Coq as peproof's kernel: coverage of the registry and the time of the Coq pass.

    python benchmarks/bench_coq.py            # a clean pass (empty cache) then a cached one
    python benchmarks/bench_coq.py --cached   # only the pass with the shared cache
    python benchmarks/bench_coq.py --against 260c44d   # also that revision, same run: ratios

Prints the claims checked in Coq per family and per class (the statement, or the negation of
a refuted claim at its certified witness), the reasons of the rest grouped by class, the total
wall time of the Coq pass, the CPU seconds of the proof scripts per class, the Print
Assumptions summary (which axioms, how many claims rest on each), and the time of a rebuild
with nothing changed (every result read from the cache).  With ``--against REV`` the same
clean pass and rebuild are measured first on that revision of the tree (``git archive`` into
a temporary folder, run in a child process with the same verdicts), and the figures are
printed as ratios (this tree / REV): a busy machine slows both alike.  Target (issue 23): the
clean pass within 60 s on 2 idle cores, the rebuild within 5 s.

The engines' verdicts (for the witnesses of refuted claims) are computed first and not timed.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from peproof import registry  # noqa: E402
from peproof.guard.keys import user_key  # noqa: E402
from peproof.kernel.coq import check, run  # noqa: E402


def verdicts(claims) -> dict:
    from peproof.agreement import row
    from peproof.verdicts import verdict_of

    out = {}
    for c in claims:
        if c.statement is None:
            continue
        v = verdict_of(c.id)
        out[c.id] = {"status": v.status, "witness": v.witness,
                     "engines": dict(row(c.id)["cells"])}
    return out


def reason_class(r: check.CoqResult) -> str:
    s = r.status.removeprefix("not checked in Coq: ")
    if s.startswith("not translated:"):
        return "not translated: " + s.split(":")[1].strip().split()[0]
    if s.startswith("no proof script"):
        return "no script: " + s.split(":", 1)[1].strip()[:60]
    if s.startswith("informal"):
        return "informal (no statement)"
    if "did not close" in s:
        return "script did not close the goal"
    return s[:70]


def report(res: dict, claims, seconds: float, label: str) -> None:
    fam = collections.defaultdict(collections.Counter)
    klass = collections.defaultdict(collections.Counter)
    cpu = collections.Counter()
    axioms = collections.Counter()
    for c in claims:
        r = res[c.id]
        key = "checked" if r.checked and r.what == "statement" else \
            "negation" if r.checked else "not"
        fam[c.family][key] += 1
        klass[r.klass or "-"][key] += 1
        cpu[r.klass or "-"] += r.seconds
        if r.checked:
            axioms.update(set(r.assumptions))
    checked = sum(r.checked for r in res.values())
    neg = sum(r.checked and r.what == "negation" for r in res.values())
    print(f"\n== {label}: {len(claims)} claims, {checked} checked in Coq "
          f"({neg} as the negation at a certified witness), wall {seconds:.1f} s")
    print(f"{'family':16s} {'checked':>8s} {'negation':>8s} {'not':>5s}")
    for f in sorted(fam):
        n = fam[f]
        print(f"{f:16s} {n['checked']:8d} {n['negation']:8d} {n['not']:5d}")
    print(f"\n{'class':12s} {'checked':>8s} {'negation':>8s} {'not':>5s} {'script CPU s':>13s}")
    for k in sorted(klass):
        n = klass[k]
        print(f"{k:12s} {n['checked']:8d} {n['negation']:8d} {n['not']:5d} {cpu[k]:13.2f}")
    reasons = collections.Counter(reason_class(r) for r in res.values() if not r.checked)
    print("\nnot checked, by reason:")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    print("\nPrint Assumptions (claims checked in Coq resting on each axiom):")
    for ax, n in axioms.most_common():
        print(f"  {n:4d}  {ax}")
    scopes = collections.Counter(r.scope.split(" of ")[0] for r in res.values() if r.checked)
    print(f"  (read per lemma for {scopes.get('lemma', 0)} claims, as the union over their "
          f"batch for {scopes.get('batch', 0)}: a superset of each lemma's)")


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


_CHILD = """
import json, os, resource, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from peproof import registry
from peproof.kernel.coq import check
v = json.loads(Path(sys.argv[2]).read_text())
claims = registry.select(sys.argv[3] or None)
cpu = lambda: sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f)
                  for f in ("ru_utime", "ru_stime"))
key = os.urandom(32)  # a user's key of its own, as prove and report pass one
with tempfile.TemporaryDirectory() as tmp:
    t0, c0 = time.perf_counter(), cpu()
    res = check.check_claims(claims, v, cache_dir=Path(tmp), key=key)
    wall, used = time.perf_counter() - t0, cpu() - c0
    t0 = time.perf_counter()
    check.check_claims(claims, v, cache_dir=Path(tmp), key=key)
    rebuild = time.perf_counter() - t0
print(json.dumps({"wall": wall, "cpu": used, "rebuild": rebuild,
                  "checked": sum(r.checked for r in res.values())}))
"""


def measure(tree: Path, v: dict, pattern: str | None) -> dict:
    """The clean pass and the rebuild of the peproof in ``tree`` (a child process)."""
    import json
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        vf = Path(tmp) / "verdicts.json"
        vf.write_text(json.dumps(v, default=str))
        out = subprocess.run([sys.executable, "-c", _CHILD, str(tree), str(vf), pattern or ""],
                             capture_output=True, text=True, check=True, cwd=tmp)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(rev: str, v: dict, pattern: str | None) -> None:
    """REV's figures, then this tree's, measured one after the other; their ratios."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        arch = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True,
                              check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=arch, check=True)
        base = measure(Path(tmp), v, pattern)
    now = measure(ROOT, v, pattern)
    print(f"\n== this tree against {rev}, measured in this run (ratio = this tree / {rev})")
    print(f"{'':22s} {rev:>12s} {'this tree':>12s} {'ratio':>7s}")
    for key, label in (("checked", "claims checked in Coq"), ("wall", "clean pass wall s"),
                       ("cpu", "clean pass coqc CPU s"), ("rebuild", "rebuild wall s")):
        b, n = base[key], now[key]
        print(f"{label:22s} {b:12.1f} {n:12.1f} {n / b if b else float('nan'):7.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cached", action="store_true", help="only the pass with the shared cache")
    ap.add_argument("--pattern", default=None, help="claims to check (glob), default all")
    ap.add_argument("--against", default=None, metavar="REV",
                    help="also measure that git revision in the same run and print ratios")
    args = ap.parse_args(argv)
    if run.coqc() is None:
        print("coq not installed: nothing to measure (make coq)")
        return 0
    claims = registry.select(args.pattern)
    v = verdicts(claims)
    print(f"coqc {run.coq_version()}, {len(claims)} claims")
    if args.against:
        against(args.against, v, args.pattern)
        return 0
    if not args.cached:
        key = os.urandom(32)  # a user's key of its own, as prove and report pass one
        with tempfile.TemporaryDirectory() as tmp:
            t0, c0 = time.perf_counter(), child_cpu()
            res = check.check_claims(claims, v, cache_dir=Path(tmp), key=key)
            clean, cpu = time.perf_counter() - t0, child_cpu() - c0
            report(res, claims, clean, "clean pass (empty cache, library compiled)")
            print(f"\n   coqc CPU (all processes, library included): {cpu:.1f} s, i.e. "
                  f"{cpu / 2:.1f} s of wall time on 2 idle cores")
            t0 = time.perf_counter()
            again = check.check_claims(claims, v, cache_dir=Path(tmp), key=key)
            rebuild = time.perf_counter() - t0
            reused = sum(r.cached for r in again.values() if r.klass)
            attempted = sum(1 for r in again.values() if r.klass)
            print(f"\n== rebuild with nothing changed: {rebuild:.2f} s, {reused}/{attempted} "
                  "results read from the cache")
            same = all(again[k].status == res[k].status for k in res)
            print(f"   same verdicts as the clean pass: {same}")
    else:
        t0 = time.perf_counter()
        # the shared cache is signed with the user's key: without it, a process key of its
        # own, and every entry (the library included) would be computed again each run
        res = check.check_claims(claims, v, key=user_key()[0])
        report(res, claims, time.perf_counter() - t0, "pass with the shared cache")
    return 0


if __name__ == "__main__":
    sys.exit(main())
