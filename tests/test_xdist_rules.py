"""The suites run on pytest-xdist workers (``make test``): a lint of the test sources for the
common ways a test breaks its neighbours (the rules are listed in tests/conftest.py).

* a fixed path under /tmp (two workers, or two runs, write the same file);
* a write into the tree (``ROOT / ...``, ``Path(__file__)...`` followed by a write);
* a fixed TCP port bound or listened on (two workers collide: bind port 0).

Each rule is shown to catch a planted violation (the ``BAD`` sources below), so the lint can
fail; the sources of proofs/, tests/ and numeric/ must give none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITES = ("proofs", "tests", "numeric")

RULES = {
    "fixed /tmp path": re.compile(r"""(?<![\w.])["']/tmp/[^"'\s]*["']"""),
    "write into the tree": re.compile(
        r"(?:\bROOT\b|\bHERE\b|Path\(__file__\)[\w.()\[\]]*)\s*/[^#\n]*"
        r"\.(?:write_text|write_bytes|mkdir|touch|unlink|rmdir)\("),
    "fixed TCP port": re.compile(
        r"""\.(?:bind|create_server|listen)\(\s*\(\s*["'][\w.:]*["']\s*,\s*[1-9]\d{2,4}\s*\)"""
        r"""|--port["']\s*,\s*["']?[1-9]\d{2,4}"""),
}

BAD = {
    "fixed /tmp path": 'out = Path("/tmp/peproof-out.json")\n',
    "write into the tree": '(ROOT / "reports" / "x.txt").write_text("x")\n',
    "fixed TCP port": 'sock.bind(("127.0.0.1", 8786))\n',
}
GOOD = ('tmp = tmp_path / "x.json"\n'
        'sock.bind(("127.0.0.1", 0))\n'
        'text = (ROOT / "README.md").read_text()\n'
        '["dask", "scheduler", "--port", "0"]\n')


def violations(text: str) -> list[tuple[str, int, str]]:
    """``(rule, line number, line)`` of every line of ``text`` breaking a rule (a line ending
    in ``# xdist: ok`` is exempt: say why beside it)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.rstrip().endswith("# xdist: ok"):
            continue
        for rule, pat in RULES.items():
            if pat.search(line):
                out.append((rule, n, line.strip()))
    return out


@pytest.mark.parametrize("rule", sorted(BAD))
def test_each_rule_catches_its_violation(rule):
    assert [v[0] for v in violations(BAD[rule])] == [rule]


def test_ordinary_code_is_not_flagged():
    assert violations(GOOD) == []


def test_the_suites_follow_the_rules():
    me = Path(__file__).resolve()
    found = []
    for suite in SUITES:
        for path in sorted((ROOT / suite).rglob("*.py")):
            if path.resolve() == me:
                continue
            found += [f"{path.relative_to(ROOT)}:{n}: {rule}: {line}"
                      for rule, n, line in violations(path.read_text(errors="replace"))]
    assert not found, "\n".join(found)
