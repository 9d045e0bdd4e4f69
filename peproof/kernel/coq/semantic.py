"""Print a statement's ORIGINAL tree with the functions of ``lib/Sem.v`` (syntax only).

Every SymPy node becomes the one ``option R`` function of ``Sem.v`` that states its meaning
(``None`` where SymPy's value is undefined or not real): this module adds no proposition, no
obligation and no premise.  What a printed theorem means is decided in Coq, once.

The printed tree follows the real-number printer of :mod:`peproof.kernel.coq.translate` node
for node (the same n-ary folds, the same choice of special power forms), so that after the
operations are evaluated (``pe_dec``) each defined value is syntactically the real term that
printer writes: the existing proof scripts run on the real goal, and the reflection step
(:func:`forward_script`, :func:`backward_script`) proves the semantic statement from it.  The
real goal is untrusted: a real goal that says more or less than the statement just fails to
prove it.

Choices that are meaning-preserving rewritings, each stated in ``Sem.v`` where it is not plain
arithmetic: an integer polynomial in integer variables is ``oZ <Z term>`` (``IZR`` is a ring
morphism); ``a * b**-c`` (``c`` a positive number, or ``b`` a positive number) is
``odiv a (b**c)``; ``b**n`` for a literal natural ``n`` is ``opown`` (``opown_opow``), an
integer-polynomial exponent ``opowZ`` (``opowZ_opow``), ``b**(1/2)`` ``osqrt``
(``osqrt_opow``), ``E**x`` ``oexp`` (``oexp_opow``); at a positive integer literal ``p``,
``a / p`` is ``odivp``, ``p**(1/2)`` ``osqrtp``, ``p**e`` ``opowp`` (``odivp_odiv``, ...);
a relation of two integer terms is the relation of ``Z`` (``oeqZ_oeq``, ...).  A statement
whose operations are then all total evaluates to the real goal itself (``pe_same``).
"""

from __future__ import annotations

import re

import sympy as sp

from peproof.kernel.coq import decay, integral, sem_round
from peproof.kernel.coq.coqtext import arg as _a
from peproof.kernel.coq.coqtext import ordered_terms

SREL = {"==": "oeq", "<=": "ole", "<": "olt", "!=": "one"}
SUNARY = {sp.sin: "osin", sp.cos: "ocos", sp.exp: "oexp", sp.atan: "oatan", sp.Abs: "oabs",
          sp.tan: "otan", sp.log: "oln"}


class Unprintable(Exception):
    """A node without a ``Sem.v`` function (the message names it)."""


def den_factor(f) -> bool:
    """Is ``f`` (a factor of a product) printed as a divisor?  ``b**-c`` is ``1 / b**c``
    exactly when ``c`` is a positive number (``0**c = 0``: both undefined at ``b = 0``) or
    ``b`` is a positive number (never zero, always defined)."""
    if not f.is_Pow or not f.exp.could_extract_minus_sign():
        return False
    b, x = f.base, f.exp
    return bool((x.is_number and x.is_negative) or (b.is_number and b.is_positive))


