"""The second kernel of the exponential procedure: FLINT re-expands a certificate and tests zero.

:mod:`peproof.engines.expoly` rewrites an identity ``lhs - rhs == 0`` as a Laurent polynomial in
atoms (``Z = exp(i m / L)`` and other opaque subterms) and lets SymPy's ``expand`` decide whether
it is zero.  It also writes the polynomial *before* expansion as a certificate (plain JSON data,
see :func:`peproof.engines.expoly.certificate`).  This module re-does the multiplication and the
zero test on that certificate with python-flint's multivariate polynomials over the rationals
(``fmpq_mpoly``), sharing no code with SymPy: it never imports it (a test checks that in a
fresh interpreter).

Certificate (``format`` :data:`FORMAT`)::

    {"format": ..., "atoms": [{"name", "meaning", "kind", ...}], "expr": node}

``kind`` of an atom ``a``: ``"laurent"`` (a nonzero quantity; negative exponents allowed),
``"periodic"`` with ``"modulus": M`` (``a**M == 1``, e.g. ``exp(i pi n / L)`` with ``n``
integer, ``M = 2L``), ``"root"`` with ``"power": q, "value": "b"`` (``a**q == b``, ``b`` a
nonzero rational, e.g. ``a = 2**(1/2)``).  A node is one of::

    ["q", "a/b"]          a rational number
    ["i"]                 the imaginary unit
    ["u", "p/q"]          exp(i*pi*p/q), a root of unity
    ["x", k]              atom number k
    ["+", [node, ...]]    a sum            ["*", [node, ...]]   a product
    ["^", node, n]        an integer power (n < 0 only of a single term)

Method: every root of unity (``i`` included) is a power of one ``W = exp(2 pi i / N)``; the tree
is expanded bottom-up as a Laurent polynomial ``P / x**s`` (``P`` an ``fmpq_mpoly``, ``s`` a shift
vector); then exponents of periodic atoms are reduced modulo ``M``, those of root atoms modulo
``q`` (times ``b**k``), and the result is reduced modulo the cyclotomic polynomial ``Phi_N(W)``
(the minimal polynomial of ``W``, so this last step is exact).  Each reduction maps the Laurent
ring onto a quotient in which the atoms' relations hold, so zero there means the expression is
identically zero: sound.  A remainder that is not zero says nothing about the identity.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from math import lcm

import flint

FORMAT = "peproof.expoly-certificate/1"
KERNEL = "FLINT re-check (python-flint fmpq_mpoly)"
MAX_POWER = 4096  # a larger exponent in a certificate is refused (a bound on the work)


class BadCertificate(ValueError):
    """The certificate is malformed (the checker then says: not zero, with this reason)."""


class Checked:
    __slots__ = ("zero", "reason", "terms", "seconds")

    def __init__(self, zero: bool, reason: str, terms: int, seconds: float):
        self.zero, self.reason, self.terms, self.seconds = zero, reason, terms, seconds

    def __repr__(self) -> str:
        return f"Checked(zero={self.zero}, terms={self.terms}, reason={self.reason!r})"


def _frac(s) -> Fraction:
    if isinstance(s, bool) or not isinstance(s, str | int):
        raise BadCertificate(f"a number must be written as a string 'a/b', got {s!r}")
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError) as exc:
        raise BadCertificate(f"not a rational number: {s!r}") from exc


def _rat(s) -> flint.fmpq:
    f = _frac(s)
    return flint.fmpq(f.numerator, f.denominator)


def _int(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadCertificate(f"{what} must be an integer, got {v!r}")
    return v


def _unity_order(node, acc: set) -> None:
    """Collect the denominators of the roots of unity ``["u", r]`` (iteratively)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, list) or not n:
            raise BadCertificate(f"malformed node {n!r}")
        tag = n[0]
        if tag == "u":
            if len(n) != 2:
                raise BadCertificate(f"malformed node {n!r}")
            acc.add(_frac(n[1]).denominator)
        elif tag in ("+", "*"):
            if len(n) != 2 or not isinstance(n[1], list):
                raise BadCertificate(f"malformed node {n!r}")
            stack.extend(n[1])
        elif tag == "^":
            if len(n) != 3:
                raise BadCertificate(f"malformed node {n!r}")
            stack.append(n[1])


