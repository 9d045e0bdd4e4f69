"""Proof scripts for statements with ``PiIntegral`` / ``Delta`` (``lib/Integral.v``).

Such a statement has no real-number goal (:mod:`peproof.kernel.coq.integral`): its script
proves the THEOREM itself (the statement in ``Sem.v``'s and ``Integral.v``'s functions), with
no reflection step.  Only ``forall`` statements whose relations are linear in integrals of
trigonometric polynomials are scripted:

* each integral ``PiIntegral(f, x)`` is rewritten by ``oint_tp`` into ``Some (tp_int T)``,
  where ``T`` is ``f`` expanded into a sum of ``c cos(x k)``, ``c sin(x k)`` and constants
  (product to sum, computed here; ``k`` an integer term printed as ``(k1 +- k2)`` from the
  integrand's own frequencies).  The premise ``forall x, f x = Some (tp_den T x)`` is proved
  in Coq (the operations evaluated, the frequencies split, the addition formulas, ``ring``
  modulo ``sin^2 + cos^2 = 1``): an expansion computed wrongly here is a failed proof;
* the relation, now between real terms with brackets ``Z.eq_dec`` (of ``tp_int`` and of
  ``Delta``), is decided case by case (``pint_close``: each bracket split, contradictory cases
  by ``lia``, the rest by ``lra``/``field``).

Sums over a period (``Sum(P(2 pi n j / N), (n, 0, N - 1))``, ``N`` an integer variable) are
rewritten the same way by ``osumZ_dp`` (a ``dp`` term; ``Integral.v`` proves the sums of
``cos``/``sin`` of ``2 pi n j / N``); a statement with such sums and neither node keeps its
usual script, tried after this one (:func:`or_period_sums`).

The script is search: Coq's kernel checks the theorem, whatever is printed here.
"""

from __future__ import annotations

import sympy as sp

from peproof.kernel.coq import integral
from peproof.kernel.coq.semantic import SemPrinter
from peproof.kernel.coq.tactics import NoScript, Script
from peproof.kernel.coq.translate import Goal, _sum_alias, arg, coq_name

NEEDS = frozenset({"integral"})


def script_for(st, goal: Goal) -> Script | None:
    """The direct script of a statement with ``PiIntegral`` / ``Delta``; None for another
    statement; :class:`NoScript` when it is outside the scripted shapes."""
    if not integral.has_nodes(st):
        return None
    return Script(_direct(st, goal), "integral", NEEDS)


def or_period_sums(st, goal: Goal, proof: str) -> tuple[str, frozenset]:
    """A statement without these nodes whose sums are all sums over a period
    (``Sum(P(2 pi n j / N), (n, 0, N - 1))``): the direct script first, then ``proof`` (the
    usual one); any other statement: ``proof`` itself.  With what the header must load."""
    if integral.has_nodes(st) or not any(isinstance(n, sp.Sum) for r in st.concl
                                         for s in (r.lhs, r.rhs)
                                         for n in sp.preorder_traversal(s)):
        return proof, frozenset()
    try:
        direct = _direct(st, goal)
    except NoScript:
        return proof, frozenset()
    return f"first [ solve [{direct}] | solve [{proof}] ]", NEEDS


def _direct(st, goal: Goal) -> str:
    if st.quant != "forall":
        raise NoScript("PiIntegral/Delta: only 'forall' statements are scripted")
    if any(integral.kind(n) for r in st.hyps for s in (r.lhs, r.rhs)
           for n in sp.preorder_traversal(s)):
        raise NoScript("PiIntegral/Delta in a hypothesis")
    exprs = [s for r in st.concl for s in (r.lhs, r.rhs)]
    steps = _zfacts(st, goal)
    seen = []
    for e in exprs:
        for n in sp.preorder_traversal(e):
            if n in seen:
                continue
            if integral.kind(n) == "integral":
                seen.append(n)
                steps.append(_rewrite(n, goal))
            elif isinstance(n, sp.Sum):
                seen.append(n)
                steps.append(_sum_rewrite(n, goal))
    return ("intros; " + "".join(f"{s}; " for s in steps)
            + "unfold odeltaZ; cbn [tp_int dp_sum]; pe_dec; "
            "repeat match goal with |- _ /\\ _ => split end; pint_close")


