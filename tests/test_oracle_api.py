"""The oracle's Python API: formats, the certified fast path, reference, identify, check."""

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from peproof.encoding import Encoding
from peproof.formats import BFLOAT16, BINARY, FLOAT16, FLOAT32, get_format
from peproof.oracle import (
    CONFORMS,
    DEGENERATE,
    ROUNDING,
    VARIANT,
    WRONG,
    InputError,
    Variant,
    assert_sinusoidal,
    check,
    identify,
    reference,
)
from peproof.oracle.common.exact import Plan, certify, exact_pos, round_ball


def exact_round(x: Fraction, fmt) -> float:
    """Round a rational to a binary format by brute force (for checking round_dyadic)."""
    if x == 0:
        return 0.0
    e = math.floor(math.log2(abs(x)))
    while Fraction(2) ** e > abs(x):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(x):
        e += 1
    q = max(e, fmt.emin - 1) - fmt.p + 1
    scaled = x / Fraction(2) ** q
    r = round(scaled)  # Python rounds Fractions half to even
    out = r * Fraction(2) ** q
    return math.copysign(math.inf, x) if abs(out) > fmt.max else float(out)


@pytest.mark.parametrize("fmt", list(BINARY.values()), ids=list(BINARY))
def test_round_dyadic_is_correct_rounding(fmt):
    rng = np.random.default_rng(7)
    for _ in range(300):
        m = int(rng.integers(-(2**62), 2**62))
        e = int(rng.integers(-80, 10)) - (0 if fmt.p > 11 else 50)
        got = fmt.round_dyadic(m, e)
        assert got == exact_round(Fraction(m) * Fraction(2) ** e, fmt), (m, e, fmt.name)
    # ties go to even
    assert FLOAT32.round_dyadic(2**24 + 1, -24) == 1.0
    assert FLOAT32.round_dyadic(2**24 + 3, -24) == 1.0 + 2**-22


def test_bfloat16_rounding_avoids_double_rounding():
    # just above a bfloat16 midpoint; via float32 it becomes a tie (older ml_dtypes releases
    # cast float64 through float32 and give 1.0 here, newer ones round directly: ours must be
    # right whichever is installed)
    x = 1 + 2**-8 + 2**-30
    assert float(np.float32(x)) == 1 + 2**-8  # the tie a float32 detour would create
    assert BFLOAT16.round(np.array([x]))[0] == 1 + 2**-7
    assert BFLOAT16.round_dyadic(int(x * 2**40), -40) == 1 + 2**-7


def test_format_round_matches_round_dyadic():
    rng = np.random.default_rng(3)
    v = rng.standard_normal(2000) * np.exp2(rng.integers(-30, 5, 2000))
    for fmt in (FLOAT16, BFLOAT16, FLOAT32):
        got = fmt.round(v)
        ref = [fmt.round_dyadic(*_man_exp(x)) for x in v]
        assert np.array_equal(got, ref), fmt.name


def _man_exp(x: float):
    m, e = math.frexp(x)
    return int(m * 2**53), e - 53


def test_ulp_of_formats():
    assert FLOAT32.ulp(np.array([1.0, 0.75, 0.0]))[:2].tolist() == [2**-23, 2**-24]
    assert FLOAT32.ulp(np.array([0.0]))[0] == 2.0**-149
    assert FLOAT16.ulp(np.array([1000.0]))[0] == 0.5
    assert get_format("decimal4").ulp(np.array([0.5]))[0] == pytest.approx(1e-4)
    with pytest.raises(ValueError, match="dtype must be one of"):
        get_format("float8")


@pytest.mark.parametrize("variant,d", [
    (Variant(), 512), (Variant("h-1", 500000, "cos_sin", "1/3", "1/sqrt(d)"), 64),
    (Variant("paper", 137, "sin_cos", -5, "sqrt(d)"), 16)])
def test_fast_path_bounds_hold_against_arb(variant, d):
    plan = Plan(variant.encoding(d))
    rng = np.random.default_rng(11)
    pos = rng.integers(0, 2**20, 400).astype(np.float64)
    cols = rng.integers(0, d, 400)
    balls = plan.balls([exact_pos(p) for p in pos], [int(c) for c in cols], 200)
    exact = np.array([float(b.mid()) for b in balls])
    fast = plan.values(pos)[np.arange(400), cols]
    assert (np.abs(fast - exact) <= plan.row_bound(pos)[:, 0]).all()
    v, err = plan.refine(pos, cols)
    assert (np.abs(v - exact) <= err).all()
    assert np.median(err / np.abs(exact)) < 1e-14  # the refined bound is relative


