"""The encoding the claims are built for: the paper's, or a user's variant (``--variant``).

The claim families (:mod:`peproof.families`) build their statements from the frequency law and
the :class:`~peproof.encoding.Encoding` given here: :func:`omega` and :func:`encoding` are the
paper's ``omega_expr(i, d)`` and ``Encoding(d)`` unless a variant is in force (:func:`using`).
The registry (:func:`peproof.registry.claims_for`) imports the families afresh inside
:func:`using`, and the verdict caches are keyed by :func:`key`, so a variant's claims are
decided by the same engines, gate and Coq check as the paper's, never mixed with them.

What is in force is one of

* ``None``: the paper (family ``paper``, base 10000, interleaved, offset 0, scale 1);
* :class:`Sinusoidal`: an additive table (an :class:`Encoding` law: family, base, layout, offset,
  scale, max_freq, turns) at the width ``d`` the user gave;
* :class:`Rotary`: a :class:`~peproof.rope.Rope` (base, layout, frequency scaling, d).
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass

import sympy as sp

from peproof.encoding import Encoding, omega_expr


@dataclass(frozen=True)
class Sinusoidal:
    """An additive sinusoidal table: ``enc`` fixes the law and the width the user gave."""

    enc: Encoding

    @property
    def d(self) -> int:
        return self.enc.d


@dataclass(frozen=True)
class Rotary:
    """A rotary embedding (:class:`peproof.rope.Rope`)."""

    rope: object

    @property
    def d(self) -> int:
        return self.rope.d


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("peproof_variant", default=None)


def current():
    """The variant in force (``None``: the paper)."""
    return _CURRENT.get()


def key(v=None) -> str:
    """A text naming the variant in force (``"paper"`` for the paper): the verdict caches'
    key.  Two variants with the same key define the same claims."""
    v = current() if v is None else v
    if v is None:
        return "paper"
    if isinstance(v, Sinusoidal):
        return "sinusoidal " + v.enc.describe()
    return f"rope {v.rope!r}"


@contextmanager
def using(v):
    """Build and decide claims for ``v`` inside this block (``None``: the paper)."""
    tok = _CURRENT.set(v)
    try:
        yield v
    finally:
        _CURRENT.reset(tok)


def is_rotary() -> bool:
    return isinstance(current(), Rotary)


def _law() -> dict:
    v = current()
    if isinstance(v, Rotary):  # RoPE's theta_i = base**(-2i/d) before any frequency map
        return {"family": "paper", "base": v.rope._base}
    if not isinstance(v, Sinusoidal):
        return {}
    e = v.enc
    law = {"family": e.family, "base": e._base}
    if e._max_freq != 1 or e.turns:
        law.update(max_freq=e._max_freq, turns=bool(e.turns))
    return law


def omega(i, d, *law_args, **law_kw) -> sp.Expr:
    """The frequency of pair ``i`` at width ``d`` (either may be a symbol) in the law in force:
    the paper's ``10000**(-2i/d)`` (exactly ``omega_expr(i, d)``) unless a variant is in force
    (a RoPE variant: its base's ``base**(-2i/d)``, the frequencies before its map; the claims
    stated with a symbolic frequency hold for the mapped ones too).  A law given explicitly
    (``omega(i, d, "h-1")``) is that law, whatever is in force."""
    if law_args or law_kw:
        return omega_expr(i, d, *law_args, **law_kw)
    law = _law()
    if not law:
        return omega_expr(i, d)
    return omega_expr(i, d, law["family"], law["base"], law.get("max_freq", 1),
                      law.get("turns", False))


def encoding(d: int, **kw) -> Encoding:
    """``Encoding(d, **kw)`` with the family, base, frequency scale (and, unless ``kw`` names
    them, layout, offset and scale) of the variant in force; the paper's ``Encoding(d, **kw)``
    otherwise."""
    v = current()
    if not isinstance(v, Sinusoidal) or "family" in kw:  # a family named: that law
        return Encoding(d, **kw)
    e = v.enc
    fields = {"family": e.family, "base": e._base, "layout": e.layout, "offset": e._offset,
              "scale": e._scale, "max_freq": e._max_freq, "turns": bool(e.turns)}
    fields.update(kw)
    if fields["family"] == "h-1" and d == 2:
        # h-1's exponent i/(d/2 - 1) is 0/0 at d = 2; tensor2tensor's get_timing_signal_1d
        # divides by max(d/2 - 1, 1), giving the single frequency base**0 = 1 (times max_freq),
        # which the paper family's law gives at d = 2 for every base
        fields["family"] = "paper"
    return Encoding(d, **fields)


def rope_base():
    """The RoPE base in force: the variant's for a RoPE variant, else the paper's 10000."""
    v = current()
    return v.rope._base if isinstance(v, Rotary) else sp.Integer(10000)


def rope_unmapped_why() -> str:
    """Why the RoPE in force is not the plain law ``base**(-2j/d)`` on every pair ('' if it
    is): the certified decay curve takes that law only."""
    v = current()
    if not isinstance(v, Rotary):
        return ""
    r = v.rope
    if r.scaling.kind != "default":
        return (f"its {r.scaling.kind} frequency map: the certified decay curve B_d(k) "
                "(peproof.rope.DecayBound, peproof/numeric/rope_decay.py) takes the unscaled "
                "frequencies base**(-2j/d) only")
    if r.rotated_pairs != r.pairs or r.exponent_dim != r.d:
        return ("partial rotation: the certified decay curve takes every pair rotating with "
                "base**(-2j/d)")
    return ""
