"""Finding the positional buffers of a checkpoint by name and by content, from samples of rows.

Content tests (each reads the first eight rows of a tensor -- one contiguous read, a few pages
-- and a few dozen rows spread over it only when those eight could belong to a positional buffer
or its name is positional; never the whole of a large tensor):

* **sinusoidal table** -- a 2-D float array (unit axes squeezed) whose channels form sin/cos
  pairs of one constant amplitude, interleaved ``(2i, 2i+1)`` or as halves ``(i, i + d/2)``, in
  every sampled row that is finite and not all zeros (padding), and that varies along the rows;
* **inv_freq** -- a 1-D float vector, positive, finite and strictly decreasing from at most
  about 1 (a rotary frequency vector, scaled or not); without a positional name it must also be
  nearly geometric, as every RoPE variant's default part is;
* **cos/sin cache** -- two float arrays of one shape whose squares add up to one constant in
  every sampled entry, the cos one holding that constant in its first row (names ``cos``/``sin``
  pair them first); or one complex array of constant modulus (Meta's ``freqs_cis``), a
  ``(2, S, d)`` stack or a ``(S, d/2, 2)`` array whose two parts do the same (torchtune's
  ``cache``, Meta's ``view_as_real(freqs_cis)``), or a 2-D array of sin/cos pairs named as one
  cache (vLLM's ``cos_sin_cache``, ``rope_cache`` ...; :mod:`.judge` also reads GPT-J's and
  CodeGen's ``embed_positions`` so under their config).

* **2-D sinusoidal table** -- a 2-D float array whose two halves are each a sinusoidal table
  (the ``get_2d_sincos_pos_embed`` of MAE, DiT and Stable Diffusion 3: one half encodes the
  patch's row, the other its column); the oracle judges 1-D tables, so it is named and not
  judged.

A tensor with a positional name (``embed_positions``, ``wpe``, ``position_embeddings``, ``pe``
...) that passes none of these is **learned** and not judged; so is a 2-D float tensor with a
positional word in any other component of its name, the module it belongs to
(``image_position_embed.row_embeddings.weight``: a learned row table of a 2-D embedding).
Every other tensor is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .container import Tensor
from .names import learned_note as _learned_note
from .names import positional_module

TABLE, INV_FREQ, CACHE, LEARNED = "sinusoidal table", "inv_freq", "cos/sin cache", "learned"
TABLE_2D = "2-D sinusoidal table"
SHIFTED = "sinusoidal table, shifted and scaled"
POS_NAME = re.compile(r"(^|[._])(embed_positions|positional_embeddings?|position_embeddings?|"
                      r"position_embd|"
                      r"pos_embed(dings?)?|pos_emb|wpe|pe|positional_encodings?|pos_enc(oding)?|"
                      r"sinusoids?|sinusoidal\w*|timing_signal)(\.weights?)?$", re.I)
FREQ_NAME = re.compile(r"(^|[._])(inv_freq|inv_timescales?|freqs?|frequencies|"
                       r"rope\w*freqs?)$", re.I)
COS_NAME = re.compile(r"(^|[._])(cos)(_cached|_cache)?$", re.I)
SIN_NAME = re.compile(r"(^|[._])(sin)(_cached|_cache)?$", re.I)
NOT_POS = re.compile(r"alibi|slopes?$", re.I)  # ALiBi slopes are geometric too
CIS_NAME = re.compile(r"(^|[._])(freqs_cis|cos_sin_cache|rope_cache|rotary_cache)$", re.I)
AMP_TOL = 2.0**-5   # relative spread of sin^2 + cos^2 tolerated (bfloat16 stores 2^-8)
MAX_AMPLITUDE = 4.0  # of a cos/sin cache: its attention factor (YaRN's at factor 10^6: 2.38)
MAX_WIDTH = 1 << 16
MAX_VECTOR = 1 << 16


@dataclass
class Found:
    kind: str  # TABLE | INV_FREQ | CACHE | LEARNED
    names: list[str]  # one name, or the cos and sin names of a pair
    shape: tuple
    dtype: str
    tensors: list[Tensor] = field(repr=False)
    note: str = ""
    by: str = "content"  # content | name and content | name
    amplitude: float | None = None  # of a table's sin/cos pairs, from the sampled rows
    native: str | None = None  # the library layout a one-array cache is expected in ("vllm" ...)


@dataclass
class Detection:
    found: list[Found]
    skipped: int
    skipped_named: list[tuple[str, str]]  # positional-looking names left out, with the reason


def sample_rows(n: int, k: int = 48) -> np.ndarray:
    """Row indices: the first 8, the last 4 and ``k`` spread evenly (all rows when few)."""
    if n <= k + 12:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(8), np.linspace(8, n - 5, k).astype(np.int64),
                                     np.arange(n - 4, n)]))


def squeezed(shape: tuple) -> tuple:
    return tuple(s for s in shape if s != 1)


def rows_of(t: Tensor, rows: np.ndarray) -> np.ndarray:
    """The sampled rows of a tensor whose non-unit axes are 2 (``(n, d)``), as float64."""
    arr = t.array()
    sq = squeezed(t.shape)
    arr = arr.reshape(sq if len(sq) == 2 else (-1, sq[-1]))  # a (H, W, D) grid: its H*W rows
    return np.asarray(arr[rows], dtype=np.float64)


def trig_layout(x: np.ndarray, vary: bool = True) -> tuple[str, float] | None:
    """``(layout, amplitude)`` when the channels of the sampled rows ``x`` form sin/cos pairs of
    one constant amplitude (see the module docstring), else ``None``."""
    n, w = x.shape
    if w < 2 or w % 2:
        return None
    with np.errstate(all="ignore"):
        x = x[np.isfinite(x).all(axis=1) & (np.abs(x).max(axis=1) > 0)]
    if len(x) < 2:
        return None
    h = w // 2
    for layout, a, b in (("interleaved", x[:, 0::2], x[:, 1::2]), ("halves", x[:, :h], x[:, h:])):
        amp2 = a * a + b * b
        s2 = float(np.median(amp2))
        if s2 <= 0 or not np.isfinite(s2):
            continue
        if float(np.abs(amp2 / s2 - 1).max()) > AMP_TOL:
            continue
        if vary and float(x.std(axis=0).max()) < 0.05 * np.sqrt(s2):
            continue  # constant rows: nothing varies with the position
        if vary and len(np.unique(np.abs(x).round(6))) < 4:
            continue  # entries +-c (a Hadamard or sign matrix): no angles
        return layout, float(np.sqrt(s2))
    return None


def trig_layout_2d(x: np.ndarray) -> str | None:
    """The layout of each half when both halves of the sampled rows ``x`` are sinusoidal tables
    of one amplitude and the whole is not one (a 2-D sin-cos embedding), else ``None``."""
    n, w = x.shape
    if w < 8 or w % 4 or trig_layout(x) is not None:
        return None
    # one half may be constant over the sampled rows (the first rows share the patch row)
    a, b = trig_layout(x[:, : w // 2], vary=False), trig_layout(x[:, w // 2:], vary=False)
    if a is None or b is None or abs(a[1] / b[1] - 1) > AMP_TOL:
        return None
    with np.errstate(all="ignore"):
        x = x[np.isfinite(x).all(axis=1) & (np.abs(x).max(axis=1) > 0)]
    if float(x.std(axis=0).max()) < 0.05 * a[1] or len(np.unique(np.abs(x).round(6))) < 4:
        return None
    return a[0] if a[0] == b[0] else f"{a[0]} and {b[0]}"


def affine_trig(x: np.ndarray) -> str | None:
    """The layout when the sampled rows are ``a * T + b`` for a sinusoidal table ``T`` and
    scalars ``a > 0``, ``b != 0`` (PatchTST's ``(pe - mean) / (10 std)``): the pairs' squares
    then satisfy ``x0^2 + x1^2 = 2b (x0 + x1) + (a^2 - 2b^2)``, fitted by least squares."""
    n, w = x.shape
    if w < 4 or w % 2 or n < 4 or not np.isfinite(x).all():
        return None
    h = w // 2
    for layout, a, b in (("interleaved", x[:, 0::2], x[:, 1::2]), ("halves", x[:, :h], x[:, h:])):
        y, u = (a * a + b * b).ravel(), (a + b).ravel()
        coef, *_ = np.linalg.lstsq(np.stack([u, np.ones_like(u)], 1), y, rcond=None)
        shift, c = coef[0] / 2, coef[1]
        amp2 = c + 2 * shift * shift
        if not amp2 > 0 or abs(shift) < 1e-3 * np.sqrt(amp2):
            continue
        if float(np.abs(y - (coef[0] * u + c)).max()) > AMP_TOL * amp2:
            continue
        if float(x.std(axis=0).max()) < 0.05 * np.sqrt(amp2):
            continue
        return f"{layout}, amplitude {np.sqrt(amp2):.6g}, shift {shift:.6g}"
    return None


def is_frequency_vector(v: np.ndarray, named: bool) -> bool:
    v = np.asarray(v, dtype=np.float64).reshape(-1)
    if v.size < 2 or not np.isfinite(v).all() or (v <= 0).any():
        return False
    if not (np.diff(v) < 0).all() or v[0] > 1 + 2.0**-6:
        return False
    if named:
        return True
    lv = np.log(v)
    line = np.linspace(lv[0], lv[-1], v.size)
    return v.size >= 4 and float(np.abs(lv - line).max()) <= 0.05 * float(lv[0] - lv[-1])


def _pair_amp(c: np.ndarray, s: np.ndarray) -> float | None:
    with np.errstate(all="ignore"):
        ok = np.isfinite(c).all(axis=-1) & np.isfinite(s).all(axis=-1)
        c, s = c[ok], s[ok]
        if c.size == 0:
            return None
        amp2 = c * c + s * s
        s2 = float(np.median(amp2))
        if not s2 > 0 or float(np.abs(amp2 / s2 - 1).max()) > AMP_TOL:
            return None
        if float(np.abs(s).max()) < 1e-3 * np.sqrt(s2):
            return None  # the "sin" part is zero everywhere: no angles
    return float(np.sqrt(s2))


def detect(tensors: list[Tensor]) -> Detection:
    found: list[Found] = []
    skipped_named: list[tuple[str, str]] = []
    used: set[str] = set()
    bounded: list[tuple[Tensor, np.ndarray, np.ndarray]] = []  # cache halves' candidates
    for t in tensors:
        sq = squeezed(t.shape)
        named = bool(POS_NAME.search(t.name) or FREQ_NAME.search(t.name) or CIS_NAME.search(
            t.name) or COS_NAME.search(t.name) or SIN_NAME.search(t.name))
        if not (t.is_float or t.is_complex) or 0 in t.shape:
            if named and t.dtype != "int64":
                skipped_named.append((t.name, f"dtype {t.dtype}"))
            continue
        if t.is_complex:
            if len(sq) == 2 and sq[1] <= MAX_WIDTH:
                z = np.asarray(t.array().reshape(sq)[sample_rows(sq[0])])
                if _pair_amp(z.real, z.imag) is not None:
                    found.append(Found(CACHE, [t.name], t.shape, t.dtype, [t], "complex "
                                       "cos + i sin (freqs_cis)", _by(named)))
                    continue
            if named:
                skipped_named.append((t.name, f"complex array of shape {t.shape}"))
            continue
        if len(sq) == 1:
            if NOT_POS.search(t.name):
                continue
            if sq[0] <= MAX_VECTOR and is_frequency_vector(t.array().reshape(-1),
                                                           bool(FREQ_NAME.search(t.name))):
                found.append(Found(INV_FREQ, [t.name], t.shape, t.dtype, [t], "",
                                   _by(bool(FREQ_NAME.search(t.name)))))
            elif FREQ_NAME.search(t.name):
                skipped_named.append((t.name, "named like a frequency vector but not positive "
                                      "and decreasing"))
            continue
        if len(sq) == 3 and (sq[0] == 2 or sq[2] == 2) and sq[1] <= MAX_WIDTH:
            f = _stacked(t, sq, named)
            if f is not None:
                found.append(f)
                continue
        module = None if POS_NAME.search(t.name) else positional_module(t.name)
        pos_named = bool(POS_NAME.search(t.name)) or module is not None
        if len(sq) == 3 and module is None and named and POS_NAME.search(t.name) \
                and sq[2] <= MAX_WIDTH:
            found.append(_grid(t, sq))  # SAM's (1, H, W, D) pos_embed
            continue
        if len(sq) != 2 or sq[1] > MAX_WIDTH:
            if named:
                skipped_named.append((t.name, f"shape {t.shape}"))
            continue
        n = sq[0]
        x = rows_of(t, np.arange(min(n, 8)))  # one contiguous read rejects a weight matrix
        with np.errstate(all="ignore"):
            maybe = (trig_layout(x) is not None or not np.isfinite(x).all()
                     or _cache_side(t.name, x) is not None or trig_layout_2d(x) is not None)
        if not maybe and not pos_named:
            continue
        rows = sample_rows(n)
        x = rows_of(t, rows)
        tl = trig_layout(x)
        if tl is not None and CIS_NAME.search(t.name):  # named as one array of cos and sin
            found.append(Found(CACHE, [t.name], t.shape, t.dtype, [t],
                               f"one array of cos and sin, {tl[0]}", "name and content"))
            continue
        if tl is not None:
            found.append(Found(TABLE, [t.name], t.shape, t.dtype, [t],
                               f"sin/cos channel pairs {tl[0]}, amplitude {tl[1]:.6g}",
                               _by(named), tl[1]))
            continue
        with np.errstate(all="ignore"):
            t2 = trig_layout_2d(x)
        if t2 is not None:
            found.append(Found(TABLE_2D, [t.name], t.shape, t.dtype, [t],
                               f"two halves (row and column of a patch grid), each of sin/cos "
                               f"channel pairs {t2}", _by(pos_named)))
            continue
        with np.errstate(all="ignore"):
            fin = np.isfinite(x)
            side = _cache_side(t.name, x) if fin.all() else None
        if side is not None:
            bounded.append((t, side, x))
        with np.errstate(all="ignore"):
            shifted = affine_trig(x) if pos_named else None
        if shifted is not None:
            found.append(Found(SHIFTED, [t.name], t.shape, t.dtype, [t], f"sin/cos channel "
                               f"pairs of a table shifted and scaled ({shifted})", "name and "
                               "content"))
            continue
        if pos_named:
            if not fin.all():
                found.append(Found(TABLE, [t.name], t.shape, t.dtype, [t], "holds NaN or "
                                   "infinity in the sampled rows", "name"))
            else:
                found.append(Found(LEARNED, [t.name], t.shape, t.dtype, [t],
                                   _learned_note(t.name, module) + _zeros(x),
                                   "name and content"))
            used.add(t.name)
    pairs = _cache_pairs([b for b in bounded if b[0].name not in used])
    paired = {n for f in pairs for n in f.names}
    for t, side, _ in bounded:
        if t.name not in used | paired and (COS_NAME.search(t.name) or SIN_NAME.search(t.name)):
            skipped_named.append((t.name, f"a {side} half without its partner of one shape"))
    found += pairs
    return Detection(found, len(tensors) - sum(len(f.names) for f in found), skipped_named)


def _zeros(x: np.ndarray) -> str:
    return " (all zeros in the sampled rows)" if not np.any(x) else ""


def _grid(t: Tensor, sq: tuple) -> Found:
    """A positional ``(H, W, D)`` grid, read as its ``H * W`` rows: a 2-D sin-cos table when
    its rows are one (or sin/cos pairs of one grid axis), else learned."""
    x = rows_of(t, sample_rows(sq[0] * sq[1]))
    with np.errstate(all="ignore"):
        t2 = trig_layout_2d(x) or (trig_layout(x) or (None,))[0]
    if t2 is not None:
        return Found(TABLE_2D, [t.name], t.shape, t.dtype, [t], f"a {sq[0]} x {sq[1]} grid of "
                     f"sin/cos channel pairs ({t2})", "name and content")
    return Found(LEARNED, [t.name], t.shape, t.dtype, [t], f"no sin/cos channel pairs: a "
                 f"{sq[0]} x {sq[1]} grid of a 2-D position embedding" + _zeros(x),
                 "name and content")


def _by(named: bool) -> str:
    return "name and content" if named else "content"


def _stacked(t: Tensor, sq: tuple, named: bool) -> Found | None:
    arr = t.array().reshape(sq)
    if sq[0] == 2:  # (2, S, d): cos then sin
        rows = sample_rows(sq[1])
        c = np.asarray(arr[0][rows], np.float64)
        s = np.asarray(arr[1][rows], np.float64)
        what = "(2, S, d) stack of cos and sin"
    else:  # (S, d/2, 2)
        rows = sample_rows(sq[0])
        x = np.asarray(arr[rows], np.float64)
        c, s = x[..., 0], x[..., 1]
        what = "(S, d/2, 2) array of cos and sin pairs"
    if _pair_amp(c, s) is None:
        return None
    return Found(CACHE, [t.name], t.shape, t.dtype, [t], what, _by(named))


def _cache_side(name: str, x: np.ndarray) -> str | None:
    """``"cos"`` / ``"sin"`` for a bounded array that may be one half of a cache: by its name,
    or by its first row (position 0: the constant amplitude for cos, zeros for sin).  The
    amplitude is an attention factor (1, or YaRN's / LongRoPE's ``sqrt(1 + ln s / ln L)`` and
    the like), so it is bounded by :data:`MAX_AMPLITUDE`, not by 1; the pairing checks that the
    two halves share it."""
    top = float(np.abs(x).max())
    if not top <= MAX_AMPLITUDE:
        return None
    if COS_NAME.search(name):
        return "cos"
    if SIN_NAME.search(name):
        return "sin"
    r0 = x[0]
    if r0[0] > 0 and np.all(r0 == r0[0]) and top <= r0[0] * (1 + AMP_TOL):
        return "cos"
    if np.all(r0 == 0) and top > 0:
        return "sin"
    return None


def _cache_pairs(cands) -> list[Found]:
    """cos/sin pairs among the candidate halves: by names first, then by content."""
    out: list[Found] = []
    cos = [c for c in cands if c[1] == "cos"]
    sin = [c for c in cands if c[1] == "sin"]
    taken: set[str] = set()

    def key(name, rx):
        m = rx.search(name)
        return None if m is None else name[:m.start(2)] + "*" + name[m.end(2):]

    for by_name in (True, False):
        for tc, _, xc in cos:
            if tc.name in taken:
                continue
            for ts, _, xs in sin:
                if ts.name in taken or ts.shape != tc.shape or ts.dtype != tc.dtype:
                    continue
                same = key(tc.name, COS_NAME) is not None and key(tc.name, COS_NAME) == key(
                    ts.name, SIN_NAME)
                if same != by_name or _pair_amp(xc, xs) is None:
                    continue
                taken.update((tc.name, ts.name))
                out.append(Found(CACHE, [tc.name, ts.name], tc.shape, tc.dtype, [tc, ts],
                                 "cos and sin arrays", _by(by_name)))
                break
    return out
