"""Print a claim's ORIGINAL statement for Coq: the theorem, and the real goal its scripts prove.

Two texts of one tree, printed node for node:

* :attr:`Goal.text`, the THEOREM: the statement with the functions of ``lib/Sem.v``
  (:mod:`peproof.kernel.coq.semantic`), where every operation's definedness is stated once, as
  SymPy's (``None`` where SymPy's value is undefined or not real), relations are false on an
  undefined side, and quantifiers, domains and hypotheses are as written (closed statements
  and existentials without variables included).  No obligation, no premise of the printer's.
* :attr:`Goal.real_text`, the REAL GOAL over Coq's total reals, which the proof scripts
  (:mod:`peproof.kernel.coq.tactics`) prove: each partial operation becomes a *definedness
  obligation* (conjoined in a conclusion, a premise before a hypothesis).  It is UNTRUSTED:
  the reflection step (``CheckSem.v``: ``pe_reflect``) must prove the theorem from it, which
  fails when an obligation is stronger than SymPy's definedness in a hypothesis (the old
  ``0 < b`` of ``b**p``, where SymPy also defines ``0**p``).

Whatever has no printing is refused (:class:`Untranslatable`, the reason naming the node).

Grammar of the real goal (:mod:`peproof.kernel.coq.reparse` reads it, and the theorem's
``oeq``/``oadd``/... terms, back)::

    goal   ::= "forall" binder+ "," (hyp "->")* body | "exists" binder+ "," conj | body
    binder ::= "(" name ":" ("R" | "Z") ")"
    body   ::= prop ("/\\" prop)*            obligations first, then the conclusions
    prop   ::= "(" rterm rop rterm ")" | "(" zterm zop zterm ")%Z" | "Z.Even" name
             | "(exists (" name name ": Z), (0 <" name ")%Z /\\" name "= IZR" name "/ IZR" name ")"
             | "(forall" name ": Z, (Z.min" z z "<=" name "<" "Z.max" z z ")%Z ->" prop ")"
    rop    ::= "=" | "<=" | "<" | "<>"          zop ::= rop on Z
    rterm  ::= name | "IZR" zatom | numeral | "PI" | "(" rterm ("+"|"-"|"*"|"/") ... ")"
             | "(-" rterm ")" | "(" rterm "^" nat ")" | f rterm  (f: sin cos tan exp ln sqrt
               Rabs atan) | "Rmax" rterm rterm | "Rmin" rterm rterm | "rpow" rterm rterm
             | "powerRZ" rterm zatom | "IZR (Int_part" rterm ")"
             | "zsum" zatom zatom "(fun" name ": Z =>" rterm ")"
    zterm  ::= name | numeral | "(" zterm ("+"|"-"|"*") zterm ")" | "(" zterm "/" numeral ")"

``rpow`` and ``zsum`` are the library's (``peproof/kernel/coq/lib/Defs.v``): ``rpow b e`` is
``Rpower`` for a positive base (always printed with ``0 < b`` proved), ``zsum a b f`` is SymPy's
``Sum`` with Karr's convention for reversed limits.

Domains: ``real`` ``(x : R)``; ``pos_real`` ``(x : R)`` with ``0 < x``; ``rational`` ``(x : R)``
under ``forall`` (a statement for every real is stronger: sound) and ``(x : R)`` with a proof
that ``x`` is a quotient of integers under ``exists``; ``integer`` ``(k : Z)`` used as
``IZR k``; ``nonneg_integer`` / ``pos_integer`` / ``even_pos_integer`` ``(k : Z)`` with
``0 <= k`` / ``0 < k`` / ``Z.Even k /\\ 0 < k``.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from math import lcm
from pathlib import Path

import sympy as sp

from peproof.claims import INT_DOMAINS, Rel, Statement
from peproof.kernel.coq import decay, integral, sem_piecewise, sem_round
from peproof.kernel.coq.coqtext import arg, ordered_terms
from peproof.kernel.coq.semantic import SemPrinter, Unprintable, den_factor


class Untranslatable(Exception):
    """The statement has a node without a meaning-preserving Coq printing (the message names
    the node)."""


#: identifiers the printed goals use, and Coq's keywords: never a variable's name
RESERVED = frozenset("""
    R Z IZR PI sin cos tan exp ln sqrt Rabs Rmax Rmin atan rpow powerRZ zsum Int_part up
    forall exists fun fix cofix let in match with end as return if then else Prop Set Type
    Even Rpower Rdiv Rinv Rmult Rplus Rminus Ropp Rlt Rle Rgt Rge pow True False not and or
    SProp at using Theorem Lemma Proof Qed Admitted Defined Definition Fixpoint Axiom
    Parameter Variable Hypothesis Module End Section Require Import Export Open Scope O S
