"""``reference``: the encoding correctly rounded to a dtype, and exact decimal strings.

Both come from :class:`~peproof.encoding.Encoding`: the float64 fast path settles an entry when
its proven error bound cannot change the rounding, python-flint arb balls (at doubling precision)
settle the rest; see :mod:`peproof.oracle.common.exact`.
"""

from __future__ import annotations

import numpy as np

from peproof.formats import get_format

from ..common.exact import Plan, certify, correctly_rounded, exact_pos
from ..common.tables import InputError
from .variant import Variant


def positions_array(positions) -> np.ndarray:
    """Positions as float64 (each exactly the number meant): an int ``n`` means ``0..n-1``, a
    string ``"a:b"`` or ``"a:b:step"`` a range, else any 1-D sequence of numbers."""
    if isinstance(positions, bool):
        raise InputError("positions must be a count, a range 'a:b' or a sequence of numbers")
    if isinstance(positions, (int, np.integer)):
        if positions < 0:
            raise InputError(f"a count of positions must be >= 0, got {positions}")
        return np.arange(int(positions), dtype=np.float64)
    if isinstance(positions, str):
        parts = positions.split(":")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            raise InputError(f"positions must look like 'start:stop' or 'start:stop:step' "
                             f"(integers), got {positions!r}") from None
        if len(nums) not in (2, 3) or (len(nums) == 3 and nums[2] == 0):
            raise InputError(f"positions must look like 'start:stop' or 'start:stop:step', "
                             f"got {positions!r}")
        return np.arange(*nums).astype(np.float64)
    if isinstance(positions, range):
        return np.arange(positions.start, positions.stop, positions.step, dtype=np.float64)
    p = np.asarray(positions)
    if p.ndim != 1 or p.dtype.kind not in "iuf":
        raise InputError("positions must be a 1-D sequence of numbers")
    if p.dtype.kind in "iu" and p.size and int(np.abs(p).max()) > 2**53:
        raise InputError("integer positions must be at most 2**53 in size")
    out = p.astype(np.float64)
    if not np.isfinite(out).all():
        raise InputError("positions must be finite")
    return out


def variant_of(family="paper", base=10000, layout="interleaved", offset=0, scale=1,
               max_freq=1, turns=False) -> Variant:
    return Variant(family, base, layout, offset, scale, max_freq=max_freq, turns=turns)


def reference(positions, d: int, *, family: str = "paper", base=10000,
              layout: str = "interleaved", offset=0, scale=1, dtype="float32",
              max_freq=1, turns: bool = False, chunk_rows: int = 1024) -> np.ndarray:
    """The table ``len(positions) x d`` correctly rounded (to nearest, ties to even) to ``dtype``.

    ``dtype`` is ``float16``, ``bfloat16``, ``float32`` or ``float64``.  Every entry is the
    rounding of the exact real value: a float64 computation decides it when a proven bound says
    the rounding cannot differ, arb balls at escalating precision decide the rest.
    """
    fmt = get_format(dtype)
    if not fmt.is_binary:
        raise InputError(f"reference() rounds to a binary dtype, not {fmt.name}")
    pos = positions_array(positions)
    plan = Plan(variant_of(family, base, layout, offset, scale, max_freq, turns).encoding(d))
    out = np.empty((len(pos), d), dtype=fmt.numpy_dtype)
    for k0 in range(0, len(pos), chunk_rows):
        vals, _ = correctly_rounded(plan, pos[k0:k0 + chunk_rows], fmt)
        out[k0:k0 + chunk_rows] = fmt.to_numpy(vals)
    return out


def decimal_digits(man: int, exp: int, digits: int) -> tuple[int, int]:
    """``man * 2**exp`` correctly rounded to ``digits`` significant decimal digits, as
    ``(m, e10)`` with ``m * 10**e10`` the result (ties to even); exact integer arithmetic."""
    if man == 0:
        return 0, 0
    sign = -1 if man < 0 else 1
    m = abs(man)
    if exp >= 0:
        N, e10 = m << exp, 0
    else:
        N, e10 = m * 5 ** (-exp), exp  # m * 2**exp = m * 5**-exp * 10**exp
    drop = len(str(N)) - digits
    if drop <= 0:
        return sign * N * 10 ** (-drop), e10 + drop
    q, r = divmod(N, 10**drop)
    half = 5 * 10 ** (drop - 1)
    if r > half or (r == half and q % 2):
        q += 1
    if q == 10**digits:  # rounding carried into a new digit
        q //= 10
        drop += 1
    return sign * q, e10 + drop


def format_decimal(m: int, e10: int, digits: int) -> str:
    """Scientific notation with exactly ``digits`` significant digits."""
    if m == 0:
        return "0." + "0" * (digits - 1) + "e+00" if digits > 1 else "0e+00"
    s = "-" if m < 0 else ""
    ds = str(abs(m))
    exp = e10 + len(ds) - 1
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return f"{s}{mant}e{exp:+03d}"


def decimal_strings(plan: Plan, pos: np.ndarray, digits: int = 40) -> list[list[str]]:
    """Every entry of the rows at ``pos`` correctly rounded to ``digits`` significant digits."""
    d = plan.d
    ps = [exact_pos(p) for p in pos for _ in range(d)]
    cols = [j for _ in pos for j in range(d)]

    def decide(b, _k):
        if b.is_exact():
            m, e = b.man_exp()
            r = decimal_digits(int(m), int(e), digits)
            return format_decimal(*r, digits)
        lo, hi = b.lower(), b.upper()
        if b.contains(0):
            return None
        r1 = decimal_digits(*map(int, lo.man_exp()), digits)
        r2 = decimal_digits(*map(int, hi.man_exp()), digits)
        return format_decimal(*r1, digits) if r1 == r2 else None

    start = max(96, int(digits * 3.33) + 40)
    flat = certify(plan, ps, cols, decide, start_prec=start)
    return [flat[k * d:(k + 1) * d] for k in range(len(pos))]

