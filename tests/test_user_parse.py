"""The statement parser (peproof.user): SymPy's syntax read without executing code, the same
objects SymPy's own construction gives, hostile text refused in one line naming the token.

Sabotages these tests kill: the builder reading ``-`` as ``+`` or ``**`` as left-grouping
(test_the_builder_agrees_with_sympys_construction, test_precedence); the parser handing the
text to ``sympy.sympify`` (test_no_eval_or_exec_is_called, and the sentinel test of
test_user_cli.py); a limit removed (test_limits_are_named).
"""

from __future__ import annotations

import builtins
import operator
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from peproof.claims import Rel, var
from peproof.encoding import Encoding
from peproof.user import parse as P
from peproof.user.build import MAX_EXPONENT, Builder
from peproof.user.parse import TextError
from peproof.user.statement import user_statement
from peproof.user.vocab import vocabulary

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
D = ["x=real", "y=real"]


def one(text, domains=D, enc=None):
    """The one relation of ``text``, its names declared by ``domains`` (used or not)."""
    syms = {n: var(n, dom)[0] for n, _, dom in (item.partition("=") for item in domains)}
    rels = Builder(syms, vocabulary(enc or Encoding(4))).relations(P.parse(text))
    assert len(rels) == 1
    return rels[0]


# ------------------------------------------------------------------ agreement with SymPy
_LEAVES = st.sampled_from([("x", x), ("y", y), ("2", sp.Integer(2)), ("3", sp.Integer(3)),
                           ("0.25", sp.Rational(1, 4)), ("7", sp.Integer(7))])
_BIN = [("+", operator.add), ("-", operator.sub), ("*", operator.mul), ("/", operator.truediv)]


