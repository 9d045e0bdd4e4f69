"""Reading a llama.cpp GGUF file: its metadata and its tensors, checked before they are read.

The ``gguf`` package's :class:`gguf.GGUFReader` trusts the file and builds objects for all of
it: one per metadata entry and per element of every string array (a 15 MB file holding 800 000
vocabulary strings took it 97 s and 1.1 GB).  So the header is walked here over a memory map
(``struct`` on ``mmap``; nothing is allocated from a count): the magic and version, every count
against the bytes left (a key/value entry takes at least 13 bytes, a tensor description 32),
every string and array length against the file, at most :data:`MAX_STRINGS` strings in all, no
nested arrays, tensors of at most 4 dimensions of a type the ``gguf`` package knows, sized by
its ``GGML_QUANT_SIZES``, whose bytes lie inside the file at offsets aligned to
``general.alignment``.  Scalars, strings and numeric arrays of at most 4096 entries are kept as
metadata (string arrays by their length).  Float tensors (F32, F16, BF16, F64) are memory-mapped
in NumPy order (GGUF lists dimensions innermost first); quantised ones are listed with their
type and not read (converters store rope factor tensors as F32).  ``tests/test_scan_gguf.py``
checks this reading against :class:`gguf.GGUFReader` on the files it writes.
"""

from __future__ import annotations

import math
import mmap
import struct
from pathlib import Path

import numpy as np

from .oracle_api import InputError
from .tensor import Tensor

