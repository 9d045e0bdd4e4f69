"""Fresh symbols for the engines: ``Dummy`` s that no user symbol can equal.

A ``Dummy`` never equals a ``Symbol``; two ``Dummy`` s are equal only with the same name, the
same ``dummy_index`` and the same assumptions.  The engines number theirs from a base drawn at
random once per process, so within a run the same atom is the same object (SymPy's caches keep
working across claims) while no user can build it by accident or by guessing.

A symbol carries only assumptions that are true of what it stands for: SymPy acts on them while
it builds every expression containing the symbol (``Max``, ``Abs``, ``Piecewise``, powers, ...
evaluate according to them).  ``nonzero`` (and ``zero``) are refused here: to SymPy they mean
*real* and (not) zero, which is false of a complex quantity such as ``exp(i u)``; a complex
quantity gets no assumption at all.
"""

from __future__ import annotations

import secrets

import sympy as sp

_BASE = secrets.randbits(52) << 10  # room for 1024 symbols per name
_MISLEADING = ("nonzero", "zero")


def fresh(name: str, j: int = 0, **assumptions) -> sp.Dummy:
    """The engines' ``j``-th symbol called ``name`` (same arguments, same object)."""
    bad = [k for k in assumptions if k in _MISLEADING]
    if bad:
        raise ValueError(f"fresh({name!r}): the assumption {bad[0]} makes SymPy read the symbol "
                         "as real; give a complex quantity no assumption, a real one real=True")
    return sp.Dummy(name, dummy_index=_BASE + j, **assumptions)
