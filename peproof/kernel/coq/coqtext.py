"""Coq text shared by the printers (translate, semantic, integral): a term as an argument."""

from __future__ import annotations

import functools


def arg(s: str) -> str:
    """``s`` as an argument of an application: parenthesized unless atomic or already one
    parenthesized group."""
    if all(ch.isalnum() or ch in "_." for ch in s):
        return s
    if s.startswith("(") and closing(s) == len(s) - 1:
        return s
    return f"({s})"


def closing(s: str) -> int:
    """The index of the parenthesis that closes the one ``s`` starts with (-1: none)."""
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k
    return -1


@functools.lru_cache(maxsize=16384)
def ordered_terms(e) -> tuple:
    """``e.as_ordered_terms()``, remembered: the printers print the same sums many times over
    (the goal, the statement's meaning, the scripts' terms) and SymPy's ordering costs most of
    the planning's time (a quarter of a second per hundred sums).  SymPy expressions are
    immutable and hashed by structure: the same sum, the same order."""
    return tuple(e.as_ordered_terms())
