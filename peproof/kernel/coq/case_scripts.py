"""Proofs of theorems without a real goal (``Goal.real`` False: ``Piecewise``), by case split.

The theorem is proved on its own terms: every decision of its ``Sem.v`` functions (the
branches' conditions, the definedness tests) is split (``pe_dec``) and each branch closed by
``CheckSem.v``'s ``pe_case_close`` (integer branches by ``lia`` over ``Z``, real ones by
``lra``/``nra``/``field``).  A refuted claim gets the statement itself at the certified point,
evaluated there (:func:`peproof.kernel.coq.semantic.negation_script`'s direct route).
"""

from __future__ import annotations

import re

from peproof.kernel.coq import sem_round
from peproof.kernel.coq.tactics import NoScript, Script, point_values

#: partial operations a case split decides (each a test of its argument's sign or zero, on
#: every branch): 27 (yarn's attention factor) split and close in 3 s, 39 (dynamic NTK's
#: effective factor, six conclusions of nested powers) take 33 s, over the 10 s a job has --
#: and a job out of time is never cached, so it would cost its limit on every run
MAX_PARTIAL = 32
PARTIAL = re.compile(r"\b(?:odiv|opow|opowZ|osqrt|oln|otan|omod)\b")

#: the split, then each branch by CheckSem.v's closer or, for identities in sin/cos of linear
#: forms (a branch of a scaled attention score), the library's pe_auto
CASES = "intros; pe_cases; first [ solve [pe_case_close] | solve [pe_auto] ]"


def script(st, goal, *, refuted: bool = False, witness: dict | None = None) -> Script:
    """The proof of ``goal.text`` itself (not of a real goal)."""
    if sem_round.in_statement(st):  # lib/Round.v's lemmas, no case split
        if refuted:
            raise NoScript("RoundBinary: lib/Round.v's pe_round proves statements, not negations")
        return Script(sem_round.SCRIPT, "round", frozenset({"round"}))
    if refuted:
        if st.quant != "forall" or not witness or "point" not in witness:
            raise NoScript("a refuted claim is checked only as the negation of a 'forall' "
                           "statement at a certified point")
        vals = point_values(st, goal, witness["point"])
        spec = f"(H {' '.join(vals)})" if vals else "H"
        text = (f"intro H; pose proof {spec} as Hc; pe_sem_feed Hc; pe_dec_h; pe_destr Hc; "
                "first [ solve [pe_refute] | solve [exfalso; pe_refute] ]")
        return Script(text, "cases", frozenset({"interval"}), negation=True)
    if st.quant != "forall":
        raise NoScript(f"a Piecewise statement is proved by case split only under 'forall' "
                       f"(this one is {st.quant!r})")
    n = len(PARTIAL.findall(goal.text))
    if n > MAX_PARTIAL:
        raise NoScript(f"the case split would decide {n} partial operations (a case split is "
                       f"given at most {MAX_PARTIAL}: each doubles the branches)")
    return Script(CASES, "cases")
