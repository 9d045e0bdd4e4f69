"""The wider variant space and the recipe-agnostic error model.

* Tables computed by many recipes (exp or power frequencies, mlx's interpolated logarithm, full
  turns, a frequency scale, positions as floats or integers, scales multiplied or divided, in
  float32, float16 and bfloat16) are never called wrong: the verdict rests on the proved bound,
  not on a catalogue of recipes.
* Variants beyond the paper's (frequency scale, turns, reversed and symmetric rows, sqrt(2/d))
  are identified automatically and accepted by the API and the command line.
* The oracle's bound is the registry's expression, and its constants matter: a model with
  smaller constants calls real float32 tables wrong.
"""

import json
import math

import ml_dtypes
import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peproof.cli import main
from peproof.families.error_model import CONSTANTS, Constants, entry_bound
from peproof.oracle import CONFORMS, DEGENERATE, VARIANT, WITHIN, Variant, check, reference
from peproof.oracle.common.budget import Budget
from peproof.oracle.common.exact import Plan
from peproof.oracle.sinusoidal.variant import same_frequencies

DT = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def recipe_table(d, n, family, base, dt, how, layout, scale, turns, max_freq, positions):
    """A table the way some implementation computes it, every step in ``dt``."""
    t = DT[dt]
    h = d // 2
    expo = (np.arange(0, d, 2).astype(t) / t(d)) if family == "paper" else (
        np.arange(h).astype(t) / t(h - 1))
    if how == "exp":
        w = np.exp(-expo * t(math.log(base)))
    elif how == "pow":
        w = t(1) / (t(base) ** expo)
    else:  # mlx: exp of a logarithm interpolated between log(max_freq) and log(min_freq)
        lo, hi = math.log(max_freq / base), math.log(max_freq)
        one_zero = t(1) - np.arange(h).astype(t) / t(h - 1)
        w = np.exp(one_zero * t(hi - lo) + t(lo))
    if how != "interp" and max_freq != 1:
        w = w * t(max_freq)
    if turns:
        w = w * t(2 * math.pi)
    p = np.arange(n).astype(t) if positions == "float" else np.arange(n)  # int: float64 angles
    ang = p[:, None] * w[None, :]
    s, c = np.sin(ang), np.cos(ang)
    if scale == "sqrt(2/d)":
        s, c = s * t(math.sqrt(2 / d)), c * t(math.sqrt(2 / d))
    elif scale == "1/sqrt(d)":
        s, c = s / t(math.sqrt(d)), c / t(math.sqrt(d))
    out = {"interleaved": lambda: np.stack([s, c], -1).reshape(n, d),
           "sin_cos": lambda: np.concatenate([s, c], 1),
           "cos_sin": lambda: np.concatenate([c, s], 1)}[layout]()
    return out.astype(t)


@st.composite
def recipes(draw):
    dt = draw(st.sampled_from(list(DT)))
    how = draw(st.sampled_from(["exp", "pow", "interp"]))
    family = "h-1" if how == "interp" else draw(st.sampled_from(["paper", "h-1"]))
    d = draw(st.sampled_from([16, 64, 256, 512]))
    base = draw(st.sampled_from([10000, 500000] if dt != "float16" else [10000]))
    n = draw(st.integers(64, 1024 if dt == "float32" else 512))
    return dict(d=d, n=n, family=family, base=base, dt=dt, how=how,
                layout=draw(st.sampled_from(["interleaved", "sin_cos", "cos_sin"])),
                scale=draw(st.sampled_from([1, "sqrt(2/d)", "1/sqrt(d)"])),
                turns=draw(st.booleans()) if dt == "float32" else False,
                max_freq=draw(st.sampled_from([1, 1, Fraction_(1, 2)])),
                positions=draw(st.sampled_from(["float", "int"])))


def Fraction_(a, b):  # noqa: N802 - a plain number for the recipe, exact for the variant
    from fractions import Fraction

    return Fraction(a, b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes())
def test_no_recipe_of_the_models_shape_is_called_wrong(r):
    """Any recipe of the model's shape, in any dtype, is within the error model of its
    variant (16-bit positions may collide: accepted here, the model is what is tested)."""
    table = recipe_table(**{**r, "max_freq": float(r["max_freq"])})
    v = Variant(r["family"], r["base"], r["layout"], 0, r["scale"], max_freq=r["max_freq"],
                turns=r["turns"])
    rep = check(table, expect=v, allow_collisions=True)
    assert rep.verdict in (CONFORMS, WITHIN), (r, rep.verdict, rep.spec.over_budget,
                                               rep.spec.max_budget_ratio, rep.diagnoses)


def test_the_bound_is_the_registry_expression():
    """The oracle's coefficients are read off error_model.entry_bound: recomputing the bound
    from the expression at a point gives the oracle's value."""
    expr, sym = entry_bound()
    plan = Plan(Variant("paper", 10000, "interleaved", 0, "1/sqrt(d)").encoding(64))
    from peproof.formats import BFLOAT16, FLOAT32

    bud = Budget(plan, BFLOAT16, FLOAT32)  # computed in bfloat16, stored as float32
    D, V = 0.3, -0.02
    u, n = BFLOAT16.u, 2.0**-126
    r = u  # 1/sqrt(64) = 1/8 is exact in bfloat16: only the product with it rounds
    want = float(expr.subs({sym["D"]: D, sym["V"]: V, sym["s"]: sp.Rational(1, 8),
                            sym["r"]: r, sym["u"]: u, sym["N"]: n, sym["c_s"]: CONSTANTS.c_sin,
                            sym["u_S"]: FLOAT32.u, sym["N_S"]: 2.0**-126}))
    got = bud.alpha * D + bud.beta * abs(V) + bud.gamma
    assert want <= got <= want * (1 + 1e-9)


