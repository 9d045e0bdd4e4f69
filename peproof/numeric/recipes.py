"""The encoding as real pipelines compute it, in float64, float32, float16 and bfloat16.

These are deliberately *not* the definition (that is :mod:`peproof.encoding`): they reproduce,
in NumPy, the arithmetic of common implementations so that their rounding can be measured
against the exact encoding.  Dtypes: NumPy's ``float64``/``float32``, and the 16-bit formats
from ``ml_dtypes`` (``bfloat16``; ``float16`` is NumPy's IEEE binary16, the type ml_dtypes
uses too).  Every operation on a dtype array rounds to that dtype, as NumPy/ml_dtypes define
it: a 16-bit ufunc is evaluated in float32 and rounded (the "opmath" of PyTorch on CPU), and a
Python scalar meeting a dtype array is first rounded to the dtype (NEP 50).

Frequencies (``how``), for the paper family (``h-1`` uses ``i/(h-1)`` in place of ``2i/d``):

``exp``  ``exp(arange(0, d, 2) * (-log(base) / d))``   (the PyTorch tutorial)
``pow``  ``1 / base ** (arange(0, d, 2) / d)``            (the common power form)

Recipes (``RECIPES``):

``exp-float`` / ``pow-float``  positions ``arange(N)`` in the dtype, ``angle = pos * freq`` in
    the dtype, ``sin``/``cos`` in the dtype: the whole pipeline in one dtype.
``exp-int`` / ``pow-int``  integer positions times dtype frequencies with NumPy's promotion
    (``int64 x dtype -> float64``), ``sin``/``cos`` in float64, stored in a dtype table: the
    tutorial transcribed to NumPy with ``pe = np.zeros((N, d), dtype)``.
``f32-cast``  the tutorial (``exp-float``) in float32, the finished table cast to the dtype.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

from peproof.encoding import Encoding, ParameterError
from peproof.formats import BINARY

DTYPES = {name: BINARY[name].numpy_dtype for name in ("float64", "float32", "float16", "bfloat16")}
RECIPES = ("exp-float", "exp-int", "pow-float", "pow-int", "f32-cast")


def dtype_of(name: str) -> np.dtype:
    try:
        return DTYPES[name]
    except KeyError:
        raise ParameterError(
            f"dtype must be one of {', '.join(DTYPES)}, got {name!r}") from None


def check_recipe(name: str) -> str:
    if name not in RECIPES:
        raise ParameterError(f"recipe must be one of {', '.join(RECIPES)}, got {name!r}")
    return name


# How implementations spell the exponent index: (index array, denominator) with
# omega_i = const * b**(-index_i / denominator).  The law itself (const, b, rate) is read from
# the definition (omega_law); the spelling matters only for rounding in a narrow dtype.
_SPELLING = {
    "paper": lambda enc: (np.arange(0, enc.d, 2), enc.d),  # PyTorch tutorial: arange(0, d, 2)/d
    "h-1": lambda enc: (np.arange(enc.pairs), enc.pairs - 1),  # tensor2tensor: i/(d/2 - 1)
    "nerf": lambda enc: (-np.arange(enc.pairs), 1),  # 2**i
}


def frequencies(enc: Encoding, dt: np.dtype, how: str) -> np.ndarray:
    """The ``d/2`` frequencies as the recipe computes them, in dtype ``dt`` (the only place the
    exp/log and power recipes are written; the oracle's pipeline-faithful reference uses it)."""
    const, b, rate = enc.law
    idx, denom = _SPELLING[enc.family](enc)
    if len(idx) > 1 and Fraction(int(idx[1] - idx[0]), denom) != -Fraction(int(rate.p),
                                                                           int(rate.q)):
        raise AssertionError(f"recipe spelling of {enc.family} disagrees with omega_expr")
    base, c = float(b), dt.type(float(const))
    idx = idx.astype(dt)
    with np.errstate(over="ignore", under="ignore"):
        if how == "exp":
            return c * np.exp(idx * dt.type(-math.log(base) / denom))
        if how == "pow":
            return c / (dt.type(base) ** (idx / dt.type(denom)))
    raise ParameterError(f"frequency recipe must be exp or pow, got {how!r}")


def rows(enc: Encoding, dtype: str, recipe: str, positions: np.ndarray) -> tuple[np.ndarray,
                                                                                 np.ndarray]:
    """``(sin part, cos part)`` of the recipe's table at ``positions``, each ``n x d/2`` in the
    recipe's storage dtype (the channels of pair ``i`` are column ``i`` of each part)."""
    dt = dtype_of(dtype)
    check_recipe(recipe)
    positions = np.asarray(positions)
    with np.errstate(over="ignore", invalid="ignore"):
        if recipe == "f32-cast":
            s, c = rows(enc, "float32", "exp-float", positions)
            return _cast(s, dtype), _cast(c, dtype)
        how, pos_kind = recipe.split("-")
        freq = frequencies(enc, dt, how)
        if pos_kind == "int":
            ang = positions.astype(np.int64)[:, None] * freq[None, :]  # promotes to float64
            return _cast(np.sin(ang), dtype), _cast(np.cos(ang), dtype)
        ang = positions.astype(dt)[:, None] * freq[None, :]
        return np.sin(ang), np.cos(ang)


def table(enc: Encoding, dtype: str, recipe: str, positions: np.ndarray) -> np.ndarray:
    """The recipe's full ``n x d`` table in its dtype, channels placed by the encoding's layout."""
    s, c = rows(enc, dtype, recipe, positions)
    out = np.empty((s.shape[0], enc.d), dtype=s.dtype)
    out[:, [enc.channel(i, "sin") for i in range(enc.pairs)]] = s
    out[:, [enc.channel(i, "cos") for i in range(enc.pairs)]] = c
    return out


def _cast(v: np.ndarray, dtype: str) -> np.ndarray:
    """Round to ``dtype`` once, correctly (ml_dtypes' float64 -> bfloat16 rounds twice)."""
    fmt = BINARY[dtype]
    return fmt.to_numpy(fmt.round(np.asarray(v, dtype=np.float64)))


def first_overflow(dtype: str) -> int:
    """The least integer whose round-to-nearest-even value in ``dtype`` is infinite.

    With largest finite value ``M`` and spacing ``2**e`` just below it, the tie ``M + 2**(e-1)``
    rounds to the even neighbour ``M + 2**e``, which is infinite.
    """
    fi = ml_dtypes.finfo(dtype_of(dtype))
    m = Fraction(float(fi.max))
    mant = int(fi.nmant)
    e = m.numerator.bit_length() - 1 - mant  # exponent of the ulp of M (M is an integer)
    return int(m) + 2 ** (e - 1)


def overflow_position(dtype: str, recipe: str) -> int | None:
    """First position whose table row is not finite, or None when the recipe never overflows
    (integer positions: angles are float64 products of int64 and a finite frequency)."""
    if recipe.endswith("-int"):
        return None
    return first_overflow("float32" if recipe == "f32-cast" else dtype)
