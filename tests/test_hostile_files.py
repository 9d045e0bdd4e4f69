"""Hostile files handed to ``peproof check``, each run as a real process (``conftest.py``).

Every case must end with exit code 2 and one line on stderr naming what was wrong, without a
traceback, within its time bound, under a 3 GiB address-space limit, and without leaving a file
behind (a pickle payload that ran would leave its marker file: that is a stray too).

Classes: empty, truncated, wrong magic, pickle payloads, lying safetensors headers, NaN/inf,
odd d, huge declared shapes, not a regular file, archive bombs and forged archive sizes.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import struct
import zipfile
import zlib

import numpy as np
import pytest

from peproof.oracle import reference

GOOD = reference(64, 16)
CASES: dict[str, tuple] = {}


def case(cls: str, name: str, fragment: str, **kw):
    def deco(make):
        CASES[f"{cls}/{name}"] = (make, fragment, kw)
        return make
    return deco


def npy_bytes(arr, **kw) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr, **kw)
    return buf.getvalue()


def put(root, name, data: bytes) -> str:
    p = root / "work" / name
    p.write_bytes(data)
    return name


class Payload:
    """Unpickling this opens (creates) a marker file: proof that a pickle ran."""

    def __reduce__(self):
        return (open, ("UNPICKLED", "w"))


def safetensors(header: dict | bytes, data: bytes = b"", hlen: int | None = None) -> bytes:
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(h) if hlen is None else hlen) + h + data


def npy_header(shape, descr="<f4") -> bytes:
    """A version 1.0 .npy header declaring ``shape`` (no data follows)."""
    d = repr({"descr": descr, "fortran_order": False, "shape": tuple(shape)}).encode()
    pad = 64 - (10 + len(d) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d) + pad + 1) + d + b" " * pad + b"\n"


# ----------------------------------------------------------------------------- empty
@case("empty", "npy", "empty (0 bytes)")
def _(root):
    return ["check", put(root, "t.npy", b"")]


@case("empty", "csv", "empty (0 bytes)")
def _(root):
    return ["check", put(root, "t.csv", b"")]


@case("empty", "csv with a header only", "no data")
def _(root):
    return ["check", put(root, "t.csv", b"c0,c1\n")]


# ----------------------------------------------------------------------------- truncated
@case("truncated", "npy half", "truncated")
def _(root):
    b = npy_bytes(GOOD)
    return ["check", put(root, "t.npy", b[: len(b) // 2])]


@case("truncated", "npy inside its header", "corrupt")
def _(root):
    return ["check", put(root, "t.npy", npy_bytes(GOOD)[:40])]


@case("truncated", "safetensors data", "truncated")
def _(root):
    data = GOOD.tobytes()
    hdr = {"pe": {"dtype": "F32", "shape": [64, 16], "data_offsets": [0, len(data)]}}
    return ["check", put(root, "t.safetensors", safetensors(hdr, data[:100]))]


@case("truncated", "npz archive", "corrupt")
def _(root):
    p = root / "work" / "t.npz"
    np.savez_compressed(p, pe=GOOD)
    b = p.read_bytes()
    p.write_bytes(b[: len(b) // 2])
    return ["check", "t.npz"]


# ----------------------------------------------------------------------------- wrong magic
@case("wrong magic", "npy of text", "not a .npy file")
def _(root):
    return ["check", put(root, "t.npy", b"hello, this is not an array at all\n" * 4)]


@case("wrong magic", "npy that is a pickle", "pickle")
def _(root):
    return ["check", put(root, "t.npy", pickle.dumps(Payload()))]


@case("wrong magic", "npz that is not a zip", "corrupt")
def _(root):
    return ["check", put(root, "t.npz", b"PK\x05\x06 not a zip archive" * 3)]


@case("wrong magic", "safetensors of text", "safetensors")
def _(root):
    return ["check", put(root, "t.safetensors", b"this is no safetensors file")]


@case("wrong magic", "unknown suffix", "unknown file type")
def _(root):
    return ["check", put(root, "t.xyz", b"hello")]


# ----------------------------------------------------------------------------- pickles
@case("pickle", "pkl with __reduce__", "pickle")
def _(root):
    return ["check", put(root, "t.pkl", pickle.dumps(Payload()))]


@case("pickle", "no suffix with __reduce__", "pickle")
def _(root):
    return ["check", put(root, "table", pickle.dumps(Payload()))]


@case("pickle", "npy object array", "pickle")
def _(root):
    return ["check", put(root, "t.npy", npy_bytes(np.array([Payload()], object),
                                                  allow_pickle=True))]


@case("pickle", "npz object member", "pickle")
def _(root):
    p = root / "work" / "t.npz"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("pe.npy", npy_bytes(np.array([Payload()], object), allow_pickle=True))
    return ["check", "t.npz"]


@case("pickle", "pt with __reduce__", "refused", timeout=120)
def _(root):
    torch = pytest.importorskip("torch")
    torch.save({"pe": torch.zeros(4, 4), "x": Payload()}, root / "work" / "t.pt")
    return ["check", "t.pt"]


# ----------------------------------------------------------------------------- safetensors
@case("lying safetensors", "header length past the end", "header length")
def _(root):
    return ["check", put(root, "t.safetensors", safetensors({}, hlen=2**40))]


@case("lying safetensors", "offsets past the end", "truncated")
def _(root):
    hdr = {"pe": {"dtype": "F32", "shape": [2**20, 512], "data_offsets": [0, 2**31]}}
    return ["check", put(root, "t.safetensors", safetensors(hdr, b"\0" * 64))]


@case("lying safetensors", "offsets not matching the shape", "do not match")
def _(root):
    hdr = {"pe": {"dtype": "F32", "shape": [64, 16], "data_offsets": [0, 10]}}
    return ["check", put(root, "t.safetensors", safetensors(hdr, b"\0" * 10))]


@case("lying safetensors", "header not an object", "not a JSON object")
def _(root):
    return ["check", put(root, "t.safetensors", safetensors(b"[1, 2, 3]"))]


@case("lying safetensors", "negative shape", "corrupt safetensors entry")
def _(root):
    hdr = {"pe": {"dtype": "F32", "shape": [-1, 16], "data_offsets": [0, 64]}}
    return ["check", put(root, "t.safetensors", safetensors(hdr, b"\0" * 64))]


# ----------------------------------------------------------------------------- values
# a readable table holding NaN or infinity is not bad input: the oracle judges it (exit 1,
# "wrong", the diagnosis names the first non-finite entry), in one verdict, no traceback
@case("nan/inf", "NaN in npy", "NaN or infinity", verdict=True)
def _(root):
    t = GOOD.copy()
    t[40, 3] = np.nan
    return ["check", put(root, "t.npy", npy_bytes(t))]


@case("nan/inf", "infinity in csv", "NaN or infinity", verdict=True)
def _(root):
    rows = "\n".join(",".join(repr(float(x)) for x in r) for r in GOOD.astype(float))
    return ["check", put(root, "t.csv", (rows + "\n" + ",".join(["inf"] * 16)).encode())]


@case("odd d", "7 channels", "odd number of channels")
def _(root):
    return ["check", put(root, "t.npy", npy_bytes(GOOD[:, :7].copy()))]


@case("odd d", "--d 7 for a callable", "--d")
def _(root):
    return ["check", "numpy:ones", "--d", "-3"]


# ----------------------------------------------------------------------------- huge shapes
@case("huge declared shape", "npy header 10^12 x 512", "truncated")
def _(root):
    return ["check", put(root, "t.npy", npy_header((10**12, 512)) + b"\0" * 64)]


@case("huge declared shape", "stored npz member 10^12 x 512", "corrupt")
def _(root):
    p = root / "work" / "t.npz"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("pe.npy", npy_header((10**12, 512)) + b"\0" * 64)
    return ["check", "t.npz"]


@case("huge declared shape", "safetensors 10^12 x 512", "truncated")
def _(root):
    n = 10**12 * 512 * 4
    hdr = {"pe": {"dtype": "F32", "shape": [10**12, 512], "data_offsets": [0, n]}}
    return ["check", put(root, "t.safetensors", safetensors(hdr, b"\0" * 64))]


# ----------------------------------------------------------------------------- not a file
@case("not a regular file", "FIFO", "FIFO")
def _(root):
    os.mkfifo(root / "work" / "t.npy")
    return ["check", "t.npy"]


@case("not a regular file", "/dev/zero", "character device")
def _(root):
    return ["check", "/dev/zero"]


@case("not a regular file", "a directory", "directory")
def _(root):
    (root / "work" / "t.npy").mkdir()
    return ["check", "t.npy"]


@case("not a regular file", "a socket", "socket")
def _(root):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(root / "work" / "t.npy"))
    s.close()
    return ["check", "t.npy"]


# ----------------------------------------------------------------------------- archives
def _zip_member(name: str, header: bytes, zeros: int, *, declared: int | None = None):
    """A one-member zip archive: ``header`` then ``zeros`` zero bytes (a whole number of MiB)
    as one deflate stream; ``declared`` forges the uncompressed size the archive states."""
    block = b"\0" * 2**20
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    # after a full flush the compressor forgets what came before: every further MiB of zeros
    # compresses to the same bytes, so a 3 GiB member costs one MiB of compression
    first = co.compress(header + block) + co.flush(zlib.Z_FULL_FLUSH)
    again = co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    data = first + again * (zeros // 2**20 - 1) + co.flush()
    crc, big = zlib.crc32(header), b"\0" * 2**24
    for _ in range(zeros // 2**24):
        crc = zlib.crc32(big, crc)
    for _ in range(zeros % 2**24 // 2**20):
        crc = zlib.crc32(block, crc)
    size = len(header) + zeros if declared is None else declared
    fn = name.encode()
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data), size,
                        len(fn), 0) + fn
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc,
                          len(data), size, len(fn), 0, 0, 0, 0, 0, 0) + fn
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(data), 0)
    return local + data + central + end


@case("archive", "3 MB npz holding a 3 GiB member", "zip bomb", timeout=60)
def _(root):
    rows = 3 * 2**30 // (512 * 4)
    hdr = npy_header((rows, 512))
    put(root, "t.npz", _zip_member("pe.npy", hdr, rows * 512 * 4))
    return ["check", "t.npz"]


@case("archive", "member forged smaller than its data", "corrupt")
def _(root):
    hdr = npy_header((64, 16))
    # the archive and the .npy header both say 4 KiB; the stream inflates to 64 MiB
    put(root, "t.npz", _zip_member("pe.npy", hdr, 64 * 2**20, declared=len(hdr) + 64 * 16 * 4))
    return ["check", "t.npz"]


@case("archive", "member header not matching the archive size", "forged")
def _(root):
    hdr = npy_header((2**20, 512))
    put(root, "t.npz", _zip_member("pe.npy", hdr, 2**20))
    return ["check", "t.npz"]


# ----------------------------------------------------------------------------- the tests
@pytest.fixture(scope="module", autouse=True)
def _prefetch(hostile):
    for key, (make, _, kw) in CASES.items():
        hostile.start(key, make, **{k: v for k, v in kw.items() if k != "verdict"})


@pytest.mark.parametrize("key", list(CASES))
def test_refused_in_one_line(hostile, key):
    _, fragment, kw = CASES[key]
    r = hostile.result(key)
    if kw.get("verdict"):  # judged, not refused
        assert r.rc == 1, (r.rc, r.err[-2000:])
        assert "Traceback" not in r.err and not r.err.strip(), r.err[-2000:]
        assert "verdict    : wrong" in r.out and fragment in r.out, r.out[:2000]
        assert not r.stray, r.stray
    else:
        hostile.refused(r, fragment, seconds=kw.get("timeout", 30) * 0.9)
    assert r.max_rss < 2**30, f"{key}: peak memory {r.max_rss / 2**20:.0f} MiB"


def test_every_class_has_cases():
    classes = {}
    for key in CASES:
        classes.setdefault(key.split("/")[0], []).append(key)
    assert len(classes) >= 10 and all(len(v) >= 2 for v in classes.values()), classes
