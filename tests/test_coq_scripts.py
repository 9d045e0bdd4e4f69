"""Proof scripts added for issue 23's item 4 (coverage): each shape is checked in Coq, and the
same shape made false is NOT checked.  One ``check_claims`` call (one library build, one batch).

* periodicity over the integers (the DFT's mirror identities): ``cos(2 pi n (N - k) / N) =
  cos(2 pi k n / N)`` -- the trig script expands ``2 pi n - t``, then the multiples of pi
  ``2 pi n`` (an integer ``n``) are rewritten, the quotient's ``N <> 0`` by ``pe_side``.
  Falsifiers: ``n`` real (false at ``n = 1/2``), the sine's sign turned.
* integer facts (Check.v's ``pe_zfacts``, ``pe_side``): a hypothesis ``i < j`` of two
  variables gives ``IZR i < IZR j`` (it used to give nothing: the computed ``i + 1`` stopped
  it), and an integer conclusion follows from a real hypothesis (``j <= d/2 - 1`` gives
  ``2 j + 1 <= d - 1``).  Falsifiers: ``i <= j`` (false at ``i = j``), ``2 j + 2 <= d - 1``.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Claim, Eq, Le, Lt, Ne, Source, Statement, var
from peproof.kernel.coq import check, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

N, NV = var("N", "pos_integer")
k, KV = var("k", "integer")
n, NN = var("n", "integer")
r, RV = var("r", "real")
d, DV = var("d", "even_pos_integer")
i, IV = var("i", "nonneg_integer")
j, JV = var("j", "nonneg_integer")


def _mirror(m, sin=False, sign=1):
    a = 2 * sp.pi * m * (N - k) / N
    b = 2 * sp.pi * k * m / N
    return Eq(sp.sin(a), -sign * sp.sin(b)) if sin else Eq(sp.cos(a), sp.cos(b))


#: id -> (statement, checked?)
CASES = {
    "p.mirror_cos": (Statement(_mirror(n), (NV, KV, NN)), 1),
    "p.mirror_sin": (Statement(_mirror(n, sin=True), (NV, KV, NN)), 1),
    "p.mirror_cos_real": (Statement(_mirror(r), (NV, KV, RV)), 0),
    "p.mirror_sin_sign": (Statement(_mirror(n, sin=True, sign=-1), (NV, KV, NN)), 0),
    "z.lt_vars": (Statement(Ne(d / 2 + i, d / 2 + j), (DV, IV, JV), (Lt(i, j),)), 1),
    "z.le_vars": (Statement(Ne(d / 2 + i, d / 2 + j), (DV, IV, JV), (Le(i, j),)), 0),
    "z.from_real": (Statement(Le(2 * j + 1, d - 1), (DV, JV), (Le(j, d / 2 - 1),)), 1),
    "z.from_real_off": (Statement(Le(2 * j + 2, d - 1), (DV, JV), (Le(j, d / 2 - 1),)), 0),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    claims = [Claim(key, "test", Source("test", "test", "test"), st, "identity")
              for key, (st, _) in CASES.items()]
    return check.check_claims(claims, {}, cache_dir=tmp_path_factory.mktemp("coq"))


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", sorted(CASES))
def test_shape_checked_and_its_falsifier_not(results, key):
    r = results[key]
    assert int(r.checked) == CASES[key][1], (key, r.status)
    if r.checked:
        assert not set(r.assumptions) - run.ALLOWED, key
