"""Diagnoses are true sentences about the table: a cache whose late rows are NaN is read on its
finite prefix and the NaN rows are named, as float16 overflow only when the positions say so
(each at or past 65520 is infinite in float16, each before is finite).  Previous code: the
NaN rows made the duplicated-column test fail (NaN != NaN), the layout was misread and the cache
was 'outside the model: frequencies not all finite'."""

import numpy as np

from peproof.oracle import WRONG, check_rotary


def _cache(pos, d=16):
    w = (1.0 / 10000 ** (np.arange(0, d, 2) / d)).astype(np.float32)
    with np.errstate(all="ignore"):
        a = np.asarray(pos).astype(np.float32)[:, None] * w
        a = np.concatenate([a, a], 1)
        return np.cos(a), np.sin(a)


def test_rotary_float16_position_overflow_named():
    cos, sin = _cache(np.arange(70000).astype(np.float16))
    for exp in (None, {"rope_type": "default", "rope_theta": 10000}):
        rep = check_rotary(cos=cos, sin=sin, expect=exp)
        assert rep.verdict == WRONG
        assert rep.diagnoses[0].startswith("float16 overflow: rows from 65520 (position 65520) "
                                           "on hold NaN or infinity"), rep.diagnoses
        assert any(x.startswith("positions held in float16 before the product: from position "
                                "2049") for x in rep.diagnoses), rep.diagnoses


def test_nan_rows_not_from_float16_are_not_called_overflow():
    cos, sin = _cache(np.arange(3000))
    cos[1000:], sin[1000:] = np.nan, np.nan
    rep = check_rotary(cos=cos, sin=sin)
    assert rep.verdict == WRONG
    assert rep.diagnoses[0] == "rows from 1000 (position 1000) on hold NaN or infinity"
    assert not any("overflow" in x for x in rep.diagnoses)
