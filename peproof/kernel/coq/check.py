"""The registry pass: claims -> Coq goals -> proof scripts -> coqc -> one result per claim.

``check_claims(claims, verdicts)`` returns ``{claim id: CoqResult}``:

* ``checked in Coq`` -- the statement (or, for a claim an engine refuted, its negation at the
  certified witness) is a theorem Coq accepted, with the Coq version and the ``Print
  Assumptions`` output as its trusted base;
* ``not checked in Coq: <reason>`` -- not translated (the node), no script for its class, or
  Coq did not accept the script (the reason);
* ``coq not installed``.

A Coq proof of a statement another engine refutes, or of the negation of a statement an engine
proved, is an engine conflict (``conflict``: the caller fails the run).  ``verdicts`` is data
(``{id: {"status", "witness", "engines"}}`` from the engines: the deciding engine's status,
its certified witness, the other engines' statuses): this module imports no engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from peproof.claims import Claim
from peproof.kernel.coq import (
    case_scripts,
    decay,
    floor,
    integral_scripts,
    pi_scripts,
    plans,
    run,
    semantic,
    tactics,
    translate,
)

CHECKED = "checked in Coq"
#: the largest goal a proof script is run on: the 400 KB goals checked take under 10 s; the one
#: goal above (745 KB, 216 divisions by non-literal denominators) never finished in 60 s
MAX_GOAL_CHARS = 500_000
ABSENT = "coq not installed"


@dataclass
class CoqResult:
    status: str  # CHECKED, ABSENT or "not checked in Coq: <reason>"
    what: str = ""  # "statement" | "negation" (what the Coq theorem says)
    klass: str = ""  # the script's class (trig, closed, library, negation, ...)
    lemma: str = ""
    goal: str = ""
    assumptions: tuple[str, ...] = ()
    print_assumptions: str = ""
    coq_version: str = ""
    seconds: float = 0.0
    cached: bool = False
    vfile: str | None = None
    conflict: str = ""
    obligations: tuple[str, ...] = field(default_factory=tuple)
    scope: str = ""  # what print_assumptions covers: "lemma", or "batch of n" (their union)
    # the goal is the claim's FULL statement (:func:`exact_goal`): no premise the statement does
    # not have, none of its hypotheses dropped.  peproof.evidence calls a check ``kernel`` only
    # when this is true.
    exact: bool = False

    @property
    def checked(self) -> bool:
        return self.status == CHECKED

    def as_dict(self) -> dict:
        return {"status": self.status, "what": self.what, "class": self.klass,
                "lemma": self.lemma, "assumptions": list(self.assumptions),
                "print_assumptions": self.print_assumptions, "coq_version": self.coq_version,
                "seconds": round(self.seconds, 3), "cached": self.cached, "vfile": self.vfile,
                "conflict": self.conflict, "obligations": list(self.obligations),
                "assumptions_scope": self.scope, "exact_statement": self.exact}


def not_checked(reason: str, **kw) -> CoqResult:
    return CoqResult(f"not checked in Coq: {reason}", **kw)


def exact_goal(goal) -> bool:
    """The printed goal states the statement itself, no weaker: a translator that says so
    (``goal.exact``) is believed; otherwise the goal must file no definedness obligation of a
    hypothesis as a premise (``def_hyps``: ``0 < x`` for ``x**(3/2)`` makes Coq prove a weaker
    theorem, vacuous where the premise fails) and must not drop the hypotheses of a statement
    without variables (printed as its conclusions alone)."""
    said = getattr(goal, "exact", None)
    if isinstance(said, bool):
        return said
    return not tuple(getattr(goal, "def_hyps", ()) or ()) and (
        bool(getattr(goal, "binders", ())) or not tuple(getattr(goal, "hyps", ()) or ()))


def plan(claim: Claim, verdict: dict | None) -> tuple[run.Job | None, CoqResult | None]:
    """The Coq job of one claim, or the result saying why there is none."""
    st = claim.statement
    lemma = translate.lemma_name(claim.id)
    if st is None:
        return None, not_checked("informal claim (no statement)", lemma=lemma)
    try:
        goal = translate.translate(st)
    except translate.Untranslatable as exc:
        return None, not_checked(f"not translated: {exc}", lemma=lemma)
    status = (verdict or {}).get("status")
    refuted = status == "refuted"
    try:
        if len(goal.text) > MAX_GOAL_CHARS:
            raise tactics.NoScript(
                f"the goal is {len(goal.text) // 1000} KB, over the {MAX_GOAL_CHARS // 1000} KB "
                "a script is given (a 745 KB goal never finished in its 60 s)")
        script = None if refuted else integral_scripts.script_for(st, goal)  # PiIntegral, Delta
        if script is None and (pi := pi_scripts.proof(st, goal, refuted)):  # lib/PiIrr.v
            script = tactics.Script(pi.text, pi.klass, pi_scripts.NEEDS, negation=pi.negation)
        if script is None and (fl := floor.proof(st, goal, refuted)):  # lib/Floor.v
            if isinstance(fl, str):  # a floor, refused with its reason
                raise tactics.NoScript(fl)
            script = tactics.Script(*fl)
        if script is None and goal.real:
            script = tactics.script_for(st, goal, refuted=refuted,
                                        witness=(verdict or {}).get("witness"))
        elif script is None:  # no real goal (Piecewise): the theorem itself, by case split
            script = case_scripts.script(st, goal, refuted=refuted,
                                         witness=(verdict or {}).get("witness"))
    except tactics.NoScript as exc:
        return None, not_checked(f"no proof script: {exc}{_outside(verdict)}", lemma=lemma,
                                 goal=goal.text, what="negation" if refuted else "statement",
                                 obligations=goal.obligations + goal.def_hyps)
    text = goal.refutable_text if script.negation else goal.text
    # the theorem is the statement's meaning (Sem.v); the script proves the real goal and the
    # reflection step (CheckSem.v) proves the statement from it
    more = frozenset()
    if not goal.real or script.klass in (pi_scripts.STATEMENT, floor.STATEMENT):  # itself
        proof = script.text
    elif script.negation:
        vals = tactics.point_values(st, goal, (verdict or {})["witness"]["point"])
        limits = semantic.sum_limits_at(st, (verdict or {})["witness"]["point"])
        proof = semantic.negation_script(goal, vals, script.text, limits)
    else:  # sums over a period: Integral.v's direct script first (integral_scripts.py)
        proof, more = integral_scripts.or_period_sums(
            st, goal, semantic.forward_script(goal, script.text))
    proof = decay.prefix(goal) + proof  # Decay.v's odecay unfolded into Sem.v's olift
    job = run.Job(claim.id, lemma + ("_negation" if refuted else ""), text, proof,
                  script.needs | more | _lib_needs(goal), negation=script.negation)
    info = CoqResult("", what="negation" if script.negation else "statement",
                     klass=script.klass, lemma=job.lemma, goal=text,
                     obligations=goal.obligations + goal.def_hyps, exact=exact_goal(goal))
    return job, info


def _outside(verdict: dict | None) -> str:
    """What the verdict rests on instead of the kernel: its deciding engine and method, when
    the caller passed them (``{"engine", "method"}`` in the verdict's data)."""
    v = verdict or {}
    if v.get("status") not in ("proved", "refuted") or not v.get("engine"):
        return ""
    how = f" ({v['method']})" if v.get("method") else ""
    return f"; its verdict rests on {v['engine']}{how}, outside the kernel"


def _lib_needs(goal: translate.Goal) -> frozenset:
    return frozenset()


def check_claims(claims: list[Claim], verdicts: dict | None = None,
                 build_dir: Path | None = None, cache_dir: Path | None = None,
                 workers: int = 2, use_cache: bool = True, key: bytes | None = None
                 ) -> dict[str, CoqResult]:
    """One :class:`CoqResult` per claim (see the module's docstring).  ``use_cache`` False
    checks every claim again (``prove --recheck``); ``key`` authenticates the result cache
    (:func:`peproof.kernel.coq.run.check_jobs`: the user's key, passed by the caller) and the
    plans kept beside it (:mod:`peproof.kernel.coq.plans`)."""
    verdicts = verdicts or {}
    out: dict[str, CoqResult] = {}
    jobs, infos = [], {}
    # plans are kept for a caller with a key of its own (the user's: prove, report); a caller
    # without one (a process key: the tests, which change the planner in place) plans afresh
    root = Path(cache_dir) if cache_dir else run.cache_root()
    memo: dict = {}
    fresh: dict[str, dict] = {}
    # the library compiles (coqc, on the other core) while the claims are planned (Python)
    ahead = run.LibraryAhead(cache_dir, key, workers) if any(
        c.statement is not None for c in claims) else None
    try:
        for c in claims:
            name = plans.key_of(c, verdicts.get(c.id), memo) if key is not None else ""
            kept = plans.load(root, key, name) if use_cache and name else None
            if kept is not None:
                try:
                    job, info = plans.job_of(kept["job"]), _result_of(kept["info"])
                except (TypeError, KeyError, ValueError):  # not of this code's shape
                    kept = None
            if kept is None:
                job, info = plan(c, verdicts.get(c.id))
                if name:
                    fresh[name] = plans.data_of(job, info)
            if job is None:
                out[c.id] = info
            else:
                jobs.append(job)
                infos[c.id] = info
        done = run.check_jobs(jobs, build_dir=build_dir, cache_dir=cache_dir, workers=workers,
                              use_cache=use_cache, key=key, ahead=ahead)
    except BaseException:  # a fault or an interrupt: the build stops, its coqc killed
        if ahead is not None:
            ahead.stop()
        raise
    if root.is_dir():  # plans are kept where the results are (not created without coqc)
        for name, data in fresh.items():
            plans.store(root, key, name, data)
        if fresh:
            run.trim_entries(root)
    for job in jobs:
        o, info = done[job.key], infos[job.key]
        info.coq_version, info.seconds, info.cached = o.coq_version, o.seconds, o.cached
        info.vfile, info.assumptions, info.print_assumptions = o.vfile, o.assumptions, o.output
        info.scope = o.scope
        if o.status == "absent":
            info.status = ABSENT
        elif o.status == "checked":
            info.status = CHECKED
            info.conflict = _conflict(job, verdicts.get(job.key))
        else:
            info.status = f"not checked in Coq: {o.reason}"
        out[job.key] = info
    return out


def _result_of(d: dict) -> CoqResult:
    """A planner's :class:`CoqResult` from its stored fields (lists back to tuples)."""
    return CoqResult(**{k: tuple(x) if isinstance(x, list) else x for k, x in d.items()})


def _conflict(job: run.Job, verdict: dict | None) -> str:
    """An engine's verdict that a Coq theorem contradicts (``verdict``: the decided status and
    the other engines' ``{"name": status}``)."""
    verdict = verdict or {}
    said = {"the deciding engine": verdict.get("status")}
    said.update({str(k): v for k, v in (verdict.get("engines") or {}).items()})
    against = "refuted" if not job.negation else "proved"
    who = sorted(k for k, v in said.items() if v == against)
    if not who:
        return ""
    what = "the statement" if not job.negation else "the negation of the statement"
    return f"Coq proved {what} that {', '.join(who)} {against[:-1]}d"
