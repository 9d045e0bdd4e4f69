"""``PiIntegral`` and ``Delta`` in Coq (``lib/Integral.v``, ``integral.py``,
``integral_scripts.py``): their meaning against SymPy's and the engines', and their scripts.

Meaning, at boundary points (one coqc run; a failing lemma prints its number):

* ``Delta(p, q)`` for integers, halves, negative and huge values: ``Some`` of SymPy's bracket
  where the well-formedness gate accepts it (integer arguments), ``None`` where it refuses it
  (a non-integer argument is ill formed, never given a value);
* ``PiIntegral(f, x)``: ``None`` where SymPy's ``f`` is undefined somewhere on the CLOSED
  interval ``[-pi, pi]`` (``1/(x - pi)``, ``log(x + pi)``, ``tan(x/2)`` only at an endpoint),
  ``exists v, ... = Some v`` where it is continuous on all of it (``log(x + 5)``,
  ``1/(x - 5)``).  A sabotaged ``Integral.v`` (the integrand required only on the open
  interval; ``Delta`` defined at non-integers) fails the cases of its node.

Scripts (one ``check_claims`` call): the 13 registry claims (and ``dft.sin_cos_orthogonal``, a
period sum without Delta) are checked, each false twin (a
wrong constant, ``2 pi`` as ``pi``, ``Delta(n, m)`` as ``Delta(n, m + 1)``, a dropped bracket)
is not, and without the rewriting of the integrals and sums by ``oint_tp`` / ``osumZ_dp``
the true claims are not checked.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy as sp

from peproof.claims import Eq, Le, Ne, Statement, var
from peproof.engines.objects import Delta, PiIntegral
from peproof.engines.wellformed import IllFormed, examine
from peproof.kernel.coq import check, integral_scripts, run, tactics
from peproof.kernel.coq.semantic import SemPrinter
from peproof.kernel.coq.translate import Printer

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

R = sp.Rational
pi = sp.pi
x = sp.Symbol("x", real=True)

# -- meaning ---------------------------------------------------------------------------------

POINTS = [sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Integer(-3), R(1, 2),
          R(-1, 2), R(3, 2), sp.Integer(10) ** 12]
#: (integrand, a point of [-pi, pi] where SymPy's integrand is undefined, or None)
INTEGRANDS = [
    (1 / x, sp.Integer(0)), (1 / (x - pi), pi), (1 / (x + pi), -pi), (sp.log(x + pi), -pi),
    (sp.log(x + 3), sp.Integer(-3)), (sp.sqrt(x + 3), -pi), (sp.tan(x / 2), pi),
    (1 / (x - 5), None), (sp.log(x + 5), None), (sp.sqrt(x + 5), None), (sp.cos(x), None),
    (sp.Integer(1), None), (x ** 2, None), (sp.exp(x), None),
]


class _Names:
    """A printer context without variables (Delta's arguments are numbers)."""

    names: dict = {}
    zvars: set = set()
    taken: set = set()

    def zexact(self, e):
        return None

    def _integer_valued(self, e):
        return False


def _delta_value(p, q):
    """The engines' meaning: ill formed (None) unless both arguments are integers."""
    try:
        examine(Statement((Eq(Delta(p, q, evaluate=False), 0),)))
    except IllFormed:
        return None
    return Delta(p, q)


def _sympy_defined(f) -> bool:
    from sympy.calculus.util import continuous_domain
    return continuous_domain(f, x, sp.Interval(-pi, pi)) == sp.Interval(-pi, pi)


def _delta_lemma(n, p, q, v) -> str:
    t = SemPrinter(_Names(), None, lambda e: False).term(Delta(p, q, evaluate=False))
    prop = f"{t} = None" if v is None else f"{t} = Some {int(v)}"
    return (f"Lemma sem_{n} : {prop}.\nProof. first [ solve [unfold odelta; pe_dec; reflexivity] "
            f"| idtac \"SEMFAIL {n}\"; exact (peproof_not_proved _) ]. Qed.\n")


def _int_lemma(n, f, point) -> str:
    pr = Printer({x: "x"}, set(), {"x"})
    sem = SemPrinter(pr, lambda name, taken: name, lambda e: False)
    t = sem.term(PiIntegral(f, x))
    if point is not None:
        tac = (f"apply oint_None; intros [D _]; apply (D {pr.term(point)}); "
               "first [ solve [split; lra] | solve [cbv beta; pe_dec; reflexivity] ]")
        prop = f"{t} = None"
    else:
        g = pr.term(f)
        tac = (f"eexists; apply (int_cont _ (fun x => {g})); intros x Hx; "
               "first [ solve [pe_dec; first [reflexivity | f_equal; field; intro; lra]] "
               "| solve [apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)); "
               "auto_derive; "
               "repeat split; first [exact I | lra | intro; lra]] ]")
        prop = f"exists v, {t} = Some v"
    return (f"Lemma sem_{n} : {prop}.\nProof. pose proof PI_RGT_0; pose proof pi3; "
            f"pose proof PI_4; first [ solve [{tac}] "
            f"| idtac \"SEMFAIL {n}\"; exact (peproof_not_proved _) ]. Qed.\n")


def meaning_cases():
    """(kind, lemma text, what SymPy / the engines say) in lemma order."""
    out = []
    for p in POINTS:
        for q in (sp.Integer(0), sp.Integer(1), R(1, 2), sp.Integer(10) ** 12):
            v = _delta_value(p, q)
            out.append(("delta", lambda n, p=p, q=q, v=v: _delta_lemma(n, p, q, v), v))
    for f, point in INTEGRANDS:
        out.append(("integral", lambda n, f=f, point=point: _int_lemma(n, f, point), point))
    return out


PRELUDE = """From Coq Require Import ZArith Reals Lia Lra.
From Coquelicot Require Import Coquelicot.
From PEProof Require Import Defs Sem Check CheckSem Integral.
Open Scope R_scope.
Lemma pi3 : 3 < PI.
Proof. pose proof PI2_3_2; lra. Qed.
(* from the definition: an integrand defined and continuous on all of [-PI, PI] *)
Lemma int_cont : forall f g, (forall x, - PI <= x <= PI -> f x = Some (g x)) ->
  (forall x, - PI <= x <= PI -> continuous g x) -> oint f = Some (RInt (oval f) (- PI) PI).
Proof.
  intros f g Hf Hc; pose proof PI_RGT_0; apply oint_Some; split.
  - intros y Hy; rewrite Hf by lra; discriminate.
  - apply (ex_RInt_ext g); [intros y Hy | apply (ex_RInt_continuous (V := R_CompleteNormedModule))];
      [|intros y Hy; apply Hc].
    + unfold oval; rewrite Hf; [reflexivity|].
      unfold Rmin, Rmax in Hy; destruct (Rle_dec (- PI) PI); lra.
    + unfold Rmin, Rmax in Hy; destruct (Rle_dec (- PI) PI); lra.
Qed.
"""


def _compile(folder, body: str) -> set[int]:
    (folder / "T.v").write_text(PRELUDE + body)
    r = subprocess.run([run.coqc(), "-q", "-Q", str(folder), "PEProof", "T.v"], cwd=folder,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout + r.stderr)[-2000:]
    return {int(n) for n in re.findall(r"SEMFAIL (\d+)", r.stdout)}


# -- scripts ---------------------------------------------------------------------------------

REGISTRY = ("fourier.period_integral_lemma", "fourier.cos_cos_orthogonal",
            "fourier.sin_sin_orthogonal", "fourier.sin_cos_orthogonal",
            "fourier.constant_orthogonal", "fourier.sq_integrals_eq_pi",
            "fourier.trig_functions_not_unit_norm", "fourier.normalised_system_orthonormal",
            "fourier.coefficients_are_projections", "fourier.spectral_example_coefficients",
            "dft.geometric_sum_lemma", "dft.cos_cos_orthogonal", "dft.sin_sin_orthogonal",
            # no Delta, a sum over a period: the direct script before the usual one
            "dft.sin_cos_orthogonal")

L, LV = var("L", "integer")
n, NV = var("n", "pos_integer")
m, MV = var("m", "pos_integer")
N, BIGN = var("N", "pos_integer")
E, EV = var("N", "even_pos_integer")
j, JV = var("j", "integer")
k, KV = var("k", "integer")
l_, LLV = var("l", "integer")
t = sp.Symbol("t", integer=True)


def _dft(e, big):
    return sp.Sum(e, (t, 0, big - 1))


SPEC = sp.sin(x) + 3 * sp.sin(20 * x) / 10
CASES = {
    # a new shape, true: sin^2 + cos^2 integrates to 2 pi (both atoms, modulo pyth_sq)
    "int.pythagoras": (Statement((Eq(PiIntegral(sp.sin(n * x) ** 2 + sp.cos(n * x) ** 2, x),
                                     2 * pi),), (NV,)), 1),
    # false twins of registry claims
    "int.period_2pi_as_pi": (Statement((Eq(PiIntegral(sp.cos(L * x), x), pi * Delta(L, 0)),),
                                       (LV,)), 0),
    "int.cos_cos_shifted_delta": (Statement((Eq(PiIntegral(sp.cos(m * x) * sp.cos(n * x), x),
                                                pi * Delta(n, m + 1)),), (NV, MV)), 0),
    "int.spectral_wrong_coefficient": (Statement((Eq(PiIntegral(SPEC * sp.sin(20 * x), x) / pi,
                                                     R(3, 5)),), (NV,)), 0),
    "int.unit_norm_not_pi": (Statement((Ne(PiIntegral(sp.cos(n * x) ** 2, x), pi),), (NV,)), 0),
    "dft.geometric_wrong_bracket": (Statement(
        (Eq(_dft(sp.cos(2 * pi * j * t / N), N), N * Delta(j, 1)),), (BIGN, JV),
        (Le(0, j), Le(j, N - 1))), 0),
    "dft.sin_sin_without_half": (Statement(
        (Eq(_dft(sp.sin(2 * pi * k * t / E) * sp.sin(2 * pi * l_ * t / E), E), E * Delta(k, l_)),),
        (KV, LLV, EV), (Le(1, k), Le(k, E / 2 - 1), Le(1, l_), Le(l_, E / 2 - 1))), 0),
    "dft.sin_sq_sum_is_not_zero": (Statement(
        (Eq(_dft(sp.sin(2 * pi * j * t / N) ** 2, N), 0),), (BIGN, JV)), 0),
    "dft.cos_cos_dropped_bracket": (Statement(
        (Eq(_dft(sp.cos(2 * pi * k * t / E) * sp.cos(2 * pi * l_ * t / E), E),
            E * (Delta(k, l_) + Delta(k + l_, 0)) / 2),),
        (KV, LLV, EV), (Le(0, k), Le(k, E / 2), Le(0, l_), Le(l_, E / 2))), 0),
}


@pytest.fixture(scope="module")
def coq_cache(coq_worker_cache):
    return coq_worker_cache


@pytest.fixture(scope="module")
def results(coq_cache):
    from peproof import registry
    from peproof.claims import Claim, Source

    stmts = {key: st for key, (st, _) in CASES.items()}
    stmts |= {cid: registry.get(cid).statement for cid in REGISTRY}
    claims = [Claim(key, "test", Source("test", "test", "test"), st, "identity")
              for key, st in stmts.items()]
    return check.check_claims(claims, {}, cache_dir=coq_cache)


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", sorted(CASES) + list(REGISTRY))
def test_checked_and_the_false_twin_not(results, key):
    r = results[key]
    want = CASES[key][1] if key in CASES else 1
    assert int(r.checked) == want, (key, r.status)
    if r.checked:
        assert not set(r.assumptions) - run.ALLOWED, key
        assert r.exact and (r.klass == "integral" or key == "dft.sin_cos_orthogonal"), key


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(900)
def test_without_the_rewriting_by_the_lemmas_the_true_claims_are_not_checked(results, coq_cache,
                                                                             monkeypatch):
    from peproof import registry
    from peproof.claims import Claim, Source

    ids = ("fourier.period_integral_lemma", "dft.geometric_sum_lemma", "dft.sin_cos_orthogonal")
    assert all(results[i].checked for i in ids)
    # the integrals and sums no longer rewritten by oint_tp / osumZ_dp (the rest of the
    # script, the library and the header unchanged)
    monkeypatch.setattr(integral_scripts, "_rewrite", lambda node, goal: "idtac")
    monkeypatch.setattr(integral_scripts, "_sum_rewrite", lambda node, goal: "idtac")
    # scripts4's reflection of an odd sum proves dft.sin_cos_orthogonal too: switched off as well
    monkeypatch.setattr(tactics, "sum_alternative", lambda st, goal: None)
    claims = [Claim(i, "test", Source("test", "test", "test"), registry.get(i).statement,
                    "identity") for i in ids]
    out = check.check_claims(claims, {}, cache_dir=coq_cache)
    for i in ids:
        assert out[i].status.endswith("the proof script did not close the goal"), out[i].status


def test_the_meaning_cases_follow_sympy():
    cs = meaning_cases()
    assert {v is None for k, _, v in cs if k == "delta"} == {True, False}
    for f, point in INTEGRANDS:  # the table's undefined points are SymPy's
        assert _sympy_defined(f) == (point is None), f
        if point is not None:
            assert -pi <= point <= pi
            val = f.subs(x, point)
            assert val.has(sp.zoo, sp.nan) or not val.is_real, (f, point, val)


def _library(coq_cache):
    lib = run.build_library(run.coqc(), run.coq_version(), coq_cache)
    assert lib.path is not None and "Integral" in lib.modules, (lib.errors, lib.fault)
    return lib.path


@needs_coq
@pytest.mark.timeout(900)
def test_coq_states_what_sympy_and_the_engines_mean(coq_cache, tmp_path):
    lib = _library(coq_cache)
    cs = meaning_cases()
    body = "".join(make(i) for i, (_, make, _) in enumerate(cs))
    folder = tmp_path / "lib"
    shutil.copytree(lib, folder)
    assert not _compile(folder, body)


SABOTAGES = {
    # the integrand required on the open interval only: the endpoints' undefinedness is lost
    # (exactly the cases undefined at -pi or pi fail)
    "open interval": ("(forall x, - PI <= x <= PI -> f x <> None)",
                      "(forall x, - PI < x < PI -> f x <> None)", "integral",
                      lambda v: v is not None and abs(v) == pi),
    # Delta given a value at non-integer arguments (exactly the ill-formed cases fail)
    "delta anywhere": ("if isZ x then if isZ y then Some (if Req_EM_T x y then 1 else 0) "
                       "else None else None", "Some (if Req_EM_T x y then 1 else 0)", "delta",
                       lambda v: v is None),
}


@pytest.mark.slow  # a sabotage: its check is shown to fail (make test-slow)
@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", sorted(SABOTAGES))
def test_a_sabotaged_meaning_fails(coq_cache, tmp_path, name):
    lib = _library(coq_cache)
    old, new, kind, hit = SABOTAGES[name]
    folder = tmp_path / "lib"
    shutil.copytree(lib, folder)
    for p in folder.glob("Integral.*"):
        p.unlink()
    src = (run.HERE / "lib" / "Integral.v").read_text()
    meaning = src.split("(* The meaning ends here")[0]
    assert old in meaning
    (folder / "Integral.v").write_text(meaning.replace(old, new))
    r = subprocess.run([run.coqc(), "-q", "-Q", str(folder), "PEProof", "Integral.v"],
                       cwd=folder, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    cs = [(i, c) for i, c in enumerate(meaning_cases()) if c[0] == kind]
    failed = _compile(folder, "".join(c[1](i) for i, c in cs))
    assert failed == {i for i, (_, _, v) in cs if hit(v)}, (name, failed)
