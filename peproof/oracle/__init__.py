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
:mod:`peproof.oracle.common.exact` for the proven float64 fast path and the arb fallback.

Layout (each subpackage's docstring gives its modules and the flow to a verdict):

* :mod:`peproof.oracle.common` -- what both sides share: the verdict words, the error model's
  budget, exact references, input handling and file formats, the JSON envelope's common parts;
* :mod:`peproof.oracle.sinusoidal` -- sinusoidal tables: identification, checking, consistency,
  diagnoses, the reference tables, golden vectors, the catalogue of real implementations;
* :mod:`peproof.oracle.rotary` -- RoPE artefacts: reading, identification, the error model and
  comparison, diagnoses, horizons, the command-line path.

Imports go from a side to ``common`` only; the two sides never import each other and nothing
under them imports this package (``tests/test_oracle_layers.py``).  ``peproof check`` chooses the
side in :mod:`peproof.commands.check` (``rotary.cli.maybe_run`` first, then :func:`check`).
"""

from peproof.formats import get_format

from .common.tables import InputError
from .common.verdicts import (
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    ROUNDING,
    VARIANT,
    WITHIN,
    WRONG,
)
from .sinusoidal.checking import Report, assert_sinusoidal, check
from .sinusoidal.identification import Identification, identify
from .sinusoidal.reference import reference
from .sinusoidal.variant import PAPER, Variant

__all__ = [
    "CONFORMS", "DEGENERATE", "OUTSIDE", "ROUNDING", "VARIANT", "WITHIN", "WRONG",
    "Identification", "InputError", "PAPER",
    "Report", "Variant", "assert_sinusoidal", "check", "get_format", "identify", "reference",
]
