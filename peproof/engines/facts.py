"""Proofs of side conditions: the obligations the well-formedness gate returns, discharged.

:func:`peproof.engines.wellformed.examine` refuses an ill-formed statement and returns its
obligations (``expr`` nonzero / positive / nonnegative / integer-valued under the hypotheses in
force); :func:`check` proves them, cheapest first:

1. the structural rules of :mod:`peproof.engines.signs` (signs and integrality read off the
   syntax tree, a variable's facts from its declared domain);
2. a reduction to parts, each step a true implication of real analysis (:func:`_decompose`): a
   ``Piecewise`` by its branches, a real power by its base, a product by its factors;
3. a certified arb sign for a closed term;
4. z3 on the polynomial abstraction (:mod:`peproof.engines.z3poly`) under the hypotheses, with a
   resource budget independent of the machine's load.

:func:`prove_fact` is the same prover for a fact an engine needs during its own work (the
lifting's non-empty range and positive bases).  Nothing here decides a statement's conclusions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from peproof.claims import Rel, Statement, Var
from peproof.engines import signs, z3poly
from peproof.engines.wellformed import _NEGATE, IllFormed, _as_rels, _Ctx, _describe, examine
from peproof.kernel.arb import Unsupported, certified_sign

__all__ = ["Checked", "IllFormed", "check", "guard", "prove_fact"]

RLIMIT = 2_000_000  # z3 resource units per side condition (a budget independent of the load)


@dataclass
class Checked:
    """The outcome for a well-formed statement: its side conditions, proved or not."""

    proved: list[tuple] = field(default_factory=list)  # (fact, expr, why, how)
    unproved_raw: list[tuple] = field(default_factory=list)  # (fact, expr, why)
    complex_concl: frozenset = frozenset()  # indices of == conclusions in the complex view

    @property
    def ok(self) -> bool:
        return not self.unproved_raw

    @property
    def unproved(self) -> list[str]:
        return [_describe(*u) for u in self.unproved_raw]

    def trace(self, limit: int = 6) -> list[str]:
        if not self.proved and not self.unproved_raw:
            return ["well-formed: exact, real-valued, no side conditions"]
        hows: dict[str, int] = {}
        for *_, how in self.proved:
            hows[how] = hows.get(how, 0) + 1
        out = [f"well-formed: {len(self.proved)} side condition(s) proved ("
               + ", ".join(f"{n} by {h}" for h, n in hows.items()) + ")"]
        out += [f"  side condition {_describe(*p[:3])}: {p[3]}" for p in self.proved
                if p[3] not in ("sign rules", "structure")][:limit]
        out += [f"  side condition NOT proved: {u}" for u in self.unproved[:limit]]
        if self.complex_concl:
            out.append(f"complex view (identity over C) for conclusion(s) "
                       f"{sorted(self.complex_concl)}: exponential procedure only")
        return out


def _prove(fact: str, expr: sp.Expr, ctx: _Ctx, stmt_vars: tuple, hyps: tuple) -> str | None:
    """How ``expr`` is shown ``fact`` (nonzero, pos, nonneg, integer), or None."""
    domains = {v.symbol: v.domain for v in stmt_vars + ctx.bound}
    if fact == "integer":
        if signs.integer_valued(expr, domains):
            return "structure"
    elif signs.implies(signs.sign(expr, domains), fact):
        return "sign rules"
    if fact != "integer" and _splits(expr):
        how = _decompose(fact, expr, ctx, stmt_vars, hyps)
        if how:
            return how
    return _prove_solver(fact, expr, stmt_vars + ctx.bound, hyps + ctx.hyps)


def _splits(e: sp.Expr) -> bool:
    return e.has(sp.Piecewise) or e.is_Mul or (e.is_Pow and not e.exp.is_Integer)


def _decompose(fact: str, e: sp.Expr, ctx: _Ctx, stmt_vars: tuple, hyps: tuple) -> str | None:
    """Reduce a sign fact to facts about parts, each a true implication of real analysis:
    a Piecewise by its branches (each under its condition and the negations of the earlier
    single-relation conditions: dropping a negation only weakens the hypotheses); ``b**x`` with
    ``x`` not an integer is positive (and nonzero) when ``b > 0``, nonnegative when ``b >= 0``;
    a product is positive / nonnegative / nonzero when every factor is.  The sub-terms' own
    definedness is checked separately by the gate."""
    def sub(f, x, c=ctx):
        return _prove(f, x, c, stmt_vars, hyps)

    if e.has(sp.Piecewise):
        pw = next(a for a in sp.preorder_traversal(e) if isinstance(a, sp.Piecewise))
        earlier: list[Rel] = []
        for val, cond in pw.args:
            branch = ctx.add(hyps=tuple(_as_rels(cond)) + tuple(earlier))
            if not sub(fact, e.xreplace({pw: val}), branch):
                return None
            rels = _as_rels(cond)
            if cond is sp.true:
                break
            if len(rels) == 1 and not isinstance(cond, sp.And):
                earlier.append(_NEGATE[rels[0].op](rels[0]))
        return "cases"
    if e.is_Pow:
        b, x = e.args
        if fact in ("pos", "nonzero"):
            return "power of a positive base" if sub("pos", b) else None
        if x.is_Rational and x > 0 and sub("nonneg", b):
            return "power of a nonnegative base"
        return "power of a positive base" if sub("pos", b) else None
    if e.is_Mul:
        if all(sub(fact, a) for a in e.args):
            return "factors"
    return None


@lru_cache(maxsize=4096)
def _prove_solver(fact: str, expr: sp.Expr, vars_: tuple, hyps: tuple) -> str | None:
    if not expr.free_symbols:
        try:
            s, _ = certified_sign(expr, {})
        except (Unsupported, ZeroDivisionError, ValueError):
            s = None
        if fact == "integer":
            return "arb" if s is not None and sp.sympify(expr).is_Integer else None
        ok = s is not None and {"nonzero": s != 0, "pos": s > 0, "nonneg": s >= 0}[fact]
        return "arb" if ok else None
    used = set(expr.free_symbols)
    for h in hyps:
        used |= h.lhs.free_symbols | h.rhs.free_symbols
    sub_vars = tuple(v for v in vars_ if v.symbol in used)
    if fact == "integer":
        res = z3poly.prove_integer(expr, Statement((), sub_vars, hyps), rlimit=RLIMIT)
    else:
        rel = {"nonzero": Rel("!=", expr, 0), "pos": Rel("<", 0, expr),
               "nonneg": Rel("<=", 0, expr)}[fact]
        res = z3poly.prove(Statement((rel,), sub_vars, hyps), rlimit=RLIMIT)[0]
    return "z3" if res == "proved" else None


def prove_fact(fact: str, expr: sp.Expr, stmt: Statement | None, bound=(), hyps=()
               ) -> str | None:
    """How ``expr`` is shown ``fact`` (nonzero, pos, nonneg, integer) at every point of the
    domain of ``stmt`` satisfying its hypotheses and the extra ``hyps`` about the ``bound``
    ``(symbol, domain)`` pairs; None when not proved.  Without ``stmt`` only the structural
    rules and arb (closed terms) are used."""
    expr = sp.sympify(expr)
    ctx = _Ctx(hyps=(stmt.hyps if stmt else ()) + tuple(hyps),
               bound=tuple(Var(s, dom) for s, dom in bound))
    if stmt is None:
        domains = {v.symbol: v.domain for v in ctx.bound}
        if fact == "integer":
            return "structure" if signs.integer_valued(expr, domains) else None
        if signs.implies(signs.sign(expr, domains), fact):
            return "sign rules"
        return _prove_solver(fact, expr, (), ()) if not expr.free_symbols else None
    return _prove(fact, expr, ctx, stmt.vars, ())


@lru_cache(maxsize=2048)
def check(stmt: Statement) -> Checked:
    """Refuse an ill-formed ``stmt`` (:class:`IllFormed`), else prove the obligations the gate
    returns for it (:func:`peproof.engines.wellformed.examine`)."""
    ex = examine(stmt)
    out = Checked(complex_concl=ex.complex_concl)
    for ob in ex.obligations:
        how = _prove(ob.fact, ob.expr, ob.ctx, stmt.vars, ())
        if how:
            out.proved.append((ob.fact, ob.expr, ob.why, how))
        else:
            out.unproved_raw.append((ob.fact, ob.expr, ob.why))
    return out


def guard(stmt: Statement) -> tuple[Checked, str | None]:
    """``(Checked, None)`` when the statement may be decided, or ``(Checked, reason)`` when its
    side conditions are not all proved (no proof possible).  Raises :class:`IllFormed` for a
    refused statement."""
    wf = check(stmt)
    if wf.ok:
        return wf, None
    return wf, f"side condition not proved: {wf.unproved[0]}"
