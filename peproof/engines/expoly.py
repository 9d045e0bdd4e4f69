"""A decision procedure for identities polynomial in sines and cosines of linear forms.

Method (the classical one): rewrite ``sin u = (E(u) - E(-u)) / 2i`` and
``cos u = (E(u) + E(-u)) / 2`` with ``E(u) = exp(i u)``; split every argument ``u`` into
rational multiples of monomials ``u = sum_m r_m * m``; replace ``E(m / L_m)`` by a fresh variable
``Z_m`` (``L_m`` the common denominator of the ``r_m``), so ``E(u) = prod_m Z_m ** (r_m L_m)``;
expand the resulting Laurent polynomial and compare it with zero.

Soundness: the substitution is an identity of functions, so a Laurent polynomial that expands
to zero proves the identity for every value of the symbols.  Where a monomial is ``pi`` times an
integer-valued product (``n`` integer), ``Z_m ** (2 L_m) = 1`` holds and exponents are reduced
modulo ``2 L_m`` (reduction in the quotient ring; sound).  A non-zero remainder does *not*
refute: the caller then looks for a certified counterexample, and otherwise reports unknown.

Trusted base: SymPy's ``expand`` and its canonical ``Add``/``Mul`` (collection of like terms).
``simplify``, ``trigsimp`` and ``equals`` are never called.
"""

from __future__ import annotations

import sympy as sp

from peproof.engines.hygiene import fresh


class _E(sp.Function):
    """``E(u) = exp(i u)``: the procedure's own function class (no user term can be it)."""

    nargs = 1


class _Result:
    __slots__ = ("zero", "trace", "terms", "atoms")

    def __init__(self, zero: bool, trace: list[str], terms: int, atoms: int):
        self.zero, self.trace, self.terms, self.atoms = zero, trace, terms, atoms


def _exp_to_E(e: sp.exp) -> sp.Expr:
    """``exp(a + i b) = exp(a) E(b)`` (the complex view of an identity; a real ``exp`` stays)."""
    real, imag = [], []
    for t in sp.Add.make_args(sp.expand(e.args[0])):
        b = t.as_coefficient(sp.I)
        (imag if b is not None and not b.has(sp.I) else real).append(b if b is not None else t)
    if not imag:
        return e
    return sp.exp(sp.Add(*real)) * _E(sp.Add(*imag))


def _to_E(expr: sp.Expr) -> sp.Expr:
    I = sp.I
    if expr.has(I):
        expr = expr.replace(lambda e: isinstance(e, sp.exp) and e.args[0].has(I), _exp_to_E)
    return expr.replace(
        lambda e: isinstance(e, sp.sin | sp.cos | sp.tan),
        lambda e: (
            (_E(e.args[0]) - _E(-e.args[0])) / (2 * I)
            if isinstance(e, sp.sin)
            else (_E(e.args[0]) + _E(-e.args[0])) / 2
            if isinstance(e, sp.cos)
            else (_E(e.args[0]) - _E(-e.args[0])) / (I * (_E(e.args[0]) + _E(-e.args[0])))
        ),
    )


def _split(u: sp.Expr) -> list[tuple[sp.Rational, sp.Expr]]:
    """``u`` as a list of (rational coefficient, monomial)."""
    out = []
    for t in sp.Add.make_args(sp.expand(u)):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational:
            c, m = sp.Integer(1), t
        out.append((sp.Rational(c), m))
    return out


def _integer_valued(m: sp.Expr) -> bool:
    """``m`` is ``pi * q`` with ``q`` an integer-valued product (so ``exp(2 i m) == 1``)."""
    q = m / sp.pi
    if q.has(sp.pi):
        return False
    return bool(q.is_integer)


def reduce_to_laurent(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Rewrite trigonometric functions into a Laurent polynomial in fresh variables ``Z``
    (``Dummy`` symbols; returned with their meaning ``{Z: (monomial m, L)}``, Z = exp(i m/L))."""
    e = _to_E(sp.sympify(expr))
    calls = list(e.atoms(_E))
    splits = {c: _split(c.args[0]) for c in calls}
    denom: dict[sp.Expr, int] = {}
    for parts in splits.values():
        for r, m in parts:
            denom[m] = int(sp.ilcm(denom.get(m, 1), r.q))
    zs: dict[sp.Expr, sp.Symbol] = {}
    for j, m in enumerate(sorted(denom, key=sp.default_sort_key)):
        zs[m] = fresh(f"Z{j}", j, nonzero=True)  # a Dummy: never equal to a user's symbol
    repl = {}
    for c, parts in splits.items():
        val = sp.Integer(1)
        for r, m in parts:
            expo = int(r * denom[m])
            if m.is_number:  # a constant angle: its exact exponential (exp(i pi) = -1, ...)
                val *= sp.exp(sp.I * r * m)
                continue
            if _integer_valued(m):
                expo %= 2 * denom[m]
            val *= zs[m] ** expo
        repl[c] = val
    return e.xreplace(repl), {z: (m, denom[m]) for m, z in zs.items()}


def expand_is_zero(expr: sp.Expr) -> _Result:
    """Decide ``expr == 0`` for ``expr`` polynomial in sin/cos of linear forms (see module)."""
    lp, atoms = reduce_to_laurent(expr)
    ex = sp.expand(lp)
    trace = [
        "rewrite sin, cos into exponentials E(u) = exp(i u)",
        "atoms: "
        + (
            ", ".join(f"{z} = exp(i*({sp.sstr(m)})/{L})" for z, (m, L) in atoms.items())
            if atoms
            else "none (no trigonometric function)"
        ),
    ]
    nterms = len(sp.Add.make_args(ex)) if ex != 0 else 0
    trace.append(f"expanded difference: {'0' if ex == 0 else f'{nterms} term(s) remain'}")
    return _Result(ex == 0, trace, nterms, len(atoms))
