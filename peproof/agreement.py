"""The engine-agreement matrix: every claim decided by independent engines.

Columns:

``primary``  the claim's own decision (exponential rewriting, a custom chain, or arb)
``z3``       :mod:`peproof.engines.z3trig` on the polynomial abstraction, or ``n/a`` where the
             statement lies outside that abstraction (integrals, closed numbers, large multiples)
``numeric``  a spot check with mpmath at 50 digits on fixed points (evidence, never proof):
             ``consistent`` or ``inconsistent``

A claim *settled when built* (every conclusion has identical sides once SymPy built it; primary
engine ``construction``) has nothing for another engine to confirm: its z3 cell is
``construction``, never ``proved``, and it is never counted as independent agreement.

A claim proved by one engine and refuted by another is a *conflict*, and so is a verdict the
falsification gate (:mod:`peproof.kernel.falsify`) met with a certified point against it
(``Verdict.conflict``); ``pytest proofs`` fails on it loudly.  ``unknown`` is shown as such.
"""

from __future__ import annotations

import builtins
import itertools
from functools import cache

import mpmath
import sympy as sp

from peproof import registry, scope
from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines.witness import _GRID

ENGINES = ("primary", "z3", "numeric")


_LAMBDAS: dict = {}
_RESERVED = frozenset(dir(mpmath)) | frozenset(dir(builtins)) | {"I", "E", "pi", "oo", "nan"}


def _printer():
    """The printer ``lambdify(modules="mpmath")`` builds for itself, printing the terms of a
    sum in SymPy's argument order instead of sorting them for display (the same code up to
    the order of the terms of each sum; sorting was most of the time spent here).  With
    ``docstring_limit=-1`` the function gets no docstring holding the printed expression."""
    from sympy.printing.pycode import MpmathPrinter

    return MpmathPrinter({"fully_qualified_modules": False, "inline": True,
                          "allow_unknown_functions": True, "user_functions": {},
                          "order": "none"})


def _mp_value(e: sp.Expr, env: dict) -> mpmath.mpf | None:
    """``e`` at ``env`` with mpmath (via lambdify: no SymPy evaluation involved)."""
    try:
        # the arguments are e's free symbols, so e alone keys the compiled function
        syms, f = _LAMBDAS.get(e, ((), None))
        if f is None:
            syms = tuple(sorted(e.free_symbols, key=lambda x: x.name))
            # a variable named like a name of the generated code (pi, E, sin, ...), or two
            # symbols sharing a name, would shadow each other: rename then (slower, so only then)
            names = [s.name for s in e.atoms(sp.Symbol)]  # bound variables included
            clash = len(set(names)) != len(names) or any(
                not s.name.isidentifier() or s.name in _RESERVED for s in syms)
            f = sp.lambdify(syms, e, modules="mpmath", dummify=clash, printer=_printer(),
                            docstring_limit=-1)
            _LAMBDAS[e] = (syms, f)
        args = []
        for s in syms:
            val = env[s]
            args.append(mpmath.mpf(val.numerator) / val.denominator
                        if hasattr(val, "denominator") else mpmath.mpf(val))
        v = f(*args)
        if isinstance(v, mpmath.mpc):
            if abs(v.imag) > mpmath.mpf("1e-40"):
                return None
            v = v.real
        return mpmath.mpf(v)
    except (TypeError, ValueError, ZeroDivisionError, KeyError, NameError, AttributeError,
            OverflowError):
        return None


def _holds(rel: Rel, env: dict, lenient: bool | None = True) -> bool | None:
    """Truth at ``env`` up to 1e-35 relative: the tolerance favours truth for conclusions
    (``lenient``) and falsehood for hypotheses (points on a boundary are not used);
    ``lenient=None``: no tolerance for ``<`` and ``<=`` (a witness on the boundary of a strict
    inequality fails, one of a non-strict inequality holds), truth favoured for ``==``, ``!=``."""
    with mpmath.mp.workdps(50):
        a, b = _mp_value(rel.lhs, env), _mp_value(rel.rhs, env)
        if a is None or b is None:
            return None
        diff = a - b
        tol = mpmath.mpf("1e-35") * (1 + abs(a) + abs(b))
        if lenient is None and rel.op in ("<", "<="):
            tol = mpmath.mpf(0)
        elif lenient is False:
            tol = -tol
        if rel.op == "==":
            return abs(diff) <= tol
        if rel.op == "!=":
            return abs(diff) > abs(tol)
        if rel.op == "<=":
            return diff <= tol
        return diff < tol


def spot_check(stmt: Statement, points: int = 3, extra: dict | None = None,
               refuting: bool = False) -> dict:
    """Evaluate the statement at a few fixed points (and ``extra``, a witness) with mpmath.
    With ``refuting`` (``extra`` is a refutation's witness) inequalities at ``extra`` are read
    without tolerance: a witness on the boundary (``1/10000 < omega`` at ``omega = 1/10000``
    exactly) shows its failure instead of passing as true within 1e-35."""
    envs = []
    if extra is not None:
        envs.append(extra)
    if stmt.vars:
        grids = [_GRID[v.domain][:4] for v in stmt.vars]
        for combo in itertools.islice(itertools.product(*grids), 64):
            env = {v.symbol: val for v, val in zip(stmt.vars, combo, strict=True)}
            if all(_holds(h, env, lenient=False) for h in stmt.hyps):
                envs.append(env)
            if len(envs) >= points + (1 if extra else 0):
                break
    else:
        envs.append({})
    checked, bad = 0, []
    for env in envs:
        if stmt.quant == "exists" and env is not extra:
            continue
        for rel in stmt.concl[:64]:
            h = _holds(rel, env, lenient=None if (refuting and env is extra) else True)
            if h is None:
                continue
            checked += 1
            if not h:
                pt = {str(k): str(v) for k, v in env.items()}
                bad.append({"point": pt, "relation": str(rel)})
    return {"checked": checked, "inconsistent": bad}


