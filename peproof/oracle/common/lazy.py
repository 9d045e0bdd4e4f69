"""Public names of a package imported on first use (PEP 562), so that a command that never
touches the oracle does not pay for its imports (ml_dtypes, SymPy)."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, exports: dict[str, str], namespace: dict):
    """``__getattr__`` and ``__dir__`` for ``package``: ``exports`` maps each public name to
    the module (absolute, or relative to ``package``) it is read from; a name read once is
    kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str):
        mod = exports.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(mod, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
