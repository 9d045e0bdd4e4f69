"""A fresh adversarial corpus for "checked in Coq" (issue 23): 45 statements written for it.

The false ones are false under SymPy's meaning (lib/Sem.v): most are false exactly at a
partial operation's boundary (0**p = 0, a negative base with an integer exponent, (-1)**(m/2),
x**j in a sum, a closed or existential statement whose hypotheses the old printer dropped, a
reversed range), where the old translator filed a premise stronger than SymPy's definedness
and so checked a vacuous theorem.  None may be checked in Coq.  The true ones sit at the same
boundaries; they need not all be checked (the reflection step may not reach them), but the
count is reported and must not be zero.  One check_claims call.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof.claims import Claim, Eq, Le, Lt, Ne, Source, Statement, var
from peproof.kernel.coq import check, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed")

x, X = var("x", "real")
y, Y = var("y", "real")
p, P = var("p", "pos_real")
m, M = var("m", "integer")
n, N = var("n", "pos_integer")
b, B = var("b", "real")
i, II = var("i", "pos_integer")
d, D = var("d", "pos_integer")
j = sp.Symbol("j", integer=True)
H = sp.Rational
ZERO = sp.Integer(0)


def _pow(base, e):
    return sp.Pow(base, e, evaluate=False)


def S(concl, vs=(), hyps=(), quant="forall"):  # noqa: N802
    return Statement(tuple(concl) if isinstance(concl, tuple) else (concl,), vs, hyps, quant)


FALSE = {
    "rpow_le0_pos": S(Lt(0, x), (X,), (Le(x ** H(3, 2), 0),)),
    "rpow_eq0_one": S(Eq(x, 1), (X,), (Eq(x ** H(3, 2), 0),)),
    "cbrt_le0_pos": S(Lt(0, x), (X,), (Le(x ** H(1, 3), 0),)),
    "rpow52_pos": S(Lt(0, x), (X,), (Lt(x ** H(5, 2), 1),)),
    "negbase_real": S(Eq(x, 3), (X,), (Lt((-2) ** x, 0),)),
    "negbase_int": S(Eq(m, 3), (M,), (Lt((-2) ** m, 0),)),
    "zero_base": S(Lt(x, 0), (X,), (Eq(_pow(ZERO, x), 0),)),
    "zero_base_pos": S(Lt(p, 1), (P,), (Eq(_pow(ZERO, p), 0),)),
    "zero_pow_zero": S(Eq(x, 1), (X,), (Eq(_pow(ZERO, x), 1),)),
    "half_exp_one": S(Eq(m, 0), (M,), (Eq((-1) ** (m / 2), 1),)),
    "half_exp_minus": S(Eq(m, 2), (M,), (Eq((-1) ** (m / 2), -1),)),
    "sum_pow": S(Lt(x, 0), (X,), (Eq(sp.Sum(x ** j, (j, 0, 2)), 1),)),
    "sum_pow_nonzero": S(Ne(x, 0), (X,), (Eq(sp.Sum(x ** j, (j, 1, 3)), 0),)),
    "enc_base_pos": S(Lt(0, b), (B, II, D), (Eq(b ** (2 * i / d), 0),)),
    "enc_base_one": S(Eq(b, 1), (B, II, D), (Le(b ** (2 * i / d), 0),)),
    "sqrt_zero": S(Eq(x, 1), (X,), (Eq(sp.sqrt(x), 0),)),
    "reversed_const": S(Eq(sp.Sum(sp.Integer(1), (j, 3, 0)), -2)),
    "reversed_karr": S(Eq(sp.Sum(j, (j, 5, 2)), -7)),
    "reversed_sym": S(Eq(sp.Sum(sp.Integer(1), (j, m, 0)), 1 - m), (M,)),
    "rpow_identity": S(Eq(x ** H(3, 2), x * sp.sqrt(x)), (X,)),
    "rpow_ne0": S(Ne(x, 0), (X,), (Le(x ** H(3, 2), 0),)),
    "rpow_absurd": S(Eq(1, 0), (X,), (Le(x ** H(3, 2), 0),)),
    "rpow73": S(Lt(0, x), (X,), (Eq(x ** H(7, 3), 0),)),
    "zero_pow_one": S(Eq(x, 1), (X, Y), (Eq(_pow(ZERO, x), 1), Lt(y, 0))),
    "negbase3": S(Eq(x, 3), (X,), (Eq((-3) ** x, 9),)),
    "neg_one_pow": S(Eq(x, 0), (X,), (Eq((-1) ** x, 1),)),
    "shifted": S(Lt(1, x), (X,), (Le((x - 1) ** H(3, 2), 0),)),
    "sq_cbrt": S(Ne(x, 0), (X,), (Eq((x ** 2) ** H(1, 3), 0),)),
    "two_rpow": S(Lt(0, x + y), (X, Y), (Le(y ** H(3, 2) + x ** H(3, 2), 0),)),
    "exists_rpow_neg": S(Lt(x ** H(3, 2), 0), (X,), quant="exists"),
    "exists_closed": S(Eq(0, 0), (), (Lt(1, 0),), quant="exists"),
    "div_self": S(Eq(sp.Mul(x, _pow(x, -1), evaluate=False), 1), (X,)),
    "neg_cbrt": S(Lt(_pow(sp.Integer(-8), H(1, 3)), 0)),
}
TRUE = {
    "square": S(Le(0, x ** 2), (X,)),
    "sqrt_nonneg": S(Le(0, sp.sqrt(x)), (X,), (Le(0, x),)),
    "pyth": S(Eq(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1), (X,)),
    "root_pos": S(Lt(0, p ** H(1, 2)), (P,)),
    "inverse": S(Eq(x * (1 / x), 1), (X,), (Ne(x, 0),)),
    "count": S(Eq(sp.Sum(sp.Integer(1), (j, 0, n - 1)), n), (N,)),
    "closed_pow": S(Eq(_pow(sp.Integer(2), sp.Integer(3)), 8)),
    "rpow_le0_nonpos": S(Le(x, 0), (X,), (Le(x ** H(3, 2), 0),)),
    "negbase_int_ne0": S(Ne(m, 0), (M,), (Lt((-2) ** m, 0),)),
    "inv_sqrt_pos": S(Lt(0, x ** H(-1, 2)), (X,), (Lt(0, x),)),
    "floor_hyp": S(Lt(x, 1), (X,), (Eq(sp.floor(x), 0),)),
    "closed_vacuous": S(Eq(0, 1), (), (Lt(1, 0),)),
}
#: true statements given a (wrong) refutation: their negation must not be checked
REFUTED = {"closed_vacuous": {"point": {}}, "rpow_le0_nonpos": {"point": {"x": "0"}},
           "sqrt_nonneg": {"point": {"x": "0"}}}


def test_the_corpus_has_forty_statements():
    assert len(FALSE) + len(TRUE) >= 40 and len(FALSE) >= 30


@pytest.fixture(scope="module")
def results(tmp_path_factory, coq_worker_cache):
    claims = [Claim(f"c.{k}", "corpus", Source("test", "test", "test"), st, "identity")
              for k, st in {**FALSE, **TRUE}.items()]
    verdicts = {f"c.{k}": {"status": "refuted", "witness": w} for k, w in REFUTED.items()}
    return check.check_claims(claims, verdicts, cache_dir=coq_worker_cache)


@needs_coq
@pytest.mark.timeout(1800)
def test_no_false_statement_and_no_wrong_negation_is_checked(results):
    wrong = sorted(k for k in FALSE if results[f"c.{k}"].checked)
    wrong += sorted(k for k in REFUTED if results[f"c.{k}"].checked)
    assert not wrong, wrong


@needs_coq
@pytest.mark.timeout(1800)
def test_true_statements_at_boundaries_are_checked(results):
    ok = sorted(k for k in TRUE if k not in REFUTED and results[f"c.{k}"].checked)
    print(f"true statements checked in Coq: {len(ok)} of {len(TRUE) - len(REFUTED)}: {ok}")
    assert len(ok) >= 4, ok
