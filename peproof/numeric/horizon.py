"""Precision horizons: where a dtype recipe stops representing positions faithfully.

For one encoding, dtype and recipe (:mod:`peproof.numeric.recipes`) and the positions
``0 .. N-1`` (default ``N = ceil(2 pi 10000) = 62832``):

(a) ``collision``: the first position ``p`` whose stored vector equals (value by value; ``-0 ==
    +0``) the vector of an earlier position ``q``.  Rows are hashed (a 64-bit multiplicative
    hash of the bit patterns) and every hash match is re-computed and compared exactly, so a
    reported collision is a real one and none is missed.  For recipes whose positions live in
    the dtype a collision is forced at ``2**(nmant+1) + 1`` (that integer rounds onto an even
    neighbour), reported as ``collision_bound``.
(b) ``error_crossing``: the first ``p`` with ``||PE_recipe(p) - PE(p)|| > delta/2``, ``delta`` the
    *certified* minimum distance between two of the ``N`` positions
    (:func:`peproof.numeric.separation.certify`).  Past it, the balls of radius ``delta/2``
    about the exact vectors no longer keep every stored vector nearest to its own position.
    ``PE(p)`` comes from the proved float64 phase tables of :mod:`.expo` (error
    ``<= sqrt(d/2) e``, carried in the comparison): ``crossing_certain`` is True when the
    crossing survives that margin and a ``1e-12`` relative margin for the float64 norm.
(c) ``overflow``: the first position whose row is not finite: the least integer that rounds to
    infinity in the position dtype (``None`` for integer positions, whose float64 angles stay
    finite).  Only float16 overflows within practical lengths (65520).

These are measurements of NumPy/ml_dtypes pipelines on this machine (the 16-bit and float32
``sin``/``cos`` are library functions); only ``delta`` is certified.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from peproof.encoding import Encoding
from peproof.formats import BINARY
from peproof.numeric import N_TURN as DEFAULT_N  # ceil(2 pi 10000)
from peproof.numeric import recipes as R
from peproof.numeric.expo import Phases, arb_omegas, doubling, fraction_up, seed

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass
class Horizon:
    d: int
    family: str
    base: str
    dtype: str
    recipe: str
    n_pos: int
    half_separation: tuple[float, float]  # certified [lo, hi] of delta/2
    collision: int | None
    collision_with: int | None
    collision_bound: int | None
    error_crossing: int | None
    error_at_crossing: float | None
    crossing_certain: bool | None
    overflow: int | None
    max_error: float
    scanned: int
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def _weights(d: int) -> np.ndarray:
    rng = np.random.default_rng(20170612)
    return rng.integers(1, 2**63, size=d, dtype=np.uint64) | np.uint64(1)


def _row_hashes(s: np.ndarray, c: np.ndarray, w: np.ndarray) -> np.ndarray:
    both = np.concatenate([s, c], axis=1)
    both = both + both.dtype.type(0)  # -0 + 0 = +0: equal values get equal bits
    bits = both.view(_UINT[both.dtype.itemsize]).astype(np.uint64)
    return (bits * w[None, :]).sum(axis=1)


def _same_rows(enc: Encoding, dtype: str, recipe: str, q: int, p: int) -> bool:
    s, c = R.rows(enc, dtype, recipe, np.array([q, p]))
    return bool(np.all(s[0] == s[1]) and np.all(c[0] == c[1]))


def collision_bound(dtype: str, recipe: str) -> int | None:
    if recipe.endswith("-int"):
        return None
    return BINARY["float32" if recipe == "f32-cast" else dtype].horizon + 1


def scan(enc: Encoding, dtype: str, recipe: str, n_pos: int, half_sep: tuple[float, float],
         chunk: int | None = None, stop: bool = True, progress=None) -> Horizon:
    """Horizons (a), (b), (c) of one recipe over positions ``0 .. n_pos-1``.

    ``half_sep`` is the certified interval of ``delta/2``.  With ``stop`` the scan ends once
    (a) and (b) are both found.
    """
    t0 = time.perf_counter()
    R.dtype_of(dtype)
    R.check_recipe(recipe)
    h = enc.pairs
    chunk = chunk or max(256, (1 << 21) // h)
    om = arb_omegas(enc, 128)
    cols = doubling(om, 1, chunk)  # exp(i omega_j t), t < chunk
    w = _weights(enc.d)
    seen: dict[int, list[int]] = {}
    coll = coll_with = cross = None
    err_cross: float | None = None
    certain: bool | None = None
    max_err, scanned = 0.0, 0
    lo_half, hi_half = half_sep
    total = -(-n_pos // chunk)
    for n_chunk, a in enumerate(range(0, n_pos, chunk), 1):
        b = min(a + chunk, n_pos)
        pos = np.arange(a, b)
        s, c = R.rows(enc, dtype, recipe, pos)
        ref = seed(om, a) * cols  # exact phases: re = cos, im = sin, rows = pairs
        if b - a < chunk:
            ref = Phases(ref.re[:, : b - a], ref.im[:, : b - a], ref.err)
        margin = math.sqrt(h) * fraction_up(ref.err) * 1.0000001
        s64, c64 = s.astype(np.float64), c.astype(np.float64)
        err = np.sqrt(((s64 - ref.im.T) ** 2 + (c64 - ref.re.T) ** 2).sum(axis=1))
        finite = np.isfinite(s64).all(axis=1) & np.isfinite(c64).all(axis=1)
        err = np.where(finite, err, np.inf)
        max_err = max(max_err, float(err.max()))
        scanned = b
        if cross is None:
            sure_below = err * (1 + 1e-12) + margin < lo_half
            hit = np.nonzero(~sure_below)[0]
            if hit.size:
                i = int(hit[0])
                cross, err_cross = a + i, float(err[i])
                certain = bool(err[i] * (1 - 1e-12) - margin > hi_half)
        if coll is None:
            hashes = _row_hashes(s, c, w)
            for i in np.nonzero(finite)[0]:
                p = a + int(i)
                bucket = seen.setdefault(int(hashes[i]), [])
                match = next((q for q in bucket if _same_rows(enc, dtype, recipe, q, p)), None)
                if match is not None:
                    coll, coll_with = p, match
                    break
                bucket.append(p)
        if progress:
            progress(n_chunk, total)
        if stop and coll is not None and cross is not None:
            break
    return Horizon(
        d=enc.d, family=enc.family, base=str(enc._base), dtype=dtype, recipe=recipe,
        n_pos=n_pos, half_separation=(lo_half, hi_half), collision=coll,
        collision_with=coll_with, collision_bound=collision_bound(dtype, recipe),
        error_crossing=cross, error_at_crossing=err_cross, crossing_certain=certain,
        overflow=R.overflow_position(dtype, recipe), max_error=max_err, scanned=scanned,
        seconds=time.perf_counter() - t0,
    )


def scan_job(job: dict) -> dict:
    """One (dtype, recipe) horizon as a plain-data chunk job (for the engine)."""
    from peproof.numeric.scan import encoding

    enc = encoding(job["d"], job["family"], job["base"])
    half = (job["half"][0], job["half"][1])
    return scan(enc, job["dtype"], job["recipe"], job["n_pos"], half).as_dict()


def jobs_for(d: int, dtypes, recipes, n_pos: int, half, family: str = "paper",
             base="10000") -> list[dict]:
    return [{"d": d, "family": family, "base": str(base), "dtype": dt, "recipe": r,
             "n_pos": n_pos, "half": list(half)} for dt in dtypes for r in recipes]


def half_separation(d: int, n_pos: int, family: str = "paper", base="10000", run=None):
    """The certified separation of ``n_pos`` positions and ``[lo, hi]`` of ``delta / 2``."""
    from peproof.numeric.separation import certify

    sep = certify(d, n_pos, family, base, run=run)
    half = (math.nextafter(sep.min_dist.lo / 2, 0.0), math.nextafter(sep.min_dist.hi / 2, math.inf))
    return sep, half


def horizons(d: int, dtypes=tuple(R.DTYPES), recipes=R.RECIPES, n_pos: int = DEFAULT_N,
             family: str = "paper", base="10000", progress=None, run=None) -> list[Horizon]:
    """Every (dtype, recipe) horizon for one ``d``, with ``delta`` certified once; the recipes
    run as chunk jobs of :func:`peproof.numeric.engine.run_chunks` (``run`` configures it)."""
    from dataclasses import replace

    from peproof.numeric.engine import RunConfig, run_chunks

    _, half = half_separation(d, n_pos, family, base, run=run)
    jobs = jobs_for(d, dtypes, recipes, n_pos, half, family, base)
    cfg = run or RunConfig(label=f"horizon d={d}")
    if progress is not None:
        cfg = replace(cfg, callback=progress)
    rows, _ = run_chunks(scan_job, jobs, config=cfg, sizes=[n_pos] * len(jobs), unit="positions",
                         estimate=len(jobs) * n_pos * d * 2e-9)
    return [Horizon(**{**r, "half_separation": tuple(r["half_separation"])}) for r in rows]
