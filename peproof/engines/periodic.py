"""Integrals over a period and sums over N samples of trigonometric polynomials.

Decides statements ``lhs op rhs`` whose sides are linear in

* ``PiIntegral(P, x)`` = the integral of ``P`` over ``[-pi, pi]`` in ``x``, and
* ``Sum(P, (n, 0, N - 1))`` (``N`` a positive integer linear form),

with ``P`` a polynomial in ``sin``/``cos`` of ``alpha * t`` (``t`` the bound variable, ``alpha``
free of ``t``), plus Iverson brackets ``Delta(p, q)`` = ``[p = q]``.

Method.  ``P`` is expanded into exponentials, ``P = sum_f c_f exp(i f t)`` (exact SymPy
arithmetic on the coefficients; frequencies ``f`` and ``-f`` are grouped, since both lemmas give
them the same value, and classes whose coefficients cancel are dropped).  Then one of

* (L1) ``int_{-pi}^{pi} exp(i L x) dx = 2 pi [L = 0]`` for every integer ``L``,
* (L2) ``sum_{n=0}^{N-1} exp(2 pi i L n / N) = N [N | L]`` for integers ``L`` and ``N >= 1``
  (the finite geometric series: for ``N`` not dividing ``L`` the ratio ``r != 1`` has
  ``r^N = 1``, so the sum ``(r^N - 1)/(r - 1)`` vanishes),

is applied with ``L`` an integer linear form in the integer variables.  Which brackets can be 1
under the hypotheses is decided by z3 in linear integer arithmetic (a complete theory): ``N | L``
becomes the disjunction ``L = c N`` over the multiples in a window ``lo N < L < hi N`` that z3
proves.  Every feasible combination of brackets is a case; in each case both sides are exact
expressions and ``==`` is decided by expansion, other relations by a certified arb sign.  A case
where the relation fails yields a point (from the z3 model) that is certified independently, by
rigorous ball integration (``acb.integral``) or the pointwise sum, before ``refuted`` is returned.

``sympy.integrate`` / ``simplify`` are never called.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import sympy as sp
import z3

from peproof.claims import INT_DOMAINS, Rel, Statement, Verdict
from peproof.engines import witness
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.objects import Delta, PiIntegral
from peproof.engines.versions import versions
from peproof.engines.z3base import Names
from peproof.kernel.arb import Unsupported, certified_sign

__all__ = ["Delta", "LEMMA_INTEGRAL", "LEMMA_SUM", "PiIntegral", "FRAGMENT", "decide", "proof"]

LEMMA_INTEGRAL = (
    "(L1) for every integer L: integral over [-pi, pi] of exp(i L x) dx = 2 pi if L = 0 else 0"
)
LEMMA_SUM = (
    "(L2) for integers L, N >= 1: sum_{n=0}^{N-1} exp(2 pi i L n/N) = N if N | L else 0 "
    "(finite geometric series)"
)
LIA = "z3 linear integer arithmetic (complete) for the case split"

#: universal statements linear in period integrals and N-sample sums of trigonometric
#: polynomials in the bound variable, with Iverson brackets, under linear integer hypotheses
FRAGMENT = Fragment(
    "periodic",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("integer exponent", "real power"),
        sp.sin: ("trig-free",), sp.cos: ("trig-free",), PiIntegral: ("any",),
        Delta: ("any",), sp.Sum: ("summand of a side",),
    },
    summary="linear in PiIntegral(P, x) and Sum(P, (n, 0, N - 1)), P a polynomial in sin, cos "
            "of multiples of the bound variable; Delta brackets; linear integer hypotheses",
)


# ----------------------------------------------------------------------------- expansion
def _canon(f: sp.Expr) -> sp.Expr:
    f = sp.expand(f)
    return -f if f.could_extract_minus_sign() else f


def _mul(p: dict, q: dict) -> dict:
    out: dict = {}
    for f, c in p.items():
        for g, e in q.items():
            key = sp.expand(f + g)
            out[key] = out.get(key, 0) + c * e
    return out


def trig_poly(expr: sp.Expr, t: sp.Symbol) -> dict:
    """``expr = sum_f c_f exp(i f t)`` as ``{f: c_f}`` (``c_f`` free of ``t``)."""
    if not expr.has(t):
        return {sp.Integer(0): expr}
    if expr.is_Add:
        out: dict = {}
        for a in expr.args:
            for f, c in trig_poly(a, t).items():
                out[f] = out.get(f, 0) + c
        return out
    if expr.is_Mul:
        out = {sp.Integer(0): sp.Integer(1)}
        for a in expr.args:
            out = _mul(out, trig_poly(a, t))
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        base, out = trig_poly(expr.base, t), {sp.Integer(0): sp.Integer(1)}
        for _ in range(int(expr.exp)):
            out = _mul(out, base)
        return out
    if isinstance(expr, sp.sin | sp.cos):
        u = sp.expand(expr.args[0])
        alpha = sp.expand(sp.diff(u, t))
        if alpha.has(t) or sp.expand(u - alpha * t) != 0:
            raise Unsupported(f"argument {u} is not a multiple of {t}")
        if isinstance(expr, sp.sin):
            return {alpha: -sp.I / 2, sp.expand(-alpha): sp.I / 2}
        return {alpha: sp.Rational(1, 2), sp.expand(-alpha): sp.Rational(1, 2)}
    raise Unsupported(f"{type(expr).__name__} in a trigonometric polynomial: {expr}")


def frequency_classes(expr: sp.Expr, t: sp.Symbol) -> dict:
    """Group ``f`` with ``-f`` (same value under both lemmas); drop cancelling classes."""
    out: dict = {}
    for f, c in trig_poly(expr, t).items():
        key = _canon(f)
        out[key] = out.get(key, 0) + c
    return {f: sp.expand(c) for f, c in out.items() if sp.expand(c) != 0}


# ----------------------------------------------------------------------------- integer forms
class _LIA:
    """Linear integer forms over the statement's integer variables, decided by z3."""

    def __init__(self, stmt: Statement):
        names = Names()
        self.ints = {v.symbol: names.int(v.symbol.name) for v in stmt.vars
                     if v.domain in INT_DOMAINS}
        self.base: list = []
        for v in stmt.vars:
            if v.domain not in INT_DOMAINS:
                continue
            z = self.ints[v.symbol]
            if v.domain == "pos_integer":
                self.base.append(z >= 1)
            elif v.domain == "nonneg_integer":
                self.base.append(z >= 0)
            elif v.domain == "even_pos_integer":
                self.base += [z >= 2, z % 2 == 0]
        for h in stmt.hyps:
            self.base.append(self.rel(h))

    def scaled(self, e: sp.Expr) -> tuple[sp.Expr, int]:
        """``e = form / D`` with ``form`` an integer linear form; returns ``(form, D)``."""
        e = sp.expand(e)
        terms = [t.as_coeff_Mul() for t in sp.Add.make_args(e) if t != 0]
        if any(not c.is_Rational or not (m == 1 or m in self.ints) for c, m in terms):
            raise Unsupported(f"{e} is not a rational linear form in integer variables")
        den = math.lcm(1, *[int(sp.Rational(c).q) for c, _ in terms])
        return sp.expand(e * den), den

    def z(self, form: sp.Expr) -> z3.ArithRef:
        out = z3.IntVal(0)
        for t in sp.Add.make_args(sp.expand(form)):
            if t == 0:
                continue
            c, m = t.as_coeff_Mul()
            out = out + (int(c) if m == 1 else int(c) * self.ints[m])
        return out

    def rel(self, r: Rel):
        form = self.z(self.scaled(r.lhs - r.rhs)[0])
        return {"==": form == 0, "!=": form != 0, "<=": form <= 0, "<": form < 0}[r.op]

    def _solver(self) -> z3.Solver:
        if not hasattr(self, "_s"):
            self._s = z3.Solver()
            self._s.add(*self.base)
        return self._s

    def valid(self, goal) -> bool:
        return not self.sat(z3.Not(goal))

    def sat(self, *lits) -> bool:
        s = self._solver()
        s.push()
        s.add(*lits)
        res = s.check() == z3.sat
        s.pop()
        return res


