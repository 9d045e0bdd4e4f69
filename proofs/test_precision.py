"""Claims of the `precision` family (statements in peproof/families/precision.py)."""

import pytest

from peproof import registry
from peproof.testing import check_claim

CLAIMS = registry.family("precision")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim(claim):
    check_claim(claim)
