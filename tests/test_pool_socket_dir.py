"""A worker pool started under a long $TMPDIR: the forkserver's socket needs a short path
(AF_UNIX holds 107 bytes).  Under pytest-xdist the report's tests ran with
TMPDIR=/tmp/pytest-of-root/pytest-N/popen-gwK/test_..._0/tmp and every report failed with
'peproof: error: OSError' (bind: AF_UNIX path too long)."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = """
import multiprocessing, operator
from peproof.guard.signals import pool
with pool(1, mp_context=multiprocessing.get_context("forkserver")) as ex:
    print(ex.submit(operator.add, 2, 3).result())
"""


def test_a_pool_starts_under_a_long_tmpdir(tmp_path):
    long = tmp_path / ("x" * 60) / ("y" * 40)
    long.mkdir(parents=True)
    r = subprocess.run([sys.executable, "-c", CODE], env={**os.environ, "TMPDIR": str(long)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "5", r.stderr[-800:]
    assert os.listdir(long) == [], "nothing is left in TMPDIR"
