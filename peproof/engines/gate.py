"""The one entry every engine passes: gate, fragment, side conditions, kernels, falsification.

:func:`entry` turns an engine's core ``core(stmt, checked) -> Verdict`` into its public entry
point.  In order, on the statement as the caller gave it (before any rewriting):

1. the well-formedness gate (:func:`peproof.engines.wellformed.examine`): an ill-formed
   statement raises :class:`~peproof.engines.wellformed.IllFormed`;
2. the engine's declared fragment (:func:`peproof.engines.fragment.refusal`): a statement
   outside it is ``unknown``, the reason naming the node and where it occurs;
3. the side conditions (:func:`peproof.engines.facts.guard`): when one is not proved there is
   no proof; a certified counterexample where every term is defined still refutes;
4. the core, with every exponential zero test it makes re-checked by the FLINT kernel
   (:func:`peproof.engines.expoly.recording`);
5. the falsification gate (:func:`finish`): the verdict survives a certified search for a
   point against it, made from the original statement, or becomes an engine conflict.

:func:`finish` is also what :mod:`peproof.engines.decide` applies on each of its return paths.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps

from peproof.claims import Statement, Verdict
from peproof.engines import expoly, facts, wellformed, witness
from peproof.engines.fragment import Fragment, refusal
from peproof.engines.versions import all_versions, versions
from peproof.kernel import falsify

Core = Callable[..., Verdict]
#: the method of a verdict refused by an engine's fragment (the agreement matrix shows ``n/a``)
NOT_APPLICABLE = "not applicable"


def _mark(stmt: Statement, v: Verdict) -> tuple:
    return (stmt, v.status, id(v.witness), id(v.conflict))


def finish(stmt: Statement | None, verdict: Verdict) -> Verdict:
    """``verdict`` as it may be returned: through the falsification gate
    (:func:`peproof.kernel.falsify.gate`) on the original ``stmt``.  A verdict the gate passed
    for an equal statement, whose status and witness have not changed since, is not searched
    again (a mark on the object, never serialised)."""
    if stmt is None or getattr(verdict, "_gated_on", None) == _mark(stmt, verdict):
        return verdict
    out = falsify.gate(stmt, verdict)
    out._gated_on = _mark(stmt, out)  # noqa: SLF001
    return out


def outside(stmt: Statement) -> dict | None:
    """A certified counterexample where every term is defined (``forall`` only), or None."""
    return witness.find_counterexample(stmt) if stmt.quant == "forall" else None


def entry(fragment: Fragment, engine: str, method: str) -> Callable[[Core], Callable]:
    """Decorator: ``core(stmt, checked, *args, **kwargs)`` becomes the engine's public entry
    ``f(stmt, *args, **kwargs) -> Verdict`` (see the module docstring)."""

    def wrap(core: Core) -> Callable:
        @wraps(core)
        def run(stmt: Statement, *args, **kwargs) -> Verdict:
            t0 = time.perf_counter()
            wellformed.examine(stmt)  # raises IllFormed
            why = refusal(fragment, stmt)
            if why:
                return finish(stmt, Verdict("unknown", engine, all_versions(), NOT_APPLICABLE,
                                            reason=why, trace=[f"refused: {why}"]))
            checked, why = facts.guard(stmt)
            if why:
                w = outside(stmt)
                if w:
                    w["found_by"] = "grid (side conditions not proved: the engine not asked)"
                    v = Verdict("refuted", "arb", versions()["python-flint"],
                                "certified counterexample", witness=w, trace=[why])
                else:
                    v = Verdict("unknown", engine, all_versions(), method, reason=why,
                                trace=checked.trace())
                v.seconds = time.perf_counter() - t0
                return finish(stmt, v)
            with expoly.recording() as log:
                v = core(stmt, checked, *args, **kwargs)
            v = expoly.kernel_verdict(v, log)
            if not v.seconds:
                v.seconds = time.perf_counter() - t0
            return finish(stmt, v)

        run.fragment = fragment
        run.core = core
        return run

    return wrap
