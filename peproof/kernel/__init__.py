"""The trusted part: checkers that re-check what the search procedures in
:mod:`peproof.engines` claim, and import none of them.

* :mod:`peproof.kernel.arb` -- certified evaluation of SymPy expressions in ball arithmetic
  (python-flint's arb): the only judge of a ``refuted`` witness;
* :mod:`peproof.kernel.flint_check` -- the exponential procedure's certificates (Laurent
  polynomials written as plain data) expanded again with FLINT, no SymPy.

Everything here depends on :mod:`peproof.claims`, SymPy (to read expressions), python-flint and
the standard library only.
"""
