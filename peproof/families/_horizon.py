"""The uniqueness horizon ``2 pi / omega_min`` as a closed form of the law in force.

The closed form is read off the one definition of the frequencies (:func:`peproof.scope.omega`,
i.e. :func:`peproof.encoding.omega_expr`), never typed per family: the slowest frequency
``omega(d/2 - 1, d)`` is split into ``c * b**e`` (``c`` free of ``d``) and the horizon is written
``(2 pi / c) * b**(-e)`` with the exponent ``-e`` put over one denominator (``sympy.cancel``):

* the paper, ``base**(-2i/d)``:           ``2 pi base**((d - 2)/d)``
* h-1, ``base**(-i/(d/2 - 1))``:          ``2 pi base`` (the exponent cancels to 1)
* a frequency scale ``max_freq`` (or turns, ``2 pi``): divides the horizon.

Cancelling is how the statement is *written*; that the definition's ``2 pi / omega_min`` equals
it is what the claim states and the engines decide (``uniqueness.slowest_pair_wraps_at_exact_
position``).  A wrong exponent here is a refuted claim, not a wrong number.
"""

from __future__ import annotations

import sympy as sp

from peproof import scope

PI2 = 2 * sp.pi


def split(law: tuple = ()) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``(c, b, x)`` with ``2 pi / omega_min = (2 pi / c) * b**x`` for a symbolic ``d`` in the
    law in force (``law``: an explicit law, ``("paper",)`` for the paper's)."""
    from peproof.families._common import d

    om = scope.omega(d / 2 - 1, d, *law)
    const, dep = om.as_independent(d, as_Add=False)
    b, e = dep.as_base_exp()
    return const, b, sp.cancel(-e)


def wrap(law: tuple = ()) -> sp.Expr:
    """``2 pi / omega_min`` from the definition (the law in force, or ``law``)."""
    from peproof.families._common import d

    return PI2 / scope.omega(d / 2 - 1, d, *law)


def closed_form(law: tuple = ()) -> sp.Expr:
    """The horizon written in closed form, read off the definition (module docstring)."""
    c, b, x = split(law)
    return PI2 / c * b ** x


def text(law: tuple = ()) -> str:
    """The closed form as a title writes it: ``2 pi 10000^((d-2)/d)``, ``2 pi 10000``, ..."""
    c, b, x = split(law)
    coeff = sp.sstr(PI2 / c).replace("*pi", " pi").replace("pi*", "pi ")
    if x == 1:
        return f"{coeff} {b}" if coeff != "1" else f"{b}"
    ex = sp.sstr(x).replace(" ", "")
    return f"{coeff} {b}^({ex})" if coeff != "1" else f"{b}^({ex})"


def text_approx(law: tuple = ()) -> str:
    """``2 pi base / c`` as a title writes it (the seed's ``2 pi 10000``)."""
    c, b, _ = split(law)
    coeff = sp.sstr(PI2 / c).replace("*pi", " pi").replace("pi*", "pi ")
    return f"{coeff} {b}" if coeff != "1" else f"{b}"


def decimal(r: sp.Rational, places: int, sep: str = ",") -> str:
    """A rational with ``places`` decimals, thousands separated by ``sep`` (``60,611.5``)."""
    q = sp.Rational(r) * 10**places
    if q.q != 1:
        raise ValueError(f"{r} has more than {places} decimals")
    n = int(q)
    whole, frac = divmod(abs(n), 10**places)
    sign = "-" if n < 0 else ""
    return f"{sign}{whole:,}".replace(",", sep) + (f".{frac:0{places}d}" if places else "")


def slowest_is_last_why() -> str:
    """Why pair ``d/2 - 1`` is not the slowest in the law in force ('' when it is: the
    frequencies fall with ``i``).  Read at ``d = 8``, from the definition."""
    w0, w1 = scope.omega(0, 8), scope.omega(1, 8)
    if (w1 - w0).is_negative:
        return ""
    return (f"the frequencies grow with the pair index (omega_0 = {w0}, omega_1 = {w1} at "
            "d = 8): pair d/2 - 1 is the fastest, not the slowest, and the slowest pair (i = 0) "
            "wraps at the same position for every d; there is no horizon growing with d")


def rounded(x: sp.Expr, places: int) -> sp.Rational:
    """``x`` rounded to ``places`` decimals (evaluated at 50 digits; the claim stating it is
    decided by the engines, so a rounding slip is a refuted claim, never a wrong ``proved``)."""
    unit = 10**places
    return sp.Rational(int(sp.floor(sp.N(x * unit, 50) + sp.Rational(1, 2))), unit)