def test_smaller_constants_call_a_real_float32_recipe_wrong():
    """The constants are not decoration: mlx's interpolated-logarithm frequencies (about 2.4 L u
    of relative error) fail a model that allows the frequency only a few ulps."""
    table = recipe_table(512, 2048, "h-1", 10000, "float32", "interp", "sin_cos", 1, False, 1.0,
                         "float")
    v = Variant("h-1", 10000, "sin_cos")
    plan = Plan(v.encoding(512))
    from peproof.formats import FLOAT32

    P = np.arange(2048, dtype=np.float64)
    vals = plan.values(P)
    x = plan.angles(P)
    over = {}
    for name, c in (("model", CONSTANTS), ("tight", Constants(c_omega0=2, c_omega1=0))):
        bud = Budget(plan, FLOAT32, FLOAT32, c)
        B = bud.bound(bud.angle_error(P, x), vals)
        over[name] = int((np.abs(table.astype(np.float64) - vals) > B).sum())
    assert over["model"] == 0 and over["tight"] > 0, over


# ----------------------------------------------------------------------------- variants
@pytest.mark.parametrize("label,table,expect", [
    ("reversed", reference(1000, 128, family="h-1", layout="sin_cos")[::-1],
     Variant("h-1", 10000, "sin_cos", order="reversed")),
    ("symmetric", reference(np.abs(np.arange(-255, 256)).astype(float), 64),
     Variant(order="symmetric")),
    ("turns", reference(500, 64, turns=True), Variant(turns=True)),
    ("min/max freq", reference(500, 64, family="h-1", base=50000, max_freq="1/2",
                               layout="sin_cos"),
     Variant("h-1", 50000, "sin_cos", max_freq="1/2")),
    ("sqrt(2/d)", reference(300, 256, scale="sqrt(2/d)"), Variant(scale="sqrt(2/d)")),
    ("negative offset", reference(300, 64, offset=-150), Variant(offset=-150)),
])
def test_wider_variants_are_identified(label, table, expect):
    rep = check(np.ascontiguousarray(table), expect="any")
    assert rep.verdict == CONFORMS, (label, rep.headline)
    assert rep.identified.variant.same_as(expect, table.shape[1]), (label, rep.identified.name)
    assert check(np.ascontiguousarray(table), expect=expect).verdict == CONFORMS


def test_a_fractional_position_step_is_a_frequency_scale():
    """Rows 1/1000 apart in position are the table of max frequency 1/1000 (the same numbers);
    with the positions given, the paper's variant conforms."""
    pos = np.arange(1000) / 1024  # exact in float64
    table = reference(pos, 64)
    rep = check(table, expect="any")
    assert rep.identified.variant.same_as(Variant(max_freq="1/1024"), 64), rep.identified.name
    assert check(table, positions=pos).verdict == CONFORMS


def test_max_freq_and_turns_are_part_of_the_frequencies():
    a, b = Variant(max_freq="1/2"), Variant()
    assert not same_frequencies(a, b, 64) and same_frequencies(a, Variant(max_freq=0.5), 64)
    assert not same_frequencies(Variant(turns=True), b, 64)


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_16_bit_pipelines_are_identified_from_the_rows_they_resolve(dt):
    """An h-1 [sin|cos] table computed in a 16-bit format (frequencies, positions, angles):
    identified as such, within the model of its dtype, degenerate where positions collide."""
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dt)
    h = 64
    inv = torch.exp(-math.log(10000) / (h - 1) * torch.arange(h, dtype=tdt))
    ang = torch.arange(4096, dtype=tdt)[:, None] * inv[None, :]
    T = torch.cat([torch.sin(ang), torch.cos(ang)], 1)
    rep = check(T, expect="h-1", layout="sin_cos")
    assert rep.identified.variant.same_as(Variant("h-1", 10000, "sin_cos"), 128)
    assert rep.verdict == DEGENERATE  # positions beyond the horizon round to the same number
    assert check(T, expect="h-1", layout="sin_cos", allow_collisions=True).ok


def test_cli_accepts_the_wider_variant_space(tmp_path, capsys):
    p = tmp_path / "t.npy"
    np.save(p, reference(500, 64, family="h-1", base=50000, max_freq="1/2", layout="sin_cos",
                         turns=True))
    rc = main(["check", str(p), "--expect", "h-1", "--layout", "sin_cos", "--max-freq", "1/2",
               "--min-freq", "1/100000", "--turns", "--json"])
    env = json.loads(capsys.readouterr().out)
    assert rc == 0 and env["verdict"]["code"] == "conforms", env["verdict"]
    rc = main(["check", str(p), "--expect", "h-1", "--layout", "sin_cos", "--json"])
    env = json.loads(capsys.readouterr().out)
    assert rc == 1 and env["verdict"]["code"] == "variant"
    np.save(p, reference(np.abs(np.arange(-31, 32)).astype(float), 16))
    assert main(["check", str(p), "--order", "symmetric"]) == 0
    assert main(["check", str(p)]) == 1  # expected forward rows: a different variant
    capsys.readouterr()
    pos = np.arange(2040, 2060).astype(np.float16).astype(np.float64)
    np.save(p, reference(pos, 8, dtype="float16"))
    assert main(["check", str(p), "--positions", "2040:2060"]) == 1  # degenerate
    assert main(["check", str(p), "--positions", "2040:2060", "--allow-collisions"]) == 0


def test_check_expect_with_min_freq():
    table = reference(300, 64, family="h-1", base=10000, max_freq=1, layout="sin_cos")
    assert check(table, expect="h-1", layout="sin_cos", min_freq="1/10000").verdict == CONFORMS
    rep = check(table, expect="h-1", layout="sin_cos", min_freq="1/1000")
    assert rep.verdict == VARIANT
