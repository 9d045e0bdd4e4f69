"""Turn a claim into a verdict: proved (decision procedure), refuted (certified witness), unknown.

The top of the engines: the only module that dispatches between procedures and combines them.
Every statement first passes the well-formedness gate and its side conditions are proved
(:mod:`peproof.engines.facts`; unproved side conditions mean no proof).  A statement whose
conclusions have identical sides as built is *settled when built*: engine ``construction``, its
own verdict, never counted as agreement between engines.  Otherwise, per conclusion of a
universal statement:

* equalities go to the exponential decision procedure (:mod:`peproof.engines.expoly`, which
  refuses anything outside its declared fragment); sums over the pairs are first *lifted*
  (:mod:`peproof.engines.lifting`); an equality read in the complex view (it contains ``I``) is
  decided by this procedure alone;
* inequalities without free variables are decided in arb (certified signs);
* other inequalities and integer facts go to z3 (:mod:`peproof.engines.z3poly`).

If some conclusion is not proved, a certified counterexample is searched for
(:mod:`peproof.engines.witness`); failing that the verdict is ``unknown``.  Existential
statements are proved by a certified instance.

Every verdict returned here -- :func:`decide_statement`, :func:`decide` (claims with their proof
functions, lemma instances), :func:`refute`, the proof functions built by :func:`with_default`
and :func:`refute_at` -- passes the FLINT re-check of its exponential certificates and the
falsification gate on the ORIGINAL statement (:func:`peproof.engines.gate.finish`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import sympy as sp

from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines import expoly, facts, witness, z3poly
from peproof.engines.fragment import CONDITIONS, Fragment
from peproof.engines.gate import finish
from peproof.engines.lifting import LIFT_AXIOM, lift
from peproof.engines.objects import Delta, PiIntegral
from peproof.engines.versions import all_versions, versions
from peproof.kernel.arb import Unsupported, ball_str, certified_sign

__all__ = ["ALSO_LINE", "CONSTRUCTION", "FRAGMENT", "LIFT_AXIOM", "SETTLED", "SIDE_LINE",
           "construction_verdict", "decide", "decide_statement", "lift", "note_lemma",
           "record_procedures",
           "refute", "refute_at", "settled_by_construction", "versions", "with_default"]

#: everything the well-formedness gate accepts (the default engines dispatch per conclusion;
#: the exponential procedure refuses what is outside its own fragment)
FRAGMENT = Fragment(
    "default engines",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("any",), sp.sin: ("any",),
        sp.cos: ("any",), sp.tan: ("any",), sp.exp: ("any",), sp.log: ("any",),
        sp.Abs: ("any",), sp.floor: ("any",), sp.ceiling: ("any",), sp.Mod: ("any",),
        sp.Max: ("any",), sp.Min: ("any",), sp.Piecewise: ("any",), sp.Sum: ("any",),
        PiIntegral: ("any",), Delta: ("any",), sp.Function: ("any",), **CONDITIONS,
    },
    quantifiers=("forall", "exists"), leaves=("symbol", "rational", "pi", "E", "I"),
    summary="every well-formed statement",
)


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


#: the trace line naming the procedures that proved the statement's side conditions (shared by
#: every verdict on the statement: the z3 column passes the same gate), ``none`` if there are none
SIDE_LINE = "side conditions proved by: "
#: the trace line naming what else the verdict rests on besides its engine: the lifting and the
#: provers of its facts, the other claims' verdicts a proof function may use (``lemma <id>``)
ALSO_LINE = "the proof also rests on: "
#: how a side condition was shown (peproof.engines.facts) -> the procedures it rests on.  A
#: reduction to parts (cases, factors, a power's base) does not record its parts' provers: it
#: rests on any of them.  A name not listed rests on unknown procedures (``*``).
_ANY_PROVER = ("sign rules", "arb", "z3")
SIDE_PROVERS = {"sign rules": ("sign rules",), "structure": ("sign rules",), "arb": ("arb",),
                "z3": ("z3",), "cases": _ANY_PROVER, "factors": _ANY_PROVER,
                "power of a positive base": _ANY_PROVER,
                "power of a nonnegative base": _ANY_PROVER}


def _side_procedures(stmt: Statement | None) -> list[str] | None:
    """The procedures behind the proofs of ``stmt``'s side conditions (None: not known)."""
    if stmt is None:
        return []
    try:
        wf = facts.check(stmt)
    except facts.IllFormed:
        return None
    out: list[str] = []
    for *_, how in wf.proved:
        out += SIDE_PROVERS.get(how, ("*",))
    return list(dict.fromkeys(out))


_LEMMAS: list[list[str]] = []  # per decide() in progress: the claims' verdicts it read


def note_lemma(claim_id: str) -> None:
    """A proof function read the verdict of claim ``claim_id`` (``peproof.verdicts.verdict_of``
    says so): the verdict being decided rests on it too."""
    if _LEMMAS and claim_id not in _LEMMAS[-1]:
        _LEMMAS[-1].append(claim_id)


