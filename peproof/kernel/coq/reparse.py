"""Read a goal printed by :mod:`peproof.kernel.coq.translate` back into SymPy.

Only the translator's own output grammar (see its docstring) is read; anything else is a
:class:`ParseError`.  The tests use it to round-trip the translation: the parsed relations are
compared with the claim's statement structurally and at random exact points.

Meanings read back: ``x / y`` is SymPy's division, ``IZR`` disappears (an integer symbol),
``rpow b e`` and ``powerRZ b z`` are ``b**e``, ``sqrt`` is ``sqrt``, ``zsum a b (fun i : Z =>
t)`` is ``Sum(t, (i, a, b))``, ``IZR (Int_part x)`` is ``floor(x)``, and Z's ``a / c`` is
``floor(a / c)`` (Z.div is floor division).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp

from peproof.kernel.coq import decay, integral

TOKEN = re.compile(r"\s*(?:(%Z)|(/\\)|(->|<>|<=|=>|[()+\-*/^=<,:~])|([A-Za-z_][A-Za-z0-9_.]*)"
                   r"|(\d+))")
FUNS = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "ln": sp.log,
        "sqrt": sp.sqrt, "Rabs": sp.Abs, "atan": sp.atan}
OPS = {"=": "==", "<=": "<=", "<": "<", "<>": "!="}
#: Sem.v's relations and operations (lib/Sem.v) read back as SymPy's
SRELS = {"oeq": "==", "ole": "<=", "olt": "<", "one": "!="}
ZRELS = {k + "Z": v for k, v in SRELS.items()}
SUN = {"osin": sp.sin, "ocos": sp.cos, "otan": sp.tan, "oexp": sp.exp, "oln": sp.log,
       "osqrt": sp.sqrt, "oabs": sp.Abs, "oatan": sp.atan, "ofloor": sp.floor,
       "oceil": sp.ceiling, "oopp": lambda a: -a}
SCONDS = {"oltb": sp.Lt, "oleb": sp.Le, "oeqb": sp.Eq, "oneb": sp.Ne}
SBIN = {"oadd": lambda a, b: a + b, "osub": lambda a, b: a - b, "omul": lambda a, b: a * b,
        "odiv": lambda a, b: a / b, "opow": sp.Pow, "omax": sp.Max, "omin": sp.Min,
        "omod": sp.Mod}


class ParseError(Exception):
    pass


@dataclass
class Prop:
    kind: str  # "rel", "even", "rational", "forall_index", "not"
    op: str = ""
    lhs: sp.Expr | None = None
    rhs: sp.Expr | None = None
    integer: bool = False  # printed in Z (%Z)
    name: str = ""
    body: Prop | None = None
    bounds: tuple = ()


@dataclass
class Parsed:
    quant: str | None
    binders: list[tuple[str, str]]
    hyps: list[Prop] = field(default_factory=list)  # the premises of a forall
    body: list[Prop] = field(default_factory=list)  # the conjuncts
    symbols: dict = field(default_factory=dict)


def tokenize(s: str) -> list[str]:
    out, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise ParseError(f"unexpected text at {pos}: {s[pos:pos + 20]!r}")
        out.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
        while pos < len(s) and s[pos].isspace():
            pos += 1
    return out


class _P:
    def __init__(self, toks: list[str], symbols: dict):
        self.t, self.i, self.sym = toks, 0, symbols

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ParseError(f"expected {want!r}, got {tok!r} at token {self.i}")
        self.i += 1
        return tok

    # goal ---------------------------------------------------------------------------------
    def goal(self) -> Parsed:
        if self.peek() in ("forall", "exists"):
            q = self.take()
            binders, premises = [], []
            while self.peek() == "(":
                self.take("(")
                n = self.take()
                self.take(":")
                if self.peek() in ("R", "Z") and self.peek(1) == ")":
                    ty = self.take()
                    self.take(")")
                    binders.append((n, ty))
                    self.sym[n] = sp.Symbol(n, integer=True) if ty == "Z" else \
                        sp.Symbol(n, real=True)
                else:  # a named premise (pe_hN : prop)
                    premises.append(self.prop())
                    self.take(")")
            self.take(",")
            out = Parsed(q, binders, symbols=dict(self.sym))
            parts = self.implication()
            if q == "forall":
                out.hyps, out.body = premises + parts[:-1], parts[-1]
            else:
                out.body = parts[-1]
            return out
        parts = self.implication()
        return Parsed(None, [], body=self.conj_of(parts[-1]), symbols=dict(self.sym))

    def conj_of(self, props):
        return props

    def implication(self) -> list:
        """``A -> B -> C`` as [A, B, [conjuncts of C]]."""
        first = self.conjunction()
        if self.peek() == "->":
            self.take("->")
            rest = self.implication()
            if len(first) != 1:
                raise ParseError("a conjunction before '->'")
            return first + rest
        return [first]

    def conjunction(self) -> list[Prop]:
        out = self.conjunct()
        while self.peek() == "/\\":
            self.take("/\\")
            out += self.conjunct()
        return out

    def conjunct(self) -> list[Prop]:
        """One proposition, or a parenthesized conjunction (a balanced tree), flattened."""
        if self.peek() == "(":
            save = self.i
            try:
                self.take("(")
                inner = self.conjunction()
                self.take(")")
                if len(inner) > 1 or self.peek() in ("/\\", ")", "->", None):
                    return inner
            except ParseError:
                pass
            self.i = save
        return [self.prop()]

    def prop(self) -> Prop:  # noqa: C901 - one dispatch over the printed forms
        if self.peek() == "Z.Even":
            self.take()
            return Prop("even", name=self.take())
        if self.peek() == "~":
            self.take("~")
            self.take("(")
            inner = self.implication()
            self.take(")")
            return Prop("not", body=inner)
        if self.peek() == "True":
            self.take()
            return Prop("true")
        self.take("(")
        if self.peek() == "exists":  # rational witness: (exists (p q : Z), (0 < q)%Z /\ x = ..)
            self.take()
            self.take("(")
            p, q = self.take(), self.take()
            self.take(":")
            self.take("Z")
            self.take(")")
            self.take(",")
            for tok in ("(", "0", "<", q, ")", "%Z", "/\\"):
                self.take(tok)
            name = self.take()
            for tok in ("=", "IZR", p, "/", "IZR", q, ")"):
                self.take(tok)
            return Prop("rational", name=name)
        if self.peek() == "forall":
            self.take()
            idx = self.take()
            self.take(":")
            self.take("Z")
            self.take(",")
            self.take("(")
            self.take("Z.min")
            old = self.sym.get(idx)
            lo = self.zatom()
            self.take("(")
            hi = self.zexpr()
            self.take("+")
            self.take("1")
            self.take(")")
            self.take("<=")
            self.sym[idx] = sp.Symbol(idx, integer=True)
            self.take(idx)
            self.take("<")
            self.take("Z.max")
            self.zatom()
            self.take("(")
            self.zexpr()
            self.take("+")
            self.take("1")
            self.take(")")
            self.take(")")
            self.take("%Z")
            self.take("->")
            body = self.prop()
            self.take(")")
            if old is None:
                del self.sym[idx]
            else:
                self.sym[idx] = old
            return Prop("forall_index", name=idx, body=body, bounds=(lo, hi))
        if self.peek() in SRELS:
            op = SRELS[self.take()]
            lhs, rhs = self.sarg(), self.sarg()
            self.take(")")
            return Prop("rel", op, lhs, rhs)
        if self.peek() in ZRELS:  # Sem.v's oeqZ, ...: integer terms in Z
            op = ZRELS[self.take()]
            lhs, rhs = self.zatom(), self.zatom()
            self.take(")")
            return Prop("rel", op, lhs, rhs, integer=True)
        if self.peek() == "IZR" and self._izr_rel():
            lhs = self.rexpr()
            op = self.take()
            rhs = self.rexpr()
            self.take(")")
            return Prop("rel", OPS[op], lhs, rhs)
        save = self.i
        try:
            lhs = self.zexpr()
            op = self.take()
            if op not in OPS:
                raise ParseError("not a Z relation")
            rhs = self.zexpr()
            self.take(")")
            self.take("%Z")
            return Prop("rel", OPS[op], lhs, rhs, integer=True)
        except ParseError:
            self.i = save
        lhs = self.rexpr()
        op = self.take()
        if op not in OPS:
            raise ParseError(f"relation expected, got {op!r}")
        rhs = self.rexpr()
        self.take(")")
        return Prop("rel", OPS[op], lhs, rhs)

    def _izr_rel(self) -> bool:
        return False

    # real terms -----------------------------------------------------------------------------
    def rexpr(self):
        e = self.rterm()
        while self.peek() in ("+", "-"):
            op = self.take()
            r = self.rterm()
            e = e + r if op == "+" else e - r
        return e

    def rterm(self):
        e = self.runary()
        while self.peek() in ("*", "/"):
            op = self.take()
            r = self.runary()
            e = e * r if op == "*" else e / r
        return e

    def runary(self):
        if self.peek() == "-":
            self.take()
            return -self.runary()
        return self.rpow()

    def rpow(self):
        e = self.rapp()
        if self.peek() == "^":
            self.take()
            return e ** int(self.take())
        return e

    def rapp(self):  # noqa: C901
        tok = self.peek()
        if tok in FUNS:
            self.take()
            return FUNS[tok](self.ratom())
        if tok in ("Rmax", "Rmin"):
            self.take()
            a, b = self.ratom(), self.ratom()
            return sp.Max(a, b) if tok == "Rmax" else sp.Min(a, b)
        if tok == "rpow":
            self.take()
            return sp.Pow(self.ratom(), self.ratom())
        if tok == "powerRZ":
            self.take()
            return sp.Pow(self.ratom(), self.zatom())
        if tok == "IZR":
            self.take()
            if self.peek() == "(" and self.peek(1) == "Int_part":
                self.take("(")
                self.take("Int_part")
                e = sp.floor(self.ratom())
                self.take(")")
                return e
            return self.zatom()
        if tok == "decay_bound":  # lib/Decay.v
            self.take()
            d = int(self.take())
            self.take("%Z")
            base = self.ratom()
            return decay.definition(d, self.ratom(), base)
        if tok == "zsum":
            self.take()
            lo, hi = self.zatom(), self.zatom()
            self.take("(")
            self.take("fun")
            idx = self.take()
            self.take(":")
            self.take("Z")
            self.take("=>")
            old = self.sym.get(idx)
            s = sp.Symbol(idx, integer=True)
            self.sym[idx] = s
            body = self.rexpr()
            self.take(")")
            if old is None:
                del self.sym[idx]
            else:
                self.sym[idx] = old
            return sp.Sum(body, (s, lo, hi))
        return self.ratom()

    def ratom(self):
        tok = self.take()
        if tok == "(":
            e = self.rexpr()
            self.take(")")
            return e
        if tok == "PI":
            return sp.pi
        if tok.isdigit():
            return sp.Integer(int(tok))
        if tok == "exp" or tok in FUNS:
            raise ParseError(f"unparenthesised application {tok}")
        if tok in self.sym:
            return self.sym[tok]
        raise ParseError(f"unknown name {tok!r}")

    # Sem.v terms ------------------------------------------------------------------------------
    def sarg(self):
        self.take("(")
        e = self.sterm()
        self.take(")")
        return e

    def sterm(self):  # noqa: C901 - one dispatch over Sem.v's functions
        tok = self.take()
        if tok == "Some":
            return self.ratom()
        if tok == "oZ":
            return self.zatom()
        if tok in SUN:
            return SUN[tok](self.sarg_or_atom())
        if tok in SBIN:
            a = self.sarg_or_atom()
            return SBIN[tok](a, self.sarg_or_atom())
        if tok == "opown":
            a = self.sarg_or_atom()
            return a ** int(self.take())
        if tok == "opowZ":
            a = self.sarg_or_atom()
            return a ** self.zatom()
        if tok == "odivp":  # at a positive integer literal (Sem.v's odivp_odiv, ...)
            a = self.sarg_or_atom()
            return a / self._positive()
        if tok == "osqrtp":
            return sp.sqrt(self._positive())
        if tok == "opowp":
            b = self._positive()
            return sp.Pow(b, self.sarg_or_atom())
        if tok == "odecay":  # lib/Decay.v
            d = int(self.take())
            self.take("%Z")
            base = self.ratom()
            return decay.definition(d, self.sarg_or_atom(), base)
        if tok in ("osum", "osumZ"):
            if tok == "osum":
                lo, hi = self.sarg_or_atom(), self.sarg_or_atom()
            else:
                lo, hi = self.zatom(), self.zatom()
            self.take("(")
            self.take("fun")
            idx = self.take()
            self.take(":")
            self.take("Z")
            self.take("=>")
            old = self.sym.get(idx)
            i = sp.Symbol(idx, integer=True)
            self.sym[idx] = i
            body = self.sterm()
            self.take(")")
            if old is None:
                del self.sym[idx]
            else:
                self.sym[idx] = old
            return sp.Sum(body, (i, lo, hi))
        if tok == "opw":
            return sp.Piecewise(*self._branches())
        if tok == "oround":  # lib/Round.v's RoundBinary: read back as a function of that name
            return sp.Function("RoundBinary")(self.sarg_or_atom(), self._positive())
        if tok in ("ofloorZ", "omodZ"):  # Sem.v's ofloorZ_ofloor, omodZ_omod
            z = self.zatom()
            p = self._positive()
            return sp.floor(z / p) if tok == "ofloorZ" else sp.Mod(z, p)
        if tok in integral.READ:  # Integral.v's Delta and PiIntegral
            return integral.read_back(self, tok)
        raise ParseError(f"not a Sem.v term: {tok!r}")

    def _branches(self):
        """``(cons (c, v) rest)`` or ``nil``: Piecewise's (value, condition) pairs."""
        if self.peek() == "nil":
            self.take()
            return []
        self.take("(")
        self.take("cons")
        self.take("(")
        c = self.scond()
        self.take(",")
        v = self.sterm()
        self.take(")")
        rest = self._branches()
        self.take(")")
        return [(v, c)] + rest

    def scond(self):
        """A Sem.v condition (``option bool``) as SymPy's boolean."""
        tok = self.take()
        if tok == "Some":
            b = self.take()
            if b not in ("true", "false"):
                raise ParseError(f"a boolean expected, got {b!r}")
            return sp.true if b == "true" else sp.false
        if tok in SCONDS:
            a = self.sarg_or_atom()
            return SCONDS[tok](a, self.sarg_or_atom())
        if tok[:-1] in SCONDS and tok.endswith("Z"):
            a = self.zatom()
            return SCONDS[tok[:-1]](a, self.zatom())
        if tok in ("oand", "oor"):
            a = self._carg()
            return (sp.And if tok == "oand" else sp.Or)(a, self._carg())
        if tok == "onot":
            return sp.Not(self._carg())
        if tok == "oite":
            c, a = self._carg(), self._carg()
            return sp.ITE(c, a, self._carg())
        raise ParseError(f"not a Sem.v condition: {tok!r}")

    def _carg(self):
        self.take("(")
        c = self.scond()
        self.take(")")
        return c

    def _positive(self):
        tok = self.take()
        if not tok.isdigit() or int(tok) <= 0:
            raise ParseError(f"a positive literal expected, got {tok!r}")
        return sp.Integer(int(tok))

    def sarg_or_atom(self):
        if self.peek() == "(":
            return self.sarg()
        raise ParseError(f"a parenthesized Sem.v term expected, got {self.peek()!r}")

    # integer terms --------------------------------------------------------------------------
    def zexpr(self):
        e = self.zterm()
        while self.peek() in ("+", "-"):
            op = self.take()
            r = self.zterm()
            e = e + r if op == "+" else e - r
        return e

    def zterm(self):
        e = self.zunary()
        while self.peek() in ("*", "/"):
            op = self.take()
            r = self.zunary()
            e = e * r if op == "*" else sp.floor(e / r)
        return e

    def zunary(self):
        if self.peek() == "-":
            self.take()
            return -self.zunary()
        e = self.zatom()
        if self.peek() == "^":
            self.take()
            return e ** int(self.take())
        return e

    def zatom(self):
        tok = self.take()
        if tok == "(":
            e = self.zexpr()
            self.take(")")
            return e
        if tok.isdigit():
            return sp.Integer(int(tok))
        if tok in self.sym and self.sym[tok].is_integer:
            return self.sym[tok]
        raise ParseError(f"not an integer term: {tok!r}")


def parse_goal(text: str) -> Parsed:
    """The printed goal ``text`` as binders, premises and conjuncts over SymPy."""
    p = _P(tokenize(text), {})
    out = p.goal()
    if p.peek() is not None:
        raise ParseError(f"trailing tokens from {p.i}: {p.t[p.i:p.i + 5]}")
    return out


def parse_sem_term(text: str, symbols: dict) -> sp.Expr:
    """One parenthesized ``Sem.v`` term (``(oadd (Some l) (Some 1))``) as SymPy, names resolved
    in ``symbols``."""
    p = _P(tokenize(text), dict(symbols))
    e = p.sarg()
    if p.peek() is not None:
        raise ParseError(f"trailing tokens: {p.t[p.i:p.i + 5]}")
    return e


def parse_term(text: str, symbols: dict) -> sp.Expr:
    """One real term (names resolved in ``symbols``: name -> SymPy symbol)."""
    p = _P(tokenize(text), dict(symbols))
    e = p.rexpr()
    if p.peek() is not None:
        raise ParseError(f"trailing tokens: {p.t[p.i:p.i + 5]}")
    return e
