"""The report's default numeric checks and the data behind its figures.

Each function here is a job for a process pool: plain arguments in, plain data (JSON) out.
Certified values come from :mod:`peproof.numeric` (arb); the figure curves that are plain
float64 evaluations are labelled as such in the document.

Default set (:func:`jobs`):

* ``separation``  certified minimum separation of the positions ``0 .. N-1`` for every ``d`` of
  the CLI's list, with mpmath evidence (``peproof separation --d all``);
* ``separation_vs_n``  the certified minimum for a grid of ``N`` and a few ``d`` (figure);
* ``horizon``  precision horizons of every dtype and recipe at one ``d`` (``peproof horizon``);
* ``distance``  ``D(k) = ||PE(a) - PE(a+k)||^2`` against the offset (float64 curve, figure);
* ``recipe_error``  ``||PE_recipe(p) - PE(p)||`` against the position (figure);
* ``wrap_span``  for every even ``d`` up to a bound: the certified ``2 pi / omega_min`` (where the
  slowest pair completes its first turn), the first integer position past it, and the span of
  the frequencies in decades, ``log10(omega_0 / omega_min) = 4 (d - 2) / d``, exactly.
"""

from __future__ import annotations

import math

import numpy as np

from peproof.commands.separation import D_ALL, DEFAULT_N
from peproof.numeric import recipes as R
from peproof.numeric.scan import evaluate

HORIZON_D = 512
FIG_DS = (4, 16, 64, 512)
SEP_FIG_DS = (4, 8, 16, 64, 512)
DISTANCE_K = (256, DEFAULT_N)  # a close-up and the whole range
ERROR_DTYPES = ("float32", "float16", "bfloat16")
ERROR_RECIPES = ("exp-float", "pow-float", "exp-int", "f32-cast")
ERROR_BIN = 64
ERROR_STRIDE = 512  # one bin of ERROR_BIN positions in every ERROR_STRIDE (a figure's evidence)
#: dtypes of the default horizons: the ones that fail below N (float64 does not, as it is
#: the reference's own format)
HORIZON_DTYPES = ("float32", "float16", "bfloat16")
WRAP_D_MAX = 1024


def quick() -> dict:
    """A small parameter set (tests, ``--numerics quick``)."""
    return {"ds": (4, 8, 64), "n": 4096, "horizon_d": 64, "fig_ds": (4, 64),
            "sep_fig_ds": (4, 64), "distance_k": (256, 4096), "dtypes": ("float16", "bfloat16"),
            "recipes": ("exp-float", "exp-int"), "bin": 16, "stride": 64, "wrap_d_max": 128,
            "horizon_dtypes": ("float16", "bfloat16")}


def default() -> dict:
    return {"ds": D_ALL, "n": DEFAULT_N, "horizon_d": HORIZON_D, "fig_ds": FIG_DS,
            "sep_fig_ds": SEP_FIG_DS, "distance_k": DISTANCE_K, "dtypes": ERROR_DTYPES,
            "recipes": ERROR_RECIPES, "bin": ERROR_BIN, "stride": ERROR_STRIDE,
            "wrap_d_max": WRAP_D_MAX, "horizon_dtypes": HORIZON_DTYPES}


def separation(ds, n: int) -> list[dict]:
    from peproof.numeric.confirm import confirm
    from peproof.numeric.separation import certify

    out = []
    for d in ds:
        sep = certify(d, n, workers=1)
        out.append({"separation": sep.as_dict(), "mpmath": confirm(sep)})
    return out


def _n_grid(n: int) -> list[int]:
    grid = sorted({int(round(x)) for x in np.geomspace(2, n, 28)} | {n})
    return [g for g in grid if g >= 2]


def separation_vs_n(ds, n: int) -> dict:
    """Certified ``min D`` for a grid of ``N`` (markers) and the float64 running minimum of
    ``D(k)`` (the line between them)."""
    from peproof.numeric.separation import certify

    out = {"n_grid": _n_grid(n), "curves": []}
    for d in ds:
        pts = []
        for m in out["n_grid"]:
            s = certify(d, m, workers=1)
            pts.append({"n": m, "lo": s.min_dist.lo, "hi": s.min_dist.hi,
                        "unique": s.certified_unique})
        dk, _bound = evaluate(d, "paper", "10000", 1, n - 1)  # D(1) .. D(n-1), numeric's scan
        run = np.sqrt(np.maximum(np.minimum.accumulate(dk), 0.0))
        idx = _log_sample(n - 1, 400)
        out["curves"].append({"d": d, "certified": pts,
                              "float64": {"n": [i + 2 for i in idx],  # dk[i] = D(i + 1)
                                          "min_dist": [float(run[i]) for i in idx]}})
    return out


