"""The HTML edition in headless Chromium: it loads, every claim has its anchor, and clicking a
node of a dependency graph (an SVG link) goes to that claim, which is on the page.

Needs Chromium (Debian: chromium-headless-shell, installed by ``make test``).  Without it these
tests skip on a developer's machine and fail under CI (``CI`` set), where the set-up installs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from peproof import registry
from peproof.commands.report import load_generator

gen = load_generator()

PATTERN = "products.*"  # a family graph of 9 claims, proved and unknown, quick to decide
CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")

#: on load: every link of every inline SVG is hit-tested where it is drawn (the element a click
#: at the centre of the link's box reaches must be inside that link) and its target looked up;
#: then one link is clicked for real and the fragment the page navigates to is recorded
SELF_TEST = """<script>
window.addEventListener("load", () => {
  const links = [];
  for (const a of document.querySelectorAll("svg a")) {
    const href = a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href");
    a.scrollIntoView({block: "center"});
    const r = a.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    links.push({href: href, hit: !!hit && hit.closest("a") === a,
                target: !!document.getElementById(decodeURIComponent(href.slice(1)))});
  }
  const done = (went) => {
    const pre = document.createElement("pre");
    pre.id = "selftest";
    pre.textContent = JSON.stringify({links: links, clicked: links.length ? links[0].href : null,
                                      went: went});
    document.body.appendChild(pre);
  };
  const first = document.querySelector("svg a");
  if (!first) { done(null); return; }
  let reported = false;
  const once = (went) => { if (!reported) { reported = true; done(went); } };
  window.addEventListener("hashchange", () => once(location.hash), {once: true});
  setTimeout(() => once(location.hash || null), 1000);
  first.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
});
</script></body>"""


def _need_chromium():
    if CHROMIUM:
        return
    if os.environ.get("CI"):
        pytest.fail("Chromium is not installed: CI must install chromium-headless-shell "
                    "(make chromium)")
    pytest.skip("Chromium is not installed (make chromium)")


def _session(sid: int) -> list[int]:
    """Every process of session ``sid`` (read from /proc: orphans re-parented to init too)."""
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:  # after the name: state, ppid, pgrp, session
                out.append(int(e))
    return out


def chromium(*args: str) -> str:
    # Chromium's ordinary multi-process mode (its --single-process mode crashed with SIGTRAP
    # now and then), started in a session of its own; every process of that session is killed
    # afterwards, on a timeout or any error too: a Chromium left running once spawned renderers
    # until the machine ran out of memory
    p = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    finally:
        for pid in [p.pid, *_session(p.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait()
    assert p.returncode == 0, err[-2000:]
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    _need_chromium()
    out = tmp_path_factory.mktemp("html")
    res = gen.build(build_dir=out, pattern=PATTERN, numerics="none", peers=False, workers=1,
                    quiet=True, compile_pdf=False, html=True)
    assert res.html_path and res.html_path.is_file()
    return res.html_path


def clicks(html_path) -> dict:
    """Load a copy of the page with :data:`SELF_TEST` in Chromium; what it recorded."""
    test = html_path.with_name("selftest.html")
    test.write_text(html_path.read_text().replace("</body>", SELF_TEST))
    dom = chromium("--virtual-time-budget=5000", "--window-size=1000,1400", "--dump-dom",
                   test.as_uri())
    m = re.search(r'<pre id="selftest">(.*?)</pre>', dom, re.S)
    assert m, "the page did not run its self-test"
    import html

    return json.loads(html.unescape(m.group(1)))


def test_every_claim_has_its_anchor_in_the_rendered_page(page):
    dom = chromium("--dump-dom", page.as_uri())
    ids = set(re.findall(r'id="claim-([^"]+)"', dom))
    assert ids == {c.id for c in registry.select(PATTERN)}


def test_clicking_a_graph_node_goes_to_its_claim(page):
    rec = clicks(page)
    ids = {c.id for c in registry.select(PATTERN)}
    nodes = {c.id for c in registry.select(PATTERN) if c.uses} | {
        u for c in registry.select(PATTERN) for u in c.uses if u in ids}
    assert {f["href"] for f in rec["links"]} >= {f"#claim-{n}" for n in nodes}
    bad = [f for f in rec["links"] if not (f["hit"] and f["target"])]
    assert not bad, bad[:5]
    assert rec["went"] == rec["clicked"], rec  # a real click navigates to the claim


def test_a_link_to_a_missing_claim_is_caught(page):
    """Can fail: a graph link whose claim is not on the page is reported."""
    broken = page.with_name("broken.html")
    broken.write_text(page.read_text().replace('href="#claim-products.', 'href="#claim-x', 1))
    assert any(not f["target"] for f in clicks(broken)["links"])


def test_the_page_renders(page, tmp_path):
    """Chromium draws the page: the screenshot is not blank."""
    shot = tmp_path / "page.png"
    chromium("--window-size=1000,1400", f"--screenshot={shot}", page.as_uri())
    from PIL import Image

    lo, hi = Image.open(shot).convert("L").getextrema()
    assert lo < 100 < hi


# ---------------------------------------------------------------------------- evidence and Coq
sys.path.insert(0, str(Path(__file__).resolve().parent))
import coqrows  # noqa: E402

from peproof.evidence import evidence  # noqa: E402

#: on load: every link to a .v file, resolved by the browser against the page's address
VFILES = """<script>
window.addEventListener("load", () => {
  const pre = document.createElement("pre");
  pre.id = "vfiles";
  pre.textContent = JSON.stringify([...document.querySelectorAll("a.vfile")].map(
    a => ({href: a.getAttribute("href"), url: a.href,
           claim: a.closest(".claim") ? a.closest(".claim").id : null})));
  document.body.appendChild(pre);
});
</script></body>"""


@pytest.fixture(scope="module")
def page_coq(page, tmp_path_factory):
    """The same run with Coq entries (tests/coqrows.py: .v files written outside the page's
    folder), the HTML edition written again into a folder of its own."""
    from peproof_report import html as H

    run = json.loads((page.parent / "run.json").read_text())
    base = tmp_path_factory.mktemp("html-coq")
    coqrows.add_coq(run["results"]["claims"], base / "elsewhere")
    (base / "site").mkdir()
    return H.write(run, base / "site"), run["results"]["claims"]


def vfile_links(html_path) -> list[dict]:
    """The page's links to .v files as Chromium resolves them."""
    test = html_path.with_name("vfiles.html")
    test.write_text(html_path.read_text().replace("</body>", VFILES))
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", test.as_uri())
    m = re.search(r'<pre id="vfiles">(.*?)</pre>', dom, re.S)
    assert m, "the page did not list its links"
    import html

    return json.loads(html.unescape(m.group(1)))


