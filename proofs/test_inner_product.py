"""Claims of the `inner_product` family (statements in peproof/families/inner_product.py)."""

import pytest

from peproof import registry
from peproof.testing import check_claim

CLAIMS = registry.family("inner_product")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim(claim):
    check_claim(claim)
