"""Points for the falsification search (:mod:`peproof.kernel.falsify`): exact values drawn from
each variable's declared domain.

Per domain, in this order: special values (0, +-1, +-1/2, small integers), exact multiples of
pi/4 (:class:`~peproof.kernel.arb.PiMul`, real domains only), large (10**6, 10**12, 10**30) and
tiny (10**-6, 10**-12) magnitudes; then values near the constants the hypotheses compare a
variable with (``x < c``, ``a x + b <= c``: ``c`` and its neighbours, inside and outside);
then deterministic pseudo-random values (a ``random.Random`` seeded from the statement's text,
so a run is reproducible).  A variable fixed by an equality hypothesis linear in it
(``x == 2*y + 1``) is computed from the others (and dropped if the result leaves its domain).

Every value produced is a member of its variable's domain: an exact integer for the integer
domains, an exact rational for ``rational``, positive for the ``pos_`` domains.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from fractions import Fraction as F

import sympy as sp

from peproof.claims import INT_DOMAINS, Statement
from peproof.kernel.arb import PiMul, Unsupported, evaluate

_BIG = [10**6, 10**12, 10**30]
_TINY = [F(1, 10**6), F(1, 10**12)]
_PI = [PiMul(F(k, 4)) for k in (1, 2, 4, 3, -2, 6, 8, -1, -4)]
CORE = {
    "real": [F(0), F(1), F(-1), F(1, 2), F(-1, 2), *_PI[:3], F(2), F(-2), F(1, 3), F(7, 3),
             *_PI[3:], F(-5, 2), F(3), *map(F, _BIG), F(-10**6), *_TINY, -_TINY[0]],
    "pos_real": [F(1), F(1, 2), *_PI[:3], F(2), F(1, 3), F(3), F(7, 3), _PI[3], _PI[5],
                 _PI[6], *map(F, _BIG), *_TINY],
    "rational": [F(0), F(1), F(-1), F(1, 2), F(-1, 2), F(2), F(-2), F(1, 3), F(7, 3),
                 F(-5, 2), F(3), *map(F, _BIG), F(-10**6), *_TINY, -_TINY[0]],
    "integer": [0, 1, -1, 2, -2, 3, -3, 4, 5, 7, -7, 10, 100, *_BIG, -10**6],
    "nonneg_integer": [0, 1, 2, 3, 4, 5, 7, 10, 100, *_BIG],
    "pos_integer": [1, 2, 3, 4, 5, 6, 7, 10, 100, *_BIG],
    "even_pos_integer": [2, 4, 6, 8, 10, 12, 16, 64, 100, 512, *_BIG],
}


def seed_of(stmt: Statement) -> int:
    """A reproducible seed: the statement's text, its variables and its size."""
    text = f"{stmt}|{[(v.symbol.name, v.domain) for v in stmt.vars]}|{len(stmt.concl)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def member(domain: str, v) -> bool:
    """Is the exact point value ``v`` in ``domain``?  Closed SymPy values and multiples of pi
    are real (certified signs for the ``pos_`` domains)."""
    if isinstance(v, int | F):
        v = F(v)
        if domain in INT_DOMAINS and v.denominator != 1:
            return False
        return {"pos_real": v > 0, "pos_integer": v > 0, "nonneg_integer": v >= 0,
                "even_pos_integer": v > 0 and v.numerator % 2 == 0}.get(domain, True)
    if domain not in ("real", "pos_real"):
        return False
    if isinstance(v, PiMul):
        return domain == "real" or v.q > 0
    try:
        q, ball = evaluate(v, {})
    except Unsupported:
        return False
    if q is not None:
        return member(domain, q)
    return domain == "real" or bool(ball > 0)


def _near(domain: str, c: F) -> list:
    """Values at and around a boundary ``c`` (an exact rational approximation of it)."""
    if domain in INT_DOMAINS:
        n = c.numerator // c.denominator
        return [n + k for k in (0, 1, -1, 2, -2)]
    eps = [F(1, 2), F(1, 10**6), F(1, 1000)]
    return [c] + [c + s * e for e in eps for s in (1, -1)]


