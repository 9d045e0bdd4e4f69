"""The paper's claims re-built and re-decided for a variant (``peproof prove --variant``).

Expected numbers come from mpmath here, never from the code under test.
"""

from __future__ import annotations

import mpmath
import pytest

from peproof import registry, scope
from peproof.variant import parse

WHISPER = "family=h-1,base=10000,d=384,layout=sin_cos"  # Whisper's encoder: [sin|cos]
LLAMA3 = ("family=rope,base=500000,d=128,rope_type=llama3,factor=8,low_freq_factor=1,"
          "high_freq_factor=4,original_max_position_embeddings=8192")


@pytest.fixture(scope="module")
def whisper():
    return parse(WHISPER)


@pytest.fixture(scope="module")
def llama():
    return parse(LLAMA3)


def _decide(variant, cid):
    from peproof.verdicts import verdict_of

    registry.claims_for(variant)
    with scope.using(variant):
        return registry.get(cid), verdict_of(cid)


def test_paper_registry_untouched_by_a_variant(whisper):
    before = [(c.id, str(c.statement)) for c in registry.all_claims()]
    built = registry.claims_for(whisper)
    ids = [i for i, _ in before]
    assert [c.id for c in built][:len(ids)] == ids  # same ids, same order
    # then the claims only a variant has: its horizon at its own width, the paper's beside it
    assert [c.id for c in built][len(ids):] == ["uniqueness.wrap_position_at_your_width"]
    after = [(c.id, str(c.statement)) for c in registry.all_claims()]
    assert after == before
    import sys

    import peproof.families._common as common

    for mod in (common, sys.modules["peproof.families._common"]):  # both ways in are the paper's
        assert str(mod.OMEGA_I) == "10000**(-2*i/d)"
    changed = {c.id for c in built} & {i for i, s in before if "10000**(-2*i/d)" in s}
    assert changed, "no paper statement with the paper's frequency law"
    for cid in changed:  # the variant's statements carry h-1's law, not the paper's
        st = str(next(c for c in built if c.id == cid).statement)
        assert "10000**(-2*i/d)" not in st, cid


def test_not_applicable_rows_are_kept_with_a_reason(whisper, llama):
    for v, sample in ((whisper, "rope.score_block_depends_only_on_offset"),
                      (llama, "norm.sq_eq_half_d")):
        c, verdict = _decide(v, sample)
        assert verdict.status == "unknown"
        assert verdict.reason.startswith("not applicable: ") and len(verdict.reason) > 40
    # the landmark needing the certified curve to 62,832 (unmapped frequencies only)
    c, verdict = _decide(llama, "rope.decay_bound_never_regains_early_levels_d128")
    assert "llama3" in verdict.reason and verdict.reason.startswith("not applicable")


@pytest.mark.parametrize("cid", ["rotation.shift_is_linear", "norm.sq_eq_half_d",
                                 "distance.sq_eq_d_minus_two_sum_cos",
                                 "products.position_dot_depends_on_difference"])
def test_identities_proved_for_whisper(whisper, cid):
    c, v = _decide(whisper, cid)
    assert "(d/2 - 1)" in str(c.statement) or "/(d/2 - 1)" in str(c.statement)
    assert v.status == "proved", v.reason


@pytest.mark.parametrize("cid", ["rope.score_block_depends_only_on_offset",
                                 "rope.norm_block_preserved",
                                 # method facts stated at the variant's base on both sides
                                 "rope.linear_scaling_is_position_interpolation",
                                 "rope.ntk_keeps_highest_divides_lowest_by_factor"])
def test_identities_proved_for_llama3(llama, cid):
    c, v = _decide(llama, cid)
    assert "500000" in str(c.statement)
    assert v.status == "proved", v.reason


def test_span_statement_tied_to_the_paper_is_refuted_for_h1(whisper):
    """omega_0/omega_min = 10^(4(d-2)/d) is the paper's; h-1's span is base = 10^4 exactly."""
    from peproof.verdicts import verdict_of

    assert verdict_of("encoding.span_orders_exact").status == "proved"  # the paper's, first
    c, v = _decide(whisper, "encoding.span_orders_exact")
    assert v.status == "refuted" and v.witness
    d = int(v.witness["point"]["d"])
    with mpmath.workdps(40):  # the h-1 span at that d, from mpmath: base itself
        h = d // 2
        span = mpmath.e ** (mpmath.log(10000) * (h - 1) / (h - 1))
        assert abs(span - 10**4) < 1e-30
        assert abs(span - mpmath.mpf(10) ** (mpmath.mpf(4 * (d - 2)) / d)) > 1e-3
    # and the seed's "exactly 4 orders", refuted for the paper, holds for h-1
    c4, v4 = _decide(whisper, "encoding.span_four_orders_exact_reading")
    assert c4.expect == "refuted" and v4.status == "proved"


