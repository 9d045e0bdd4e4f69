"""Well-formed statements: the one validation layer every engine runs first.

A statement breaking rules 1-4 is *refused*: :class:`IllFormed`, a one-line message naming the
term and what is allowed.  A statement whose side conditions (rule 5) are not all proved is never
``proved``: its verdict is ``unknown`` unless a certified counterexample exists at a point where
every term is defined.

1. **Variables** have distinct names, and a symbol's SymPy assumptions follow from its declared
   domain (a symbol made ``positive=True`` but declared ``real`` lets SymPy rewrite
   ``sqrt(x**2)`` to ``x`` while the statement is built).  The same holds for a sum's index
   (``nonnegative`` needs a range starting at 0 or above).
2. **Exact numbers** only: integers, rationals, ``pi``, ``E``.  Floats (rounded inside
   ``expand``), infinities, ``nan`` and other constants are refused.
3. **Known functions** only: ``+ * **``, sin, cos, tan, exp, log, Abs, floor, ceiling, Mod, Max,
   Min, Piecewise (conditions: relations, And, Or, Not, ITE; the last branch ``(value, True)``,
   else it is undefined somewhere), Sum, PiIntegral, Delta.  A function of one's own (a
   ``sympy.Function`` subclass) is accepted when it states its definition in these terms: a
   method ``peproof_definition(self)`` returning the defining expression of the call, which is
   checked in its place (rules 2-5 and the side conditions apply to the definition).  Engines
   that do not know the function treat the call as an opaque real number (z3 reports ``n/a``);
   one that evaluates it (``_arb_eval``) must evaluate that definition.
4. **Real view, complex view.**  Hypotheses and ``<=``, ``<``, ``!=`` conclusions are about real
   numbers: the imaginary unit may not occur.  An ``==`` conclusion may contain ``I``: it then
   states an identity of complex-valued functions of the real variables, and only the
   exponential procedure decides it (its rewriting is an identity over C, so a Laurent
   polynomial expanding to zero proves exactly that).  Its subterms containing ``I`` are built
   from ``+``, ``*``, integer powers, sin, cos and exp, and a complex quantity is divided only
   when it is an ``exp`` (never zero).  z3 and arb never see such a term (z3 would read ``I`` as
   an unknown real number).
5. **Side conditions**, each proved on the domain under the hypotheses (a hypothesis's own under
   the hypotheses before it), with the index range inside a sum and the branch condition inside
   a Piecewise:  ``b**-n``: ``b != 0``;  ``b**(p/q)`` not an integer power: ``b >= 0``
   (``b > 0`` if negative);  ``b**e`` with ``e`` not a number: ``b > 0`` (``b != 0`` if ``e`` is
   integer-valued);  ``log u``: ``u > 0``;  ``tan u``: ``cos u != 0``;  ``Mod(a, b)``:
   ``b != 0``;  ``Sum(f, (j, lo, hi))``: ``lo``, ``hi`` integer-valued and ``hi >= lo - 1``;
   ``Delta(p, q)``: integer-valued arguments.  This module only *collects* them: it returns
   the obligations (:func:`examine`), each a fact about a term under the hypotheses in force;
   :mod:`peproof.engines.facts` proves them (the structural sign rules of
   :mod:`peproof.engines.signs`, arb for closed terms, z3 on the polynomial abstraction), and
   each proof is recorded in the verdict's trace.

**Ranges.**  ``Sum(f, (j, lo, hi))`` is the sum over the integers ``lo <= j <= hi``, empty when
``hi = lo - 1``.  A range that may be reversed (``hi < lo - 1``) is not well formed: SymPy's
Karr convention (``sum_lo^hi = -sum_(hi+1)^(lo-1)``) and the plain reading differ there, and
every engine (lifting, arb, witness search, cyclotomic, periodic) must mean the same thing;
where ``hi >= lo - 1`` the two agree.  arb refuses to evaluate a reversed range, so no witness
rests on one either.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from peproof.claims import _ASSUME, Rel, Statement, Var
from peproof.engines import signs
from peproof.engines.objects import Delta, PiIntegral

ALLOWED = ("+ * **, sin, cos, tan, exp, log, Abs, floor, ceiling, Mod, Max, Min, Piecewise, "
           "Sum, PiIntegral, Delta, or a function with a peproof_definition")
_COMPLEX_OK = (sp.Add, sp.Mul, sp.Pow, sp.sin, sp.cos, sp.exp)


class IllFormed(ValueError):
    """The statement is refused (one line: the offending term and what is allowed)."""


class _SawI(IllFormed):
    """The imaginary unit in the real view (an == conclusion is then read in the complex view)."""


@dataclass(frozen=True)
class _Ctx:
    hyps: tuple = ()  # relations in force
    bound: tuple = ()  # Vars of bound variables (sum indices, integration variables)

    def add(self, hyps=(), bound=()) -> _Ctx:
        return _Ctx(self.hyps + tuple(hyps), self.bound + tuple(bound))


@dataclass(frozen=True)
class Obligation:
    """A side condition: ``expr`` is ``fact`` (nonzero, pos, nonneg, integer) at every point of
    the statement's domain satisfying ``ctx.hyps`` (the hypotheses before it, a sum's range, a
    branch's condition), ``ctx.bound`` being the bound variables in force; ``why`` names the
    term that needs it."""

    fact: str
    expr: sp.Expr
    ctx: _Ctx
    why: tuple

    def describe(self) -> str:
        return _describe(self.fact, self.expr, self.why)

    def statement(self, stmt: Statement) -> Statement:
        """The obligation as a universal statement (``integer``: the relation ``expr == expr``
        stands in; that fact is not a relation)."""
        rel = {"nonzero": Rel("!=", self.expr, 0), "pos": Rel("<", 0, self.expr),
               "nonneg": Rel("<=", 0, self.expr)}.get(self.fact, Rel("==", self.expr, self.expr))
        return Statement((rel,), stmt.vars + self.ctx.bound, self.ctx.hyps)


@dataclass(frozen=True)
class Examined:
    """A statement the gate accepts: its obligations, and the == conclusions read in the
    complex view (by index)."""

    obligations: tuple[Obligation, ...]
    complex_concl: frozenset


def _describe(fact: str, expr, why: tuple) -> str:
    label, term = why
    return f"{_short(expr)} {_WORDS[fact]} ({label} {_short(term)})"


def _in(rel) -> str:
    return f"in {_short(rel)}"


def _short(e) -> str:
    s = sp.sstr(e)
    return s if len(s) <= 70 else s[:67] + "..."


def _implied(sym: sp.Symbol, domain: str) -> bool:
    """Every assumption ``sym`` carries also holds for every member of ``domain``."""
    return _implied_facts(tuple(sorted(sym.assumptions0.items())), domain)


@lru_cache(maxsize=256)
def _implied_facts(facts: tuple, domain: str) -> bool:
    canon = sp.Dummy("canon", **_ASSUME[domain])
    return all(getattr(canon, f"is_{k}") == v for k, v in facts)


def _check_vars(stmt: Statement) -> None:
    seen: dict[str, Var] = {}
    for v in stmt.vars:
        if not isinstance(v.symbol, sp.Symbol):
            raise IllFormed(f"variable {v.symbol!r} is not a SymPy Symbol")
        name = v.symbol.name
        if name in seen:
            raise IllFormed(f"two variables named {name!r}: variable names must be distinct")
        seen[name] = v
        if not _implied(v.symbol, v.domain):
            raise IllFormed(
                f"symbol {name} declared {v.domain} carries assumptions "
                f"{ {k: val for k, val in v.symbol.assumptions0.items() if val} } beyond its "
                f"domain: create it with peproof.claims.var({name!r}, {v.domain!r})")


def _as_rels(cond) -> list[Rel]:
    """The relations a Piecewise condition asserts (a conjunction of relations; else none)."""
    parts = cond.args if isinstance(cond, sp.And) else (cond,)
    out = []
    flip = {sp.Gt: "<", sp.Ge: "<="}
    for c in parts:
        if isinstance(c, sp.Lt | sp.Le | sp.Eq | sp.Ne):
            out.append(Rel({sp.Lt: "<", sp.Le: "<=", sp.Eq: "==", sp.Ne: "!="}[type(c)],
                           c.lhs, c.rhs))
        elif isinstance(c, sp.Gt | sp.Ge):
            out.append(Rel(flip[type(c)], c.rhs, c.lhs))
    return out


class _Walker:
    """Collects side conditions (obligations) and refuses ill-formed terms."""

    def __init__(self):
        self.delta, self.integral = Delta, PiIntegral
        self.obligations: dict = {}  # (fact, expr, ctx) -> description
        self.seen: dict = {}  # id(ctx) -> {(term, complex view)} already walked
        self.ctxs: list = []  # keeps every ctx alive while its id is a key

    def need(self, fact: str, expr: sp.Expr, ctx: _Ctx, why: tuple) -> None:
        expr = sp.sympify(expr)
        if expr.is_Rational:  # decided now
            ok = {"nonzero": expr != 0, "pos": expr > 0, "nonneg": expr >= 0,
                  "integer": expr.is_Integer}[fact]
            if not ok:
                raise IllFormed(f"side condition fails: {_describe(fact, expr, why)}")
            return
        self.obligations.setdefault((fact, expr, ctx), why)

    def cond(self, c, ctx: _Ctx, rel: Rel) -> None:
        if c in (sp.true, sp.false):
            return
        if isinstance(c, sp.And | sp.Or | sp.Not | sp.ITE):
            for a in c.args:
                self.cond(a, ctx, rel)
            return
        if isinstance(c, sp.core.relational.Relational):
            self.walk(c.lhs, ctx, False, rel)
            self.walk(c.rhs, ctx, False, rel)
            return
        raise IllFormed(f"condition {_short(c)} {_in(rel)}: conditions are relations "
                        "combined with And, Or, Not")

    def walk(self, e, ctx: _Ctx, cview: bool, rel: Rel) -> None:  # noqa: C901
        if e.is_Symbol or e.is_Rational or e is sp.pi or e is sp.E:
            return
        if e.is_Float:
            raise IllFormed(f"Float {sp.sstr(e)} {_in(rel)}: only exact numbers are allowed "
                            "(Integer, Rational, pi, E; e.g. sympy.Rational('1e-20'))")
        if e is sp.I:
            if not cview:
                raise _SawI(f"imaginary unit I {_in(rel)}: complex terms are allowed only "
                            "in == conclusions (identities over C, exponential procedure)")
            return
        if e.is_Number:
            raise IllFormed(f"number {e} {_in(rel)}: only finite exact real numbers are allowed")
        seen = self.seen.get(id(ctx))
        if seen is None:
            seen = self.seen[id(ctx)] = set()
            self.ctxs.append(ctx)
        if (e, cview) in seen:
            return
        seen.add((e, cview))
        if e.is_NumberSymbol or e.is_Atom:
            raise IllFormed(f"constant {e} {_in(rel)}: allowed constants are integers, rationals, "
                            "pi and E")
        if cview and e.has(sp.I):
            self._complex(e, ctx, rel)
            return
        if isinstance(e, sp.Sum):
            self._sum(e, ctx, rel)
            return
        if isinstance(e, self.integral):
            f, x = e.args
            self._bound_ok(x, "real", rel)
            xx = sp.Dummy(x.name, real=True)
            inner = ctx.add(hyps=(Rel("<=", -sp.pi, xx), Rel("<=", xx, sp.pi)),
                            bound=(Var(xx, "real"),))
            self.walk(f.xreplace({x: xx}), inner, False, rel)
            return
        if isinstance(e, sp.Piecewise):
            if e.args[-1][1] is not sp.true:  # undefined where no condition holds
                raise IllFormed(f"Piecewise without a final (value, True) branch {_in(rel)}: "
                                "it is undefined where no condition holds; add the otherwise "
                                "branch")
            earlier: list[Rel] = []  # negations of the earlier single-relation conditions
            for val, c in e.args:
                self.cond(c, ctx, rel)
                self.walk(val, ctx.add(hyps=tuple(_as_rels(c)) + tuple(earlier)), False, rel)
                rels = _as_rels(c)
                if c is not sp.true and len(rels) == 1 and not isinstance(c, sp.And):
                    earlier.append(_NEGATE[rels[0].op](rels[0]))
            return
        definition = getattr(e, "peproof_definition", None)
        if isinstance(e, sp.Function) and callable(definition):
            self.walk(sp.sympify(definition()), ctx, False, rel)  # defined where its definition is
            return
        if not isinstance(e, sp.Add | sp.Mul | sp.Pow | sp.sin | sp.cos | sp.tan | sp.exp
                          | sp.log | sp.Abs | sp.floor | sp.ceiling | sp.Mod | sp.Max | sp.Min
                          | self.delta):
            raise IllFormed(f"{type(e).__name__} {_in(rel)}: allowed are {ALLOWED}")
        for a in e.args:
            self.walk(a, ctx, False, rel)
        self._conditions(e, ctx, rel)

    def _conditions(self, e, ctx: _Ctx, rel: Rel) -> None:
        if e.is_Pow:
            b, x = e.args
            if x.is_Integer:
                if x < 0:
                    self.need("nonzero", b, ctx, ("denominator of", e))
            elif x.is_Rational:
                self.need("pos" if x < 0 else "nonneg", b, ctx, ("base of", e))
            else:
                ints = {v.symbol: v.domain for v in ctx.bound}
                integral = signs.integer_valued(x, {**self.domains, **ints})
                self.need("nonzero" if integral else "pos", b, ctx, ("base of", e))
        elif isinstance(e, sp.log):
            if len(e.args) != 1:
                raise IllFormed(f"log with a base {_in(rel)}: write log(x)/log(b)")
            self.need("pos", e.args[0], ctx, ("argument of", e))
        elif isinstance(e, sp.tan):
            self.need("nonzero", sp.cos(e.args[0]), ctx, ("cos of the argument of", e))
        elif isinstance(e, sp.Mod):
            self.need("nonzero", e.args[1], ctx, ("divisor of", e))
        elif isinstance(e, self.delta):
            for a in e.args:
                self.need("integer", a, ctx, ("argument of", e))

    def _complex(self, e, ctx: _Ctx, rel: Rel) -> None:
        if not isinstance(e, _COMPLEX_OK):
            raise IllFormed(f"{type(e).__name__} of a complex quantity {_in(rel)}: complex "
                            "subterms are built from + * integer powers, sin, cos, exp")
        if e.is_Pow:
            b, x = e.args
            if not x.is_Integer:
                raise IllFormed(f"non-integer power {_short(e)} of a complex quantity {_in(rel)}")
            if x < 0 and not isinstance(b, sp.exp):
                raise IllFormed(f"division by the complex quantity {_short(b)} {_in(rel)}: "
                                "only exp(...) (never zero) may be divided by")
        for a in e.args:
            self.walk(a, ctx, True, rel)

    def _bound_ok(self, j, domain: str, rel: Rel) -> None:
        if not isinstance(j, sp.Symbol) or not _implied(j, domain):
            raise IllFormed(f"bound variable {j} {_in(rel)} carries assumptions beyond "
                            f"{domain} (give it none, or integer=True)")

    def _sum(self, e: sp.Sum, ctx: _Ctx, rel: Rel) -> None:
        """``Sum(f, (j1, lo1, hi1), (j2, lo2, hi2), ...)``: the last index is the outermost
        (SymPy's order; nested sums are merged into one such Sum), inner limits may use the
        outer indices."""
        body = e.function
        for j, lo, hi in reversed(e.limits):
            self.walk(lo, ctx, False, rel)
            self.walk(hi, ctx, False, rel)
            self.need("integer", lo, ctx, ("lower limit of", e))
            self.need("integer", hi, ctx, ("upper limit of", e))
            self.need("nonneg", hi - lo + 1, ctx, ("range not reversed (hi >= lo - 1) of", e))
            # the index's own assumptions must hold on the range
            if j.is_positive:
                dom = "pos_integer"
                self.need("pos", lo, ctx, ("positive index: lower limit of", e))
            elif j.is_nonnegative:
                dom = "nonneg_integer"
                self.need("nonneg", lo, ctx, ("nonnegative index: lower limit of", e))
            else:
                dom = "integer"
            self._bound_ok(j, dom, rel)
            if j in self.domains or any(j == v.symbol for v in ctx.bound):  # shadowing
                jj = sp.Dummy(j.name, integer=True)
                body, j = body.xreplace({j: jj}), jj
                dom = "integer"
            ctx = ctx.add(hyps=(Rel("<=", lo, j), Rel("<=", j, hi)), bound=(Var(j, dom),))
        self.walk(body, ctx, False, rel)


_NEGATE = {"<": lambda r: Rel("<=", r.rhs, r.lhs), "<=": lambda r: Rel("<", r.rhs, r.lhs),
           "==": lambda r: Rel("!=", r.lhs, r.rhs), "!=": lambda r: Rel("==", r.lhs, r.rhs)}


_WORDS = {"nonzero": "!= 0", "pos": "> 0", "nonneg": ">= 0", "integer": "integer-valued"}


@lru_cache(maxsize=2048)
def examine(stmt: Statement) -> Examined:
    """Refuse an ill-formed ``stmt`` (:class:`IllFormed`), else return its obligations (side
    conditions, rule 5) and the == conclusions read in the complex view.  Nothing is proved
    here: :func:`peproof.engines.facts.check` proves the obligations."""
    _check_vars(stmt)
    w = _Walker()
    w.domains = {v.symbol: v.domain for v in stmt.vars}
    cx = set()
    rels = [(r, "hypothesis", n) for n, r in enumerate(stmt.hyps)] + [
        (r, "conclusion", n) for n, r in enumerate(stmt.concl)]
    ctxs = [_Ctx(hyps=stmt.hyps[:n]) for n in range(len(stmt.hyps) + 1)]
    for r, role, n in rels:
        ctx = ctxs[n] if role == "hypothesis" else ctxs[-1]
        try:
            w.walk(r.lhs, ctx, False, r)
            w.walk(r.rhs, ctx, False, r)
        except _SawI as exc:
            if role != "conclusion" or r.op != "==":
                raise IllFormed(str(exc)) from None
            cx.add(n)
            w.walk(r.lhs, ctx, True, r)
            w.walk(r.rhs, ctx, True, r)
    return Examined(tuple(Obligation(fact, expr, ctx, why)
                          for (fact, expr, ctx), why in w.obligations.items()), frozenset(cx))
