"""Coq as a kernel (peproof/kernel/coq/run.py, check.py): a verdict is read from Print
Assumptions against the allow-list, never from coqc's exit code.

Each sabotage below compiles with exit code 0 (or is stopped before coqc) and must not be
"checked in Coq": Admitted, an Axiom, a Parameter, an Abort and a second lemma of the same
name, a wrong statement, a tactic that fails, a script that stops coqc.  Plus: the
definedness obligations keep a false statement unprovable, conflicts with the engines are
reported, results are cached by content, and without coqc nothing is a verdict.

The tests that need coqc skip when it is absent (``make test`` installs it when root); they
share one cache folder per session (the library compiles once, about 10 s).
"""

from __future__ import annotations

import time

import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Claim, Eq, Le, Lt, Source, Statement, var
from peproof.encoding import omega_expr
from peproof.kernel.coq import check, run
from peproof.kernel.coq.translate import translate

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

GOOD = "forall x : R, x + 0 = x"


@pytest.fixture(scope="session")
def cache(coq_worker_cache):
    """The worker's Coq cache (conftest): its library is compiled once for every module that
    takes it; each job here is keyed by its own content, so no other module's result is read."""
    return coq_worker_cache


def _job(key, goal=GOOD, script="intros; ring", needs=frozenset(), negation=False):
    return run.Job(key, key, goal, script, needs, negation)


# -- without Coq ---------------------------------------------------------------------------

def test_a_scripts_time_grows_with_its_goal_up_to_a_cap():
    """One second per 2000 characters of goal, never more than JOB_TIMEOUT_MAX: the 745 KB
    goal of attention.self_attention_is_permutation_equivariant once got 382 s."""
    small, big = _job("s", goal="x" * 20_000), _job("b", goal="x" * 745_000)
    assert run.time_limit(small) == run.JOB_TIMEOUT + 10
    assert run.time_limit(big) == run.JOB_TIMEOUT_MAX < run.JOB_TIMEOUT + 745_000 // 2000

def test_absent_coqc_is_never_a_verdict(monkeypatch, tmp_path):
    monkeypatch.setenv("PEPROOF_COQC", str(tmp_path / "no-such-coqc"))
    out = run.check_jobs([_job("a"), _job("b", script="fail")], cache_dir=tmp_path)
    assert {o.status for o in out.values()} == {"absent"}
    assert all(o.reason == "coq not installed" for o in out.values())
    res = check.check_claims([registry.get("rotation.sin_angle_addition")], cache_dir=tmp_path)
    assert res["rotation.sin_angle_addition"].status == check.ABSENT


@pytest.mark.parametrize("script", [
    "intros; ring. Admitted", "admit", "intros; ring. Qed. Axiom cheat : False",
    "(* ] *) idtac", "give_up", "idtac. Abort", "exact I. Qed. Lemma x : True",
    "intros; ring.\nDefinition z := 0",
])
def test_scripts_with_vernacular_are_refused_before_coqc(script):
    assert run.refuse(_job("a", script=script)) is not None


def test_parse_assumptions():
    assert run.parse_assumptions("Closed under the global context") == ((), [])
    names, problems = run.parse_assumptions(
        "Axioms:\nClassicalDedekindReals.sig_forall_dec\n  : forall P : nat -> Prop, P 0\n"
        "M_a.a : forall x : R, x = x\nPrimFloat.float : Set")
    assert names == ("ClassicalDedekindReals.sig_forall_dec", "M_a.a", "PrimFloat.float")
    assert not problems
    _, problems = run.parse_assumptions(
        "Axioms:\nFoo.bar : False\nConstants/Inductives relying on type-in-type:\nfoo")
    assert problems
    _, problems = run.parse_assumptions("")
    assert problems  # no output at all is not "no axioms"
    j = _job("a")
    assert run.judge(j, "Axioms:\nM_a.a : True", "8.16.1").status == "failed"
    assert run.judge(j, "Closed under the global context", "8.16.1").status == "checked"


