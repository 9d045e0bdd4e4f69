"""The versioned JSON envelope of a check and its human rendering."""

from __future__ import annotations

import platform
import sys

import numpy as np

from .compare import ABS_BINS, ULP_BINS, Comparison
from .exact import LIBM_AXIOM, MAX_PREC

SCHEMA = "peproof.check/1"
QUANTILES = (0.5, 0.9, 0.99, 0.999)


def platform_info() -> dict:
    import flint
    import ml_dtypes

    return {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
            "python_flint": flint.__version__, "system": platform.system(),
            "machine": platform.machine()}


def comparison_json(c: Comparison) -> dict:
    hu, ha = c.hist_ulp, c.hist_abs
    return {
        "reference": c.variant.name(c.d), "ulps_of": c.stored.name, "pipeline_dtype": c.pipe.name,
        "rows": c.rows, "entries": c.entries,
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
        "not_within_1_ulp": c.not_faithful, "undecided": c.undecided,
        "correctly_rounded": c.correctly_rounded,
        "not_correctly_rounded": c.not_correctly_rounded,
        "correctly_rounded_undecided": c.cr_undecided,
        "certified_by_arb": c.arb_decisions,
        "over_rounding_budget": c.over_budget, "max_budget_ratio": c.max_budget_ratio,
        "budget_vacuous_entries": c.vacuous,
        "recipes": {k: {"bit_identical_entries": c.recipe_equal[k],
                        "rows_compared": c.recipe_rows,
                        "recipe_max_ulp_vs_exact": c.recipe_max_ulp[k]} for k in c.recipe_equal},
        "worst": c.worst,
    }


def envelope(rep) -> dict:
    from peproof import __version__

    spec = rep.spec
    checks = []
    if spec is not None:
        checks.append({"id": "spec_exact", "status": "pass" if spec.faithful else "fail",
                       "criterion": "every entry within 1 ulp of the exact value",
                       **comparison_json(spec)})
        checks.append({
            "id": "pipeline_faithful", "status": "pass" if spec.within_budget else "fail",
            "criterion": f"every entry within the rounding budget of a computation in "
                         f"{rep.pipe.name}", "dtype": rep.pipe.name,
            "over_budget": spec.over_budget, "max_budget_ratio": spec.max_budget_ratio,
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
                   else "warn", **col})
    checks.append({"id": "horizon", "status": "info", **rep.horizon})
    summary = {"rows": rep.n, "d": rep.d, "entries": rep.n * rep.d}
    if spec is not None:
        summary.update({
            "max_ulp": spec.max_ulp, "max_abs": spec.max_abs,
            "not_within_1_ulp": spec.not_faithful,
            "correctly_rounded_fraction": spec.correctly_rounded / spec.entries,
            "over_rounding_budget": spec.over_budget})
    summary["identical_row_groups"] = col.get("identical_row_groups", 0)
    arb = sum(c.arb_decisions for c in (rep.spec, rep.other) if c is not None)
    return _clean({
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
        "identified": ident.to_json(),
        "verdict": {"text": rep.headline, "code": rep.code, "exit_code": rep.exit_code,
                    "reasons": rep.reasons},
        "summary": summary, "checks": checks, "seconds": rep.seconds,
    })


def _clean(obj):
    """Plain JSON: NumPy scalars to Python, non-finite floats (an ulp error of an exact zero
    overflows) to ``None``, so ``json.dumps`` output is standard JSON."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


def _g(x: float, k: int = 3) -> str:
    return f"{x:.{k}g}"


def render(rep, worst: int = 5) -> str:
    src = rep.source.get("path") or rep.source.get("callable") or "table"
    dt = rep.dtype.name + ("" if rep.dtype == rep.stored else f" (stored as {rep.stored.name})")
    L = [f"peproof check: {src} ({rep.n} x {rep.d}, {dt})"]
    ident = rep.identified
    L.append(f"identified : {ident.name}")
    if ident.variant is not None:
        L.append(f"             residual {_g(ident.residual_ulp)} ulp ({_g(ident.residual_abs)} "
                 f"abs), {_g(ident.budget_ratio)} x the rounding budget, over "
                 f"{ident.rows_examined} rows")
    for e in ident.equivalent[:2]:
        L.append(f"             (the same table as: {e})")
    for note in ident.notes[:2]:
        L.append(f"             note: {note}")
    L.append("expected   : " + (rep.expected.name(rep.d) if rep.expected else
                                "any (the identified variant)"))
    L.append(f"verdict    : {rep.headline.upper() if rep.ok else rep.headline}")
    for r in rep.reasons:
        L.append(f"             {r}")
    for label, c in (("against the expected variant", rep.spec),
                     ("against the identified variant", rep.other)):
        if c is None:
            continue
        L.append("")
        L.append(f"{label}: {c.variant.name(c.d)}")
        L.append(f"  spec-exact, ulps of {c.stored.name}: median <= {_g(c.quantile(0.5))}, "
                 f"99% <= {_g(c.quantile(0.99))}, max {_g(c.max_ulp, 6)}; absolute: "
                 f"99% <= {_g(c.quantile(0.99, 'abs'))}, max {_g(c.max_abs)}")
        cr = c.correctly_rounded / c.entries if c.entries else 0.0
        if c.stored.is_binary and c.stored.p > 40:
            L.append(f"  (ulp errors of {c.stored.name} are read off a float64 reference good to "
                     "a few ulps; the within-1-ulp and rounding counts are certified by arb)")
        L.append(f"  within 1 ulp: {c.entries - c.not_faithful - c.undecided}/{c.entries}"
                 f"; correctly rounded: {100 * cr:.3f}%"
                 + (f" ({c.cr_undecided} undecided)" if c.cr_undecided else "")
                 + f"; certified by arb: {c.arb_decisions}")
        L.append(f"  pipeline-faithful ({c.pipe.name}): {c.over_budget} entries over the "
                 f"rounding budget (max {_g(c.max_budget_ratio)} x the budget)"
                 + "".join(f"; {k} recipe bit-identical on "
                           f"{100 * v / max(1, c.recipe_rows * c.d):.1f}%"
                           for k, v in c.recipe_equal.items()))
        if c.worst and not (c.faithful and c is rep.spec and rep.verdict == "conforms"):
            L.append("  worst positions:")
            L.append("    position  channel        table                exact     abs err"
                     "        ulps  x budget")
            for w in c.worst[:worst]:
                br = w["budget_ratio"]
                L.append(f"    {w['position']!s:>8}  {w['channel']:>4} {w['component']:>3}"
                         f"  {w['table']:>+.9e}  {w['exact']:>+.12e}  {w['abs_error']:.3e}"
                         f"  {w['ulp_error']:>10.4g}  {'-' if br is None else _g(br):>8}")
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
    return "\n".join(L)