class _Ring:
    """Laurent polynomials ``P / x**s`` in the atoms and ``W`` (last variable, never inverted)."""

    def __init__(self, natoms: int, order: int):
        self.n = natoms
        self.N = order
        self.ctx = flint.fmpq_mpoly_ctx.get(("v", natoms + 1), "lex")
        self.gens = self.ctx.gens()
        self.zero_shift = (0,) * natoms
        self.var_of = list(range(natoms))  # atoms proved equal share one variable
        phi = flint.fmpz_poly.cyclotomic(order).coeffs()
        w = self.gens[natoms]
        self.phi = sum((int(c) * w**k for k, c in enumerate(phi) if c), self.ctx.constant(0))

    def const(self, c: flint.fmpq):
        return self.ctx.constant(c), self.zero_shift

    def w_pow(self, k: int):
        return self.gens[self.n] ** (k % self.N), self.zero_shift

    def atom(self, k: int):
        return self.gens[self.var_of[k]], self.zero_shift

    def _lift(self, p, s, target):
        d = [t - a for t, a in zip(target, s, strict=True)]
        if any(d):
            p = p * self.ctx.term(exp_vec=tuple(d) + (0,))
        return p

    def add(self, items):
        items = list(items)
        if not items:
            return self.const(flint.fmpq(0))
        target = tuple(max(col) for col in zip(*(s for _, s in items), strict=True))
        total = self.ctx.constant(0)
        for p, s in items:
            total += self._lift(p, s, target)
        return total, target

    def mul(self, items):
        p, s = self.ctx.constant(1), list(self.zero_shift)
        for q, t in items:
            p *= q
            s = [a + b for a, b in zip(s, t, strict=True)]
        return p, tuple(s)

    def power(self, base, n: int):
        p, s = base
        if n >= 0:
            return p**n, tuple(a * n for a in s)
        terms = list(p.terms())
        if len(terms) != 1:
            raise BadCertificate("a negative power of a sum is not a Laurent polynomial")
        (exps, c), = terms
        if c == 0:
            raise BadCertificate("a negative power of zero")
        # (c * W^w * x^e / x^s)^(-1) = c^-1 * W^(N - w) * x^(s) / x^(e)
        w = exps[self.n]
        inv = self.ctx.term(exp_vec=tuple(s) + ((-w) % self.N,), coeff=1 / c)
        return self.power((inv, tuple(exps[: self.n])), -n)


