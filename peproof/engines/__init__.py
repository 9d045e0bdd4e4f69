"""The untrusted search procedures, in layers (no import circle; ``tests/test_layers.py``).

From the bottom: helpers (``hygiene``, ``versions``, ``signs``, ``z3base``, ``objects``,
``fragment``, ``witness``); the well-formedness gate ``wellformed`` (refusals, side conditions
returned as obligations) beside the two base procedures ``expoly`` and ``z3poly``; ``facts``
(proves the obligations); ``gate`` (every engine's entry: declared fragment, side conditions,
FLINT re-check, falsification gate); the procedures (``lifting``, ``z3trig``, ``periodic``,
``cyclotomic``, ``rational``, ``realz3``, ``powers``, ``angles``); ``decide`` (dispatch); and
``registry`` (every engine by name with its declared fragment).  The trusted checkers live in
:mod:`peproof.kernel` and import none of these.
"""
