"""peproof.rope and peproof.rope_scaling (the one definition), and the proof methods of the
``rope`` family (the decay-statement reader, power products, case splits)."""

import json
import subprocess
import sys
import textwrap

import flint
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from peproof.claims import Eq, Le, Lt, Statement, Var, var
from peproof.encoding import ParameterError
from peproof.families._rope_proofs import by_cases, power_products
from peproof.kernel.arb import arb_eval
from peproof.numeric.rope_box import decide
from peproof.rope import (
    DecayBound,
    Rope,
    apply_numpy,
    channel_slot,
    pair_channels,
    rotate,
    theta_expr,
)
from peproof.rope_scaling import (
    DynamicNTK,
    Linear,
    Llama3,
    LongRope,
    NTKAware,
    Undecided,
    Yarn,
    arb_backend,
)

LAYOUTS = ("interleaved", "half")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 6, 16])
def test_numpy_rotation_is_the_definition(layout, d):
    """apply_numpy (fast) equals rotate (the SymPy definition) evaluated: catches a wrong
    channel placement in the fast path."""
    rng = np.random.default_rng(d)
    x = rng.normal(size=(3, d))
    pos = [0.0, 5.0, 123.5]
    th = 10000.0 ** (-2 * np.arange(d // 2) / d)
    fast = apply_numpy(x, pos, th, layout)
    for r, p in enumerate(pos):
        exact = [float(e) for e in rotate(list(x[r]), sp.Float(p), [sp.Float(t) for t in th],
                                          layout)]
        assert np.allclose(fast[r], exact, atol=1e-12), (layout, d, p)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_channel_maps_are_inverse_and_cover(layout):
    for d in range(2, 66, 2):
        seen = set()
        for j in range(d // 2):
            a, b = pair_channels(j, d, layout)
            assert channel_slot(a, d, layout) == (j, 0) and channel_slot(b, d, layout) == (j, 1)
            seen |= {a, b}
        assert seen == set(range(d))
    with pytest.raises(ParameterError):
        pair_channels(4, 8, layout)
    with pytest.raises(ParameterError):
        channel_slot(8, 8, layout)


SCALINGS = [
    Linear(4), NTKAware(8), DynamicNTK(2, 2048), Yarn(16, 4096), Yarn(16, 4096, ramp="ratio"),
    Yarn(8, 2048, truncate=False, mscale=1, mscale_all_dim="0.5"), Llama3(8, 1, 4, 8192),
    LongRope(tuple(1 + j / 10 for j in range(32)), tuple(2 + j / 5 for j in range(32)), 4096,
             factor=16),
]


@pytest.mark.parametrize("sc", SCALINGS, ids=[s.describe()[:40] for s in SCALINGS])
@pytest.mark.parametrize("seq_len", [None, 1000, 9000])
def test_three_backends_agree(sc, seq_len):
    """Exact SymPy (evaluated in arb), arb, and NumPy float64 give the same frequencies and
    attention factor from the one text of each map."""
    r = Rope(64, 500000, scaling=sc)
    num = r.thetas_numpy(seq_len)
    for j in (0, 7, 20, 31):
        exact = arb_eval(r.theta(j, seq_len), {}, 128)
        ball = r.theta_arb(j, 128, seq_len)
        assert exact.overlaps(ball), (j, exact, ball)
        assert abs(num[j] - float(ball.mid())) <= 1e-12 * float(ball.mid())
    a = arb_eval(r.attention_factor(seq_len), {}, 128)
    assert a.overlaps(r.attention_factor_arb(128, seq_len))


def test_partial_rotation_and_proportional():
    r = Rope(8, 10000, exponent_dim=16, rotated_pairs=2)
    th = r.thetas_f64()
    assert th[2] == 0 and th[3] == 0 and th[1] == pytest.approx(10000 ** (-2 / 16))


@pytest.mark.parametrize("make,fragment", [
    (lambda: Rope(7), "even integer"),
    (lambda: Rope(8, base=1), "base must be a number > 1"),
    (lambda: Rope(8, layout="neox"), "layout must be one of"),
    (lambda: Rope(8, scaling="yarn"), "scaling must be one of"),
    (lambda: Rope(8, rotated_pairs=5), "rotated_pairs"),
    (lambda: Rope(2, scaling=NTKAware(2)), "d >= 4"),
    (lambda: Rope(8, scaling=LongRope((1,) * 3, (1,) * 4)), "d/2 = 4 entries"),
    (lambda: Linear(0), "positive"),
    (lambda: Yarn(2, ramp="cubic"), "ramp must be"),
    (lambda: Yarn(2, beta_fast=1, beta_slow=32, ramp="ratio"), "ratio ramp needs beta_slow"),
])
def test_bad_parameters_are_refused(make, fragment):
    with pytest.raises(ParameterError, match=fragment):
        make()


def test_arb_backend_refuses_to_guess():
    x = arb_backend(64)
    fuzzy = flint.arb(1, 1e-10)
    with pytest.raises(Undecided):
        x.lt(fuzzy, 1)
    with pytest.raises(Undecided):
        x.floor(flint.arb(3, 1e-10))
    assert x.lt(flint.arb(1), 2) is True


@given(st.integers(4, 40).map(lambda h: 2 * h), st.fractions(1, 64))
def test_ntk_lowest_frequency_divided_by_factor(d, s):
    """Hypothesis, in arb: what rope.ntk_keeps_highest_divides_lowest_by_factor proves."""
    r0, r1 = Rope(d), Rope(d, scaling=NTKAware(s))
    lo = r1.theta_arb(d // 2 - 1, 128) * flint.arb(flint.fmpq(s.numerator, s.denominator))
    assert lo.overlaps(r0.theta_arb(d // 2 - 1, 128))
    assert r1.theta_arb(0).overlaps(flint.arb(1))


# ------------------------------------------------------------------ the decay-statement reader
k, V_K = var("k", "nonneg_integer")
t, V_T = var("t", "pos_integer")


def B(d, a):
    return DecayBound(d, a, 10000)


def test_reader_proves_refutes_and_reads_the_relation():
    true = Statement(Lt(B(64, k + 1), B(64, k)), (V_K,), hyps=(Le(k, 10),))
    assert decide(true, 100).status == "proved"
    longer = Statement(Lt(B(64, k + 1), B(64, k)), (V_K,), hyps=(Le(k, 11),))
    v = decide(longer, 100)
    assert v.status == "refuted" and v.witness["point"] == {"k": "11"}
    assert v.witness["certified_by"]
    flipped = Statement(Le(B(64, k), B(64, k + 1)), (V_K,), hyps=(Le(k, 10),))
    assert decide(flipped, 100).status == "refuted"
    two = Statement(Lt(B(16, k + t), B(16, k)), (V_K, V_T), hyps=(Le(k, 1), Le(k + t, 300)))
    assert decide(two, 300).status == "proved"
    one_more = Statement(two.concl, two.vars, hyps=(Le(k, 2), Le(k + t, 300)))
    v = decide(one_more, 300)  # B(2 + t) >= B(2) for some t: found among ~900 pairs, certified
    assert v.status == "refuted" and v.witness["point"]["k"] == "2"
    scaled = Statement(Lt(B(16, k + t), B(16, k) / 3 + sp.Rational(1, 7)), (V_K, V_T),
                       hyps=(Le(k, 2), Le(k + t, 300)))
    assert decide(scaled, 300).status == "refuted"


@pytest.mark.parametrize("stmt,reason", [
    (Statement(Lt(B(8, k * k), B(8, k)), (V_K,), hyps=(Le(k, 3),)), "affine"),
    (Statement(Lt(B(8, k - 5), B(8, k)), (V_K,), hyps=(Le(k, 3),)), "negative offset"),
    (Statement(Lt(B(8, k + 1), B(8, k)), (V_K,)), "unbounded"),
    (Statement(Lt(B(8, k), sp.sin(k)), (V_K,), hyps=(Le(k, 3),)), "neither rational"),
    (Statement(Lt(B(8, k + 1), B(8, k)), (V_K,), hyps=(Le(k, -1),)), "no integer point"),
    (Statement(Lt(B(8, k), 9), (V_K, V_T, Var(sp.Symbol("u", integer=True), "integer")),
               hyps=(Le(k, 1),)), "at most two"),
])
def test_reader_answers_unknown_outside_its_shape(stmt, reason):
    v = decide(stmt, 100)
    assert v.status == "unknown" and reason in v.reason, v.reason


# ------------------------------------------------------------------ power products, cases
s, V_S = var("s", "pos_real")
dd, V_DD = var("d", "even_pos_integer")


def test_power_products_proves_and_does_not_overreach():
    base = 10000 * s ** (dd / (dd - 2))
    good = Statement(Eq(theta_expr(dd / 2 - 1, dd, base), theta_expr(dd / 2 - 1, dd) / s),
                     (V_S, V_DD), hyps=(Le(4, dd),))
    assert power_products(good).status == "proved"
    bad = Statement(Eq(theta_expr(dd / 2 - 1, dd, 10000 * s), theta_expr(dd / 2 - 1, dd) / s),
                    (V_S, V_DD), hyps=(Le(4, dd),))
    assert power_products(bad).status != "proved"
    # d = 2 makes d/(d-2) undefined: without the hypothesis the exponent may have no value
    assert power_products(Statement(good.concl, good.vars)).status != "proved"


def test_by_cases_uses_the_hypotheses():
    x, vx = var("x", "real")
    pw = sp.Piecewise((x, x < 1), (2 * x, True))
    assert by_cases(power_products)(Statement(Eq(pw, x), (vx,), hyps=(Lt(x, 1),))).status == \
        "proved"
    assert by_cases(power_products)(Statement(Eq(pw, x), (vx,), hyps=(Le(x, 2),))).status != \
        "proved"


SABOTAGE = textwrap.dedent(
    """
    import json, sys
    import sympy as sp
    import peproof.rope as R

    mode = sys.argv[1]
    orig = R.rotate
    if mode == "swap_sin_cos":
        def rotate(x, pos, thetas, layout="interleaved"):
            return [e.replace(lambda a: isinstance(a, (sp.sin, sp.cos)),
                              lambda a: (sp.cos if isinstance(a, sp.sin) else sp.sin)(a.args[0]))
                    for e in orig(x, pos, thetas, layout)]
        R.rotate = rotate
    elif mode == "transposed":
        def rotate(x, pos, thetas, layout="interleaved"):
            return orig(x, -pos, thetas, layout)
        R.rotate = rotate
    from peproof import registry
    from peproof.engines.decide import decide
    print(json.dumps({c: decide(registry.get(c)).status for c in sys.argv[2:]}))
    """
)
ROT = ["rope.score_block_depends_only_on_offset", "rope.norm_block_preserved",
       "rope.complex_view_is_rotation", "rope.rotate_half_form_is_half_layout"]


@pytest.mark.parametrize("mode,red", [
    # sin and cos swapped is still orthogonal (norms kept) but no longer relative
    ("swap_sin_cos", [ROT[0]] + ROT[2:]),
    # a rotation the other way still gives relative scores and norms: only the claims tying the
    # definition to the implementations' formulas and to the complex view turn red
    ("transposed", ROT[2:]),
])
def test_sabotaged_rotation_turns_claims_red(mode, red):
    out = subprocess.run([sys.executable, "-c", SABOTAGE, mode, *ROT], capture_output=True,
                         text=True, timeout=300, check=True)
    got = json.loads(out.stdout)
    assert {c for c, v in got.items() if v != "proved"} == set(red), got


def test_llama3_step_and_reversed_betas_as_transformers_computes_them():
    """low_freq_factor >= high_freq_factor (Llama 4 Scout: 1, 1) and beta_fast < beta_slow are
    accepted by transformers (a warning): a step at L / low_freq_factor, and YaRN's index ramp
    between the correction dimensions in the other order."""
    r = Rope(128, 500000, scaling=Llama3(16, 1, 1, 8192))
    th0, th = Rope(128, 500000).thetas_f64(), r.thetas_f64()
    lam = 2 * np.pi / th0
    assert np.allclose(th[lam > 8192], th0[lam > 8192] / 16, rtol=1e-15)
    assert np.array_equal(th[lam < 8192], th0[lam < 8192])
    r2 = Rope(128, 500000, scaling=Llama3(8, 4, 1, 8192))  # step at L / 4: 1 is never reached
    lam4 = lam > 8192 / 4
    assert np.allclose(r2.thetas_f64()[lam4], th0[lam4] / 8, rtol=1e-15)
    assert np.array_equal(r2.thetas_f64()[~lam4], th0[~lam4])
    y = Rope(64, 10000, scaling=Yarn(4, 4096, beta_fast=1, beta_slow=32)).thetas_f64()
    assert np.all(np.isfinite(y)) and np.all(y > 0)
