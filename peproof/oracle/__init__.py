"""A reference oracle for sinusoidal positional-encoding tables written by other projects.

Main entry points:

* :func:`reference` -- the encoding correctly rounded to float16 / bfloat16 / float32 / float64;
* :func:`identify` -- which variant a table is (family and base, layout, offset, scale, dtype) and
  the residual that supports it;
* :func:`check` -- a :class:`Report` with a verdict (``conforms``, ``within the error model of its
  dtype``, ``different variant``, ``wrong``, ``degenerate``, ``outside the model``), diagnoses,
  error distributions against the spec-exact values and the proved error model, worst entries,
  identical rows and the dtype's horizon;
* :func:`assert_sinusoidal` -- the same as an assertion for other projects' test suites.

Every reference value is built from :class:`peproof.encoding.Encoding`; see
:mod:`peproof.oracle.exact` for the proven float64 fast path and the arb fallback.
"""

from peproof.formats import get_format

from .checking import (
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    ROUNDING,
    VARIANT,
    WITHIN,
    WRONG,
    Report,
    assert_sinusoidal,
    check,
)
from .identification import Identification, identify
from .reference import reference
from .tables import InputError
from .variant import PAPER, Variant

__all__ = [
    "CONFORMS", "DEGENERATE", "OUTSIDE", "ROUNDING", "VARIANT", "WITHIN", "WRONG",
    "Identification", "InputError", "PAPER",
    "Report", "Variant", "assert_sinusoidal", "check", "get_format", "identify", "reference",
]
