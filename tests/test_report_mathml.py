"""The HTML edition typesets its formulas: MathML converted from the report's LaTeX at build time
(peproof_report.mathml), laid out by headless Chromium as mathematics, not shown as source.

What distinguishes rendered math from source, checked in Chromium's own layout: a fraction's
numerator box lies above its denominator's (text would put them side by side), a subscript sits
lower than its base; the page's visible text holds no LaTeX command; and in a screenshot a
fraction has its bar, a long horizontal run of ink with ink above and below it.

Sabotage killed: the conversion replaced by the source (``to_mathml`` returning no MathML) makes
``probe`` report no <math>, no stacked fraction and LaTeX commands in the text
(test_a_sabotaged_conversion_is_caught), and the screenshot lose its fraction bar
(test_a_fraction_in_a_screenshot_has_its_bar, run on the sabotaged formula too).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peproof_report import html as H  # noqa: E402
from peproof_report import mathml  # noqa: E402
from test_report_html import _need_chromium, chromium  # noqa: E402

PATTERN = "products.*"  # statements with fractions, subscripts, sums

PROBE = r"""<script>
window.addEventListener("load", () => {
  const box = (e) => e.getBoundingClientRect();
  const text = document.body.innerText;
  const fracs = [...document.querySelectorAll("mfrac")].map(f => f.children.length === 2 &&
      box(f.children[0]).bottom <= box(f.children[1]).top + 1);
  const subs = [...document.querySelectorAll("msub")].map(s => s.children.length === 2 &&
      box(s.children[1]).top > box(s.children[0]).top + 1 &&
      box(s.children[1]).left >= box(s.children[0]).right - 1);
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({
    maths: document.querySelectorAll("math").length,
    statements: document.querySelectorAll("p.statement").length,
    fracs: fracs, subs: subs,
    tex: text.match(/\\(frac|sin|cos|left|right|mathbb|forall|sum|omega)\b/g) || []});
  document.body.appendChild(pre);
});
</script></body>"""


def probe(html_path: Path) -> dict:
    test = html_path.with_name(html_path.stem + "-probe.html")
    test.write_text(html_path.read_text().replace("</body>", PROBE))
    dom = chromium("--virtual-time-budget=3000", "--window-size=1200,1600", "--dump-dom",
                   test.as_uri())
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert m, "the page did not run its probe"
    import html

    return json.loads(html.unescape(m.group(1)))


def faults(p: dict) -> list[str]:
    """What shows the formulas were not typeset (empty: they were)."""
    out = []
    if p["maths"] < p["statements"] or not p["maths"]:
        out.append(f"{p['maths']} <math> for {p['statements']} statements")
    if not p["fracs"] or not all(p["fracs"]):
        out.append(f"fractions not stacked: {p['fracs']}")
    if not p["subs"] or not all(p["subs"]):
        out.append(f"subscripts not lowered: {p['subs']}")
    if p["tex"]:
        out.append(f"LaTeX source in the text: {sorted(set(p['tex']))}")
    return out


@pytest.fixture(scope="module")
def run_data(tmp_path_factory):
    """The run of the pattern's claims, decided without Coq (the page's formulas are what is
    tested here; test_report_html covers the Coq entries)."""
    _need_chromium()
    from peproof_report.claimsrun import collect_claims

    from peproof import registry

    out = tmp_path_factory.mktemp("mathml")
    return json.loads(json.dumps(collect_claims(registry.select(PATTERN), out, coq=False,
                                                falsifiers=False)))


def test_the_formulas_are_typeset_as_mathml(run_data, tmp_path):
    page = H.write(run_data, tmp_path)
    assert faults(probe(page)) == []


def test_a_sabotaged_conversion_is_caught(run_data, tmp_path, monkeypatch):
    monkeypatch.setattr(mathml, "to_mathml", lambda tex, display="block": mathml.Formula(tex,
                                                                                        None))
    page = H.write(run_data, tmp_path)
    found = faults(probe(page))
    assert any("<math>" in f for f in found) and any("LaTeX source" in f for f in found)


FRACTION = r"\frac{\cos{\left(a - b \right)}}{2} + x_{1}"


def _bar(shot: Path) -> bool:
    """A fraction bar: a run of at least 20 dark pixels in one row, with ink in the rows above
    and below it over that run."""
    from PIL import Image

    img = Image.open(shot).convert("L")
    w, h = img.size
    px = img.load()
    dark = [[px[x, y] < 128 for x in range(w)] for y in range(h)]
    for y in range(3, h - 3):
        run = 0
        for x in range(w):
            run = run + 1 if dark[y][x] else 0
            if run >= 20:
                xs = range(x - run + 1, x + 1)
                above = any(dark[yy][xx] for yy in range(max(0, y - 25), y - 2) for xx in xs)
                below = any(dark[yy][xx] for yy in range(y + 3, min(h, y + 25)) for xx in xs)
                if above and below:
                    return True
    return False


@pytest.mark.parametrize("sabotaged", [False, True])
def test_a_fraction_in_a_screenshot_has_its_bar(tmp_path, monkeypatch, sabotaged):
    _need_chromium()
    if sabotaged:
        monkeypatch.setattr(mathml, "to_mathml", lambda tex, display="block":
                            mathml.Formula(tex, None))
    page = tmp_path / "f.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                    '<body style="font-size:40px;margin:20px">' + mathml.html(FRACTION)
                    + "</body></html>")
    shot = tmp_path / "f.png"
    chromium("--window-size=900,300", f"--screenshot={shot}", page.as_uri())
    assert _bar(shot) is not sabotaged


def test_the_converter_output_is_checked_not_trusted():
    """Text the converter copies verbatim (``\\text{<script>}``) and unknown macros are shown as
    escaped source, never as markup."""
    for tex in (r"\text{<script>alert(1)</script>}", r"\vproved x", r"\text{x < y}"):
        out = str(mathml.html(tex))
        assert "<script" not in out and "x < y" not in out
        assert out.startswith('<code class="tex">'), out
    assert "<b>" not in str(mathml.html("a & <b>"))  # read as a < b >: escaped operators
    ok = str(mathml.html(r"\frac{1}{2} \le \omega_{i}"))
    assert ok.startswith("<math") and "<mfrac>" in ok and "\\" not in ok
