"""Separation: certified margins between the encodings of distinct positions.

Main statements
  ``separation.positions_distinct_up_to_62832_d512``,
  ``separation.positions_distinct_up_to_62832_d4``,
  ``separation.positions_distinct_up_to_1000000_d512``,
  ``separation.adjacent_pairs_closest_up_to_62832_d512``,
  ``separation.distant_pairs_no_closer_than_adjacent_d4`` (refuted),
  ``separation.closest_pair_up_to_62832_d4``.

Implementation notes
  Every statement is about pairs of positions ``0 <= a < b < N`` and the squared distance
  ``||PE(a) - PE(b)||^2`` written as a concrete ``Sum`` over the pairs (frequencies from
  ``omega_expr``).  The proofs reduce it to the offset (``distance.depends_only_on_offset``,
  ``distance.sq_eq_two_sum_one_minus_cos``: the squared distance is ``D(b - a)``) and run the
  certified scan of :mod:`peproof.numeric.separation`: a float64 pre-scan of every offset with a
  proved error bound, then arb balls for every offset that could be the minimum.  A proof first
  checks that it was handed exactly the statement it certifies.  Offsets that appear in
  statements (the closest pair at d = 4) are computed by the scan, never typed.

References
  Seed 000, "Every position has a unique representation, over practical lengths"; seed 001,
  worked example 2 (nearby versus distant positions, d = 4).
"""

from __future__ import annotations

from functools import cache

import mpmath
import sympy as sp

from peproof.claims import Claim, Falsifier, Le, Lt, Statement, Verdict, var
from peproof.families._common import pair
from peproof.numeric import N_TURN  # ceil(2 pi 10000): "roughly sixty thousand"
from peproof.scope import omega as omega_expr  # the law in force (paper or --variant)
from peproof.seeds import FOURIER, INTRO, src

a, V_A = var("a", "nonneg_integer")
b, V_B = var("b", "nonneg_integer")
_j = sp.Symbol("j", integer=True, nonnegative=True)  # summation index over the pairs


N_MILLION = 10**6
REDUCTION = ("distance.depends_only_on_offset", "distance.sq_eq_two_sum_one_minus_cos",
             "distance.half_angle_form")
UNIQUE = "Every position has a unique representation, over practical lengths"
EXAMPLE2 = "Worked example 2: distinguishing nearby versus distant positions"


class PairSum(sp.Sum):
    """A finite sum over the pairs, kept as a sum: ``doit`` leaves it alone (SymPy's symbolic
    summation of ``sin(10000**(-j/256) a)**2`` does not terminate in useful time) and
    ``evalf`` adds the terms with mpmath.  Everything else sees an ordinary ``Sum``: arb
    encloses it term by term (:func:`peproof.kernel.arb.arb_eval`)."""

    def doit(self, **hints):
        return self

    def _eval_evalf(self, prec):
        f, (j, lo, hi) = self.function, self.limits[0]
        if f.free_symbols - {j} or not (lo.is_Integer and hi.is_Integer):
            return None
        term = _mp_term(f, j)
        with mpmath.mp.workprec(prec + 30):
            total = mpmath.fsum(term(mpmath.mpf(t)) for t in range(int(lo), int(hi) + 1))
        return sp.Float(total, precision=prec)


@cache
def _mp_term(f: sp.Expr, j: sp.Symbol):
    return sp.lambdify(j, f, "mpmath")


