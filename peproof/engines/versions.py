"""The versions of the libraries an engine's verdict rests on (recorded in its trusted base)."""

from __future__ import annotations

from functools import cache

import flint
import sympy as sp
import z3


@cache
def versions() -> dict[str, str]:
    return {
        "sympy": sp.__version__,
        "python-flint": flint.__version__,
        "z3": z3.get_version_string(),
    }


def all_versions() -> str:
    """``sympy x, python-flint y, z3 z``."""
    v = versions()
    return ", ".join(f"{k} {v[k]}" for k in ("sympy", "python-flint", "z3"))
