"""Reading the initializers of an ONNX model (and its ``Constant`` nodes) as a state dict.

``onnx.load`` parses the whole protobuf into memory, copying every tensor's bytes, and protobuf
trusts the nesting it is given.  Here the file is memory-mapped and walked field by field
(the protobuf wire format: a varint key, then a varint, 4 or 8 bytes, or a length-delimited
run): ``ModelProto.graph`` -> ``GraphProto.initializer`` and ``GraphProto.node`` (``Constant``:
its ``value`` attribute) -> ``TensorProto``; every other field is skipped by its length, so a
deeply nested or oversized part the scan does not need is never parsed, and every length is
checked against the bytes left before it is used.  A tensor's ``raw_data`` (or packed
``float_data`` / ``double_data``) stays in the file: the tensor is a ``numpy.memmap`` over it,
its size checked against its dims and type.  External data (``data_location`` EXTERNAL:
``location``, ``offset``, ``length``) is read the same way from a file in the model's folder
(never outside it, never a link out of it); a missing or short external file is refused.  At
most :data:`MAX_TENSORS` tensors, :data:`MAX_DIMS` dims each.
"""

from __future__ import annotations

import math
import mmap
import os
from pathlib import Path

import numpy as np

from .oracle_api import InputError
from .tensor import Tensor

MAX_TENSORS = 1_000_000
MAX_DIMS = 16
MAX_NAME = 65536
#: TensorProto.DataType -> (numpy dtype, the scan's dtype name)
TYPES = {1: ("<f4", "float32"), 10: ("<f2", "float16"), 11: ("<f8", "float64"),
         16: ("<u2", "bfloat16"), 14: ("<c8", "complex64"), 15: ("<c16", "complex128"),
         2: ("u1", "uint8"), 3: ("i1", "int8"), 4: ("<u2", "uint16"), 5: ("<i2", "int16"),
         6: ("<i4", "int32"), 7: ("<i8", "int64"), 9: ("?", "bool"), 12: ("<u4", "uint32"),
         13: ("<u8", "uint64")}


def _bad(p: Path, what: str) -> InputError:
    return InputError(f"{p}: not a readable ONNX model ({what}); give an .onnx file saved by "
                      "onnx.save or torch.onnx.export")