""".split())
#: and every name the library and the printed theorems use (Sem.v's functions, Integral.v's,
#: Decay.v's, Round.v's, their lemmas and tactics, the constructors of the printed terms): a
#: variable called ``nil``, ``Some`` or ``oadd`` would otherwise shadow them
_COQ = Path(__file__).resolve().parent
RESERVED = RESERVED | frozenset(
    m for f in sorted(_COQ.glob("lib/*.v")) + sorted(_COQ.glob("Check*.v"))
    for m in re.findall(r"^\s*(?:Definition|Fixpoint|Inductive|Lemma|Theorem|Corollary|Ltac|"
                        r"Axiom)\s+([A-Za-z_][A-Za-z0-9_']*)", f.read_text(), re.M)) | frozenset(
    "Some None cons nil true false negb list pair option bool".split())
IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

BALANCE = 8  # conjunctions longer than this are printed as balanced trees
ROPS = {"==": "=", "<=": "<=", "<": "<", "!=": "<>"}
#: function heads printed as ``f (x)``, each with its definedness condition (None: total and
#: equal to SymPy's on the reals)
UNARY = {sp.sin: ("sin", None), sp.cos: ("cos", None), sp.exp: ("exp", None),
         sp.atan: ("atan", None), sp.Abs: ("Rabs", None), sp.tan: ("tan", "cos<>0"),
         sp.log: ("ln", ">0")}
#: SymPy subclasses of Sum whose meaning is Sum's (they only change how SymPy evaluates them)
SUM_ALIASES = frozenset({"peproof.families.separation.PairSum"})


@dataclass(frozen=True)
class Binder:
    name: str
    ctype: str  # "R" or "Z"
    symbol: sp.Symbol
    domain: str


@dataclass
class Goal:
    """A printed Coq proposition with its parts (for tactics, the report and the tests)."""

    quant: str
    binders: tuple[Binder, ...]
    domain_hyps: tuple[str, ...]
    def_hyps: tuple[str, ...]
    hyps: tuple[str, ...]
    obligations: tuple[str, ...]
    concls: tuple[str, ...]
    names: dict = field(default_factory=dict)  # symbol -> Coq name
    heads: frozenset = frozenset()  # printed heads used: zsum, rpow, sqrt, ...
    printer: Printer | None = None  # the printer (its names), for the proof scripts
    sem_hyps: tuple[str, ...] = ()  # the hypotheses in Sem.v's functions (their meaning)
    sem_concls: tuple[str, ...] = ()  # the conclusions in Sem.v's functions
    # False: no real goal (real_text and its parts are empty); the theorem is proved by case
    # split on its own terms (Piecewise)
    real: bool = True

    @property
    def text(self) -> str:
        """The theorem: the ORIGINAL statement printed with Sem.v's functions (quantifier,
        domains, hypotheses and conclusions as written; no obligation, no premise of the
        printer's own)."""
        concl = _conj(list(self.sem_concls))
        bs = " ".join(f"({b.name} : {b.ctype})" for b in self.binders)
        if self.quant == "exists":
            body = _conj(list(self.domain_hyps) + list(self.sem_hyps) + list(self.sem_concls))
            return f"exists {bs},\n  {body}" if bs else body
        pre = list(self.domain_hyps) + list(self.sem_hyps)
        if not self.binders:
            return "".join(f"{h} ->\n  " for h in pre) + concl
        hs = "".join(f"\n  (pe_h{n} : {h})" for n, h in enumerate(pre))
        return f"forall {bs}{hs},\n  {concl}"

    @property
    def exact(self) -> bool:
        """The theorem (:attr:`text`) states the claim's statement itself, no weaker: it is
        printed in Sem.v's functions, whose meaning is SymPy's, with no premise of the
        printer's own (:func:`peproof.kernel.coq.check.exact_goal` reads this)."""
        return True

    @property
    def refutable_text(self) -> str:
        """The statement whose negation a refuted claim's proof establishes: the statement
        itself (its meaning needs no premise)."""
        return self.text

    @property
    def real_text(self) -> str:
        """The real-number goal the proof scripts prove (untrusted: the reflection step of
        CheckSem.v proves the statement from it, or fails)."""
        body = list(self.obligations) + list(self.concls)
        if not self.binders:
            return _conj(body)
        bs = " ".join(f"({b.name} : {b.ctype})" for b in self.binders)
        if self.quant == "exists":
            parts = list(self.domain_hyps) + list(self.def_hyps) + list(self.hyps) + body
            return f"exists {bs},\n  {_conj(parts)}"
        pre = list(self.domain_hyps) + list(self.def_hyps) + list(self.hyps)
        # named premises: Coq elaborates a body under hundreds of anonymous premises slowly
        hs = "".join(f"\n  (pe_h{n} : {h})" for n, h in enumerate(pre))
        return f"forall {bs}{hs},\n  {_conj(body)}"

    @property
    def real_refutable_text(self) -> str:
        """The goal whose NEGATION a Coq proof may establish for a refuted claim: the
        conclusions' definedness obligations become premises.  An obligation may be stronger
        than SymPy's definedness (``0 < b`` for ``rpow b p``, where SymPy also defines
        ``0**p``); as a conjunct, its failure at the witness would prove the negation of the
        printed goal without the SymPy statement being false there.  As a premise it holds at
        the witness, where Coq's terms then agree with SymPy's, so a proof of the negation is
        a point where the statement's own conclusion is false."""
        if self.quant != "forall" or not self.obligations:
            return self.real_text
        if not self.binders:
            return f"{_conj(list(self.obligations))} ->\n  {_conj(list(self.concls))}"
        pre = list(self.domain_hyps) + list(self.def_hyps) + list(self.hyps) + \
            list(self.obligations)
        bs = " ".join(f"({b.name} : {b.ctype})" for b in self.binders)
        hs = "".join(f"\n  (pe_h{n} : {h})" for n, h in enumerate(pre))
        return f"forall {bs}{hs},\n  {_conj(list(self.concls))}"

    @property
    def n_intro(self) -> int:
        """How many names ``intros`` introduces for a ``forall`` goal."""
        return len(self.binders) + len(self.domain_hyps) + len(self.def_hyps) + len(self.hyps)


