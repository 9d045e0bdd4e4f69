"""What both oracles share; imports nothing from :mod:`..sinusoidal` or :mod:`..rotary`.

* ``verdicts``  -- the verdict words (``conforms`` ... ``outside the model``) and their JSON codes;
* ``budget``    -- the proved error model of :mod:`peproof.families.error_model`, evaluated per
  entry (the bound every "within" and "outside" rests on), with ``tiny`` and the coefficients the
  rotary model reads;
* ``exact``     -- exact references: the float64 fast path with its proven bound, arb balls at
  escalating precision, correct rounding to a format (:class:`~.exact.Plan` for a sinusoidal
  encoding; ``round_ball`` / ``ball_bounds`` for any real number);
* ``consistency`` -- one computation for a whole 16-bit table (one frequency per pair, one
  position per row), the test that tells rows swapped or shifted from rounding in both oracles,
  with ``positions`` (the ways a computation forms its rows' positions) and ``misfits`` (the rows
  a candidate frequency does not fit, for the message);
* ``tables``    -- turning what a user hands over into an array, and :class:`~.tables.InputError`
  (the one-line error of bad input);
* ``loaders``, ``npfiles`` -- the file formats (``.npy``/``.npz``, ``.safetensors``, ``.pt``,
  text) and ``module:function`` sources, never unpickling;
* ``rowscan``   -- what a check gathers while rows stream past: identical rows at distinct
  positions, non-finite rows, the dtype's horizon;
* ``envelope``  -- plain JSON values and the platform block of every JSON envelope;
* ``evidence``  -- measurements of real libraries' sin/cos and frequency recipes against the error
  model's constants (evidence, never the criterion).
"""
