"""The Coq library (peproof/kernel/coq/lib): it compiles; every lemma rests only on the reals'
axioms, read from ``Print Assumptions`` (an ``Admitted`` compiles with exit code 0: the
sabotage tests show the audit rejects one, and an added ``Axiom``); ``zsum`` means SymPy's
``Sum`` on a grid of limits, reversed and empty ranges included (a definition without Karr's
convention fails it); and the library's ``pe_auto`` proves the translated goals of the
rotation / inner-product / norm / products families but none of their falsifiers."""

from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Eq, Lt, Statement, Var
from peproof.kernel.coq import library
from peproof.kernel.coq.run import ALLOWED, REALS
from peproof.kernel.coq.translate import Untranslatable, translate

COQC = shutil.which("coqc")
pytestmark = pytest.mark.skipif(
    COQC is None, reason="coqc not installed (the Makefile installs Coq when run as root; CI does)")

FAMILIES = ("rotation", "inner_product", "norm", "products")
HEADER = ("From Coq Require Import ZArith Reals Lia Lra Nsatz.\n"
          "From PEProof Require Import Defs PE Tactics.\nOpen Scope R_scope.\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory, coq_library) -> tuple[Path, list[library.LemmaAudit]]:
    """The library audited whole, its compiled files those of the run's build (the same
    sources by the same coqc: tests/conftest.py's ``coq_library``)."""
    d = tmp_path_factory.mktemp("coqlib")
    return d, library.audit(COQC, d, compiled=coq_library)


def coqc(workdir: Path, name: str, text: str, timeout: float = 900) -> subprocess.CompletedProcess:
    (workdir / name).write_text(text)
    return subprocess.run([COQC, "-q", "-Q", str(workdir), library.LOGICAL, name], cwd=workdir,
                          capture_output=True, text=True, timeout=timeout)


def sabotaged(tmp_path: Path, module: str, edit) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    for m in library.MODULES:
        shutil.copyfile(library.LIB / f"{m}.v", lib / f"{m}.v")
    src = (lib / f"{module}.v").read_text()
    new = edit(src)
    assert new != src, "the sabotage changed nothing"
    (lib / f"{module}.v").write_text(new)
    return lib


# -- the audit ---------------------------------------------------------------------------------

def test_library_rests_only_on_the_reals_axioms(built):
    """The whole rests on the reals' axioms and, through the interval evaluators of Decay.v and
    Floor.v, on the specifications of the primitive floats (the allow-list of every checked
    claim); the encoding's lemmas on the reals' alone (test_audit_of_main_lemmas_one_by_one)."""
    _, audit = built
    assert [a.ok for a in audit] == [True], audit
    assert set(audit[0].axioms) <= ALLOWED
    assert "FloatAxioms.add_spec" in audit[0].axioms  # idecay_correct, floor_scan
    # the reals' axioms are really there: the audit reads a non-empty answer
    assert "ClassicalDedekindReals.sig_forall_dec" in audit[0].axioms


MAIN = ("zsum_succ", "zsum_ext_gen", "zsum_const", "zsum_sum_f_R0", "rpow_pos", "pe_shift",
        "blk_group", "blk_orthogonal", "blk_inverse", "shift_det", "inner_offset",
        "inner_depends_only_on_offset", "inner_even_in_offset", "norm_half_d", "sum_sin_mul_sin",
        "sum_cos_mul_cos", "paper_freq_pos", "paper_freq_decreasing", "hm1_freq_pos",
        "tprop_intro")


def test_audit_of_main_lemmas_one_by_one(tmp_path, built):
    """The whole is clean, so each lemma is; read one by one, a few (about a second each)."""
    some = ("zsum_ext_gen", "pe_shift", "blk_orthogonal", "norm_half_d", "paper_freq_decreasing")
    audit = library.audit(COQC, tmp_path, only=some, compiled=built[0])
    assert sorted(a.lemma for a in audit) == sorted(["all", *some])
    bad = [(a.module, a.lemma, a.axioms, a.problems) for a in audit if not a.ok]
    assert not bad
    assert all(a.axioms for a in audit)  # each rests on the reals' axioms: a real answer
    assert all(a.reals_only for a in audit if a.lemma != "all")  # and on nothing else


@pytest.mark.slow
@pytest.mark.timeout(300)  # half a second per lemma: lib/PiIrr.v added 32
def test_audit_of_every_lemma_one_by_one(tmp_path, built):
    audit = library.audit(COQC, tmp_path, per_lemma=True, compiled=built[0])
    assert len(audit) >= 80 and set(MAIN) <= {a.lemma for a in audit}
    assert not [(a.module, a.lemma, a.axioms, a.problems) for a in audit if not a.ok]


def test_sabotage_admitted_lemma_is_rejected(tmp_path, built):
    def admit(src: str) -> str:
        i = src.index("Lemma zsum_const :")
        j = src.index("Qed.", i)
        return src[:j] + "Admitted." + src[j + 4:]

    lib = sabotaged(tmp_path, "Defs", admit)
    # every module imports Defs: none of the clean build's compiled files may be used
    whole, *audit = library.audit(COQC, tmp_path / "work", lib=lib,
                                  only=("zsum_const", "norm_half_d", "zsum_succ"),
                                  compiled=built[0])
    assert not whole.ok and "zsum_const" in whole.axioms
    bad = {a.lemma: a.axioms for a in audit if not a.ok}
    # zsum_const itself, norm_half_d that rests on it; an unrelated lemma is still clean
    assert set(bad) == {"zsum_const", "norm_half_d"}, bad
    assert "zsum_const" in bad["zsum_const"] and "zsum_const" in bad["norm_half_d"]


def test_sabotage_added_axiom_is_rejected(tmp_path, built):
    def add_axiom(src: str) -> str:
        return src + ("\nAxiom pe_cheat : forall x : R, sin x = 0.\n"
                      "Lemma pe_cheat_used : sin 1 = 0.\nProof. apply pe_cheat. Qed.\n")

    lib = sabotaged(tmp_path, "PE", add_axiom)
    log = tmp_path / "compiled"
    wrapper = tmp_path / "coqc"
    wrapper.write_text(f'#!/bin/sh\nfor a in "$@"; do last="$a"; done\necho "$last" >> {log}\n'
                       f'exec {COQC} "$@"\n')
    wrapper.chmod(0o755)
    whole, *audit = library.audit(str(wrapper), tmp_path / "work", lib=lib,
                                  only=("pe_cheat_used", "inner_offset"), compiled=built[0])
    # the clean build's files of the modules that do not import PE are copied, not compiled
    assert log.read_text().split() == ["PE.v", "Tactics.v", "Audit.v"]
    assert not whole.ok and "pe_cheat" in whole.axioms
    bad = {a.lemma: a.axioms for a in audit if not a.ok}
    assert set(bad) == {"pe_cheat_used"}, bad
    assert "pe_cheat" in bad["pe_cheat_used"]


def test_an_unclean_whole_is_read_again_lemma_by_lemma(tmp_path):
    """A tiny library (three modules of one or two lemmas, one resting on an axiom), audited
    without ``only``: the whole is not clean, so every lemma is read on its own and the
    culprit is named.  Kills the mutant library-unclean-whole-kept (which returned the unclean
    whole alone: no culprit)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Defs.v").write_text("Lemma tiny_a : True.\nProof. exact I. Qed.\n"
                                "Axiom tiny_cheat : False.\n"
                                "Lemma tiny_b : 1 = 2.\nProof. destruct tiny_cheat. Qed.\n")
    (lib / "Sem.v").write_text("Lemma tiny_s : True.\nProof. exact I. Qed.\n")
    (lib / "PE.v").write_text("Lemma tiny_c : True.\nProof. exact I. Qed.\n")
    (lib / "Tactics.v").write_text("Lemma tiny_d : True.\nProof. exact I. Qed.\n")
    (lib / "Round.v").write_text("Lemma tiny_r : True.\nProof. exact I. Qed.\n")
    (lib / "Integral.v").write_text("Lemma tiny_i : True.\nProof. exact I. Qed.\n")
    (lib / "Decay.v").write_text("Lemma tiny_e : True.\nProof. exact I. Qed.\n")
    (lib / "Floor.v").write_text("Lemma tiny_f : True.\nProof. exact I. Qed.\n")
    (lib / "PiIrr.v").write_text("Lemma tiny_p : True.\nProof. exact I. Qed.\n")
    audit = library.audit(COQC, tmp_path / "work", lib=lib)
    assert sorted(a.lemma for a in audit) == ["tiny_a", "tiny_b", "tiny_c", "tiny_d",
                                                       "tiny_e", "tiny_f", "tiny_i", "tiny_p",
                                                       "tiny_r", "tiny_s"], audit
    assert [a.lemma for a in audit if not a.ok] == ["tiny_b"]
    assert next(a for a in audit if a.lemma == "tiny_b").axioms == ("tiny_cheat",)


def test_a_module_that_does_not_compile_is_an_error(tmp_path, built):
    lib = sabotaged(tmp_path, "PE", lambda s: s.replace("apply pair_inner.", "apply pair_norm.", 1))
    with pytest.raises(library.AuditError, match="PE.v does not compile"):
        library.audit(COQC, tmp_path / "work", lib=lib, compiled=built[0])


# -- zsum is SymPy's Sum -----------------------------------------------------------------------

GRID = [(a, b) for a in range(-3, 4) for b in range(-4, 5)]
I = sp.Symbol("i", integer=True)
SUMMAND = I**2 + I / 3 + 1
COQ_SUMMAND = "fun i : Z => IZR i * IZR i + IZR i / 3 + 1"


def coq_rational(q) -> str:
    q = Fraction(int(q.p), int(q.q))
    num = f"({q.numerator})" if q.numerator >= 0 else f"(- {-q.numerator})"
    return f"({num} / {q.denominator})"


def grid_text(values: dict) -> str:
    out = [HEADER.replace(" PE Tactics", "")]
    for n, ((a, b), v) in enumerate(values.items()):
        out.append(f"Lemma grid_{n} : zsum ({a}) ({b}) ({COQ_SUMMAND}) = {coq_rational(v)}.\n"
                   "Proof. zsum_eval; field. Qed.")
    return "\n".join(out) + "\n"


def sympy_values() -> dict:
    vals = {(a, b): sp.Sum(SUMMAND, (I, a, b)).doit() for a, b in GRID}
    assert all(v.is_Rational for v in vals.values())
    # the grid has the three regimes of Karr's convention
    assert vals[(2, 1)] == 0 and vals[(3, 0)] == -(SUMMAND.subs(I, 1) + SUMMAND.subs(I, 2))
    return vals


def test_zsum_agrees_with_sympy_on_a_grid(built):
    d, _ = built
    r = coqc(d, "Grid.v", grid_text(sympy_values()))
    assert r.returncode == 0, r.stdout + r.stderr


def test_zsum_grid_rejects_a_wrong_value(built):
    d, _ = built
    vals = sympy_values()
    vals[(3, 0)] += 1  # a reversed range off by one
    r = coqc(d, "GridWrong.v", grid_text(vals))
    assert r.returncode != 0


def semantics_only(defs: str) -> str:
    """Defs.v's definitions of zsum and its evaluation tactic, without the lemmas (and without
    rpow, defined further down, in the tactic's list of constants left folded)."""
    head = defs[:defs.index("(** A potential of [f]")]
    tactic = defs[defs.index("Ltac zsum_eval"):].replace(" rpow ", " ")
    return head + tactic


@pytest.mark.parametrize("mutant,expect_ok", [
    (lambda s: s, True),  # the control: the definitions as shipped
    (lambda s: s.replace("else - zsum_n (b + 1)", "else 0 * zsum_n (b + 1)"), False),  # no Karr
    (lambda s: s.replace("(Z.to_nat (b + 1 - a))", "(Z.to_nat (b - a))"), False),  # one short
])
def test_zsum_grid_detects_other_semantics(tmp_path, mutant, expect_ok):
    defs = semantics_only((library.LIB / "Defs.v").read_text())
    mutated = mutant(defs)
    assert (mutated != defs) == (not expect_ok)
    assert coqc(tmp_path, "Defs.v", mutated).returncode == 0
    r = coqc(tmp_path, "Grid.v", grid_text(sympy_values()))
    assert (r.returncode == 0) == expect_ok, r.stdout[-500:] + r.stderr[-500:]


# -- the registry's goals ----------------------------------------------------------------------

def family_claims(slow: bool):
    out = []
    for c in registry.all_claims():
        if c.family not in FAMILIES or c.statement is None or c.statement.quant != "forall":
            continue
        if not slow and ("concrete" in c.id or not _has_sum_or_symbolic_d(c.statement)):
            continue
        out.append(c)
    return out


def _has_sum_or_symbolic_d(st: Statement) -> bool:
    return any(v.domain == "even_pos_integer" for v in st.vars)


def lemma_name(text: str) -> str:
    return "g_" + re.sub(r"\W", "_", text)


def proofs_text(items) -> str:
    out = [HEADER]
    for name, goal in items:
        out.append(f"Theorem {name} :\n{goal}.\nProof. intros; pe_auto. Qed.")
    names = ", ".join(n for n, _ in items)
    out.append(f"Definition all_goals := ({names}).\nPrint Assumptions all_goals.")
    return "\n".join(out) + "\n"


def check_registry(built, slow: bool):
    d, _ = built
    items = []
    for c in family_claims(slow):
        goal = translate(c.statement)
        assert library.script_for(c.statement, goal) == library.SCRIPT, c.id
        items.append((lemma_name(c.id), goal.real_text))  # what pe_auto proves
    assert len(items) >= (30 if slow else 10)
    r = coqc(d, "Registry.v", proofs_text(items), timeout=1800)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    axioms = re.findall(r"^(\S+) :", r.stdout.split("Axioms:")[-1], flags=re.M)
    assert axioms and set(axioms) <= REALS, axioms


def test_pe_auto_proves_the_general_d_goals(built):
    check_registry(built, slow=False)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # every family goal in one coqc run: minutes, not the default 60 s
def test_pe_auto_proves_every_goal_of_the_families(built):
    check_registry(built, slow=True)


def falsifier_text(items) -> str:
    out = [HEADER]
    for name, goal in items:
        out.append(f"Goal {goal}.\nProof. Fail (intros; pe_auto). Abort.  (* {name} *)")
    return "\n".join(out) + "\n"


def check_falsifiers(built, limit: int | None):
    d, _ = built
    items = []
    for c in family_claims(slow=limit is None):
        for f in c.falsifiers:
            try:
                goal = translate(f.statement)
            except Untranslatable:
                continue
            items.append((f"{c.id}/{f.name}", goal.real_text))
    items = items[:limit] if limit else items
    assert items
    r = coqc(d, "Falsifiers.v", falsifier_text(items), timeout=3600)
    # "The command has not failed!" is what Coq says when pe_auto proved a falsifier
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def test_pe_auto_proves_no_falsifier_sample(built):
    check_falsifiers(built, limit=4)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # every falsifier of the families in one coqc run
def test_pe_auto_proves_no_falsifier(built):
    check_falsifiers(built, limit=None)


def test_falsifier_check_can_fail(built):
    """The harness itself: a true goal under ``Fail`` makes the file fail."""
    d, _ = built
    goal = "forall x : R, sin x ^ 2 + cos x ^ 2 = 1"
    r = coqc(d, "NotFalse.v", falsifier_text([("true", goal)]))
    assert r.returncode != 0 and "has not failed" in r.stdout + r.stderr


# -- script_for --------------------------------------------------------------------------------

def test_script_for_fragment():
    x = sp.Symbol("x", real=True)
    eq = Statement(concl=(Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),), vars=(Var(x, "real"),))
    assert library.script_for(eq, translate(eq)) == library.SCRIPT
    ineq = Statement(concl=(Lt(sp.sin(x), 2),), vars=(Var(x, "real"),))
    assert library.script_for(ineq, translate(ineq)) is None
    ex = Statement(concl=(Eq(sp.sin(x), 0),), vars=(Var(x, "real"),), quant="exists")
    assert library.script_for(ex, translate(ex)) is None
