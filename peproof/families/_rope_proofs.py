"""Two proof methods the ``rope`` scaling claims need and the default engines lack.

``power_products``  an equation between products of powers of positive quantities with symbolic
    exponents (``(b s^(d/(d-2)))^(-2j/d) = b^(-2j/d) / s``).  Both sides are positive, so it holds
    iff their logarithms agree; ``log`` turns each side into a linear form in ``log p`` (primes
    of the rational constants) and ``log x`` (positive symbols) whose coefficients are rational
    functions of the exponents.  Equal coefficients (the numerator of each difference expands to
    0, a canonical polynomial test) prove the equation; every denominator of an exponent is
    proved nonzero under the hypotheses by z3.  Unequal coefficients prove nothing (the logs of
    the atoms are not shown independent), and the answer is then ``unknown``.

``by_cases(inner)``  a statement with ``Piecewise`` terms: every combination of branches whose
    conditions are consistent with the hypotheses (inconsistency proved by z3) is decided by
    ``inner`` with the branch values in place and the conditions added to the hypotheses.

Both are candidates for :mod:`peproof.engines`; they live here until the engines own them.
"""

from __future__ import annotations

import itertools
import time

import sympy as sp

from peproof.claims import Claim, Rel, Statement, Verdict

MAX_CASES = 64


class _NotProduct(Exception):
    pass


def _log(e: sp.Expr, atoms: dict) -> sp.Expr:
    """``log e`` as a linear form in log-atoms (fresh symbols); ``e`` must be positive."""
    if e.is_Rational:
        if e <= 0:
            raise _NotProduct(f"{e} is not positive")
        out = sp.Integer(0)
        for p, k in sp.factorint(e.p).items():
            out += k * atoms.setdefault(sp.Integer(p), sp.Dummy(f"log{p}"))
        for p, k in sp.factorint(e.q).items():
            out -= k * atoms.setdefault(sp.Integer(p), sp.Dummy(f"log{p}"))
        return out
    if e.is_Symbol:
        if e.is_positive is not True:
            raise _NotProduct(f"{e} is not known to be positive")
        return atoms.setdefault(e, sp.Dummy(f"log_{e}"))
    if e.is_Mul:
        return sp.Add(*[_log(a, atoms) for a in e.args])
    if e.is_Pow:
        b, x = e.args
        if x.has(*atoms.values()) or not all(v.is_extended_real for v in x.free_symbols):
            raise _NotProduct(f"exponent {x} is not known to be real")
        return x * _log(b, atoms)
    raise _NotProduct(f"{type(e).__name__} {e} is not a product of powers")


def _nonzero(den: sp.Expr, stmt: Statement) -> bool:
    from peproof.engines import z3poly

    if den.is_number:
        return den != 0
    res, _, _, _ = z3poly.prove(Statement((Rel("!=", den, 0),), stmt.vars, stmt.hyps))
    return res == "proved"


def power_products(stmt: Statement, claim: Claim | None = None) -> Verdict:
    """Decide equations between positive power products (module docstring)."""
    from peproof.engines import facts
    from peproof.engines.decide import decide_statement, versions

    t0 = time.perf_counter()
    _, why = facts.guard(stmt)  # refuses Floats, I, ...; side conditions must be proved
    if why or stmt.quant != "forall":
        return decide_statement(stmt)
    trace, dens = [], set()
    for rel in stmt.concl:
        if rel.op != "==":
            return decide_statement(stmt)
        atoms: dict = {}
        try:
            diff = _log(rel.lhs, atoms) - _log(rel.rhs, atoms)
        except _NotProduct as exc:
            v = decide_statement(stmt)
            v.trace.insert(0, f"not a power product ({exc}); default engines")
            return v
        for a, sym in atoms.items():
            coeff = sp.diff(diff, sym)  # the form is linear in the log-atoms
            if coeff.has(*atoms.values()):
                return Verdict("unknown", "log-linear", versions()["sympy"], "power products",
                               reason=f"{rel}: not linear in log {a}")
            num, den = sp.fraction(sp.together(coeff))
            if sp.expand(num) != 0:
                return Verdict("unknown", "log-linear", versions()["sympy"], "power products",
                               seconds=time.perf_counter() - t0,
                               reason=f"{rel}: the coefficients of log {a} differ")
            dens |= {f for f in sp.Mul.make_args(den) if not f.is_number}
        rest = diff.subs({s: 0 for s in atoms.values()})
        if sp.expand(rest) != 0:
            return Verdict("unknown", "log-linear", versions()["sympy"], "power products",
                           reason=f"{rel}: a term outside the log-atoms remains")
        trace.append(f"{rel}: log-linear forms agree in {len(atoms)} atom(s)")
    exps = {p.exp for r in stmt.concl for e in (r.lhs, r.rhs) for p in e.atoms(sp.Pow)}
    for x in exps:
        dens |= {f for f in sp.Mul.make_args(sp.fraction(sp.together(x))[1]) if not f.is_number}
    for den in sorted(dens, key=sp.default_sort_key):
        if not _nonzero(den, stmt):
            return Verdict("unknown", "log-linear", versions()["sympy"], "power products",
                           reason=f"denominator {den} not proved nonzero")
    return Verdict(
        "proved", "log-linear", f"sympy {versions()['sympy']}, z3 {versions()['z3']}",
        "power products: equal logarithms",
        axioms=("log is injective on the positive reals",
                "log(x y) = log x + log y and log(x^e) = e log x for x, y > 0, e real"),
        seconds=time.perf_counter() - t0,
        trace=trace + [f"denominators nonzero by z3: {', '.join(map(str, sorted(dens, key=str)))}"
                       if dens else "no symbolic denominators"],
    )


