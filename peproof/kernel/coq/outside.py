"""Statements whose proof needs a fact no library installed here provides: the planner refuses
them with the reason, deterministically and without running coqc (:func:`reason`).

Coq 8.16's standard library, Coquelicot, Flocq, CoqInterval and MathComp's ssreflect (what is
installed) prove neither the irrationality nor the transcendence of pi, and have no tactic that
certifies a property of every integer in a range of thousands by interval arithmetic.  The
project's lib/PiIrr.v proves the irrationality, and :mod:`peproof.kernel.coq.pi_scripts` applies
it to three shapes (an integer equation from equal sin and cos at a rational distance, a nonzero
rational against pi times a rational, a separation sum with such a pair): those are not refused
here (:func:`reason` is None for them).  A proof assistant can state and check the rest (given
such a library or a reflective scan); the reasons say which fact a statement needs, so that the
claim is not attempted on every run:

* ``a == b`` for integers from ``sin``/``cos`` of ``a w`` and ``b w`` equal (``w`` free of pi):
  ``(a - b) w = 2 pi k`` forces ``k = 0`` only because ``pi`` is irrational (``w`` rational) or
  because ``pi / w`` is (``w`` an irrational power such as ``10000^(-2i/d)``: the transcendence
  of pi, Lindemann);
* ``A != pi r`` with ``A`` algebraic and free of pi, ``r`` a rational function of integers: the
  transcendence of pi (its irrationality when ``A`` is rational);
* a relation over integer positions bounded by a literal, between ``sin``/``cos`` of integer
  multiples of frequencies free of pi (the separation scans): strict positivity needs that no
  difference is a multiple of 2 pi at every frequency (the irrationality of pi), a lower bound
  at a literal point needs the minimum over every difference (a certified scan).
"""

from __future__ import annotations

import sympy as sp

from peproof.claims import Eq, Ne, Statement
from peproof.kernel.coq import pi_scripts

LIBS = ("Coq's standard library nor the installed Coquelicot, Flocq, CoqInterval or MathComp "
        "(ssreflect only)")
IRRATIONAL = ("the irrationality of pi (lib/PiIrr.v proves it), in a form its scripts "
              "(pi_scripts.py) do not apply")
TRANSCENDENT = f"the transcendence of pi (Lindemann), which neither {LIBS} proves"
#: literal bounds on integer positions from which a separation statement is a scan (below it
#: the existing scripts may still close it)
SCAN_FROM = 1000


def _trig(e) -> list:
    return [t for t in sp.preorder_traversal(e) if isinstance(t, sp.sin | sp.cos)]


def _ints(st) -> set:
    return {v.symbol for v in st.vars if "integer" in v.domain}


def _integer_wrap(st) -> str | None:
    if len(st.concl) != 1 or st.concl[0].op != "==":
        return None
    a, b = st.concl[0].lhs, st.concl[0].rhs
    ints = _ints(st)
    if not (a in ints and b in ints):
        return None
    freqs = []
    for h in st.hyps:
        if h.op != "==" or not (_trig(h.lhs) and _trig(h.rhs)):
            continue
        for t in _trig(h.lhs) + _trig(h.rhs):
            arg = t.args[0]
            if arg.has(sp.pi):
                return None
            for v in (a, b):
                if arg.has(v):
                    freqs.append(arg / v)
    if not freqs or any(f.has(a) or f.has(b) for f in freqs):
        return None
    if all(sp.simplify(f).is_Rational for f in freqs):
        return (f"a proof of {a} == {b} from these sines and cosines must show that "
                f"({a} - {b}) w = 2 pi k forces k = 0 for a rational frequency w: it needs "
                f"{IRRATIONAL}")
    return (f"a proof of {a} == {b} from these sines and cosines must show that "
            f"({a} - {b}) w = 2 pi k forces k = 0 for the frequency w = {sp.sstr(freqs[0])}, "
            f"i.e. that pi / w is irrational: it needs {TRANSCENDENT}")


def _algebraic(e, ints) -> bool:
    """Built from integers, integer variables, sums, products and rational powers."""
    if e.is_Integer or e in ints:
        return True
    if isinstance(e, sp.Add | sp.Mul):
        return all(_algebraic(x, ints) for x in e.args)
    if isinstance(e, sp.Pow):
        return _algebraic(e.base, ints) and _algebraic(e.exp, ints)
    return False