def _conj(props: list[str]) -> str:
    """``A /\\ B /\\ C``; a long conjunction as a balanced tree of parenthesized halves (the
    same proposition; splitting a right-nested one of n conjuncts costs time quadratic in n,
    the kernel re-typing the rest of the conjunction at every node)."""
    if not props:
        return "True"
    if len(props) <= BALANCE:
        return " /\\\n  ".join(props)

    def tree(ps):
        if len(ps) == 1:
            return ps[0]
        m = len(ps) // 2
        return f"({tree(ps[:m])} /\\\n  {tree(ps[m:])})"

    return tree(props)


def coq_name(name: str, taken: set[str]) -> str:
    """A Coq identifier for a variable called ``name``: kept when it is a plain identifier
    that is neither reserved nor taken, else prefixed ``v_`` and numbered."""
    base = name if IDENT.match(name) and name not in RESERVED else "v_" + re.sub(r"\W", "_", name)
    if not IDENT.match(base):
        base = "v_" + str(len(taken))
    if base.startswith(("pe_", "peproof")):  # the prefixes of the proofs' own names
        base = "v_" + base
    out, n = base, 0
    while out in taken or out in RESERVED:
        n += 1
        out = f"{base}_{n}"
    taken.add(out)
    return out


def translate(st: Statement) -> Goal:
    """The Coq goal of ``st`` (raises :class:`Untranslatable` with the reason)."""
    if not isinstance(st, Statement):
        raise Untranslatable(f"not a Statement: {type(st).__name__}")
    taken: set[str] = set()
    binders, names, zvars = [], {}, set()
    for v in st.vars:
        if not isinstance(v.symbol, sp.Symbol) or isinstance(v.symbol, sp.Dummy | sp.Wild):
            raise Untranslatable(f"variable {v.symbol!r} is not a plain Symbol")
        n = coq_name(v.symbol.name, taken)
        ctype = "Z" if v.domain in INT_DOMAINS else "R"
        binders.append(Binder(n, ctype, v.symbol, v.domain))
        names[v.symbol] = n
        if ctype == "Z":
            zvars.add(v.symbol)
    for r in st.concl + st.hyps:
        for side in (r.lhs, r.rhs):
            for n in sp.preorder_traversal(side):
                if isinstance(n, sp.Float):
                    raise Untranslatable(f"Float {n}: only exact numbers are translated")
    pr = Printer(names, zvars, taken)
    dom = []
    for b in binders:
        dom.extend(domain_props(b, st.quant))
    def_h, hyps, obls, concls = [], [], [], []
    real = not integral.has_nodes(st)  # PiIntegral, Delta: no real goal (integral_scripts.py)
    cases = False
    try:
        for h in st.hyps if real else ():
            s, obl = pr.relation(h)
            def_h.extend(o for o in obl if o not in def_h)
            hyps.append(s)
        for c in st.concl if real else ():
            s, obl = pr.relation(c)
            obls.extend(o for o in obl if o not in obls and o not in def_h)
            concls.append(s)
    except Untranslatable:
        # no real goal (Piecewise has none): the theorem alone, proved by case split
        # (peproof.kernel.coq.case_scripts), when Sem.v can state it
        if not (_has_piecewise(st) or sem_round.in_statement(st)):
            raise
        real, cases = False, True
        def_h, hyps, obls, concls = [], [], [], []
    sp_ = SemPrinter(pr, coq_name, _sum_alias, cases=sem_piecewise, zforms=cases)
    try:
        sem_h = tuple(sp_.relation(h) for h in st.hyps)
        sem_c = tuple(sp_.relation(c) for c in st.concl)
    except Unprintable as exc:
        raise Untranslatable(str(exc)) from None
    return Goal(st.quant, tuple(binders), tuple(dom), tuple(def_h), tuple(hyps), tuple(obls),
                tuple(concls), names, frozenset(pr.heads), pr, sem_h, sem_c, real)


