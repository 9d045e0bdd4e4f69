"""The integer values of a refuted claim's sum limits at its witness
(peproof/kernel/coq/semantic.py, ``sum_limits_at``), which the negation script states so that
``pe_sums_in`` evaluates the sums (``4/2 - 1`` is 1 at ``d = 4``).  Before, the sum over
``0 .. 4/2 - 1`` stayed unevaluated and ``distance.monotone_in_offset`` (refuted at k = 3,
d = 4) was "not checked in Coq".  The Coq cases (the negation checked at the witness, nothing
at a point where the statement holds) are in tests/test_coq_scripts.py's batch.
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import Le, Statement, var
from peproof.kernel.coq import semantic


def test_the_limits_at_the_witness():
    d, D = var("d", "even_pos_integer")
    i = sp.Symbol("i", integer=True)
    st = Statement(Le(sp.Sum(sp.cos(i), (i, 0, d / 2 - 1)), 1), (D,))
    assert semantic.sum_limits_at(st, {"d": "4"}) == [1]
    assert semantic.sum_limits_at(st, {"d": "1+2*pi"}) == []  # not rational: none
    x, X = var("x", "real")
    j = sp.Symbol("j", integer=True)
    lit = Statement(Le(sp.Sum(sp.cos(j * x), (j, 0, 3)), 4), (X,))
    assert semantic.sum_limits_at(lit, {"x": "1"}) == []  # integer literals need no hint
