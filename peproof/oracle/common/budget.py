"""The rounding budget: the proved error model of :mod:`peproof.families.error_model`, evaluated.

For an entry with exact angle ``theta`` (pair ``i``) and exact value ``V`` the model bounds the
error of *any* recipe of its shape run in the pipeline dtype ``P`` (and stored in ``S``) by

    B = alpha * min(Delta, 2) + beta * |V| + gamma,
    Delta = |theta| K + m,  K = (1 + e_p)(1 + e_w,i)(1 + u)(1 + c_red u) - 1,  m = u N (1 + c_red u)

where ``alpha``, ``beta``, ``gamma`` are the coefficients of the composed bound
:func:`~peproof.families.error_model.entry_bound` (read off that expression, never retyped) at
this dtype and scale, ``e_p`` is ``c_pos u`` for a position not exact in ``P`` (else 0) and
``e_w,i = (c_omega0 + c_omega1 max_j |ln omega_j|) u max(1, N / omega_i)``.

Every coefficient is rounded upwards (a relative ``2**-40`` of slack covers the float64
evaluation of ``B`` and of ``|theta|``); :meth:`Budget.decide` compares with the float64 reference
``v^`` and its error bound ``E`` so that "within" and "over" are both certain, and leaves the rest
undecided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np
import sympy as sp

from peproof.families.error_model import CONSTANTS, Constants, entry_bound
from peproof.formats import Format

from .exact import Plan

SLACK = 1.0 + 2.0**-40
VACUOUS_ANGLE = 1.0  # an angle error of a radian or more: the entry may be anything


def tiny(fmt: Format) -> float:
    """The smallest positive normal number of a binary format (``N`` of the model)."""
    return float(np.ldexp(1.0, fmt.emin - 1)) if fmt.is_binary else 0.0


@cache
def _coefficients(scale, s_exact_one: bool, r: float, u: float, n: float, cs: float,
                  us: float, ns: float) -> tuple[float, float, float]:
    """``(alpha, beta, gamma)`` of the composed bound at these numbers, rounded upwards."""
    expr, sym = entry_bound()
    vals = {sym["s"]: scale, sym["r"]: sp.Rational(r), sym["u"]: sp.Rational(u),
            sym["N"]: sp.Rational(n), sym["c_s"]: sp.Rational(cs), sym["u_S"]: sp.Rational(us),
            sym["N_S"]: sp.Rational(ns)}
    e = sp.expand(expr.xreplace(vals))
    D, V = sym["D"], sym["V"]
    alpha = e.coeff(D)
    beta = e.coeff(sp.Abs(V))
    gamma = sp.expand(e - alpha * D - beta * sp.Abs(V))
    if gamma.free_symbols:
        raise AssertionError(f"the composed bound is not affine in D and |V|: {e}")
    return tuple(float(sp.N(c, 30)) * SLACK for c in (alpha, beta, gamma))


@dataclass
class Budget:
    """The model's bound for one variant (``plan``) computed in ``pipe``, stored in ``stored``."""

    plan: Plan
    pipe: Format
    stored: Format
    consts: Constants = CONSTANTS
    K0: np.ndarray = field(init=False)  # per pair, exact position
    K1: np.ndarray = field(init=False)  # per pair, rounded position
    ew: np.ndarray = field(init=False)  # per pair, the frequency's relative error bound
    m: float = field(init=False)
    alpha: float = field(init=False)
    beta: float = field(init=False)
    gamma: float = field(init=False)

    def __post_init__(self):
        c, P = self.consts, self.pipe
        u, n = P.u, tiny(P)
        w = self.plan.omega
        L = float(np.abs(np.log(w)).max()) if w.size else 0.0
        ew = (c.c_omega0 + c.c_omega1 * L) * u * np.maximum(1.0, n / w)
        self.ew = ew * SLACK  # per pair, the frequency's relative error bound
        rest = (1.0 + ew) * (1.0 + u) * (1.0 + c.c_red * u)
        self.K0 = (rest - 1.0) * SLACK
        self.K1 = ((1.0 + c.c_pos * u) * rest - 1.0) * SLACK
        self.m = u * n * (1.0 + c.c_red * u) * SLACK
        enc_scale = self.plan.enc._scale
        one = enc_scale == 1
        exact = bool(enc_scale.is_Rational) and float(P.round(np.array([self.plan.scale]))[0]) \
            == self.plan.scale and sp.Rational(self.plan.scale) == enc_scale
        r = 0.0 if one else ((1.0 + (0 if exact else c.c_scale) * u) * (1.0 + u) - 1.0)
        S = self.stored
        us, ns = (0.0, 0.0) if S == P else (S.u, tiny(S))
        self.alpha, self.beta, self.gamma = _coefficients(enc_scale, one, r, u, n, c.c_sin,
                                                          us, ns)

    # ------------------------------------------------------------------ evaluation
    def position_rounds(self, pos: np.ndarray) -> np.ndarray:
        """Rows whose position ``p + offset`` is not exactly a number of ``P``."""
        plan = self.plan
        s = pos + plan.offset
        exact = (s - plan.offset == pos) & (plan.offset_lo == 0.0)
        return ~exact | (self.pipe.round(s) != s)

    def angle_error(self, pos: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``Delta`` of every pair (``len(pos) x d/2``) at the float64 angles ``x``."""
        rounds = self.position_rounds(np.asarray(pos, dtype=np.float64))
        out = np.abs(x)
        if rounds.any():
            out *= np.where(rounds[:, None], self.K1[None, :], self.K0[None, :])
        else:
            out *= self.K0[None, :]
        out += self.m
        return out

    def bound(self, delta: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``B`` of every entry from the angle errors ``delta`` and the values ``v``."""
        D = np.minimum(delta, 2.0)
        D *= self.alpha
        D += self.gamma
        B = np.abs(v)
        B *= self.beta
        plan, h = self.plan, self.plan.h
        if plan.mode == "interleaved":  # the pair's term into both its channels, in place
            B[:, 0::2] += D
            B[:, 1::2] += D
        elif plan.mode in ("sin_cos", "cos_sin"):
            B[:, :h] += D
            B[:, h:] += D
        else:
            B += plan.assemble(D, D)
        return B

    # ------------------------------------------------------------------ the pair's structure
    @property
    def amplitude(self) -> float:
        """A bound of ``|t|`` for every entry of every recipe of the model's shape, however far
        its angle is off: the composed bound taken around the library's value at the *computed*
        angle (``D = 0``, ``F = sin`` or ``cos`` of it, ``|F| <= 1``) gives
        ``|t| <= |s| (1 + beta) + gamma``.  Holds where :meth:`bound` is vacuous."""
        s = abs(self.plan.scale)
        return (s * (1.0 + self.beta) + self.gamma) * SLACK

    def pair_tolerance(self, x: np.ndarray) -> np.ndarray:
        """Per pair, a bound of ``| hypot(t_sin, t_cos) - |s| |``: the model computes one angle
        ``theta~`` per pair (``|theta~| <= |theta| (1 + K) + m``) and takes sin and cos of it,
        each after its own argument reduction (``|sin theta_s - sin theta~| <= c_red u
        |theta~|``); each entry is then within ``e = alpha min(c_red u |theta~|, 2) + beta |s|
        + gamma`` of ``s sin theta~`` (resp. ``s cos theta~``), so the pair lies within
        ``sqrt(2) e`` of the circle of radius ``|s|``.  ``x`` are the exact angles."""
        c, u = self.consts, self.pipe.u
        th = np.abs(x) * (1.0 + self.K1.max()) + self.m
        th *= c.c_red * u * SLACK
        np.minimum(th, 2.0, out=th)
        th *= self.alpha
        th += abs(self.plan.scale) * self.beta + self.gamma
        th *= np.sqrt(2.0) * SLACK
        return th

    def pair_ratio(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Per pair (``rows x d/2``), the larger of ``max |t| / amplitude`` over its two entries
        and ``| |hypot| - |s| | / pair_tolerance``, each less the float64 slack of its evaluation:
        above 1 means outside the model for certain, whatever the angle error (``x``: exact
        angles, ``t``: the entries of the same rows)."""
        plan, s = self.plan, abs(self.plan.scale)
        if plan.mode == "interleaved":
            ts, tc = t[:, 0::2], t[:, 1::2]
        else:
            sc, cc = plan.pair_columns
            ts, tc = t[:, sc], t[:, cc]
        a = np.abs(ts)
        np.maximum(a, np.abs(tc), out=a)
        a *= 1.0 / self.amplitude
        a -= 2.0**-50
        q = ts * ts
        q += tc * tc
        np.sqrt(q, out=q)  # the radius; float64 errors of a few 2**-53 relative, in the slack
        dev = q - s
        np.abs(dev, out=dev)
        q += s
        q *= 2.0**-50
        dev -= q
        # the tolerance grows with |angle|: per pair, at the largest angle of these rows
        dev /= self.pair_tolerance(np.abs(x).max(axis=0, keepdims=True))
        np.fmax(a, dev, out=a)
        return a

    def decide(self, ad: np.ndarray, E, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(over, within)`` masks, each certain: ``|t - v| > B(|v|)`` and ``<= B(|v|)`` for
        every exact ``v`` within ``E`` of ``v^`` (``ad = |t - v^|``)."""
        sl = E * (1.0 + self.beta)
        d = ad - B
        return d > sl, d <= -sl

    def ball_decide(self, ball, t: float, delta: float) -> bool | None:
        """The same decision from an arb ball of the exact value: ``True`` over, ``False``
        within, ``None`` undecided."""
        import flint

        g = abs(flint.arb(t) - ball) - self.beta * abs(ball)
        c = self.alpha * min(delta, 2.0) + self.gamma
        if g.upper() <= c:
            return False
        if g.lower() > c:
            return True
        return None
