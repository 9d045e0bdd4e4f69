"""Sabotaging the one definition must turn claims red.

Each case runs in a fresh interpreter: the definition in ``peproof.encoding`` is patched *before*
the claim families are imported (they build their statements from it), then the affected claims
are decided again.  A suite whose verdicts survived such sabotage would not be checking anything.
"""

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import sympy as sp
    import peproof.encoding as E

    mode = sys.argv[1]
    if mode == "swap_sin_cos":
        orig = E.Encoding.entry
        def entry(self, pos, j, freqs=None):
            e = orig(self, pos, j, freqs)
            return e.replace(lambda x: isinstance(x, (sp.sin, sp.cos)),
                             lambda x: (sp.cos if isinstance(x, sp.sin) else sp.sin)(x.args[0]))
        E.Encoding.entry = entry
    elif mode == "base_1000":
        orig_omega = E.omega_expr
        def omega_expr(i, d, family="paper", base=10000):
            return orig_omega(i, d, family, 1000 if sp.sympify(base) == 10000 else base)
        E.omega_expr = omega_expr
    elif mode != "none":
        raise SystemExit("unknown mode")

    from peproof import registry
    from peproof.engines.decide import decide
    out = {}
    for cid in sys.argv[2:]:
        out[cid] = decide(registry.get(cid)).status
    print(json.dumps(out))
    """
)

SWAP_RED = [
    "rotation.shift_is_linear_concrete_d",
    "rotation.split_layout_matrix_is_permuted",
    "rotation.worked_example_d4",
]
BASE_RED = [
    "encoding.d4_frequencies_one_and_hundredth",
    "worked.d4_omega_one_is_hundredth",
    "worked.d4_pos1_entries_three_decimals",
    "separation.positions_distinct_up_to_62832_d512",
]


def run(mode, ids):
    r = subprocess.run([sys.executable, "-c", SCRIPT, mode, *ids], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _existing(ids):
    from peproof import registry

    have = registry.by_id()
    missing = [i for i in ids if i not in have]
    if missing:
        pytest.skip(f"claims not in the registry: {missing}")
    return ids


def test_unsabotaged_definition_proves_them():
    res = run("none", _existing(SWAP_RED) + _existing(BASE_RED))
    assert all(v == "proved" for v in res.values()), res


def test_swapping_sin_and_cos_turns_claims_red():
    res = run("swap_sin_cos", _existing(SWAP_RED))
    assert all(v != "proved" for v in res.values()), res


def test_changing_the_base_turns_claims_red():
    res = run("base_1000", _existing(BASE_RED))
    assert all(v != "proved" for v in res.values()), res