def test_rope_claim_tied_to_the_paper_base_is_refuted(llama):
    c, v = _decide(llama, "attention.rope_uses_paper_frequencies")
    assert v.status == "refuted" and v.witness


def _num(s: str) -> float:
    return float(s.split()[0])


def test_whisper_numbers_against_mpmath(whisper):
    from peproof.variant_numbers import compare

    rows = {r["key"]: r for r in compare(whisper, heavy=False)}
    with mpmath.workdps(40):
        h1 = 2 * mpmath.pi * 10000  # h-1: omega_min = 1/base
        paper = 2 * mpmath.pi * mpmath.mpf(10000) ** (mpmath.mpf(382) / 384)
        assert abs(_num(rows["horizon"]["variant"]) - h1) < 1e-3
        assert abs(_num(rows["horizon"]["paper"]) - paper) < 1e-3
        assert abs(_num(rows["span_orders"]["variant"]) - 4) < 1e-5
        assert abs(_num(rows["span_orders"]["paper"]) - mpmath.mpf(4 * 382) / 384) < 1e-5
    assert rows["horizon"]["variant"] != rows["horizon"]["paper"]


def test_llama3_numbers_against_mpmath(llama, llama31_thetas):
    from peproof.variant_numbers import compare

    rows = {r["key"]: r for r in compare(llama, heavy=False)}
    with mpmath.workdps(40):  # Llama 3.1's map from its reference code (tests/conftest.py)
        thetas = llama31_thetas(128)
        lo, hi = rows["theta_range"]["variant"].split(" .. ")
        assert abs(float(lo) / float(min(thetas)) - 1) < 1e-5
        assert float(hi) == 1
        long_w = float(rows["rope_wavelengths"]["variant"].split(" .. ")[1])
        assert abs(long_w / float(2 * mpmath.pi / min(thetas)) - 1) < 1e-5
    assert rows["theta_range"]["variant"] != rows["theta_range"]["paper"]


def test_boundary_witness_is_seen_failing_by_the_spot_check():
    """h-1's last frequency is 1/base exactly: ``1/10000 < omega_i`` fails ON the boundary.  The
    numeric column must see that failure at the certified witness (it once called it
    'inconsistent', an engine conflict, because its tolerance favoured truth there)."""
    import sympy as sp

    from peproof.agreement import numeric_cell
    from peproof.claims import Claim, Le, Lt, Statement, Verdict, var

    d, vd = var("d", "even_pos_integer")
    i, vi = var("i", "nonneg_integer")
    st = Statement((Lt(sp.Rational(1, 10000), sp.Integer(10000) ** (-i / (d / 2 - 1))),),
                   (vd, vi), hyps=(Le(i, d / 2 - 1), Le(4, d)))
    claim = registry.get("encoding.frequencies_between_ten_thousandth_and_one")
    claim = Claim("test.boundary", "t", claim.sources, st, "inequality")
    refuted = Verdict("refuted", "arb", "-", "certified counterexample",
                      witness={"point": {"d": "4", "i": "1"}})
    assert numeric_cell(claim, refuted) == "consistent"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_rope_decay_landmarks_for_another_base():
    """For a RoPE without a frequency map the decay claims are restated at its base: the first
    rise of B_64 comes from the certified curve; mpmath finds the same one here."""
    v = parse("family=rope,base=500000,d=64")
    c, verdict = _decide(v, "rope.decay_bound_decreasing_until_first_rise_d64")
    assert verdict.status == "proved", verdict.reason
    with mpmath.workdps(30):
        th = [mpmath.mpf(500000) ** (-mpmath.mpf(2 * j) / 64) for j in range(32)]

        def bound(k):
            s, tot = mpmath.mpc(0), mpmath.mpf(0)
            for t in th:
                s += mpmath.expj(k * t)
                tot += abs(s)
            return 2 * tot / 64

        prev, k = bound(0), 1
        while bound(k) < prev:
            prev, k = bound(k), k + 1
    assert f"rises at {k}:" in c.title
    paper = registry.get("rope.decay_bound_decreasing_until_first_rise_d64")
    assert "base=500000" in str(c.statement) and "base=" not in str(paper.statement)


@pytest.mark.parametrize("cid", ["norm.sq_eq_half_d_concrete_d",
                                 "inner_product.eq_sum_cos_offset_concrete_d"])
def test_concrete_d_statements_in_the_variants_layout(whisper, cid):
    """The concrete-d statements are built in the variant's [sin|cos] layout throughout (once
    the vector was interleaved while the rest followed the variant: a false refutation)."""
    c, v = _decide(whisper, cid)
    assert v.status == "proved", v.reason
