"""Statements that rest on the irrationality of pi, proved with ``lib/PiIrr.v``.

Three shapes, recognised by what the statement says (never by a claim's id):

* ``wrap`` -- an integer equation ``A == B`` from ``sin(u) == sin(v)`` and ``cos(u) == cos(v)``
  where ``u - v`` is a nonzero rational multiple of ``A - B`` (the arguments need not be the
  integers themselves: ``a/3``, ``2*a + 1``).  ``PiIrr.sin_cos_rat_zero``: equal sine and
  cosine at a rational distance ``P / Q`` force ``P = 0``, and ``lia`` gives ``A = B``.  As a
  ``forall`` statement (the equation its conclusion, the pair among its relations) or as a
  refuted ``exists`` (one hypothesis ``A != B``, the pair among the rest): its negation.
* ``dfs`` -- a nonzero rational ``c`` against ``pi * R`` with ``R`` a quotient of integer
  polynomials (``2*pi*k/N``): ``PiIrr.pi_rat_neq``.  A ``forall`` statement ``c != pi R`` or
  a refuted ``exists`` with the conclusion ``c == pi R``: its negation.
* ``separation`` -- ``0 < S`` for ``S`` a sum of squares, or ``Sum`` of one (literal limits),
  whose terms (the first one of the ``Sum``) include ``(sin u - sin v)**2`` and
  ``(cos u - cos v)**2`` with ``u - v`` a rational multiple of integers: that pair is positive
  (``PiIrr.sin_cos_rat_pos``, ``P <> 0`` by ``lia`` from the hypotheses) and every other square
  is not negative (``PiIrr.zsum_pos_first`` for the ``Sum``).

Python only recognises the shape and prints the integers ``P``, ``Q`` of the rational
distance; Coq proves ``u - v = IZR P / IZR Q`` itself (``field``), so a wrong guess fails the
proof, never passes it.  A frequency with pi in it (``sin(pi a)``) or an irrational one
(``10000**(-2i/d)``: the transcendence of pi) is not one of these shapes
(:mod:`peproof.kernel.coq.outside` gives its reason).  :func:`proof` is hooked into
:func:`peproof.kernel.coq.check.plan` before every other script.  A ``wrap`` or ``dfs``
``forall`` proof proves the real goal (the reflection step proves the statement from it); a
negation proves the negation of the printed statement itself (its hypotheses evaluated by
``pe_dec_h``); a separation proof proves the printed statement itself too (its sum evaluated by
``pe_sums``): both are of class :data:`STATEMENT`, whose text check.py uses as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

import sympy as sp

#: what the header loads for these proofs (run.py: lib/PiIrr.v)
NEEDS = frozenset({"pi"})
#: ``x - y = IZR P / IZR Q`` (or ``c1 / c2 = ...``): IZR pushed inside, the frequency's
#: ``rpow b (0 / n) = 1`` of a sum's first term, then field (a denominator's side condition
#: from the context or the integer hypotheses)
FIELD = ("rewrite ?mult_IZR, ?minus_IZR, ?plus_IZR, ?opp_IZR; unfold Rdiv; "
         "rewrite ?Rmult_0_l, ?rpow_0; field; "
         "repeat first [ assumption | (apply not_0_IZR; lia) | lra ]")
EQ = "first [ assumption | (symmetry; assumption) ]"
#: the class of a proof of the printed theorem itself (check.py uses its text as it is): the
#: reflection's hypothesis evaluation (pe_dec_h, whose pe_absurd puts a goal in head normal
#: form) would compute a Sum of 256 terms, so a separation statement is evaluated here by
#: pe_sums / pe_dec alone (0.3 s instead of a time-out)
STATEMENT = "pi-statement"
#: every square of the goal not negative, then the positive pair: lra
SQUARES = ("repeat match goal with |- context [(?u) ^ 2] => lazymatch goal with "
           "_ : 0 <= u ^ 2 |- _ => fail | _ => pose proof (pow2_ge_0 u) end end; lra")


@dataclass(frozen=True)
class Shape:
    kind: str  # "wrap", "dfs", "separation"
    p: sp.Expr  # the integer numerator (an integer polynomial in integer variables)
    q: sp.Expr  # the integer denominator
    u: sp.Expr = sp.S.Zero  # wrap: the arguments of the pair
    v: sp.Expr = sp.S.Zero
    c: sp.Rational = sp.S.One  # dfs: the rational side
    rel: object = None  # dfs: the relation c ? pi R; separation: the conclusion
    lhs_is_c: bool = True


@dataclass(frozen=True)
class Proof:
    text: str
    negation: bool
    #: "pi": the text proves the real goal (the caller adds the reflection step);
    #: "pi-statement": the printed theorem itself (or its negation)
    klass: str = "pi"


def _ints(st) -> set:
    return {v.symbol for v in st.vars if "integer" in v.domain}


def _int_poly(e, ints) -> bool:
    """``e`` a polynomial with integer coefficients in integer variables."""
    e = sp.expand(e)
    if not e.free_symbols <= ints:
        return False
    if not e.free_symbols:
        return e.is_Integer
    try:
        poly = sp.Poly(e, *sorted(e.free_symbols, key=str))
    except sp.PolynomialError:
        return False
    return all(c.is_Integer for c in poly.coeffs())


def _over_q(e, ints) -> tuple[sp.Expr, int] | None:
    """``e`` as ``P / Q``: ``P`` an integer polynomial in integer variables, ``Q`` a positive
    integer (``e`` a polynomial with rational coefficients in them), else None."""
    e = sp.expand(e)
    if e.has(sp.pi) or not e.free_symbols <= ints:
        return None
    if not e.free_symbols:
        return (e * e.q, int(e.q)) if e.is_Rational else None
    try:
        poly = sp.Poly(e, *sorted(e.free_symbols, key=str))
    except sp.PolynomialError:
        return None
    if not all(c.is_Rational for c in poly.coeffs()):
        return None
    q = lcm(*(int(c.q) for c in poly.coeffs()))
    return sp.expand(e * q), q


def _pairs(rels):
    """``(u, v)`` for each ``sin(u) == sin(v)`` among ``rels`` with ``cos(u) == cos(v)`` (either
    side) among them too."""
    eqs = [r for r in rels if r.op == "=="]
    for s in eqs:
        if isinstance(s.lhs, sp.sin) and isinstance(s.rhs, sp.sin):
            u, v = s.lhs.args[0], s.rhs.args[0]
            if any({c.lhs, c.rhs} == {sp.cos(u), sp.cos(v)} for c in eqs):
                yield u, v


def _wrap(eq, rels, ints) -> Shape | None:
    a, b = eq.lhs, eq.rhs
    if a == b or not (_int_poly(a, ints) and _int_poly(b, ints)):
        return None
    for u, v in _pairs(rels):
        pq = _over_q(u - v, ints)
        if pq is None or pq[0] == 0:
            continue
        ratio = sp.cancel(pq[0] / (a - b))
        if ratio.is_Rational and ratio != 0:  # P = 0 says A = B (lia)
            return Shape("wrap", pq[0], sp.Integer(pq[1]), u, v)
    return None


def _dfs(r, ints) -> Shape | None:
    for c, e, left in ((r.lhs, r.rhs, True), (r.rhs, r.lhs, False)):
        if not (c.is_Rational and c != 0 and e.has(sp.pi)):
            continue
        ratio = sp.cancel(e / sp.pi)
        if ratio.has(sp.pi):
            continue
        num, den = sp.fraction(ratio)
        n, d = _over_q(num, ints), _over_q(den, ints)
        if n is None or d is None or d[0] == 0:
            continue
        # pi * num / den = pi * (n0 * d1) / (d0 * n1)
        return Shape("dfs", sp.expand(n[0] * d[1]), sp.expand(d[0] * n[1]), c=c, rel=r,
                     lhs_is_c=left)
    return None


def _squares(e) -> list | None:
    terms = sp.Add.make_args(e)
    return list(terms) if all(t.is_Pow and t.exp == 2 for t in terms) else None


def _separation(r, ints) -> Shape | None:
    if r.op != "<" or r.lhs != 0:
        return None
    body = r.rhs
    if isinstance(body, sp.Sum):
        if len(body.limits) != 1:
            return None
        j, lo, hi = body.limits[0]
        if not (lo.is_Integer and hi.is_Integer and lo <= hi) or _squares(body.function) is None:
            return None
        body = body.function.subs(j, lo)
    terms = _squares(body)
    if terms is None:
        return None
    bases = {t.base for t in terms}
    for t in bases:
        parts = sp.Add.make_args(t)
        sins = [x for x in parts if isinstance(x, sp.sin)]
        negs = [-x for x in parts if isinstance(-x, sp.sin)]
        if len(parts) != 2 or len(sins) != 1 or len(negs) != 1:
            continue
        u, v = sins[0].args[0], negs[0].args[0]
        if not ({sp.cos(u) - sp.cos(v), sp.cos(v) - sp.cos(u)} & bases):
            continue
        pq = _over_q(u - v, ints)
        if pq is not None and pq[0] != 0:
            return Shape("separation", pq[0], sp.Integer(pq[1]), u, v, rel=r)
    return None


def shape(st) -> Shape | None:
    """The shape of a ``forall`` statement (or of the ``forall`` negation of a refuted
    ``exists``, :func:`negated_shape`) this module proves, or None."""
    if st.quant != "forall" or len(st.concl) != 1:
        return None
    ints, r = _ints(st), st.concl[0]
    if r.op == "==":
        return _wrap(r, st.hyps, ints)
    if r.op == "!=":
        return _dfs(r, ints)
    return _separation(r, ints)


def negated_shape(st) -> Shape | None:
    """A refuted ``exists``: ``exists x, A != B and <pair>`` (wrap) or ``exists x, c == pi R``
    (dfs), the other relations any."""
    if st.quant != "exists":
        return None
    ints, rels = _ints(st), list(st.hyps) + list(st.concl)
    neq = [r for r in rels if r.op == "!="]
    if len(neq) == 1:
        return _wrap(neq[0], [r for r in rels if r is not neq[0]], ints)
    if not neq and len(st.concl) == 1 and st.concl[0].op == "==":
        return _dfs(st.concl[0], ints)
    return None


# -- the proofs ---------------------------------------------------------------------------

def _z(pr, e) -> str | None:
    z = pr.zexact(e)
    return None if z is None else f"({z})%Z"


def _core(sh: Shape, pr) -> str | None:
    """The tactic closing the goal from the context's real relations (the conclusion
    ``A = B``, or False, for wrap; False, or ``c <> pi R`` introduced, for dfs)."""
    p, q = _z(pr, sh.p), _z(pr, sh.q)
    if p is None or q is None:
        return None
    if sh.kind == "wrap":
        x, y = pr.term(sh.u), pr.term(sh.v)
        return (f"assert (pe_p : {p} = 0%Z) by (apply (sin_cos_rat_zero ({x}) ({y}) {p} {q}); "
                f"[ lia | {FIELD} | {EQ} | {EQ} ]); lia")
    if sh.kind == "dfs":
        c = f"({sh.c.p})%Z ({sh.c.q})%Z"
        side, other = (sh.rel.lhs, sh.rel.rhs) if sh.lhs_is_c else (sh.rel.rhs, sh.rel.lhs)
        lt, rt = pr.term(side), pr.term(other)
        return (f"apply (pi_rat_neq {c} {p} {q}); [ lia | lia | lia | ]; "
                f"transitivity ({lt}); [ {FIELD} | ]; transitivity ({rt}); [ {EQ} | {FIELD} ]")
    return None


def _separation_script(sh: Shape, pr) -> str | None:
    p, q = _z(pr, sh.p), _z(pr, sh.q)
    if p is None or q is None:
        return None
    # the pair is found in the goal (its printed arguments at the first index); P's sign
    # follows the printed order of the difference
    pos = ("match goal with |- context [(sin ?x - sin ?y) ^ 2] => "
           "assert (pe_sep : 0 < (sin x - sin y) ^ 2 + (cos x - cos y) ^ 2) by first [ "
           f"solve [apply (sin_cos_rat_pos x y {p} {q}); [ lia | lia | {FIELD} ]] "
           f"| solve [apply (sin_cos_rat_pos x y (- {p})%Z {q}); [ lia | lia | {FIELD} ]] ]; "
           f"{SQUARES} end")
    if isinstance(sh.rel.rhs, sp.Sum):
        return (f"intros; apply zsum_pos_first; [ lia | cbv beta; {pos} "
                f"| intros pe_j pe_Hj; cbv beta; {SQUARES} ]")
    return f"intros; {pos}"


def proof(st, goal, refuted: bool) -> Proof | None:
    """The proof of a statement of these shapes: of its real goal (a ``forall``; the
    reflection step is the caller's), or of its negation as printed (a refuted ``exists``);
    None for any other statement."""
    pr = goal.printer
    if pr is None or not goal.real:
        return None
    if refuted:
        sh = negated_shape(st)
        core = _core(sh, pr) if sh else None
        if core is None:
            return None
        names = " & ".join([b.name for b in goal.binders] + ["pe_S"])
        return Proof(f"intros ({names}); decompose [and] pe_S; clear pe_S; pe_dec_h; {core}",
                     True, STATEMENT)
    sh = shape(st)
    if sh is None:
        return None
    if sh.kind == "separation":  # the statement itself: its sum evaluated, then the script
        text = _separation_script(sh, pr)
        return Proof(f"intros; pe_cbn; pe_sums; pe_dec; {text}", False, STATEMENT) \
            if text else None
    if sh.kind == "dfs":
        core = _core(sh, pr)
        text = f"intros; pe_split; first [ solve [pe_side] | intro pe_e; {core} ]" \
            if core else None
    else:
        core = _core(sh, pr)
        text = f"intros; {core}" if core else None
    return Proof(text, False) if text else None
