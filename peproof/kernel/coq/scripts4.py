"""Proof-script shapes for error bounds the box scripts of :mod:`bound_scripts` do not close
(one tactic expression each; nothing here changes the library).

* ``triangle`` -- ``|L| <= R`` under hypotheses ``|t| <= a`` (the rounding errors of the error
  model, ``|g - h| <= G``): every ``t`` is an atom (a ``t`` that is not a variable is a new
  symbol standing for it, one of its variables solved for), ``L`` is written as a sum of
  terms ``c * m`` (``m`` a product of atoms, ``c`` free of them; ``replace ... by ring``), each
  term is bounded by ``|c| * prod a`` (``|c|`` is ``c`` or ``-c``: SymPy's guess from sample
  points, which Coq must confirm by ``lra``/``nra``), the triangle inequality (``Rabs_triang``)
  joins the bounds, and ``sum |c| prod a <= R`` is left to ``lra`` with products of the
  hypotheses' slacks (``b - a >= 0`` for ``a <= b``) as facts: the products of one slack per
  variable occurrence of each monomial of ``R - sum |c| prod a`` (a Handelman certificate
  when one of this shape exists).  Coq's kernel checks every step: a wrong guess fails.
* ``sum_le`` -- ``c1 Sum(1 - cos x_i) <= c2 Sum(g_i)`` over one range, term by term
  (``zsum`` monotone, proved inline; ``2 (1 - cos x) <= x^2`` by the mean value theorem);
* ``sum_odd`` -- ``Sum(F(n), (n, 0, U)) = 0`` for ``F`` odd under ``n -> 1 + U - n`` with
  ``F(0) = 0`` (the reflection of a ``zsum``, proved inline; ``sin_period_neg``,
  ``cos_period_neg``).
"""

from __future__ import annotations

import itertools
import random

import sympy as sp

from peproof.kernel.coq.translate import Printer, Untranslatable

TRI_TIMEOUT = 8  # seconds of the triangle script (Coq's [timeout]: a failure, never a hang)
MAX_TERMS = 12  # terms of L beyond which the script is not offered
MAX_PRODUCTS = 160  # slack products beyond which the final lra is not offered

#: |c m| <= a b from |c| <= a and |m| <= b (proved inline: the library is not edited)
TERM = ("assert (pe_term : forall c m a b, Rabs c <= a -> Rabs m <= b -> Rabs (c * m) <= a * b) "
        "by (intros pe_c pe_m pe_a pe_b pe_Hc pe_Hm; rewrite Rabs_mult; apply Rmult_le_compat; "
        "[apply Rabs_pos | apply Rabs_pos | exact pe_Hc | exact pe_Hm])")


def _boxes(st) -> list[tuple[sp.Expr, sp.Expr]]:
    return [(h.lhs.args[0], h.rhs) for h in st.hyps
            if h.op == "<=" and isinstance(h.lhs, sp.Abs)]


def _slacks(st, boxes) -> list[sp.Expr]:
    """``b - a`` for every hypothesis ``a <= b`` / ``a < b`` (and ``>=``, ``>``), ``x`` for a
    positive variable, ``a -+ t`` for every box: facts ``0 <= f`` in the context once the boxes
    are split (``pe_abs_hyps``)."""
    out: list[sp.Expr] = []
    for v in st.vars:
        if v.domain in ("pos_real", "nonneg_real"):
            out.append(v.symbol)
    for h in st.hyps:
        if isinstance(h.lhs, sp.Abs):
            continue
        if h.op in ("<=", "<"):
            out.append(sp.expand(h.rhs - h.lhs))
        elif h.op in (">=", ">"):
            out.append(sp.expand(h.lhs - h.rhs))
    for t, a in boxes:
        out += [sp.expand(a - t), sp.expand(a + t)]
    atoms = {t for t, _ in boxes if t.is_Symbol}
    seen, facts, lower, upper = set(), [], {}, {}
    for f in out:
        if f.is_number or not f.is_polynomial() or f in seen or f.free_symbols & atoms:
            continue
        seen.add(f)
        x = next(iter(f.free_symbols)) if len(f.free_symbols) == 1 else None
        if x is not None and sp.degree(f, x) == 1 and abs(f.coeff(x)) == 1:
            c = -(f - f.coeff(x) * x)  # x >= c, or -x >= -c
            if f.coeff(x) == 1 and (x not in lower or c > lower[x][0]):
                lower[x] = (c, f)
            if f.coeff(x) == -1 and (x not in upper or -c < upper[x][0]):
                upper[x] = (-c, f)
            continue
        facts.append(f)
    # one-variable bounds: only the strongest of each side (``s - 1`` makes ``s`` redundant)
    return [f for _, f in lower.values()] + [f for _, f in upper.values()] + facts


