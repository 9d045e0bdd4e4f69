"""Certified counterexamples: points where a universal statement fails, checked in arb.

A witness is a finite assignment of exact rationals to the statement's variables at which every
hypothesis is certified true and some conclusion is certified false (its ball of ``lhs - rhs``
excludes the values that would make it true).  Candidates come from a fixed, deterministic grid
per domain; nothing random, so every run finds the same witness.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from peproof.claims import INT_DOMAINS, Rel, Statement
from peproof.kernel.arb import Unsupported, arb_eval, ball_str, certified_sign

_GRID = {
    "real": [
        Fraction(7, 3),
        Fraction(1),
        Fraction(-5, 2),
        Fraction(1, 2),
        Fraction(0),
        Fraction(13, 7),
        Fraction(-1),
        Fraction(100),
        Fraction(31, 10),
        Fraction(500),
    ],
    "rational": [
        Fraction(7, 3),
        Fraction(1),
        Fraction(-5, 2),
        Fraction(1, 2),
        Fraction(0),
        Fraction(13, 7),
        Fraction(-1),
        Fraction(100),
    ],
    "pos_real": [
        Fraction(7, 3),
        Fraction(1),
        Fraction(1, 2),
        Fraction(13, 7),
        Fraction(3),
        Fraction(1, 100),
        Fraction(100),
    ],
    "integer": [3, 1, -2, 0, 5, -1, 2, 7, 100, 500],
    "nonneg_integer": [3, 1, 0, 5, 2, 7, 4, 100, 500],
    "pos_integer": [3, 1, 5, 2, 7, 4, 6, 100, 500],
    "even_pos_integer": [4, 2, 8, 6, 16, 12, 64, 512],
}


def truth(rel: Rel, env: dict) -> bool | None:
    """Certified truth value of ``rel`` at ``env`` (None when the balls cannot decide)."""
    try:
        s, _ = certified_sign(rel.lhs - rel.rhs, env)
    except (Unsupported, ZeroDivisionError, ValueError):
        return None
    if s is None:
        return None
    if rel.op == "==":
        return s == 0
    if rel.op == "!=":
        return s != 0
    if rel.op == "<=":
        return s <= 0
    return s < 0


def _points(stmt: Statement, limit: int):
    grids = [_GRID[v.domain] for v in stmt.vars]
    if not grids:
        yield {}
        return
    for combo in itertools.islice(itertools.product(*grids), limit):
        yield {v.symbol: val for v, val in zip(stmt.vars, combo, strict=True)}


def _fmt(val) -> str:
    return str(val) if not isinstance(val, Fraction) or val.denominator != 1 else str(val.numerator)


def describe(rel: Rel, env: dict) -> dict:
    lhs = arb_eval(rel.lhs, env, 128)
    rhs = arb_eval(rel.rhs, env, 128)
    return {
        "point": {str(k): _fmt(v) for k, v in env.items()},
        "relation": str(rel),
        "lhs": ball_str(lhs),
        "rhs": ball_str(rhs),
        "certified_by": "python-flint arb (rigorous balls)",
    }


def find_counterexample(stmt: Statement, limit: int = 400) -> dict | None:
    """A certified point where ``stmt`` (universal) fails, or None."""
    if stmt.quant != "forall":
        raise ValueError("counterexamples refute universal statements only")
    for env in _points(stmt, limit):
        if any(truth(h, env) is not True for h in stmt.hyps):
            continue
        for rel in stmt.concl:
            if truth(rel, env) is False:
                return describe(rel, env)
    return None


def find_instance(stmt: Statement, limit: int = 400) -> dict | None:
    """A certified point where every conclusion of ``stmt`` (existential) holds, or None."""
    for env in _points(stmt, limit):
        if any(truth(h, env) is not True for h in stmt.hyps):
            continue
        if all(truth(r, env) is True for r in stmt.concl):
            return {
                "point": {str(k): _fmt(v) for k, v in env.items()},
                "relations": [str(r) for r in stmt.concl],
                "certified_by": "python-flint arb (rigorous balls)",
            }
    return None


def in_domain(domain: str, val) -> bool:
    """Is the exact value ``val`` a member of ``domain``?  A value that is not an exact rational
    belongs to ``real`` only."""
    try:
        q = sp.Rational(val) if isinstance(val, Fraction | int | sp.Rational) else None
    except (TypeError, ValueError):
        q = None
    if q is None:
        return domain == "real"
    if domain in INT_DOMAINS and not q.is_Integer:
        return False
    return {"pos_real": q > 0, "pos_integer": q > 0, "nonneg_integer": q >= 0,
            "even_pos_integer": q > 0 and q % 2 == 0}.get(domain, True)


def check_point(stmt: Statement, env: dict) -> dict | None:
    """Certify a given point as a counterexample to the universal ``stmt``; None if it is not
    (among others when some variable's value lies outside its declared domain: a point offered
    by a solver or a heuristic is a counterexample only inside the domain)."""
    env = {(sp.Symbol(k) if isinstance(k, str) else k): v for k, v in env.items()}
    by_name = {v.symbol.name: v.symbol for v in stmt.vars}
    env = {by_name.get(str(k), k): v for k, v in env.items()}
    if any(v.symbol in env and not in_domain(v.domain, env[v.symbol]) for v in stmt.vars):
        return None
    if any(truth(h, env) is not True for h in stmt.hyps):
        return None
    for rel in stmt.concl:
        if truth(rel, env) is False:
            return describe(rel, env)
    return None
