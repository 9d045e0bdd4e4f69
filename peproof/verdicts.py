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
    v = _verdict_of(scope.key(), claim_id)
    note_lemma(claim_id)
    return v


@cache
def _verdict_of(scope_key: str, claim_id: str) -> Verdict:
    return decide(registry.get(claim_id))


verdict_of.cache_clear = _verdict_of.cache_clear  # the callers' way to start afresh (tests)
