"""The formats' position horizons as claims (issue 25, item 1: precision horizons): where
float16 / bfloat16 / float32 stop telling neighbouring positions apart, decided in exact integer
arithmetic, restated for a variant whose fastest angle scales the positions (max_freq).

Expected values are typed here (the formats' documented widths) or measured with NumPy's own
float16, never taken from the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from peproof import registry, scope
from peproof.variant import parse

F16, BF16 = "precision.position_horizon_float16", "precision.position_horizon_bfloat16"


def _family(variant):
    with scope.using(variant):
        mods = registry._fresh_modules(["precision"])
    return mods["precision"]


@pytest.mark.parametrize("cid, top", [(F16, 2048), (BF16, 256)])
def test_format_horizon_claims_proved(cid, top):
    """Fails before the change: no such claim in the registry."""
    from peproof.verdicts import verdict_of

    c = registry.get(cid)
    assert c.numbers["P"] == top and f"{top:,}" in c.title
    v = verdict_of(cid)
    assert v.status == "proved" and v.engine == "python (exhaustive)", v.reason


def test_claim_and_numeric_horizon_agree():
    """The claim's P, the format table's horizon and the pipeline measured by
    peproof.numeric.horizon (NumPy's float16) name the same positions: P + 1 onto P."""
    from peproof.formats import BINARY
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.horizon import collision_bound, horizons

    top = registry.get(F16).numbers["P"]
    assert BINARY["float16"].horizon == top
    assert collision_bound("float16", "exp-float") == top + 1
    h = horizons(8, dtypes=("float16",), recipes=("exp-float",), n_pos=top + 8,
                 run=RunConfig(engine="inline", label="test"))[0]
    assert (h.collision, h.collision_with) == (top + 1, top)
    # and NumPy's float16 itself: the first integer whose successor casts onto it
    ks = np.arange(0, 4096)
    same = np.float16(ks[:-1]) == np.float16(ks[1:])
    assert int(np.argmax(same)) == top


def test_wrong_significand_width_is_refuted():
    """Sabotage: the float16 claim with a 10-bit significand in place of 11 is refuted at
    n = 1024 (1024 and 1025 round together there)."""
    from peproof.rounding import RoundBinary, exhaustive

    st = registry.get(F16).statement
    narrow = st.with_concl(tuple(r.map(lambda e: e.replace(
        lambda x: isinstance(x, RoundBinary),
        lambda x: RoundBinary(x.args[0], sp.Integer(10), evaluate=False))) for r in st.concl))
    v = exhaustive(narrow)
    assert v.status == "refuted" and v.witness["point"] == {"n": "1024"}
    assert exhaustive(st).status == "proved"


def test_scaled_positions_restated_and_checked_against_numpy():
    """max_freq = 1/1000 (a timestep-like fractional position n/1000): the claim states the
    first n with RN(n/1000) = RN((n+1)/1000) in float16, and NumPy's float16 agrees."""
    from peproof.rounding import exhaustive

    mod = _family(parse("family=paper,base=10000,d=64,max_freq=1/1000"))
    c = next(c for c in mod.build() if c.id == F16)
    ks = np.arange(0, 5000)
    h = (ks / 1000).astype(np.float16)  # n/1000 in float64 is no tie of float16 here
    expect = int(np.argmax(h[:-1] == h[1:]))
    assert c.numbers["P"] == expect != 2048
    assert exhaustive(c.statement).status == "proved"


def test_turns_say_why_not_applicable():
    mod = _family(parse("family=paper,base=10000,d=64,turns=true"))
    rows = {c.id: c for c in mod.build()}
    assert rows[F16].note.startswith("not applicable: ") and "irrational" in rows[F16].note


def test_rounding_matches_numpy_float16():
    from fractions import Fraction

    from peproof.rounding import round_exact

    for x in np.random.default_rng(7).integers(0, 65504, 500):
        assert round_exact(Fraction(int(x)), 11) == Fraction(float(np.float16(x)))