def _atoms(boxes, L):
    """Each box's term as an atom symbol, and ``L`` rewritten in them; None when a term is
    neither a variable nor linear with a variable of coefficient +-1 that no other box uses."""
    subs, atoms = {}, []
    for k, (t, _) in enumerate(boxes):
        if t.is_Symbol:
            atoms.append((t, t))
            continue
        u = sp.Dummy(f"u{k}")
        others = set().union(*(s.free_symbols for j, (s, _) in enumerate(boxes) if j != k))
        for x in sorted(t.free_symbols, key=str):
            c = sp.expand(t).coeff(x)
            if x in others or abs(c) != 1 or sp.expand(t - c * x).has(x):
                continue
            subs[x] = sp.expand((u - (t - c * x)) / c)
            break
        else:
            return None
        atoms.append((u, t))
    return atoms, sp.expand(L.subs(subs))


def _sample_points(st, n=40, seed=7):
    """Points that satisfy the statement's hypotheses other than the boxes (rejection
    sampling): the coefficients' signs are guessed there; Coq confirms each guess."""
    rnd = random.Random(seed)
    lo, hi = {}, {}
    for v in st.vars:
        lo[v.symbol] = 0 if "pos" in v.domain or "nonneg" in v.domain else -3
    rels = [h for h in st.hyps if not isinstance(h.lhs, sp.Abs) and h.op in ("<=", "<")]
    for h in rels:
        if h.lhs.is_Symbol and h.rhs.is_number:
            hi[h.lhs] = float(h.rhs)
        if h.rhs.is_Symbol and h.lhs.is_number:
            lo[h.rhs] = max(lo.get(h.rhs, float(h.lhs)), float(h.lhs))
    pts = []
    for _ in range(n * 50):
        p = {}
        for v in st.vars:
            a = float(lo.get(v.symbol, -3))
            b = float(hi.get(v.symbol, a + 3))
            p[v.symbol] = sp.Rational(rnd.uniform(a, b)).limit_denominator(1000)
        if all(bool((h.lhs - h.rhs).subs(p) <= 0) for h in rels):
            pts.append(p)
            if len(pts) >= n:
                break
    return pts


def _sign(c, pts) -> int | None:
    vals = [c.subs(p) for p in pts] if c.free_symbols else [c]
    if all(v >= 0 for v in vals):
        return 1
    if all(v <= 0 for v in vals):
        return -1
    return None


def _products(D, facts) -> list[tuple[int, ...]]:
    """Products of slacks: all those of degree 2 to ``D``'s when they are few, else one slack
    per variable occurrence of each monomial of ``D``."""
    D = sp.expand(D)
    gens = sorted(D.free_symbols, key=str)
    if not gens:
        return []
    deg = sp.Poly(D, *gens).total_degree()
    every = [c for n in range(2, deg + 1)
             for c in itertools.combinations_with_replacement(range(len(facts)), n)]
    if len(every) <= MAX_PRODUCTS:
        return every
    fv = [f.free_symbols for f in facts]
    out: set = set()
    for mon in sp.Poly(D, *gens).monoms():
        occ = [g for g, e in zip(gens, mon, strict=True) for _ in range(e)]
        choices = [[i for i, s in enumerate(fv) if g in s] for g in occ]
        if len(occ) < 2 or any(not c for c in choices):
            continue
        for pick in itertools.product(*choices):
            out.add(tuple(sorted(pick)))
            if len(out) > MAX_PRODUCTS:
                return list(out)
    return sorted(out)


