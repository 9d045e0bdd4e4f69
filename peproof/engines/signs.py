"""Structural facts about real terms: signs and integrality read off the syntax tree.

These rules are this project's own, small enough to audit, and used wherever an engine needs a
fact about a subterm without a solver: side conditions of well-formed statements
(:mod:`peproof.engines.wellformed`), the sign axioms of opaque atoms in the z3 abstractions, the
positive bases of the lifting.  They never call SymPy's assumption system on compound terms
(whose numeric sign tests evaluate in floating point); a variable's facts come from its declared
domain.

Every rule assumes its arguments are real, which the well-formedness layer establishes first
(terms containing the imaginary unit get no sign).
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import INT_DOMAINS

POS, NEG, NONNEG, NONPOS, NONZERO = "pos", "neg", "nonneg", "nonpos", "nonzero"
_DOMAIN_SIGN = {"pos_real": POS, "pos_integer": POS, "even_pos_integer": POS,
                "nonneg_integer": NONNEG}


_IMPLIED = {POS: {POS, NONNEG, NONZERO}, NEG: {NEG, NONPOS, NONZERO}, NONNEG: {NONNEG},
            NONPOS: {NONPOS}, NONZERO: {NONZERO}}


def implies(fact: str | None, want: str) -> bool:
    """Does the sign fact ``fact`` give ``want`` (pos, neg, nonneg, nonpos or nonzero)?"""
    return fact is not None and want in _IMPLIED[fact]


def _mul_signs(signs: list[str | None]) -> str | None:
    if any(s is None for s in signs):
        return None
    if all(s in (POS, NEG) for s in signs):
        return POS if sum(s == NEG for s in signs) % 2 == 0 else NEG
    if all(s in (POS, NEG, NONNEG, NONPOS) for s in signs):
        neg = sum(s in (NEG, NONPOS) for s in signs) % 2
        return NONPOS if neg else NONNEG
    if all(s in (POS, NEG, NONZERO) for s in signs):
        return NONZERO
    return None


def _add_signs(signs: list[str | None]) -> str | None:
    if all(implies(s, NONNEG) for s in signs):
        return POS if any(s == POS for s in signs) else NONNEG
    if all(implies(s, NONPOS) for s in signs):
        return NEG if any(s == NEG for s in signs) else NONPOS
    return None


def sign(e: sp.Expr, domains: dict) -> str | None:
    """A sign fact of the real term ``e`` (``domains``: symbol -> declared domain), or None."""
    return None if e.has(sp.I) else _sign(e, domains)


def _sign(e: sp.Expr, domains: dict) -> str | None:  # noqa: C901 - flat dispatch
    if e.is_Rational:
        return POS if e > 0 else NEG if e < 0 else NONNEG
    if e is sp.pi or e is sp.E:
        return POS
    if e.is_Symbol:
        return _DOMAIN_SIGN.get(domains.get(e))
    if e.is_Add:
        return _add_signs([_sign(a, domains) for a in e.args])
    if e.is_Mul:
        return _mul_signs([_sign(a, domains) for a in e.args])
    if e.is_Pow:
        b, x = e.args
        sb = _sign(b, domains)
        if x.is_Integer:
            if int(x) % 2 == 0:
                return POS if implies(sb, NONZERO) else NONNEG
            if int(x) < 0 and sb in (NONNEG, NONPOS):
                return None  # 1/b needs b != 0, which this fact does not give
            return sb
        if sb == POS:  # a real power of a positive base
            return POS
        if x.is_Rational and x > 0 and sb == NONNEG:
            return NONNEG
        return None
    if isinstance(e, sp.exp):
        return POS
    if isinstance(e, sp.Abs):
        return POS if implies(_sign(e.args[0], domains), NONZERO) else NONNEG
    if isinstance(e, sp.Max):
        signs = [_sign(a, domains) for a in e.args]
        if any(s == POS for s in signs):
            return POS
        return NONNEG if any(implies(s, NONNEG) for s in signs) else None
    if isinstance(e, sp.Min):
        signs = [_sign(a, domains) for a in e.args]
        if all(s == POS for s in signs):
            return POS
        if any(s == NEG for s in signs):
            return NEG
        return NONNEG if all(implies(s, NONNEG) for s in signs) else None
    return None


def integer_valued(e: sp.Expr, domains: dict) -> bool:
    """``e`` takes integer values wherever it is defined (structural rules only)."""
    if e.is_Integer:
        return True
    if e.is_Symbol:
        return domains.get(e) in INT_DOMAINS
    if e.is_Add or e.is_Mul:
        return all(integer_valued(a, domains) for a in e.args)
    if e.is_Pow:
        return e.exp.is_Integer and e.exp >= 0 and integer_valued(e.base, domains)
    if isinstance(e, sp.floor | sp.ceiling):
        return True
    if isinstance(e, sp.Mod | sp.Abs | sp.Max | sp.Min):
        return all(integer_valued(a, domains) for a in e.args)
    if isinstance(e, sp.Piecewise):
        return all(integer_valued(v, domains) for v, _ in e.args)
    return False
