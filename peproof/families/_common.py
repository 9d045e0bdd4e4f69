"""Symbols and building blocks shared by the claim families.

Everything here is built from :mod:`peproof.encoding`; families never retype the encoding.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

# the usual variables, with the assumptions their domains ask for
from peproof.claims import Claim, Statement, Verdict, var
from peproof.encoding import Encoding
from peproof.scope import encoding as _encoding_in_force
from peproof.scope import omega as _omega_in_force

pos, V_POS = var("pos", "real")
k, V_K = var("k", "integer")
omega, V_OMEGA = var("omega", "pos_real")
d, V_D = var("d", "even_pos_integer")
i, V_I = var("i", "nonneg_integer")
a, V_A = var("a", "integer")
b, V_B = var("b", "integer")

#: the frequency of pair ``i`` for a symbolic ``d`` (from the one definition): the paper's,
#: or the law of the variant the families are built for (:mod:`peproof.scope`)
OMEGA_I = _omega_in_force(i, d)
#: hypothesis ``i <= d/2 - 1`` (``i >= 0`` is in the domain of ``i``)
from peproof.claims import Le  # noqa: E402

I_IN_RANGE = Le(i, d / 2 - 1)


def rot(theta) -> sp.Matrix:
    """The block acting on a ``(sin, cos)`` pair: ``[[cos t, sin t], [-sin t, cos t]]``."""
    return sp.Matrix([[sp.cos(theta), sp.sin(theta)], [-sp.sin(theta), sp.cos(theta)]])


def pair(w, p) -> sp.Matrix:
    """The ``(sin, cos)`` pair of one frequency ``w`` at position ``p``."""
    return sp.Matrix([sp.sin(w * p), sp.cos(w * p)])


def general_pe_pair(p, freq=OMEGA_I) -> sp.Matrix:
    """Channels ``(2i, 2i+1)`` of the paper's encoding at position ``p``, symbolic ``d`` and ``i``."""
    return pair(freq, p)


def shift_matrix(enc: Encoding, shift, freqs=None) -> sp.SparseMatrix:
    """``M_k`` for a concrete encoding: ``rot(omega_i k)`` on the channels of pair ``i``."""
    m = sp.SparseMatrix(enc.d, enc.d, {})
    for p in range(enc.pairs):
        r = rot((enc.omegas[p] if freqs is None else freqs[p]) * shift)
        js, jc = enc.channel(p, "sin"), enc.channel(p, "cos")
        m[js, js], m[js, jc] = r[0, 0], r[0, 1]
        m[jc, js], m[jc, jc] = r[1, 0], r[1, 1]
    return m


def pair_symbols(h: int) -> tuple[list[sp.Symbol], tuple]:
    """``h`` positive frequency symbols ``w_0 .. w_(h-1)`` and their :class:`Var` s."""
    from peproof.claims import Var

    ws = [sp.Symbol(f"w_{j}", positive=True) for j in range(h)]
    return ws, tuple(Var(w, "pos_real") for w in ws)