class _Msg:
    """The fields of one protobuf message in ``buf[start:end]``, each read on demand."""

    def __init__(self, p: Path, buf, start: int, end: int):
        self.p, self.buf, self.start, self.end = p, buf, start, end

    def _varint(self, pos: int, end: int) -> tuple[int, int]:
        v = shift = 0
        while True:
            if pos >= end or shift > 63:
                raise _bad(self.p, f"a truncated or overlong varint at byte {pos}")
            b = self.buf[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v, pos

    def fields(self):
        """``(number, wire type, value)``: an int for varints and fixed fields, ``(start,
        end)`` of a length-delimited one (its length checked against the message)."""
        pos, end = self.start, self.end
        while pos < end:
            key, pos = self._varint(pos, end)
            num, wt = key >> 3, key & 7
            if num == 0:
                raise _bad(self.p, f"field number 0 at byte {pos}")
            if wt == 0:
                v, pos = self._varint(pos, end)
                yield num, wt, v
            elif wt in (1, 5):
                n = 8 if wt == 1 else 4
                if pos + n > end:
                    raise _bad(self.p, f"a fixed field past its message's end at byte {pos}")
                yield num, wt, int.from_bytes(self.buf[pos:pos + n], "little")
                pos += n
            elif wt == 2:
                n, pos = self._varint(pos, end)
                if n > end - pos:
                    raise _bad(self.p, f"a field of {n} bytes at byte {pos} where "
                               f"{end - pos} are left in its message")
                yield num, wt, (pos, pos + n)
                pos += n
            else:
                raise _bad(self.p, f"wire type {wt} at byte {pos} (groups are not ONNX)")

    def sub(self, span) -> _Msg:
        return _Msg(self.p, self.buf, *span)

    def text(self, span) -> str:
        a, b = span
        if b - a > MAX_NAME:
            raise _bad(self.p, f"a name of {b - a} bytes (at most {MAX_NAME})")
        return bytes(self.buf[a:b]).decode("utf-8", "replace")


def read_onnx(p: Path) -> tuple[list[Tensor], list[str]]:
    """The float (and other) tensors of the model ``p`` and the external data files read."""
    size = p.stat().st_size
    with open(p, "rb") as fh:
        buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    model = _Msg(p, buf, 0, size)
    graph = None
    for num, wt, v in model.fields():
        if num == 7 and wt == 2:
            graph = model.sub(v)
        elif num == 7:
            raise _bad(p, "ModelProto.graph is not a message")
    if graph is None:
        raise _bad(p, "no graph")
    out: list[Tensor] = []
    files: set[str] = set()
    for num, wt, v in graph.fields():
        if wt != 2:
            continue
        if num == 5:  # initializer
            out.append(_tensor(graph.sub(v), "", files))
        elif num == 1:  # node: a Constant's value
            out.extend(_constant(graph.sub(v), files))
        if len(out) > MAX_TENSORS:
            raise _bad(p, f"more than {MAX_TENSORS} tensors")
    if not out:
        raise InputError(f"{p}: the ONNX model holds no initializers or constants")
    return out, sorted(files)


def _constant(node: _Msg, files: set) -> list[Tensor]:
    op, outputs, value = "", [], None
    for num, wt, v in node.fields():
        if wt != 2:
            continue
        if num == 4:
            op = node.text(v)
        elif num == 2:
            outputs.append(node.text(v))
        elif num == 5:
            value = value or _value_attribute(node.sub(v))
    if op != "Constant" or value is None:
        return []
    return [_tensor(value, outputs[0] if outputs else "", files)]


def _value_attribute(attr: _Msg):
    name, t = "", None
    for num, wt, v in attr.fields():
        if num == 1 and wt == 2:
            name = attr.text(v)
        elif num == 5 and wt == 2:
            t = attr.sub(v)
    return t if name == "value" else None


def _tensor(msg: _Msg, default_name: str, files: set) -> Tensor:
    p = msg.p
    dims: list[int] = []
    code, name, raw, packed, loc, ext = 1, default_name, None, None, 0, {}
    for num, wt, v in msg.fields():
        if num == 1 and wt == 0:
            dims.append(v)
        elif num == 1 and wt == 2:  # packed dims
            sub = _Msg(p, msg.buf, *v)
            pos = v[0]
            while pos < v[1]:
                d, pos = sub._varint(pos, v[1])
                dims.append(d)
        elif num == 2 and wt == 0:
            code = v
        elif num == 8 and wt == 2:
            name = msg.text(v) or default_name
        elif num == 9 and wt == 2:
            raw = v
        elif num in (4, 10) and wt == 2:
            packed = (num, v)
        elif num == 14 and wt == 0:
            loc = v
        elif num == 13 and wt == 2:
            k = val = ""
            e = msg.sub(v)
            for n2, w2, v2 in e.fields():
                if w2 == 2 and n2 in (1, 2):
                    k, val = (e.text(v2), val) if n2 == 1 else (k, e.text(v2))
            ext[k] = val
        if len(dims) > MAX_DIMS:
            raise _bad(p, f"tensor {name!r} of more than {MAX_DIMS} dims")
    if any(d >= 2**62 for d in dims) or math.prod(dims) >= 2**62:
        raise _bad(p, f"tensor {name!r} of dims {dims}")
    shape = tuple(dims)
    if code not in TYPES:
        return Tensor(name or "?", shape, f"onnx type {code}", str(p), _unreadable(code))
    npt, dt = TYPES[code]
    nbytes = math.prod(shape) * np.dtype(npt).itemsize
    if loc == 1:
        where, off = _external(p, name, ext, nbytes)
        files.add(where)
        return Tensor(name, shape, dt, where, _map(where, npt, dt, shape, off))
    if raw is None and packed is not None:
        num, raw = packed
        want = {4: 1, 10: 11}[num]
        if code != want:
            raise _bad(p, f"tensor {name!r}: packed {'float' if num == 4 else 'double'}_data "
                       f"for data type {code}")
    if raw is None:
        if math.prod(shape) == 0:
            return Tensor(name, shape, dt, str(p), lambda: np.zeros(shape, npt))
        return Tensor(name, shape, f"{dt} (not raw)", str(p), _unreadable(code))
    if raw[1] - raw[0] != nbytes:
        raise _bad(p, f"tensor {name!r}: {raw[1] - raw[0]} data bytes for dims {list(shape)} "
                   f"of {dt} ({nbytes})")
    return Tensor(name, shape, dt, str(p), _map(str(p), npt, dt, shape, raw[0]))


def _external(p: Path, name: str, ext: dict, nbytes: int) -> tuple[str, int]:
    loc = ext.get("location", "")
    folder = p.parent.resolve()
    target = (folder / loc).resolve() if loc else None
    if not loc or os.path.isabs(loc) or target is None or folder not in target.parents:
        raise InputError(f"{p}: tensor {name!r} keeps its data in {loc!r}, not a file in the "
                         "model's folder; external data is read from beside the model only")
    if not target.is_file():
        raise InputError(f"{p}: tensor {name!r}: its external data file {loc} is missing "
                         f"from {folder}")
    try:
        off, length = int(ext.get("offset", 0) or 0), int(ext.get("length", nbytes) or nbytes)
    except ValueError:
        raise _bad(p, f"tensor {name!r}: external offset/length not integers") from None
    size = target.stat().st_size
    if off < 0 or length != nbytes or off + nbytes > size:
        raise InputError(f"{p}: tensor {name!r} needs bytes {off} to {off + nbytes} of {loc} "
                         f"(length {length} for {nbytes}); the file has {size}")
    return str(target), off


def _map(file: str, npt: str, dt: str, shape, offset: int):
    def open_() -> np.ndarray:
        if math.prod(shape) == 0:
            return np.zeros(shape, npt)
        arr = np.memmap(file, dtype=np.dtype(npt), mode="r", offset=offset, shape=shape)
        if dt == "bfloat16":
            import ml_dtypes

            arr = arr.view(ml_dtypes.bfloat16)
        return arr

    return open_


def _unreadable(code):
    def open_():
        raise InputError(f"an ONNX tensor of data type {code} not stored as raw data")

    return open_
