"""RoundBinary in the kernel (lib/Round.v's ``oround``, peproof/kernel/coq/sem_round.py).

* The meaning: ``oround``'s body is RoundBinary's own ``peproof_definition()`` printed with
  Sem.v's functions (the texts compared), at p = 8, 11, 24 the node's class defines itself as
  that expression; a function of the same name with another definition, or a precision that
  is not a positive integer literal, is refused.  Coq proves, from the body itself (none of
  Round.v's lemmas about ``oround``), the value SymPy's definition and ``round_exact`` give at
  boundary points (ties both ways, powers of two, below one, zero, negatives, an undefined
  argument); three sabotaged bodies (ties to odd, truncation, an undefined argument rounded
  to 0) each fail points.
* The proofs (``pe_round``): the three precision horizons and the same shapes checked; their
  false twins (one more position, the wrong neighbour) not; without ``pe_round`` (the case
  split in its place) the true ones fail.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Ne, Statement
from peproof.kernel.coq import run, sem_piecewise, sem_round, translate
from peproof.kernel.coq.semantic import SemPrinter
from peproof.rounding import V_N, RoundBinary, n, round_exact

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")
ROUND_V = run.HERE / "lib" / "Round.v"
R = sp.Rational


def _body(text: str) -> str:
    m = re.search(r"\(\* BEGIN peproof_definition \*\)(.*?)\(\* END peproof_definition \*\)",
                  text, re.S)
    assert m, "Round.v has no marked definition"
    return " ".join(m.group(1).split())


def test_the_body_of_oround_is_the_printed_definition(monkeypatch):
    x, p = sem_round.X, sem_round.P
    pr = translate.Printer({x: "x", p: "p"}, {p}, {"x", "p"})
    # the definition's Eq conditions have partial sides (log x): printed here, where they are
    # evaluated only for x > 0 (Round.v's oround_pos), see sem_round's docstring
    monkeypatch.setattr(sem_piecewise, "total", lambda e: True)
    printed = SemPrinter(pr, translate.coq_name, lambda e: False, cases=sem_piecewise).term(
        sem_round.definition(x, p))
    assert " ".join(printed.split()) == _body(ROUND_V.read_text())


@pytest.mark.parametrize("prec", [1, 8, 11, 24, 53])
def test_roundbinary_defines_itself_as_oround(prec):
    x = sem_round.X
    assert RoundBinary(x, prec).peproof_definition() == \
        sem_round.definition(x, sem_round.P).subs(sem_round.P, prec)
    assert sem_round.is_round(RoundBinary(x, prec))


def test_another_meaning_or_precision_is_refused():
    class RoundBinary(sp.Function):  # noqa: F811 - the same name, ties away from zero
        nargs = 2

        def peproof_definition(self):
            x, p = self.args
            e = sp.floor(sp.log(x) / sp.log(2)) - p + 1
            return sp.Piecewise((0, x <= 0), (2**e * sp.floor(x / 2**e + R(1, 2)), True))

    other = RoundBinary(n, 11)
    assert not sem_round.is_round(other)
    with pytest.raises(translate.Untranslatable, match="RoundBinary"):
        translate.translate(Statement(Eq(other, n), (V_N,)))
    from peproof.rounding import RoundBinary as RB
    for bad in (RB(n, sp.Symbol("q", integer=True)), RB(n, R(3, 2))):
        assert not sem_round.is_round(bad)
    assert "oround (oZ n) 11" in translate.translate(Statement(Eq(RB(n, 11), n), (V_N,))).text


# ---------------------------------------------------------------------- values, in Coq
#: (x, p): ties to even both ways, exact values, powers of two, below one, 0, negatives; an
#: undefined argument (1/0: SymPy's zoo) is None
POINTS = [(None, 11), (0, 11), (-3, 11), (R(-1, 2), 2), (1, 1), (3, 1), (5, 2), (6, 2),
          (7, 2), (8, 2), (9, 3), (11, 3), (R(3, 8), 1), (R(5, 16), 2), (R(1, 3), 3), (R(1, 4), 3),
          (2047, 11), (2049, 11), (2050, 11), (2051, 11), (4097, 11), (257, 8),
          (16777217, 24), (10**9, 24)]


def value(x, prec) -> sp.Rational | None:
    """SymPy's value of the definition at ``x`` (and, for ``x >= 0``, ``round_exact``'s);
    None where SymPy raises (an undefined ``x``: its first condition ``zoo <= 0``)."""
    at = sem_round.definition(sem_round.X, sem_round.P).subs(sem_round.P, prec)
    if x is None:
        with pytest.raises(TypeError, match="Invalid comparison"):
            at.subs(sem_round.X, sp.zoo)
        return None
    v = at.subs(sem_round.X, x)
    assert v.is_Rational, (x, prec, v)
    if x >= 0:
        assert round_exact(Fraction(int(x.p), int(x.q)), prec) == v, (x, prec)
    return v


def _lit(q) -> str:
    q = sp.Rational(q)
    s = f"{abs(q.p)}" if q.q == 1 else f"({abs(q.p)} / {q.q})"
    return f"({s})" if q >= 0 else f"(- {s})"


def _z(k: int) -> str:
    return f"{k}%Z" if k >= 0 else f"({k})%Z"


def lemma(i: int, x, prec: int) -> str:
    if x is None:  # the argument 1/0
        assert value(x, prec) is None
        goal = f"oround (odiv (Some 1) (Some 0)) {prec} = None"
        tac = "unfold odiv; destruct (Req_EM_T 0 0) as [_|H]; [reflexivity | congruence]"
        return (f"Lemma rv_{i} : {goal}.\nProof. first [ solve [{tac}] "
                f"| idtac \"RVFAIL {i}\"; exact (rv_not_proved _) ]. Qed.\n")
    x = sp.Rational(x)
    v = value(x, prec)
    goal = f"oround (Some {_lit(x)}) {prec} = Some {_lit(v)}"
    if x <= 0:
        tac = "unfold oround; rv_dec"
    else:
        k = int(sp.floor(sp.log(x, 2)))
        while R(2) ** k > x:
            k -= 1
        while R(2) ** (k + 1) <= x:
            k += 1
        e = k - prec + 1
        u = R(2) ** e
        q = x / u
        f, h = sp.floor(q), sp.floor(q + R(1, 2))
        X, U = _lit(x), _lit(u)
        tac = (f"assert (HK : Int_part (ln {X} / ln 2) = {_z(k)}) by (apply ilog2z; simpl; lra); "
               f"assert (HE : rpow 2 (- IZR {prec}%Z + IZR {_z(k)} + 1) = {U}) by "
               f"(replace (- IZR {prec}%Z + IZR {_z(k)} + 1) with (IZR {_z(e)}) by lra; "
               "rewrite rpow_IZR by lra; simpl; lra); "
               f"assert (HF : Int_part ({X} / {U}) = {_z(f)}) by (apply Int_part_spec; lra); "
               f"assert (HG : Int_part (IZR {_z(f)} / 2) = {_z(f // 2)}) "
               "by (apply Int_part_spec; lra); "
               f"assert (HH : Int_part ({X} / {U} + 1 / 2) = {_z(h)}) "
               "by (apply Int_part_spec; lra); unfold oround; rv_dec_h")
    return (f"Lemma rv_{i} : {goal}.\nProof. first [ solve [{tac}] "
            f"| idtac \"RVFAIL {i}\"; exact (rv_not_proved _) ]. Qed.\n")


PRELUDE = """From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs Sem Round.
Open Scope R_scope.
Axiom rv_not_proved : forall P : Prop, P.
Lemma ilog2z : forall x k, powerRZ 2 k <= x < powerRZ 2 (k + 1) -> Int_part (ln x / ln 2) = k.
Proof. intros x k H; apply ilog2; rewrite <- plus_IZR, !rpow_IZR by lra; exact H. Qed.
Ltac rv_hints :=
  repeat match goal with
  | H : Int_part ?a = _ |- context [Int_part ?a] => rewrite H
  | H : rpow 2 ?e = _ |- context [rpow 2 ?e] => rewrite H
  end.