class SemPrinter:
    """The ``Sem.v`` text of expressions and relations, under the names of a real printer
    ``pr`` (its variables, integer variables and taken identifiers)."""

    def __init__(self, pr, name_of, is_sum, cases=None, zforms=False):
        self.pr = pr
        self.name_of = name_of  # the real printer's naming rule (name, taken) -> identifier
        self.is_sum = is_sum  # SymPy nodes whose meaning is Sum's
        # the printer of Piecewise and conditions (peproof.kernel.coq.sem_piecewise), None:
        # Piecewise is unprintable
        self.cases = cases
        # floor(a/p), Mod(a, p) of integer terms as Z's division (goals proved by case split)
        self.zforms = zforms

    def relation(self, r) -> str:
        if r.op not in SREL:
            raise Unprintable(f"relation {r.op!r}")
        zl, zr = self.pr.zexact(r.lhs), self.pr.zexact(r.rhs)
        if zl is not None and zr is not None:  # Sem.v's oeqZ_oeq, ...: the relation of Z
            return f"({SREL[r.op]}Z {_a(zl)} {_a(zr)})"
        return f"({SREL[r.op]} {_a(self.term(r.lhs))} {_a(self.term(r.rhs))})"

    def term(self, e) -> str:  # noqa: C901 - one dispatch over SymPy's node types
        e = sp.sympify(e)
        pr = self.pr
        if isinstance(e, sp.Float):
            raise Unprintable(f"Float {e}")
        if e.is_Integer:
            return f"Some {int(e)}" if e >= 0 else f"Some (- {-int(e)})"
        if e.is_Rational:
            s = f"({abs(e.p)} / {e.q})"
            return f"Some {s}" if e > 0 else f"Some (- {s})"
        if e is sp.pi:
            return "Some PI"
        if e is sp.E:
            return "Some (exp 1)"
        if e.is_Symbol:
            if e not in pr.names:
                raise Unprintable(f"free symbol {e}")
            n = pr.names[e]
            return f"oZ {n}" if e in pr.zvars else f"Some {n}"
        if e.is_Add:
            return self._add(e)
        if e.is_Mul:
            return self._mul(e)
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sp.Sum) or self.is_sum(e):
            return self._sum(e, tuple(e.limits))
        f = type(e)
        if f in SUNARY and len(e.args) == 1:
            return f"{SUNARY[f]} {_a(self.term(e.args[0]))}"
        if f in (sp.Max, sp.Min):
            head = "omax" if f is sp.Max else "omin"
            out = self.term(e.args[0])
            for a in e.args[1:]:
                out = f"{head} {_a(out)} {_a(self.term(a))}"
            return out
        if isinstance(e, sp.Piecewise) and self.cases is not None:
            return self.cases.piecewise(self, e)
        if f is sp.floor:
            z = self.cases.zfloor(self, e) if self.zforms else None
            return z or f"ofloor {_a(self.term(e.args[0]))}"
        if sem_round.is_round(e):  # lib/Round.v's oround: RoundBinary's own definition
            return f"oround {_a(self.term(e.args[0]))} {int(e.args[1])}"
        if f is sp.ceiling:
            return f"oceil {_a(self.term(e.args[0]))}"
        if f is sp.Mod:
            z = self.cases.zmod(self, e) if self.zforms else None
            if z:
                return z
            a, b = (self.term(x) for x in e.args)
            return f"omod {_a(a)} {_a(b)}"
        if (out := integral.sem_term(self, e)) is not None:  # PiIntegral, Delta: Integral.v
            return out
        if (s := decay.sem_term(self, e)) is not None:  # lib/Decay.v's odecay
            return s
        raise Unprintable(f"{f.__name__}")

    def _add(self, e) -> str:
        out = None
        for t in ordered_terms(e):
            c, _ = t.as_coeff_Mul()
            if c.is_negative:
                body = self.term(-t)
                out = f"osub {_a(out)} {_a(body)}" if out else f"oopp {_a(body)}"
            else:
                body = self.term(t)
                out = f"oadd {_a(out)} {_a(body)}" if out else body
        return out

    def _mul(self, e) -> str:
        c, rest = e.as_coeff_Mul()
        if c.is_negative:
            return f"oopp {_a(self.term(-e))}"
        num, den, lit = [], [], []
        if c != 1:
            if c.p != 1:
                num.append(f"Some {c.p}")
            if c.q != 1:
                den.append(f"Some {c.q}")
                lit.append(c.q)
        for f in sp.Mul.make_args(rest):
            if den_factor(f):
                inv = sp.Pow(f.base, -f.exp)
                den.append(self.term(inv))
                lit.append(int(inv) if inv.is_Integer and inv > 0 else None)
            else:
                num.append(self.term(f))
        top = _fold("omul", num) if num else "Some 1"
        if not den:
            return top
        if len(lit) == 1 and lit[0] is not None:  # Sem.v's odivp_odiv
            return f"odivp {_a(top)} {lit[0]}"
        return f"odiv {_a(top)} {_a(_fold('omul', den))}"

    def _pow(self, e) -> str:
        b, x = e.base, e.exp
        pr = self.pr
        if x.is_Integer:
            n = int(x)
            bs = self.term(b)
            if n >= 0:
                return f"opown {_a(bs)} {n}"
            return f"odiv (Some 1) (opown {_a(bs)} {-n})" if n != -1 else \
                f"odiv (Some 1) {_a(bs)}"
        if x == sp.Rational(1, 2):
            if b.is_Integer and b > 0:  # Sem.v's osqrtp_osqrt
                return f"osqrtp {int(b)}"
            return f"osqrt {_a(self.term(b))}"
        if x == sp.Rational(-1, 2):
            return f"odiv (Some 1) (osqrt {_a(self.term(b))})"
        if b is sp.E:
            return f"oexp {_a(self.term(x))}"
        if pr._integer_valued(x) and not (b.is_number and b.is_positive):
            return f"opowZ {_a(self.term(b))} {_a(pr.zexact(x))}"
        if b.is_Integer and b > 0:  # Sem.v's opowp_opow
            return f"opowp {int(b)} {_a(self.term(x))}"
        return f"opow {_a(self.term(b))} {_a(self.term(x))}"

    def _sum(self, e, limits) -> str:
        """``Sum(f, l1, ..., ln)`` is ``Sum(Sum(f, l1, ..., ln-1), ln)``."""
        pr = self.pr
        i, lo, hi = limits[-1]
        if not isinstance(i, sp.Symbol):
            raise Unprintable(f"summation index {i!r}")
        zlo, zhi = pr.zexact(lo), pr.zexact(hi)
        if zlo is not None and zhi is not None:
            head = f"osumZ {_a(zlo)} {_a(zhi)}"
        else:
            head = f"osum {_a(self.term(lo))} {_a(self.term(hi))}"
        idx = self.name_of(i.name, pr.taken)
        with pr.binding(i, idx, integer=True):
            body = self._sum(e, limits[:-1]) if len(limits) > 1 else self.term(e.function)
        return f"{head} (fun {idx} : Z => {body})"


