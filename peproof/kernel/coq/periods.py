"""Scripts for sin/cos equations that hold by periodicity (issue 23, item 4).

Angles that differ by (or add up to) ``2 pi m`` for an integer ``m``, and ``sin a = 0`` /
``cos a = 1`` at integer multiples of ``pi`` / ``2 pi``: ``m`` is computed here from the
statement (an integer polynomial in integer variables, ``p ** i`` for a positive literal ``p``
and ``i >= 0`` included), and the lemma of ``Check.v`` ("Periods": ``sin_period`` ...) is
applied at it.  Search: the kernel checks the angles' equality ``a = b + 2 PI m``.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.translate import Printer

#: sin/cos at 0, pi/2 and pi evaluated, then lra (a relation of those values)
TRIG_CONST = ("solve [rewrite ?sin_0, ?cos_0, ?sin_PI, ?cos_PI, ?sin_PI2, ?cos_PI2; "
              "first [ lra | (intro; lra) ]]")


def _int_multiple(e, unit, pr: Printer | None) -> str | None:
    """``e / unit`` as a Z term when it is an integer polynomial in integer variables and
    powers ``p ** i`` (a positive literal ``p``, a nonnegative integer variable ``i``: Z's
    ``p ^ i``, which Check.v's ``rpowZ_IZR`` equates to ``rpow p i``)."""
    if pr is None:
        return None
    q = sp.cancel(sp.together(sp.expand(e / unit)))
    if q.has(sp.pi) or not q.free_symbols <= pr.zvars:
        return None
    return _zpoly(sp.expand(q), pr)


def _zpoly(e, pr: Printer) -> str | None:
    if e.is_Add or e.is_Mul:
        parts = [_zpoly(a, pr) for a in e.args]
        if any(p is None for p in parts):
            return None
        return "(" + (" + " if e.is_Add else " * ").join(parts) + ")"
    if (e.is_Pow and e.base.is_Integer and e.base > 0 and e.exp in pr.zvars
            and e.exp.is_nonnegative):
        return f"({int(e.base)} ^ {pr.zexact(e.exp)})"
    return pr.zexact(e)


def period_alternatives(r, pr: Printer | None) -> list[str]:
    """Equations of sin/cos whose angles differ by (or add up to) ``2 pi m`` for an integer
    polynomial ``m`` in integer variables, or ``sin a = 0`` / ``cos a = 1`` at an integer
    multiple of ``pi`` / ``2 pi``: the lemma of Check.v ("Periods") applied at ``m``, computed
    here (search: the kernel checks the angles' equality ``a = b + 2 PI m``)."""
    if r.op != "==":
        return []
    out = []
    close = ("rewrite ?rpowZ_IZR by lia; pe_izr_push; "
             "first [ solve [ring] | solve [field; pe_side] ]")
    for lhs, rhs, turn in ((r.lhs, r.rhs, ""), (r.rhs, r.lhs, "symmetry; ")):
        neg = rhs.could_extract_minus_sign() and isinstance(-rhs, sp.sin)
        for f, g, name in ((sp.sin, rhs, "sin_period"), (sp.cos, rhs, "cos_period"),
                           (sp.sin, -rhs if neg else None, "sin_period_neg")):
            if not isinstance(lhs, f) or not isinstance(g, f):
                continue
            a, b = lhs.args[0], g.args[0]
            sums = [(a - b, name)] if name != "sin_period_neg" else [(a + b, name)]
            if f is sp.cos:
                sums.append((a + b, "cos_period_neg"))
            for diff, lemma in sums:
                m = _int_multiple(diff, 2 * sp.pi, pr)
                if m is not None:
                    out.append(f"solve [{turn}apply ({lemma} _ _ ({m})%Z); {close}]")
        if isinstance(lhs, sp.sin) and rhs == 0:
            m = _int_multiple(lhs.args[0], sp.pi, pr)
            if m is not None:
                out.append(f"solve [{turn}apply (sin_piZ_at _ ({m})%Z); {close}]")
        if isinstance(lhs, sp.cos) and rhs == 1:
            m = _int_multiple(lhs.args[0], 2 * sp.pi, pr)
            if m is not None:
                out.append(f"solve [{turn}apply (cos_2piZ_at _ ({m})%Z); {close}]")
    return list(dict.fromkeys(out))
