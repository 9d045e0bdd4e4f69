"""The strongest evidence behind a verdict, read from a result row (issue 18, item 5).

A *result row* is one claim of the results envelope (:func:`peproof.results.run_claim`): its
``verdict`` (the primary engine's), ``z3`` (the independent z3 column, on the polynomial
abstraction), ``conflict`` and, when the Coq pass ran, ``coq`` (the shape of
``peproof.kernel.coq.check.CoqResult.as_dict``).  :func:`evidence` reads nothing else; it imports
no engine and no kernel, and computes nothing but this classification.

The levels, strongest first (:data:`LEVELS`):

``kernel``
    Coq accepted it: the row's ``coq`` entry has the status ``checked in Coq``, names a Coq
    version, and its theorem is the claim's own statement for a ``proved`` claim, or the
    negation of the statement (at the certified witness) for a ``refuted`` one -- the FULL
    statement: the entry's ``exact_statement`` is true (the Coq goal carries no premise the
    statement does not have, e.g. a definedness obligation of a hypothesis filed as a premise,
    and drops none of its hypotheses; an entry without that field is not trusted).  A Coq entry
    with any other status (``not checked in Coq: ...``, ``coq not installed``) is no evidence.
``two engines``
    A ``proved`` claim (not settled when built) that the independent z3 column proved too,
    where the primary engine and z3 rest on disjoint sets of procedures, read from the
    verdicts' traces (:func:`procedures`): the engine names (:data:`RESTS_ON`), the provers of
    the statement's side conditions (shared by both verdicts: the z3 column passes the same
    gate), the lifting and the provers of its facts, the claims a proof function used --
    e.g. the exponential procedure and z3 on its polynomial abstraction, on a statement
    without side conditions.  A primary verdict whose trace does not record its side
    conditions (:data:`SIDE_LINE`) rests on unknown procedures.  Not two engines: the
    FLINT re-check of the exponential certificate (it checks the same certificate the
    procedure wrote: part of the one engine, listed in the verdict's ``kernels``); a primary
    verdict that itself used z3 (``z3``, ``z3 (integers)``, ``periodic``, ``sympy-exp+z3``,
    ...) beside the z3 column; an engine whose name :data:`RESTS_ON` does not know (it might
    use anything); the numeric spot check (evidence only, never a proof).
``one engine``
    A decided verdict with neither: one engine (or one recorded chain) proved it, or -- for a
    ``refuted`` claim -- one certified witness refutes it.  Two witnesses certified by the
    same ball arithmetic are one kernel, not two engines, so a refutation is ``kernel`` or
    ``one engine``.
``settled when built``
    A ``proved`` claim whose statement had identical sides once SymPy built it (engine
    ``construction``): no engine decided it, and it is never counted as agreement between
    engines.  Coq still makes it ``kernel``.

And two outcomes that are no evidence level:

``conflict``
    The engines or the kernel contradict the verdict: the row's ``conflict`` (one engine proved
    what another refuted, the numeric check disagrees, the falsification gate met a verdict),
    a ``Verdict.conflict``, a Coq ``conflict``, or a Coq theorem that contradicts the verdict
    (the negation of a claim the engines proved, the statement of a claim they refuted) --
    whatever the Coq entry's own ``conflict`` field says.  Never evidence.
``none``
    The verdict is ``unknown`` (a Coq proof of an undecided claim is reported in ``why`` but
    is no verdict: Coq never decides a claim by itself).

For a ``refuted`` claim the evidence also names its certified witness (:func:`witness_text`):
the point and what certified it, or the proof of the negation.
"""

from __future__ import annotations

KERNEL = "kernel"
TWO = "two engines"
ONE = "one engine"
BUILT = "settled when built"
CONFLICT = "conflict"
NONE = "none"
#: the evidence levels, strongest first
LEVELS = (KERNEL, TWO, ONE, BUILT)
#: every value :func:`evidence` can give as ``level``
ALL = (*LEVELS, CONFLICT, NONE)
#: the levels a verdict of each status can have (besides ``conflict``)
LEVELS_OF = {"proved": LEVELS, "refuted": (KERNEL, ONE), "unknown": (NONE,)}

COQ_CHECKED = "checked in Coq"
CONSTRUCTION = "construction"
#: a z3 or primary method meaning "settled when built" (see peproof.engines.decide.SETTLED)
SETTLED = "settled when built"