@cache
def concrete_vector(d: int, p: sp.Expr, layout: str | None = None) -> tuple:
    """``PE_d(p)`` with the frequencies left as symbols ``w_i``, built once per process
    (the concrete-d statements of several families share it); the layout, offset and scale are
    those in force (the paper's interleaved table, or a ``--variant``'s), ``layout`` names
    another layout."""
    ws, _ = pair_symbols(d // 2)
    enc = _encoding_in_force(d) if layout is None else _encoding_in_force(d, layout=layout)
    return tuple(enc.vector(p, ws))


def sparse_apply(m: sp.SparseMatrix, v: list) -> list:
    """``m * v`` touching only the stored entries (fast for block-diagonal ``M_k``)."""
    out = [sp.Integer(0)] * m.rows
    for (r, c), val in m.todok().items():
        out[r] = out[r] + val * v[c]
    return out


def instance_proof(lemma_id: str, var_for_rate=pos):
    """Proof function: every conclusion is an instance of the (proved) lemma ``lemma_id``.

    For each conclusion ``f(w_j (p + k)) = ...`` the frequency is read off as
    ``d/dp`` of the left argument (exact differentiation), the lemma is instantiated at
    ``omega = w_j`` and must coincide *structurally* with the conclusion; otherwise the
    conclusion is decided on its own by the exponential procedure.  Block by block, never one
    giant expression.
    """

    def proof(stmt: Statement, claim: Claim) -> Verdict:
        import time

        from peproof import registry
        from peproof.engines import expoly
        from peproof.engines.decide import decide_statement, versions
        from peproof.verdicts import verdict_of

        t0 = time.perf_counter()
        lemma_v = verdict_of(lemma_id)
        lemma = registry.get(lemma_id).statement
        if stmt.quant != "forall":
            return Verdict("unknown", "sympy-exp", versions()["sympy"], "lemma instance",
                           reason="instances of a universal lemma prove universal statements")
        if any(rel.op != "==" for rel in stmt.concl):
            return Verdict("unknown", "sympy-exp", versions()["sympy"], "lemma instance",
                           reason="lemma instances decide equalities only")
        if lemma_v.status != "proved":
            return Verdict("unknown", "sympy-exp", versions()["sympy"], "lemma instance",
                           reason=f"lemma {lemma_id} is {lemma_v.status}")
        inst, direct, bad = 0, 0, []
        templates = {}
        for rel in stmt.concl:
            arg = next(iter(rel.lhs.atoms(sp.sin, sp.cos))).args[0] if rel.lhs.has(
                sp.sin, sp.cos) else None
            matched = False
            if arg is not None:
                others = arg.free_symbols - {var_for_rate, k}
                # any choice of w is sound: a wrong one only fails to match structurally
                w = next(iter(others)) if len(others) == 1 else sp.diff(arg, var_for_rate)
                if w not in templates:
                    sub = (lambda e, w=w: e.xreplace({omega: w})) if w.is_Symbol else (
                        lambda e, w=w: e.subs(omega, w))
                    templates[w] = [r.map(sub) for r in lemma.concl]
                for t in templates[w]:
                    if t.op == rel.op and t.lhs == rel.lhs and t.rhs == rel.rhs:
                        matched = True
                        break
            if matched:
                inst += 1
                continue
            res = expoly.expand_is_zero(rel.lhs - rel.rhs) if rel.op == "==" else None
            if res is not None and res.zero:
                direct += 1
            else:
                bad.append(rel)
        secs = time.perf_counter() - t0
        if bad:
            v = decide_statement(stmt.with_concl(bad))
            v.trace = [f"{len(bad)} conclusion(s) not instances of {lemma_id}"] + v.trace
            return v
        return Verdict(
            "proved", "sympy-exp", versions()["sympy"], "lemma instances, block by block",
            axioms=(f"lemma {lemma_id} (proved: {lemma_v.method})",
                    "instantiation of a universally quantified omega"),
            seconds=secs,
            trace=[f"{inst} conclusion(s) are instances of {lemma_id} at omega_i = d/dpos of "
                   f"the argument; {direct} decided directly"],
            # the lemma's certificates (its exponential proof, re-checked by FLINT) come along
            kernels=lemma_v.kernels, certificates=list(lemma_v.certificates),
        )

    return proof


def given_instance(point: dict):
    """Proof of an existential statement by one given point, every conclusion certified in arb."""

    def proof(stmt: Statement, claim: Claim) -> Verdict:
        from peproof.engines import witness
        from peproof.engines.decide import versions

        env = {v.symbol: point[v.symbol.name] for v in stmt.vars}
        hyps_ok = all(witness.truth(h, env) is True for h in stmt.hyps)
        concl_ok = all(witness.truth(r, env) is True for r in stmt.concl)
        if stmt.quant == "exists" and hyps_ok and concl_ok:
            return Verdict(
                "proved", "arb", versions()["python-flint"], "certified instance",
                witness={"point": {k_: str(v) for k_, v in point.items()},
                         "relations": [str(r) for r in stmt.concl],
                         "certified_by": "python-flint arb (rigorous balls)"},
                trace=[f"instance {point}: every conclusion certified true in arb"],
            )
        return Verdict("unknown", "arb", versions()["python-flint"], "certified instance",
                       reason=f"the point {point} is not a certified instance")

    return proof


def pair_sum(summand) -> sp.Sum:
    """``sum_{i=0}^{d/2-1} summand`` over the pairs of the paper encoding (symbolic d)."""
    return sp.Sum(summand, (i, 0, d / 2 - 1))


def only_for(expected):
    """Wrap a proof written for ONE statement: handed anything else (a falsifier, an edited
    statement) it answers ``unknown`` instead of certifying what it was not written for.
    ``expected`` is the statement or a zero-argument callable building it."""

    def wrap(proof):
        def guarded(stmt: Statement, claim: Claim) -> Verdict:
            want = expected() if callable(expected) else expected
            if stmt != want:
                return Verdict("unknown", "none", "-", "guarded proof",
                               reason="handed a statement other than the one this proof "
                                      "certifies")
            return proof(stmt, claim)

        guarded.__doc__ = proof.__doc__
        guarded.__name__ = getattr(proof, "__name__", "proof")
        return guarded

    return wrap