def _log_sample(n: int, m: int) -> list[int]:
    idx = sorted({int(x) for x in np.geomspace(1, n, m)} | set(range(min(n, 64))))
    return [i - 1 if i >= 1 else 0 for i in idx if 1 <= i <= n]


def distance(ds, ks) -> dict:
    """``D(k)`` for ``k = 0 .. K`` for each ``K`` of ``ks`` (float64; the full range is reduced to
    the minimum and maximum of each of about a thousand bins, so the envelope is exact)."""
    out = {"ks": list(ks), "curves": []}
    for d in ds:
        panels = []
        for kmax in ks:
            k = np.arange(0, kmax + 1)
            dk, _bound = evaluate(d, "paper", "10000", 0, kmax + 1)  # numeric's scan
            if kmax <= 2048:
                panels.append({"k": k.tolist(), "lo": dk.tolist(), "hi": dk.tolist()})
                continue
            b = int(math.ceil((kmax + 1) / 1000))
            nb = (kmax + 1) // b
            blk = dk[: nb * b].reshape(nb, b)
            panels.append({"k": (k[: nb * b].reshape(nb, b)[:, 0]).tolist(),
                           "lo": blk.min(axis=1).tolist(), "hi": blk.max(axis=1).tolist()})
        out["curves"].append({"d": d, "panels": panels})
    return out


def horizon(d: int, dtype: str, recipes, n: int) -> dict:
    """Horizons of one dtype for each recipe, with the certified ``delta/2`` they use."""
    import flint

    from peproof.encoding import Encoding
    from peproof.numeric.horizon import half_separation, scan

    sep, half = half_separation(d, n)
    enc = Encoding(d)
    half_text = (flint.arb(sep.min_dist.text) / 2).str(20, radius=True)
    return {"d": d, "dtype": dtype, "n": n, "half_separation": list(half), "half_text": half_text,
            "rows": [scan(enc, dtype, r, n, half).as_dict() for r in recipes]}


