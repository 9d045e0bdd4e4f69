"""``.npy`` and ``.npz`` tables, read without pickle and sized before they are read.

``.npy``: the magic and header are parsed here (a file that is not a ``.npy`` is named as such,
a pickle as a pickle), the declared size is checked against the file, then the data is
memory-mapped.  ``.npz``: every member is sized from its zip entry and its ``.npy`` header
before any data is decompressed; a stored member is memory-mapped in place, a compressed one is
refused when it expands more than :data:`BOMB_RATIO`-fold past :data:`BOMB_SIZE` (a zip bomb;
``--allow-large`` reads it anyway), else inflated with a cap into an unlinked temporary file that
is memory-mapped, so memory stays small and nothing is left behind.
"""

from __future__ import annotations

import math
import struct
import zipfile
from pathlib import Path

import numpy as np

from .tables import InputError

NPY_MAGIC = b"\x93NUMPY"
#: a compressed member larger than BOMB_SIZE that expands more than BOMB_RATIO-fold is refused
#: without --allow-large: the low bits of a sinusoidal table do not compress (about 1.1-fold)
BOMB_SIZE, BOMB_RATIO = 64 * 2**20, 100


def _npy_header(fh, where: str):
    """``(shape, fortran, dtype, header bytes)`` of the ``.npy`` stream at ``fh``."""
    start = fh.tell()
    magic = fh.read(6)
    if magic != NPY_MAGIC:
        if magic[:1] == b"\x80":
            raise InputError(f"{where}: not a .npy file: it starts like a pickle (byte 0x80); "
                             "pickles are refused")
        raise InputError(f"{where}: not a .npy file (it starts with {magic!r}; a .npy file "
                         "starts with b'\\x93NUMPY')")
    fh.seek(start)
    version = np.lib.format.read_magic(fh)
    shape, fortran, dtype = _read_header(fh, version)
    if dtype.hasobject:
        raise InputError(f"{where}: the array holds Python objects (a pickle); pickles are "
                         "refused")
    return shape, fortran, dtype, fh.tell() - start


def _nbytes(shape, dtype) -> int:
    return math.prod(int(s) for s in shape) * dtype.itemsize


def _declared(shape, dtype) -> str:
    from peproof.guard.limits import human_bytes

    return f"shape {tuple(shape)} of {dtype} ({human_bytes(_nbytes(shape, dtype))})"


def _npy(p: Path, key, limits):
    size = p.stat().st_size
    with open(p, "rb") as fh:
        shape, fortran, dtype, offset = _npy_header(fh, str(p))
    need = _nbytes(shape, dtype)
    if offset + need > size:
        raise InputError(f"{p}: truncated: its header declares {_declared(shape, dtype)}, the "
                         f"file holds {size - offset} bytes of data")
    if need == 0:
        return np.zeros(shape, dtype=dtype), {"memory_mapped": False}
    arr = np.memmap(p, dtype=dtype, mode="r", offset=offset, shape=tuple(shape),
                    order="F" if fortran else "C")
    return arr, {"memory_mapped": True}


def _npz(p: Path, key, limits):
    with zipfile.ZipFile(p) as zf:
        names = [n[:-4] for n in zf.namelist() if n.endswith(".npy")]
        if not names:
            raise InputError(f"{p}: the archive holds no .npy members")
        name = _pick(names, key, p, lambda nm: _npz_shape(zf, nm))
        info = zf.getinfo(name + ".npy")
        if info.compress_type == zipfile.ZIP_STORED:
            mm = _npz_memmap(p, zf, info)
            if mm is not None:
                return mm, {"key": name, "memory_mapped": True}
        return _npz_inflate(p, zf, info, name, limits), {"key": name, "memory_mapped": True,
                                                        "decompressed_to": "a temporary file"}


def _npz_shape(zf, name):
    with zf.open(name + ".npy") as fh:
        shape, _, dtype, _ = _npy_header(fh, f"{zf.filename}: member {name!r}")
    return shape, dtype