def sq_dist(d: int, p, q, w=None) -> PairSum:
    """``||PE_d(p) - PE_d(q)||^2`` (paper family) as a concrete sum over the ``d/2`` pairs;
    ``w`` (the frequency of pair ``j``) defaults to ``omega_expr(j, d)``."""
    w = omega_expr(_j, d) if w is None else w
    diff = pair(w, p) - pair(w, q)
    return PairSum(diff[0] ** 2 + diff[1] ** 2, (_j, 0, d // 2 - 1))


def _pairs(n_pos: int, concl) -> Statement:
    return Statement(concl, (V_A, V_B), hyps=(Lt(a, b), Le(b, n_pos - 1)))


def distinct_statement(d: int, n_pos: int, w=None) -> Statement:
    return _pairs(n_pos, Lt(0, sq_dist(d, a, b, w)))


def floor_statement(d: int, n_pos: int, k: int, w=None) -> Statement:
    """No two positions below ``n_pos`` are closer than positions ``0`` and ``k``."""
    return _pairs(n_pos, Le(sq_dist(d, 0, k, w), sq_dist(d, a, b, w)))


def _scanned_omega(d: int) -> sp.Expr:
    """The frequency the scan certifies with: ``Encoding.omega_arb`` computes
    ``base ** (-2j/d)`` from the encoding's exact base; the same power, built here without
    ``omega_expr``, so a proof notices a statement about other frequencies."""
    from peproof.numeric.scan import encoding

    if _LAW is None:
        return encoding(d, "paper", "10000")._base ** (-2 * _j / sp.Integer(d))
    const, b, rate = encoding(d, *_LAW).law  # a variant's law (peproof prove --variant)
    return const * b ** (rate * _j)


@cache
def certified(d: int, n_pos: int):
    from peproof.numeric.separation import certify

    if _LAW is None:
        return certify(d, n_pos)
    return certify(d, n_pos, *_LAW)


def _variant_law():
    """``(family, base)`` of the variant the module is built for (None: the paper), or the
    reason the certified scan does not take it."""
    from peproof import scope

    v = scope.current()
    if not isinstance(v, scope.Sinusoidal):
        return None, ""
    e = v.enc
    if e.family not in ("paper", "h-1") or e._scale != 1 or e._max_freq != 1 or e.turns:
        return None, ("the certified separation scan (peproof/numeric/separation.py) takes the "
                      "paper or h-1 law at scale 1 without a frequency scale")
    return (e.family, str(e._base)), ""


_LAW, _SCAN_WHY = _variant_law()


def build(variant=None) -> list[Claim]:
    """The claims for ``variant`` (built with it in force: the scan certifies its law); not
    applicable to a law the scan does not take."""
    from peproof.variant_claims import not_applicable

    if not _SCAN_WHY:
        return CLAIMS
    return [not_applicable(c, _SCAN_WHY) for c in CLAIMS]


def _lemmas_proved() -> list[str]:
    from peproof.verdicts import verdict_of as verdict

    return [u for u in REDUCTION if verdict(u).status != "proved"]


def _verdict(status: str, sep, trace: list[str], witness: dict | None = None,
             reason: str = "") -> Verdict:
    import flint

    return Verdict(
        status, "float64+arb", f"python-flint {flint.__version__}",
        "certified scan: float64 pre-scan with a proved bound, arb for every candidate",
        axioms=tuple(sep.trusted_base) + tuple(f"lemma {u} (proved)" for u in REDUCTION),
        trace=trace, witness=witness, reason=reason,
    )


def scan_proof(d: int, n_pos: int, what: str, k=None):
    """Proof of ``distinct_statement(d, n_pos)`` (``what="distinct"``) or of
    ``floor_statement(d, n_pos, k)`` (``what="floor"``; ``k`` may be a callable) by the
    certified scan."""

    def proof(stmt: Statement, claim: Claim) -> Verdict:
        from peproof.engines import witness
        from peproof.engines.decide import versions

        kk = k() if callable(k) else k
        w = _scanned_omega(d)
        want = (distinct_statement(d, n_pos, w) if what == "distinct"
                else floor_statement(d, n_pos, kk, w))
        if stmt != want:
            return Verdict("unknown", "float64+arb", versions()["python-flint"], "certified scan",
                           reason="statement is not the one this scan certifies")
        missing = _lemmas_proved()
        sep = certified(d, n_pos)
        trace = [
            "||PE(a) - PE(b)||^2 = D(b - a) = 4 sum_j sin^2(omega_j (b-a)/2) by "
            + ", ".join(REDUCTION),
            f"float64 pre-scan of offsets 1..{n_pos - 1}: proved bound {sep.float_bound:.3g}; "
            f"{sep.candidates} candidate(s) re-evaluated in arb",
            f"min D over the offsets in {sep.min_sq.text} at k = {sep.argmin}"
            + (" (certified unique)" if sep.certified_unique else " (tie not separated)"),
            f"D(1) in {sep.adjacent_sq.text}; offsets closer than adjacent: "
            f"{sep.closer_than_adjacent}",
        ]
        margin = {"min_sq_distance": [sep.min_sq.lo, sep.min_sq.hi], "ball": sep.min_sq.text,
                  "argmin_offset": sep.argmin, "n_pos": n_pos, "d": d,
                  "certified_by": "python-flint arb (rigorous balls) after a float64 scan "
                                  "with a proved error bound"}
        if missing or sep.undecided:
            return _verdict("unknown", sep, trace, reason=f"lemmas not proved: {missing}"
                            if missing else "; ".join(sep.undecided))
        if what == "distinct":
            if sep.distinct:
                return _verdict("proved", sep, trace + ["min D > 0: all positions distinct"],
                                margin)
            return _verdict("unknown", sep, trace, reason="minimum ball contains 0")
        if sep.argmin == [kk] and sep.certified_unique:
            return _verdict("proved", sep, trace + [f"D({kk}) is the certified minimum"], margin)
        counter = witness.check_point(stmt, {"a": 0, "b": sep.argmin[0]})
        if counter:
            return _verdict("refuted", sep, trace, counter)
        return _verdict("unknown", sep, trace, reason=f"D({kk}) not certified minimal")

    return proof


def _argmin_d4() -> int:
    return certified(4, N_TURN).argmin[0]


def _distinct_falsifiers(d: int, n_pos: int, k_min):
    def build(stmt: Statement):
        kk = k_min() if callable(k_min) else k_min
        return (
            Falsifier("farther_than_d", stmt.with_concl(Lt(d, sq_dist(d, a, b))),
                      "every pair more than d apart (squared)"),
            Falsifier("closed_min_exceeds_quarter_d",
                      Statement(Lt(sp.Rational(d, 4), sq_dist(d, 0, kk))),
                      "the closest pair (offset from the scan) more than d/4 apart; d=4: > 1"),
        )

    return build


def _claim_distinct(d: int, n_pos: int, quote: tuple, k_min) -> Claim:
    return Claim(
        f"separation.positions_distinct_up_to_{n_pos}_d{d}",
        f"d = {d}: the positions 0 .. {n_pos - 1} are pairwise distinct, with a certified margin",
        quote, lambda: distinct_statement(d, n_pos), "numeric", uses=REDUCTION,
        falsifiers=_distinct_falsifiers(d, n_pos, k_min),
        note="The margin (certified min of ||PE(a)-PE(b)||^2 and the offset attaining it) is in "
             "the verdict's witness.", proof=scan_proof(d, n_pos, "distinct"),
    )


_SEED_TURN = src(FOURIER, UNIQUE, "So for any sequence shorter than roughly sixty thousand tokens")
_SEED_ALL = src(FOURIER, UNIQUE, "rather than for all integers")
_SEED_EX2 = src(INTRO, EXAMPLE2, "distant positions still end up clearly distinguishable overall")

CLAIMS = [
    _claim_distinct(512, N_TURN, (_SEED_TURN,), 1),
    _claim_distinct(4, N_TURN, (_SEED_TURN,), _argmin_d4),
    _claim_distinct(512, N_MILLION, (_SEED_TURN, _SEED_ALL), 1),
    Claim(
        "separation.adjacent_pairs_closest_up_to_62832_d512",
        "d = 512: no two positions below 62832 are closer than adjacent positions",
        _SEED_EX2, lambda: floor_statement(512, N_TURN, 1), "numeric", uses=REDUCTION,
        falsifiers=lambda st: (
            Falsifier("at_d4", floor_statement(4, N_TURN, 1), "the same floor at d = 4"),
            Falsifier("second_neighbour_floor", floor_statement(512, N_TURN, 2),
                      "no pair closer than positions two apart"),
        ),
        proof=scan_proof(512, N_TURN, "floor", 1),
    ),
    Claim(
        "separation.distant_pairs_no_closer_than_adjacent_d4",
        "(worked example 2, d = 4) distant positions are at least as far apart as adjacent ones",
        _SEED_EX2, lambda: floor_statement(4, N_TURN, 1), "numeric", uses=REDUCTION,
        expect="refuted", companion="separation.closest_pair_up_to_62832_d4",
        erratum=("error", 3, "At small d, positions far apart come much closer than neighbours: 'clearly distinguishable' fails where it is exemplified."),
        falsifiers=lambda st: (
            Falsifier("strictly_farther", st.with_concl(Lt(sq_dist(4, 0, 1), sq_dist(4, a, b))),
                      "every other pair strictly farther than (0, 1)"),
            Falsifier("second_neighbour_floor", floor_statement(4, N_TURN, 2),
                      "no pair closer than positions two apart"),
        ),
        note="Worked example 2 uses d = 4 (a fast pair and a slow pair). 'Clearly "
             "distinguishable' is read as: no pair of positions below 62832 is closer than "
             "adjacent positions. The certified witness is the closest pair found by the scan.",
        proof=scan_proof(4, N_TURN, "floor", 1),
    ),
    Claim(
        "separation.closest_pair_up_to_62832_d4",
        "d = 4: the closest pair below 62832 is at the offset the scan certifies (far from 1)",
        _SEED_EX2, lambda: floor_statement(4, N_TURN, _argmin_d4()), "numeric", uses=REDUCTION,
        falsifiers=lambda st: (
            Falsifier("adjacent_floor", floor_statement(4, N_TURN, 1),
                      "adjacent positions are the closest"),
            Falsifier("within_hundredfold_of_adjacent",
                      Statement(Lt(sq_dist(4, 0, 1) / 100, sq_dist(4, 0, _argmin_d4()))),
                      "the closest pair within a factor 100 (squared) of adjacent positions"),
        ),
        note="The offset in the statement is computed by the certified scan when the statement "
             "is built; the proof certifies it independently of that float search.",
        proof=scan_proof(4, N_TURN, "floor", _argmin_d4),
    ),
]
