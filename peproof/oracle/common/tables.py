"""Turning whatever a user hands over into an ``n x d`` table of floats, or one clear error.

Accepted: NumPy arrays (also memory maps, which are read in row chunks and never copied whole),
PyTorch tensors (bfloat16 included), nested lists, and callables ``f(n, d)`` returning any of
those.  Unit axes are squeezed (a ``(max_len, 1, d)`` buffer or a ``(1, n, d)`` batch becomes
``n x d``); anything else that is not 2-D, not a float type, empty, or holds NaN or infinity is
refused with an :class:`InputError` whose one-line message says what was wrong and what is
allowed.
"""

from __future__ import annotations

import numpy as np

from peproof.formats import BINARY, format_of_dtype


class InputError(ValueError):
    """The table (or file, or callable) cannot be checked; the message is one line."""


ALLOWED = ", ".join(BINARY)


def to_numpy(obj) -> np.ndarray:
    """A NumPy view of an array-like; PyTorch tensors are detached and moved to the CPU."""
    mod = type(obj).__module__ or ""
    if mod.startswith("torch"):
        t = obj.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            import ml_dtypes
            import torch

            return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        try:
            return t.numpy()
        except (TypeError, RuntimeError) as exc:
            raise InputError(f"cannot read a tensor of dtype {t.dtype}: {exc}") from None
    if isinstance(obj, np.ndarray):
        return obj
    try:
        arr = np.asarray(obj)
    except (ValueError, TypeError) as exc:
        raise InputError(f"not an array: {type(obj).__name__} ({_first_line(exc)})") from None
    if arr.dtype == object:
        raise InputError("the table is an object array (ragged lists or mixed types); expected "
                         f"a 2-D array of {ALLOWED}")
    return arr


def _first_line(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    return s[0][:200] if s else type(exc).__name__


def as_table(obj, d: int | None = None, what: str = "the table") -> np.ndarray:
    """Validate shape and dtype (not the values: see :func:`check_finite`)."""
    arr = to_numpy(obj)
    if arr.dtype == object:
        raise InputError(f"{what} is an object array; expected a 2-D array of {ALLOWED}")
    if arr.dtype.kind in "biu":
        raise InputError(f"{what} holds integers ({arr.dtype}); a sinusoidal table holds "
                         f"floats: one of {ALLOWED}")
    if arr.dtype.kind == "c":
        raise InputError(f"{what} is complex ({arr.dtype}); expected real floats: {ALLOWED}")
    if format_of_dtype(arr.dtype) is None:
        raise InputError(f"{what} has dtype {arr.dtype}; expected one of {ALLOWED}")
    if arr.ndim == 1 and d is not None and d > 0 and arr.size % d == 0 and arr.size:
        arr = arr.reshape(-1, d)
    if arr.ndim > 2:
        keep = [k for k, s in enumerate(arr.shape) if s != 1]
        if len(keep) == 2:
            arr = arr.reshape(arr.shape[keep[0]], arr.shape[keep[1]])
        elif len(keep) < 2 and arr.shape[-1] > 1:
            arr = arr.reshape(-1, arr.shape[-1])
    if arr.ndim != 2:
        raise InputError(f"{what} has shape {tuple(arr.shape)}; expected 2-D (positions x d)"
                         + (", or 1-D with --d" if arr.ndim == 1 else
                            ", or unit axes around it such as (n, 1, d)"))
    n, width = arr.shape
    if n == 0 or width == 0:
        raise InputError(f"{what} is empty (shape {n} x {width})")
    if d is not None and width != d:
        raise InputError(f"{what} has {width} channels but d={d} was given")
    if width % 2:
        raise InputError(f"{what} has an odd number of channels ({width}); sin/cos pairs need "
                         "an even d (trim a zero padding column first)")
    return arr


def check_finite(arr: np.ndarray, rows=None, chunk_rows: int = 4096) -> None:
    """Raise :class:`InputError` at the first NaN or infinity (streamed for memory maps)."""
    n = arr.shape[0]
    rng = range(0, n, chunk_rows) if rows is None else [None]
    for k0 in rng:
        block = arr[rows] if k0 is None else arr[k0:k0 + chunk_rows]
        block = np.asarray(block)
        ok = np.isfinite(block.astype(np.float32) if block.dtype.name == "bfloat16" else block)
        if not ok.all():
            r, c = np.argwhere(~ok)[0]
            r = int(r) + (0 if k0 is None else k0) if k0 is not None else int(rows[r])
            kind = "NaN" if np.isnan(np.asarray(block, dtype=np.float64)).any() else "infinity"
            raise InputError(f"the table holds {kind} (first at row {r}, channel {int(c)}); "
                             "every entry must be finite")


def call_table(fn, n: int, d: int | None):
    """Call ``fn(n, d)`` the way the CLI documents; errors become one-line input errors."""
    if d is None:
        raise InputError("a callable needs --d (it is called as f(n, d))")
    try:
        return fn(n, d)
    except Exception as exc:  # noqa: BLE001 - user code: any failure is bad input
        raise InputError(f"calling {getattr(fn, '__name__', fn)}({n}, {d}) failed: "
                         f"{type(exc).__name__}: {_first_line(exc)}") from None
