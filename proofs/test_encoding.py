"""Claims of the `encoding` family (peproof/families/encoding.py, encoding_span.py)."""

import pytest

from peproof import registry
from peproof.testing import check_claim

CLAIMS = registry.family("encoding")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim(claim):
    check_claim(claim)
