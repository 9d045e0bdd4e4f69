"""Statements as display formulas, each printed piece checked against what was proved.

A :class:`~peproof.claims.Statement` is printed with :func:`sympy.latex` (never retyped): the
quantifier prefix with the variables' domains, the hypotheses, then the conclusions, one per
row; a side wider than the line is broken between the terms of its sum (expanded first when a
single term is too wide).  Sums over the frequency pairs are printed by name,
``\\|PE(p) - PE(p+k)\\|^2``, ``\\langle PE(p), PE(q)\\rangle`` (:mod:`.named`).  Many conclusions of
one form (the concrete-``d`` instances of a lemma) are printed as their first and last instance
and their number.  Nothing is replaced by a description of its size.

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
BUDGET = 58.0  # estimated width of a display row (in "characters" of math)
#: a side too wide for a row is expanded into smaller terms only if it is this small (larger
#: ones are printed as they are and scaled to the line)
EXPAND_OPS = 400
EXPAND_TERMS = 80
#: between the factors of a product: a thin space, so ``pos w_0`` does not read ``posw0``
MUL = r"\,"
#: the domains in words (for the note on long lists of variables)
DOMAIN_WORDS = {"real": "reals", "pos_real": "positive reals", "rational": "rationals",
                "integer": "integers", "nonneg_integer": "non-negative integers",
                "pos_integer": "positive integers", "even_pos_integer": "even positive integers"}
GROUP_MAX = 6  # variables of one domain listed before "x_1, ..., x_n"


def default_rope_base():
    """The base RoPE's decay bound has unless one is given (``peproof.rope``'s default)."""
    import inspect

    from peproof.rope import decay_bound_expr

    return sp.Integer(inspect.signature(decay_bound_expr).parameters["base"].default)


class Printer(LatexPrinter):
    r"""SymPy's LaTeX printer with the mathematics of the few functions SymPy does not know,
    which it would print as a program's call (``\operatorname{DecayBound}(64, k, 10000)``):

    * RoPE's decay bound as ``B_{d}(k)``, the base written after a semicolon when it is not
      the default (``B_{d}(k;\ \mathrm{base}\ b)``);
    * a condition ``ITE(c, a, b)`` as ``(\text{if } c \text{ then } a \text{ else } b)``.

    :mod:`.parse` reads both back.
    """

    def _print_DecayBound(self, e):
        d, k, base = e.args
        inner = self._print(k)
        if base != default_rope_base():
            inner += r";\ \mathrm{base}\ " + self._print(base)
        return rf"B_{{{self._print(d)}}}\left({inner}\right)"

    def _print_ITE(self, e):
        c, a, b = (self._print(x) for x in e.args)
        return rf"\left(\text{{if }} {c} \text{{ then }} {a} \text{{ else }} {b}\right)"


def legend(*exprs) -> list[str]:
    """What the functions of :class:`Printer` stand for, one phrase each (LaTeX in text), for
    the expressions that use them: ``$B_{64}$: RoFormer's decay bound, $d = 64$, base $10000$``
    (the base and ``d`` read from the expression)."""
    from peproof.rope import DecayBound

    seen: dict = {}
    for e in exprs:
        for f in sp.sympify(e).atoms(DecayBound):
            seen.setdefault((f.args[0], f.args[2]), f)
    out = []
    for (d, base), _f in sorted(seen.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        name = f"B_{{{latex(d)}}}"
        if base != default_rope_base():
            name += rf"(\cdot;\ \mathrm{{base}}\ {latex(base)})"
        out.append(rf"${name}$: RoFormer's decay bound $\tfrac{{2}}{{d}}\sum_{{j=1}}^{{d/2}}"
                   rf"|S_j(k)|$ at $d = {latex(d)}$, base ${latex(base)}$")
    return out


def latex(e, names: dict | None = None) -> str:
    """SymPy's LaTeX (:class:`Printer`); ``names`` maps placeholder symbols to the named
    sub-terms they stand for (:mod:`.named`)."""
    settings = {"imaginary_unit": "ri", "mul_symbol": MUL}
    if names:
        from .named import display_names

        settings["symbol_names"] = display_names(names)
    return Printer(settings).doprint(e)


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
        except (TypeError, ValueError, ZeroDivisionError, AttributeError, RecursionError):
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
    notes: list[str] = field(default_factory=list)
    head: int = 0  # rows of the quantifier prefix and hypotheses
    spans: list[tuple[int, int]] = field(default_factory=list)  # rows of each form shown
    groups: int = 0  # forms of conclusion (instances of one pattern)
    groups_shown: int = 0
    group_sizes: list[int] = field(default_factory=list)  # conclusions of each form shown
    named: list[str] = field(default_factory=list)  # kinds of named sub-terms used

    @property
    def omitted(self) -> int:
        return self.total - self.shown

    def first_forms(self, n: int, max_rows: int) -> dict:
        """The display cut after the first ``n`` forms of conclusion, fewer if the rows exceed
        ``max_rows`` (at least one form); its pieces were checked with the whole."""
        k = min(n, len(self.spans))
        while k > 1 and self.spans[k - 1][1] > max_rows:
            k -= 1
        end = self.spans[k - 1][1] if k else len(self.rows)
        return {"rows": self.rows[:end], "shown": sum(self.group_sizes[:k]),
                "total": self.total, "omitted": self.total - sum(self.group_sizes[:k]),
                "groups": self.groups, "groups_shown": k, "named": self.named,
                "notes": self.notes, "head": self.head, "spans": self.spans[:k], "checks": []}

    def as_dict(self) -> dict:
        return {"rows": self.rows, "shown": self.shown, "total": self.total,
                "omitted": self.omitted, "groups": self.groups,
                "groups_shown": self.groups_shown, "named": self.named,
                "notes": self.notes, "head": self.head, "spans": self.spans,
                "checks": [{"text": c.text, "status": c.status, "detail": c.detail}
                           for c in self.checks]}


def _terms(e, names: dict | None = None) -> list[str]:
    """``e`` as printed pieces: a sum is split into signed terms, in the printer's order."""
    names = names or {}
    if not isinstance(e, sp.Add):
        return [latex(e, names)]
    out = []
    for n, t in enumerate(LatexPrinter()._as_ordered_terms(e)):
        if t.could_extract_minus_sign():
            out.append("- " + latex(-t, names))
        else:
            out.append(("+ " if n else "") + latex(t, names))
    return out


