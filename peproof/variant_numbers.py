"""The numbers the paper's statements rest on, for a variant and for the paper side by side.

Every number comes from a certified computation of :mod:`peproof.numeric` or from arb balls of the
one definition (:meth:`peproof.encoding.Encoding.omega_arb`, :meth:`peproof.rope.Rope.theta`):

* the frequencies' span ``omega_0 / omega_min`` (orders of magnitude) and the wavelength range;
* the uniqueness horizon ``2 pi / omega_min`` (the slowest pair's first full turn) at the
  variant's width, the variant's and the paper's: not computed here but read off the claim
  ``uniqueness.wrap_position_at_your_width``, which states both and is decided (its verdict is
  printed beside them; the closed form ``2 pi base^((d-2)/d)``, ``2 pi base`` for h-1, ... is
  ``uniqueness.slowest_pair_wraps_at_exact_position`` for the variant);
* the certified minimum separation of positions ``0 .. N-1`` (:func:`peproof.numeric.separation.
  certify`, ``N = SEPARATION_N``: the size keeps ``prove --variant`` to seconds);
* the float16 precision horizon (:func:`peproof.numeric.horizon.horizons`, ``N = HORIZON_N``
  positions, the ``exp-float`` recipe; a measurement, not a certified number);
* for RoPE: the scaled frequencies' range, their wavelengths (under the variant's map), and the
  decay curve's landmarks (:func:`peproof.numeric.rope_landmarks.certified_landmarks`, offsets up
  to ``DECAY_N``) -- the certified curve takes unscaled frequencies only, so with a frequency map
  the row says so instead of giving a number.
"""

from __future__ import annotations

import flint

from peproof import scope
from peproof.encoding import Encoding

SEPARATION_N = 4096
HORIZON_N = 4096
DECAY_N = 4096
PAPER_D = 512


def _f(x, digits: int = 6) -> str:
    """An arb ball's midpoint to ``digits`` significant digits (the ball is far narrower)."""
    return f"{float(x.mid()):.{digits}g}"


def _sin_numbers(enc: Encoding, heavy: bool) -> dict:
    out = {}
    with flint.ctx.workprec(128):
        w0, wmin = enc.omega_arb(0), enc.omega_arb(enc.pairs - 1)
        two_pi = flint.arb.pi() * 2
        out["omega_max"] = _f(w0)
        out["omega_min"] = _f(wmin)
        out["span_orders"] = _f((w0 / wmin).log() / flint.arb(10).log())
        out["wavelengths"] = f"{_f(two_pi / w0)} .. {_f(two_pi / wmin)}"
    if heavy:
        out["separation"] = _separation(enc)
        out["float16_horizon"] = _horizon(enc)
    return out


HORIZON_CLAIM = "uniqueness.wrap_position_at_your_width"


def _claimed_horizon(enc: Encoding) -> dict:
    """The uniqueness horizon at ``enc``'s width, the variant's and the paper's, as the claim
    :data:`HORIZON_CLAIM` states them (three decimals), with that claim's verdict: a number is
    printed only as part of a decided claim."""
    from peproof import registry
    from peproof.verdicts import verdict_of

    v = scope.Sinusoidal(enc)
    c = next((c for c in registry.claims_for(v) if c.id == HORIZON_CLAIM), None)
    if c is None:
        return {"variant": "n/a (no horizon claim for this encoding)", "paper": "-"}
    with scope.using(v):
        verdict = verdict_of(HORIZON_CLAIM)
    nums = getattr(c, "numbers", None)
    if nums is None:  # not applicable: the claim's row says why
        return {"variant": f"n/a ({verdict.reason})", "paper": "-"}
    return {"variant": nums["variant"], "paper": nums["paper"],
            "how": f"claim {HORIZON_CLAIM}: {verdict.status} ({verdict.engine})"}


def _claimed_rise(rope) -> str:
    """The mapped curve's first rise as the claim ``rope.decay_bound_decreasing_until_first_
    rise_d<d>`` states it for the variant (with its verdict), or why there is none."""
    from peproof import registry
    from peproof.verdicts import verdict_of

    v = scope.Rotary(rope)
    cid = f"rope.decay_bound_decreasing_until_first_rise_d{rope.d}"
    c = next((c for c in registry.claims_for(v) if c.id == cid), None)
    if c is None:
        return f"n/a ({rope.scaling.kind} map; no claim at d = {rope.d})"
    with scope.using(v):
        verdict = verdict_of(cid)
    nums = getattr(c, "numbers", None)
    if nums is None:
        return f"n/a ({verdict.reason[:90]})"
    return f"{nums['first_rise']} [claim {cid}: {verdict.status}]"


PRECISION_CLAIM = "precision.position_horizon_float16"


def _claimed_precision(variant) -> dict:
    """The float16 position horizon (the last position told apart from its successor), the
    variant's and the paper's, as the claims :data:`PRECISION_CLAIM` state them, with their
    verdicts."""
    from peproof import registry
    from peproof.verdicts import verdict_of

    out = {}
    for side, v in (("variant", variant), ("paper", None)):
        c = next((c for c in registry.claims_for(v) if c.id == PRECISION_CLAIM), None)
        with scope.using(v):
            verdict = verdict_of(PRECISION_CLAIM)
        nums = getattr(c, "numbers", None)
        if nums is None:
            out[side] = f"n/a ({verdict.reason})"
        else:
            top = nums["P"]
            out[side] = (f"{top} (then {top + 1} rounds onto it)" if top is not None else
                         "none below the search limit") + f" [{verdict.status}]"
    out["how"] = f"claim {PRECISION_CLAIM} (exact integer rounding)"
    return out


