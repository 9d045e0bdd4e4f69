"""Certified minimum separation of the positions ``0 .. N-1`` of a sinusoidal encoding.

Main results (:func:`certify`)
  a certified interval for ``min_{0 <= a < b < N} ||PE(a) - PE(b)||^2``, the offset(s) attaining
  it, the lowest-frequency wrap position ``2 pi / omega_min``, the first offset at which ``D``
  decreases, and how many offsets are closer than adjacent positions.

Reduction
  ``||PE(a) - PE(a+k)||^2 = D(k) = 2 sum_j (1 - cos(omega_j k))`` for every ``a``: the proved
  claims ``distance.sq_eq_two_sum_one_minus_cos`` and ``distance.depends_only_on_offset`` (with
  ``inner_product.depends_only_on_offset`` behind them).  So the minimum over the
  ``N(N-1)/2`` pairs is the minimum of ``D`` over the offsets ``1 <= k < N``.

Method
  1. float64 pre-scan of every offset with a proved error bound ``B`` (:mod:`.scan`), in chunks
     submitted to any :class:`concurrent.futures.Executor`;
  2. the best float candidate is evaluated in arb: ``U`` = upper end of its ball;
  3. every offset with ``D~(k) - B <= U`` could be the minimum; each is evaluated in arb as
     ``D(k) = 4 sum_j sin^2(omega_j k / 2)`` (``distance.half_angle_form``); no other offset
     can be, since ``D(k) >= D~(k) - B > U >= min D``;
  4. the minimum is *certified unique* when the ball of one candidate lies strictly below the
     balls of all others (precision is raised up to 1024 bits to separate near-ties; ties that
     survive are reported, not hidden);
  5. every chunk result is checked before the merge and the result certified again at the end
     from the encoding (:mod:`.recertify`); a chunk read back from a checkpoint that fails is
     recomputed, so a corrupted checkpoint costs time, never a wrong result.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction

import flint

from peproof.encoding import Encoding, ParameterError
from peproof.numeric import checkpoint, recertify, scan
from peproof.numeric.engine import RunConfig, run_chunks

REDUCTION_CLAIMS = (
    "inner_product.depends_only_on_offset",
    "distance.sq_eq_two_sum_one_minus_cos",
    "distance.depends_only_on_offset",
    "distance.half_angle_form",
)
TRUSTED_BASE = (
    "IEEE-754 binary64 arithmetic in NumPy elementwise operations and in the BLAS matrix "
    "product (round to nearest, any summation order, with or without FMA)",
    "python-flint arb enclosures (sin, cos, pow, arithmetic)",
)
PRECS = (128, 256, 512, 1024)
CHUNK = 1 << 20


def check_params(d, n_pos, family: str = "paper", base="10000") -> Encoding:
    """Validate the scan's input; raises :class:`ParameterError` naming what is allowed."""
    if family not in ("paper", "h-1"):
        raise ParameterError(f"family must be paper or h-1 for the separation scan, got {family!r}"
                             " (nerf frequencies 2^i*pi make D(2) exactly 0)")
    enc = Encoding(d, family=family, base=base)
    _check_n(n_pos)
    return enc


@dataclass
class Ball:
    """A certified interval ``[lo, hi]`` (floats rounded outward) and its arb text."""

    lo: float
    hi: float
    text: str

    @classmethod
    def of(cls, b: flint.arb) -> Ball:
        lo, hi = float(b.lower()), float(b.upper())
        return cls(math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf),
                   b.str(20, radius=True))


