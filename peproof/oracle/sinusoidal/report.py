"""The versioned JSON envelope of a check and its human rendering."""

from __future__ import annotations

import numpy as np

from ..common.envelope import plain_json, platform_info
from ..common.exact import LIBM_AXIOM, MAX_PREC
from .compare import ABS_BINS, ULP_BINS, Comparison

SCHEMA = "peproof.check/1"
QUANTILES = (0.5, 0.9, 0.99, 0.999)


def comparison_json(c: Comparison) -> dict:
    hu, ha = c.hist_ulp, c.hist_abs
    return {
        "reference": c.variant.name(c.d), "ulps_of": c.stored.name, "pipeline_dtype": c.pipe.name,
        "rows": c.rows, "entries": c.entries, "rows_left_out": c.excluded_rows,
        "max_abs": c.max_abs, "max_ulp": c.max_ulp,
        "mean_ulp": c.sum_ulp / c.entries if c.entries else 0.0,
        "quantiles_ulp": {str(q): c.quantile(q, "ulp") for q in QUANTILES},
        "quantiles_abs": {str(q): c.quantile(q, "abs") for q in QUANTILES},
        "histogram_ulp": [{"from": float(2.0 ** k), "to": float(2.0 ** (k + 1)),
                           "count": int(hu[j])} for j, k in enumerate(ULP_BINS) if hu[j]],
        "histogram_abs": [{"from": float(2.0 ** k), "to": float(2.0 ** (k + 1)),
                           "count": int(ha[j])} for j, k in enumerate(ABS_BINS) if ha[j]],
        "histogram_note": "bins [from, to); the first bin also holds smaller errors and zeros, "
                          "the last larger ones",
        "within_1_ulp": c.entries - c.not_faithful - c.undecided,
        "not_within_1_ulp": c.not_faithful, "undecided": c.undecided,
        "correctly_rounded": c.correctly_rounded,
        "not_correctly_rounded": c.not_correctly_rounded,
        "correctly_rounded_undecided": c.cr_undecided,
        "certified_by_arb": c.arb_decisions,
        "outside_error_model": c.over_budget, "error_model_undecided": c.budget_undecided,
        "error_model_evaluated_entries": c.budget_entries,
        "max_error_model_ratio": c.max_budget_ratio if c.budget_entries else None,
        "error_model_vacuous_entries": c.vacuous, "nonfinite_entries": c.nonfinite,
        "channels_outside_error_model": [int(j) for j in np.nonzero(c.channel_over)[0][:64]]
        if c.channel_over is not None else [],
        "recipes": {k: {"bit_identical_entries": c.recipe_equal[k],
                        "rows_compared": c.recipe_rows,
                        "recipe_max_ulp_vs_exact": c.recipe_max_ulp[k]} for k in c.recipe_equal},
        "worst": c.worst,
    }


