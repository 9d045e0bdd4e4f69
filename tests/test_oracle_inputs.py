"""Hostile input to ``peproof check``: every case is one line on stderr and exit code 2.

Shapes, dtypes, NaN and infinity, empty, truncated and corrupted files, pickles (refused, never
loaded), broken module:function targets, and a file larger than the memory the process may use
(streamed).
"""

import json
import os
import pickle
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile

import numpy as np
import pytest

from peproof.cli import main
from peproof.oracle import check, reference
from peproof.oracle.common.exact import Plan
from peproof.oracle.sinusoidal.variant import PAPER

OK = reference(64, 16)


def run_cli(*args):
    """The command line in a fresh process (as the ``peproof`` script runs it)."""
    code = "import sys; from peproof.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})


def rc_and_line(capsys, *args):
    rc = main([*map(str, args)])
    err = capsys.readouterr().err.strip()
    return rc, err


def write_safetensors(path, tensors, *, header=None, cut=0, raw_header=None):
    """A safetensors file written by hand (so the tests need no extra package)."""
    codes = {"float32": "F32", "float16": "F16", "float64": "F64", "int64": "I64",
             "bfloat16": "BF16"}
    hdr, blobs, off = {}, [], 0
    for name, arr in tensors.items():
        b = np.ascontiguousarray(arr).tobytes()
        hdr[name] = {"dtype": codes[arr.dtype.name], "shape": list(arr.shape),
                     "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    if header:
        hdr.update(header)
    h = raw_header if raw_header is not None else json.dumps(hdr).encode()
    data = struct.pack("<Q", len(h)) + h + b"".join(blobs)
    path.write_bytes(data[:len(data) - cut] if cut else data)
    return path


def save(tmp_path, name, arr, **kw):
    p = tmp_path / name
    np.save(p, arr, **kw)
    return p


@pytest.mark.parametrize("arr,fragment", [
    (np.zeros(10, np.float32), "expected 2-D"),
    (np.zeros((2, 3, 8), np.float32), "expected 2-D"),
    (np.arange(64).reshape(8, 8), "holds integers"),
    (np.zeros((8, 8), np.complex64), "complex"),
    (np.zeros((10, 7), np.float32), "odd number of channels"),
    (np.zeros((0, 8), np.float32), "empty"),
    (np.array([1, "a", None], dtype=object), "pickle"),
])
def test_bad_arrays(tmp_path, capsys, arr, fragment):
    """As a sinusoidal table (``--kind table``) each is bad input.  Under ``--kind auto`` a
    vector, a (2, S, d) stack or a complex array is read as a rotary artefact instead
    (inv_freq, a cos/sin stack, freqs_cis): an all-zero one is then a verdict, never "wrong"."""
    p = save(tmp_path, "t.npy", arr, allow_pickle=arr.dtype == object)
    rc, err = rc_and_line(capsys, "check", "--kind", "table", p)
    assert rc == 2 and fragment in err and len(err.splitlines()) == 1, err
    if fragment in ("expected 2-D", "complex"):
        rc = main(["check", str(p)])
        out = capsys.readouterr().out
        assert rc != 0 and "outside the model" in out and "wrong" not in out.split("\n")[1]
    else:
        rc, err2 = rc_and_line(capsys, "check", p)
        assert rc == 2 and fragment in err2 and len(err2.splitlines()) == 1, err2


@pytest.mark.parametrize("arr", [
    np.where(np.eye(8, dtype=bool), np.nan, 0.5).astype(np.float32),
    np.where(np.eye(8, dtype=bool), np.inf, 0.5)])
def test_nan_and_infinity_are_a_verdict_not_bad_input(tmp_path, capsys, arr):
    """A table holding NaN or infinity was computed wrong (float16 overflow, an unfilled
    buffer): a verdict (exit 1) that names it, not a refusal to look."""
    rc = main(["check", str(save(tmp_path, "t.npy", arr)), "--json"])
    env = json.loads(capsys.readouterr().out)
    assert rc == 1 and env["verdict"]["code"] in ("wrong", "outside_model")
    assert "NaN or infinity" in " ".join(env["verdict"]["diagnoses"])


def test_nan_deep_in_a_large_table_is_found(tmp_path, capsys):
    T = reference(3000, 16)
    T[2900, 5] = np.nan
    rc = main(["check", str(save(tmp_path, "t.npy", T)), "--json"])
    env = json.loads(capsys.readouterr().out)
    assert rc == 1 and env["verdict"]["code"] == "wrong"
    assert "first at row 2900, position 2900" in env["verdict"]["diagnoses"][0]


def test_pickles_are_refused_and_never_loaded(tmp_path, capsys):
    marker = tmp_path / "was_unpickled"

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    for name in ("t.pkl", "t.pickle"):
        p = tmp_path / name
        p.write_bytes(pickle.dumps(Boom()))
        rc, err = rc_and_line(capsys, "check", p)
        assert rc == 2 and "pickle" in err
    bare = tmp_path / "noext"
    bare.write_bytes(pickle.dumps(Boom()))
    rc, err = rc_and_line(capsys, "check", bare)
    assert rc == 2 and "pickle" in err
    # an .npy holding a pickled object array
    rc, err = rc_and_line(capsys, "check", save(tmp_path, "o.npy", np.array([Boom()], object),
                                                  allow_pickle=True))
    assert rc == 2 and "pickle" in err
    assert not marker.exists()


@pytest.mark.parametrize("mangle,fragment", [
    (lambda b: b"", "empty"),
    (lambda b: b[: len(b) // 2], "corrupt"),
    (lambda b: b"\x93NUMPY\x01\x00garbage" + b[20:], "corrupt"),
    (lambda b: b[:60], "corrupt"),
])
def test_truncated_or_corrupted_npy(tmp_path, capsys, mangle, fragment):
    good = save(tmp_path, "g.npy", OK).read_bytes()
    p = tmp_path / "bad.npy"
    p.write_bytes(mangle(good))
    rc, err = rc_and_line(capsys, "check", p)
    assert rc == 2 and fragment in err and len(err.splitlines()) == 1, err


def test_safetensors_good_and_bad(tmp_path, capsys):
    import ml_dtypes

    good = write_safetensors(tmp_path / "g.safetensors", {"pe": OK})
    assert main(["check", str(good)]) == 0
    bf = write_safetensors(tmp_path / "bf.safetensors",
                           {"pe": reference(64, 16, dtype="bfloat16")})
    assert main(["check", str(bf)]) == 0
    assert reference(2, 4, dtype="bfloat16").dtype == np.dtype(ml_dtypes.bfloat16)
    capsys.readouterr()
    cases = {
        "truncated": (write_safetensors(tmp_path / "a.safetensors", {"pe": OK}, cut=100),
                      "truncated"),
        "header length": (write_safetensors(tmp_path / "b.safetensors", {"pe": OK},
                                            raw_header=b"{" * 40), "corrupt"),
        "offsets": (write_safetensors(tmp_path / "c.safetensors", {"pe": OK}, header={
            "pe": {"dtype": "F32", "shape": [64, 16], "data_offsets": [0, 12]}}),
            "do not match"),
        "integers": (write_safetensors(tmp_path / "d.safetensors",
                                       {"pe": np.arange(64).reshape(8, 8)}), "integers"),
        "two tensors": (write_safetensors(tmp_path / "e.safetensors",
                                          {"a": OK, "b": OK}), "--key"),
    }
    huge = tmp_path / "f.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**60) + b"{}")
    cases["absurd length"] = (huge, "corrupt")
    for name, (p, fragment) in cases.items():
        rc, err = rc_and_line(capsys, "check", p)
        assert rc == 2 and fragment in err and len(err.splitlines()) == 1, (name, err)
    assert main(["check", str(cases["two tensors"][0]), "--key", "b"]) == 0


def test_npz_members(tmp_path, capsys):
    p = tmp_path / "t.npz"
    np.savez(p, pe=OK, idx=np.arange(3))
    assert main(["check", str(p)]) == 0  # the only 2-D float member is chosen
    capsys.readouterr()
    np.savez_compressed(tmp_path / "c.npz", a=OK, b=OK)
    rc, err = rc_and_line(capsys, "check", tmp_path / "c.npz")
    assert rc == 2 and "--key" in err
    assert main(["check", str(tmp_path / "c.npz"), "--key", "b"]) == 0
    capsys.readouterr()
    rc, err = rc_and_line(capsys, "check", tmp_path / "c.npz", "--key", "zz")
    assert rc == 2 and "no array named" in err
    bad = tmp_path / "bad.npz"
    bad.write_bytes(p.read_bytes()[:200])
    rc, err = rc_and_line(capsys, "check", bad)
    assert rc == 2 and len(err.splitlines()) == 1


def test_npz_stored_members_are_memory_mapped(tmp_path):
    from peproof.oracle.common.loaders import load

    np.savez(tmp_path / "t.npz", pe=OK)
    arr, info = load(str(tmp_path / "t.npz"))
    assert info["memory_mapped"] and np.array_equal(np.asarray(arr), OK)


@pytest.mark.parametrize("content,fragment", [
    ("0.1,0.2\n0.3\n", "not a numeric table"),
    ("a,b\nc,d\n", "not a numeric table"),
    ("# only a comment\n\n", "no data lines"),
    ("x,y\n", "no data rows"),
])
def test_bad_text(tmp_path, capsys, content, fragment):
    p = tmp_path / "t.csv"
    p.write_text(content)
    rc, err = rc_and_line(capsys, "check", p)
    assert rc == 2 and fragment in err, err


def test_text_tables_with_header_and_printed_precision(tmp_path, capsys):
    T = reference(40, 8, dtype="float64")
    p = tmp_path / "t.csv"
    np.savetxt(p, T, delimiter=",", header=",".join(f"c{j}" for j in range(8)), comments="")
    assert main(["check", str(p)]) == 0
    capsys.readouterr()
    q = tmp_path / "t.txt"
    np.savetxt(q, T, fmt="%.6f")
    assert main(["check", str(q), "--json"]) == 0
    env = json.loads(capsys.readouterr().out)
    assert env["input"]["dtype"] == "fixed6"


def test_pt_files(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    torch.save(torch.from_numpy(OK), tmp_path / "t.pt")
    assert main(["check", str(tmp_path / "t.pt")]) == 0
    torch.save({"pe": torch.from_numpy(OK), "step": 3}, tmp_path / "sd.pt")
    assert main(["check", str(tmp_path / "sd.pt")]) == 0
    capsys.readouterr()
    marker = tmp_path / "was_unpickled"

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    torch.save({"pe": torch.from_numpy(OK), "evil": Boom()}, tmp_path / "evil.pt")
    rc, err = rc_and_line(capsys, "check", tmp_path / "evil.pt")
    assert rc == 2 and "refused" in err and not marker.exists()
    (tmp_path / "junk.pt").write_bytes(b"PK\x03\x04" + os.urandom(200))
    rc, err = rc_and_line(capsys, "check", tmp_path / "junk.pt")
    assert rc == 2 and len(err.splitlines()) == 1


def test_pt_without_torch_names_the_extra(tmp_path, capsys, monkeypatch):
    p = tmp_path / "t.pt"
    p.write_bytes(b"PK\x03\x04 not really")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    rc, err = rc_and_line(capsys, "check", p)
    assert rc == 2 and "peproof[peers]" in err


@pytest.mark.parametrize("target,fragment", [
    ("no_such_module_xyz:f", "cannot import"),
    ("math:no_such_function", "no attribute"),
    ("math:pi", "not callable"),
    ("numpy:zeros", "failed"),  # zeros(2048, 16): 16 is not a dtype
    ("builtins:str", "holds"),  # str(2048, 16) fails; or returns text: both one line
])
def test_bad_module_function(capsys, target, fragment):
    rc, err = rc_and_line(capsys, "check", target, "--d", "16")
    assert rc == 2 and len(err.splitlines()) == 1, err


def test_callable_without_d_and_bad_options(tmp_path, capsys):
    rc, err = rc_and_line(capsys, "check", "numpy:ones")
    assert rc == 2 and "--d" in err
    p = save(tmp_path, "t.npy", OK)
    for args, fragment in (((p, "--d", "8"), "d=8"), ((p, "--d", "0"), "--d"),
                           ((p, "--layout", "zigzag"), "layout must be one of"),
                           ((p, "--expect", "rope"), "family must be one of"),
                           ((p, "--positions", "1:x"), "positions"),
                           ((p, "--dtype", "float8"), "dtype must be one of"),
                           ((tmp_path, ), "directory"), ((tmp_path / "none.npy",), "no such"),
                           ((tmp_path / "t.xyz",), "")):
        if str(args[0]).endswith(".xyz"):
            args[0].write_bytes(b"hello")
            fragment = "unknown file type"
        rc, err = rc_and_line(capsys, "check", *args)
        assert rc == 2 and fragment in err and len(err.splitlines()) == 1, (args, err)


def test_one_dimensional_with_d_is_reshaped(tmp_path):
    assert main(["check", str(save(tmp_path, "t.npy", OK.ravel())), "--d", "16"]) == 0


@pytest.mark.parametrize("name", ["t.npy", "t.pkl", "t.safetensors"])
def test_no_traceback_in_a_real_process(tmp_path, name):
    p = tmp_path / name
    p.write_bytes(b"\x80\x04garbage that is not what it claims" * 3)
    r = run_cli("check", p)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def _mapped_table(path, n, d=64):
    plan = Plan(PAPER.encoding(d))
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n, d))
    for k in range(0, n, 16384):
        rows = np.arange(k, min(k + 16384, n), dtype=np.float64)
        mm[k:k + 16384] = plan.values(rows).astype(np.float32)
    mm.flush()
    del mm
    return np.load(path, mmap_mode="r")


def test_memory_mapped_tables_are_streamed(tmp_path):
    """The memory check() allocates does not grow with the rows of a memory-mapped table."""
    peaks = []
    for n in (16384, 131072):
        table = _mapped_table(tmp_path / f"t{n}.npy", n)
        check(table[:64])
        tracemalloc.start()
        rep = check(table)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert rep.dtype.name == "float32" and rep.ok
        peaks.append(peak)
    assert peaks[1] < 1.3 * peaks[0] + 2**20, peaks  # 8x the rows, about the same memory
    assert peaks[1] < 0.5 * table.nbytes


def test_file_larger_than_the_allowed_memory(tmp_path):
    """A 384 MiB table checked by a process allowed 150 MiB more data than it already uses.

    The child imports everything, reads its data size (VmData), then caps RLIMIT_DATA at that
    plus 150 MiB: loading the file whole is refused by the kernel, streaming it is not.
    """
    n, d = 786432, 64
    p = tmp_path / "huge.npy"
    try:
        table = _mapped_table(p, n, d)
    except OSError as exc:
        pytest.skip(f"no room for the test file: {exc}")
    del table
    code = textwrap.dedent(f"""
        import re, resource, sys
        import numpy as np
        import peproof.oracle, peproof.cli, peproof.commands.check  # noqa: F401
        vm = int(re.search(r"VmData:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
        cap = vm * 1024 + 150 * 2**20
        resource.setrlimit(resource.RLIMIT_DATA, (cap, resource.getrlimit(
            resource.RLIMIT_DATA)[1]))
        try:
            np.ones({p.stat().st_size} // 8)
            sys.exit("the limit does not hold")
        except MemoryError:
            pass
        from peproof.cli import main
        sys.exit(main(["check", {str(p)!r}, "--json"]))
    """)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to read the data size")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert r.returncode in (0, 1), r.stderr[-2000:]
    env = json.loads(r.stdout)
    assert env["input"]["memory_mapped"] and env["summary"]["rows"] == n
    assert env["identified"]["name"].startswith("paper family, base 10000, interleaved")


def test_npz_stored_member_checked_by_zip_offsets(tmp_path):
    p = tmp_path / "t.npz"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_STORED) as zf:
        with zf.open("pe.npy", "w") as fh:
            np.lib.format.write_array(fh, OK)
    assert main(["check", str(p)]) == 0
