"""Advice is a claim: an option the oracle suggests is one the table's own values support.

A float32 table whose neighbouring pairs share one frequency (a real defect) fits the error model
of a bfloat16 pipeline, where past a few positions an entry constrains almost nothing; the
previous code advised ``--pipeline-dtype bfloat16`` for it and a user who followed the advice got
"within the error model" and "the paper's".  Here every option the oracle prints in parentheses
is run through the command line, as a user would, and must not make the defective table pass;
the explicit narrower pipeline, suggested or not, is set aside when the values show no rounding
to it.  A diagnosis is a sentence about the table: exact sin/cos pairs are never "random".
"""

import re

import numpy as np
import pytest

from peproof.cli import main
from peproof.oracle import OUTSIDE, WRONG, check

OPTION = re.compile(r"\((--[a-z-]+ [^)\s]+)\)")


def shared_table(n: int, d: int) -> np.ndarray:
    """The paper's table where pairs 2k and 2k+1 both take pair 2k's frequency (float32)."""
    i = np.arange(d // 2)
    w = (10000.0 ** (-(2 * (i // 2) * 2) / d)).astype(np.float32)
    pos = np.arange(n, dtype=np.float32)[:, None]
    t = np.empty((n, d), np.float32)
    t[:, 0::2], t[:, 1::2] = np.sin(pos * w), np.cos(pos * w)
    return t


def run(capsys, *args):
    rc = main([*map(str, args)])
    return rc, capsys.readouterr().out


@pytest.mark.parametrize("n,d", [(64, 256), (512, 512)])
def test_shared_frequency_never_passes_under_any_suggested_option(tmp_path, capsys, n, d):
    f = tmp_path / "shared.npy"
    np.save(f, shared_table(n, d))
    rc, out = run(capsys, "check", f)
    assert rc == 1
    options = set(OPTION.findall(out)) | {"--pipeline-dtype bfloat16",
                                          "--pipeline-dtype float16"}
    for opt in sorted(options):
        rc2, out2 = run(capsys, "check", f, *opt.split())
        assert rc2 == 1, (opt, out2)
    rep = check(shared_table(n, d))
    assert not any("pipeline" in x for x in rep.diagnoses)
    assert any("neighbouring pairs share one frequency (pairs 0 and 1" in x
               for x in rep.diagnoses), rep.diagnoses


def test_given_narrower_pipeline_is_set_aside_with_its_reason():
    rep = check(shared_table(512, 512), pipeline_dtype="bfloat16")
    assert not rep.ok and rep.pipe.name == "float32"
    assert rep.reasons[0].startswith("pipeline_dtype='bfloat16' set aside: the table's values "
                                     "are not what a bfloat16 computation stores")


def test_advice_kept_when_the_values_show_the_narrower_pipeline():
    """Angles rounded to bfloat16 (then sin/cos in float32), and a whole bfloat16 computation
    widened to float32: both show bfloat16 in their values and both keep the advice, which then
    passes."""
    import ml_dtypes

    n, d = 512, 256
    w = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    ang = (np.arange(n, dtype=np.float32)[:, None] * w).astype(ml_dtypes.bfloat16)
    a = ang.astype(np.float32)
    t = np.empty((n, d), np.float32)
    t[:, 0::2], t[:, 1::2] = np.sin(a), np.cos(a)
    for tab in (t, t.astype(ml_dtypes.bfloat16).astype(np.float32)):
        rep = check(tab)
        if rep.ok:
            continue
        assert any("--pipeline-dtype bfloat16" in x for x in rep.diagnoses), rep.diagnoses
        assert check(tab, pipeline_dtype="bfloat16").ok


def _pairs_table(w, n=512):
    pos = np.arange(n)[:, None]
    t = np.empty((n, 2 * len(w)))
    t[:, 0::2], t[:, 1::2] = np.sin(pos * w), np.cos(pos * w)
    return t.astype(np.float32)


def test_exact_pairs_with_rising_frequencies_are_not_called_random():
    """Frequencies 10^(4k/63): outside the model, and said to be sin/cos pairs (the previous
    code: 'looks like random initialisation ... no sin/cos pairs')."""
    rep = check(_pairs_table(10.0 ** (4 * np.arange(32) / 63)))
    assert rep.verdict == OUTSIDE
    text = " ".join(rep.diagnoses)
    assert "random" not in text
    assert "the channels form 32 sin/cos pairs interleaved" in text


def test_pairs_in_halves_sharing_frequencies_are_named():
    d, n = 64, 512
    j = np.arange(d // 2)
    w = 10000.0 ** (-(2 * (j // 2)) / d)
    pos = np.arange(n)[:, None]
    t = np.concatenate([np.sin(pos * w), np.cos(pos * w)], 1).astype(np.float32)
    rep = check(t)
    assert rep.verdict in (OUTSIDE, WRONG)
    text = " ".join(rep.diagnoses)
    assert "random" not in text
    assert "sin/cos pairs in halves" in text and "share one frequency" in text


def test_random_tables_are_still_random():
    t = np.random.default_rng(0).normal(size=(512, 64)).astype(np.float32)
    rep = check(t)
    assert rep.verdict == OUTSIDE
    assert rep.diagnoses[0].startswith("values look like random initialisation")