def _resolves(link: dict) -> bool:
    from urllib.parse import unquote, urlparse

    u = urlparse(link["url"])
    return u.scheme == "file" and Path(unquote(u.path)).is_file()


def test_each_coq_checked_claim_links_its_v_file_and_the_link_resolves(page_coq):
    html_path, rows = page_coq
    links = vfile_links(html_path)
    checked = {r["id"]: r["coq"] for r in rows if r["coq"]["status"] == "checked in Coq"}
    assert checked
    assert {lk["claim"] for lk in links} == {f"claim-{cid}" for cid in checked}
    for lk in links:
        assert not lk["href"].startswith(("/", "file:")), lk  # relative, into the folder
        assert _resolves(lk), lk
        target = Path(lk["url"][len("file://"):]).resolve()
        assert target.is_relative_to(html_path.parent.resolve()), lk
        cid = lk["claim"][len("claim-"):]
        assert Path(lk["url"][len("file://"):]).read_bytes() == \
            Path(checked[cid]["vfile"]).read_bytes()


def test_a_broken_v_link_is_caught(page_coq):
    """Can fail: a link to a .v file that is not there does not resolve."""
    html_path, _ = page_coq
    broken = html_path.with_name("broken-v.html")
    broken.write_text(re.sub(r'(class="vfile" href=")coq/', r"\1nowhere/", html_path.read_text(),
                             count=1))
    assert not all(_resolves(lk) for lk in vfile_links(broken))


def test_each_claim_shows_its_evidence_and_coq_status(page_coq):
    """Rendered: each claim's evidence level (as computed from its row), its Coq status and
    version, the axioms of a Coq-checked one; the summary's table of evidence by family."""
    html_path, rows = page_coq
    dom = chromium("--dump-dom", html_path.as_uri())
    for r in rows:
        m = re.search(r'<div class="claim" id="claim-' + re.escape(r["id"]) + r'">(.*?)</div>',
                      dom, re.S)
        assert m, r["id"]
        body = m.group(1)
        ev = evidence(r)
        if ev["level"] != "none":
            assert f"Evidence: <b class=\"\">{ev['level']}</b>" in body, (r["id"], ev)
        assert f'<span class="coq-status">{r["coq"]["status"]}</span>' in body
        if r["coq"]["status"] == "checked in Coq":
            assert f"Coq {coqrows.VERSION}" in body
            assert all(a.rpartition(".")[2] in body for a in coqrows.AXIOMS), r["id"]
    table = re.search(r'<table class="counts">(.*?)</table>', dom, re.S).group(1)
    fam = rows[0]["family"]
    cells = re.search(r'>' + fam + r'</a></td>(.*?)</tr>', table, re.S).group(1)
    nums = [int(x) for x in re.findall(r"<td>(\d+)</td>", cells)]
    mine = [r for r in rows if r["family"] == fam]
    levels = [evidence(r)["level"] for r in mine]
    assert nums[0] == len(mine)
    assert nums[4] == sum(lv == "kernel" and r["verdict"]["status"] == "proved"
                          for lv, r in zip(levels, mine, strict=True))
    assert nums[5] == sum(lv == "two engines" for lv in levels)
