"""Mechanical proof scripts for translated goals, one class at a time.

A script is ONE tactic expression (no vernacular: the runner refuses a script with a sentence
end, ``Admitted``, ``Axiom`` and the like), run on the goal printed by
:mod:`peproof.kernel.coq.translate`.  Scripts are search: whatever they do, only a proof that
Coq's kernel accepts counts, and the runner reads ``Print Assumptions`` against its allow-list.

Classes:

* ``closed`` -- no variables: each conjunct by ``reflexivity``/``field``/``lra``, else
  CoqInterval (``pe_interval``: ``rpow`` unfolded, literal-limit sums expanded);
* ``trig`` -- relations polynomial in sin/cos of linear forms: every argument is rewritten as
  a sum of base angles (one per monomial; multiples up to :data:`MAX_MULT` of a common base,
  else separate angles), the addition formulas expand it, and ``ring [P...]`` closes it modulo
  ``sin t * sin t = 1 - cos t * cos t`` for every base angle ``t`` (the normal form modulo
  these rules is unique: they form a Groebner basis), with ``field``/``nsatz`` as fallbacks;
* ``inequality`` -- polynomial inequalities: the sin/cos bounds and the cases of ``Rabs``, then
  ``lra``/``nra``; a goal whose variables are bounded by hypotheses by ``interval``; relations
  between powers of one base with variable exponents (the frequencies ``10000^(-2i/d)`` for
  every ``d``) by ``pe_rpow`` (Check.v: exponents compared, the base above 1);
* ``negation`` -- a refuted ``forall`` claim: its negation, proved at the certified witness
  (the goal specialised there, each hypothesis closed, the false conjunct refuted by
  ``interval`` or integer arithmetic);
* ``witness`` -- an ``exists`` claim with a certified instance: the instance, then ``closed``;
* ``library`` -- coqlib's general tactics (``pe_auto``) when their library ships them.

Alternatives appended to a conclusion's closer (Check.v, "Bounds" and after), chosen by the
relation's shape (:func:`bound_alternatives`), each under ``timeout``: ``pe_absnra`` (bounds
``Abs(x) <= a`` split into two-sided ones, the goal's ``Abs`` too, then ``lra``/``nra``),
``pe_gcongr`` (common summands and factors of known sign dropped from both sides),
``pe_divnra`` (quotients by positive denominators made polynomial), ``pe_frac`` (the sign of
the sides' difference as one fraction); for trig equations
``pe_piZ`` (``sin t = 0``, ``cos t = +-1`` at integer multiples of pi).  ``pe_point`` also
proves premises needing ``0 < PI`` and computes closed integer terms under ``IZR``.
More shapes live beside this module: scripts4.py (error bounds by the triangle inequality,
sums compared term by term or odd under reflection), trig_values.py (sin/cos at rational
multiples of pi, a sin/cos pair separating two points); outside.py refuses, with the
reason, statements needing a fact no installed library provides (pi irrational, a scan).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from math import gcd

import sympy as sp

from peproof.claims import Statement

try:  # coqlib's module: which goals the library's tactics target, and their script
    from peproof.kernel.coq import library as _library
except ImportError:  # pragma: no cover - before it lands
    _library = None
from peproof.kernel.coq import decay
from peproof.kernel.coq.bound_scripts import alternatives as bound_first
from peproof.kernel.coq.bound_scripts import obligation as bound_obligation
from peproof.kernel.coq.coqineq_scripts import extra_alternatives, obligation_closer
from peproof.kernel.coq.more_scripts import CONST_SUM, constant_summand
from peproof.kernel.coq.outside import negation_reason
from peproof.kernel.coq.outside import reason as outside_reason
from peproof.kernel.coq.periods import TRIG_CONST, period_alternatives
from peproof.kernel.coq.scripts4 import sum_alternative, triangle
from peproof.kernel.coq.translate import Binder, Goal, Printer, Untranslatable, domain_props
from peproof.kernel.coq.trig_values import closed_values, separation_pair

MANY = 48  # conjuncts beyond which one tactic is tried on each in turn (not one per goal)
MAX_MULT = 4  # largest multiple of a base angle expanded by the addition formulas
TIMEOUT = 60  # seconds per alternative (Coq's [timeout] tactic: a failure, never a hang)
#: terms of a literal-range sum the scripts expand under a quantifier: the d = 512 scans (256
#: terms) ran out of their 10 s on every run, never closed, and were never cached
MAX_SUM_TERMS = 64


@dataclass(frozen=True)
class Script:
    text: str
    klass: str
    needs: frozenset = frozenset()  # "interval": load CoqInterval; "library": coqlib's tactics
    negation: bool = False


class NoScript(Exception):
    """No mechanical script for this goal (the message says why)."""


def _trig_args(exprs) -> list[sp.Expr]:
    out: list[sp.Expr] = []
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Sum):
                continue
            if isinstance(node, sp.sin | sp.cos) and node.args[0] not in out:
                out.append(node.args[0])
    return out


def _longest_sum(exprs) -> int:
    """The most terms of a sum with integer-literal limits in ``exprs`` (0: none)."""
    n = 0
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Sum):
                for _, a, b in node.limits:
                    if a.is_Integer and b.is_Integer:
                        n = max(n, int(b) - int(a) + 1)
    return n


def _has(exprs, kinds) -> bool:
    return any(isinstance(n, kinds) for e in exprs for n in sp.preorder_traversal(e))


def _linear(a: sp.Expr) -> dict:
    """``a`` as {monomial: rational coefficient}."""
    out: dict = {}
    for t in sp.Add.make_args(sp.expand(a)):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational:
            raise NoScript(f"angle {sp.sstr(a)} has a non-rational coefficient")
        out[m] = out.get(m, 0) + sp.Rational(c)
    return {m: c for m, c in out.items() if c != 0}


def _qgcd(qs) -> Fraction:
    fr = [Fraction(int(q.p), int(q.q)) for q in qs]
    num = reduce(gcd, (abs(f.numerator) for f in fr))
    den = reduce(lambda x, y: x * y // gcd(x, y), (f.denominator for f in fr))
    return Fraction(num, den)


def _express(c, bases: list) -> list[tuple[int, object]] | None:
    """``c`` as a short integer combination of ``bases`` (a multiple up to MAX_MULT of one, or
    the sum/difference of two), else None."""
    for b in bases:
        q = c / b
        if q.is_Integer and abs(q) <= MAX_MULT:
            return [(int(q), b)]
    for j, b1 in enumerate(bases):
        for b2 in bases[j + 1:]:
            for s1 in (1, -1):
                for s2 in (1, -1):
                    if s1 * b1 + s2 * b2 == c:
                        return [(s1, b1), (s2, b2)]
    return None


def angle_plan(args: list[sp.Expr]) -> tuple[dict, list[sp.Expr]]:
    """Each argument as a list of (multiplier, base angle), and the base angles.  Per monomial,
    the coefficients are read smallest first: one that is a short combination of the bases so
    far is expressed by them, any other becomes a base (``8 w`` is ``3 w + 5 w`` when ``3 w``
    and ``5 w`` occur; ``m`` and ``m/100`` stay two angles)."""
    lin = {a: _linear(a) for a in args}
    coeffs: dict = {}
    for form in lin.values():
        for m, c in form.items():
            coeffs.setdefault(m, set()).add(abs(c))
    combo: dict = {}  # (monomial, |coefficient|) -> [(multiplier, base angle)]
    for m, cs in coeffs.items():
        bases: list = []
        for c in sorted(cs):
            how = _express(c, bases)
            if how is None:
                bases.append(c)
                how = [(1, c)]
            combo[(m, c)] = [(k, b * m) for k, b in how]
    plan, out = {}, []
    for a, form in lin.items():
        parts = []
        for m, c in form.items():
            for k, t in combo[(m, abs(c))]:
                parts.append((k if c > 0 else -k, t))
                if t not in out:
                    out.append(t)
        plan[a] = parts
    return plan, out


def _sum_text(parts, pr: Printer) -> str:
    terms = []
    for k, t in parts:
        s = pr.term(t)
        terms.extend([s if k > 0 else f"(- {s})"] * abs(k))
    if not terms:  # the angle 0
        return "0"
    out = terms[-1]
    for s in reversed(terms[:-1]):
        out = f"({s} + {out})"
    return out


def trig_closer(exprs, pr: Printer) -> str:
    """The tactic that closes one relation polynomial in sin/cos of linear forms."""
    args = _trig_args(exprs)
    if not args:
        return "first [ solve [ring] | solve [field; pe_side] ]"
    plan, bases = angle_plan(args)
    steps = []
    for a in args:
        parts = plan[a]
        if len(parts) == 1 and parts[0][0] == 1 and pr.term(parts[0][1]) == pr.term(a):
            continue
        b = _sum_text(parts, pr)
        steps += [f"try rewrite (sin_arg ({pr.term(a)}) ({b})) by pe_eq",
                  f"try rewrite (cos_arg ({pr.term(a)}) ({b})) by pe_eq"]
    # the multiples of pi among the base angles appear once the addition formulas expanded
    # the arguments (sin (2 pi n + t) -> sin (2 pi n) cos t + ...): their facts come after
    steps.append("rewrite ?sin_plus, ?cos_plus, ?sin_neg, ?cos_neg")
    steps += _pi_facts(bases, pr)
    pre = "; ".join(steps + ["rewrite ?sin_PI2, ?cos_PI2, ?sin_PI, ?cos_PI, ?sin_0, ?cos_0"])
    pyth = "; ".join(f"pose proof (pyth_sq ({pr.term(t)})) as P{j}" for j, t in enumerate(bases))
    ps = " ".join(f"P{j}" for j in range(len(bases)))
    ring = f"ring [{ps}]" if ps else "ring"
    field = f"field [{ps}]" if ps else "field"
    return (f"{pre}; {pyth}; first [ solve [{ring}] | solve [{field}; pe_side] "
            "| solve [pe_bounds; nra] ]")


def _pi_facts(bases, pr: Printer) -> list[str]:
    """Base angles that are integer multiples of pi: sin = 0 (and cos = 1 for even ones)."""
    out = []
    for t in bases:
        q = sp.expand(t / sp.pi)
        if q.has(sp.pi) or not q.free_symbols or not q.free_symbols <= pr.zvars:
            continue
        z = pr.zexact(q)
        if z is None:
            continue
        ts = pr.term(t)
        out.append(f"try rewrite (sin_arg ({ts}) (PI * IZR {z})) by (pe_izr_push; ring)")
        out.append("try rewrite sin_piZ")
        z2 = pr.zexact(sp.expand(q / 2))
        if z2 is not None:
            out.append(f"try rewrite (cos_arg ({ts}) (2 * PI * IZR {z2})) by (pe_izr_push; ring)")
            out.append("try rewrite cos_2piZ")
    return out


def _int_text(v) -> str:
    return f"({int(v)})%Z"


def point_values(st: Statement, goal: Goal, point: dict) -> list[str]:
    """The witness's values in binder order, printed as Coq terms (Z or R)."""
    out = []
    for b in goal.binders:
        raw = point.get(b.symbol.name)
        if raw is None:
            raise NoScript(f"the witness has no value for {b.symbol.name}")
        v = sp.sympify(str(raw).split(" (ball")[0], rational=True)
        if not v.is_number or v.free_symbols:
            raise NoScript(f"witness value {raw!r} is not a closed number")
        if b.ctype == "Z":
            if not v.is_Integer:
                raise NoScript(f"witness value {raw!r} of integer {b.symbol.name}")
            out.append(_int_text(v))
        else:
            out.append(goal.printer.term(v))
    return out


