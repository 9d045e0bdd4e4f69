"""More proof-script shapes for :mod:`peproof.kernel.coq.tactics` (one tactic expression each,
built from the standard library and the library's Ltac; nothing here changes the library).

* :data:`CONST_SUM` -- a sum whose terms all equal one constant (``sin^2 + cos^2``): each term
  rewritten to it (:data:`PYTH`), then ``zsum_const``'s count; the constant is SymPy's guess
  (:func:`constant_summand`), which the script must confirm term by term.
"""

from __future__ import annotations

import random

import sympy as sp

#: sin^2 + cos^2 = 1 (``sin2_cos2``) for every angle of the goal, then ``nra``
PYTH = ("(repeat match goal with |- context [sin ?x] => lazymatch goal with _ : Rsqr (sin x) "
        "+ Rsqr (cos x) = 1 |- _ => fail | _ => pose proof (sin2_cos2 x) end | |- context "
        "[cos ?x] => lazymatch goal with _ : Rsqr (sin x) + Rsqr (cos x) = 1 |- _ => fail "
        "| _ => pose proof (sin2_cos2 x) end end; unfold Rsqr in *; nra)")
#: a sum whose terms are all the constant ``c`` (each by :data:`PYTH`: ``sin^2 + cos^2``) is
#: ``zsum_const``'s count times ``c``; the other conjuncts as pe_zsum_const's, or by PYTH
CONST_SUM = ("solve [intros; pe_zfacts; repeat (rewrite (zsum_ext_all _ _ _ (fun _ => {c})) by "
             "(intro; " + PYTH.replace("{", "{{").replace("}", "}}") + ")); rewrite ?zsum_const; "
             "pe_split; first [ reflexivity | solve [pe_izr_push; ring] | solve [lia] "
             "| solve [pe_side] | solve [" + PYTH.replace("{", "{{").replace("}", "}}") + "] ]]")


def constant_summand(exprs):
    """The constant every term of a sum of ``exprs`` equals (``sin(x)**2 + cos(x)**2``: 1, by
    SymPy's ``trigsimp``: a guess the Coq script must confirm term by term), or None."""
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Sum) and not node.function.is_number and node.function.has(
                    sp.sin, sp.cos) and not _varies(node.function):
                c = sp.trigsimp(node.function)
                if c.is_Rational:
                    return c
    return None


def _varies(f) -> bool:
    """``f`` takes different values at four points of its variables' domains (integers for
    integer symbols, the sign and parity their assumptions give): then it is no constant and
    SymPy's
    ``trigsimp`` (a tenth of a second a call) is not asked.  Any doubt (a value not a finite
    real, close values) answers False: the guess is made as before."""
    syms = sorted(f.free_symbols, key=lambda s: s.name)
    draw = random.Random(len(syms))  # the same points every run
    vals = []
    for _ in range(4):
        pt = {}
        for s in syms:
            v = sp.Integer(draw.randint(1, 12)) if s.is_integer else sp.Rational(
                draw.randint(1, 40), draw.randint(1, 13))
            if s.is_even or s.is_odd:  # the parity its assumptions give it
                v = 2 * (v // 2) + (1 if s.is_odd else 0) or 2
            pt[s] = -v if s.is_negative or s.is_nonpositive else v
        try:
            x = complex(f.xreplace(pt).evalf(30))
        except (TypeError, ValueError, ArithmeticError):
            return False
        if x.imag or x.real != x.real or abs(x.real) == float("inf"):
            return False
        vals.append(x.real)
    top = max(abs(v) for v in vals)
    return top > 1e-20 and max(vals) - min(vals) > 1e-12 * top
