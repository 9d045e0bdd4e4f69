"""The claims registry: every ``CLAIMS`` list of the modules in :mod:`peproof.families`."""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
from functools import cache

from peproof.claims import Claim


class RegistryError(Exception):
    pass


@cache
def _load() -> tuple[Claim, ...]:
    import peproof.families as fam

    claims: list[Claim] = []
    for info in sorted(pkgutil.iter_modules(fam.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"peproof.families.{info.name}")
        claims.extend(getattr(mod, "CLAIMS", ()))
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise RegistryError(f"duplicate claim id {c.id}")
        seen.add(c.id)
    return tuple(claims)


def all_claims() -> tuple[Claim, ...]:
    return _load()


def by_id() -> dict[str, Claim]:
    return {c.id: c for c in _load()}


def get(claim_id: str) -> Claim:
    try:
        return by_id()[claim_id]
    except KeyError:
        raise RegistryError(f"no claim with id {claim_id!r}") from None


def family(name: str) -> list[Claim]:
    return [c for c in _load() if c.family == name]


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob pattern (``rotation.*``) or contains ``pattern``."""
    claims = list(_load())
    if not pattern:
        return claims
    if any(ch in pattern for ch in "*?["):
        return [c for c in claims if fnmatch.fnmatchcase(c.id, pattern)]
    return [c for c in claims if pattern in c.id]
