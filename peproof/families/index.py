"""Index facts: the channel bookkeeping of the layouts, for every even d = 2h.

Main statements
  ``index.interleaved_maps_are_inverse``, ``index.sin_cos_maps_are_inverse``,
  ``index.cos_sin_maps_are_inverse``, ``index.interleaved_to_split_is_bijection``,
  ``index.pair_channels_in_range``, ``index.mirror_frequency_in_range``,
  ``index.encoding_layouts_match_maps``.

Implementation notes
  The layout maps are written as integer terms (``floor``, ``Mod``, ``Piecewise``) over a
  symbolic half-dimension ``h`` (``d = 2h``) and decided by z3 over the integers (linear integer
  arithmetic with division by the constant 2: a complete decision procedure).  The last claim
  ties the symbolic maps to the Python code in :class:`peproof.encoding.Encoding` by exhaustive
  evaluation for every even d up to 1024.

References
  Seed 000 ("which is the same set of numbers as the interleaved ... ordering above, just
  permuted"; the DFS mirror range); seed 002 section 3.2 (the reordering of channels).
"""

from __future__ import annotations

import time
from functools import cache

import sympy as sp

from peproof import falsify as F
from peproof.claims import Claim, Eq, Falsifier, Le, Statement, Verdict, var
from peproof.seeds import APPENDIX, FOURIER, src

h, V_H = var("h", "pos_integer")
j, V_J = var("j", "nonneg_integer")
i, V_I = var("i", "nonneg_integer")
w, V_W = var("w", "nonneg_integer")  # 0 = sin, 1 = cos
m, V_M = var("m", "pos_integer")
k, V_K = var("k", "pos_integer")

# the maps: channel(i, w) and slot(j) = (pair(j), which(j)), which 0 = sin, 1 = cos
INTERLEAVED = {"channel": 2 * i + w, "pair": sp.floor(j / 2), "which": sp.Mod(j, 2)}
SIN_COS = {
    "channel": sp.Piecewise((i, sp.Eq(w, 0)), (i + h, True)),
    "pair": sp.Piecewise((j, j < h), (j - h, True)),
    "which": sp.Piecewise((0, j < h), (1, True)),
}
COS_SIN = {
    "channel": sp.Piecewise((i, sp.Eq(w, 1)), (i + h, True)),
    "pair": sp.Piecewise((j, j < h), (j - h, True)),
    "which": sp.Piecewise((1, j < h), (0, True)),
}
MAPS = {"interleaved": INTERLEAVED, "sin_cos": SIN_COS, "cos_sin": COS_SIN}
RANGE = (Le(j, 2 * h - 1), Le(i, h - 1), Le(w, 1))


def _inverse_statement(mp) -> Statement:
    ch_of_slot = mp["channel"].xreplace({i: mp["pair"], w: mp["which"]})
    return Statement(
        (
            Eq(ch_of_slot, j),  # channel(slot(j)) = j
            Eq(mp["pair"].xreplace({j: mp["channel"]}), i),  # slot(channel(i, w)) = (i, w)
            Eq(mp["which"].xreplace({j: mp["channel"]}), w),
            Le(mp["channel"], 2 * h - 1),  # channel in range
            Le(0, mp["channel"]),
            Le(mp["pair"], h - 1),  # slot in range
            Le(mp["which"], 1),
        ),
        (V_H, V_J, V_I, V_W),
        hyps=RANGE,
    )


SIGMA = sp.Piecewise((sp.floor(j / 2), sp.Eq(sp.Mod(j, 2), 0)), (sp.floor(j / 2) + h, True))
TAU = sp.Piecewise((2 * j, j < h), (2 * (j - h) + 1, True))
BIJECTION = Statement(
    (
        Eq(TAU.xreplace({j: SIGMA}), j),
        Eq(SIGMA.xreplace({j: TAU}), j),
        Le(SIGMA, 2 * h - 1),
        Le(TAU, 2 * h - 1),
    ),
    (V_H, V_J),
    hyps=(Le(j, 2 * h - 1),),
)
PAIR_RANGE = Statement((Le(0, 2 * i), Le(2 * i + 1, 2 * h - 1)), (V_H, V_I), hyps=(Le(i, h - 1),))
MIRROR = Statement(
    (Le(1, 2 * m - k), Le(2 * m - k, 2 * m - 1)),
    (V_M, V_K),
    hyps=(Le(k, 2 * m - 1),),
)
MIRROR_UPPER = Statement(
    (Le(1, 2 * m - k), Le(2 * m - k, m - 1)),
    (V_M, V_K),
    hyps=(Le(m + 1, k), Le(k, 2 * m - 1)),
)