#: what each engine name (a part of a verdict's ``engine``, parts joined by ``+``) rests on:
#: the procedures and solvers whose error could make it wrong.  Two verdicts are independent
#: when these sets are disjoint.  A name not listed rests on unknown procedures and is never
#: independent of anything.
RESTS_ON: dict[str, frozenset[str]] = {
    "sympy-exp": frozenset({"exponential procedure"}),
    "sympy-diff": frozenset({"sympy calculus"}),
    "sympy-rational": frozenset({"rational procedure"}),
    "z3": frozenset({"z3"}),
    "z3 (integers)": frozenset({"z3"}),
    "z3-exp": frozenset({"z3"}),  # exponent reduction: z3 on the exponents
    "periodic": frozenset({"exponential procedure", "z3"}),  # expansion + z3 case split
    "log-linear": frozenset({"log-linear", "z3"}),  # equal logarithms, checked with z3
    "arb": frozenset({"arb"}),
    "float64": frozenset({"float64 bound"}),
    "certified curve (float64 + proved bound)": frozenset({"float64 bound"}),
    "cyclotomic": frozenset({"cyclotomic arithmetic"}),
    "argument": frozenset({"argument checker"}),
    "python (exhaustive)": frozenset({"exhaustive evaluation"}),
    "cases": frozenset({"case split"}),
}
UNKNOWN_BASE = "*"
#: the trace lines peproof.engines.decide.record_procedures writes (the same text: this module
#: imports no engine)
SIDE_LINE = "side conditions proved by: "
ALSO_LINE = "the proof also rests on: "


def engine_parts(engine: str) -> list[str]:
    """The parts of an engine name joined by ``+`` outside parentheses
    (``certified curve (float64 + proved bound) + arb`` has two)."""
    parts, depth, cur = [], 0, []
    for ch in engine or "":
        depth += (ch == "(") - (ch == ")")
        if ch == "+" and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


def rests_on(engine: str) -> frozenset[str]:
    """The procedures a verdict of ``engine`` rests on (``*`` for an unknown part)."""
    out: set[str] = set()
    for p in engine_parts(engine):
        out |= RESTS_ON.get(p, {UNKNOWN_BASE})
    return frozenset(out) or frozenset({UNKNOWN_BASE})


def independent(a: str, b: str) -> bool:
    """Verdicts of engines ``a`` and ``b`` share no procedure (and neither is unknown or a
    construction)."""
    if CONSTRUCTION in engine_parts(a) or CONSTRUCTION in engine_parts(b):
        return False
    ra, rb = rests_on(a), rests_on(b)
    return UNKNOWN_BASE not in ra | rb and ra.isdisjoint(rb)


def recorded(verdict: dict) -> tuple[frozenset | None, frozenset]:
    """``(side, also)``: the procedures behind the side conditions (None when the trace does
    not record them) and the other procedures the trace records, as written by
    :func:`peproof.engines.decide.record_procedures` (every such line, united).  A lemma (an
    other claim's verdict) rests on procedures this row does not show: ``*``."""
    side: set[str] | None = None
    also: set[str] = set()
    for line in verdict.get("trace") or ():
        line = str(line)
        for prefix, into in ((SIDE_LINE, "side"), (ALSO_LINE, "also")):
            if not line.startswith(prefix):
                continue
            names = [n.strip() for n in line[len(prefix):].split(",") if n.strip()]
            names = [UNKNOWN_BASE if n.startswith("lemma ") else n for n in names
                     if n != "none"]
            if into == "side":
                side = (side or set()) | set(names)
            else:
                also |= set(names)
    return (frozenset(side) if side is not None else None), frozenset(also)


def procedures(verdict: dict, side: frozenset | None = None) -> frozenset[str]:
    """Every procedure ``verdict`` rests on: its engine's (:func:`rests_on`) and those its trace
    records (:func:`recorded`); ``side`` stands for the side conditions when the trace does not
    record them (the z3 column: the primary verdict's), else they are unknown (``*``)."""
    own_side, also = recorded(verdict)
    side = own_side if own_side is not None else side
    return rests_on(verdict.get("engine") or "") | also | (
        side if side is not None else frozenset({UNKNOWN_BASE}))


def settled_when_built(verdict: dict) -> bool:
    """Proved by construction: engine ``construction`` or method ``settled when built``.  (A
    case split whose cases were settled when built, ``cases + construction``, is an engine's
    work: the split's conditions were decided.)"""
    return verdict.get("method") == SETTLED or verdict.get("engine") == CONSTRUCTION


def coq_status(row: dict) -> str:
    """The Coq status of a row: its ``coq`` entry's status, or ``Coq not run``."""
    coq = row.get("coq")
    return (coq or {}).get("status") or "Coq not run"


def _coq_contradiction(status: str, coq: dict) -> str:
    if (coq or {}).get("status") != COQ_CHECKED:
        return ""
    what = coq.get("what")
    if status == "proved" and what == "negation":
        return "Coq proved the negation of a statement the engines proved"
    if status == "refuted" and what == "statement":
        return "Coq proved the statement the engines refuted"
    return ""