def triangle(st, r, goal) -> str | None:
    """The triangle script of conclusion ``r`` (``Abs(L) <= R``), else None."""
    if r.op != "<=" or not isinstance(r.lhs, sp.Abs):
        return None
    boxes = _boxes(st)
    if not boxes:
        return None
    L, R = r.lhs.args[0], r.rhs
    found = _atoms(boxes, L)
    if found is None or not L.is_polynomial() or not R.is_polynomial():
        return None
    atoms, Lu = found
    syms = [u for u, _ in atoms]
    poly = sp.Poly(Lu, *syms)
    terms = poly.terms()
    if len(terms) > MAX_TERMS or any(c.free_symbols & set(syms) for _, c in terms):
        return None
    pts = _sample_points(st)
    if not pts:
        return None
    pr = Printer(goal.names, goal.printer.zvars, set(goal.names.values()))
    back = {u: t for u, t in atoms}
    bound = dict(boxes)
    try:
        # the boxes split first: pe_abs_hyps would take the terms' bounds apart too
        steps, texts, bounds, total = [TERM, "pe_abs_hyps"], [], [], sp.Integer(0)
        for mon, c in terms:
            c = sp.expand(c.subs({u: back[u] for u in syms if u != back[u]}))
            sg = _sign(c, pts)
            if sg is None:
                return None
            occ = [atoms[k][1] for k, e in enumerate(mon) for _ in range(e)]
            m = _nest([f"({pr.term(t)})" for t in occ])
            a = _nest([f"({pr.term(bound[t])})" for t in occ])
            sc = c if sg > 0 else -c
            term = f"({pr.term(c)}) * {m}" if occ else f"({pr.term(c)})"
            bnd = f"({pr.term(sc)}) * {a}" if occ else f"({pr.term(sc)})"
            tac = _term_tactic(len(occ))
            steps.append(f"assert (Rabs ({term}) <= {bnd}) by ({tac})")
            texts.append(f"({term})")
            bounds.append(f"({bnd})")
            prod_a = sp.Mul(*[bound[t] for t in occ])
            total += sc * prod_a
        facts = _slacks(st, boxes)
        prods = _products(R - total, facts)
        if len(prods) > MAX_PRODUCTS:
            return None
        sum_text = " + ".join(texts)
        steps.append(f"match goal with |- Rabs ?t <= _ => replace t with ({sum_text}) by ring "
                     "end")
        for k in range(len(texts), 1, -1):
            steps.append(f"pose proof (Rabs_triang ({' + '.join(texts[:k - 1])}) "
                         f"{texts[k - 1]})")
        # sum |c| prod a <= R first, in the statement's context alone (lra found no
        # certificate among the terms' hypotheses, though one exists)
        used = sorted({i for p in prods for i in p})
        hints = "".join(f"assert (0 <= {pr.term(facts[i])}) by lra; " for i in used) + "".join(
            f"assert (0 <= {' * '.join(f'({pr.term(facts[i])})' for i in p)}) "
            "by (repeat apply Rmult_le_pos; assumption); " for p in prods)
        steps.insert(1, f"assert ({' + '.join(bounds)} <= {pr.term(R)}) by "
                        f"(pe_abs_hyps; {hints}lra)")
        steps.append("lra")
    except Untranslatable:
        return None
    return f"timeout {TRI_TIMEOUT} (solve [{'; '.join(steps)}])"


def _nest(parts: list[str]) -> str:
    """``p1 * (p2 * (...))``: the shape ``pe_term`` takes apart, one factor at a time."""
    if not parts:
        return "1"
    out = parts[-1]
    for p in reversed(parts[:-1]):
        out = f"({p} * {out})"
    return out


