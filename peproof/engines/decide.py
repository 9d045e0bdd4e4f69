"""Turn a claim into a verdict: proved (decision procedure), refuted (certified witness), unknown.

Dispatch, per conclusion of a universal statement:

* equalities go to the exponential decision procedure (:mod:`peproof.engines.expoly`); sums over
  the pairs are first *lifted*: ``sum_i f_i = sum_i g_i`` follows from the one-frequency lemma
  ``f_i = g_i``, proved with the frequency generalised to a fresh real symbol ``omega``;
* inequalities without free variables are decided in arb (certified signs);
* other inequalities and integer facts go to z3 (:mod:`peproof.engines.z3poly`).

If some conclusion is not proved, a certified counterexample is searched for
(:mod:`peproof.engines.witness`); failing that the verdict is ``unknown``.  Existential
statements are proved by a certified instance.
"""

from __future__ import annotations

import time
from functools import cache

import flint
import sympy as sp

from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines import expoly, witness, z3poly
from peproof.engines.arbeval import Unsupported, ball_str, certified_sign

LIFT_AXIOM = "termwise lifting: (for all i, f_i = g_i) implies sum_i f_i = sum_i g_i"


@cache
def versions() -> dict[str, str]:
    return {
        "sympy": sp.__version__,
        "python-flint": flint.__version__,
        "z3": z3poly.version(),
    }


def _sums(e: sp.Expr) -> list[sp.Sum]:
    return [a for a in sp.preorder_traversal(e) if isinstance(a, sp.Sum)]


def lift(diff: sp.Expr) -> tuple[sp.Expr, list[str]] | None:
    """Reduce ``diff == 0`` with sums over one index range to a termwise lemma ``f_i == 0``.

    ``diff`` must be a linear combination of ``Sum(f_j, (i, lo, hi))`` with the same limits and
    coefficients free of ``i``, plus a remainder free of ``i``.  The remainder ``R`` is spread as
    ``R / (hi - lo + 1)`` per term, which needs ``hi - lo + 1 != 0`` (recorded in the trace).
    """
    sums = _sums(diff)
    if not sums:
        return None
    limits = {(s.limits[0][1], s.limits[0][2]) for s in sums}
    if len(limits) != 1 or any(len(s.limits) != 1 for s in sums):
        return None
    lo, hi = next(iter(limits))
    i = sp.Dummy("i", integer=True)
    terms = sp.Add.make_args(sp.expand(diff, deep=False, power_exp=False, log=False))
    summand, rest = sp.Integer(0), sp.Integer(0)
    for t in terms:
        coeff, found = sp.Integer(1), None
        for f in sp.Mul.make_args(t):
            if isinstance(f, sp.Sum) and found is None:
                found = f
            else:
                coeff *= f
        if found is None:
            if t.has(sp.Sum):
                return None
            rest += t
            continue
        var = found.limits[0][0]
        summand += coeff * found.function.xreplace({var: i})
    count = sp.expand(hi - lo + 1)
    lemma = summand + rest / count
    # generalise the frequency: every power whose exponent mentions i becomes a fresh omega
    # powers of one base whose exponents are rational multiples of each other become powers of
    # one omega (so omega_i**2 stays the square of omega_i)
    omegas: dict = {}
    units: dict = {}  # base -> (exponent unit, symbol)
    for p in sp.preorder_traversal(lemma):
        if not (isinstance(p, sp.Pow) and p.exp.has(i)) or p in omegas:
            continue
        if p.base in units:
            unit, sym = units[p.base]
            ratio = sp.cancel(p.exp / unit)
            if ratio.is_Rational:
                omegas[p] = sym**ratio
                continue
        sym = sp.Symbol(f"omega{len(units) if units else ''}", positive=True)
        units.setdefault(p.base, (p.exp, sym))
        omegas[p] = sym
    lemma = lemma.xreplace(omegas)
    trace = [
        f"lift over i = {lo} .. {hi} ({sp.sstr(count)} terms, nonzero by the domain of d)",
        "generalise "
        + (", ".join(f"{sp.sstr(k)} -> {v}" for k, v in omegas.items()) or "nothing")
        + " (a lemma for every real omega covers each omega_i)",
        f"one-frequency lemma (lhs - rhs, termwise): {sp.sstr(lemma)}",
    ]
    return lemma, trace


def _prove_eq(rel: Rel) -> tuple[bool, list[str], list[str]]:
    diff = rel.lhs - rel.rhs
    axioms: list[str] = []
    trace: list[str] = []
    if diff.has(sp.Sum):
        lifted = lift(diff)
        if lifted is None:
            return False, ["sums not in liftable form"], axioms
        diff, trace = lifted
        axioms.append(LIFT_AXIOM)
        if diff.has(sp.Sum):
            return False, trace + ["nested sums"], axioms
    res = expoly.expand_is_zero(diff)
    return res.zero, trace + res.trace, axioms