@dataclass
class Separation:
    d: int
    family: str
    base: str
    n_pos: int
    min_sq: Ball  # min over pairs of ||PE(a) - PE(b)||^2
    min_dist: Ball  # its square root
    argmin: list[int]  # offset(s) whose ball is the minimum's
    certified_unique: bool
    distinct: bool  # min_sq.lo > 0: all N positions pairwise distinct, certified
    adjacent_sq: Ball  # D(1)
    closer_than_adjacent: int | None  # #{2 <= k < N : D(k) < D(1)}, None if undecided
    first_decrease: int | None  # least k >= 1 with D(k+1) < D(k) (k+1 < N), None if none
    wrap: Ball  # 2 pi / omega_min
    wrap_position: int | None  # ceil(2 pi / omega_min) when certified
    float_bound: float
    candidates: int
    chunks: int
    seconds: float
    undecided: list[str] = field(default_factory=list)
    run: dict = field(default_factory=dict)  # engine, workers, chunks resumed (RunInfo)
    reduction: tuple[str, ...] = REDUCTION_CLAIMS
    trusted_base: tuple[str, ...] = TRUSTED_BASE

    def as_dict(self) -> dict:
        return asdict(self)

    def certified(self) -> dict:
        """The mathematical result: every field but how the scan was run (time, engine,
        chunking, the float bound and candidate count of that chunking)."""
        return {k: v for k, v in self.as_dict().items() if k not in RUN_FIELDS}


#: fields of :class:`Separation` that depend on how the scan ran, not on the mathematics
RUN_FIELDS = ("seconds", "run", "chunks", "float_bound", "candidates")


class ArbD:
    """``D(k)`` in arb for one encoding, frequencies cached per precision."""

    def __init__(self, enc: Encoding):
        self.enc = enc
        self._om: dict[int, list] = {}
        self._cache: dict[tuple[int, int], flint.arb] = {}

    def omegas(self, prec: int) -> list:
        if prec not in self._om:
            self._om[prec] = [self.enc.omega_arb(i, prec) for i in range(self.enc.pairs)]
        return self._om[prec]

    def __call__(self, k: int, prec: int = 128) -> flint.arb:
        if (k, prec) in self._cache:
            return self._cache[k, prec]
        with flint.ctx.workprec(prec):
            half = flint.arb(flint.fmpq(k, 2))
            acc = flint.arb(0)
            for w in self.omegas(prec):
                acc += (w * half).sin() ** 2
            value = 4 * acc
        if len(self._cache) < 100_000:
            self._cache[k, prec] = value
        return value


def _jobs(enc: Encoding, n_pos: int, chunk: int, adj: tuple[float, float], **extra) -> list[dict]:
    base = str(enc._base)
    out = []
    for a in range(1, n_pos, chunk):
        b = min(a + chunk, n_pos)
        out.append({"d": enc.d, "family": enc.family, "base": base, "a": a, "b": b,
                    "adj": adj, **extra})
    return out


def _sign_of_difference(dk: ArbD, k1: int, k2: int) -> int | None:
    """Certified sign of ``D(k1) - D(k2)``, raising the precision; None if never decided."""
    for p in PRECS:
        diff = dk(k1, p) - dk(k2, p)
        if diff < 0:
            return -1
        if diff > 0:
            return 1
    return None


def _least(dk: ArbD, cands: list[int], balls: dict) -> tuple[int, list[int]]:
    """The candidate with the certified least ``D`` and those it cannot be separated from."""
    k_low = min(cands, key=lambda k: float(balls[k].upper()))
    while True:
        ties, lower = [], None
        for k in cands:
            if k == k_low or balls[k_low] < balls[k]:
                continue
            s = _sign_of_difference(dk, k, k_low)
            if s is None:
                ties.append(k)
            elif s < 0:
                lower = k
                break
        if lower is None:
            return k_low, ties
        k_low = lower


def _check_n(n_pos) -> int:
    if isinstance(n_pos, bool) or not isinstance(n_pos, int) or n_pos < 2:
        raise ParameterError(f"the number of positions N must be an integer >= 2, got {n_pos!r}")
    return n_pos