def _expand(node, ring: _Ring, limit: int):
    """The Laurent polynomial of a certificate node (bottom-up; FLINT does the arithmetic) whose
    atoms are numbered below ``limit``."""
    # iterative post-order walk: deep products of sums must not hit Python's recursion limit
    out: list = []
    stack: list = [(node, False)]
    while stack:
        n, done = stack.pop()
        tag = n[0]
        if tag in ("+", "*"):
            if done:
                k = len(n[1])
                args = out[len(out) - k:] if k else []
                del out[len(out) - k:]
                out.append(ring.add(args) if tag == "+" else ring.mul(args))
            else:
                stack.append((n, True))
                stack.extend((c, False) for c in reversed(n[1]))
        elif tag == "^":
            if done:
                e = _int(n[2], "an exponent")
                if abs(e) > MAX_POWER:
                    raise BadCertificate(f"exponent {e} beyond {MAX_POWER}")
                out.append(ring.power(out.pop(), e))
            else:
                stack.append((n, True))
                stack.append((n[1], False))
        elif tag == "q":
            if len(n) != 2:
                raise BadCertificate(f"malformed node {n!r}")
            out.append(ring.const(_rat(n[1])))
        elif tag == "i":
            out.append(ring.w_pow(ring.N // 4))
        elif tag == "u":
            k = _frac(n[1]) * ring.N / 2
            if k.denominator != 1:
                raise BadCertificate(f"root of unity {n!r} not a power of W")
            out.append(ring.w_pow(int(k)))
        elif tag == "x":
            k = _int(n[1] if len(n) == 2 else None, "an atom number")
            if not 0 <= k < limit:
                raise BadCertificate(f"no atom number {k}")
            out.append(ring.atom(k))
        else:
            raise BadCertificate(f"unknown node {tag!r}")
    if len(out) != 1:
        raise BadCertificate("malformed expression")
    return out[0]


def _atom_rules(atoms) -> list:
    rules = []
    for j, a in enumerate(atoms):
        if not isinstance(a, dict):
            raise BadCertificate(f"atom {j} is not an object")
        kind = a.get("kind")
        if kind == "laurent":
            rules.append(None)
        elif kind == "periodic":
            m = _int(a.get("modulus"), f"atom {j}'s modulus")
            if m < 1:
                raise BadCertificate(f"atom {j}: modulus {m} < 1")
            rules.append(("mod", m))
        elif kind == "root":
            q = _int(a.get("power"), f"atom {j}'s power")
            b = _rat(a.get("value"))
            if q < 1 or b == 0:
                raise BadCertificate(f"atom {j}: root rule needs power >= 1 and value != 0")
            rules.append(("root", q, b))
        else:
            raise BadCertificate(f"atom {j}: unknown kind {kind!r}")
    return rules


def _reduce(p, s, ring: _Ring, rules: list) -> dict:
    """The terms of ``P / x**s`` after the atoms' relations: {exponent tuple: coefficient}."""
    out: dict = {}
    n = ring.n
    for exps, c in p.terms():
        e = [a - b for a, b in zip(exps[:n], s, strict=True)]
        for j, rule in enumerate(rules):
            if rule is None:
                continue
            if rule[0] == "mod":
                e[j] %= rule[1]
            else:
                k, e[j] = divmod(e[j], rule[1])
                c = c * rule[2] ** k
        key = tuple(e) + (exps[n] % ring.N,)
        out[key] = out.get(key, 0) + c
    return {k: v for k, v in out.items() if v != 0}


def _normal(p, s, ring: _Ring, rules: list) -> dict:
    """The normal form of ``P / x**s``: the atoms' relations applied, then the remainder modulo
    ``Phi_N(W)`` (the minimal polynomial of the primitive ``N``-th root of unity ``W``).  Zero
    normal form: the expression is identically zero.  {Laurent exponents: coefficient}."""
    terms = _reduce(p, s, ring, rules)
    if not terms:
        return {}
    low = [min(k[j] for k in terms) for j in range(ring.n)]
    poly = ring.ctx.from_dict({
        tuple(a - b for a, b in zip(k[: ring.n], low, strict=True)) + (k[ring.n],): v
        for k, v in terms.items()})
    _, rem = divmod(poly, ring.phi)
    return {tuple(a + b for a, b in zip(e[: ring.n], low, strict=True)) + (e[ring.n],): c
            for e, c in rem.terms()}


def _merge_atoms(atoms: list, ring: _Ring, rules: list) -> None:
    """Atoms ``b**(m/L)`` given with their base ``b`` and exponent ``m`` as nodes (over earlier
    atoms) are one variable when bases, exponents and ``L`` have the same normal form (equal
    functions, so equal powers); their relations must then agree."""
    seen: dict = {}
    for j, a in enumerate(atoms):
        if "exponent" not in a:
            continue
        base = a.get("base")
        if base == "e":
            bkey = "e"
        else:
            bkey = frozenset((k, str(v)) for k, v in
                             _normal(*_expand(base, ring, j), ring, rules).items())
        ekey = frozenset((k, str(v)) for k, v in
                         _normal(*_expand(a["exponent"], ring, j), ring, rules).items())
        key = (bkey, ekey, _int(a.get("denominator"), f"atom {j}'s denominator"))
        if key in seen:
            first = seen[key]
            if rules[first] != rules[j]:
                raise BadCertificate(f"atoms {first} and {j} are equal but have other rules")
            ring.var_of[j] = ring.var_of[first]
        else:
            seen[key] = j


def check(cert: dict | str) -> Checked:
    """Expand the certificate with FLINT and test the result for zero (see the module)."""
    t0 = time.perf_counter()
    try:
        if isinstance(cert, str):
            cert = json.loads(cert)
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            raise BadCertificate(f"not a certificate of format {FORMAT}")
        atoms = cert.get("atoms")
        if not isinstance(atoms, list):
            raise BadCertificate("atoms must be a list")
        rules = _atom_rules(atoms)
        dens: set = set()
        for a in atoms:
            for part in (a.get("base"), a.get("exponent")):
                if isinstance(part, list):
                    _unity_order(part, dens)
        _unity_order(cert.get("expr"), dens)
        order = lcm(4, *(2 * d for d in dens))
        ring = _Ring(len(atoms), order)
        _merge_atoms(atoms, ring, rules)
        nterms = len(_normal(*_expand(cert["expr"], ring, len(atoms)), ring, rules))
    except BadCertificate as exc:
        return Checked(False, f"certificate refused: {exc}", -1, time.perf_counter() - t0)
    except (KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        return Checked(False, f"certificate refused: {type(exc).__name__}: {exc}", -1,
                       time.perf_counter() - t0)
    secs = time.perf_counter() - t0
    if nterms:
        return Checked(False, f"{nterms} term(s) remain after expansion and reduction", nterms,
                       secs)
    return Checked(True, "expands to 0", 0, secs)