def envelope(rep) -> dict:
    from peproof import __version__
    from peproof.families.error_model import CONSTANTS

    spec = rep.spec
    checks = []
    if spec is not None:
        checks.append({"id": "spec_exact", "status": "pass" if spec.faithful else "fail",
                       "criterion": "every entry within 1 ulp of the exact value",
                       **comparison_json(spec)})
        checks.append({
            "id": "error_model", "status": "pass" if spec.within_budget else "fail",
            "criterion": f"every entry within the proved error bound of computing the variant "
                         f"in {rep.pipe.name} (claims error_model.*)", "dtype": rep.pipe.name,
            "outside": spec.over_budget, "undecided": spec.budget_undecided,
            "max_ratio": spec.max_budget_ratio if spec.budget_entries else None,
            "constants": CONSTANTS.as_dict(),
            "recipes": comparison_json(spec)["recipes"]})
    ident = rep.identified
    if rep.expected is not None:
        same = ident.variant is not None and ident.variant.same_as(rep.expected, rep.d)
        checks.append({"id": "variant", "status": "pass" if same else "fail",
                       "expected": rep.expected.name(rep.d), "identified": ident.name})
    if rep.other is not None:
        checks.append({"id": "identified_variant",
                       "status": "pass" if (rep.other.faithful or rep.other.within_budget)
                       else "fail", **comparison_json(rep.other)})
    col = rep.collisions
    checks.append({"id": "collisions", "status": "pass" if not col.get("identical_row_groups")
                   else ("warn" if rep.allow_collisions else "fail"), **col})
    checks.append({"id": "horizon", "status": "info", **rep.horizon})
    summary = {"rows": rep.n, "d": rep.d, "entries": rep.n * rep.d,
               "padding_rows": rep.padding}
    c = rep.counted
    if c is not None:
        summary.update({
            "counted_against": c.variant.name(c.d),
            "max_ulp": c.max_ulp, "max_abs": c.max_abs,
            "within_1_ulp": c.entries - c.not_faithful - c.undecided,
            "not_within_1_ulp": c.not_faithful, "undecided_1_ulp": c.undecided,
            "correctly_rounded_fraction": c.correctly_rounded / c.entries if c.entries else 0.0,
            "outside_error_model": c.over_budget, "undecided_error_model": c.budget_undecided})
    summary["identical_row_groups"] = col.get("identical_row_groups", 0)
    summary["nonfinite"] = rep.nonfinite
    summary["position_map"] = rep.position_map.to_json() if rep.position_map else None
    arb = sum(x.arb_decisions for x in (rep.spec, rep.other) if x is not None)
    return plain_json({
        "schema": SCHEMA, "suite": "peproof", "suite_version": __version__,
        "precision": {
            "reference": "float64 with a proven error bound; decisions it cannot settle are "
                         "taken from python-flint arb balls at escalating precision",
            "fast_path_axiom": LIBM_AXIOM, "arb_decisions": arb,
            "max_working_precision_bits": MAX_PREC, "ulps_of": rep.dtype.name,
            "stored_dtype": rep.stored.name, "pipeline_dtype": rep.pipe.name},
        "platform": platform_info(),
        "input": {**rep.source, "shape": [rep.n, rep.d], "stored_dtype": rep.stored.name,
                  "dtype": rep.dtype.name},
        "expected": rep.expected.to_json(rep.d) if rep.expected is not None else "any",
        "expected_by_default": rep.expected_by_default,
        "identified": ident.to_json(),
        "verdict": {"text": rep.headline, "code": rep.code, "exit_code": rep.exit_code,
                    "diagnoses": rep.diagnoses, "reasons": rep.reasons},
        "summary": summary, "checks": checks, "seconds": rep.seconds,
    })


def _g(x: float, k: int = 3) -> str:
    return f"{x:.{k}g}"


def _counts(c: Comparison, pipe: str) -> list[str]:
    """The entry counts of one comparison; undecided entries are never counted as failures."""
    ok1 = c.entries - c.not_faithful - c.undecided
    if c.undecided:  # never "0 of N within 1 ulp" for entries that were left undecided
        line = (f"{c.not_faithful} of {c.entries} entries certainly more than 1 ulp from the "
                f"exact values, {c.undecided} undecided" + (f", {ok1} within" if ok1 else ""))
    else:
        line = f"{ok1} of {c.entries} entries within 1 ulp of the exact values"
        if c.not_faithful:
            line += f", {c.not_faithful} not"
    out = [line]
    if c.budget_entries or c.over_budget:
        line = (f"{c.entries - c.over_budget - c.budget_undecided} within the error model of "
                f"{pipe}, {c.over_budget} outside")
        if c.budget_undecided:
            line += f", {c.budget_undecided} undecided"
        out.append(line)
    elif c.faithful:
        out.append(f"hence all within the error model of {pipe}")
    if c.excluded_rows:
        out.append(f"({c.excluded_rows} padding rows left out)")
    return out