def _minimum(dk: ArbD, res: list[dict], undecided: list[str]) -> tuple:
    """Steps 2-4 of the module docstring: (least offset, ties, its ball, #candidates)."""
    best = min(res, key=lambda r: r["min"])
    up = Fraction(math.nextafter(float(dk(best["argmin"]).upper()), math.inf))
    # exact rationals: a chunk returned every k with D~(k) <= min + window, up to half an ulp
    # of that sum (<= pad); it must hold every k with D~(k) - B <= up
    for r in res:
        need = up + Fraction(r["bound"])
        if need > Fraction(r["min"]) + Fraction(r["window"]) - Fraction(r["pad"]):
            raise RuntimeError(f"candidate window of chunk {r['a']}..{r['b']} too narrow")
    cands = sorted({k for r in res for k, v in r["candidates"]
                    if Fraction(v) - Fraction(r["bound"]) <= up})
    k_low, ties = _least(dk, cands, {k: dk(k) for k in cands})
    if ties:
        undecided.append(f"minimum not separated from offsets {ties} up to {PRECS[-1]} bits")
    return k_low, ties, dk(k_low, PRECS[-1] if ties else 128), len(cands)


def _closer(dk: ArbD, res: list[dict], undecided: list[str]) -> int | None:
    """``#{2 <= k < N : D(k) < D(1)}``: the chunks' certain count plus the undecided resolved."""
    if any(r["closer_overflow"] for r in res):
        undecided.append("too many offsets near D(1) to count")
        return None
    closer = sum(r["closer_sure"] for r in res)
    for k in (k for r in res for k in r["closer_maybe"]):
        s = _sign_of_difference(dk, k, 1)
        if s is None:
            undecided.append(f"D({k}) = D(1) not decided")
            return None
        closer += s < 0
    return closer


def _first_decrease(dk: ArbD, res: list[dict], n_pos: int, undecided: list[str]) -> int | None:
    """Least ``k`` with ``k + 1 < N`` and ``D(k+1) < D(k)``, chunks taken in offset order."""
    for r in res:
        if r["decrease_overflow"]:
            undecided.append(f"too many undecided steps of D in offsets {r['a']}..{r['b']}")
        for k in r["decrease_maybe"]:
            if k + 1 >= n_pos:
                continue
            s = _sign_of_difference(dk, k + 1, k)
            if s is None:
                undecided.append(f"sign of D({k + 1}) - D({k}) not decided")
            elif s < 0:
                return k
        if r["decrease_sure"] is not None and r["decrease_sure"] + 1 < n_pos:
            return r["decrease_sure"]
    return None


def seconds_per_offset(d: int) -> float:
    """A rough one-core cost of the float pre-scan per offset (for the engine's choice and
    the progress estimate; ``benchmarks/bench_longctx.py`` measures the real one)."""
    return 5.0e-8 + 2.1e-10 * d


