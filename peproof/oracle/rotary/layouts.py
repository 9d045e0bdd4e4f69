"""The native cache layouts of the libraries, detected from an array's shape and content and named.

One array holding both cos and sin (a pair of arrays, or a ``(2, S, d)`` stack, is read by
:mod:`.artefacts` directly):

* complex ``(S, d/2)``: Meta's ``freqs_cis`` (``torch.polar(1, p theta)``: ``cos + i sin``);
* real ``(S, d/2, 2)``: torchtune's ``RotaryPositionalEmbeddings.cache`` (``[..., 0]`` cos,
  ``[..., 1]`` sin) and Meta's ``torch.view_as_real(freqs_cis)`` (real, imaginary): one layout;
* real ``(S, W)``: two halves, vLLM's ``cos_sin_cache`` ``[cos | sin]`` or GPT-J's
  ``embed_positions`` ``[sin | cos]``, or interleaved ``(cos, sin)`` pairs.  Which one is read
  from the content: the split whose every pair has a constant amplitude ``hypot(cos, sin)`` over
  the first rows, oriented so that the angles advance with the rows (positive frequencies: a
  half read the wrong way round turns backwards);

and a vector: mlx's ``freqs`` (what ``mx.fast.rope(freqs=...)`` and mlx-lm's RoPE classes
hold) are the periods ``1/theta_j = base**(2j/d)``, increasing where an ``inv_freq`` decreases.

A ``(S, d/2, 2)`` or ``(2, S, d)`` array has a fixed order (cos first): read the other way round it
is a swapped cache, which the check calls so.  Units of size 1 are squeezed first (transformers'
``cos_cached`` ``(1, 1, S, d)``).
"""

from __future__ import annotations

import numpy as np

from ..common.tables import InputError

TORCHTUNE = ("(S, d/2, 2) [cos, sin] pairs: torchtune's RotaryPositionalEmbeddings cache, "
             "Meta's view_as_real(freqs_cis)")
FREQS_CIS = "complex (S, d/2): Meta's freqs_cis (cos + i sin)"
STACK = "(2, S, d) stack [cos, sin]"
VLLM = "(S, d) halves [cos | sin]: vLLM's cos_sin_cache"
GPTJ = "(S, d) halves [sin | cos]: GPT-J's embed_positions"
INTER_CS = "(S, d) interleaved (cos, sin) pairs"
INTER_SC = "(S, d) interleaved (sin, cos) pairs"
MLX_FREQS = "periods base**(2j/d): mlx's freqs (mx.fast.rope(freqs=...)); inv_freq = 1/freqs"
PAIR = "two arrays cos, sin"


def squeeze(a: np.ndarray) -> np.ndarray:
    """Drop unit axes of an array of more than two axes (keeping a trailing 2)."""
    if a.ndim > 2:
        keep = [s for s in a.shape if s != 1]
        if len(keep) >= 2 and len(keep) < a.ndim:
            a = a.reshape(keep)
    return a


#: a few words for each layout, for one-line reports (``peproof scan``)
SHORT = {TORCHTUNE: "torchtune cache / Meta view_as_real (S, d/2, 2) [cos, sin]",
         FREQS_CIS: "Meta freqs_cis, complex (S, d/2)", STACK: "(2, S, d) stack [cos, sin]",
         VLLM: "vLLM cos_sin_cache (S, d) [cos | sin]",
         GPTJ: "GPT-J embed_positions (S, d) [sin | cos]",
         INTER_CS: "interleaved (cos, sin) pairs (S, d)",
         INTER_SC: "interleaved (sin, cos) pairs (S, d)",
         MLX_FREQS: "mlx freqs (periods)"}


def short_layout(native: str) -> str:
    """:data:`SHORT`'s words for a layout (``""`` for none, the layout itself if unlisted)."""
    return SHORT.get(native, native or "")


#: the 2-D layouts, by which half (or which column of a pair) holds the cosines
TWO_D = {VLLM: ("halves", True), GPTJ: ("halves", False), INTER_CS: ("inter", True),
         INTER_SC: ("inter", False)}
#: the names a caller may give for an expected layout (``check_rotary(native=...)``)
NAMES = {"vllm": VLLM, "gptj": GPTJ, "gpt-j": GPTJ, "torchtune": TORCHTUNE,
         "freqs_cis": FREQS_CIS, "meta": FREQS_CIS, "stack": STACK, "interleaved_cos_sin": INTER_CS,
         "interleaved_sin_cos": INTER_SC}


