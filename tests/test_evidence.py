"""The evidence of a verdict (peproof/evidence.py): the levels on hand-built result rows, the
negative cases (what is never two engines, never kernel, a conflict and not evidence), and the
levels on real rows of the engines.

Coq rows have the shape of ``peproof.kernel.coq.check.CoqResult.as_dict``.
"""

from __future__ import annotations

import re

import pytest

from peproof import evidence as E

EXP_KERNELS = ["exp-poly (SymPy expand)", "FLINT re-check (python-flint fmpq_mpoly)"]
Z3_PROVED = {"status": "proved", "engine": "z3", "method": "polynomial abstraction, block by "
             "block", "version": "5.4.1"}
Z3_NA = {"status": "unknown", "engine": "z3", "method": "not applicable", "version": "5.4.1"}
WITNESS = {"point": {"d": "4", "k": "3"}, "relation": "D(k+1) <= D(k)", "lhs": "[3.98 +/- 1e-20]",
           "rhs": "[3.30 +/- 1e-20]", "certified_by": "python-flint arb (rigorous balls)"}


def coq(status="checked in Coq", what="statement", version="8.16.1", conflict="",
        exact=True):
    return {"exact_statement": exact, "status": status, "what": what, "class": "trig",
            "lemma": "rotation_x",
            "assumptions": ["ClassicalDedekindReals.sig_forall_dec"],
            "print_assumptions": "Axioms:\nClassicalDedekindReals.sig_forall_dec : ...",
            "coq_version": version, "seconds": 0.2, "cached": False,
            "vfile": "reports/build/coq/rotation.x.v", "conflict": conflict, "obligations": []}


def row(status="proved", engine="sympy-exp", method="decision procedure", z3=None,
        coq_entry=None, conflict=False, kernels=(), witness=None, vconflict=None,
        trace=(E.SIDE_LINE + "none",)):
    v = {"status": status, "engine": engine, "method": method, "version": "-", "axioms": [],
         "seconds": 0.01, "witness": witness if witness is not None else (
             WITNESS if status == "refuted" else None), "trace": list(trace), "reason": "",
         "kernels": list(kernels), "certificates": [{"atoms": []}] if kernels else []}
    if vconflict:
        v["conflict"] = vconflict
    r = {"id": "fam.x", "verdict": v, "z3": dict(z3 if z3 is not None else Z3_NA),
         "engines": {"primary": status, "z3": (z3 or Z3_NA)["status"], "numeric": "consistent"},
         "conflict": conflict}
    if coq_entry is not None:
        r["coq"] = coq_entry
    return r


def level(r) -> str:
    return E.evidence(r)["level"]


# ---------------------------------------------------------------------------- the levels
def test_exponential_procedure_and_z3_are_two_engines():
    ev = E.evidence(row(z3=Z3_PROVED, kernels=EXP_KERNELS))
    assert ev["level"] == E.TWO
    assert ev["engines"] == ["sympy-exp", "z3"]
    assert ev["witness"] is None


def test_one_engine_when_z3_does_not_apply():
    assert level(row()) == E.ONE


def test_a_coq_proof_of_the_statement_is_kernel():
    ev = E.evidence(row(z3=Z3_PROVED, coq_entry=coq()))
    assert ev["level"] == E.KERNEL and "8.16.1" in ev["why"]
    assert ev["coq"] == "checked in Coq"


def test_a_coq_proof_of_the_negation_of_a_refuted_claim_is_kernel_and_names_the_witness():
    ev = E.evidence(row("refuted", "arb", "certified counterexample",
                        coq_entry=coq(what="negation")))
    assert ev["level"] == E.KERNEL
    assert ev["witness"] == "at d = 4, k = 3, certified by python-flint arb (rigorous balls)"
    closed = row("refuted", "arb", "certified counterexample", witness={**WITNESS, "point": {}})
    assert E.evidence(closed)["witness"].startswith("in the closed statement, certified by")


def test_a_refutation_is_one_engine_with_its_witness_even_when_z3_refutes_too():
    """Both witnesses are certified by the same ball arithmetic: one kernel, not two."""
    z = {"status": "refuted", "engine": "z3+arb", "method": "z3 model re-checked in arb"}
    ev = E.evidence(row("refuted", "arb", "certified counterexample", z3=z))
    assert ev["level"] == E.ONE
    assert "d = 4" in ev["witness"] and "arb" in ev["witness"]


