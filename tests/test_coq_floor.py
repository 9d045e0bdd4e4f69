"""Floors of the squared distance in the kernel (``lib/Floor.v``, ``peproof/kernel/coq/floor.py``).

One ``check_claims`` batch (the worker's Coq cache):

* the registry's two floors (``separation.closest_pair_up_to_62832_d4``, at the offset the scan
  certifies, and ``separation.adjacent_pairs_closest_up_to_62832_d512``) are checked in Coq;
* the same shape beyond the registry: d = 4 below 300 positions, d = 8 below 2000, each at its
  true closest offset (found here by brute force in mpmath, not by peproof's scan), checked;
* the shape written otherwise (other names, the pair's terms in the other order, frequencies
  ``2**(-i)``, a sum from 1, a strict range bound), at its brute-force argmin: checked; one
  off: not;
* their false twins are not: the second-closest offset in place of the closest (refused with
  the closer offset named), the d = 4 floor of 300 positions claimed for 2000 (a closer pair
  appears), and the frequencies of the floor's side changed (base 10001 against 10000);
* forged certificates are refused by Coq: every offset in one block (the bound does not hold
  on it), an offset left out (the blocks do not cover the range), a block with no term
  counted; so are a misread floor offset and misread frequencies (a certificate built for
  them); a certificate over the budget is refused with the reason.

Sabotage (slow: library builds): a checker that accepts a range its blocks do not cover, or a
term bound without its slack, does not compile (``chk_correct`` / ``term_lb`` fail).
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import mpmath
import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Claim, Source
from peproof.families.separation import floor_statement, sq_dist
from peproof.kernel.coq import check, floor, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

PROVED = {"status": "proved", "witness": None, "engines": {}}
REGISTRY = ("separation.closest_pair_up_to_62832_d4",
            "separation.adjacent_pairs_closest_up_to_62832_d512")


def _closest(d: int, n_pos: int) -> tuple[int, int]:
    """The two closest offsets ``(argmin, second)`` of ``||PE(0) - PE(n)||^2`` over
    ``1 <= n < n_pos``, by brute force in mpmath (30 digits) on the statements' own squared
    distance (``separation.sq_dist``, from the encoding's frequencies), not peproof's scan."""
    mpmath.mp.dps = 30
    n = sp.Symbol("n", integer=True)
    f = sp.lambdify(n, sq_dist(d, 0, n).doit(), "mpmath")
    vals = sorted((f(mpmath.mpf(m)), m) for m in range(1, n_pos))
    return vals[0][1], vals[1][1]


def _renamed(d: int, n_pos: int, k: int):
    """The same floor written otherwise: positions ``q > p`` named differently, the pair's
    terms in the other order, the frequencies ``2**(-i)`` (not the encoding's), the sum from
    1, the range bound strict (``q < n_pos``)."""
    from peproof.claims import Le, Lt, Statement, var

    p, vp = var("p", "nonneg_integer")
    q, vq = var("q", "nonneg_integer")
    i = sp.Symbol("i", integer=True)
    w = sp.Integer(2) ** (-i)
    lhs = sp.Sum((1 - sp.cos(k * w)) ** 2 + sp.sin(k * w) ** 2, (i, 1, d // 2))
    rhs = sp.Sum((sp.cos(q * w) - sp.cos(p * w)) ** 2 + (sp.sin(q * w) - sp.sin(p * w)) ** 2,
                 (i, 1, d // 2))
    return Statement(Le(lhs, rhs), (vp, vq), hyps=(Lt(p, q), Lt(q, n_pos)))


def _closest_renamed(d: int, n_pos: int) -> int:
    mpmath.mp.dps = 30
    return min(range(1, n_pos), key=lambda m: sum(2 - 2 * mpmath.cos(m * mpmath.mpf(2) ** -i)
                                                  for i in range(1, d // 2 + 1)))


def _claim(key, st):
    return Claim(f"floor.{key}", "test", Source("test", "test", "test"), st, "numeric")


def _cases() -> dict:
    k4, second4 = _closest(4, 300)
    k8, _ = _closest(8, 2000)
    k4_far, _ = _closest(4, 2000)
    assert k4_far != k4  # a closer pair appears below 2000 (the twin below is false)
    return {
        "d4_300": (floor_statement(4, 300, k4), True),
        "d8_2000": (floor_statement(8, 2000, k8), True),
        "d4_300_second": (floor_statement(4, 300, second4), False),
        "d4_2000_at_300s_floor": (floor_statement(4, 2000, k4), False),
        "d4_300_other_base": (_other_base(4, 300, k4), False),
        "renamed_d6_400": (_renamed(6, 400, kr := _closest_renamed(6, 400)), True),
        "renamed_d6_400_off_by_one": (_renamed(6, 400, kr + 1), False),
    }


def _other_base(d: int, n_pos: int, k: int):
    """The floor's side at base 10001, the pairs' at 10000 (the floor is then no floor)."""
    from peproof.claims import Le

    st = floor_statement(d, n_pos, k)
    jj = next(iter(st.concl[0].lhs.limits))[0]
    w = sp.Integer(10001) ** (-2 * jj / sp.Integer(d))
    return st.with_concl((Le(sq_dist(d, 0, k, w), st.concl[0].rhs),))


CASES = _cases() if HAVE_COQ else {}


@pytest.fixture(scope="module")
def results(coq_worker_cache):
    claims = [registry.get(c) for c in REGISTRY] + [_claim(key, st)
                                                      for key, (st, _) in CASES.items()]
    got = check.check_claims(claims, {c.id: PROVED for c in claims},
                             cache_dir=coq_worker_cache)
    return got


@needs_coq
@pytest.mark.timeout(900)  # the first test builds the library and the batch (fixture)
@pytest.mark.parametrize("cid", REGISTRY)
def test_the_registry_floors_are_checked(results, cid):
    r = results[cid]
    assert r.checked and r.klass == floor.STATEMENT and r.exact, r.status


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", list(CASES))
def test_shape(results, key):
    r = results[f"floor.{key}"]
    assert r.checked == CASES[key][1], (key, r.status)


def test_the_shape_is_read_from_the_statement():
    sh = floor.shape(registry.get("separation.closest_pair_up_to_62832_d4").statement)
    assert (sh.lo, sh.hi, sh.top) == (0, 1, 62831) and sh.k > 1000
    sh = floor.shape(registry.get("separation.adjacent_pairs_closest_up_to_62832_d512")
                     .statement)
    assert (sh.lo, sh.hi, sh.k, sh.top) == (0, 255, 1, 62831)
    st = registry.get("separation.positions_distinct_up_to_62832_d4").statement
    assert floor.shape(st) is None  # 0 < S: the pi scripts' shape, not a floor


def _decode(cert: list[int], k: int, start: int) -> list[tuple[int, int]]:
    out, nxt = [], start
    for c in cert:
        n0 = nxt + 1 if nxt == k else nxt
        n1 = n0 + c // 2**24 - 1
        out.append((n0, n1))
        nxt = n1 + 1
    return out


def test_the_certificate_covers_the_range_but_the_floor():
    sh = floor.shape(registry.get("separation.closest_pair_up_to_62832_d4").statement)
    bl = floor.blocks(floor._omegas(sh), sh.k, 1, sh.top)
    got = _decode([floor.pack(*b) for b in bl], sh.k, 1)
    covered = set()
    for n0, n1 in got:
        covered |= set(range(n0, n1 + 1))
    assert covered == set(range(1, sh.top + 1)) - {sh.k}


# -- forged certificates: Coq refuses them --------------------------------------------------

def _forged(monkeypatch, tmp_path_factory, cache, forge):
    real = floor.blocks

    def fake(om, k, n1, n2):
        return forge(real(om, k, n1, n2), k, n1, n2, len(om))

    monkeypatch.setattr(floor, "blocks", fake)
    st, _ = CASES["d4_300"]
    c = _claim("d4_300_forged", st)
    return check.check_claims([c], {c.id: PROVED}, cache_dir=cache)[c.id]


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("forge", [
    lambda bl, k, n1, n2, h: [(n1, k - 1, 0, h - 1)] + [b for b in bl if b[0] > k],
    lambda bl, k, n1, n2, h: bl[:3] + bl[4:],
    lambda bl, k, n1, n2, h: [(b[0], b[1], 1, 0) if i == 5 else b for i, b in enumerate(bl)],
], ids=["one_block_below_k", "a_block_left_out", "no_term_counted"])
def test_a_forged_certificate_is_refused(monkeypatch, tmp_path_factory, coq_worker_cache,
                                         results, forge):
    r = _forged(monkeypatch, tmp_path_factory, coq_worker_cache, forge)
    assert not r.checked and "did not close" in r.status, r.status


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("forge", [
    lambda sh: dataclasses.replace(sh, k=sh.k + 1),
    lambda sh: dataclasses.replace(sh, omega=sp.Integer(10001) ** (-sh.j / 2)),
], ids=["another_k", "other_frequencies"])
def test_a_forged_floor_or_frequency_is_refused(monkeypatch, coq_worker_cache, results, forge):
    """Python's reading of the statement is not trusted either: with the floor's offset or the
    frequencies misread (a certificate built for them), Coq's rewriting of the statement to
    G fails."""
    real, real_blocks = floor.shape, floor.blocks
    true_k = {}

    def shape(st):
        sh = real(st)
        true_k["k"] = sh.k
        return forge(sh)

    # the certificate of the true floor (one for a misread k would fail in Python already)
    monkeypatch.setattr(floor, "shape", shape)
    monkeypatch.setattr(floor, "blocks", lambda om, k, n1, n2: real_blocks(om, true_k["k"], n1,
                                                                           n2))
    st, _ = CASES["d4_300"]
    c = _claim("d4_300_misread", st)
    r = check.check_claims([c], {c.id: PROVED}, cache_dir=coq_worker_cache)[c.id]
    assert not r.checked and "did not close" in r.status, r.status


def test_a_floor_with_a_closer_offset_is_refused_with_the_reason():
    k4, second4 = _closest(4, 300)
    c = _claim("second", floor_statement(4, 300, second4))
    job, info = check.plan(c, PROVED)
    assert job is None and f"the offset {k4} comes within" in info.status, info.status


def test_a_certificate_over_the_budget_is_refused(monkeypatch):
    monkeypatch.setattr(floor, "MAX_BLOCKS", 100)
    job, info = check.plan(registry.get(REGISTRY[0]), PROVED)
    assert job is None and "over the 100 blocks" in info.status, info.status


# -- sabotaged checkers do not compile (a library build each: slow) -------------------------

SABOTAGES = {
    "uncovered_tail": ("  | nil => Z.eqb n0 (top + 1)", "  | nil => true"),
    "no_slack": ("  then 2 - 2 * cos (IZR n0 * om i) - (2 * Rabs (sin (IZR n0 * om i)) * "
                 "(IZR (n1 - n0) * Rabs (om i))\n                                      + "
                 "(IZR (n1 - n0) * om i) ^ 2) else 0.",
                 "  then 2 - 2 * cos (IZR n0 * om i) else 0."),
}


@pytest.mark.slow
@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", list(SABOTAGES))
def test_a_sabotaged_checker_does_not_compile(results, coq_worker_cache, tmp_path, key):
    lib = next(p for p in coq_worker_cache.iterdir() if p.name.startswith("lib-"))
    for p in lib.iterdir():
        if p.suffix == ".vo" and p.stem != "Floor":
            shutil.copy(p, tmp_path / p.name)
    src = (run.HERE / "lib" / "Floor.v").read_text()
    old, new = SABOTAGES[key]
    assert src.count(old) == 1, key
    for text, ok in ((src, True), (src.replace(old, new), False)):
        (tmp_path / "Floor.v").write_text(text)
        r = subprocess.run([run.coqc(), "-q", "-Q", str(tmp_path), "PEProof", "Floor.v"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert (r.returncode == 0) == ok, (key, ok, r.stdout[-400:], r.stderr[-400:])
