"""The certified RoPE decay curve, its landmarks, and ``peproof rope-decay``.

Every certified number is checked against evaluations sharing no float code with it: the
defining SymPy sums evaluated by the generic arb evaluator, mpmath at 50 digits, and brute force
in arb over small ranges.  Sabotaged bounds must be caught.
"""

import json
import random
from concurrent.futures import ThreadPoolExecutor

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp

from peproof.cli import main
from peproof.kernel.arb import arb_eval
from peproof.numeric.rope_decay import ArbB, certify_curve, error_bound, evaluate
from peproof.numeric.rope_landmarks import extremum, first_rise, landmarks, record_prefix
from peproof.rope import decay_bound_arb, decay_bound_expr, decay_bound_mp

K = sp.Symbol("k", integer=True)


@pytest.mark.parametrize("d", [2, 6, 16, 96])
def test_three_evaluations_of_the_definition_agree(d):
    """arb (O(d) running sums), mpmath, and the defining nested SymPy sums through the generic
    evaluator: one definition, three evaluations.  Catches an off-by-one in the running sums."""
    expr = decay_bound_expr(d, K)
    for k in (0, 1, 7, 1000):
        with flint.ctx.workprec(128):
            fast = decay_bound_arb(d, k)
        generic = arb_eval(expr, {K: k}, 128)
        assert fast.overlaps(generic), (d, k, fast, generic)
        with mpmath.mp.workdps(50):
            mp = decay_bound_mp(d, mpmath.mpf(k))
        assert abs(float(fast.mid()) - float(mp)) < 1e-13, (d, k)
    with flint.ctx.workprec(128):
        assert decay_bound_arb(d, 0) == (d + 2) / 4  # exact


@pytest.mark.parametrize("d", [2, 12, 64, 128])
def test_curve_contains_arb_at_sampled_offsets(d):
    """Every certified interval holds the arb value (sampled, chunk edges included)."""
    n = 20000
    c = certify_curve(d, n, chunk=4096)
    arb = ArbB(d, "10000")
    ks = sorted(set(random.Random(d).sample(range(n + 1), 150)) | {0, 1, 2047, 2048, 4095,
                                                                   4096, n})
    for k in ks:
        b = arb(k)
        assert c.lo[k] <= b.lower() and b.upper() <= c.hi[k], (d, k, c.lo[k], b, c.hi[k])


def test_sabotaged_bound_misses_arb():
    """The containment test can fail: a bound 10^4 times too small excludes arb values."""
    vals, bound = evaluate(64, "10000", 0, 3000)
    arb = ArbB(64, "10000")
    small = float(bound) / 1e4
    missed = sum(not (vals[k] - small <= float(arb(k).mid()) <= vals[k] + small)
                 for k in range(0, 3000, 10))
    assert missed > 0, "a bound 10^4 x too small still contained every arb value"
    assert error_bound(64, 0) < bound  # the phase error enters the bound


def test_chunks_and_executor_do_not_change_the_curve():
    """The merge is exact: any chunking, inline or on an executor, gives the same floats."""
    one = certify_curve(32, 9000)
    many = certify_curve(32, 9000, chunk=1000)
    with ThreadPoolExecutor(2) as ex:
        pooled = certify_curve(32, 9000, chunk=2500, executor=ex)
    assert np.array_equal(one.mid, many.mid) and np.array_equal(one.mid, pooled.mid)
    shifted = certify_curve(32, 9000, k0=123)
    assert np.array_equal(shifted.mid, one.mid[123:])  # blocks are aligned, not chunk-relative


def test_landmarks_against_brute_force_arb():
    """First rise, record prefix, min and max on a small range, recomputed in arb alone."""
    d, n = 16, 400
    arb = ArbB(d, "10000")
    vals = [arb(k) for k in range(n + 1)]
    mids = [float(v.mid()) for v in vals]
    rise = next(k for k in range(1, n + 1) if vals[k] > vals[k - 1])
    assert all(vals[k] < vals[k - 1] for k in range(1, rise))
    top = next(k for k in range(n + 1) if not all(vals[j] < vals[k] for j in range(k + 1, n + 1)))
    lm = landmarks(d, n)
    assert lm.first_rise == rise
    assert lm.record_prefix == top - 1
    assert lm.minimum["k"] == 1 + int(np.argmin(mids[1:]))
    assert lm.maximum["k"] == 1 + int(np.argmax(mids[1:]))
    assert not lm.undecided


def test_landmark_edge_cases():
    c = certify_curve(64, 11)  # ends before the first rise at 12
    und = []
    assert first_rise(c, ArbB(64, "10000"), und) is None and not und
    top, brk = record_prefix(c, ArbB(64, "10000"), und)
    assert top == 11 and brk is None  # every offset is a record when the curve only falls
    k, ties = extremum(c, ArbB(64, "10000"), 5, "min", und)
    assert k == 11 and not ties


@pytest.mark.parametrize("d,rise,top,above", [(64, 12, 9, 48207), (128, 19, 17, 19)])
def test_landmarks_of_the_usual_d(d, rise, top, above):
    """The numbers the report quotes (and the rope claims state) come out of the command's code."""
    lm = landmarks(d, 62832)
    assert (lm.first_rise, lm.record_prefix, lm.record_break["above"]["k"]) == (rise, top, above)
    assert not lm.undecided


def test_cli_table_and_exit_code(capsys):
    assert main(["rope-decay", "--d", "64", "--max-offset", "62832"]) == 0
    out = capsys.readouterr().out
    assert "first rise B(k) > B(k-1)      12" in out and "48207" in out and "33/2" in out


def test_cli_json_and_curve_files(capsys, tmp_path):
    for suffix in (".json", ".csv", ".npz"):
        f = tmp_path / f"curve{suffix}"
        assert main(["rope-decay", "--d", "16", "--max-offset", "500", "--from", "50",
                     "--json", "--out", str(f)]) == 0
        env = json.loads(capsys.readouterr().out)
        assert env["schema"] == "peproof.rope-decay/1"
        lm = env["results"][0]
        assert lm["k_from"] == 50 and 50 <= lm["minimum"]["k"] <= 500
        if suffix == ".npz":
            z = np.load(f)
            k, lo, hi = z["k"], z["lo"], z["hi"]
        elif suffix == ".csv":
            arr = np.loadtxt(f, delimiter=",", skiprows=1)
            k, lo, hi = arr[:, 0], arr[:, 1], arr[:, 2]
        else:
            body = json.loads(f.read_text())["results"][0]
            lo, hi = np.array(body["lo"]), np.array(body["hi"])
            k = np.arange(body["k0"], body["k0"] + lo.size)
        assert k[0] == 0 and k[-1] == 500 and np.all(lo < hi)
        m = lm["minimum"]
        assert lo[m["k"]] <= m["hi"] and m["lo"] <= hi[m["k"]]
        assert list(tmp_path.glob(".*")) == []  # nothing half-written left behind


@pytest.mark.parametrize("args,fragment", [
    (["--d", "7"], "even integer >= 2"),
    (["--d", "64", "--max-offset", "0"], "--max-offset must be an integer >= 1"),
    (["--d", "64", "--base", "1"], "base must be a number > 1"),
    (["--d", "64", "--base", "ten"], "base must be an exact number"),
    (["--d", "64", "--out", "curve.txt"], "--out must end in"),
    (["--d", "64", "--max-offset", "100", "--from", "200"], "--from must be at most"),
    ([], "--d is required"),
])
def test_cli_bad_input_one_line_exit_2(args, fragment, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["rope-decay", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