def test_unreadable_or_missing_assumptions_are_never_checked():
    """No Print Assumptions output at all, or one that cannot be read, is not 'no axioms'.
    Kills the mutant run-problems-ignored-without-axioms (judge ignoring the problems when no
    axiom name was read)."""
    j = _job("a")
    for text in ("", "Toplevel input, characters 0-5", "Constants relying on type-in-type:\nfoo"):
        o = run.judge(j, text, "8.16.1")
        assert o.status == "failed" and "Print Assumptions" in o.reason, (text, o)


def test_a_type_in_type_section_is_a_problem_by_itself():
    """Allowed axioms and a type-in-type section whose entries are indented: the section header
    alone fails the lemma.  Kills the mutant run-type-in-type-ignored (which only failed on an
    unindented entry, read as unexpected output)."""
    text = ("Axioms:\nClassicalDedekindReals.sig_forall_dec : Prop\n"
            "Constants/Inductives relying on type-in-type:\n  foo : Type")
    names, problems = run.parse_assumptions(text)
    assert names == ("ClassicalDedekindReals.sig_forall_dec",)
    assert problems == ["Constants/Inductives relying on type-in-type:"]
    assert run.judge(_job("a"), text, "8.16.1").status == "failed"


@pytest.mark.parametrize("goal", ["True. Axiom cheat : False", "True.\nAxiom cheat : False",
                                  "True (* x *)"])
def test_goals_with_a_sentence_end_or_a_comment_are_refused(goal):
    """A goal is printed into the batch as is: a sentence end in it could add vernacular.
    Kills the mutant run-goal-not-scanned."""
    assert run.refuse(_job("a", goal=goal)) is not None
    assert run.refuse(_job("a", goal="forall x : R, x = x")) is None


# -- with Coq ------------------------------------------------------------------------------

@needs_coq
def test_good_and_failing_scripts_in_one_batch(cache):
    jobs = [_job("good"), _job("fails", script="fail"),
            _job("stops", script="no_such_tactic_anywhere"),
            _job("false", goal="forall x : R, x + 1 = x", script="intros; ring"),
            _job("also_good", goal="forall x y : R, x * y = y * x", script="intros; ring")]
    out = run.check_jobs(jobs, cache_dir=cache, use_cache=False)
    assert out["good"].status == "checked" and out["also_good"].status == "checked"
    assert set(out["good"].assumptions) <= run.ALLOWED
    assert out["fails"].status == "failed" and "did not close" in out["fails"].reason
    assert out["false"].status == "failed"
    assert out["stops"].status == "failed" and "no_such_tactic" in out["stops"].reason


SABOTAGE = {
    "admitted": "Theorem {n} :\n{g}.\nProof.\nAdmitted.\n",
    "axiom": ("Axiom cheat : forall P : Prop, P.\nTheorem {n} :\n{g}.\n"
              "Proof. exact (cheat _). Qed.\n"),
    "parameter": "Parameter cheat : False.\nTheorem {n} :\n{g}.\nProof. destruct cheat. Qed.\n",
    "abort": "Theorem {n} :\n{g}.\nProof. Abort.\nTheorem {n} : True.\nProof. exact I. Qed.\n",
    "wrong_statement": "Theorem {n} : forall x : R, x = x.\nProof. reflexivity. Qed.\n",
    "fallback_marker": "Theorem {n} :\n{g}.\nProof. exact (peproof_not_proved _). Qed.\n",
}


@needs_coq
def test_sabotaged_lemmas_are_not_checked(cache, monkeypatch):
    """Each lemma text sabotaged (past the script scan), all in one batch: everything compiles,
    but the audit refuses each: an axiom outside the allow-list, or a lemma that does not prove
    the printed goal; the honest lemma beside them is still checked."""
    goal = "forall x : R, x / x = 1"  # false in Coq (x = 0): only a sabotage can 'prove' it
    original = run.lemma_text

    def sabotaged(job, n=None):
        if job.key in SABOTAGE:
            return SABOTAGE[job.key].format(n=job.lemma, g=goal)
        return original(job, n)

    monkeypatch.setattr(run, "lemma_text", sabotaged)
    jobs = [_job(k, goal=goal) for k in sorted(SABOTAGE)] + [_job("bystander")]
    out = run.check_jobs(jobs, cache_dir=cache, use_cache=False, workers=1)
    assert out["bystander"].status == "checked", out["bystander"]
    for kind in SABOTAGE:
        assert out[kind].status == "failed", (kind, out[kind])
        why = out[kind].reason
        assert "allow-list" in why or "printed statement" in why or "did not close" in why, \
            (kind, why)
    assert "printed statement" in out["wrong_statement"].reason
    assert "printed statement" in out["abort"].reason
    assert "cheat" in out["axiom"].reason and "cheat" in out["parameter"].reason


