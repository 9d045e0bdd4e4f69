"""Reading a rotary artefact: an ``inv_freq`` vector, a cos/sin cache pair or an angle table,
normalised into an :class:`Artefact` (kind, layout, ``d``, stored dtype and the copies of each
angle), and the frequencies and amplitude read off a cache.

Caches: ``(S, d)`` half-split with duplicated halves (GPT-NeoX, transformers: ``cat(f, f)``),
``(S, d)`` interleaved (GPT-J, Meta: every angle repeated in place), ``(S, d/2)`` (one column per
pair), or Meta's complex ``freqs_cis`` (``S x d/2``, ``cos + i sin``).  Unit axes are squeezed.
Angle tables (``kind="angles"``): rotary-embedding-torch's ``freqs``, the angles ``p theta_j``
themselves, ``(S, d)`` with each angle repeated in place (or as two halves) or ``(S, d/2)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from peproof.formats import Format, format_of_dtype

from ..common.tables import InputError, to_numpy
from .layouts import (
    FREQS_CIS,
    GPTJ,
    PAIR,
    TORCHTUNE,
    VLLM,
    layout_named,
    periods,
    split,
    squeeze,
)

#: archive / dict members holding a whole cache in one array (vLLM, Meta, GPT-J, torchtune)
ONE_ARRAY = ("cos_sin_cache", "freqs_cis", "embed_positions", "cache")
#: the library layout a 2-D member of those names is in (vLLM's [cos | sin], GPT-J's [sin | cos])
ONE_ARRAY_LAYOUT = {"cos_sin_cache": VLLM, "embed_positions": GPTJ}

LAYOUT_TEXT = {"half": "half-split [c|c] (GPT-NeoX, transformers rotate_half)",
               "interleaved": "interleaved (GPT-J, Meta: each angle repeated in place)",
               "pairs": "one column per pair (S, d/2)"}


@dataclass
class Artefact:
    kind: str  # "inv_freq" | "cache" | "angles"
    inv_freq: np.ndarray | None = None
    angles: object = None
    cos: object = None
    sin: object = None
    layout: str | None = None  # half | interleaved | pairs
    layout_note: str = ""
    d: int = 0
    stored: Format | None = None
    copies: list = field(default_factory=list)
    native: str = ""  # the library's layout it was read from (:mod:`.layouts`)
    applied: str | None = None  # the layout that library applies a (S, d/2) cache with


def _squeeze(a: np.ndarray) -> np.ndarray:
    if a.ndim > 2:
        keep = [s for s in a.shape if s != 1]
        if len(keep) == 2:
            a = a.reshape(keep)
    return a


def _fmt_of(a, what) -> Format:
    f = format_of_dtype(a.dtype)
    if f is None:
        raise InputError(f"{what} has dtype {a.dtype}; expected float16, bfloat16, float32 or "
                         "float64")
    return f


def read_artefact(obj=None, *, cos=None, sin=None, inv_freq=None, kind=None, d=None,
                  layout=None, angles=None, native=None) -> Artefact:
    """Normalise what the user gave into an :class:`Artefact` (see the module docstring).
    ``native``: the library layout one 2-D array is expected in (:func:`.layouts.layout_named`:
    ``"vllm"``, ``"gptj"`` ...), read so whatever its content."""
    if kind == "angles" or angles is not None:
        return _read_angles(obj if angles is None else angles, d, layout)
    expected_layout = layout_named(native) if native else None
    native = ""
    if obj is not None:
        if isinstance(obj, dict):
            keys = {k.lower(): k for k in obj}
            one = next((keys[k] for k in ONE_ARRAY if k in keys), None)
            if "inv_freq" in keys and kind != "cache":
                inv_freq = obj[keys["inv_freq"]]
            elif one is not None and kind != "inv_freq":
                obj = obj[one]
                expected_layout = expected_layout or ONE_ARRAY_LAYOUT.get(one.lower())
            else:
                ck = next((keys[k] for k in ("cos", "cos_cached", "cos_cache") if k in keys), None)
                sk = next((keys[k] for k in ("sin", "sin_cached", "sin_cache") if k in keys), None)
                if ck is None or sk is None:
                    raise InputError(f"a dict with keys {', '.join(map(str, obj))}: expected "
                                     "inv_freq, cos and sin, or one of "
                                     f"{', '.join(ONE_ARRAY)}")
                cos, sin = obj[ck], obj[sk]
                native = f"{ck} / {sk}"
        if isinstance(obj, (tuple, list)) and len(obj) == 2:
            cos, sin = obj
        elif obj is not None and not isinstance(obj, dict):
            arr = to_numpy(obj)
            if kind == "inv_freq" or (kind is None and squeeze(arr).ndim == 1
                                      and arr.dtype.kind != "c"):
                inv_freq = arr
            else:
                got = split(arr, expected_layout)
                if got is None:
                    raise InputError(f"an array of shape {tuple(arr.shape)} is neither an "
                                     "inv_freq vector (1-D) nor a cos/sin cache in a layout "
                                     "peproof reads (give cos and sin, a (2, S, d) stack, "
                                     "a (S, d/2, 2) [cos, sin] cache, a complex freqs_cis or "
                                     "an (S, d) [cos | sin] / [sin | cos] array)")
                cos, sin, native = got
                if native in (FREQS_CIS, TORCHTUNE):
                    layout = layout or "pairs"
    if inv_freq is not None:
        v = to_numpy(inv_freq)
        v = v.reshape(-1) if v.ndim > 1 and sum(s != 1 for s in v.shape) <= 1 else v
        if v.ndim != 1 or v.size < 1:
            raise InputError(f"inv_freq must be a vector, got shape {tuple(v.shape)}")
        st = _fmt_of(v, "inv_freq")
        v64 = np.asarray(v, dtype=np.float64)
        if not np.isfinite(v64).all():
            raise InputError("inv_freq holds NaN or infinity")
        got = periods(v64)
        if got is not None:
            v64, native = got
        return Artefact("inv_freq", inv_freq=v64, d=2 * v.size if d is None else d, stored=st,
                        native=native)
    if cos is None or sin is None:
        raise InputError("give an inv_freq vector or both cos and sin")
    c, s = _squeeze(to_numpy(cos)), _squeeze(to_numpy(sin))
    native = native or PAIR
    if c.ndim == 1:
        c, s = c.reshape(1, -1), s.reshape(1, -1)
    if c.shape != s.shape or c.ndim != 2:
        raise InputError(f"cos and sin must have the same 2-D shape, got {tuple(c.shape)} and "
                         f"{tuple(s.shape)}")
    if c.dtype != s.dtype:
        raise InputError(f"cos is {c.dtype} and sin is {s.dtype}: one cache has one dtype")
    st = _fmt_of(c, "the cache")
    n, W = c.shape
    art = Artefact("cache", cos=c, sin=s, stored=st, native=native,
                   applied="interleaved" if native in (FREQS_CIS, TORCHTUNE, GPTJ) else None)
    if layout == "pairs" or (d is not None and W * 2 == d):
        art.layout, art.d = "pairs", 2 * W
        art.copies = [(c, s)]
        return art
    if d is not None and W != d:
        raise InputError(f"the cache has {W} columns; d={d} needs {d} or {d // 2}")
    half = W % 2 == 0 and _dup(c, s, "half")
    inter = W % 2 == 0 and _dup(c, s, "interleaved")
    h = W // 2
    if half and inter:
        art.layout = layout or "half"
        art.layout_note = ("ambiguous: the columns are duplicated both as half-split and as "
                           f"interleaved (all pairs alike); read as {art.layout}")
    elif half or inter:
        art.layout = "half" if half else "interleaved"
    elif d is None:
        art.layout, art.d = "pairs", 2 * W
        art.layout_note = ("no duplicated columns: read as one column per pair (S, d/2); give "
                           "--d to read it as a (S, d) cache")
        art.copies = [(c, s)]
        return art
    else:
        art.layout = layout or "half"
        art.layout_note = (f"the two copies of each angle differ (neither half-split nor "
                           f"interleaved duplication holds): both copies checked as {art.layout}")
    art.d = W
    if art.layout == "half":
        art.copies = [(c[:, :h], s[:, :h])] + ([] if half else [(c[:, h:], s[:, h:])])
    else:
        art.copies = [(c[:, 0::2], s[:, 0::2])] + ([] if inter else [(c[:, 1::2], s[:, 1::2])])
    return art


def _dup(c, s, layout: str, chunk: int = 16384) -> bool:
    n, W = c.shape
    h = W // 2
    for k in range(0, n, chunk):
        for a in (c, s):
            b = np.asarray(a[k:k + chunk])
            x, y = (b[:, :h], b[:, h:]) if layout == "half" else (b[:, 0::2], b[:, 1::2])
            if not np.array_equal(x, y, equal_nan=b.dtype.kind in "fc"):  # NaN rows: alike
                return False
    return True


def _read_angles(arr, d, layout) -> Artefact:
    """An angle table ``p theta_j`` (rotary-embedding-torch's ``freqs``): ``(S, d)`` with every
    angle repeated in place (its ``repeat(..., r=2)``) or as two halves, or ``(S, d/2)``."""
    if arr is None:
        raise InputError("--kind angles needs the angle table as SOURCE")
    a = _squeeze(to_numpy(arr))
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2:
        raise InputError(f"an angle table must be 2-D (S, d) or (S, d/2), got shape "
                         f"{tuple(a.shape)}")
    st = _fmt_of(a, "the angle table")
    n, W = a.shape
    art = Artefact("angles", angles=a, stored=st)
    if layout == "pairs" or (d is not None and 2 * W == d):
        art.layout, art.d, art.copies = "pairs", 2 * W, [a]
        return art
    if d is not None and W != d:
        raise InputError(f"the angle table has {W} columns; d={d} needs {d} or {d // 2}")
    h = W // 2
    half = W % 2 == 0 and _dup(a, a, "half")
    inter = W % 2 == 0 and _dup(a, a, "interleaved")
    if half and inter:
        art.layout = layout or "interleaved"
        art.layout_note = ("ambiguous: the columns are duplicated both as half-split and as "
                           f"interleaved (all pairs alike); read as {art.layout}")
    elif half or inter:
        art.layout = "half" if half else "interleaved"
    elif d is None:
        art.layout, art.d, art.copies = "pairs", 2 * W, [a]
        art.layout_note = ("no repeated columns: read as one column per pair (S, d/2); give "
                           "--d to read it as (S, d)")
        return art
    else:
        art.layout = layout or "interleaved"
        art.layout_note = ("the two copies of each angle differ: both copies checked as "
                           f"{art.layout}")
    art.d = W
    dup = half if art.layout == "half" else inter
    if art.layout == "half":
        art.copies = [a[:, :h]] + ([] if dup else [a[:, h:]])
    else:
        art.copies = [a[:, 0::2]] + ([] if dup else [a[:, 1::2]])
    return art
