"""The verdict on a rotary angle table (rotary-embedding-torch's ``freqs``, the angles
``p theta_j`` themselves): frequencies read from one row, identified like an ``inv_freq``, the
table compared with the angle model (:class:`~.model.AngleModel`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from peproof.formats import get_format

from ..common.budget import tiny
from ..common.tables import InputError
from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .artefacts import LAYOUT_TEXT, Artefact
from .compare import compare_angles
from .diagnose import _odd_rotary_dim, _same, _unsure_text, _variant_or_static, _worst_text
from .horizon import _collisions, _horizon0
from .ident import identify_frequencies
from .model import AngleModel, freq_map, thetas
from .report import RotaryReport


def check_angles(art: Artefact, want, hint, seq_len, st, pipe, notes, pos, exp_layout,
                  allow, expect=None) -> RotaryReport:
    """An angle table: frequencies read from the last row (``angle / p``), identified like an
    ``inv_freq``, the table compared with :class:`~.model.AngleModel`."""
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
