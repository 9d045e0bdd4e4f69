"""Everything the scan takes from the oracle, in one place.

From the public package ``peproof.oracle`` (its ``__all__``): :func:`check` (sinusoidal tables),
the verdict words and :class:`InputError`.  Not in that public API, imported from where they
live after the split into ``common`` / ``sinusoidal`` / ``rotary``:

* ``check_rotary`` (:mod:`peproof.oracle.rotary.check`) -- the rotary oracle's entry point, the
  one ``peproof check --rope`` calls (through :mod:`peproof.oracle.rotary.cli`);
* ``CODES`` (:mod:`peproof.oracle.common.verdicts`) -- the verdicts' JSON codes;
* ``load`` (:mod:`peproof.oracle.common.loaders`) -- the ``.npz`` reader (sized from headers,
  stored members memory-mapped, never unpickled);
* ``CREATE_WEIGHT``, ``PADDED`` (:mod:`peproof.oracle.sinusoidal.peers`) -- the catalogue of real
  implementations the scan's architecture table is read from.

The judge calls ``oracle_api.check_rotary`` through this module, so a test can stand in for it.
"""

from peproof.oracle import (
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    VARIANT,
    WITHIN,
    WRONG,
    InputError,
    check,
)
from peproof.oracle.common.loaders import load
from peproof.oracle.common.verdicts import CODES
from peproof.oracle.rotary.check import check_rotary
from peproof.oracle.sinusoidal.peers import CREATE_WEIGHT, PADDED

__all__ = ["CODES", "CONFORMS", "CREATE_WEIGHT", "DEGENERATE", "OUTSIDE", "PADDED", "VARIANT",
           "WITHIN", "WRONG", "InputError", "check", "check_rotary", "load"]
