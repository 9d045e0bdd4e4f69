"""RoPE's decay bound in Coq (lib/Decay.v, peproof/kernel/coq/decay.py): the node's meaning
against the engines' arb evaluation, each script shape checked and its false twin NOT checked,
and the sabotages that make the true cases fail.  One ``check_claims`` call for the cases.

* meaning: ``|B_d(k) - m| < 10^-6`` with ``m`` the arb value (``decay_bound_arb``) at
  ``d = 4`` (``k = 0, 1, 15/2, 1000``) and ``d = 64`` (``k = 1``): checked; ``m + 10^-4``:
  not checked.
* ``B_d(0) = (d + 2)/4`` (``decay_bound_0``): checked (and the registry's
  rope.decay_bound_at_zero); ``67/4`` for ``d = 64``: not checked.
* a range of offsets by a case split (``B_4`` decreases on 0..3): checked; the comparison
  reversed: not checked.
* a refuted ``forall`` at its certified point (``B_4(4) > B_4(3)``): checked; at a point where
  the curve decreases (``k = 1``): not checked.
* sabotages: without decay.py's scripts the true cases fail; with Decay.v's frequencies
  ``base**(-l/d)`` in place of ``base**(-2l/d)`` (definition and VM evaluator alike) the meaning
  case fails by either tactic; the definition or the evaluator changed alone, Decay.v does not
  compile (``idecay_correct`` ties them).
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Lt, Statement, var
from peproof.kernel.coq import decay as decay_mod
from peproof.kernel.coq import run
from peproof.rope import DecayBound, decay_bound_arb

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

k, KV = var("k", "nonneg_integer")
EPS = sp.Rational(1, 10**6)
POINTS = [(4, sp.Integer(0)), (4, sp.Integer(1)), (4, sp.Rational(15, 2)), (4, sp.Integer(1000)),
          (64, sp.Integer(1))]


def B(d, x):
    return DecayBound(d, x, 10000)


def _mid(d, x) -> sp.Rational:
    import flint

    with flint.ctx.workprec(128):
        return sp.Rational(decay_bound_arb(d, x).mid().str(30, radius=False))


def _cases() -> dict:
    out = {}
    for d, x in POINTS:
        m = _mid(d, x)
        name = f"{d}_{str(x).replace('/', '_')}"
        out[f"meaning_{name}"] = (Statement(Lt(sp.Abs(B(d, x) - m), EPS)), True)
        if d == 4:  # the twins at d = 64 would cost as much again
            out[f"meaning_{name}_shifted"] = (
                Statement(Lt(sp.Abs(B(d, x) - m - sp.Rational(1, 10**4)), EPS)), False)
    out["zero"] = (Statement((Eq(B(4, 0), sp.Rational(3, 2)), Eq(B(64, 0), sp.Rational(33, 2)))),
                   True)
    out["zero_wrong"] = (Statement(Eq(B(64, 0), sp.Rational(67, 4))), False)
    out["range"] = (Statement(Lt(B(4, k + 1), B(4, k)), (KV,), hyps=(Le(k, 2),)), True)
    out["range_reversed"] = (Statement(Lt(B(4, k), B(4, k + 1)), (KV,), hyps=(Le(k, 2),)), False)
    mono = Statement(Le(B(4, k + 1), B(4, k)), (KV,), hyps=(Le(k, 100),))
    out["refuted"] = (mono, True)
    out["refuted_wrong_point"] = (mono, False)
    # a shape the VM's evaluator does not read: pe_decay and pe_decay_refute (interval_intro)
    ex = Statement(Le(sp.exp(B(4, k + 1)), sp.exp(B(4, k))), (KV,), hyps=(Le(k, 100),))
    out["refuted_exp"] = (ex, True)
    out["refuted_exp_wrong_point"] = (ex, False)
    from peproof import registry

    out["registry_at_zero"] = (registry.get("rope.decay_bound_at_zero").statement, True)
    return out


VERDICTS = {"refuted": {"status": "refuted", "witness": {"point": {"k": "3"}}},
            "refuted_wrong_point": {"status": "refuted", "witness": {"point": {"k": "1"}}},
            "refuted_exp": {"status": "refuted", "witness": {"point": {"k": "3"}}},
            "refuted_exp_wrong_point": {"status": "refuted", "witness": {"point": {"k": "1"}}}}
CASES = _cases() if HAVE_COQ else {}


def _check(tmp, cases, cache=None):
    from peproof.claims import Claim, Source
    from peproof.kernel.coq import check

    claims = [Claim(f"decay.{key}", "test", Source("test", "test", "test"), st, "inequality")
              for key, (st, _) in cases.items()]
    got = check.check_claims(claims, {f"decay.{c}": v for c, v in VERDICTS.items() if c in cases},
                             cache_dir=cache or tmp.mktemp("coq"))
    return {key.removeprefix("decay."): r for key, r in got.items()}


@pytest.fixture(scope="module")
def results(tmp_path_factory, coq_worker_cache):
    cache = coq_worker_cache
    return _check(tmp_path_factory, CASES, cache), cache


@needs_coq
@pytest.mark.timeout(900)  # the first test builds the library and the batch (fixture)
@pytest.mark.parametrize("key", list(CASES))
def test_shape(results, key):
    got = results[0][key]
    want = CASES[key][1]
    assert got.checked == want, (key, got.status, got.goal[:300])
    if want:
        assert got.exact and got.klass.startswith("decay"), (key, got.klass)


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(900)  # the first test builds the library and the batch (fixture)
def test_without_the_scripts_the_true_cases_fail(tmp_path_factory, monkeypatch, results):
    monkeypatch.setattr(decay_mod, "uses", lambda st: False)
    cases = {key: CASES[key] for key in ("zero", "meaning_4_1")}
    got = _check(tmp_path_factory, cases, results[1])
    assert not any(r.checked for r in got.values()), {k: r.status for k, r in got.items()}


#: Decay.v's frequencies base**(-l/d) in place of base**(-2l/d): in the definition alone (the
#: evaluator's correctness proof then fails: Decay.v does not compile), or in the definition and
#: the evaluator together (Decay.v compiles, with another meaning)
SABOTAGE_DEF = (("rpow base (- (2 * IZR l) / IZR d)", "rpow base (- IZR l / IZR d)"),)
SABOTAGE_EVAL = (("(PEI.fromZ prec (- (2 * l))) di) lbi)) in",
                  "(PEI.fromZ prec (- l)) di) lbi)) in"),)
SABOTAGE_BOTH = SABOTAGE_DEF + SABOTAGE_EVAL + (
    ("(PEI.fromZ prec (- (2 * l))) di) lbi))) (k *", "(PEI.fromZ prec (- l)) di) lbi))) (k *"),
    ("replace (- (2 * IZR l)) with (IZR (- (2 * l))) by (rewrite opp_IZR, mult_IZR; reflexivity)",
     "replace (- IZR l) with (IZR (- l)) by (rewrite opp_IZR; reflexivity)"),)


def _compile_decay(results, tmp_path, edits, tactic):
    """``(Decay.v compiled, the meaning case proved by tactic)`` with Decay.v edited."""
    lib = next(p for p in results[1].iterdir() if p.name.startswith("lib-"))
    for p in lib.iterdir():
        if p.suffix == ".vo" and p.stem != "Decay":
            shutil.copy(p, tmp_path / p.name)
    src = (run.HERE / "lib" / "Decay.v").read_text()
    for old, new in edits:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    m = _mid(4, 1)
    goal = f"Rabs (decay_bound 4%Z 10000 1 - {m.p} / {m.q}) < 1 / 1000000"
    (tmp_path / "Decay.v").write_text(src)
    (tmp_path / "T.v").write_text(
        "From Coq Require Import ZArith Reals Lia Lra.\nFrom Interval Require Import Tactic."
        "\nFrom PEProof Require Import Defs Sem Decay.\nOpen Scope R_scope.\n"
        f"Goal {goal}.\nProof. {tactic}. Qed.\n")
    out = []
    for f in ("Decay.v", "T.v"):
        r = subprocess.run([run.coqc(), "-q", "-Q", str(tmp_path), "PEProof", f],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
        out.append(r.returncode == 0)
        if not out[-1]:
            return out[0], False
    return tuple(out)


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(900)  # the first test builds the library and the batch (fixture)
@pytest.mark.parametrize("tactic", ["pe_decay", "pe_decay_vm"])
def test_a_sabotaged_definition_fails_the_meaning_cases(results, tmp_path, tactic):
    """The meaning case (B_4(1) within 10^-6 of arb's value) is proved with Decay.v as it is and
    not with the other frequencies, by either tactic."""
    assert _compile_decay(results, tmp_path, (), tactic) == (True, True)
    assert _compile_decay(results, tmp_path, SABOTAGE_BOTH, tactic) == (True, False)


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("edits", [SABOTAGE_DEF, SABOTAGE_EVAL, (
    ("let re' := PEI.add prec re (PEI.cos prec a) in",
     "let re' := PEI.add prec re (PEI.sin prec a) in"),
)], ids=["definition", "evaluator", "cos-as-sin"])
def test_an_evaluator_that_disagrees_with_the_definition_does_not_compile(results, tmp_path,
                                                                         edits):
    """idecay_correct ties the VM's evaluator to decay_bound: changing either alone breaks its
    proof, so no lemma can rest on an evaluator computing something else."""
    assert _compile_decay(results, tmp_path, edits, "pe_decay_vm")[0] is False


@needs_coq
@pytest.mark.timeout(900)  # the first test builds the library and the batch (fixture)
@pytest.mark.slow
def test_the_registry_refutation_d64(tmp_path_factory):
    """rope.decay_bound_monotone_d64's negation at k = 11 (about 6 s of coqc on an idle core;
    on a loaded machine the runner's 10 s wall limit can stop it: "ran out of time", never
    cached, tried again next run)."""
    from peproof import registry

    st = registry.get("rope.decay_bound_monotone_d64").statement
    VERDICTS["mono64"] = {"status": "refuted", "witness": {"point": {"k": "11"}}}
    got = _check(tmp_path_factory, {"mono64": (st, True)})["mono64"]
    assert got.checked and got.what == "negation", got.status


# -- the planner (no coqc) ---------------------------------------------------------------------

def _plan(cid: str):
    from peproof import registry
    from peproof.kernel.coq import check

    c = registry.get(cid)
    verdict = {"status": c.expect, "engine": "certified curve", "method": "arb"}
    if c.expect == "refuted":
        k_at = {"d64": "11", "d128": "18", "d256": "37"}[cid.rsplit("_", 1)[1]]
        verdict["witness"] = {"point": {"k": k_at}}
    return check.plan(c, verdict)


@pytest.mark.parametrize("cid, klass, d", [
    ("rope.decay_bound_at_zero", "decay-zero", 64),
    ("rope.decay_bound_monotone_d64", "decay-negation", 64),
    ("rope.decay_bound_monotone_d256", "decay-negation", 256),
    ("rope.decay_bound_decreasing_until_first_rise_d64", "decay-range", 64),
    ("rope.decay_bound_decreasing_until_first_rise_d256", "decay-range", 256),
])
def test_the_registry_claims_that_fit_are_planned(cid, klass, d):
    job, info = _plan(cid)
    assert job is not None and info.klass == klass, (cid, info.status)
    assert f"odecay {d}%Z 10000" in job.goal and job.script.startswith(decay_mod.UNFOLD)
    assert "interval" in job.needs and "Decay" in run.header(job.needs)
    if klass != "decay-zero":  # every comparison by the VM's evaluator, none by pe_decay
        assert "pe_decay_vm" in job.script, job.script
        assert not re.search(r"\bpe_decay\b(?!_)", job.script), job.script


@pytest.mark.parametrize("cid, why", [
    ("rope.decay_bound_never_regains_early_levels_d64", "every pair of offsets"),
    ("rope.decay_bound_never_regains_early_levels_d256", "every pair of offsets"),
])
def test_the_claims_over_the_budget_say_what_stays_outside_the_kernel(cid, why):
    job, info = _plan(cid)
    assert job is None and why in info.status, info.status
    assert "outside the kernel" in info.status or "arb only" in info.status, info.status


def test_the_time_budget_is_what_refuses_them(monkeypatch):
    """With a budget of 1 s the d = 256 range (76 values, about 2.7 s estimated) is refused, and
    names the computation left outside; the d = 64 refutation still fits."""
    monkeypatch.setattr(decay_mod, "VM_BUDGET", 1.0)
    job, info = _plan("rope.decay_bound_decreasing_until_first_rise_d256")
    assert job is None and "76 values of B_256" in info.status and "arb only" in info.status
    job, info = _plan("rope.decay_bound_monotone_d64")
    assert job is not None and info.klass == "decay-negation", info.status


def test_shapes_outside_the_evaluator_keep_the_step_limit(monkeypatch):
    """A comparison through a function the VM's evaluator does not reify (sqrt) goes to
    pe_decay and its step limit: over MAX_WORK it is refused."""
    from peproof.claims import Claim, Source
    from peproof.kernel.coq import check

    st = Statement(Lt(sp.sqrt(B(64, 2)), sp.sqrt(B(64, 1))))
    c = Claim("decay.sqrt", "t", Source("t", "t", "t"), st, "inequality")
    job, info = check.plan(c, {"status": "proved"})
    assert job is not None and "pe_decay_vm" not in job.script and "pe_decay" in job.script
    monkeypatch.setattr(decay_mod, "MAX_WORK", 10)
    job, info = check.plan(c, {"status": "proved"})
    assert job is None and "2 values of B_64" in info.status, info.status
