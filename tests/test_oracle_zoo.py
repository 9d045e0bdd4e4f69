"""The bug zoo: tables built the way known bugs build them, each with its one-line diagnosis.

Every table is made here the way the buggy code makes it (NumPy or PyTorch, float32 unless the
bug is about another dtype); the test asserts the verdict and the specific diagnosis line, so a
diagnosis that stops firing (or fires on the wrong table) fails.  The last tests check that a
defect confined to a pair or a row is localised and that ``assert_sinusoidal`` says so briefly.
"""

import re

import ml_dtypes
import numpy as np
import pytest

from peproof.encoding import Encoding
from peproof.numeric import recipes as R
from peproof.oracle import (
    CONFORMS,
    DEGENERATE,
    OUTSIDE,
    VARIANT,
    WRONG,
    assert_sinusoidal,
    check,
    reference,
)


def pipeline(pos, d=64, omega=None, dt=np.float32):
    """The PyTorch tutorial's recipe in NumPy: exp frequencies, angle and sin/cos in ``dt``."""
    w = R.frequencies(Encoding(d), np.dtype(dt), "exp") if omega is None else omega
    with np.errstate(invalid="ignore", over="ignore"):
        ang = np.asarray(pos).astype(dt)[:, None] * w[None, :].astype(dt)
        out = np.empty((len(pos), d), dt)
        out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)
    return out


def tutorial_buffer(max_len=512, d=64):
    """The PyTorch tutorial's (max_len, 1, d) buffer, as its readers build it."""
    pytest.importorskip("torch")
    from peproof.oracle.sinusoidal.peers import tutorial

    return tutorial(max_len, d)


def test_positions_cast_to_float16_before_the_product():
    rep = check(pipeline(np.arange(4096).astype(np.float16)))
    assert rep.verdict == WRONG
    assert rep.diagnoses[0].startswith("positions were rounded to float16 before the product "
                                       "(exact only up to 2048")


def test_positions_cast_to_bfloat16_before_the_product():
    rep = check(pipeline(np.arange(2048).astype(ml_dtypes.bfloat16)))
    assert rep.verdict == WRONG
    assert rep.diagnoses[0].startswith("positions were rounded to bfloat16 before the product "
                                       "(exact only up to 256")


def test_frequencies_stored_in_bfloat16():
    w = R.frequencies(Encoding(64), np.dtype(np.float32), "exp")
    rep = check(pipeline(np.arange(4096), omega=w.astype(ml_dtypes.bfloat16)))
    assert rep.verdict == WRONG and "paper family, base 10000" in rep.headline
    assert rep.diagnoses[0] == ("the frequencies were rounded to bfloat16 before the product "
                                "(relative error up to 0.0039)")


def test_sin_and_cos_halves_swapped():
    rep = check(reference(500, 64, layout="cos_sin"), layout="sin_cos")
    assert rep.verdict == VARIANT
    assert rep.diagnoses == ["sin and cos halves swapped: [cos|sin] where [sin|cos] was expected"]


def test_h1_denominator_where_the_paper_was_meant():
    rep = check(reference(500, 64, family="h-1"))
    assert rep.verdict == VARIANT
    assert rep.diagnoses[0].startswith("the frequencies use the h-1 exponent i/(d/2-1)")


@pytest.mark.parametrize("offset,why", [(1, "off by one: a padding index counted as a "
                                           "position?"),
                                        (2, "fairseq-style: positions start after "
                                            "padding_idx = 1")])
def test_offset_from_a_padding_index(offset, why):
    rep = check(reference(500, 64, offset=offset))
    assert rep.verdict == VARIANT
    assert rep.diagnoses == [f"positions start at {offset} where 0 was expected ({why})"]


def test_table_added_along_the_wrong_axis():
    torch = pytest.importorskip("torch")
    pe = tutorial_buffer()
    x = torch.zeros(3, 50, 64)  # batch-first input, but the module indexes pe by x.size(0)
    out = x + pe[: x.size(0)]
    rep = check(out[1])  # what sequence 1 of the batch received: 50 copies of PE(1)
    assert rep.verdict == DEGENERATE and rep.exit_code == 1
    assert rep.diagnoses[0] == ("every row is the same vector: the table was added along the "
                                "wrong axis (indexed by the batch, not the position)? (each "
                                "row is the encoding of position 1)")


def test_table_overwritten_by_random_initialisation():
    torch = pytest.importorskip("torch")
    pe = tutorial_buffer()
    torch.nn.init.normal_(pe, std=0.02)  # an init pass over every parameter and buffer
    rep = check(pe)
    assert rep.verdict == OUTSIDE
    assert rep.diagnoses[0].startswith("values look like random initialisation (mean ")
    std = float(re.search(r"std ([0-9.e-]+),", rep.diagnoses[0]).group(1))
    assert 0.018 < std < 0.022  # what init.normal_(std=0.02) wrote


