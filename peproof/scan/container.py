"""Opening a model checkpoint as a list of lazily read tensors.

Accepted: a ``.safetensors`` file; a folder holding ``model.safetensors`` or a sharded checkpoint
with its ``*.safetensors.index.json`` (or a sharded ``.bin`` state dict with its
``pytorch_model.bin.index.json``; the index itself may be given); a ``.pt`` / ``.pth`` / ``.bin``
state dict (``torch.load(weights_only=True, mmap=True)``: tensors, dicts and lists only,
every other pickled object refused; a ``complex32`` tensor, which NumPy cannot hold, is read as
its real view, ``float16`` ``(..., 2)``); an ``.npz`` archive (read by the oracle's loader:
sized from its headers, stored members memory-mapped).  Nothing is read whole: a safetensors
header is parsed and checked against the file (dtype, shape, offsets inside the data section)
and every tensor is a ``numpy.memmap`` over its bytes; a ``.pt`` tensor is a view of its
memory-mapped storage.  Every failure is an :class:`InputError` with one line naming what was
wrong and what is allowed.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from pathlib import Path

import numpy as np

from peproof.guard.paths import kind_of

from .oracle_api import InputError
from .tensor import Checkpoint, Tensor

__all__ = ["ALLOWED", "Checkpoint", "Tensor", "open_checkpoint"]

ALLOWED = ("a .safetensors file, a folder with model.safetensors or a sharded checkpoint and its "
           "model.safetensors.index.json, a .pt/.pth/.bin state dict, an .npz archive, a "
           "llama.cpp .gguf file or an .onnx model")
PICKLES = (".pkl", ".pickle", ".joblib", ".dill")
#: safetensors dtype codes -> (numpy dtype of the bytes, view as, readable as floats)
ST = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "BF16": "<u2", "C64": "<c8", "C128": "<c16",
      "I8": "i1", "U8": "u1", "I16": "<i2", "U16": "<u2", "I32": "<i4", "U32": "<u4",
      "I64": "<i8", "U64": "<u8", "BOOL": "?"}
ST_FLOAT = {"F16": "float16", "F32": "float32", "F64": "float64", "BF16": "bfloat16",
            "C64": "complex64", "C128": "complex128"}
MAX_HEADER = 100 * 2**20


def open_checkpoint(source: str) -> Checkpoint:
    """The tensors of ``source`` (see the module docstring), or an :class:`InputError`."""
    p = Path(source)
    if not os.path.lexists(p):
        raise InputError(f"no such file or folder: {source} (give {ALLOWED})")
    try:
        st = os.stat(p)
    except OSError as exc:
        raise InputError(f"{source}: cannot read it ({exc.strerror}); give {ALLOWED}") from None
    if p.is_dir():
        return _folder(p)
    kind = kind_of(st.st_mode)
    if kind is not None:
        raise InputError(f"{source} is {kind}, not a checkpoint; give {ALLOWED}")
    name = p.name.lower()
    suf = p.suffix.lower()
    if suf in PICKLES:
        raise InputError(f"{source}: pickle files are refused (loading one runs arbitrary code);"
                         " give a .safetensors file or a weights-only .pt state dict")
    if st.st_size == 0:
        raise InputError(f"{source} is empty (0 bytes); give {ALLOWED}")
    beside = p.parent / "config.json"
    cfg = str(beside) if beside.is_file() else None
    if name.endswith((".safetensors.index.json", ".bin.index.json", ".pt.index.json")):
        return _sharded(p, cfg)
    if suf == ".safetensors":
        ts = _safetensors(p)
        return Checkpoint(str(p), "safetensors", [str(p)], ts, st.st_size, cfg)
    if suf in (".pt", ".pth", ".bin"):
        return Checkpoint(str(p), "pt", [str(p)], _torch(p), st.st_size, cfg)
    if suf == ".npz":
        return Checkpoint(str(p), "npz", [str(p)], _npz(p), st.st_size, cfg)
    if suf == ".gguf":
        from .gguf import read_gguf

        ts, meta = read_gguf(p)
        return Checkpoint(str(p), "gguf", [str(p)], ts, st.st_size, cfg, meta)
    if suf == ".onnx":
        from .onnx_model import read_onnx

        ts, files = read_onnx(p)
        return Checkpoint(str(p), "onnx", [str(p), *files], ts, st.st_size + sum(
            os.path.getsize(f) for f in files), cfg)
    raise InputError(f"{source}: unknown checkpoint type {suf or '(no extension)'!r}; give "
                     f"{ALLOWED}")


def _folder(p: Path) -> Checkpoint:
    idx = sorted(p.glob("*.safetensors.index.json")) or sorted(p.glob("*.bin.index.json"))
    if len(idx) > 1:
        raise InputError(f"{p} holds several safetensors indexes ({', '.join(i.name for i in idx)})"
                         "; give the index of the checkpoint to scan")
    cfg = str(p / "config.json") if (p / "config.json").is_file() else None
    if idx:
        return _sharded(idx[0], cfg)
    for pattern, reader, fmt in (("*.safetensors", _safetensors, "safetensors"),
                                 ("*.bin", _torch, "pt"), ("*.pt", _torch, "pt"),
                                 ("*.pth", _torch, "pt")):
        found = sorted(f for f in p.glob(pattern) if f.is_file())
        if len(found) == 1:
            return Checkpoint(str(p), fmt, [str(found[0])], reader(found[0]),
                              found[0].stat().st_size, cfg)
        if len(found) > 1:
            raise InputError(f"{p} holds {len(found)} {pattern[1:]} files and no index; give one "
                             "file, or the folder of a sharded checkpoint with its "
                             "model.safetensors.index.json")
    raise InputError(f"{p} holds no checkpoint; give {ALLOWED}")


def _sharded(index: Path, cfg: str | None) -> Checkpoint:
    try:
        doc = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{index}: not a readable JSON index ({type(exc).__name__}); a sharded "
                         "checkpoint's index is JSON with a weight_map") from None
    wm = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(wm, dict) or not wm or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in wm.items()):
        raise InputError(f"{index}: no weight_map of tensor name -> shard file; not a "
                         "safetensors index")
    folder = index.parent
    shards: dict[str, list[Tensor]] = {}
    fmt = "safetensors" if index.name.lower().endswith(".safetensors.index.json") else "pt"
    for fname in dict.fromkeys(wm.values()):
        if Path(fname).name != fname or fname in (".", ".."):
            raise InputError(f"{index}: shard {fname!r} is not a file name in the index's folder")
        f = folder / fname
        if not f.is_file():
            raise InputError(f"{index}: shard {fname} is missing from {folder}")
        allowed = (".safetensors",) if fmt == "safetensors" else (".bin", ".pt", ".pth")
        if f.suffix.lower() not in allowed:
            raise InputError(f"{index}: shard {fname} is not a {fmt} file")
        shards[fname] = _safetensors(f) if fmt == "safetensors" else _torch(f)
    tensors, where = [], {}
    for fname, ts in shards.items():
        for t in ts:
            where[t.name] = fname
            if wm.get(t.name) == fname:
                tensors.append(t)
    for name, fname in wm.items():
        if where.get(name) != fname:
            raise InputError(f"{index}: tensor {name!r} is mapped to {fname} but "
                             + (f"stored in {where[name]}" if name in where else "is in no shard"))
    total = sum((folder / f).stat().st_size for f in shards)
    return Checkpoint(str(index), fmt, [str(folder / f) for f in shards], tensors, total, cfg)


# ----------------------------------------------------------------------------- safetensors
def _safetensors(p: Path) -> list[Tensor]:
    size = p.stat().st_size
    with open(p, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise InputError(f"{p}: not a safetensors file (shorter than its 8-byte header "
                             "length)")
        (hlen,) = struct.unpack("<Q", raw)
        if hlen < 2 or hlen > min(size - 8, MAX_HEADER):
            raise InputError(f"{p}: not a safetensors file (header length {hlen} for a file of "
                             f"{size} bytes)")
        text = fh.read(hlen)
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"{p}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise InputError(f"{p}: corrupt safetensors header (not a JSON object)")
    data0 = 8 + hlen
    out = []
    for name, ent in header.items():
        if name == "__metadata__":
            continue
        ok = (isinstance(ent, dict) and isinstance(ent.get("dtype"), str)
              and isinstance(ent.get("shape"), list) and isinstance(ent.get("data_offsets"), list)
              and len(ent["data_offsets"]) == 2
              and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                      for s in ent["shape"] + ent["data_offsets"]))
        if not ok:
            raise InputError(f"{p}: corrupt safetensors entry for {name!r}")
        code, shape = ent["dtype"], tuple(ent["shape"])
        b, e = ent["data_offsets"]
        if code in ST:
            need = math.prod(shape) * np.dtype(ST[code]).itemsize
            if e - b != need:
                raise InputError(f"{p}: tensor {name!r}: data offsets [{b}, {e}] do not match "
                                 f"its shape {list(shape)} and dtype {code}")
        if e < b or data0 + e > size:
            raise InputError(f"{p}: truncated or corrupt: tensor {name!r} needs bytes up to "
                             f"{data0 + e}, the file has {size}")
        dtype = ST_FLOAT.get(code, code.lower())
        out.append(Tensor(name, shape, dtype, str(p),
                          _st_opener(p, code, shape, data0 + b) if code in ST else _unreadable))
    if not out:
        raise InputError(f"{p}: the safetensors file holds no tensors")
    return out


def _st_opener(p: Path, code: str, shape, offset: int):
    def open_() -> np.ndarray:
        dt = np.dtype(ST[code])
        if math.prod(shape) == 0:
            arr = np.zeros(shape, dtype=dt)
        else:
            arr = np.memmap(p, dtype=dt, mode="r", offset=offset, shape=shape)
        if code == "BF16":
            import ml_dtypes

            arr = arr.view(ml_dtypes.bfloat16)
        return arr

    return open_


def _unreadable() -> np.ndarray:
    raise InputError("a tensor of a dtype peproof does not read")


# ----------------------------------------------------------------------------- torch
def _torch(p: Path) -> list[Tensor]:
    try:
        import torch
    except ImportError:
        raise InputError(f"{p}: reading .pt/.bin state dicts needs PyTorch; install the extra "
                         "(pip install 'peproof[peers]') or convert it to safetensors") from None
    import pickle
    import zipfile

    if not zipfile.is_zipfile(p):
        with open(p, "rb") as fh:
            head = fh.read(2)
        what = "a legacy (non-zip) torch file" if head[:1] == b"\x80" else "not a torch file"
        raise InputError(f"{p}: {what}; only zip-format state dicts (torch.save since 1.6) are "
                         "read, memory-mapped and weights-only")
    try:
        obj = torch.load(p, map_location="cpu", weights_only=True, mmap=True)
    except pickle.UnpicklingError as exc:
        m = re.search(r"Unsupported global: GLOBAL ([\w.]+)", str(exc))
        what = f" (it pickles {m.group(1)})" if m else ""
        raise InputError(f"{p}: refused: the file holds objects other than tensors{what}, and "
                         "only tensors, dicts and lists are read (weights_only=True); save the "
                         "state dict alone, or as safetensors") from None
    except (RuntimeError, AttributeError, TypeError, IndexError, ValueError, EOFError,
            OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"{p}: unreadable or corrupt torch file ({type(exc).__name__}: "
                         f"{_line(exc)})") from None
    found: list[tuple[str, object]] = []
    _flatten(obj, "", found, 0)
    if not found:
        raise InputError(f"{p}: holds no tensors (a {type(obj).__name__}); give a state dict")
    out = []
    for name, t in found:
        dt = str(t.dtype).removeprefix("torch.")
        if dt == "complex32":  # half-precision complex (NumPy has none): its real view, float16
            t = torch.view_as_real(t)
            dt = "float16"
        out.append(Tensor(name, tuple(int(s) for s in t.shape), dt, str(p), _torch_opener(t)))
    return out


def _flatten(obj, prefix: str, out: list, depth: int) -> None:
    if hasattr(obj, "shape") and hasattr(obj, "dtype") and type(obj).__module__.startswith(
            "torch"):
        out.append((prefix or "tensor", obj))
    elif depth < 8 and isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)
    elif depth < 8 and isinstance(obj, (list, tuple)):
        for k, v in enumerate(obj):
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)


def _torch_opener(t):
    def open_() -> np.ndarray:
        import torch

        if t.dtype == torch.bfloat16:
            import ml_dtypes

            return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        try:
            return t.numpy()
        except (TypeError, RuntimeError) as exc:
            raise InputError(f"a tensor of dtype {t.dtype} ({_line(exc)})") from None

    return open_


# ----------------------------------------------------------------------------- npz
def _npz(p: Path) -> list[Tensor]:
    import zipfile

    from .oracle_api import load

    try:
        with zipfile.ZipFile(p) as zf:
            names = [n[:-4] for n in zf.namelist() if n.endswith(".npy")]
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"{p}: not an .npz archive ({type(exc).__name__}: {_line(exc)})") \
            from None
    if not names:
        raise InputError(f"{p}: the archive holds no .npy members")
    out = []
    for name in names:
        try:
            arr, _ = load(str(p), key=name)  # sized from its headers, never unpickled
        except InputError as exc:
            msg = str(exc)
            raise InputError(msg if msg.startswith(str(p)) else f"{p}: {msg}") from None
        dt = arr.dtype.name
        out.append(Tensor(name, tuple(arr.shape), dt, str(p), lambda a=arr: a))
    return out


def _line(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    return s[0][:200] if s else type(exc).__name__