def _rewrite(node, goal: Goal) -> str:
    """``rewrite (oint_tp (fun x => f) T) by (...)`` for the integral ``node``."""
    f, x = node.args
    if not isinstance(x, sp.Symbol):
        raise NoScript(f"integration variable {x!r}")
    pr = goal.printer
    sem = SemPrinter(pr, coq_name, _sum_alias)
    text = sem.term(node)  # the theorem's own text of this integral (a fresh bound name)
    name = text.split("fun ", 1)[1].split(" ", 1)[0]
    terms = _expand(f, x, pr, lambda a: _freq(a, x, pr))
    with pr.binding(x, name, integer=None):
        tp = _tp(terms, pr)
        atoms, comm = _atoms(f, x, pr, name)
    fun = text[len("oint "):]
    pyth = "".join(f"pose proof (pyth_sq ({a})) as pe_P{j}; " for j, a in enumerate(atoms))
    ps = " ".join(f"pe_P{j}" for j in range(len(atoms)))
    eqs = f" [{ps}]" if ps else ""
    pw = (f"intro {name}; pe_dec; f_equal; cbn [tp_den]; {comm}pint_expand; {pyth}"
          "pose proof PI_RGT_0; "
          f"first [ solve [ring{eqs}] | solve [field{eqs}; repeat split; intro; lra] ]")
    return f"rewrite (oint_tp {fun} ({tp})) by ({pw})"


# -- sums over a period: Sum(P(2 pi n j / N), (n, 0, N - 1)) -----------------------------------

def _sum_rewrite(node, goal: Goal) -> str:
    """``erewrite (osumZ_dp N _ (fun n => f) T) by (...)`` for the sum ``node``."""
    if len(node.limits) != 1:
        raise NoScript("a sum over several indices")
    i, lo, hi = node.limits[0]
    pr = goal.printer
    big = sp.expand(hi + 1)
    if lo != 0 or not (big.is_Symbol and big in pr.zvars):
        raise NoScript(f"sum range {sp.sstr(lo)}..{sp.sstr(hi)}: only 0..N - 1, N an integer "
                       "variable")
    n_text = pr.names[big]
    sem = SemPrinter(pr, coq_name, _sum_alias)
    text = sem.term(node)
    fun = text[text.index("(fun "):]
    idx = fun[len("(fun "):].split(" ", 1)[0]
    f = node.function
    with pr.binding(i, idx, integer=True):
        terms = _expand(f, i, pr, lambda a: _dfreq(a, i, big, pr))
        dp = _tp(terms, pr, "D")
        reps, atoms = [], []
        for a in _angles(f):
            j = _dfreq(a, i, big, pr)
            reps.append(f"replace {_par(pr.term(a))} with (dang {n_text} {idx} {j}) "
                        "by (unfold dang; field; apply Rgt_not_eq; lra)")
            if f"dang {n_text} {idx} {j}" not in atoms:
                atoms.append(f"dang {n_text} {idx} {j}")
    pyth = "".join(f"pose proof (pyth_sq ({a})) as pe_P{j}; " for j, a in enumerate(atoms))
    ps = " ".join(f"pe_P{j}" for j in range(len(atoms)))
    eqs = f" [{ps}]" if ps else ""
    pw = (f"intros {idx} pe_r; assert (pe_N : 0 < IZR {n_text}) by (apply IZR_lt; lia); "
          f"pe_dec; f_equal; cbn [dp_den]; {''.join(r + '; ' for r in reps)}"
          "rewrite ?dang_plus, ?dang_minus, ?dang_opp; "
          "rewrite ?cos_plus, ?cos_minus, ?sin_plus, ?sin_minus, ?cos_neg, ?sin_neg; "
          f"{pyth}first [ solve [ring{eqs}] | solve [field{eqs}; apply Rgt_not_eq; lra] ]")
    return (f"erewrite (osumZ_dp {n_text} _ {fun} ({dp})) "
            f"by (first [ lia | ({pw}) ])")


def _dfreq(a, i, big, pr) -> str:
    """The integer ``j`` of an angle ``2 pi i j / N`` (an integer literal or variable)."""
    j = sp.expand(a * big / (2 * sp.pi * i))
    if j.has(i) or j.has(sp.pi) or j.has(big):
        raise NoScript(f"angle {sp.sstr(a)} is not 2 pi {i} j / {big}")
    if j.is_Integer:
        return str(int(j)) if j >= 0 else f"({int(j)})"
    if j.is_Symbol and j in pr.zvars:
        return pr.names[j]
    raise NoScript(f"frequency {sp.sstr(j)}: only integer literals and integer variables")


def _angles(f) -> list:
    out = []
    for n in sp.preorder_traversal(f):
        if isinstance(n, sp.cos | sp.sin) and n.args[0] not in out:
            out.append(n.args[0])
    return out


