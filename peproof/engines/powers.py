"""Order facts about powers ``b**e`` of integer bases ``b >= 2`` with symbolic exponents.

The default z3 abstraction turns every ``10000**(-2i/d)`` into an unrelated opaque positive
number, so it cannot show that the frequencies decrease or that ``omega_min * (2 pi/omega_min)``
is ``2 pi``.  This engine keeps the exponents.

Every power ``b**e`` is first written over the *root* of its base (``b = c**k`` with ``c`` not a
perfect power, so ``10000**e = 10**(4 e)``).  Then, per conclusion of a universal statement:

* closed conclusions are decided in arb (certified signs), closed ``==`` by the exponential
  rewrite of :mod:`peproof.engines.expoly`;
* **log-linear reduction** when both sides are monomials ``K * c**E`` (``K`` a closed positive
  constant, one root base ``c`` on both sides): ``K_L c**E_L < K_R c**E_R`` holds iff
  ``E_L - E_R < kappa`` with ``kappa = log_c(K_R / K_L)``.  ``kappa`` is exact when ``K_R/K_L`` is
  a rational power of ``c`` and otherwise replaced by the lower end of a certified arb ball (a
  sufficient condition).  The exponent inequality goes to z3 over the reals;
* otherwise the **exponential abstraction**: each ``c**E`` becomes a positive z3 real ``p`` with
  the axioms ``E1 < E2 -> p1 < p2``, ``E1 = E2 -> p1 = p2``, ``E1 + E2 = 0 -> p1 p2 = 1`` and the
  comparisons with ``c**0 = 1``; ``pi`` becomes a real inside a certified rational enclosure.

z3 answers over the reals with the integer variables relaxed to reals first (dropping
integrality only weakens the hypotheses, so ``unsat`` still proves the statement); if that is
not enough it is asked again with ``IsInt`` constraints.  Only ``unsat`` proves anything.  A
conclusion this engine cannot prove makes the verdict ``unknown``;
:func:`peproof.engines.decide.with_default` then hands the statement to the default engines,
which look for a certified counterexample.
"""

from __future__ import annotations

import time
from fractions import Fraction

import flint
import sympy as sp
import z3

from peproof.claims import Claim, Rel, Statement, Verdict
from peproof.engines import expoly
from peproof.engines.fragment import Fragment
from peproof.engines.gate import entry
from peproof.engines.versions import versions
from peproof.engines.z3base import Names, arith, domain_axioms, rel_term
from peproof.kernel.arb import Unsupported, arb_eval, ball_str, certified_sign

AX_MONO = "x -> c**x is strictly increasing for a real base c > 1"
AX_RECIP = "c**x * c**(-x) = 1 and c**0 = 1"
AX_POS = "c**x > 0 for c > 0"
AX_ROOT = "b**x = c**(k x) when b = c**k (b, c > 0)"


#: universal statements about powers b**e of integer bases with symbolic exponents: +, *,
#: integer and real powers, Abs, pi; identities may contain sin, cos, exp, log (decided by the
#: exponential procedure); closed conclusions anything arb evaluates
FRAGMENT = Fragment(
    "powers",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",), sp.Pow: ("integer exponent", "real power"),
        sp.Abs: ("any",), sp.sin: ("trig-free",), sp.cos: ("trig-free",),
        sp.exp: ("trig-free",), sp.log: ("trig-free",),
    },
    summary="order and equality of powers of integer bases with symbolic exponents",
)


class NotApplicable(Exception):
    """The expression is outside the fragment this engine understands."""


def root_base(b: sp.Integer) -> tuple[int, int]:
    """``(c, k)`` with ``b == c**k`` and ``c`` not a perfect power."""
    pp = sp.perfect_power(int(b))
    return (int(pp[0]), int(pp[1])) if pp else (int(b), 1)


def _exact(x: flint.arb) -> Fraction:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


def enclosure(expr, prec: int = 128) -> tuple[Fraction, Fraction, str]:
    """Exact rational bounds ``lo <= expr <= hi`` from a certified arb ball."""
    ball = arb_eval(expr, {}, prec)
    if not ball.is_finite():
        raise NotApplicable(f"no finite enclosure of {expr}")
    return _exact(ball.lower()), _exact(ball.upper()), ball_str(ball)


def _closed_power(f: sp.Expr) -> bool:
    return bool(f.is_Pow and f.args[0].is_Integer and f.args[0] >= 2 and f.args[1].is_Rational
                and not f.args[1].is_Integer)


