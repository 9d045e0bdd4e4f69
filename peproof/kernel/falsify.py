"""The falsification gate: every verdict survives a certified attempt to falsify it, made from
the ORIGINAL statement (never an engine's rewriting of it), before it is returned.

API (all pure functions of the statement; nothing here imports :mod:`peproof.engines`):

``search(stmt, *, budget=DEFAULT) -> dict | None``
    A point where ``stmt`` is certified FALSE (``forall``: every hypothesis certified true and
    one conclusion certified false) or, for an ``exists`` statement, a certified instance (every
    hypothesis and every conclusion certified true) -- the point that falsifies a ``refuted``
    existential.  Points come from :mod:`peproof.kernel.points` (each variable's declared
    domain: special values, multiples of pi/4, large and tiny values, values around the
    hypotheses' constants, pseudo-random values seeded from the statement).  Truth is decided in
    python-flint ball arithmetic (:mod:`peproof.kernel.arb`), the precision raised while a ball
    straddles; exact rational arithmetic where a side is rational.  A point where some term is
    undefined (log of a number <= 0, a pole, an undecided Piecewise) certifies nothing.  Sums
    and products mean what SymPy defines (Karr's convention for a reversed range).
    Returns ``{"kind": "counterexample" | "instance", "point": {name: value text},
    "relation", "index", "lhs", "rhs", "precision", "points_tried", "certified_by"}``.
``check_witness(stmt, witness) -> (status, why)``, ``recheck_witness(stmt, witness) -> bool``
    A ``refuted`` witness (or a ``proved`` existential's instance) re-evaluated from the
    statement: ``"ok"`` (certified), ``"wrong"`` (certified NOT a counterexample / instance: a
    hypothesis false there, the point outside a variable's domain, every conclusion true),
    ``"inconclusive"`` (no point, a value that does not parse, undecided balls).
    ``recheck_witness`` is ``status == "ok"``.
``gate(stmt, verdict) -> Verdict``
    ``proved`` (forall): :func:`search`; a point found makes it an ENGINE CONFLICT.
    ``proved`` (exists): its instance re-checked (``wrong``: conflict); without a re-checkable
    instance, :func:`search` must find one, else ``unknown``.
    ``refuted`` (forall): :func:`check_witness`; ``wrong``: conflict, ``inconclusive``:
    ``unknown`` (the verdict stands on nothing the gate could re-check).
    ``refuted`` (exists): :func:`search` for an instance; found: conflict.
    ``unknown`` passes through.  A conflict is returned as ``status="unknown"``,
    ``method="engine conflict"``, with ``Verdict.conflict = {"engine": {...the engine's verdict},
    "gate": {...the gate's finding}, "point": ...}`` and the reason starting "engine conflict";
    the CLI exits 1 on it and shows both.
``gated(fn)``
    Decorator for an engine entry ``fn(stmt, ...) -> Verdict``: its verdict passes :func:`gate`.

Soundness.  The gate only ever ADDS refusals: it turns ``proved``/``refuted`` into ``unknown``
(conflict or not re-checked), never the reverse, and a conflict needs a certified point.  So
everything that bounds its cost -- the number of points, the sample of conclusions it evaluates
in a statement with thousands of them (the first ones, the last ones, and a seeded sample of the
rest), the work budget, the precision ladder -- weakens the search, never soundness.

Cost: ``benchmarks/bench_falsify.py`` (median / p90 per statement, ratio to the engines' time).
"""

from __future__ import annotations

import copy
import random
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import wraps

import flint
import sympy as sp

from peproof.claims import Statement, Verdict
from peproof.kernel.arb import PiMul, Point, Truth, ball_str
from peproof.kernel.points import member, points, seed_of

CERTIFIED_BY = "python-flint arb (rigorous balls), peproof.kernel.falsify"
GATE = "falsification gate"


@dataclass(frozen=True)
class Budget:
    """Bounds of one search (deterministic: counts, not seconds)."""

    points: int = 24  # points tried (hypotheses evaluated at each)
    conclusions: int = 16  # conclusions evaluated per point (a sample when there are more)
    work: int = 6000  # relation evaluations + summation terms, all points together
    min_points: int = 2  # tried whatever their work (a statement with one huge sum)
    precs: tuple = (64, 128, 256)
    tight: int = 40  # a ball narrower than 2**-tight still holding the deciding value: stop


DEFAULT = Budget()


def _fmt(v) -> str:
    if isinstance(v, Fraction | int):
        v = Fraction(v)
        return str(v.numerator) if v.denominator == 1 else str(v)
    if isinstance(v, flint.arb):
        return f"ball {v.str(20, radius=True)}"
    return str(v) if isinstance(v, PiMul) else sp.sstr(v)


def _side(x) -> str:
    return str(x) if isinstance(x, Fraction) else ball_str(x)