def _zfacts(st, goal: Goal) -> list[str]:
    """Each hypothesis ``a <= b`` / ``a < b`` of integer-valued terms with rational
    coefficients, as the relation of ``Z`` (scaled by the denominators), for ``lia``."""
    pr, out = goal.printer, []
    for j, h in enumerate(st.hyps):
        if h.op not in ("<=", "<"):
            continue
        diff = sp.expand(h.rhs - h.lhs)
        den = 1
        for t in sp.Add.make_args(diff):
            c, _ = t.as_coeff_Mul()
            if c.is_Rational:
                den = den * c.q // sp.gcd(den, c.q)
        lz, rz = pr.zexact(sp.expand(h.lhs * den)), pr.zexact(sp.expand(h.rhs * den))
        if den == 1 or lz is None or rz is None:
            continue
        name = f"pe_h{len(goal.domain_hyps) + j}"
        lem = "le_IZR" if h.op == "<=" else "lt_IZR"
        out.append(f"assert (pe_z{j} : ({lz} {h.op} {rz})%Z) by (clear - {name}; pe_dec; "
                   f"apply {lem}; rewrite ?mult_IZR, ?plus_IZR, ?minus_IZR, ?opp_IZR; lra)")
    return out


# -- the product-to-sum expansion ---------------------------------------------------------------

def _freq(a, x, pr) -> str:
    """The integer frequency ``k`` of an angle ``x * k`` as a Z term: an integer literal or an
    integer variable (other frequencies are not scripted)."""
    k = sp.expand(a / x)
    if k.has(x):
        raise NoScript(f"angle {sp.sstr(a)} is not a multiple of {x}")
    if k.is_Integer:
        return str(int(k)) if k >= 0 else f"({int(k)})"
    if k.is_Symbol and k in pr.zvars:
        return pr.names[k]
    raise NoScript(f"frequency {sp.sstr(k)}: only integer literals and integer variables")


def _expand(f, x, pr, freq) -> list[tuple[str, sp.Expr, str | None]]:
    """``f`` as a list of (``K``|``C``|``S``, coefficient, frequency Z term); ``freq`` reads
    the frequency of an angle."""
    if not f.has(x):
        return [("K", f, None)]
    if f.is_Add:
        return [t for a in f.args for t in _expand(a, x, pr, freq)]
    if f.is_Mul:
        out = [("K", sp.Integer(1), None)]
        for a in f.args:
            out = [p for s in out for t in _expand(a, x, pr, freq) for p in _times(s, t)]
        return out
    if f.is_Pow and f.exp.is_Integer and f.exp > 0:
        base = _expand(f.base, x, pr, freq)
        out = base
        for _ in range(int(f.exp) - 1):
            out = [p for s in out for t in base for p in _times(s, t)]
        return out
    if isinstance(f, sp.cos | sp.sin):
        return [("C" if isinstance(f, sp.cos) else "S", sp.Integer(1), freq(f.args[0]))]
    raise NoScript(f"integrand {sp.sstr(f)[:60]}: not a polynomial in sin, cos of x")


def _times(s, t):
    (ka, ca, a), (kb, cb, b) = s, t
    c = ca * cb
    if ka == "K":
        return [(kb, c, b)]
    if kb == "K":
        return [(ka, c, a)]
    h = c / 2
    mi, pl = f"({a} - {b})", f"({a} + {b})"
    if ka == "C" and kb == "C":
        return [("C", h, mi), ("C", h, pl)]
    if ka == "S" and kb == "S":
        return [("C", h, mi), ("C", -h, pl)]
    if ka == "S":
        return [("S", h, pl), ("S", h, mi)]
    return [("S", h, pl), ("S", -h, mi)]


def _tp(terms, pr, head: str = "T") -> str:
    """The ``tp`` (``head`` T) or ``dp`` (D) term of an expansion."""
    parts = []
    for kind, c, k in terms:
        ct = pr.term(sp.sympify(c))
        parts.append(f"{head}K {_par(ct)}" if kind == "K" else f"{head}{kind} {_par(ct)} {k}")
    out = parts[-1]
    for p in reversed(parts[:-1]):
        out = f"{head}A ({p}) ({out})"
    return out


def _atoms(f, x, pr, name: str) -> tuple[list[str], str]:
    """The base angles ``x * k`` of the integrand (the ``pyth_sq`` facts) and the rewrites that
    put each printed angle into that form (``20 * x`` -> ``x * 20``)."""
    atoms, comm = [], ""
    for n in sp.preorder_traversal(f):
        if isinstance(n, sp.cos | sp.sin):
            k = _freq(n.args[0], x, pr)
            zk = sp.expand(n.args[0] / x)
            atom = name if k == "1" else f"{name} * IZR {k}" if zk.is_Symbol else f"{name} * {k}"
            if atom not in atoms:
                atoms.append(atom)
            printed = pr.term(n.args[0])
            if k != "1" and printed.strip("()") != atom:
                lit = f"IZR {k}" if zk.is_Symbol else k
                comm += f"rewrite ?(Rmult_comm ({lit}) {name}); "
    return atoms, comm


def _par(s: str) -> str:
    return arg(s.strip())
