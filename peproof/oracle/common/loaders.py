"""Reading tables from files and from ``module:function`` names, without ever unpickling.

Formats: ``.npy`` and ``.npz`` (:mod:`.npfiles`) are memory-mapped (tables larger than memory
are streamed by row chunks); ``.safetensors`` is parsed here (8-byte little-endian header length,
JSON header, raw little-endian data) with every offset checked against the file size, then
memory-mapped; ``.pt``/``.pth`` go through ``torch.load(weights_only=True)`` only; ``.csv``,
``.tsv``, ``.txt`` and ``.dat`` are text.  Pickles (``.pkl``, ``.pickle``, ``.joblib``, or a
``.npy`` holding an object array) are refused.  Every failure is an :class:`InputError` with a
one-line message.
"""

from __future__ import annotations

import errno
import json
import os
import re
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np

from peproof.guard.paths import kind_of

from .npfiles import NPY_MAGIC, _npy, _npz, _pick
from .tables import InputError, _first_line

TEXT = (".csv", ".tsv", ".txt", ".dat")
PICKLES = (".pkl", ".pickle", ".joblib", ".dill")
SUFFIXES = (".npy", ".npz", ".safetensors", ".pt", ".pth") + TEXT
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
ST_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "BF16": "bfloat16"}
ST_INTS = {"I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "BOOL"}
MAX_HEADER = 100 * 1024 * 1024


def _has_bytes(p: Path) -> bool:
    """Whether a file whose size reads 0 still yields a byte (one byte read, never more)."""
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.read(fd, 1) != b""
    except OSError:
        return False
    finally:
        os.close(fd)


def load(source: str, *, key: str | None = None, d: int | None = None,
         n: int | None = None, limits=None, time_limit: float | None = None,
         memory_limit: int | None = None) -> tuple[object, dict]:
    """The table named by ``source`` (a file path or ``module:function``) and a description.

    ``limits`` (a :class:`peproof.guard.limits.Limits`) bounds what is read into memory: a
    compressed ``.npz`` member, a text table or a called function's result is sized before it
    is read.  ``module:function`` runs in a child process (:mod:`peproof.guard.child`) with
    ``time_limit`` seconds and ``memory_limit`` bytes.
    """
    from peproof.guard.limits import Limits

    limits = limits or Limits()
    p = Path(source)
    if not _exists(p) and _CALLABLE.match(source):
        return _load_callable(source, d, n, limits, time_limit, memory_limit)
    if not _exists(p) and os.path.islink(p):
        try:
            os.stat(p)
            why = "cannot be followed"
        except OSError as exc:
            why = ("is part of a loop of symbolic links" if exc.errno == errno.ELOOP
                   else f"points to {os.readlink(p)}, which does not exist")
        raise InputError(f"{source} is a symbolic link that {why}; give the table file itself")
    if not _exists(p):
        raise InputError(f"no such file: {source} (give a file {', '.join(SUFFIXES)} or "
                         "module:function)")
    try:
        st = os.stat(p)
    except OSError as exc:
        raise InputError(f"{source}: cannot read it ({exc.strerror})") from None
    kind = kind_of(st.st_mode)
    if kind is not None:
        raise InputError(f"{source} is {kind}, not a table file")
    size = st.st_size
    if size == 0:
        if _has_bytes(p):  # /proc and /sys files report 0 bytes and are not tables
            raise InputError(f"{source} reports a size of 0 bytes but is not empty (a pseudo-"
                             "file such as those under /proc); copy the table into a regular "
                             "file")
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
            arr, extra = readers[suf](p, key, limits)
        elif suf in TEXT:
            arr, extra = _text(p, limits)
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


def _exists(p: Path) -> bool:
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def _sniff(head: bytes, source: str) -> str:
    if head.startswith(NPY_MAGIC):
        return ".npy"
    if head.startswith(b"PK\x03\x04"):
        return ".npz"
    if head[:1] == b"\x80":
        raise InputError(f"{source} looks like a pickle; pickles are refused")
    raise InputError(f"{source}: no file extension; name it with one of {', '.join(SUFFIXES)}")


def _load_callable(source: str, d, n, limits, time_limit, memory_limit):
    from peproof.guard import child
    from peproof.guard.limits import count, human_bytes

    if d is None:
        raise InputError("a callable needs --d (it is called as f(n, d))")
    rows = 2048 if n is None else n
    attr = source.split(":", 1)[1]
    need = rows * d * 8
    limits.enforce_memory(need, f"{attr}({rows}, {d})",
                          f"{count(rows)} x {count(d)} float64 = {human_bytes(need)}")
    arr = child.call(source, rows, d,
                     time_limit=child.DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                     memory_limit=memory_limit)
    return arr, {"callable": source, "called_as": f"{attr}({rows}, {d})"}


# ----------------------------------------------------------------------------- safetensors
def _safetensors(p: Path, key, limits):
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
def _torch(p: Path, key, limits):
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
            size = p.stat().st_size  # not a zip archive: read whole
            limits.enforce_memory(2 * size, str(p), "a .pt file that cannot be memory-mapped")
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
def _text(p: Path, limits):
    from peproof.guard.limits import human_bytes, work

    size = p.stat().st_size
    # every value takes >= 2 bytes of text and becomes 8 bytes of float64 (x 1.5 while the
    # parser grows its array)
    limits.enforce(work(str(p), size, "text_byte", 6 * size,
                        f"a text table of {human_bytes(size)} parsed into float64"))
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