def z3_integer_proof(stmt: Statement, claim: Claim) -> Verdict:
    """Decide with z3 over the integers (the statement has no trigonometric function)."""
    from peproof.engines.z3trig import decide_z3

    v = decide_z3(stmt, timeout_ms=5000)
    v.engine = "z3 (integers)" if v.status == "proved" else v.engine
    return v


@cache
def _layout_inverse(name: str) -> Statement:
    """``_inverse_statement(MAPS[name])``, built once per process (the layout's claim, the
    statement of ``index.encoding_layouts_match_maps`` and its proof's check all read it;
    SymPy's Piecewise canonicalisation makes each build slow)."""
    return _inverse_statement(MAPS[name])


def _all_layouts() -> Statement:
    """The inverse-map statements of the three layouts, as one statement."""
    parts = [_layout_inverse(name) for name in MAPS]
    return Statement(tuple(r for p in parts for r in p.concl), parts[0].vars, hyps=RANGE)


def _layouts_match(stmt: Statement, claim: Claim) -> Verdict:
    """Exhaustive over CHECKED_D: Encoding's maps equal the formulas (MAPS) on every channel.

    The formulas evaluated here are MAPS; the proof therefore first checks that it was handed
    exactly the statement built from MAPS, and certifies nothing else."""
    from peproof.encoding import Encoding

    t0 = time.perf_counter()
    if stmt != _all_layouts():
        return Verdict("unknown", "python (exhaustive)", "-", "exhaustive evaluation",
                       reason="statement is not the one built from the layout formulas")
    fns = {
        name: {key: sp.lambdify((h, j, i, w), expr, modules=[{"floor": lambda x: x // 1}, "math"])
               for key, expr in mp.items()}
        for name, mp in MAPS.items()
    }
    checked = 0
    for hh in [dd // 2 for dd in CHECKED_D]:
        for layout, f in fns.items():
            enc = Encoding(2 * hh, layout=layout)
            for jj in range(2 * hh):
                pair, which = enc.slot(jj)
                ww = 0 if which == "sin" else 1
                got = (int(f["pair"](hh, jj, 0, 0)), int(f["which"](hh, jj, 0, 0)))
                chan = int(f["channel"](hh, 0, pair, ww))
                if got != (pair, ww) or chan != jj:
                    return Verdict(
                        "refuted", "python (exhaustive)", "-", "exhaustive evaluation",
                        seconds=time.perf_counter() - t0,
                        witness={"point": {"d": 2 * hh, "layout": layout, "j": jj},
                                 "relation": f"Encoding.slot({jj}) = {(pair, which)}, formula "
                                             f"gives {got}, channel {chan}",
                                 "certified_by": "exact integer arithmetic"},
                    )
                checked += 1
    return Verdict("proved", "python (exhaustive)", "-", "exhaustive evaluation",
                   axioms=("exact integer evaluation of finitely many cases",),
                   seconds=time.perf_counter() - t0,
                   trace=[f"{checked} channels checked: d in {CHECKED_D[0]}..{CHECKED_D[-1]} "
                          f"({len(CHECKED_D)} values), three layouts"])


CHECKED_D = tuple(range(2, 130, 2)) + (192, 256, 384, 512, 768, 1000, 1024)
SEC = "The Fourier Feature Mapping as a Subsampling of the Discrete Fourier Series"
PERM = "which is the same set of numbers as the interleaved"


def _inv_claim(name: str, mp, layout_text: str) -> Claim:
    st = _layout_inverse(name) if MAPS.get(name) is mp else _inverse_statement(mp)
    return Claim(
        f"index.{name}_maps_are_inverse",
        f"{layout_text}: channel(slot(j)) = j and slot(channel(i, w)) = (i, w), in range, "
        "for every even d = 2h",
        (src(FOURIER, SEC, PERM), src(APPENDIX, "3.2 The full d-dimensional map",
                                      "With the right reordering of the (sin,cos)")),
        st,
        "integer",
        falsifiers=(
            F.subs_rhs(st, {j: j + 1}, "off_by_one", "channel(slot(j)) = j + 1", index=0),
            Falsifier("range_too_small", st.with_concl(Le(mp["channel"], 2 * h - 2)),
                      "every channel below d - 1"),
        ),
        proof=z3_integer_proof,
    )


CLAIMS = [
    _inv_claim("interleaved", INTERLEAVED, "Interleaved layout"),
    _inv_claim("sin_cos", SIN_COS, "[sin|cos] layout"),
    _inv_claim("cos_sin", COS_SIN, "[cos|sin] layout"),
    Claim(
        "index.interleaved_to_split_is_bijection",
        "The reordering interleaved -> [sin|cos], sigma(j) = floor(j/2) + (j mod 2) h, is a "
        "bijection of {0, ..., d-1} with inverse tau",
        src(FOURIER, SEC, PERM),
        BIJECTION,
        "integer",
        falsifiers=(
            F.shift(BIJECTION, 1, index=0, name="tau_off_by_one"),
            Falsifier("sigma_fixes_everything", BIJECTION.with_concl(Eq(SIGMA, j)),
                      "sigma is the identity"),
        ),
        proof=z3_integer_proof,
    ),
    Claim(
        "index.pair_channels_in_range",
        "For i < d/2 the channels 2i and 2i+1 lie in {0, ..., d-1}",
        src(APPENDIX, "2. The formula", "i∈{0,1,…,d/2−1}"),
        PAIR_RANGE,
        "integer",
        falsifiers=(
            F.shift(PAIR_RANGE, -1, index=1, name="last_channel_d_minus_2"),
            Falsifier("channel_2i_plus_2", PAIR_RANGE.with_concl(Le(2 * i + 2, 2 * h - 1)),
                      "2i + 2 also in range"),
        ),
        proof=z3_integer_proof,
    ),
    Claim(
        "index.mirror_frequency_in_range",
        "For even N = 2m and 1 <= k <= N-1 the mirror N-k is in 1..N-1; for k > N/2 it is in "
        "1..N/2-1 (the upper half mirrors the interior of the lower half)",
        src(FOURIER, "A Discrete Set", "are mirror images of the lower half"),
        Statement(MIRROR.concl + MIRROR_UPPER.concl[1:], (V_M, V_K),
                  hyps=(Le(m + 1, k), Le(k, 2 * m - 1))),
        "integer",
        falsifiers=(
            Falsifier("mirror_reaches_nyquist",
                      MIRROR.with_concl(Le(2 * m - k, m - 1)), "mirror below N/2 for every k"),
            Falsifier("mirror_reaches_zero", MIRROR.with_concl(Le(2, 2 * m - k)),
                      "mirror at least 2"),
        ),
        proof=z3_integer_proof,
    ),
    Claim(
        "index.encoding_layouts_match_maps",
        "peproof.encoding's channel/slot agree with the formulas above (every even d <= 128 and "
        "d in {192, 256, 384, 512, 768, 1000, 1024})",
        src(FOURIER, SEC, PERM),
        _all_layouts,
        "integer",
        uses=("index.interleaved_maps_are_inverse", "index.sin_cos_maps_are_inverse",
              "index.cos_sin_maps_are_inverse"),
        falsifiers=lambda st: (
            F.subs_rhs(st, {j: j + 1}, "off_by_one", "channel(slot(j)) = j + 1", index=0),
            F.shift(st, 1, index=1, name="pair_off_by_one"),
        ),
        proof=_layouts_match,
    ),
]