def script_for(st: Statement, goal: Goal, *, refuted: bool = False,
               witness: dict | None = None) -> Script:
    """The script of ``goal`` (``refuted``: of its negation, at ``witness``)."""
    exprs = [e for r in st.concl + st.hyps for e in (r.lhs, r.rhs)]
    if decay.uses(st):  # lib/Decay.v's scripts (decay.py), or NoScript with the reason
        return Script(*decay.script(st, goal, refuted, witness, point_values, NoScript))
    if refuted:
        if st.quant != "forall" or not witness or "point" not in witness:
            raise NoScript(negation_reason(st) or "a refuted claim is checked only as the "
                           "negation of a 'forall' statement at a certified point")
        vals = point_values(st, goal, witness["point"])
        spec = f"pose proof (H {' '.join(vals)}) as Hc; " if vals else "pose proof H as Hc; "
        text = (f"intro H; {spec}pe_feed Hc; decompose [and] Hc; "
                "first [ solve [pe_refute] | solve [exfalso; pe_refute] ]")
        return Script(text, "negation", frozenset({"interval"}), negation=True)
    if (why := outside_reason(st)) is not None:  # outside.py: a fact no library provides
        raise NoScript(why)
    if st.quant == "exists":
        if not witness or "point" not in witness:
            raise NoScript("an 'exists' claim is checked only at a certified instance")
        vals = point_values(st, goal, witness["point"])
        text = (f"exists {', '.join(vals)}; pe_split; "
                "first [ solve [pe_point] | solve [pe_side] | solve [pe_interval] ]")
        return Script(text, "witness", frozenset({"interval"}))
    if not goal.binders:
        per = ["solve [pe_side]"] * len(goal.obligations) + [_closed(r, goal.printer)
                                                              for r in st.concl]
        alt = closed_values(st, goal)  # scripts4.py: sin/cos values at multiples of pi
        text = _dispatch("", per)
        return Script(f"first [ solve [{text}] | {alt} ]" if alt else text, "closed",
                      frozenset({"interval"}))
    needs, classes = set(), set()
    for r in st.concl:
        _, klass, need = _closer(r, goal.printer, quick=True)
        classes.add(klass)
        needs |= need
    if _has(exprs, sp.Sum):
        klass = "sum"
    else:
        klass = "inequality" if "inequality" in classes else "trig" if "trig" in classes \
            else "algebra"
    n = len(goal.obligations) + len(st.concl)
    lib = _library.script_for(st, goal) if _library is not None else "intros; pe_auto"
    library = f"solve [{lib or 'intros; pe_auto'}]"  # coqlib's: linear in the conjuncts
    if n > MANY:
        return Script(library, klass, frozenset(needs))
    if klass == "sum" and _longest_sum(exprs) > MAX_SUM_TERMS:
        raise NoScript(f"a sum of {_longest_sum(exprs)} terms under a quantifier (the scripts "
                       f"expand sums of at most {MAX_SUM_TERMS} terms)")
    if klass == "sum":  # coqlib's, else sums of constants (Check.v's pe_zsum_const)
        const = constant_summand(exprs)
        more = f" | {CONST_SUM.format(c=goal.printer.term(const))}" if const is not None else ""
        alt = sum_alternative(st, goal)  # scripts4.py: shape-specific, so tried first
        return Script(f"first [ {alt + ' | ' if alt else ''}{library} | solve [pe_zsum_const]"
                      f"{more} ]", klass, frozenset(needs))
    helpers, uses = _shapes(st, goal, 3)
    per = [obligation_closer(o, bound_obligation(st, OBLIGATION)) for o in goal.obligations]
    for j, r in enumerate(st.concl):
        tac, _, _ = _closer(r, goal.printer)
        first = bound_first(st, r, goal)  # error bounds, chords (bound_scripts.py)
        tri = triangle(st, r, goal) or separation_pair(st, r, goal)  # scripts4, trig_values
        first = [tri] + first if tri else first
        tac = f"first [ {' | '.join(first)} | {tac} ]" if first else tac
        per.append(uses.get(j, tac))
    extra = extra_alternatives(st, goal, angle_plan)  # coqineq_scripts: a script tried
    for j, (before, after) in extra.items():  # before the closer puts ours before coqlib's
        k = len(goal.obligations) + j
        per[k] = "first [ " + " | ".join(t for t in (before, per[k], after) if t) + " ]"
    pre = "".join(f"{h}; " for h in helpers)
    ours = f"solve [{_dispatch(pre + 'intros; pe_zfacts; ', per)}]"
    alts = [library, ours] if classes <= {"trig", "algebra"} and not any(
        b for b, _ in extra.values()) else [ours, library]
    return Script("first [ " + "\n  | ".join(alts) + " ]", klass, frozenset(needs))


