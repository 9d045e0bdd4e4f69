"""The oracle for rotary (RoPE) artefacts: an ``inv_freq`` vector, a cos/sin cache pair or an angle
table.

:func:`check_rotary` reads the artefact (:mod:`.artefacts`), resolves the expectation
(:mod:`.config`) and hands the artefact to the check of its kind (:mod:`.inv_freq`,
:mod:`.cache`, :mod:`.angles`), which identifies it (base, layout, scaling method and its
parameters, attention factor, dtype; :mod:`.ident`), checks it against the float error model
(:mod:`.model`, :mod:`.compare`) and gives one verdict of the absolute oracle's scale
(:mod:`peproof.oracle.common.verdicts`): ``conforms`` / ``within the error model of its dtype`` /
``different variant`` (named) / ``wrong`` (naming the worst entries and, where one fits, the bug;
:mod:`.diagnose`) / ``degenerate`` (distinct positions with identical cache rows;
:mod:`.horizon`) / ``outside the model`` (saying what it saw).

An expectation is a :class:`peproof.rope.Rope` or transformers' ``rope_parameters`` dict.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from peproof.formats import get_format
from peproof.rope import Rope

from ..common.grid import angle_tolerance, on_grid
from ..common.tables import InputError
from ..common.verdicts import OUTSIDE, WRONG
from .angles import check_angles
from .artefacts import read_artefact
from .cache import check_cache
from .config import is_nested, rope_from_config, unread_keys
from .expected import stated_aspects
from .inv_freq import check_inv_freq
from .report import RotaryReport

_KEYS = ("obj", "cos", "sin", "inv_freq", "angles", "kind", "d", "positions", "layout", "seq_len",
         "base", "max_position_embeddings", "dtype", "pipeline_dtype", "allow_collisions",
         "native")


def check_rotary(obj=None, *, cos=None, sin=None, inv_freq=None, angles=None, kind=None, d=None,
                 positions=None, expect=None, layout=None, seq_len=None, base=None,
                 max_position_embeddings=None, dtype=None, pipeline_dtype=None,
                 allow_collisions: bool = False, native: str | None = None) -> RotaryReport:
    """Identify and check a rotary artefact; see the module docstring.  ``expect`` is a
    :class:`Rope` or a ``rope_parameters`` dict (then ``d`` comes from the artefact),
    ``base`` a hint for naming NTK-aware scalings, ``seq_len`` the length for dynamic methods
    (default: the largest position + 1), ``native`` the library layout a 2-D array holding a
    whole cache is expected in (``"vllm"``: ``[cos | sin]``, ``"gptj"``: ``[sin | cos]``;
    default: read from its content)."""
    t0 = time.perf_counter()
    if is_nested(expect):
        return _nested(expect, locals())
    with np.errstate(all="ignore"):
        rep = _check(obj, cos, sin, inv_freq, kind, d, positions, expect, layout, seq_len, base,
                     max_position_embeddings, dtype, pipeline_dtype, allow_collisions, angles,
                     native)
    rep.seconds = time.perf_counter() - t0
    return rep


def _nested(expect: dict, kw: dict) -> RotaryReport:
    """transformers' per-layer-type ``rope_parameters`` (Gemma 3's full and sliding attention):
    the artefact belongs to one layer type; the first whose RoPE it fits is named (a note says
    which), else the report against the first layer type."""
    kw = {k: v for k, v in kw.items() if k in _KEYS}
    first = None
    for name, params in expect.items():
        if not isinstance(params, dict):
            continue
        rep = check_rotary(**dict(kw, expect=params))
        rep.notes.insert(0, f"rope_parameters per layer type: checked against {name!r}")
        if rep.ok:
            return rep
        first = first or rep
    return first


def _check(obj, cos, sin, inv_freq, kind, d, positions, expect, layout, seq_len, base, mpe,
           dtype, pipeline_dtype, allow, angles=None, native=None):
    from peproof.encoding import ParameterError

    art = read_artefact(obj, cos=cos, sin=sin, inv_freq=inv_freq, kind=kind, d=d, layout=layout,
                        angles=angles, native=native)
    st = get_format(dtype) if dtype else art.stored
    pipe = get_format(pipeline_dtype) if pipeline_dtype else st
    # the pipelines a 16-bit artefact may come from, narrowest first (frameworks compute in
    # float32 and cast; a 16-bit pipeline's model explains far more, so it is the fallback)
    narrow = st.kind == "binary" and st.p < 24
    pipes = [get_format("float32"), st] if narrow and not pipeline_dtype else [pipe]
    d = art.d
    exp_layout = layout or (expect.layout if isinstance(expect, Rope) else
                            expect.get("layout") if isinstance(expect, dict) else None)
    try:
        want = None if expect is None else rope_from_config(expect, d, mpe,
                                                            exp_layout or "half")
    except ParameterError as exc:
        raise InputError(f"the expected RoPE is not valid here: {exc}") from None
    if want is not None and want.d != d:
        raise InputError(f"the expected RoPE has d={want.d}, the artefact d={d}")
    hint = base if base is not None else (want._base if want is not None else None)
    notes = [art.layout_note] if art.layout_note else []
    notes += unread_keys(expect)  # a setting the check does not model is named, never dropped
    rep = _route(art, want, hint, seq_len, st, pipe, pipes, notes, positions, exp_layout, allow,
                 expect)
    if rep.verdict == OUTSIDE and not pipeline_dtype and art.kind == "cache" and st.p >= 24:
        # a wide cache of a 16-bit computation (angles formed in float16 under .half(), then
        # cos/sin in float32): read in that pipeline when the values show it
        for name in ("float16", "bfloat16"):
            fmt = get_format(name)
            if angles_show(art.copies, positions, fmt, st):
                again = _route(art, want, hint, seq_len, st, fmt, [fmt], list(notes),
                               positions, exp_layout, allow, expect)
                if again.verdict != OUTSIDE:
                    again.notes.insert(0, f"read as a {name} computation stored as {st.name}: "
                                          f"the angles at position 1 are {name} values")
                    rep = again
                    break
    rep.native = art.native
    if expect is not None:
        rep.unstated = tuple(a for a in ("layout", "base")
                             if a not in stated_aspects(expect, exp_layout))
    return rep


def angles_show(copies, positions, fmt, stored) -> bool:
    """Whether every rotating pair's angle at position 1 (``atan2`` of its stored sine and
    cosine) is a value of ``fmt`` within the error of the stored entries: the trace of
    frequencies or angles rounded to ``fmt`` (:mod:`..common.grid`)."""
    n = copies[0][0].shape[0]
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions,
                                                                                np.float64)
    one = np.nonzero(pos == 1)[0]
    if not one.size:
        return False
    c, s = (np.asarray(x[int(one[0])], np.float64) for x in copies[0])
    a0 = np.arctan2(s, c)
    use = np.isfinite(a0) & (a0 != 0)
    if not use.any():
        return False
    tol = angle_tolerance(a0, a0, stored)
    return bool(on_grid(a0[use], fmt, tol[use]).all())


def _route(art, want, hint, seq_len, st, pipe, pipes, notes, positions, exp_layout, allow,
           expect):
    if art.kind == "inv_freq":
        return check_inv_freq(art, want, hint, seq_len, st, pipes, notes, expect)
    n = (art.cos if art.kind == "cache" else art.angles).shape[0]
    pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions,
                                                                               np.float64)
    if pos.shape != (n,):
        raise InputError(f"{pos.shape[0]} positions for a cache of {n} rows")
    if seq_len is None:
        seq_len = int(pos.max()) + 1
    if art.kind == "angles":
        return check_angles(art, want, hint, seq_len, st, pipes, notes, pos, exp_layout, allow,
                            expect)
    r0 = first_nonfinite_row(art.copies)
    if r0 is not None and r0 >= 2:  # the finite prefix is checked, the rest named
        sub = replace(art, cos=art.cos[:r0], sin=art.sin[:r0],
                      copies=[(c[:r0], s[:r0]) for c, s in art.copies])
        rep = check_cache(sub, want, hint, seq_len, st, pipes, notes, pos[:r0], exp_layout,
                          allow, expect, find_offset=positions is None)
        rep.notes.insert(0, f"rows 0..{r0 - 1} (the finite prefix) checked: {rep.verdict}"
                         + (f" ({rep.describe(rep.identified)})" if rep.identified else ""))
        rep.diagnoses.insert(0, nonfinite_text(art.copies, pos, r0))
        rep.verdict = WRONG if rep.identified is not None else rep.verdict
        rep.shape = (n,) + tuple(rep.shape[1:])
        return rep
    return check_cache(art, want, hint, seq_len, st, pipes, notes, pos, exp_layout, allow,
                       expect, find_offset=positions is None)


def first_nonfinite_row(copies) -> int | None:
    """The first row holding NaN or an infinity in any copy, else None."""
    first = None
    for c, s in copies:
        bad = ~(np.isfinite(np.asarray(c, np.float64)).all(axis=1)
                & np.isfinite(np.asarray(s, np.float64)).all(axis=1))
        idx = np.nonzero(bad)[0]
        if idx.size:
            first = int(idx[0]) if first is None else min(first, int(idx[0]))
    return first


def nonfinite_text(copies, pos: np.ndarray, r0: int) -> str:
    """What the non-finite rows are, every clause checked: all rows from ``r0`` on not finite,
    and the position of row ``r0`` infinite in float16 while the row before is finite there
    (float16 overflow), else only where they start."""
    n = pos.shape[0]
    bad = np.zeros(n - r0, bool)
    for c, s in copies:
        for a in (c, s):
            bad |= ~np.isfinite(np.asarray(a[r0:], np.float64)).all(axis=1)
    all_bad = bool(bad.all())
    with np.errstate(over="ignore"):
        p16 = pos.astype(np.float16)
    p = pos[r0]
    head = f"rows from {r0} (position {p:g}) on hold NaN or infinity" if all_bad else \
        f"row {r0} (position {p:g}) is the first to hold NaN or infinity"
    if all_bad and np.isinf(p16[r0:]).all() and np.isfinite(p16[:r0]).all():
        return (f"float16 overflow: {head}: from position {p:g} on the position is infinite in "
                f"float16 (largest finite number 65504), so the angle and its sin/cos are not "
                f"numbers ({n - r0} rows)")
    return head
