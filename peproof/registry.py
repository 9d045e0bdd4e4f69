"""The claims registry: every ``CLAIMS`` list of the modules in :mod:`peproof.families`."""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import sys
from functools import cache

from peproof import scope
from peproof.claims import Claim


class RegistryError(Exception):
    pass


def _modules() -> list[str]:
    import peproof.families as fam

    return [info.name for info in sorted(pkgutil.iter_modules(fam.__path__),
                                         key=lambda m: m.name) if not info.name.startswith("_")]


def _load() -> tuple[Claim, ...]:
    """The claims of the encoding in force (:mod:`peproof.scope`): the paper's registry, or
    the variant's (:func:`claims_for`)."""
    v = scope.current()
    return _load_paper() if v is None else claims_for(v)


@cache
def _load_paper() -> tuple[Claim, ...]:
    claims: list[Claim] = []
    with scope.using(None):  # the paper's modules, whatever is in force at the first call
        for name in _modules():
            mod = importlib.import_module(f"peproof.families.{name}")
            claims.extend(getattr(mod, "CLAIMS", ()))
    return _unique(claims)


def _unique(claims: list[Claim]) -> tuple[Claim, ...]:
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise RegistryError(f"duplicate claim id {c.id}")
        seen.add(c.id)
    return tuple(claims)


_VARIANTS: dict[str, tuple[Claim, ...]] = {}


def claims_for(variant) -> tuple[Claim, ...]:
    """Every family's claims built for ``variant`` (a :class:`peproof.scope.Sinusoidal` or
    :class:`~peproof.scope.Rotary`; ``None`` is the paper's registry): the same ids as the
    paper's, in the same order.  Each family module is imported afresh with the variant in
    force, so its statements, falsifiers and proofs are built from the variant's encoding;
    a claim that has no meaning for the variant (or a module that cannot be built for it) is
    kept as an ``unknown`` row saying "not applicable" and why (:mod:`peproof.variant_claims`).
    Decide them inside ``scope.using(variant)`` (:func:`peproof.results.run_variant`)."""
    if variant is None:
        return _load_paper()
    k = scope.key(variant)
    if k not in _VARIANTS:
        from peproof.variant_claims import build_all

        paper = _load_paper()
        where = {c.id: name for name in _modules() for c in getattr(
            importlib.import_module(f"peproof.families.{name}"), "CLAIMS", ())}
        with scope.using(variant):
            built = build_all(variant, paper, _fresh_modules, where)
        _VARIANTS[k] = _unique(built)
    return _VARIANTS[k]


def _fresh_modules(names=None):
    """``{name: module}`` of the family modules imported afresh (with the variant in force at
    the call); the paper's modules are put back in ``sys.modules`` afterwards.  A module that
    fails to build is ``{name: exception}``."""
    import peproof.families as fam

    prefix = "peproof.families."
    saved = {n: m for n, m in sys.modules.items() if n.startswith(prefix)}
    attrs = {n[len(prefix):]: getattr(fam, n[len(prefix):], None) for n in saved}
    for n in saved:
        del sys.modules[n]
    out: dict = {}
    try:
        for name in names or _modules():
            try:
                out[name] = importlib.import_module(prefix + name)
            except Exception as exc:  # noqa: BLE001 - named in the claims' rows, never hidden
                out[name] = exc
    finally:
        for n in [n for n in sys.modules if n.startswith(prefix)]:
            del sys.modules[n]
        sys.modules.update(saved)
        for short, mod in attrs.items():
            if mod is not None:
                setattr(fam, short, mod)
    return out


# -- the paper's claims of some families only ------------------------------------------------
# A command about one claim or one family (``peproof prove rotation.sin_angle_addition``) need not
# import all 28 family modules (~0.9 s): the claims of family ``f`` are in the modules named ``f``
# or ``f_<more>`` (tests/test_registry.py checks this of every claim), so those are imported and
# filtered.  Only for the paper's registry; a lookup that finds nothing there falls back to the
# whole registry, so a claim outside the convention is found all the same (only slower).

def _candidates(families) -> list[str]:
    """The family modules that may hold claims of a family for which ``families(f)`` is true
    (``f`` any prefix of a module's name ending at an underscore, or the whole name)."""
    out = []
    for name in _modules():
        parts = name.split("_")
        if any(families("_".join(parts[:k])) for k in range(1, len(parts) + 1)):
            out.append(name)
    return out


@cache
def _some_paper(modules: tuple[str, ...]) -> tuple[Claim, ...]:
    """The claims of ``modules``, in the registry's order: the same objects as the whole
    registry's (a module is imported once)."""
    claims: list[Claim] = []
    with scope.using(None):
        for name in modules:
            claims.extend(getattr(importlib.import_module(f"peproof.families.{name}"),
                                  "CLAIMS", ()))
    return _unique(claims)


def _narrow(pattern: str, match) -> list[Claim] | None:
    """The paper's claims ``match`` keeps, from the modules of the families the pattern can
    name (the text before its first dot: a glob's family, or for a substring every family
    ending with it); None when the pattern names no family or a variant is in force."""
    if scope.current() is not None or "." not in pattern:
        return None
    head = pattern.split(".", 1)[0]
    if any(ch in pattern for ch in "*?["):
        if any(ch in head for ch in "*?[") or not head:
            return None
        modules = _candidates(lambda f: f == head)
    else:
        modules = _candidates(lambda f: f.endswith(head))
    found = [c for c in _some_paper(tuple(modules)) if match(c)]
    return found or None


def all_claims() -> tuple[Claim, ...]:
    return _load()


def by_id() -> dict[str, Claim]:
    return {c.id: c for c in _load()}


def get(claim_id: str) -> Claim:
    near = _narrow(claim_id, lambda c: c.id == claim_id) if "." in claim_id and not any(
        ch in claim_id for ch in "*?[") else None
    if near:
        return near[0]
    try:
        return by_id()[claim_id]
    except KeyError:
        raise RegistryError(f"no claim with id {claim_id!r}") from None


def is_registered(claim: Claim) -> bool:
    """Whether ``claim`` is the registry's own object for its id (not a user's claim that
    reuses an id)."""
    try:
        return get(claim.id) is claim
    except RegistryError:
        return False


def family(name: str) -> list[Claim]:
    return [c for c in _load() if c.family == name]


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob pattern (``rotation.*``) or contains ``pattern``."""
    if not pattern:
        return list(_load())
    if any(ch in pattern for ch in "*?["):
        def match(c):
            return fnmatch.fnmatchcase(c.id, pattern)
    else:
        def match(c):
            return pattern in c.id
    near = _narrow(pattern, match)
    if near is not None:
        return near
    return [c for c in _load() if match(c)]