def witness_text(verdict: dict) -> str:
    """The certified witness of a refuted verdict in one line: the point and what certified it
    (``at d = 4, k = 3, certified by python-flint arb``), or the proof of the negation."""
    w = verdict.get("witness") or {}
    by = w.get("certified_by") or "?"
    if "point" in w and w["point"] is not None:
        pt = w["point"]
        at = ", ".join(f"{k} = {v}" for k, v in pt.items()) if isinstance(pt, dict) else str(pt)
        return (f"at {at}" if at else "in the closed statement") + f", certified by {by}"
    if w.get("kind") or w.get("negation"):
        return f"{w.get('kind') or 'proof of the negation'}: {w.get('negation', '')}; by {by}" \
            .replace(": ; ", "; ")
    return f"certified by {by}"


def evidence(row: dict) -> dict:
    """The strongest evidence of ``row``'s verdict (see the module's docstring):
    ``{"level", "why", "engines", "coq", "witness"}`` -- ``engines`` the engines behind the
    level, ``coq`` the Coq status, ``witness`` the refutation's certified witness (or None)."""
    v = row.get("verdict") or {}
    status = v.get("status")
    z = row.get("z3") or {}
    coq = row.get("coq") or {}
    out = {"level": NONE, "why": "", "engines": [], "coq": coq_status(row),
           "witness": witness_text(v) if status == "refuted" else None}
    contradiction = _coq_contradiction(status, coq)
    conflicts = [why for why in (
        "the engines disagree" if row.get("conflict") else "",
        "the falsification gate met the primary verdict" if v.get("conflict") else "",
        "the falsification gate met the z3 verdict" if z.get("conflict") else "",
        f"Coq: {coq['conflict']}" if coq.get("conflict") else "",
        contradiction if contradiction and not coq.get("conflict") else "") if why]
    if conflicts:
        out.update(level=CONFLICT, why="; ".join(conflicts))
        return out
    if status not in ("proved", "refuted"):
        out["why"] = "not decided" + (
            f" (Coq proved the {coq.get('what') or 'statement'}: no verdict by itself)"
            if coq.get("status") == COQ_CHECKED else "")
        return out
    want = "statement" if status == "proved" else "negation"
    if (coq.get("status") == COQ_CHECKED and coq.get("what") == want and coq.get("coq_version")
            and coq.get("exact_statement") is True):
        out.update(level=KERNEL, engines=["coq"],
                   why=f"Coq {coq['coq_version']} accepted the {want}")
        return out
    engine = v.get("engine") or ""
    if status == "proved" and settled_when_built(v):
        out.update(level=BUILT, engines=[CONSTRUCTION],
                   why="identical sides once built: no engine decided it")
        return out
    both = status == "proved" and z.get("status") == "proved" and z.get("method") != SETTLED
    if both and independent(engine, z.get("engine") or "") and _disjoint(v, z):
        out.update(level=TWO, engines=[engine, z["engine"]],
                   why=f"{engine} and {z['engine']} ({z.get('method') or 'z3'}) both proved it"
                       f" (procedures: {', '.join(sorted(procedures(v)))} | "
                       f"{', '.join(sorted(procedures(z, recorded(v)[0])))})")
        return out
    why = f"{engine}: {v['method']}" if v.get("method") else engine
    if status == "proved" and z.get("status") == "proved":
        why += "; " + _not_independent(v, z)
    out.update(level=ONE, engines=[engine], why=why)
    return out


def _disjoint(v: dict, z: dict) -> bool:
    """The primary verdict ``v`` and the z3 verdict ``z`` rest on disjoint, known procedures
    (the side conditions included: z3's are the primary's unless its trace says otherwise)."""
    pv = procedures(v)
    pz = procedures(z, recorded(v)[0])
    return UNKNOWN_BASE not in pv | pz and pv.isdisjoint(pz)


def _not_independent(v: dict, z: dict) -> str:
    """Why z3's ``proved`` beside the primary verdict ``v`` is not a second engine."""
    engine = v.get("engine") or ""
    pv = procedures(v)
    pz = procedures(z, recorded(v)[0])
    if UNKNOWN_BASE in pv | pz:
        what = ("the procedures behind its side conditions are not recorded"
                if recorded(v)[0] is None else "not all its procedures are known")
        return f"z3 proved it too, but {engine or 'the engine'} is not known to be " \
               f"independent ({what})"
    return "z3 proved it too but shares " + (", ".join(sorted(pv & pz)) or "a construction")


def counts(rows: list[dict]) -> dict[str, int]:
    """``{level: claims}`` for every value of :data:`ALL` (zeros included), computed from the
    rows as they stand (a row's stored ``evidence`` is not trusted to be current)."""
    out = dict.fromkeys(ALL, 0)
    for r in rows:
        out[evidence(r)["level"]] += 1
    return out
