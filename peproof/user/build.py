"""SymPy objects from the syntax tree of :mod:`peproof.user.parse`, by SymPy's constructors.

Each node becomes the object SymPy's ordinary construction gives (``a + b`` is
``sp.Add(a, b)`` evaluated as usual, ``sin(x)`` is ``sp.sin(x)``...): the same evaluation
semantics as typing the expression in Python with SymPy, but the only names are the
whitelist below, the encoding's vocabulary (:mod:`peproof.user.vocab`) and the declared
variables.

Numeric limits, checked before SymPy is asked to compute anything large:

* an exponent that is a number has numerator and denominator at most :data:`MAX_EXPONENT`;
* a number raised to a numeric power may have at most :data:`MAX_BITS` bits (estimated from
  the exponent and the largest integer of the base before the power is built): ``10**10**10``
  is refused, naming the exponent;
* every exact number built has at most :data:`MAX_BITS` bits in numerator and denominator;
* ``floor``, ``ceiling``, ``Mod``, ``Max``, ``Min`` of numbers (which SymPy evaluates) take
  numbers below ``10**`` :data:`MAX_MAGNITUDE` in magnitude;
* a ``Sum`` with numeric limits spans at most :data:`MAX_SPAN` terms.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.parameters import global_parameters

from peproof.claims import Rel, mat_eq
from peproof.user.parse import Node, TextError

MAX_EXPONENT = 10**4
MAX_BITS = 33_300  # about 10 000 decimal digits
MAX_MAGNITUDE = 1000
MAX_SPAN = 10**4

FUNCTIONS = {
    "sin": ((1,), sp.sin), "cos": ((1,), sp.cos), "tan": ((1,), sp.tan),
    "exp": ((1,), sp.exp), "log": ((1, 2), sp.log), "sqrt": ((1,), sp.sqrt),
    "atan": ((1,), sp.atan), "Abs": ((1,), sp.Abs), "floor": ((1,), sp.floor),
    "ceiling": ((1,), sp.ceiling), "Mod": ((2,), sp.Mod), "Max": (None, sp.Max),
    "Min": (None, sp.Min),
}
CONSTANTS = {"pi": sp.pi, "E": sp.E}
REFUSED = {
    "I": "the imaginary unit is refused: statements are about real numbers",
    "oo": "infinity is refused", "zoo": "infinity is refused", "nan": "nan is refused",
}
RELATIONS = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}
EVALUATED = ("floor", "ceiling", "Mod", "Max", "Min")


def _err(what: str, col: int, why: str) -> TextError:
    return TextError(f"statement: {what} at column {col}: {why}")


def _bits(x: sp.Expr) -> int:
    """The largest bit length of an integer (numerator or denominator) in ``x``."""
    out = 1
    for r in x.atoms(sp.Rational):
        out = max(out, abs(int(r.p)).bit_length(), int(r.q).bit_length())
    return out


def _rebuilt(x: sp.Basic) -> sp.Basic:
    if not x.args or isinstance(x, sp.Number):
        return x
    return x.func(*[_rebuilt(a) for a in x.args])


def _checked(x, col: int, what: str):
    if isinstance(x, sp.Basic) and not isinstance(x, sp.MatrixBase):
        if not global_parameters.evaluate and x.is_number:
            # the written form (peproof.user.meaning builds the text with SymPy's evaluation
            # off): a number is still evaluated, so the limits below read its value
            with sp.evaluate(True):
                x = _rebuilt(x)
        if x.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            raise _err(what, col, "the value is infinite or undefined (a division by zero?)")
        if x.has(sp.I):
            raise _err(what, col, "the value is not real")
        if x.is_Rational and _bits(x) > MAX_BITS:
            raise _err(what, col, f"a number of more than {MAX_BITS} bits")
    return x


class Builder:
    """Builds the relations of one text.  ``symbols``: declared name -> Symbol; ``vocab``:
    name -> :class:`peproof.user.vocab.Word`."""

    def __init__(self, symbols: dict, vocab: dict):
        self.symbols, self.vocab, self.bound = dict(symbols), dict(vocab), {}
        self.used: set[str] = set()

    # ------------------------------------------------------------------ relations
    def relations(self, node: Node) -> tuple[Rel, ...]:
        if node.kind == "call" and node.value in RELATIONS:
            if len(node.args) != 2:
                raise _err(f"{node.value}(...)", node.col, "two arguments expected")
            op, (a, b) = RELATIONS[node.value], node.args
            return self._relate(op, self.scalar_or_matrix(a), self.scalar_or_matrix(b),
                                node.col)
        if node.kind != "rel":
            self.scalar_or_matrix(node)  # a fault inside (a name, a limit) is named first
            raise _err("the text", 1, "a relation expected (== != < <= > >=, or Eq(a, b)...)")
        a, b = (self.scalar_or_matrix(x) for x in node.args)
        return self._relate(node.value, a, b, node.col)

    def _relate(self, op: str, a, b, col: int) -> tuple[Rel, ...]:
        ma, mb = isinstance(a, sp.MatrixBase), isinstance(b, sp.MatrixBase)
        if ma or mb:
            if not (ma and mb) or op != "==":
                raise _err(f"{op!r} between matrices", col,
                           "only == of two matrices of the same shape (entrywise)")
            try:
                return mat_eq(a, b)
            except ValueError as exc:
                raise _err("'=='", col, str(exc)) from None
        if op == ">":
            return (Rel("<", b, a),)
        if op == ">=":
            return (Rel("<=", b, a),)
        return (Rel(op, a, b),)

    # ------------------------------------------------------------------ expressions
    def scalar_or_matrix(self, node: Node):
        kind = node.kind
        if kind == "num":
            return sp.Rational(node.value.numerator, node.value.denominator)
        if kind == "name":
            return self.name(node)
        if kind == "neg":
            return _checked(-self.scalar_or_matrix(node.args[0]), node.col, "'-'")
        if kind == "bin":
            return self.binary(node)
        if kind == "call":
            return self.call(node)
        if kind == "rel" or kind == "call" and node.value in RELATIONS:
            raise _err(f"relation {node.value!r}", node.col, "a relation inside an expression")
        raise _err("a tuple", node.col, "tuples are only the limits of Sum(expr, (i, a, b))")

    def scalar(self, node: Node) -> sp.Expr:
        x = self.scalar_or_matrix(node)
        if isinstance(x, sp.MatrixBase):
            raise _err("a matrix", node.col, "a number expected here")
        return x

    def name(self, node: Node):
        n = node.value
        if n in self.bound:
            return self.bound[n]
        if n in self.symbols:
            self.used.add(n)
            return self.symbols[n]
        if n in CONSTANTS:
            return CONSTANTS[n]
        if n in self.vocab and self.vocab[n].build is None:
            return self.vocab[n].value
        if n in REFUSED:
            raise _err(f"name {n!r}", node.col, REFUSED[n])
        if n in FUNCTIONS or n in self.vocab or n in RELATIONS or n == "Sum":
            raise _err(f"name {n!r}", node.col, "a function: call it, e.g. " + n + "(x)")
        raise _err(f"name {n!r}", node.col,
                   f"not declared: add --domain {n}=real (or another domain)")

    def binary(self, node: Node):
        op = node.value
        a = self.scalar_or_matrix(node.args[0])
        if op == "**":
            return self.power(a, node.args[1], node.col)
        b = self.scalar_or_matrix(node.args[1])
        ma, mb = isinstance(a, sp.MatrixBase), isinstance(b, sp.MatrixBase)
        try:
            if op in "+-" and ma != mb:
                raise _err(f"{op!r}", node.col, "a matrix plus a number")
            if op == "/" and mb:
                raise _err("'/'", node.col, "division by a matrix")
            if op == "/" and b == 0:
                raise _err("'/'", node.col, "division by zero")
            val = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "/": lambda: a / b}[op]()
        except sp.ShapeError as exc:
            raise _err(f"{op!r}", node.col, f"shapes do not match ({exc})") from None
        return _checked(val, node.col, repr(op))

    def power(self, a, exp_node: Node, col: int):
        if isinstance(a, sp.MatrixBase):
            raise _err("'**'", col, "powers of matrices are not offered")
        b = self.scalar(exp_node)
        if b.is_number:
            if not b.is_Rational:
                if a.is_number:
                    raise _err("'**'", col, "a number raised to an irrational power")
            elif abs(b.p) > MAX_EXPONENT or b.q > MAX_EXPONENT:
                raise _err(f"exponent {sp.sstr(b)}", col,
                           f"numeric exponents are at most {MAX_EXPONENT} (numerator and "
                           "denominator)")
            elif a.is_number and abs(b.p) * _bits(a) > MAX_BITS:
                raise _err(f"power with exponent {sp.sstr(b)}", col,
                           f"the result would exceed {MAX_BITS} bits")
        return _checked(a ** b, col, "'**'")

    def call(self, node: Node):
        name, args, col = node.value, node.args, node.col
        if name == "Sum":
            return self.sum(node)
        if name in RELATIONS:
            raise _err(f"relation {name!r}", col, "a relation inside an expression")
        if name in FUNCTIONS:
            arity, fn = FUNCTIONS[name]
        elif name in self.vocab and self.vocab[name].build is not None:
            arity, fn = self.vocab[name].arity, None
        else:
            why = REFUSED.get(name) or ("not a function of the statement language (functions: "
                                        + " ".join(sorted(FUNCTIONS) + ["Sum"]
                                                   + sorted(w for w, v in self.vocab.items()
                                                            if v.build)) + ")")
            raise _err(f"function {name!r}", col, why)
        if arity is not None and len(args) not in arity:
            raise _err(f"{name}(...)", col, f"{' or '.join(map(str, arity))} argument(s) "
                       f"expected, got {len(args)}")
        if not args:
            raise _err(f"{name}()", col, "arguments expected")
        vals = [self.scalar(a) for a in args]
        if fn is None:
            return self.vocab[name].build(vals, col)
        if name in EVALUATED:
            for v, a in zip(vals, args, strict=True):
                if v.is_number and _too_big(v):
                    raise _err(f"{name}'s argument", a.col, f"numbers of magnitude above "
                               f"10**{MAX_MAGNITUDE} are refused here")
        return _checked(fn(*vals), col, f"{name}(...)")

    def sum(self, node: Node) -> sp.Expr:
        col = node.col
        if len(node.args) != 2 or node.args[1].kind != "tuple" or len(node.args[1].args) != 3:
            raise _err("Sum(...)", col, "Sum(expr, (i, a, b)) expected")
        var, lo, hi = node.args[1].args
        if var.kind != "name":
            raise _err("Sum's variable", var.col, "a name expected")
        n = var.value
        if n in self.symbols or n in self.bound or n in self.vocab or n in CONSTANTS \
                or n in FUNCTIONS or n in REFUSED:
            raise _err(f"Sum's variable {n!r}", var.col, "a fresh name expected (not a "
                       "declared variable, a bound one or a word of the vocabulary)")
        a, b = self.scalar(lo), self.scalar(hi)
        if a.is_number and b.is_number:
            if not (a.is_Integer and b.is_Integer):
                raise _err("Sum's limits", lo.col, "integers expected")
            if b - a > MAX_SPAN:
                raise _err("Sum's limits", lo.col, f"at most {MAX_SPAN} terms")
        sym = sp.Symbol(n, integer=True)
        self.bound[n] = sym
        try:
            body = self.scalar(node.args[0])
        finally:
            del self.bound[n]
        return sp.Sum(body, (sym, a, b))


def _too_big(v: sp.Expr) -> bool:
    if v.is_Rational:
        return _bits(v) > MAX_MAGNITUDE * 3.33
    try:
        val = sp.N(v, 15, maxn=60)
    except (ValueError, TypeError, ArithmeticError):
        return True
    if not val.is_Number:
        return True
    return abs(val) > sp.Integer(10) ** MAX_MAGNITUDE
