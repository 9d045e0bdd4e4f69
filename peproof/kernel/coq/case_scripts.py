"""Proofs of theorems without a real goal (``Goal.real`` False: ``Piecewise``), by case split.

The theorem is proved on its own terms: every decision of its ``Sem.v`` functions (the
branches' conditions, the definedness tests) is split (``pe_dec``) and each branch closed by
``CheckSem.v``'s ``pe_case_close`` (integer branches by ``lia`` over ``Z``, real ones by
``lra``/``nra``/``field``).  A refuted claim gets the statement itself at the certified point,
evaluated there (:func:`peproof.kernel.coq.semantic.negation_script`'s direct route).

Before the split, arguments of partial operations that have the same value are made the same
term (:func:`merges`): two printed arguments whose SymPy readings are equal as rational
functions (``cancel``; with ``Piecewise``, on one choice of branches) are proposed, and Coq
replaces one by the other only with a proof that the two ``Sem.v`` terms are equal under the
statement's hypotheses (``CheckSem.v``'s ``pe_same_arg``: every decision split, each branch by
``field`` with its denominators nonzero from the context, an undefined side on one branch
only failing it).  Python's proposal is never trusted: a false one is a replace that fails.
A decision then taken once covers both operations: dynamic NTK's two equal bases
``-s + 1 + s l/L`` and ``1 + s (l - L)/L`` no longer split into the sixteen sign cases of two
unrelated numbers, twelve of them inconsistent and closed only by ``nra``.
"""

from __future__ import annotations

import random
import re

import sympy as sp

from peproof.kernel.coq import sem_round
from peproof.kernel.coq.coqtext import closing
from peproof.kernel.coq.reparse import ParseError, parse_sem_term
from peproof.kernel.coq.tactics import NoScript, Script, point_values

#: partial operations a case split decides, counted as the split takes them: each conclusion
#: is split on its own (``pe_split`` first), and an operation that occurs twice in one
#: conclusion is one decision there (``destruct`` takes every occurrence).  Yarn's attention
#: factor (8 such decisions) splits and closes in 3 s; dynamic NTK's effective factor has 37
#: (four unrelated bases in each of three conclusions: 7 to 11 s of a 10 s job) and 25 once
#: its equal bases are merged (about 3 s) -- and a job out of time is never cached, so it
#: would cost its limit on every run
MAX_PARTIAL = 32
PARTIAL = re.compile(r"\b(?:odiv|opow|opowZ|osqrt|oln|otan|omod)\b")
#: merges are proposed among at most this many distinct arguments (pairs: its square)
MAX_ARGS = 60
#: and each argument at most this long (cancel's time grows with the terms)
MAX_ARG_CHARS = 1500

#: the split, then each branch by CheckSem.v's closer or, for identities in sin/cos of linear
#: forms (a branch of a scaled attention score), the library's pe_auto
CASES = "intros; pe_cases; first [ solve [pe_case_close] | solve [pe_auto] ]"


def script(st, goal, *, refuted: bool = False, witness: dict | None = None) -> Script:
    """The proof of ``goal.text`` itself (not of a real goal)."""
    if sem_round.in_statement(st):  # lib/Round.v's lemmas, no case split
        if refuted:
            raise NoScript("RoundBinary: lib/Round.v's pe_round proves statements, not negations")
        return Script(sem_round.SCRIPT, "round", frozenset({"round"}))
    if refuted:
        if st.quant != "forall" or not witness or "point" not in witness:
            raise NoScript("a refuted claim is checked only as the negation of a 'forall' "
                           "statement at a certified point")
        vals = point_values(st, goal, witness["point"])
        spec = f"(H {' '.join(vals)})" if vals else "H"
        text = (f"intro H; pose proof {spec} as Hc; pe_sem_feed Hc; pe_dec_h; pe_destr Hc; "
                "first [ solve [pe_refute] | solve [exfalso; pe_refute] ]")
        return Script(text, "cases", frozenset({"interval"}), negation=True)
    if st.quant != "forall":
        raise NoScript(f"a Piecewise statement is proved by case split only under 'forall' "
                       f"(this one is {st.quant!r})")
    concls, hyps = list(goal.sem_concls), list(goal.sem_hyps)
    n0 = split_size(concls, hyps)
    steps, merged = merges(goal, st)
    n = split_size(merged, hyps)
    if n > MAX_PARTIAL:
        said = f" ({n0} before merging equal arguments)" if n != n0 else ""
        raise NoScript(f"the case split would decide {n} partial operations{said} (a case "
                       f"split is given at most {MAX_PARTIAL}: each doubles the branches)")
    if not steps:
        return Script(CASES, "cases")
    # within the budget without the merges: each one may fail (the split is then larger, and
    # still within it); else every merge is needed and a failed one fails the script at once
    wrap = "try (pe_same_arg {} {}); " if n0 <= MAX_PARTIAL else "pe_same_arg {} {}; "
    pre = "".join(wrap.format(a, b) for a, b in steps)
    return Script(CASES.replace("intros; ", "intros; " + pre, 1), "cases")


