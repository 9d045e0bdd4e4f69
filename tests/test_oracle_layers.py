"""The oracle's layers: ``common`` below two sides, ``sinusoidal`` and ``rotary``, and no import
circle anywhere in :mod:`peproof.oracle`.

Every module's imports are read from its source (module level and inside functions, ``if
TYPE_CHECKING`` blocks included: an import circle through a function-level import is still a
circle), relative ones resolved, and only edges inside ``peproof.oracle`` kept.  Rules:

* no cycle in that graph;
* ``common`` imports nothing from either side; ``sinusoidal`` and ``rotary`` never import each
  other; nothing under a subpackage imports the top-level package (its ``__init__`` is the public
  API and imports the sides);
* every module lives in one of the three subpackages (only ``__init__.py`` at the top), none
  longer than :data:`MAX_LINES` lines.

The checks are functions of a graph, so the falsifiers below feed them synthetic graphs (and
synthetic sources: the former ``checking`` <-> ``diagnose`` circle, closed by a function-level
import) and show each rule fails when it should.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Tarjan's components: the engines' layer test has the one copy
_spec = importlib.util.spec_from_file_location("_layers_graph", Path(__file__).with_name(
    "test_layers.py"))
_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layers)
cycles = _layers.cycles
ORACLE = ROOT / "peproof" / "oracle"
TOP = "peproof.oracle"
SUBPACKAGES = ("common", "sinusoidal", "rotary")
SIDES = ("sinusoidal", "rotary")
MAX_LINES = 450


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def sources() -> dict[str, tuple[str, bool]]:
    """``{module: (source, is_package)}`` for every module under ``peproof/oracle``."""
    return {module_name(p): (p.read_text(), p.name == "__init__.py")
            for p in sorted(ORACLE.rglob("*.py"))}


def imports_of(name: str, source: str, is_pkg: bool, known: set[str]) -> set[str]:
    """The modules under ``peproof.oracle`` that ``source`` (module ``name``) imports, at any
    depth of its syntax tree.  ``from X import y`` is an edge to ``X.y`` when that is a module,
    else to ``X``."""
    package = name if is_pkg else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod
                       for a in node.names]
        else:
            continue
        out.update(t for t in targets if t == TOP or t.startswith(TOP + "."))
    out.discard(name)
    return out


def graph_of(srcs: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    known = set(srcs)
    return {m: imports_of(m, s, pkg, known) for m, (s, pkg) in srcs.items()}


def layer_of(module: str) -> str:
    """``common`` / ``sinusoidal`` / ``rotary`` / ``top`` (the package itself or a stray module)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in SUBPACKAGES else "top"


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for src, targets in sorted(graph.items()):
        a = layer_of(src)
        for dst in sorted(targets):
            b = layer_of(dst)
            if a == "top" or a == b:
                continue  # the public package may import any side
            if b == "top" or a == "common" or (a in SIDES and b in SIDES):
                bad.append(f"{src} -> {dst} ({a} imports {b})")
    return bad


# ----------------------------------------------------------------------------- the real tree
def test_oracle_has_no_import_cycle():
    g = graph_of(sources())
    assert len(g) > 30 and any(g.values())  # the tree was read
    assert cycles(g) == []


def test_sides_import_only_common():
    g = graph_of(sources())
    assert layer_violations(g) == []
    # both sides do use common (the layering is real, not vacuous)
    assert any(layer_of(d) == "common" for s, t in g.items() if layer_of(s) == "rotary" for d in t)
    assert any(layer_of(d) == "common" for s, t in g.items() if layer_of(s) == "sinusoidal"
               for d in t)


