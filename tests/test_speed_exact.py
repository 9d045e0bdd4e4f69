"""The speed-ups of ``pytest proofs`` decide exactly what was decided before (issue 9).

* z3 (:mod:`peproof.engines.z3trig`): a variable whose every occurrence sits inside an
  abstracted sin/cos leaves its domain axioms out of the query (``split_domains``); that split
  must keep the axioms of every variable still in the query, and complete a model with values
  inside each left-out variable's domain.
* The numeric column (:mod:`peproof.agreement`) prints its mpmath functions without sorting
  the terms of sums; the values must be those of the expression, checked here against SymPy's
  own ``evalf`` (which shares no code with the printer).
"""

import itertools

import mpmath
import sympy as sp

from peproof import agreement, registry
from peproof.claims import Le, Rel, Statement, var
from peproof.engines.witness import _GRID
from peproof.engines.z3trig import Translation, decide_z3

n, VN = var("n", "integer")
x, VX = var("x", "real")
y, VY = var("y", "pos_real")


def test_integrality_kept_for_a_variable_outside_the_trig_atoms():
    # 4 n^2 = 2 has no integer root but a real one: proved only if n stays an integer
    st = Statement((Rel("!=", 4 * n**2 + sp.sin(x) ** 2 + sp.cos(x) ** 2, 3),), (VN, VX))
    assert decide_z3(st).status == "proved"


def test_split_keeps_exactly_the_axioms_of_variables_in_the_query():
    st = Statement((Le(sp.sin(n) + n * x, 5),), (VN, VX, VY))
    tr = Translation(st, use_int=False)
    zn, zx, zy = tr.vars[n], tr.vars[x], tr.vars[y]
    goal = tr.rel(st.concl[0])
    # y does not occur at all, n and x do
    kept, isolated = tr.split_domains([*tr.axioms, goal])
    assert set(isolated) == {zy.get_id()}
    assert [str(a) for a in kept] == [str(a) for a in tr.var_axioms[zn.get_id()][2]]
    assert not tr.var_axioms[zx.get_id()][2]  # a real variable has no domain axiom
    value = isolated[zy.get_id()]
    assert value.as_fraction() > 0  # inside y's domain (y > 0)
    # n only inside sin(n): its integrality leaves the query, with an integer value
    kept, isolated = tr.split_domains([t for t in tr.axioms] + [tr.rel(Le(sp.sin(n), 5))])
    assert zn.get_id() in isolated and isolated[zn.get_id()].as_fraction().denominator == 1
    assert kept == []


def test_isolated_variable_gets_a_model_value_in_its_domain():
    v = decide_z3(Statement((Le(sp.sin(y), sp.Rational(1, 2)),), (VY,)))
    assert v.status == "refuted"
    assert v.witness["found_by"] == "z3 model"
    assert sp.Rational(v.witness["point"]["y"]) > 0


def test_z3_now_answers_the_queries_it_timed_out_on():
    # integrality of variables seen only inside sin/cos made these mixed-integer queries z3
    # could not answer in its budget: both are refuted, each from a z3 model certified in arb
    for cid in ("attention.linearity_implies_relative_score",
                "fourier.affine_only_rescales_frequencies"):
        v = decide_z3(registry.get(cid).statement)
        assert v.status == "refuted", (cid, v)
        assert v.witness["found_by"] == "z3 model"
        assert v.witness["certified_by"].startswith("python-flint")


def _points(st, count=2):
    grids = [_GRID[v.domain][:4] for v in st.vars]
    for combo in itertools.islice(itertools.product(*grids), count):
        yield {v.symbol: val for v, val in zip(st.vars, combo, strict=True)}


def test_numeric_column_values_equal_sympys_evalf():
    checked = 0
    for fam in ("rotation", "inner_product", "products", "distance", "rope", "worked"):
        for c in registry.family(fam):
            st = c.statement
            if st is None or st.quant != "forall":
                continue
            for env in _points(st):
                for rel in st.concl[:6]:
                    for e in (rel.lhs, rel.rhs):
                        if e.has(sp.Sum, sp.Integral) or any(  # SymPy's own functions only
                                not type(f).__module__.startswith("sympy.")
                                for f in e.atoms(sp.Function)):
                            continue
                        ref = e.xreplace({s: sp.Rational(v) for s, v in env.items()}).evalf(60)
                        with mpmath.mp.workdps(50):
                            got = agreement._mp_value(e, env)
                            if got is None or not ref.is_real:
                                continue
                            want = mpmath.mpf(sp.Float(ref, 60)._mpf_)
                            tol = mpmath.mpf("1e-40") * (1 + abs(want))
                            assert abs(got - want) <= tol, (c.id, e, got, want)
                        checked += 1
    assert checked > 300


def test_z3_cache_key_equal_only_for_renamed_queries():
    from peproof.engines.z3trig import _canonical

    a, VA = var("a", "real")
    b, VB = var("b", "real")
    k, VK = var("k", "integer")

    def key(rel, *vs, hyps=()):
        return _canonical((rel,), Statement((rel,), vs, hyps=hyps))

    base = key(Le(sp.sin(a) + sp.Rational(1, 2), 2), VA)
    assert base == key(Le(sp.sin(b) + sp.Rational(1, 2), 2), VB)  # a renamed to b
    for other in (
        key(Le(sp.sin(a) + sp.Rational(1, 3), 2), VA),  # another number
        key(Le(sp.sin(a) + sp.Rational(1, 2), 3), VA),
        key(Le(sp.cos(a) + sp.Rational(1, 2), 2), VA),  # another function
        key(Rel("<", sp.sin(a) + sp.Rational(1, 2), 2), VA),  # another relation
        key(Le(sp.sin(k) + sp.Rational(1, 2), 2), VK),  # another domain
        key(Le(sp.sin(a) + sp.Rational(1, 2), 2), VA, hyps=(Le(a, 1),)),  # a hypothesis
        key(Le(sp.sin(2 * a) + sp.Rational(1, 2), 2), VA),
    ):
        assert other != base
    # two variables: a renaming that keeps their order shares the key; merging them does not
    c, VC = var("c", "real")
    e, VE = var("e", "real")
    two = key(Le(sp.sin(a) * b, 1), VA, VB)
    assert two == key(Le(sp.sin(c) * e, 1), VC, VE)
    assert two != key(Le(sp.sin(a) * a, 1), VA)
    assert two != key(Le(sp.sin(b) * a, 1), VA, VB)


def test_construction_verdict_prints_what_str_prints():
    from peproof.engines.decide import construction_verdict, settled_by_construction

    settled = [c for c in registry.all_claims() if settled_by_construction(c.statement)]
    assert len(settled) >= 10
    for c in settled:
        trace = construction_verdict(c.statement).trace
        shown = [t for t in trace if t.startswith("  as built: ")]
        assert shown == [f"  as built: {r}" for r in c.statement.concl[:len(shown)]], c.id
        assert len(shown) == min(8, len(c.statement.concl))
