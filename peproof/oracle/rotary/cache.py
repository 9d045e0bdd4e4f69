"""The verdict on a rotary cos/sin cache: frequencies and amplitude read off the cache
(:func:`~.artefacts.estimate_cache`), identified (:mod:`.ident`) with the attention factor's
exact forms, compared with the cache model (:mod:`.model`, :mod:`.compare`), then the
diagnoses (:mod:`.diagnose`), collisions and horizons (:mod:`.horizon`)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from peproof.rope import Rope
from peproof.rope_scaling import LongRope, Yarn

from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .artefacts import LAYOUT_TEXT, Artefact, estimate_cache
from .compare import compare_cache
from .diagnose import (
    _hypotheses,
    _odd_rotary_dim,
    _other_len,
    _per_frequency,
    _same,
    _unsure_text,
    _variant_or_static,
    _worst_text,
)
from .horizon import _collisions, _horizon0
from .ident import identify_frequencies
from .model import cache_model
from .report import RotaryReport


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


def _sample(n: int, k: int = 2048) -> np.ndarray:
    if n <= k:
        return np.arange(n)
    g = np.unique(np.concatenate([np.arange(256), np.geomspace(1, n - 1, k // 2).astype(int),
                                  np.linspace(0, n - 1, k // 2).astype(int),
                                  np.arange(n - 64, n)]))
    return g


def check_cache(art: Artefact, want, hint, seq_len, st, pipe, notes, pos, exp_layout,
                allow, expect=None) -> RotaryReport:
    """A cos/sin cache at positions ``pos``, against ``want`` (a :class:`Rope`, or None: the
    identified RoPE is the target)."""
    d = art.d
    n = len(pos)
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
                    art.copies, pos, cache_model(r, seq_len, fs[0][1], pipe, st),
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
    model_t = cache_model(target, seq_len, a_t, pipe, st) if target is not None else None
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
            other = compare_cache(copies, pos, cache_model(ident, seq_len, a_val, pipe, st))
            if other.fits:
                verdict, text = _variant_or_static(want, ident, seq_len, a_t, a_val, d)
                diagnoses.append(text)
        implied = {}
        if ident is None:
            text, implied, hyp = _per_frequency(w, rel, d, hint, want, seq_len)
            if hyp and want is not None and compare_cache(copies, pos, cache_model(
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
