"""The uniqueness horizon restated for a variant (issue 25, item 1): the closed form of
``2 pi/omega_min`` is read off the variant's frequency law and decided, and the number ``prove
--variant`` prints is the one a decided claim states.

Expected values are typed here or computed with mpmath, never taken from the code under test.
Each sabotage (a wrong exponent, a wrong number) is shown refuted by the same engines.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from peproof import registry, scope
from peproof.claims import Eq
from peproof.variant import parse

WHISPER = "family=h-1,base=10000,d=384"
EXACT = "uniqueness.slowest_pair_wraps_at_exact_position"
WIDTH = "uniqueness.wrap_position_at_your_width"


@pytest.fixture(scope="module")
def whisper():
    v = parse(WHISPER)
    return v, {c.id: c for c in registry.claims_for(v)}


def _decide(variant, cid):
    from peproof.verdicts import verdict_of

    with scope.using(variant):
        return verdict_of(cid)


def _decide_statement(variant, st):
    from peproof.engines.decide import decide_statement

    with scope.using(variant):
        return decide_statement(st)


def test_paper_statement_is_the_papers_closed_form():
    d = sp.Symbol("d", integer=True, positive=True, even=True)
    st = registry.get(EXACT).statement
    assert st.concl[0].rhs == 2 * sp.pi * 10000 ** ((d - 2) / d)


def test_h1_horizon_is_two_pi_base_and_proved(whisper):
    """Fails on the code before the change: the paper's 2 pi 10000^((d-2)/d) was stated for h-1
    too (and refuted at d = 4)."""
    v, claims = whisper
    c = claims[EXACT]
    assert c.statement.concl[0].rhs == 20000 * sp.pi  # 2 pi base: h-1's exponent cancels to 1
    assert "2 pi 10000" in c.title and "(d-2)/d" not in c.title
    verdict = _decide(v, EXACT)
    assert verdict.status == "proved", verdict.reason


def test_h1_with_the_papers_exponent_is_refuted(whisper):
    """Sabotage: the paper's exponent (d-2)/d written into h-1's horizon is refuted, with a
    certified witness (and h-1's exponent 1 written into the paper's)."""
    v, claims = whisper
    st = claims[EXACT].statement
    d = next(x.symbol for x in st.vars if x.symbol.name == "d")
    lhs = st.concl[0].lhs
    wrong = st.with_concl((Eq(lhs, 2 * sp.pi * 10000 ** ((d - 2) / d)),) + st.concl[1:])
    verdict = _decide_statement(v, wrong)
    assert verdict.status == "refuted" and verdict.witness
    pst = registry.get(EXACT).statement
    wrong_paper = pst.with_concl((Eq(pst.concl[0].lhs, 20000 * sp.pi),) + pst.concl[1:])
    assert _decide_statement(None, wrong_paper).status == "refuted"


def test_seed_approximation_holds_exactly_for_h1(whisper):
    """'2 pi/omega_min ~ 2 pi 10000 for every d' is refuted for the paper (d = 4) and holds for
    h-1, where the horizon is 2 pi base at every d."""
    v, _ = whisper
    verdict = _decide(v, "uniqueness.wrap_position_about_62832")
    assert verdict.status == "proved", verdict.reason
    assert any("slowest_pair_wraps_at_exact_position" in a for a in verdict.axioms)


def test_your_width_numbers_against_mpmath(whisper):
    v, claims = whisper
    c = claims[WIDTH]
    with mpmath.workdps(40):
        mine = 2 * mpmath.pi * 10000
        paper = 2 * mpmath.pi * mpmath.mpf(10000) ** (mpmath.mpf(382) / 384)
        assert abs(mpmath.mpf(c.numbers["variant"]) - mine) <= mpmath.mpf("0.0005")
        assert abs(mpmath.mpf(c.numbers["paper"]) - paper) <= mpmath.mpf("0.0005")
    verdict = _decide(v, WIDTH)
    assert verdict.status == "proved", verdict.reason


def test_your_width_with_a_wrong_number_is_refuted(whisper):
    """Sabotage: the paper's number at d = 384 stated as h-1's (what a wrong exponent gives)."""
    v, claims = whisper
    st = claims[WIDTH].statement
    paper = sp.Rational(claims[WIDTH].numbers["paper"])
    lo, hi = st.concl[0], st.concl[1]
    tol = sp.Rational(1, 2000)
    wrong = st.with_concl((type(lo)(lo.op, paper - tol, lo.rhs),
                           type(hi)(hi.op, hi.lhs, paper + tol)))
    verdict = _decide_statement(v, wrong)
    assert verdict.status == "refuted" and verdict.witness


def test_numbers_row_is_the_claims(whisper):
    from peproof.variant_numbers import HORIZON_CLAIM, compare

    v, claims = whisper
    row = next(r for r in compare(v, heavy=False) if r["key"] == "horizon")
    assert row["how"].startswith(f"claim {HORIZON_CLAIM}: proved")
    assert (row["variant"], row["paper"]) == (claims[WIDTH].numbers["variant"],
                                              claims[WIDTH].numbers["paper"])


def test_scaled_frequencies_divide_the_horizon():
    """max_freq = 2 halves 2 pi 10000^((d-2)/d) (the scale enters the closed form)."""
    v = parse("family=paper,base=10000,d=512,max_freq=2")
    with scope.using(v):
        mods = registry._fresh_modules(["uniqueness"])
    c = next(c for c in mods["uniqueness"].CLAIMS if c.id == EXACT)
    d = next(x.symbol for x in c.statement.vars if x.symbol.name == "d")
    assert c.statement.concl[0].rhs == sp.pi * 10000 ** ((d - 2) / d)


def test_nerf_horizon_claims_say_why_not_applicable():
    v = parse("family=nerf,d=8")
    with scope.using(v):
        mods = registry._fresh_modules(["uniqueness", "uniqueness_chain"])
    rows = {c.id: c for m in mods.values() for c in m.build(v)}
    assert rows["uniqueness.lowest_angle_inside_turn_d512"].note.startswith("not applicable")
    for cid in (EXACT, WIDTH, "uniqueness.wrap_position_d4_and_d512"):
        assert rows[cid].note.startswith("not applicable: "), cid
        assert "fastest" in rows[cid].note
    assert not rows["uniqueness.pe_injective_on_integers"].note.startswith("not applicable")


@pytest.mark.slow
def test_variant_report_row_states_the_numbers(tmp_path):
    """report --variant: the claim's row in the .tex says which numbers it states (a variant-only
    claim id is accepted as the pattern; ~15 s CPU with the Coq check: slow)."""
    import sys
    from pathlib import Path

    from peproof.cli import main

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
    rep = tmp_path / "rep"
    assert main(["report", WIDTH, "--variant", WHISPER, "--no-pdf", "--out", str(rep)]) == 0
    tex = (rep / "variant-report.tex").read_text()
    assert "states variant = 62831.853, paper = 59888.927, d = 384" in tex