@needs_coq
def test_an_axiom_behind_honest_lemmas_is_seen_by_the_batchs_union(cache, monkeypatch):
    """The audit reads ``Print Assumptions`` of one constant naming every audited lemma: an
    axiom used by a lemma that is not the batch's first must make that lemma fail, the honest
    ones stay checked.  (With the axiom first, a union of the first lemma alone would already
    fail and send every lemma to the lemma-by-lemma audit: this case would not notice.)"""
    original = run.lemma_text

    def sabotaged(job, n=None):
        if job.key == "z_axiom":
            return SABOTAGE["axiom"].format(n=job.lemma, g=job.goal)
        return original(job, n)

    monkeypatch.setattr(run, "lemma_text", sabotaged)
    honest = [_job(f"u_honest{i}", script="intros; ring" + " " * (10 - i)) for i in range(3)]
    jobs = honest + [_job("z_axiom", goal="forall x : R, x / x = 1", script="ring")]
    batch = run._make_batches(jobs, 1, 150)
    assert len(batch) == 1 and batch[0].jobs[0].key != "z_axiom"  # the case this test is for
    out = run.check_jobs(jobs, cache_dir=cache, use_cache=False, workers=1)
    assert all(out[j.key].status == "checked" for j in honest), out
    assert out["z_axiom"].status == "failed" and "cheat" in out["z_axiom"].reason, \
        out["z_axiom"]

@needs_coq
def test_obligations_keep_coq_totality_from_proving_a_false_statement(cache):
    """x / x <= 1 and 0 <= sqrt x are false in SymPy's sense (undefined at 0, imaginary below
    0) but true in Coq's total reals; with the obligations printed they are not provable."""
    xx, X = var("x", "real")
    div = Statement(Le(sp.Mul(xx, sp.Pow(xx, -1, evaluate=False), evaluate=False), 1), (X,))
    root = Statement(Le(0, sp.sqrt(xx)), (X,))
    scripts = {
        "div": "intros; destruct (Req_dec x 0) as [E|E]; [subst; unfold Rdiv; "
               "rewrite Rinv_0; lra | unfold Rdiv; rewrite Rinv_r by exact E; lra]",
        "root": "intros; apply sqrt_pos",
    }
    jobs = []
    for name, st in (("div", div), ("root", root)):
        g = translate(st)
        assert g.obligations, name
        bare = f"forall (x : R), {g.concls[0]}"  # the same goal, its obligation removed
        jobs += [_job(f"{name}_bare", goal=bare, script=scripts[name]),
                 _job(f"{name}_full", goal=g.real_text, script=f"first [ {scripts[name]} | "
                      f"(intros; split; [ lra | ]; {scripts[name]}) ]")]
    out = run.check_jobs(jobs, cache_dir=cache, use_cache=False)
    assert out["div_bare"].status == "checked" and out["root_bare"].status == "checked"
    assert out["div_full"].status == "failed" and out["root_full"].status == "failed"


@needs_coq
def test_cache_is_reused_and_keyed_by_content(cache):
    jobs = [_job("c1", goal="forall x : R, 2 * x = x + x"), _job("c2", goal="1 + 1 = 2",
                                                                  script="lra")]
    first = run.check_jobs(jobs, cache_dir=cache)
    t0 = time.perf_counter()
    again = run.check_jobs(jobs, cache_dir=cache)
    assert all(o.cached for o in again.values()) and time.perf_counter() - t0 < 10
    assert {k: o.status for k, o in again.items()} == {k: o.status for k, o in first.items()}
    changed = run.check_jobs([_job("c1", goal="forall x : R, 2 * x = x + x",
                                   script="intros; lra")], cache_dir=cache)
    assert not changed["c1"].cached and changed["c1"].status == "checked"