def recipe_error(d: int, dtypes, recipes, n: int, bin_size: int, stride: int | None = None
                 ) -> dict:
    """``max ||PE_recipe(p) - PE(p)||`` over bins of ``bin_size`` positions starting every
    ``stride`` positions (every bin when ``stride`` is ``bin_size``), for every dtype and recipe
    (reference: the float64 table of :class:`peproof.encoding.Encoding`; evidence for a figure,
    the horizons are scanned position by position)."""
    from peproof.encoding import Encoding

    stride = stride or bin_size
    enc = Encoding(d)
    starts = np.arange(0, n, stride)
    acc = {(dt, r): [] for dt in dtypes for r in recipes}
    per_block = max(1, 8192 // bin_size)
    for k in range(0, len(starts), per_block):
        st = starts[k:k + per_block]
        pos = (st[:, None] + np.arange(bin_size)[None, :]).ravel()
        pos = pos[pos < n]
        ref = enc.table(pos)
        owner = np.searchsorted(st, pos, side="right") - 1
        for dt in dtypes:
            for r in recipes:
                with np.errstate(invalid="ignore", over="ignore"):
                    got = R.table(enc, dt, r, pos).astype(np.float64)
                    err = np.sqrt(((got - ref) ** 2).sum(axis=1))
                err = np.where(np.isfinite(err), err, np.inf)
                best = np.full(len(st), -np.inf)
                np.maximum.at(best, owner, err)
                acc[(dt, r)] += best.tolist()
    panels = []
    for dt in dtypes:
        curves = [{"recipe": r, "p": starts.tolist(),
                   "max_error": [m if math.isfinite(m) else None for m in acc[(dt, r)]]}
                  for r in recipes]
        panels.append({"d": d, "dtype": dt, "bin": bin_size, "curves": curves})
    return {"d": d, "n": n, "bin": bin_size, "stride": stride, "panels": panels}


def wrap_span(d_max: int) -> dict:
    """Per even ``d <= d_max``: ``2 pi / omega_min`` (arb text), the first integer position at
    or past it, and the span ``log10(omega_0 / omega_min)`` as an exact fraction ``(p, q)``."""
    from fractions import Fraction

    from peproof.encoding import Encoding, omega_law
    from peproof.numeric.separation import wrap_position

    rows = []
    for d in range(2, d_max + 1, 2):
        enc = Encoding(d)
        ball, first = wrap_position(enc)
        const, base, rate = omega_law(d)
        # omega_i = const * base^(rate i) with base = 10^e: the span over i = 0 .. d/2 - 1 is
        # -rate (d/2 - 1) e decades
        e = len(str(int(base))) - 1
        if const != 1 or base != 10**e:
            raise ValueError("the span in decades needs omega_i = (10^e)^(rate i)")
        span = Fraction(-int(rate.p) * e * (d // 2 - 1), int(rate.q))
        rows.append({"d": d, "wrap": ball.str(25, radius=True), "wrap_position": first,
                     "span": [span.numerator, span.denominator]})
    return {"rows": rows}


# ---------------------------------------------------------------------------- RoPE
#: rotary dimensions of the decay figure and landmarks (the usual head sizes)
ROPE_DS = (64, 128)
#: offsets of the decay figure's close-up
ROPE_CLOSE = 64
#: bins of the decay figure's whole range (each drawn as its least lo and largest hi)
ROPE_BINS = 1200
#: the scaling maps' common parameters in the figure: factor s, original context L, d
SCALING_D, SCALING_FACTOR, SCALING_L = 128, 8, 4096


def rope_decay(ds, n_end: int, close: int = ROPE_CLOSE, bins: int = ROPE_BINS) -> dict:
    """Per ``d``: the certified landmarks of ``B(k)`` on ``0 <= k <= n_end``
    (:func:`peproof.numeric.rope_landmarks.landmarks`, minimum and maximum on ``1 <= k <= N``)
    and the certified curve for the figure: every offset up to ``close`` as ``lo``/``hi``, the
    whole range as the least ``lo`` and largest ``hi`` of each of about ``bins`` bins of equal
    width on a log axis (so the drawn band contains the curve)."""
    from peproof.numeric.rope_decay import certify_curve
    from peproof.numeric.rope_landmarks import landmarks

    out = {"n_end": n_end, "close": close, "curves": []}
    for d in ds:
        c = certify_curve(d, n_end)
        lm = landmarks(d, n_end, curve=c).as_dict()
        top = min(close, n_end) + 1
        # bins of equal width on a log axis (every offset below ~bins/10 its own bin)
        edges = np.unique(np.concatenate([[0], np.geomspace(1, n_end + 1, bins).astype(int),
                                          [n_end + 1]]))
        lo = np.minimum.reduceat(c.lo, edges[:-1])
        hi = np.maximum.reduceat(c.hi, edges[:-1])
        out["curves"].append({
            "d": d, "landmarks": lm,
            "close": {"k": list(range(top)), "lo": c.lo[:top].tolist(),
                      "hi": c.hi[:top].tolist()},
            "binned": {"start": edges[:-1].tolist(), "end": (edges[1:] - 1).tolist(),
                       "lo": lo.tolist(), "hi": hi.tolist()}})
    return out


def longrope_factors(pairs: int, s) -> tuple:
    """Illustrative LongRoPE factors (the method searches them per model): ``s^(j/(h-1))``,
    1 for the fastest pair rising to ``s`` for the slowest, as exact rationals to 6 digits."""
    from fractions import Fraction

    return tuple(Fraction(round(float(s) ** (j / (pairs - 1)), 6)).limit_denominator(10**6)
                 for j in range(pairs))


def scaling_methods(d: int = SCALING_D, s: int = SCALING_FACTOR, big: int = SCALING_L):
    """``(label, scaling, seq_len)`` of the methods drawn in the scaling figure."""
    from peproof.rope_scaling import DynamicNTK, Linear, Llama3, LongRope, NTKAware, Yarn

    lr = longrope_factors(d // 2, s)
    return [
        ("linear (position interpolation)", Linear(s), None),
        ("NTK-aware", NTKAware(s), None),
        (f"dynamic NTK at length {2 * big}", DynamicNTK(s, big), 2 * big),
        ("YaRN (transformers' ramp)", Yarn(s, big), None),
        ("YaRN (published ramp)", Yarn(s, big, ramp="ratio"), None),
        ("Llama 3.1 bands", Llama3(s, 1, 4, big), None),
        ("LongRoPE (illustrative factors)", LongRope(lr, lr, big, factor=s), 2 * big),
    ]


def rope_scaling(d: int = SCALING_D, s: int = SCALING_FACTOR, big: int = SCALING_L) -> dict:
    """The frequency multiplier ``theta'_j / theta_j`` of every pair for each method of
    :func:`scaling_methods` (each frequency from :meth:`peproof.rope.Rope.theta_arb`, 128-bit
    balls rounded to float64), the pair's wavelength ``2 pi / theta_j`` and each method's
    attention factor."""
    from peproof.rope import Rope

    base = Rope(d)
    theta = [base.theta_arb(j) for j in range(d // 2)]
    wave = [float((2 * flint_pi() / t).mid()) for t in theta]
    methods = []
    for label, sc, seq in scaling_methods(d, s, big):
        r = Rope(d, scaling=sc)
        mult = [float((r.theta_arb(j, seq_len=seq) / theta[j]).mid()) for j in range(d // 2)]
        methods.append({"label": label, "kind": sc.kind, "describe": r.describe(),
                        "seq_len": seq, "multiplier": mult,
                        "attention": float(r.attention_factor_arb(seq_len=seq).mid())})
    return {"d": d, "factor": s, "length": big, "base": 10000, "wavelength": wave,
            "methods": methods}


def flint_pi():
    import flint

    return flint.arb.pi()
