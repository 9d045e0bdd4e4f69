"""The oracle for rotary (RoPE) artefacts: ``inv_freq`` vectors, cos/sin caches and angle tables;
imports only :mod:`..common`, never :mod:`..sinusoidal`.

Where a verdict comes from (:func:`.check.check_rotary`):

1. :mod:`.artefacts` reads the artefact (kind, layout, ``d``, dtype, the copies of each angle) and,
   for a cache, the frequencies and amplitude; :mod:`.config` turns the expectation (a
   :class:`peproof.rope.Rope` or a ``rope_parameters`` dict) into a :class:`~peproof.rope.Rope`;
2. :mod:`.check` routes by kind to :mod:`.inv_freq`, :mod:`.cache` or :mod:`.angles`;
3. each identifies the RoPE exactly (:mod:`.geometry` reads a cache's frequencies and offset,
   :mod:`.ident` and :mod:`.ident_maps` propose every RoPE the reading allows, with the simple
   numbers of :mod:`..common.numbers`; :mod:`.simplest` names the simplest that fits the whole
   artefact),
   compares every entry with the float error model (:mod:`.model`: the bounds; :mod:`.compare`:
   the streamed comparison) and gives one verdict of the shared scale (:mod:`..common.verdicts`);
4. :mod:`.diagnose` names the bug that explains a misfit and how an identified RoPE differs from
   the expected one; :mod:`.horizon` finds colliding rows and the certified precision horizons;
   :mod:`.report` holds the result (``peproof.rotary-check/1`` envelope, rendering).

:mod:`.cli` is ``peproof check``'s rotary path (its flags, and the test of whether a source is a
rotary artefact), hooked in by :mod:`peproof.commands.check`.
"""

from ..common.lazy import lazy_exports

#: each public name and the module it is read from, imported on first use (PEP 562): a
#: command that never touches the oracle does not pay for its imports (ml_dtypes, SymPy)
_EXPORTS = {
    "Artefact": ".artefacts",
    "read_artefact": ".artefacts",
    "check_rotary": ".check",
    "rope_from_config": ".config",
    "rope_parameters_of": ".config",
    "stored_frequencies": ".config",
    "text_config_of": ".config",
    "FREQS_CIS": ".layouts",
    "GPTJ": ".layouts",
    "MLX_FREQS": ".layouts",
    "PAIR": ".layouts",
    "STACK": ".layouts",
    "TORCHTUNE": ".layouts",
    "VLLM": ".layouts",
    "short_layout": ".layouts",
    "RotaryReport": ".report",
}

#: the public API of the rotary side (``peproof.oracle`` re-exports :func:`check_rotary`,
#: :class:`RotaryReport` and :func:`rope_parameters_of`); the layout names are the text of the
#: report's ``native`` field (JSON ``native_layout``)
__all__ = ["FREQS_CIS", "GPTJ", "MLX_FREQS", "PAIR", "STACK", "TORCHTUNE", "VLLM", "Artefact",
           "RotaryReport", "check_rotary", "read_artefact", "rope_from_config",
           "rope_parameters_of", "short_layout", "stored_frequencies", "text_config_of"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
