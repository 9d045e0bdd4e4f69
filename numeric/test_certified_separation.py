"""The certified separation scan against brute force, its bound, chunking and sabotage."""

from __future__ import annotations

import math
import random
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from peproof.encoding import Encoding, ParameterError
from peproof.numeric import (
    D_ALL,
    expo,
    scan,
)
from peproof.numeric.confirm import confirm
from peproof.numeric.separation import ArbD, certify, wrap_position


def brute(d: int, n_pos: int, family: str = "paper") -> dict:
    """Every offset in arb: the minimum, its offsets, #closer than D(1), first decrease."""
    dk = ArbD(Encoding(d, family=family))
    balls = [None] + [dk(k) for k in range(1, n_pos)]
    order = sorted(range(1, n_pos), key=lambda k: balls[k].mid())
    k0 = order[0]
    assert len(order) == 1 or balls[k0] < balls[order[1]], "brute force cannot separate a tie"
    closer = sum(1 for k in range(2, n_pos) if balls[k] < balls[1])
    first = next((k for k in range(1, n_pos - 1) if balls[k + 1] < balls[k]), None)
    return {"argmin": k0, "ball": balls[k0], "closer": closer, "first_decrease": first}


def _msg(d, n, got, want):
    return f"d={d} N={n}: got {got}, expected {want}"


@pytest.mark.parametrize("d,n_pos", [(4, 2), (4, 3), (4, 700), (8, 2000), (16, 1500),
                                     (64, 800), (512, 300)])
def test_matches_brute_force_arb(d, n_pos):
    sep = certify(d, n_pos)
    want = brute(d, n_pos)
    assert sep.argmin == [want["argmin"]], _msg(d, n_pos, sep.argmin, want)
    mid = float(want["ball"].mid())
    assert sep.min_sq.lo <= mid <= sep.min_sq.hi, _msg(d, n_pos, sep.min_sq, want)
    closer = sep.closer_than_adjacent
    assert closer == want["closer"], _msg(d, n_pos, closer, want)
    assert sep.first_decrease == want["first_decrease"], _msg(d, n_pos, sep.first_decrease, want)
    assert sep.certified_unique and sep.distinct and not sep.undecided


@given(d=st.sampled_from((4, 6, 8, 12, 16)), n_pos=st.integers(2, 400),
       family=st.sampled_from(("paper", "h-1")))
def test_brute_force_property(d, n_pos, family):
    sep = certify(d, n_pos, family)
    want = brute(d, n_pos, family)
    assert sep.argmin == [want["argmin"]], _msg(d, n_pos, sep.argmin, want)
    assert sep.closer_than_adjacent == want["closer"]
    assert sep.first_decrease == want["first_decrease"]


@given(d=st.sampled_from((4, 16, 64, 256, 1024)), a=st.integers(1, 5 * 10**6),
       n=st.integers(1, 3000), cols=st.sampled_from((1, 7, 64, 1024)))
def test_float_bound_holds_against_arb(d, a, n, cols):
    dk, bound = scan.evaluate(d, "paper", "10000", a, n, cols)
    ref = ArbD(Encoding(d))
    rng = random.Random(a * 31 + n)
    for t in {0, n - 1, *(rng.randrange(n) for _ in range(6))}:
        err = abs(flint.arb(float(dk[t])) - ref(a + t))
        assert err < bound, f"d={d} k={a + t}: |D~ - D| <= {err.upper()} exceeds bound {bound}"


def test_shrunk_bound_is_violated():
    """The bound is not vacuous: a thousand times smaller, real float errors exceed it."""
    d, a, n = 1024, 3 * 10**6, 2048
    dk, bound = scan.evaluate(d, "paper", "10000", a, n)
    ref = ArbD(Encoding(d))
    worst = max(float(abs(flint.arb(float(dk[t])) - ref(a + t)).lower()) for t in range(0, n, 7))
    assert bound / 1000 < worst < bound, (worst, bound)


def test_phase_tables_within_their_bound():
    enc = Encoding(64)
    om = expo.arb_omegas(enc, 128)
    tab = expo.shifted(om, 123456, 17, 300)
    err = float(tab.err)
    for j in (0, 5, 31):
        for t in (0, 1, 150, 299):
            with flint.ctx.workprec(128):
                s, c = (om[j] * (123456 + 17 * t)).sin_cos()
            e = abs(flint.acb(tab.re[j, t], tab.im[j, t]) - flint.acb(c, s))
            assert e < err, (j, t, e, err)


def _perturbing(monkeypatch, offset: int, eps: float, fake_bound: float):
    """Float scan with an error of ``eps`` at ``offset`` and a declared bound ``fake_bound``
    (declared to the chunk check too, which would otherwise refuse a bound that is not the
    tables' own)."""
    from peproof.numeric import recertify

    real, real_expected = scan.evaluate, recertify.expected

    def fake(d, family, base, a, n, cols=scan.COLS, shrink=1.0):
        dk, _ = real(d, family, base, a, n, cols)
        if a <= offset < a + n:
            dk = dk.copy()
            dk[offset - a] += eps
        return dk, fake_bound * shrink

    def expected(job):
        want = real_expected(job)
        bound = fake_bound * job.get("shrink", 1.0) + want["pad"]
        return {**want, "bound": bound, "window": 2 * bound + job.get("slack", 2.0**-40)}

    monkeypatch.setattr(scan, "evaluate", fake)
    monkeypatch.setattr(recertify, "expected", expected)


