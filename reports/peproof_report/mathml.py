"""MathML for the HTML edition, from the LaTeX the report already writes (``latex2mathml``).

The page then typesets its formulas itself (browsers render MathML Core natively): nothing is
fetched when it is read.  The converter's output is not trusted as markup: it copies the text
of ``\\text{...}`` and unknown characters verbatim, so it is parsed as XML, every element and
attribute checked against a MathML whitelist, and serialised again (text escaped).  A formula
the converter cannot read, or whose output keeps a LaTeX command (an unknown macro comes back
as ``<mi>\\foo</mi>``), or fails the whitelist, is shown as its source (:class:`Formula`
``.math`` is then ``None``) and counted.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from markupsafe import Markup, escape

NS = "http://www.w3.org/1998/Math/MathML"
TAGS = frozenset("""math semantics mrow mi mn mo mtext mspace ms msub msup msubsup mfrac msqrt
mroot munder mover munderover mtable mtr mtd mstyle mpadded mphantom menclose merror
mfenced""".split())
ATTRS = frozenset("""display xmlns mathvariant stretchy fence form separator width height depth
linebreak lspace rspace accent accentunder movablelimits largeop symmetric minsize maxsize
displaystyle scriptlevel columnalign rowalign columnspacing rowspacing linethickness notation
open close separators""".split())


@dataclass(frozen=True)
class Formula:
    tex: str
    math: Markup | None  # the checked MathML, or None: shown as source


def _clean(tex: str) -> str:
    """The row as one formula: the alignment marks of the report's ``align`` rows dropped."""
    return re.sub(r"(?<!\\)&", " ", tex).strip()


def _checked(mathml: str) -> str | None:
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:
        return None
    for el in root.iter():
        tag = el.tag.split("}", 1)[-1]
        if not el.tag.startswith("{" + NS + "}") or tag not in TAGS:
            return None
        if any(a.split("}", 1)[-1] not in ATTRS for a in el.attrib):
            return None
        if el.text and "\\" in el.text:  # a LaTeX command the converter did not know
            return None
    ET.register_namespace("", NS)
    return ET.tostring(root, encoding="unicode", short_empty_elements=True)


def to_mathml(tex: str, display: str = "block") -> Formula:
    """The formula of ``tex`` (see the module docstring)."""
    try:
        from latex2mathml.converter import convert
    except ImportError:
        return Formula(tex, None)
    try:
        out = convert(_clean(tex), display=display)
    except Exception:  # noqa: BLE001 - the converter's own errors: shown as source
        return Formula(tex, None)
    checked = _checked(out)
    return Formula(tex, Markup(checked) if checked else None)


def html(tex: str, display: str = "block") -> Markup:
    """The formula as MathML, or its source in ``<code class="tex">`` when not convertible."""
    f = to_mathml(tex, display)
    if f.math is not None:
        return f.math
    return Markup('<code class="tex">') + escape(tex) + Markup("</code>")