def _npz_inflate(p: Path, zf, info, name: str, limits):
    """A compressed member, sized from its headers and decompressed with a cap into an
    unlinked temporary file that is memory-mapped (memory stays small, nothing is left)."""
    import shutil
    import tempfile

    from peproof.guard.limits import human_bytes

    where = f"{p}: member {name!r}"
    with zf.open(info) as fh:
        shape, fortran, dtype, hlen = _npy_header(fh, where)
        need = _nbytes(shape, dtype)
        if need != info.file_size - hlen:
            raise InputError(f"{where}: its header declares {_declared(shape, dtype)} but the "
                             f"archive says {info.file_size - hlen} bytes (corrupt or forged)")
        if need == 0:
            return np.zeros(shape, dtype=dtype)
        packed = max(info.compress_size, 1)
        if need > BOMB_SIZE and need > BOMB_RATIO * packed and not limits.allow_large:
            raise InputError(f"{where} expands {need / packed:.3g}-fold ({human_bytes(packed)} "
                             f"-> {human_bytes(need)}): a zip bomb, or a nearly constant table, "
                             "not a sinusoidal one; pass --allow-large to read it anyway")
        tmpdir = tempfile.gettempdir()
        free = shutil.disk_usage(tmpdir).free
        if need > free - 2**28:
            raise InputError(f"{where} decompresses to {human_bytes(need)}, more than the free "
                             f"space in {tmpdir} ({human_bytes(free)}); set TMPDIR to a larger "
                             "disk or store the table uncompressed (numpy.savez, .npy)")
        limits.enforce(_inflate_estimate(where, need))
        out = tempfile.TemporaryFile(dir=tmpdir)
        try:
            left = need
            while left:
                block = fh.read(min(left, 1 << 22))
                if not block:
                    raise InputError(f"{where} is truncated: {need - left} of {need} bytes")
                out.write(block)
                left -= len(block)
            if fh.read(1):
                raise InputError(f"{where} decompresses to more than its header declares")
            out.flush()
            return np.memmap(out, dtype=dtype, mode="r", offset=0, shape=tuple(shape),
                             order="F" if fortran else "C")
        finally:
            out.close()  # the mapping keeps the (already unlinked) file alive


def _inflate_estimate(where: str, need: int):
    from peproof.guard.limits import Estimate, human_bytes

    return Estimate(where, 2**22, need / 1e8, f"decompressing {human_bytes(need)}")


def _read_header(fh, version):
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(fh)
    return np.lib.format.read_array_header_2_0(fh)


def _npz_memmap(p: Path, zf, info):
    with open(p, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if local[:4] != b"PK\x03\x04":
            return None
        nlen, xlen = struct.unpack("<HH", local[26:30])
        start = info.header_offset + 30 + nlen + xlen
        fh.seek(start)
        shape, fortran, dtype, hlen = _npy_header(fh, f"{p}: member {info.filename!r}")
        data = start + hlen
    need = _nbytes(shape, dtype)
    if data + need > p.stat().st_size or need != info.file_size - hlen:
        raise InputError(f"{p}: member {info.filename!r} is truncated or corrupt")
    if need == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(p, dtype=dtype, mode="r", offset=data, shape=tuple(shape),
                     order="F" if fortran else "C")


def _pick(names, key, p, shape_of):
    if key is not None:
        if key not in names:
            raise InputError(f"{p}: no array named {key!r}; it holds {', '.join(names[:10])}")
        return key
    if len(names) == 1:
        return names[0]
    two_d = []
    for nm in names:
        shape, dtype = shape_of(nm)
        if len([s for s in shape if s != 1]) == 2 and np.dtype(dtype).kind == "f":
            two_d.append(nm)
    if len(two_d) == 1:
        return two_d[0]
    raise InputError(f"{p} holds several arrays ({', '.join(names[:10])}); choose one with "
                     "--key")