# -- the size of a split ---------------------------------------------------------------------

def _extent(text: str, start: int) -> int:
    """The end (exclusive) of the application starting at ``start``: up to the ``,`` or
    ``)`` that closes its group."""
    depth, k = 0, start
    while k < len(text):
        ch = text[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        k += 1
    return k


def decisions(text: str) -> set[str]:
    """The distinct partial operations of ``text`` (each application's text)."""
    out = set()
    for m in PARTIAL.finditer(text):
        out.add(" ".join(text[m.start():_extent(text, m.start())].split()))
    return out


def split_size(concls: list[str], hyps: list[str]) -> int:
    """The partial operations a case split decides: per conclusion, the distinct ones of the
    conclusion and the hypotheses (each conclusion is split apart, each decision once)."""
    h = set().union(*(decisions(t) for t in hyps)) if hyps else set()
    return sum(len(decisions(c) | h) for c in concls)


# -- merging arguments of equal value ----------------------------------------------------------

def _args(text: str, start: int) -> list[str]:
    """The parenthesized arguments of the application whose head ends at ``start``."""
    out, k, end = [], start, _extent(text, start)
    while k < end:
        if text[k] == "(":
            j = k + closing(text[k:])
            out.append(text[k:j + 1])
            k = j + 1
        else:
            k += 1
    return out


def partial_args(text: str) -> list[str]:
    """The non-atomic arguments of the partial operations of ``text``, in order, distinct."""
    seen: dict[str, None] = {}
    for m in PARTIAL.finditer(text):
        for a in _args(text, m.end()):
            if a.startswith("(Some ") and " " not in a[6:-1].strip():  # a variable, a number
                continue
            seen.setdefault(a, None)
    return list(seen)


def _reading(text: str, symbols: dict):
    """The SymPy reading of a printed ``Sem.v`` argument, or None (a form not read back, a
    name bound inside the statement)."""
    if len(text) > MAX_ARG_CHARS or "fun" in text.split():
        return None
    try:
        return parse_sem_term(text, symbols)
    except (ParseError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _zero(e) -> bool:
    try:
        return sp.cancel(sp.together(e)) == 0
    except (sp.PolynomialError, TypeError, ValueError, NotImplementedError):
        return False


def equal_values(a, b, points=()) -> bool:
    """Are ``a`` and ``b`` equal as rational functions (their other parts as generators)?
    With ``Piecewise``: on every choice of branches taken at one of ``points`` (points where
    the statement's hypotheses hold: a choice they exclude, the branch ``l < L`` under
    ``L < l``, is not compared; without points, every choice).  A proposal only: Coq proves
    the equality under the hypotheses or refuses it."""
    d = a - b
    if _apart(d, points[0] if points else _probe(d)):  # cheap: a point where they differ
        return False
    if d.has(sp.Piecewise):
        d = sp.piecewise_fold(d)
        if isinstance(d, sp.Piecewise):
            taken = _taken(d, points)
            return bool(taken) and all(_zero(d.args[k][0]) for k in taken)
    return _zero(d)


def _probe(e) -> dict:
    """A point of ``e``'s variables (no hypothesis checked: for a term without Piecewise a
    difference that is not zero there is not zero as a rational function)."""
    return {x: sp.Rational(7 + 4 * k, 5 + 2 * k) for k, x in
            enumerate(sorted(e.free_symbols, key=str))}


def _apart(d, point) -> bool:
    """Is ``d`` clearly not zero at ``point`` (a number, more than 1e-9 from 0)?"""
    try:
        v = sp.N(d.xreplace(point), 20)
        return bool(v.is_number and v.is_finite and abs(v) > 1e-9)
    except (TypeError, ValueError, ZeroDivisionError):
        return False


def _taken(pw, points) -> set[int]:
    """The branches of ``pw`` taken at ``points`` (each point: the first true condition; one
    not decided there, it and every later branch); every branch without points."""
    if not points:
        return set(range(len(pw.args)))
    out: set[int] = set()
    for p in points:
        for k, (_, c) in enumerate(pw.args):
            try:
                v = c.subs(p)
            except (TypeError, ValueError):
                v = None
            if v is sp.false:
                continue
            if v is sp.true:
                out.add(k)
            else:
                out.update(range(k, len(pw.args)))
            break
    return out


#: the values tried for each variable of a domain (sample points of the hypotheses)
_POOL = {"real": [sp.Rational(n, 7) for n in range(-40, 41, 3)],
         "pos_real": [sp.Rational(n, 7) for n in range(1, 60, 2)],
         "integer": list(range(-9, 10)), "nonneg_integer": list(range(0, 12)),
         "pos_integer": list(range(1, 12)), "even_pos_integer": list(range(2, 24, 2))}


def _holds(rel, point) -> bool | None:
    try:
        d = sp.sympify(rel.lhs - rel.rhs).xreplace(point)
        if not d.is_number or d.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return None
        v = d if d.is_Rational else d.evalf(30)
        if not v.is_real:
            return None
        if not (v.is_Rational or abs(v) > sp.Float("1e-20")):  # too close to 0 to tell
            return None
        return bool({"==": v == 0, "!=": v != 0, "<=": v <= 0, "<": v < 0}[rel.op])
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def sample_points(st, goal, n: int = 12, tries: int = 200) -> list[dict]:
    """Up to ``n`` points (Coq name -> value, as read back) of the statement's domains where
    every hypothesis holds (a fixed pseudo-random sequence: the script is the same on every
    run)."""
    rng = random.Random(1729)
    out = []
    for _ in range(tries):
        pt = {b.symbol: rng.choice(_POOL.get(b.domain, _POOL["real"])) for b in goal.binders}
        if all(_holds(h, pt) is True for h in st.hyps):
            out.append({sp.Symbol(b.name, integer=True) if b.ctype == "Z"
                        else sp.Symbol(b.name, real=True): pt[b.symbol] for b in goal.binders})
            if len(out) >= n:
                break
    return out


def _cost(text: str) -> tuple:
    return (len(PARTIAL.findall(text)) + text.count("opw"), len(text), text)


def merges(goal, st=None) -> tuple[list[tuple[str, str]], list[str]]:
    """``[(a, b)]``: arguments ``a`` of partial operations to be replaced, in this order, by an
    argument ``b`` of the same value (the cheapest of its class: fewest partial operations and
    Piecewise, then the shortest); and the conclusions after those replacements.  The
    innermost argument goes first and the arguments are read again after each replacement: two
    terms that differ only there are then the same text (the bases of two equal powers make
    the powers equal)."""
    concls = list(goal.sem_concls)
    symbols = {b.name: sp.Symbol(b.name, integer=True) if b.ctype == "Z"
               else sp.Symbol(b.name, real=True) for b in goal.binders}
    readings: dict[str, object] = {}
    same: dict[tuple[str, str], bool] = {}
    points = None
    steps: list[tuple[str, str]] = []
    for _ in range(MAX_ARGS):
        args = partial_args(" ".join(concls))
        if len(args) > MAX_ARGS:
            break
        for a in args:
            if a not in readings:
                readings[a] = _reading(a, symbols)
        read = [a for a in args if readings[a] is not None and readings[a].free_symbols]
        if points is None:
            pw = any(readings[a].has(sp.Piecewise) for a in read)
            points = sample_points(st, goal) if pw and st is not None else []
        best = None
        for a in read:
            for b in read:
                if _cost(b) >= _cost(a):
                    continue
                if (a, b) not in same:
                    try:  # SymPy may fail on a reading: no proposal then
                        same[a, b] = equal_values(readings[a], readings[b], points)
                    except Exception:  # noqa: BLE001 - a proposal only, Coq decides
                        same[a, b] = False
                if same[a, b] and (best is None or (len(a), _cost(b)) < (len(best[0]),
                                                                        _cost(best[1]))):
                    best = (a, b)
        if best is None:
            break
        steps.append(best)
        concls = [c.replace(best[0], best[1]) for c in concls]
    return steps, concls