def numeric_cell(claim: Claim, primary: Verdict) -> str:
    st = claim.statement
    if st is None:
        return "n/a"
    extra = None
    if primary.witness and primary.witness.get("point"):
        by = {v.symbol.name: v.symbol for v in st.vars}
        try:
            extra = {by[k]: sp.Rational(v) for k, v in primary.witness["point"].items() if k in by}
        except (TypeError, ValueError):
            extra = None
        if extra is not None and len(extra) != len(st.vars):
            extra = None
    if st.quant == "exists" and extra is None:
        return "n/a"
    res = spot_check(st, extra=extra, refuting=primary.status == "refuted")
    if not res["checked"]:
        return "n/a"
    if st.quant == "forall" and primary.status == "refuted":
        # the spot check must see the failure the witness certifies; without a witness point
        # (a refutation by proof of the negation) seeing none is no contradiction
        if res["inconsistent"]:
            return "consistent"
        return "inconsistent" if extra is not None else "no failure seen"
    return "inconsistent" if res["inconsistent"] else "consistent"


def z3_verdict(claim_id: str) -> Verdict:
    """The z3 column's verdict of ``claim_id`` for the encoding in force (:mod:`peproof.scope`)."""
    key = (scope.key(), claim_id)
    return _PRIMED_Z3[key] if key in _PRIMED_Z3 else _z3_verdict(*key)


#: z3 verdicts and rows computed by another process of this run (:func:`prime`)
_PRIMED_Z3: dict = {}
_PRIMED_ROWS: dict = {}


def prime(scope_key: str, claim_id: str, zv: Verdict, r: dict) -> None:
    """Record the z3 verdict and the row of ``claim_id`` computed in a process forked from this
    one (:func:`peproof.testing.decide_ahead`)."""
    _PRIMED_Z3[(scope_key, claim_id)] = zv
    _PRIMED_ROWS[(scope_key, claim_id)] = r


@cache
def _z3_verdict(scope_key: str, claim_id: str) -> Verdict:
    from peproof.verdicts import verdict_of

    return z3_of(registry.get(claim_id), verdict_of(claim_id))


def z3_of(claim: Claim, primary: Verdict) -> Verdict:
    """The z3 column of ``claim`` whose primary verdict is ``primary`` (uncached: a claim
    outside the registry, such as a user's, goes through here)."""
    from peproof.engines.decide import CONSTRUCTION, SETTLED
    from peproof.engines.z3trig import decide_z3

    st = claim.statement
    if st is None:
        return Verdict("unknown", "z3", "-", "not applicable", reason="informal claim")
    if primary.engine == CONSTRUCTION:
        return Verdict("unknown", "z3", "-", SETTLED,
                       reason="settled when built: identical sides, nothing for z3 to confirm")
    return decide_z3(st)


def _z3_cache_clear() -> None:
    _PRIMED_Z3.clear()
    _z3_verdict.cache_clear()


z3_verdict.cache_clear = _z3_cache_clear


def z3_cell(v: Verdict) -> str:
    from peproof.engines.decide import CONSTRUCTION, SETTLED

    if v.method == SETTLED:
        return CONSTRUCTION
    return "n/a" if v.method == "not applicable" else v.status


def independently_confirmed(cells: dict) -> bool:
    """The primary proof is confirmed by a second engine: z3 proved it too (a claim settled
    when built never is: its z3 cell is ``construction``)."""
    return cells["primary"] == "proved" and cells["z3"] == "proved"


def row(claim_id: str) -> dict:
    """The agreement row of ``claim_id`` for the encoding in force (:mod:`peproof.scope`); its
    primary and z3 verdicts share their falsification searches of the claim's statement
    (:func:`peproof.kernel.falsify.shared_searches`)."""
    key = (scope.key(), claim_id)
    return _PRIMED_ROWS[key] if key in _PRIMED_ROWS else _row(*key)


@cache
def _row(scope_key: str, claim_id: str) -> dict:
    from peproof.kernel.falsify import shared_searches
    from peproof.verdicts import verdict_of as verdict

    with shared_searches():
        return row_of(registry.get(claim_id), verdict(claim_id), z3_verdict(claim_id))


def row_of(claim: Claim, primary: Verdict, zv: Verdict) -> dict:
    """The agreement row of ``claim`` from its primary and z3 verdicts (uncached)."""
    claim_id = claim.id
    cells = {"primary": primary.status, "z3": z3_cell(zv), "numeric": numeric_cell(claim, primary)}
    statuses = {cells["primary"], cells["z3"]}
    conflict = "proved" in statuses and "refuted" in statuses
    if cells["numeric"] == "inconsistent" and primary.status in ("proved", "refuted"):
        conflict = True
    if primary.conflict or zv.conflict:  # the falsification gate met an engine's verdict
        conflict = True
    return {"id": claim_id, "cells": cells, "conflict": conflict, "z3": zv,
            "primary_engine": primary.engine, "confirmed": independently_confirmed(cells)}


def _row_cache_clear() -> None:
    _PRIMED_ROWS.clear()
    _row.cache_clear()


row.cache_clear = _row_cache_clear


def matrix(claims=None) -> list[dict]:
    claims = claims or registry.all_claims()
    return [row(c.id) for c in claims]
