"""RoPE's decay bound ``B_d(k)`` (``peproof.rope.DecayBound``) in Coq: printing and scripts.

The node's meaning is stated once, in ``lib/Decay.v``: ``odecay d base k`` is ``Some`` of
``decay_bound d base k`` (the defining sums of ``peproof.rope.decay_bound_expr``: frequencies
``rpow base (-2 l / d)``, running sums of cos and sin by ``zsum``, moduli as ``sqrt`` of sums
of squares) when ``k`` is defined, ``None`` when it is not.  This module prints the node
(:func:`sem_term` for the theorem, :func:`real_term` for the real goal: syntax only) and gives
the scripts of the statements about it (:func:`script`):

* closed equations at ``k = 0``: ``decay_bound_0`` (``B_d(0) = (d + 2)/4``, proved for every
  even ``d``), then ``lra``;
* a refuted ``forall`` at its certified point: the two values compared there by ``pe_decay``
  (Decay.v: each running sum of one pass replaced by a variable with the enclosure
  ``interval_intro`` certifies, then ``interval``);
* ``forall`` statements over a range of offsets and closed strict comparisons: each value by
  a case split over the offsets.

Each comparison is decided by ``pe_decay_vm`` when both sides are built from ``+``, ``*``,
``/``, ``Abs``, squares, exact numbers and values of the node (:func:`vm_term`): one boolean
computed in the VM by Decay.v's interval evaluator ``idecay``, whose enclosure is proved once
(``idecay_correct``); its cost is :func:`vm_seconds`, and a claim estimated over
:data:`VM_BUDGET` is refused.  Other shapes fall back to ``pe_decay`` (three ``interval_intro``
calls per value and frequency, limited by :data:`MAX_WORK`).  A refused claim's reason names
the computation that stays outside the kernel.

The node is recognised by its class's qualified name (the kernel imports nothing of the
encoding's modules).
"""

from __future__ import annotations

import sympy as sp

NODE = "peproof.rope.DecayBound"
#: Decay.v is loaded with CheckInterval: the decay jobs join the other interval jobs' batches
#: (one Print Assumptions traversal of CoqInterval's proofs for all: about 7 s each)
NEEDS = frozenset({"interval"})
#: the largest number of (value, frequency) steps of ``pe_decay`` a script is given: one step
#: (three ``interval_intro`` calls) costs about 50-100 ms of coqc: 2 x 32 steps (d = 64's
#: refutation) take about 8 s with Qed, 2 x 64 (d = 128's) 16 s, over the ~10 s a claim gets
MAX_WORK = 100
#: ``pe_decay_vm``'s cost, from this project's machine (coqc 8.16, one idle core) with a margin
#: of about 2: a (value, frequency) step of ``idecay`` runs in 0.1 ms in the VM, counted twice
#: (the tactic's run and the kernel's at Qed), plus a few ms per value compared (its case of the
#: split, its reification).  Measured on the registry's ranges: 24 values of B_64 in 0.16 s,
#: 38 of B_128 in 0.41 s, 76 of B_256 in 1.19 s (whole jobs)
VM_STEP = 2 * 0.0001
VM_VALUE = 0.01
#: the seconds of ``pe_decay_vm`` a claim is given (the runner stops a job after 10 s)
VM_BUDGET = 6.0
#: prefix of every proof whose theorem uses ``odecay``: its meaning unfolded into ``olift``,
#: which the reflection tactics of Sem.v / CheckSem.v evaluate
UNFOLD = "unfold odecay in *; "


def is_decay(e) -> bool:
    t = type(e)
    return f"{t.__module__}.{t.__qualname__}" == NODE


def _parts(e, pr):
    d, k, base = e.args
    if not (d.is_Integer and d > 0 and base.is_Rational and base > 0):
        return None
    return f"{int(d)}%Z", pr.term(base), k


def sem_term(sem, e) -> str | None:
    """``odecay d base <k>`` for a DecayBound node (``sem``: the SemPrinter), else None."""
    if not is_decay(e):
        return None
    got = _parts(e, sem.pr)
    if got is None:
        return None
    d, base, k = got
    return f"odecay {d} {_a(base)} {_a(sem.term(k))}"