def _closed(rel: Rel) -> bool:
    return not (rel.lhs.free_symbols or rel.rhs.free_symbols)


def _arb_truth(rel: Rel) -> tuple[bool | None, str]:
    try:
        s, ball = certified_sign(rel.lhs - rel.rhs, {})
    except (Unsupported, ZeroDivisionError) as exc:
        return None, f"not evaluable in arb: {exc}"
    desc = f"lhs - rhs in {ball_str(ball)}"
    if s is None:
        return None, desc + " (ball contains 0 at 1024 bits)"
    ok = {"==": s == 0, "!=": s != 0, "<=": s <= 0, "<": s < 0}[rel.op]
    return ok, desc


def decide_statement(stmt: Statement, search: bool = True) -> Verdict:
    """Decide a statement with the default engines (see module docstring)."""
    t0 = time.perf_counter()
    v = versions()
    if stmt.quant == "exists":
        inst = witness.find_instance(stmt)
        if inst:
            return Verdict(
                "proved", "arb", v["python-flint"], "certified instance",
                seconds=time.perf_counter() - t0, trace=[f"instance {inst['point']}"],
                witness=inst,
            )
        return Verdict(
            "unknown", "arb", v["python-flint"], "instance search",
            seconds=time.perf_counter() - t0, reason="no certified instance on the search grid",
        )
    trace: list[str] = []
    axioms: list[str] = []
    engines: list[str] = []
    unproved: list[Rel] = []
    for rel in stmt.concl:
        if rel.op == "==":
            ok, tr, ax = _prove_eq(rel)
            trace += tr
            axioms += ax
            engines.append("sympy-exp")
            if ok:
                continue
        if _closed(rel):
            ok, desc = _arb_truth(rel)
            trace.append(f"{rel}: {desc}")
            engines.append("arb")
            if ok:
                continue
            unproved.append(rel)
            continue
        if rel.op != "==":
            sub = Statement(concl=(rel,), vars=stmt.vars, hyps=stmt.hyps)
            res, ax, _, detail = z3poly.prove(sub)
            engines.append("z3")
            trace.append(f"z3 on {rel}: {detail}")
            if res == "proved":
                axioms += ax
                continue
        unproved.append(rel)
    secs = time.perf_counter() - t0
    engine = "+".join(dict.fromkeys(engines)) or "none"
    ver = ", ".join(f"{k} {v[k]}" for k in ("sympy", "python-flint", "z3"))
    if not unproved:
        return Verdict(
            "proved", engine, ver, "decision procedure", tuple(dict.fromkeys(axioms)), secs,
            trace=trace,
        )
    if search:
        w = witness.find_counterexample(stmt)
        if w:
            return Verdict(
                "refuted", "arb", v["python-flint"], "certified counterexample",
                seconds=time.perf_counter() - t0, witness=w, trace=trace,
            )
    return Verdict(
        "unknown", engine, ver, "decision procedure", tuple(dict.fromkeys(axioms)),
        time.perf_counter() - t0, trace=trace,
        reason=f"not proved and no certified counterexample: {unproved[0]}",
    )


def decide(claim: Claim) -> Verdict:
    """The verdict of a claim: its own proof function if it has one, else the default engines."""
    t0 = time.perf_counter()
    if claim.proof is not None:
        verdict = claim.proof(claim.statement, claim)
    elif claim.kind == "informal" or claim.statement is None:
        verdict = Verdict(
            "unknown", "none", "-", "not formalised", reason=claim.note or "informal statement",
        )
    else:
        verdict = decide_statement(claim.statement)
    verdict.seconds = time.perf_counter() - t0
    st = claim.statement
    if verdict.status == "proved" and st is not None and st.concl and all(
            r.lhs == r.rhs for r in st.concl):
        # nothing was left to decide: SymPy's constructors settled it when the statement was
        # built from the definition (a change of the definition would still change it)
        verdict.method += " (both sides identical as built)"
        verdict.trace.append("every conclusion has identical sides once built: settled by "
                             "construction, not by the engine")
    return verdict


@cache
def verdict_of(claim_id: str) -> Verdict:
    """The verdict of a registered claim, decided once per process (every consumer — tests,
    lemma instances, agreement matrix, results — reads this one cache)."""
    from peproof import registry

    return decide(registry.get(claim_id))


def refute(stmt: Statement) -> Verdict:
    """Decide a falsifier: the default engines, whose only way to refute is a witness."""
    return decide_statement(stmt)
