"""Reading tables from files and from ``module:function`` names, without ever unpickling.

Formats: ``.npy`` and uncompressed ``.npz`` members are memory-mapped (tables larger than memory
are streamed by row chunks); ``.safetensors`` is parsed here (8-byte little-endian header length,
JSON header, raw little-endian data) with every offset checked against the file size, then
memory-mapped; ``.pt``/``.pth`` go through ``torch.load(weights_only=True)`` only; ``.csv``,
``.tsv``, ``.txt`` and ``.dat`` are text.  Pickles (``.pkl``, ``.pickle``, ``.joblib``, or a
``.npy`` holding an object array) are refused.  Every failure is an :class:`InputError` with a
one-line message.
"""

from __future__ import annotations

import importlib
import json
import re
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .tables import InputError, _first_line, call_table

TEXT = (".csv", ".tsv", ".txt", ".dat")
PICKLES = (".pkl", ".pickle", ".joblib", ".dill")
SUFFIXES = (".npy", ".npz", ".safetensors", ".pt", ".pth") + TEXT
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
ST_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "BF16": "bfloat16"}
ST_INTS = {"I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "BOOL"}
MAX_HEADER = 100 * 1024 * 1024


def load(source: str, *, key: str | None = None, d: int | None = None,
         n: int | None = None) -> tuple[object, dict]:
    """The table named by ``source`` (a file path or ``module:function``) and a description."""
    p = Path(source)
    if not p.exists() and _CALLABLE.match(source):
        return _load_callable(source, d, n)
    if not p.exists():
        raise InputError(f"no such file: {source} (give a file {', '.join(SUFFIXES)} or "
                         "module:function)")
    if p.is_dir():
        raise InputError(f"{source} is a directory, not a table file")
    size = p.stat().st_size
    if size == 0:
        raise InputError(f"{source} is empty (0 bytes)")
    suf = p.suffix.lower()
    info = {"path": str(source), "bytes": size}
    if suf in PICKLES:
        raise InputError(f"{source}: pickle files are refused (loading one runs arbitrary "
                         "code); save the table with numpy.save or safetensors")
    with open(p, "rb") as fh:
        head = fh.read(8)
    if suf == "":
        suf = _sniff(head, source)
    readers = {".npy": _npy, ".npz": _npz, ".safetensors": _safetensors, ".pt": _torch,
               ".pth": _torch}
    try:
        if suf in readers:
            arr, extra = readers[suf](p, key)
        elif suf in TEXT:
            arr, extra = _text(p)
        else:
            raise InputError(f"{source}: unknown file type {suf!r}; allowed: "
                             f"{', '.join(SUFFIXES)} or module:function")
    except InputError:
        raise
    except (ValueError, OSError, EOFError, KeyError, struct.error, zipfile.BadZipFile,
            UnicodeDecodeError) as exc:
        raise InputError(f"{source}: unreadable or corrupt {suf} file "
                         f"({type(exc).__name__}: {_first_line(exc)})") from None
    info.update({"format": suf.lstrip("."), **extra})
    return arr, info


def _sniff(head: bytes, source: str) -> str:
    if head.startswith(b"\x93NUMPY"):
        return ".npy"
    if head.startswith(b"PK\x03\x04"):
        return ".npz"
    if head[:1] == b"\x80":
        raise InputError(f"{source} looks like a pickle; pickles are refused")
    raise InputError(f"{source}: no file extension; name it with one of {', '.join(SUFFIXES)}")


def _load_callable(source: str, d, n):
    mod_name, attr = source.split(":", 1)
    try:
        obj = importlib.import_module(mod_name)
    except Exception as exc:  # noqa: BLE001 - importing user code: any failure is bad input
        raise InputError(f"cannot import {mod_name}: {type(exc).__name__}: "
                         f"{_first_line(exc)}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"{mod_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"{source} is not callable")
    rows = 2048 if n is None else n
    return call_table(obj, rows, d), {"callable": source, "called_as": f"{attr}({rows}, {d})"}


# ----------------------------------------------------------------------------- numpy
def _npy(p: Path, key):
    try:
        arr = np.load(p, mmap_mode="r", allow_pickle=False)
    except ValueError as exc:
        if any(m in str(exc) for m in ("allow_pickle", "Object arrays", "Python objects")):
            raise InputError(f"{p}: the array holds Python objects (a pickle); pickles are "
                             "refused") from None
        raise
    return arr, {"memory_mapped": isinstance(arr, np.memmap)}


def _npz(p: Path, key):
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
    with np.load(p, allow_pickle=False) as z:
        try:
            return z[name], {"key": name, "memory_mapped": False}
        except ValueError as exc:
            if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
                raise InputError(f"{p}: member {name!r} holds Python objects (a pickle); "
                                 "pickles are refused") from None
            raise


def _npz_shape(zf, name):
    with zf.open(name + ".npy") as fh:
        version = np.lib.format.read_magic(fh)
        shape, _, dtype = _read_header(fh, version)
    return shape, dtype


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
        version = np.lib.format.read_magic(fh)
        shape, fortran, dtype = _read_header(fh, version)
        if dtype.hasobject:
            raise InputError(f"{p}: member holds Python objects (a pickle); pickles are refused")
        data = fh.tell()
    need = int(np.prod(shape)) * dtype.itemsize
    if data + need > p.stat().st_size or need != info.file_size - (data - start):
        raise InputError(f"{p}: member {info.filename!r} is truncated or corrupt")
    return np.memmap(p, dtype=dtype, mode="r", offset=data, shape=shape,
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


# ----------------------------------------------------------------------------- safetensors
def _safetensors(p: Path, key):
    size = p.stat().st_size
    with open(p, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise InputError(f"{p}: truncated safetensors file (no header length)")
        (hlen,) = struct.unpack("<Q", raw)
        if hlen > min(size - 8, MAX_HEADER):
            raise InputError(f"{p}: corrupt safetensors header length {hlen} for a file of "
                             f"{size} bytes")
        header = json.loads(fh.read(hlen).decode("utf-8"))
    if not isinstance(header, dict):
        raise InputError(f"{p}: corrupt safetensors header (not a JSON object)")
    tensors = {k: v for k, v in header.items() if k != "__metadata__"}
    if not tensors:
        raise InputError(f"{p}: the safetensors file holds no tensors")
    for k, v in tensors.items():
        if not (isinstance(v, dict) and isinstance(v.get("shape"), list)
                and isinstance(v.get("data_offsets"), list) and len(v["data_offsets"]) == 2
                and all(isinstance(s, int) and s >= 0 for s in v["shape"] + v["data_offsets"])):
            raise InputError(f"{p}: corrupt safetensors entry for {k!r}")
    name = _pick(list(tensors), key, p, lambda nm: (tensors[nm]["shape"], _st_kind(tensors[nm])))
    ent = tensors[name]
    code = ent.get("dtype")
    if code in ST_INTS:
        raise InputError(f"{p}: tensor {name!r} holds integers ({code}); a sinusoidal table "
                         "holds floats (F16, BF16, F32, F64)")
    if code not in ST_DTYPES:
        raise InputError(f"{p}: tensor {name!r} has dtype {code}; supported: F16, BF16, F32, "
                         "F64")
    if ST_DTYPES[code] == "bfloat16":
        import ml_dtypes

        dt, view = np.dtype("<u2"), np.dtype(ml_dtypes.bfloat16)
    else:
        dt, view = np.dtype(ST_DTYPES[code]), None
    b, e = ent["data_offsets"]
    shape = tuple(ent["shape"])
    need = int(np.prod(shape)) * dt.itemsize
    start = 8 + hlen + b
    if e < b or e - b != need:
        raise InputError(f"{p}: tensor {name!r}: data offsets [{b}, {e}] do not match its "
                         f"shape {list(shape)} and dtype {code}")
    if 8 + hlen + e > size:
        raise InputError(f"{p}: truncated: tensor {name!r} needs bytes up to {8 + hlen + e}, "
                         f"the file has {size}")
    if need == 0:
        return np.zeros(shape, dtype=view or dt), {"key": name, "memory_mapped": False}
    arr = np.memmap(p, dtype=dt, mode="r", offset=start, shape=shape)
    if view is not None:
        arr = arr.view(view)
    return arr, {"key": name, "memory_mapped": True}


def _st_kind(ent):
    return "f" if ent.get("dtype") in ST_DTYPES else "i"


# ----------------------------------------------------------------------------- torch
def _torch(p: Path, key):
    try:
        import torch
    except ImportError:
        raise InputError(f"{p}: reading .pt files needs PyTorch; install the extra: "
                         "pip install 'peproof[peers]'") from None
    import pickle

    try:
        try:
            obj = torch.load(p, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as exc:
            if "mmap" not in str(exc) and "zip" not in str(exc):
                raise
            obj = torch.load(p, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise InputError(f"{p}: refused: the file holds objects other than tensors and "
                         f"weights_only=True will not unpickle them ({_first_line(exc)})") \
            from None
    except (RuntimeError, AttributeError, TypeError, IndexError) as exc:
        raise InputError(f"{p}: unreadable or corrupt .pt file ({type(exc).__name__}: "
                         f"{_first_line(exc)})") from None
    if isinstance(obj, dict):
        tensors = {str(k): v for k, v in obj.items() if hasattr(v, "shape")}
        if not tensors:
            raise InputError(f"{p}: the dictionary holds no tensors")
        name = _pick(list(tensors), key, p, lambda nm: (tuple(tensors[nm].shape),
                                                       "f" if tensors[nm].is_floating_point()
                                                       else "i"))
        return tensors[name], {"key": name}
    if hasattr(obj, "shape"):
        return obj, {}
    raise InputError(f"{p}: holds a {type(obj).__name__}, not a tensor or a dict of tensors")


# ----------------------------------------------------------------------------- text
def _text(p: Path):
    with open(p, encoding="utf-8", errors="strict") as fh:
        lines = []
        for line in fh:
            s = line.strip()
            if s and not s.startswith("#"):
                lines.append(s)
            if len(lines) >= 2:
                break
    if not lines:
        raise InputError(f"{p}: no data lines")
    first = lines[0]
    delim = "," if "," in first else "\t" if "\t" in first else ";" if ";" in first else None
    skip = 0 if _numeric(first, delim) else 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data" is reported below
            arr = np.loadtxt(p, delimiter=delim, skiprows=skip, dtype=np.float64, ndmin=2,
                             comments="#", encoding="utf-8")
    except ValueError as exc:
        raise InputError(f"{p}: not a numeric table ({_first_line(exc)})") from None
    if arr.size == 0:
        raise InputError(f"{p}: no data rows")
    return arr, {"text_format": _text_format(p, delim, skip), "header_rows": skip}


def _numeric(line: str, delim) -> bool:
    try:
        [float(t) for t in (line.split(delim) if delim else line.split()) if t.strip()]
        return True
    except ValueError:
        return False


_DIGITS = re.compile(r"^[+-]?(\d*)\.?(\d*)(?:[eE][+-]?\d+)?$")


def _text_format(p: Path, delim, skip: int, sample_lines: int = 2000) -> str:
    """``decimalD`` (D significant digits) or ``fixedK`` (K decimals) from a sample of tokens;
    ``float64`` once 17 digits are printed (enough to hold any double)."""
    sig, fixed, has_exp = 0, set(), False
    with open(p, encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            if k < skip or not line.strip() or line.lstrip().startswith("#"):
                continue
            if k > sample_lines + skip:
                break
            for tok in (line.split(delim) if delim else line.split()):
                tok = tok.strip()
                m = _DIGITS.match(tok)
                if not m:
                    continue
                has_exp |= "e" in tok.lower()
                digits = (m.group(1) + m.group(2)).lstrip("0")
                sig = max(sig, len(digits.rstrip("0")) if "." not in tok else len(digits))
                fixed.add(len(m.group(2)))
    if sig >= 17:
        return "float64"
    if not has_exp and len(fixed) == 1:
        k = fixed.pop()
        return f"fixed{k}" if 1 <= k <= 17 else "float64"
    return f"decimal{max(1, min(sig, 17))}"

