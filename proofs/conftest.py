"""``pytest proofs``: one test per claim, test id = claim id."""

import gc
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# ``gc.freeze`` moves every object alive now into a generation the cyclic collector never
# scans.  The registry, SymPy's caches, the verdicts and the engines' state all live to the end
# of the run, and the collector's full passes kept walking that growing heap (about a second
# of ``pytest proofs``).  Freezing frees nothing and changes no computation: each verdict is
# decided exactly as before; garbage cycles left by a test are merely kept to the end.
def pytest_collection_finish(session):
    gc.freeze()


def pytest_runtest_teardown(item, nextitem):
    gc.freeze()
