"""RoPE, the rotary position embedding: the one definition of its rotation, layouts and bound.

RoPE (Su et al. 2021) rotates the query and the key inside attention.  Pair ``j`` of the ``d``
rotated channels is turned by the angle ``pos * theta_j`` with the frequencies of the sinusoidal
encoding, ``theta_j = base**(-2j/d)`` (:func:`peproof.encoding.omega_expr`, family ``paper``):

    (x_a, x_b)  ->  (x_a cos(pos theta_j) - x_b sin(pos theta_j),
                     x_a sin(pos theta_j) + x_b cos(pos theta_j))

Layouts (which channels ``(a, b)`` hold pair ``j``):

``interleaved``  ``(2j, 2j+1)``      GPT-J, Meta's Llama (the complex view ``x_a + i x_b``)
``half``         ``(j, j + d/2)``    GPT-NeoX, Hugging Face transformers (``rotate_half``)

:func:`rotate` is the definition (the block form).  The formulations real implementations use
(:func:`rotate_half_form`, :func:`rotate_every_two_form`, :func:`complex_form`) are written here
too, as they write them; the ``rope`` claims prove them equal to the definition.

The long-term decay bound of Su et al. (section 3.4.3) is :func:`decay_bound_expr`:
``B(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|`` with ``S_j(k) = sum_{l<j} exp(i k theta_l)``.

The frequency maps of the scaling methods (linear, NTK-aware, dynamic NTK, YaRN, Llama 3.1,
LongRoPE) live in :mod:`peproof.rope_scaling`; :class:`Rope` combines one with a layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
import sympy as sp

from peproof.encoding import ParameterError, _as_rational, omega_expr
from peproof.rope_backends import arb_backend, numpy_backend, sym_backend
from peproof.rope_scaling import SCALINGS, Default, Scaling

ROPE_LAYOUTS = ("interleaved", "half")


def check_rotary_d(d) -> int:
    """The number of rotated channels: an even integer >= 2."""
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or int(d) < 2 or int(d) % 2:
        raise ParameterError(f"the rotary dimension d must be an even integer >= 2, got {d!r}")
    return int(d)


def check_layout(layout: str) -> str:
    if layout not in ROPE_LAYOUTS:
        raise ParameterError(f"layout must be one of {', '.join(ROPE_LAYOUTS)}, got {layout!r}")
    return layout


# ---------------------------------------------------------------------- frequencies and layouts
def theta_expr(j, d, base=10000) -> sp.Expr:
    """``theta_j = base**(-2j/d)``: the sinusoidal encoding's paper frequencies (one definition)."""
    return omega_expr(j, d, "paper", base)


def _ite(cond, a, b):
    """``a if cond else b`` for Python numbers, a ``Piecewise`` for symbols."""
    if isinstance(cond, bool | np.bool_):
        return a if cond else b
    return sp.Piecewise((a, cond), (b, True))


def channel_of(j, c, h, layout: str):
    """Channel of component ``c`` (0 real, 1 imaginary) of pair ``j`` when ``d = 2h``.

    Works on Python integers and on SymPy symbols alike: the ``rope`` claims state the layout
    facts for every ``h`` with these very formulas."""
    return 2 * j + c if check_layout(layout) == "interleaved" else j + c * h


def slot_of(x, h, layout: str) -> tuple:
    """Inverse of :func:`channel_of`: ``(pair, component)`` stored in channel ``x``."""
    if check_layout(layout) == "interleaved":
        return x // 2, x % 2
    return _ite(x < h, x, x - h), _ite(x < h, 0, 1)


def pair_channels(j: int, d: int, layout: str) -> tuple[int, int]:
    """Channels ``(a, b)`` of pair ``j``: ``a`` is the real part, ``b`` the imaginary part."""
    h = d // 2
    if not 0 <= j < h:
        raise ParameterError(f"pair index must be in 0..{h - 1}, got {j}")
    return channel_of(j, 0, h, layout), channel_of(j, 1, h, layout)


