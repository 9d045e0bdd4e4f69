"""The error-bound and chord scripts (peproof/kernel/coq/bound_scripts.py): each shape is checked in
Coq, the same shape made false is NOT checked, and the registry's error-model claims they close
are checked.  One ``check_claims`` call (one library build, one batch).

* ``box`` (slack products of every two boxes ``|t| <= a``, a quotient as ``|N| <= R D``): the
  scale step and the smooth weight (registry); the scale step's falsifier (the scaled value's
  rounding ignored) is not checked.
* ``box-square`` (``L^2`` times each slack, the two cases of ``L``): a value between 1 and
  ``1/(1 + beta)``; falsifier: ``|w - 1| <= b`` (false at ``beta = -b``, ``w = 1/(1 - b)``).
* ``chain`` (``prod (1 - a) <= A <= prod (1 + a)`` by monotonicity, ``A``, ``B`` opaque, then
  ``nra``): two roundings' ``|1/((1+d1)(1+d2)) - 1| <= (129/64) u``, falsifier ``<= 2 u`` (false
  at ``d1 = d2 = -u``); three roundings' (registry); falsifiers: ``|1/(...) - 1| <= 3 u``
  (false at ``d_i = -u``) and the quotient ``(1+d1)/(1+d2)`` within ``u`` (false at ``d1 = u``,
  ``d2 = -u``).
* ``chord`` (``MVT_abs``): ``|sin p - sin q| <= |p - q|`` (the ``Abs`` form);
  falsifier: ``(sin 2p - sin q)^2 <= (p - q)^2`` (false at ``p = 1/10, q = 0``).
* obligations ``1 + delta <> 0`` from the boxes (two roundings' quotients need them).
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Le, Statement, var
from peproof.families import error_model as em
from peproof.families import error_model_maps as maps
from peproof.kernel.coq import run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

A = sp.Abs
p, PV = var("p", "real")
q, QV = var("q", "real")
INV2 = A(1 / ((1 + maps.d1) * (1 + maps.d2)) - 1)
INV3 = A(1 / ((1 + maps.d1) * (1 + maps.d2) * (1 + maps.d3)) - 1)
TWO_HYPS = maps.TWO.hyps
TWO_VARS = maps.TWO.vars

#: id -> (statement, checked?)
CASES = {
    "chain.inverse_two": (Statement(Le(INV2, maps.C2 * maps.u), TWO_VARS, TWO_HYPS), 1),
    "chain.inverse_two_first_order": (Statement(Le(INV2, 2 * maps.u), TWO_VARS, TWO_HYPS), 0),
    "box.scale_rounding_ignored": (em.SCALE.with_concl(
        Le(A(em.s * em.H * (1 + em.delta) + em.eta - em.s * em.F), em.s * em.E + em.u * em.N)),
        0),
    "square.power_first_order": (maps.POWER.with_concl(Le(A(maps.w - 1), maps.b)), 0),
    "chain.inverse_three_first_order": (maps.THREE.with_concl(Le(INV3, 3 * maps.u)), 0),
    "chain.quotient_one_counted": (maps.TWO.with_concl(
        Le(A((1 + maps.d1) / (1 + maps.d2) - 1), maps.u)), 0),
    "chord.abs": (Statement(Le(A(sp.sin(p) - sp.sin(q)), A(p - q)), (PV, QV)), 1),
    "chord.double_angle": (Statement(Le((sp.sin(2 * p) - sp.sin(q)) ** 2, (p - q) ** 2),
                                     (PV, QV)), 0),
}

#: registry claims the new scripts check (none was checked before them)
REGISTRY = ("error_model.sin_cos_move_at_most_angle_error", "error_model.scale_step_bound",
            "error_model.map_two_roundings", "error_model.map_three_roundings",
            "error_model.map_smooth_weight",
            "error_model.map_power_of_rounded_base")


@pytest.fixture(scope="module")
def results(tmp_path_factory, coq_shapes):
    return coq_shapes(tmp_path_factory, CASES, REGISTRY, kind="inequality")


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", sorted(CASES) + list(REGISTRY))
def test_bound_shape_checked_and_its_falsifier_not(results, key):
    r = results[key]
    want = CASES[key][1] if key in CASES else 1
    assert int(r.checked) == want, (key, r.status)
    if r.checked:
        assert not set(r.assumptions) - run.ALLOWED, key
