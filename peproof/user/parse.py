"""A tokenizer and recursive-descent parser of a subset of SymPy's syntax, executing no code.

``sympy.parse_expr`` and ``sympify(str)`` hand the text to Python's ``eval``; a statement typed
by a user is data, so it is read here character by character into a small syntax tree
(:class:`Node`), which :mod:`peproof.user.build` turns into SymPy objects by calling SymPy's
constructors directly.  Nothing of the text is ever looked up as a Python name or attribute.

The language (everything else is refused with :class:`TextError`, naming the token and its
column, counted from 1):

* numbers: integers (at most :data:`MAX_DIGITS` digits) and decimals, read as the exact
  rational they write (``0.5`` is ``1/2``, ``0.1`` is ``1/10``; never a float).  Exponent
  notation (``1e5``) is refused: write ``10**5``;
* names: ASCII letters, digits and ``_``, starting with a letter, without ``__``; Python's
  keywords (``lambda``, ``import``...) are refused;
* ``+ - * / **`` with Python's precedence (``-x**2`` is ``-(x**2)``, ``**`` groups to the
  right), unary ``+``/``-``, parentheses, calls ``f(a, b)`` and tuples ``(i, a, b)`` (the limits
  of ``Sum``); ``^`` is refused (it is XOR in Python; write ``**``);
* one relation ``== != < <= > >=`` at the top (a chain ``a < b < c`` is refused); the calls
  ``Eq Ne Lt Le Gt Ge`` are relations too.

Limits: :data:`MAX_LENGTH` characters, :data:`MAX_DEPTH` levels of nesting.  Numeric limits
(exponents, sizes) are checked while building (:mod:`peproof.user.build`).
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from fractions import Fraction

from peproof.guard import UsageError

MAX_LENGTH = 2000
MAX_DEPTH = 40
MAX_DIGITS = 100

RELOPS = ("==", "!=", "<=", ">=", "<", ">")
#: two-character operators first, so that ``**`` is never read as two ``*``
OPERATORS = ("**", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
#: characters refused with a reason of their own
SPECIAL = {
    "^": "write ** for a power (^ is XOR in Python)",
    "=": "write == for equality",
    ".": "attribute access is not part of the statement language",
    "'": "strings are not part of the statement language",
    '"': "strings are not part of the statement language",
    "[": "indexing is not part of the statement language",
    "]": "indexing is not part of the statement language",
    ":": "slices and lambdas are not part of the statement language",
    ";": "one statement only",
    "\\": "backslashes are not part of the statement language",
}
ALLOWED = ("numbers, names, + - * / ** ( ) , and one relation == != < <= > >=")


class TextError(UsageError):
    """The statement text is not in the language: one line naming the token and its column."""


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op", "end"
    text: str
    col: int


@dataclass(frozen=True)
class Node:
    """``kind`` is ``num`` (``value`` a Fraction), ``name`` (``value`` a str), ``call``
    (``value`` the function's name, ``args`` its arguments), ``tuple``, ``neg``, ``bin``
    (``value`` the operator) or ``rel`` (``value`` the relation)."""

    kind: str
    value: object
    args: tuple = ()
    col: int = 0


def _err(what: str, col: int, why: str) -> TextError:
    return TextError(f"statement: {what} at column {col}: {why}")


def tokenize(text: str) -> list[Token]:
    if not isinstance(text, str):
        raise TextError("statement: text expected")
    if len(text) > MAX_LENGTH:
        raise TextError(f"statement: {len(text)} characters, at most {MAX_LENGTH} allowed")
    toks: list[Token] = []
    n, k = len(text), 0
    while k < n:
        ch, col = text[k], k + 1
        if ch in " \t":
            k += 1
            continue
        if not ch.isascii() or not ch.isprintable():
            raise _err(f"character {ch!r} (U+{ord(ch):04X})", col,
                       f"only printable ASCII is allowed ({ALLOWED})")
        if ch.isdigit() or (ch == "." and k + 1 < n and text[k + 1].isdigit()):
            j = k
            while j < n and text[j].isdigit():
                j += 1
            if j < n and text[j] == ".":
                j += 1
                while j < n and text[j].isdigit():
                    j += 1
            word = text[k:j]
            if j < n and (text[j].isalpha() or text[j] == "_" or text[j] == "."):
                m = j
                while m < n and (text[m].isalnum() or text[m] in "_.+-") and m - k < 30:
                    m += 1
                raise _err(f"number {text[k:m]!r}", col, "a number is digits with at most one "
                           "decimal point (no exponent notation: write 10**5)")
            if sum(c.isdigit() for c in word) > MAX_DIGITS:
                raise _err(f"number of {sum(c.isdigit() for c in word)} digits", col,
                           f"at most {MAX_DIGITS} digits (write a power such as 10**200)")
            toks.append(Token("num", word, col))
            k = j
            continue
        if ch.isalpha() or ch == "_":
            j = k
            while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[k:j]
            if word.startswith("_") or "__" in word:
                raise _err(f"name {word!r}", col, "names start with a letter and hold no '__'")
            if keyword.iskeyword(word) or keyword.issoftkeyword(word):
                raise _err(f"name {word!r}", col, "a Python keyword, not a name of the "
                           "statement language")
            toks.append(Token("name", word, col))
            k = j
            continue
        op = next((o for o in OPERATORS if text.startswith(o, k)), None)
        if op is None:
            why = SPECIAL.get(ch, f"not allowed ({ALLOWED})")
            raise _err(f"{ch!r}", col, why)
        toks.append(Token("op", op, col))
        k += len(op)
    toks.append(Token("end", "", n + 1))
    return toks


class _Parser:
    def __init__(self, toks: list[Token]):
        self.toks, self.k, self.depth = toks, 0, 0

    @property
    def tok(self) -> Token:
        return self.toks[self.k]

    def take(self) -> Token:
        t = self.toks[self.k]
        self.k += 1
        return t

    def unexpected(self, expected: str) -> TextError:
        t = self.tok
        what = "end of text" if t.kind == "end" else repr(t.text)
        return _err(f"unexpected {what}", t.col, f"expected {expected}")

    def expect(self, op: str) -> Token:
        if self.tok.kind != "op" or self.tok.text != op:
            raise self.unexpected(repr(op))
        return self.take()

    def enter(self, col: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _err("nesting", col, f"more than {MAX_DEPTH} levels")

    # relation := sum (relop sum)?
    def relation(self) -> Node:
        lhs = self.sum()
        t = self.tok
        if t.kind == "op" and t.text in RELOPS:
            self.take()
            rhs = self.sum()
            if self.tok.kind == "op" and self.tok.text in RELOPS:
                raise _err(f"second relation {self.tok.text!r}", self.tok.col,
                           "one relation per statement (no chains such as a < b < c)")
            return Node("rel", t.text, (lhs, rhs), t.col)
        return lhs

    def sum(self) -> Node:
        node = self.product()
        while self.tok.kind == "op" and self.tok.text in "+-":
            t = self.take()
            node = Node("bin", t.text, (node, self.product()), t.col)
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "/"):
            t = self.take()
            node = Node("bin", t.text, (node, self.unary()), t.col)
        return node

    def unary(self) -> Node:
        t = self.tok
        self.enter(t.col)
        try:
            if t.kind == "op" and t.text in "+-":
                self.take()
                inner = self.unary()
                return Node("neg", None, (inner,), t.col) if t.text == "-" else inner
            return self.power()
        finally:
            self.depth -= 1

    def power(self) -> Node:
        base = self.atom()
        if self.tok.kind == "op" and self.tok.text == "**":
            t = self.take()
            return Node("bin", "**", (base, self.unary()), t.col)
        return base

    def atom(self) -> Node:
        t = self.tok
        if t.kind == "num":
            self.take()
            return Node("num", Fraction(t.text), (), t.col)
        if t.kind == "name":
            self.take()
            if self.tok.kind == "op" and self.tok.text == "(":
                self.take()
                args = self.items(")")
                return Node("call", t.text, tuple(args), t.col)
            if self.tok.kind in ("name", "num"):
                raise self.unexpected("an operator after a name (write 2*x, not 2 x)")
            return Node("name", t.text, (), t.col)
        if t.kind == "op" and t.text == "(":
            self.take()
            items = self.items(")")
            if not items:
                raise _err("empty parentheses", t.col, "an expression expected inside")
            if len(items) == 1 and not self._trailing_comma:
                return items[0]
            return Node("tuple", None, tuple(items), t.col)
        raise self.unexpected("a number, a name or '('")

    def items(self, close: str) -> list[Node]:
        """Comma-separated relations up to ``close`` (a relation is an argument of Eq...)."""
        out: list[Node] = []
        self._trailing_comma = False
        while not (self.tok.kind == "op" and self.tok.text == close):
            out.append(self.relation())  # one level deeper: through unary()
            if self.tok.kind == "op" and self.tok.text == ",":
                self.take()
                self._trailing_comma = True
                continue
            self._trailing_comma = False
            if not (self.tok.kind == "op" and self.tok.text == close):
                raise self.unexpected(f"',' or {close!r}")
        self.take()
        return out


def parse(text: str, label: str = "statement") -> Node:
    """The syntax tree of ``text`` (:class:`TextError` if it is not in the language);
    ``label`` names the text in the messages (``statement``, ``--assume``)."""
    try:
        p = _Parser(tokenize(text))
        if p.tok.kind == "end":
            raise TextError("statement: empty text")
        node = p.relation()
        if p.tok.kind != "end":
            raise p.unexpected("an operator or the end of the text")
        return node
    except TextError as exc:
        msg = str(exc)
        if label != "statement" and msg.startswith("statement:"):
            msg = label + msg[len("statement"):]
        raise TextError(msg) from None
