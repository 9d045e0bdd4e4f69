"""Diagnoses of a rotary artefact: the bug that explains it (the target computed with one known
mistake: cos and sin swapped, positions or ``inv_freq`` rounded to a 16-bit format, the attention
factor squared or missing, a blend reversed, a 'dynamic' NTK that is static, LongRoPE's other
factor set), how an identified RoPE differs from the expected one, and the texts of a verdict
that names no bug.  Every hypothesis is checked against the error model (:mod:`.compare`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from peproof.formats import get_format
from peproof.rope import Rope
from peproof.rope_scaling import Default, DynamicNTK, Llama3, LongRope, NTKAware, Yarn

from ..common.verdicts import VARIANT, WRONG
from .compare import Tally, compare_cache
from .config import head_dim_of
from .expected import ASPECTS, allowed, unstated_text
from .ident_maps import implied_factors
from .model import cache_model, thetas
from .tied import untied


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
            cause = ("; the short set is what the init function returns without seq_len "
                     "(rope_init_fn called without seq_len, as PhiMoE's rotary embedding does)"
                     if used_long else "")
            return None, imp, (f"LongRoPE's {which} factors where the {due} ones are due at "
                               f"seq_len {seq_len} (original_max_position_embeddings {L}: "
                               f"long past it){cause}")
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
            or expect.get("partial_rotary_factor", 1) in (1, None) or head_dim_of(expect)
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


def _variant_or_static(want: Rope, got: Rope, seq_len, a_want, a_got, d, stated=ASPECTS,
                       intervals=None, fits=None):
    """``(verdict, diagnosis)`` for an identified RoPE other than the expected one: a dynamic
    NTK expectation met by the static map with its full factor is the named bug.  ``stated``,
    ``intervals``, ``fits``: see :func:`_diff`."""
    sc, gs = want.scaling, got.scaling
    if isinstance(sc, DynamicNTK) and isinstance(gs, NTKAware) and gs.factor == sc.factor \
            and want._base == got._base:
        return WRONG, _static_text(sc, seq_len)
    return VARIANT, _diff(want, got, a_want, a_got, d, stated, intervals, fits)


def _diff(want: Rope, got: Rope, a_want, a_got, d, stated=ASPECTS, intervals=None,
          fits=None) -> str:
    """How ``got`` (identified) differs from ``want``, naming as "X where Y was expected" only
    what the user stated (``stated``, :mod:`.expected`) and what the artefact rules out: a base
    or scaling parameter whose expected value lies in the interval the identification derived
    for it (``intervals``) or fits the artefact when put into ``got`` (``fits(rope)``) is taken
    into ``got`` instead of being named; when nothing is left to name, the difference is said
    to be unexplained."""
    out, spared = [], []

    def take(name, val, cand):
        nonlocal got
        if allowed(name, val, intervals or {}, (lambda: fits(cand)) if fits else None):
            got = cand
            spared.append(f"{name} {val}")
            return True
        return False

    if want._base != got._base and not take("base", want._base, replace(got, base=want.base)):
        out.append(f"base {got._base} where {want._base} was expected" if "base" in stated
                   else unstated_text("base", got._base, want._base))
    if want.scaling != got.scaling:
        if type(want.scaling) is type(got.scaling):
            gp, wp = got.scaling.params(), want.scaling.params()
            for k in gp:
                if gp[k] != wp.get(k) and take(k, wp.get(k), replace(
                        got, scaling=replace(got.scaling, **{k: wp.get(k)}))):
                    continue
            gp = got.scaling.params()
            named = [k for k in gp if gp[k] != wp.get(k)]
            if len(named) == 1:
                k = named[0]
                out.append(f"{k} {gp[k]} where {wp.get(k)} was expected ({got.scaling.kind} "
                           "scaling)")
            elif named:  # each tried alone, not together: no one of them is named as wrong
                out.append(f"{got.scaling.kind} scaling with "
                           + ", ".join(f"{k} {gp[k]}" for k in named) + " where "
                           + ", ".join(f"{k} {wp.get(k)}" for k in named) + " was expected: "
                           "the expected values do not fit together, which of them is off is "
                           "not determined")
        else:
            out.append(f"scaling {got.scaling.describe()} where {want.scaling.describe()} was "
                       "expected")
    if want.layout != got.layout:
        out.append(f"layout {got.layout} where {want.layout} was expected" if "layout" in stated
                   else unstated_text("layout", got.layout, None))
    if want.exponent_dim != got.exponent_dim:
        out.append(f"frequencies base**(-2j/{got.exponent_dim}) where base**(-2j/"
                   f"{want.exponent_dim}) was expected (the rotary dimension the model uses "
                   "in the exponent differs from the channels it rotates)")
    if want.rotated_pairs != got.rotated_pairs:
        out.append(f"{got.rotated_pairs} rotating pairs where {want.rotated_pairs} were "
                   "expected")
    if a_want != a_got:
        out.append(f"attention factor {a_got:.9g} where {a_want:.9g} was expected")
    if not out and spared:
        return (f"the artefact fits {got.describe()} and not the expected RoPE, but it does "
                f"not rule out the expected {', '.join(spared)}: the difference is unexplained")
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
    th = thetas(target, seq_len)

    def fits(model, cps=copies, apos=None):
        # on the sampled rows, then (a 16-bit pipeline, where an entry's own bound is loose)
        # one computation for every row: a bug is named only when it gives the whole cache
        t = compare_cache(cps, pos, model, angle_pos=apos, rows=sub)
        return t.fits and not untied(cps, pos if apos is None else apos, model)

    if fits(cache_model(target, seq_len, a, pipe, st), [(s, c) for c, s in copies]):
        found.append("cos and sin swapped: the cos cache holds the sines and the sin cache the "
                     "cosines")
    for name in ("float16", "bfloat16"):
        f = get_format(name)
        rp = f.round(pos)
        if np.any(rp != pos) and fits(cache_model(target, seq_len, a, pipe, st), apos=rp):
            first = float(pos[np.nonzero(rp != pos)[0][0]])
            found.append(f"positions held in {name} before the product: from position "
                         f"{first:g} they round (e.g. {first:g} -> {float(f.round([first])[0]):g})"
                         ", so late positions share one angle")
            break
    for name in ("bfloat16", "float16"):
        f = get_format(name)
        th_r = f.round(th)
        if np.any(th_r != th) and fits(cache_model(target, seq_len, a, pipe, st, thetas=th_r)):
            found.append(f"inv_freq rounded to {name} before the cache was built (relative "
                         f"error up to {float(np.max(np.abs(th_r / th - 1))):.2g} per "
                         "frequency, growing with the position)")
            break
    if a != 1:
        for txt, alt in ((f"attention factor applied twice (squared): amplitude {a * a:.9g} "
                          f"= {a:.9g}^2 where {a:.9g} was expected", a * a),
                         (f"attention factor missing: amplitude 1 where {a:.9g} was expected",
                          1.0)):
            if fits(cache_model(target, seq_len, alt, pipe, st)):
                found.append(txt)
                break
    sc = target.scaling
    rev = _reversed_blend(target, seq_len)
    if rev is not None:
        for alt, txt in ((a, ""), (1.0, "; the attention factor is missing too (amplitude 1)")):
            if (alt == a or a != 1) and fits(cache_model(target, seq_len, alt, pipe, st,
                                                         thetas=rev)):
                found.append(_REVERSED + txt)
                break
    if isinstance(sc, DynamicNTK):
        stat = Rope(target.d, target._base, layout=target.layout, scaling=NTKAware(sc.factor))
        eff = float(sc.factor) * max(seq_len, int(sc.max_position_embeddings)) / \
            int(sc.max_position_embeddings) - (float(sc.factor) - 1)
        if eff != float(sc.factor) and fits(cache_model(stat, None, a, pipe, st)):
            found.append(f"a 'dynamic' NTK that is static: the frequencies use the full factor "
                         f"{sc.factor} at every length, where at seq_len {seq_len} the dynamic "
                         f"map uses {eff:.6g}")
        elif seq_len > int(sc.max_position_embeddings) and fits(
                cache_model(Rope(target.d, target._base, layout=target.layout), None, a, pipe, st)):
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
    th = thetas(target, seq_len)
    th0 = replace(target, scaling=Default()).thetas_f64()
    inv = 1 / float(sc.factor)
    with np.errstate(all="ignore"):
        m = np.where(th0 > 0, th / th0, 0.0)
    rev = th0 * (1 + inv - m)
    return None if np.allclose(rev, th, rtol=1e-12, atol=0) else rev
