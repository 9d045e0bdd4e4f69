"""The float64 pre-scan of ``D(k) = 2 sum_j (1 - cos(omega_j k))`` with a proved error bound.

One *chunk* covers the offsets ``a <= k < b`` (and evaluates ``D(b)`` as well, so a decrease at
``b - 1`` is seen).  Writing ``k = a + q C + t`` with ``0 <= t < C``,

    ``sum_j cos(omega_j k) = sum_j Re(R_j(q) J_j(t))``,  ``R_j(q) = e^{i omega_j (a + qC)}``,
    ``J_j(t) = e^{i omega_j t}``,

is one matrix product ``[Re R; Im R]^T [Re J; -Im J]`` of the float64 phase tables of
:mod:`peproof.numeric.expo`.  The bound on ``|D~(k) - D(k)|`` (:func:`chunk_bound`) adds

* the table errors ``e_R, e_J``: ``|Re(R~ J~) - Re(R J)| <= e_R + e_J + e_R e_J`` per pair;
* the matrix product: ``|fl(x.y) - x.y| <= gamma_n |x|.|y|`` with ``n = 2h`` and
  ``gamma_n = n u / (1 - n u)``, valid for every summation order with or without FMA (Higham,
  *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm 3.1 and section 3.1); here
  ``|x|.|y| <= sum_j |R~_j| |J~_j| <= h (1 + e_R)(1 + e_J)``;
* a margin ``2h * 2**-1070`` for gradual underflow in products, and
* the final ``fl(d - 2 S~)`` (``2 S~`` is exact): at most ``u |d - 2 S~|``.

Trusted base: IEEE-754 binary64 in NumPy and in the BLAS behind ``@`` (round to nearest; any
summation order), python-flint arb.  The bound does not depend on ``k``; it is the same for
every offset of every chunk with the same table sizes.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from peproof.encoding import Encoding
from peproof.numeric.expo import U, arb_omegas, doubling, fraction_up, shifted

#: offsets per column block (the ``C`` above)
COLS = 1024
TABLE_PREC = 128


@lru_cache(maxsize=16)
def encoding(d: int, family: str, base: str) -> Encoding:
    return Encoding(d, family=family, base=base)


@lru_cache(maxsize=16)
def _omegas(d: int, family: str, base: str, prec: int) -> tuple:
    return tuple(arb_omegas(encoding(d, family, base), prec))


@lru_cache(maxsize=8)
def _column_table(d: int, family: str, base: str, cols: int):
    om = list(_omegas(d, family, base, TABLE_PREC))
    j = doubling(om, 1, cols, TABLE_PREC)
    return np.vstack([j.re, -j.im]), j.err


def chunk_bound(h: int, e_r: Fraction, e_j: Fraction) -> Fraction:
    """Proved bound on ``|D~(k) - D(k)|`` for tables with errors ``e_r``, ``e_j`` (exact)."""
    n = 2 * h
    gamma = n * U / (1 - n * U)
    e_s = h * (e_r + e_j + e_r * e_j) + gamma * h * (1 + e_r) * (1 + e_j) + Fraction(n, 2**1070)
    return 2 * e_s + U * (4 * h + 2 * e_s)


def evaluate(d: int, family: str, base: str, a: int, n: int, cols: int = COLS,
             shrink: float = 1.0) -> tuple[np.ndarray, float]:
    """``D~(a), ..., D~(a + n - 1)`` in float64 and the proved bound ``B`` on their errors.

    ``shrink`` multiplies the bound: only the tests use it (to show that a sabotaged bound
    misses candidates); every certified result uses ``shrink = 1``.
    """
    if a < 0 or n < 1:
        raise ValueError("offsets must be >= 0 and the count >= 1")
    cols = max(1, min(cols, n))
    h = d // 2
    rows = -(-n // cols)
    om = list(_omegas(d, family, base, TABLE_PREC))
    r = shifted(om, a, cols, rows, TABLE_PREC)
    right, e_j = _column_table(d, family, base, cols)
    left = np.vstack([r.re, r.im]).T
    s = left @ right  # s[q, t] ~ sum_j cos(omega_j (a + q cols + t))
    dk = (float(d) - 2.0 * s).ravel()[:n]
    bound = fraction_up(chunk_bound(h, r.err, e_j)) * shrink
    return dk, bound


def scan_chunk(job: dict) -> dict:
    """Scan offsets ``a <= k < b`` (a worker task; arguments and result are plain data).

    Returns the chunk minimum, every offset within ``window`` of it (candidates for the global
    minimum), the offsets certainly / possibly closer than adjacent positions (given the
    certified interval ``adj`` of ``D(1)``; the certain ones counted, and named up to ``cap``),
    and the first certain decrease ``D(k+1) < D(k)`` with the undecided steps before it.
    :mod:`peproof.numeric.recertify` checks every field of a stored result before the merge
    uses it.
    """
    d, family, base = job["d"], job["family"], job["base"]
    a, b = job["a"], job["b"]
    n = b - a
    dk, bound = evaluate(d, family, base, a, n + 1, job.get("cols", COLS), job.get("shrink", 1.0))
    # every comparison below is made in float64; widening the bound by a few ulps of the
    # largest |D~| (<= 2d) makes each computed comparison imply the exact one
    pad = 8 * float(np.spacing(np.float64(2 * d + 1)))
    bound += pad
    ks = np.arange(a, b + 1, dtype=np.int64)
    body, kb = dk[:n], ks[:n]
    i_min = int(np.argmin(body))
    dmin = float(body[i_min])
    window = 2 * bound + job.get("slack", 2.0**-40)
    cap = job.get("cap", 20000)
    near = np.nonzero(body <= dmin + window)[0]
    out = {
        "a": a, "b": b, "bound": bound, "pad": pad, "window": window, "min": dmin,
        "argmin": int(kb[i_min]),
        "candidates": [(int(kb[i]), float(body[i])) for i in near[:cap]],
        "overflow": bool(near.size > cap),
    }
    lo, hi = job["adj"]
    two = kb >= 2
    sure_closer = np.nonzero(two & (body + bound < lo))[0]
    out["closer_sure"] = int(sure_closer.size)
    out["closer_sure_at"] = [int(kb[i]) for i in sure_closer[:cap]]
    maybe = np.nonzero(two & (body - bound < hi) & (body + bound >= lo))[0]
    out["closer_maybe"] = [int(kb[i]) for i in maybe[:cap]]
    out["closer_overflow"] = bool(maybe.size > cap)
    step = dk[1:] - dk[:-1]  # D(k+1) - D(k) for k = a .. b-1
    sure = np.nonzero(step < -2 * bound)[0]
    first = int(sure[0]) if sure.size else n
    amb = np.nonzero(np.abs(step[:first]) <= 2 * bound)[0]
    out["decrease_sure"] = int(kb[first]) if sure.size else None
    out["decrease_maybe"] = [int(kb[i]) for i in amb[:cap]]
    out["decrease_overflow"] = bool(amb.size > cap)
    return out