def _shapes(st: Statement, goal: Goal, least: int) -> tuple[list[str], dict]:
    """Conclusions that are one relation at different variables (block ``j`` of a concrete
    width: the same identity at frequency ``w_j``): the relation is proved once, for all
    values, as a helper (``assert``), and each conclusion applies it."""
    byname = {n: v for v, n in goal.names.items()}
    groups: dict = {}
    for j, r in enumerate(st.concl):
        try:
            text, _ = goal.printer.relation(r)
        except Untranslatable:
            continue
        order: list = []
        for tok in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
            if tok in byname and byname[tok] not in order:
                order.append(byname[tok])
        key = (re.sub(r"[A-Za-z_][A-Za-z0-9_]*",
                      lambda m, order=order: f"x{order.index(byname[m.group(0)])}"
                      if m.group(0) in byname else m.group(0), text),
               tuple(st.domain(v) for v in order))
        groups.setdefault(key, []).append((j, order))
    helpers, uses = [], {}
    for members in groups.values():
        if len(members) < least:
            continue
        j0, order0 = members[0]
        names = {v: f"x{k}" for k, v in enumerate(order0)}
        zvars = {v for v in order0 if v in goal.printer.zvars}
        pr = Printer(names, zvars, set(names.values()) | set(goal.names.values()))
        try:
            rel, obl = pr.relation(st.concl[j0])
            tac, _, _ = _closer(st.concl[j0], pr)
        except (Untranslatable, NoScript):
            continue
        binders = [Binder(names[v], "Z" if v in zvars else "R", v, st.domain(v))
                   for v in order0]
        prem = [p for b in binders for p in domain_props(b, "forall")] + obl
        bs = " ".join(f"({b.name} : {b.ctype})" for b in binders)
        stmt = (f"forall {bs}, " if bs else "") + "".join(f"{p} -> " for p in prem) + rel
        h = f"pe_shape_{len(helpers)}"
        helpers.append(f"assert ({h} : {stmt}) by (intros; pe_zfacts; {tac})")
        for j, order in members:
            args = " ".join(goal.names[v] for v in order)
            uses[j] = f"solve [apply ({h} {args}); first [assumption | pe_side]]"
    return helpers, uses


