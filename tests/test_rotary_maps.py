"""The frequency maps' error bounds (peproof.families.error_model_maps) against the recipes they
bound, run in exact arithmetic with every rounding pushed to +-u (or a sample of the sign
patterns), and against the host's real float64 computation of dynamic NTK's base."""

import itertools
import math
import random
from fractions import Fraction as Fr

import mpmath
import numpy as np
import pytest

from peproof.families.error_model_maps import host_base_error, map_relative_error
from peproof.rope_scaling import DynamicNTK, Linear, Llama3, LongRope, NTKAware, Yarn

U = 2.0**-24  # float32
E = 40 * U  # a base-frequency error of the size the model allows


def rel(a, b):
    return abs(Fr(a) / Fr(b) - 1)


def signs(k):
    return itertools.product((-1, 1), repeat=k)


@pytest.mark.parametrize("u", [2.0**-24, 2.0**-11, 2.0**-8])
def test_linear_and_longrope_cover_two_roundings_at_their_worst(u):
    """fl(theta^ / fl(s)) and 1 / fl(fl(lambda) fl(base^t)): every sign pattern of the base error
    and the two roundings stays within the bound (C2 = 2 would not: 1/(1-u)^2 - 1 > 2u)."""
    e = 40 * u
    for sc in (Linear(4), LongRope(short_factor=(1.5,) * 4, long_factor=(2,) * 4)):
        bound = map_relative_error(sc, 8, None, u, e, False)
        worst = max(
            max(rel((1 + se * Fr(e)) * (1 + s1 * Fr(u)) / (1 + s2 * Fr(u)), 1),
                rel((1 + se * Fr(e)) / ((1 + s1 * Fr(u)) * (1 + s2 * Fr(u))), 1))
            for se, s1, s2 in signs(3))
        assert worst <= bound
        assert worst > e + 2 * u  # the second-order terms the old additive constant dropped