def test_every_module_is_in_a_subpackage_and_short():
    top = [p.name for p in ORACLE.glob("*.py")]
    assert top == ["__init__.py"], top
    for sub in SUBPACKAGES:
        init = ORACLE / sub / "__init__.py"
        assert init.exists() and ast.get_docstring(ast.parse(init.read_text())), sub
    long = {str(p.relative_to(ORACLE)): n for p in ORACLE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_public_api_imports():
    import peproof.oracle as oracle

    for name in oracle.__all__:
        assert hasattr(oracle, name), name


# ----------------------------------------------------------------------------- falsifiers
def test_a_cycle_is_found():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    g["c"] = set()
    assert cycles(g) == []


def test_a_function_level_circle_is_found():
    """The former circle: ``checking`` imported ``diagnose`` inside ``_check`` and ``diagnose``
    imported the verdicts from ``checking`` inside ``diagnose()``."""
    srcs = {
        f"{TOP}.sinusoidal": ('"""side"""\n', True),
        f"{TOP}.sinusoidal.checking": (
            "CONFORMS = 'conforms'\n\ndef _check():\n    from .diagnose import diagnose\n", False),
        f"{TOP}.sinusoidal.diagnose": (
            "def diagnose():\n    if True:\n        from .checking import CONFORMS\n", False),
    }
    g = graph_of(srcs)
    assert g[f"{TOP}.sinusoidal.checking"] == {f"{TOP}.sinusoidal.diagnose"}
    assert cycles(g) == [[f"{TOP}.sinusoidal.checking", f"{TOP}.sinusoidal.diagnose"]]


def test_crossing_imports_are_found():
    srcs = {
        f"{TOP}.rotary.cache": ("def f():\n    from ..sinusoidal.compare import compare\n", False),
        f"{TOP}.sinusoidal.compare": ("import peproof.oracle.rotary.model as m\n", False),
        f"{TOP}.rotary.model": ("from peproof.oracle import check\n", False),
        f"{TOP}.common.budget": ("from ..sinusoidal import compare\n", False),
        f"{TOP}.sinusoidal.checking": ("from ..common import budget\nfrom . import compare\n",
                                       False),
    }
    bad = layer_violations(graph_of(srcs))
    assert bad == [
        f"{TOP}.common.budget -> {TOP}.sinusoidal.compare (common imports sinusoidal)",
        f"{TOP}.rotary.cache -> {TOP}.sinusoidal.compare (rotary imports sinusoidal)",
        f"{TOP}.rotary.model -> {TOP} (rotary imports top)",
        f"{TOP}.sinusoidal.compare -> {TOP}.rotary.model (sinusoidal imports rotary)",
    ]


# ----------------------------------------------------------------------------- its users
#: the packages whose ``__all__`` is the oracle's public API
PUBLIC = (TOP, f"{TOP}.rotary")
SCAN = ROOT / "peproof" / "scan"


def private_uses(source: str, public: dict[str, set[str]]) -> list[str]:
    """The imports from ``peproof.oracle`` in ``source`` that are not of a public name: a module
    other than the packages of ``public``, or a name missing from that package's ``__all__``."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.startswith(TOP + ".")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and (
                node.module == TOP or node.module.startswith(TOP + ".")):
            names = public.get(node.module)
            if names is None:
                bad.append(node.module)
            else:
                bad += [f"{node.module}.{a.name}" for a in node.names if a.name not in names]
    return bad


def _public() -> dict[str, set[str]]:
    import importlib

    return {m: set(importlib.import_module(m).__all__) for m in PUBLIC}


def test_the_scan_uses_only_the_public_api():
    pub = _public()
    assert {"check", "check_rotary", "CODES", "load", "CREATE_WEIGHT", "PADDED"} <= pub[TOP]
    srcs = {p.name: p.read_text() for p in SCAN.glob("*.py")}
    assert any(TOP in s for s in srcs.values())  # the scan does use the oracle
    assert {n: b for n, s in srcs.items() if (b := private_uses(s, pub))} == {}


def test_a_private_import_is_found():
    """The scan's imports before the oracle exported them (they fail the rule above)."""
    old = ("from peproof.oracle import check\n"
           "from peproof.oracle.common.loaders import load\n"
           "from peproof.oracle.rotary.check import check_rotary\n"
           "def f():\n    import peproof.oracle.sinusoidal.peers as p\n")
    assert private_uses(old, _public()) == [
        f"{TOP}.common.loaders", f"{TOP}.rotary.check", f"{TOP}.sinusoidal.peers"]
    assert private_uses("from peproof.oracle import _budget\n", _public()) == [
        f"{TOP}._budget"]