def _fold(head: str, parts: list[str]) -> str:
    out = parts[0]
    for p in parts[1:]:
        out = f"{head} {_a(out)} {_a(p)}"
    return out


# -- reflection scripts ----------------------------------------------------------------------

def forward_script(goal, script: str) -> str:
    """The proof of the semantic statement ``goal.text``: the real goal is proved by
    ``script`` (the existing scripts, unchanged), and ``pe_reflect`` proves the statement from
    it.  ``cut`` leaves ``real -> semantic`` first, then ``real``."""
    names = [b.name for b in goal.binders]
    n_pre = len(goal.domain_hyps) + len(goal.sem_hyps)
    intro = " ".join(names + [f"pe_s{k}" for k in range(n_pre)])
    spec = f"(pe_G {' '.join(names)})" if names else "pe_G"
    if goal.quant == "exists":
        return (f"cut ({goal.real_text}); [ intro pe_G; first [ pe_same pe_G | "
                f"pe_reflect_exists pe_G ] | ({script}) ]")
    intros = f"intros {intro}; " if intro else ""
    cut = (f"cut ({goal.real_text}); [ intro pe_G; first [ pe_same pe_G | {intros}"
           f"pose proof {spec} as pe_K; clear pe_G; pe_reflect pe_K ] | ({script}) ]")
    if _total(goal.text):
        # every operation total: the statement evaluates to the real goal itself, on which the
        # script runs at once -- the real goal is not printed a second time for ``cut`` (its
        # elaboration cost 1.6 s of a 4 s concrete-d proof).  No fallback: were the evaluated
        # goal another text, the script would fail on it and the claim stay unchecked
        return f"pe_cbn_goal; ({script})"
    return cut


#: the ``Sem.v`` functions ``pe_cbn_goal`` evaluates to real terms whatever their arguments
TOTAL = frozenset({"oZ", "oadd", "osub", "omul", "oopp", "olift", "osin", "ocos", "oexp",
                   "oatan", "oabs", "ofloor", "oceil", "omax", "omin", "opown", "odivp",
                   "osqrtp", "opowp", "oeq", "one", "ole", "olt"})


