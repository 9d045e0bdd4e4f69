"""The numerics as the documents print them: tables, headline numbers, figure captions' values.

Every value comes from the run's numeric jobs (:mod:`.numerics`); certified values are printed
from their arb balls (:func:`.fmt.ball`, :func:`.fmt.digits`), measurements of float pipelines
as measured.  The dtype order is the one of :data:`peproof.numeric.recipes.DTYPES`.
"""

from __future__ import annotations

from markupsafe import Markup

from . import fmt
from .latex import tex

#: the proved claim whose statement defines ``D(k)`` in the numerics section
SUM_OF_COSINES = "distance.sq_eq_two_sum_one_minus_cos"


def _dtype_order() -> dict[str, int]:
    from peproof.numeric import recipes as R

    return {dt: n for n, dt in enumerate(R.DTYPES)}


def horizons(num: dict) -> list[dict]:
    order = _dtype_order()
    hz = [num[k] for k in sorted(num) if k.startswith("horizon:")]
    return sorted(hz, key=lambda h: order.get(h["dtype"], len(order)))


def _position(n: int | None, bound: int) -> Markup:
    return Markup(r"\textemdash{}") if n is None else fmt.integer(n) if n < 10**7 else fmt.big(n)


def horizon_view(num: dict) -> dict | None:
    """Per dtype and recipe: the first collision, the first error above delta/2, the overflow;
    as rows (the record) and as a dtype x recipe table of the first position that fails."""
    hz = horizons(num)
    if not hz:
        return None
    n = hz[0]["n"]
    rows, grid = [], {}
    for h in hz:
        for r in h["rows"]:
            coll = r["collision"]
            cross = r["error_crossing"]
            star = "" if r["crossing_certain"] in (True, None) else r"\textsuperscript{*}"
            rows.append({
                "dtype": r["dtype"], "recipe": r["recipe"],
                "collision": Markup(f"none $<$ {fmt.integer(n)}") if coll is None else
                Markup(f"{fmt.integer(coll)} (= {fmt.integer(r['collision_with'])})"),
                "forced": _position(r["collision_bound"], n) if r["collision_bound"]
                else Markup("never"),
                "crossing": Markup(f"none $<$ {fmt.integer(n)}") if cross is None
                else Markup(str(fmt.integer(cross)) + star),
                "overflow": Markup("never") if r["overflow"] is None else
                _position(r["overflow"], n),
                "max_error": fmt.num(r["max_error"], 3),
            })
            first = min([x for x in (coll, cross) if x is not None], default=None)
            grid[(r["dtype"], r["recipe"])] = {
                "first": Markup(f"$\\ge$ {fmt.integer(n)}") if first is None else
                Markup(str(fmt.integer(first)) + (star if first == cross else "")),
                "why": "" if first is None else ("collision" if first == coll else "error"),
                "raw": first}
    recipes = list(dict.fromkeys(r["recipe"] for h in hz for r in h["rows"]))
    dtypes = [h["dtype"] for h in hz]
    table = [{"dtype": dt, "cells": [grid.get((dt, rc)) for rc in recipes]} for dt in dtypes]
    return {"d": fmt.integer(hz[0]["d"]), "d_raw": hz[0]["d"], "n": fmt.integer(n),
            "half": fmt.ball(hz[0]["half_text"], 8) if hz[0].get("half_text") else
            Markup(r"$\delta/2$"),
            "rows": rows, "recipes": recipes, "dtypes": dtypes, "table": table, "grid": grid,
            "any_uncertain": any(r["crossing_certain"] is False for h in hz for r in h["rows"])}


