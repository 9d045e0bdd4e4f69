"""The native cache layouts of the libraries, detected from shape and content and named (issue
20: torchtune's (S, d/2, 2) cache was refused).  Each is built as its library builds it (with the
library where it is installed: transformers' GPT-J, torch.polar for Meta, mlx; torchtune and vLLM
are not installed and are built the way their sources do), checked blind and against its
configuration, and sabotaged."""

import subprocess
import sys

import numpy as np
import pytest

from peproof.oracle import CONFORMS, WITHIN, InputError
from peproof.oracle.rotary import layouts as L
from peproof.oracle.rotary.check import check_rotary

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.peers
OK = (CONFORMS, WITHIN)
D, N = 64, 1024
PAPER = {"rope_type": "default", "rope_theta": 10000.0}


def _angles(base=10000.0, d=D, n=N, scale=1.0, f16=False):
    theta = 1.0 / (base ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    t = torch.arange(n, dtype=torch.float32) / scale
    if f16:
        t = t.half().float()
    return torch.outer(t, theta).float()


def torchtune_cache(**kw):
    a = _angles(**kw)  # torchtune: stack([cos, sin], dim=-1) of the (S, d/2) angles
    return torch.stack([torch.cos(a), torch.sin(a)], dim=-1)


def vllm_cache(**kw):
    a = _angles(**kw)  # vLLM: cat((cos, sin), dim=-1), rotary_dim columns
    return torch.cat([a.cos(), a.sin()], dim=-1)


def _meta(**kw):
    a = _angles(**kw)
    return torch.polar(torch.ones_like(a), a)


def _gptj():
    gptj = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    return gptj.create_sinusoidal_positions(N, D)


CASES = [
    ("torchtune", torchtune_cache, L.TORCHTUNE),
    ("meta freqs_cis", _meta, L.FREQS_CIS),
    ("meta view_as_real", lambda: torch.view_as_real(_meta()), L.TORCHTUNE),
    ("gpt-j embed_positions", _gptj, L.GPTJ),
    ("vllm cos_sin_cache", vllm_cache, L.VLLM),
    ("interleaved pairs", lambda: torchtune_cache().reshape(N, D), L.INTER_CS),
]


@pytest.mark.parametrize("name,make,native", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_native_layout_detected_named_and_checked(name, make, native, dtype):
    arr = make()
    if dtype == "bfloat16":
        if arr.is_complex():
            pytest.skip("no complex bfloat16")
        arr = arr.to(torch.bfloat16)
    rep = check_rotary(arr)
    assert rep.verdict in OK and rep.native == native, rep.render()
    assert rep.identified._base == 10000 and rep.identified.scaling.kind == "default"
    assert native in rep.render() and rep.to_json()["native_layout"] == native
    assert check_rotary(arr, expect=PAPER).verdict in OK
    assert check_rotary(arr, expect=dict(PAPER, rope_theta=500000.0)).verdict not in OK


def test_sabotaged_native_layouts_fail():
    tt = torchtune_cache()
    assert check_rotary(tt.flip(-1), expect=PAPER).verdict not in OK  # [sin, cos]: swapped
    assert check_rotary(tt.flip(-1)).verdict not in OK
    v = vllm_cache()
    v[500] = v[501]  # one row holds the next position
    assert check_rotary(v).verdict not in OK
    assert check_rotary(v, expect=PAPER).verdict not in OK
    lin = vllm_cache(scale=4.0)  # vLLM's linear scaling divides the positions
    rep = check_rotary(lin)
    assert rep.verdict in OK and rep.identified.scaling.kind == "linear", rep.render()
    assert rep.identified.scaling.factor == 4
    assert check_rotary(lin, expect=PAPER).verdict == "different variant"
    with pytest.raises(InputError, match="neither its halves nor"):
        check_rotary(torch.randn(N, D))


def test_transformers_cos_cached_buffers():
    a = _angles()
    emb = torch.cat([a, a], -1)
    rep = check_rotary({"cos_cached": emb.cos()[None, None], "sin_cached": emb.sin()[None, None]})
    assert rep.verdict in OK and rep.layout == "half", rep.render()
    assert "cos_cached" in rep.native


def test_mlx_periods():
    mx = pytest.importorskip("mlx.core")
    f = mx.array((10000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32))
    for dt in ("float32", "bfloat16"):
        v = torch.tensor(np.array(f.astype(mx.float32))).to(getattr(torch, dt))
        rep = check_rotary(v)
        assert rep.verdict in OK and rep.native == L.MLX_FREQS, rep.render()
        assert rep.identified._base == 10000
    # an inv_freq is not periods: read as itself
    assert check_rotary(1 / torch.tensor(np.array(f))).native == ""


def test_cli_reads_a_torchtune_npy_and_refuses_noise(tmp_path):
    np.save(tmp_path / "tt.npy", torchtune_cache().numpy())
    r = subprocess.run([sys.executable, "-m", "peproof.cli", "check", str(tmp_path / "tt.npy")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "torchtune" in r.stdout, r.stdout + r.stderr
    np.save(tmp_path / "noise.npy", np.random.default_rng(0).normal(size=(N, D)))
    r = subprocess.run([sys.executable, "-m", "peproof.cli", "check", str(tmp_path / "noise.npy"),
                        "--kind", "cache"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_an_expected_layout_reads_swapped_halves_as_swapped():
    """A 2-D cache holds [cos | sin] (vLLM) or [sin | cos] (GPT-J): from its content alone a
    swapped vLLM cache IS a GPT-J cache.  Told which library wrote it (``native=``), the oracle
    reads it as that library does, and the swap is named, with and without an expectation."""
    a = _angles(n=4096)
    swapped = torch.cat([a.sin(), a.cos()], dim=-1)
    assert check_rotary(swapped, kind="cache").native == L.GPTJ  # by content: passes
    for exp in (None, PAPER):
        rep = check_rotary(swapped, kind="cache", native="vllm", expect=exp)
        assert rep.native == L.VLLM and rep.verdict == "wrong", rep.render()
        assert "cos and sin swapped" in rep.headline
        good = check_rotary(torch.cat([a.cos(), a.sin()], dim=-1), kind="cache", native="vllm",
                            expect=exp)
        assert good.verdict in OK and good.native == L.VLLM
    # a dict member named cos_sin_cache is vLLM's, embed_positions GPT-J's
    assert check_rotary({"cos_sin_cache": swapped}).verdict == "wrong"
    assert check_rotary({"embed_positions": swapped}).verdict in OK
    with pytest.raises(InputError, match="unknown cache layout"):
        check_rotary(swapped, kind="cache", native="flax")


@pytest.mark.parametrize("make", [torchtune_cache, _meta, vllm_cache],
                         ids=["torchtune", "meta", "vllm"])
def test_bugs_named_without_an_expectation(make):
    """Read blind, a cache no variant fits is read again: with cos and sin exchanged (a swapped
    cache), then from its first rows (positions held in float16 round from 2049 on); the bug is
    named against the variant so found.  Before, both were 'outside the model'."""
    n = 4096
    a = _angles(n=n)
    if make is _meta:
        z = torch.polar(torch.ones_like(a), a)
        swapped = torch.complex(z.imag, z.real)
        f16 = torch.polar(torch.ones_like(a), _angles(n=n, f16=True))
    elif make is torchtune_cache:
        swapped = torch.stack([a.sin(), a.cos()], dim=-1)
        f16 = torch.stack([_angles(n=n, f16=True).cos(), _angles(n=n, f16=True).sin()], -1)
    else:
        swapped = None  # a 2-D swapped cache is the other library's layout (test above)
        b = _angles(n=n, f16=True)
        f16 = torch.cat([b.cos(), b.sin()], dim=-1)
    for arr, words in ((swapped, "cos and sin swapped"), (f16, "positions held in float16")):
        if arr is None:
            continue
        rep = check_rotary(arr)
        assert rep.verdict == "wrong" and words in rep.headline, rep.render()
        assert rep.identified._base == 10000
    # falsifiers: a cache of random phases is no RoPE, read any way (never 'wrong'); the good
    # cache is not touched by the second reading
    g = torch.Generator().manual_seed(0)
    r = torch.rand(n, D // 2, generator=g) * 6.283
    assert check_rotary(torch.stack([r.cos(), r.sin()], -1)).verdict == "outside the model"
    assert check_rotary(make(n=n)).verdict in OK