def _dispatch(pre: str, per: list[str]) -> str:
    """``pre`` then the conjunction split, one tactic per conjunct (in the printed order)."""
    if len(per) == 1:
        return f"{pre}{per[0]}"
    return f"{pre}pe_split; [ " + "\n  | ".join(per) + " ]"


def _same(a, b) -> bool:
    """``a`` and ``b`` print the same (``srepr``), tested only when they are equal as trees
    (same ``srepr`` implies equal trees; the tree test is cheap, the printing is not)."""
    return a == b and sp.srepr(a) == sp.srepr(b)


def _closed(r, pr: Printer | None = None) -> str:
    if r.op == "==" and _same(r.lhs, r.rhs):
        return "reflexivity"
    if r.op == "==":
        alts = ["reflexivity", "solve [field]", "solve [lra]", "solve [pe_zsum_eval; field]"]
        return f"first [ {' | '.join(alts + period_alternatives(r, pr))} ]"
    if r.op == "!=":
        return f"first [ solve [lra] | {TRIG_CONST} | solve [pe_interval] ]"
    return "first [ solve [lra] | solve [pe_interval] ]"


def _closer(r, pr: Printer, quick: bool = False) -> tuple[str, str, set]:
    """The tactic of one conclusion of a ``forall`` goal, its class and what it needs
    (``quick``: only the class and the needs)."""
    exprs = [r.lhs, r.rhs]
    if r.op == "==" and _same(r.lhs, r.rhs):
        return "reflexivity", "algebra", set()
    trig = _has(exprs, sp.sin | sp.cos)
    if quick:
        return "", "inequality" if r.op != "==" else "trig" if trig else "algebra", \
            set() if r.op == "==" else {"interval"}
    text = pr.relation(r)[0] if _has(exprs, sp.Pow) else ""
    powers = "rpow" in text
    ratios = bool(re.search(r"/ \(*IZR", text))  # exponents such as 2 i / d
    if r.op == "==":
        try:
            closer = trig_closer(exprs, pr)
        except (NoScript, Untranslatable):
            closer = "fail"
        alts = ["reflexivity"] + period_alternatives(r, pr) + [f"solve [{closer}]"]
        if not trig:
            alts += ["solve [pe_side]"]
        if pr.zexact(r.lhs) is not None and pr.zexact(r.rhs) is not None:
            alts += ["solve [pe_zeq_nra]"]
        if powers:
            alts += ["solve [pe_rpow]", "solve [pe_rpow_norm]"]
        if trig:
            alts += ["solve [pe_piZ]"]
        if _has(exprs, sp.floor | sp.Mod):
            alts.insert(1, "solve [pe_intpart]")
        return f"first [ {' | '.join(alts)} ]", "trig" if trig else "algebra", set()
    alts = ["solve [pe_side]"] + (["solve [pe_rpow]"] if powers else []) + (
        ["solve [pe_expo]"] if ratios else []) + ["solve [pe_bounds; nra]", "solve [pe_abs; nra]"]
    if trig and r.op == "!=":
        alts.append(TRIG_CONST)
        try:
            alts.append(f"solve [intro; {trig_closer(exprs, pr)}]")
        except (NoScript, Untranslatable):
            pass
    alts += bound_alternatives(exprs)
    if _has(exprs, sp.floor | sp.Mod):
        alts.insert(0, "solve [pe_intpart]")
    alts.append(f"timeout {TIMEOUT} (solve [pe_interval])")
    return f"first [ {' | '.join(alts)} ]", "inequality", {"interval"}


