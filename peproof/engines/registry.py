"""Every engine by name: its entry point (a :class:`~peproof.claims.Statement` in, a
:class:`~peproof.claims.Verdict` out) and the fragment it declares.

Each entry passes :func:`peproof.engines.gate.entry` (or, for ``decide``, the same steps in
:mod:`peproof.engines.decide`): the well-formedness gate (an ill-formed statement raises
:class:`~peproof.engines.wellformed.IllFormed`), the declared fragment (outside it: ``unknown``,
method ``not applicable``, the reason naming the node and where), the side conditions, the FLINT
re-check of exponential certificates, and the falsification gate on the statement as given.  A
fuzzer calls each entry directly on statements inside its fragment.

The fragments (each engine module states its own ``FRAGMENT``; :mod:`peproof.engines.fragment`
defines the rules):

``decide``      every well-formed statement, forall and exists (dispatches per conclusion)
``expoly``      identities (==) polynomial in sin, cos, tan, exp of (complex) linear forms;
                no sign-sensitive node, no sum; hypotheses not read
``z3poly``      universal statements over real terms; arithmetic, sqrt, Abs, Max, Min, floor,
                ceiling, Mod exact, every other term an opaque real
``z3trig``      polynomials in sin/cos of real linear forms with integer powers, sqrt, Abs,
                floor, ceiling, Mod, Piecewise; sums over the pairs as summands of a side
``periodic``    linear in period integrals and N-sample sums of trigonometric polynomials,
                Delta brackets, linear integer hypotheses
``cyclotomic``  closed == / != of sums and products of rationals, I, sin/cos at rational
                multiples of pi
``rational``    rational functions of the variables and of exp of real terms
``realz3``      rational functions of the variables and pi
``powers``      order and equality of powers of integer bases with symbolic exponents
``angles``      0 < a sum of squares of polynomials in sin, cos, two real variables
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from peproof.claims import Statement, Verdict
from peproof.engines import (
    angles,
    cyclotomic,
    decide,
    expoly,
    periodic,
    powers,
    rational,
    realz3,
    z3poly,
    z3trig,
)
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry


class Engine(NamedTuple):
    name: str
    decide: Callable[[Statement], Verdict]
    fragment: Fragment


def _engines() -> dict[str, Engine]:
    entries = {
        "decide": (decide.decide_statement, decide.FRAGMENT),
        "expoly": (entry(expoly.FRAGMENT, "sympy-exp", "exponential rewriting")(
            expoly.prove_identities), expoly.FRAGMENT),
        "z3poly": (entry(z3poly.FRAGMENT, "z3", "polynomial abstraction")(z3poly.decide),
                   z3poly.FRAGMENT),
        "z3trig": (z3trig.decide_z3, z3trig.FRAGMENT),
        "periodic": (periodic.decide, periodic.FRAGMENT),
        "cyclotomic": (cyclotomic.proof, cyclotomic.FRAGMENT),
        "rational": (rational.decide, rational.FRAGMENT),
        "realz3": (realz3.prove, realz3.FRAGMENT),
        "powers": (powers.prove_statement, powers.FRAGMENT),
        "angles": (angles.prove_separation, angles.FRAGMENT),
    }
    return {name: Engine(name, fn, frag) for name, (fn, frag) in entries.items()}


ENGINES: dict[str, Engine] = _engines()


def get(name: str) -> Engine:
    """The engine called ``name`` (KeyError naming the known ones otherwise)."""
    try:
        return ENGINES[name]
    except KeyError:
        raise KeyError(f"no engine {name!r}; engines: {', '.join(ENGINES)}") from None