def test_a_refutation_by_proof_of_the_negation_names_it():
    w = {"kind": "proof of the negation", "negation": "omega_0 != 2 pi k/N",
         "certified_by": "argument from the axiom 'pi is irrational'"}
    ev = E.evidence(row("refuted", "argument", "proof of the negation", witness=w))
    assert ev["level"] == E.ONE
    assert ev["witness"].startswith("proof of the negation: omega_0 != 2 pi k/N")


def test_settled_when_built_is_its_own_level_and_coq_makes_it_kernel():
    built = row(engine="construction", method="settled when built",
                z3={"status": "unknown", "engine": "z3", "method": "settled when built"})
    assert level(built) == E.BUILT
    built["coq"] = coq()
    assert level(built) == E.KERNEL


def test_unknown_is_no_evidence():
    ev = E.evidence(row("unknown", "none", "not formalised"))
    assert ev["level"] == E.NONE and ev["witness"] is None


# ---------------------------------------------------------------------------- never two engines
def test_a_construction_is_never_two_engines():
    """Even with a z3 column claiming 'proved' (a hand-edited or buggy row); nor is a case
    split whose cases were settled when built (it is one engine: the split was decided)."""
    built = row(engine="construction", method="settled when built", z3=Z3_PROVED)
    assert level(built) == E.BUILT
    cases = row(engine="cases + construction", method="case split on the Piecewise branches",
                z3=Z3_PROVED)
    assert level(cases) == E.ONE


def test_a_settled_method_is_never_two_engines_whatever_the_engine_name():
    """A verdict whose method says 'settled when built' under another engine name (a row from
    another producer) is settled when built, not the primary half of two engines.
    Kills the mutant evidence-settled-method-ignored (it reads the engine name only)."""
    r = row(engine="sympy-exp", method="settled when built", z3=Z3_PROVED)
    assert E.independent("sympy-exp", "z3")  # what would make it 'two engines' otherwise
    assert level(r) == E.BUILT


def test_the_flint_recheck_is_not_a_second_engine():
    r = row(kernels=EXP_KERNELS)  # FLINT re-checked the certificate; z3 not applicable
    assert r["verdict"]["certificates"]
    assert level(r) == E.ONE


@pytest.mark.parametrize("engine", ["z3", "z3 (integers)", "periodic", "sympy-exp+z3",
                                    "z3+sympy-exp", "log-linear", "z3-exp+arb", "argument+z3"])
def test_a_primary_engine_resting_on_z3_and_the_z3_column_are_one_engine(engine):
    ev = E.evidence(row(engine=engine, z3=Z3_PROVED))
    assert ev["level"] == E.ONE
    assert "shares z3" in ev["why"]


@pytest.mark.parametrize("engine", ["chain", "a-new-engine", "", "sympy-exp+mystery"])
def test_an_engine_of_unknown_procedures_is_never_independent(engine):
    assert level(row(engine=engine, z3=Z3_PROVED)) == E.ONE
    # and the engine rule on its own: the procedures' rule (_disjoint) refuses an unknown
    # engine too, and hid a rule that let one through (mutant evidence-unknown-engine-independent)
    assert not E.independent(engine, "z3")


def test_z3_settled_when_built_is_no_second_engine():
    z = {**Z3_PROVED, "method": "settled when built"}
    assert level(row(z3=z)) == E.ONE


# ---------------------------------------------------------------------------- never kernel
@pytest.mark.parametrize("status", [
    "not checked in Coq: no proof script: sums", "coq not installed",
    "not checked in Coq: the proof script did not close the goal", "checked", "Checked in Coq",
    ""])
def test_a_coq_result_that_is_not_checked_is_never_kernel(status):
    r = row(z3=Z3_PROVED, coq_entry=coq(status=status))
    assert level(r) == E.TWO  # what the engines give, unchanged
    assert E.evidence(r)["coq"] == (status or "Coq not run")


def test_a_coq_check_without_a_version_is_not_kernel():
    assert level(row(coq_entry=coq(version=""))) == E.ONE