def test_sabotaged_bound_misses_the_minimum(monkeypatch):
    """With a float error the declared bound covers, the scan still finds the true minimum;
    with the bound shrunk below that error it certifies a wrong offset, and brute force
    catches it."""
    d, n_pos = 4, 5000
    want = brute(d, n_pos)
    balls = sorted((float(ArbD(Encoding(d))(k).mid()), k) for k in range(1, n_pos))
    gap = balls[1][0] - balls[0][0]
    _perturbing(monkeypatch, want["argmin"], 2 * gap, 4 * gap)
    honest = certify(d, n_pos, workers=1)
    assert honest.argmin == [want["argmin"]]
    sabotaged = certify(d, n_pos, workers=1, shrink=1e-9)
    assert sabotaged.argmin != [want["argmin"]]
    assert sabotaged.argmin == [balls[1][1]]


@pytest.mark.parametrize("d", (4, 512))
def test_chunking_gives_identical_results(d):
    n_pos = 62832
    one = certify(d, n_pos).as_dict()
    with ThreadPoolExecutor(max_workers=2) as ex:
        many = certify(d, n_pos, chunk=4999, executor=ex).as_dict()
    assert many["chunks"] == math.ceil((n_pos - 1) / 4999)
    for key in ("min_sq", "argmin", "closer_than_adjacent", "first_decrease", "distinct",
                "certified_unique", "adjacent_sq", "wrap_position"):
        assert one[key] == many[key], (key, one[key], many[key])


def test_process_pool_executor_is_accepted():
    with ProcessPoolExecutor(max_workers=2) as ex:
        sep = certify(8, 62832, chunk=20000, executor=ex)
    assert sep.chunks == 4 and sep.argmin == certify(8, 62832).argmin


def test_wrap_positions():
    assert wrap_position(Encoding(4))[1] == 629  # 2 pi 100 = 628.3...
    assert wrap_position(Encoding(512, family="h-1"))[1] == 62832  # 2 pi 10000
    w = wrap_position(Encoding(512))[0]
    assert 60611 < float(w.mid()) < 60612


def test_mpmath_agrees_with_the_certified_interval():
    sep = certify(8, 62832)
    res = confirm(sep, sample=3)
    assert res["agree"], res
    assert any(c["kind"] == "minimum" for c in res["checks"])


def test_mpmath_check_can_fail():
    """A value outside the certified ball is reported as disagreeing."""
    from peproof.numeric.confirm import _inside, sq_dist_mp

    enc = Encoding(8)
    assert _inside(sq_dist_mp(enc, 0, 6), ArbD(enc)(6, 256), 50)
    assert not _inside(sq_dist_mp(enc, 0, 5), ArbD(enc)(6, 256), 50)


@pytest.mark.parametrize("args,match", [
    ((7, 100), "even integer"), ((8, 1), "N must be"), ((8, 2.5), "N must be"),
    ((8, 100, "nerf"), "paper or h-1"), ((8, 100, "paper", "1"), "base must be"),
])
def test_bad_input(args, match):
    with pytest.raises(ParameterError, match=match):
        certify(*args)


def test_memory_is_bounded_by_the_chunk():
    """Two chunk sizes: the float arrays of one chunk scale with the chunk, not with N."""
    dk, _ = scan.evaluate(64, "paper", "10000", 1, 5000)
    assert dk.nbytes == 5000 * 8
    job = {"d": 64, "family": "paper", "base": "10000", "a": 1, "b": 5001, "adj": (0.0, 0.0)}
    out = scan.scan_chunk(job)
    assert len(out["candidates"]) < 100 and isinstance(out["min"], float)


# ------------------------------------------------------------------------------- slow sweeps
@pytest.mark.slow
@pytest.mark.parametrize("d", (4, 8, 16, 32))
def test_full_arb_scan_at_turn(d):
    n_pos = 62832
    sep = certify(d, n_pos)
    want = brute(d, n_pos)
    assert sep.argmin == [want["argmin"]] and sep.closer_than_adjacent == want["closer"]
    assert sep.first_decrease == want["first_decrease"]


@pytest.mark.slow
@pytest.mark.parametrize("n_pos", (62832, 10**6))
def test_sweep_every_d(n_pos):
    for d in D_ALL:
        sep = certify(d, n_pos)
        assert sep.distinct and sep.certified_unique and not sep.undecided, (d, n_pos, sep)
        assert confirm(sep, sample=2)["agree"], (d, n_pos)


@pytest.mark.slow
def test_ten_million_offsets_in_bounded_memory():
    import resource

    sep = certify(512, 10**7, workers=2)
    assert sep.distinct and sep.chunks == 10
    mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
          + 2 * resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    assert mb < 1024, f"peak resident memory about {mb:.0f} MB"


def test_float_scan_matches_numpy_roughly():
    """Evidence only: the scan and a naive float64 evaluation agree to 1e-9."""
    enc = Encoding(32)
    k = np.arange(1, 3000)
    naive = 2 * (1 - np.cos(k[:, None] * enc.omegas_f64[None, :])).sum(axis=1)
    dk, _ = scan.evaluate(32, "paper", "10000", 1, 2999)
    assert np.max(np.abs(naive - dk)) < 1e-9