def _linear_in(d: sp.Expr, v: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """``(a, b)`` with ``d = a*v + b``, ``a`` free of ``v`` and not 0, else None."""
    try:
        a = sp.expand(d).coeff(v, 1)
        b = sp.expand(d - a * v)
    except (TypeError, ValueError, AttributeError):
        return None
    if a == 0 or a.has(v) or b.has(v):
        return None
    return a, b


def _approx(e: sp.Expr) -> F | PiMul | None:
    """A closed boundary as an exact value: itself when rational or a multiple of pi, else a
    rational inside its ball."""
    if e.free_symbols:
        return None
    q = e / sp.pi if e.has(sp.pi) else None
    if q is not None and q.is_Rational:
        return PiMul(F(int(q.p), int(q.q)))
    try:
        exact, ball = evaluate(e, {}, precs=(64,))
    except Unsupported:
        return None
    if exact is not None:
        return exact
    mid = ball.mid().man_exp()
    m, x = int(mid[0]), int(mid[1])
    return F(m * 2**x) if x >= 0 else F(m, 2 ** (-x))


def boundary_values(stmt: Statement, v) -> list:
    """Values of ``v`` at and near the constants the hypotheses compare it with."""
    out: list = []
    for h in stmt.hyps:
        d = h.lhs - h.rhs
        if d.free_symbols != {v.symbol}:
            continue
        lin = _linear_in(d, v.symbol)
        if lin is None:
            continue
        c = _approx(-lin[1] / lin[0])
        if isinstance(c, PiMul):
            out += [c] + [PiMul(c.q + s * e) for e in (F(1, 12), F(1, 4)) for s in (1, -1)]
            c = None
        if c is not None:
            out += _near(v.domain, c)
    return [x for x in out if member(v.domain, x)]


def random_value(domain: str, rng: random.Random):
    """One pseudo-random member of ``domain``."""
    if domain in INT_DOMAINS:
        mag = rng.choice([rng.randint(0, 12), rng.randint(0, 300), 10 ** rng.randint(3, 15) +
                          rng.randint(0, 99)])
        sign = -1 if domain == "integer" and rng.random() < 0.4 else 1
        n = sign * mag
        if domain == "pos_integer":
            n = max(n, 1)
        elif domain == "even_pos_integer":
            n = max(2 * (n // 2), 2)
        return n
    if domain in ("real", "pos_real") and rng.random() < 0.25:
        q = F(rng.randint(1, 47), rng.choice([1, 2, 3, 4, 6, 8, 12]))
        return PiMul(q if domain == "pos_real" or rng.random() < 0.6 else -q)
    den = rng.choice([1, 2, 3, 5, 7, 11, 13, 64, 1000])
    num = rng.choice([rng.randint(0, 40), rng.randint(0, 10**4), 10 ** rng.randint(4, 13)])
    q = F(num, den)
    if domain == "pos_real":
        return q if q > 0 else F(1, den)
    return -q if rng.random() < 0.4 else q


def _solved(stmt: Statement) -> dict:
    """Variables fixed by a linear equality hypothesis: symbol -> expression in the others."""
    out: dict = {}
    for h in stmt.hyps:
        if h.op != "==":
            continue
        d = h.lhs - h.rhs
        for v in stmt.vars:
            s = v.symbol
            if s in out or s not in d.free_symbols:
                continue
            lin = _linear_in(d, s)
            if lin is None or lin[0].free_symbols or any(o in d.free_symbols for o in out):
                continue
            out[s] = -lin[1] / lin[0]
            break
    return out


def _value_of(expr: sp.Expr, env: dict):
    """The exact value of a solved variable at ``env`` (rational, pi multiple or closed)."""
    sub = {k: (sp.Rational(v.numerator, v.denominator) if isinstance(v, F) else
               sp.Integer(v) if isinstance(v, int) else sp.pi * sp.Rational(v.q.numerator,
                                                                            v.q.denominator))
           for k, v in env.items()}
    val = sp.sympify(expr).xreplace(sub)
    if val.free_symbols:
        return None
    return F(int(val.p), int(val.q)) if val.is_Rational else val


def points(stmt: Statement, limit: int, seed: int | None = None):
    """Up to ``limit`` distinct points (dicts symbol -> exact value) for ``stmt``: boundary and
    core values first, then pseudo-random ones (see ``gen``)."""
    rng = random.Random(seed_of(stmt) if seed is None else seed)
    solved = _solved(stmt)
    free = [v for v in stmt.vars if v.symbol not in solved]
    lists = {v.symbol: list(dict.fromkeys(boundary_values(stmt, v) + CORE[v.domain]))
             for v in free}
    seen: set = set()

    def emit(vals: tuple):
        env = dict(zip((v.symbol for v in free), vals, strict=True))
        for v in stmt.vars:
            if v.symbol in solved:
                val = _value_of(solved[v.symbol], env)
                if val is None or not member(v.domain, val):
                    return None
                env[v.symbol] = val
        key = tuple(str(env[v.symbol]) for v in stmt.vars)
        if key in seen:
            return None
        seen.add(key)
        return env

    def gen():
        """Half the points on the diagonal of the value lists (each variable shifted), a
        quarter from products of their first values, the rest pseudo-random."""
        if not free:
            yield ()
            return
        width = max(len(x) for x in lists.values())
        for k in range(min(width, max(8, limit // 2))):
            yield tuple(lists[v.symbol][(k + 3 * j) % len(lists[v.symbol])]
                        for j, v in enumerate(free))
        if len(free) <= 3:
            side = max(2, int((limit / 4) ** (1 / len(free))))
            yield from itertools.product(*(lists[v.symbol][:side] for v in free))
        while True:
            yield tuple(rng.choice(lists[v.symbol]) if rng.random() < 0.3 else
                        random_value(v.domain, rng) for v in free)

    count, tries = 0, 0
    for vals in gen():
        tries += 1
        if tries > 20 * limit + 50:
            return
        env = emit(vals)
        if env is None:
            continue
        yield env
        count += 1
        if count >= limit or not free:
            return
