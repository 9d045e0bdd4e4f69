"""The verdict on a rotary angle table (rotary-embedding-torch's ``freqs``, the angles
``p theta_j`` themselves): frequencies read from one row, the RoPEs they allow proposed
(:mod:`.ident`) and the simplest that fits the whole table within its error model named
(:mod:`.simplest`, the pipelines tried narrowest first: a 16-bit table as computed in float32
and stored in 16 bits before as computed in 16 bits), the table compared with the angle model
(:class:`~.model.AngleModel`)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from peproof.formats import get_format

from ..common.budget import tiny
from ..common.tables import InputError
from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .artefacts import LAYOUT_TEXT, Artefact
from .cache import _sample
from .compare import compare_angles
from .diagnose import _odd_rotary_dim, _same, _unsure_text, _variant_or_static, _worst_text
from .expected import adopt_unstated, stated_aspects
from .horizon import _collisions, _horizon0
from .ident import identify_frequencies
from .model import AngleModel, freq_map, thetas
from .report import RotaryReport
from .simplest import Variant, select
from .tied import untied_angles


def _read_row(A, pos, st, pipe):
    """The frequencies read from one row (``angle / p``; the last row at a positive position, or
    the last exactly representable in float16, so that positions held in a narrow format, a bug
    named below, do not spoil the reading) and their relative uncertainty in ``pipe``."""
    pp = np.nonzero(pos > 0)[0]
    if not pp.size:
        raise InputError("the angle table needs a row at a positive position")
    early = np.nonzero((pos > 0) & (pos <= 2048))[0]
    r = int(early[-1]) if early.size else int(pp[-1])
    w = np.asarray(A[r], dtype=np.float64) / pos[r]
    L = float(np.abs(np.log(np.abs(w[w != 0]))).max()) if np.any(w != 0) else 0.0
    rel = np.full(w.shape, (4 + 3 * L + 48) * pipe.u + 2 * st.u) + 4 * tiny(st) / (
        pos[r] * np.maximum(np.abs(w), 1e-300))
    return w, rel


def _angle_model(v: Variant, seq_len, st) -> AngleModel:
    """A variant's angle model: its map's frequencies times the positions' scale (one more
    rounding in the frequency's error when that scale is not 1)."""
    return AngleModel(thetas(v.rope, seq_len) * float(v.pos_scale), v.pipe, st,
                      freq_map(v.rope, seq_len, int(v.pos_scale != 1)), float(v.pos_scale))


def identify_angles(art: Artefact, pos, hint, seq_len, st, pipes, lay):
    """``(variant, tally, frequencies read, candidates, notes)``: the simplest variant that fits
    the whole table (:mod:`.simplest`), trying the pipelines in order, or ``(None, None, ...)``
    with the first pipeline's reading."""
    sub = _sample(len(pos))
    first = None
    for pipe in pipes:
        w, rel = _read_row(art.copies[0], pos, st, pipe)
        cands, inotes = identify_frequencies(w, rel, art.d, hint)
        if first is None:
            first = (w, cands, inotes)
        ref = Fraction(hint) if hint is not None else None
        vs = [Variant(replace(c.rope, layout=lay), pos_scale=c.pos_scale, pipe=pipe,
                      residual=c.residual, notes=c.notes[:1], ref_base=ref,
                      intervals=c.intervals) for c in cands]

        def screen(v):
            return compare_angles([c[sub] for c in art.copies], pos[sub],
                                  _angle_model(v, seq_len, st)).fits

        def whole(v):
            return compare_angles(art.copies, pos, _angle_model(v, seq_len, st))

        v, t, _ = select(vs, screen, whole)
        if v is not None:
            return v, t, w, cands, inotes
    return (None, None) + first


def check_angles(art: Artefact, want, hint, seq_len, st, pipes, notes, pos, exp_layout,
                 allow, expect=None) -> RotaryReport:
    """An angle table: the simplest variant that fits it named (:func:`identify_angles`), then
    the table compared with the expected RoPE's :class:`~.model.AngleModel` (or the
    identified one's) and the bugs of angle tables tried when it does not fit."""
    d = art.d
    lay = art.layout if art.layout != "pairs" else (exp_layout or "half")
    v, v_tally, w, cands, inotes = identify_angles(art, pos, hint, seq_len, st, pipes, lay)
    notes += inotes[-1:]
    pipe = v.pipe if v is not None else pipes[-1]
    ident = v.rope if v is not None else (replace(cands[0].rope, layout=lay) if cands else None)
    if v is not None:
        notes += v.notes
        if v.pos_scale != 1:
            notes.append(f"positions scaled by {v.pos_scale} (the frequencies read are "
                         f"{v.pos_scale} times the map's)")
        if len(pipes) > 1 and pipe is not pipes[-1]:
            notes.append(f"computed in {pipe.name} and stored in {st.name}: the narrowest "
                         "pipeline whose error model the table fits")
    elif cands:
        notes += cands[0].notes[:1]
    stated = stated_aspects(expect, exp_layout)  # the unstated aspects are the table's own
    want = adopt_unstated(want, stated, lay)
    want = _odd_rotary_dim(want, ident, expect, notes)
    target = want or ident
    diagnoses: list[str] = []
    tally = other = None
    verdict = OUTSIDE
    model = None
    if target is not None:
        if want is None and v is not None:
            model, tally = _angle_model(v, seq_len, st), v_tally
        else:
            model = AngleModel(thetas(target, seq_len), pipe, st, freq_map(target, seq_len))
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
                    thetas(ident, seq_len), pipe, st, freq_map(ident, seq_len)))
                if other.fits:
                    verdict, text = _variant_or_static(
                        want, ident, seq_len, 1, 1, d, stated,
                        v.intervals if v is not None else cands[0].intervals,
                        lambda r: compare_angles(art.copies, pos, AngleModel(
                            thetas(r, seq_len), pipe, st, freq_map(r, seq_len))).fits)
                    diagnoses.append(text)
            if verdict == OUTSIDE:
                for name in ("float16", "bfloat16"):
                    f = get_format(name)
                    rp = f.round(pos)
                    if np.any(rp != pos) and compare_angles(
                            art.copies, pos, model, angle_pos=rp).fits and not untied_angles(
                            art.copies, rp, model):
                        first = float(pos[np.nonzero(rp != pos)[0][0]])
                        verdict = WRONG
                        diagnoses.append(f"positions held in {name} before the product: from "
                                         f"position {first:g} they round, so late positions "
                                         "share one angle")
                        break
            if verdict == OUTSIDE and tally.over < 0.5 * tally.entries:
                if want is not None:
                    verdict = WRONG
                    diagnoses.append(tally.untied or _worst_text(tally, want is not None))
                else:
                    diagnoses.append(tally.untied or _unsure_text(target, tally))
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
