"""Turn a claim into a verdict: proved (decision procedure), refuted (certified witness), unknown.

Every statement first passes :mod:`peproof.engines.wellformed` (refused, or its side conditions
proved; unproved side conditions mean no proof).  A statement whose conclusions have identical
sides as built is *settled when built*: engine ``construction``, its own verdict, never counted
as agreement between engines.  Otherwise, per conclusion of a universal statement:

* equalities go to the exponential decision procedure (:mod:`peproof.engines.expoly`); sums over
  the pairs are first *lifted*: ``sum_i f_i = sum_i g_i`` follows from the one-frequency lemma
  ``f_i = g_i``, proved with the frequency generalised to a fresh positive ``omega`` (every
  precondition proved, see :func:`lift`); an equality read in the complex view (it contains
  ``I``) is decided by this procedure alone;
* inequalities without free variables are decided in arb (certified signs);
* other inequalities and integer facts go to z3 (:mod:`peproof.engines.z3poly`).

If some conclusion is not proved, a certified counterexample is searched for
(:mod:`peproof.engines.witness`); failing that the verdict is ``unknown``.  Existential
statements are proved by a certified instance.
"""

from __future__ import annotations

import time
from functools import cache, wraps

import flint
import sympy as sp

from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines import expoly, wellformed, witness, z3poly
from peproof.engines.hygiene import fresh
from peproof.kernel.arb import Unsupported, ball_str, certified_sign

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


def lift(diff: sp.Expr, stmt: Statement | None = None) -> tuple[sp.Expr, list[str]] | None:
    """Reduce ``diff == 0`` with sums over one index range to a termwise lemma ``f_i == 0``.

    ``diff`` must be a linear combination of ``Sum(f_j, (i, lo, hi))`` with the same limits and
    coefficients free of ``i``, plus a remainder ``R`` free of ``i``.  Each step's precondition
    is proved on the domain of ``stmt`` under its hypotheses (without ``stmt``: by the structural
    sign rules only), else there is no lift (``None``):

    * every sum has one index and the same limits ``(lo, hi)`` (a sum whose limits differ is a
      different sum);
    * ``R`` is spread as ``R / (hi - lo + 1)`` per term only when ``hi - lo + 1 >= 1`` is proved
      (an empty range would divide by zero); with ``R = 0`` nothing is divided, and an empty sum
      is 0 on both sides;
    * a power ``b**e_i`` is generalised to a fresh positive symbol ``omega`` only when ``b > 0``
      is proved for ``lo <= i <= hi`` (then ``b**e_i > 0`` and ``b**(r e_i) = omega**r``).

    The range itself (integer limits, ``hi >= lo - 1``) is a side condition of the statement
    (:mod:`peproof.engines.wellformed`).  Every symbol introduced here is a ``Dummy``.
    """
    from peproof.engines.wellformed import prove_fact

    sums = _sums(diff)
    if not sums:
        return None
    limits = {(s.limits[0][1], s.limits[0][2]) for s in sums}
    if len(limits) != 1 or any(len(s.limits) != 1 for s in sums):
        return None
    lo, hi = next(iter(limits))
    i = fresh("i", integer=True)
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
    trace = []
    if rest != 0:
        how = prove_fact("pos", count, stmt)
        if how is None:
            return None
        trace.append(f"lift over i = {lo} .. {hi}: {sp.sstr(count)} >= 1 term(s) ({how}); the "
                     "remainder is spread over the terms")
    else:
        trace.append(f"lift over i = {lo} .. {hi} (no remainder: nothing divided)")
    lemma = summand + rest / count if rest != 0 else summand
    # generalise the frequency: every power whose exponent mentions i and whose base is proved
    # positive becomes a fresh positive omega; powers of one base whose exponents are rational
    # multiples of each other become powers of one omega (so omega_i**2 stays the square)
    in_range = (Rel("<=", lo, i), Rel("<=", i, hi))
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
        elif prove_fact("pos", p.base, stmt, bound=((i, "integer"),), hyps=in_range) is None:
            continue  # base not proved positive: not generalised, the lemma keeps the power
        sym = fresh(f"omega{len(omegas) if omegas else ''}", len(omegas), positive=True)
        units.setdefault(p.base, (p.exp, sym))
        omegas[p] = sym
    lemma = lemma.xreplace(omegas)
    trace += [
        "generalise "
        + (", ".join(f"{sp.sstr(k)} -> {v}" for k, v in omegas.items()) or "nothing")
        + " (positive bases: a lemma for every positive omega covers each omega_i)",
        f"one-frequency lemma (lhs - rhs, termwise): {sp.sstr(lemma)}",
    ]
    return lemma, trace


def _prove_eq(rel: Rel, stmt: Statement | None = None) -> tuple[bool, list[str], list[str]]:
    diff = rel.lhs - rel.rhs
    axioms: list[str] = []
    trace: list[str] = []
    if diff.has(sp.Sum):
        lifted = lift(diff, stmt)
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


CONSTRUCTION = "construction"
SETTLED = "settled when built"