Ltac rv_dec_h :=
  pose proof ln2_pos;
  repeat (pe_cbn; try solve [exfalso; lra | reflexivity | f_equal; lra
                            | exfalso; eapply rpow_neq_0; eassumption];
          match goal with
          | |- context [Req_EM_T ?a ?b] => destruct (Req_EM_T a b)
          | |- context [Rlt_dec ?a ?b] => destruct (Rlt_dec a b)
          | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
          end; rv_hints).
Ltac rv_dec := pose proof ln2_pos;
  repeat (pe_cbn; try solve [exfalso; lra | reflexivity | f_equal; lra];
          match goal with
          | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
          end).
"""


@pytest.fixture(scope="module")
def sem_vo(tmp_path_factory):
    """Defs.v and Sem.v compiled once for the module's Coq runs."""
    d = tmp_path_factory.mktemp("sem")
    for m in ("Defs", "Sem"):
        shutil.copyfile(run.HERE / "lib" / f"{m}.v", d / f"{m}.v")
        subprocess.run([run.coqc(), "-q", "-Q", str(d), "PEProof", f"{m}.v"], cwd=d,
                       check=True, capture_output=True, timeout=600)
    return d


def _compile(sem_vo, tmp, round_text: str, points) -> str:
    for f in sem_vo.iterdir():
        shutil.copyfile(f, tmp / f.name)
    (tmp / "Round.v").write_text(round_text)
    subprocess.run([run.coqc(), "-q", "-Q", str(tmp), "PEProof", "Round.v"], cwd=tmp,
                   check=True, capture_output=True, timeout=600)
    (tmp / "T.v").write_text(PRELUDE + "".join(lemma(i, x, p) for i, (x, p) in
                                               enumerate(points)))
    r = subprocess.run([run.coqc(), "-q", "-Q", str(tmp), "PEProof", "T.v"], cwd=tmp,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-2000:]
    return r.stdout