def test_uninitialised_buffer():
    raw = np.random.default_rng(1).bytes(512 * 64 * 4)  # what torch.empty may hold
    rep = check(np.frombuffer(raw, dtype=np.float32).reshape(512, 64).copy())
    assert rep.verdict == OUTSIDE
    assert rep.diagnoses[-1].endswith("an uninitialised buffer (torch.empty, np.empty) that was "
                                      "never filled?")


def test_float16_overflow():
    with np.errstate(over="ignore"):
        pos16 = np.arange(70000).astype(np.float16)  # inf from 65520 on
    rep = check(pipeline(pos16, d=16, dt=np.float16))
    assert rep.verdict == WRONG and rep.exit_code == 1
    # the rows before the overflow are the float16 grid of the positions, within the model
    assert rep.diagnoses[0].startswith("float16 overflow: from row 65520 (position 65520) on the "
                                       "position is infinite in float16")
    assert "rounded to float16, within its error model (from row 2049 on" in rep.diagnoses[0]
    assert "paper family, base 10000" in rep.headline


# ----------------------------------------------------------------------------- localised
def test_one_pair_with_sin_and_cos_swapped_is_named():
    T = reference(1000, 64)
    T[:, [6, 7]] = T[:, [7, 6]]
    rep = check(T)
    assert rep.verdict == WRONG and rep.identified.variant.same_as(
        check(reference(10, 64)).identified.variant, 64)  # the rest identifies the paper
    assert rep.diagnoses == ["pair 3 (channels 6, 7): sin and cos swapped"]


def test_a_flipped_channel_and_a_zeroed_row_are_named():
    T = reference(1000, 64)
    T[:, 9] *= -1
    assert check(T).diagnoses == ["pair 4 (channel 9, cos): sign flipped"]
    T = reference(1000, 64)
    T[[10, 11]] = T[[11, 10]]
    assert check(T).diagnoses[0] == ("row 10 (position 10): holds the values of position 11 "
                                     "(rows swapped or shifted?)")


def test_assert_sinusoidal_is_short_and_hides_its_frames():
    T = reference(1000, 64)
    T[:, [6, 7]] = T[:, [7, 6]]
    with pytest.raises(AssertionError) as err:
        assert_sinusoidal(T)
    msg = str(err.value)
    assert "diagnosis  : pair 3 (channels 6, 7): sin and cos swapped" in msg
    assert "verdict    : wrong (paper family, base 10000" in msg
    assert len(msg.splitlines()) <= 14 and "noise" not in msg
    # pytest hides frames whose locals set __tracebackhide__: the helper's own frames
    frames = [tb.tb_frame for tb in _walk(err.value.__traceback__)]
    hidden = [f.f_code.co_name for f in frames if f.f_locals.get("__tracebackhide__")]
    assert hidden == ["assert_sinusoidal"]
    assert check(reference(10, 64)).verdict == CONFORMS  # and a good table passes


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


# ----------------------------------------------------------------------------- issue 20 red team
def _torch_table(n=1024, d=64, den=None, adt=None):
    torch = pytest.importorskip("torch")
    i = torch.arange(0, d, 2).float()
    w = torch.exp(i * (-np.log(10000.0) / (d if den is None else den)))
    a = torch.arange(n).float()[:, None] * w[None, :]
    if adt is not None:
        a = a.to(adt).float()
    return torch.stack([torch.sin(a), torch.cos(a)], -1).reshape(n, d).numpy()


def test_the_exponent_denominator_off_by_one():
    """``exp(arange(0, d, 2) * -ln(10000) / (d - 1))``: no base of a family gives it (previous
    code: 'outside the model', the closest variant does not fit)."""
    rep = check(_torch_table(den=63))
    assert rep.verdict == WRONG and "paper family, base 10000" in rep.headline
    assert rep.diagnoses == ["the frequencies use the exponent 2i/63 where the paper family's "
                             "2i/d = 2i/64 was expected (the denominator off by -1)"]


def test_angles_computed_in_bfloat16_stored_as_float32():
    """A float32 table whose angles were rounded to bfloat16: within the model of a bfloat16
    pipeline, which is named with the option that accepts it (previous code: 'outside the
    model')."""
    torch = pytest.importorskip("torch")
    t = _torch_table(adt=torch.bfloat16)
    rep = check(t)
    assert rep.verdict == WRONG and "paper family, base 10000" in rep.headline
    assert rep.diagnoses[0].startswith("every entry is within the error model of a bfloat16 "
                                       "pipeline")
    assert check(t, pipeline_dtype="bfloat16").ok
    t[[300, 301]] = t[[301, 300]]  # a swap is not excused by the narrower pipeline
    assert not any("pipeline" in x for x in check(t).diagnoses[:1])


def test_interleaved_cosine_first_keeps_its_own_diagnosis():
    t = _torch_table()
    t = t.reshape(t.shape[0], -1, 2)[:, :, ::-1].reshape(t.shape[0], -1).copy()
    rep = check(t)
    assert rep.verdict == OUTSIDE
    assert rep.diagnoses[-1].startswith("interleaved pairs with the cosine first")
