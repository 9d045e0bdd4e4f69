"""Claims of the `error_model` family (statements in peproof/families/error_model.py)."""

import pytest

from peproof import registry
from peproof.testing import check_claim

CLAIMS = registry.family("error_model")


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim(claim):
    check_claim(claim)
