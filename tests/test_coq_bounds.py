"""The bound scripts of the Coq kernel (Check.v "Bounds", tactics.bound_alternatives): each
class of inequality they close is checked in Coq, and the same statement made false (the bound
tightened past the truth, a hypothesis dropped, the relation turned) is NOT checked.

Classes and their falsifiers:

* error bounds with ``Abs`` (the error model's composition of relative errors) -- the bound
  ``(a + 1)(b + 1) - 1`` tightened to ``a + b``;
* common summands and positive factors on both sides, a quotient by a positive difference
  (the affine maps of the fourier family) -- the relation turned (``>``);
* quotients by a positive sum (softmax weights) -- the lower bound 0 raised to 1/2.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Claim, Le, Lt, Source, Statement, var
from peproof.kernel.coq import check, run, tactics

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")


@pytest.fixture(scope="module")
def cache(coq_worker_cache):
    return coq_worker_cache  # the worker's (conftest): the library compiles once per worker


def _claim(cid, st):
    return Claim(cid, "test", Source("test", "test", "test"), st, "identity")


def _statements():
    x, X = var("x", "real")
    y, Y = var("y", "real")
    a, A = var("a", "pos_real")
    b, B = var("b", "pos_real")
    p, P = var("p", "pos_real")
    q, Q = var("q", "pos_real")
    bounds = (Le(sp.Abs(x), a), Le(sp.Abs(y), b))
    err = sp.Abs((x + 1) * (y + 1) - 1)
    aff = lambda t: -sp.pi + 2 * sp.pi * (t - a) / (b - a)  # noqa: E731
    w = p / (p + q)
    return {
        "b.compose": (Statement(Le(err, (a + 1) * (b + 1) - 1), (X, Y, A, B), hyps=bounds), 1),
        "b.compose_tight": (Statement(Le(err, a + b), (X, Y, A, B), hyps=bounds), 0),
        "b.affine": (Statement(Lt(aff(x), aff(y)), (X, Y, A, B),
                               hyps=(Lt(a, b), Lt(x, y))), 1),
        "b.affine_turned": (Statement(Lt(aff(y), aff(x)), (X, Y, A, B),
                                      hyps=(Lt(a, b), Lt(x, y))), 0),
        "b.weight": (Statement(Lt(0, w), (P, Q)), 1),
        "b.weight_raised": (Statement(Lt(sp.Rational(1, 2), w), (P, Q)), 0),
    }


def test_bound_scripts_are_offered_by_shape():
    """The alternatives follow the relation's shape: Abs -> pe_absnra, a quotient ->
    pe_divnra, always pe_gcongr (no claim id is read)."""
    st = _statements()
    absn = tactics.bound_alternatives([sp.Abs(sp.Symbol("x")), sp.Integer(1)])
    assert any("pe_absnra" in s for s in absn) and not any("pe_divnra" in s for s in absn)
    w = st["b.weight"][0].concl[0]
    div = tactics.bound_alternatives([w.lhs, w.rhs])
    assert any("pe_divnra" in s for s in div) and any("pe_gcongr" in s for s in div)


@needs_coq
@pytest.mark.timeout(600)
def test_bound_classes_checked_and_their_falsifiers_not(cache):
    claims = _statements()
    res = check.check_claims([_claim(k, s) for k, (s, _) in claims.items()], {},
                             cache_dir=cache)
    got = {k: int(r.checked) for k, r in res.items()}
    assert got == {k: want for k, (_, want) in claims.items()}, \
        {k: r.status for k, r in res.items()}
    for k, (_, want) in claims.items():
        if want:
            assert not set(res[k].assumptions) - run.ALLOWED, k


@needs_coq
@pytest.mark.timeout(600)
def test_without_the_bound_scripts_the_new_classes_are_not_checked(cache, monkeypatch):
    """The sabotage: bound_alternatives offering nothing -- the affine map (a common factor
    and a quotient) is no longer checked, so the test above rests on the new scripts.  (Since
    coqineq_scripts, its factored-difference script also closes it: that one is switched off
    too, so that this still shows the bound scripts' share.)"""
    monkeypatch.setattr(tactics, "bound_alternatives", lambda exprs: [])
    monkeypatch.setattr(tactics, "extra_alternatives", lambda st, goal, plan=None: {})
    st, _ = _statements()["b.affine"]
    res = check.check_claims([_claim("b.affine", st)], {}, cache_dir=cache)
    assert not res["b.affine"].checked


@needs_coq
@pytest.mark.timeout(600)
def test_an_instance_with_closed_integer_limits_and_its_falsifier(cache):
    """An 'exists' claim whose instance leaves closed integer terms under IZR (the limit
    d/2 - 1 at d = 4: pe_zcomp computes them) is checked at its certified instance; the same
    claim at an instance where the relation is false (k = 1: the distance still grows) is not."""
    from peproof import registry

    claim = registry.select("distance.not_monotone_in_offset")[0]
    good = {"status": "proved", "witness": {"point": {"k": "3", "d": "4"}}}
    bad = {"status": "proved", "witness": {"point": {"k": "1", "d": "4"}}}
    assert check.check_claims([claim], {claim.id: good}, cache_dir=cache)[claim.id].checked
    assert not check.check_claims([claim], {claim.id: bad}, cache_dir=cache)[claim.id].checked


@needs_coq
@pytest.mark.timeout(600)
def test_integer_multiples_of_pi_and_their_falsifiers(cache):
    """pe_piZ: sin(pi n) = 0, cos(2 pi m) = 1, cos(pi (2 m + 1)) = -1 over the integers are
    checked, and so are the registry's dft.nyquist_entry_alternates and
    dft.endpoint_sines_vanish (without pe_piZ these two are not: the sabotage);
    sin(pi n / 2) = 0, sin(2 pi (N/4) n / N) = 0 and cos(pi (2 m + 1)) = 1 (false at n = 1,
    m = 0) are not."""
    from peproof.claims import Eq

    n, N = var("n", "integer")
    m, M = var("m", "integer")
    big, B = var("N", "even_pos_integer")

    def angle(frac):  # 2 pi (N frac) n / N, kept unevaluated as the registry writes it
        return sp.Mul(2, sp.pi, sp.Mul(big, frac, evaluate=False), n, sp.Pow(big, -1),
                      evaluate=False)

    claims = {
        "z.endpoint": (Statement(Eq(sp.sin(angle(sp.Rational(1, 2))), 0), (B, N)), 1),
        "z.quarter": (Statement(Eq(sp.sin(angle(sp.Rational(1, 4))), 0), (B, N)), 0),
        "z.sin": (Statement(Eq(sp.sin(sp.pi * n), 0), (N,)), 1),
        "z.cos_even": (Statement(Eq(sp.cos(sp.pi * 2 * m), 1), (M,)), 1),
        "z.cos_odd": (Statement(Eq(sp.cos(sp.pi * (2 * m + 1)), -1), (M,)), 1),
        "z.sin_half": (Statement(Eq(sp.sin(sp.pi * n / 2), 0), (N,)), 0),
        "z.cos_odd_one": (Statement(Eq(sp.cos(sp.pi * (2 * m + 1)), 1), (M,)), 0),
    }
    from peproof import registry

    reg = registry.select("dft.nyquist_entry_alternates") + registry.select(
        "dft.endpoint_sines_vanish")
    claims.update({c.id: (c.statement, 1) for c in reg})
    res = check.check_claims([_claim(k, s) for k, (s, _) in claims.items()], {},
                             cache_dir=cache)
    got = {k: int(r.checked) for k, r in res.items()}
    assert got == {k: want for k, (_, want) in claims.items()}, \
        {k: r.status for k, r in res.items()}