def _pack(pieces: list[str], first_width: float) -> list[str]:
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


def _side_rows(e, lead: float, names: dict) -> tuple[list[str], str, sp.Expr]:
    """Rows for one side and the expression they print: the side itself, or, when one of its
    terms is too wide to fit a row, the side expanded into smaller terms (the read-back check
    then compares values at random points)."""
    pieces = _terms(e, names)
    text = " ".join(pieces)
    if lead + width(text) <= BUDGET:
        return [text], text, e
    if any(width(p) > BUDGET * 1.15 for p in pieces) and sp.count_ops(e) <= EXPAND_OPS:
        expanded = sp.expand(e)
        if expanded != e and len(pieces) < len(sp.Add.make_args(expanded)) <= EXPAND_TERMS:
            e = expanded
            pieces = _terms(e, names)
    rows = _pack(pieces, lead)
    return rows, " ".join(rows), e


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
            notes.append(f"{len(syms)} {DOMAIN_WORDS.get(dom, dom)}")
        else:
            names = ", ".join(latex(s) for s in syms)
        parts.append(f"{names} \\in {DOMAIN_SET[dom]}")
    return parts, notes


def _rel_rows(rel, symbols, domains, functions, out: Printed, lead: str,
              names: dict, indent: str) -> None:
    from .named import abbreviate

    op = OP_TEX[rel.op]
    exprs = [abbreviate(e, names) for e in (rel.lhs, rel.rhs)]
    table = {**symbols, **{"{" + n.tex + "}": ph for ph, n in names.items()}}
    sides = [_side_rows(e, 4.0, names) for e in exprs]
    same = r"\quad\text{(the same expression once built)}" if rel.lhs == rel.rhs else ""
    if len(sides[0][0]) == 1 and len(sides[1][0]) == 1 and \
            width(sides[0][1]) + width(sides[1][1]) + 6 <= BUDGET:
        out.rows.append(f"&{lead}{sides[0][1]} {op} {sides[1][1]}{same}")
    else:
        for k, r in enumerate(sides):
            pre = lead if k == 0 else indent + r"\quad " + op + " "
            out.rows.append(f"&{pre}{r[0][0]}")
            for row in r[0][1:]:
                out.rows.append(f"&{indent}\\qquad {row}")
    for r in sides:
        out.checks.append(check_text(r[1], r[2], table, domains, functions))