#: a definedness obligation: pe_side, else the sign of a product of positive atoms
#: (``0 < 10000 * rpow s e``: Check.v's pe_possign)
OBLIGATION = "first [ solve [pe_side] | solve [pe_possign] ]"

BOUND_TIMEOUT = 5  # seconds of one nra-based search (Coq's [timeout]: a failure, never a hang)


def bound_alternatives(exprs) -> list[str]:
    """Scripts keyed on the relation's shape (Check.v, "Bounds"): ``Abs`` anywhere -> the
    hypotheses' bounds split and ``pe_absnra``; a common summand or factor on both sides ->
    ``pe_gcongr``; a quotient -> ``pe_divnra`` (denominators positive by ``lra``/``nra``)."""
    out = []
    if _has(exprs, sp.Abs):
        out.append(f"timeout {BOUND_TIMEOUT} (solve [pe_absnra])")
    out.append(f"timeout {BOUND_TIMEOUT} (solve [pe_gcongr])")
    if any(isinstance(n, sp.Pow) and n.exp.is_negative for e in exprs
           for n in sp.preorder_traversal(e)):
        out.append(f"timeout {BOUND_TIMEOUT} (solve [pe_divnra])")
        out.append(f"timeout {BOUND_TIMEOUT} (solve [pe_frac])")
    return out
