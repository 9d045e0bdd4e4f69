"""The one definition: parameter validation, layouts, and agreement of its three evaluations."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from peproof.encoding import FAMILIES, LAYOUTS, Encoding, ParameterError, omega_expr


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"d": 3}, "even integer >= 2"),
        ({"d": 0}, "even integer >= 2"),
        ({"d": -4}, "even integer >= 2"),
        ({"d": 4.0}, "even integer >= 2"),
        ({"d": True}, "even integer >= 2"),
        ({"d": 2, "family": "h-1"}, ">= 4 for family 'h-1'"),
        ({"d": 8, "base": 1}, "base must be a number > 1"),
        ({"d": 8, "base": "0.5"}, "base must be a number > 1"),
        ({"d": 8, "base": "ten"}, "base must be an exact number"),
        ({"d": 8, "family": "rope"}, "family must be one of"),
        ({"d": 8, "layout": "sincos"}, "layout must be one of"),
        ({"d": 8, "scale": 0}, "scale must be a positive real"),
        ({"d": 8, "offset": float("nan")}, "offset must be finite"),
    ],
)
def test_bad_parameters_name_the_allowed_domain(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment.replace("(", r"\(")):
        Encoding(**kwargs)


@given(st.integers(1, 300).map(lambda h: 2 * h), st.sampled_from(LAYOUTS))
def test_layout_maps_are_inverse_bijections(d, layout):
    enc = Encoding(d, layout=layout)
    seen = set()
    for j in range(d):
        i, which = enc.slot(j)
        assert enc.channel(i, which) == j
        seen.add((i, which))
    assert len(seen) == d


def test_paper_frequencies_exact():
    enc = Encoding(4)
    assert enc.omegas == (sp.Integer(1), sp.Rational(1, 100))
    assert omega_expr(0, 512) == 1
    h1 = Encoding(8, family="h-1")
    assert h1.omegas[-1] == sp.Rational(1, 10000)  # h-1 reaches 1/base exactly at the last pair


@settings(max_examples=25)
@given(
    st.sampled_from([2, 4, 6, 16]),
    st.sampled_from(FAMILIES),
    st.sampled_from(LAYOUTS),
    st.fractions(min_value=-2000, max_value=2000, max_denominator=50),
    st.sampled_from([0, 1, 2]),
)
def test_three_evaluations_agree(d, family, layout, pos, offset):
    if family == "h-1" and d < 4:
        d = 4
    enc = Encoding(d, family=family, layout=layout, offset=offset, scale="1/2")
    balls = enc.vector_arb(pos, prec=128)
    fast = enc.table([float(pos)])[0]
    with mpmath.mp.workdps(40):
        mp = enc.vector_mp(pos, dps=40)
        sym = [sp.N(e, 40) for e in enc.vector(sp.Rational(pos.numerator, pos.denominator))]
        for j in range(d):
            # the ball is certified: the 40-digit value must lie inside it (up to 1e-35)
            mid = mpmath.mpf(balls[j].mid().str(45, radius=False))
            rad = mpmath.mpf(balls[j].rad().str(5, radius=False))
            assert abs(mp[j] - mid) <= rad + mpmath.mpf("1e-35"), (j, mp[j], balls[j])
            assert abs(sym[j] - mp[j]) < mpmath.mpf("1e-35")
    for j in range(d):
        # float64 evaluation: agreement within a few ulps of the angle's size
        tol = 1e-15 * (1 + abs(float(pos) + offset) * float(enc.omegas_f64.max()))
        assert abs(fast[j] - float(mp[j])) <= 8 * tol, (d, family, layout, pos, j)


def test_table_matches_vector_layout():
    enc = Encoding(8, layout="cos_sin")
    t = enc.table(np.arange(3))
    assert t.shape == (3, 8)
    assert np.allclose(t[0], [1, 1, 1, 1, 0, 0, 0, 0])


def test_positions_are_exact_rationals():
    enc = Encoding(4)
    ball = enc.vector_arb(Fraction(1, 3))[0]
    with mpmath.mp.workdps(50):
        exact = mpmath.sin(mpmath.mpf(1) / 3)
        assert abs(exact - mpmath.mpf(ball.mid().str(45, radius=False))) < 1e-30
    with pytest.raises(ParameterError):
        enc.vector_arb("abc")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("d", [512, 1024])
def test_certified_frequencies_enclose_the_symbolic_ones(d, family):
    """omega_arb and omega are two evaluations of one law: at large d too, every ball must
    contain the 40-digit value of the SymPy expression."""
    enc = Encoding(d, family=family)
    for i in (0, 1, d // 4, d // 2 - 1):
        ball = enc.omega_arb(i, 200)
        exact = sp.N(enc.omega(i), 45)
        with mpmath.mp.workdps(45):
            mid = mpmath.mpf(ball.mid().str(50, radius=False))
            rad = mpmath.mpf(ball.rad().str(5, radius=False))
            value = mpmath.mpf(str(exact))
            assert abs(value - mid) <= rad + mpmath.mpf("1e-40") * (1 + abs(value)), (i, ball)