MAGIC = b"GGUF"
MAX_STRINGS = 4_000_000  # all strings of the metadata (Llama 3's vocabulary and merges: 408k)
MAX_KEY = 65536
MAX_DIMS = 4
#: GGUF metadata value types: code -> (struct format, size); 8 string, 9 array
SCALARS = {0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4),
           6: ("<f", 4), 7: ("?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8)}
FLOATS = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64"}


def _bad(p: Path, what: str) -> InputError:
    return InputError(f"{p}: not a readable GGUF file ({what}); give a llama.cpp .gguf model")


class _Walk:
    """A cursor over the memory-mapped file; every read is checked against its end."""

    def __init__(self, p: Path, buf):
        self.p, self.buf, self.pos, self.size = p, buf, 0, len(buf)

    def take(self, n: int, what: str) -> int:
        if n < 0 or self.pos + n > self.size:
            raise _bad(self.p, f"{what} runs past the end of the file at byte {self.pos} "
                       f"(claims {n} bytes, {self.size - self.pos} left)")
        at = self.pos
        self.pos += n
        return at

    def unpack(self, fmt: str, size: int, what: str):
        return struct.unpack_from(fmt, self.buf, self.take(size, what))[0]

    def string(self, what: str, limit: int | None = None) -> int:
        """Skips a string; returns its length (checked against ``limit`` and the file)."""
        n = self.unpack("<Q", 8, f"the length of {what}")
        if limit is not None and n > limit:
            raise _bad(self.p, f"{what} of {n} bytes (at most {limit})")
        self.take(n, what)
        return n

    def text(self, what: str) -> str:
        n = self.string(what, MAX_KEY)
        try:
            return bytes(self.buf[self.pos - n:self.pos]).decode("utf-8")
        except UnicodeDecodeError:
            raise _bad(self.p, f"{what} is not UTF-8") from None


def precheck(p: Path) -> tuple[dict, list, int]:
    """Walks the header of ``p``; returns its metadata (scalars, strings, arrays of at most
    4096 numbers; longer arrays and string arrays by their length), its tensor descriptions
    ``(name, dims, type, offset, bytes)`` and the data section's start, or raises an
    :class:`InputError` naming the first inconsistency."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    size = p.stat().st_size
    if size < 24:
        raise _bad(p, f"{size} bytes, shorter than a GGUF header")
    with open(p, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        w = _Walk(p, buf)
        if bytes(buf[:4]) != MAGIC:
            raise _bad(p, f"magic {bytes(buf[:4])!r}, not {MAGIC!r}")
        w.take(4, "the magic")
        version = w.unpack("<I", 4, "the version")
        if version not in (2, 3):
            raise _bad(p, f"version {version}; versions 2 and 3 are read")
        n_t = w.unpack("<Q", 8, "the tensor count")
        n_kv = w.unpack("<Q", 8, "the metadata count")
        if n_kv * 13 + n_t * 32 > size - w.pos:
            raise _bad(p, f"{n_t} tensors and {n_kv} metadata entries claimed in a file of "
                       f"{size} bytes")
        strings, alignment, meta = 0, 32, {}
        for k in range(n_kv):
            key = w.text(f"metadata key {k}")
            vt = w.unpack("<I", 4, f"the type of {key}")
            if vt == 9:
                it = w.unpack("<I", 4, f"the item type of {key}")
                count = w.unpack("<Q", 8, f"the length of {key}")
                if it == 8:
                    if count > (size - w.pos) // 8 or strings + count > MAX_STRINGS:
                        raise _bad(p, f"{key}: an array of {count} strings (at most "
                                   f"{MAX_STRINGS} strings in all, 8 bytes each at least)")
                    strings += count
                    for i in range(count):
                        w.string(f"{key}[{i}]")
                    meta[key] = f"<{count} strings>"
                elif it in SCALARS:
                    at = w.take(count * SCALARS[it][1], f"the array {key}")
                    meta[key] = (list(struct.unpack_from(f"<{count}{SCALARS[it][0][-1]}", buf,
                                                         at)) if count <= 4096 else
                                 f"<array of {count}>")
                else:
                    raise _bad(p, f"{key}: an array of item type {it} (arrays of scalars or "
                               "strings are read)")
            elif vt == 8:
                strings += 1
                n = w.string(f"the value of {key}")
                meta[key] = bytes(buf[w.pos - n:w.pos][:MAX_KEY]).decode("utf-8", "replace")
            elif vt in SCALARS:
                fmt, n = SCALARS[vt]
                v = w.unpack(fmt, n, f"the value of {key}")
                meta[key] = v
                if key == "general.alignment":
                    if vt != 4 or not (0 < v <= 2**16 and v & (v - 1) == 0):
                        raise _bad(p, f"general.alignment {v} (a power of two up to 65536)")
                    alignment = v
            else:
                raise _bad(p, f"{key}: value type {vt} unknown")
        infos, names = [], set()
        for k in range(n_t):
            name = w.text(f"the name of tensor {k}")
            if name in names:
                raise _bad(p, f"tensor {name!r} twice")
            names.add(name)
            nd = w.unpack("<I", 4, f"the dimension count of {name}")
            if not 1 <= nd <= MAX_DIMS:
                raise _bad(p, f"tensor {name!r} of {nd} dimensions (1 to {MAX_DIMS})")
            dims = [w.unpack("<Q", 8, f"the shape of {name}") for _ in range(nd)]
            code = w.unpack("<I", 4, f"the type of {name}")
            off = w.unpack("<Q", 8, f"the offset of {name}")
            try:
                gt = GGMLQuantizationType(code)
                block, tsize = GGML_QUANT_SIZES[gt]
            except (ValueError, KeyError):
                raise _bad(p, f"tensor {name!r} of unknown type {code}") from None
            n = math.prod(dims)
            if n == 0 or n > 2**60 or dims[0] % block:
                raise _bad(p, f"tensor {name!r} of shape {dims} for type {gt.name}")
            infos.append((name, dims, gt, off, n // block * tsize))
        data0 = -(-w.pos // alignment) * alignment
        for name, dims, gt, off, nbytes in infos:
            if off % alignment or data0 + off + nbytes > size:
                raise _bad(p, f"tensor {name!r} ({gt.name}, shape {dims}) needs bytes "
                           f"{data0 + off} to {data0 + off + nbytes}, the file has {size}"
                           + (f" (offset not aligned to {alignment})" if off % alignment else ""))
    return meta, infos, data0


def read_gguf(p: Path) -> tuple[list[Tensor], dict]:
    """The tensors of ``p`` (memory-mapped, NumPy order) and its metadata, after
    :func:`precheck` has checked every offset against the file."""
    try:
        import gguf  # noqa: F401  (its type table sizes the tensors in precheck)
    except ImportError:
        raise InputError(f"{p}: reading GGUF files needs the gguf package; install the extra "
                         "(pip install 'peproof[formats]')") from None
    meta, infos, data0 = precheck(p)
    out = []
    for name, dims, gt, off, _nbytes in infos:
        kind = gt.name
        shape = tuple(int(d) for d in reversed(dims))
        out.append(Tensor(name, shape, FLOATS.get(kind, kind.lower()), str(p),
                          _opener(p, kind, shape, data0 + off)))
    return out, meta


NUMPY = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2"}


def _opener(p: Path, kind: str, shape, offset: int):
    def open_() -> np.ndarray:
        if kind not in NUMPY:
            raise InputError(f"a {kind} (quantised) tensor, not read")
        arr = np.memmap(p, dtype=np.dtype(NUMPY[kind]), mode="r", offset=offset, shape=shape)
        if kind == "BF16":
            import ml_dtypes

            arr = arr.view(ml_dtypes.bfloat16)
        return arr

    return open_
