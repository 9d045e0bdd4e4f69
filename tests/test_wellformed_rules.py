"""The side-condition prover's reduction rules and the ``peproof_definition`` protocol.

Each rule of ``wellformed._decompose`` (a Piecewise by its branches, a power of a positive or
nonnegative base, a product by its factors) is checked on a pair: a statement whose side
condition holds (proved) and one that fails at a single point (must not be proved).  A mutant
that weakens a rule (e.g. ``b**x > 0`` from ``b >= 0``, or a branch proved without its
condition) proves the second statement and fails here.
"""

import pytest
import sympy as sp

from peproof.claims import Le, Lt, Statement, var
from peproof.engines import facts
from peproof.engines.decide import decide_statement
from peproof.engines.wellformed import IllFormed

# an engine conflict (a lie the falsification gate caught) fails the test: see tests/conftest.py
pytestmark = pytest.mark.usefixtures("engine_conflicts_fail")

x, VX = var("x", "real")
y, VY = var("y", "real")


def side_ok(concl, vars_=(VX,), hyps=()) -> bool:
    return facts.check(Statement((concl,), tuple(vars_), tuple(hyps))).ok


PAIRS = [
    # (name, statement that holds, statement undefined at one point)
    ("root in a denominator",
     (Lt(0, 1 / sp.sqrt(x)), (VX,), (Lt(0, x),)),
     (Le(0, 1 / sp.sqrt(x)), (VX,), (Le(0, x),))),  # x = 0
    ("fractional power in a denominator",
     (Lt(0, 1 / (1 + x**2) ** sp.Rational(4, 3)), (VX,), ()),
     (Lt(0, 1 / x ** sp.Rational(4, 3)), (VX,), (Le(0, x),))),
    ("negative power of a power",  # SymPy keeps (x**(4/3))**(-1/4) nested for real x
     (Lt(0, (x ** sp.Rational(4, 3)) ** sp.Rational(-1, 4)), (VX,), (Lt(0, x),)),
     (Lt(0, (x ** sp.Rational(4, 3)) ** sp.Rational(-1, 4)), (VX,), (Le(0, x),))),  # x = 0
    ("Piecewise beside a variable in a root's base",
     (Le(0, (x - sp.Piecewise((1, x > 1), (x, True))) ** sp.Rational(1, 3)), (VX,), ()),
     (Le(0, (x - sp.Piecewise((1, x > 1), (2, True))) ** sp.Rational(1, 3)), (VX,), ())),
    ("Piecewise failing in its first branch",
     (Le(0, (x - sp.Piecewise((1, x > 1), (x, True))) ** sp.Rational(1, 3)), (VX,), ()),
     (Le(0, (x - sp.Piecewise((2, x > 1), (x, True))) ** sp.Rational(1, 3)), (VX,), ())),
    ("root of a product",  # (x*y)**(1/2) stays a root of the product for real x, y
     (Le(0, (x * y) ** sp.Rational(1, 2)), (VX, VY), (Le(0, x), Le(0, y))),
     (Le(0, (x * y) ** sp.Rational(1, 2)), (VX, VY), (Le(0, x),))),  # y < 0
    ("product in a denominator",
     (Lt(0, 1 / (x * y)), (VX, VY), (Lt(0, x), Lt(0, y))),
     (Lt(0, 1 / (x * y)), (VX, VY), (Lt(0, x),))),  # y = 0
    ("Piecewise in a denominator",
     (Lt(0, 1 / sp.Piecewise((x, x > 0), (1, True))), (VX,), ()),
     (Lt(0, 1 / sp.Piecewise((x, x >= 0), (1, True))), (VX,), ())),  # x = 0
    ("Piecewise whose otherwise branch vanishes",
     (Lt(0, 1 / sp.Piecewise((1, x > 0), (1 - x, True))), (VX,), ()),
     (Lt(0, 1 / sp.Piecewise((1, x > 0), (x, True))), (VX,), ())),  # x = 0 takes branch 2
    ("Piecewise inside a root's base",
     (Le(0, (2 - sp.Piecewise((1, x > 0), (2, True))) ** sp.Rational(1, 3)), (VX,), ()),
     (Le(0, (1 - sp.Piecewise((1, x > 0), (2, True))) ** sp.Rational(1, 3)), (VX,), ())),
]


@pytest.mark.parametrize("name,good,bad", PAIRS, ids=[p[0] for p in PAIRS])
def test_reduction_rules(name, good, bad):
    assert side_ok(*good), f"{name}: a side condition that holds was not proved"
    assert not side_ok(*bad), f"{name}: a side condition that fails at a point was proved"
    assert decide_statement(Statement((bad[0],), bad[1], bad[2])).status != "proved"


class Opaque(sp.Function):
    nargs = 1


class Defined(sp.Function):
    """``Defined(t) = t**2 + 1`` stated through the protocol."""

    nargs = 1

    def peproof_definition(self):
        return self.args[0] ** 2 + 1


class DefinedWithLog(sp.Function):
    nargs = 1

    def peproof_definition(self):
        return sp.log(self.args[0])


def test_function_without_definition_is_refused():
    with pytest.raises(IllFormed, match="Opaque"):
        facts.check(Statement((Le(0, Opaque(x)),), (VX,)))


def test_definition_is_checked_in_place_of_the_call():
    assert facts.check(Statement((Le(0, Defined(x)),), (VX,))).ok
    # log of a possibly nonpositive argument: the definition's side condition is unproved
    bad = facts.check(Statement((Le(0, DefinedWithLog(x)),), (VX,)))
    assert not bad.ok and "log" in bad.unproved[0]
    assert facts.check(Statement((Le(0, DefinedWithLog(x)),), (VX,), (Lt(0, x),))).ok
    with pytest.raises(IllFormed, match="Float"):
        class WithFloat(sp.Function):
            nargs = 1

            def peproof_definition(self):
                return self.args[0] + sp.Float("0.5")

        facts.check(Statement((Le(0, WithFloat(x)),), (VX,)))
