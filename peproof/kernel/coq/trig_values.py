"""Statements without variables whose sin/cos are at rational multiples of pi (the concrete
real DFS bases): :func:`closed_values`, one tactic expression (nothing here changes the
library), hooked into :mod:`peproof.kernel.coq.tactics` after the closed class's own closers.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.translate import Untranslatable

# ------------------------------------------------------ sin/cos at rational multiples of pi
#: the standard library's values: angles PI/2, PI (and their sum), PI/6, PI/4, PI/3
VALUES = ("rewrite ?sin_PI2, ?cos_PI2, ?sin_PI, ?cos_PI, ?sin_PI6, ?cos_PI6, ?sin_PI4, "
          "?cos_PI4, ?sin_PI3, ?cos_PI3, ?sin_0, ?cos_0")
_HALF = {0: [], 1: ["PI / 2"], 2: ["PI"], 3: ["PI", "PI / 2"]}
_REST = {sp.Integer(0): [], sp.Rational(1, 6): ["PI / 6"], sp.Rational(1, 4): ["PI / 4"],
         sp.Rational(1, 3): ["PI / 3"]}


def _reduce(q) -> tuple[str, int] | None:
    """``q pi`` as ``B + 2 pi j`` with ``B`` a sum of the angles of :data:`VALUES`: (B, j)."""
    j = sp.floor(q / 2)
    r = q - 2 * j
    h = sp.floor(2 * r)
    rest = r - h / 2
    if rest not in _REST:
        return None
    parts = _HALF[int(h)] + _REST[rest]
    return (" + ".join(parts) if parts else "0"), int(j)


def closed_values(st, goal) -> str | None:
    """A statement without variables whose sin/cos are at rational multiples of pi with
    denominators 1, 2, 3, 4, 6 (the concrete DFT bases): every angle reduced by
    ``sin_period``/``cos_period`` (its equation by ``field``) to a sum of PI/2, PI and
    PI/6, PI/4 or PI/3, the addition formulas, the standard library's values, then each
    conjunct by ``lia``/``lra`` or ``field`` with ``sqrt 2 ^ 2 = 2``, ``sqrt 3 ^ 2 = 3``."""
    if goal.binders or st.hyps:
        return None
    nodes = {t for r in st.concl for e in (r.lhs, r.rhs) for t in sp.preorder_traversal(e)
             if isinstance(t, sp.sin | sp.cos)}
    # only where the library's closers lack the values: a third, quarter or sixth of pi
    if not any(sp.nsimplify(t.args[0] / sp.pi).is_Rational
               and sp.nsimplify(t.args[0] / sp.pi).q in (3, 4, 6) for t in nodes):
        return None
    steps = ["assert (pe_r2 : sqrt 2 * sqrt 2 = 2) by (apply sqrt_sqrt; lra)",
             "assert (pe_r3 : sqrt 3 * sqrt 3 = 3) by (apply sqrt_sqrt; lra)",
             "assert (0 < sqrt 2) by (apply sqrt_lt_R0; lra)",
             "assert (pe_h2 : 1 / sqrt 2 = sqrt 2 / 2) by (field_simplify_eq; lra)"]
    names = []
    for k, t in enumerate(sorted(nodes, key=sp.srepr)):
        q = sp.nsimplify(t.args[0] / sp.pi)
        red = _reduce(q) if q.is_Rational else None
        if red is None:
            return None
        base, j = red
        head = "sin" if isinstance(t, sp.sin) else "cos"
        try:
            a, v = goal.printer.term(t.args[0]), goal.printer.term(t)
            val = goal.printer.term(sp.nsimplify(t))  # SymPy's exact value: Coq proves it
        except Untranslatable:
            return None
        period = (f"rewrite ({head}_period ({a}) ({base}) ({j})%Z) by (simpl; field); "
                  if a.replace("(", "").replace(")", "") != base or j else "")
        steps.append(f"assert (pe_v{k} : {v} = {val}) by ({period}repeat first [rewrite "
                     f"sin_plus | rewrite cos_plus]; {VALUES}; rewrite ?pe_h2; "
                     "first [ reflexivity | solve [lra] | solve [field] | solve [nra] ])")
        names.append(f"?pe_v{k}")
    # each conjunct rewritten alone: rewriting the whole conjunction took seconds
    steps += ["pe_split", f"rewrite {', '.join(names)}",
              "first [ reflexivity | solve [lia] | solve [lra] | solve [nra] ]"]
    # no inner timeout: the last alternative, under the job's own (24 s for the DFS bases)
    return f"solve [{'; '.join(steps)}]"


# ------------------------------------------------- two points told apart by one frequency
def separation_pair(st, r, goal) -> str | None:
    """``0 < sum of squares`` among which ``(sin(c x) - sin(c y))^2`` and ``(cos(c x) -
    cos(c y))^2`` for one ``c = m pi``: that pair is ``2 - 2 cos(c x - c y)`` (``cos_minus``,
    ``sin2_cos2``), below 2 when ``0 < |c (x - y)| / 2 < PI`` (``cos_2a_sin``, ``sin_gt_0``,
    the bounds by ``nra`` from the hypotheses and ``x <> y``), every other square is
    ``>= 0`` (``pow2_ge_0``); ``lra``.  The smallest such ``c`` is tried (NeRF's ``pi``)."""
    if r.op != "<" or r.lhs != 0:
        return None
    terms = sp.Add.make_args(r.rhs)
    if not all(isinstance(t, sp.Pow) and t.exp == 2 for t in terms):
        return None
    pairs: dict = {}
    for t in terms:
        b = t.base
        parts = sp.Add.make_args(b)
        if len(parts) != 2:
            continue
        pos = [u for u in parts if isinstance(u, sp.sin | sp.cos)]
        neg = [-u for u in parts if isinstance(-u, sp.sin | sp.cos)]
        if len(pos) != 1 or len(neg) != 1 or type(pos[0]) is not type(neg[0]):
            continue
        ax, ay = pos[0].args[0], neg[0].args[0]
        if not (ax.free_symbols and len(ax.free_symbols) == 1 and len(ay.free_symbols) == 1):
            continue
        vx, vy = next(iter(ax.free_symbols)), next(iter(ay.free_symbols))
        if sp.simplify(ax / vx - ay / vy) != 0:
            continue
        coef = sp.simplify(ax / vx)
        pairs.setdefault((coef, vx, vy), {})[type(pos[0])] = t
    both = [(k, v) for k, v in pairs.items() if len(v) == 2 and (k[0] / sp.pi).is_positive]
    if not both:
        return None
    (coef, vx, vy), _ = min(both, key=lambda kv: kv[0][0])
    pr = goal.printer
    try:
        ax, ay = pr.term(coef * vx), pr.term(coef * vy)
        squares = [pr.term(t.base) for t in terms]
    except Untranslatable:
        return None
    sx, sy = f"sin ({ax})", f"sin ({ay})"
    cx, cy = f"cos ({ax})", f"cos ({ay})"
    half = ("assert (0 < sin (({a} - {b}) / 2)) by (apply sin_gt_0; nra); nra")
    key = (f"assert (pe_key : 0 < ({sx} - {sy}) ^ 2 + ({cx} - {cy}) ^ 2) by ("
           f"assert (pe_e : ({sx} - {sy}) ^ 2 + ({cx} - {cy}) ^ 2 = 2 - 2 * cos ({ax} - {ay})) "
           f"by (rewrite cos_minus; pose proof (sin2_cos2 ({ax})); pose proof (sin2_cos2 ({ay})); "
           "unfold Rsqr in *; lra); rewrite pe_e; "
           f"assert (cos ({ax} - {ay}) < 1) by (pose proof PI_RGT_0; destruct (Rtotal_order "
           f"{pr.term(vx)} {pr.term(vy)}) as [pe_lt | [pe_eq | pe_gt]]; [ | contradiction | ]; "
           f"[ replace ({ax} - {ay}) with (- (2 * (({ay} - {ax}) / 2))) by field; "
           f"rewrite cos_neg, cos_2a_sin; {half.format(a=ay, b=ax)} "
           f"| replace ({ax} - {ay}) with (2 * (({ax} - {ay}) / 2)) by field; "
           f"rewrite cos_2a_sin; {half.format(a=ax, b=ay)} ]); lra)")
    steps = ["intros", key] + [f"pose proof (pow2_ge_0 ({s}))" for s in squares] + ["lra"]
    return f"solve [{'; '.join(steps)}]"
