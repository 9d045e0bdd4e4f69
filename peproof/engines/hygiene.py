"""Fresh symbols for the engines: ``Dummy`` s that no user symbol can equal.

A ``Dummy`` never equals a ``Symbol``; two ``Dummy`` s are equal only with the same name, the
same ``dummy_index`` and the same assumptions.  The engines number theirs from a base drawn at
random once per process, so within a run the same atom is the same object (SymPy's caches keep
working across claims) while no user can build it by accident or by guessing.
"""

from __future__ import annotations

import secrets

import sympy as sp

_BASE = secrets.randbits(52) << 10  # room for 1024 symbols per name


def fresh(name: str, j: int = 0, **assumptions) -> sp.Dummy:
    """The engines' ``j``-th symbol called ``name`` (same arguments, same object)."""
    return sp.Dummy(name, dummy_index=_BASE + j, **assumptions)
