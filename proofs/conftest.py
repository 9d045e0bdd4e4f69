"""``pytest proofs``: one test per claim, test id = claim id."""

import gc
import os
import sys

sys.dont_write_bytecode = False  # rewritten tests kept: see tests/conftest.py


# ``gc.freeze`` moves every object alive now into a generation the cyclic collector never
# scans.  The registry, SymPy's caches, the verdicts and the engines' state all live to the end
# of the run, and the collector's full passes kept walking that growing heap (about a second
# of ``pytest proofs``).  Freezing frees nothing and changes no computation: each verdict is
# decided exactly as before; garbage cycles left by a test are merely kept to the end.
def pytest_collection_finish(session):
    _decide_ahead(session)
    gc.freeze()


# The claims of the run are decided before their tests on every core (issue 26: ``pytest
# proofs`` within 8 s on two cores): this process and a forked child each take the next claim
# as they finish one (:func:`peproof.testing.decide_ahead`), and each test then asserts on its
# claim's verdict as before.  Not under pytest-xdist (its workers already share the cores) nor
# for a handful of claims; ``PEPROOF_PROOFS_WORKERS=1`` decides each claim in its own test.
MIN_CLAIMS = 16


def _decide_ahead(session) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or session.config.option.collectonly:
        return  # xdist's workers share the cores already; --collect-only decides nothing
    want = os.environ.get("PEPROOF_PROOFS_WORKERS", "")
    workers = int(want) if want.isdigit() and int(want) > 0 else None
    claims = [item.callspec.params["claim"] for item in session.items
              if getattr(item, "callspec", None) is not None
              and "claim" in item.callspec.params]
    if len(claims) < MIN_CLAIMS or workers == 1:
        return
    from peproof.testing import decide_ahead

    decide_ahead(claims, workers)


def pytest_runtest_teardown(item, nextitem):
    gc.freeze()
