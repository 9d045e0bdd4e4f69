"""Declared fragments: the grammar each engine decides, as data, and the gate that enforces it.

Every engine module states at its top ``FRAGMENT = Fragment(...)``: the quantifiers, relation
operators, variable domains and hypotheses it reads, and for every SymPy node class it accepts
the *rules* saying where that node may occur.  :func:`refusal` checks a statement against a
fragment before the engine sees it (before any rewriting) and names the first node outside it,
with where it occurs; the engine's entry point then answers ``unknown`` with that reason.

A node is accepted when its class (the first class of its MRO listed in ``nodes``) is listed and
one of the rules given for it holds; leaves (symbols, rationals, ``pi``, ``E``, ``I``) are listed
in ``leaves``.  Rules (the vocabulary, :data:`RULES`):

``any``                 anywhere
``integer exponent``    ``b**n`` with ``n`` an integer (``n < 0`` is a division)
``natural exponent``    ``b**n`` with ``n`` an integer ``>= 0``
``square root``         ``b**(1/2)``
``real power``          ``b**e`` with ``b`` and ``e`` free of sin, cos, tan and of ``I``: a
                        real number the engine treats as an opaque atom
``complex linear argument``  ``f(u)`` with every term of ``u`` (expanded) ``m`` or ``I*m``,
                        ``m`` trig-free (``I`` only as a coefficient: ``u = a + I*b``)
``multiple of pi``      ``f(u)`` with ``u / pi`` a rational linear form in summation indices
``trig-free``           the node's arguments contain no sin, cos, tan and no ``I`` (a real
                        argument: the engine splits it into monomials, or treats it as an atom)
``summand of a side``   a ``Sum`` with one index, not inside another ``Sum``, reached from the
                        side through ``+`` and ``*`` only
``concrete limits``     a ``Sum`` with one index and integer limits

Sign-sensitive nodes (:data:`SIGN_SENSITIVE`: their value depends on the sign or the realness
of a subterm) are listed by no fragment of an engine that rewrites into complex exponentials:
:func:`Fragment.__post_init__` refuses a fragment declaring one together with ``sign_free``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import Boolean, BooleanAtom

from peproof.claims import DOMAINS, OPS, Rel, Statement

#: nodes whose value depends on the sign or the realness of a subterm
SIGN_SENSITIVE: tuple[type, ...] = (
    sp.Abs, sp.Max, sp.Min, sp.Piecewise, sp.sign, sp.floor, sp.ceiling, sp.Mod, sp.frac,
    sp.re, sp.im, sp.Heaviside, sp.arg, sp.conjugate, sp.DiracDelta, sp.KroneckerDelta,
    sp.sinc, sp.polar_lift, sp.periodic_argument, sp.principal_branch, Relational, Boolean,
)
_TRIG = (sp.sin, sp.cos, sp.tan)
#: what a ``Piecewise`` is made of: (value, condition) pairs, conditions built from relations
#: with And, Or, Not, ITE (the truth values ``true``/``false`` are then leaves too)
CONDITIONS: dict[type, tuple[str, ...]] = {
    ExprCondPair: ("any",), Relational: ("any",), sp.And: ("any",), sp.Or: ("any",),
    sp.Not: ("any",), sp.ITE: ("any",),
}
LEAVES = ("symbol", "rational", "pi", "E", "I")
HYPOTHESES = ("read", "ignored", "none")


@dataclass(frozen=True)
class Fragment:
    """The grammar an engine decides (see the module docstring).

    ``hypotheses``: ``read`` (each hypothesis must lie in the fragment too), ``ignored`` (the
    engine proves the conclusions outright, which is sound for ``forall`` only: such a fragment
    accepts no ``exists``), ``none`` (no hypothesis accepted).  ``closed``: statements without
    variables only.  ``sign_free``: the engine rewrites into complex exponentials, so no
    sign-sensitive node may be declared."""

    engine: str
    nodes: Mapping[type, tuple[str, ...]]
    quantifiers: tuple[str, ...] = ("forall",)
    relations: tuple[str, ...] = OPS
    hypotheses: str = "read"
    domains: tuple[str, ...] = DOMAINS
    leaves: tuple[str, ...] = ("symbol", "rational", "pi", "E")
    closed: bool = False
    sign_free: bool = False
    summary: str = ""
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        if self.hypotheses not in HYPOTHESES:
            raise ValueError(f"{self.engine}: hypotheses must be one of {HYPOTHESES}")
        if self.hypotheses == "ignored" and "exists" in self.quantifiers:
            raise ValueError(f"{self.engine}: hypotheses may be ignored for forall only")
        bad = [r for rules in self.nodes.values() for r in rules if r not in RULES]
        bad += [leaf for leaf in self.leaves if leaf not in LEAVES]
        if bad:
            raise ValueError(f"{self.engine}: unknown rule(s) {bad}")
        if not set(self.quantifiers) <= {"forall", "exists"} or not set(self.relations) <= set(
                OPS) or not set(self.domains) <= set(DOMAINS):
            raise ValueError(f"{self.engine}: quantifiers, relations or domains out of range")
        if self.sign_free:
            sensitive = [c.__name__ for c in self.nodes if issubclass(c, SIGN_SENSITIVE)
                         or c is ExprCondPair]
            if sensitive:
                raise ValueError(f"{self.engine}: sign-sensitive node(s) {sensitive} declared "
                                 "in a sign-free fragment")

    def rules(self, e: sp.Basic) -> tuple[str, ...] | None:
        cls = type(e)
        if cls not in self._index:
            self._index[cls] = next((self.nodes[c] for c in cls.__mro__ if c in self.nodes),
                                    None)
        return self._index[cls]

    def describe(self) -> str:
        names = ", ".join(sorted(c.__name__ for c in self.nodes))
        return self.summary or f"{names}; {', '.join(self.relations)}"


# ----------------------------------------------------------------------------- the rules
def _trig_free(e: sp.Basic) -> bool:
    return not e.has(*_TRIG, sp.I)


def _complex_linear(u: sp.Basic) -> bool:
    """Every term of ``u`` (expanded) is ``m`` or ``I*m`` with ``m`` trig-free."""
    for t in sp.Add.make_args(sp.expand(u)):
        c = t.as_coefficient(sp.I)
        if not _trig_free(c if c is not None else t):
            return False
    return True


def _multiple_of_pi(u: sp.Basic, bound: frozenset) -> bool:
    """``u / pi`` is a rational number plus rational multiples of summation indices."""
    q = sp.expand(u / sp.pi)
    for t in sp.Add.make_args(q):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational or not (m == 1 or m in bound):
            return False
    return True


def _summand(e: sp.Sum, path: tuple) -> bool:
    if len(e.limits) != 1:
        return False
    j = e.limits[0][0]
    for parent in path:
        if isinstance(parent, sp.Sum) or not isinstance(parent, sp.Add | sp.Mul):
            return False
        if isinstance(parent, sp.Mul) and any(a is not e and a.has(j) for a in parent.args):
            return False
    return True


def _concrete(e: sp.Sum) -> bool:
    return len(e.limits) == 1 and all(sp.sympify(x).is_Integer for x in e.limits[0][1:])


#: rule name -> check(node, path of ancestors from the side down, bound indices) -> bool
RULES: dict[str, Callable[[sp.Basic, tuple, frozenset], bool]] = {
    "any": lambda e, path, bound: True,
    "integer exponent": lambda e, path, bound: bool(e.exp.is_Integer),
    "natural exponent": lambda e, path, bound: bool(e.exp.is_Integer and e.exp >= 0),
    "square root": lambda e, path, bound: e.exp == sp.Rational(1, 2),
    "real power": lambda e, path, bound: _trig_free(e),
    "complex linear argument": lambda e, path, bound: _complex_linear(e.args[0]),
    "multiple of pi": lambda e, path, bound: _multiple_of_pi(e.args[0], bound),
    "trig-free": lambda e, path, bound: all(_trig_free(a) for a in e.args),
    "summand of a side": lambda e, path, bound: _summand(e, path),
    "concrete limits": lambda e, path, bound: _concrete(e),
}


# ----------------------------------------------------------------------------- the gate
def _short(e) -> str:
    s = sp.sstr(e)
    return s if len(s) <= 60 else s[:57] + "..."


def _leaf(frag: Fragment, e: sp.Basic, view_i: bool) -> str | None:
    """None when the leaf ``e`` is allowed, else the reason; ``view_i``: ``I`` is allowed here
    (an == conclusion of a fragment with the ``I`` leaf)."""
    if e.is_Symbol:
        ok = "symbol" in frag.leaves
    elif e.is_Rational:
        ok = "rational" in frag.leaves
    elif e is sp.pi or e is sp.E:
        ok = str(e) in frag.leaves
    elif e is sp.I:
        ok = view_i
    elif isinstance(e, BooleanAtom):
        ok = ExprCondPair in frag.nodes
    else:
        ok = False
    return None if ok else f"the constant {_short(e)}"


def term_refusal(frag: Fragment, expr: sp.Basic, where: str = "the term",
                 complex_view: bool = False) -> str | None:
    """The first node of ``expr`` outside ``frag``, named with where it occurs, or None.
    ``complex_view``: the term is a side of an == conclusion (``I`` allowed if declared)."""
    expr = sp.sympify(expr)
    sums = expr.has(sp.Sum)  # a Sum's rule reads its ancestors: then no sharing of visits
    seen: set = set()
    stack = [(expr, (), frozenset())]
    while stack:
        e, path, bound = stack.pop()
        key = (e, bound, path) if sums else (e, bound)
        if key in seen:
            continue
        seen.add(key)
        if not e.args:
            why = _leaf(frag, e, complex_view and "I" in frag.leaves)
            if why:
                return f"{frag.engine}: {why} in {where} is outside its fragment"
            continue
        rules = frag.rules(e)
        name = type(e).__name__
        if rules is None:
            return (f"{frag.engine}: {name} in {where} ({_short(e)}) is outside its fragment "
                    f"({frag.describe()})")
        if not any(RULES[r](e, path, bound) for r in rules):
            return (f"{frag.engine}: {name} in {where} ({_short(e)}) breaks its rule "
                    f"({' or '.join(rules)})")
        inner = bound | {lim[0] for lim in e.limits} if isinstance(e, sp.Sum) else bound
        for a in e.args:
            if isinstance(a, sp.Tuple):  # a Sum's limits (index, lo, hi): the bounds are terms
                stack += [(x, path + (e,), bound) for x in a.args[1:]]
            else:
                stack.append((a, path + (e,), inner))
    return None


def _rel_refusal(frag: Fragment, r: Rel, where: str, complex_view: bool) -> str | None:
    for side, e in (("lhs", r.lhs), ("rhs", r.rhs)):
        why = term_refusal(frag, e, f"{where} {side}", complex_view)
        if why:
            return why
    return None


def refusal(frag: Fragment, stmt: Statement) -> str | None:
    """Why ``stmt`` lies outside ``frag`` (one line naming the node and where), or None."""
    eng = frag.engine
    if stmt.quant not in frag.quantifiers:
        return f"{eng}: {stmt.quant} statements are outside its fragment ({frag.quantifiers})"
    if frag.closed and stmt.vars:
        return f"{eng}: statements with variables are outside its fragment (closed only)"
    for v in stmt.vars:
        if v.domain not in frag.domains:
            return f"{eng}: variable {v.symbol} of domain {v.domain} is outside its fragment"
    if stmt.hyps and frag.hypotheses == "none":
        return f"{eng}: hypotheses are outside its fragment"
    for n, r in enumerate(stmt.concl, 1):
        if r.op not in frag.relations:
            return f"{eng}: relation {r.op} in conclusion {n} is outside its fragment"
        why = _rel_refusal(frag, r, f"conclusion {n}", r.op == "==")
        if why:
            return why
    if frag.hypotheses == "read":
        for n, h in enumerate(stmt.hyps, 1):
            why = _rel_refusal(frag, h, f"hypothesis {n}", False)
            if why:
                return why
    return None
