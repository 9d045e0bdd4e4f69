"""Scripts for inequalities between powers of one literal base whose exponent depends on an
integer ``d`` (the encoding's slowest frequency ``10000^((2 - d)/d)`` for every ``d >= d0``).

Alternatives appended to a conclusion's closer by :func:`extra_alternatives`:

* ``bracket`` -- each power ``rpow b e(d)`` with ``b > 1`` is bracketed between powers of the
  same base at constant exponents: the exponent's value at the least ``d`` the domain and the
  hypotheses allow (``d0``), its limit as ``d -> oo``, and their negations.  Each bound is a
  fact only when Coq proves it (``rpow_lt``/``rpow_le_mono`` and the exponents' relation by
  ``pe_expo``); a candidate that does not hold is dropped (``try``).  The power is then made
  an opaque real ``r`` (with ``0 < r`` and ``r * / r = 1``), the bounds at ``0``, ``1`` and
  ``-1`` computed (``1``, ``b``, ``/ b``), and the goal closed by ``lra``, ``nra`` or
  CoqInterval (which reads the other bounds as closed real numbers).  A quotient by a power is
  first written as the power at the opposite exponent.  So a statement holds for every
  ``d >= d0`` by monotonicity in ``d`` and one numeric instance at ``d0``.
* ``rebase`` -- powers of several literal bases that are integer powers of the least one
  (``10000 = 10^4``) rewritten to that base (``rpow 10000 e = rpow 10 (4 e)``, proved in the
  script from ``rpow_mult`` and ``rpow_pow``), ``sqrt b`` as ``rpow b (/ 2)`` (``Rpower_sqrt``),
  literal integer powers of the base as ``rpow b k``; then Check.v's ``pe_rpow`` compares
  the exponents (``10^(4(d-2)/d) = 10000^((d-2)/d)``, ``1000 sqrt 10 <= 10000^((d-2)/d)``).
* ``factored`` -- ``lhs <= rhs`` between rational functions: the difference equals its
  factored form (``field``), each factor's sign from the hypotheses (``pe_possign``);
* ``distinct angles`` -- ``(sin x - sin y)^2 + (cos x - cos y)^2 <> 0`` when the
  hypotheses put ``x - y`` inside ``(0, 2 pi)`` (``cos (x - y) = 1 - 2 sin ((x - y)/2)^2``);
* ``Abel`` -- :mod:`.abel_script`;
* ``exp/ln`` (tried BEFORE the closer) -- an equation with a power of a non-literal base,
  every power as ``exp (e ln b)``, the exponents by ``field``;
* ``nested angles`` (tried BEFORE the closer) -- a trig equation whose angles are sums of
  three or more parts or have a negated literal part (see :func:`_trig_nested`);
* :func:`obligation_closer` -- ``0 <= `` a sum of squares (a ``sqrt``'s argument).

All are search: only what Coq's kernel accepts counts.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.abel_script import abel_script
from peproof.kernel.coq.translate import Untranslatable

#: least value of an integer domain (None: unbounded below)
DOMAIN_LEAST = {"pos_integer": 1, "even_pos_integer": 2, "nonneg_integer": 0}
MANY = 48  # conclusions beyond which tactics.script_for uses one tactic for all (no per-conjunct)
TIMEOUT = 20  # seconds of one alternative (Coq's [timeout]: a failure, never a hang)


def _least(st, v) -> int | None:
    """The least value of the integer variable ``v`` its domain and the hypotheses allow
    (``c <= v``, ``c < v`` with ``c`` a number; evenness rounds up)."""
    low = DOMAIN_LEAST.get(st.domain(v))
    for h in st.hyps:
        if h.rhs == v and h.lhs.is_number and h.op in ("<=", "<"):
            c = sp.ceiling(h.lhs) if h.op == "<=" else sp.floor(h.lhs) + 1
            low = int(c) if low is None else max(low, int(c))
    if low is not None and st.domain(v) == "even_pos_integer" and low % 2:
        low += 1
    return low


def _powers(exprs, zvars) -> list[tuple[sp.Expr, sp.Expr]]:
    """(base, exponent) of the powers with a literal base above 1 and an exponent in one
    integer variable."""
    out = []
    for e in exprs:
        for n in sp.preorder_traversal(e):
            if isinstance(n, sp.Pow) and n.base.is_Integer and n.base > 1 \
                    and len(n.exp.free_symbols) == 1 and n.exp.free_symbols <= zvars \
                    and (n.base, n.exp) not in out:
                out.append((n.base, n.exp))
    return out


def _real(q: sp.Rational) -> str:
    """A rational as a Coq real whose negation is [Ropp] (so that [rpow_opp] rewrites it)."""
    q = sp.Rational(q)
    body = f"{abs(q.p)}" if q.q == 1 else f"({abs(q.p)} / {q.q})"
    return f"(Ropp {body})" if q < 0 else body


def _candidates(st, exprs, zvars) -> tuple[list[str], list[tuple]]:
    """The bounds to try on a variable power ``rpow b e`` (``e`` is an exponent of the
    statement or its negation: a quotient by a power becomes the opposite power), each an
    [assert] of the goal's context, and the integer lower bounds (variable, ``d0``) they rest
    on.  The exponent ``E(d)`` is a quotient of affine forms in ``d``, so monotone on
    ``[d0, oo)``: between ``E(d0)`` (reached) and its limit (not reached)."""
    out: list[str] = []
    facts: list[tuple] = []
    for _, ex in _powers(exprs, zvars):
        (v,) = ex.free_symbols
        low = _least(st, v)
        if low is None:
            continue
        c0, lim = ex.subs(v, low), sp.limit(ex, v, sp.oo)
        if not (c0.is_Rational and lim.is_Rational) or c0 == lim:
            continue
        if (v, low) not in facts:
            facts.append((v, low))
        for a, b in ((c0, lim), (-c0, -lim)):  # e from a (reached) towards b (not reached)
            if a < b:
                bounds = [f"rpow b {_real(a)} <= rpow b e", f"rpow b e < rpow b {_real(b)}"]
            else:
                bounds = [f"rpow b e <= rpow b {_real(a)}", f"rpow b {_real(b)} < rpow b e"]
            for t in bounds:
                lemma = "rpow_lt" if " < " in t else "rpow_le_mono"
                line = f"try (assert ({t}) by (apply {lemma}; [lra | pe_expo]))"
                if line not in out:
                    out.append(line)
    return out, facts


def _bracket(cands: list[str], lows: list[str]) -> str:
    pre = "".join(f"{x}; " for x in lows)
    loop = ("repeat match goal with | |- context [rpow ?b ?e] => "
            "match e with context [IZR ?v] => is_var v end; "
            "let r := fresh \"pe_r\" in " + "; ".join(cands) + "; "
            "pose proof (rpow_pos b e); pose proof (Rinv_r (rpow b e) (rpow_neq_0 b e)); "
            "set (r := rpow b e) in *; clearbody r end; "
            "rewrite ?rpow_0, ?rpow_opp in *; rewrite ?rpow_1 in * by lra; pe_posfacts; "
            "first [ solve [lra] | solve [unfold rpow in *; interval] | solve [nra] "
            "| solve [unfold Rdiv in *; pe_lra_nra] ]")
    # a quotient by a power in the goal as the opposite power (the hypotheses unchanged)
    rd = ("assert (pe_rd : forall a b e, a / rpow b e = a * rpow b (- e)) "
          "by (intros; unfold Rdiv; rewrite rpow_opp; reflexivity); "
          "rewrite ?pe_rd; clear pe_rd; ")
    return f"timeout {TIMEOUT} (solve [intros; pe_zfacts; {pre}{rd}{loop}])"


def _rebase(exprs) -> str | None:
    bases = sorted({n.base for e in exprs for n in sp.preorder_traversal(e)
                    if isinstance(n, sp.Pow) and n.base.is_Integer and n.base > 1})
    if not bases:
        return None
    b0 = bases[0]
    steps = []
    for j, b in enumerate(bases[1:]):
        k = sp.log(b, b0)
        if not k.is_Integer:
            return None
        steps.append(f"assert (pe_b{j} : forall e, rpow {b} e = rpow {b0} ({k} * e)) by "
                     f"(intro; rewrite <- rpow_mult; f_equal; replace {k} with (INR {k}) by "
                     f"(simpl; lra); rewrite rpow_pow by lra; lra); rewrite ?pe_b{j}")
    if any(isinstance(n, sp.Pow) and n.base == b0 and n.exp == sp.Rational(1, 2)
           for e in exprs for n in sp.preorder_traversal(e)):
        steps.append(f"rewrite <- (Rpower_sqrt {b0}) by lra; "
                     f"change (Rpower {b0} (/ 2)) with (rpow {b0} (/ 2))")
    lits = {abs(n) for e in exprs for n in sp.preorder_traversal(e)
            if isinstance(n, sp.Integer) and abs(n) > b0}
    for c in sorted(lits):
        k = sp.log(c, b0)
        if k.is_Integer and c not in bases:
            steps.append(f"try replace {c} with (rpow {b0} {k}) by "
                         f"(replace {k} with (INR {k}) by (simpl; lra); "
                         "rewrite rpow_pow by lra; lra)")
    if len(steps) == 0:
        return None
    return f"timeout {TIMEOUT} (solve [intros; {'; '.join(steps)}; pe_rpow])"


def _distinct_angles(exprs, pr) -> str | None:
    """``<>`` of an expression in ``sin``/``cos`` of two angles ``a``, ``b`` (both functions
    of each): ``cos (a - b) = 1 - 2 sin ((a - b)/2)^2`` with ``0 < sin ((a - b)/2)`` when
    ``0 < a - b < 2 pi`` (``sin_gt_0``, the window from the hypotheses by ``lra``), then
    ``nra`` with the Pythagorean facts (the features of distinct angles of one turn differ)."""
    args = []
    for e in exprs:
        for n in sp.preorder_traversal(e):
            if isinstance(n, sp.sin | sp.cos) and n.args[0] not in args:
                args.append(n.args[0])
    if len(args) != 2:
        return None
    alts = []
    for a, b in (args, args[::-1]):
        a, b = pr.term(a), pr.term(b)
        h = f"(({a} - {b}) / 2)"
        alts.append(f"solve [intros; pose proof PI_RGT_0; "
                    f"assert (pe_hs : 0 < sin {h}) by (apply sin_gt_0; lra); "
                    f"assert (pe_c : cos ({a} - {b}) = 1 - 2 * sin {h} * sin {h}) "
                    f"by (rewrite <- cos_2a_sin; f_equal; field); rewrite cos_minus in pe_c; "
                    f"pose proof (pyth_sq ({a})); pose proof (pyth_sq ({b})); intro; nra]")
    return f"timeout {TIMEOUT} (first [ {' | '.join(alts)} ])"


def _factored(st, r, pr) -> str | None:
    """``lhs <= rhs`` (or ``<``) of rational functions: ``rhs - lhs`` equals its factored form
    (SymPy's ``factor`` proposes it, Coq's ``field`` proves it, denominators nonzero by
    ``pe_nz``), a product whose factors' signs ``pe_possign`` proves from the hypotheses
    (``s - 1 >= 0``, ``rho - lf > 0``); a factor that is the negation of a hypothesis's
    difference is turned, with the sign in front."""
    exprs = [r.lhs, r.rhs]
    if any(isinstance(n, sp.sin | sp.cos | sp.Abs | sp.Sum) or
           (isinstance(n, sp.Pow) and not n.exp.is_Integer)
           for e in exprs for n in sp.preorder_traversal(e)):
        return None
    diff = sp.factor(sp.together(r.rhs - r.lhs))
    if not isinstance(diff, sp.Mul):
        return None
    pos = {sp.expand(h.rhs - h.lhs) for h in st.hyps if h.op in ("<", "<=")}
    sign, parts = 1, []
    for f in diff.args:
        base, ex = f.as_base_exp() if isinstance(f, sp.Pow) else (f, 1)
        if base.is_number and base < 0:
            sign, base = -sign * 1 if ex % 2 else sign, -base
        elif sp.expand(-base) in pos:
            sign, base = (-sign if ex % 2 else sign), sp.expand(-base)
        parts.append(sp.Pow(base, ex, evaluate=False) if ex != 1 else base)
    if sign < 0:
        return None
    fac = sp.Mul(*parts, evaluate=False)
    rel = "<" if r.op == "<" else "<="
    lhs, rhs, ft = pr.term(r.lhs), pr.term(r.rhs), pr.term(fac)
    return (f"timeout {TIMEOUT} (solve [intros; "
            f"assert (pe_f : ({rhs}) - ({lhs}) = {ft}) by (field; repeat split; pe_nz); "
            f"assert (pe_s : 0 {rel} {ft}) by (unfold Rdiv; pe_possign); "
            "first [ lra | nra ]])")


def _nested_sum(parts, pr) -> str:
    """An angle as the right-nested sum of its parts, negations as [Ropp] (``(- 3)`` would be
    the literal -3, which [sin_neg] does not rewrite)."""
    terms = []
    for k, t in parts:
        a = pr.term(t)
        terms.extend([a if k > 0 else f"(Ropp {a})"] * abs(k))
    if not terms:
        return "0"
    out = terms[-1]
    for a in reversed(terms[:-1]):
        out = f"({a} + {out})"
    return out


def _trig_nested(exprs, pr, angle_plan) -> str | None:
    """A trig equation whose angles are sums of three or more parts, or have a negated
    literal part: each angle rewritten as its nested sum, the addition formulas applied until
    nothing changes (a sum inside a sum), then ``ring`` (``ring`` modulo the Pythagorean
    facts)."""
    args = []
    for e in exprs:
        for n in sp.preorder_traversal(e):
            if isinstance(n, sp.sin | sp.cos) and n.args[0] not in args:
                args.append(n.args[0])
    if not any(isinstance(a, sp.Add) and (len(a.args) >= 3 or any(
            t.is_number and t.is_negative for t in a.args)) for a in args):
        return None
    plan, bases = angle_plan(args)
    if not any(len(p) >= 3 or any(k < 0 and t.is_number for k, t in p) for p in plan.values()):
        return None
    steps = []
    for a in args:
        if len(plan[a]) == 1 and plan[a][0][0] == 1:
            continue
        b = _nested_sum(plan[a], pr)
        steps += [f"try rewrite (sin_arg ({pr.term(a)}) ({b})) by pe_eq",
                  f"try rewrite (cos_arg ({pr.term(a)}) ({b})) by pe_eq"]
    steps.append("repeat progress rewrite ?sin_plus, ?cos_plus, ?sin_neg, ?cos_neg")
    steps += [f"pose proof (pyth_sq ({pr.term(t)})) as P{j}" for j, t in enumerate(bases)]
    ps = " ".join(f"P{j}" for j in range(len(bases)))
    return (f"timeout {TIMEOUT} (solve [intros; {'; '.join(steps)}; "
            f"first [ solve [ring] | solve [ring [{ps}]] ]])")


def _expln(st, exprs, pr) -> str | None:
    """An equation between powers whose base is not a literal (``(10000 s^(d/(d-2)))^e``):
    every power written ``exp (e ln b)`` (``rpow``, ``Rpower`` unfolded), ``ln`` of products
    split (``ln_mult``, the factors positive by ``lra`` or ``exp_pos``), ``ln (exp t) = t``,
    ``/ s`` of a positive variable as ``exp (- ln s)``, quotients and products of
    exponentials merged (``exp_Ropp``, ``exp_plus``); then the exponents by ``field``."""
    pows = [n for e in exprs for n in sp.preorder_traversal(e) if isinstance(n, sp.Pow)]
    if not any(not n.base.is_number and not n.exp.is_Integer for n in pows):
        return None
    pos = [v.symbol for v in st.vars if v.domain == "pos_real"]
    inv = [v for v in pos if any(n.base == v and n.exp == -1 for n in pows)]
    steps = ["intros", "pe_zfacts", "unfold rpow, Rpower",
             "repeat rewrite ln_mult by (first [ lra | apply exp_pos ])", "rewrite ?ln_exp",
             "unfold Rdiv"]
    steps += [f"try replace (/ {pr.term(v)}) with (exp (- ln {pr.term(v)})) by "
              "(rewrite exp_Ropp, exp_ln; [reflexivity | lra])" for v in inv]
    steps += ["rewrite <- ?exp_Ropp", "rewrite <- ?exp_plus", "f_equal", "field", "pe_side"]
    return f"timeout {TIMEOUT} (solve [{'; '.join(steps)}])"


def obligation_closer(text: str, closer: str) -> str:
    """The closer of one definedness obligation: ``closer``, and for ``0 <= ...`` with squares
    (the argument of a ``sqrt`` that is a sum of squares) ``pow2_ge_0`` on each summand."""
    if not (text.startswith("(0 <= ") and "^ 2" in text):
        return closer
    return f"first [ {closer} | solve [repeat apply Rplus_le_le_0_compat; apply pow2_ge_0] ]"


def extra_alternatives(st, goal, angle_plan=None) -> dict[int, tuple[str, str]]:
    """Conclusion index -> (alternative to try before its closer, alternative to try after
    it), "" for none ({} when none applies); ``angle_plan``: tactics.angle_plan (the angles'
    base decomposition), passed in.  The nested-angle script goes first: the closer's
    ``nra`` on such a goal fails slowly (5 s without micromega's cache), the script's
    ``ring`` succeeds in a fraction of a second."""
    pr = goal.printer
    if pr is None or st.quant != "forall" or len(st.concl) > MANY:
        return {}
    zvars = {s for s in goal.names if s in pr.zvars}
    out = {}
    for j, r in enumerate(st.concl):
        exprs = [r.lhs, r.rhs]
        hexprs = exprs + [e for h in st.hyps for e in (h.lhs, h.rhs)]
        alts, before = [], ""
        try:
            if r.op in ("<", "<=") and _powers(hexprs, zvars):
                cands, facts = _candidates(st, hexprs, zvars)
                lows = [f"assert ({low} <= IZR {goal.names[v]}) by "
                        f"(apply IZR_le; first [ lia | pe_zlia ])" for v, low in facts]
                if cands:
                    alts.append(_bracket(cands, lows))
            if r.op in ("<", "<=") and not _powers(hexprs, zvars):
                fa = _factored(st, r, pr)
                if fa:
                    alts.append(fa)
            if r.op == "<=" and st.hyps:
                ab = abel_script(st, r, pr)
                if ab:
                    alts.append(ab)
            if r.op == "!=":
                da = _distinct_angles(exprs, pr)
                if da:
                    alts.append(da)
            if r.op == "==":
                el = _expln(st, exprs, pr)
                if el:  # first: the closer's rpow alternatives fail slowly on these (5 s)
                    before = el
            if r.op == "==" and angle_plan is not None:
                tn = _trig_nested(exprs, pr, angle_plan)
                if tn:
                    before = tn
            if r.op in ("==", "<", "<=") and _powers(exprs, zvars):
                rb = _rebase(exprs)
                if rb:
                    alts.append(rb)
        except (Untranslatable, TypeError, ValueError, NotImplementedError):
            continue
        if alts or before:
            out[j] = (before, " | ".join(alts))
    return out
