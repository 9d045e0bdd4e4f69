"""Angle tables (``--kind angles``): rotary-embedding-torch's ``freqs``, the angles ``p theta_j``,
identified and checked against the angle bound; bugs in them named; the CLI path."""

import json
import subprocess
import sys

import numpy as np
import pytest

from peproof.oracle import CONFORMS, DEGENERATE, VARIANT, WITHIN, WRONG
from peproof.oracle.rotary.check import check_rotary

D, N = 64, 8192
OK = (CONFORMS, WITHIN)


def freqs(n=N, base=10000.0, pos_dtype=np.float32, scale=1.0):
    """rotary-embedding-torch's recipe in float32: inv_freq, positions, their outer product,
    every angle repeated in place."""
    w = 1.0 / (np.float32(base) ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D)))
    t = np.arange(n).astype(pos_dtype).astype(np.float32) / np.float32(scale)
    return np.repeat(t[:, None] * w[None, :], 2, axis=1)


@pytest.mark.parametrize("shape", ["repeated", "halves", "pairs"])
def test_correct_tables_pass_and_are_identified(shape):
    f = freqs()
    arr = {"repeated": f, "halves": np.concatenate([f[:, 0::2], f[:, 0::2]], 1),
           "pairs": f[:, 0::2]}[shape]
    rep = check_rotary(angles=arr)
    assert rep.verdict in OK, rep.render()
    assert rep.identified._base == 10000 and rep.identified.d == D
    assert rep.layout == {"repeated": "interleaved", "halves": "half", "pairs": "pairs"}[shape]
    assert rep.tally.entries == N * D // 2 and rep.tally.over == 0


def test_linear_scaling_identified():
    rep = check_rotary(angles=freqs(scale=4.0),
                       expect={"rope_type": "linear", "factor": 4, "rope_theta": 10000})
    assert rep.verdict in OK, rep.render()
    assert rep.identified.scaling.kind == "linear" and rep.identified.scaling.factor == 4


def test_one_wrong_angle_is_named():
    f = freqs()
    f[5000, 20:22] += np.float32(1e-2)  # one angle (both its copies) off by a hundredth
    rep = check_rotary(angles=f, expect={"rope_type": "default", "rope_theta": 10000})
    assert rep.verdict == WRONG, rep.render()
    assert rep.tally.over == 1 and rep.tally.worst[0]["position"] == 5000
    assert rep.tally.worst[0]["pair"] == 10


def test_copies_that_differ_are_read_as_pairs_without_failing():
    """One copy of one angle changed: the columns are no longer duplicates, so the table reads as
    (S, d/2) of twice the width (as caches do); it is not identified, and nothing raises."""
    f = freqs()
    f[5000, 20] += np.float32(1e-2)
    rep = check_rotary(angles=f)
    assert rep.layout == "pairs" and not rep.ok, rep.render()
    rep = check_rotary(angles=f, d=D, expect={"rope_type": "default"})
    assert rep.verdict == WRONG and rep.tally.over == 1, rep.render()


def test_positions_held_in_float16_named():
    rep = check_rotary(angles=freqs(pos_dtype=np.float16))
    assert rep.verdict == WRONG, rep.render()
    assert "positions held in float16" in rep.diagnoses[0]


def test_float16_table_of_late_positions_is_degenerate():
    f = freqs(pos_dtype=np.float16).astype(np.float16)
    rep = check_rotary(angles=f, expect={"rope_type": "default", "rope_theta": 10000},
                       pipeline_dtype="float16")
    assert rep.verdict in (DEGENERATE, WRONG), rep.render()
    assert rep.collisions["identical_row_groups"] > 0


def test_other_base_is_a_variant():
    rep = check_rotary(angles=freqs(), expect={"rope_type": "default", "rope_theta": 500000})
    assert rep.verdict == VARIANT and "base 10000 where 500000" in rep.diagnoses[0], rep.render()


def test_layout_compared_only_when_asked():
    f = freqs()
    assert check_rotary(angles=f, expect={"rope_type": "default"}).verdict in OK
    rep = check_rotary(angles=f, expect={"rope_type": "default"}, layout="half")
    assert rep.verdict == VARIANT and "layout interleaved" in rep.diagnoses[0]


def test_rotary_embedding_torch_freqs():
    torch = pytest.importorskip("torch")
    ret = pytest.importorskip("rotary_embedding_torch")
    rot = ret.RotaryEmbedding(dim=D)
    f = rot(torch.arange(4096, dtype=torch.float32))
    rep = check_rotary(angles=f.detach())
    assert rep.verdict in OK and rep.layout == "interleaved", rep.render()
    assert rep.identified._base == 10000


