"""The trusted part: checkers that re-check what the search procedures in
:mod:`peproof.engines` claim, and import none of them.

* :mod:`peproof.kernel.arb` -- certified evaluation of SymPy expressions in ball arithmetic
  (python-flint's arb/acb; exact rationals where a node is rational): the only judge of a
  ``refuted`` witness (its nodes: ``_nodes`` <- ``_funcs`` <- ``_compile``);
* :mod:`peproof.kernel.points` and :mod:`peproof.kernel.falsify` -- the falsification gate: a
  certified search, from the original statement, for a point against a verdict (a ``proved``
  with a counterexample, a ``refuted`` whose witness does not re-check, an existential's
  instance), applied to every verdict before it is returned;
* :mod:`peproof.kernel.flint_check` -- the exponential procedure's certificates (Laurent
  polynomials written as plain data) expanded again with FLINT, no SymPy.

One door out: a SymPy function carrying its own ``_arb_eval`` (``PiIntegral``, ``DecayBound``)
is evaluated by that method, which lives with the function, not here.

Everything here depends on :mod:`peproof.claims`, SymPy (to read expressions), python-flint and
the standard library only.
"""
