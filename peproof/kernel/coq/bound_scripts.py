"""Scripts for error bounds: ``|L| <= R`` under rounding hypotheses, and the chord bound of sin/cos.

The error model's claims (``peproof/families/error_model*.py``) bound a rounded expression's
error ``|L|`` by ``R`` under hypotheses ``|delta| <= u``.  ``lra``/``nra`` alone do not close them:
the certificate needs products of two hypotheses' slacks (``(u - delta_1) (u + delta_2) >= 0``)
that ``nra`` does not form among many hypotheses, and a quotient ``|A/B - 1|`` is no polynomial.
:func:`alternatives` offers, for one conclusion, alternatives tried before the general closer
(each under ``timeout``; whatever they do, only a proof Coq's kernel accepts counts):

* ``chain`` -- ``L = +-(A/B - 1)`` with ``A``, ``B`` products of factors ``1 + delta``
  (:func:`_chain_script`): ``prod (1 - a) <= A <= prod (1 + a)`` by monotonicity, ``A`` and ``B``
  made opaque, then ``|A - B| <= R B`` by ``nra`` (three roundings: degree 3 in the errors);
* ``box`` -- every hypothesis ``|t| <= a`` (and every ``Abs(t)`` of the right-hand side, with
  ``-|t| <= t <= |t|``) is a box ``-a <= t <= a``; the products of the slacks of every two boxes
  are asserted (each by ``Rmult_le_pos``), a quotient ``L = N / D`` is reduced to
  ``|N| <= R D`` (``0 < D`` by ``nra``; the lemma is proved inline), then ``Rabs_le`` and ``nra``;
  only pairs a monomial joins (:func:`_pairs`), and only for ``L`` of degree 2 in the boxes;
* ``box-square`` -- the same with ``L^2`` times each slack instead (a value between 1 and
  ``1/(1 + beta)``: ``(w - 1)^2 (b -+ beta) >= 0``);
* obligations (:func:`obligation`): ``1 + delta <> 0`` from the boxes, by ``lra``/``nra``;
* ``chord`` -- ``(f x - f y)^2 <= (x - y)^2`` or ``|f x - f y| <= |x - y|`` for ``f`` sin or
  cos: the standard library's mean value theorem (``MVT_abs`` with ``derivable_pt_lim_sin`` /
  ``derivable_pt_lim_cos``) and ``|cos c|, |sin c| <= 1``.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.translate import Printer, Untranslatable

BOX_TIMEOUT = 4  # seconds of one box alternative (Coq's [timeout]: a failure, never a hang)
MAX_BOXES = 4  # boxes beyond which the pairwise products make nra too slow (none offered)

#: |n / d| <= c from |n| <= c d and 0 < d (proved inline: the library is not edited)
DIVABS = ("assert (pe_divabs : forall n d c, 0 < d -> Rabs n <= c * d -> Rabs (n / d) <= c) "
          "by (intros pe_n pe_d pe_k pe_Hd pe_Hn; unfold Rdiv; rewrite Rabs_mult, Rabs_inv, "
          "(Rabs_pos_eq pe_d) by lra; apply (Rmult_le_reg_r pe_d); [lra|]; rewrite Rmult_assoc, "
          "Rinv_l, Rmult_1_r by lra; exact pe_Hn)")

#: a^2 <= b^2 from |a| <= |b|, then the mean value theorem for sin or cos
CHORD = (
    "assert (pe_sq : forall a b, Rabs a <= Rabs b -> a ^ 2 <= b ^ 2) by (intros pe_a pe_b pe_H; "
    "rewrite <- (pow2_abs pe_a), <- (pow2_abs pe_b); apply pow_incr; split; [apply Rabs_pos | "
    "exact pe_H]); try apply pe_sq; lazymatch goal with "
    "| |- Rabs (sin ?x - sin ?y) <= Rabs (?x - ?y) => destruct (MVT_abs sin cos y x "
    "(fun c _ => derivable_pt_lim_sin c)) as [pe_c [pe_m _]] "
    "| |- Rabs (cos ?x - cos ?y) <= Rabs (?x - ?y) => destruct (MVT_abs cos (fun t => - sin t) "
    "y x (fun c _ => derivable_pt_lim_cos c)) as [pe_c [pe_m _]]; rewrite Rabs_Ropp in pe_m "
    "end; rewrite pe_m; match goal with |- _ <= Rabs ?d => pose proof (Rabs_pos d) end; "
    "pose proof (COS_bound pe_c); pose proof (SIN_bound pe_c); "
    "assert (Rabs (cos pe_c) <= 1 /\\ Rabs (sin pe_c) <= 1) as [? ?] by "
    "(split; apply Rabs_le; lra); pose proof (Rabs_pos (cos pe_c)); "
    "pose proof (Rabs_pos (sin pe_c)); nra")


def _trig_diff(e) -> bool:
    """``f(x) - f(y)`` for ``f`` sin or cos (either order of the terms)."""
    terms = sp.Add.make_args(e)
    if len(terms) != 2:
        return False
    heads = []
    for t in terms:
        c, rest = t.as_coeff_Mul()
        if abs(c) != 1 or not isinstance(rest, sp.sin | sp.cos):
            return False
        heads.append((c, type(rest)))
    return heads[0][1] is heads[1][1] and heads[0][0] == -heads[1][0]


def _is_chord(r) -> bool:
    lhs, rhs = r.lhs, r.rhs
    if isinstance(lhs, sp.Pow) and lhs.exp == 2 and isinstance(rhs, sp.Pow) and rhs.exp == 2:
        return _trig_diff(lhs.base)
    return isinstance(lhs, sp.Abs) and isinstance(rhs, sp.Abs) and _trig_diff(lhs.args[0])


def _boxes(st, r) -> list[tuple[sp.Expr, sp.Expr]]:
    """``(t, a)`` for every hypothesis ``|t| <= a``, then ``(t, |t|)`` for the ``Abs(t)`` of the
    conclusion's right-hand side."""
    out = [(h.lhs.args[0], h.rhs) for h in st.hyps
           if h.op == "<=" and isinstance(h.lhs, sp.Abs)]
    for n in sp.preorder_traversal(r.rhs):
        if isinstance(n, sp.Abs) and (n.args[0], n) not in out:
            out.append((n.args[0], n))
    return out