def _rel(c) -> Rel:
    """A SymPy relational as a :class:`Rel` (``>``/``>=`` turned around)."""
    ops = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.Equality: "==", sp.Unequality: "!="}
    if isinstance(c, sp.StrictGreaterThan):
        return Rel("<", c.rhs, c.lhs)
    if isinstance(c, sp.GreaterThan):
        return Rel("<=", c.rhs, c.lhs)
    if type(c) in ops:
        return Rel(ops[type(c)], c.lhs, c.rhs)
    raise ValueError(f"condition {c} is not a relation")


def _negate(r: Rel) -> Rel:
    return {"<": Rel("<=", r.rhs, r.lhs), "<=": Rel("<", r.rhs, r.lhs),
            "==": Rel("!=", r.lhs, r.rhs), "!=": Rel("==", r.lhs, r.rhs)}[r.op]


def _branches(pw: sp.Piecewise) -> list[tuple[sp.Expr, list[Rel]]]:
    out, before = [], []
    for val, cond in pw.args:
        conds = list(before) if cond is sp.true else before + [_rel(cond)]
        out.append((val, conds))
        if cond is sp.true:
            break
        before = before + [_negate(_rel(cond))]
    return out


def _impossible(conds: list[Rel], stmt: Statement) -> bool:
    from peproof.engines import z3poly

    if not conds:
        return False
    goal = _negate(conds[-1])
    res, _, _, _ = z3poly.prove(Statement((goal,), stmt.vars, stmt.hyps + tuple(conds[:-1])))
    return res == "proved"


def by_cases(inner):
    """Proof function: split on the ``Piecewise`` terms, decide each case with ``inner``."""

    def proof(stmt: Statement, claim: Claim | None = None) -> Verdict:
        from peproof.engines.decide import versions

        t0 = time.perf_counter()
        if stmt.quant != "forall":  # every case proved says nothing about an instance
            return Verdict("unknown", "cases", versions()["sympy"], "case split",
                           reason=f"{stmt.quant} statement: a case split proves universal ones")
        pieces = sorted({p for r in stmt.concl for e in (r.lhs, r.rhs)
                         for p in e.atoms(sp.Piecewise)}, key=sp.default_sort_key)
        try:
            options = [_branches(p) for p in pieces]
        except ValueError as exc:
            return Verdict("unknown", "cases", versions()["sympy"], "case split", reason=str(exc))
        combos = list(itertools.product(*options))
        if len(combos) > MAX_CASES:
            return Verdict("unknown", "cases", versions()["sympy"], "case split",
                           reason=f"{len(combos)} cases")
        trace, axioms, engines = [], set(), set()
        for combo in combos:
            conds = [c for _, cs in combo for c in cs]
            if any(_impossible(conds[: i + 1], stmt) for i in range(len(conds))):
                trace.append(f"case {[str(c) for c in conds]}: impossible (z3)")
                continue
            sub = {p: val for p, (val, _) in zip(pieces, combo, strict=True)}
            case = Statement(tuple(r.map(lambda e, s=sub: e.xreplace(s)) for r in stmt.concl),
                             stmt.vars, stmt.hyps + tuple(conds))
            v = inner(case, claim)
            if v.status != "proved":
                return Verdict("unknown", "cases", versions()["sympy"], "case split",
                               seconds=time.perf_counter() - t0, trace=trace + v.trace,
                               reason=f"case {[str(c) for c in conds]}: {v.status} ({v.reason})")
            trace.append(f"case {[str(c) for c in conds]}: proved ({v.engine})")
            axioms |= set(v.axioms)
            engines.add(v.engine)
        return Verdict("proved", "cases + " + "+".join(sorted(engines)) if engines else "cases",
                       versions()["sympy"], "case split on the Piecewise branches",
                       axioms=tuple(sorted(axioms)) + ("z3: impossible cases",),
                       seconds=time.perf_counter() - t0, trace=trace)

    return proof