def _has_piecewise(st: Statement) -> bool:
    return any(side.has(sp.Piecewise) for r in st.concl + st.hyps for side in (r.lhs, r.rhs)
               if isinstance(side, sp.Basic))


def domain_props(b: Binder, quant: str) -> list[str]:
    n = b.name
    if b.domain == "pos_real":
        return [f"(0 < {n})"]
    if b.domain == "rational" and quant == "exists":
        p, q = f"{n}_num", f"{n}_den"
        return [f"(exists ({p} {q} : Z), (0 < {q})%Z /\\ {n} = IZR {p} / IZR {q})"]
    if b.domain == "nonneg_integer":
        return [f"(0 <= {n})%Z"]
    if b.domain == "pos_integer":
        return [f"(0 < {n})%Z"]
    if b.domain == "even_pos_integer":
        return [f"Z.Even {n}", f"(0 < {n})%Z"]
    return []


class Printer:
    """Prints SymPy expressions as Coq terms under fixed variable names, collecting the
    definedness obligations of each relation."""

    def __init__(self, names: dict, zvars: set, taken: set[str]):
        self.names = dict(names)
        self.zvars = set(zvars)
        self.taken = taken
        self.heads: set[str] = set()
        self._obl: list[tuple[str, frozenset]] = []  # (prop, bound index names it mentions)
        self._bound: list[tuple[str, str, str]] = []  # (index, lower Z, upper Z) in scope

    @contextmanager
    def binding(self, sym, name: str, integer: bool | None):
        """Inside the block ``sym`` prints as the bound variable ``name``, an integer
        (``integer`` True), a real (False) or as it was (None); the outer binding is back
        after it, however the block ends."""
        saved = self.names.get(sym), sym in self.zvars
        self.names[sym] = name
        if integer is not None:
            (self.zvars.add if integer else self.zvars.discard)(sym)
        try:
            yield
        finally:
            if saved[0] is None:
                self.names.pop(sym, None)
            else:
                self.names[sym] = saved[0]
            (self.zvars.add if saved[1] else self.zvars.discard)(sym)

    # -- relations -------------------------------------------------------------------------
    def relation(self, r: Rel) -> tuple[str, list[str]]:
        """``r`` printed, and its definedness obligations (outermost scope)."""
        if r.op not in ROPS:
            raise Untranslatable(f"relation {r.op!r}")
        self._obl = []
        for side in (r.lhs, r.rhs):
            if isinstance(side, sp.MatrixBase) or not isinstance(side, sp.Expr):
                raise Untranslatable(f"{type(side).__name__}: only real expressions are "
                                     "translated (matrices and booleans are not)")
        zl, zr = self.zexact(r.lhs), self.zexact(r.rhs)
        if zl is not None and zr is not None:
            s = f"({zl} {ROPS[r.op]} {zr})%Z"
        else:
            s = f"({self.term(r.lhs)} {ROPS[r.op]} {self.term(r.rhs)})"
        out = []
        for p, _ in self._obl:
            if p not in out:
                out.append(p)
        return s, out

    def _oblige(self, prop: str, mentions: set[str]):
        """Record ``prop`` under the summation indices in scope that it mentions."""
        for idx, lo, hi in reversed(self._bound):
            if idx in mentions:
                prop = (f"(forall {idx} : Z, (Z.min {lo} ({hi} + 1) <= {idx} < "
                        f"Z.max {lo} ({hi} + 1))%Z -> {prop})")
                mentions = (mentions - {idx}) | self._names_in(lo) | self._names_in(hi)
        self._obl.append((prop, frozenset(mentions)))

    def _names_in(self, s: str) -> set[str]:
        return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", s))

    # -- integer terms ---------------------------------------------------------------------
    def zexact(self, e) -> str | None:
        """``e`` as a Z term when it is a polynomial with integer coefficients in integer
        variables (its value is then exactly IZR of the term), else None."""
        e = sp.sympify(e)
        if e.is_Integer:
            return str(int(e)) if e >= 0 else f"({int(e)})"
        if e.is_Symbol:
            return self.names[e] if e in self.zvars else None
        if e.is_Add or e.is_Mul:
            parts = [self.zexact(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return "(" + (" + " if e.is_Add else " * ").join(parts) + ")"
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            b = self.zexact(e.base)
            return None if b is None else f"({b} ^ {int(e.exp)})"
        return None

    def zterm(self, e, what: str) -> str:
        """``e`` (integer-valued) as a Z term; a rational-coefficient polynomial in integer
        variables is printed with ``/`` (Z's floor division) and the obligation
        ``IZR <term> = <e over R>`` that makes the division exact."""
        z = self.zexact(e)
        if z is not None:
            return z
        e = sp.expand(sp.sympify(e))
        if not e.is_polynomial(*self.zvars) or e.free_symbols - self.zvars:
            raise Untranslatable(f"{what} {sp.sstr(e)} is not an integer polynomial in "
                                 "integer variables")
        z = ""
        for t in ordered_terms(e):
            c, m = t.as_coeff_Mul()
            c = sp.Rational(c)
            mz = "" if m == 1 else self.zexact(m)
            if mz is None:
                raise Untranslatable(f"{what} {sp.sstr(e)}: term {sp.sstr(t)}")
            num = str(abs(c.p)) if not mz else (mz if abs(c.p) == 1 else f"{abs(c.p)} * {mz}")
            s = num if c.q == 1 else f"({num} / {c.q})"
            z += (" - " if c < 0 else " + ") + s if z else (f"(- {s})" if c < 0 else s)
        z = f"({z})"
        r = self.term(e)
        self._oblige(f"(IZR {z} = {r})", self._names_in(z) | self._names_in(r))
        return z

    # -- real terms ------------------------------------------------------------------------
    def term(self, e) -> str:  # noqa: C901 - one dispatch over SymPy's node types
        e = sp.sympify(e)
        if isinstance(e, sp.Float):
            raise Untranslatable(f"Float {e}: only exact numbers are translated")
        if e.is_Integer:
            return str(int(e)) if e >= 0 else f"(- {-int(e)})"
        if e.is_Rational:
            s = f"({abs(e.p)} / {e.q})"
            return s if e > 0 else f"(- {s})"
        if e is sp.pi:
            return "PI"
        if e is sp.E:
            return "exp 1"
        if e.is_Symbol:
            if e not in self.names:
                raise Untranslatable(f"free symbol {e}")
            n = self.names[e]
            return f"IZR {n}" if e in self.zvars else n
        if e.is_Add:
            return self._add(e)
        if e.is_Mul:
            return self._mul(e)
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sp.Sum) or _sum_alias(e):
            return self._sum(e)
        f = type(e)
        if f in UNARY and len(e.args) == 1:
            head, cond = UNARY[f]
            a = self.term(e.args[0])
            if cond == ">0":
                self._oblige(f"(0 < {a})", self._names_in(a))
            elif cond == "cos<>0":
                self._oblige(f"(cos {arg(a)} <> 0)", self._names_in(a))
            self.heads.add(head)
            return f"{head} {arg(a)}"
        if f in (sp.Max, sp.Min):
            head = "Rmax" if f is sp.Max else "Rmin"
            args = [self.term(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = f"{head} {arg(out)} {arg(a)}"
            self.heads.add(head)
            return out
        if f is sp.floor:
            self.heads.add("floor")
            return f"IZR (Int_part {arg(self.term(e.args[0]))})"
        if f is sp.ceiling:
            self.heads.add("floor")
            return f"(- IZR (Int_part (- {self.term(e.args[0])})))"
        if f is sp.Mod:
            a, b = (self.term(x) for x in e.args)
            self._nonzero(e.args[1], b)
            self.heads.add("floor")
            return f"({a} - {b} * IZR (Int_part ({a} / {b})))"
        if (s := decay.real_term(self, e)) is not None:  # lib/Decay.v's decay_bound
            return s
        raise Untranslatable(f"{f.__name__}: no Coq printing with the same meaning "
                             f"(in {sp.sstr(e)[:80]})")

    def _add(self, e) -> str:
        out = ""
        for t in ordered_terms(e):
            c, rest = t.as_coeff_Mul()
            if c.is_negative:
                body = self.term(-t)
                out += f" - {body}" if out else f"- {body}"
            else:
                body = self.term(t)
                out += f" + {body}" if out else body
        return f"({out})"

    def _mul(self, e) -> str:
        c, rest = e.as_coeff_Mul()
        if c.is_negative:
            return f"(- {self.term(-e)})"
        num, den = [], []
        if c != 1:
            if c.p != 1:
                num.append(str(c.p))
            if c.q != 1:
                den.append(str(c.q))
        for f in sp.Mul.make_args(rest):
            if den_factor(f):
                inv = sp.Pow(f.base, -f.exp)
                s = self.term(inv)
                self._nonzero(inv, s)
                den.append(s)
            else:
                num.append(self.term(f))
        top = " * ".join(num) if num else "1"
        if not den:
            return f"({top})" if len(num) > 1 else top
        return f"({top} / {' / '.join(den)})" if len(den) == 1 else \
            f"({top} / ({' * '.join(den)}))"

    def _nonzero(self, e, s: str):
        """Obligation ``s <> 0`` unless ``e`` is nonzero in SymPy and in Coq at every point
        (a nonzero number, pi, exp, a power of a positive number)."""
        if _evidently_nonzero(e):
            return
        if e.is_number and e.is_Rational and e == 0:
            raise Untranslatable(f"division by zero in {sp.sstr(e)}")
        self._oblige(f"({s} <> 0)", self._names_in(s))

    def _pow(self, e) -> str:
        b, x = e.base, e.exp
        if x.is_Integer:
            n = int(x)
            bs = self.term(b)
            if n >= 0:
                return f"({bs} ^ {n})"
            self._nonzero(b, bs)
            return f"(1 / {bs} ^ {-n})" if n != -1 else f"(1 / {bs})"
        if x == sp.Rational(1, 2):
            bs = self.term(b)
            if not (b.is_number and b.is_Rational and b >= 0):
                self._oblige(f"(0 <= {bs})", self._names_in(bs))
            self.heads.add("sqrt")
            return f"sqrt {arg(bs)}"
        if x == sp.Rational(-1, 2):
            bs = self.term(b)
            if not (b.is_number and b.is_Rational and b > 0):
                self._oblige(f"(0 < {bs})", self._names_in(bs))
            self.heads.add("sqrt")
            return f"(1 / sqrt {arg(bs)})"
        if b is sp.E:
            self.heads.add("exp")
            return f"exp {arg(self.term(x))}"
        if self._integer_valued(x) and not (b.is_number and b.is_positive):
            bs = self.term(b)
            z = self.zterm(x, "exponent")
            self._nonzero(b, bs)
            self.heads.add("powerRZ")
            return f"powerRZ {arg(bs)} {arg(z)}"
        bs = self.term(b)
        if not (b.is_number and b.is_Rational and b > 0):
            self._oblige(f"(0 < {bs})", self._names_in(bs))
        self.heads.add("rpow")
        return f"rpow {arg(bs)} {arg(self.term(x))}"

    def _integer_valued(self, x) -> bool:
        return bool(x.free_symbols) and x.free_symbols <= self.zvars and \
            sp.expand(x).is_polynomial(*self.zvars) and self.zexact(x) is not None

    def _sum(self, e, limits=None) -> str:
        """``Sum(f, l1, ..., ln)`` is ``Sum(Sum(f, l1, ..., ln-1), ln)`` (SymPy flattens a sum of
        a sum into one node: the inner one is translated from its limits, never rebuilt)."""
        limits = tuple(e.limits) if limits is None else limits
        i, lo, hi = limits[-1]
        if not isinstance(i, sp.Symbol):
            raise Untranslatable(f"summation index {i!r}")
        zlo, zhi = self.zterm(lo, "sum limit"), self.zterm(hi, "sum limit")
        idx = coq_name(i.name, self.taken)
        self._bound.append((idx, zlo, zhi))
        try:
            with self.binding(i, idx, integer=True):
                body = self._sum(e, limits[:-1]) if len(limits) > 1 else self.term(e.function)
        finally:
            self._bound.pop()
        self.heads.add("zsum")
        return f"zsum {arg(zlo)} {arg(zhi)} (fun {idx} : Z => {body})"


def _sum_alias(e) -> bool:
    t = type(e)
    return f"{t.__module__}.{t.__qualname__}" in SUM_ALIASES


def _evidently_nonzero(e) -> bool:
    if e.is_number and e.is_Rational:
        return e != 0
    if e is sp.pi or e is sp.E or isinstance(e, sp.exp):
        return True
    if e.is_Pow:
        b, x = e.args
        if b.is_number and b.is_Rational and b > 0:
            return True  # rpow / powerRZ / ^ of a positive rational: positive
        if x.is_Integer and x > 0:
            return _evidently_nonzero(b)
        return False
    if e.is_Mul:
        return all(_evidently_nonzero(a) for a in e.args)
    return False


def lemma_name(claim_id: str) -> str:
    """``rotation.shift_is_linear`` -> ``rotation__shift_is_linear`` (a Coq identifier)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", claim_id.replace(".", "__"))


def zlcm(*qs: int) -> int:
    out = 1
    for q in qs:
        out = lcm(out, q)
    return out
