"""Per-claim LaTeX pieces computed next to the proofs (in the family's pool job).

* the statement (:func:`.formulas.render_statement`), every printed side read back and checked;
* for identities decided by the exponential procedure, the steps of that procedure for the
  first conclusion as aligned equations: the difference of the two sides (after lifting a sum
  to its one-frequency lemma), the exponential atoms, the Laurent polynomial and its expansion.
  These steps are recomputed here with the engine's own functions
  (:func:`peproof.engines.decide.lift`, :func:`peproof.engines.expoly.reduce_to_laurent`); the
  verdict printed beside them is the run's, and a recomputation that disagrees with the run's
  trace is flagged in the document.
"""

from __future__ import annotations

import re
from functools import cache

import sympy as sp

from .formulas import (
    BUDGET,
    Printed,
    _pack,
    _terms,
    check_text,
    functions_for,
    latex,
    legend,
    render_statement,
    width,
)
from .parse import ParseError, symbol_table

WITNESS_SEARCH = 400  # conclusions searched for the one a witness refutes
STEP_ROWS = 10  # rows one step of the procedure may take before only its size is given
COMPACT_GROUPS = 2  # forms of conclusion shown in the compact document
COMPACT_ROWS = 9  # rows of a statement in the compact document


def value_tex(v: str, is_name: bool = False) -> str:
    """A witness coordinate as LaTeX: a variable's name, or a value written by SymPy
    (``7/3``, ``1 + 2*pi``; a trailing ``(ball ...)`` comment is dropped)."""
    if is_name:
        return _name_tex(str(v))
    s = re.sub(r"\s*\(ball .*\)\s*$", "", str(v))
    out = _value_latex(s)
    if out is None:
        from .latex import tex  # (not cached: it records characters without a LaTeX form)

        return r"\text{" + tex(s) + "}"
    return out


@cache
def _name_tex(name: str) -> str:
    return latex(sp.Symbol(name))


@cache
def _value_latex(s: str) -> str | None:
    """SymPy's reading of ``s`` printed (the same witness values recur across falsifiers and
    documents: each is parsed once per process), None if SymPy cannot read it."""
    try:
        return latex(sp.sympify(s, rational=True))
    except (sp.SympifyError, SyntaxError, TypeError, ValueError):
        return None


_OPS = (" == ", " <= ", " != ", " < ")


def witness_relation(stmt, relation: str) -> dict | None:
    """The conclusion a witness refutes, typeset: found among the statement's conclusions by its
    text, printed with named sub-terms and read back (None if it is not one of them)."""
    from .formulas import OP_TEX, render_expr_check

    for n, rel in enumerate(stmt.concl[:WITNESS_SEARCH]):
        if str(rel) != relation:
            continue
        ltex, lchk = render_expr_check(rel.lhs, {v.symbol: v.domain for v in stmt.vars})
        rtex, rchk = render_expr_check(rel.rhs, {v.symbol: v.domain for v in stmt.vars})
        text = f"{ltex} {OP_TEX[rel.op]} {rtex}"
        if width(text) > 3 * BUDGET:
            return {"relation": None, "conclusion": n + 1, "checks": []}
        return {"relation": text, "conclusion": n + 1, "legend": legend(rel.lhs, rel.rhs),
                "checks": [{"text": c.text, "status": c.status, "detail": c.detail}
                           for c in (lchk, rchk)]}
    return None


def render_claim(claim, witness: dict | None = None) -> dict:
    """The claim's printed statement (full, and compact when shorter), the steps of the
    exponential procedure and, given the verdict's ``witness``, the refuted conclusion."""
    st = claim.statement
    if st is None:
        return {"statement": None, "compact": None, "steps": None, "witness": None}
    full = render_statement(st)
    out = {"statement": full.as_dict(), "compact": None, "steps": None, "witness": None,
           "legend": legend(*(x for r in (*st.hyps, *st.concl) for x in (r.lhs, r.rhs)))}
    if witness and witness.get("relation"):
        out["witness"] = witness_relation(st, witness["relation"])
    if full.groups > COMPACT_GROUPS or len(full.rows) > COMPACT_ROWS:
        out["compact"] = full.first_forms(COMPACT_GROUPS, COMPACT_ROWS)
    if claim.proof is None and st.quant == "forall":
        eqs = [r for r in st.concl if r.op == "=="]
        if eqs:
            try:
                out["steps"] = exp_steps(eqs[0], {v.symbol: v.domain for v in st.vars})
            except (ParseError, TypeError, ValueError, RecursionError) as exc:
                out["steps"] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return out


def _rows(e, lead: float) -> tuple[list[str], str] | None:
    pieces = _terms(e)
    text = " ".join(pieces)
    if lead + width(text) <= BUDGET:
        return [text], text
    if any(width(p) > BUDGET * 1.15 for p in pieces):
        return None
    rows = _pack(pieces, lead)
    return (rows, " ".join(rows)) if len(rows) <= STEP_ROWS else None


def exp_steps(rel, domains: dict) -> dict:
    """The exponential procedure on ``lhs - rhs`` of one relation, as printable steps."""
    from peproof.engines.decide import lift
    from peproof.engines.expoly import reduce_to_laurent

    diff = rel.lhs - rel.rhs
    lifted_note = None
    if diff.has(sp.Sum):
        lifted = lift(diff)
        if lifted is None:
            return {"error": "sum not in liftable form"}
        diff, trace = lifted
        lifted_note = trace[1] if len(trace) > 1 else None
    if diff == 0:
        return {"steps": [{"label": "difference", "rows": ["0"], "terms": 0}], "atoms": [],
                "zero": True, "lifted": lifted_note, "identical_sides": True, "checks": []}
    lp, atoms = reduce_to_laurent(diff)
    expanded = sp.expand(lp)
    zsyms = sorted(lp.free_symbols - diff.free_symbols, key=lambda s: s.name)
    doms = dict(domains)
    p = Printed()
    steps = []
    for label, e in (("difference", diff), ("laurent", lp), ("expanded", expanded)):
        r = _rows(e, 16.0)
        if r is None:
            n = len(sp.Add.make_args(sp.expand(e) if label != "difference" else e))
            steps.append({"label": label, "rows": None, "terms": n})
            continue
        symbols = symbol_table(e, *zsyms)
        chk = check_text(r[1], e, symbols, doms, functions_for(e))
        p.checks.append(chk)
        steps.append({"label": label, "rows": r[0], "terms": len(sp.Add.make_args(e))})
    atom_rows = []
    for name, (m, den) in atoms.items():
        z = sp.Symbol(name, nonzero=True)
        arg = sp.I * m / den
        rhs = sp.exp(arg, evaluate=False)
        text = latex(rhs)
        atom_rows.append(f"{latex(z)} = {text}")
        p.checks.append(check_text(text, sp.exp(arg), symbol_table(arg), doms,
                                   functions_for(arg)))
    return {"steps": steps, "atoms": atom_rows, "zero": expanded == 0,
            "lifted": lifted_note,
            "checks": [{"text": c.text, "status": c.status, "detail": c.detail}
                       for c in p.checks]}