def _term_tactic(n: int) -> str:
    """``Rabs (c * (t1 * (... tn))) <= |c| * (a1 * (... an))`` by ``pe_term`` n times."""
    coef = "apply Rabs_le; split; first [lra | nra]"
    atom = "first [assumption | apply Rabs_le; split; lra]"
    if n == 0:
        return coef
    inner = atom
    for _ in range(n - 1):
        inner = f"apply pe_term; [{atom} | {inner}]"
    return f"apply pe_term; [{coef} | {inner}]"


# ------------------------------------------------------------------ sums compared term by term
#: zsum a b f <= zsum a b g from f <= g everywhere, when the sum has b + 1 - a >= 0 terms (the
#: other case of Karr's convention is minus a sum: the order turns); proved inline
ZLE = ("assert (pe_zle : forall a b f g, (a <= b + 1)%Z -> (forall i, f i <= g i) -> "
       "zsum a b f <= zsum a b g) by (intros pe_a pe_b pe_f pe_g pe_ab pe_fg; unfold zsum; "
       "rewrite (proj2 (Z.leb_le _ _) pe_ab); induction (Z.to_nat (pe_b + 1 - pe_a)) as "
       "[|pe_n pe_IH]; simpl; [lra | apply Rplus_le_compat; [exact pe_IH | apply pe_fg]])")
#: 2 (1 - cos x) <= x^2: cos x = 1 - 2 sin^2 (x/2) and |sin y| <= |y| (the mean value theorem,
#: ``MVT_abs`` with ``derivable_pt_lim_sin``, and ``|cos c| <= 1``)
COS_SQ = ("assert (pe_cos : forall x, 2 * (1 - cos x) <= x * x) by (intro pe_x; "
          "replace pe_x with (2 * (pe_x / 2)) at 1 by field; rewrite cos_2a_sin; "
          "destruct (MVT_abs sin cos 0 (pe_x / 2) (fun c _ => derivable_pt_lim_sin c)) as "
          "[pe_c [pe_m _]]; rewrite sin_0, !Rminus_0_r in pe_m; pose proof (COS_bound pe_c); "
          "assert (Rabs (cos pe_c) <= 1) by (apply Rabs_le; lra); "
          "assert (pe_s : Rabs (sin (pe_x / 2)) <= Rabs (pe_x / 2)) by (rewrite pe_m; "
          "pose proof (Rabs_pos (pe_x / 2)); nra); apply Rsqr_le_abs_1 in pe_s; "
          "unfold Rsqr in pe_s; nra)")


def _scaled_sum(e):
    """``e`` as ``(c, Sum)`` with ``c`` free of the sum's index, else None."""
    sums = [f for f in sp.Mul.make_args(e) if isinstance(f, sp.Sum)]
    if len(sums) != 1 or len(sums[0].limits) != 1:
        return None
    return sp.Mul(*[f for f in sp.Mul.make_args(e) if f is not sums[0]]), sums[0]


