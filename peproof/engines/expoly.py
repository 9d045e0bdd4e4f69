"""A decision procedure for identities polynomial in sines and cosines of linear forms.

Method (the classical one): rewrite ``sin u = (E(u) - E(-u)) / 2i`` and
``cos u = (E(u) + E(-u)) / 2`` with ``E(u) = exp(i u)``; split every argument ``u`` into
rational multiples of monomials ``u = sum_m r_m * m``; replace ``E(m / L_m)`` by a fresh variable
``Z_m`` (``L_m`` the common denominator of the ``r_m``), so ``E(u) = prod_m Z_m ** (r_m L_m)``;
expand the resulting Laurent polynomial and compare it with zero.

Soundness: the substitution is an identity of functions, so a Laurent polynomial that expands
to zero proves the identity for every value of the symbols.  Where a monomial is ``pi`` times an
integer-valued product (``n`` integer), ``Z_m ** (2 L_m) = 1`` holds and exponents are reduced
modulo ``2 L_m`` (reduction in the quotient ring; sound).  A non-zero remainder does *not*
refute: the caller then looks for a certified counterexample, and otherwise reports unknown.

Trusted base: SymPy's ``expand`` and its canonical ``Add``/``Mul`` (collection of like terms).
``simplify``, ``trigsimp`` and ``equals`` are never called.

Second kernel: when SymPy's expansion is zero, the Laurent polynomial *before* expansion is
written out as a certificate (:func:`certificate`: plain JSON data, atoms with their meaning,
exact coefficients, integer exponents) and expanded again by
:mod:`peproof.kernel.flint_check` (python-flint, no SymPy).  ``zero`` holds only when both
kernels say zero; a disagreement is recorded and the verdict is not ``proved``
(:func:`recording`, :func:`kernel_verdict`).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from math import lcm

import sympy as sp

from peproof.claims import Verdict
from peproof.engines.fragment import Fragment, term_refusal
from peproof.engines.hygiene import fresh
from peproof.kernel import flint_check as kernel_flint

SYMPY_KERNEL = "exp-poly (SymPy expand)"

#: identities polynomial in sin, cos (tan: rational) and exp of linear forms (the complex
#: view: arguments a + i b), real powers and logs free of trigonometric terms as opaque
#: atoms; no sign-sensitive node (Abs, Max, Piecewise, ...), no sum (lifted before), no
#: function of one's own.  Hypotheses are not read: an identity is proved outright.
FRAGMENT = Fragment(
    "exponential procedure",
    nodes={
        sp.Add: ("any",), sp.Mul: ("any",),
        sp.Pow: ("integer exponent", "real power"),
        sp.sin: ("trig-free", "complex linear argument"),
        sp.cos: ("trig-free", "complex linear argument"),
        sp.tan: ("trig-free", "complex linear argument"),
        sp.exp: ("trig-free", "complex linear argument"),
        sp.log: ("trig-free",),
    },
    relations=("==",), hypotheses="ignored", leaves=("symbol", "rational", "pi", "E", "I"),
    sign_free=True,
    summary="+ * integer powers of sin, cos, tan, exp of (complex) linear forms in trig-free "
            "monomials; trig-free real powers and logs as atoms; identities (==) only",
)


class _E(sp.Function):
    """``E(u) = exp(i u)``: the procedure's own function class (no user term can be it)."""

    nargs = 1


class _Result:
    __slots__ = ("zero", "trace", "terms", "atoms", "sympy_zero", "certificate", "flint")

    def __init__(self, zero: bool, trace: list[str], terms: int, atoms: int):
        self.zero, self.trace, self.terms, self.atoms = zero, trace, terms, atoms
        self.sympy_zero, self.certificate, self.flint = zero, None, None