def monomial(e: sp.Expr) -> tuple[sp.Expr, int | None, sp.Expr] | None:
    """``e`` as ``K * c**E`` (``K`` closed, ``c`` root base or None when no power at all).

    Closed powers such as ``sqrt(10) = 10**(1/2)`` join the exponent when their root base is
    ``c``, so that ``10**(7/2) = 1000 * 10**(1/2)`` compares exactly.
    """
    e = sp.sympify(e)
    const, base, expo = sp.Integer(1), None, sp.Integer(0)
    closed = []
    for f in sp.Mul.make_args(e):
        if _closed_power(f):
            closed.append(f)
            continue
        if not f.free_symbols:
            const *= f
            continue
        if not f.is_Pow:
            return None
        b, x = f.args
        if b.is_Pow and b.args[0].is_Integer and x.is_Rational:  # (B**E)**r = B**(r E)
            b, x = b.args[0], b.args[1] * x
        if not (b.is_Integer and b >= 2):
            return None
        c, kk = root_base(b)
        if base is not None and base != c:
            return None
        base, expo = c, expo + kk * x
    for f in closed:
        c, kk = root_base(f.args[0])
        base = c if base is None else base
        if c == base:
            expo += kk * f.args[1]
        else:
            const *= f
    return const, base, sp.expand(expo)


class _Z3:
    """sympy -> z3 over the reals with the exponential abstraction."""

    def __init__(self, stmt: Statement, integrality: bool):
        self.names = Names()
        self.vars = {v.symbol: self.names.real(str(v.symbol)) for v in stmt.vars}
        self.axioms: list = []
        self.obligations: list = []  # definedness of the translated terms (proved, not assumed)
        self.text: list[str] = []
        self.atoms: dict[tuple[int, sp.Expr], tuple] = {}
        self.pi = None
        for v in stmt.vars:
            self.axioms += domain_axioms(self.vars[v.symbol], v.domain, integral_sort=False,
                                         integrality=integrality)

    def _pi(self):
        if self.pi is None:
            lo, hi, s = enclosure(sp.pi)
            self.pi = self.names.real("pi")
            self.axioms += [self.pi >= z3.Q(lo.numerator, lo.denominator),
                            self.pi <= z3.Q(hi.numerator, hi.denominator)]
            self.text.append(f"pi in {s} (arb enclosure)")
        return self.pi

    def _power(self, c: int, x: sp.Expr):
        key = (c, sp.expand(x))
        if key not in self.atoms:
            self.atoms[key] = (self.names.real("p"), self.conv(key[1]))
        return self.atoms[key][0]

    def conv(self, e):  # noqa: C901 - flat dispatch
        e = sp.sympify(e)
        if e is sp.pi:
            return self._pi()
        if e.is_Symbol:
            if e in self.vars:
                return self.vars[e]
            raise NotApplicable(f"free symbol {e}")
        if e is sp.I or e.is_Float:
            raise NotApplicable(f"{e} is not an exact real number")
        if not (e.is_Pow and not e.exp.is_Integer):
            t = arith(e, self.conv)
            if t is not None:
                return t
        if isinstance(e, sp.Abs):
            x = self.conv(e.args[0])
            return z3.If(x >= 0, x, -x)
        if e.is_Pow:
            b, x = e.args
            if b.is_Integer and b >= 2 and not x.is_Integer:
                c, kk = root_base(b)
                return self._power(c, kk * x)
            if x.is_Integer:
                zb = self.conv(b)
                n = int(x)
                out = z3.RealVal(1)
                for _ in range(abs(n)):
                    out = out * zb
                if n >= 0:
                    return out
                self.obligations.append(zb != 0)  # proved with the goal, never assumed
                return 1 / out
        raise NotApplicable(f"{type(e).__name__}: {e}")

    def finish(self) -> None:
        items = list(self.atoms.items())
        for _, (p, ex) in items:
            self.axioms += [p > 0, z3.Implies(ex == 0, p == 1), z3.Implies(ex > 0, p > 1),
                            z3.Implies(ex < 0, p < 1)]
        for n, ((c1, _), (p1, e1)) in enumerate(items):
            for (c2, _), (p2, e2) in items[n + 1:]:
                if c1 != c2:
                    continue
                self.axioms += [z3.Implies(e1 < e2, p1 < p2), z3.Implies(e2 < e1, p2 < p1),
                                z3.Implies(e1 == e2, p1 == p2),
                                z3.Implies(e1 + e2 == 0, p1 * p2 == 1)]
        if items:
            self.text += [AX_POS, AX_MONO, AX_RECIP, AX_ROOT]

    def rel(self, r: Rel):
        return rel_term(r.op, self.conv(r.lhs), self.conv(r.rhs))


def _z3_valid(stmt: Statement, goal_of, timeout_ms: int = 2000) -> tuple[bool, list[str], str]:
    """Is ``hyps -> goal`` valid?  Reals first, then with integrality constraints."""
    detail = ""
    for integrality in (False, True):
        try:
            zz = _Z3(stmt, integrality)
            hyps = [zz.rel(h) for h in stmt.hyps]
            zz.obligations = []  # the hypotheses' terms are defined (well-formedness layer)
            goal = z3.And(goal_of(zz), *zz.obligations)
            zz.finish()
        except NotApplicable as exc:
            return False, [], f"not expressible: {exc}"
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(*zz.axioms, *hyps, z3.Not(goal))
        res = s.check()
        if res == z3.unsat:
            theory = "nonlinear real arithmetic" + (" with IsInt" if integrality else "")
            return True, [f"z3 {theory}"] + zz.text, "negation unsatisfiable"
        detail = f"z3 {res}"
    return False, [], detail