def sum_le(st, r, goal) -> str | None:
    """``c1 Sum(1 - cos x_i) <= c2 Sum(g_i)`` over the same range, with ``c1 x_i^2 / 2 =
    c2 g_i`` (SymPy's guess; ``field`` confirms it) and ``g_i`` a power ``b^F`` of a literal
    base where ``x_i`` has ``b^E``, ``F = 2 E``: both sides as one sum (``zsum_scal``),
    compared term by term (:data:`ZLE`), each term by :data:`COS_SQ`."""
    if r.op != "<=":
        return None
    left, right = _scaled_sum(r.lhs), _scaled_sum(r.rhs)
    if left is None or right is None:
        return None
    (c1, s1), (c2, s2) = left, right
    (i, a, b), (j, a2, b2) = s1.limits[0], s2.limits[0]
    if a != a2 or b != b2 or not c1.is_positive or c1.has(i) or c2.has(j):
        return None
    g = s2.function.subs(j, i)
    cos_x = -(sp.expand(s1.function) - 1)
    if not isinstance(cos_x, sp.cos):
        return None
    x = cos_x.args[0]
    if sp.simplify(c1 * x ** 2 / 2 - c2 * g) != 0:
        return None
    pows = [(p1, p2) for p1 in sp.preorder_traversal(x) if isinstance(p1, sp.Pow)
            and p1.base.is_Integer and p1.base > 1
            for p2 in sp.preorder_traversal(g) if isinstance(p2, sp.Pow) and p2.base == p1.base
            and sp.simplify(p2.exp - 2 * p1.exp) == 0]
    zv = set(goal.printer.zvars) | ({i} if i.is_integer else set())
    pr = Printer(dict(goal.names) | {i: "pe_i"}, zv, set(goal.names.values()) | {"pe_i"})
    try:
        xs = pr.term(x)
        steps = [f"replace ({pr.term(p2)}) with (({pr.term(p1)}) * ({pr.term(p1)})) by "
                 "(unfold Rdiv; rewrite ?Rmult_1_l; rewrite <- ?rpow_opp; rewrite <- rpow_plus; "
                 "f_equal; field; pe_side)" for p1, p2 in pows[:1]]
        steps += [f"pose proof (pe_cos ({xs}))",
                  f"apply Rle_trans with ({pr.term(c1 / 2)} * (({xs}) * ({xs})))",
                  "[lra | right; rewrite ?rpow_opp; field; repeat split; "
                  "first [apply rpow_neq_0 | pe_side]]"]
    except Untranslatable:
        return None
    term = "; ".join(steps[:-1]) + "; " + steps[-1]
    return (f"{ZLE}; {COS_SQ}; rewrite <- ?zsum_scal; apply pe_zle; "
            f"[ first [lia | Z.div_mod_to_equations; lia] | intro pe_i; cbv beta; {term} ]")


# ------------------------------------------------------------ sums odd under reflection
#: zsum a b f = zsum a b (fun i => f (a + b - i)) when a <= b + 1 (induction on the number of
#: terms: zsum_first, zsum_succ, zsum_shift; proved inline)
REV = (
    "assert (pe_rev : forall a b f, (a <= b + 1)%Z -> zsum a b f = zsum a b (fun i => "
    "f (a + b - i)%Z)) by (assert (pe_R : forall n a f, zsum a (a + Z.of_nat n - 1) f = "
    "zsum a (a + Z.of_nat n - 1) (fun i => f (2 * a + Z.of_nat n - 1 - i)%Z)) by ("
    "induction n as [|n pe_IH]; intros a f; [ simpl; replace (a + 0 - 1)%Z with (a - 1)%Z "
    "by lia; rewrite !zsum_empty; reflexivity | replace (a + Z.of_nat (S n) - 1)%Z with "
    "(a + Z.of_nat n)%Z by lia; rewrite (zsum_ext_all _ _ (fun i => f (2 * a + Z.of_nat (S n) "
    "- 1 - i)%Z) (fun i => f (2 * a + Z.of_nat n - i)%Z)) by (intro; f_equal; lia); "
    "rewrite (zsum_first a (a + Z.of_nat n) f), (zsum_succ a (a + Z.of_nat n) (fun i => "
    "f (2 * a + Z.of_nat n - i)%Z)); pose proof (pe_IH (a + 1)%Z f) as pe_H; replace "
    "(a + 1 + Z.of_nat n - 1)%Z with (a + Z.of_nat n)%Z in pe_H by lia; rewrite pe_H, "
    "(zsum_shift (a + 1) (a + Z.of_nat n) 1); replace (a + 1 - 1)%Z with a by lia; "
    "rewrite Rplus_comm; f_equal; [ apply zsum_ext_all; intro; f_equal; lia | f_equal; "
    "lia ] ]); intros a b f pe_ab; pose proof (pe_R (Z.to_nat (b - a + 1)) a f) as pe_E; "
    "rewrite Z2Nat.id in pe_E by lia; replace (a + (b - a + 1) - 1)%Z with b in pe_E by lia; "
    "rewrite pe_E; apply zsum_ext_all; intro pe_i; f_equal; lia)")


