"""The planned Coq job of each claim, cached and signed like the results (issue 23, item 5: a
rebuild from the cache within 5 s).

Planning a claim (:func:`peproof.kernel.coq.check.plan`: the statement printed as its Sem.v
meaning, a proof script chosen, often after sampling the statement numerically) was the whole
of a rebuild's time: about 7 s for the registry when every result was already cached.  A plan
is a deterministic function of

* the claim's id (the lemma's name) and its statement -- read as a tree (:func:`digest`: each
  node's class and arguments, each symbol's name and assumptions, each number exactly), not
  as printed text, which abbreviates;
* what the planner reads of the engines' verdict: its status, certified witness, deciding
  engine and method;
* the code: every ``.py`` file of the ``peproof`` package and every Coq file of its library
  (the planner reserves the library's names: a new lemma can rename a binder), and the versions
  of Python, SymPy, mpmath and FLINT it runs on (:func:`code_hash`).

:func:`key_of` hashes all of it; an entry is filed under that key and signed with the caller's
key (:func:`peproof.kernel.coq.run.record`), as a result is.  The statement Coq is asked to
prove is in the entry, so an entry that is forged, edited, copied under another key or signed
by another user is a miss and the claim is planned again (never a different theorem
``checked``).  ``use_cache`` False (``prove --recheck``, ``report --fresh``) plans every claim
again.  A cache folder that cannot be written (full, read-only) only loses the entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from functools import lru_cache
from pathlib import Path

import sympy as sp

from peproof.kernel.coq import run

PACKAGE = Path(__file__).resolve().parents[2]  # the peproof package's folder
KIND = "plan"


@lru_cache(maxsize=1)
def code_hash() -> str:
    """Every source file of the package, Python and Coq (path and bytes), and the versions it
    runs on."""
    import mpmath

    try:
        import flint
        flint_version = getattr(flint, "__version__", "?")
    except ImportError:  # pragma: no cover - a dependency of the engines
        flint_version = "absent"
    h = hashlib.sha256()
    h.update(f"{sys.version}|{sp.__version__}|{mpmath.__version__}|{flint_version}".encode())
    for p in sorted(q for q in PACKAGE.rglob("*") if q.suffix in (".py", ".v")):
        h.update(str(p.relative_to(PACKAGE)).encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def digest(e, memo: dict) -> str:
    """A hash of an expression's tree: class names, symbols with their assumptions, exact
    numbers; two expressions SymPy tells apart get different digests."""
    d = memo.get(id(e))
    if d is not None:
        return d[0]
    if isinstance(e, sp.Symbol):
        s = f"S:{type(e).__name__}:{e.name}:{sorted(e.assumptions0.items())!r}"
        if isinstance(e, sp.Dummy):  # two dummies of one name are two symbols
            s += f":{e.dummy_index}"
    elif isinstance(e, sp.Rational):
        s = f"Q:{e.p}/{e.q}"
    elif isinstance(e, sp.Basic) and e.is_Atom or not isinstance(e, sp.Basic):
        s = f"A:{type(e).__name__}:{sp.srepr(e)}"
    else:
        s = f"{type(e).__name__}(" + ",".join(digest(a, memo) for a in e.args) + ")"
    d = hashlib.sha256(s.encode()).hexdigest()
    memo[id(e)] = (d, e)  # e kept alive: its id is not reused while the memo lives
    return d


def key_of(claim, verdict: dict | None, memo: dict | None = None) -> str:
    memo = {} if memo is None else memo
    st = claim.statement
    if st is None:
        shape = None
    else:
        rels = [[[r.op, digest(r.lhs, memo), digest(r.rhs, memo)] for r in part]
                for part in (st.hyps, st.concl)]
        shape = [st.quant, [[digest(v.symbol, memo), v.domain] for v in st.vars], rels]
    v = verdict or {}
    said = {k: v.get(k) for k in ("status", "witness", "engine", "method")}
    text = json.dumps([code_hash(), claim.id, shape, said], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _folder(root: Path) -> Path:
    return Path(root) / "plans"


def load(root: Path, key: bytes, name: str) -> dict | None:
    """The plan filed under ``name`` (``{"job": ..., "info": ...}`` as :func:`store` wrote
    it), or None: absent, unreadable, or not signed with ``key`` for ``name``."""
    path = _folder(root) / f"{name}.json"
    try:
        d = run.signed(key, KIND, name, json.loads(path.read_text()))
    except (OSError, ValueError):
        return None
    if not (isinstance(d, dict) and {"job", "info"} <= d.keys()):
        return None
    run._used(path)  # the least recently used are trimmed first (:func:`run.trim_entries`)
    return d


def job_of(d: dict | None):
    """The :class:`~peproof.kernel.coq.run.Job` of a stored plan (None: a refusal)."""
    if d is None:
        return None
    return run.Job(d["key"], d["lemma"], d["goal"], d["script"], frozenset(d["needs"]),
                   bool(d["negation"]))


def data_of(job, info) -> dict:
    """What :func:`store` files: the job's fields and the planner's result, as JSON data."""
    return {"job": None if job is None else {
                "key": job.key, "lemma": job.lemma, "goal": job.goal, "script": job.script,
                "needs": sorted(job.needs), "negation": job.negation},
            "info": dataclasses.asdict(info)}


def store(root: Path, key: bytes, name: str, data: dict) -> None:
    folder = _folder(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    run._write_cached(folder / f"{name}.json", run.record(key, KIND, name, data))