WINDOWS = ((-1, 1), (-1, 2), (-2, 1), (-2, 2), (-3, 3), (-5, 5))


def _window(lia: _LIA, form: sp.Expr, den: int, nform: sp.Expr) -> list[int] | None:
    """The multiples ``c`` with ``N | L`` iff ``OR_c L = c N`` (``L = form/den``): z3 proves a
    window ``lo N < L < hi N``; only the ``c`` strictly inside for which ``L = c N`` is
    satisfiable are kept (the others can never hold)."""
    f, nf = lia.z(form), lia.z(nform)
    for lo, hi in WINDOWS:
        if lia.valid(z3.And(lo * den * nf < f, f < hi * den * nf)):
            return [c_ for c_ in range(lo + 1, hi) if lia.sat(f == c_ * den * nf)]
    return None


# ----------------------------------------------------------------------------- the procedure
class _Brackets:
    """The 0/1 atoms of one conclusion: ``form == 0`` for canonical integer linear forms."""

    def __init__(self, lia: _LIA):
        self.lia = lia
        self.atoms: dict[str, object] = {}

    def add(self, form: sp.Expr) -> str:
        form = sp.expand(form)
        g = math.gcd(*[int(t.as_coeff_Mul()[0]) for t in sp.Add.make_args(form)])
        form = _canon(form / g) if g > 1 else _canon(form)
        key = sp.sstr(form)
        self.atoms.setdefault(key, self.lia.z(form) == 0)
        return key