def layout_named(name: str) -> str:
    """The layout constant for ``name`` (a constant itself, or a key of :data:`NAMES`)."""
    if name in TWO_D or name in (TORCHTUNE, FREQS_CIS, STACK):
        return name
    key = str(name).lower()
    if key not in NAMES:
        raise InputError(f"unknown cache layout {name!r}; known: {', '.join(sorted(NAMES))}")
    return NAMES[key]


def split(arr: np.ndarray, expect: str | None = None):
    """``(cos, sin, native)`` of one array holding a whole cache, or None when its shape is no
    native layout (the caller says what it expected).  ``expect`` (a layout of
    :data:`TWO_D`) reads a 2-D array as that library reads it, whatever its content: a cache
    whose halves are the other way round is then a swapped cache, and the check says so."""
    if arr.dtype.kind == "c":
        a = squeeze(arr)
        if a.ndim == 1:
            a = a.reshape(1, -1)
        if a.ndim != 2:
            return None
        return np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag), FREQS_CIS
    a = squeeze(arr)
    if a.ndim == 3 and a.shape[0] == 2:
        return a[0], a[1], STACK
    if a.ndim == 3 and a.shape[-1] == 2:
        return a[..., 0], a[..., 1], TORCHTUNE
    if a.ndim == 2 and a.shape[1] % 2 == 0 and a.shape[1] >= 2:
        if expect in TWO_D:
            return _as(a, expect)
        return _two_d(a)
    return None


def _as(a: np.ndarray, native: str):
    W = a.shape[1]
    h = W // 2
    kind, cos_first = TWO_D[native]
    x, y = (slice(0, h), slice(h, W)) if kind == "halves" else (slice(0, W, 2), slice(1, W, 2))
    return (a[:, x], a[:, y], native) if cos_first else (a[:, y], a[:, x], native)


def _two_d(a: np.ndarray):
    n, W = a.shape
    h = W // 2
    rows = np.asarray(a[: min(n, 64)], dtype=np.float64)
    splits = (((slice(0, h), slice(h, W)), "halves"), ((slice(0, W, 2), slice(1, W, 2)), "inter"))
    fits = []
    for (x, y), name in splits:
        r = np.hypot(rows[:, x], rows[:, y])
        med = float(np.median(r))
        if med > 0 and np.all(np.isfinite(r)):
            fits.append((float(np.max(np.abs(r / med - 1))), name, x, y))
    fits.sort(key=lambda t: t[0])
    if not fits or fits[0][0] > 0.05:
        raise InputError(f"a ({n}, {W}) array read as a rotary cache: neither its halves nor its "
                         "interleaved columns are (cos, sin) pairs of one amplitude (expected "
                         "vLLM's [cos | sin], GPT-J's [sin | cos] or interleaved pairs; give cos "
                         "and sin separately otherwise)")
    _, name, x, y = fits[0]
    if n < 2:
        raise InputError(f"a ({n}, {W}) array: one row cannot tell [cos | sin] from [sin | cos]; "
                         "give cos and sin separately")
    c, s = a[:, x], a[:, y]
    d = np.angle(np.exp(1j * (np.arctan2(rows[1:, y], rows[1:, x])
                              - np.arctan2(rows[:-1, y], rows[:-1, x]))))
    turn = float(np.median(d[np.abs(d) > 1e-6])) if np.any(np.abs(d) > 1e-6) else 0.0
    if turn == 0.0:
        raise InputError(f"a ({n}, {W}) array whose angles do not advance with the rows: which "
                         "half holds the cosines cannot be told; give cos and sin separately")
    if turn > 0:
        return c, s, VLLM if name == "halves" else INTER_CS
    return s, c, GPTJ if name == "halves" else INTER_SC


def periods(v: np.ndarray):
    """``(inv_freq, native)`` for a vector of periods (mlx's ``freqs``, increasing from about 1),
    or None for a vector that is not one."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1 or v.size < 2 or not np.all(np.isfinite(v)) or not np.all(v > 0):
        return None
    if not np.all(np.diff(v) >= 0) or v[-1] <= v[0] or v[0] < 0.5:
        return None
    return 1.0 / v, MLX_FREQS
