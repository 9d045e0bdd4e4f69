"""``peproof check`` on rotary artefacts (files, pairs, module:function) and the certified
horizons, checked against exact integer arithmetic done here."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from peproof.formats import get_format

D = 64


def _pair(n=2048, base=10000.0, swap=False):
    w = (1.0 / (np.float32(base) ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D))))
    a = np.arange(n, dtype=np.float32)[:, None] * w.astype(np.float32)[None]
    e = np.concatenate([a, a], 1)
    c, s = np.cos(e).astype(np.float32), np.sin(e).astype(np.float32)
    return (s, c) if swap else (c, s)


def run(*argv, cwd=None):
    p = subprocess.run([sys.executable, "-m", "peproof", "check", *argv], capture_output=True,
                       text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_cache_archive_detected_and_conforming(tmp_path):
    c, s = _pair()
    np.savez(tmp_path / "c.npz", cos=c, sin=s)
    rc, out, err = run(str(tmp_path / "c.npz"), "--json")
    env = json.loads(out)
    assert rc == 0 and env["artefact"] == "cache" and env["layout"] == "half", err
    assert env["identified"].startswith("d=64 base=10000 layout=half default")


def test_swapped_pair_exit_1(tmp_path):
    c, s = _pair(swap=True)
    np.save(tmp_path / "cos.npy", c)
    np.save(tmp_path / "sin.npy", s)
    rc, out, _ = run(str(tmp_path / "cos.npy"), "--sin", str(tmp_path / "sin.npy"), "--rope",
                     "default")
    assert rc == 1 and "cos and sin swapped" in out


def test_a_swapped_vllm_cache_by_its_name_or_the_flag(tmp_path):
    """vLLM's cos_sin_cache [cos | sin] with its halves swapped reads, from its content alone,
    as GPT-J's [sin | cos] (exit 0).  Stored under its name in an archive, or with
    ``--cache-layout vllm``, it is read as vLLM reads it: cos and sin swapped, exit 1."""
    c, s = _pair(n=4096)
    swapped = np.concatenate([s[:, :D // 2], c[:, :D // 2]], 1)
    np.savez(tmp_path / "v.npz", cos_sin_cache=swapped)
    np.save(tmp_path / "v.npy", swapped)
    rc, out, err = run(str(tmp_path / "v.npz"))
    assert rc == 1 and "cos and sin swapped" in out and "vLLM" in out, out + err
    rc, out, _ = run(str(tmp_path / "v.npy"), "--kind", "cache")
    assert rc == 0 and "GPT-J" in out
    rc, out, _ = run(str(tmp_path / "v.npy"), "--kind", "cache", "--cache-layout", "vllm")
    assert rc == 1 and "cos and sin swapped" in out
    np.save(tmp_path / "g.npy", np.concatenate([c[:, :D // 2], s[:, :D // 2]], 1))
    rc, out, _ = run(str(tmp_path / "g.npy"), "--kind", "cache", "--cache-layout", "vllm")
    assert rc == 0 and "vLLM" in out


def test_inv_freq_vector_and_wrong_base(tmp_path):
    w = (1.0 / (np.float32(500000) ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D))))
    np.save(tmp_path / "inv.npy", w.astype(np.float32))
    rc, out, _ = run(str(tmp_path / "inv.npy"))
    assert rc == 0 and "base=500000" in out
    rc, out, _ = run(str(tmp_path / "inv.npy"), "--rope", '{"rope_theta": 10000}')
    assert rc == 1 and "base 500000 where 10000 was expected" in out


def test_callable_returning_a_pair(tmp_path):
    (tmp_path / "mymod.py").write_text(
        "import numpy as np\n"
        "def pair(n, d):\n"
        "    w = 1.0 / (10000.0 ** (np.arange(0, d, 2) / d))\n"
        "    a = np.arange(n)[:, None] * w[None]\n"
        "    e = np.repeat(a, 2, axis=1)\n"
        "    return np.cos(e), np.sin(e)\n")
    rc, out, err = run("mymod:pair", "--kind", "cache", "--d", "64", "--n", "512", cwd=tmp_path)
    assert rc == 0 and "layout=interleaved" in out, err


def test_bad_rope_spec_is_one_line_exit_2(tmp_path):
    c, s = _pair(64)
    np.savez(tmp_path / "c.npz", cos=c, sin=s)
    rc, out, err = run(str(tmp_path / "c.npz"), "--rope", "{not json")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_table_path_unchanged(tmp_path):
    from peproof.oracle import reference

    t = reference(64, 16, dtype="float32")
    np.save(tmp_path / "t.npy", t)
    rc, out, _ = run(str(tmp_path / "t.npy"))
    assert rc == 0 and "rotary" not in out


def _first_collision_exact(theta: Fraction, fmt) -> int:
    """First p with RN(p theta) = RN((p+1) theta), by exact rational rounding (theta rational)."""
    f = get_format(fmt)
    p = 0
    prev = f.round_dyadic(0, 0)
    while True:
        x = (p + 1) * theta
        m, e = x.numerator, 0
        # round the rational x: scale to a dyadic with enough bits (exact for power-of-two q)
        assert x.denominator & (x.denominator - 1) == 0
        e = -(x.denominator.bit_length() - 1)
        cur = f.round_dyadic(m, e)
        if cur == prev:
            return p
        prev, p = cur, p + 1


@pytest.mark.parametrize("fmt,want", [("float16", 2048), ("bfloat16", 256)])
def test_horizon_of_positions(fmt, want):
    from peproof.oracle.rotary.horizon import rotary_horizons

    hz = rotary_horizons(8, 10000, (fmt,))[fmt]
    assert hz["positions_collide_from"] == want == _first_collision_exact(Fraction(1), fmt)
    assert hz["theta0_angle_collides_from"] == want


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_horizon_of_a_dyadic_frequency_matches_exact(fmt):
    """Linear scaling by 4: theta_0 = 1/4, an exact dyadic: the scan agrees with exact rounding."""
    import flint

    from peproof.oracle.rotary.horizon import first_collision

    got = first_collision(0.25, lambda prec: flint.arb(0.25), get_format(fmt))
    assert got == _first_collision_exact(Fraction(1, 4), fmt)
    got3 = first_collision(0.375, lambda prec: flint.arb(0.375), get_format(fmt))
    assert got3 == _first_collision_exact(Fraction(3, 8), fmt)


def test_horizon_pairs_checked_by_brute_force_float64():
    """Every pair's float16 horizon for d = 16: recomputed independently by rounding float64
    products with NumPy's own float16 cast (a correct rounding), away from ties."""
    from peproof.oracle.rotary.horizon import rotary_horizons

    hz = rotary_horizons(16, 10000, ("float16",))["float16"]
    th = 10000.0 ** (-np.arange(8) * 2 / 16)
    for j, p in enumerate(hz["per_pair"]):
        r = (np.arange(p + 2) * th[j]).astype(np.float16)
        hits = np.nonzero(r[1:] == r[:-1])[0]
        assert hits[0] == p, (j, p, hits[:3])
