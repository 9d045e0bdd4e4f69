"""The oracle for rotary (RoPE) artefacts: an ``inv_freq`` vector, a cos/sin cache pair or an angle
table.

:func:`check_rotary` reads the artefact, identifies it (base, layout, scaling method and its
parameters, attention factor, dtype; :mod:`.rotary_ident`), checks it against the float error
model (:mod:`.rotary_model`) and gives one verdict of the absolute oracle's scale
(:mod:`.checking`): ``conforms`` / ``within the error model of its dtype`` / ``different variant``
(named) / ``wrong`` (naming the worst entries and, where one fits, the bug) / ``degenerate``
(distinct positions with identical cache rows) / ``outside the model`` (saying what it saw).

Caches: ``(S, d)`` half-split with duplicated halves (GPT-NeoX, transformers: ``cat(f, f)``),
``(S, d)`` interleaved (GPT-J, Meta: every angle repeated in place), ``(S, d/2)`` (one column per
pair), or Meta's complex ``freqs_cis`` (``S x d/2``, ``cos + i sin``).  Unit axes are squeezed.
Angle tables (``kind="angles"``): rotary-embedding-torch's ``freqs``, the angles ``p theta_j``
themselves, ``(S, d)`` with each angle repeated in place (or as two halves) or ``(S, d/2)``.
An expectation is a :class:`peproof.rope.Rope` or transformers' ``rope_parameters`` dict.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from peproof.formats import Format, format_of_dtype, get_format
from peproof.rope import Rope
from peproof.rope_scaling import (
    Default,
    DynamicNTK,
    Linear,
    Llama3,
    LongRope,
    NTKAware,
    Yarn,
)

from .budget import tiny
from .checking import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .rotary_ident import identify_frequencies, implied_factors
from .rotary_model import (
    AngleModel,
    CacheModel,
    Tally,
    compare_angles,
    compare_cache,
    compare_freqs,
    freq_map,
    freq_rel_error,
)
from .tables import InputError, to_numpy

LAYOUT_TEXT = {"half": "half-split [c|c] (GPT-NeoX, transformers rotate_half)",
               "interleaved": "interleaved (GPT-J, Meta: each angle repeated in place)",
               "pairs": "one column per pair (S, d/2)"}


# ----------------------------------------------------------------------------- expectations
def rope_from_config(params, d: int, max_position_embeddings=None, layout="half") -> Rope:
    """A :class:`Rope` from transformers' ``rope_parameters`` (or ``rope_scaling``) dict."""
    if isinstance(params, Rope):
        return params
    if isinstance(params, str):
        params = {"rope_type": params}
    p = dict(params)
    kind = p.get("rope_type", p.get("type", "default"))
    base = p.get("rope_theta", 10000)
    if isinstance(base, float):
        base = Fraction(base) if not base.is_integer() else int(base)
    mpe = max_position_embeddings or p.get("max_position_embeddings")
    extra = {}
    prf = p.get("partial_rotary_factor", 1)
    if kind == "proportional":  # transformers: exponent over the head, the last pairs unrotated
        extra = {"exponent_dim": d, "rotated_pairs": int(prf * d // 2)}
        kind = "linear" if p.get("factor", 1) != 1 else "default"
    elif prf != 1 and p.get("head_dim"):
        # transformers' default: the frequencies of int(head_dim * partial_rotary_factor)
        # channels (odd for Phi's 64 * 0.4), in 2 * ceil(that / 2) cache columns
        rot = int(p["head_dim"] * prf)
        if rot + rot % 2 == d:
            extra = {"exponent_dim": rot}
    if kind == "default":
        sc = Default()
    elif kind == "linear":
        sc = Linear(p["factor"])
    elif kind in ("ntk", "ntk-aware"):
        sc = NTKAware(p["factor"])
    elif kind == "dynamic":
        if mpe is None:
            raise InputError("dynamic NTK needs max_position_embeddings")
        sc = DynamicNTK(p["factor"], mpe)
    elif kind == "yarn":
        orig = p.get("original_max_position_embeddings") or mpe
        factor = p.get("factor") or Fraction(mpe) / Fraction(orig)
        sc = Yarn(factor, orig, p.get("beta_fast") or 32, p.get("beta_slow") or 1,
                  truncate=p.get("truncate", True), attention_factor=p.get("attention_factor"),
                  mscale=p.get("mscale"), mscale_all_dim=p.get("mscale_all_dim"))
    elif kind == "llama3":
        sc = Llama3(p["factor"], p.get("low_freq_factor", 1), p.get("high_freq_factor", 4),
                    p["original_max_position_embeddings"])
    elif kind == "longrope":
        orig = p["original_max_position_embeddings"]
        factor = p.get("factor") or (Fraction(mpe) / Fraction(orig) if mpe else None)
        sc = LongRope(tuple(p["short_factor"]), tuple(p["long_factor"]), orig, factor,
                      p.get("attention_factor"))
    else:
        raise InputError(f"unknown rope_type {kind!r}; known: default, linear, ntk, dynamic, "
                         "yarn, llama3, longrope, proportional")
    return Rope(d, base, layout=layout, scaling=sc, **extra)


# ----------------------------------------------------------------------------- artefacts
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
                  layout=None, angles=None) -> Artefact:
    """Normalise what the user gave into an :class:`Artefact` (see the module docstring)."""
    if kind == "angles" or angles is not None:
        return _read_angles(obj if angles is None else angles, d, layout)
    if obj is not None:
        if isinstance(obj, dict):
            keys = {k.lower(): k for k in obj}
            if "inv_freq" in keys and kind != "cache":
                inv_freq = obj[keys["inv_freq"]]
            else:
                ck = next((keys[k] for k in ("cos", "cos_cached", "cos_cache") if k in keys), None)
                sk = next((keys[k] for k in ("sin", "sin_cached", "sin_cache") if k in keys), None)
                if ck is None or sk is None:
                    raise InputError(f"a dict with keys {', '.join(map(str, obj))}: expected "
                                     "inv_freq, or cos and sin")
                cos, sin = obj[ck], obj[sk]
        elif isinstance(obj, (tuple, list)) and len(obj) == 2:
            cos, sin = obj
        else:
            arr = to_numpy(obj)
            if arr.dtype.kind == "c":
                arr = _squeeze(arr)
                cos, sin = np.ascontiguousarray(arr.real), np.ascontiguousarray(arr.imag)
                layout = layout or "pairs"
            elif kind == "inv_freq" or (kind is None and arr.ndim == 1):
                inv_freq = arr
            elif arr.ndim >= 3 and arr.shape[0] == 2:
                cos, sin = arr[0], arr[1]
            else:
                raise InputError(f"an array of shape {tuple(arr.shape)} is neither an inv_freq "
                                 "vector (1-D) nor a cos/sin pair (give cos and sin, a (2, S, d) "
                                 "stack or a complex freqs_cis); a 2-D sinusoidal table is checked"
                                 " with --kind table")
    if inv_freq is not None:
        v = to_numpy(inv_freq)
        v = v.reshape(-1) if v.ndim > 1 and sum(s != 1 for s in v.shape) <= 1 else v
        if v.ndim != 1 or v.size < 1:
            raise InputError(f"inv_freq must be a vector, got shape {tuple(v.shape)}")
        st = _fmt_of(v, "inv_freq")
        v64 = np.asarray(v, dtype=np.float64)
        if not np.isfinite(v64).all():
            raise InputError("inv_freq holds NaN or infinity")
        return Artefact("inv_freq", inv_freq=v64, d=2 * v.size if d is None else d, stored=st)
    if cos is None or sin is None:
        raise InputError("give an inv_freq vector or both cos and sin")
    c, s = _squeeze(to_numpy(cos)), _squeeze(to_numpy(sin))
    if c.ndim == 1:
        c, s = c.reshape(1, -1), s.reshape(1, -1)
    if c.shape != s.shape or c.ndim != 2:
        raise InputError(f"cos and sin must have the same 2-D shape, got {tuple(c.shape)} and "
                         f"{tuple(s.shape)}")
    if c.dtype != s.dtype:
        raise InputError(f"cos is {c.dtype} and sin is {s.dtype}: one cache has one dtype")
    st = _fmt_of(c, "the cache")
    n, W = c.shape
    art = Artefact("cache", cos=c, sin=s, stored=st)
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
            if not np.array_equal(x, y):
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


# ----------------------------------------------------------------------------- reading angles
def _rows_at(pos: np.ndarray, want: float):
    k = int(np.searchsorted(pos, want))
    return k if k < len(pos) and pos[k] == want else None


def estimate_cache(art: Artefact, pos: np.ndarray, pipe: Format):
    """``(w, rel, a, a_rel)``: frequencies, their relative uncertainty, the amplitude (attention
    factor) and its relative uncertainty, read from the cache's first copy."""
    C, S = art.copies[0]
    st = art.stored
    if not np.all(np.diff(pos) > 0):
        raise InputError("positions must increase to read the frequencies from a cache")
    r0 = _rows_at(pos, 0.0)
    if r0 is not None:
        amp = np.asarray(C[r0], dtype=np.float64)
        a = float(np.median(amp))
    else:
        x = np.asarray(C[:8], dtype=np.float64), np.asarray(S[:8], dtype=np.float64)
        a = float(np.median(np.hypot(*x)))
    a_rel = 2 * st.u + 8 * pipe.u
    pp = pos[pos > 0]
    if not pp.size:
        raise InputError("the cache needs a row at a positive position to read its angles")
    p1 = float(pp[0])
    r1 = _rows_at(pos, p1)
    w = np.arctan2(np.asarray(S[r1], np.float64), np.asarray(C[r1], np.float64)) / p1
    L = float(np.abs(np.log(np.abs(w[w != 0]))).max()) if np.any(w != 0) else 0.0
    K = (4 + 3 * L + 48) * pipe.u
    noise = 4 * (st.u + pipe.u) / max(a, 1e-30)

    def err(p):
        return (p * np.abs(w) * K + noise) / p

    e = err(p1)
    p = p1 * 2
    while p <= pos[-1]:
        r = _rows_at(pos, p)
        if r is None:
            break
        act = p * e < 0.5
        if not act.any():
            break
        phi = np.arctan2(np.asarray(S[r], np.float64), np.asarray(C[r], np.float64))
        pred = p * w
        dl = np.mod(phi - pred + np.pi, 2 * np.pi) - np.pi
        w = np.where(act, (pred + dl) / p, w)
        e = np.where(act, err(p), e)
        p *= 2
    rel = e / np.maximum(np.abs(w), 1e-300) + (4 + 3 * L + 48) * pipe.u
    return w, rel, a, a_rel


def attention_forms(rope: Rope, a: float, a_rel: float) -> list[tuple[str, object, float]]:
    """Exact forms of the attention factor consistent with the amplitude ``a``:
    ``(text, exact-or-None, value)``; the method's own factor first."""
    sc = rope.scaling
    forms = []
    own = float(rope.attention_factor_arb(128).mid())
    forms.append(("the method's own factor" if own != 1 else "1", own))
    if isinstance(sc, Yarn | LongRope) and own != 1:
        forms.append(("squared (applied twice)", own * own))
        forms.append(("missing (1)", 1.0))
    if own == 1 and a != 1:
        fa = Fraction(a)
        forms.append((f"{fa}", float(fa)))
    return [(t, v) for t, v in forms if abs(v / a - 1) <= 3 * a_rel + 1e-12]


# ----------------------------------------------------------------------------- report
@dataclass
class RotaryReport:
    verdict: str
    kind: str
    shape: tuple
    stored: Format
    pipe: Format
    layout: str | None
    expected: Rope | None
    identified: Rope | None
    seq_len: int | None
    attention: float
    attention_form: str
    tally: Tally | None
    other: Tally | None = None
    diagnoses: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    collisions: dict = field(default_factory=dict)
    horizon: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)
    allow_collisions: bool = False
    seconds: float = 0.0
    implied: dict = field(default_factory=dict)  # per-frequency factors read (LongRoPE-like)

    @property
    def ok(self) -> bool:
        return self.verdict in (CONFORMS, WITHIN)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def describe(self, r: Rope | None) -> str:
        if r is None:
            return "-"
        return r.describe() + (f" at seq_len {self.seq_len}" if r.scaling.kind == "dynamic"
                               and self.seq_len else "")

    @property
    def headline(self) -> str:
        if self.verdict == VARIANT:
            return f"{VARIANT}: {self.describe(self.identified)}"
        if self.verdict in (WRONG, OUTSIDE, DEGENERATE) and self.diagnoses:
            return f"{self.verdict}: {self.diagnoses[0]}"
        return self.verdict

    def to_json(self) -> dict:
        from peproof.oracle.report import _clean

        return _clean({
            "schema": "peproof.rotary-check/1", "verdict": self.verdict, "ok": self.ok,
            "artefact": self.kind, "shape": list(self.shape), "dtype": self.stored.name,
            "pipeline_dtype": self.pipe.name, "layout": self.layout,
            "expected": self.describe(self.expected) if self.expected else None,
            "identified": self.describe(self.identified) if self.identified else None,
            "seq_len": self.seq_len, "attention_factor": self.attention,
            "attention_form": self.attention_form, "diagnoses": self.diagnoses,
            "notes": self.notes,
            "counts": self.tally.to_json() if self.tally else None,
            "counts_identified": self.other.to_json() if self.other else None,
            "collisions": self.collisions, "horizon": self.horizon, "error_model": self.model,
            "implied_factors": self.implied or None, "seconds": self.seconds})

    def render(self, worst: int = 5) -> str:
        L = [f"peproof check (rotary {self.kind}): shape {self.shape}, {self.stored.name}"
             + (f", computed in {self.pipe.name}" if self.pipe != self.stored else "")]
        L.append(f"verdict    : {self.headline.upper() if self.ok else self.headline}")
        for k, dg in enumerate(self.diagnoses[1:4] if self.verdict != VARIANT else
                               self.diagnoses[:4]):
            L.append(("diagnosis  : " if k == 0 else "             ") + dg)
        if self.expected is not None:
            L.append(f"expected   : {self.describe(self.expected)}")
        L.append(f"identified : {self.describe(self.identified)}")
        if self.layout:
            L.append(f"layout     : {LAYOUT_TEXT.get(self.layout, self.layout)}")
        L.append(f"attention  : {self.attention:.9g} ({self.attention_form})")
        t = self.tally
        if t is not None:
            L.append(f"counts     : {t.faithful} of {t.entries} entries within 1 ulp, "
                     f"{t.entries - t.over - t.undecided} within the error model of "
                     f"{self.pipe.name}, {t.over} outside"
                     + (f", {t.undecided} undecided" if t.undecided else ""))
            if t.worst and worst:
                L.append("worst      : " + "; ".join(
                    f"pos {w.get('position', '-')} pair {w['pair']} {w.get('part', '')} "
                    f"{w['value']:.9g} (exact {w['expected']:.9g}, {w['x_bound']:.3g} x bound)"
                    for w in t.worst[:worst]))
        if self.implied:
            f = self.implied["factors"]
            L.append(f"factors    : implied per pair (base {self.implied['base']}): "
                     + ", ".join(f"{x:.6g}" for x in f[:8]) + (" ..." if len(f) > 8 else ""))
        for n in self.notes[:4]:
            L.append(f"note       : {n}")
        col = self.collisions
        if col:
            L.append(f"collisions : {col.get('identical_row_groups', 0)} groups of identical "
                     "rows" + (f", first positions {col['examples'][0]}" if col.get('examples')
                               else ""))
        for fmt, hz in self.horizon.items():
            L.append(f"horizon    : {fmt}: positions collide from {hz['positions_collide_from']}"
                     f" (p and p+1 equal), the angle of pair 0 from "
                     f"{hz['theta0_angle_collides_from']}")
        return "\n".join(L)

    def __str__(self) -> str:
        return self.render()


