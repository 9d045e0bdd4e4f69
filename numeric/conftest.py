"""``pytest numeric``: certified numerics (separation, uniqueness, precision horizons).

Long sweeps carry ``@pytest.mark.slow``.  Unless a marker expression is given (``-m slow``,
``-m "not slow"``) or ``PEPROOF_SLOW=1`` is set, the slow tests of this folder are deselected,
so ``pytest proofs tests numeric`` (``make test``, CI) runs the fast set only.
"""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
sys.dont_write_bytecode = False  # rewritten tests kept: see tests/conftest.py

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    if config.option.markexpr or os.environ.get("PEPROOF_SLOW") == "1":
        return
    keep, drop = [], []
    for item in items:
        inside = HERE in Path(str(item.path)).resolve().parents
        (drop if inside and item.get_closest_marker("slow") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