@needs_coq
def test_a_cached_result_is_never_read_back_for_the_negation(cache):
    """The same lemma name, goal and script, once as the statement and once as its negation:
    the cache key must tell them apart (1 + 1 = 2 is checked, its negation is not).
    Kills the mutant run-cache-key-ignores-negation."""
    stmt = _job("neg_cache", goal="1 + 1 = 2", script="lra")
    neg = _job("neg_cache", goal="1 + 1 = 2", script="lra", negation=True)
    assert run.check_jobs([stmt], cache_dir=cache)["neg_cache"].status == "checked"
    out = run.check_jobs([neg], cache_dir=cache)["neg_cache"]
    assert not out.cached and out.status == "failed", out


@needs_coq
def test_a_script_out_of_time_falls_back_and_says_so(cache, monkeypatch):
    """A script that never ends is stopped by the time limit, the marked fallback closes the
    lemma and the report says it ran out of time (the audit alone would say 'did not close').
    Kills the mutant run-fallback-unread."""
    monkeypatch.setattr(run, "JOB_TIMEOUT", 1)
    jobs = [_job("loops", script="do 1000000000 idtac"), _job("fine")]
    out = run.check_jobs(jobs, cache_dir=cache, use_cache=False, workers=1)
    assert out["fine"].status == "checked"
    assert out["loops"].status == "failed" and "ran out of time (1 s wall)" in out["loops"].reason


@needs_coq
def test_a_damaged_cache_entry_is_computed_again(tmp_path):
    """A result file cut short (a run killed while writing, a full disk) is a cache miss, not a
    crash and not a verdict."""
    job = _job("c3", goal="forall x : R, 3 * x = x + x + x")
    first = run.check_jobs([job], cache_dir=tmp_path)
    files = list((tmp_path / "results").glob("*.json"))
    assert len(files) == 1 and first["c3"].status == "checked"
    files[0].write_text(files[0].read_text()[:20])
    again = run.check_jobs([job], cache_dir=tmp_path)
    assert again["c3"].status == "checked" and not again["c3"].cached
    assert not list((tmp_path / "results").glob(".*.tmp"))


def _claim(cid, st):
    return Claim(cid, "test", Source("test", "test", "test"), st, "identity")


@needs_coq
def test_conflicts_with_the_engines_are_reported(cache, tmp_path):
    a, A = var("a", "real")
    b, B = var("b", "real")
    true = _claim("t.addition", Statement(
        Eq(sp.sin(a + b), sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b)), (A, B)))
    res = check.check_claims([true], {"t.addition": {"status": "proved"}}, cache_dir=cache)
    assert res["t.addition"].checked and not res["t.addition"].conflict
    res = check.check_claims([true], {"t.addition": {"status": "unknown",
                                                     "engines": {"z3": "refuted"}}},
                             cache_dir=cache)
    assert res["t.addition"].checked and "z3" in res["t.addition"].conflict
    false = _claim("t.wrong", Statement(Le(sp.sin(a), sp.Rational(1, 2)), (A,)))
    verdict = {"status": "refuted", "witness": {"point": {"a": "3/2"}},
               "engines": {"z3": "proved"}}
    res = check.check_claims([false], {"t.wrong": verdict}, cache_dir=cache,
                             build_dir=tmp_path)
    r = res["t.wrong"]
    assert r.checked and r.what == "negation" and "z3" in r.conflict
    assert (tmp_path / "t__wrong_negation.v").read_text().count("~ (forall") == 1
    # a witness where the statement holds gives no proof of the negation
    bad = {"status": "refuted", "witness": {"point": {"a": "1/10"}}}
    res = check.check_claims([false], {"t.wrong": bad}, cache_dir=cache)
    assert not res["t.wrong"].checked


FAMILIES = ("rotation", "inner_product", "norm", "products")


@needs_coq
@pytest.mark.timeout(900)
def test_registry_families_are_checked_in_coq():
    """Every stated claim of rotation (with M_k), inner_product, norm and products is checked in
    Coq, for every even d (the shared cache: after 'make report' this reads it)."""
    claims = [c for f in FAMILIES for c in registry.family(f) if c.statement is not None]
    from peproof.verdicts import verdict_of

    verdicts = {c.id: {"status": verdict_of(c.id).status, "witness": verdict_of(c.id).witness}
                for c in claims}
    from peproof.guard.keys import user_key

    # the user's key, as peproof prove and report pass it: the cache 'make report' filled is read
    # (a process key of its own would compile the library again over the shared one)
    res = check.check_claims(claims, verdicts, key=user_key()[0])
    missing = {k: r.status for k, r in res.items() if not r.checked}
    assert not missing, missing
    assert len(res) >= 33
    for r in res.values():
        assert set(r.assumptions) <= run.ALLOWED and r.coq_version