def run(*argv):
    p = subprocess.run([sys.executable, "-m", "peproof", "check", *argv], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_cli_kind_angles(tmp_path):
    np.save(tmp_path / "f.npy", freqs(n=2048))
    rc, out, err = run(str(tmp_path / "f.npy"), "--kind", "angles", "--json")
    env = json.loads(out)
    assert rc == 0 and env["artefact"] == "angles" and env["layout"] == "interleaved", err
    bad = freqs(n=2048)
    bad[1000] *= 1.001
    np.save(tmp_path / "b.npy", bad)
    rc, out, _ = run(str(tmp_path / "b.npy"), "--kind", "angles", "--rope", "default")
    assert rc == 1 and "WRONG" in out.upper()
    np.save(tmp_path / "z.npy", np.zeros((2, 3, 4, 5), np.float32))
    rc, out, err = run(str(tmp_path / "z.npy"), "--kind", "angles")
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_angles_near_the_documented_bound_are_accepted_and_past_it_refused():
    """The documented bound of an angle (float32 throughout, default map): |F| K + u N with
    K = (1 + (c_omega0 + c_omega1 L) u)(1 + u) - 1, L = max |ln theta|.  Angles moved to 0.8 of
    it pass; moved to 1.5 of it (rounded outward) are outside."""
    from peproof.families.error_model import CONSTANTS as C

    u = 2.0**-24
    th = 1.0 / 10000.0 ** (np.arange(0, D, 2) / D)
    L = np.abs(np.log(th)).max()
    K = (1 + (C.c_omega0 + C.c_omega1 * L) * u) * (1 + u) - 1
    p = np.arange(1, 4097, dtype=np.float64)[:, None]
    x = p * th[None, :]
    for frac, ok in ((0.8, True), (1.5, False)):
        moved = x * (1 + frac * K)
        t32 = moved.astype(np.float32)
        t32 = np.where(ok, t32, np.nextafter(t32, np.float32(np.inf)))  # outward when refusing
        rep = check_rotary(angles=np.repeat(t32, 2, axis=1), positions=p[:, 0],
                           expect={"rope_type": "default", "rope_theta": 10000})
        if ok:
            assert rep.tally.over == 0, rep.render()
        else:
            assert rep.tally.over > 0.5 * rep.tally.entries, rep.render()


def _bf16(f):
    import ml_dtypes

    return f.astype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("base", [9000.0, 10500.0, 11000.0, 12000.0])
def test_a_bfloat16_table_is_read_as_computed_in_float32_first(base):
    """A table computed in float32 and stored in bfloat16 (what frameworks do) at a base near
    the paper's: the float32-computed model is tried first, and in it the paper's base leaves
    entries outside, so the base the table was built with is named, and against the paper's RoPE
    it is a different variant.  Before, only a bfloat16 pipeline was tried, whose frequency
    error explains 10% off: bases 9000 to 11000 passed as the paper's RoPE, 12000 was 'wrong'."""
    f = _bf16(freqs(n=4096, base=base))
    rep = check_rotary(angles=f, allow_collisions=True)
    assert rep.verdict in OK and float(rep.identified._base) == base, rep.render()
    assert rep.pipe.name == "float32" and "computed in float32 and stored in bfloat16" in \
        " ".join(rep.notes)
    paper = check_rotary(angles=f, allow_collisions=True,
                         expect={"rope_type": "default", "rope_theta": 10000})
    assert paper.verdict == VARIANT and f"base {int(base)} where 10000" in paper.diagnoses[0]


def test_the_simplest_variant_that_fits_is_named():
    """Base 5*10^6 with linear factor 8 in bfloat16: the reading allows 5*10^6 and 6*10^6 (and
    more); every candidate is checked against the whole table, simplest first.  Before, the
    reading's first candidate was named: 'base 6000000'."""
    f = _bf16(freqs(n=4096, base=5e6, scale=8.0))
    rep = check_rotary(angles=f, allow_collisions=True)
    assert rep.verdict in OK and rep.identified._base == 5000000, rep.render()
    assert rep.identified.scaling.kind == "linear" and rep.identified.scaling.factor == 8


def test_a_table_computed_in_bfloat16_still_passes_as_the_paper():
    """Falsifier of the order: frequencies and products computed in bfloat16 (positions rounded
    past 256) fit no float32-computed model; the bfloat16 pipeline is then tried and the paper's
    RoPE named, as before."""
    torch = pytest.importorskip("torch")
    b = torch.bfloat16
    w = 1.0 / (torch.tensor(10000.0, dtype=b) ** (torch.arange(0, D, 2, dtype=b) / D))
    a = (torch.arange(4096, dtype=b)[:, None] * w[None, :]).repeat_interleave(2, dim=1)
    rep = check_rotary(angles=a, allow_collisions=True)
    assert rep.verdict in OK and rep.identified._base == 10000 and rep.pipe.name == "bfloat16"
