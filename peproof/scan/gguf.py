"""Reading a llama.cpp GGUF file: its metadata and its tensors, checked before they are read.

The ``gguf`` package's :class:`gguf.GGUFReader` trusts the file: it builds one object per
metadata entry, per array element and per tensor the header claims, and slices its memory map
wherever an offset points.  So the whole header is first walked here over a memory map
(:func:`precheck`, ``struct`` on ``mmap``, nothing allocated from a count): the magic and
version, every count against the bytes left (a key/value entry takes at least 13 bytes, a
tensor description 32), every string and array length against the file, at most
:data:`MAX_STRINGS` strings in all, no nested arrays, tensors of at most 4 dimensions of a type
``gguf`` knows, whose bytes (from ``GGML_QUANT_SIZES``) lie inside the file at offsets aligned to
``general.alignment``.  Only then is the file handed to :class:`gguf.GGUFReader`, which
memory-maps it.  Float tensors (F32, F16, BF16, F64) are read as memory-mapped arrays in NumPy
order (GGUF lists dimensions innermost first); quantised ones are listed with their type and not
read (rope factor tensors are always stored F32 by the converters).
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


def precheck(p: Path) -> dict:
    """Walks the header of ``p``; returns ``{"tensors": n, "kv": n, "alignment": a}`` or raises
    an :class:`InputError` naming the first inconsistency."""
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
        strings, alignment = 0, 32
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
                elif it in SCALARS:
                    w.take(count * SCALARS[it][1], f"the array {key}")
                else:
                    raise _bad(p, f"{key}: an array of item type {it} (arrays of scalars or "
                               "strings are read)")
            elif vt == 8:
                strings += 1
                w.string(f"the value of {key}")
            elif vt in SCALARS:
                fmt, n = SCALARS[vt]
                v = w.unpack(fmt, n, f"the value of {key}")
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
    return {"tensors": n_t, "kv": n_kv, "alignment": alignment}


def read_gguf(p: Path) -> tuple[list[Tensor], dict]:
    """The tensors of ``p`` and its metadata (scalars and strings; arrays of numbers as lists;
    string arrays by length only), after :func:`precheck`."""
    try:
        import gguf
    except ImportError:
        raise InputError(f"{p}: reading GGUF files needs the gguf package; install the extra "
                         "(pip install 'peproof[formats]')") from None
    precheck(p)
    try:
        r = gguf.GGUFReader(p, "r")
    except (ValueError, IndexError, KeyError, TypeError, OSError) as exc:
        raise _bad(p, f"{type(exc).__name__}: {str(exc)[:200]}") from None
    meta = {}
    for key, f in r.fields.items():
        if key.startswith("GGUF.") or not f.types:
            continue
        t0 = f.types[0]
        if t0 == gguf.GGUFValueType.ARRAY:
            if len(f.types) > 1 and f.types[1] == gguf.GGUFValueType.STRING:
                meta[key] = f"<{len(f.data)} strings>"
            elif len(f.data) <= 4096:
                meta[key] = [x.item() for x in (f.parts[i][0] for i in f.data)]
            else:
                meta[key] = f"<array of {len(f.data)}>"
        elif t0 == gguf.GGUFValueType.STRING:
            meta[key] = bytes(f.parts[-1]).decode("utf-8", "replace")
        else:
            meta[key] = f.parts[-1][0].item()
    out = []
    for t in r.tensors:
        kind = t.tensor_type.name
        dt = FLOATS.get(kind, kind.lower())
        shape = tuple(int(s) for s in reversed(t.shape.tolist()))
        out.append(Tensor(t.name, shape, dt, str(p), _opener(t.data, kind, shape)))
    return out, meta


def _opener(data, kind: str, shape):
    def open_() -> np.ndarray:
        if kind == "BF16":
            import ml_dtypes

            return np.asarray(data).view(np.uint16).view(ml_dtypes.bfloat16).reshape(shape)
        if kind in FLOATS:
            return data.reshape(shape)
        raise InputError(f"a {kind} (quantised) tensor, not read")

    return open_
