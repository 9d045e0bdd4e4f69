"""The proof-script shapes of peproof/kernel/coq/scripts4.py and trig_values.py: each shape is
checked in Coq, the same shape made false is NOT checked, and the registry claims they close
are checked.  One ``check_claims`` call (one library build, one batch).

* ``triangle`` (``L`` as a sum of terms ``c * m`` over the boxes' atoms, each bounded by
  ``|c| prod a``, ``Rabs_triang``, then ``lra`` with products of the hypotheses' slacks):
  the dynamic factor and the blend of the error model (registry; a box on ``h - g``, a
  product of two atoms, coefficients of both signs);
  falsifier: the blend's bound without its ``G (s - 1)`` term (false at ``s = 2``, ``g = 0``,
  ``h = G = 1/2``, ``e_i = 0``, ``r_1 = 1/100``); the scripts' falsifiers cost seconds of
  failing alternatives each, so one stands for the shape.
* ``sum_le`` (both sides one sum by ``zsum_scal``, compared term by term, each term by
  ``2 (1 - cos x) <= x^2``): the Lipschitz bound of the distance (registry) and the same with
  base 500000; falsifiers: the bound divided by 4 (false for small ``k``), the range
  ``0..n-2`` (at ``n = 0`` Karr's convention makes each side minus its term at ``i = -1``:
  the order turns, false for ``k != 0``).
* ``sum_odd`` (the first term peeled, the rest reflected ``n -> 1 + U - n`` and each term
  minus itself by ``sin_period_neg``/``cos_period_neg``): the DFT's sin-cos orthogonality
  (registry) and ``Sum(sin(2 pi k m / N), (m, 0, N - 1)) = 0``; falsifiers: the range
  ``0..N-2`` (false at ``N = 3``, ``k = 1``).
* ``values`` (a statement without variables: every angle a rational multiple of pi reduced
  by ``sin_period``/``cos_period`` to a sum of PI/2, PI and PI/6, PI/4 or PI/3, the addition
  formulas and the standard library's values; each value asserted once, each conjunct
  rewritten alone): the concrete real DFS bases (registry) and ``cos(2 pi/3) sin(10 pi/3) +
  sin(pi/4) cos(9 pi/4) = sqrt 3/4 + 1/2``; falsifiers: ``sin(5 pi/3) = sqrt 3/2`` (the sign),
  ``cos(pi/6) = 1/2``.
* ``pair`` (trig_values.separation_pair: a sin/cos pair at one frequency is ``2 - 2 cos`` of
  the angle's difference, below 2 when the half difference lies in ``(0, pi)``; the other
  squares ``>= 0``): NeRF's injectivity on ``[-1, 1)`` (registry; it ran out of its 11 s
  before) and the same at ``2 pi`` on ``[0, 1)``; falsifier: ``[-1, 1)`` at ``2 pi`` (false
  at ``x = -1/2``, ``y = 1/2``).
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, var
from peproof.families import error_model_maps as maps
from peproof.kernel.coq import run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

A = sp.Abs
d, DV = var("d", "even_pos_integer")
n, NV = var("n", "nonneg_integer")
k, KV = var("k", "real")
I = sp.Symbol("i", integer=True, nonnegative=True)


def _lipschitz(base, top, c=1):
    """``2 Sum(1 - cos(k / base^(2i/d))) <= c k^2 Sum(base^(-4i/d))``, i from 0 to ``top``."""
    left = 2 * sp.Sum(1 - sp.cos(k / sp.Integer(base) ** (2 * I / d)), (I, 0, top))
    right = c * k ** 2 * sp.Sum(sp.Integer(base) ** (-4 * I / d), (I, 0, top))
    return Statement(Le(left, right), (KV, DV, NV) if top.has(n) else (KV, DV))


NN, NNV = var("N", "pos_integer")
KZ, KZV = var("kz", "integer")
M = sp.Symbol("m", integer=True, nonnegative=True)


def _sines(top, freq):
    """``Sum(sin(2 pi freq m / N), (m, 0, top - 1)) = 0``."""
    fv = (KZV,) if freq == KZ else (KV,)
    return Statement(Eq(sp.Sum(sp.sin(2 * sp.pi * freq * M / NN), (M, 0, top - 1)), 0),
                     (NNV,) + fv)


def _sin(p, q):
    """``sin(p pi / q)`` unevaluated (SymPy would write its value)."""
    return sp.sin(p * sp.pi / q, evaluate=False)


def _cos(p, q):
    return sp.cos(p * sp.pi / q, evaluate=False)


X, XV = var("x", "real")
Y, YV = var("y", "real")


def _pair(low):
    """``0 < (sin 2 pi x - sin 2 pi y)^2 + (cos 2 pi x - cos 2 pi y)^2 + (sin 4 pi x - sin 4 pi
    y)^2`` for ``x != y`` in ``[low, 1)``."""
    def sq(f, c):
        return (f(c * sp.pi * X) - f(c * sp.pi * Y)) ** 2
    return Statement(Lt(0, sq(sp.sin, 2) + sq(sp.cos, 2) + sq(sp.sin, 4)), (XV, YV),
                     hyps=(Le(low, X), Lt(X, 1), Le(low, Y), Lt(Y, 1), Ne(X, Y)))


#: id -> (statement, checked?)
CASES = {
    "tri.blend_without_weight_error": (maps.BLEND.with_concl(
        Le(A(maps.BLEND_LHS), maps.X_S * maps.r1)), 0),
    "sum_le.base_500000": (_lipschitz(500000, d / 2 - 1), 1),
    "sum_le.quarter": (_lipschitz(10000, d / 2 - 1, sp.Rational(1, 4)), 0),
    "sum_le.reversed_range": (_lipschitz(10000, n - 2), 0),
    "sum_odd.sines": (_sines(NN, KZ), 1),
    "sum_odd.sines_short": (_sines(NN - 1, KZ), 0),
    "values.thirds_quarters": (Statement(Eq(
        _cos(2, 3) * _sin(10, 3) + _sin(1, 4) * _cos(9, 4), sp.sqrt(3) / 4 + sp.Rational(1, 2))),
        1),
    "values.wrong_sign": (Statement(Eq(_sin(5, 3), sp.sqrt(3) / 2)), 0),
    "values.wrong_value": (Statement(Eq(_cos(1, 6), sp.Rational(1, 2))), 0),
    "pair.unit_interval": (_pair(0), 1),
    "pair.period_apart": (_pair(-1), 0),
}

#: registry claims the new scripts check (none was checked before them)
REGISTRY = ("error_model.map_dynamic_factor", "error_model.map_blend",
            "distance.lipschitz_in_offset", "dft.sin_cos_orthogonal",
            "dft.real_dfs_basis_concrete", "nerf.injective_on_half_open_interval")


@pytest.fixture(scope="module")
def results(tmp_path_factory, coq_shapes):
    return coq_shapes(tmp_path_factory, CASES, REGISTRY, kind="inequality")


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", sorted(CASES) + list(REGISTRY))
def test_scripts4_shape_checked_and_its_falsifier_not(results, key):
    r = results[key]
    want = CASES[key][1] if key in CASES else 1
    assert int(r.checked) == want, (key, r.status)
    if r.checked:
        assert not set(r.assumptions) - run.ALLOWED, key