def _trees():
    def extend(children):
        binary = st.tuples(st.sampled_from(_BIN), children, children).map(
            lambda t: (f"({t[1][0]} {t[0][0]} {t[2][0]})", t[0][1](t[1][1], t[2][1])))
        neg = children.map(lambda c: (f"(-{c[0]})", -c[1]))
        func = st.tuples(st.sampled_from([("sin", sp.sin), ("cos", sp.cos), ("exp", sp.exp),
                                          ("Abs", sp.Abs)]), children).map(
            lambda t: (f"{t[0][0]}({t[1][0]})", t[0][1](t[1][1])))
        square = children.map(lambda c: (f"({c[0]})**2", c[1] ** 2))
        return binary | neg | func | square
    return st.recursive(_LEAVES, extend, max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(_trees(), _trees())
def test_the_builder_agrees_with_sympys_construction(a, b):
    """Random expressions: the parsed object is structurally the one Python+SymPy builds."""
    builder = Builder({"x": x, "y": y}, vocabulary(Encoding(4)))
    try:
        (r,) = builder.relations(P.parse(f"{a[0]} <= {b[0]}"))
    except TextError as exc:  # a division by zero or an infinite value is refused
        assert "division by zero" in str(exc) or "infinite" in str(exc)
        return
    assert r == Rel("<=", a[1], b[1])
    assert r.lhs == a[1] and r.rhs == b[1]


def test_precedence():
    assert one("-x**2 == 0").lhs == -(x**2)
    assert one("2**3**2 == 0").lhs == 512
    assert one("2**-1 == 0").lhs == sp.Rational(1, 2)
    assert one("x - y - 2 == 0").lhs == (x - y) - 2
    assert one("x / y / 2 == 0").lhs == (x / y) / 2
    assert one("-2**2 == 0").lhs == -4
    assert one("(-2)**2 == 0").lhs == 4


def test_decimals_are_exact_and_relations_oriented():
    r = one("0.1 + x > .5")
    assert r.op == "<" and r.lhs == sp.Rational(1, 2) and r.rhs == x + sp.Rational(1, 10)
    assert not any(isinstance(a, sp.Float) for a in sp.preorder_traversal(r.rhs))
    r = one("Ge(x, 2)")
    assert (r.op, r.lhs, r.rhs) == ("<=", 2, x)
    assert one("Ne(x, 2)").op == "!="


def test_vocabulary_comes_from_the_encoding():
    enc = Encoding(8, family="h-1", base=500)
    pos = sp.Symbol("pos", real=True)
    r = one("PE(pos, 3) == omega(1) * d + base", domains=["pos=real"], enc=enc)
    assert r.lhs == enc.entry(pos, 3)
    assert r.rhs == enc.omega(1) * 8 + 500
    # the same text for another encoding gives that encoding's objects
    r4 = one("PE(pos, 3) == omega(1)", domains=["pos=real"], enc=Encoding(4))
    assert r4.lhs == Encoding(4).entry(pos, 3) and r4.lhs != r.lhs
    with pytest.raises(TextError, match="PE's index 4 at column 1: an integer 0..3"):
        one("PE(pos, 4) == 0", domains=["pos=real"])


def test_matrices_compare_entrywise():
    enc = Encoding(4)
    st_ = user_statement("M(k) * PE(pos) == PE(pos + k)", domains=["k=integer", "pos=real"],
                         enc=enc)
    assert len(st_.concl) == 4
    with pytest.raises(TextError, match="matrices are offered up to d = 64"):
        user_statement("M(k) * PE(pos) == PE(pos + k)", domains=["k=integer", "pos=real"],
                       enc=Encoding(512))
    with pytest.raises(TextError, match="'<' between matrices"):
        user_statement("PE(pos) < PE(pos)", domains=["pos=real"], enc=enc)


def test_sum_binds_its_variable():
    n = sp.Symbol("n", integer=True, positive=True)
    r = one("Sum(i, (i, 1, n)) == n*(n + 1)/2", domains=["n=pos_integer"])
    i = sp.Symbol("i", integer=True)
    assert r.lhs == sp.Sum(i, (i, 1, n))
    with pytest.raises(TextError, match="Sum's variable 'x' at column 9: a fresh name"):
        one("Sum(x, (x, 1, 3)) == 1")


# ------------------------------------------------------------------ hostile text
HOSTILE = [
    ("__import__('os').system('true') == 1", "name '__import__' at column 1"),
    ("x.__class__ == 1", "'.' at column 2: attribute access"),
    ("(lambda: 1)() == 1", "name 'lambda' at column 2: a Python keyword"),
    ("'abc' == x", "\"'\" at column 1: strings"),
    ("x == 10**10**10", "exponent 10000000000 at column 8"),
    ("x == 2**2**2**2**2", "exponent 65536"),
    ("x == (10**3000)**12", "power with exponent 12 at column 16"),
    ("x == " + "(" * 60 + "1" + ")" * 60, "nesting at column"),
    ("x == " + "-" * 60 + "1", "nesting at column"),
    ("\uff58 == 1", "U+FF58"),
    ("x\u200b == 1", "U+200B"),
    ("x == 1\n", "U+000A"),
    ("x ^ 2 == 1", "'^' at column 3: write ** for a power"),
    ("x = 1", "'=' at column 3: write == for equality"),
    ("x[0] == 1", "'[' at column 2: indexing"),
    ("eval(1) == 1", "function 'eval' at column 1: not a function"),
    ("getattr(x, y) == 1", "function 'getattr' at column 1"),
    ("z == 1", "name 'z' at column 1: not declared"),
    ("I*x == 1", "name 'I' at column 1: the imaginary unit"),
    ("1e400 == x", "number '1e400' at column 1"),
    ("1" * 101 + " == x", "number of 101 digits at column 1"),
    ("x == 1/0", "'/' at column 7: division by zero"),
    ("x < y < 1", "second relation '<' at column 7"),
    ("x == floor(exp(exp(100)))", "floor's argument at column 12"),
    ("Sum(i, (i, 0, 10**9)) == x", "Sum's limits at column 12: at most"),
    ("x == 1 if x else 2", "name 'if' at column 8: a Python keyword"),
    ("x == 1; import os", "';' at column 7"),
    ("x == 1 #", "'#' at column 8"),
    ("x + y", "a relation expected"),
    ("x ==", "unexpected end of text at column 5"),
    ("", "empty text"),
    ("x" * 2001, "2001 characters, at most 2000"),
]


@pytest.mark.parametrize("text, message", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_is_refused_in_one_line_naming_the_token(text, message):
    with pytest.raises(TextError) as exc:
        user_statement(text, domains=D, enc=Encoding(4))
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("statement: ")
    assert message in msg, msg


def test_assume_and_domain_errors_name_their_option():
    with pytest.raises(TextError, match=r"^--assume #2: '\.' at column 2"):
        user_statement("x == x", ["x > 0", "x.y > 0"], D[:1])
    with pytest.raises(TextError, match="unknown domain 'complex'"):
        user_statement("x == x", domains=["x=complex"])
    with pytest.raises(TextError, match="'sin' is a word of the statement language"):
        user_statement("x == x", domains=["sin=real"])
    with pytest.raises(TextError, match="--domain y: 'y' occurs in no relation"):
        user_statement("x == x", domains=D)


def test_no_eval_or_exec_is_called(monkeypatch):
    """The whole parse and build of hostile and ordinary text runs with ``eval``, ``exec``,
    ``compile`` and ``__import__`` of builtins replaced by traps (SymPy's sympify of a string
    calls them: see test_the_trap_catches_sympify)."""
    called = []

    def trap(name):
        def f(*a, **k):
            called.append(name)
            raise AssertionError(f"{name} called")
        return f

    texts = ["sin(x)**2 + cos(x)**2 == 1", "PE(pos, 0) <= omega(1)*base/d"] + \
        [t for t, _ in HOSTILE]
    with monkeypatch.context() as m:
        for name in ("eval", "exec", "compile"):
            m.setattr(builtins, name, trap(name))
        for t in texts:
            try:
                user_statement(t, domains=["x=real"] if "x" in t else ["pos=real"]
                               if "pos" in t else [], enc=Encoding(4))
            except TextError:
                pass
    assert called == []


def test_the_trap_catches_sympify(monkeypatch):
    """The trap of the previous test is able to fail: sympify of a string trips it."""
    with monkeypatch.context() as m:
        m.setattr(builtins, "eval", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("e")))
        with pytest.raises(Exception):  # noqa: B017 - SymPy wraps it in a SympifyError
            sp.sympify("x + 1")


def test_limits_are_named():
    assert P.MAX_DEPTH < 100 and MAX_EXPONENT <= 10**4
    # just inside the limits: accepted
    user_statement("x == " + "(" * 30 + "1" + ")" * 30, domains=["x=real"])
    user_statement(f"x == 2**{MAX_EXPONENT}", domains=["x=real"])
    with pytest.raises(TextError, match=f"exponent {MAX_EXPONENT + 1}"):
        user_statement(f"x == y**{MAX_EXPONENT + 1}", domains=D)


def test_the_tokenizer_reads_decimals_exactly():
    toks = P.tokenize("0.125*x**2>=.5")
    assert [t.text for t in toks] == ["0.125", "*", "x", "**", "2", ">=", ".5", ""]
    assert P.parse("0.125 == x").args[0].value == Fraction(1, 8)
