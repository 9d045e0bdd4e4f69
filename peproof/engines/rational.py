"""Rational identities in exponential atoms (softmax algebra), decided by cross-multiplication.

A row of ``softmax(S) V`` is ``sum_n exp(s_n) v_n / sum_n exp(s_n)``: a rational function of the
values and of the atoms ``exp(s_n)``.  To decide ``lhs == rhs`` for such expressions:

1. every ``exp(u)`` becomes an indeterminate ``e_u`` (one per *expanded* argument ``u``, so equal
   scores give the same atom, by congruence);
2. ``lhs - rhs`` is brought to one fraction ``N / D`` (``together``, an exact rewrite) and ``N`` is
   expanded; ``N == 0`` as a polynomial in independent indeterminates means the identity holds
   for *every* value of the atoms, the exponentials included;
3. every denominator of the statement must be non-zero: each is proved ``> 0`` by z3 from the
   axiom ``e_u > 0`` (``exp`` of a real number is positive).

Forgetting how different ``exp(u)`` are related only loses information, so a zero numerator is a
proof; a non-zero one proves nothing and the caller reports ``unknown`` (or looks for a witness).
Inequalities are sent to z3 on the polynomial abstraction (:mod:`peproof.engines.z3poly`), which
already treats ``exp(u)`` of a real ``u`` as a positive opaque real.

Trusted base: SymPy's ``together``, ``fraction``, ``expand`` and canonical ``Add``/``Mul``; z3.
``simplify``, ``trigsimp`` and ``equals`` are never called.
"""

from __future__ import annotations

import time

import sympy as sp
import z3

from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines import witness, z3poly
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.hygiene import fresh
from peproof.engines.versions import versions

AXIOMS = (
    "exp(u) > 0 for real u (so every softmax denominator is non-zero)",
    "an identity of polynomials in independent indeterminates e_u holds for every value of "
    "them, in particular for e_u = exp(u) (each exp(u) is abstracted to an atom, congruent on "
    "the expanded argument u)",
)


#: universal statements: == between rational functions of the variables and exp(u), u real
#: (hypotheses not needed); other relations through z3's polynomial abstraction (reads them)
FRAGMENT = Fragment(
    "rational",
    nodes={sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("integer exponent", "real power"),
           sp.exp: ("trig-free",)},
    summary="rational functions of the variables and of exp of real terms",
)


class _Atoms:
    def __init__(self):
        self.table: dict[sp.Expr, sp.Symbol] = {}
        self.seen: dict[sp.Expr, sp.Symbol] = {}  # exp node -> atom (saves re-expanding)
        self.positive: set[sp.Expr] = set()  # denominators already proved > 0

    def __call__(self, e: sp.Expr) -> sp.Expr:
        def rep(x):
            if x in self.seen:
                return self.seen[x]
            key = sp.expand(x.args[0])
            if key not in self.table:
                self.table[key] = fresh(f"e{len(self.table)}", len(self.table), positive=True)
            self.seen[x] = self.table[key]
            return self.table[key]

        return e.replace(lambda x: isinstance(x, sp.exp), rep)


def _denominators(e: sp.Expr) -> list[sp.Expr]:
    out = []
    for a in sp.preorder_traversal(e):
        if isinstance(a, sp.Pow) and a.exp.is_number and a.exp.is_negative:
            out.append(a.base)
    return out


def _positive_by_z3(base: sp.Expr, atoms: list[sp.Symbol]) -> bool:
    """``base > 0`` for every positive value of the atoms (and any real value of other symbols)."""
    zs = {s: z3.Real(f"{s}!{j}") for j, s in enumerate(base.free_symbols)}  # distinct names
    solver = z3.Solver()
    solver.set("timeout", 2000)
    for s in atoms:
        if s in zs:
            solver.add(zs[s] > 0)

    def conv(x):
        if x.is_Symbol:
            return zs[x]
        if x.is_Integer:
            return z3.RealVal(int(x))
        if x.is_Rational:
            return z3.Q(int(x.p), int(x.q))
        if x.is_Add:
            return z3.Sum([conv(a) for a in x.args])
        if x.is_Mul:
            acc = conv(x.args[0])
            for a in x.args[1:]:
                acc = acc * conv(a)
            return acc
        if x.is_Pow and x.exp.is_Integer and x.exp > 0:
            acc = conv(x.base)
            for _ in range(int(x.exp) - 1):
                acc = acc * conv(x.base)
            return acc
        raise TypeError(f"not polynomial: {x}")

    try:
        solver.add(z3.Not(conv(base) > 0))
    except TypeError:
        return False
    return solver.check() == z3.unsat


def prove_eq(rel: Rel, atoms: _Atoms) -> tuple[bool, str]:
    if rel.lhs.has(sp.I) or rel.rhs.has(sp.I):  # exp(u) > 0 only for real u
        return False, "complex terms: exp atoms are positive only for real arguments"
    lhs, rhs = atoms(rel.lhs), atoms(rel.rhs)
    dens = _denominators(lhs) + _denominators(rhs)
    syms = list(atoms.table.values())
    for b in dict.fromkeys(dens):
        if b in atoms.positive:
            continue
        if not _positive_by_z3(b, syms):
            return False, f"denominator not proved positive: {sp.sstr(b)}"
        atoms.positive.add(b)
    num, _ = sp.fraction(sp.together(lhs - rhs))
    ex = sp.expand(num)
    if ex == 0:
        return True, f"numerator 0 ({len(dict.fromkeys(dens))} positive denominator(s))"
    return False, f"numerator has {len(sp.Add.make_args(ex))} term(s) left"


def _fallback(stmt: Statement, trace: list[str], reason: str) -> Verdict:
    """Not proved: look for a certified counterexample (arb on the witness grid), else unknown."""
    v = versions()
    w = witness.find_counterexample(stmt)
    if w:
        return Verdict("refuted", "arb", v["python-flint"], "certified counterexample",
                       witness=w, trace=trace + [reason])
    return Verdict("unknown", "sympy-rational+z3", f"sympy {v['sympy']}, z3 {v['z3']}",
                   "cross-multiplied rational identity", trace=trace, reason=reason)


@entry(FRAGMENT, "sympy-rational+z3", "cross-multiplied rational identity")
def decide(stmt: Statement, checked=None, claim: Claim | None = None) -> Verdict:
    """Proof function for statements of rational identities in ``exp`` atoms (see module)."""
    t0 = time.perf_counter()
    atoms = _Atoms()
    trace: list[str] = []
    axioms: list[str] = list(AXIOMS)
    proved_eq = 0
    for rel in stmt.concl:
        if rel.op == "==":
            ok, detail = prove_eq(rel, atoms)
            if not ok:
                return _fallback(stmt, trace, f"rational engine: {detail}")
            proved_eq += 1
            continue
        res, ax, _, detail = z3poly.prove(Statement((rel,), stmt.vars, stmt.hyps))
        trace.append(f"z3 on {rel}: {detail}")
        if res != "proved":
            return _fallback(stmt, trace, f"z3 did not prove {rel}")
        axioms += ax
    trace.insert(0, f"{proved_eq} equalit(ies) by cross-multiplication over "
                    f"{len(atoms.table)} exp atom(s)")
    v = versions()
    return Verdict(
        "proved", "sympy-rational+z3", f"sympy {v['sympy']}, z3 {v['z3']}",
        "cross-multiplied rational identity, exp abstracted to positive atoms",
        tuple(dict.fromkeys(axioms)), time.perf_counter() - t0, trace=trace,
    )
