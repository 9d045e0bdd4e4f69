"""Mutations that turn a true statement into a deliberately wrong falsifier.

Each returns a new :class:`~peproof.claims.Statement`; the meta-tests require every falsifier
to come back refuted with a certified witness, so a mutation that happens to leave the
statement true is caught there, not silently accepted.
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import Falsifier, Statement


def _swap(e: sp.Expr) -> sp.Expr:
    return e.replace(
        lambda x: isinstance(x, sp.sin | sp.cos),
        lambda x: (sp.cos if isinstance(x, sp.sin) else sp.sin)(x.args[0]),
    )


def swap_sin_cos(stmt: Statement, index=None, name="swap_sin_cos") -> Falsifier:
    return Falsifier(name, stmt.map_rhs(_swap, index), "sin and cos exchanged on the right")


def flip_sign(stmt: Statement, index=None, name="sign_flip") -> Falsifier:
    return Falsifier(name, stmt.map_rhs(lambda e: -e, index), "right-hand side negated")


def shift(stmt: Statement, c=1, index=None, name="off_by_constant") -> Falsifier:
    return Falsifier(name, stmt.map_rhs(lambda e: e + c, index), f"right-hand side plus {c}")


def scale(stmt: Statement, c=2, index=None, name="scaled") -> Falsifier:
    return Falsifier(name, stmt.map_rhs(lambda e: c * e, index), f"right-hand side times {c}")


def subs_rhs(stmt: Statement, mapping: dict, name: str, note: str = "",
             index=None) -> Falsifier:
    return Falsifier(name, stmt.map_rhs(lambda e: e.subs(mapping), index), note)


def subs_all(stmt: Statement, mapping: dict, name: str, note: str = "") -> Falsifier:
    """Substitute on the right-hand sides only after building from a mutated definition."""
    return Falsifier(name, stmt.map_rhs(lambda e: e.xreplace(mapping)), note)
