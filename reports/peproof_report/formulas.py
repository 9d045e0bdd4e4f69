"""Statements as display formulas, each printed piece checked against what was proved.

A :class:`~peproof.claims.Statement` is printed with :func:`sympy.latex` (never retyped): the
quantifier prefix with the variables' domains, the hypotheses, then the conclusions, one per
row; a side wider than the line is broken between the terms of its sum.  Very long statements
are summarised: at most :data:`MAX_RELATIONS` conclusions are shown (the count of the others is
printed), and a side wider than :data:`MAX_ROWS` rows is replaced by a description of its size.

Every printed side is read back by :mod:`.parse` and compared with the expression of the
statement: equal as SymPy trees, or, failing that, equal in value at several random points of
the variables' domains (30 digits).  The outcome is recorded per formula in :class:`Check`.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

import sympy as sp
from sympy.printing.latex import LatexPrinter

from .parse import ParseError, parse, symbol_table

DOMAIN_SET = {
    "real": r"\mathbb{R}",
    "pos_real": r"\mathbb{R}_{>0}",
    "rational": r"\mathbb{Q}",
    "integer": r"\mathbb{Z}",
    "nonneg_integer": r"\mathbb{Z}_{\ge 0}",
    "pos_integer": r"\mathbb{Z}_{>0}",
    "even_pos_integer": r"2\mathbb{Z}_{>0}",
}
OP_TEX = {"==": "=", "<=": r"\le", "<": "<", "!=": r"\ne"}
OP_FROM_TEX = {"=": "==", r"\le": "<=", "<": "<", r"\ne": "!="}
MAX_RELATIONS = 4  # conclusions printed per statement
BUDGET = 58.0  # estimated width of a display row (in "characters" of math)
MAX_ROWS = 8  # rows one side may take before it is summarised
MAX_STATEMENT_ROWS = 14  # rows of one statement before further conclusions are left out
GROUP_MAX = 6  # variables of one domain listed before "x_1, ..., x_n"


def latex(e) -> str:
    return sp.latex(e, imaginary_unit="ri")


# ---------------------------------------------------------------------------- width estimate
_CMD_WIDTH = {"sin": 3, "cos": 3, "tan": 3, "log": 3, "exp": 3, "sum": 2, "int": 2,
              "pi": 1, "omega": 1, "cdot": 1, "le": 1.5, "ne": 1.5, "lfloor": 0.5,
              "rfloor": 0.5, "bmod": 3, "forall": 1, "mathbb": 0, "left": 0, "right": 0,
              "operatorname": 0, "text": 0, "frac": 0, "sqrt": 1, "quad": 1, "qquad": 2}


def width(tex: str) -> float:
    """A rough width of a LaTeX math string, in characters (fractions count their wider part,
    exponents and subscripts count 0.6)."""
    total, i, n = 0.0, 0, len(tex)
    while i < n:
        c = tex[i]
        if c == "\\":
            m = re.compile(r"\\([A-Za-z]+|.)").match(tex, i)
            name = m.group(1)
            i = m.end()
            if name == "frac":
                a, i = _brace(tex, i)
                b, i = _brace(tex, i)
                total += max(width(a), width(b)) + 0.5
            elif name == "text":
                a, i = _brace(tex, i)
                total += len(a) * 0.9
            elif name == "operatorname":
                a, i = _brace(tex, i)
                total += len(a)
            elif name in (",", ":", ";", " ", "!"):
                total += 0.3
            else:
                total += _CMD_WIDTH.get(name, 1)
        elif c in "^_":
            i += 1
            if i < n and tex[i] == "{":
                a, i = _brace(tex, i)
                total += 0.6 * width(a)
            else:
                total += 0.6
                i += 1
        elif c in "{} &":
            i += 1
        else:
            total += 1.6 if c in "+-=<>" else 1
            i += 1
    return total


def _brace(tex: str, i: int) -> tuple[str, int]:
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex) or tex[i] != "{":
        return (tex[i:i + 1], i + 1)
    depth, j = 0, i
    while j < len(tex):
        if tex[j] == "\\":
            j += 2
            continue
        if tex[j] == "{":
            depth += 1
        elif tex[j] == "}":
            depth -= 1
            if depth == 0:
                return tex[i + 1:j], j + 1
        j += 1
    return tex[i + 1:], len(tex)


# ---------------------------------------------------------------------------- checks
@dataclass
class Check:
    """One printed formula and whether it reads back as the expression it stands for."""

    text: str
    status: str  # "identical", "equal at random points", "mismatch", "unparsed"
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("identical", "equal at random points")


_SAMPLE = {
    "real": lambda r: sp.Rational(r.randint(-29, 29), r.randint(1, 7)),
    "rational": lambda r: sp.Rational(r.randint(-29, 29), r.randint(1, 7)),
    "pos_real": lambda r: sp.Rational(r.randint(1, 29), r.randint(1, 7)),
    "integer": lambda r: sp.Integer(r.randint(-6, 6)),
    "nonneg_integer": lambda r: sp.Integer(r.randint(0, 6)),
    "pos_integer": lambda r: sp.Integer(r.randint(1, 6)),
    "even_pos_integer": lambda r: sp.Integer(2 * r.randint(1, 4)),
}


def _domain_of(s: sp.Symbol, domains: dict) -> str:
    if s in domains:
        return domains[s]
    if s.is_integer:
        return "nonneg_integer" if s.is_nonnegative else "integer"
    return "pos_real" if s.is_positive else "real"


def _value(e, env):
    v = e.xreplace(env)
    if isinstance(v, sp.logic.boolalg.Boolean) or v.is_Relational:
        v = v.doit() if hasattr(v, "doit") else v
        return bool(v) if v in (sp.true, sp.false) else None
    v = sp.N(v.doit(), 30)
    if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    return complex(v) if v.has(sp.I) else v


def same_at_points(a, b, domains: dict, seed: str, points: int = 4) -> bool | None:
    """``a`` and ``b`` agree at ``points`` random points (None: too few points evaluated)."""
    rnd = random.Random(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16))
    free = sorted((a.free_symbols | b.free_symbols), key=lambda s: s.name)
    agree = 0
    for _ in range(points * 3):
        env = {s: _SAMPLE[_domain_of(s, domains)](rnd) for s in free}
        try:
            va, vb = _value(a, env), _value(b, env)
        except (TypeError, ValueError, ZeroDivisionError, AttributeError):
            continue
        if va is None or vb is None:
            continue
        if isinstance(va, bool) or isinstance(vb, bool):
            if va != vb:
                return False
        elif abs(complex(va) - complex(vb)) > 1e-20 * (1 + abs(complex(va)) + abs(complex(vb))):
            return False
        agree += 1
        if agree >= points:
            return True
    return None


def _plain(e):
    """Subclasses of ``Sum`` (such as the families' ``PairSum``) as plain sums: they print,
    and mean, the same."""
    if isinstance(e, sp.Basic) and e.has(sp.Sum):
        return e.replace(lambda x: isinstance(x, sp.Sum) and type(x) is not sp.Sum,
                         lambda x: sp.Sum(*x.args))
    return e


def check_text(text: str, expr, symbols: dict, domains: dict, functions: dict) -> Check:
    """Read ``text`` back and compare it with ``expr``."""
    try:
        got = parse(text, symbols, functions)
    except (ParseError, TypeError, ValueError, RecursionError) as exc:
        return Check(text, "unparsed", str(exc)[:200])
    want = _plain(sp.sympify(expr))
    if got == want:
        return Check(text, "identical")
    same = same_at_points(got, want, domains, text)
    if same:
        return Check(text, "equal at random points")
    return Check(text, "mismatch" if same is False else "unparsed",
                 "differs at a random point" if same is False else "could not evaluate")


def functions_for(*exprs) -> dict:
    """Applied undefined/custom function classes of the expressions, by name (for the parser)."""
    out = {}
    for e in exprs:
        for f in sp.sympify(e).atoms(sp.Function):
            out[type(f).__name__] = type(f)
    return out


# ---------------------------------------------------------------------------- printing
@dataclass
class Printed:
    """A statement as rows of an ``align*`` environment, plus the checks of its pieces."""

    rows: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    shown: int = 0
    total: int = 0
    summarised_sides: int = 0
    notes: list[str] = field(default_factory=list)
    head: int = 0  # rows of the quantifier prefix and hypotheses
    spans: list[tuple[int, int]] = field(default_factory=list)  # rows of each conclusion

    @property
    def omitted(self) -> int:
        return self.total - self.shown

    def as_dict(self) -> dict:
        return {"rows": self.rows, "shown": self.shown, "total": self.total,
                "omitted": self.omitted, "summarised_sides": self.summarised_sides,
                "notes": self.notes, "head": self.head, "spans": self.spans,
                "checks": [{"text": c.text, "status": c.status, "detail": c.detail}
                           for c in self.checks]}


def _terms(e) -> list[str]:
    """``e`` as printed pieces: a sum is split into signed terms, in the printer's order."""
    if not isinstance(e, sp.Add):
        return [latex(e)]
    out = []
    for n, t in enumerate(LatexPrinter()._as_ordered_terms(e)):
        if t.could_extract_minus_sign():
            out.append("- " + latex(-t))
        else:
            out.append(("+ " if n else "") + latex(t))
    return out


def _pack(pieces: list[str], first_width: float) -> list[str] | None:
    rows, cur, w = [], "", first_width
    for p in pieces:
        pw = width(p)
        if cur and w + pw > BUDGET:
            rows.append(cur)
            cur, w = "", 4.0
        cur = f"{cur} {p}".strip()
        w += pw
    rows.append(cur)
    return rows


def _side_rows(e, lead: float) -> tuple[list[str], str] | None:
    """Rows for one side (None if it would take more than MAX_ROWS rows or a term is too wide
    to break)."""
    pieces = _terms(e)
    text = " ".join(pieces)
    if lead + width(text) <= BUDGET:
        return [text], text
    if any(width(p) > BUDGET * 1.15 for p in pieces):
        return None
    rows = _pack(pieces, lead)
    if len(rows) > MAX_ROWS:
        return None
    return rows, " ".join(rows)


def _describe(e) -> str:
    n = len(sp.Add.make_args(e))
    syms = len(e.free_symbols)
    return (rf"\text{{(an expression of {n} term{'s' if n != 1 else ''} in {syms} "
            rf"variable{'s' if syms != 1 else ''}, too long to print)}}")


def _vars_rows(stmt) -> tuple[list[str], list[str]]:
    """Quantifier text, grouping consecutive variables of one domain."""
    groups: list[tuple[str, list]] = []
    for v in stmt.vars:
        if groups and groups[-1][0] == v.domain:
            groups[-1][1].append(v.symbol)
        else:
            groups.append((v.domain, [v.symbol]))
    parts, notes = [], []
    for dom, syms in groups:
        if len(syms) > GROUP_MAX:
            names = f"{latex(syms[0])}, {latex(syms[1])}, \\dots, {latex(syms[-1])}"
            notes.append(f"{len(syms)} variables in {dom.replace('_', ' ')}")
        else:
            names = ", ".join(latex(s) for s in syms)
        parts.append(f"{names} \\in {DOMAIN_SET[dom]}")
    return parts, notes


def _rel_rows(rel, symbols, domains, functions, out: Printed, indent: str) -> None:
    op = OP_TEX[rel.op]
    sides = []
    for e in (rel.lhs, rel.rhs):
        r = _side_rows(e, 4.0)
        sides.append(r)
    if all(sides) and len(sides[0][0]) == 1 and len(sides[1][0]) == 1 and \
            width(sides[0][1]) + width(sides[1][1]) + 6 <= BUDGET:
        out.rows.append(f"&{indent}{sides[0][1]} {op} {sides[1][1]}")
    else:
        for k, (e, r) in enumerate(zip((rel.lhs, rel.rhs), sides, strict=True)):
            pre = indent if k == 0 else indent + r"\quad " + op + " "
            if r is None:
                out.rows.append(f"&{pre}{_describe(e)}")
                out.summarised_sides += 1
                continue
            rows = r[0]
            out.rows.append(f"&{pre}{rows[0]}")
            for row in rows[1:]:
                out.rows.append(f"&{indent}\\qquad {row}")
    for e, r in zip((rel.lhs, rel.rhs), sides, strict=True):
        if r is not None:
            out.checks.append(check_text(r[1], e, symbols, domains, functions))


def render_statement(stmt, max_relations: int = MAX_RELATIONS,
                     max_rows: int = MAX_STATEMENT_ROWS) -> Printed:
    """The statement as display rows with every printed side checked (see module docstring).

    Conclusions are added while the display stays within ``max_rows`` rows (at least one is
    shown); sides too long to print are described by their size, and a statement whose shown
    sides are all of that kind gets one summary row instead of one per side.
    """
    out = Printed(total=len(stmt.concl))
    shown = stmt.concl[:max_relations]
    exprs = [x for r in tuple(shown) + stmt.hyps for x in (r.lhs, r.rhs)]
    symbols = symbol_table(*exprs, *(v.symbol for v in stmt.vars))
    functions = functions_for(*exprs)
    domains = {v.symbol: v.domain for v in stmt.vars}
    indent = r"\quad " if stmt.vars else ""
    if stmt.vars:
        parts, notes = _vars_rows(stmt)
        out.notes += notes
        q = r"\forall" if stmt.quant == "forall" else r"\exists"
        head, w = f"{q}\\ ", 2.0
        for n, p in enumerate(parts):
            sep = ",\\ " if n else ""
            if w + width(p) > BUDGET and n:
                out.rows.append("&" + head + ",")
                head, w = r"\quad ", 2.0
                sep = ""
            head += sep + p
            w += width(p) + 1
        if stmt.hyps:
            hyp = ",\\ ".join(f"{latex(h.lhs)} {OP_TEX[h.op]} {latex(h.rhs)}" for h in stmt.hyps)
            if w + width(hyp) + 8 <= BUDGET:
                head += r"\ \text{with}\ " + hyp
            else:
                out.rows.append("&" + head)
                head = r"\quad\text{with}\ " + hyp
            for h in stmt.hyps:
                for e in (h.lhs, h.rhs):
                    out.checks.append(check_text(latex(e), e, symbols, domains, functions))
        out.rows.append("&" + head + r"\colon")
    head_rows = out.head = len(out.rows)
    for n, rel in enumerate(shown):
        before = (list(out.rows), list(out.checks), out.summarised_sides)
        _rel_rows(rel, symbols, domains, functions, out, indent + (r"\land\ " if n else ""))
        if n and len(out.rows) > max_rows:
            out.rows, out.checks, out.summarised_sides = before
            break
        out.spans.append((len(before[0]), len(out.rows)))
        out.shown = n + 1
    body = out.rows[head_rows:]
    if body and all(r"\text{(an expression of" in r for r in body):
        n = len(stmt.concl)
        out.rows = out.rows[:head_rows] + [
            rf"&{indent}\text{{({n} relation{'s' if n != 1 else ''} between expressions too "
            r"long to print)}"]
        out.shown = n
        out.summarised_sides = 0
        out.spans = [(head_rows, head_rows + 1)]
    return out


def render_expr_check(e, domains: dict | None = None) -> tuple[str, Check]:
    """One expression printed and checked (witness values, companions' short forms)."""
    text = latex(e)
    symbols = symbol_table(e)
    return text, check_text(text, e, symbols, domains or {}, functions_for(e))
