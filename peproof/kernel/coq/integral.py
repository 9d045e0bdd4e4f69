"""Print ``PiIntegral`` and ``Delta`` (peproof/engines/objects.py) with ``lib/Integral.v``.

Syntax only, as :mod:`peproof.kernel.coq.semantic`: the meaning of both nodes is stated once,
in ``Integral.v``:

* ``Delta(p, q)`` is ``odelta p q`` (defined exactly for integer arguments, then ``[p = q]``);
  two integer terms are printed ``odeltaZ`` (``odeltaZ_odelta``);
* ``PiIntegral(f, x)`` is ``oint (fun x : R => f)`` (defined exactly when ``f`` is defined on
  all of ``[-PI, PI]`` and Riemann integrable there; then Coquelicot's ``RInt``).

The nodes are recognised by their qualified class names (the kernel imports no engine).
A statement with one of them has no real-number goal: its proofs are printed by
:mod:`peproof.kernel.coq.integral_scripts` on the theorem itself.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq.coqtext import arg as _a

PIINTEGRAL = "peproof.engines.objects.PiIntegral"
DELTA = "peproof.engines.objects.Delta"


def kind(e) -> str | None:
    """``"integral"``, ``"delta"`` or None."""
    t = type(e)
    name = f"{t.__module__}.{t.__qualname__}"
    return {PIINTEGRAL: "integral", DELTA: "delta"}.get(name)


def has_nodes(st) -> bool:
    """Does the statement (its hypotheses or conclusions) use ``PiIntegral`` or ``Delta``?"""
    return any(kind(n) for r in st.concl + st.hyps for side in (r.lhs, r.rhs)
               for n in sp.preorder_traversal(sp.sympify(side)))


def sem_term(sem, e) -> str | None:
    """The ``Integral.v`` text of ``e`` under the semantic printer ``sem``, None for another
    node (``SemPrinter.term``'s hook)."""
    k = kind(e)
    if k == "delta":
        p, q = e.args
        zp, zq = sem.pr.zexact(p), sem.pr.zexact(q)
        if zp is not None and zq is not None:  # Integral.v's odeltaZ_odelta
            return f"odeltaZ {_a(zp)} {_a(zq)}"
        return f"odelta {_a(sem.term(p))} {_a(sem.term(q))}"
    if k == "integral":
        f, x = e.args
        if not isinstance(x, sp.Symbol):
            return None  # the caller's refusal: no printing
        pr = sem.pr
        name = sem.name_of(x.name, pr.taken)
        with pr.binding(x, name, integer=False):
            body = sem.term(f)
        return f"oint (fun {name} : R => {body})"
    return None


#: what the reader of printed goals (reparse.py) reads back for these nodes: functions named
#: after the nodes (the kernel imports no engine; tests compare by name)
READ = frozenset({"odelta", "odeltaZ", "oint"})


def read_back(p, tok: str):
    """``odelta a b`` / ``odeltaZ p q`` as ``Delta(a, b)``, ``oint (fun x : R => f)`` as
    ``PiIntegral(f, x)`` (SymPy functions of those names), for the parser ``p`` of
    :mod:`peproof.kernel.coq.reparse` that has just taken ``tok``."""
    if tok == "odelta":
        a = p.sarg_or_atom()
        return sp.Function("Delta")(a, p.sarg_or_atom())
    if tok == "odeltaZ":
        a = p.zatom()
        return sp.Function("Delta")(a, p.zatom())
    for want in ("(", "fun"):
        p.take(want)
    name = p.take()
    for want in (":", "R", "=>"):
        p.take(want)
    old, x = p.sym.get(name), sp.Symbol(name, real=True)
    p.sym[name] = x
    body = p.sterm()
    p.take(")")
    if old is None:
        del p.sym[name]
    else:
        p.sym[name] = old
    return sp.Function("PiIntegral")(body, x)