# ----------------------------------------------------------------------------- checking
def _model(rope: Rope, seq_len, a: float, pipe: Format, stored: Format, thetas=None):
    th = rope.thetas_f64(seq_len) if thetas is None else thetas
    return CacheModel(th, a, Fraction(a) * (1 + Fraction(1, 2**50)), pipe, stored,
                      freq_map(rope, seq_len))


def _sample(n: int, k: int = 2048) -> np.ndarray:
    if n <= k:
        return np.arange(n)
    g = np.unique(np.concatenate([np.arange(256), np.geomspace(1, n - 1, k // 2).astype(int),
                                  np.linspace(0, n - 1, k // 2).astype(int),
                                  np.arange(n - 64, n)]))
    return g


def check_rotary(obj=None, *, cos=None, sin=None, inv_freq=None, angles=None, kind=None, d=None,
                 positions=None, expect=None, layout=None, seq_len=None, base=None,
                 max_position_embeddings=None, dtype=None, pipeline_dtype=None,
                 allow_collisions: bool = False) -> RotaryReport:
    """Identify and check a rotary artefact; see the module docstring.  ``expect`` is a
    :class:`Rope` or a ``rope_parameters`` dict (then ``d`` comes from the artefact),
    ``base`` a hint for naming NTK-aware scalings, ``seq_len`` the length for dynamic methods
    (default: the largest position + 1)."""
    t0 = time.perf_counter()
    with np.errstate(all="ignore"):
        rep = _check(obj, cos, sin, inv_freq, kind, d, positions, expect, layout, seq_len, base,
                     max_position_embeddings, dtype, pipeline_dtype, allow_collisions, angles)
    rep.seconds = time.perf_counter() - t0
    return rep


def _check(obj, cos, sin, inv_freq, kind, d, positions, expect, layout, seq_len, base, mpe,
           dtype, pipeline_dtype, allow, angles=None):
    from peproof.encoding import ParameterError

    art = read_artefact(obj, cos=cos, sin=sin, inv_freq=inv_freq, kind=kind, d=d, layout=layout,
                        angles=angles)
    st = get_format(dtype) if dtype else art.stored
    pipe = get_format(pipeline_dtype) if pipeline_dtype else st
    d = art.d
    exp_layout = layout or (expect.layout if isinstance(expect, Rope) else None)
    try:
        want = None if expect is None else rope_from_config(expect, d, mpe,
                                                            exp_layout or "half")
    except ParameterError as exc:
        raise InputError(f"the expected RoPE is not valid here: {exc}") from None
    if want is not None and want.d != d:
        raise InputError(f"the expected RoPE has d={want.d}, the artefact d={d}")
    hint = base if base is not None else (want._base if want is not None else None)
    notes = [art.layout_note] if art.layout_note else []
    if art.kind == "inv_freq":
        return _check_freqs(art, want, hint, seq_len, st, pipe, notes, expect)
    n = (art.cos if art.kind == "cache" else art.angles).shape[0]
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions,
                                                                               np.float64)
    if pos.shape != (n,):
        raise InputError(f"{pos.shape[0]} positions for a cache of {n} rows")
    if seq_len is None:
        seq_len = int(pos.max()) + 1
    if art.kind == "angles":
        return _check_angles(art, want, hint, seq_len, st, pipe, notes, pos, exp_layout, allow,
                             expect)
    w, rel, a, a_rel = estimate_cache(art, pos, pipe)
    cands, inotes = identify_frequencies(w, rel, d, hint)
    notes += inotes[-1:]
    lay = art.layout if art.layout != "pairs" else (exp_layout or "half")
    ident = None
    form = ""
    first = None
    for c in cands:
        r = replace(c.rope, layout=lay)
        fs = attention_forms(r, a, a_rel)
        if fs:
            if first is None:
                first = (r, fs[0][0], fs[0][1], c.notes[:1])
            # with no expectation, the candidates a cache's reading cannot separate (a 16-bit
            # cache's factor 30, 31 or 32) are told apart by the whole cache: the first that
            # fits it is the identification
            if want is None and len(cands) > 1 and not compare_cache(
                    art.copies, pos, _model(r, seq_len, fs[0][1], pipe, st),
                    rows=_sample(len(pos))).fits:
                continue
            ident, form, a_val = r, fs[0][0], fs[0][1]
            notes += c.notes[:1]
            break
    if ident is None and first is not None:
        ident, form, a_val = first[0], first[1], first[2]
        notes += first[3]
    if ident is None and cands:
        c = cands[0]
        ident = replace(c.rope, layout=lay)
        a_val, form = a, "read from the cache (not the method's own factor)"
        notes += c.notes[:1]
    if want is not None and exp_layout is None and art.layout != "pairs":
        # a rope_parameters dict says nothing of the layout: the cache's own is compared
        # (a layout is compared only when one was asked for, as for angle tables)
        want = replace(want, layout=art.layout)
    want = _odd_rotary_dim(want, ident, expect, notes)
    # the target and its attention factor
    if want is not None:
        target = want
        a_t = float(want.attention_factor_arb(128, seq_len).mid())
        form_t = "the expected method's factor"
    else:
        target, a_t, form_t = ident, (a_val if ident is not None else a), form
    copies = art.copies
    tally = other = None
    diagnoses: list[str] = []
    verdict = OUTSIDE
    model_t = _model(target, seq_len, a_t, pipe, st) if target is not None else None
    if target is not None:
        tally = compare_cache(copies, pos, model_t)
        if tally.fits:
            verdict = CONFORMS if tally.conforms else WITHIN
            if want is not None and art.layout != "pairs" and art.layout != want.layout:
                verdict = VARIANT
                diagnoses.append(f"layout {art.layout} where {want.layout} was expected: "
                                 f"{LAYOUT_TEXT[art.layout]} applied as {LAYOUT_TEXT[want.layout]}"
                                 " rotates the wrong channel pairs")
                ident = replace(want, layout=art.layout)
    if target is None or not tally.fits:
        sub = _sample(n)
        if want is not None and ident is not None and not _same(ident, want, 0, 0):
            other = compare_cache(copies, pos, _model(ident, seq_len, a_val, pipe, st))
            if other.fits:
                verdict, text = _variant_or_static(want, ident, seq_len, a_t, a_val, d)
                diagnoses.append(text)
        implied = {}
        if ident is None:
            text, implied, hyp = _per_frequency(w, rel, d, hint, want, seq_len)
            if hyp and want is not None and compare_cache(copies, pos, _model(
                    want, _other_len(want, seq_len), a_t, pipe, st)).fits:
                verdict = WRONG
                diagnoses.append(hyp)
            elif text:
                diagnoses.append(text + f"; amplitude {a:.9g}")
        if verdict == OUTSIDE and target is not None:
            found = _hypotheses(copies, pos, sub, target, seq_len, a_t, pipe, st)
            if found:
                verdict = WRONG
                diagnoses += found
            elif tally.over < 0.5 * tally.entries and want is not None:
                verdict = WRONG
                diagnoses.append(_worst_text(tally, want is not None))
            elif want is None and len(cands) <= 1:
                diagnoses.append(_unsure_text(target, tally))
            elif want is None and len(cands) > 1:
                # no expectation and a reading that allowed several RoPEs, none of which fits:
                # the identification, not the cache, may be what is off
                diagnoses.append(f"none of the {len(cands)} RoPEs its reading allows fits the "
                                 f"whole cache ({'; '.join(c.rope.describe() for c in cands[:3])}"
                                 "): give the expected RoPE to check it")
        if verdict == OUTSIDE and not diagnoses:
            seen = [f"frequencies read from the cache {np.array2string(w[:3], precision=6)}..."
                    f"{w[-1]:.6g}, amplitude {a:.6g}"] + inotes[:2]
            diagnoses.append("not a RoPE cache peproof can express: " + "; ".join(seen))
    col = _collisions(copies, pos)
    if col.get("identical_row_groups") and not allow and verdict in (CONFORMS, WITHIN, VARIANT):
        verdict = DEGENERATE
        ex = col["examples"][0]
        diagnoses.insert(0, f"distinct positions give identical rows (first {ex}): positions "
                         "collide")
    hz = {}
    for f in ("float16", "bfloat16"):
        hz[f] = _horizon0(target or ident, f, seq_len)
    return RotaryReport(verdict, "cache", tuple(art.cos.shape), st, pipe, art.layout, want,
                        ident, seq_len, a_t if target is not None else a, form_t, tally, other,
                        diagnoses, notes, col, hz,
                        model_t.to_json() if model_t is not None else {},
                        allow, implied=implied if target is None or not tally.fits else {})


def _per_frequency(w, rel, d, hint, want, seq_len):
    """``(diagnosis, implied, hypothesis)`` for frequencies no method was identified with:
    the per-frequency factors they imply for a known base (the expected one, or ``base``), said
    to be LongRoPE-like (or not) but never checked without the model's own factors.  Against a
    LongRoPE expectation, the other factor set (short where long is due, or long where short is)
    is the named bug it may be."""
    base = want._base if want is not None else hint
    if base is None or not np.all(np.isfinite(w)) or not np.all(w > 0):
        return None, {}, None
    D = want.exponent_dim if want is not None else None
    imp = implied_factors(w, rel, d, base, D)
    sc = want.scaling if want is not None else None
    if isinstance(sc, LongRope):
        L = int(sc.original_max_position_embeddings)
        used_long = seq_len is not None and seq_len > L
        other = sc.short_factor if used_long else sc.long_factor
        lam = np.asarray(imp["factors"])
        r = np.asarray(imp["relative_uncertainty"])
        if np.all(np.abs(lam / np.array([float(x) for x in other]) - 1) <= 3 * r + 1e-9):
            which, due = ("short", "long") if used_long else ("long", "short")
            return None, imp, (f"LongRoPE's {which} factors where the {due} ones are due at "
                               f"seq_len {seq_len} (original_max_position_embeddings {L}: "
                               f"long past it)")
        return None, imp, None
    if want is not None:
        return None, {}, None  # another method expected: its own diagnoses say more
    f = imp["factors"]
    shown = ", ".join(f"{x:.6g}" for x in f[:6]) + (" ..." if len(f) > 6 else "")
    if imp["one_common_factor"]:
        return None, {}, None
    if not imp["all_at_least_1"]:
        return (f"per-frequency factors implied for base {imp['base']} ({shown}) fall below 1 "
                f"at pairs {imp['pairs_below_1'][:6]}: not LongRoPE's shape (its factors only "
                "stretch wavelengths)", imp, None)
    return (f"identified: LongRoPE-like per-frequency scaling of base {imp['base']}, implied "
            f"factors {shown} (each >= 1, as LongRoPE's are); the factors themselves are not "
            "checkable without the model's short_factor / long_factor (give them with --rope or"
            " expect=)", imp, None)


def _other_len(rope: Rope, seq_len):
    """A length on the other side of LongRoPE's switch between its factor sets."""
    L = int(rope.scaling.original_max_position_embeddings)
    return L if seq_len is not None and seq_len > L else L + 1


def _odd_rotary_dim(want, ident, expect, notes):
    """A ``partial_rotary_factor`` without ``head_dim``: transformers rotates
    ``int(head_dim * factor)`` channels' frequencies in ``d`` columns, so the exponent's
    dimension is ``d`` or ``d - 1`` (odd: Phi's 64 * 0.4 = 25.6 -> 25 in 26 columns) and the
    dict alone cannot say which; the one the artefact was identified with is accepted."""
    if (want is None or ident is None or not isinstance(expect, dict)
            or expect.get("partial_rotary_factor", 1) == 1 or expect.get("head_dim")
            or ident.exponent_dim != want.d - 1 or want.exponent_dim != want.d):
        return want
    alt = replace(want, exponent_dim=ident.exponent_dim)
    if alt._base == ident._base and alt.scaling == ident.scaling:
        notes.append(f"partial_rotary_factor {expect['partial_rotary_factor']} without head_dim:"
                     f" the exponent's dimension is {want.d} or {want.d - 1}; the artefact's "
                     f"{want.d - 1} (an odd rotary dimension) is accepted")
        return alt
    return want


def _same(r1: Rope, r2: Rope, a1, a2) -> bool:
    return (r1.layout == r2.layout and r1._base == r2._base and r1.scaling == r2.scaling
            and r1.exponent_dim == r2.exponent_dim and r1.rotated_pairs == r2.rotated_pairs
            and a1 == a2)


def _static_text(sc, seq_len) -> str:
    L = int(sc.max_position_embeddings)
    eff = float(sc.factor) * max(seq_len, L) / L - (float(sc.factor) - 1)
    return (f"a 'dynamic' NTK that is static: the frequencies use the full factor {sc.factor} "
            f"at every length, where at seq_len {seq_len} the dynamic map uses {eff:.6g}")


def _variant_or_static(want: Rope, got: Rope, seq_len, a_want, a_got, d):
    """``(verdict, diagnosis)`` for an identified RoPE other than the expected one: a dynamic
    NTK expectation met by the static map with its full factor is the named bug."""
    sc, gs = want.scaling, got.scaling
    if isinstance(sc, DynamicNTK) and isinstance(gs, NTKAware) and gs.factor == sc.factor \
            and want._base == got._base:
        return WRONG, _static_text(sc, seq_len)
    return VARIANT, _diff(want, got, a_want, a_got, d)


def _diff(want: Rope, got: Rope, a_want, a_got, d) -> str:
    out = []
    if want._base != got._base:
        out.append(f"base {got._base} where {want._base} was expected")
    if want.scaling != got.scaling:
        out.append(f"scaling {got.scaling.describe()} where {want.scaling.describe()} was "
                   "expected")
    if want.layout != got.layout:
        out.append(f"layout {got.layout} where {want.layout} was expected")
    if want.exponent_dim != got.exponent_dim:
        out.append(f"frequencies base**(-2j/{got.exponent_dim}) where base**(-2j/"
                   f"{want.exponent_dim}) was expected (the rotary dimension the model uses "
                   "in the exponent differs from the channels it rotates)")
    if want.rotated_pairs != got.rotated_pairs:
        out.append(f"{got.rotated_pairs} rotating pairs where {want.rotated_pairs} were "
                   "expected")
    if a_want != a_got:
        out.append(f"attention factor {a_got:.9g} where {a_want:.9g} was expected")
    return "; ".join(out) or "an equivalent RoPE"


def _unsure_text(target: Rope, t: Tally) -> str:
    """No expectation, no named bug, and the RoPE the reading suggested does not fit: the
    reading may have misidentified it (a 16-bit artefact's frequencies are read to ~1e-3, and a
    round base or factor is then a guess); 'wrong' needs the RoPE that was meant."""
    return (f"the RoPE its reading suggests ({target.describe()}) leaves {t.over} of {t.entries}"
            " entries outside the error model: either the artefact is broken or the reading "
            "misidentified it; give the expected RoPE (--rope / expect=) to decide")


def _worst_text(t: Tally, expected: bool) -> str:
    w = t.worst[0] if t.worst else {}
    pairs = np.nonzero(t.over_pairs)[0] if t.over_pairs is not None else []
    where = (f"pairs {pairs[0]}..{pairs[-1]}" if len(pairs) > 1 else
             f"pair {pairs[0]}" if len(pairs) else "")
    return (f"{t.over} of {t.entries} entries outside the error model ({where}), first at "
            f"position {t.first_over_position:g}; worst: position {w.get('position')} pair "
            f"{w.get('pair')} {w.get('part')} is {w.get('value', 0):.9g}, exact "
            f"{w.get('expected', 0):.9g}")


def _hypotheses(copies, pos, sub, target: Rope, seq_len, a, pipe, st) -> list[str]:
    """Named bugs that explain the cache: each is the target computed with one known mistake."""
    found = []
    th = target.thetas_f64(seq_len)

    def fits(model, cps=copies, apos=None):
        t = compare_cache(cps, pos, model, angle_pos=apos, rows=sub)
        return t.fits

    if fits(_model(target, seq_len, a, pipe, st), [(s, c) for c, s in copies]):
        found.append("cos and sin swapped: the cos cache holds the sines and the sin cache the "
                     "cosines")
    for name in ("float16", "bfloat16"):
        f = get_format(name)
        rp = f.round(pos)
        if np.any(rp != pos) and fits(_model(target, seq_len, a, pipe, st), apos=rp):
            first = float(pos[np.nonzero(rp != pos)[0][0]])
            found.append(f"positions held in {name} before the product: from position "
                         f"{first:g} they round (e.g. {first:g} -> {float(f.round([first])[0]):g})"
                         ", so late positions share one angle")
            break
    for name in ("bfloat16", "float16"):
        f = get_format(name)
        th_r = f.round(th)
        if np.any(th_r != th) and fits(_model(target, seq_len, a, pipe, st, thetas=th_r)):
            found.append(f"inv_freq rounded to {name} before the cache was built (relative "
                         f"error up to {float(np.max(np.abs(th_r / th - 1))):.2g} per "
                         "frequency, growing with the position)")
            break
    if a != 1:
        for txt, alt in ((f"attention factor applied twice (squared): amplitude {a * a:.9g} "
                          f"= {a:.9g}^2 where {a:.9g} was expected", a * a),
                         (f"attention factor missing: amplitude 1 where {a:.9g} was expected",
                          1.0)):
            if fits(_model(target, seq_len, alt, pipe, st)):
                found.append(txt)
                break
    sc = target.scaling
    rev = _reversed_blend(target, seq_len)
    if rev is not None:
        for alt, txt in ((a, ""), (1.0, "; the attention factor is missing too (amplitude 1)")):
            if (alt == a or a != 1) and fits(_model(target, seq_len, alt, pipe, st, thetas=rev)):
                found.append(_REVERSED + txt)
                break
    if isinstance(sc, DynamicNTK):
        stat = Rope(target.d, target._base, layout=target.layout, scaling=NTKAware(sc.factor))
        eff = float(sc.factor) * max(seq_len, int(sc.max_position_embeddings)) / \
            int(sc.max_position_embeddings) - (float(sc.factor) - 1)
        if eff != float(sc.factor) and fits(_model(stat, None, a, pipe, st)):
            found.append(f"a 'dynamic' NTK that is static: the frequencies use the full factor "
                         f"{sc.factor} at every length, where at seq_len {seq_len} the dynamic "
                         f"map uses {eff:.6g}")
        elif seq_len > int(sc.max_position_embeddings) and fits(
                _model(Rope(target.d, target._base, layout=target.layout), None, a, pipe, st)):
            found.append(f"dynamic NTK never applied: unscaled frequencies at seq_len {seq_len}"
                         f" > max_position_embeddings {sc.max_position_embeddings}")
    return found


_REVERSED = ("the blend reversed: the high frequencies interpolated (divided by the factor) and "
             "the low ones kept, where the method keeps the high ones and interpolates the low")


def _reversed_blend(target: Rope, seq_len):
    """The frequencies of a YaRN / Llama 3.1 target with its blend between extrapolation
    (multiplier 1) and interpolation (``1/s``) turned around: ``m'_j = 1 + 1/s - m_j``."""
    sc = target.scaling
    if not isinstance(sc, Yarn | Llama3):
        return None
    th = target.thetas_f64(seq_len)
    th0 = replace(target, scaling=Default()).thetas_f64()
    inv = 1 / float(sc.factor)
    with np.errstate(all="ignore"):
        m = np.where(th0 > 0, th / th0, 0.0)
    rev = th0 * (1 + inv - m)
    return None if np.allclose(rev, th, rtol=1e-12, atol=0) else rev


def _collisions(copies, pos) -> dict:
    from .scan import RowScan

    C, S = copies[0]
    h = C.shape[1]
    scan = RowScan(2 * h, None)
    for k in range(0, C.shape[0], 16384):
        scan.add(k, np.hstack([np.asarray(C[k:k + 16384], np.float64),
                               np.asarray(S[k:k + 16384], np.float64)]))

    class _Rows:
        def __getitem__(self, i):
            return np.concatenate([np.asarray(C[i], np.float64), np.asarray(S[i], np.float64)])

    return scan.collisions(_Rows(), pos)


def _horizon0(rope, fmt, seq_len) -> dict:
    try:
        return _horizon0_(rope, fmt, seq_len)
    except RuntimeError as exc:  # a rounding not decided: the horizon is not stated
        return {"positions_collide_from": None, "positions_exact_up_to": None,
                "theta0_angle_collides_from": None, "undecided": str(exc)}


def _horizon0_(rope, fmt, seq_len) -> dict:
    import flint

    from .rotary_horizon import first_collision, position_horizon

    f = get_format(fmt)
    out = {"positions_collide_from": first_collision(1.0, lambda p: flint.arb(1), f),
           "positions_exact_up_to": position_horizon(f)}
    if rope is not None:
        th0 = float(rope.thetas_f64(seq_len)[0])

        def ball(prec):
            with flint.ctx.workprec(prec):
                return rope.theta_arb(0, prec + 32, seq_len)

        t0 = rope.theta(0, seq_len)
        exact = Fraction(int(t0.p), int(t0.q)) if getattr(t0, "is_Rational", False) else None
        out["theta0_angle_collides_from"] = first_collision(th0, ball, f, exact=exact)
    else:
        out["theta0_angle_collides_from"] = None
    return out


def _check_angles(art: Artefact, want, hint, seq_len, st, pipe, notes, pos, exp_layout,
                  allow, expect=None) -> RotaryReport:
    """An angle table: frequencies read from the last row (``angle / p``), identified like an
    ``inv_freq``, the table compared with :class:`~.rotary_model.AngleModel`."""
    A = art.copies[0]
    d = art.d
    pp = np.nonzero(pos > 0)[0]
    if not pp.size:
        raise InputError("the angle table needs a row at a positive position")
    # the last row, or the last exactly representable in float16 (so that positions held in a
    # narrow format, a bug named below, do not spoil the identification)
    early = np.nonzero((pos > 0) & (pos <= 2048))[0]
    r = int(early[-1]) if early.size else int(pp[-1])
    w = np.asarray(A[r], dtype=np.float64) / pos[r]
    L = float(np.abs(np.log(np.abs(w[w != 0]))).max()) if np.any(w != 0) else 0.0
    rel = np.full(w.shape, (4 + 3 * L + 48) * pipe.u + 2 * st.u) + 4 * tiny(st) / (
        pos[r] * np.maximum(np.abs(w), 1e-300))
    cands, inotes = identify_frequencies(w, rel, d, hint)
    notes += inotes[-1:]
    lay = art.layout if art.layout != "pairs" else (exp_layout or "half")
    ident = replace(cands[0].rope, layout=lay) if cands else None
    if cands:
        notes += cands[0].notes[:1]
    if want is not None and exp_layout is None and art.layout != "pairs":
        want = replace(want, layout=art.layout)  # no layout asked
    want = _odd_rotary_dim(want, ident, expect, notes)
    target = want or ident
    diagnoses: list[str] = []
    tally = other = None
    verdict = OUTSIDE
    model = None
    if target is not None:
        model = AngleModel(target.thetas_f64(seq_len), pipe, st, freq_map(target, seq_len))
        tally = compare_angles(art.copies, pos, model)
        if tally.fits:
            verdict = CONFORMS if tally.conforms else WITHIN
            if want is not None and art.layout != "pairs" and art.layout != want.layout:
                verdict = VARIANT
                diagnoses.append(f"layout {art.layout} where {want.layout} was expected: "
                                 f"{LAYOUT_TEXT[art.layout]} applied as {LAYOUT_TEXT[want.layout]}"
                                 " rotates the wrong channel pairs")
        else:
            if want is not None and ident is not None and not _same(ident, want, 1, 1):
                other = compare_angles(art.copies, pos, AngleModel(
                    ident.thetas_f64(seq_len), pipe, st, freq_map(ident, seq_len)))
                if other.fits:
                    verdict, text = _variant_or_static(want, ident, seq_len, 1, 1, d)
                    diagnoses.append(text)
            if verdict == OUTSIDE:
                for name in ("float16", "bfloat16"):
                    f = get_format(name)
                    rp = f.round(pos)
                    if np.any(rp != pos) and compare_angles(art.copies, pos, model,
                                                            angle_pos=rp).fits:
                        first = float(pos[np.nonzero(rp != pos)[0][0]])
                        verdict = WRONG
                        diagnoses.append(f"positions held in {name} before the product: from "
                                         f"position {first:g} they round, so late positions "
                                         "share one angle")
                        break
            if verdict == OUTSIDE and tally.over < 0.5 * tally.entries:
                if want is not None:
                    verdict = WRONG
                    diagnoses.append(_worst_text(tally, want is not None))
                else:
                    diagnoses.append(_unsure_text(target, tally))
    if verdict == OUTSIDE and not diagnoses:
        diagnoses.append("not a RoPE angle table peproof can express: "
                         f"frequencies read from the last row {np.array2string(w[:3], precision=6)}"
                         f"...{w[-1]:.6g}; " + "; ".join(inotes[:2]))
    col = _collisions([(c, c) for c in art.copies[:1]], pos)
    if col.get("identical_row_groups") and not allow and verdict in (CONFORMS, WITHIN, VARIANT):
        verdict = DEGENERATE
        diagnoses.insert(0, f"distinct positions give identical rows (first "
                         f"{col['examples'][0]}): positions collide")
    hz = {f: _horizon0(target, f, seq_len) for f in ("float16", "bfloat16")}
    return RotaryReport(verdict, "angles", tuple(art.angles.shape), st, pipe, art.layout, want,
                        ident, seq_len, 1.0, "-", tally, other, diagnoses, notes, col, hz,
                        model.to_json() if model is not None else {}, allow)


def _check_freqs(art: Artefact, want, hint, seq_len, st, pipe, notes,
                 expect=None) -> RotaryReport:
    v = art.inv_freq
    d = art.d
    implied: dict = {}
    L = float(np.abs(np.log(v[v > 0])).max()) if np.any(v > 0) else 0.0
    rel = np.full(v.shape, (4 + 3 * L + 48) * pipe.u + 2 * st.u)
    cands, inotes = identify_frequencies(v, rel, d, hint)
    notes += inotes[-1:]
    ident = cands[0].rope if cands else None
    if cands:
        notes += cands[0].notes[:1]
    want = _odd_rotary_dim(want, ident, expect, notes)
    target = want or ident
    diagnoses: list[str] = []
    tally = other = None
    verdict = OUTSIDE
    if target is not None:
        th = target.thetas_f64(seq_len)
        tally = compare_freqs(v, th, pipe, st, freq_map(target, seq_len))
        if tally.fits:
            verdict = CONFORMS if tally.conforms else WITHIN
        else:
            if want is not None and ident is not None and not _same(ident, want, 1, 1):
                other = compare_freqs(v, ident.thetas_f64(seq_len), pipe, st,
                                      freq_map(ident, seq_len))
                if other.fits:
                    verdict, text = _variant_or_static(want, ident, seq_len, 1, 1, d)
                    diagnoses.append(text)
            if verdict == OUTSIDE:
                for name in ("bfloat16", "float16"):
                    f = get_format(name)
                    if compare_freqs(v, f.round(th), f, f, None).fits and st != f:
                        verdict = WRONG
                        diagnoses.append(f"inv_freq rounded to {name} (and stored back in "
                                         f"{st.name}): relative errors up to "
                                         f"{float(np.max(np.abs(v / th - 1))):.2g}")
                        break
            if verdict == OUTSIDE and ident is None:
                text, implied, hyp = _per_frequency(v, rel, d, hint, want, seq_len)
                ol = _other_len(target, seq_len) if hyp else None
                if hyp and compare_freqs(v, target.thetas_f64(ol), pipe, st,
                                         freq_map(target, ol)).fits:
                    verdict = WRONG
                    diagnoses.append(hyp)
            rev = _reversed_blend(target, seq_len)
            if verdict == OUTSIDE and rev is not None and compare_freqs(
                    v, rev, pipe, st, freq_map(target, seq_len)).fits:
                verdict = WRONG
                diagnoses.append(_REVERSED)
            if verdict == OUTSIDE and isinstance(target.scaling, DynamicNTK):
                sc = target.scaling
                stat = Rope(d, target._base, scaling=NTKAware(sc.factor))
                if compare_freqs(v, stat.thetas_f64(), pipe, st, freq_map(stat)).fits:
                    verdict = WRONG
                    diagnoses.append(f"a 'dynamic' NTK that is static: the full factor "
                                     f"{sc.factor} where seq_len {seq_len} gives another")
            if verdict == OUTSIDE and tally.over < 0.5 * tally.entries and want is None:
                diagnoses.append(_unsure_text(target, tally))
            elif verdict == OUTSIDE and tally.over < 0.5 * tally.entries:
                verdict = WRONG
                w = tally.worst[0]
                diagnoses.append(f"{tally.over} of {tally.entries} frequencies outside the error"
                                 f" model; worst pair {w['pair']}: {w['value']:.9g}, exact "
                                 f"{w['expected']:.9g}")
    if verdict == OUTSIDE and target is None:
        text, implied, _ = _per_frequency(v, rel, d, hint, None, seq_len)
        if text:
            diagnoses.append(text)
    if verdict == OUTSIDE and not diagnoses:
        diagnoses.append("not a RoPE frequency vector peproof can express: "
                         + "; ".join(inotes[:3]))
    hz = {f: _horizon0(target, f, seq_len) for f in ("float16", "bfloat16")}
    model = {}
    if target is not None:
        ew = freq_rel_error(target.thetas_f64(seq_len), pipe, freq_map(target, seq_len))
        model = {"frequency_map": target.scaling.kind,
                 "frequency_relative_error": float(ew.max()) if ew.size else 0.0}
    return RotaryReport(verdict, "inv_freq", tuple(v.shape), st, pipe, None, want, ident,
                        seq_len, 1.0, "-", tally, other, diagnoses, notes, {}, hz, model,
                        implied=implied)


def rotary_horizons(d: int = 128, base=10000, dtypes=("float16", "bfloat16")) -> dict:
    """Certified horizons of every pair for a plain RoPE (see :mod:`.rotary_horizon`)."""
    from .rotary_horizon import angle_horizons

    return {f: angle_horizons(Rope(d, base), f) for f in dtypes}


__all__ = ["check_rotary", "read_artefact", "rope_from_config", "rotary_horizons",
           "RotaryReport", "math"]