def _failures(out: str) -> set[int]:
    return {int(i) for i in re.findall(r"RVFAIL (\d+)", out)}


def test_the_points_have_ties_both_ways():
    vals = {(x, p): value(None if x is None else sp.Rational(x), p) for x, p in POINTS}
    assert vals[5, 2] == 4 and vals[7, 2] == 8 and vals[2049, 11] == 2048
    assert vals[2051, 11] == 2052 and vals[-3, 11] == 0 and vals[R(3, 8), 1] == R(1, 2)
    assert vals[None, 11] is None


@needs_coq
@pytest.mark.timeout(600)
def test_coq_proves_what_sympy_computes(sem_vo, tmp_path):
    bad = _failures(_compile(sem_vo, tmp_path, ROUND_V.read_text(), POINTS))
    assert not bad, [POINTS[i] for i in sorted(bad)]


TIE = "(Some 2)) (Some 0))"  # the tie goes to an even floor(q)
LAST = "(Some (1 / 2)))) nil))"  # the last branch: floor(q + 1/2)
TIES = [(None, 11), (3, 1), (5, 2), (7, 2), (9, 3), (11, 3), (2049, 11), (2051, 11)]
SABOTAGES = {"ties to odd": (TIE, "(Some 2)) (Some 1))"),
             "truncation": (LAST, "(Some 0))) nil))"),
             # an undefined argument rounded to 0 (SymPy raises: undefined)
             "undefined is 0": ("  | None => None\n  | Some x =>",
                                "  | None => Some 0\n  | Some x =>")}


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(SABOTAGES))
def test_a_sabotaged_definition_fails_points(sem_vo, tmp_path, name):
    old, new = SABOTAGES[name]
    text = ROUND_V.read_text()
    assert text.count(old) == 1
    # Round.v's lemmas about oround are admitted in the copy: the points use the body alone
    text = re.sub(r"(Lemma oround_\w+[^.]*\.)\s*Proof\..*?Qed\.", r"\1 Admitted.",
                  text.replace(old, new), flags=re.S)
    assert _failures(_compile(sem_vo, tmp_path, text, TIES)), f"{name!r} went unnoticed"


# ---------------------------------------------------------------------- proofs
def _rn(x, p):
    return RoundBinary(x, sp.Integer(p), evaluate=False)


def _horizon(top, p, last, nxt):
    return Statement((Ne(_rn(n, p), _rn(n + 1, p)), Eq(_rn(last, p), _rn(nxt, p))), (V_N,),
                     hyps=(Le(n, top),))


CASES = {
    "round.exact_256": (Statement(Eq(_rn(n, 8), n), (V_N,), hyps=(Le(n, 256),)), True),
    "round.exact_257": (Statement(Eq(_rn(n, 8), n), (V_N,), hyps=(Le(n, 257),)), False),
    "round.tie_p2": (Statement(Eq(_rn(5, 2), 4)), True),
    "round.tie_p2_up": (Statement(Eq(_rn(5, 2), 8)), False),
    # the horizon with one position more, and with the wrong neighbour
    "round.horizon_one_more": (_horizon(2048, 11, 2048, 2049), False),
    "round.horizon_2050": (_horizon(2047, 11, 2048, 2050), False),
}
REGISTRY = ("precision.position_horizon_float16", "precision.position_horizon_bfloat16",
            "precision.position_horizon_float32")


@pytest.fixture(scope="module")
def checked(tmp_path_factory, coq_shapes):
    if not HAVE_COQ:
        pytest.skip("coqc not installed")
    # a false case with a forged 'proved' must still fail in Coq
    verdicts = {k: {"status": "proved"} for k in list(CASES) + list(REGISTRY)}
    return coq_shapes(tmp_path_factory, CASES, REGISTRY, verdicts=verdicts), verdicts


@needs_coq
@pytest.mark.parametrize("key", sorted(CASES))
def test_pe_round_checks_the_true_shapes_only(checked, key):
    out, _ = checked
    assert out[key].checked is CASES[key][1], (key, out[key].status)


@needs_coq
@pytest.mark.parametrize("cid", REGISTRY)
def test_the_precision_horizons_are_checked(checked, cid):
    out, _ = checked
    assert out[cid].checked and out[cid].exact and out[cid].klass == "round", out[cid].status


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
def test_without_pe_round_the_true_cases_fail(checked, coq_shapes, tmp_path_factory,
                                              monkeypatch):
    _, verdicts = checked
    from peproof.kernel.coq import case_scripts
    monkeypatch.setattr(sem_round, "SCRIPT", case_scripts.CASES)  # the case split instead
    true = {k: v for k, v in CASES.items() if v[1]}
    out = coq_shapes(tmp_path_factory, true, REGISTRY, verdicts=verdicts)
    assert not any(out[k].checked for k in list(true) + list(REGISTRY)), \
        {k: out[k].status for k in out}