def _values(side: sp.Expr, lia: _LIA, br: _Brackets, trace: list[str], axioms: set) -> list:
    """For every integral/sum atom of ``side``: ``(atom, [(value, bracket keys)])``; a class
    contributes its value when one of its brackets is 1."""
    out = []
    for J in side.atoms(PiIntegral):
        f, x = J.args
        terms = []
        for freq, c in frequency_classes(f, x).items():
            form, den = lia.scaled(freq)
            if den != 1 and not lia.valid(lia.z(form) % den == 0):
                raise Unsupported(f"frequency {freq} not provably an integer")
            key = br.add(form)
            terms.append((c * 2 * sp.pi, [key]))
        axioms.add(LEMMA_INTEGRAL)
        trace.append(f"{sp.sstr(J)}: {len(terms)} frequency class(es) after grouping +-f")
        out.append((J, terms))
    for S in side.atoms(sp.Sum):
        if len(S.limits) != 1 or S.limits[0][1] != 0:
            raise Unsupported("sum not of the form sum_{n=0}^{N-1}")
        body, (n, _lo, hi) = S.function, S.limits[0]
        N = sp.expand(hi + 1)
        nform, nden = lia.scaled(N)
        if nden != 1 or not lia.valid(lia.z(nform) >= 1):
            raise Unsupported(f"N = {N} not provably a positive integer")
        terms = []
        for freq, c in frequency_classes(body, n).items():
            form, den = lia.scaled(sp.expand(freq * N / (2 * sp.pi)))
            if den != 1 and not lia.valid(lia.z(form) % den == 0):
                raise Unsupported(f"frequency {freq} is not 2 pi L/N with L an integer")
            mults = _window(lia, form, den, nform)
            if mults is None:
                raise Unsupported(f"no window of multiples of N found for {freq}")
            keys = [br.add(form - c_ * den * nform) for c_ in mults]
            terms.append((c * N, keys))
            trace.append(f"  class {sp.sstr(freq)}: N | L iff L/N in {mults}")
        axioms.add(LEMMA_SUM)
        trace.append(f"{sp.sstr(S)}: {len(terms)} frequency class(es) after grouping +-f")
        out.append((S, terms))
    return out