def test_balls_agree_with_encoding_vector_arb():
    enc = Encoding(12, family="h-1", layout="cos_sin", offset=Fraction(3, 2), scale="2")
    plan = Plan(Variant("h-1", 10000, "cos_sin", Fraction(3, 2), 2).encoding(12))
    for p in (0, 7, 12345):
        mine = plan.balls([Fraction(p)] * 12, list(range(12)), 128)
        theirs = enc.vector_arb(p, 128)
        assert all(a.overlaps(b) for a, b in zip(mine, theirs, strict=True))


def test_libm_axiom_numpy_sin_cos_within_4_ulps():
    """The fast path's one assumption, checked on random and large float64 angles."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-10, 10, 300), rng.uniform(0, 2**20, 300),
                        np.exp2(rng.uniform(-20, 40, 300))])
    with flint.ctx.workprec(200):
        for f, g in ((np.sin, "sin"), (np.cos, "cos")):
            got = f(x)
            ex = np.array([float(getattr(flint.arb(float(t)), g)().mid()) for t in x])
            ulps = np.abs(got - ex) / np.spacing(np.abs(ex))
            assert ulps.max() <= 4, (g, ulps.max())


def test_reference_is_correctly_rounded():
    pos = np.array([0, 1, 2, 77, 4096, 65535, 1234567])
    for dt in ("float32", "float16", "bfloat16", "float64"):
        fmt = get_format(dt)
        R = reference(pos, 16, family="h-1", layout="sin_cos", offset=2, scale="1/sqrt(d)",
                      dtype=dt)
        assert R.dtype == fmt.numpy_dtype
        plan = Plan(Variant("h-1", 10000, "sin_cos", 2, "1/sqrt(d)").encoding(16))
        got = certify(plan, [exact_pos(p) for p in pos for _ in range(16)],
                      [j for _ in pos for j in range(16)], lambda b, _k, f=fmt: round_ball(b, f),
                      2 * fmt.p + 40)
        assert np.array_equal(R.astype(np.float64).ravel(), np.array(got)), dt


def test_reference_matches_mpmath_and_accepts_position_forms():
    R = reference("3:6", 4, dtype="float64")
    with mpmath.workdps(40):
        assert R[0, 0] == float(mpmath.sin(3)) and R[2, 3] == float(mpmath.cos(mpmath.mpf(5)
                                                                                / 100))
    assert reference(3, 4).shape == (3, 4) and reference(range(2, 5), 4).shape == (3, 4)
    assert reference(np.array([0.5]), 2, dtype="float64")[0, 0] == float(mpmath.sin(0.5))
    with pytest.raises(InputError):
        reference("a:b", 4)
    with pytest.raises(ValueError, match="even integer"):
        reference(3, 5)


def test_reference_nerf_exact_zeros_have_the_right_sign():
    pos = np.linspace(-1, 1, 9)
    R = reference(pos, 4, family="nerf", dtype="float32")
    assert not np.signbit(R[4]).any() and R[4].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert R[0].tolist() == [0.0, -1.0, 0.0, 1.0] and R[2, 0] == -1.0


# ----------------------------------------------------------------------------- identify
@pytest.mark.parametrize("variant,d,n,dt", [
    (Variant(), 512, 600, "float32"),
    (Variant("h-1", 10000, "sin_cos", 2), 256, 100, "float32"),
    (Variant("paper", 10000, "cos_sin", 0, "sqrt(d)"), 64, 300, "float16"),
    (Variant("h-1", 500000, "interleaved", -3, "1/sqrt(d)"), 128, 500, "bfloat16"),
    (Variant("paper", 137, "interleaved", 5), 16, 64, "float64"),
])
def test_identify_names_the_variant(variant, d, n, dt):
    ident = identify(reference(n, d, dtype=dt, family=variant.family, base=variant.base,
                               layout=variant.layout, offset=variant.offset,
                               scale=variant.scale))
    assert ident.variant is not None and ident.variant.same_as(variant, d), ident.name
    assert ident.dtype == dt and ident.fits and ident.residual_ulp <= 1


def test_identify_reports_exactly_equivalent_variants():
    ident = identify(reference(50, 8, dtype="float64"))  # at d=8 paper 10000 is h-1 1000
    assert ident.variant.family == "paper" and ident.variant.base == 10000
    assert any("h-1 family, base 1000," in e for e in ident.equivalent)


def test_identify_nerf_with_fractional_positions():
    pos = np.linspace(-1, 1, 201)
    ident = identify(reference(pos, 8, family="nerf", layout="sin_cos"), pos)
    assert ident.name.startswith("nerf family, [sin|cos] layout, offset 0")


def test_identify_float32_values_stored_as_float64():
    ident = identify(reference(100, 32).astype(np.float64))
    assert ident.dtype == "float32" and ident.stored_dtype == "float64"


@pytest.mark.parametrize("table,fragment", [
    (np.random.default_rng(0).standard_normal((100, 16)), "constant amplitude"),
    (np.zeros((100, 16)), "all zeros"),
    (reference(100, 16)[:, [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14]],
     "cosine first"),
    (reference(1, 16), "at least two rows"),
])
def test_identify_says_why_it_cannot_name_a_variant(table, fragment):
    ident = identify(table)
    assert ident.variant is None and fragment in ident.name


def test_identify_sees_through_a_zeroed_padding_row():
    T = reference(300, 64, family="h-1", layout="sin_cos")
    T[1] = 0  # fairseq zeroes the row of padding_idx
    ident = identify(T)
    assert ident.variant.same_as(Variant("h-1", 10000, "sin_cos"), 64)
    rep = check(T, expect="h-1", layout="sin_cos")
    assert rep.verdict == CONFORMS and rep.padding == [1] and rep.spec.excluded_rows == 1
    assert "row 1 all zeros: padding row, left out" in rep.headline
    T[1] = reference(300, 64, family="h-1", layout="sin_cos")[1]
    T[57] = 0  # a zero row in the middle is no padding row: a defect, localised
    rep = check(T, expect="h-1", layout="sin_cos")
    assert rep.verdict == WRONG and rep.padding == [] and rep.spec.worst[0]["position"] == 57
    assert "row 57 (position 57): all zeros" in rep.diagnoses


# ----------------------------------------------------------------------------- check
def _recipe_float32(n, d):
    """A float32 pipeline: frequencies by exp, angles and sin/cos in float32."""
    from peproof.encoding import Encoding
    from peproof.numeric import recipes as R

    return R.table(Encoding(d), "float32", "exp-float", np.arange(n))


def test_verdict_levels():
    assert check(reference(512, 64)).verdict == CONFORMS
    assert check(_recipe_float32(3000, 64)).verdict == ROUNDING
    rep = check(reference(200, 64, family="h-1", layout="sin_cos", offset=2))
    assert rep.verdict == VARIANT and rep.exit_code == 1
    assert rep.identified.name.startswith("h-1 family, base 10000, [sin|cos] layout, offset 2")
    assert "layout [sin|cos] (expected interleaved)" in rep.reasons[0]
    T = reference(200, 64)
    T[17, 9] += np.float32(1e-3)
    rep = check(T)
    assert rep.verdict == WRONG and rep.spec.worst[0]["position"] == 17
    assert rep.spec.worst[0]["channel"] == 9 and rep.spec.over_budget == 1


def test_expect_any_and_explicit_variants():
    T = reference(100, 32, family="h-1", layout="cos_sin", offset=1, scale="sqrt(d)")
    assert check(T, expect="any").verdict == CONFORMS
    assert check(T, expect="h-1", layout="cos_sin", offset=1, scale="sqrt(d)").ok
    assert check(T, expect=Variant("h-1", 10000, "cos_sin", 1, "sqrt(d)")).ok


def test_check_a_callable_and_positions():
    rep = check(lambda n, d: reference(n, d, offset=0), d=16, n=40)
    assert rep.verdict == CONFORMS and rep.n == 40
    pos = np.arange(10, 60)
    assert check(reference(pos, 16), positions=pos).verdict == CONFORMS
    with pytest.raises(InputError, match="positions"):
        check(reference(5, 16), positions=np.arange(6))
    with pytest.raises(InputError, match="failed"):
        check(lambda n, d: 1 / 0, d=16)


def test_check_reports_collisions_and_the_horizon():
    pos = np.arange(2040, 2060)
    p16 = pos.astype(np.float16).astype(np.float64)  # a float16 pipeline rounds positions
    T = reference(p16, 8, dtype="float16")
    rep = check(T, positions=pos)
    assert rep.collisions["identical_row_groups"] >= 1
    assert rep.horizon["integer_positions_exact_up_to"] == 2048
    assert rep.horizon["rows_whose_position_rounds_in_dtype"] > 0
    # rounding positions is what a float16 pipeline does, but distinct positions now share rows
    assert rep.verdict == DEGENERATE and rep.exit_code == 1
    assert rep.diagnoses[-1].startswith("positions 2048, 2049 give identical rows")
    assert "exactly only up to 2048" in rep.diagnoses[-1]
    assert check(T, positions=pos, allow_collisions=True).verdict == ROUNDING


def test_json_envelope():
    env = check(reference(64, 16)).to_json()
    assert env["schema"] == "peproof.check/1" and env["suite_version"]
    for key in ("precision", "platform", "input", "identified", "summary", "checks", "verdict"):
        assert key in env
    assert env["precision"]["fast_path_axiom"]
    assert env["verdict"]["code"] == "conforms" and env["verdict"]["exit_code"] == 0
    ids = [c["id"] for c in env["checks"]]
    assert ids[:3] == ["spec_exact", "error_model", "variant"]
    assert env["checks"][1]["constants"]["c_sin"] >= 1
    spec = env["checks"][0]
    assert sum(h["count"] for h in spec["histogram_ulp"]) == 64 * 16
    assert set(spec["quantiles_ulp"]) == {"0.5", "0.9", "0.99", "0.999"}
    import json

    json.dumps(env, allow_nan=False)  # standard JSON as is
    bad = reference(16, 8)
    bad[0, 0] = 0.5  # sin(0) = 0 exactly: an infinite ulp error
    json.dumps(check(bad).to_json(), allow_nan=False)


def test_assert_sinusoidal_passes_and_fails_with_a_useful_message():
    assert_sinusoidal(reference(64, 16))
    assert_sinusoidal(reference(64, 16, layout="sin_cos"), layout="sin_cos")
    with pytest.raises(AssertionError) as err:
        assert_sinusoidal(reference(64, 16, family="h-1", layout="sin_cos"))
    msg = str(err.value)
    assert "different variant: h-1 family, base 10000, [sin|cos] layout" in msg
    assert "the h-1 exponent i/(d/2-1)" in msg and "worst" not in msg  # nothing is wrong
    assert len(msg.splitlines()) <= 12
    with pytest.raises(AssertionError, match="(?i)within the error model of its dtype"):
        assert_sinusoidal(_recipe_float32(3000, 64), allow_rounding=False)


def test_check_accepts_torch_like_and_list_inputs():
    rows = reference(8, 4).tolist()
    assert check(rows).verdict == CONFORMS
    assert check(reference(20, 8)[:, None, :]).n == 20  # (max_len, 1, d) buffers


@pytest.mark.parametrize("family,layout,offset,scale", [
    ("paper", "interleaved", 0, 1),
    ("h-1", "sin_cos", 2, "1/sqrt(d)"),
    ("paper", "cos_sin", -3, 2),
])
def test_reference_matches_an_independent_evaluation(family, layout, offset, scale):
    """reference() against Encoding.vector_mp (mpmath, 60 digits: no oracle code involved),
    rounded by brute force: the self-test's tables are only as good as this."""
    import mpmath

    from peproof.encoding import Encoding

    d, pos = 16, [0, 1, 3, 77, 4096, 65535]
    enc_scale = "1/4" if scale == "1/sqrt(d)" else scale  # 1/sqrt(16), as a number
    enc = Encoding(d, family=family, layout=layout, offset=offset, scale=enc_scale)
    for dt in ("float32", "float16", "bfloat16"):
        fmt = get_format(dt)
        got = reference(pos, d, family=family, layout=layout, offset=offset, scale=scale,
                        dtype=dt).astype(np.float64)
        with mpmath.mp.workdps(60):
            want = [[exact_round(Fraction(str(v)), fmt) for v in enc.vector_mp(p, 60)]
                    for p in pos]
        assert np.array_equal(got, np.array(want)), (dt, family, layout)


def test_undecided_entries_are_never_counted_as_not_within_one_ulp():
    """A float64 table from float32-style exp frequencies run in float64: many entries are
    certainly more than 1 ulp off, and the count stops deciding the rest (undecided).  The
    report must not read "0 of N entries within 1 ulp" for them."""
    import re

    from peproof.numeric import recipes as R

    t = R.table(Encoding(128), "float64", "exp-float", np.arange(256))
    rep = check(t)
    c = rep.spec
    assert c.undecided > 0 and c.not_faithful > 0
    for text in (rep.render(), rep.render(full=False)):
        assert not re.search(r"\b0 of \d+ entries within 1 ulp", text), text
        assert f"{c.undecided} undecided" in text
        assert not re.search(r"correctly rounded: 0\.000%", text), text
