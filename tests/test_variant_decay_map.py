"""RoPE's decay landmarks under a frequency map (issue 25, item 1): the bound is a sum over
any list of pair frequencies, so the first-rise claims are restated over Llama 3's mapped
frequencies and decided in arb; the landmark that needs the certified curve to N = 62,832 says
why it is not applicable.

Expected values come from mpmath here (Llama 3.1's map written out from its reference code),
never from the code under test.  Only d = 64 is decided (the cheapest box).
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from peproof import registry, scope
from peproof.variant import parse

LLAMA3 = ("family=rope,base=500000,d=128,rope_type=llama3,factor=8,low_freq_factor=1,"
          "high_freq_factor=4,original_max_position_embeddings=8192")
UNTIL = "rope.decay_bound_decreasing_until_first_rise_d64"
MONO = "rope.decay_bound_monotone_d64"
NEVER = "rope.decay_bound_never_regains_early_levels_d64"


@pytest.fixture(scope="module")
def llama():
    v = parse(LLAMA3)
    return v, {c.id: c for c in registry.claims_for(v)}


def _bound(thetas, k):
    s, total = mpmath.mpc(0), mpmath.mpf(0)
    for t in thetas:
        s += mpmath.expj(k * t)
        total += abs(s)
    return 2 * total / (2 * len(thetas))


def test_first_rise_restated_over_the_mapped_frequencies(llama, llama31_thetas):
    """Fails before the change: the claim was 'not applicable' for any frequency map."""
    from peproof.decay_mapped import FreqDecayBound
    from peproof.verdicts import verdict_of

    v, claims = llama
    c = claims[UNTIL]
    calls = [e for r in c.statement.concl for e in r.lhs.atoms(FreqDecayBound)]
    assert calls, "the statement is over the mapped frequencies"
    with mpmath.workdps(30):
        want = llama31_thetas(64)  # the reference map (tests/conftest.py)
        got = [mpmath.mpf(str(sp.N(t, 30))) for t in calls[0].args[1]]
        assert len(got) == 32
        assert max(abs(a / b - 1) for a, b in zip(got, want, strict=True)) < 1e-20
        bs = [_bound(want, k) for k in range(40)]
        rise = next(k for k in range(1, 40) if bs[k] > bs[k - 1])
    assert c.numbers["first_rise"] == rise
    with scope.using(v):
        verdict = verdict_of(UNTIL)
    assert verdict.status == "proved", verdict.reason


def test_monotone_reading_refuted_at_the_rise(llama):
    from peproof.verdicts import verdict_of

    v, claims = llama
    with scope.using(v):
        verdict = verdict_of(MONO)
    rise = claims[UNTIL].numbers["first_rise"]
    assert verdict.status == "refuted" and verdict.witness["point"] == {"k": str(rise - 1)}


def test_wrong_landmark_is_refuted(llama):
    """Sabotage: the first rise stated one offset later is refuted: the curve falls at rise + 1
    (the closed relation, false at every k) and rises at rise (k = rise - 1 in the box)."""
    from peproof.claims import Le, Lt
    from peproof.decay_mapped import exhaustive_arb

    v, claims = llama
    st = claims[UNTIL].statement
    rise = claims[UNTIL].numbers["first_rise"]
    k = st.vars[0].symbol
    b = next(iter(st.concl[0].lhs.atoms(type(st.concl[0].lhs))))
    bm = lambda a: b.func(a, b.args[1])  # noqa: E731
    late = st.with_concl((Lt(bm(k + 1), bm(k)), Lt(bm(rise), bm(rise + 1))))
    late = type(st)(late.concl, late.vars, (Le(k, rise - 1),))
    verdict = exhaustive_arb(late)
    assert verdict.status == "refuted" and verdict.witness["point"] == {"k": "0"}
    assert verdict.witness["relations"] == [str(late.concl[1])]
    only_box = late.with_concl(late.concl[:1])
    verdict = exhaustive_arb(only_box)
    assert verdict.status == "refuted" and verdict.witness["point"] == {"k": str(rise - 1)}


def test_never_regains_says_why(llama):
    v, claims = llama
    note = claims[NEVER].note
    assert note.startswith("not applicable: ") and "62832" in note and "llama3" in note
