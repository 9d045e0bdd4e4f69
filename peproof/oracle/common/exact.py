"""Reference values of an :class:`~peproof.encoding.Encoding`: fast float64 with a proven error
bound, certified arb balls, and correct rounding to a format with escalating precision.

Fast path.  With ``u = 2**-53`` and the frequencies ``omega_i`` correctly rounded to float64 by
:attr:`Encoding.omegas_f64`, the computed angle ``fl(fl(pos + offset) * omega_i)`` differs from the
exact one by at most ``(4|x| + 2|offset| omega_i) u`` (three roundings, each relative ``u``, plus
the rounding of a non-dyadic offset, with slack).  ``sin`` and ``cos`` are 1-Lipschitz, so after
NumPy's ``sin``/``cos`` and the product with the scale the float64 value ``v`` satisfies

    |v - exact| <= 1.01 * scale * (4|x| + 2|offset| omega_i) u + 12 u |v| + 2**-1060.

The single assumption (an axiom, stated here and in every JSON report): NumPy's float64 ``sin``
and ``cos`` are accurate to 4 ulps, i.e. relative ``8u`` (glibc and SVML document <= 1 ulp; the
tests compare them with arb).  A decision taken from ``v`` (the correctly rounded value, whether an
error exceeds one ulp) is kept only when it is the same for every number within the bound; all
other entries are decided from arb balls whose working precision doubles until the decision is
certain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import numpy as np

from peproof.encoding import Encoding
from peproof.formats import Format
from peproof.kernel.arb import arb_eval

U64 = 2.0**-53
LIBM_AXIOM = "NumPy's float64 sin and cos are accurate to 4 ulps (relative error <= 2**-50)"
MAX_PREC = 8192


class PrecisionExhausted(RuntimeError):
    """A decision stayed undecided up to ``MAX_PREC`` bits (an exact tie; never observed)."""


@dataclass
class Plan:
    """Everything the fast path needs about one encoding, computed once."""

    enc: Encoding

    @cached_property
    def d(self) -> int:
        return self.enc.d

    @cached_property
    def h(self) -> int:
        return self.enc.pairs

    @cached_property
    def omega(self) -> np.ndarray:
        return self.enc.omegas_f64

    @cached_property
    def offset(self) -> float:
        return float(Fraction(int(self.enc._offset.p), int(self.enc._offset.q)))

    @cached_property
    def scale(self) -> float:
        return float(self.scale_arb(128).mid())

    def scale_arb(self, prec: int):
        return arb_eval(self.enc._scale, {}, prec)

    @cached_property
    def slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(pair index, is_cos) of every channel, from :meth:`Encoding.slot`."""
        sl = [self.enc.slot(j) for j in range(self.d)]
        return (np.array([i for i, _ in sl], dtype=np.int64),
                np.array([w == "cos" for _, w in sl], dtype=bool))

    @cached_property
    def perm(self) -> np.ndarray:
        """Channel ``j`` is column ``perm[j]`` of ``[sin(x) | cos(x)]``."""
        pair, is_cos = self.slots
        return pair + self.h * is_cos

    @cached_property
    def pair_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """``(sin_cols, cos_cols)``: the table's channels holding ``sin`` and ``cos`` of pair
        ``i`` are ``sin_cols[i]`` and ``cos_cols[i]`` (the inverse of :attr:`perm`)."""
        inv = np.argsort(self.perm)
        return inv[:self.h], inv[self.h:]

    @cached_property
    def mode(self) -> str:
        h, p = self.h, self.perm
        if np.array_equal(p, np.arange(2 * h).reshape(2, h).T.ravel()):
            return "interleaved"
        if np.array_equal(p, np.arange(2 * h)):
            return "sin_cos"
        if np.array_equal(p, np.r_[np.arange(h, 2 * h), np.arange(h)]):
            return "cos_sin"
        return "gather"

    def assemble(self, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Place per-pair ``sin`` and ``cos`` columns into the layout's channels."""
        if self.mode == "interleaved":
            return np.stack((s, c), axis=-1).reshape(s.shape[0], self.d)
        if self.mode == "sin_cos":
            return np.concatenate((s, c), axis=1)
        if self.mode == "cos_sin":
            return np.concatenate((c, s), axis=1)
        return np.concatenate((s, c), axis=1)[:, self.perm]

    def sincos(self, x: np.ndarray) -> np.ndarray:
        """``assemble(sin(x), cos(x))`` written in place into the layout's channels."""
        n, h = x.shape
        if self.mode == "gather":
            return self.assemble(np.sin(x), np.cos(x))
        v = np.empty((n, self.d))
        if self.mode == "interleaved":
            s_, c_ = v[:, 0::2], v[:, 1::2]
        elif self.mode == "sin_cos":
            s_, c_ = v[:, :h], v[:, h:]
        else:
            c_, s_ = v[:, :h], v[:, h:]
        np.sin(x, out=s_)
        np.cos(x, out=c_)
        return v

    # ------------------------------------------------------------------ fast path
    def angles(self, pos: np.ndarray) -> np.ndarray:
        return (np.asarray(pos, dtype=np.float64) + self.offset)[:, None] * self.omega[None, :]

    def values(self, pos: np.ndarray) -> np.ndarray:
        """float64 values of the rows at ``pos`` (``len(pos) x d``)."""
        x = self.angles(pos)
        v = self.sincos(x)
        if self.scale != 1.0:
            v *= self.scale
        return v

    def row_bound(self, pos: np.ndarray) -> np.ndarray:
        """An error bound valid for every entry of each row (``len(pos) x 1``)."""
        pos = np.asarray(pos, dtype=np.float64)
        wmax = float(self.omega.max())
        ang = (4.0 * np.abs(pos + self.offset) + 2.0 * abs(self.offset)) * wmax
        return (1.01 * abs(self.scale) * (ang + 12.0) * U64 + 2.0**-1060)[:, None]

    @cached_property
    def omega_lo(self) -> np.ndarray:
        """``omega_i - omegas_f64[i]`` rounded to float64 (the tail of a double-double)."""
        out = []
        with flint.ctx.workprec(160):
            for i in range(self.h):
                out.append(float((self.enc.omega_arb(i, 160) - flint.arb(self.omega[i])).mid()))
        return np.array(out)

    @cached_property
    def offset_lo(self) -> float:
        o = Fraction(int(self.enc._offset.p), int(self.enc._offset.q))
        return float(o - Fraction(self.offset))

    def refine(self, pos: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sharper float64 values and error bounds for gathered entries (``pos[k]``, ``cols[k]``).

        The angle is carried as a double-double: with ``s = fl(pos + offset)`` and Dekker's exact
        product, ``delta = (pos + offset) * omega - fl(s * omega_hi)`` is known to
        ``4u|delta| + |x| 2**-100``; then ``sin(x) = sin(x^) + cos(x^) delta`` up to
        ``delta**2 / 2`` (and likewise for ``cos``).  With the libm axiom the bound is

            12u|v| + scale (20u|delta| + delta**2 + |x| 2**-100) + 2**-1060,

        relative to ``v`` instead of to the angle: it settles nearly every entry the row bound
        leaves open (small values at large positions).
        """
        pos = np.asarray(pos, dtype=np.float64)
        pair, is_cos = self.slots[0][cols], self.slots[1][cols]
        wh, wl = self.omega[pair], self.omega_lo[pair]
        s = pos + self.offset
        bb = s - pos
        err_s = (pos - (s - bb)) + (self.offset - bb) + self.offset_lo
        x = s * wh
        sh, sl = _split(s)
        whh, whl = _split(wh)
        err_p = ((sh * whh - x) + sh * whl + sl * whh) + sl * whl  # exact: s*wh = x + err_p
        delta = err_p + s * wl + err_s * wh
        sx, cx = np.sin(x), np.cos(x)
        f = np.where(is_cos, cx - sx * delta, sx + cx * delta)
        v = f * self.scale if self.scale != 1.0 else f
        ad = np.abs(delta)
        err = (12.0 * U64 * np.abs(v) + abs(self.scale) * 1.01 * (
            20.0 * U64 * ad + ad * ad + np.abs(x) * 2.0**-100) + 2.0**-1060)
        return v, err

    def refine_rows(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`refine` for whole rows: values and per-entry bounds (``len(pos) x d``)."""
        pos = np.asarray(pos, dtype=np.float64)
        wh, wl = self.omega, self.omega_lo
        s = pos + self.offset
        bb = s - pos
        err_s = (pos - (s - bb)) + (self.offset - bb) + self.offset_lo
        x = s[:, None] * wh[None, :]
        sh, sl = _split(s)
        whh, whl = _split(wh)
        err_p = ((sh[:, None] * whh - x) + sh[:, None] * whl + sl[:, None] * whh) + (
            sl[:, None] * whl)
        delta = err_p + s[:, None] * wl + err_s[:, None] * wh
        sx, cx = np.sin(x), np.cos(x)
        v = self.assemble(sx + cx * delta, cx - sx * delta)
        if self.scale != 1.0:
            v *= self.scale
        ad = np.abs(delta)
        e = abs(self.scale) * 1.01 * (20.0 * U64 * ad + ad * ad + np.abs(x) * 2.0**-100)
        return v, self.assemble(e, e) + 12.0 * U64 * np.abs(v) + 2.0**-1060

    def entry_bound(self, pos: np.ndarray, cols: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The per-entry bound of the plain fast path at gathered entries (values ``v``)."""
        w = self.omega[self.slots[0][cols]]
        ang = (4.0 * np.abs((pos + self.offset) * w) + 2.0 * abs(self.offset) * w) * U64
        return 1.01 * abs(self.scale) * ang + 12.0 * U64 * np.abs(v) + 2.0**-1060

    # ------------------------------------------------------------------ certified
    def _omega_arb(self, i: int, prec: int):
        cache = self.__dict__.setdefault("_wcache", {})
        key = (i, prec)
        if key not in cache:
            cache[key] = self.enc.omega_arb(i, prec)
        return cache[key]

    def balls(self, pos: list[Fraction], cols: list[int], prec: int) -> list:
        """arb balls of the entries (``pos[k]``, channel ``cols[k]``) at ``prec`` bits."""
        pair, is_cos = self.slots
        off = Fraction(int(self.enc._offset.p), int(self.enc._offset.q))
        out = []
        with flint.ctx.workprec(prec):
            sc = self.scale_arb(prec)
            for p, j in zip(pos, cols, strict=True):
                q = Fraction(p) + off
                t = flint.arb(flint.fmpq(q.numerator, q.denominator)) * self._omega_arb(
                    int(pair[j]), prec)
                out.append(sc * (t.cos() if is_cos[j] else t.sin()))
        return out


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of float64 values into two halves of at most 26 bits (exact)."""
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def exact_pos(p) -> Fraction:
    """The exact rational value of a position given as int or float."""
    if isinstance(p, Fraction):
        return p
    if isinstance(p, (int, np.integer)):
        return Fraction(int(p))
    return Fraction(float(p))


def ball_bounds(b) -> tuple[tuple[int, int], tuple[int, int]]:
    """Exact (mantissa, exponent) of the lower and upper end of an arb ball."""
    lo, hi = b.lower(), b.upper()
    (m1, e1), (m2, e2) = lo.man_exp(), hi.man_exp()
    return (int(m1), int(e1)), (int(m2), int(e2))


def round_ball(b, fmt: Format) -> float | None:
    """The correct rounding of every number in ``b`` if it is the same, else ``None``."""
    (m1, e1), (m2, e2) = ball_bounds(b)
    r1, r2 = fmt.round_dyadic(m1, e1), fmt.round_dyadic(m2, e2)
    if r1 != r2 or (r1 == 0 and math.copysign(1, r1) != math.copysign(1, r2)):
        return None  # different results, or a zero whose sign is not yet known
    return r1


EXACT_CHECK_PREC = 1024


def certify(plan: Plan, pos: list[Fraction], cols: list[int], decide, start_prec: int = 96):
    """Evaluate ``decide(ball)`` for every entry, doubling the precision of undecided ones.

    ``decide`` returns a result, or ``None`` while the ball is too wide to decide.  An entry still
    undecided at ``EXACT_CHECK_PREC`` bits may have an exact rational value sitting on the
    boundary being decided (``sin(k*pi) = 0`` or ``cos(2*k*pi) = 1`` in the nerf family), which
    no ball can prove.  SymPy's exact evaluation of :meth:`Encoding.entry` (``cos(40*pi) -> 1``,
    an evaluation rule, not a simplification) is then asked, and an entry it reduces to a rational
    number is decided from that exact value.
    """
    results: list = [None] * len(pos)
    todo = list(range(len(pos)))
    prec = start_prec
    while todo:
        if prec > MAX_PREC:
            raise PrecisionExhausted(f"{len(todo)} entries undecided at {MAX_PREC} bits")
        balls = plan.balls([pos[k] for k in todo], [cols[k] for k in todo], prec)
        left = []
        with flint.ctx.workprec(prec):  # lower()/upper() round outward at the context precision
            for k, b in zip(todo, balls, strict=True):
                if prec >= EXACT_CHECK_PREC and not b.is_exact():
                    q = _exact_value(plan, pos[k], cols[k])
                    if q is not None and b.contains(q):
                        b = q
                r = decide(b, k)
                if r is None:
                    left.append(k)
                else:
                    results[k] = r
        todo, prec = left, prec * 2
    return results


def _exact_value(plan: Plan, pos: Fraction, j: int):
    """The entry as an exact arb if SymPy evaluates it to a rational number, else ``None``."""
    import sympy as sp

    e = plan.enc.entry(sp.Rational(pos.numerator, pos.denominator), j)
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    return None


def correctly_rounded(plan: Plan, pos: np.ndarray, fmt: Format) -> tuple[np.ndarray, int]:
    """Rows at ``pos`` correctly rounded to ``fmt`` (float64 array) and how many needed arb."""
    v = plan.values(pos)
    e = plan.row_bound(pos)
    slack = 2.0 * U64 * (np.abs(v) + e)  # the rounding of v +- e themselves
    lo = fmt.round(v - e - slack)
    hi = fmt.round(v + e + slack)
    out = fmt.round(v)
    amb = (lo != hi) | (np.signbit(lo) != np.signbit(hi))  # a zero's sign must be known too
    if amb.any():
        r, c = np.nonzero(amb)
        vv, eb = plan.refine(pos[r], c)
        sl = 2.0 * U64 * (np.abs(vv) + eb)
        lo2, hi2 = fmt.round(vv - eb - sl), fmt.round(vv + eb + sl)
        fine = (lo2 == hi2) & (np.signbit(lo2) == np.signbit(hi2))
        out[r[fine], c[fine]] = lo2[fine]
        still = ~fine
        r, c = r[still], c[still]
        if r.size:
            got = certify(plan, [exact_pos(pos[k]) for k in r], [int(j) for j in c],
                          lambda b, _k: round_ball(b, fmt), start_prec=2 * fmt.p + 40)
            out[r, c] = got
        return out, int(r.size)
    return out, 0
