"""The one definition of the sinusoidal encoding family.

Everything else in peproof (claims, engines, numerics, report, oracle) reads the encoding from
here.  One description, :class:`Encoding`, is evaluated three ways:

* symbolically with SymPy (:meth:`Encoding.vector`, :func:`omega_expr`),
* in certified ball arithmetic with python-flint (:meth:`Encoding.vector_arb`) or at arbitrary
  precision with mpmath (:meth:`Encoding.vector_mp`),
* fast in float64 with NumPy (:meth:`Encoding.table`).

Frequency families (``i`` runs over the pairs ``0 .. d/2-1``):

``paper``  ``omega_i = base**(-2i/d)``                      (Vaswani et al. 2017, section 3.5)
``h-1``    ``omega_i = exp(-i*ln(base)/(d/2-1))``            (tensor2tensor, fairseq, whisper)
``nerf``   ``omega_i = 2**i * pi``                           (Mildenhall et al. 2020)

Layouts of the ``d`` channels:

``interleaved``  channel ``2i`` is ``sin``, ``2i+1`` is ``cos`` of pair ``i`` (the paper)
``sin_cos``      channels ``0..d/2-1`` are the sines, ``d/2..d-1`` the cosines
``cos_sin``      channels ``0..d/2-1`` are the cosines, ``d/2..d-1`` the sines

An entry is ``scale * f((pos + offset) * omega_i)`` with ``f`` in ``{sin, cos}``.

Two more parameters widen the frequency law (both default to the paper's):

``max_freq``  multiplies every frequency: the frequencies run geometrically from ``max_freq``
              down towards ``max_freq / base`` (the h-1 family reaches it at ``i = d/2 - 1``:
              mlx's ``min_freq``/``max_freq``); rows ``step`` apart in position are the same table
              as rows 1 apart with ``max_freq * step``
``turns``     frequencies in full turns: every frequency is multiplied by ``2 pi``

and the rows of a table sit at positions given by :func:`row_positions` (``forward`` ``0..n-1``,
``reversed`` ``n-1..0``, ``symmetric`` ``|k - center|`` for relative-position tables).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Literal

import numpy as np
import sympy as sp

FAMILIES = ("paper", "h-1", "nerf")
LAYOUTS = ("interleaved", "sin_cos", "cos_sin")
ORDERS = ("forward", "reversed", "symmetric")
Which = Literal["sin", "cos"]


class ParameterError(ValueError):
    """A parameter of the encoding is outside its allowed domain (message names both)."""


def _as_rational(value, name: str) -> sp.Rational:
    """Exact rational from int, Fraction, decimal string or SymPy rational; floats refused."""
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number, got a boolean")
    if isinstance(value, sp.Rational):
        return value
    if isinstance(value, int | Fraction):
        return sp.Rational(value)
    if isinstance(value, str):
        try:
            return sp.Rational(value)
        except (TypeError, ValueError, ZeroDivisionError, sp.SympifyError):
            raise ParameterError(f"{name} must be an exact number, got {value!r}") from None
    if isinstance(value, float):
        if not np.isfinite(value):
            raise ParameterError(f"{name} must be finite, got {value!r}")
        return sp.Rational(Fraction(value))
    raise ParameterError(f"{name} must be an int, a fraction or a decimal string, got {value!r}")


def check_d(d, family: str = "paper") -> int:
    """Validate the model dimension: an even integer >= 2 (>= 4 for the h-1 family)."""
    if isinstance(d, bool) or not isinstance(d, int | np.integer):
        raise ParameterError(f"d must be an even integer >= 2, got {d!r}")
    d = int(d)
    low = 4 if family == "h-1" else 2
    if d < low or d % 2:
        raise ParameterError(f"d must be an even integer >= {low} for family {family!r}, got {d}")
    return d


def omega_expr(i, d, family: str = "paper", base=10000, max_freq=1, turns: bool = False
               ) -> sp.Expr:
    """Frequency of pair ``i`` as a SymPy expression; ``i`` and ``d`` may be symbols."""
    base = sp.sympify(base)
    const = sp.sympify(max_freq) * (2 * sp.pi if turns else 1)
    if family == "paper":
        return const * base ** (-2 * sp.sympify(i) / d)
    if family == "h-1":
        # exp(-i ln(base)/(d/2-1)) written as the equal power, so SymPy keeps it exact
        return const * base ** (-sp.sympify(i) / (sp.sympify(d) / 2 - 1))
    if family == "nerf":
        return const * 2 ** sp.sympify(i) * sp.pi
    raise ParameterError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")


def omega_law(d, family: str = "paper", base=10000, max_freq=1, turns: bool = False
              ) -> tuple[sp.Expr, sp.Expr, sp.Rational]:
    """``(const, b, rate)`` with ``omega_i = const * b**(rate * i)``, read off :func:`omega_expr`
    (paper: ``(1, base, -2/d)``; h-1: ``(1, base, -1/(d/2-1))``; nerf: ``(pi, 2, 1)``; times
    ``max_freq`` and ``2 pi`` for turns).  Recipes that compute the frequencies in a
    floating-point dtype start from this."""
    i = sp.Symbol("i", integer=True, nonnegative=True)
    expr = omega_expr(i, d, family, base, max_freq, turns)
    const, dep = expr.as_independent(i, as_Add=False)
    b, ex = dep.as_base_exp()
    return const, b, sp.Rational(ex.coeff(i))


def row_positions(n: int, order: str = "forward", center=None) -> np.ndarray:
    """Positions of the ``n`` rows of a table, as exact float64 numbers: ``forward`` ``k``,
    ``reversed`` ``n-1-k``, ``symmetric`` ``|k - center|`` (default center ``(n-1)/2``, the
    middle row of a relative-position table ``-(S-1) .. S-1``)."""
    k = np.arange(n, dtype=np.float64)
    if order == "forward":
        return k
    if order == "reversed":
        return (n - 1) - k
    if order == "symmetric":
        c = Fraction(n - 1, 2) if center is None else Fraction(center)
        if c.denominator not in (1, 2):
            raise ParameterError(f"a symmetric order needs an integer or half-integer center, "
                                 f"got {center!r}")
        return np.abs(k - float(c))
    raise ParameterError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")


@dataclass(frozen=True)
class Encoding:
    """One member of the sinusoidal family, fully specified.

    ``base`` is ignored by the ``nerf`` family.  ``scale`` is a positive real (a SymPy
    expression such as ``1/sqrt(512)`` is allowed); ``offset`` is added to every position.
    """

    d: int
    family: str = "paper"
    base: object = 10000
    layout: str = "interleaved"
    offset: object = 0
    scale: object = 1
    max_freq: object = 1
    turns: bool = False
    _base: sp.Rational = field(init=False, repr=False, compare=False)
    _offset: sp.Rational = field(init=False, repr=False, compare=False)
    _scale: sp.Expr = field(init=False, repr=False, compare=False)
    _max_freq: sp.Rational = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ParameterError(
                f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}"
            )
        object.__setattr__(self, "d", check_d(self.d, self.family))
        if self.layout not in LAYOUTS:
            raise ParameterError(
                f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}"
            )
        base = _as_rational(self.base, "base")
        if base <= 1:
            raise ParameterError(f"base must be a number > 1, got {self.base!r}")
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_offset", _as_rational(self.offset, "offset"))
        scale = sp.sympify(self.scale)
        if not (scale.is_number and scale.is_extended_real and scale.is_positive):
            raise ParameterError(f"scale must be a positive real number, got {self.scale!r}")
        object.__setattr__(self, "_scale", scale)
        mf = _as_rational(self.max_freq, "max_freq")
        if mf <= 0:
            raise ParameterError(f"max_freq must be a positive number, got {self.max_freq!r}")
        object.__setattr__(self, "_max_freq", mf)
        if not isinstance(self.turns, bool | np.bool_):
            raise ParameterError(f"turns must be True or False, got {self.turns!r}")

    # ----------------------------------------------------------------- structure
    @property
    def pairs(self) -> int:
        return self.d // 2

    def channel(self, i: int, which: Which) -> int:
        """Channel index of the ``which`` component of pair ``i`` in this layout."""
        h = self.pairs
        if not 0 <= i < h:
            raise ParameterError(f"pair index must be in 0..{h - 1}, got {i}")
        if self.layout == "interleaved":
            return 2 * i + (which == "cos")
        first = "sin" if self.layout == "sin_cos" else "cos"
        return i + (0 if which == first else h)

    def slot(self, j: int) -> tuple[int, Which]:
        """Inverse of :meth:`channel`: the (pair, component) stored in channel ``j``."""
        h = self.pairs
        if not 0 <= j < self.d:
            raise ParameterError(f"channel index must be in 0..{self.d - 1}, got {j}")
        if self.layout == "interleaved":
            return j // 2, ("sin" if j % 2 == 0 else "cos")
        first, second = ("sin", "cos") if self.layout == "sin_cos" else ("cos", "sin")
        return (j, first) if j < h else (j - h, second)

    # ----------------------------------------------------------------- symbolic
    def omega(self, i) -> sp.Expr:
        if self._max_freq == 1 and not self.turns:  # the original law: four arguments
            return omega_expr(i, self.d, self.family, self._base)
        return omega_expr(i, self.d, self.family, self._base, self._max_freq, bool(self.turns))

    @cached_property
    def omegas(self) -> tuple[sp.Expr, ...]:
        return tuple(self.omega(i) for i in range(self.pairs))

    def angle(self, pos, i) -> sp.Expr:
        return (sp.sympify(pos) + self._offset) * self.omega(i)

    def entry(self, pos, j: int, freqs=None) -> sp.Expr:
        i, which = self.slot(j)
        f = sp.sin if which == "sin" else sp.cos
        w = self.omegas[i] if freqs is None else freqs[i]
        return self._scale * f((sp.sympify(pos) + self._offset) * w)

    def vector(self, pos, freqs=None) -> list[sp.Expr]:
        """``PE(pos)`` as a list of ``d`` SymPy expressions.

        ``freqs`` replaces the family's frequencies by other expressions (for instance one
        symbol per pair, to state a layout fact for every choice of frequencies at once).
        """
        return [self.entry(pos, j, freqs) for j in range(self.d)]

    # ----------------------------------------------------------------- certified
    @cached_property
    def _law(self) -> tuple:
        if self._max_freq == 1 and not self.turns:
            return omega_law(self.d, self.family, self._base)
        return omega_law(self.d, self.family, self._base, self._max_freq, bool(self.turns))

    @property
    def law(self) -> tuple:
        """``(const, b, rate)`` of this encoding's frequencies (:func:`omega_law`)."""
        return self._law

    def omega_arb(self, i: int, prec: int = 128):
        """``omega_i`` as an arb ball, from the same law as :meth:`omega` (``omega_law``)."""
        import flint

        from peproof.kernel.arb import arb_eval

        const, b, rate = self._law
        e = sp.Rational(rate) * i
        with flint.ctx.workprec(prec):
            power = arb_eval(b, {}, prec) ** flint.arb(flint.fmpq(int(e.p), int(e.q)))
            return arb_eval(const, {}, prec) * power

    def vector_arb(self, pos, prec: int = 128) -> list:
        """``PE(pos)`` as python-flint ``arb`` balls (``pos`` int, Fraction or decimal str)."""
        import flint

        from peproof.kernel.arb import arb_eval

        p = _as_rational(pos, "pos") + self._offset
        with flint.ctx.workprec(prec):
            scale = arb_eval(self._scale, {}, prec)
            x = flint.arb(flint.fmpq(int(p.p), int(p.q)))
            out = []
            for j in range(self.d):
                i, which = self.slot(j)
                t = x * self.omega_arb(i, prec)
                out.append(scale * (t.sin() if which == "sin" else t.cos()))
            return out

    def vector_mp(self, pos, dps: int = 50) -> list:
        """``PE(pos)`` with mpmath at ``dps`` digits (inside ``mp.workdps``)."""
        import mpmath

        p = _as_rational(pos, "pos") + self._offset
        with mpmath.mp.workdps(dps + 10):
            x = mpmath.mpf(int(p.p)) / int(p.q)
            scale, omegas = self._mp_constants(dps)
            out = []
            for j in range(self.d):
                i, which = self.slot(j)
                w = omegas[i]
                out.append(scale * (mpmath.sin(x * w) if which == "sin" else mpmath.cos(x * w)))
        return out

    def _mp_constants(self, dps: int) -> tuple:
        """The scale and every ``omega_i`` as mpmath numbers at ``dps + 10`` digits (SymPy's
        ``N``, computed once per precision: the same values on every call of ``vector_mp``)."""
        import mpmath

        cache = self.__dict__.setdefault("_mp_cache", {})
        if dps not in cache:
            with mpmath.mp.workdps(dps + 10):
                cache[dps] = (mpmath.mpf(sp.N(self._scale, dps + 10)),
                              tuple(mpmath.mpf(sp.N(w, dps + 10)) for w in self.omegas))
        return cache[dps]

    # ----------------------------------------------------------------- fast
    @cached_property
    def omegas_f64(self) -> np.ndarray:
        """Frequencies correctly rounded to float64 (from a 128-bit ball)."""
        return np.array([float(self.omega_arb(i).mid()) for i in range(self.pairs)])

    def table(self, positions) -> np.ndarray:
        """``len(positions) x d`` float64 table (NumPy, fast, not certified)."""
        pos = np.asarray(positions, dtype=np.float64) + float(self._offset)
        ang = pos[:, None] * self.omegas_f64[None, :]
        out = np.empty((pos.shape[0], self.d))
        out[:, [self.channel(i, "sin") for i in range(self.pairs)]] = np.sin(ang)
        out[:, [self.channel(i, "cos") for i in range(self.pairs)]] = np.cos(ang)
        if self._scale != 1:
            out *= float(self._scale)
        return out

    def describe(self) -> str:
        extra = ""
        if self._max_freq != 1:
            extra += f" max_freq={self._max_freq}"
        if self.turns:
            extra += " turns"
        return (
            f"d={self.d} family={self.family} base={self._base} layout={self.layout} "
            f"offset={self._offset} scale={self._scale}{extra}"
        )