def _separation(enc: Encoding) -> str:
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.separation import certify

    if enc.family not in ("paper", "h-1") or enc._scale != 1 or enc._max_freq != 1 or enc.turns:
        return "n/a (the scan takes the paper or h-1 law at scale 1)"
    plain = Encoding(enc.d, family=enc.family, base=enc._base)
    s = certify(plain, SEPARATION_N, run=RunConfig(engine="inline", label="variant"))
    return f"{s.min_dist.lo:.6g} at offset {s.argmin[0]}"


def _horizon(enc: Encoding) -> str:
    from peproof.numeric.engine import RunConfig
    from peproof.numeric.horizon import horizons

    if enc.family not in ("paper", "h-1") or enc._scale != 1 or enc._max_freq != 1 or enc.turns:
        return "n/a (the horizon scan takes the paper or h-1 law at scale 1)"
    hs = horizons(enc.d, dtypes=("float16",), recipes=("exp-float",), n_pos=HORIZON_N,
                  family=enc.family, base=str(enc._base),
                  run=RunConfig(engine="inline", label="variant"))
    h = hs[0]
    if h.collision is None:
        return f"none below {HORIZON_N}"
    return f"{h.collision} (same row as {h.collision_with})"


LABELS = {
    "omega_max": ("largest frequency omega_0", "arb"),
    "omega_min": ("smallest frequency omega_(d/2-1)", "arb"),
    "span_orders": ("span log10(omega_0/omega_min)", "arb"),
    "wavelengths": ("wavelengths 2 pi/omega", "arb"),
    "horizon": ("uniqueness horizon 2 pi/omega_min at your d", "claim"),
    "separation": (f"min distance, positions 0..{SEPARATION_N - 1}",
                   "certified scan (numeric/separation.py)"),
    "float16_horizon": (f"float16 first colliding position (< {HORIZON_N}, exp-float recipe)",
                        "measured (numeric/horizon.py)"),
    "position_horizon": ("float16: first pos P whose successor rounds onto it (pos times "
                         "max_freq)", "claim"),
    "theta_range": ("frequencies after the map", "exact, evaluated at 30 digits"),
    "rope_wavelengths": ("wavelengths 2 pi/theta after the map",
                         "exact, evaluated at 30 digits"),
    "decay_first_rise": (f"decay bound: first rise (k <= {DECAY_N})",
                         "certified curve (numeric/rope_decay.py; unmapped frequencies only)"),
    "decay_record_prefix": (f"decay bound: record prefix K* (k <= {DECAY_N})",
                            "certified curve (numeric/rope_decay.py; unmapped frequencies only)"),
}


def _rope_numbers(rope, heavy: bool) -> dict:
    thetas = [rope.theta(j) for j in range(rope.rotated_pairs)]
    import sympy as sp

    vals = [sp.N(t, 30) for t in thetas if t != 0]
    out = {"theta_range": f"{float(min(vals)):.6g} .. {float(max(vals)):.6g}",
           "rope_wavelengths": f"{float(2 * sp.pi / max(vals)):.6g} .. "
                               f"{float(2 * sp.pi / min(vals)):.6g}"}
    if heavy:
        if rope.scaling.kind != "default" or rope.rotated_pairs != rope.pairs:
            out["decay_first_rise"] = _claimed_rise(rope)
            out["decay_record_prefix"] = (f"n/a ({rope.scaling.kind} map: K* needs the "
                                          "certified curve, unmapped frequencies only)")
        else:
            from peproof.numeric.engine import RunConfig
            from peproof.numeric.rope_landmarks import certified_landmarks

            _, lm = certified_landmarks(rope.d, DECAY_N, str(rope._base),
                                        run=RunConfig(engine="inline", label="variant"))
            out["decay_first_rise"] = str(lm.first_rise)
            out["decay_record_prefix"] = str(lm.record_prefix)
    return out


def compare(variant, heavy: bool = True) -> list[dict]:
    """``[{"key", "name", "variant", "paper", "how"}]``: the variant's numbers and the paper's
    (the paper at the variant's width; for RoPE, the paper's RoPE: base 10000, no scaling)."""
    if isinstance(variant, scope.Rotary):
        from peproof.rope import Rope

        r = variant.rope
        mine = _rope_numbers(r, heavy)
        theirs = _rope_numbers(Rope(r.d, 10000, layout=r.layout), heavy)
        ph = _claimed_precision(variant)
        mine["position_horizon"], theirs["position_horizon"] = ph["variant"], ph["paper"]
        how = {"position_horizon": ph["how"]}
    else:
        enc = variant.enc
        mine = _sin_numbers(enc, heavy)
        theirs = _sin_numbers(Encoding(enc.d), heavy)
        hz = _claimed_horizon(enc)  # both sides from the variant's claim (the paper's beside)
        mine["horizon"], theirs["horizon"] = hz["variant"], hz["paper"]
        how = {"horizon": hz.get("how", LABELS["horizon"][1])}
        ph = _claimed_precision(variant)
        mine["position_horizon"], theirs["position_horizon"] = ph["variant"], ph["paper"]
        how["position_horizon"] = ph["how"]
    return [{"key": k, "name": LABELS[k][0], "variant": mine[k], "paper": theirs[k],
             "how": how.get(k, LABELS[k][1])} for k in mine]