def real_term(pr, e) -> str | None:
    """``decay_bound d base <k>`` for a DecayBound node (``pr``: the real printer), else None."""
    if not is_decay(e):
        return None
    got = _parts(e, pr)
    if got is None:
        return None
    d, base, k = got
    pr.heads.add("decay_bound")
    return f"decay_bound {d} {_a(base)} {_a(pr.term(k))}"


def definition(d: int, k, base) -> sp.Expr:
    """What ``odecay d base k`` / ``decay_bound d base k`` mean, as SymPy sums (Decay.v's
    definition read back, for :mod:`peproof.kernel.coq.reparse`): ``(2/d) Sum(sqrt(re_j^2 +
    im_j^2), (j, 1, d/2))``, ``re_j = Sum(cos(k base**(-2 l/d)), (l, 0, j - 1))``."""
    j = sp.Symbol("decay_j", integer=True, positive=True)
    l_ = sp.Symbol("decay_l", integer=True, nonnegative=True)
    w = sp.sympify(base) ** (-2 * l_ / sp.Integer(d))
    re = sp.Sum(sp.cos(k * w), (l_, 0, j - 1))
    im = sp.Sum(sp.sin(k * w), (l_, 0, j - 1))
    return sp.Rational(2) / d * sp.Sum(sp.sqrt(re**2 + im**2), (j, 1, sp.Integer(d) / 2))


def uses(st) -> bool:
    return any(is_decay(n) for r in st.concl + st.hyps for s in (r.lhs, r.rhs)
               for n in sp.preorder_traversal(s))


def prefix(goal) -> str:
    """The unfolding step before a proof of a theorem that prints ``odecay``."""
    return UNFOLD if "odecay" in goal.text else ""


def _nodes(st) -> list:
    return [n for r in st.concl + st.hyps for s in (r.lhs, r.rhs)
            for n in sp.preorder_traversal(s) if is_decay(n)]


