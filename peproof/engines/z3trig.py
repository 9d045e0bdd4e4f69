"""The second, independent engine: z3 on the polynomial abstraction with explicit trig axioms.

A statement is translated to real (or integer) arithmetic:

* every argument ``u`` of ``sin``/``cos`` is written as ``sum_m n_m * phi_m`` with integers
  ``n_m`` over *base angles* ``phi_m = m / L_m`` (``m`` a monomial, ``L_m`` a common denominator);
* each base angle gets reals ``s, c`` with the axiom ``s^2 + c^2 = 1``;
* integer multiples and sums of base angles get fresh reals tied to them by the
  **angle-addition polynomials** ``sin(a+b) = sa*cb + ca*sb``, ``cos(a+b) = ca*cb - sa*sb`` and
  the parity axioms ``sin(-a) = -sin a``, ``cos(-a) = cos a``, each stated as an axiom;
* ``pi`` times an integer-valued product gets ``s = 0, c^2 = 1`` (half-integers: ``s*c = 0``);
* everything else non-polynomial becomes an opaque real (positive when its sign is known).

The universal statement is proved when ``axioms & hyps & not(concl)`` is unsatisfiable.  A ``sat``
answer (with ``model_validate``) proposes a counterexample; it counts only after a point is
certified in arb.  Sums over pairs are lifted to the one-frequency lemma first; block-by-block
statements are one query per conclusion, with queries cached up to renaming of variables.

Independence: this module shares no decision code with :mod:`peproof.engines.expoly` (no
exponential rewriting, no ``expand``-to-zero test); SymPy only supplies the statement's syntax
tree and the linear decomposition of arguments.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import reduce

import sympy as sp
import z3

from peproof.claims import Rel, Statement, Var, Verdict
from peproof.engines import signs, witness, z3base
from peproof.engines.facts import prove_fact
from peproof.engines.fragment import CONDITIONS, Fragment
from peproof.engines.gate import NOT_APPLICABLE, entry
from peproof.engines.hygiene import fresh
from peproof.engines.z3base import (
    INT_DOMAINS,
    Names,
    arith,
    domain_axioms,
    integral_statement,
    rel_term,
)

z3.set_param("model_validate", True)

RLIMIT_PER_MS = 3000  # z3 resource units per ms of nominal budget (~3e6 units/s measured here)
MAX_MULTIPLE = 16  # larger multiples of a base angle: the statement is outside this engine's scope

PAIR_INDEX = "i"  # the families' pair index (peproof.families._common.i)
PYTH = "s^2 + c^2 = 1 for every base angle"
ADD = "angle addition: sin(a+b) = sin a cos b + cos a sin b, cos(a+b) = cos a cos b - sin a sin b"
PARITY = "parity: sin(-a) = -sin a, cos(-a) = cos a"
PI_INT = "sin(pi n) = 0 and cos(pi n)^2 = 1 for integer n"
PI_HALF = "sin(pi n/2) cos(pi n/2) = 0 for integer n"

#: universal statements polynomial in sin/cos of real arguments (each argument a rational
#: combination of base angles, multiples up to MAX_MULTIPLE), with integer powers, square
#: roots, Abs, floor, ceiling, Mod and Piecewise (translated exactly), sums over the pairs
#: (lifted termwise, each conclusion with its own index, a power of a positive base becoming a
#: positive symbol); no I, no opaque term
FRAGMENT = Fragment(
    "z3",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",),
        sp.Pow: ("integer exponent", "square root", "real power"),
        sp.sin: ("trig-free",), sp.cos: ("trig-free",),
        sp.Abs: ("any",), sp.floor: ("any",), sp.ceiling: ("any",), sp.Mod: ("any",),
        sp.Piecewise: ("any",), sp.Sum: ("summand of a side",), **CONDITIONS,
    },
    summary="polynomials in sin, cos of real linear forms with integer powers, sqrt, Abs, "
            "floor, ceiling, Mod, Piecewise; sums over the pairs as summands of a side",
)


class NotExpressible(Exception):
    pass


class NotApplicable(NotExpressible):
    """The statement lies outside the polynomial abstraction this engine decides."""


class Translation:
    """The z3 abstraction of one statement (all its relations share base angles)."""

    def __init__(self, stmt: Statement, use_int: bool, strict: bool = True,
                 ctx: z3.Context | None = None):
        self.stmt, self.use_int, self.strict = stmt, use_int, strict
        self.ctx = ctx  # every term of the query in it (None: z3's main context)
        self.names = Names(ctx)
        self.domains = {v.symbol: v.domain for v in stmt.vars}
        self.axioms: list = []
        self.obligations: list = []  # definedness of the conclusions' terms (proved, not assumed)
        self.used: set[str] = set()
        self.vars: dict[sp.Symbol, z3.ArithRef] = {}
        self.opaque: dict[sp.Expr, z3.ArithRef] = {}
        self.base: dict[sp.Expr, tuple] = {}
        self.mult: dict[tuple, tuple] = {}
        self.denom: dict[sp.Expr, int] = {}
        # each variable's domain axioms mention that variable only: kept apart so that a query
        # in which the variable no longer occurs can leave them out (see split_domains)
        self.var_axioms: dict[int, tuple] = {}
        for v in stmt.vars:
            mk = z3.Int if (use_int and v.domain in INT_DOMAINS) else z3.Real
            zv = mk(self.names(v.symbol.name), ctx)
            self.vars[v.symbol] = zv
            self.var_axioms[zv.get_id()] = (zv, v.domain, domain_axioms(
                zv, v.domain, integral_sort=zv.is_int(), integrality=True))
        for r in stmt.concl + stmt.hyps:
            for e in (r.lhs, r.rhs):
                for t in e.atoms(sp.sin, sp.cos):
                    for c, m in _parts(t.args[0]):
                        self.denom[m] = int(sp.ilcm(self.denom.get(m, 1), c.q))

    # ------------------------------------------------------------- angles
    def _base(self, m: sp.Expr):
        if m in self.base:
            return self.base[m]
        s, c = self.names.real("s"), self.names.real("c")
        self.axioms.append(s * s + c * c == 1)
        self.used.add(PYTH)
        L = self.denom.get(m, 1)
        q = m / sp.pi
        if not q.has(sp.pi) and q.is_integer:
            if L == 1:
                self.axioms += [s == 0, c * c == 1]
                self.used.add(PI_INT)
                if q.is_Integer:  # a constant multiple of pi: cos(pi q) = (-1)^q exactly
                    self.axioms.append(c == (1 if int(q) % 2 == 0 else -1))
            elif L == 2:
                self.axioms.append(s * c == 0)
                self.used.add(PI_HALF)
        self.base[m] = (s, c)
        return s, c

    def _multiple(self, m: sp.Expr, n: int):
        """sin, cos of n * phi_m via the addition and parity axioms."""
        if n == 0:
            return z3.RealVal(0, self.ctx), z3.RealVal(1, self.ctx)
        if n == 1:
            return self._base(m)
        key = (m, n)
        if key in self.mult:
            return self.mult[key]
        if n < 0:
            s1, c1 = self._multiple(m, -n)
            res = (-s1, c1)
            self.used.add(PARITY)
        elif n > MAX_MULTIPLE:
            raise NotApplicable(f"multiple {n} of one base angle (limit {MAX_MULTIPLE})")
        elif n % 2 == 0:
            half = self._multiple(m, n // 2)
            res = self._add(half, half)
        else:
            res = self._add(self._multiple(m, n - 1), self._base(m))
        self.mult[key] = res
        return res

    def _add(self, a, b):
        sa, ca = a
        sb, cb = b
        s, c = self.names.real("sa"), self.names.real("ca")
        self.axioms += [s == sa * cb + ca * sb, c == ca * cb - sa * sb]
        self.used.add(ADD)
        return s, c

    def angle(self, u: sp.Expr):
        parts: dict[sp.Expr, sp.Rational] = {}
        for c, m in _parts(u):
            parts[m] = parts.get(m, 0) + c
        pieces = []
        for m, r in parts.items():
            n = r * self.denom.get(m, 1)
            if n == 0:
                continue
            if not n.is_Integer:
                raise NotExpressible(f"non-integer multiple {n} of base angle {m}")
            pieces.append(self._multiple(m, int(n)))
        if not pieces:
            return z3.RealVal(0, self.ctx), z3.RealVal(1, self.ctx)
        return reduce(self._add, pieces)

    # ------------------------------------------------------------- terms
    def term(self, e: sp.Expr):  # noqa: C901
        if e.is_Symbol and e in self.vars:
            return self.vars[e]
        if e is sp.I or e.is_Float:
            raise NotExpressible(f"{e} is not an exact real number")
        t = arith(e, self.term, use_int=self.use_int, ctx=self.ctx)
        if t is not None:
            return t
        if e.is_Pow and e.exp.is_Integer:  # negative exponent: real division, base proved != 0
            b, n = self.term(e.base), -int(e.exp)
            self.obligations.append(b != 0)
            return z3.RealVal(1, self.ctx) / reduce(lambda x, y: x * y, [b] * n)
        if isinstance(e, sp.sin | sp.cos):
            s, c = self.angle(e.args[0])
            return s if isinstance(e, sp.sin) else c
        if isinstance(e, sp.Abs):
            x = self.term(e.args[0])
            return z3.If(x >= 0, x, -x)
        if isinstance(e, sp.floor) and self.use_int:
            num, den = e.args[0].as_numer_denom()
            if den.is_Integer and den > 0:  # z3's integer division by a positive den is floor
                return self.term(num) / int(den)
        if isinstance(e, sp.floor | sp.ceiling) and not self.use_int:
            x = self.term(e.args[0])
            return z3.ToReal((z3base.floor if isinstance(e, sp.floor) else z3base.ceiling)(x))
        if isinstance(e, sp.Piecewise):
            out = None
            for val, cond in reversed(e.args):
                v = self.term(val)
                out = v if cond is sp.true else z3.If(self.cond(cond), v, out)
            if out is None:
                raise NotExpressible("empty Piecewise")
            return out
        if isinstance(e, sp.Mod):  # SymPy's Mod: the sign of the divisor (z3's % is Euclidean)
            a, b = self.term(e.args[0]), self.term(e.args[1])
            self.obligations.append(b != 0)
            m = z3base.mod(a, b)
            return m if self.use_int or not m.is_int() else z3.ToReal(m)
        if e.is_Pow and e.exp == sp.Rational(1, 2):
            r = self._opaque(e)
            x = self.term(e.base)
            self.axioms.append(z3.Implies(x >= 0, z3.And(r >= 0, r * r == x)))
            self.obligations.append(x >= 0)
            return r
        if isinstance(e, sp.Sum | sp.Integral | sp.Derivative):
            raise NotExpressible(f"{type(e).__name__} in a block query")
        return self._opaque(e)

    def _opaque(self, e):
        if self.strict:
            raise NotApplicable(f"non-polynomial term {sp.sstr(e)[:60]}")
        if e.has(sp.I):
            raise NotExpressible(f"complex term {sp.sstr(e)[:60]}")
        if e not in self.opaque:
            z = self.names.real("t")
            self.opaque[e] = z
            cond = z3base.sign_axiom(z, signs.sign(e, self.domains))
            if cond is not None:
                self.axioms.append(cond)
        return self.opaque[e]

    def cond(self, c):
        """A SymPy relational or boolean combination as a z3 condition."""
        if isinstance(c, sp.And):
            return z3.And([self.cond(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or([self.cond(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.cond(c.args[0]))
        if isinstance(c, sp.ITE):
            return z3.If(self.cond(c.args[0]), self.cond(c.args[1]), self.cond(c.args[2]))
        if c is sp.true:
            return z3.BoolVal(True, self.ctx)
        if c is sp.false:
            return z3.BoolVal(False, self.ctx)
        ops = {sp.Eq: "==", sp.Ne: "!=", sp.Le: "<=", sp.Lt: "<", sp.Ge: ">=", sp.Gt: ">"}
        for cls, op in ops.items():
            if isinstance(c, cls):
                a, b = self.term(c.lhs), self.term(c.rhs)
                return {"==": a == b, "!=": a != b, "<=": a <= b, "<": a < b,
                        ">=": a >= b, ">": a > b}[op]
        raise NotExpressible(f"condition {c}")

    def rel(self, r: Rel):
        return rel_term(r.op, self.term(r.lhs), self.term(r.rhs))

    def split_domains(self, assertions: list) -> tuple[list, dict]:
        """``(domain axioms for the query, isolated)``: the domain axioms of every variable that
        occurs in ``assertions`` (the other axioms, the hypotheses and the negated goal), and
        ``isolated``, the variables that occur nowhere in them (every occurrence was inside a
        sin/cos abstracted to reals), each with a value satisfying its domain axioms.

        Exact, not a weakening: an isolated variable's axioms mention that variable only, so
        the query with them is satisfiable iff the query without them is and they are (a
        domain is never empty; their satisfiability is checked here, else they stay in the
        query); a model of the query extended by these values is a model of both.  (Mixed
        integer constraints on a variable that nothing else mentions send z3 from nlsat to a
        strategy that runs out of time on an easy query.)"""
        present = _constants(assertions)
        kept, isolated = [], {}
        for i, (zv, domain, axioms) in self.var_axioms.items():
            value = None if i in present else _domain_value(domain, zv.is_int())
            if value is None:
                kept += axioms
            else:
                isolated[i] = value
        return kept, isolated


_DOMAIN_VALUES: dict = {}


def _domain_value(domain: str, integral_sort: bool):
    """A value satisfying the domain axioms of a variable of ``domain`` (the same axioms as
    :func:`~peproof.engines.z3base.domain_axioms` gives every such variable, up to its name),
    found by z3 once per domain and sort; ``None`` if z3 finds none."""
    key = (domain, integral_sort)
    if key not in _DOMAIN_VALUES:
        zv = (z3.Int if integral_sort else z3.Real)("domain_value")
        aux = z3.Solver()  # its own query, in the main context: only its value is kept
        aux.add(*domain_axioms(zv, domain, integral_sort=integral_sort, integrality=True))
        _DOMAIN_VALUES[key] = (aux.model().eval(zv, model_completion=True)
                               if aux.check() == z3.sat else None)
    return _DOMAIN_VALUES[key]


def _constants(fs) -> set[int]:
    """Ids of the uninterpreted constants occurring in the z3 formulas ``fs``."""
    seen: set[int] = set()
    out: set[int] = set()
    stack = list(fs)
    while stack:
        e = stack.pop()
        i = e.get_id()
        if i in seen:
            continue
        seen.add(i)
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(i)
        else:
            stack.extend(e.children())
    return out


def _parts(u: sp.Expr):
    out = []
    for t in sp.Add.make_args(sp.expand(u)):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational:
            c, m = sp.Integer(1), t
        out.append((sp.Rational(c), m))
    return out


def _has_trig(stmt: Statement) -> bool:
    return any(r.lhs.has(sp.sin, sp.cos) or r.rhs.has(sp.sin, sp.cos)
               for r in stmt.concl + stmt.hyps)


def lift_z3(diff: sp.Expr, stmt: Statement | None = None, nonempty: bool = False,
            slot: int = 0):
    """Termwise lifting of sums with one shared range (this engine's own, minimal version).

    Returns ``(term, index, range hypotheses)`` (``diff`` itself, ``None``, ``()`` without
    sums), or ``None`` when a precondition is not proved: one index and the same limits for
    every sum, ``hi - lo + 1 >= 1`` before the remainder is divided by it, a positive base
    before ``base**e_i`` becomes a positive symbol (all proved by
    :func:`peproof.engines.facts.prove_fact`).  With ``nonempty`` the range must be proved
    non-empty (``hi - lo + 1 >= 1``) even without a remainder: the caller needs it for a strict
    inequality (``f_i < g_i`` for every term says nothing about an empty sum, ``0 < 0``) and
    when the range hypotheses share a query with other conclusions (an empty range would make
    that whole query vacuous).  The index keeps its range as hypotheses ``lo <= i <= hi`` in the
    query; every introduced symbol is a ``Dummy``, numbered by ``slot``: the conclusions lifted
    into one query each get their own index and frequencies (``i<slot>``, ``w<slot>_<n>``), so
    each keeps its own range hypotheses (one shared index would keep only one range)."""
    sums = [a for a in sp.preorder_traversal(diff) if isinstance(a, sp.Sum)]
    if not sums:
        return diff, None, ()
    if any(s.limits[0][0].name != PAIR_INDEX for s in sums):
        return None  # only sums over the frequency pairs are lifted termwise
    lims = {(s.limits[0][1], s.limits[0][2]) for s in sums}
    if len(lims) != 1 or any(len(s.limits) != 1 for s in sums):
        return None
    lo, hi = next(iter(lims))
    idx = fresh(f"i{slot}", slot, integer=True)
    total, rest = sp.Integer(0), sp.Integer(0)
    for t in sp.Add.make_args(diff):
        factors = sp.Mul.make_args(t)
        found = [f for f in factors if isinstance(f, sp.Sum)]
        if not found:
            if t.has(sp.Sum):
                return None
            rest += t
            continue
        if len(found) != 1:
            return None
        s = found[0]
        coeff = sp.Mul(*[f for f in factors if f is not s])
        total += coeff * s.function.xreplace({s.limits[0][0]: idx})
    if (rest != 0 or nonempty) and prove_fact("pos", hi - lo + 1, stmt) is None:
        return None  # the range may be empty: no remainder spread, no strict or shared lift
    term = total + rest / (hi - lo + 1) if rest != 0 else total
    in_range = (Rel("<=", lo, idx), Rel("<=", idx, hi))
    # generalise base**(e * i) to powers of one positive symbol per (proved positive) base
    rep, units = {}, {}
    for p in sp.preorder_traversal(term):
        if isinstance(p, sp.Pow) and p.exp.has(idx) and p not in rep:
            if p.base in units and sp.cancel(p.exp / units[p.base][0]).is_Rational:
                rep[p] = units[p.base][1] ** sp.cancel(p.exp / units[p.base][0])
            elif p.base in units or prove_fact("pos", p.base, stmt, bound=((idx, "integer"),),
                                               hyps=in_range):
                w = fresh(f"w{slot}_{len(rep)}", len(rep), positive=True)
                units.setdefault(p.base, (p.exp, w))
                rep[p] = w
    return term.xreplace(rep), idx, in_range


def _canonical(rels: tuple, stmt: Statement, extra_hyps: tuple = ()):
    """Cache key: the relations and ALL hypotheses under ONE renaming of their symbols
    (``_v0, _v1, ...``, each carrying its domain and assumptions).  Keys are equal only for
    alpha-equivalent queries, which have the same truth value.  ``None`` (no caching) when a
    relation binds a variable (a bound name could capture a renamed one)."""
    rels = tuple(rels) + tuple(stmt.hyps) + tuple(extra_hyps)
    if any(r.lhs.has(sp.Sum, sp.Integral, sp.Lambda) or r.rhs.has(sp.Sum, sp.Integral, sp.Lambda)
           for r in rels):
        return None
    syms = set()
    for r in rels:
        syms |= r.lhs.free_symbols | r.rhs.free_symbols
    ren = {}
    for j, s in enumerate(sorted(syms, key=lambda x: (x.name, sp.default_sort_key(x)))):
        try:
            dom = stmt.domain(s)
        except KeyError:
            dom = "?"
        ren[s] = ("var", j, dom, tuple(sorted(s.assumptions0.items())))
    # the renamed trees are written out as nested tuples (class, children...) rather than
    # rebuilt as SymPy expressions (xreplace re-runs every constructor on the way up)
    memo: dict = {}
    return tuple((r.op, _shape(r.lhs, ren, memo), _shape(r.rhs, ren, memo)) for r in rels)


def _shape(e: sp.Basic, ren: dict, memo: dict):
    """``e`` as a nested tuple: each node its class and its children's shapes in order, each
    renamed symbol its entry of ``ren``, any other leaf its class and exact ``srepr``.  Equal
    shapes are equal trees up to the renaming (a SymPy object is its class applied to its
    ``args``; a leaf carries no more than its ``srepr`` says)."""
    if not isinstance(e, sp.Basic):
        return ("python", type(e), repr(e))
    out = memo.get(e)
    if out is None:
        if e in ren:
            out = ren[e]
        elif not e.args:
            out = ("leaf", type(e), sp.srepr(e))
        else:
            out = (type(e),) + tuple(_shape(a, ren, memo) for a in e.args)
        memo[e] = out
    return out


_CACHE: dict = {}
# Pythagorean triples (a, b, c): (a/c, b/c) lies on the unit circle
_TRIPLES = ((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (-4, 3, 5),
            (12, -5, 13), (-15, -8, 17))


def check_relation(rel, stmt: Statement, timeout_ms: int = 400, cache: bool = True):
    """``('unsat'|'sat'|'unknown'|'n/a', axioms_used, detail)`` for one block of conclusions
    (a relation or a tuple of relations sharing their angles) under ``stmt``: ONE query."""
    rels = rel if isinstance(rel, tuple) else (rel,)
    if stmt.quant != "forall":  # unsat of the negation proves a universal statement only
        return "n/a", set(), f"{stmt.quant} statement: not decided by z3"
    lifted, ranges = [], {}
    for slot, r in enumerate(rels):
        if r.lhs.has(sp.Sum) or r.rhs.has(sp.Sum):
            if r.op == "!=":
                # f_i != g_i for every term does not make the sums differ (1 - 1 = 0 - 0)
                return "n/a", set(), "a disequality of sums does not follow termwise"
            # the range hypotheses lo <= i <= hi join this block's query: they may be
            # vacuous (an empty range) only for a lone == or <= (an empty sum is 0 == 0)
            out = lift_z3(r.lhs - r.rhs, stmt, nonempty=r.op == "<" or len(rels) > 1, slot=slot)
            if out is None:
                return "n/a", set(), "sums not liftable to one frequency"
            lemma, idx, in_range = out
            assert idx not in ranges  # each lifted conclusion has its own index and range
            ranges[idx] = in_range
            r = Rel(r.op, lemma, 0)
        lifted.append(r)
    extra_hyps = tuple(h for rng in ranges.values() for h in rng)
    return _check_block(lifted[0], tuple(lifted[1:]), stmt, timeout_ms, cache, extra_hyps)


def _check_block(diff_rel: Rel, more: tuple, stmt: Statement, timeout_ms: int, cache: bool,
                 extra_hyps: tuple = ()):
    hyps_all = tuple(stmt.hyps) + extra_hyps
    key = _canonical((diff_rel,) + more, stmt, extra_hyps)
    cache = cache and key is not None
    if cache and key in _CACHE:
        return _CACHE[key]
    declared = {v.symbol for v in stmt.vars}
    extra = []
    new_syms = set()
    for r in (diff_rel,) + more + extra_hyps:
        new_syms |= (r.lhs.free_symbols | r.rhs.free_symbols) - declared
    lifted_syms = frozenset(new_syms)
    for sym in sorted(new_syms, key=str):
        dom = "pos_real" if sym.is_positive else "integer" if sym.is_integer else "real"
        extra.append(Var(sym, dom))
    used = {v.symbol for v in extra}  # only the variables this block mentions
    for r in (diff_rel,) + more + hyps_all:
        used |= r.lhs.free_symbols | r.rhs.free_symbols
    sub = Statement(concl=(diff_rel,) + more,
                    vars=tuple(v for v in stmt.vars if v.symbol in used) + tuple(extra),
                    hyps=hyps_all)
    for r in sub.concl:
        if not (r.lhs.free_symbols | r.rhs.free_symbols) and (
            r.lhs.has(sp.sin, sp.cos, sp.pi, sp.exp) or r.rhs.has(sp.sin, sp.cos, sp.pi)
        ):
            return "n/a", set(), "closed numeric statement: decided in arb, not by z3"
    use_int = (not _has_trig(sub) and all(v.domain in INT_DOMAINS for v in sub.vars)
               and integral_statement(sub))
    try:
        # a context of its own: z3's heuristics follow its terms' ids, and in the shared main
        # context those depend on every query the process made before (one falsifier took
        # 0.1 s in a fresh process and 15 s after its claim, ending on the wall-clock limit)
        tr = Translation(sub, use_int, ctx=z3.Context())
        stmt = sub
        hyps = [tr.rel(h) for h in stmt.hyps]
        tr.obligations = []  # the hypotheses' terms are defined (well-formedness layer)
        goal = z3.And([tr.rel(r) for r in sub.concl] + tr.obligations)
    except NotApplicable as exc:
        return "n/a", set(), f"outside the abstraction: {exc}"
    except (NotExpressible, z3.Z3Exception, TypeError, RecursionError) as exc:
        return "n/a", set(), f"not expressible: {exc}"
    solver = z3.Solver(ctx=tr.ctx)
    # the binding budget is z3's deterministic resource count, so verdicts do not depend on the
    # machine's load; the wall-clock limit (5x) is only a safety net
    solver.set("rlimit", RLIMIT_PER_MS * timeout_ms)
    solver.set("timeout", 5 * timeout_ms)
    query = [*tr.axioms, *hyps, z3.Not(goal)]
    domains, isolated = tr.split_domains(query)
    solver.add(*domains, *query)
    res = solver.check()
    if res == z3.unknown and tr.base:
        # model search: pin every base angle to a rational point of the unit circle.  A model
        # of this stronger system is a model of the abstraction (sat only; never a proof).
        solver.push()
        for j, (sv, cv) in enumerate(tr.base.values()):
            a, b, c = _TRIPLES[j % len(_TRIPLES)]
            solver.add(sv == z3.Q(a, c, tr.ctx), cv == z3.Q(b, c, tr.ctx))
        if solver.check() == z3.sat:
            res = z3.sat  # keep the pinned constraints: the model below comes from them
        else:
            solver.pop()  # unsat or unknown under the pins says nothing: stay unknown
    used = set(tr.used) | {("integer" if use_int else "real") + " arithmetic (z3)"}
    if res == z3.unsat:
        out = ("unsat", used, "negation unsatisfiable")
    elif res == z3.sat:
        m = solver.model()
        pt = {}
        for s, zv in tr.vars.items():
            if s in lifted_syms:  # the lifting's index and frequencies: not the user's names
                continue
            val = isolated.get(zv.get_id())
            if val is None:
                val = m.eval(zv, model_completion=False)
            if z3.is_int_value(val):
                pt[s.name] = val.as_long()
            elif z3.is_rational_value(val):
                pt[s.name] = val.as_fraction()
        out = ("sat", used, {"model_point": pt})
    else:
        out = ("unknown", used, f"z3: {solver.reason_unknown()}")
    if cache and out[0] != "sat":
        # a sat answer carries a model in THIS statement's variable names; an alpha-equivalent
        # query from another statement must get its own model, so sat answers are not shared
        _CACHE[key] = out
    return out


def _blocks(concl: tuple) -> list[tuple]:
    """Group conclusions with the same set of trig arguments (the rows of one block)."""
    groups: dict = {}
    for r in concl:
        args = set()
        for e in (r.lhs, r.rhs):
            for t in e.atoms(sp.sin, sp.cos):
                args.add(t.args[0])
        key = frozenset(args) if args else ("_", len(groups))
        groups.setdefault(key, []).append(r)
    return [tuple(g) for g in groups.values()]


@entry(FRAGMENT, "z3", "polynomial abstraction")
def decide_z3(stmt: Statement, checked, timeout_ms: int = 400, cache: bool = True) -> Verdict:
    """Verdict of the z3 engine: proved (every conclusion unsat), refuted (a certified point),
    or unknown.  (Public entry: ``decide_z3(stmt, timeout_ms=..., cache=...)``, gated by
    :func:`peproof.engines.gate.entry`: the statement is in :data:`FRAGMENT`, well formed, its
    side conditions proved, before this runs.)"""
    t0 = time.perf_counter()
    ver = z3.get_version_string()
    used: set[str] = set()
    failures = []
    queries = 0
    trivial = [r for r in stmt.concl if r.op in ("==", "<=") and r.lhs == r.rhs]
    for block in _blocks(tuple(r for r in stmt.concl if r not in trivial)):
        rel = block[0] if len(block) == 1 else block
        res, ax, detail = check_relation(rel, stmt, timeout_ms, cache)
        queries += 1
        used |= ax
        if res == "n/a":
            return Verdict("unknown", "z3", ver, NOT_APPLICABLE, seconds=time.perf_counter() - t0,
                           reason=detail)
        if res != "unsat":
            failures.append((block[0] if len(block) == 1 else block, res, detail))
    secs = time.perf_counter() - t0
    axioms = tuple(sorted(used))
    if not failures:
        return Verdict("proved", "z3", ver, "polynomial abstraction, block by block", axioms, secs,
                       trace=[f"{queries} z3 queries (one per block of conclusions sharing "
                              "their angles), all unsat"]
                       + ([f"{len(trivial)} conclusion(s) with identical sides (reflexivity)"]
                          if trivial else []))
    # a sat answer is re-checked: the model's values first, then the fixed grid, in arb
    for rel, res, detail in failures:
        if res != "sat":
            continue
        block = rel if isinstance(rel, tuple) else (rel,)
        pt = detail.get("model_point", {})
        env = {}
        for v in stmt.vars:
            if v.symbol.name in pt:
                val = Fraction(pt[v.symbol.name])
                if v.domain in INT_DOMAINS and val.denominator != 1:
                    env = None
                    break
                env[v.symbol] = val
        if env is not None and len(env) == len(stmt.vars):
            w = witness.check_point(stmt, env)
            if w:
                w["found_by"] = "z3 model"
                return Verdict("refuted", "z3+arb", ver, "z3 model re-checked in arb", axioms,
                               time.perf_counter() - t0, witness=w)
        w = witness.find_counterexample(stmt.with_concl(block))
        if w:
            w["found_by"] = "z3 sat, point from the grid"
            return Verdict("refuted", "z3+arb", ver, "sat abstraction, certified point", axioms,
                           time.perf_counter() - t0, witness=w)
    rel, res, detail = failures[0]
    return Verdict("unknown", "z3", ver, "polynomial abstraction", axioms,
                   time.perf_counter() - t0,
                   reason=f"{res} on {rel}: "
                   + (detail if isinstance(detail, str) else "model not certified"))
