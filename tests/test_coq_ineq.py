"""Scripts of peproof/kernel/coq/coqineq_scripts.py (issue 23, item 4): powers of a literal
base whose exponent depends on an integer ``d`` -- each shape checked in Coq, the same shape
made false NOT checked.  One ``check_claims`` call (one batch).

* bracket, the numeric instance at ``d0``: ``10000 * 10000^((2 - d)/d) <= 8/5`` for
  ``d >= 40`` (monotone in ``d``, ``10000^(1/20) = 1.585`` by CoqInterval).  Falsifier:
  ``d >= 38`` (``1.624`` at ``d = 38``).
* bracket, the limit (strict, not reached): ``1 < 10000 * 10000^((2 - d)/d)``.  Falsifier:
  ``1 < 1000 * 10000^((2 - d)/d)`` (false for large ``d``).
* bracket through a quotient: ``2 pi / 10000^((2 - d)/d) < 20000 pi``.  Falsifier: ``2000 pi``.
* rebase: ``10000^((d - 2)/d) = 10^((4 d - 8)/d)`` and ``1000 sqrt 10 <= 10000^((d - 2)/d)``
  for ``d >= 16`` (equal at ``d = 16``: no slack for an interval bound).  Falsifiers:
  ``10^((4 d - 4)/d)``, ``d >= 14``.
* distinct angles of one turn: ``(sin x - sin y)^2 + (cos x - cos y)^2 <> 0`` for
  ``-pi <= y < x < pi``.  Falsifier: ``x <= pi`` (zero at ``x = pi``, ``y = -pi``).
* a difference of rational functions factored: ``a/s <= a t + a (1 - t)/s`` for ``s >= 1``,
  ``a > 0``, ``0 < t`` (the difference is ``a t (s - 1)/s``).  Falsifier: ``s > 0`` only.
* nested angles, with ``cos x <= 1`` beside: ``cos(x + y + z) = cos x cos(y + z) -
  sin x sin(y + z)`` (the addition formulas until nothing changes) and ``cos(-x + y + 3) =
  cos(x - 3) cos y + sin(x - 3) sin y`` (``-3`` as ``Ropp 3``).  Falsifiers: the signs turned.
* Abel's bound for two rotated terms: ``|p e(x) + q e(y)| <= M (|e(x) + e(y)| + |e(x)|)``
  from ``|p - q| <= M``, ``|q| <= M`` (norms as ``sqrt`` of sums of squares, whose
  ``0 <= ...`` obligations ``pow2_ge_0`` closes).  Falsifier: ``|p - q| <= 2 M`` (false at
  ``e(y) = -e(x)``, ``p - q = 2 M``).
* powers of a base that is not a literal, in exp/ln form: ``(10 s^(d/(d - 2)))^x =
  10^x s^(d x/(d - 2))`` and ``... / s`` (``/ s`` as ``exp (- ln s)``).  Falsifiers: the
  exponent of ``s`` changed.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Ne, Statement, var
from peproof.encoding import omega_expr
from peproof.kernel.coq import run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

d, DV = var("d", "even_pos_integer")
x, XV = var("x", "real")
y, YV = var("y", "real")
a, AV = var("a", "pos_real")
s, SV = var("s", "pos_real")
t, TV = var("t", "real")
z, ZV = var("z", "real")
sp_, SPV = var("s", "pos_real")
p_, PV = var("p", "real")
q_, QV = var("q", "real")
M_, MV = var("M", "real")
OMEGA = omega_expr(d / 2 - 1, d)  # the slowest frequency, the encoding's definition
SPAN = 10000 ** ((d - 2) / d)


def _st(rel, low=None):
    return Statement(rel, (DV,), (Le(low, d),) if low else ())


def _turn(upper):
    feat = (sp.sin(x) - sp.sin(y)) ** 2 + (sp.cos(x) - sp.cos(y)) ** 2
    return Statement(Ne(feat, 0), (XV, YV), (Le(-sp.pi, y), Lt(y, x), upper))


def _between(hyp):
    return Statement(Le(a / s, a * t + a * (1 - t) / s), (AV, SV, TV), (Lt(0, t), hyp))


def _nested(lhs, c1, c2, s1, s2, sign):
    """``lhs = c1 c2 + sign s1 s2`` and ``cos x <= 1`` (an inequality among the conclusions:
    the per-conjunct script is tried before coqlib's, as for the registry's attention claim)."""
    return Statement((Eq(lhs, c1 * c2 + sign * s1 * s2), Le(sp.cos(x), 1)), (XV, YV, ZV))


def _expln(e):
    return Statement(Eq((10 * sp_ ** (d / (d - 2))) ** x, 10 ** x * sp_ ** (e * x)),
                     (SPV, DV, XV), (Le(4, d),))


def _abel(bound):
    sx, cx, sy, cy = sp.sin(x), sp.cos(x), sp.sin(y), sp.cos(y)
    lhs = sp.sqrt((p_ * sx + q_ * sy) ** 2 + (p_ * cx + q_ * cy) ** 2)
    rhs = M_ * (sp.sqrt((sx + sy) ** 2 + (cx + cy) ** 2) + sp.sqrt(sx ** 2 + cx ** 2))
    return Statement(Le(lhs, rhs), (XV, YV, PV, QV, MV),
                     (Le(sp.Abs(p_ - q_), bound), Le(sp.Abs(q_), M_)))


#: id -> (statement, checked?)
CASES = {
    "br.instance": (_st(Le(10000 * OMEGA, sp.Rational(8, 5)), 40), 1),
    "br.instance_off": (_st(Le(10000 * OMEGA, sp.Rational(8, 5)), 38), 0),
    "br.limit": (_st(Lt(1, 10000 * OMEGA)), 1),
    "br.limit_off": (_st(Lt(1, 1000 * OMEGA)), 0),
    "br.quotient": (_st(Lt(2 * sp.pi / OMEGA, 20000 * sp.pi)), 1),
    "br.quotient_off": (_st(Lt(2 * sp.pi / OMEGA, 2000 * sp.pi)), 0),
    "rb.eq": (_st(Eq(SPAN, 10 ** ((4 * d - 8) / d))), 1),
    "rb.eq_off": (_st(Eq(SPAN, 10 ** ((4 * d - 4) / d))), 0),
    "rb.sqrt": (_st(Le(1000 * sp.sqrt(10), SPAN), 16), 1),
    "rb.sqrt_off": (_st(Le(1000 * sp.sqrt(10), SPAN), 14), 0),
    "da.turn": (_turn(Lt(x, sp.pi)), 1),
    "da.turn_off": (_turn(Le(x, sp.pi)), 0),
    "fa.between": (_between(Le(1, s)), 1),
    "fa.between_off": (_between(Lt(0, s)), 0),
    "el.split": (_expln(d / (d - 2)), 1),
    "el.split_off": (_expln(d / (d - 1)), 0),
    "el.inverse": (Statement(Eq((10 * sp_ ** (d / (d - 2))) ** ((2 - d) / d),
                                10 ** ((2 - d) / d) / sp_), (SPV, DV), (Le(4, d),)), 1),
    "el.inverse_off": (Statement(Eq((10 * sp_ ** (d / (d - 2))) ** ((2 - d) / d),
                                    10 ** ((2 - d) / d) * sp_), (SPV, DV), (Le(4, d),)), 0),
    "ab.two": (_abel(M_), 1),
    "ab.two_off": (_abel(2 * M_), 0),
    "tn.three": (_nested(sp.cos(x + y + z), sp.cos(x), sp.cos(y + z), sp.sin(x),
                         sp.sin(y + z), -1), 1),
    "tn.three_off": (_nested(sp.cos(x + y + z), sp.cos(x), sp.cos(y + z), sp.sin(x),
                             sp.sin(y + z), 1), 0),
    "tn.literal": (_nested(sp.cos(-x + y + 3), sp.cos(x - 3), sp.cos(y), sp.sin(x - 3),
                           sp.sin(y), 1), 1),
    "tn.literal_off": (_nested(sp.cos(-x + y + 3), sp.cos(x - 3), sp.cos(y), sp.sin(x - 3),
                               sp.sin(y), -1), 0),
}

#: registry claims the new scripts check (none was checked before them)
REGISTRY = ("encoding.span_orders_exact", "encoding.min_frequency_within_five_percent_for_d_ge_378",
            "encoding.span_four_orders_rounded_for_d_ge_16",
            "encoding.max_wavelength_within_five_percent_for_d_ge_360",
            "uniqueness.slowest_pair_distinct_angles_before_wrap",
            "uniqueness.wrap_beyond_sixty_thousand_iff_d_ge_400",
            "fourier.period_features_distinguish_positions",
            "rope.llama3_band_between_interpolation_and_identity",
            "attention.fixed_linear_map_attends_to_offset_three", "rope.abel_bound_concrete_d")


@pytest.fixture(scope="module")
def results(tmp_path_factory, coq_shapes):
    return coq_shapes(tmp_path_factory, CASES, REGISTRY)


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", sorted(CASES) + list(REGISTRY))
def test_shape_checked_and_its_falsifier_not(results, key):
    r = results[key]
    want = CASES[key][1] if key in CASES else 1  # the registry's claims: checked
    assert int(r.checked) == want, (key, r.status)
    if r.checked:
        assert not set(r.assumptions) - run.ALLOWED, key