def certify(enc_or_d, n_pos: int, family: str = "paper", base="10000", *,
            executor: Executor | None = None, workers: int | None = None, chunk: int = CHUNK,
            shrink: float = 1.0, progress=None, run: RunConfig | None = None) -> Separation:
    """Certified minimum separation over positions ``0 .. n_pos - 1`` (see module docstring).

    ``enc_or_d`` is an :class:`Encoding` (scale 1; layout and offset do not change distances)
    or the dimension ``d``.  The chunk jobs run on :func:`peproof.numeric.engine.run_chunks`:
    ``run`` chooses the engine (inline, process pool, Dask), checkpoint and progress bar;
    ``executor`` (any ``concurrent.futures.Executor``), ``workers`` and ``progress`` (a
    callable ``(done, total)``) override it.  The merge below reads the chunk results in offset
    order, so the result does not depend on the engine or on the order chunks finish in.
    ``shrink`` < 1 sabotages the float bound (tests only).
    """
    t0 = time.perf_counter()
    if isinstance(enc_or_d, Encoding):
        enc = enc_or_d
        if enc.family not in ("paper", "h-1") or enc._scale != 1:
            raise ParameterError("the separation scan takes the paper or h-1 family at scale 1")
        _check_n(n_pos)
    else:
        enc = check_params(enc_or_d, n_pos, family, base)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ParameterError(f"chunk must be a positive integer, got {chunk!r}")
    dk = ArbD(enc)
    undecided: list[str] = []
    adj = Ball.of(dk(1))
    jobs = _jobs(enc, n_pos, chunk, (adj.lo, adj.hi), shrink=shrink, slack=2.0**-40)
    cfg = run or RunConfig(label=f"separation d={enc.d} N={n_pos}")
    if executor is not None or workers is not None or progress is not None:
        cfg = replace(cfg, executor=executor or cfg.executor, workers=workers or cfg.workers,
                      callback=progress or cfg.callback)
    with checkpoint.session(remove=not cfg.keep_checkpoint):
        res, info, (k_low, ties, min_ball, n_cands, closer, first) = _scan_and_merge(
            dk, jobs, cfg, n_pos, enc.d, undecided)
    with flint.ctx.workprec(128):
        if min_ball > 0:
            dist_ball = min_ball.sqrt()
        else:
            dist_ball = flint.arb(0).union(min_ball.upper().sqrt())
    wrap, wrap_pos = wrap_position(enc)
    return Separation(
        d=enc.d, family=enc.family, base=str(enc._base), n_pos=n_pos,
        min_sq=Ball.of(min_ball), min_dist=Ball.of(dist_ball), argmin=sorted([k_low] + ties),
        certified_unique=not ties, distinct=bool(min_ball > 0), adjacent_sq=adj,
        closer_than_adjacent=closer, first_decrease=first, wrap=Ball.of(wrap),
        wrap_position=wrap_pos, float_bound=max(r["bound"] for r in res), candidates=n_cands,
        chunks=len(jobs), seconds=time.perf_counter() - t0, undecided=undecided,
        run=info.as_dict(),
    )


def _scan_and_merge(dk: ArbD, jobs: list[dict], cfg: RunConfig, n_pos: int, d: int,
                    undecided: list[str]):
    """Steps 1-5: scan (or resume), check, merge, certify again; a resumed chunk the checks
    refuse is recomputed (once); a fresh one is a bug."""
    redo: dict[int, str] = {}
    rejected: list[dict] = []
    for attempt in (0, 1):
        res, info = run_chunks(scan.scan_chunk, jobs, config=cfg, check=recertify.check_chunk,
                               sizes=[j["b"] - j["a"] for j in jobs], redo=redo,
                               estimate=(n_pos - 1) * seconds_per_offset(d))
        rejected += info.rejected
        info.rejected = rejected
        und: list[str] = []
        bad = recertify.audit(dk, res)
        if not bad:
            if any(r["overflow"] for r in res):
                raise RuntimeError("too many near-minimal offsets for a certified comparison")
            k_low, ties, min_ball, n_cands = _minimum(dk, res, und)
            closer = _closer(dk, res, und)
            first = _first_decrease(dk, res, n_pos, und)
            bad = recertify.final(dk, jobs, n_pos, min_ball, first)
        if not bad:
            undecided += und
            return res, info, (k_low, ties, min_ball, n_cands, closer, first)
        fresh = sorted(set(bad) - set(info.resumed_indices))
        if fresh or attempt:
            i = (fresh or sorted(bad))[0]
            raise RuntimeError(f"chunk {i} ({jobs[i]['a']}..{jobs[i]['b']}) as computed fails "
                               f"the final re-certification: {bad[i]}")
        redo = bad
    raise AssertionError("unreachable")


def wrap_position(enc: Encoding, prec: int = 128) -> tuple[flint.arb, int | None]:
    """``2 pi / omega_min`` as a ball and the first integer position at or past it."""
    with flint.ctx.workprec(prec):
        w = min((enc.omega_arb(i, prec) for i in (0, enc.pairs - 1)), key=lambda b: b.mid())
        wrap = 2 * flint.arb.pi() / w
        lo, hi = wrap.lower().floor(), wrap.upper().floor()
        if lo == hi:  # no integer inside the ball
            return wrap, int(lo.unique_fmpz()) + 1
    return wrap, None


def bound_fraction(h: int, e: Fraction) -> Fraction:
    """The scan's bound for two tables of error ``e`` (exposed for the README/tests)."""
    return scan.chunk_bound(h, e, e)