def _total(text: str) -> bool:
    """Does the statement's text use only :data:`TOTAL` functions?  Any other word beginning
    with ``o`` (another function, or a variable so named) or ``isZ`` says no: the reflection."""
    return set(re.findall(r"\b(?:o[A-Za-z0-9_']*|isZ)\b", text)) <= TOTAL


def backward_script(goal, script: str) -> str:
    """The proof of ``~ statement`` for a refuted claim: from the statement ``pe_S``, its real
    form with the conclusions' obligations as premises (``goal.real_refutable_text``), then the
    existing negation script (which starts with ``intro H``)."""
    names = [b.name for b in goal.binders]
    n_real = len(goal.domain_hyps) + len(goal.def_hyps) + len(goal.hyps)
    n_real += len(goal.obligations) if goal.binders else 0
    intro = " ".join(names + [f"pe_r{k}" for k in range(n_real)])
    spec = f"(pe_S {' '.join(names)})" if names else "pe_S"
    intros = f"intros {intro}; " if intro else "intros; "
    return (f"intro pe_S; assert (pe_R : {goal.real_refutable_text}) by ({intros}"
            f"pose proof {spec} as pe_K; clear pe_S; pe_reflect_back pe_K); revert pe_R; "
            f"clear pe_S; ({script})")


def sum_limits_at(st, point: dict) -> list[int]:
    """The integer values, at the witness ``point`` (``{name: value text}``), of the statement's
    sum limits that are not integer literals (``d/2 - 1`` at ``d = 4``: 1), for
    :func:`negation_script`; a limit under another sum's index is left out."""
    import sympy as sp

    env = {}
    for v in st.vars:
        raw = point.get(v.symbol.name)
        if raw is None:
            return []
        try:  # a rational value; another (1 + 2*pi) leaves the limits it enters out
            env[v.symbol] = sp.Rational(str(raw).split(" (ball")[0])
        except (TypeError, ValueError):
            continue
    out: set[int] = set()
    for r in st.concl + st.hyps:
        for e in (r.lhs, r.rhs):
            for node in sp.preorder_traversal(e):
                if isinstance(node, sp.Sum):
                    for _, a, b in node.limits:
                        for lim in (a, b):
                            val = lim.xreplace(env) if not lim.is_Integer else None
                            if val is not None and val.is_Integer:
                                out.add(int(val))
    return sorted(out)


def _limit_hints(limits) -> str:
    """For each value ``v``: each sum limit of ``Hc`` equal to ``v`` (``4 / 2 - 1``) gets the
    hypothesis ``IZR v = limit`` (``lra``), which ``pe_sums_in`` reads to evaluate the sum."""
    out = ""
    for v in limits:
        have = ("lazymatch goal with _ : IZR _ = {t} |- _ => fail "
                "| _ => assert (IZR ({v})%Z = {t}) by lra end")
        out += ("repeat match type of Hc with context [osum (Some ?a) (Some ?b) _] => first [ ("
                + have.format(t="b", v=v) + ") | (" + have.format(t="a", v=v) + ") ] end; ")
    return out + "pe_sums_in Hc; pe_dec_h; "


def negation_script(goal, vals: list[str], script: str, limits=()) -> str:
    """The proof of ``~ statement`` at the certified point ``vals`` (Coq terms in binder
    order): the statement itself specialised and evaluated there (``pe_sem_feed``,
    ``pe_dec_h``: an undefined conclusion is False; sums whose limits have the values
    ``limits`` there evaluated, :func:`sum_limits_at`), then ``pe_refute``; else the real
    route (:func:`backward_script`, whose premises are the printer's obligations)."""
    spec = f"(H {' '.join(vals)})" if vals else "H"
    sums = _limit_hints(limits) if limits else ""
    direct = (f"intro H; pose proof {spec} as Hc; pe_sem_feed Hc; pe_dec_h; {sums}pe_destr Hc; "
              "first [ solve [pe_refute] | solve [exfalso; pe_refute] ]")
    return f"first [ solve [{direct}] | solve [{backward_script(goal, script)}] ]"
