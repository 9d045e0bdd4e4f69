"""Float64 tables of ``exp(i * omega_j * m)`` with a proved bound on their error.

The separation scan needs ``cos(omega_j * k)`` for every pair ``j`` and every offset ``k`` of a
long range.  It never calls a library ``sin``/``cos`` on a float64 argument (whose accuracy we
could not prove).  Instead:

1. a few *seed* phases ``exp(i omega_j m)`` are computed in python-flint ``arb`` ball arithmetic
   from the certified frequencies ``Encoding.omega_arb`` and rounded to float64;
2. tables are grown from the seeds by complex multiplication in float64 (``doubling``:
   ``T[0..2n) = T[0..n) ++ T[0..n) * seed(n)``), every product written as two real
   multiplications and one addition, each rounded once by IEEE-754 binary64 arithmetic.

Error model (``u = 2**-53``, round to nearest; complex errors are moduli, exact values have
modulus 1):

* a seed rounded from an arb ball of radius ``r``: each component is off by at most
  ``r + 2**-52`` (one ulp of a number of size <= 1, whatever rounding ``float()`` uses), so
  the complex error is at most ``sqrt(2) (r + 2**-52)``;
* a product of two table entries with errors ``e1, e2``:
  ``|fl(z1 z2) - z w| <= e1 + e2 + e1 e2 + rho (1 + e1)(1 + e2)`` with
  ``rho = sqrt(2) (2u + u**2)``: each component ``fl(fl(ac) - fl(bd))`` is within
  ``(2u + u**2)(|ac| + |bd|)`` of ``ac - bd`` and ``|ac| + |bd| <= |z1||z2|`` (Cauchy-Schwarz).

Every bound is carried as an exact :class:`fractions.Fraction`, so the bookkeeping itself does
not round.  Trusted base: IEEE-754 binary64 for NumPy's elementwise ``*``, ``+``, ``-`` (one
rounding per operation, no contraction across ufunc calls) and python-flint's arb enclosures.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

U = Fraction(1, 2**53)
SQRT2_UP = Fraction(14143, 10000)  # > sqrt(2)
RHO = SQRT2_UP * (2 * U + U * U)
ULP1 = Fraction(1, 2**52)  # one ulp of a float64 in [1/2, 1); >= one ulp of anything in [-1, 1]


def mul_err(e1: Fraction, e2: Fraction) -> Fraction:
    """Error bound of a float64 complex product of two unit phases known to ``e1``, ``e2``."""
    return e1 + e2 + e1 * e2 + RHO * (1 + e1) * (1 + e2)


@dataclass
class Phases:
    """``re + i*im`` approximates ``exp(i * omega_j * m)``; rows are pairs ``j``.

    Every entry is within ``err`` (complex modulus) of the exact phase.
    """

    re: np.ndarray
    im: np.ndarray
    err: Fraction

    def __mul__(self, other: Phases) -> Phases:
        """Entrywise product; a one-dimensional factor (one phase per pair) is broadcast
        along the columns of a two-dimensional one."""
        a, b, c, e = self.re, self.im, other.re, other.im
        if a.ndim < c.ndim:
            a, b = a[:, None], b[:, None]
        elif c.ndim < a.ndim:
            c, e = c[:, None], e[:, None]
        return Phases(a * c - b * e, a * e + b * c, mul_err(self.err, other.err))


def arb_omegas(enc, prec: int) -> list:
    """The certified frequencies of ``enc`` as arb balls (from ``Encoding.omega_arb``)."""
    return [enc.omega_arb(i, prec) for i in range(enc.pairs)]


def seed(omegas: list, m: int, prec: int = 128) -> Phases:
    """``exp(i omega_j m)`` for every pair, computed in arb and rounded to float64."""
    re = np.empty(len(omegas))
    im = np.empty(len(omegas))
    rad = 0.0
    with flint.ctx.workprec(prec):
        mm = flint.arb(m)
        for j, w in enumerate(omegas):
            s, c = (w * mm).sin_cos()
            re[j], im[j] = float(c.mid()), float(s.mid())
            rad = max(rad, float(c.rad()), float(s.rad()))
    # float() of an arb radius may round down by one ulp: doubling it stays above
    return Phases(re, im, SQRT2_UP * (2 * Fraction(rad) + ULP1))


def doubling(omegas: list, step: int, n: int, prec: int = 128) -> Phases:
    """``exp(i omega_j step t)`` for ``t = 0 .. n-1`` (columns), grown from arb seeds.

    Level ``m`` appends ``T * seed(step * 2**m)``; after ``L = ceil(log2 n)`` levels the error
    is at most ``L`` product errors, which the returned ``err`` bounds exactly.
    """
    if n < 1:
        raise ValueError("table length must be >= 1")
    h = len(omegas)
    table = Phases(np.ones((h, 1)), np.zeros((h, 1)), Fraction(0))
    width, m = 1, 0
    while width < n:
        s = seed(omegas, step * (1 << m), prec)
        take = min(width, n - width)
        a, b = table.re[:, :take], table.im[:, :take]
        c, e = s.re[:, None], s.im[:, None]
        new_re, new_im = a * c - b * e, a * e + b * c
        err = max(table.err, mul_err(table.err, s.err))
        table = Phases(np.hstack([table.re, new_re]), np.hstack([table.im, new_im]), err)
        width += take
        m += 1
    return table


def shifted(omegas: list, start: int, step: int, n: int, prec: int = 128) -> Phases:
    """``exp(i omega_j (start + step t))`` for ``t = 0 .. n-1``: a doubling table times a seed."""
    return seed(omegas, start, prec) * doubling(omegas, step, n, prec)


def fraction_up(x: Fraction) -> float:
    """The smallest float64 >= ``x`` (a bound stays a bound after conversion)."""
    f = float(x)
    return f if Fraction(f) >= x else float(np.nextafter(f, np.inf))