def record_procedures(verdict: Verdict, stmt: Statement | None, lemmas: list[str] = ()
                      ) -> Verdict:
    """Append to ``verdict``'s trace the procedures it rests on besides its engine
    (:data:`SIDE_LINE`, :data:`ALSO_LINE`; read by :mod:`peproof.evidence`): the provers of the
    statement's side conditions, the lifting and the provers of its facts (the positivity of a
    count or a base: any of sign rules, arb and z3, whose choice the lifting does not record),
    and the ``lemmas``: the claims whose verdicts a proof function read (:func:`note_lemma`).
    Lines already there (a verdict of :func:`decide_statement` inside a proof function) are
    kept: the reader takes the union of every such line."""
    side = _side_procedures(stmt)
    also: list[str] = []
    lifted = any(str(t).startswith("lift over") for t in verdict.trace)
    if LIFT_AXIOM in verdict.axioms or lifted:
        also += ["lifting", *_ANY_PROVER]
    also += [f"lemma {u}" for u in lemmas]
    said = "*" if side is None else (", ".join(side) or "none")
    verdict.trace = list(verdict.trace) + [SIDE_LINE + said] + (
        [ALSO_LINE + ", ".join(dict.fromkeys(also))] if also else [])
    return verdict


def _decide_statement(stmt: Statement, search: bool = True) -> Verdict:
    t0 = time.perf_counter()
    v = versions()
    wf = facts.check(stmt)
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
    ver = all_versions()
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
              f"{facts.guard(stmt)[1]}; no certified counterexample")
    return Verdict(
        "unknown", engine, ver, "decision procedure", tuple(dict.fromkeys(axioms)),
        time.perf_counter() - t0, trace=trace, reason=reason,
    )


def _decide(claim: Claim) -> Verdict:
    t0 = time.perf_counter()
    st = claim.statement
    wf = None
    if st is not None and claim.kind != "informal":
        wf = facts.check(st)
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
                                  reason=facts.guard(st)[1])
    elif claim.kind == "informal" or st is None:
        verdict = Verdict(
            "unknown", "none", "-", "not formalised", reason=claim.note or "informal statement",
        )
    else:
        verdict = _decide_statement(st)
    verdict.seconds = time.perf_counter() - t0
    return verdict


def _recorded(fn: Callable[[], Verdict]) -> Verdict:
    """``fn()`` with every exponential zero test inside it re-checked by the FLINT kernel; the
    certificates attached, not ``proved`` if that kernel disagreed."""
    with expoly.recording() as log:
        verdict = fn()
    return expoly.kernel_verdict(verdict, log)


def decide_statement(stmt: Statement, search: bool = True) -> Verdict:
    """Decide a statement with the default engines (see module docstring).

    Raises :class:`~peproof.engines.wellformed.IllFormed` for a statement the well-formedness
    gate refuses; a statement whose side conditions are not all proved gets no proof."""
    return record_procedures(finish(stmt, _recorded(lambda: _decide_statement(stmt, search))),
                             stmt)


def decide(claim: Claim) -> Verdict:
    """The verdict of a claim: its own proof function if it has one, else the default engines.

    Every statement passes the well-formedness gate first (an ill-formed one raises
    :class:`~peproof.engines.wellformed.IllFormed`); a statement settled when built gets the
    ``construction`` verdict whatever its proof function; a ``proved`` from a proof function is
    kept only when every side condition is proved; the verdict passes the falsification gate on
    the claim's statement."""
    t0 = time.perf_counter()
    _LEMMAS.append([])
    try:
        verdict = finish(claim.statement, _recorded(lambda: _decide(claim)))
    finally:
        lemmas = _LEMMAS.pop()
    record_procedures(verdict, claim.statement if claim.kind != "informal" else None, lemmas)
    verdict.seconds = time.perf_counter() - t0
    return verdict


def refute(stmt: Statement) -> Verdict:
    """Decide a falsifier: the default engines, whose only way to refute is a witness."""
    return decide_statement(stmt)


def with_default(procedure: Callable[..., Verdict]) -> Callable[..., Verdict]:
    """A proof function: ``procedure(stmt)`` (an engine's gated entry), and when it is
    ``unknown`` (not an engine conflict) the default engines (:func:`decide_statement`), whose
    verdict carries the engine's trace before its own."""

    def proof(stmt: Statement, claim: Claim | None = None) -> Verdict:
        v = finish(stmt, procedure(stmt))
        if v.status != "unknown" or v.conflict:
            return v
        d = decide_statement(stmt)
        d.trace = list(v.trace) + [f"not decided by {v.engine} ({v.reason}); default "
                                   "engines:"] + list(d.trace)
        return d

    proof.__name__ = f"with_default({getattr(procedure, '__name__', 'procedure')})"
    proof.__doc__ = procedure.__doc__
    return proof


def refute_at(*points: dict) -> Callable[..., Verdict]:
    """Proof function refuting a universal statement at the given point(s), certified in arb.

    The points are chosen by hand because the default grid would find a less telling one (for
    instance the degenerate ``d = 2``); each is still checked rigorously by
    :func:`peproof.engines.witness.check_point` (and re-checked by the falsification gate).
    Without a certified point the default engines decide."""

    def _proof(stmt: Statement, claim: Claim | None = None) -> Verdict:
        t0 = time.perf_counter()
        for p in points:
            w = witness.check_point(stmt, p)
            if w:
                return finish(stmt, Verdict(
                    "refuted", "arb", versions()["python-flint"],
                    "certified counterexample at a chosen point",
                    seconds=time.perf_counter() - t0, witness=w,
                    trace=[f"counterexample at {w['point']}: {w['relation']}"]))
        return decide_statement(stmt)

    return _proof