def _ntk_recipe(base, s, d, sb, u):
    """theta'_j = (b' (1 + sb u))^(-2j/d) against b'^(-2j/d): the rounded base's effect."""
    bp = mpmath.mpf(base) * mpmath.mpf(s) ** (mpmath.mpf(d) / (d - 2))
    return max(abs((bp * (1 + sb * mpmath.mpf(u))) ** (-mpmath.mpf(2 * j) / d)
                   / bp ** (-mpmath.mpf(2 * j) / d) - 1) for j in range(d // 2))


def test_ntk_rounded_base_within_bound():
    mpmath.mp.prec = 200
    for s, d in ((2, 4), (8, 64), (64, 128)):
        bound = map_relative_error(NTKAware(s), d, None, U, 0.0, False)
        worst = max(_ntk_recipe(10000, s, d, sb, U) for sb in (-1, 1))
        assert worst <= bound
        assert bound < 1.1 * U + 64 * 2.0**-53 * (1 + 2 * math.log(s))


@pytest.mark.parametrize("s", [2.0, 4.0, 16.0, 64.0, 1000.0])
def test_dynamic_host_factor_real_float64_within_bound(s):
    """transformers computes base' = base * (s l/L - (s - 1))^(d/(d-2)) in Python floats: its
    real error against 200-bit arithmetic stays within host_base_error."""
    mpmath.mp.prec = 200
    rng = random.Random(7)
    for d in (4, 64, 128):
        for _ in range(40):
            big = rng.choice((2048, 4096, 8192))
            ln = big + rng.choice((1, 3, 17, 1000, rng.randrange(1, 10 * big)))
            got = 10000.0 * ((s * ln / big) - (s - 1)) ** (d / (d - 2))
            eff = mpmath.mpf(s) * ln / big - (s - 1)
            exact = 10000 * eff ** (mpmath.mpf(d) / (d - 2))
            err = abs(mpmath.mpf(got) / exact - 1)
            assert err <= host_base_error("dynamic", s, d, ln / big), (s, d, big, ln)


def _blend_recipe(theta, s, g_exact, g_hat, su):
    """((1 - h) theta^/s + h theta^) with the A term's four roundings, the B term's one and
    the sum's one, signs ``su`` (theta^ already carries its error)."""
    a = theta / s
    for k in su[:4]:
        a = a * (1 + k)
    b_ = theta * (1 + su[4])
    return ((1 - g_hat) * a + g_hat * b_) * (1 + su[5])


def test_llama3_blend_covers_the_amplified_base_error():
    """Llama 3's smooth factor is computed from the rounded frequency: a base error e moves the
    weight by ~ hi e/(hi - lo) and the blend amplifies that by s - 1.  Worst sign patterns stay
    within the bound; the old additive constant (e + (8 + 4 (s-1) hi/(hi-lo)) u) does not."""
    sc = Llama3(factor=8, low_freq_factor=1, high_freq_factor=4,
                original_max_position_embeddings=8192)
    s, lo, hi, big = 8, 1, 4, 8192
    u = Fr(U)
    bound = map_relative_error(sc, 128, None, U, E, False)
    old = E + (8 + 4 * (s - 1) * hi / (hi - lo)) * U
    pi = Fr(math.pi)
    worst = Fr(0)
    for q in (Fr(lo), Fr(5, 2), Fr(hi)):  # L/lambda across the band
        theta = q * 2 * pi / big
        exact = theta * ((1 - (q - lo) / (hi - lo)) / s + (q - lo) / (hi - lo))
        for se in (-1, 1):
            th_hat = theta * (1 + se * Fr(E))
            for sq in signs(3):
                q_hat = big * th_hat / (2 * pi)
                for k in sq:
                    q_hat *= 1 + k * u
                g_hat = min(max((q_hat - lo) / (hi - lo), Fr(0)), Fr(1))
                for su in [(-u,) * 6, (u,) * 6, (-u, -u, -u, -u, u, u), (u, u, u, u, -u, -u)]:
                    worst = max(worst, rel(_blend_recipe(th_hat, s, None, g_hat, su), exact))
    assert worst <= bound
    assert worst > old  # the constant the registry's statements replaced was too small


def test_yarn_index_ramp_within_bound():
    """transformers' YaRN: ext = 1 - clamp((j - low)/(high - low)) rounded; blend of 1/(s p) and
    1/p with the weights (1 - ext), ext."""
    s, u = 16, Fr(U)
    sc = Yarn(factor=s, original_max_position_embeddings=4096)
    bound = map_relative_error(sc, 64, None, U, E, False)
    rng = random.Random(3)
    low, high = Fr(5), Fr(17)
    worst = Fr(0)
    for j in range(0, 32):
        ramp = min(max((j - low) / (high - low), Fr(0)), Fr(1))
        g = 1 - ramp
        theta = Fr(1, 2**j)
        exact = theta * ((1 - g) / s + g)
        for _ in range(40):
            d_ = [rng.choice((-u, u)) for _ in range(10)]
            r_hat = min(max((j - low) / (high - low) * (1 + d_[0]) * (1 + d_[1]) / (1 + d_[2]),
                            Fr(0)), Fr(1))
            ext = (1 - r_hat) * (1 + d_[3])
            w1 = (1 - ext) * (1 + d_[4])
            th_hat = theta * (1 + rng.choice((-1, 1)) * Fr(E))
            val = (w1 * th_hat / s * (1 + d_[5]) * (1 + d_[6]) * (1 + d_[7])
                   + ext * th_hat * (1 + d_[8])) * (1 + d_[9])
            worst = max(worst, rel(val, exact))
    assert worst <= bound


def test_unbounded_cases_are_vacuous_not_tight():
    """Outside the statements' hypotheses (u above 2^-8, a YaRN factor below 1) the bound is
    infinite: the oracle then cannot call anything wrong."""
    assert map_relative_error(Linear(2), 8, None, 2.0**-7, 0.0, False) == math.inf
    assert map_relative_error(Yarn(factor=0.5), 64, None, U, E, False) == math.inf
    assert map_relative_error(DynamicNTK(factor=4, max_position_embeddings=2048), 64, 4096,
                              U, E, False) < 1e-4


def test_oracle_reads_the_registry_bound():
    """The rotary model's frequency error is the registry's bound (a mutant of the statement's
    constant moves it)."""
    from peproof.families import error_model_maps as M
    from peproof.formats import get_format
    from peproof.oracle.rotary.model import FreqMap, freq_rel_error

    th = np.array([1.0, 0.01, 1e-4])
    f32 = get_format("float32")
    fm = FreqMap(Linear(4), 6)
    before = freq_rel_error(th, f32, fm)
    old = M.C2
    try:
        M.C2 = old * 2
        after = freq_rel_error(th, f32, fm)
    finally:
        M.C2 = old
    assert np.all(after > before)


def test_dynamic_factor_worst_roundings_within_bound():
    """The four float64 roundings of s l/L - (s - 1) pushed to +-v (the cancellation makes the
    relative error grow with s), then raised to d/(d-2): within host_base_error."""
    mpmath.mp.prec = 200
    v = Fr(2.0**-53)
    for s, big, ln in ((1000, 2048, 2049), (64, 4096, 4097), (8, 8192, 9000)):
        r = Fr(ln, big)
        eff = s * r - (s - 1)
        worst = Fr(0)
        for k in signs(4):
            hat = (s * r * (1 + k[0] * v) * (1 + k[1] * v) - (s - 1) * (1 + k[2] * v)) \
                * (1 + k[3] * v)
            worst = max(worst, rel(hat, eff))
        for d in (4, 128):
            ep = mpmath.mpf(d) / (d - 2)
            err = (1 + mpmath.mpf(worst.numerator) / worst.denominator) ** ep - 1
            assert err <= host_base_error("dynamic", float(s), d, float(r))
            assert err > 3 * 2.0**-53  # well above the rounding of the base alone


@pytest.mark.parametrize("a", [1.0, 1.2079441541679836])
def test_angle_addition_reference_within_its_bound(a):
    """reference_pair's addition-formula values (and the directly recomputed small ones) against
    200-bit cos/sin of the exact p theta^: within C_X a |x| + C_V |v| at every sampled entry,
    including late positions and entries near zero."""
    from peproof.oracle.rotary.compare import BLOCK, C_V, C_X, reference_pair

    mpmath.mp.prec = 200
    th = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64.0)
    for start in (0, 1_000_000 - 3 * BLOCK):
        pa = np.arange(start, start + 4 * BLOCK + 17, dtype=np.float64)
        ks = np.arange(BLOCK, dtype=np.float64)[:, None] * th[None, :]
        C, S, x = reference_pair(pa, th, a, (np.cos(ks), np.sin(ks)))
        Cd = np.cos(pa[:, None] * th[None, :]) * a
        assert np.abs(C - Cd).max() < 1e-9  # the same function (a wrong formula is off by O(1))
        rng = np.random.default_rng(start + 1)
        rows = rng.integers(0, pa.size, 300)
        cols = rng.integers(0, th.size, 300)
        small = np.argwhere(np.abs(C) < 2.0**-8 * a)[:20]
        for r_, c_ in list(zip(rows, cols, strict=True)) + [tuple(z) for z in small]:
            ang = mpmath.mpf(pa[r_]) * mpmath.mpf(th[c_])
            for V, f in ((C, mpmath.cos), (S, mpmath.sin)):
                ex = mpmath.mpf(a) * f(ang)
                err = abs(mpmath.mpf(V[r_, c_]) - ex)
                bound = C_X * a * abs(x[r_, c_]) + C_V * abs(V[r_, c_]) + 2.0**-1000
                assert err <= bound, (pa[r_], c_, float(err), bound)
