"""More proof-script shapes for :mod:`peproof.kernel.coq.tactics` (one tactic expression each,
built from the standard library and the library's Ltac; nothing here changes the library).

* :data:`CONST_SUM` -- a sum whose terms all equal one constant (``sin^2 + cos^2``): each term
  rewritten to it (:data:`PYTH`), then ``zsum_const``'s count; the constant is SymPy's guess
  (:func:`constant_summand`), which the script must confirm term by term.
"""

from __future__ import annotations

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
                    sp.sin, sp.cos):
                c = sp.trigsimp(node.function)
                if c.is_Rational:
                    return c
    return None