def _sample(stmt: Statement, k: int, rng: random.Random) -> list[int]:
    """Indices of the conclusions to evaluate: all (identical-sided ``==``/``<=`` are true and
    left out) when at most ``k``, else the first and last quarters and a seeded sample."""
    idx = [i for i, r in enumerate(stmt.concl) if not (r.op in ("==", "<=") and r.lhs == r.rhs)]
    if len(idx) <= k:
        return idx
    q = k // 4
    middle = idx[q:-q]
    return sorted(set(idx[:q] + idx[-q:] + rng.sample(middle, k - 2 * q)))


def _record(kind: str, stmt: Statement, env: dict, i: int | None, t: Truth | None,
            tried: int) -> dict:
    out = {"kind": kind, "point": {v.symbol.name: _fmt(env[v.symbol]) for v in stmt.vars}}
    if i is not None and t is not None:
        rel = stmt.concl[i]
        out.update(relation=str(rel), index=i, lhs=_side(t.lhs), rhs=_side(t.rhs),
                   precision="exact" if t.prec == 0 else f"{t.prec} bits")
    else:
        out["relations"] = [str(r) for r in stmt.concl[:8]]
    out.update(points_tried=tried, certified_by=CERTIFIED_BY)
    return out


#: the searches made inside a :func:`shared_searches` block, by (statement, budget)
_SHARED: ContextVar[dict | None] = ContextVar("peproof_falsify_shared", default=None)


@contextmanager
def shared_searches():
    """Inside the block, :func:`search` runs once per (statement, budget): the primary engine's
    gate and the z3 column's gate of one claim search the same statement, and the search is a
    pure function of it (its points are seeded from the statement's text).  Each caller gets
    its own copy of the finding.  The memo lives only for the block (nested blocks share the
    outer one), so code patched between two blocks -- a test's sabotage -- is searched anew."""
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def search(stmt: Statement, *, budget: Budget = DEFAULT) -> dict | None:
    """A certified counterexample (``forall``) or instance (``exists``) of ``stmt``, or None
    (see the module docstring).  Made once per block of :func:`shared_searches`."""
    memo = _SHARED.get()
    if memo is None:
        return _search(stmt, budget)
    key = (stmt, budget)
    if key not in memo:
        memo[key] = _search(stmt, budget)
    return copy.deepcopy(memo[key])


def _search(stmt: Statement, budget: Budget) -> dict | None:
    seed = seed_of(stmt)
    picks = _sample(stmt, budget.conclusions, random.Random(seed))
    if stmt.quant == "forall" and not picks:
        return None
    precs = budget.precs if stmt.vars else (*budget.precs, 1024)
    tight = budget.tight if stmt.vars else None
    work, tried = 0, 0
    for env in points(stmt, budget.points, seed):
        tried += 1
        pt = Point(env, max_terms=budget.work)
        ok = True
        for h in stmt.hyps:
            t = pt.truth(h, precs, tight)
            if t is None or not t.value:
                ok = False
                break
        if ok:
            if stmt.quant == "forall":
                for i in picks:
                    t = pt.truth(stmt.concl[i], precs, tight)
                    if t is not None and not t.value:
                        return _record("counterexample", stmt, env, i, t, tried)
            elif all((t := pt.truth(r, precs, tight)) is not None and t.value
                     for r in stmt.concl):
                return _record("instance", stmt, env, None, None, tried)
        work += pt.work
        if work > budget.work and tried >= budget.min_points:
            break
    return None


# ------------------------------------------------------------------------- witnesses
_ALLOWED = set("0123456789+-*/() .piE")


