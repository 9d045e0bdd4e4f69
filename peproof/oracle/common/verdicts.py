"""The verdict words of both oracles, one meaning each (the sinusoidal table's are spelled out in
:mod:`peproof.oracle.sinusoidal.checking`, the rotary artefact's in
:mod:`peproof.oracle.rotary.check`), and their short codes in the JSON envelope.

They live here, below both sides, so that the verdict a report carries and the diagnoses that
read it need not import the module that decides it.
"""

from __future__ import annotations

CONFORMS = "conforms"
WITHIN = "within the error model of its dtype"
ROUNDING = WITHIN  # the former name of the same verdict
VARIANT = "different variant"
WRONG = "wrong"
DEGENERATE = "degenerate"
OUTSIDE = "outside the model"
CODES = {CONFORMS: "conforms", WITHIN: "within_model", VARIANT: "variant", WRONG: "wrong",
         DEGENERATE: "degenerate", OUTSIDE: "outside_model"}
