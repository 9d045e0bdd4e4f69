"""Named sub-terms: a statement's sums over the frequency pairs printed by what they are.

The families build ``||PE(x) - PE(y)||^2``, ``<PE(x), PE(y)>`` and ``||PE(x)||^2`` as sums over
the pairs ``i = 0 .. d/2 - 1`` of the encoding's channels.  Printed term by term they fill lines
with ``10000^{-2i/d}``; printed by name they read as the sources write them.

A sub-term gets a name only if it *is* that term: the candidate's arguments are read off, the
named term is rebuilt from :func:`peproof.encoding.omega_expr` (the one definition) with them,
and the rebuilt expression must equal the sub-term as a SymPy tree.  The name then stands in the
printed formula for a placeholder symbol, and the formula is read back against the statement
with the placeholder in place (:mod:`.formulas`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


def latex(e) -> str:
    return sp.latex(e, imaginary_unit="ri", mul_symbol=r"\,")


@dataclass(frozen=True)
class Named:
    """A recognised sub-term: its LaTeX name and what it stands for."""

    tex: str
    expr: sp.Expr
    kind: str  # "dist_sq", "inner", "norm_sq", "omega"


def _frequency(var: sp.Symbol, hi: sp.Expr) -> tuple[sp.Expr, sp.Expr | int] | None:
    """``(omega_var, d)`` if the sum runs over ``var = 0 .. d/2 - 1`` of an encoding."""
    from peproof.encoding import omega_expr

    d = sp.expand(2 * (hi + 1))
    if d.is_Integer and (d <= 0 or d % 2):
        return None
    try:
        return omega_expr(var, d), d
    except (ValueError, TypeError):
        return None


def _split(arg: sp.Expr, w: sp.Expr) -> sp.Expr | None:
    """``x`` with ``arg == x * w`` structurally (the families write ``x / 10000^(..)``)."""
    x = sp.Mul(*[f for f in sp.Mul.make_args(arg) if not f.has(*w.free_symbols)]) \
        if w.free_symbols else None
    if x is None:
        return None
    return x if sp.Mul(x, w) == arg or x * w == arg else None


def _pe(x, d) -> str:
    sub = "" if not d.is_Integer else f"_{{{int(d)}}}"
    return f"PE{sub}({latex(x)})"


def recognise(e: sp.Expr) -> Named | None:
    """The name of ``e`` if it is one of the encoding's named sums, else None."""
    if not (isinstance(e, sp.Sum) and len(e.limits) == 1):
        return None
    var, lo, hi = e.limits[0]
    if lo != 0:
        return None
    fr = _frequency(var, hi)
    if fr is None:
        return None
    w, d = fr
    body = e.function
    sines = sorted(body.atoms(sp.sin), key=sp.default_sort_key)
    args = []
    for s in sines:
        x = _split(s.args[0], w)
        if x is None:
            return None
        args.append(x)
    args = list(dict.fromkeys(args))
    cands = []
    if len(args) == 2:
        for x, y in (args, args[::-1]):
            cands.append(("dist_sq", rf"\|{_pe(x, d)} - {_pe(y, d)}\|^{{2}}",
                          (sp.sin(w * x) - sp.sin(w * y)) ** 2
                          + (sp.cos(w * x) - sp.cos(w * y)) ** 2))
            cands.append(("inner", rf"\langle {_pe(x, d)}, {_pe(y, d)}\rangle",
                          sp.sin(w * x) * sp.sin(w * y) + sp.cos(w * x) * sp.cos(w * y)))
    elif len(args) == 1:
        x = args[0]
        cands.append(("norm_sq", rf"\|{_pe(x, d)}\|^{{2}}",
                      sp.sin(w * x) ** 2 + sp.cos(w * x) ** 2))
    for kind, tex, summand in cands:
        # the families' sums may be subclasses of Sum (same meaning): compare the parts
        if summand == body and e.limits == ((var, 0, hi),):
            return Named(tex, e, kind)
    return None


def frequency_name(p: sp.Expr) -> Named | None:
    """``omega_s`` for a power that is :func:`peproof.encoding.omega_expr` at a symbol ``s``
    and a symbolic ``d`` (the paper's frequency of pair ``s``)."""
    from peproof.encoding import omega_expr

    if not (isinstance(p, sp.Pow) and p.base == 10000 and len(p.exp.free_symbols) == 2):
        return None
    for dd in sorted(p.exp.free_symbols, key=lambda s: s.name):
        s = sp.expand(-p.exp * dd / 2)
        if s.is_Symbol and s != dd:
            try:
                if omega_expr(s, dd) == p:
                    return Named(rf"\omega_{{{latex(s)}}}", p, "omega")
            except (ValueError, TypeError):
                continue
    return None


def abbreviate(e: sp.Expr, names: dict) -> sp.Expr:
    """``e`` with every named sub-term replaced by a placeholder symbol; ``names`` collects
    ``{placeholder: Named}`` (shared across the sides of one statement)."""
    e = _replace(e, _find(e, sp.Sum, recognise), names)  # the sums first: they contain omegas
    return _replace(e, _find(e, sp.Pow, frequency_name), names)


def _find(e: sp.Expr, kind, name_of) -> dict:
    """``{sub-term: Named}`` for the sub-terms of type ``kind`` that ``name_of`` names."""
    found = {}
    for sub in sp.preorder_traversal(e):
        if isinstance(sub, kind):
            n = name_of(sub)
            if n is not None:
                found[sub] = n
    return found


def _replace(e: sp.Expr, found: dict, names: dict) -> sp.Expr:
    if not found:
        return e
    repl = {}
    for sub, n in found.items():
        ph = next((p for p, m in names.items() if m.expr == sub), None)
        if ph is None:
            ph = sp.Dummy(f"N{len(names)}")
            names[ph] = n
        repl[sub] = ph
    return e.xreplace(repl)


def display_names(names: dict) -> dict:
    """``symbol_names`` for :func:`sympy.latex`: the placeholder printed as its name."""
    return {ph: "{" + n.tex + "}" for ph, n in names.items()}