def _log_linear(rel: Rel, stmt: Statement) -> tuple[bool, list[str], list[str]] | None:
    """Decide ``K_L c**E_L op K_R c**E_R`` through the exponents (see module docstring)."""
    if rel.op not in ("<", "<=", "=="):
        return None
    ml, mr = monomial(rel.lhs), monomial(rel.rhs)
    if ml is None or mr is None:
        return None
    (kl, cl, el), (kr, cr, er) = ml, mr
    if cl is None and cr is None or cl and cr and cl != cr:
        return None
    c = cl or cr
    for kk in (kl, kr):
        try:
            s, _ = certified_sign(kk, {})
        except (Unsupported, ZeroDivisionError):
            return None
        if s != 1:
            return None
    ratio = kr / kl
    kappa = None
    if ratio == 1:
        kappa = sp.Integer(0)
    elif ratio.is_Rational:
        num, den = (int(ratio.p), int(ratio.q))
        for val, sign in ((num, 1), (den, -1)):
            other = den if sign == 1 else num
            if other == 1 and val > 1:
                rc, rk = root_base(sp.Integer(val))
                if rc == c:
                    kappa = sp.Integer(sign * rk)
    delta = sp.expand(el - er)
    trace = [f"log-linear: lhs = {sp.sstr(kl)}*{c}**({sp.sstr(el)}), "
             f"rhs = {sp.sstr(kr)}*{c}**({sp.sstr(er)})"]
    if kappa is not None:
        bound, btxt = kappa, f"kappa = log_{c}(K_R/K_L) = {kappa} (exact)"
    else:
        if rel.op == "==":
            return None
        lo, _, s = enclosure(sp.log(ratio) / sp.log(c))
        bound = sp.Rational(lo.numerator, lo.denominator)
        btxt = f"kappa in {s} (arb); use lower end"
    trace.append(btxt)
    goal = Rel(rel.op, delta, bound)
    ok, ax, detail = _z3_valid(stmt, lambda zz: zz.rel(goal))
    trace.append(f"exponents: {goal} -- {detail}")
    axioms = [AX_MONO, AX_ROOT, "K_L, K_R > 0 (certified in arb)"] + ax
    return ok, trace, axioms


@entry(FRAGMENT, "z3-exp+arb", "exponent reduction")
def prove_statement(stmt: Statement, checked) -> Verdict:
    """Decide a universal statement about powers (module docstring); ``unknown`` when a
    conclusion is not proved here."""
    t0 = time.perf_counter()
    ver = ", ".join(f"{k} {v}" for k, v in versions().items())
    wf = checked
    trace: list[str] = []
    axioms: list[str] = []
    unproved: list[Rel] = []
    for n, rel in enumerate(stmt.concl):
        closed = not (rel.lhs.free_symbols or rel.rhs.free_symbols)
        if rel.op == "==":
            res = expoly.expand_is_zero(rel.lhs - rel.rhs)
            if res.zero:
                trace.append(f"{rel}: exponential rewrite, difference expands to 0")
                continue
        if n in wf.complex_concl:  # complex view: the exponential procedure only
            unproved.append(rel)
            continue
        if closed:
            try:
                s, ball = certified_sign(rel.lhs - rel.rhs, {})
            except Unsupported:
                s, ball = None, None
            ok = s is not None and {"==": s == 0, "!=": s != 0, "<=": s <= 0, "<": s < 0}[rel.op]
            trace.append(f"{rel}: lhs - rhs in {ball_str(ball) if ball is not None else '?'}")
            if not ok:
                unproved.append(rel)
            continue
        ll = _log_linear(rel, stmt)
        if ll is not None and ll[0]:
            trace += ll[1]
            axioms += ll[2]
            continue
        ok, ax, detail = _z3_valid(stmt, lambda zz, rel=rel: zz.rel(rel))
        trace.append(f"exponential abstraction on {rel}: {detail}")
        if ok:
            axioms += ax
        else:
            unproved.append(rel)
    if not unproved:
        return Verdict("proved", "z3-exp+arb", ver, "exponent reduction",
                       tuple(dict.fromkeys(axioms)), time.perf_counter() - t0, trace=trace)
    return Verdict("unknown", "z3-exp+arb", ver, "exponent reduction",
                   tuple(dict.fromkeys(axioms)), time.perf_counter() - t0, trace=trace,
                   reason=f"not proved by exponent reduction: {unproved[0]}")


def proof(stmt: Statement, claim: Claim | None = None) -> Verdict:
    """Proof function for :class:`~peproof.claims.Claim`: :func:`prove_statement` (this engine
    alone; :func:`peproof.engines.decide.with_default` adds the default engines)."""
    return prove_statement(stmt)
