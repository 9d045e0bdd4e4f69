"""Certified evaluation (peproof.kernel.arb): values against exact rationals and values known
independently (SymPy's own exact evaluation, Python's Fraction arithmetic), and the negative
cases: a ball straddling a floor is not certified, a point outside a partial function's domain
is not evaluated."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import flint
import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne
from peproof.kernel.arb import (
    Imprecise,
    OutsideDomain,
    PiMul,
    Unsupported,
    arb_eval,
    certified_sign,
    evaluate,
    truth,
)

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
k = sp.Symbol("k", integer=True)
i = sp.Symbol("i", integer=True)
j = sp.Symbol("j", integer=True)
R = sp.Rational


def _contains(ball, value: sp.Expr) -> bool:
    """Does the ball contain the exact SymPy number ``value`` (checked with SymPy's own
    evaluation at 60 digits, an independent route)?"""
    v = sp.N(value, 60)
    lo, hi = ball.lower(), ball.upper()
    return sp.Float(lo.str(60, radius=False), 60) <= v <= sp.Float(hi.str(60, radius=False), 60)


def test_polynomials_at_rational_points_are_exact():
    pts = [F(7, 3), F(-5, 2), F(0), F(10**12), F(1, 10**6)]
    for a, b in itertools.product(pts, pts):
        e = 3 * x**3 - x * y / 7 + (x - y) ** 2 - R(1, 3)
        want = 3 * a**3 - a * b / 7 + (a - b) ** 2 - F(1, 3)
        q, _ = evaluate(e, {x: a, y: b})
        assert q == want, (a, b)


@pytest.mark.parametrize("e", [
    sp.sin(R(1, 3)), sp.cos(R(7, 2)) * sp.exp(R(1, 5)), sp.log(R(10)) + sp.sqrt(2),
    sp.atan(R(3)), sp.tan(R(1, 2)), sp.asin(R(1, 3)) + sp.acos(R(-2, 3)), sp.pi ** 2 / 7,
    10000 ** R(-3, 8), sp.Abs(sp.sin(5)), sp.Max(sp.sin(2), sp.cos(2)), sp.E ** R(1, 2),
    sp.atan2(-1, -2), sp.atan2(3, -1)])
def test_closed_values_contain_sympys_value(e):
    _, ball = evaluate(e, {})
    assert _contains(ball, e), (e, ball)


def test_niven_values_are_exact():
    # sin/cos at multiples of pi/6 that SymPy evaluates to rationals are exact here too
    for kk in range(-24, 25):
        for f in (sp.sin, sp.cos):
            want = f(kk * sp.pi / 6)
            q, ball = evaluate(f(x), {x: PiMul(F(kk, 6))})
            if want.is_Rational:
                assert q == F(int(want.p), int(want.q)), (f, kk)
            else:
                assert q is None and _contains(ball, want), (f, kk)
    # huge multiples of pi are reduced exactly
    q, _ = evaluate(sp.sin(x), {x: PiMul(F(10**30) + F(1, 6))})
    assert q == F(1, 2)


@pytest.mark.parametrize("f", [sp.Integer(1), i, i ** 2, 2 ** i, sp.sin(i) ** 2])
def test_sums_and_products_follow_sympy_including_reversed_ranges(f):
    for lo, hi in itertools.product(range(-3, 4), range(-5, 5)):
        s = sp.Sum(f, (i, lo, hi))
        got_q, got = evaluate(s, {}, karr=True)
        want = s.doit()
        assert _contains(got, want), (s, want, got)
        pr = sp.Product(f + 1, (i, lo, hi))
        want = pr.doit()
        if want.is_finite:
            _, got = evaluate(pr, {}, karr=True)
            assert _contains(got, want), (pr, got)
        else:  # 1/0 in SymPy (zoo): the reversed range holds a zero factor
            with pytest.raises(OutsideDomain):
                evaluate(pr, {}, karr=True)


def test_reversed_ranges_refused_without_karr_and_nested_sums():
    with pytest.raises(Unsupported, match="reversed"):
        arb_eval(sp.Sum(1, (i, 0, k - 1)), {k: -2})
    assert arb_eval(sp.Sum(1, (i, 0, k - 1)), {k: 0}) == 0
    tri = sp.Sum(sp.Sum(j, (j, 0, i)), (i, 0, k))
    for kk in range(-4, 6):
        q, _ = evaluate(tri, {k: kk})
        assert q == F(int(tri.subs(k, kk).doit())), kk


def test_floor_ceiling_mod_frac_sign_heaviside_match_sympy():
    vals = [R(-7, 3), R(-2), R(-1, 2), R(0), R(1, 3), R(5, 2), R(9)]
    for a, b in itertools.product(vals, vals):
        for e in (sp.floor(a / (b or 1), evaluate=False), sp.ceiling(a - b, evaluate=False),
                  sp.frac(a * b, evaluate=False), sp.sign(a - b, evaluate=False),
                  sp.Heaviside(a - b)):
            q, _ = evaluate(e, {})
            want = e.doit()
            assert q == F(int(want.p), int(want.q)), (e, want, q)
        if b != 0:
            q, _ = evaluate(sp.Mod(x, y), {x: F(int(a.p), int(a.q)), y: F(int(b.p), int(b.q))})
            want = sp.Mod(a, b)
            assert q == F(int(want.p), int(want.q)), (a, b)


def test_a_straddling_floor_is_not_certified():
    # x = 1 - exp(-10**6) is below 1 by less than 2**-1000000: no precision here separates it
    # (SymPy itself would settle floor(1 - exp(-10**6)) when building it, so x is a variable)
    pt = {x: 1 - sp.exp(-10**6)}
    for e in (sp.floor(x), sp.ceiling(x - 1), sp.frac(x), sp.Mod(x, 1), sp.sign(x - 1),
              sp.Piecewise((1, x < 1), (0, True)), sp.Sum(1, (i, 0, sp.floor(x)))):
        with pytest.raises(Imprecise):
            evaluate(e, pt)
        assert certified_sign(e, pt)[0] is None
    assert truth(Eq(sp.floor(x), 1), pt) is None
    assert truth(Eq(sp.floor(x), 0), pt) is None
    # the same nodes are certified once the ball clears the integer
    assert evaluate(sp.floor(x), {x: 1 - sp.exp(-10)})[0] == 0
    assert evaluate(sp.Mod(x, 1), {x: 1 - sp.exp(-10)})[0] is None


@pytest.mark.parametrize("e, env", [
    (sp.log(x), {x: -1}), (sp.log(x), {x: 0}), (sp.sqrt(x), {x: -2}), (x ** R(1, 3), {x: -8}),
    (1 / x, {x: 0}), (x ** -2, {x: 0}), (sp.tan(x), {x: PiMul(F(1, 2))}), (sp.asin(x), {x: 2}),
    (sp.acos(x), {x: R(-3, 2)}), (sp.atan2(x, y), {x: 0, y: 0}), (sp.Mod(x, y), {x: 1, y: 0}),
    (sp.Piecewise((1, x > 0)), {x: -1}), (sp.log(sp.sin(x)), {x: PiMul(F(1))}),
    (y ** x, {x: R(1, 2), y: -1})])
def test_outside_the_domain_is_not_a_value(e, env):
    with pytest.raises(OutsideDomain):
        evaluate(e, env)
    assert certified_sign(e, env)[0] is None
    for op in (Eq, Ne, Lt, Le):
        assert truth(op(e, 0), env) is None


def test_log_minus_one_is_not_read_as_real():
    # SymPy: log(-1) = I*pi; no real relation about it is certified, true or false
    assert truth(Lt(sp.log(x), 5), {x: -1}) is None
    assert truth(Eq(sp.log(x), 0), {x: -1}) is None


def test_complex_view():
    E, I = sp.exp, sp.I
    pt = {x: F(1, 3), y: F(-2, 7)}
    assert truth(Eq(E(I * x) * E(I * y), E(I * (x + y))), pt) is None  # equal: never certified
    assert truth(Ne(E(I * x), sp.cos(x) - I * sp.sin(x)), pt).value is True
    assert truth(Eq(sp.re(E(I * x)), sp.cos(x) + 1), pt).value is False
    assert truth(Eq(sp.im(E(I * x)), 0), pt).value is False
    _, ball = evaluate(sp.conjugate(E(I * x)) + I * sp.sin(x), pt)
    assert abs(ball.imag) < flint.arb(2) ** -60
    assert truth(Lt(E(I * x), 2), pt) is None  # ordering of non-real numbers: undefined
    assert truth(Eq(sp.Abs(E(I * x)), 2), pt).value is False


def test_piecewise_and_relations():
    pw = sp.Piecewise((x, x > 0), (-x, True))
    for v in (F(-3), F(0), F(5, 2)):
        assert evaluate(pw, {x: v})[0] == abs(v)
    cond = sp.Piecewise((1, sp.And(x > 0, sp.Not(x > 2))), (2, sp.Or(x < -1, x > 3)), (3, True))
    for v, want in ((F(1), 1), (F(4), 2), (F(-1, 2), 3), (F(2), 1), (F(3), 3)):
        assert evaluate(cond, {x: v})[0] == want
    assert truth(Le(sp.sin(x) ** 2, 1), {x: F(1)}).value is True
    assert truth(Lt(sp.sin(x) ** 2, sp.Rational(1, 2)), {x: F(1)}).value is False


def test_identical_sides_differ_by_exactly_zero_where_defined():
    # sin(1) - sin(1) as two balls would contain 0 without being 0: identical sides are
    # compared exactly, but only where the side has a value
    assert truth(Ne(sp.sin(x), sp.sin(x)), {x: F(1)}).value is False
    assert truth(Eq(sp.sin(x), sp.sin(x)), {x: F(1)}).value is True
    assert truth(Lt(sp.sin(x), sp.sin(x)), {x: F(1)}).value is False
    assert truth(Eq(sp.log(x), sp.log(x)), {x: F(-1)}) is None
