"""Read back the LaTeX that :func:`sympy.latex` prints, to check what the report shows.

A small recursive-descent parser for the subset of LaTeX that SymPy's printer emits for the
claims' expressions: numbers, symbols (matched against the LaTeX of the expression's own
symbols, longest first, so ``pos`` is one symbol and not ``p o s``), ``+ - \\cdot``,
juxtaposition, ``\\frac``, ``\\sqrt``, powers, ``e^{x}``, the trigonometric and named functions
(also ``\\sin^{2}{(x)}``), ``\\sum``, the period integral ``\\int_{-\\pi}^{\\pi} f \\, dx``,
floor, ``\\bmod``, Iverson brackets ``[p = q]``, ``cases`` (Piecewise) with relational
conditions.  It is written independently of the printer: a formula that parses back to an
expression equal to the statement's (structurally, or at random points) denotes it.

Anything outside the subset raises :class:`ParseError`; the report then counts the formula as
unchecked (and the tests require that count to be zero).
"""

from __future__ import annotations

import re

import sympy as sp


class ParseError(ValueError):
    pass


_FUNCS = {
    r"\sin": sp.sin, r"\cos": sp.cos, r"\tan": sp.tan, r"\cot": sp.cot, r"\log": sp.log,
    r"\ln": sp.log, r"\exp": sp.exp, r"\max": sp.Max, r"\min": sp.Min,
    r"\operatorname{sign}": sp.sign, r"\arg": sp.arg,
}
_OPERATORNAMES = {"ITE": sp.ITE, "sign": sp.sign, "Mod": sp.Mod, "floor": sp.floor,
                  "ceiling": sp.ceiling, "atan2": sp.atan2, "sinc": sp.sinc}
_REL = {"=": sp.Eq, r"\neq": sp.Ne, r"\ne": sp.Ne, "<": sp.Lt, ">": sp.Gt, r"\leq": sp.Le,
        r"\le": sp.Le, r"\geq": sp.Ge, r"\ge": sp.Ge}
_SKIP = re.compile(r"(?:\s+|\\[,:;!]|\\ |\\quad|\\qquad|\\displaystyle|\\limits)+")
# inside an integral a thin space is a product's, except the one before the differential
_SKIP_IN_INTEGRAL = re.compile(r"(?:\s+|\\,(?!\s*d[A-Za-z]\b)|\\[:;!]|\\ |\\quad|\\qquad"
                               r"|\\displaystyle)+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_GREEK_CONST = {r"\pi": sp.pi, r"\infty": sp.oo, r"\mathrm{i}": sp.I, r"\text{True}": sp.true,
                r"\text{False}": sp.false}


def symbol_table(*exprs) -> dict[str, sp.Symbol]:
    """LaTeX spelling -> symbol, for every symbol (free or bound) of ``exprs``."""
    table: dict[str, sp.Symbol] = {}
    for e in exprs:
        for s in sp.sympify(e).atoms(sp.Symbol):
            key = sp.latex(s)
            if key in table and table[key] != s:
                raise ParseError(f"two symbols print as {key!r}")
            table[key] = s
    return table