def channel_slot(c: int, d: int, layout: str) -> tuple[int, int]:
    """Inverse of :func:`pair_channels`: ``(j, 0)`` for a real part, ``(j, 1)`` for an imaginary."""
    if not 0 <= c < d:
        raise ParameterError(f"channel index must be in 0..{d - 1}, got {c}")
    return slot_of(c, d // 2, layout)


def half_from_interleaved(x, h):
    """The permutation taking interleaved channel ``x`` to the half-layout channel of the same
    (pair, component): ``channel_of(slot_of(x, interleaved), half)``."""
    j, c = slot_of(x, h, "interleaved")
    return channel_of(j, c, h, "half")


# ---------------------------------------------------------------------- the rotation
def rotate(x: Sequence, pos, thetas: Sequence, layout: str = "interleaved") -> list:
    """RoPE at position ``pos`` (the definition): the block rotation of every pair."""
    d = check_rotary_d(len(x))
    out = list(x)
    for j, w in enumerate(thetas[: d // 2]):
        a, b = pair_channels(j, d, layout)
        c, s = sp.cos(pos * w), sp.sin(pos * w)
        out[a], out[b] = x[a] * c - x[b] * s, x[a] * s + x[b] * c
    return out


def rotate_half(x: Sequence) -> list:
    """``[-x_(h..d-1), x_(0..h-1)]`` (GPT-NeoX, transformers)."""
    h = len(x) // 2
    return [-v for v in x[h:]] + list(x[:h])


def rotate_half_form(x: Sequence, pos, thetas: Sequence) -> list:
    """``x * cos + rotate_half(x) * sin`` with the ``d/2`` angles repeated twice (``[c|c]``)."""
    h = check_rotary_d(len(x)) // 2
    ang = [pos * w for w in thetas[:h]] * 2
    rh = rotate_half(x)
    return [x[c] * sp.cos(ang[c]) + rh[c] * sp.sin(ang[c]) for c in range(2 * h)]


def rotate_every_two(x: Sequence) -> list:
    """``(-x_1, x_0, -x_3, x_2, ...)`` (GPT-J)."""
    out = []
    for j in range(len(x) // 2):
        out += [-x[2 * j + 1], x[2 * j]]
    return out


def rotate_every_two_form(x: Sequence, pos, thetas: Sequence) -> list:
    """``x * cos + rotate_every_two(x) * sin`` with every angle repeated in place."""
    h = check_rotary_d(len(x)) // 2
    ang = [pos * thetas[c // 2] for c in range(2 * h)]
    r2 = rotate_every_two(x)
    return [x[c] * sp.cos(ang[c]) + r2[c] * sp.sin(ang[c]) for c in range(2 * h)]


def complex_form(x: Sequence, pos, thetas: Sequence) -> list:
    """Meta's view: ``z_j = x_(2j) + i x_(2j+1)`` times ``exp(i pos theta_j)`` (complex numbers)."""
    h = check_rotary_d(len(x)) // 2
    return [(x[2 * j] + sp.I * x[2 * j + 1]) * sp.exp(sp.I * pos * thetas[j]) for j in range(h)]


def apply_numpy(x: np.ndarray, positions, thetas: np.ndarray, layout: str = "interleaved"):
    """RoPE in float64 over the last axis of ``x`` (shape ``(len(positions), d)``); fast."""
    x = np.asarray(x, dtype=np.float64)
    d = check_rotary_d(x.shape[-1])
    h = d // 2
    ang = np.asarray(positions, dtype=np.float64)[:, None] * np.asarray(thetas)[None, :h]
    c, s = np.cos(ang), np.sin(ang)
    ia = np.array([pair_channels(j, d, layout)[0] for j in range(h)])
    ib = np.array([pair_channels(j, d, layout)[1] for j in range(h)])
    out = x.copy()
    out[..., ia] = x[..., ia] * c - x[..., ib] * s
    out[..., ib] = x[..., ia] * s + x[..., ib] * c
    return out


# ---------------------------------------------------------------------- the decay bound
def running_sums(zs: Sequence) -> list:
    """``[S_1, ..., S_n]`` with ``S_j = z_0 + ... + z_(j-1)`` (``S_0 = 0`` is left out)."""
    out, acc = [], sp.Integer(0)
    for z in zs:
        acc = acc + z
        out.append(acc)
    return out


def abel_parts(h: Sequence, zs: Sequence) -> tuple[sp.Expr, sp.Expr]:
    """Both sides of summation by parts with ``h_n = 0`` (Su et al. 2021, equation 36):
    ``sum_j h_j z_j`` and ``-sum_j (h_(j+1) - h_j) S_(j+1)``."""
    hs = list(h) + [sp.Integer(0)]
    s = running_sums(zs)
    return (sp.Add(*[a * z for a, z in zip(h, zs, strict=True)]),
            -sp.Add(*[(hs[j + 1] - hs[j]) * s[j] for j in range(len(zs))]))


def partial_sum_parts(j, k, d, base=10000) -> tuple[sp.Expr, sp.Expr]:
    """Real and imaginary parts of ``S_j(k) = sum_{l=0}^{j-1} exp(i k theta_l)`` (SymPy sums)."""
    l_ = sp.Dummy("l", integer=True, nonnegative=True)
    w = theta_expr(l_, d, base)
    return (sp.Sum(sp.cos(k * w), (l_, 0, j - 1)), sp.Sum(sp.sin(k * w), (l_, 0, j - 1)))


def decay_bound_expr(d, k, base=10000) -> sp.Expr:
    """``B(k) = (2/d) sum_{j=1}^{d/2} |S_j(k)|`` (Su et al. 2021, section 3.4.3), as SymPy sums."""
    j = sp.Dummy("j", integer=True, positive=True)
    re, im = partial_sum_parts(j, k, d, base)
    return sp.Rational(2) / d * sp.Sum(sp.sqrt(re**2 + im**2), (j, 1, sp.sympify(d) / 2))


def decay_bound_at_zero(d: int) -> sp.Rational:
    """``B(0) = (2/d) sum_{j=1}^{d/2} j = (d + 2)/4`` (every phase is 1)."""
    return sp.Rational(check_rotary_d(d) + 2, 4)


def decay_bound_arb(d: int, k, base=10000):
    """``B(k)`` as an arb ball at the current working precision (``k`` an arb or exact number):
    ``d/2`` phases, their running sums and moduli in complex ball arithmetic."""
    import flint

    from peproof.kernel.arb import arb_eval

    prec = flint.ctx.prec
    k = k if isinstance(k, flint.arb) else arb_eval(sp.sympify(k), {}, prec)
    s, total = flint.acb(0), flint.arb(0)
    for w in _thetas_arb(int(d), sp.Rational(base), prec):
        sn, cs = (k * w).sin_cos()
        s += flint.acb(cs, sn)
        total += abs(s)
    return 2 * total / int(d)


@lru_cache(maxsize=64)
def _thetas_arb(d: int, base: sp.Rational, prec: int) -> tuple:
    """``theta_j = r**j`` with ``r = base**(-2/d)`` from :func:`theta_expr` (one power in arb,
    then exact-rule ball products: rigorous, and far cheaper than ``d/2`` powers)."""
    import flint

    from peproof.kernel.arb import arb_eval

    with flint.ctx.workprec(prec + 16):
        r = arb_eval(theta_expr(1, d, base), {}, prec + 16)
        out, w = [], flint.arb(1)
        for _ in range(d // 2):
            out.append(+w)
            w = w * r
    return tuple(out)


def decay_bound_mp(d, k, base=10000):
    """``B(k)`` with mpmath at the current ``mp.dps`` (evidence, not proof)."""
    import mpmath

    d, base = int(d), mpmath.mpf(sp.Rational(base).p) / int(sp.Rational(base).q)
    s, total = mpmath.mpc(0), mpmath.mpf(0)
    for j in range(d // 2):
        s += mpmath.expj(k * base ** (mpmath.mpf(-2 * j) / d))
        total += abs(s)
    return 2 * total / d


class DecayBound(sp.Function):
    """``B_d(k)`` with base ``base``: ``DecayBound(d, k, base)``; ``.rewrite(sp.Sum)`` gives the
    defining sums (:func:`decay_bound_expr`).  Engines evaluate it through ``_arb_eval`` (the same
    sums, running in O(d) ball operations); it is never simplified or evaluated on construction."""

    nargs = 3

    @classmethod
    def eval(cls, d, k, base):
        if not (d.is_Integer and d >= 2 and d % 2 == 0):
            raise ParameterError(f"DecayBound needs an even integer d >= 2, got {d}")
        if not (base.is_Rational and base > 1):
            raise ParameterError(f"DecayBound needs an exact base > 1, got {base}")
        return None

    def _eval_is_extended_real(self):
        return self.args[1].is_extended_real

    def _eval_is_positive(self):  # |S_1(k)| = 1, so B(k) >= 2/d
        return True if self.args[1].is_extended_real else None

    def _eval_rewrite_as_Sum(self, d, k, base, **kwargs):
        return decay_bound_expr(d, k, base)

    def peproof_definition(self):
        """The defining sums, checked by the well-formedness layer in place of the call."""
        return decay_bound_expr(*self.args)

    def _arb_eval(self, env, ev):
        d, k, base = self.args
        return decay_bound_arb(int(d), ev(k, env), base)

    def _sympystr(self, printer):
        d, k, base = self.args
        b = "" if base == 10000 else f", base={printer._print(base)}"
        return f"B_{printer._print(d)}({printer._print(k)}{b})"


DecayBound._imp_ = staticmethod(decay_bound_mp)


# ---------------------------------------------------------------------- one RoPE, fully specified
@dataclass(frozen=True)
class Rope:
    """One rotary embedding: ``d`` rotated channels, ``base``, layout and frequency scaling.

    ``exponent_dim`` is the ``D`` of ``base**(-2j/D)`` (``d`` unless a model computes the
    frequencies over its full head while rotating fewer channels, transformers' ``proportional``);
    ``rotated_pairs`` pairs get those frequencies, the remaining pairs frequency 0 (no rotation).
    """

    d: int
    base: object = 10000
    layout: str = "half"
    scaling: Scaling = field(default_factory=Default)
    exponent_dim: int | None = None
    rotated_pairs: int | None = None
    _base: sp.Rational = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "d", check_rotary_d(self.d))
        check_layout(self.layout)
        base = _as_rational(self.base, "base")
        if base <= 1:
            raise ParameterError(f"base must be a number > 1, got {self.base!r}")
        object.__setattr__(self, "_base", base)
        if not isinstance(self.scaling, Scaling):
            raise ParameterError(f"scaling must be one of {', '.join(SCALINGS)}, "
                                 f"got {self.scaling!r}")
        ed = self.d if self.exponent_dim is None else self.exponent_dim
        if isinstance(ed, bool) or not isinstance(ed, int | np.integer) or int(ed) < 1:
            # odd allowed: Phi rotates int(64 * 0.4) = 25 channels' frequencies in 26
            raise ParameterError(f"exponent_dim must be a positive integer, got {ed!r}")
        ed = int(ed)
        object.__setattr__(self, "exponent_dim", ed)
        rp = self.pairs if self.rotated_pairs is None else self.rotated_pairs
        if isinstance(rp, bool) or not isinstance(rp, int) or not 0 <= rp <= self.pairs:
            raise ParameterError(f"rotated_pairs must be an integer in 0..{self.pairs}, got {rp!r}")
        object.__setattr__(self, "rotated_pairs", rp)
        self.scaling.validate(self.exponent_dim)

    @property
    def pairs(self) -> int:
        return self.d // 2

    # exact
    def base_theta(self, j) -> sp.Expr:
        return theta_expr(j, self.exponent_dim, self._base)

    def theta(self, j: int, seq_len: int | None = None) -> sp.Expr:
        """The scaled frequency of pair ``j`` (exact SymPy; ``seq_len`` for dynamic methods)."""
        if j >= self.rotated_pairs:
            return sp.Integer(0)
        return self.scaling.frequency(sym_backend(), j, self.exponent_dim, self._base,
                                      self.base_theta(j), seq_len)

    def attention_factor(self, seq_len: int | None = None) -> sp.Expr:
        return self.scaling.attention(sym_backend(), seq_len)

    # certified
    def theta_arb(self, j: int, prec: int = 128, seq_len: int | None = None):
        import flint

        from peproof.kernel.arb import arb_eval

        if j >= self.rotated_pairs:
            return flint.arb(0)
        x = arb_backend(prec)
        with flint.ctx.workprec(prec):
            w = arb_eval(self.base_theta(j), {}, prec)
            return x.num(self.scaling.frequency(x, j, self.exponent_dim, self._base, w, seq_len))

    def attention_factor_arb(self, prec: int = 128, seq_len: int | None = None):
        import flint

        with flint.ctx.workprec(prec):
            return arb_backend(prec).num(self.scaling.attention(arb_backend(prec), seq_len))

    # fast
    def thetas_f64(self, seq_len: int | None = None) -> np.ndarray:
        """Every frequency correctly rounded to float64 (from 128-bit balls)."""
        return np.array([float(self.theta_arb(j, 128, seq_len).mid()) for j in range(self.pairs)])

    def thetas_numpy(self, seq_len: int | None = None) -> np.ndarray:
        """The same map evaluated in float64 arithmetic (fast, uncertified)."""
        x = numpy_backend()
        j = np.arange(self.pairs, dtype=np.float64)
        w = float(self._base) ** (-2.0 * j / self.exponent_dim)
        out = self.scaling.frequency(x, j, self.exponent_dim, self._base, w, seq_len)
        out = np.broadcast_to(np.asarray(out, dtype=np.float64), (self.pairs,)).copy()
        out[self.rotated_pairs:] = 0.0
        return out

    @cached_property
    def multipliers_f64(self) -> np.ndarray:
        """``theta'_j / theta_j`` per pair in float64: the fingerprint of the scaling method."""
        x = numpy_backend()
        j = np.arange(self.pairs, dtype=np.float64)
        w = float(self._base) ** (-2.0 * j / self.exponent_dim)
        m = self.scaling.multiplier(x, j, self.exponent_dim, self._base, w, None)
        return np.broadcast_to(np.asarray(m, dtype=np.float64), (self.pairs,)).copy()

    def describe(self) -> str:
        extra = "" if self.exponent_dim == self.d else f" exponent_dim={self.exponent_dim}"
        if self.rotated_pairs != self.pairs:
            extra += f" rotated_pairs={self.rotated_pairs}"
        return f"d={self.d} base={self._base} layout={self.layout} {self.scaling.describe()}{extra}"