def sum_odd(st, r, goal) -> str | None:
    """``Sum(F(n), (n, 0, U)) = 0`` with ``F(0) = 0`` (a factor ``sin`` of an argument that
    vanishes at 0) and ``F(1 + U - n) = -F(n)``: every argument ``t`` of a sin/cos is linear in
    ``n`` without constant term and ``t(1 + U) = 2 pi z`` for an integer ``z``
    (``cos(2 pi z - t) = cos t``, ``sin(2 pi z - t) = -sin t``; SymPy checks that the signs
    make ``F`` odd).  The script: the first term peeled (``zsum_first``), the rest reflected
    (:data:`REV`) and each term rewritten by ``cos_period_neg``/``sin_period_neg`` (found by
    Ltac's context matching, each period's equation by ``field``), so the rest is minus
    itself; ``sin_piZ_at`` for the first term; ``lra``."""
    if r.op != "==" or not (r.rhs == 0 and isinstance(r.lhs, sp.Sum)) \
            or len(r.lhs.limits) != 1:
        return None
    n, a, top = r.lhs.limits[0]
    F = r.lhs.function
    if a != 0 or sp.expand(F.subs(n, 0)) != 0:
        return None
    trig = {t for t in sp.preorder_traversal(F) if isinstance(t, sp.sin | sp.cos)}
    if not trig or any(not t.args[0].has(n) for t in trig):
        return None
    pr = goal.printer
    branches, flip = [], {}
    for t in sorted(trig, key=sp.srepr):
        arg = sp.expand(t.args[0])
        if arg.subs(n, 0) != 0 or sp.expand(arg - n * sp.diff(arg, n)) != 0:
            return None
        z = pr.zexact(sp.simplify(arg.subs(n, 1 + top) / (2 * sp.pi)))
        if z is None:
            return None
        lemma = "sin_period_neg" if isinstance(t, sp.sin) else "cos_period_neg"
        head = "sin" if isinstance(t, sp.sin) else "cos"
        flip[t] = -t if isinstance(t, sp.sin) else t
        b = (f"| |- context [{head} ?x] => match x with context C [IZR (?e - ?v)] => is_var v; "
             f"let y := context C [IZR v] in rewrite ({lemma} x y ({z})) by "
             "(pe_izr_push; field; pe_side) end")
        if b not in branches:
            branches.append(b)
    if sp.expand(F.xreplace(flip) + F) != 0:
        return None
    return (f"{REV}; rewrite zsum_first; match goal with |- _ + zsum ?a ?b ?f = _ => "
            "assert (pe_o : zsum a b f = - zsum a b f) by (rewrite (pe_rev a b f) at 1 by lia; "
            "rewrite <- zsum_opp; apply zsum_ext_all; intro pe_n; cbv beta; "
            f"repeat match goal with {' '.join(branches)} end; ring) end; "
            "repeat match goal with |- context [sin ?x] => lazymatch x with context [IZR 0] => "
            "rewrite (sin_piZ_at x 0) by pe_eq end end; lra")


def sum_alternative(st, goal) -> str | None:
    """The whole goal (obligations, then the one conclusion) when :func:`sum_le` or
    :func:`sum_odd` fits."""
    if len(st.concl) != 1:
        return None
    tac = sum_le(st, st.concl[0], goal) or sum_odd(st, st.concl[0], goal)
    if tac is None:
        return None
    per = ["solve [pe_side]"] * len(goal.obligations) + [f"solve [{tac}]"]
    body = per[0] if len(per) == 1 else "pe_split; [ " + " | ".join(per) + " ]"
    return f"timeout {TRI_TIMEOUT} (solve [intros; pe_zfacts; {body}])"