class _Parser:
    def __init__(self, text: str, symbols: dict[str, sp.Symbol], functions: dict | None = None):
        self.s = text
        self.i = 0
        self.symbols = symbols
        self.sym_keys = sorted(symbols, key=len, reverse=True)
        # named sub-terms print as a brace group ("{\\|PE(p) - PE(q)\\|^{2}}"): read first
        self.named_keys = [k for k in self.sym_keys if k.startswith("{")]
        self.functions = functions or {}
        self._in_integral = 0

    # ------------------------------------------------------------------ scanning
    def skip(self) -> None:
        m = (_SKIP_IN_INTEGRAL if self._in_integral else _SKIP).match(self.s, self.i)
        if m:
            self.i = m.end()

    def peek(self, tok: str) -> bool:
        self.skip()
        if not self.s.startswith(tok, self.i):
            return False
        end = self.i + len(tok)
        # a command must not continue with letters (\le vs \left)
        return not (tok[0] == "\\" and tok[-1].isalpha() and end < len(self.s)
                    and self.s[end].isalpha())

    def eat(self, tok: str) -> bool:
        if self.peek(tok):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok: str) -> None:
        if not self.eat(tok):
            raise ParseError(f"expected {tok!r} at {self.i}: {self.s[self.i:self.i + 40]!r}")

    def at_end(self) -> bool:
        self.skip()
        return self.i >= len(self.s)

    def group(self) -> sp.Expr:
        """``{expr}`` or a single token (``x^2``)."""
        self.skip()
        if self.eat("{"):
            e = self.expr()
            self.expect("}")
            return e
        m = re.compile(r"\d").match(self.s, self.i)
        if m:
            self.i += 1
            return sp.Integer(int(m.group()))
        return self.atom()

    # ------------------------------------------------------------------ grammar
    def relation(self):
        lhs = self.expr()
        for op in sorted(_REL, key=len, reverse=True):
            if self.peek(op) and not (op == "<" and False):
                self.eat(op)
                return _REL[op](lhs, self.expr(), evaluate=False)
        return lhs

    def condition(self):
        parts = [self.relation()]
        while True:
            if self.eat(r"\wedge"):
                parts.append(("and", self.relation()))
            elif self.eat(r"\vee"):
                parts.append(("or", self.relation()))
            else:
                break
        out = parts[0]
        for kind, p in parts[1:]:
            out = sp.And(out, p) if kind == "and" else sp.Or(out, p)
        return out

    def expr(self) -> sp.Expr:
        terms = []
        sign = 1
        if self.eat("-"):
            sign = -1
        elif self.eat("+"):
            sign = 1
        first = self.term()
        terms.append(-first if sign < 0 else first)
        while True:
            if self.eat("+"):
                terms.append(self.term())
            elif self.peek("-") and not self.peek("->"):
                self.eat("-")
                terms.append(-self.term())
            else:
                break
        return terms[0] if len(terms) == 1 else sp.Add(*terms)

    _STOP_CMDS = frozenset({"right", "end", "neq", "ne", "le", "leq", "ge", "geq", "wedge",
                            "vee", "bmod", "cdot", "times", "text"})

    def _starts_factor(self) -> bool:
        self.skip()
        if self.i >= len(self.s):
            return False
        c = self.s[self.i]
        if c in "+-=<>}])&,|^;":
            return False
        if c == "\\":
            m = re.compile(r"\\([A-Za-z]+)").match(self.s, self.i)
            if m is None:  # \\ (row end) or \, (thin space)
                return False
            if m.group(1) == "text":
                return self.s.startswith((r"\text{True}", r"\text{False}"), self.i)
            return m.group(1) not in self._STOP_CMDS
        return True

    def term(self) -> sp.Expr:
        e = self.factor()
        while True:
            if self.eat(r"\cdot") or self.eat(r"\times"):
                e = e * self.factor()
            elif self.eat(r"\bmod"):
                e = sp.Mod(e, self.factor())
            elif self._starts_factor():
                e = e * self.factor()
            else:
                break
        return e

    def factor(self) -> sp.Expr:
        base = self.atom()
        while self.peek("^"):
            self.eat("^")
            base = sp.Pow(base, self.group())
        return base

    def _args(self) -> list:
        """``{\\left(a, b \\right)}`` or ``\\left(a, b\\right)``."""
        braced = self.eat("{")
        self.expect(r"\left(")
        args = [self.condition()]
        while self.eat(","):
            args.append(self.condition())
        self.expect(r"\right)")
        if braced:
            self.expect("}")
        return args

    def _apply(self, f, power=None):
        args = self._args()
        val = f(*args)
        return sp.Pow(val, power) if power is not None else val

    def atom(self) -> sp.Expr:
        self.skip()
        s, i = self.s, self.i
        if i >= len(s):
            raise ParseError("unexpected end of formula")
        for key in self.named_keys:
            if s.startswith(key, i):
                self.i = i + len(key)
                return self.symbols[key]
        decay = self.functions.get("DecayBound")
        if decay is not None and s.startswith("B_{", i):  # B_{d}(k) or B_{d}(k; base b)
            m = re.compile(r"B_\{(\d+)\}\s*\\left\(").match(s, i)
            if m:
                self.i = m.end()
                k = self.expr()
                base = None
                if self.eat(r";\ \mathrm{base}"):
                    base = self.expr()
                self.expect(r"\right)")
                if base is None:
                    from .formulas import default_rope_base

                    base = default_rope_base()
                return decay(sp.Integer(int(m.group(1))), k, base)
        m = _NUMBER.match(s, i)
        if m:
            self.i = m.end()
            txt = m.group()
            return sp.Float(txt) if "." in txt else sp.Integer(int(txt))
        for tok, val in _GREEK_CONST.items():
            if self.eat(tok):
                return val
        if self.eat(r"\frac"):
            num = self.group()
            den = self.group()
            return num / den
        if self.eat(r"\sqrt"):
            if self.eat("["):
                n = self.expr()
                self.expect("]")
                return sp.root(self.group(), n)
            return sp.sqrt(self.group())
        if self.eat(r"\left(\text{if }"):  # ITE(c, a, b)
            c = self.condition()
            self.expect(r"\text{ then }")
            a = self.condition()
            self.expect(r"\text{ else }")
            b = self.condition()
            self.expect(r"\right)")
            return sp.ITE(c, a, b)
        if self.eat(r"\left("):
            e = self.expr()
            self.expect(r"\right)")
            return e
        if self.eat(r"\left["):
            e = self.expr()
            self.expect(r"\right]")
            return e
        if self.eat(r"\left|"):
            e = self.expr()
            self.expect(r"\right|")
            return sp.Abs(e)
        if self.eat(r"\left\lfloor"):
            e = self.group() if self.peek("{") else self.expr()
            self.expect(r"\right\rfloor")
            return sp.floor(e)
        if self.eat(r"\left\lceil"):
            e = self.group() if self.peek("{") else self.expr()
            self.expect(r"\right\rceil")
            return sp.ceiling(e)
        if self.eat("{"):
            e = self.expr()
            self.expect("}")
            return e
        if self.eat("["):  # Iverson bracket [p = q]
            p = self.expr()
            self.expect("=")
            q = self.expr()
            self.expect("]")
            f = self.functions.get("Delta")
            if f is None:
                raise ParseError("Iverson bracket without a Delta function")
            return f(p, q)
        if self.eat(r"\sum_"):
            return self._sum()
        if self.eat(r"\int_"):
            return self._integral()
        if self.eat(r"\begin{cases}"):
            return self._cases()
        if self.eat(r"\operatorname{"):
            m = re.compile(r"([A-Za-z_]+)\}").match(s, self.i)
            if not m:
                raise ParseError("bad operatorname")
            self.i = m.end()
            name = m.group(1)
            f = self.functions.get(name) or _OPERATORNAMES.get(name)
            if f is None:
                raise ParseError(f"unknown function {name}")
            power = self.group() if self.eat("^") else None
            return self._apply(f, power)
        for tok, f in sorted(_FUNCS.items(), key=lambda kv: -len(kv[0])):
            if self.eat(tok):
                power = self.group() if self.eat("^") else None
                return self._apply(f, power)
        if s.startswith("e^", i) and "e" not in self.symbols:
            self.i += 1
            self.expect("^")
            return sp.exp(self.group())
        for key in self.sym_keys:
            if s.startswith(key, i):
                end = i + len(key)
                # a letter name must not run on into more letters (x vs xm)
                if key[-1].isalpha() and end < len(s) and s[end].isalpha() and key[0] != "\\":
                    continue
                if key[0] == "\\" and end < len(s) and s[end].isalpha():
                    continue
                self.i = end
                return self.symbols[key]
        raise ParseError(f"cannot read {s[i:i + 30]!r}")

    def _sum(self) -> sp.Expr:
        self.expect("{")
        var = self.atom()
        self.expect("=")
        lo = self.expr()
        self.expect("}")
        self.expect("^")
        hi = self.group()
        body = self.term()
        return sp.Sum(body, (var, lo, hi))

    def _integral(self) -> sp.Expr:
        self.expect("{")
        self.expect(r"-")
        self.expect(r"\pi")
        self.expect("}")
        self.expect("^")
        self.expect("{")
        self.expect(r"\pi")
        self.expect("}")
        self._in_integral += 1
        try:
            body = self.expr()
            self.expect(r"\,")
        finally:
            self._in_integral -= 1
        self.skip()
        if not self.s.startswith("d", self.i):
            raise ParseError("integral without a differential")
        self.i += 1
        var = self.atom()
        f = self.functions.get("PiIntegral")
        if f is None:
            raise ParseError("integral without a PiIntegral function")
        return f(body, var)

    def _cases(self) -> sp.Expr:
        pieces = []
        while True:
            val = self.expr()
            self.expect("&")
            self.skip()
            if self.eat(r"\text{otherwise}"):
                cond = sp.true
            else:
                self.expect(r"\text{for}")
                cond = self.condition()
            pieces.append((val, cond))
            if self.eat(r"\end{cases}"):
                break
            self.expect(r"\\")
        return sp.Piecewise(*pieces)


def parse(text: str, symbols: dict[str, sp.Symbol], functions: dict | None = None,
          relation: bool = False):
    """The SymPy expression (or relation, with ``relation=True``) that ``text`` denotes."""
    p = _Parser(text, symbols, functions)
    out = p.relation() if relation else p.expr()
    if not p.at_end():
        raise ParseError(f"unread text at {p.i}: {text[p.i:p.i + 40]!r}")
    return out
