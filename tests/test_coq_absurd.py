"""``pe_absurd`` (lib/Sem.v): the step that closes the impossible cases of a decision, tested as
a tactic on small goals against the compiled library -- each case it must close, and beside it
the same case made possible, which it must not close (``Fail``: coqc stops with "The command has
not failed!" when the tactic succeeds).

Its two guards (a failing ``pe_absurd`` is the common case, so they keep its cost down) must
not lose a case: the rewrite of known values runs when a hypothesis holds one
(``pe_has_value``), and ``lia`` on ``H : ~ P`` runs when ``P`` can be an integer fact
(``pe_neg_lia``)."""

from __future__ import annotations

import re
import subprocess

import pytest

from peproof.kernel.coq import run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

HEADER = """From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs Sem.
Open Scope R_scope.
"""

#: name -> (hypotheses of a goal ``False``, closed by pe_absurd?)
CASES = {
    # H : ~ P with P an integer fact about reals of integers (IZR_neq, then lia)
    "izr_neq": ("forall a b : Z, (a < b)%Z -> ~ (IZR a <> IZR b) -> False", True),
    "izr_neq_possible": ("forall a b : Z, (a <= b)%Z -> ~ (IZR a <> IZR b) -> False", False),
    # a known value in a hypothesis, evaluated before lra
    "sqrt_zero": ("forall x : R, sqrt 0 = x + 1 -> x = 0 -> False", True),
    "sqrt_zero_possible": ("forall x : R, sqrt 0 = x + 1 -> x = -1 -> False", False),
    "cos_pi": ("forall x : R, cos PI = x -> 0 < x -> False", True),
    "cos_pi_possible": ("forall x : R, cos PI = x -> x < 0 -> False", False),
    "cos_neg": ("forall x y : R, cos (- x) = y -> cos x <> y -> False", True),
    "exp_zero": ("forall x : R, exp 0 = x -> x < 1 -> False", True),
    # H : a <> a (lra proves a = a)
    "neq_self": ("forall x : R, x + 1 <> x + 1 -> False", True),
    "neq_other": ("forall x : R, x + 1 <> x -> False", False),
    # an integer contradiction, a real one
    "lia": ("forall d : Z, (0 < d)%Z -> (d < 1)%Z -> False", True),
    "lra": ("forall x : R, 0 < x -> x < 0 -> False", True),
}


MARK = "@@ABSURD"


def text() -> str:
    out = [HEADER]
    for name, (goal, closes) in CASES.items():
        if closes:
            out.append(f"Lemma {name} : {goal}.\nProof. intros; pe_absurd. Qed.\n"
                       f'Goal True. idtac "{MARK} {name}". Abort.\n'
                       f"Print Assumptions {name}.\n")
        else:
            out.append(f"Goal {goal}.\nProof. intros. Fail pe_absurd. Abort.\n")
    return "\n".join(out)


@needs_coq
def test_pe_absurd_closes_the_impossible_cases_only(coq_library, tmp_path):
    assert coq_library is not None, "the compiled library is missing"
    src = tmp_path / "Absurd.v"
    src.write_text(text())
    r = subprocess.run([run.coqc(), "-q", "-Q", str(coq_library), "PEProof", str(src)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    # each closed case is read from Print Assumptions, as the runner reads a lemma: only the
    # allow-listed axioms (the reals', classical logic), no admitted step, nothing unreadable
    blocks = dict(re.findall(rf"{MARK} (\w+)\n(.*?)(?=\n{MARK} |\Z)", r.stdout, re.S))
    closed = [n for n, (_, c) in CASES.items() if c]
    assert sorted(blocks) == sorted(closed), r.stdout[-2000:]
    for name in closed:
        axioms, problems = run.parse_assumptions(blocks[name])
        assert not problems and set(axioms) <= run.ALLOWED, (name, axioms, problems)
