"""The oracle for sinusoidal (absolute) positional-encoding tables; imports only :mod:`..common`,
never :mod:`..rotary`.

Where a verdict comes from (:func:`.checking.check`, re-exported as :func:`peproof.oracle.check`):

1. the table is read (:mod:`..common.tables`, :mod:`..common.loaders`) and its variant named:
   :mod:`.identification` (from the estimates of :mod:`.estimate`, confirmed within the error
   model) in the vocabulary of :mod:`.variant` (family, base, layout, offset, scale, order);
2. every entry is streamed against the expected variant by :mod:`.compare`: spec-exact values
   (:mod:`..common.exact`, sharper decisions in :mod:`.decisions`) and the proved error model of the
   dtype (:mod:`..common.budget`), with the known recipes of :mod:`.recipes` run as evidence;
3. in a 16-bit pipeline, :mod:`..common.consistency` asks whether one computation (one frequency
   per pair, one position per row) explains every row;
4. :mod:`.checking` turns the counts into one verdict (:mod:`..common.verdicts`), then
   :mod:`.diagnose` names what is wrong where a cause explains the entries; :mod:`.report` writes
   the JSON envelope (``peproof.check/1``) and the human rendering.

Beside the check: :mod:`.reference` (the encoding correctly rounded,
:func:`peproof.oracle.reference`), :mod:`.vectors` (golden vectors for other languages) and
:mod:`.peers` (the catalogue of real implementations the peer tests and the report run).
"""
