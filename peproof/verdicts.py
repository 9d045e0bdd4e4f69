"""The verdict of every registered claim, decided once per process.

Every consumer -- ``pytest proofs``, lemma instances inside proof functions, the agreement
matrix, the results envelope, the report -- reads this one cache.  It sits above the claims
registry and the engines (it reads both), so that the engines never import the registry.
"""

from __future__ import annotations

from functools import cache

from peproof import registry, scope
from peproof.claims import Verdict
from peproof.engines.decide import decide, note_lemma


def verdict_of(claim_id: str) -> Verdict:
    """The verdict of the registered claim ``claim_id`` (:func:`peproof.engines.decide.decide`),
    for the encoding in force (:mod:`peproof.scope`: the paper's, or a ``--variant``), decided
    once per process and encoding.  Read inside a proof function, it is recorded as a lemma the
    verdict being decided rests on (:func:`peproof.engines.decide.note_lemma`)."""
    key = (scope.key(), claim_id)
    v = _PRIMED[key] if key in _PRIMED else _verdict_of(*key)
    note_lemma(claim_id)
    return v


#: verdicts decided by another process of this run (:func:`prime`), read before deciding here
_PRIMED: dict = {}


def prime(scope_key: str, claim_id: str, v: Verdict) -> None:
    """Record ``v`` as the verdict of ``claim_id`` for the encoding ``scope_key``, decided by
    :func:`peproof.engines.decide.decide` in a process forked from this one
    (:func:`peproof.testing.decide_ahead`): the same computation, run beside this one."""
    _PRIMED[(scope_key, claim_id)] = v


@cache
def _verdict_of(scope_key: str, claim_id: str) -> Verdict:
    return decide(registry.get(claim_id))


def _cache_clear() -> None:  # the callers' way to start afresh (tests)
    _PRIMED.clear()
    _verdict_of.cache_clear()


verdict_of.cache_clear = _cache_clear