def settled_by_construction(stmt: Statement | None) -> bool:
    """Every conclusion of a universal statement is ``e == e`` or ``e <= e`` as built: SymPy's
    constructors decided it while the statement was built, no engine has anything to do."""
    return bool(stmt is not None and stmt.concl and stmt.quant == "forall" and all(
        r.op in ("==", "<=") and r.lhs == r.rhs for r in stmt.concl))


def _as_built(r: Rel) -> str:
    """``str(r)`` of a relation whose sides are equal: the side is printed once (equal SymPy
    objects print alike; printing was the whole cost of a construction verdict)."""
    if r.lhs != r.rhs:
        return str(r)
    side = sp.sstr(r.lhs)
    return f"{side} {r.op} {side}"


def construction_verdict(stmt: Statement, shown: int = 8) -> Verdict:
    """The verdict of a statement settled when built, saying what the construction checked."""
    n = len(stmt.concl)
    trace = [f"settled when built: each of the {n} conclusion(s) has identical sides "
             "once SymPy built the statement from the definition; reflexivity is the only step "
             "(no engine decided anything; a change of the definition would change what is "
             "built)"]
    trace += [f"  as built: {_as_built(r)}" for r in stmt.concl[:shown]]
    if n > shown:
        trace.append(f"  ... and {n - shown} more")
    return Verdict("proved", CONSTRUCTION, f"sympy {sp.__version__}", SETTLED,
                   ("reflexivity: e = e, e <= e",), trace=trace)


def _second_kernel(fn):
    """Every exponential zero test inside ``fn`` leaves a certificate the FLINT kernel re-checked;
    they are attached to the verdict, which is not ``proved`` if that kernel disagreed."""
    @wraps(fn)
    def run(*args, **kwargs):
        with expoly.recording() as log:
            verdict = fn(*args, **kwargs)
        return expoly.kernel_verdict(verdict, log)
    return run


@_second_kernel
def decide_statement(stmt: Statement, search: bool = True) -> Verdict:
    """Decide a statement with the default engines (see module docstring).

    Raises :class:`~peproof.engines.wellformed.IllFormed` for a statement the well-formedness
    layer refuses; a statement whose side conditions are not all proved gets no proof."""
    t0 = time.perf_counter()
    v = versions()
    wf = wellformed.check(stmt)
    if stmt.quant == "exists":  # an instance is certified where every term is defined
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
    if wf.ok and settled_by_construction(stmt):
        verdict = construction_verdict(stmt)
        verdict.trace = wf.trace() + verdict.trace
        verdict.seconds = time.perf_counter() - t0
        return verdict
    trace: list[str] = wf.trace()
    axioms: list[str] = []
    engines: list[str] = []
    unproved: list[Rel] = []
    trivial = 0
    for n, rel in enumerate(stmt.concl if wf.ok else ()):
        if rel.op in ("==", "<=") and rel.lhs == rel.rhs:
            trivial += 1
            continue
        if rel.op == "==":
            ok, tr, ax = _prove_eq(rel, stmt)
            trace += tr
            axioms += ax
            engines.append("sympy-exp")
            if ok:
                continue
            if n in wf.complex_concl:  # complex view: the exponential procedure only
                unproved.append(rel)
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
    if trivial:
        trace.append(f"{trivial} conclusion(s) with identical sides as built (reflexivity)")
    secs = time.perf_counter() - t0
    engine = "+".join(dict.fromkeys(engines)) or ("none" if wf.ok else "wellformed")
    ver = ", ".join(f"{k} {v[k]}" for k in ("sympy", "python-flint", "z3"))
    if wf.ok and not unproved:
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
    reason = (f"not proved and no certified counterexample: {unproved[0]}" if wf.ok else
              f"{wellformed.guard(stmt)[1]}; no certified counterexample")
    return Verdict(
        "unknown", engine, ver, "decision procedure", tuple(dict.fromkeys(axioms)),
        time.perf_counter() - t0, trace=trace, reason=reason,
    )


@_second_kernel
def decide(claim: Claim) -> Verdict:
    """The verdict of a claim: its own proof function if it has one, else the default engines.

    Every statement passes the well-formedness layer first (an ill-formed one raises
    :class:`~peproof.engines.wellformed.IllFormed`); a statement settled when built gets the
    ``construction`` verdict whatever its proof function; a ``proved`` from a proof function is
    kept only when every side condition is proved."""
    t0 = time.perf_counter()
    st = claim.statement
    wf = None
    if st is not None and claim.kind != "informal":
        wf = wellformed.check(st)
    if wf is not None and wf.ok and settled_by_construction(st):
        verdict = construction_verdict(st)
        verdict.trace = wf.trace() + [f"what was built: {claim.title}"] + verdict.trace
    elif claim.proof is not None:
        verdict = claim.proof(st, claim)
        if wf is not None:
            verdict.trace = wf.trace() + list(verdict.trace)
            if verdict.status == "proved" and not wf.ok and st.quant == "forall":
                verdict = Verdict("unknown", verdict.engine, verdict.version, verdict.method,
                                  verdict.axioms, trace=verdict.trace,
                                  reason=wellformed.guard(st)[1])
    elif claim.kind == "informal" or st is None:
        verdict = Verdict(
            "unknown", "none", "-", "not formalised", reason=claim.note or "informal statement",
        )
    else:
        verdict = decide_statement(st)
    verdict.seconds = time.perf_counter() - t0
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