def separation_view(num: dict) -> list[dict]:
    out = []
    for item in num.get("separation") or []:
        s, mp = item["separation"], item.get("mpmath")
        out.append({
            "d": fmt.integer(s["d"]), "d_raw": s["d"], "n": fmt.integer(s["n_pos"]),
            "min_sq": fmt.ball(s["min_sq"]["text"], 7),
            "min_sq_digits": fmt.digits(s["min_sq"]["text"], 4),
            "min_dist": fmt.lower(s["min_dist"]["text"], 6),
            "argmin": Markup(", ".join(str(fmt.integer(k)) for k in s["argmin"])),
            "argmin_raw": s["argmin"],
            "unique": s["certified_unique"],
            "adjacent": fmt.ball(s["adjacent_sq"]["text"], 7),
            "adjacent_digits": fmt.digits(s["adjacent_sq"]["text"], 4),
            "closer": fmt.integer(s["closer_than_adjacent"]),
            "closer_raw": s["closer_than_adjacent"],
            "first_decrease": fmt.integer(s["first_decrease"]),
            "wrap": fmt.digits(s["wrap"]["text"], 9),
            "wrap_position": fmt.integer(s["wrap_position"]),
            "distinct": "yes" if s["distinct"] else "no",
            "bound": fmt.num(s["float_bound"], 2), "candidates": fmt.integer(s["candidates"]),
            "mp": "-" if mp is None else ("agrees" if mp["agree"] else "DISAGREES"),
            "mp_agree": bool(mp and mp["agree"]),
            "undecided": s["undecided"],
            "reduction": s["reduction"], "trusted": s["trusted_base"],
        })
    return out


def wrap_rows(num: dict) -> list[dict]:
    """Per even ``d``: the certified first turn, the first position past it, the span."""
    ws = num.get("wrap_span")
    if not ws:
        return []
    out = []
    for r in ws["rows"]:
        lo, hi = fmt.parse_ball(r["wrap"])
        p, q = r["span"]
        out.append({"d": r["d"], "wrap": fmt.digits(r["wrap"], 7), "wrap_text": r["wrap"],
                    "wrap_mid": float((lo + hi) / 2), "first": fmt.integer(r["wrap_position"]),
                    "first_raw": r["wrap_position"], "span": fmt.rational(p, q, 5),
                    "span_raw": (p, q), "span_value": p / q})
    return out


def view(num: dict, marked: tuple) -> dict:
    """Everything the numerics sections print (``marked``: the dimensions shown in tables)."""
    out: dict = {"present": bool(num), "separation": [], "horizon": None, "wrap": [],
                 "wrap_all": []}
    if not num:
        return out
    seps = separation_view(num)
    out["separation"] = seps
    if seps:
        out["n"] = seps[0]["n"]
        out["n_raw"] = (num["separation"][0]["separation"]["n_pos"])
        out["all_distinct"] = all(s["distinct"] == "yes" for s in seps)
        out["mp_agree"] = all(s["mp_agree"] for s in seps)
        out["mp_dps"] = (num["separation"][0].get("mpmath") or {}).get("dps")
        out["trusted"] = seps[0]["trusted"]
        out["reduction"] = seps[0]["reduction"]
    out["horizon"] = horizon_view(num)
    wr = wrap_rows(num)
    out["wrap"] = [r for r in wr if r["d"] in marked] if wr else []
    out["wrap_all"] = wr
    if num.get("recipe_error"):
        re_ = num["recipe_error"]
        out["recipe_error"] = {"d": fmt.integer(re_["d"]), "bin": fmt.integer(re_["bin"]),
                               "stride": fmt.integer(re_.get("stride", re_["bin"])),
                               "dtypes": [p["dtype"] for p in re_["panels"]],
                               "recipes": [Markup(r"\texttt{" + tex(c["recipe"]) + "}")
                                           for c in re_["panels"][0]["curves"]]}
    if num.get("separation_vs_n"):
        sv = num["separation_vs_n"]
        out["sep_vs_n"] = {"ds": [c["d"] for c in sv["curves"]], "points": len(sv["n_grid"])}
    if num.get("distance"):
        ds = num["distance"]
        out["distance"] = {"ds": [c["d"] for c in ds["curves"]],
                           "ks": [fmt.integer(k) for k in ds["ks"]]}
    return out