def _box_degree(boxes, r) -> int:
    """The largest degree of a monomial of ``L`` (numerator or denominator) in the boxes'
    symbols: products of two slacks are certificates of degree 2; a product of three roundings
    (degree 3) would only burn the job's time in ``nra``."""
    syms = set().union(*(t.free_symbols for t, _ in boxes))
    num, den = sp.fraction(sp.together(r.lhs.args[0]))
    return max((sp.Poly(m, *syms).total_degree() if syms else 0)
               for part in (num, den) for m in sp.Add.make_args(sp.expand(part)))


def _pairs(boxes, r) -> list[tuple[int, int]]:
    """The boxes ``i < j`` whose product can matter: a monomial of either side (expanded)
    mentions a symbol of box ``i`` and one of box ``j`` (fewer hints: ``nra`` is quadratic in
    the hypotheses)."""
    syms = [t.free_symbols | a.free_symbols for t, a in boxes]
    monos = [m.free_symbols for side in (r.lhs.args[0], r.rhs)
             for m in sp.Add.make_args(sp.expand(side))]
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if any(m & syms[i] and m & syms[j] for m in monos)]


def _box_script(st, r, pr: Printer, square: bool) -> str:
    boxes = _boxes(st, r)
    steps = [DIVABS]
    for t, a in boxes:
        if isinstance(a, sp.Abs):
            ts = pr.term(t)
            steps += [f"pose proof (Rle_abs ({ts}))",
                      f"assert (- ({ts}) <= Rabs ({ts})) by (rewrite <- Rabs_Ropp; "
                      "apply Rle_abs)", f"pose proof (Rabs_pos ({ts}))"]
    steps.append("pe_abs_hyps")
    slacks = [[f"({pr.term(a)} - ({pr.term(t)}))", f"({pr.term(a)} + ({pr.term(t)}))"]
              for t, a in boxes]
    if square:
        lt = pr.term(r.lhs.args[0])
        steps.append(f"assert (0 <= ({lt}) * ({lt})) by exact (Rle_0_sqr ({lt}))")
        steps += [f"assert (0 <= ({lt}) * ({lt}) * {s}) by (apply Rmult_le_pos; "
                  f"[exact (Rle_0_sqr ({lt})) | lra])" for pair in slacks for s in pair]
    else:
        pairs = _pairs(boxes, r)
        steps += [f"assert (0 <= {s1} * {s2}) by (apply Rmult_le_pos; lra)"
                  for i, j in pairs for s1 in slacks[i] for s2 in slacks[j]]
    num, den = sp.fraction(sp.together(r.lhs.args[0]))
    if not den.is_number:
        steps.append(f"match goal with |- Rabs ?t <= _ => replace t with (({pr.term(num)}) / "
                     f"({pr.term(den)})) by (field; repeat split; lra) end")
        steps.append("apply pe_divabs; [nra |]")
    # the square's hints need the sign of L: its two cases (Rabs unfolded), else Rabs_le
    steps.append("pe_abs_cases; nra" if square else "apply Rabs_le; split; nra")
    return f"timeout {BOX_TIMEOUT} (solve [{'; '.join(steps)}])"