def _decide_rel(rel: Rel, stmt: Statement, lia: _LIA, trace: list, axioms: set):
    """``(True, None)`` proved, ``(False, env)`` fails at the integer point ``env``."""
    br = _Brackets(lia)
    diff = rel.lhs - rel.rhs
    vals = _values(diff, lia, br, trace, axioms)
    deltas = {}
    for D in diff.atoms(Delta):
        deltas[D] = br.add(lia.scaled(D.args[0] - D.args[1])[0])
    keys = list(br.atoms)
    s = z3.Solver()
    s.add(*lia.base)
    fixed, free = {}, []
    for key in keys:
        atom = br.atoms[key]
        can_t, can_f = _sat(s, [atom]), _sat(s, [z3.Not(atom)])
        if can_t and can_f:
            free.append(key)
        else:
            fixed[key] = can_t
    if s.check() != z3.sat:
        trace.append("hypotheses unsatisfiable: vacuous")
        return True, None
    ncases = 0
    for bits in itertools.product((True, False), repeat=len(free)):
        sigma = dict(fixed) | dict(zip(free, bits, strict=True))
        lits = [br.atoms[k] if sigma[k] else z3.Not(br.atoms[k]) for k in free]
        model = _sat(s, lits, want_model=True)
        if model is None:
            continue
        ncases += 1
        repl = {}
        for J, terms in vals:
            repl[J] = sum((c for c, ks in terms if any(sigma[k] for k in ks)), sp.Integer(0))
        for D, key in deltas.items():
            repl[D] = sp.Integer(1 if sigma[key] else 0)
        e = sp.expand(diff.xreplace(repl))
        desc = ", ".join(f"[{k} = 0]={int(sigma[k])}" for k in free) or "single case"
        ok = _holds(rel.op, e)
        trace.append(f"case {desc}: lhs - rhs = {sp.sstr(e)} -> {ok}")
        if ok is not True:
            env = {v: model.eval(z, model_completion=True).as_long() for v, z in lia.ints.items()}
            return False, env
    trace.append(f"{ncases} feasible case(s), all hold")
    return True, None


def _sat(s: z3.Solver, lits: list, want_model: bool = False):
    s.push()
    s.add(*lits)
    res = s.check()
    out = (s.model() if res == z3.sat else None) if want_model else res == z3.sat
    s.pop()
    return out


def _holds(op: str, e: sp.Expr) -> bool | None:
    if op == "==" and e == 0:
        return True
    if e.free_symbols:
        return None
    sign, _ = certified_sign(e, {})
    if sign is None:
        return None
    return {"==": sign == 0, "!=": sign != 0, "<=": sign <= 0, "<": sign < 0}[op]


@entry(FRAGMENT, "periodic", "period lemma + case split")
def decide(stmt: Statement, checked=None) -> Verdict:
    """Decide a universal statement about period integrals and N-sample sums (module doc)."""
    t0 = time.perf_counter()
    v = versions()
    ver = f"sympy {v['sympy']}, z3 {v['z3']}, python-flint {v['python-flint']}"
    trace: list[str] = []
    axioms: set = set()
    try:
        lia = _LIA(stmt)
        for rel in stmt.concl:
            ok, env = _decide_rel(rel, stmt, lia, trace, axioms)
            if ok:
                continue
            if rel.op == "!=":  # balls never certify an exact equality: no witness to find
                return Verdict("unknown", "periodic", ver, "period lemma + case split",
                               trace=trace, reason=f"case fails symbolically: {rel}",
                               seconds=time.perf_counter() - t0)
            reals = {x.symbol: Fraction(1) for x in stmt.vars if x.symbol not in env}
            w = witness.check_point(stmt, {**env, **reals}) or witness.find_counterexample(stmt)
            if w:
                return Verdict("refuted", "arb", v["python-flint"], "certified counterexample",
                               witness=w, trace=trace, seconds=time.perf_counter() - t0)
            return Verdict("unknown", "periodic", ver, "period lemma + case split",
                           trace=trace,
                           reason=f"case fails symbolically, no certified point: {rel}")
    except (Unsupported, z3.Z3Exception, sp.PolynomialError) as exc:
        w = witness.find_counterexample(stmt) if stmt.quant == "forall" else None
        if w:
            return Verdict("refuted", "arb", v["python-flint"], "certified counterexample",
                           witness=w, trace=trace + [f"outside the fragment: {exc}"],
                           seconds=time.perf_counter() - t0)
        return Verdict("unknown", "periodic", ver, "period lemma + case split", trace=trace,
                       reason=f"outside the fragment: {exc}", seconds=time.perf_counter() - t0)
    axioms_t = tuple(sorted(axioms)) + (LIA, "SymPy expand for exact coefficient arithmetic")
    return Verdict("proved", "periodic", ver, "exponential expansion, period lemma, z3 case split",
                   axioms_t, time.perf_counter() - t0, trace=trace)


def proof(stmt: Statement, claim=None) -> Verdict:
    """Proof function for claims decided by this engine (its gated entry :func:`decide`)."""
    return decide(stmt)
