"""The verdict on an ``inv_freq`` vector: identified exactly (:mod:`.ident`), compared with the
frequency error model (:func:`~.compare.compare_freqs`), and the known bugs of frequency vectors
tried when it does not fit (rounded to a 16-bit format, a reversed blend, a static 'dynamic'
NTK, LongRoPE's other factor set)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from peproof.formats import get_format
from peproof.rope import Rope
from peproof.rope_scaling import DynamicNTK, NTKAware

from ..common.verdicts import CONFORMS, OUTSIDE, WITHIN, WRONG
from .artefacts import Artefact
from .compare import compare_freqs
from .diagnose import (
    _REVERSED,
    _odd_rotary_dim,
    _other_len,
    _per_frequency,
    _reversed_blend,
    _same,
    _unsure_text,
    _variant_or_static,
)
from .expected import stated_aspects
from .horizon import _horizon0
from .ident import identify_frequencies
from .model import freq_map, freq_rel_error, thetas
from .report import RotaryReport
from .simplest import Variant, select


def identify_inv_freq(v, d, hint, seq_len, st, pipes):
    """``(variant, tally, candidates, notes)``: the simplest variant whose frequencies fit the
    vector within the error model (:mod:`.simplest`), the pipelines tried narrowest first."""
    L = float(np.abs(np.log(v[v > 0])).max()) if np.any(v > 0) else 0.0
    first = None
    for pipe in pipes:
        rel = np.full(v.shape, (4 + 3 * L + 48) * pipe.u + 2 * st.u)
        cands, inotes = identify_frequencies(v, rel, d, hint)
        if first is None:
            first = (cands, inotes)
        ref = Fraction(hint) if hint is not None else None
        vs = [Variant(c.rope, pos_scale=c.pos_scale, pipe=pipe, residual=c.residual,
                      notes=c.notes[:1], ref_base=ref, intervals=c.intervals)
              for c in cands]

        def whole(x):
            th = thetas(x.rope, seq_len) * float(x.pos_scale)
            return compare_freqs(v, th, x.pipe, st, freq_map(x.rope, seq_len,
                                                             int(x.pos_scale != 1)))

        x, t, _ = select(vs, lambda x: True, whole)
        if x is not None:
            return x, t, cands, inotes
    return None, None, first[0], first[1]


def check_inv_freq(art: Artefact, want, hint, seq_len, st, pipes, notes,
                   expect=None) -> RotaryReport:
    v = art.inv_freq
    d = art.d
    implied: dict = {}
    L = float(np.abs(np.log(v[v > 0])).max()) if np.any(v > 0) else 0.0
    x, x_tally, cands, inotes = identify_inv_freq(v, d, hint, seq_len, st, pipes)
    pipe = x.pipe if x is not None else pipes[-1]
    rel = np.full(v.shape, (4 + 3 * L + 48) * pipe.u + 2 * st.u)
    notes += inotes[-1:]
    ident = x.rope if x is not None else (cands[0].rope if cands else None)
    if x is not None:
        notes += x.notes
        if x.pos_scale != 1:
            notes.append(f"frequencies {x.pos_scale} times the map's")
        if len(pipes) > 1 and pipe is not pipes[-1]:
            notes.append(f"computed in {pipe.name} and stored in {st.name}: the narrowest "
                         "pipeline whose error model the vector fits")
    elif cands:
        notes += cands[0].notes[:1]
    stated = stated_aspects(expect)
    want = _odd_rotary_dim(want, ident, expect, notes)
    target = want or ident
    diagnoses: list[str] = []
    tally = other = None
    verdict = OUTSIDE
    if target is not None:
        th = thetas(target, seq_len)
        if want is None and x is not None:
            tally = x_tally
        else:
            tally = compare_freqs(v, th, pipe, st, freq_map(target, seq_len))
        if tally.fits:
            verdict = CONFORMS if tally.conforms else WITHIN
        else:
            if want is not None and ident is not None and not _same(ident, want, 1, 1):
                other = compare_freqs(v, thetas(ident, seq_len), pipe, st,
                                      freq_map(ident, seq_len))
                if other.fits:
                    verdict, text = _variant_or_static(
                        want, ident, seq_len, 1, 1, d, stated,
                        x.intervals if x is not None else cands[0].intervals,
                        lambda r: compare_freqs(v, thetas(r, seq_len), pipe, st,
                                                freq_map(r, seq_len)).fits)
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
                if hyp and compare_freqs(v, thetas(target, ol), pipe, st,
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
                if compare_freqs(v, thetas(stat), pipe, st, freq_map(stat)).fits:
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
        ew = freq_rel_error(thetas(target, seq_len), pipe, freq_map(target, seq_len))
        model = {"frequency_map": target.scaling.kind,
                 "frequency_relative_error": float(ew.max()) if ew.size else 0.0}
    return RotaryReport(verdict, "inv_freq", tuple(v.shape), st, pipe, None, want, ident,
                        seq_len, 1.0, "-", tally, other, diagnoses, notes, {}, hz, model,
                        implied=implied)