def _work(nodes, values: int) -> int:
    return values * max(int(n.args[0]) // 2 for n in nodes)


def script(st, goal, refuted: bool, witness, point_values, refuse) -> tuple:
    """``(text, klass, needs, negation)`` for a statement using DecayBound; raises ``refuse``
    (tactics.NoScript) with the reason when it is not attempted.  ``point_values(st, goal,
    point)``: the witness's values in binder order (Coq terms), for a refuted claim."""
    got = _script(st, goal, refuted, witness, point_values)
    if isinstance(got, str):
        raise refuse(got)
    return got


def _script(st, goal, refuted, witness, point_values):
    nodes = _nodes(st)
    if refuted:
        point = (witness or {}).get("point")
        if st.quant != "forall" or point is None or not goal.binders:
            return "a refuted DecayBound claim is checked only at a certified point"
        n = sum(len(_nodes_rel(r)) for r in st.concl)
        tactic, why = _tactic(st.concl, nodes, n)
        if tactic is None:
            return why
        vals = point_values(st, goal, point)
        text = (f"intro H; pose proof (H {' '.join(vals)}) as Hc; pe_feed Hc; "
                f"decompose [and] Hc; {tactic}_refute")
        return text, "decay-negation", NEEDS, True
    if not goal.binders:
        if all(r.op == "==" and all(n.args[1] == 0 for n in _nodes_rel(r)) for r in st.concl):
            return "pe_split; pe_decay_zero", "decay-zero", NEEDS, False
        tactic, why = _tactic(st.concl, nodes, len(nodes))
        if tactic is None:
            return why
        return f"pe_split; {tactic}", "decay-closed", NEEDS, False
    return _range_script(st, goal, nodes)


def _tactic(rels, nodes, values: int):
    """``(tactic, None)``: the tactic comparing ``values`` values in ``rels`` within the
    budget, or ``(None, reason)``."""
    if _vm(rels):
        if vm_seconds(nodes, values) > VM_BUDGET:
            return None, _outside_vm(nodes, values)
        return "pe_decay_vm", None
    if _work(nodes, values) > MAX_WORK:
        return None, _outside(nodes, values)
    return "pe_decay", None


def vm_term(e) -> bool:
    """Whether ``pe_iv`` (Decay.v) reifies the printed ``e``: sums, products, quotients, ``Abs``,
    squares, exact numbers, symbols (the binders, instantiated before the comparison) and
    values of the node whose offset is such a term."""
    if is_decay(e):
        d, k, base = e.args
        return (d.is_Integer and d > 0 and base.is_Rational and base > 0) and vm_term(k)
    if e.is_Rational or e.is_Symbol:
        return True
    if e.is_Add or e.is_Mul:
        return all(vm_term(a) for a in e.args)
    if isinstance(e, sp.Abs):
        return vm_term(e.args[0])
    if e.is_Pow and e.exp == 2:
        return vm_term(e.base)
    return False


def _vm(rels) -> bool:
    return all(vm_term(r.lhs) and vm_term(r.rhs) for r in rels)


def vm_seconds(nodes, values: int) -> float:
    """The estimated coqc seconds of ``values`` values compared by ``pe_decay_vm``."""
    return values * (VM_VALUE + VM_STEP * max(int(n.args[0]) // 2 for n in nodes))


def _nodes_rel(r) -> list:
    return [n for s in (r.lhs, r.rhs) for n in sp.preorder_traversal(s) if is_decay(n)]


def _range_script(st, goal, nodes):
    """``forall k, 0 <= k -> k <= K -> ...``: a case split over ``k = 0..K``, each closed
    comparison by ``pe_decay``."""
    if st.quant != "forall" or len(goal.binders) != 1 or goal.binders[0].ctype != "Z":
        d = max(int(n.args[0]) for n in nodes)
        return ("DecayBound compared at every pair of offsets of a two-variable box (to "
                "62,832 offsets for the registry's claims): even one evaluation per offset in "
                f"Coq's VM (about {VM_STEP * d / 2 * 1000:.0f} ms for B_{d}, the kernel's "
                f"re-run included: {VM_STEP * d / 2 * 62833:.0f} s for 62,833 offsets) is over "
                "the time budget; the comparisons rest on the certified curve (float64 with a "
                "proved error bound, arb where intervals overlap), outside the kernel")
    b = goal.binders[0]
    top = None
    for h in st.hyps:
        if h.op == "<=" and h.lhs == b.symbol and h.rhs.is_Integer:
            top = int(h.rhs)
    if b.domain not in ("nonneg_integer",) or top is None:
        return "DecayBound over an unbounded range of offsets"
    values = sum(len(_nodes_rel(r)) * (top + 1 if b.symbol in r.lhs.free_symbols
                                        | r.rhs.free_symbols else 1) for r in st.concl)
    tactic, why = _tactic(st.concl, nodes, values)
    if tactic is None:
        return why
    cases = " \\/ ".join(f"{b.name} = {v}%Z" for v in range(top + 1))
    split = (f"assert (pe_K : {cases}) by lia; decompose [or] pe_K; subst {b.name}; {tactic}"
             if top > 0 else f"assert (pe_K : {b.name} = 0%Z) by lia; subst {b.name}; {tactic}")
    return (f"intros; pe_split; first [ solve [{tactic}] | solve [{split}] ]", "decay-range",
            NEEDS, False)


def _outside(nodes, values: int) -> str:
    d = max(int(n.args[0]) for n in nodes)
    return (f"{values} values of B_{d} to compare ({values} x {d // 2} certified steps of "
            f"pe_decay, about {values * (d // 2) // 10} s of coqc) are over the {MAX_WORK} steps "
            "a claim is given in the Coq pass's time budget; the comparisons are certified in "
            "arb only")


def _outside_vm(nodes, values: int) -> str:
    d = max(int(n.args[0]) for n in nodes)
    return (f"{values} values of B_{d} to compare (each {d // 2} steps of interval arithmetic "
            f"in Coq's VM, about {vm_seconds(nodes, values):.0f} s of coqc with the kernel's "
            f"re-run) are over the {VM_BUDGET:.0f} s a claim is given in the Coq pass's time "
            "budget; the comparisons are certified in arb only")


def _a(s: str) -> str:
    """``s`` as an argument: parenthesized unless atomic or one parenthesized group."""
    if all(ch.isalnum() or ch in "_.%" for ch in s):
        return s
    depth, first_close = 0, -1
    for pos, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            first_close = pos
            break
    return s if s.startswith("(") and first_close == len(s) - 1 else f"({s})"
