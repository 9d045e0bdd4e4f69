"""What every JSON envelope of the oracle shares, whichever side wrote it: plain JSON values
and the platform the check ran on."""

from __future__ import annotations

import platform
import sys

import numpy as np


def platform_info() -> dict:
    import flint
    import ml_dtypes

    return {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
            "python_flint": flint.__version__, "system": platform.system(),
            "machine": platform.machine()}


def plain_json(obj):
    """Plain JSON: NumPy scalars to Python, non-finite floats (an ulp error of an exact zero
    overflows) to ``None``, so ``json.dumps`` output is standard JSON."""
    if isinstance(obj, dict):
        return {str(k): plain_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj
