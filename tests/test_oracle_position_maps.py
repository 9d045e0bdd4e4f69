"""Rows holding other positions' encodings are named for what they are (issue 20, "repeats
diagnosed as something else"): the variant is read from rows that can be trusted, the rest of the
table is explained by one map of the positions (clipped, a 16-bit grid with its overflow, repeated,
shifted), checked on the whole table within the error model, and the first row where the map
departs from the identity is reported.

Tables are made as PyTorch code makes them (float32 angles from ``torch.exp`` frequencies), at the
positions a bug gives them.  Every test here failed on the previous code (it said "outside the
model" with an invented variant, "an uninitialised buffer", "random initialisation", a row-by-row
list or "the frequencies were rounded to bfloat16"), except the soundness guards at the end.
"""

import ml_dtypes
import numpy as np
import pytest

from peproof.oracle import OUTSIDE, WRONG, check, identify, reference

torch = pytest.importorskip("torch")
DTYPES = [np.float32, ml_dtypes.bfloat16, np.float16]


def pe(pos, d=64, dt=np.float32, layout="interleaved"):
    i = torch.arange(0, d, 2).float()
    inv = torch.exp(i * (-np.log(10000.0) / d))
    ang = torch.as_tensor(np.asarray(pos, dtype=np.float32))[:, None] * inv[None, :]
    s, c = torch.sin(ang), torch.cos(ang)
    out = torch.stack([s, c], -1).reshape(len(pos), d) if layout == "interleaved" else \
        torch.cat([s, c], 1)
    return out.numpy().astype(dt)


def f16_positions(pos):
    with np.errstate(over="ignore"):
        return np.asarray(pos).astype(np.float16).astype(np.float32)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("n", [600, 2048])
def test_clipped_positions(n, dt):
    """The last 513 rows all hold the encoding of one position, the rows before it are exact; at
    n = 600 most rows are clipped (previous code: 'outside the model' with an invented variant,
    or a list of rows)."""
    c = n - 513
    rep = check(pe(np.minimum(np.arange(n), c), dt=dt))
    assert rep.verdict == WRONG and rep.exit_code == 1
    assert "paper family, base 10000, interleaved layout, offset 0" in rep.headline
    assert rep.diagnoses[0].startswith(f"positions clipped at {c} from row {c + 1} on: rows {c} "
                                       f".. {n - 1} (513 rows) all hold the encoding of position "
                                       f"{c}")
    pm = rep.to_json()["summary"]["position_map"]
    assert pm["kind"] == "clipped" and pm["first_row"] == c + 1 and pm["holds"] == c


def test_clipped_h1_table_in_bfloat16_is_named_as_expected():
    """d = 512 in bfloat16, where the paper family also fits h-1's rows: the map is found under
    the expected variant and the headline names it."""
    t = reference(np.minimum(np.arange(1200), 999), 512, dtype="bfloat16", family="h-1")
    rep = check(t, expect="h-1")
    assert rep.verdict == WRONG and rep.headline.startswith("wrong (h-1 family, base 10000")
    assert rep.diagnoses == ["positions clipped at 999 from row 1000 on: rows 999 .. 1199 (201 "
                             "rows) all hold the encoding of position 999; the rows before them "
                             "fit h-1 family, base 10000, interleaved layout, offset 0, scale 1"]


@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=lambda t: np.dtype(t).name)
def test_float16_positions_near_65000(dt):
    """Positions 65000 .. 65999 cast to float16 before the product: steps of 32, infinity from
    65520 on, rows of NaN (previous code: 'an uninitialised buffer')."""
    ps = np.arange(65000, 66000)
    rep = check(pe(f16_positions(ps), dt=dt), positions=ps)
    assert rep.verdict == WRONG
    line = rep.diagnoses[0]
    assert "uninitialised" not in " ".join(rep.diagnoses)
    assert "float16 overflow: from row 520 (position 65520) on the position is infinite in " \
           "float16" in line
    assert "(steps of 32)" in line
    if dt == np.float32:
        assert line.startswith("positions were rounded to float16 before the product (exact "
                               "only up to 2048): from row 0 on (position 65000 became 64992)")


def test_float16_positions_of_a_float32_table_from_0_to_70000():
    rep = check(pe(f16_positions(np.arange(70000)), d=16))
    assert rep.verdict == WRONG
    assert rep.diagnoses == [
        "positions were rounded to float16 before the product (exact only up to 2048): from row "
        "2049 on (position 2049 became 2048) rows hold the encoding of their position rounded to "
        "float16 (steps of 2 .. 32); float16 overflow: from row 65520 (position 65520) on the "
        "position is infinite in float16 (largest finite number 65504) and the rows hold NaN"]


def test_the_expected_offset_is_part_of_the_position_rounded():
    ps = np.arange(1000)
    rep = check(pe(f16_positions(ps + 65000)), offset=65000)
    assert rep.verdict == WRONG
    assert rep.diagnoses[0].startswith(
        "positions were rounded to float16 before the product (exact only up to 2048): from row "
        "0 on (position, offset included, 65000 became 64992)")


def test_positions_unknown_a_sinusoidal_slice_is_not_an_uninitialised_buffer():
    rep = check(pe(f16_positions(np.arange(65000, 66000))))
    assert rep.verdict == OUTSIDE
    assert "uninitialised" not in " ".join(rep.diagnoses)
    assert rep.diagnoses[-1].startswith("the finite rows are sin/cos pairs of amplitude 1 (a "
                                        "sinusoidal table), but not at positions 0 .. n-1")
    assert "runs of about 32" in rep.diagnoses[-1]
    assert "rows from row 520 on hold NaN or infinity" in rep.diagnoses[-1]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: np.dtype(t).name)
def test_a_tiled_table_repeats(dt):
    rep = check(np.tile(pe(np.arange(512), dt=dt), (4, 1)))
    assert rep.verdict == WRONG
    assert rep.diagnoses[0].startswith("the rows repeat with period 512 from row 512 on")


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: np.dtype(t).name)
def test_a_row_inserted_shifts_the_rest(dt):
    t = pe(np.arange(1000), dt=dt)
    t = np.concatenate([t[:300], t[299:300], t[300:999]])
    rep = check(t)
    assert rep.verdict == WRONG
    assert rep.diagnoses[0].startswith("from row 300 on every row holds the encoding of the "
                                       "position 1 before its own")


@pytest.mark.parametrize("offset", [50000, 123457])
@pytest.mark.parametrize("dt", ["float32", "bfloat16", "float64"])
def test_an_offset_beyond_the_slowest_period_is_read(offset, dt):
    """Rows from position 50000 on: the slowest pair's phase gives the offset only modulo its
    period (about 47000 at d = 64); previous code named h-1 with base 7500 and offset 2883."""
    ident = identify(reference(np.arange(offset, offset + 1000), 64, dtype=dt))
    assert ident.name.startswith(f"paper family, base 10000, interleaved layout, offset {offset},")


# ----------------------------------------------------------------------------- soundness
@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: np.dtype(t).name)
def test_two_rows_swapped_are_no_position_map(dt):
    t = pe(np.arange(2000), dt=dt)
    t[[500, 501]] = t[[501, 500]]
    rep = check(t)
    assert rep.verdict == WRONG and rep.position_map is None


@pytest.mark.parametrize("dt", DTYPES, ids=lambda t: np.dtype(t).name)
def test_a_correct_table_has_no_position_map(dt):
    rep = check(pe(np.arange(3000), dt=dt))
    assert rep.ok and rep.position_map is None and rep.diagnoses == []


def test_a_map_never_excuses():
    """The map explains a table judged at its own positions; the verdict stays 'wrong' even
    with allow_collisions (the clipped rows are identical rows)."""
    rep = check(pe(np.minimum(np.arange(2048), 1535)), allow_collisions=True)
    assert rep.verdict == WRONG and rep.position_map is not None
