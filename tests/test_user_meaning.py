"""A user's statement is decided as written, never as SymPy's construction simplified it
(peproof/user/meaning.py).

Found by this session's corpus (asked of Coq the way ``check_claims`` asks, with forged
verdicts): ``x/x == 1``, ``x**2/x == x``, ``x**(-1) * x == 1``, ``sqrt(x)**2 == x`` and
``exp(log(x)) == x`` over the reals were built as ``1 == 1`` or ``x == x`` -- SymPy evaluates
while it builds -- so the engines proved them ("settled when built") and Coq checked them,
though each written term is undefined at 0 or below it and the relation is false there.  Now
each is refused in one line naming the term and the condition it needs; terms whose condition
always holds (``sqrt(x**2)`` is ``Abs(x)``), or that the built statement keeps, go through.
"""

from __future__ import annotations

import pytest

from peproof.cli import main
from peproof.user.parse import TextError
from peproof.user.statement import user_statement


@pytest.mark.parametrize("text, domains, assumes, term, condition", [
    ("x/x == 1", ["x=real"], [], "1/x", "x != 0"),
    ("x**2/x == x", ["x=real"], [], "1/x", "x != 0"),
    ("x**(-1) * x == 1", ["x=real"], [], "1/x", "x != 0"),
    ("sqrt(x)**2 == x", ["x=real"], [], "sqrt(x)", "x >= 0"),
    ("sqrt(x)*sqrt(x) == x", ["x=real"], [], "sqrt(x)", "x >= 0"),
    ("exp(log(x)) == x", ["x=real"], [], "log(x)", "x > 0"),
    ("log(x)/log(x) == 1", ["x=pos_real"], [], "1/log(x)", "log(x) != 0"),
    ("tan(x)*0 == 0", ["x=real"], [], "tan(x)", "cos(x) != 0"),
    ("Mod(x, y)*0 == 0", ["x=real", "y=real"], [], "Mod(x, y)", "y != 0"),
    ("y >= 0", ["x=real", "y=real"], ["y == x/x"], "1/x", "x != 0"),
])
def test_a_condition_dropped_by_construction_is_refused(text, domains, assumes, term,
                                                        condition):
    with pytest.raises(TextError) as e:
        user_statement(text, assumes, domains)
    msg = str(e.value)
    assert f"the term {term} needs {condition}" in msg and "--assume" in msg, msg


@pytest.mark.parametrize("text, domains, built", [
    ("sqrt(x**2) == Abs(x)", ["x=real"], "Abs(x) == Abs(x)"),  # x**2 >= 0 always holds
    ("x/x == 1", ["x=pos_real"], "1 == 1"),  # x != 0 holds on the domain
    ("(-1)**n * (-1)**n == 1", ["n=integer"], "1 == 1"),  # defined at every integer n
    ("1/(2*x) == 1/x/2", ["x=real"], "1/(2*x) == 1/(2*x)"),  # the condition is kept
    ("x/x**2 == 1/x", ["x=real"], "1/x == 1/x"),  # x**2 != 0 is x != 0, kept
    ("0**n == 0", ["n=integer"], "0**n == 0"),  # kept: decided with its condition
    ("PE(p, 0) == sin(p)", ["p=real"], "sin(p) == sin(p)"),  # no partial operation
])
def test_a_condition_that_holds_or_is_kept_is_not_refused(text, domains, built):
    st = user_statement(text, [], domains)
    assert " ".join(f"{r.lhs} {r.op} {r.rhs}" for r in st.concl) == built


def test_the_command_refuses_in_one_line_with_exit_2(capsys):
    args = ["prove", "--statement", "x/x == 1", "--domain", "x=real", "--no-coq"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the term 1/x needs x != 0" in err, err
    # stated as SymPy builds it, with the condition, it is proved
    assert main(["prove", "--statement", "1 == 1", "--assume", "x != 0", "--domain", "x=real",
                 "--no-coq"]) == 0


@pytest.mark.parametrize("args", [
    ["--statement", "atan(x) < pi/2", "--domain", "x=real"],  # atan: not in the engines' list
    ["--statement", "0**x == 0", "--assume", "x >= 0", "--domain", "x=real"],
    ["--statement", "Sum(j, (j, n, n - 2)) == 0", "--domain", "n=integer"],  # reversed range
])
def test_a_statement_outside_the_engines_fragment_is_unknown_not_an_internal_error(capsys,
                                                                                   args):
    """In the user's language but refused by the well-formedness gate: the verdict is
    ``unknown`` with the gate's reason (exit 1: not the expected ``proved``).  It was
    'peproof: internal error (IllFormed: ...); please report it', exit 3."""
    import json

    assert main(["prove", *args, "--no-coq", "--json"]) == 1
    row = json.loads(capsys.readouterr().out)["claims"][0]
    assert row["verdict"]["status"] == "unknown" and row["z3"]["status"] == "unknown"
    assert row["verdict"]["reason"].startswith("outside the fragment the engines decide: ")
