"""RoPE's long-term decay bound, certified at every integer offset, and its landmarks.

The curve (Su et al. 2021, section 3.4.3; :class:`peproof.rope.DecayBound`)

    ``B(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|``,  ``S_j(k) = sum_{l<j} exp(i k theta_l)``.

Method
  1. float64 per chunk of offsets ``a <= k < b`` (:func:`decay_chunk`, a pure worker task on
     plain data): the phases ``exp(i k theta_l)`` are ``seed(a) * J(k - a)`` from the arb-seeded
     tables of :mod:`peproof.numeric.expo` (every entry within a proved ``e`` of the exact phase);
     running sums over ``l`` (``np.cumsum``), moduli ``sqrt(x*x + y*y)``, the sum over ``j`` and
     the factor ``2/d``;
  2. the proved bound ``E >= |B~(k) - B(k)|`` of :func:`error_bound`, the same for every offset;
  3. the certified curve ``lo(k) <= B(k) <= hi(k)`` (``B~ -/+ E`` rounded outward); every
     comparison the intervals cannot decide is redone in arb (:func:`peproof.rope.decay_bound_arb`)
     at rising precision, and what arb cannot decide is reported, never guessed.

Error bound (``u = 2**-53``, ``gamma_n = n u / (1 - n u)``; Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., section 3.1: a sum of ``n`` terms in ANY order is within
``gamma_(n-1) sum |x_i|`` of the exact sum of the rounded terms)
  * phases: ``|z~_l - z_l| <= e`` (complex modulus), so each component is within ``e`` and at most
    ``1 + e`` in size;
  * running sums: ``|S~_j - S_j| <= delta_j = j e + sqrt(2) gamma_(j-1) j (1 + e)``;
  * moduli: ``fl(sqrt(fl(fl(x^2) + fl(y^2))))`` is within a factor ``(1 +- u)^2`` of ``|S~_j|``
    (two roundings before the square root halve inside it, one after), plus ``2**-530`` for
    underflow of tiny squares, so ``|m~_j - |S_j|| <= mu_j = delta_j + (2u + u^2)(j + delta_j)
    + 2**-530``;
  * the sum over ``j``: ``sum_j mu_j + gamma_(d/2 - 1) sum_j (j + mu_j)``; times ``2/d`` (exact
    for ``d`` a power of two, else two more roundings, ``(2u + u^2)`` of the result).
  Trusted base: IEEE-754 binary64 elementwise arithmetic and square root in NumPy (one rounding
  per operation, no contraction across ufunc calls), python-flint arb.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np
import sympy as sp

from peproof.encoding import ParameterError, _as_rational
from peproof.numeric import expo
from peproof.numeric.engine import RunConfig, run_chunks
from peproof.rope import _thetas_arb, check_rotary_d, decay_bound_arb

COLS = 1 << 11  # offsets per float block (the columns of the phase table; cache-sized)
CHUNK = 1 << 16  # offsets per worker job
PRECS = (128, 256, 512, 1024)
TINY = Fraction(1, 2**530)
TRUSTED_BASE = (
    "IEEE-754 binary64 elementwise arithmetic and sqrt in NumPy (round to nearest, any "
    "summation order)",
    "python-flint arb/acb enclosures (sin_cos, pow, abs, arithmetic)",
)


def check_params(d, n_end, base="10000", k0=0) -> tuple[int, str, int, int]:
    """Validate ``(d, N, base, k0)``; raises :class:`ParameterError` naming what is allowed."""
    d = check_rotary_d(d)
    b = _as_rational(base, "base")
    if b <= 1:
        raise ParameterError(f"base must be a number > 1, got {base!r}")
    for name, v, low in (("the largest offset N", n_end, 1), ("the first offset", k0, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ParameterError(f"{name} must be an integer >= {low}, got {v!r}")
    if k0 >= n_end:
        raise ParameterError(f"the first offset must be below N = {n_end}, got {k0}")
    return d, str(b), int(n_end), int(k0)


def gamma(n: int) -> Fraction:
    return n * expo.U / (1 - n * expo.U)


def error_bound(d: int, e: Fraction) -> Fraction:
    """Proved bound on ``|B~(k) - B(k)|`` for phases within ``e`` (module docstring)."""
    h, u = d // 2, expo.U
    rho = 2 * u + u * u
    sum_mu, sum_abs = Fraction(0), Fraction(0)
    for j in range(1, h + 1):
        delta = j * e + expo.SQRT2_UP * gamma(j - 1) * j * (1 + e)
        mu = delta + rho * (j + delta) + TINY
        sum_mu += mu
        sum_abs += j + mu
    err = sum_mu + gamma(h - 1) * sum_abs
    scale = Fraction(2, d)
    out = scale * err
    if d & (d - 1):  # 2/d is not a power of two: fl(2/d) and the product each round once
        out += rho * scale * sum_abs * (1 + gamma(h - 1))
    return out


@lru_cache(maxsize=8)
def _thetas(d: int, base: str) -> tuple:
    return _thetas_arb(d, sp.Rational(base), 128)


@lru_cache(maxsize=8)
def _columns(d: int, base: str, cols: int) -> expo.Phases:
    return expo.doubling(list(_thetas(d, base)), 1, cols)


def evaluate(d: int, base: str, a: int, n: int, cols: int = COLS) -> tuple[np.ndarray, Fraction]:
    """``B~(a), ..., B~(a + n - 1)`` in float64 and the proved bound on their errors.

    Per block of ``cols`` offsets, in place: the phases ``seed * table`` (each component
    ``fl(fl(x y) -+ fl(x' y'))``, as :class:`expo.Phases` multiplies), the running sums over the
    pairs row by row, ``x*x + y*y``, its square root and the sum over the pairs.  Blocks sit on
    the multiples of ``cols`` (offset ``k`` always uses ``seed(cols floor(k / cols))``), so the
    floats do not depend on how the offsets are cut into chunks."""
    if a < 0 or n < 1:
        raise ValueError("offsets must be >= 0 and the count >= 1")
    if cols < 1:
        raise ValueError("cols must be >= 1")
    h = d // 2
    om = list(_thetas(d, base))
    table = _columns(d, base, cols)
    re, im, tmp = np.empty((h, cols)), np.empty((h, cols)), np.empty((h, cols))
    out = np.empty(n)
    err = Fraction(0)
    scale = 2.0 / d
    q = a
    while q < a + n:
        q0 = q - q % cols  # the block's aligned start
        m = min(q0 + cols, a + n) - q
        s = expo.seed(om, q0)
        err = max(err, expo.mul_err(s.err, table.err))
        c, e = s.re[:, None], s.im[:, None]
        tr, ti = table.re[:, q - q0: q - q0 + m], table.im[:, q - q0: q - q0 + m]
        r, i, w = re[:, :m], im[:, :m], tmp[:, :m]
        np.multiply(tr, c, out=r)
        np.multiply(ti, e, out=w)
        r -= w
        np.multiply(tr, e, out=i)
        np.multiply(ti, c, out=w)
        i += w
        for row in range(1, h):  # S_(row+1) = S_row + z_row, the running sums
            r[row] += r[row - 1]
            i[row] += i[row - 1]
        np.multiply(r, r, out=r)
        np.multiply(i, i, out=i)
        r += i
        np.sqrt(r, out=r)
        out[q - a: q - a + m] = r.sum(axis=0) * scale
        q += m
    return out, error_bound(d, err)


def decay_chunk(job: dict) -> dict:
    """Worker task: ``B~(k)`` for ``a <= k < b`` and the bound (plain data in and out: JSON
    numbers, which round-trip every float64 exactly)."""
    vals, bound = evaluate(job["d"], job["base"], job["a"], job["b"] - job["a"],
                           job.get("cols", COLS))
    return {"a": job["a"], "b": job["b"], "values": vals.astype(np.float64).tolist(),
            "bound": expo.fraction_up(bound)}


@lru_cache(maxsize=256)
def _bound_for(d: int, err: Fraction) -> float:
    return expo.fraction_up(error_bound(d, err))


def check_chunk(job: dict, r) -> str | None:
    """None when a stored result of :func:`decay_chunk` is the shape ``job`` gives and its bound
    is the one the chunk's seeds give (recomputed: one arb seed per block); else what is
    wrong.  The values themselves are checked where the landmarks use them
    (:func:`peproof.numeric.rope_landmarks.audit`), the rest rests on the checkpoint's
    integrity (:mod:`peproof.numeric.checkpoint`)."""
    if not isinstance(r, dict) or r.get("a") != job["a"] or r.get("b") != job["b"]:
        return "its offsets are not the job's"
    vals = r.get("values")
    if (not isinstance(vals, list) or len(vals) != job["b"] - job["a"]
            or not all(type(v) is float and np.isfinite(v) for v in vals)):
        return "its values are not one finite number per offset"
    d, cols = job["d"], job.get("cols", COLS)
    om, table = list(_thetas(d, job["base"])), _columns(d, job["base"], cols)
    err = Fraction(0)
    for q0 in range(job["a"] - job["a"] % cols, job["b"], cols):
        err = max(err, expo.mul_err(expo.seed(om, q0).err, table.err))
    if r.get("bound") != _bound_for(d, err):
        return "its bound is not the one its seeds give"
    return None


def decay_jobs(d: int, base: str, k0: int, n_end: int, chunk: int = CHUNK) -> list[dict]:
    return [{"d": d, "base": base, "a": a, "b": min(a + chunk, n_end + 1), "cols": COLS}
            for a in range(k0, n_end + 1, chunk)]


@dataclass
class Curve:
    """``lo[i] <= B(k0 + i) <= hi[i]`` for ``k0 <= k <= N`` (certified), ``mid`` the float value."""

    d: int
    base: str
    k0: int
    n_end: int
    mid: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    bound: float
    chunks: int
    seconds: float
    run: dict | None = None  # how the chunks ran (engine.RunInfo.as_dict())
    chunk: int = CHUNK  # offsets per job (from k0), to find the chunk of an offset
    resumed: list[int] | None = None  # indices of the chunks read back from a checkpoint

    def chunk_of(self, k: int) -> int:
        return (k - self.k0) // self.chunk

    def index(self, k: int) -> int:
        if not self.k0 <= k <= self.n_end:
            raise IndexError(f"offset {k} outside {self.k0}..{self.n_end}")
        return k - self.k0


def certify_curve(d, n_end: int, base="10000", k0: int = 0, *, chunk: int = CHUNK,
                  executor: Executor | None = None, workers: int | None = None,
                  run: RunConfig | None = None, redo: dict[int, str] | None = None) -> Curve:
    """The certified curve on ``k0 <= k <= N`` (module docstring, steps 1-3).  The chunks run
    on the scan engine (:func:`peproof.numeric.engine.run_chunks`: inline, a process pool, Dask,
    ``executor``; checkpoints and progress from ``run``); results are merged in offset order.
    Each result is checked (:func:`check_chunk`); ``redo`` recomputes chunks by index."""
    t0 = time.perf_counter()
    d, base, n_end, k0 = check_params(d, n_end, base, k0)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ParameterError(f"chunk must be a positive integer, got {chunk!r}")
    jobs = decay_jobs(d, base, k0, n_end, chunk)
    if run is None:
        run = RunConfig(engine="auto" if (workers or 1) > 1 else "inline", workers=workers,
                        executor=executor)
    res, info = run_chunks(decay_chunk, jobs, config=run, sizes=[j["b"] - j["a"] for j in jobs],
                           estimate=(n_end + 1 - k0) * d * 4e-9, check=check_chunk, redo=redo)
    mid = np.concatenate([np.asarray(r["values"], dtype=np.float64) for r in res])
    bound = max(r["bound"] for r in res)
    lo = np.nextafter(mid - bound, -np.inf)
    hi = np.nextafter(mid + bound, np.inf)
    return Curve(d, base, k0, n_end, mid, lo, hi, bound, len(jobs), time.perf_counter() - t0,
                 info.as_dict(), chunk=chunk, resumed=info.resumed_indices)


@lru_cache(maxsize=8)
def cached_curve(d: int, n_end: int, base: str = "10000") -> Curve:
    """One certified curve from offset 0 per process (the claims of the ``rope`` family share)."""
    return certify_curve(d, n_end, base)


# ---------------------------------------------------------------------- arb and comparisons
class ArbB:
    """``B(k)`` in arb for one ``(d, base)``, cached per offset and precision."""

    def __init__(self, d: int, base: str):
        self.d, self.base = d, sp.Rational(base)
        self._cache: dict = {}

    def __call__(self, k: int, prec: int = 128) -> flint.arb:
        key = (k, prec)
        if key not in self._cache:
            with flint.ctx.workprec(prec):
                self._cache[key] = decay_bound_arb(self.d, flint.arb(k), self.base)
        return self._cache[key]

    def sign(self, k1: int, k2: int) -> int | None:
        """Certified sign of ``B(k1) - B(k2)`` (precision raised), None if never decided."""
        for p in PRECS:
            diff = self(k1, p) - self(k2, p)
            if diff > 0:
                return 1
            if diff < 0:
                return -1
        return None


def _float_sign(c: Curve, k1: int, k2: int) -> int | None:
    i1, i2 = c.index(k1), c.index(k2)
    if c.lo[i1] > c.hi[i2]:
        return 1
    if c.hi[i1] < c.lo[i2]:
        return -1
    return None


def sign(c: Curve, arb: ArbB, k1: int, k2: int) -> int | None:
    """Certified sign of ``B(k1) - B(k2)``: the intervals first, arb where they overlap."""
    s = _float_sign(c, k1, k2)
    return s if s is not None else arb.sign(k1, k2)