def _real_imag(u: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``u = a + i b`` split term by term (``a``, ``b`` free of ``I``)."""
    real, imag = [], []
    for t in sp.Add.make_args(sp.expand(u)):
        b = t.as_coefficient(sp.I)
        (imag if b is not None and not b.has(sp.I) else real).append(b if b is not None else t)
    return sp.Add(*real), sp.Add(*imag)


def _exp_to_E(e: sp.exp) -> sp.Expr:
    """``exp(a + i b) = exp(a) E(b)`` (the complex view of an identity; a real ``exp`` stays)."""
    real, imag = _real_imag(e.args[0])
    if imag == 0:
        return e
    return sp.exp(real) * _E(imag)


def _to_E(expr: sp.Expr) -> sp.Expr:
    I = sp.I
    if expr.has(I):
        expr = expr.replace(lambda e: isinstance(e, sp.exp) and e.args[0].has(I), _exp_to_E)
    return expr.replace(
        lambda e: isinstance(e, sp.sin | sp.cos | sp.tan),
        lambda e: (
            (_E(e.args[0]) - _E(-e.args[0])) / (2 * I)
            if isinstance(e, sp.sin)
            else (_E(e.args[0]) + _E(-e.args[0])) / 2
            if isinstance(e, sp.cos)
            else (_E(e.args[0]) - _E(-e.args[0])) / (I * (_E(e.args[0]) + _E(-e.args[0])))
        ),
    )


def _split(u: sp.Expr) -> list[tuple[sp.Rational, sp.Expr]]:
    """``u`` as a list of (rational coefficient, monomial)."""
    out = []
    for t in sp.Add.make_args(sp.expand(u)):
        c, m = t.as_coeff_Mul()
        if not c.is_Rational:
            c, m = sp.Integer(1), t
        out.append((sp.Rational(c), m))
    return out


def _integer_valued(m: sp.Expr) -> bool:
    """``m`` is ``pi * q`` with ``q`` an integer-valued product (so ``exp(2 i m) == 1``)."""
    q = m / sp.pi
    if q.has(sp.pi):
        return False
    return bool(q.is_integer)


def reduce_to_laurent(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Rewrite trigonometric functions into a Laurent polynomial in fresh variables ``Z``
    (``Dummy`` symbols; returned with their meaning ``{Z: (monomial m, L)}``, Z = exp(i m/L))."""
    expr = sp.sympify(expr)
    e = _to_E(expr)
    calls = list(e.atoms(_E))
    splits = {c: _split(c.args[0]) for c in calls}
    denom: dict[sp.Expr, int] = {}
    # the angles of the original nodes too: the certificate is written from them
    angles = [a.args[0] for a in expr.atoms(sp.sin, sp.cos, sp.tan)] + [
        _real_imag(a.args[0])[1] for a in expr.atoms(sp.exp) if a.args[0].has(sp.I)]
    for parts in [*splits.values(), *map(_split, angles)]:
        for r, m in parts:
            denom[m] = int(sp.ilcm(denom.get(m, 1), r.q))
    zs: dict[sp.Expr, sp.Symbol] = {}
    for j, m in enumerate(sorted(denom, key=sp.default_sort_key)):
        # a Dummy (never equal to a user's symbol) with NO assumption: Z = exp(i m/L) is a
        # complex number; declared nonzero it would be real to SymPy (nonzero implies real),
        # and Max, Abs, Piecewise, ... over sin/cos would be resolved for a real Z
        zs[m] = fresh(f"Z{j}", j)
    repl = {}
    for c, parts in splits.items():
        val = sp.Integer(1)
        for r, m in parts:
            expo = int(r * denom[m])
            if m.is_number:  # a constant angle: its exact exponential (exp(i pi) = -1, ...)
                val *= sp.exp(sp.I * r * m)
                continue
            if _integer_valued(m):
                expo %= 2 * denom[m]
            val *= zs[m] ** expo
        repl[c] = val
    return e.xreplace(repl), {z: (m, denom[m]) for m, z in zs.items()}


def expand_is_zero(expr: sp.Expr) -> _Result:
    """Decide ``expr == 0`` for ``expr`` polynomial in sin/cos of linear forms (see module).

    Zero only when SymPy's expansion is zero *and* the FLINT kernel re-expands the certificate
    to zero; the certificate and both answers are recorded (:func:`recording`).  A term outside
    :data:`FRAGMENT` is refused before any rewriting (not zero, the reason in the trace)."""
    t0 = time.perf_counter()
    expr = sp.sympify(expr)
    why = term_refusal(FRAGMENT, expr, "the difference lhs - rhs", complex_view=True)
    if why:
        return _Result(False, [f"refused: {why}"], -1, 0)
    lp, atoms = reduce_to_laurent(expr)
    ex = sp.expand(lp)
    t_sympy = time.perf_counter() - t0
    trace = [
        "rewrite sin, cos into exponentials E(u) = exp(i u)",
        "atoms: "
        + (
            ", ".join(f"{z} = exp(i*({sp.sstr(m)})/{L})" for z, (m, L) in atoms.items())
            if atoms
            else "none (no trigonometric function)"
        ),
    ]
    nterms = len(sp.Add.make_args(ex)) if ex != 0 else 0
    trace.append(f"expanded difference: {'0' if ex == 0 else f'{nterms} term(s) remain'}")
    res = _Result(ex == 0, trace, nterms, len(atoms))
    if res.sympy_zero:
        try:
            res.certificate = certificate(expr, atoms)
        except NoCertificate as exc:
            res.flint = kernel_flint.Checked(False, f"no certificate: {exc}", -1, 0.0)
        else:
            res.flint = kernel_flint.check(res.certificate)
        res.zero = res.flint.zero
        if res.zero:
            trace.append(f"{kernel_flint.KERNEL}: the certificate "
                         f"({len(res.certificate['atoms'])} atom(s)) expands to 0")
        else:
            trace.append(f"{kernel_flint.KERNEL} DISAGREES with SymPy: {res.flint.reason}")
        if _RECORDERS:
            _RECORDERS[-1].append({
                "certificate": res.certificate, "sympy": True, "flint": res.flint.zero,
                "flint_reason": res.flint.reason, "sympy_seconds": t_sympy,
                "flint_seconds": res.flint.seconds})
    return res


# ------------------------------------------------------------------------------- certificates
class NoCertificate(ValueError):
    """The Laurent polynomial has a part the certificate format cannot state (a Float)."""


def _power_parts(b: sp.Expr, u: sp.Expr) -> list[tuple[sp.Rational, sp.Expr]]:
    """``b**u`` (``b = E`` for ``exp``) as rational multiples of monomials of the exponent."""
    if u.is_Rational:
        return [(sp.Rational(u), sp.Integer(1))]
    return _split(u)


class _Cert:
    """Writes a Laurent polynomial (SymPy tree) as a certificate for the FLINT kernel.

    Atoms: the procedure's ``Z`` (periodic with modulus ``2L`` where ``exp(2 i m) = 1``);
    ``b**(m/L)`` for every power ``b**u`` with a non-integer exponent split over monomials ``m``
    of ``u`` (``L`` the common denominator; ``b**u = prod (b**(m/L))**(r L)`` holds for the
    principal branch ``b**v = exp(v log b)``), a root ``a**L = b`` when ``m = 1`` and ``b`` is a
    nonzero rational; ``exp(i pi r)`` as a root of unity; anything else (a symbol, ``pi``, a
    function) an opaque atom, the same SymPy object always the same atom.
    """

    def __init__(self, zatoms: dict):
        self.zatoms = zatoms
        self.by_m = {m: z for z, (m, _) in zatoms.items()}
        self.index: dict = {}
        self.atoms: list[dict] = []
        self.denom: dict = {}

    def _atom(self, key, meaning: str, **rule) -> list:
        k = self.index.get(key)
        if k is None:
            k = self.index[key] = len(self.atoms)
            if callable(meaning):  # written once per atom, not per occurrence
                meaning = meaning()
            self.atoms.append({"name": f"a{k}", "meaning": meaning, "kind": "laurent", **rule})
        return ["x", k]

    def _scan(self, e: sp.Expr) -> None:
        """First pass: the common denominator ``L`` of every power family ``(b, m)``."""
        for p in sp.preorder_traversal(e):
            if isinstance(p, sp.sin | sp.cos | sp.tan) or (
                    isinstance(p, sp.exp) and p.args[0].has(sp.I)):
                angle = p.args[0] if not isinstance(p, sp.exp) else _real_imag(p.args[0])[1]
                for r, m in _split(angle):  # constant angles: exp(i r m), one family per m
                    if m.is_number:
                        for r2, m2 in _power_parts(sp.E, sp.I * r * m):
                            self.denom[(sp.E, m2)] = lcm(self.denom.get((sp.E, m2), 1),
                                                         int(r2.q))
            if isinstance(p, sp.Pow) and not p.exp.is_Integer:
                b, u = p.base, p.exp
            elif isinstance(p, sp.exp):
                b, u = sp.E, _real_imag(p.args[0])[0]
            elif p is sp.E:
                b, u = sp.E, sp.Integer(1)
            else:
                continue
            for r, m in _power_parts(b, u):
                self.denom[(b, m)] = lcm(self.denom.get((b, m), 1), int(r.q))

    def _power(self, b: sp.Expr, u: sp.Expr) -> list:
        if u.is_Integer and b is not sp.E:
            n = int(u)
            if n < 0 and not (b.is_Atom or b in self.zatoms):
                # 1/(sum), 1/cos u, ...: the base is a nonzero atom (a Laurent ring has no
                # inverse of a sum); the same base is always the same atom
                return ["^", self._inverse(b), n]
            return ["^", self.node(b), n]
        factors = []
        for r, m in _power_parts(b, u):
            if b is sp.E and m == sp.I * sp.pi:  # exp(i pi r): a root of unity
                factors.append(["u", str(r)])
                continue
            L = self.denom.get((b, m), int(r.q))
            n = int(r * L)
            if m == 1 and L == 1 and b is not sp.E:
                factors.append(["^", self.node(b), n])
                continue
            meaning = (lambda b=b, m=m, L=L: f"exp(({sp.sstr(m)})/{L})"  # noqa: E731
                       if b is sp.E else f"({sp.sstr(b)})**(({sp.sstr(m)})/{L})")
            rule = ({"kind": "root", "power": L, "value": str(b)}
                    if m == 1 and b.is_Rational and b != 0 else {"kind": "laurent"})
            # base and exponent as nodes: the FLINT kernel identifies equal powers itself
            rule.update(base="e" if b is sp.E else self.node(b), exponent=self.node(m),
                        denominator=L)
            factors.append(["^", self._atom((b, m, L), meaning, **rule), n])
        return ["*", factors]

    def _inverse(self, b: sp.Expr) -> list:
        return self._atom(("inv", b), lambda: sp.sstr(b), base=self.node(b),
                          exponent=["q", "1"], denominator=1)

    def _E(self, u: sp.Expr) -> list:
        """``exp(i u)`` as a product of the procedure's atoms ``Z_m ** (r L)`` (``u = sum r m``),
        a root of unity for a rational multiple of ``pi``."""
        factors = []
        for r, m in _split(u):
            if m.is_number:  # a constant angle: exp(i pi r) a root of unity, else exp(i r m)
                factors.append(self._power(sp.E, sp.I * r * m))
                continue
            z = self.by_m[m]
            factors.append(["^", self.node(z), int(r * self.zatoms[z][1])])
        return ["*", factors]

    def _trig(self, e: sp.Expr) -> list:
        """sin, cos, tan as the procedure defines them, read from the original node (not from
        SymPy's rebuilt tree): the second kernel checks the statement's own terms."""
        u = e.args[0]
        plus, minus = self._E(u), self._E(-u)
        if isinstance(e, sp.cos):
            return ["*", [["q", "1/2"], ["+", [plus, minus]]]]
        sine = ["*", [["q", "-1/2"], ["i"], ["+", [plus, ["*", [["q", "-1"], minus]]]]]]
        if isinstance(e, sp.sin):
            return sine
        return ["*", [sine, ["^", self._inverse(sp.cos(u)), -1]]]  # tan u = sin u / cos u

    def node(self, e: sp.Expr) -> list:
        if isinstance(e, sp.sin | sp.cos | sp.tan):
            return self._trig(e)
        if isinstance(e, sp.exp) and e.args[0].has(sp.I):  # exp(a + i b) = exp(a) E(b)
            real, imag = _real_imag(e.args[0])
            return ["*", [self._power(sp.E, real), self._E(imag)]] if real != 0 else self._E(
                imag)
        if e.is_Rational:
            return ["q", str(e)]
        if e is sp.I:
            return ["i"]
        if isinstance(e, sp.Float) or e in (sp.zoo, sp.oo, -sp.oo, sp.nan):
            raise NoCertificate(f"not an exact finite number: {e}")
        if isinstance(e, sp.Add):
            return ["+", [self.node(a) for a in e.args]]
        if isinstance(e, sp.Mul):
            return ["*", [self.node(a) for a in e.args]]
        if isinstance(e, sp.Pow):
            return self._power(e.base, e.exp)
        if isinstance(e, sp.exp):
            return self._power(sp.E, e.args[0])
        if e is sp.E:
            return self._power(sp.E, sp.Integer(1))
        if e in self.zatoms:
            m, L = self.zatoms[e]
            meaning = lambda: f"exp(i*({sp.sstr(m)})/{L})"  # noqa: E731
            if _integer_valued(m):  # exp(2 i m) = 1 with m = pi * (integer-valued)
                return self._atom(e, meaning, kind="periodic", modulus=2 * L)
            return self._atom(e, meaning)
        if e.has(sp.Float):
            raise NoCertificate(f"inexact number in {e}")
        return self._atom(e, lambda: sp.sstr(e))  # a symbol, pi, a function: opaque


def certificate(expr: sp.Expr, atoms: dict) -> dict:
    """The certificate of ``expr == 0``, written from ``expr`` itself (its own sin, cos, tan and
    exp nodes, in the atoms ``{Z: (m, L)}`` of :func:`reduce_to_laurent`), not from the Laurent
    polynomial SymPy rebuilt: JSON data the FLINT kernel expands (format in
    :mod:`peproof.kernel.flint_check`).  A node SymPy's rebuilding would have evaluated (wrongly
    or not) stays an opaque atom here."""
    c = _Cert(atoms)
    c._scan(expr)
    expr = c.node(expr)
    return {"format": kernel_flint.FORMAT, "atoms": c.atoms, "expr": expr}


def certify(expr: sp.Expr) -> dict:
    """The certificate of ``expr`` (whatever SymPy's expansion says; for tests and fuzzing)."""
    expr = sp.sympify(expr)
    return certificate(expr, reduce_to_laurent(expr)[1])


# ------------------------------------------------------------------------ recording, verdicts
_RECORDERS: list[list] = []


@contextmanager
def recording():
    """Collect the certificates of every zero test SymPy passes inside the block; a nested block's
    entries also reach the enclosing one (a proof may rest on an inner decision)."""
    log: list = []
    _RECORDERS.append(log)
    try:
        yield log
    finally:
        _RECORDERS.pop()
        if _RECORDERS:
            _RECORDERS[-1].extend(log)


def kernel_verdict(verdict, log: list):
    """``verdict`` with the certificates of ``log`` attached; both kernels named on a proof that
    rests on them; not ``proved`` when the FLINT kernel disagreed with SymPy on any of them."""
    if not log:
        return verdict
    bad = [e for e in log if not e["flint"]]
    seen = {id(c) for c in verdict.certificates}
    verdict.certificates = list(verdict.certificates) + [
        e["certificate"] for e in log if e["flint"] and id(e["certificate"]) not in seen]
    if bad and verdict.status == "proved":
        reason = (f"the FLINT kernel does not confirm SymPy's zero: {bad[0]['flint_reason']}")
        return Verdict("unknown", verdict.engine, verdict.version, verdict.method,
                       verdict.axioms, verdict.seconds, trace=list(verdict.trace) + [reason],
                       reason=reason, kernels=(SYMPY_KERNEL,),
                       certificates=verdict.certificates)
    if verdict.status == "proved" and not bad:
        verdict.kernels = (SYMPY_KERNEL, kernel_flint.KERNEL)
        verdict.trace = list(verdict.trace) + [
            f"{kernel_flint.KERNEL}: {len(log)} certificate(s) re-expanded to 0 "
            "(no SymPy in that kernel)"]
    return verdict


# ------------------------------------------------------------------------ as an engine
def prove_identities(stmt, checked=None) -> Verdict:
    """The procedure as an engine (core of its entry in :mod:`peproof.engines.registry`): every
    conclusion of a universal statement an identity whose difference is zero (hypotheses not
    read: an identity holds outright).  Never refutes; anything else is ``unknown``."""
    t0 = time.perf_counter()
    trace: list[str] = []
    for rel in stmt.concl:
        res = expand_is_zero(rel.lhs - rel.rhs)
        trace += res.trace
        if not res.zero:
            return Verdict("unknown", "sympy-exp", f"sympy {sp.__version__}", "exponential "
                           "rewriting", seconds=time.perf_counter() - t0, trace=trace,
                           reason=f"difference not shown zero: {rel}")
    return Verdict("proved", "sympy-exp", f"sympy {sp.__version__}", "exponential rewriting, "
                   "Laurent polynomial expands to 0", seconds=time.perf_counter() - t0,
                   trace=trace)
