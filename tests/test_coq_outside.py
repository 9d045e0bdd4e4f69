"""What the Coq pass does not attempt because the installed libraries lack the fact the proof
needs (peproof/kernel/coq/outside.py): the transcendence of pi, the irrationality of pi in a
form lib/PiIrr.v's scripts do not apply, or a certified scan over thousands of integer
positions.  The claim is "not checked in Coq" with that reason, decided by the planner without
running coqc; a statement of the same family that does not need the fact is still planned, and
a refuted claim's negation (checked at its witness) is too, as are the shapes pi_scripts.py
proves with the irrationality of pi (tests/test_coq_pi.py checks them in Coq).

No coqc runs here.  Each refusal test fails without its rule (``plan`` returns a job).
"""

from __future__ import annotations

import sympy as sp

from peproof import registry
from peproof.claims import Claim, Eq, Le, Ne, Source, Statement, var
from peproof.kernel.coq import check

VERDICT = {"status": "proved", "witness": None, "engines": {}}


def _plan(cid, st=None, verdict=VERDICT):
    st = st if st is not None else registry.get(cid).statement
    return check.plan(Claim(cid, "test", Source("test", "test", "test"), st, "identity"), verdict)


def test_integer_positions_from_equal_sines_are_planned_with_the_irrationality_of_pi():
    job, info = _plan("uniqueness.pe_injective_on_integers")
    assert job is not None and info.klass == "pi", info.status
    # equal sines alone (no cosine): not a shape pi_scripts proves, refused with the reason
    a, A = var("a", "integer")
    b, B = var("b", "integer")
    sines = Statement(Eq(a, b), (A, B), hyps=(Eq(sp.sin(a), sp.sin(b)),))
    job, info = _plan("t.sines_only", sines)
    assert job is None
    assert "the irrationality of pi (lib/PiIrr.v proves it), in a form" in info.status


def test_an_irrational_frequency_needs_the_transcendence_of_pi():
    for cid in ("uniqueness.single_pair_injective_on_integers",
                "dft.transformer_frequencies_not_dfs_frequencies"):
        job, info = _plan(cid)
        assert job is None, cid
        assert "the transcendence of pi (Lindemann)" in info.status, info.status


def test_separation_scans_say_what_they_need():
    job, info = _plan("separation.positions_distinct_up_to_62832_d4")  # pi_scripts: planned
    assert job is not None and info.klass == "pi-statement", info.status
    job, info = _plan("separation.closest_pair_up_to_62832_d4")  # floor.py: planned
    assert job is not None and info.klass == "floor-statement", info.status
    # the same minimum with a strict floor: not Floor.v's shape, the reason says what it needs
    from peproof.claims import Lt

    st = registry.get("separation.closest_pair_up_to_62832_d4").statement
    job, info = _plan("t.strict_floor", st.with_concl((Lt(st.concl[0].lhs, st.concl[0].rhs),)))
    assert job is None and "a certified scan of those differences" in info.status, info.status
    assert "lib/Floor.v" in info.status


def test_statements_that_do_not_need_the_fact_are_still_planned():
    a, A = var("a", "integer")
    b, B = var("b", "integer")
    k, K = var("k", "integer")
    n, N = var("N", "pos_integer")
    # the angle a multiple of pi: no irrationality involved (and false: a = 0, b = 2)
    wrap = Statement(Eq(a, b), (A, B), hyps=(Eq(sp.sin(sp.pi * a), sp.sin(sp.pi * b)),
                                            Eq(sp.cos(sp.pi * a), sp.cos(sp.pi * b))))
    assert _plan("t.pi_angle", wrap)[0] is not None
    # both sides free of pi
    assert _plan("t.no_pi", Statement(Ne(sp.Integer(3), 2 * k / n), (K, N)))[0] is not None
    # a short range of positions (below outside.SCAN_FROM)
    st = registry.get("separation.positions_distinct_up_to_62832_d4").statement
    short = Statement(st.concl, st.vars, hyps=(st.hyps[0], Le(st.hyps[1].lhs, 100)))
    assert _plan("t.short", short)[0] is not None


def test_a_refuted_claim_is_checked_by_its_negation_not_refused():
    cid = "separation.distant_pairs_no_closer_than_adjacent_d4"
    witness = {"point": {"a": "0", "b": "44"}}  # the planner's input only: no coqc runs
    job, info = _plan(cid, verdict={"status": "refuted", "witness": witness, "engines": {}})
    assert job is not None and job.negation, info.status


REFUTED_BY_ARGUMENT = {"status": "refuted", "witness": None, "engines": {}}


def test_a_refuted_existential_names_what_its_negation_needs():
    """A refuted ``exists`` (no witness: its negation, a ``forall``, is proved by an argument)
    gets the reason of that negation (outside.negation_reason), not only the generic one."""
    cid = "uniqueness.single_pair_eventually_repeats"
    job, info = _plan(cid, verdict=REFUTED_BY_ARGUMENT)
    assert job is None and "its negation (a 'forall', proved by an argument)" in info.status
    assert "transcendence of pi" in info.status, (cid, info.status)
    # the irrationality ones: their negation is planned (pi_scripts.py, lib/PiIrr.v)
    for cid in ("uniqueness.integers_collide_beyond_practical_lengths",
                "dft.transformer_frequencies_are_dfs_frequencies"):
        job, info = _plan(cid, verdict=REFUTED_BY_ARGUMENT)
        assert job is not None and job.negation and info.klass == "pi-statement", info.status


def test_a_refuted_existential_without_such_a_fact_keeps_the_general_reason():
    x, XV = var("x", "real")
    st = Statement(Eq(x ** 2, -1), (XV,), quant="exists")
    job, info = _plan("test.no_real_root", st, REFUTED_BY_ARGUMENT)
    assert job is None and "only as the negation of a 'forall'" in info.status, info.status


def test_a_refusal_never_says_that_a_false_statement_holds():
    """The reasons are read off the statement's shape, true or not: for a false statement of a
    refused shape (equal cosines do not give a == b: a = 1, b = -1; 0 == pi*k/N at k = 0) the
    reason says what a proof would need, never that the statement holds."""
    a, A = var("a", "integer")
    b, B = var("b", "integer")
    k, K = var("k", "integer")
    n, N = var("N", "pos_integer")
    cosines = Statement(Eq(a, b), (A, B), hyps=(Eq(sp.cos(a), sp.cos(b)),))
    zero = Statement(Ne(0, sp.pi * k / n), (K, N))
    for cid, st in (("t.cosines_only", cosines), ("t.zero_against_pi", zero)):
        job, info = _plan(cid, st)
        assert job is None and "irrationality of pi" in info.status, info.status
        assert "holds" not in info.status and "a proof of" in info.status, info.status