def parse_value(v):
    """A witness's value as an exact point value: int, Fraction, :class:`PiMul`, a closed SymPy
    number (text of digits, ``+ - * / ( )``, ``pi``, ``E``; a trailing ``(ball ...)`` note is
    dropped) or an arb ball; None if it is none of these."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | Fraction | PiMul | flint.arb):
        return v
    if isinstance(v, sp.Rational):
        return Fraction(int(v.p), int(v.q))
    if isinstance(v, sp.Expr):
        return None if v.free_symbols else v
    if not isinstance(v, str):
        return None
    text = v.split(" (ball", 1)[0].strip()
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        pass
    if not text or not set(text) <= _ALLOWED:
        return None
    try:
        e = sp.sympify(text, locals={"pi": sp.pi, "E": sp.E}, rational=True)
    except (sp.SympifyError, SyntaxError, TypeError, ZeroDivisionError):
        return None
    if not isinstance(e, sp.Expr) or e.free_symbols:
        return None
    return Fraction(int(e.p), int(e.q)) if e.is_Rational else e


def _member(domain: str, v) -> bool:
    if isinstance(v, flint.arb):
        return domain == "real" or (domain == "pos_real" and bool(v > 0))
    return member(domain, v)


def check_witness(stmt: Statement, witness: dict | None, instance: bool | None = None
                  ) -> tuple[str, str]:
    """Re-evaluate a witness point from the statement: ``("ok" | "wrong" | "inconclusive",
    why)``.  ``instance``: judge it as an instance (default: for ``exists`` statements)."""
    instance = stmt.quant == "exists" if instance is None else instance
    point = witness.get("point") if isinstance(witness, dict) else None
    if not isinstance(point, dict):
        return "inconclusive", "the witness holds no point to re-evaluate"
    by_name = {v.symbol.name: v for v in stmt.vars}
    env = {}
    for name, raw in point.items():
        var = by_name.get(str(name))
        if var is None:
            return "inconclusive", f"the point names {name!r}, not a variable of the statement"
        val = parse_value(raw)
        if val is None:
            return "inconclusive", f"the value {raw!r} of {name} is not an exact number"
        if not _member(var.domain, val):
            return "wrong", f"{name} = {raw} is outside its domain ({var.domain})"
        env[var.symbol] = val
    missing = [n for n in by_name if by_name[n].symbol not in env]
    if missing:
        return "inconclusive", f"the point gives no value to {', '.join(missing)}"
    pt = Point(env)
    for h in stmt.hyps:
        t = pt.truth(h)
        if t is None:
            return "inconclusive", f"hypothesis {h} not certified at the point"
        if not t.value:
            return "wrong", f"hypothesis {h} is false at the point"
    truths = [pt.truth(r) for r in stmt.concl]
    if instance:
        if all(t is not None and t.value for t in truths):
            return "ok", "every conclusion certified true"
        bad = next((r for r, t in zip(stmt.concl, truths, strict=True) if t is not None and
                    not t.value), None)
        if bad is not None:
            return "wrong", f"conclusion {bad} is false at the point"
        return "inconclusive", "some conclusion not certified"
    for r, t in zip(stmt.concl, truths, strict=True):
        if t is not None and not t.value:
            return "ok", f"{r} certified false"
    if all(t is not None for t in truths):
        return "wrong", "every conclusion is true at the point"
    return "inconclusive", "no conclusion certified false at the point"


def recheck_witness(stmt: Statement, witness: dict | None) -> bool:
    """Does the ``refuted`` witness re-check from the original statement?"""
    return check_witness(stmt, witness, instance=False)[0] == "ok"


# ------------------------------------------------------------------------------ the gate
def _summary(v: Verdict) -> dict:
    return {"status": v.status, "engine": v.engine, "method": v.method,
            "witness": v.witness, "reason": v.reason}


def _conflict(v: Verdict, finding: dict, what: str) -> Verdict:
    point = finding.get("point")
    return replace(
        v, status="unknown", method="engine conflict", witness=None,
        reason=f"engine conflict: {v.engine} said {v.status}; {what}",
        trace=[*v.trace, f"{GATE}: {what}"],
        conflict={"engine": _summary(v), "gate": finding, "point": point, "what": what})


def _unknown(v: Verdict, why: str) -> Verdict:
    return replace(v, status="unknown", witness=None, trace=[*v.trace, f"{GATE}: {why}"],
                   reason=f"{v.engine} said {v.status}, not kept: {why}")


def gate(stmt: Statement | None, verdict: Verdict, *, budget: Budget = DEFAULT) -> Verdict:
    """The verdict as it may be returned (see the module docstring)."""
    if stmt is None or verdict.status == "unknown" or verdict.conflict:
        return verdict
    t0 = time.perf_counter()

    def note(text: str) -> Verdict:
        verdict.trace.append(f"{GATE}: {text} ({1e3 * (time.perf_counter() - t0):.1f} ms)")
        return verdict

    if verdict.status == "proved" and stmt.quant == "forall":
        found = search(stmt, budget=budget)
        if found:
            return _conflict(verdict, found, "certified counterexample at "
                             f"{found['point']}: {found['relation']} is false")
        return note("no certified counterexample found")
    if verdict.status == "proved":
        status, why = check_witness(stmt, verdict.witness, instance=True)
        if status == "ok":
            return note(f"instance re-checked ({why})")
        if status == "wrong":
            return _conflict(verdict, {"kind": "bad instance", "point": verdict.witness.get(
                "point"), "why": why}, f"its instance is not one: {why}")
        found = search(stmt, budget=budget)
        if found:
            return note(f"instance {found['point']} certified by the gate ({why})")
        return _unknown(verdict, f"no certified instance to re-check ({why})")
    if stmt.quant == "exists":  # refuted existential: an instance falsifies it
        found = search(stmt, budget=budget)
        if found:
            return _conflict(verdict, found, f"certified instance at {found['point']}")
        return note("no certified instance found")
    status, why = check_witness(stmt, verdict.witness, instance=False)
    if status == "ok":
        return note(f"witness re-checked: {why}")
    if status == "wrong":
        return _conflict(verdict, {"kind": "bad witness", "point": verdict.witness.get("point"),
                                   "why": why}, f"its witness is not a counterexample: {why}")
    return _unknown(verdict, f"witness not re-checked: {why}")


def gated(fn):
    """``fn(stmt, ...) -> Verdict`` whose verdict passes :func:`gate` (the statement is the
    first argument, or the keyword ``stmt``)."""
    @wraps(fn)
    def run(*args, **kwargs):
        stmt = args[0] if args else kwargs.get("stmt")
        v = fn(*args, **kwargs)
        return gate(stmt if isinstance(stmt, Statement) else None, v)
    return run