@needs_coq
def test_powers_with_variable_exponents_for_every_d(cache):
    """pe_rpow (Check.v): the paper's frequencies 10000^(-2i/d) for every even d -- strictly
    decreasing in i, a constant ratio, between 1/10000 and 1 -- are checked in Coq; the same
    statements made false (increasing, the ratio at 2/d, a lower bound of 1) are not."""
    d, D = var("d", "even_pos_integer")
    i, Ii = var("i", "nonneg_integer")
    w = lambda j: omega_expr(j, d)  # noqa: E731 - the encoding's one definition
    in_range = (Le(i, d / 2 - 1),)
    claims = {
        "p.decrease": (Statement(Lt(w(i + 1), w(i)), (D, Ii), hyps=(Le(i + 1, d / 2 - 1),)), 1),
        "p.ratio": (Statement(Eq(w(i + 1) / w(i), w(1)), (D, Ii)), 1),
        "p.range": (Statement((Lt(sp.Rational(1, 10000), w(i)), Le(w(i), 1)), (D, Ii),
                              hyps=in_range), 1),
        "p.increase": (Statement(Lt(w(i), w(i + 1)), (D, Ii), hyps=(Le(i + 1, d / 2 - 1),)), 0),
        "p.ratio_wrong": (Statement(Eq(w(i + 1) / w(i), 1 / w(1)), (D, Ii)), 0),
        "p.range_wrong": (Statement(Lt(1, w(i)), (D, Ii), hyps=in_range), 0),
    }
    res = check.check_claims([_claim(k, st) for k, (st, _) in claims.items()], {},
                             cache_dir=cache)
    got = {k: int(r.checked) for k, r in res.items()}
    assert got == {k: want for k, (_, want) in claims.items()}, \
        {k: r.status for k, r in res.items()}
    assert all("opowp 10000" in res[k].goal for k in claims)  # Sem.v: opowp_opow


def test_the_cache_key_changes_with_the_judge(monkeypatch):
    """A result cached under one allow-list is not read back under another: the key covers
    run.py's own text (a cached 'checked' must have been judged by this code)."""
    job = _job("k1")
    lib = run.Library(None, "libhash", frozenset(), {})
    before = run.job_key(job, lib, "8.16.1")
    monkeypatch.setattr(run, "RUNNER_SOURCE", "another judge")
    assert run.job_key(job, lib, "8.16.1") != before


@needs_coq
def test_a_negation_is_never_proved_by_an_obligation_stronger_than_sympy(cache):
    """0 <= b**p holds for b >= 0, p > 0 (SymPy: 0**p = 0); Coq's rpow needs the obligation
    0 < b.  A (wrong) refutation at b = 0 must not get a Coq proof of its negation: the
    obligation is a premise of the refutable goal, so failing it proves nothing.  With the
    obligation a conjunct (the previous check.py), Coq proved the negation."""
    b, B = var("b", "real")
    p, P = var("p", "pos_real")
    st = Statement(Le(0, b ** p), (B, P), hyps=(Le(0, b),))
    wrong = {"status": "refuted", "witness": {"point": {"b": "0", "p": "1"}}}
    res = check.check_claims([_claim("t.power", st)], {"t.power": wrong}, cache_dir=cache)
    assert not res["t.power"].checked, res["t.power"].goal
    assert "(0 < b)" in translate(st).obligations
    # a true refutation at a point where the obligations hold is still proved
    false = Statement(Le(b ** p, 1), (B, P), hyps=(Le(0, b),))
    right = {"status": "refuted", "witness": {"point": {"b": "2", "p": "1"}}}
    res = check.check_claims([_claim("t.power2", false)], {"t.power2": right},
                             cache_dir=cache)
    assert res["t.power2"].checked and res["t.power2"].what == "negation", res["t.power2"].status