def render(rep, worst: int = 5, full: bool = True) -> str:
    src = rep.source.get("path") or rep.source.get("callable") or "table"
    dt = rep.dtype.name + ("" if rep.dtype == rep.stored else f" (stored as {rep.stored.name})")
    L = [f"peproof check: {src} ({rep.n} x {rep.d}, {dt})"]
    L.append(f"verdict    : {rep.headline.upper() if rep.ok else rep.headline}")
    for k, line in enumerate(rep.diagnoses[:6]):
        L.append(("diagnosis  : " if k == 0 else "             ") + line)
    ident = rep.identified
    if rep.expected is not None:
        L.append("expected   : " + rep.expected.name(rep.d) + (
            "  (the default expectation, the paper's: --expect, --layout, ... state yours)"
            if rep.expected_by_default else ""))
    L.append(f"identified : {ident.name}")
    if full and ident.variant is not None:
        L.append(f"             residual {_g(ident.residual_ulp)} ulp ({_g(ident.residual_abs)} "
                 f"abs), {100 * ident.entries_within_budget:.1f}% of {ident.rows_examined} "
                 f"examined rows' entries within the error model")
        for e in ident.equivalent[:2]:
            L.append(f"             (the same table as: {e})")
    if ident.indistinguishable:
        L.append("             indistinguishable here from: "
                 + "; ".join(ident.indistinguishable))
    if full:
        for note in ident.notes[:2]:
            L.append(f"             note: {note}")
    c = rep.counted
    if c is not None:
        label = "identified" if c is rep.other else (
            "expected" if rep.expected is not None else "identified")
        for k, line in enumerate(_counts(c, rep.pipe.name)):
            L.append((f"counts     : against the {label} variant: " if k == 0 else
                      "             ") + line)
    for r in rep.reasons[: (None if full else 2)]:
        L.append(f"             {r}")
    comps = [(x, lab) for x, lab in ((rep.spec, "the expected variant"),
                                     (rep.other, "the identified variant")) if x is not None]
    if not full:
        comps = [(c, "")] if c is not None else []
    for x, lab in comps:
        if full:
            L.append("")
            L.append(f"against {lab}: {x.variant.name(x.d)}")
            L.append(f"  ulps of {x.stored.name}: median <= {_g(x.quantile(0.5))}, "
                     f"99% <= {_g(x.quantile(0.99))}, max {_g(x.max_ulp, 6)}; absolute: "
                     f"99% <= {_g(x.quantile(0.99, 'abs'))}, max {_g(x.max_abs)}")
            for line in _counts(x, rep.pipe.name):
                L.append("  " + line)
            cr = x.correctly_rounded / x.entries if x.entries else 0.0
            L.append((f"  correctly rounded: {x.correctly_rounded} certified, "
                      f"{x.not_correctly_rounded} certainly not, {x.cr_undecided} undecided"
                      if x.cr_undecided else f"  correctly rounded: {100 * cr:.3f}%")
                     + f"; certified by arb: {x.arb_decisions}"
                     + "".join(f"; {k} recipe bit-identical on "
                               f"{100 * v / max(1, x.recipe_rows * x.d):.1f}%"
                               for k, v in x.recipe_equal.items()))
        if x.worst and worst and (x.over_budget or (full and not x.faithful)):
            L.append("worst      :" if not full else "  worst entries:")
            L.append("    position  channel        table                exact     abs err"
                     "        ulps  x bound")
            for w in x.worst[:worst]:
                br = w["budget_ratio"]
                L.append(f"    {w['position']!s:>8}  {w['channel']:>4} {w['component']:>3}"
                         f"  {w['table']:>+.9e}  {w['exact']:>+.12e}  {w['abs_error']:.3e}"
                         f"  {w['ulp_error']:>10.4g}  {'-' if br is None else _g(br):>8}")
    if full:
        col = rep.collisions
        L.append("")
        if col.get("identical_row_groups"):
            L.append(f"collisions : {col['identical_row_groups']} groups of identical rows "
                     f"({col['rows_in_collisions']} rows), e.g. positions {col['examples'][0]}")
        else:
            L.append(f"collisions : none ({col.get('distinct_rows', rep.n)} distinct rows)")
        hz = rep.horizon
        line = (f"horizon    : {hz['dtype']} holds integer positions exactly up to "
                f"{hz['integer_positions_exact_up_to']}")
        if hz.get("rows_whose_position_rounds_in_dtype"):
            line += f"; {hz['rows_whose_position_rounds_in_dtype']} rows lie beyond"
        if hz.get("budget_vacuous_from_position") is not None:
            line += (f"; from position {hz['budget_vacuous_from_position']} a computation in "
                     f"{hz['dtype']} may return any value")
        L.append(line)
    else:
        L.append("more       : str(peproof.oracle.check(table, ...)) or `peproof check FILE` "
                 "for the full report, --json for every figure")
    return "\n".join(L)
