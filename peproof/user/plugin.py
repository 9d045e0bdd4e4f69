"""``peproof prove --claims FILE.py``: the user's own claims, from a module defining ``CLAIMS``.

The file is the user's own code, named by the user on the command line, and it runs as a
plugin (imported under a private module name; nothing is added to ``sys.modules``).  What it
defines is then checked before anything is decided:

* ``CLAIMS`` is a non-empty list or tuple of :class:`peproof.claims.Claim` (at most
  :data:`MAX_CLAIMS`);
* ids are unique and none is a registry id;
* each statement is a :class:`~peproof.claims.Statement` (``None`` only for an informal
  claim), each falsifier a :class:`~peproof.claims.Falsifier` with a statement, each proof
  function callable;
* a ``companion`` or a ``uses`` entry names a claim of the file or of the registry.

Every failure is one line (:class:`PluginError`, exit 2), an exception raised by the plugin
too (its type, message and the line of the file it came from).
"""

from __future__ import annotations

import hashlib
import importlib.util
import traceback
from pathlib import Path

from peproof.claims import Claim, Falsifier, Statement
from peproof.guard import UsageError

MAX_CLAIMS = 2000


class PluginError(UsageError):
    """A claims file that cannot be used (one line)."""


def _where(exc: BaseException, path: Path) -> str:
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f" (line {exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if Path(f.filename).resolve() == path]
    return f" (line {frames[-1].lineno})" if frames else ""


def _raised(path: Path, what: str, exc: BaseException) -> PluginError:
    msg = (str(exc).strip().splitlines() or [""])[0][:200]
    return PluginError(f"--claims {path.name}: {what} raised {type(exc).__name__}"
                       f"{': ' + msg if msg else ''}{_where(exc, path)}")


def load_module(path: str | Path):
    """Run the file as a module (the plugin), its exceptions reported in one line."""
    p = Path(path)
    if p.suffix != ".py":
        raise PluginError(f"--claims {path}: a Python file (.py) defining CLAIMS expected")
    if not p.is_file():
        raise PluginError(f"--claims {path}: no such file")
    p = p.resolve()
    name = "peproof_user_claims_" + hashlib.sha256(str(p).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise PluginError(f"--claims {path}: cannot be loaded as a module")
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except (KeyboardInterrupt, MemoryError):
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit of the plugin included
        raise _raised(p, "the file", exc) from None
    return mod, p


def validate(claims, path: Path, registry_ids: set[str]) -> list[Claim]:
    """The claims of ``CLAIMS`` after the checks of the module docstring."""
    where = f"--claims {path.name}"
    if not isinstance(claims, list | tuple):
        raise PluginError(f"{where}: CLAIMS must be a list of peproof.claims.Claim, got "
                          f"{type(claims).__name__}")
    if not claims:
        raise PluginError(f"{where}: CLAIMS is empty")
    if len(claims) > MAX_CLAIMS:
        raise PluginError(f"{where}: {len(claims)} claims, at most {MAX_CLAIMS}")
    seen: set[str] = set()
    for n, c in enumerate(claims):
        if not isinstance(c, Claim):
            raise PluginError(f"{where}: CLAIMS[{n}] is a {type(c).__name__}, not a "
                              "peproof.claims.Claim")
        if c.id in seen:
            raise PluginError(f"{where}: claim id {c.id!r} appears twice")
        if c.id in registry_ids:
            raise PluginError(f"{where}: claim id {c.id!r} is already a claim of the registry "
                              "(choose another family name, e.g. 'mine.')")
        seen.add(c.id)
    for c in claims:
        try:
            st = c.statement
            fals = c.falsifiers
        except (KeyboardInterrupt, MemoryError):
            raise
        except BaseException as exc:  # noqa: BLE001 - the plugin's code, lazily built
            raise _raised(path, f"building {c.id}", exc) from None
        if not (isinstance(st, Statement) or (st is None and c.kind == "informal")):
            raise PluginError(f"{where}: {c.id}: statement must be a peproof.claims.Statement "
                              f"(None only for kind 'informal'), got {type(st).__name__}")
        for f in fals:
            if not (isinstance(f, Falsifier) and isinstance(f.statement, Statement)):
                raise PluginError(f"{where}: {c.id}: each falsifier must be a "
                                  "peproof.claims.Falsifier with a Statement")
        if c.proof is not None and not callable(c.proof):
            raise PluginError(f"{where}: {c.id}: proof must be callable")
        known = seen | registry_ids
        for ref in ([c.companion] if c.companion else []) + list(c.uses):
            if not isinstance(ref, str) or ref not in known:
                raise PluginError(f"{where}: {c.id}: {ref!r} (companion or uses) names no "
                                  "claim of the file or of the registry")
    return list(claims)


def load_claims(path: str | Path) -> list[Claim]:
    """The validated ``CLAIMS`` of the file ``path`` (:class:`PluginError` otherwise)."""
    from peproof import registry

    mod, p = load_module(path)
    if not hasattr(mod, "CLAIMS"):
        raise PluginError(f"--claims {p.name}: the file defines no CLAIMS (a list of "
                          "peproof.claims.Claim)")
    return validate(mod.CLAIMS, p, set(registry.by_id()))