def _shape(e, memo: dict) -> tuple:
    if e in memo:
        return memo[e]
    if e.is_Symbol:
        out = ("S", re.sub(r"\d+", "#", e.name))
    elif e.is_Number:
        out = ("N",)
    elif not e.args:
        out = (type(e).__name__,)
    else:
        out = (type(e).__name__, *(_shape(a, memo) for a in e.args))
    memo[e] = out
    return out


def shape(rel, memo: dict | None = None) -> tuple:
    """The form of a relation with its numbers and indexed names blanked (``w_12`` -> ``w_#``):
    conclusions of one form are instances of one pattern."""
    memo = {} if memo is None else memo
    return (rel.op, _shape(rel.lhs, memo), _shape(rel.rhs, memo))


@dataclass
class _Group:
    key: tuple
    members: list = field(default_factory=list)


def group_conclusions(concl) -> list[_Group]:
    """Conclusions grouped by :func:`shape`, in order of first appearance."""
    groups: dict[tuple, _Group] = {}
    memo: dict = {}
    for r in concl:
        key = shape(r, memo)
        groups.setdefault(key, _Group(key)).members.append(r)
    return list(groups.values())


def render_statement(stmt, max_groups: int | None = None, max_rows: int | None = None) -> Printed:
    """The statement as display rows with every printed side checked (module docstring).

    Conclusions of one form (:func:`group_conclusions`) are printed as their first and last
    instance around a vertical ellipsis, with their number; ``max_groups`` forms at most are
    shown (the count of the others is recorded), and further forms stop once the display has
    ``max_rows`` rows.  Sums over the frequency pairs are printed by name (:mod:`.named`).
    """
    out = Printed(total=len(stmt.concl))
    groups = group_conclusions(stmt.concl)
    shown_groups = groups[:max_groups] if max_groups else groups
    shown_rels = [r for g in shown_groups for r in (g.members[:1] + g.members[-1:]
                                                     if len(g.members) > 1 else g.members)]
    exprs = [x for r in tuple(shown_rels) + stmt.hyps for x in (r.lhs, r.rhs)]
    symbols = symbol_table(*exprs, *(v.symbol for v in stmt.vars))
    functions = functions_for(*exprs)
    domains = {v.symbol: v.domain for v in stmt.vars}
    indent = r"\quad " if stmt.vars else ""
    names: dict = {}
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
    out.head = len(out.rows)
    first = True
    for g in shown_groups:
        before = (list(out.rows), list(out.checks))
        start = len(out.rows)
        members = g.members[:1] + g.members[-1:] if len(g.members) > 1 else g.members
        for j, rel in enumerate(members):
            lead = indent + (r"\land\ " if not first else "")
            first = False
            if j == 1:
                if len(g.members) > 2:
                    out.rows.append(f"&{indent}\\qquad\\vdots\\quad\\text{{({len(g.members) - 2} "
                                    "more of this form)}")
            _rel_rows(rel, symbols, domains, functions, out, lead, names, indent)
        if max_rows and out.spans and len(out.rows) > max_rows:
            out.rows, out.checks = before
            break
        out.spans.append((start, len(out.rows)))
        out.shown += len(g.members)
        out.groups_shown += 1
        out.group_sizes.append(len(g.members))
    out.groups = len(groups)
    out.named = sorted({n.kind for n in names.values()})
    _join_head(out, indent)
    return out


def _join_head(out: Printed, indent: str) -> None:
    """The quantifier row and the first conclusion on one row when both fit."""
    h = out.head
    if not h or len(out.rows) <= h:
        return
    first = out.rows[h][1:]
    if not first.startswith(indent) or (len(out.rows) > h + 1 and out.rows[h + 1].startswith(
            "&" + indent + r"\quad ")):
        return  # the first conclusion spans several rows: keep the layout
    body = first[len(indent):]
    if width(out.rows[h - 1]) + width(body) + 1 > BUDGET:
        return
    out.rows[h - 1:h + 1] = [out.rows[h - 1] + r"\ " + body]
    out.head = h - 1
    out.spans = [(max(a - 1, 0), b - 1) for a, b in out.spans]


def render_expr_check(e, domains: dict | None = None) -> tuple[str, Check]:
    """One expression printed and checked (witness values, companions' short forms)."""
    from .named import abbreviate

    names: dict = {}
    short = abbreviate(e, names)
    text = latex(short, names)
    symbols = {**symbol_table(e), **{"{" + n.tex + "}": ph for ph, n in names.items()}}
    return text, check_text(text, short, symbols, domains or {}, functions_for(e))