#: 0 <= a <= b and 0 <= c <= d give 0 <= a c <= b d (proved inline)
MONO = ("assert (pe_mono : forall a b c d, 0 <= a <= b -> 0 <= c <= d -> 0 <= a * c <= b * d) "
        "by (intros pe_a pe_b pe_c pe_d [? ?] [? ?]; split; [apply Rmult_le_pos; lra | "
        "apply Rmult_le_compat; lra])")


def _chain(st, r):
    """``L = +-(A/B - 1)`` with ``A``, ``B`` products of factors ``1 + delta`` (each ``delta``
    a variable bounded by a hypothesis ``|delta| <= a``): ``(A, B, bounds)``, else None."""
    bound = {h.lhs.args[0]: h.rhs for h in st.hyps
             if h.op == "<=" and isinstance(h.lhs, sp.Abs) and h.lhs.args[0].is_Symbol}
    L = r.lhs.args[0]
    for q in (L + 1, 1 - L):
        a, b = sp.fraction(sp.together(q))
        fa, fb = sp.Mul.make_args(a), sp.Mul.make_args(b)
        if any((f - 1) not in bound for f in fa if f != 1) or any(
                (f - 1) not in bound for f in fb if f != 1):
            continue
        if len(fa) + len(fb) - (a == 1) - (b == 1) >= 2:
            return a, b, bound
    return None


def _chain_script(st, r, pr: Printer) -> str | None:
    """Product and quotient chains of roundings: ``prod (1 - a_i) <= A <= prod (1 + a_i)`` by
    monotonicity (``pe_mono``), ``A`` and ``B`` made opaque (``set``, ``clearbody``), then
    ``|A - B| <= R B`` by ``nra`` in ``A``, ``B`` and the bounds alone (a product of three
    roundings is degree 3 in the errors, out of reach of the box hints)."""
    found = _chain(st, r)
    if found is None:
        return None
    a, b, bound = found
    steps = [DIVABS, MONO, "pe_abs_hyps"]
    names = ["1", "1"]
    for k, part in enumerate((a, b)):
        if part == 1:
            continue
        fs = sp.Mul.make_args(part)
        lo = " * ".join(f"(1 - {pr.term(bound[f - 1])})" for f in fs)
        hi = " * ".join(f"(1 + {pr.term(bound[f - 1])})" for f in fs)
        pt = pr.term(part)
        name = f"pe_A{k}"
        steps += [f"assert (0 < {lo}) by (repeat apply Rmult_lt_0_compat; lra)",
                  f"assert (0 <= {lo} <= {pt}) by (repeat apply pe_mono; lra)",
                  f"assert (0 <= {pt} <= {hi}) by (repeat apply pe_mono; lra)",
                  f"set ({name} := {pt}) in *", f"clearbody {name}"]
        names[k] = name
    if b != 1:
        na, nb = names
        steps += [f"match goal with |- Rabs ?t <= _ => first [ replace t with (({na} - {nb}) "
                  f"/ {nb}) by (field; pe_lra_nra) | replace t with (({nb} - {na}) / {nb}) by "
                  "(field; pe_lra_nra) ] end", "apply pe_divabs; [lra |]"]
    steps.append("apply Rabs_le; split; nra")
    return f"timeout {BOX_TIMEOUT} (solve [{'; '.join(steps)}])"


def obligation(st, tac: str) -> str:
    """A definedness obligation's tactic ``tac``, and after it, under hypotheses ``|t| <= a``,
    the same split into ``-a <= t <= a`` (``1 + delta <> 0`` from ``|delta| <= u <= 1/256``)."""
    if not any(h.op == "<=" and isinstance(h.lhs, sp.Abs) for h in st.hyps):
        return tac
    return f"first [ {tac} | solve [pe_abs_hyps; pe_lra_nra] ]"


def alternatives(st, r, goal) -> list[str]:
    """Alternatives for conclusion ``r`` of ``st`` (printed by ``goal``'s names), to be tried
    before the general closer; empty when no shape here fits."""
    if r.op != "<=":
        return []
    if _is_chord(r):
        return [f"timeout {BOX_TIMEOUT} (solve [{CHORD}])"]
    if not isinstance(r.lhs, sp.Abs) or not st.hyps:
        return []
    pr = Printer(goal.names, goal.printer.zvars, set(goal.names.values()))
    try:
        chain = _chain_script(st, r, pr)
        out = [chain] if chain is not None else []
        boxes = _boxes(st, r)
        if not boxes or len(boxes) > MAX_BOXES or _box_degree(boxes, r) > 2:
            return out
        return out + [_box_script(st, r, pr, square=False), _box_script(st, r, pr, square=True)]
    except Untranslatable:
        return []