def test_coq_checking_the_statement_does_not_make_a_refutation_kernel_it_is_a_conflict():
    r = row("refuted", "arb", "certified counterexample", coq_entry=coq(what="statement"))
    ev = E.evidence(r)
    assert ev["level"] == E.CONFLICT
    assert "Coq proved the statement the engines refuted" in ev["why"]


# ---------------------------------------------------------------------------- conflicts
def test_coq_proving_the_negation_of_a_proved_claim_is_a_conflict_not_evidence():
    """Whatever the Coq entry's own conflict field says (here: nothing)."""
    ev = E.evidence(row(z3=Z3_PROVED, coq_entry=coq(what="negation")))
    assert ev["level"] == E.CONFLICT
    assert "negation" in ev["why"]


def test_a_coq_conflict_field_is_a_conflict():
    r = row(coq_entry=coq(conflict="Coq proved the negation of a statement an engine proved"))
    assert level(r) == E.CONFLICT


@pytest.mark.parametrize("kw", [{"conflict": True},
                                {"vconflict": {"engine": {"engine": "sympy-exp"}, "point": {}}},
                                {"z3": {**Z3_PROVED, "conflict": {"engine": {}, "point": {}}}}])
def test_an_engine_conflict_is_never_evidence(kw):
    r = row(coq_entry=coq(), **{"z3": Z3_PROVED, **kw})
    assert level(r) == E.CONFLICT


def test_coq_on_an_unknown_claim_gives_no_level():
    ev = E.evidence(row("unknown", "none", "not formalised", coq_entry=coq()))
    assert ev["level"] == E.NONE and "no verdict by itself" in ev["why"]


# ---------------------------------------------------------------------------- pieces
def test_engine_parts_respect_parentheses():
    assert E.engine_parts("certified curve (float64 + proved bound) + arb") == [
        "certified curve (float64 + proved bound)", "arb"]
    assert E.engine_parts("cases + sympy-exp") == ["cases", "sympy-exp"]
    assert E.engine_parts("") == []


def test_counts_cover_every_level_and_are_recomputed_from_the_rows():
    rows = [row(z3=Z3_PROVED), row(), row("unknown", "none", "-")]
    rows[0]["evidence"] = {"level": E.KERNEL}  # a stale stored value is not trusted
    c = E.counts(rows)
    assert set(c) == set(E.ALL)
    assert c[E.TWO] == 1 and c[E.ONE] == 1 and c[E.NONE] == 1 and c[E.KERNEL] == 0


# ------------------------------------------------- procedures read from the trace (issue 23)
EXP_SIDE_Z3 = (E.SIDE_LINE + "z3, sign rules",)


def test_a_side_condition_proved_by_z3_makes_the_exponential_procedure_and_z3_one_engine():
    """The registry's 13 rows (issue 23, class 3): sympy-exp proved the statement, z3 proved
    its side condition (a denominator nonzero), the z3 column proved it again.  Both rest on
    z3: one engine, and the reason names it.  Failed on the previous evidence.py (engine names
    only: two engines)."""
    ev = E.evidence(row(z3=Z3_PROVED, kernels=EXP_KERNELS, trace=EXP_SIDE_Z3))
    assert ev["level"] == E.ONE, ev
    assert "shares" in ev["why"] and "z3" in ev["why"]


def test_side_conditions_by_any_procedure_are_shared_by_both_verdicts():
    """The z3 column passes the same gate: the side conditions' prover (here the sign rules) is
    behind both verdicts, so they are not disjoint."""
    ev = E.evidence(row(z3=Z3_PROVED, trace=(E.SIDE_LINE + "sign rules",)))
    assert ev["level"] == E.ONE and "sign rules" in ev["why"]


@pytest.mark.parametrize("trace", [
    (), ("well-formed: 1 side condition(s) proved (1 by sign rules)",),
    (E.SIDE_LINE + "*",), (E.SIDE_LINE + "none", E.ALSO_LINE + "lemma other.claim"),
    (E.SIDE_LINE + "none", E.ALSO_LINE + "lifting, sign rules, arb, z3"),
    (E.SIDE_LINE + "none", E.SIDE_LINE + "z3"),
])
def test_unrecorded_or_shared_procedures_are_never_two_engines(trace):
    """No record of the side conditions (an older results file), an unknown prover, a lemma
    (an other claim's verdict: its procedures are not in this row), the lifting's facts (any
    prover), a second record naming z3: never two engines."""
    assert level(row(z3=Z3_PROVED, kernels=EXP_KERNELS, trace=trace)) == E.ONE


