"""A reference oracle for sinusoidal positional-encoding tables written by other projects.

Main entry points:

* :func:`reference` -- the encoding correctly rounded to float16 / bfloat16 / float32 / float64;
* :func:`identify` -- which variant a table is (family and base, layout, offset, scale, dtype) and
  the residual that supports it;
* :func:`check` -- a :class:`Report` with a verdict (``conforms``, ``within the error model of its
  dtype``, ``different variant``, ``wrong``, ``degenerate``, ``outside the model``), diagnoses,
  error distributions against the spec-exact values and the proved error model, worst entries,
  identical rows and the dtype's horizon;
* :func:`assert_sinusoidal` -- the same as an assertion for other projects' test suites;
* :func:`check_rotary` -- the rotary oracle: an ``inv_freq`` vector, a cos/sin cache in any
  native layout (torchtune, Meta's ``freqs_cis``, vLLM, GPT-J, transformers) or an angle table,
  identified and checked, a :class:`RotaryReport`; :func:`rope_parameters_of` reads a model's
  ``config.json`` into the ``rope_parameters`` it expects, as transformers reads it.

Also public, for tools built on the oracle (``peproof scan``): :func:`load` (a table from a
file, as ``peproof check`` reads it: sized first, memory-mapped, never unpickled), ``CODES``
(the verdicts' short JSON codes) and the catalogue of real implementations the oracle is tested
against, by transformers ``model_type``: ``CREATE_WEIGHT`` (models whose ``create_weight``
builds the paper's table, [sin|cos]) and ``PADDED`` (fairseq-style ``get_embedding``: the h-1
exponent, [sin|cos], the padding row zeroed), each mapping to the class that builds it.

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

from .common.lazy import lazy_exports

#: each public name and the module it is read from, imported on first use (PEP 562): a
#: command that never touches the oracle does not pay for its imports (ml_dtypes, SymPy)
_EXPORTS = {
    "get_format": "peproof.formats",
    "load": ".common.loaders",
    "InputError": ".common.tables",
    "CODES": ".common.verdicts",
    "CONFORMS": ".common.verdicts",
    "DEGENERATE": ".common.verdicts",
    "OUTSIDE": ".common.verdicts",
    "ROUNDING": ".common.verdicts",
    "VARIANT": ".common.verdicts",
    "WITHIN": ".common.verdicts",
    "WRONG": ".common.verdicts",
    "RotaryReport": ".rotary",
    "check_rotary": ".rotary",
    "rope_parameters_of": ".rotary",
    "Report": ".sinusoidal.checking",
    "assert_sinusoidal": ".sinusoidal.checking",
    "check": ".sinusoidal.checking",
    "Identification": ".sinusoidal.identification",
    "identify": ".sinusoidal.identification",
    "CREATE_WEIGHT": ".sinusoidal.peers",
    "PADDED": ".sinusoidal.peers",
    "reference": ".sinusoidal.reference",
    "PAPER": ".sinusoidal.variant",
    "Variant": ".sinusoidal.variant",
}

__all__ = [
    "CODES", "CONFORMS", "CREATE_WEIGHT", "DEGENERATE", "OUTSIDE", "PADDED", "ROUNDING",
    "VARIANT", "WITHIN", "WRONG",
    "Identification", "InputError", "PAPER", "Report", "RotaryReport", "Variant",
    "assert_sinusoidal", "check", "check_rotary", "get_format", "identify", "load", "reference",
    "rope_parameters_of",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
