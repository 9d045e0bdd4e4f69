"""Everything the scan takes from the oracle, in one place, and only from its public API
(``peproof.oracle.__all__`` and ``peproof.oracle.rotary.__all__``;
``tests/test_oracle_layers.py`` holds the scan to it):

* :func:`check` (sinusoidal tables) and :func:`check_rotary` (``inv_freq`` vectors and cos/sin
  caches in any native layout), the verdict words, ``CODES`` and :class:`InputError`;
* :func:`rope_parameters_of` -- a config's ``rope_parameters`` as transformers reads them,
  :func:`stored_frequencies` -- how many frequencies its initialisation stores, and
  :func:`text_config_of` -- the part of a multimodal config that holds the text model's;
* :func:`read_artefact` -- how the rotary oracle reads a buffer (kind, layout, ``d``, the native
  library layout), :func:`short_layout` -- a few words naming that layout, ``PAIR`` -- the
  layout of two arrays cos and sin (no library layout to name);
* :func:`rope_from_config` -- a ``rope_parameters`` dict built into a :class:`peproof.rope.Rope`
  (the GGUF metadata's RoPE, :mod:`.gguf_rope`);
* :func:`load` -- the ``.npz`` reader (sized from headers, stored members memory-mapped, never
  unpickled);
* ``CREATE_WEIGHT``, ``PADDED`` -- the catalogue of real implementations the scan's
  architecture table is read from.

The judge calls ``oracle_api.check_rotary`` through this module, so a test can stand in for it.
"""

from peproof.oracle import (
    CODES,
    CONFORMS,
    CREATE_WEIGHT,
    DEGENERATE,
    OUTSIDE,
    PADDED,
    VARIANT,
    WITHIN,
    WRONG,
    InputError,
    check,
    check_rotary,
    load,
    rope_parameters_of,
)
from peproof.oracle.rotary import (
    PAIR,
    read_artefact,
    rope_from_config,
    short_layout,
    stored_frequencies,
    text_config_of,
)

__all__ = ["CODES", "CONFORMS", "CREATE_WEIGHT", "DEGENERATE", "OUTSIDE", "PADDED", "PAIR",
           "VARIANT", "WITHIN", "WRONG", "InputError", "check", "check_rotary", "load",
           "read_artefact", "rope_from_config",
           "rope_parameters_of", "short_layout", "stored_frequencies",
           "text_config_of"]
