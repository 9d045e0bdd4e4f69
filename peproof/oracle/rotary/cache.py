"""The verdict on a rotary cos/sin cache: read as ``a cos((o + k) w_j)`` (frequencies, amplitude
and the positions' offset, :mod:`.geometry`), identified (:mod:`.ident`: the RoPEs the reading
allows; :mod:`.simplest`: the simplest that fits the whole cache within its error model, the
pipelines tried narrowest first), compared with the expected RoPE (:mod:`.model`,
:mod:`.compare`), then the diagnoses (:mod:`.diagnose`), collisions and horizons
(:mod:`.horizon`)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from peproof.rope import Rope
from peproof.rope_scaling import LongRope, Yarn

from ..common.tables import InputError
from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .artefacts import LAYOUT_TEXT, Artefact
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
from .expected import adopt_unstated, stated_aspects
from .geometry import before_storage, on_grid, read_cache
from .horizon import _collisions, _horizon0
from .ident import identify_frequencies
from .model import cache_model, thetas
from .report import RotaryReport
from .simplest import Variant, select


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


def _model_of(v: Variant, seq_len, st):
    """The cache model of a variant: its map's frequencies times the positions' scale (one more
    rounding in the frequency's error when that scale is not 1)."""
    th = thetas(v.rope, seq_len) * float(v.pos_scale)
    return cache_model(v.rope, seq_len, v.attention, v.pipe, st, thetas=th,
                       extra_roundings=int(v.pos_scale != 1), pos_scale=float(v.pos_scale))


def _fits_as(v: Variant, art: Artefact, pos, seq_len, st):
    """``fits(rope)``: whether the cache fits the variant ``v`` with its RoPE replaced (the
    attention factor the replaced RoPE's own when ``v``'s was its own)."""
    def fits(rope: Rope) -> bool:
        a = float(rope.attention_factor_arb(128, seq_len).mid()) if v.own_attention \
            else v.attention
        x = replace(v, rope=rope, attention=a)
        return compare_cache(art.copies, pos + float(v.offset), _model_of(x, seq_len, st)).fits
    return fits


class _Unnamed:
    """A whole-cache comparison that names no variant (:func:`identify_cache`)."""

    fits = False


_UNNAMED = _Unnamed()


def _num(x):
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else float(x)


def _sample(n: int, k: int = 2048) -> np.ndarray:
    if n <= k:
        return np.arange(n)
    g = np.unique(np.concatenate([np.arange(256), np.geomspace(1, n - 1, k // 2).astype(int),
                                  np.linspace(0, n - 1, k // 2).astype(int),
                                  np.arange(n - 64, n)]))
    return g


def _variants(art, rd, cands, lay, pipe, offsets, ref=10000):
    """Every hypothesis of one reading: RoPE x attention form x offset."""
    out = []
    for c in cands:
        r = replace(c.rope, layout=lay)
        fs = attention_forms(r, rd.a, rd.a_rel)
        own = bool(fs) and fs[0][0] in ("1", "the method's own factor")
        for k, (text, val) in enumerate(fs or [("read from the cache (not the method's own "
                                                "factor)", rd.a)]):
            for off in offsets:
                out.append(Variant(r, off, c.pos_scale, val, text, own and k == 0, pipe,
                                   c.residual, c.notes[:1], ref, c.intervals))
    return out


def identify_cache(art: Artefact, pos, hint, seq_len, st, pipes, find_offset):
    """``(variant, tally, reading, candidates, notes)``: the simplest variant that fits the whole
    cache (:mod:`.simplest`), trying the pipelines in order (the narrowest first: its model is
    the sharper and explains less; a 16-bit pipeline's explains almost any late entry, so it is
    only the fallback), or ``(None, None, reading, candidates, notes)``."""
    lay = art.layout if art.layout != "pairs" else (art.applied or "half")
    sub = _sample(len(pos))
    first = None
    for pipe in pipes:
        try:
            rd = read_cache(art.copies, pos, st, pipe, find_offset)
        except InputError:
            if pipe is pipes[-1]:
                raise
            continue
        cands, inotes = identify_frequencies(rd.w, rd.rel, art.d, hint)
        sharp: list = []  # the candidates of the narrow reading with its frequencies rounded
        snotes: list = []
        r0 = first[0] if first is not None else None
        if r0 is not None and pipe.u > pipes[0].u and on_grid(r0.w, r0.rel, pipe):
            # a wider pipeline reads its frequencies within its own loose bound (a 16-bit one:
            # tens of per cent, no base can be named).  When the narrow reading's frequencies
            # lie on this pipeline's grid, only they were held in it (the inv_freq buffer cast
            # to the model's dtype, the angles formed in float32: transformers'
            # model.to(bfloat16)), and that reading knows them within that one rounding: the
            # RoPEs it allows are proposed first, each then held to this pipeline's model of
            # the whole cache, as any candidate
            sharp, snotes = identify_frequencies(r0.w, before_storage(r0.w, r0.rel, pipe),
                                                 art.d, hint)
            cands = sharp + [c for c in cands if all(c.rope != s.rope for s in sharp)]
        if first is None:
            first = (rd, cands, inotes)
        vs = _variants(art, rd, cands, lay, pipe, rd.offsets,
                       Fraction(hint) if hint is not None else None)

        def screen(v):
            return compare_cache(art.copies, pos + float(v.offset), _model_of(v, seq_len, st),
                                 rows=sub).fits

        def whole(v):
            t = compare_cache(art.copies, pos + float(v.offset), _model_of(v, seq_len, st))
            # in a 16-bit pipeline an entry's own bound lets a late angle be anything: a variant
            # is named only when one computation was tested too (a Llama 3 factor of 1000 read
            # from 300 bfloat16 rows has a bound no row is held to, and passed rows swapped)
            return _UNNAMED if t.fits and t.tie_unmade else t

        v, t, _ = select(vs, screen, whole)
        if v is not None and any(v.rope == replace(c.rope, layout=lay) for c in sharp):
            snotes.append(f"the frequencies read lie on the {pipe.name} grid (an inv_freq buffer "
                          f"held in {pipe.name}, as in a model cast to {pipe.name}): base and map "
                          f"read from them, each allowed that one rounding")
            return v, t, rd, cands, snotes
        if v is not None:
            return v, t, rd, cands, inotes
    rd, cands, inotes = first
    return None, None, rd, cands, inotes


def reread(art: Artefact, pos, hint, seq_len, st, pipes, find_offset):
    """A cache no variant fits, read again without an expectation: ``(variant, how)`` for the
    simplest variant that fits it read with cos and sin exchanged (``how == "swapped"``), or that
    fits its first ``k`` rows (``how == k``: the longest of ``n/2, n/4, ...`` down to
    :data:`MIN_PREFIX` rows; the rows after are then compared with it and the known bugs tried,
    as against an expectation), else None."""
    def ident(a, p):
        try:
            return identify_cache(a, p, hint, seq_len, st, pipes, find_offset)[0]
        except InputError:
            return None

    v = ident(replace(art, copies=[(s, c) for c, s in art.copies]), pos)
    if v is not None:
        return v, "swapped"
    k = len(pos) // 2
    while k >= MIN_PREFIX:
        v = ident(replace(art, copies=[(c[:k], s[:k]) for c, s in art.copies]), pos[:k])
        if v is not None:
            return v, k
        k //= 2
    return None


#: the fewest rows a cache's prefix is identified from (:func:`reread`)
MIN_PREFIX = 256


def check_cache(art: Artefact, want, hint, seq_len, st, pipes, notes, pos, exp_layout,
                allow, expect=None, find_offset=False) -> RotaryReport:
    """A cos/sin cache at positions ``pos`` (``find_offset``: not given, read), against ``want``
    (a :class:`Rope`, or None: the identified RoPE is the target).  ``pipes``: the pipelines
    to try, narrowest first."""
    d = art.d
    n = len(pos)
    v, v_tally, rd, cands, inotes = identify_cache(art, pos, hint, seq_len, st, pipes,
                                                   find_offset)
    w, rel, a = rd.w, rd.rel, rd.a
    again = reread(art, pos, hint, seq_len, st, pipes, find_offset) if (
        v is None and want is None) else None
    if again is not None:  # the target the diagnoses below compare with (never a pass)
        v = again[0]
        v_tally = compare_cache(art.copies, pos + float(v.offset), _model_of(v, seq_len, st))
        notes.append("read with cos and sin exchanged, the cache is " + v.describe()
                     if again[1] == "swapped" else
                     f"its first {again[1]} rows are {v.describe()} within the error model")
    notes += inotes[-1:]
    pipe = v.pipe if v is not None else pipes[-1]
    lay = art.layout if art.layout != "pairs" else (exp_layout or art.applied or "half")
    ident, form, a_val, off = None, "", a, Fraction(0)
    if v is not None:
        ident, form, a_val, off = replace(v.rope, layout=lay), v.attention_form, v.attention, \
            v.offset
        notes += v.notes
        if v.pos_scale != 1:
            notes.append(f"positions scaled by {v.pos_scale} (the frequencies read are "
                         f"{v.pos_scale} times the map's)")
        if off != 0:
            notes.append(f"positions start at {_num(off)}: row k holds position {_num(off)} + k "
                         "(a cache built from an offset, as a KV cache's slice is)")
        if len(pipes) > 1 and pipe is not pipes[-1]:
            notes.append(f"computed in {pipe.name} and stored in {st.name}: the narrowest "
                         "pipeline whose error model the cache fits")
    elif cands:
        c = cands[0]
        ident = replace(c.rope, layout=lay)
        notes += c.notes[:1]
        a_val, form = a, "read from the cache (not the method's own factor)"
    # a layout the expectation does not state (a rope_parameters dict's) is the cache's own:
    # compared and named only when stated (:mod:`.expected`)
    stated = stated_aspects(expect, exp_layout)
    want = adopt_unstated(want, stated, lay)
    want = _odd_rotary_dim(want, ident, expect, notes)
    # the target and its attention factor
    copies = art.copies
    tally = other = None
    diagnoses: list[str] = []
    verdict = OUTSIDE
    if want is not None:
        target = want
        a_t = float(want.attention_factor_arb(128, seq_len).mid())
        form_t = "the expected method's factor"
        model_t = cache_model(target, seq_len, a_t, pipe, st)
        tally = compare_cache(copies, pos, model_t)
    else:
        target, a_t, form_t = ident, (a_val if ident is not None else a), form
        model_t = None
        if v is not None:
            model_t = _model_of(v, seq_len, st)
            tally = v_tally
        elif target is not None:
            model_t = cache_model(target, seq_len, a_t, pipe, st)
            tally = compare_cache(copies, pos, model_t)
    if target is not None:
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
        # the amplitude read allows the expected factor: no attention difference is named
        # (an all-zero cache reads amplitude 0: nothing to compare the expected factor with)
        a_seen = a_t if a and abs(a_t / a - 1) <= 3 * rd.a_rel + 1e-12 else a_val
        if want is not None and v is not None and not (
                _same(ident, want, 0, 0) and off == 0 and v.pos_scale == 1):
            other = v_tally
            verdict, text = _variant_or_static(want, ident, seq_len, a_t, a_seen, d, stated,
                                               v.intervals, _fits_as(v, art, pos, seq_len, st))
            extra = [t for t in (f"positions scaled by {v.pos_scale}" if v.pos_scale != 1 else "",
                                 f"positions start at {_num(off)} where 0 was expected (give "
                                 "--positions / positions= for a cache built from an offset)"
                                 if off != 0 else "") if t]
            if text == "an equivalent RoPE" and extra:
                text = "; ".join(extra)
            elif extra:
                text = "; ".join([text] + extra)
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
            elif want is not None and v is not None and a_seen != a_t:
                # the expected RoPE but for its amplitude, and no named bug explains that
                verdict, other = VARIANT, v_tally
                diagnoses.append(f"attention factor {a_seen:.9g} where {a_t:.9g} was expected")
            elif tally.untied and want is not None:
                # every entry within its own (16-bit) bound, but no one computation: rows
                # swapped, shifted or copied (:mod:`.tied`)
                verdict = WRONG
                diagnoses.append(tally.untied)
            elif tally.over < 0.5 * tally.entries and want is not None:
                verdict = WRONG
                diagnoses.append(_worst_text(tally, want is not None))
            elif want is None and len(cands) <= 1:
                diagnoses.append(tally.untied or _unsure_text(target, tally))
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