def _pi_rational(st) -> str | None:
    if len(st.concl) != 1 or st.concl[0].op != "!=":
        return None
    ints = _ints(st)
    for lhs, rhs in ((st.concl[0].lhs, st.concl[0].rhs), (st.concl[0].rhs, st.concl[0].lhs)):
        r = sp.simplify(rhs / sp.pi)
        if lhs.has(sp.pi) or r.has(sp.pi) or not rhs.has(sp.pi):
            continue
        if _algebraic(lhs, ints) and _algebraic(r, ints) and not r.has(sp.Pow) or (
                _algebraic(lhs, ints) and all(p.exp.is_Integer for p in r.atoms(sp.Pow))):
            need = IRRATIONAL if all(p.exp.is_Integer for p in lhs.atoms(sp.Pow)) \
                else TRANSCENDENT
            return (f"a proof of {sp.sstr(lhs)} != {sp.sstr(rhs)} must show that pi times a "
                    f"rational is not this algebraic number: it needs {need}")
    return None


def _scan(st) -> str | None:
    ints = _ints(st)
    if not ints or any(v.symbol not in ints for v in st.vars) or len(st.concl) != 1:
        return None
    bound = max((h.rhs for h in st.hyps if h.op in ("<=", "<") and h.lhs in ints
                 and h.rhs.is_Integer), default=None)
    r = st.concl[0]
    trig = _trig(r.lhs) + _trig(r.rhs)
    if bound is None or bound < SCAN_FROM or not trig or any(t.args[0].has(sp.pi) for t in trig):
        return None
    if r.op == "<" and r.lhs == 0:
        return (f"a proof of 0 < the distance for integer positions up to {bound} must show "
                "that no difference of positions is a multiple of 2 pi at every frequency: it "
                f"needs {IRRATIONAL} (or a certified scan of the differences, which no "
                "installed tactic enumerates)")
    return (f"the bound is the minimum over every difference of integer positions up to "
            f"{bound}: it needs a certified scan of those differences in interval arithmetic; "
            "lib/Floor.v checks one for a floor 'Sum((1 - cos(k w_j))**2 + sin(k w_j)**2) <= "
            "Sum((sin(a w_j) - sin(b w_j))**2 + (cos(a w_j) - cos(b w_j))**2)' whose "
            "certificate fits the budget (peproof/kernel/coq/floor.py), and this statement is "
            "not one")


def reason(st) -> str | None:
    """Why no proof of ``st`` can be built from the installed libraries, or None (also for
    the shapes :mod:`peproof.kernel.coq.pi_scripts` proves with lib/PiIrr.v)."""
    if st.quant != "forall" or pi_scripts.shape(st) is not None:
        return None
    for rule in (_integer_wrap, _pi_rational, _scan):
        why = rule(st)
        if why:
            return why
    return None


def negation_reason(st) -> str | None:
    """For a refuted ``exists`` statement (its negation is a ``forall``, proved by an argument,
    not at a witness): why no proof of that negation can be built, or None.  The negation of
    ``exists x, H and a != b and C1 and ... and Cn`` (every ``Ci`` an equation) is stated as
    ``forall x, H -> C1 -> ... -> Cn -> a == b``; of ``exists x, H and (l == r)``, as
    ``forall x, H -> l != r``.  Only the reason is read: nothing is proved from this form."""
    if st.quant != "exists":
        return None
    neq = [h for h in st.hyps if h.op == "!="]
    try:
        if len(neq) == 1 and st.concl and all(c.op == "==" for c in st.concl):
            rest = tuple(h for h in st.hyps if h is not neq[0]) + tuple(st.concl)
            neg = Statement(Eq(neq[0].lhs, neq[0].rhs), st.vars, rest)
        elif not neq and len(st.concl) == 1 and st.concl[0].op == "==":
            neg = Statement(Ne(st.concl[0].lhs, st.concl[0].rhs), st.vars, st.hyps)
        else:
            return None
    except (TypeError, ValueError):
        return None
    why = reason(neg)
    return f"its negation (a 'forall', proved by an argument) {why}" if why else None

