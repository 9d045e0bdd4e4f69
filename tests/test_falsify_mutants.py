"""Tests that kill the mutants of the falsification gate (peproof/kernel/falsify.py, points.py)
listed in tests/mutants/mutants.toml.  Each test names the mutants it kills ('Kills <id>'); each
fails on its mutant and passes on the code (checked with ``python tests/mutants/run.py --only
<id> --tests tests/test_falsify_mutants.py``).

The statements are chosen so that the mutant's answer is certified-wrong: a point outside a
domain, a false hypothesis, an undefined term, an instance of only one conclusion."""

from __future__ import annotations

from fractions import Fraction as F

import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, Verdict, var
from peproof.kernel.arb import PiMul
from peproof.kernel.falsify import check_witness, gate, search
from peproof.kernel.points import member, points

x, VX = var("x", "real")
a, VA = var("a", "integer")
b, VB = var("b", "integer")
p, VP = var("p", "pos_real")
k, VK = var("k", "even_pos_integer")


def _refuted(point: dict) -> Verdict:
    return Verdict("refuted", "test", "-", "certified counterexample",
                   witness={"point": point, "relation": "?"})


def _proved() -> Verdict:
    return Verdict("proved", "test", "-", "decision procedure")


def test_an_undecided_hypothesis_certifies_no_counterexample():
    """log x < 1 -> 0 < x is true; at x <= 0 the hypothesis is undefined (no ball decides it),
    so those points certify nothing.  Kills falsify-undecided-hypothesis-holds."""
    st = Statement(Lt(0, x), (VX,), hyps=(Lt(sp.log(x), 1),))
    assert search(st) is None
    assert gate(st, _proved()).status == "proved"


def test_an_instance_satisfies_every_conclusion():
    """exists x, x = 1 and x = 2: no instance (each conclusion alone has one).
    Kills falsify-instance-any-conclusion."""
    st = Statement((Eq(x, 1), Eq(x, 2)), (VX,), quant="exists")
    assert search(st) is None
    ref = Verdict("refuted", "test", "-", "proof of the negation", witness={"argument": "-"})
    assert gate(st, ref).status == "refuted"


def test_a_witness_outside_its_domain_is_wrong():
    """2a != 1 over the integers is true; a = 1/2 falsifies it only outside the domain.
    Kills falsify-witness-domain-ignored, points-integer-accepts-fraction."""
    st = Statement(Ne(2 * a, 1), (VA,))
    assert check_witness(st, {"point": {"a": "1/2"}})[0] == "wrong"
    assert gate(st, _refuted({"a": "1/2"})).method == "engine conflict"
    assert not member("integer", F(1, 2)) and member("integer", F(-3))


def test_a_witness_outside_a_positive_or_even_domain_is_wrong():
    """0 < p over the positive reals, k != 3 over the even positive integers: p = 0, p = 0*pi
    and k = 3 are outside the domains.  Kills points-pos-real-accepts-zero,
    points-pi-multiple-sign, points-even-accepts-odd."""
    pos = Statement(Lt(0, p), (VP,))
    assert check_witness(pos, {"point": {"p": "0"}})[0] == "wrong"
    assert check_witness(pos, {"point": {"p": PiMul(F(0))}})[0] == "wrong"
    assert check_witness(pos, {"point": {"p": PiMul(F(1, 3))}})[0] == "wrong"  # 0 < pi/3 holds
    even = Statement(Ne(k, 3), (VK,))
    assert check_witness(even, {"point": {"k": "3"}})[0] == "wrong"
    assert check_witness(Statement(Ne(k, 4), (VK,)), {"point": {"k": "4"}})[0] == "ok"
    assert not member("pos_real", F(0)) and not member("pos_real", PiMul(F(0)))
    assert not member("even_pos_integer", 3) and member("even_pos_integer", 4)


def test_a_witness_with_a_false_hypothesis_is_wrong():
    """x < 0 -> x < 1 is true; at x = 2 the conclusion is false but so is the hypothesis.
    Kills falsify-witness-false-hypothesis."""
    st = Statement(Lt(x, 1), (VX,), hyps=(Lt(x, 0),))
    assert check_witness(st, {"point": {"x": "2"}})[0] == "wrong"
    assert gate(st, _refuted({"x": "2"})).method == "engine conflict"


def test_a_witness_where_the_conclusion_is_undefined_is_not_rechecked():
    """log x <= x - 1 at x = -1: undefined (no ball), so the witness is not re-checked and the
    refutation is not kept.  Kills falsify-witness-undecided-conclusion."""
    st = Statement(Le(sp.log(x), x - 1), (VX,))
    assert check_witness(st, {"point": {"x": "-1"}})[0] == "inconclusive"
    g = gate(st, _refuted({"x": "-1"}))
    assert g.status == "unknown" and g.conflict is None


def test_the_search_tries_values_at_the_hypotheses_constants():
    """5 < x < 51/10 -> x <= 5 is false on the whole (narrow) range, which no core value and no
    seeded random value of this statement falls in; the boundary values 5 + 10**-6, ... do.
    Kills points-no-boundary-values."""
    st = Statement(Le(x, 5), (VX,), hyps=(Lt(5, x), Lt(x, F(51, 10))))
    found = search(st)
    assert found is not None and found["kind"] == "counterexample"
    assert 5 < F(found["point"]["x"]) < F(51, 10)


def test_a_solved_variable_outside_its_domain_is_no_point():
    """2a = b -> b != 1 over the integers is true (b is even); solving a = b/2 at b = 1 gives
    a = 1/2, outside the integers: no such point.  Kills points-solved-outside-domain."""
    st = Statement(Ne(b, 1), (VA, VB), hyps=(Eq(2 * a, b),))
    assert search(st) is None
    for env in points(st, 60):
        assert member("integer", env[a]) and member("integer", env[b])