def test_the_z3_columns_own_record_counts_too():
    """A z3 verdict whose trace records an exponential step shares it with sympy-exp."""
    z = dict(Z3_PROVED, trace=[E.ALSO_LINE + "exponential procedure"])
    assert level(row(z3=z)) == E.ONE
    assert level(row(z3=dict(Z3_PROVED, trace=[E.SIDE_LINE + "none"]))) == E.TWO


@pytest.mark.parametrize("exact", [False, None, "yes", 1])
def test_kernel_only_when_the_coq_goal_is_the_full_statement(exact):
    """A Coq theorem weaker than the statement (a hypothesis's obligation filed as a premise,
    the hypotheses of a closed statement dropped: issue 23, class 4) is no kernel evidence;
    neither is an entry that does not say (``exact_statement`` missing or not exactly true)."""
    entry = coq()
    if exact is None:
        del entry["exact_statement"]
    else:
        entry["exact_statement"] = exact
    assert level(row(coq_entry=entry)) != E.KERNEL
    neg = coq(what="negation")
    neg["exact_statement"] = exact
    assert level(row("refuted", "arb", "certified counterexample", coq_entry=neg)) == E.ONE


def test_the_coq_translation_says_whether_the_goal_is_the_full_statement():
    """check.exact_goal on the translator's goals: a hypothesis with a power (its obligation
    0 < x becomes a premise) and a closed statement with a hypothesis (printed without it)
    are not exact; a plain identity is."""
    from types import SimpleNamespace

    import sympy as sp

    from peproof.claims import Eq, Le, Lt, Statement, var
    from peproof.kernel.coq.check import exact_goal
    from peproof.kernel.coq.translate import translate

    x, xv = var("x", "real")
    plain = translate(Statement((Eq(2 * x, x + x),), (xv,)))
    weak = translate(Statement((Lt(0, x),), (xv,), (Le(x ** sp.Rational(3, 2), 0),)))
    closed = translate(Statement((Eq(sp.Integer(0), sp.Integer(1)),), (),
                                 (Lt(sp.Integer(1), sp.Integer(0)),)))
    # the translator prints the statement itself in Sem.v's functions (issue 23): the power's
    # hypothesis carries no premise 0 < x, the closed statement keeps its hypothesis
    assert "(0 < x)" not in weak.text and "0 < x" not in weak.text.split(",", 1)[0]
    assert "->" in closed.text
    assert exact_goal(plain) is True and exact_goal(weak) is True and exact_goal(closed) is True
    # a translator that does not say (no ``exact``): judged by its parts, as before
    legacy_weak = SimpleNamespace(def_hyps=("(0 < x)",), binders=(xv,), hyps=("h",))
    legacy_closed = SimpleNamespace(def_hyps=(), binders=(), hyps=("h",))
    legacy_plain = SimpleNamespace(def_hyps=(), binders=(xv,), hyps=())
    assert exact_goal(legacy_weak) is False and exact_goal(legacy_closed) is False
    assert exact_goal(legacy_plain) is True


# ---------------------------------------------------------------------------- real rows
@pytest.fixture(scope="module")
def real_rows():
    from peproof import registry, results

    return results.run(registry.select("index.*") + registry.select("worked.*"),
                       falsifiers=False)


def test_real_rows_carry_their_evidence_and_the_summary_counts_it(real_rows):
    rows = real_rows["claims"]
    assert all(r["evidence"] == E.evidence(r) for r in rows)
    s = real_rows["summary"]
    assert s["evidence"] == E.counts(rows)
    assert sum(s["evidence_proved"].values()) == s["proved"]
    assert sum(s["evidence_refuted"].values()) == s["refuted"]


def test_real_rows_two_engines_only_on_independent_engines(real_rows):
    levels = {}
    for r in real_rows["claims"]:
        lvl = r["evidence"]["level"]
        levels.setdefault(lvl, []).append(r["id"])
        if lvl == E.TWO:
            assert r["verdict"]["status"] == r["z3"]["status"] == "proved"
            assert E.rests_on(r["verdict"]["engine"]).isdisjoint(E.rests_on(r["z3"]["engine"]))
            assert any(t == E.SIDE_LINE + "none" for t in r["verdict"]["trace"]), r["id"]
        if r["verdict"]["engine"] == "construction":
            assert lvl == E.BUILT
        if r["verdict"]["status"] == "refuted":
            assert lvl == E.ONE and "certified by" in r["evidence"]["witness"]
    # the index family has both: an exhaustive evaluation confirmed by z3 (two engines) and
    # z3 over the integers beside the z3 column (one engine: both are z3)
    assert levels.get(E.TWO) and levels.get(E.ONE) and levels.get(E.BUILT)
    shared = [r for r in real_rows["claims"] if r["evidence"]["level"] == E.ONE
              and r["z3"]["status"] == "proved"]
    assert shared and all("shares z3" in r["evidence"]["why"] for r in shared)


#: the registry's rows whose exponential verdict had a side condition proved by z3 and which the
#: previous evidence.py called two engines (issue 23, class 3: `peproof prove --no-coq`)
Z3_SIDE = ("distance.polarization", "distance.sq_eq_d_minus_two_sum_cos",
           "distance.sq_eq_two_sum_one_minus_cos", "distance.depends_only_on_offset",
           "distance.taylor_coefficients_at_zero", "distance.speed_sq_eq_sum_omega_sq",
           "fourier.affine_map_shifts_phase", "inner_product.eq_sum_cos_offset",
           "inner_product.depends_only_on_offset", "inner_product.even_in_offset",
           "norm.sq_eq_half_d", "norm.same_sphere_for_all_positions",
           "products.position_dot_depends_on_difference")


def test_registry_rows_whose_side_conditions_z3_proved_are_not_two_engines():
    """The 13 rows of issue 23 (class 3), through the results envelope without Coq: each
    verdict records z3 among its side conditions' provers, the z3 column proved it too, and the
    level is one engine naming z3 as shared.  The z3 column runs under a time limit: where it
    did not prove the claim on this (loaded) machine, its proof is put in, the case that
    matters.  Failed on the previous evidence.py (13 x two engines) and on a decide.py that does
    not record the side conditions (not recorded: the reason differs)."""
    from peproof import registry, results

    rows = results.run([registry.get(c) for c in Z3_SIDE], falsifiers=False)["claims"]
    for r in rows:
        side = [t for t in r["verdict"]["trace"] if t.startswith(E.SIDE_LINE)]
        assert side and "z3" in side[-1], (r["id"], side)
        assert r["verdict"]["status"] == "proved", r["id"]
        assert r["evidence"]["level"] != E.TWO, (r["id"], r["evidence"])
        if r["z3"]["status"] != "proved":
            r["z3"] = dict(Z3_PROVED, trace=["1 z3 queries (one per block), all unsat"])
        ev = E.evidence(r)
        assert ev["level"] == E.ONE, (r["id"], ev)
        assert "shares" in ev["why"] and "z3" in ev["why"], ev


# ---------------------------------------------------------------------------- pytest proofs
@pytest.mark.parametrize("cid,wrong", [("index.encoding_layouts_match_maps", "refuted"),
                                       ("worked.sin_five_hundred_seed_value", "proved"),
                                       ("fourier.period_integral_lemma", "refuted")])
def test_a_failing_claim_names_its_evidence_and_coq_status(monkeypatch, cid, wrong):
    """``pytest proofs`` (peproof.testing.check_claim): the message of a claim whose verdict
    differs from the registry's reading names its evidence level, its Coq status (the claim
    checked in Coq for the message) and, for a refutation, the certified witness."""
    from peproof import registry
    from peproof.testing import check_claim

    claim = registry.get(cid)
    monkeypatch.setattr(claim, "expect", wrong)
    with pytest.raises(AssertionError) as exc:
        check_claim(claim)
    msg = str(exc.value)
    level = re.search(r"\n  evidence: ([a-z ]+?)(?: \(|\n)", msg)
    assert level and level.group(1) in E.LEVELS, msg
    coq = re.search(r"\n  Coq: (.*)", msg)
    assert coq and re.match(r"checked in Coq$|not checked in Coq: .|coq not installed$",
                            coq.group(1)), msg
    if coq.group(1) != "checked in Coq":
        assert level.group(1) != E.KERNEL
    assert ("certified witness: " in msg) == (wrong == "proved")
