"""The irrationality of pi in the kernel (``lib/PiIrr.v``, ``peproof/kernel/coq/pi_scripts.py``).

One ``check_claims`` batch (the worker's Coq cache): the six registry claims that rest on the
irrationality of pi are "checked in Coq" with clean assumptions (the two refuted existentials
by their negation), and so are three more statements of the same shapes (a rational frequency,
a sum of squares without ``Sum``, a ``forall`` with ``!=``).  Their false twins are not: integer
variables made real, an equation the pair does not imply, the frequency ``pi`` or ``2 pi``, a
rational that is not ``pi`` times a rational (``pi`` itself), a sum with a negative term, a
separation without ``a != b`` (the
shape is recognised, Coq's ``lia`` refuses ``P <> 0``), and true existentials handed in as
refuted (their negation is never proved).  The transcendence claims stay refused with their
reason.  Sabotage: with the script hook off the six are refused again (no coqc); with
``PI_irrational`` admitted in the library (slow: a library build) their assumptions are not
clean and none is checked.
"""

from __future__ import annotations

import pytest
import sympy as sp

from peproof import registry
from peproof.claims import Claim, Eq, Lt, Ne, Source, Statement, var
from peproof.kernel.coq import check, library, outside, pi_scripts, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

REFUTED = {"status": "refuted", "witness": None, "engines": {}}
PROVED = {"status": "proved", "witness": None, "engines": {}}
#: the registry claims and their verdicts (the existentials are refuted by an argument)
REGISTRY = {
    "uniqueness.pe_injective_on_integers": PROVED,
    "uniqueness.integers_collide_beyond_practical_lengths": REFUTED,
    "dft.transformer_frequencies_are_dfs_frequencies": REFUTED,
    "separation.positions_distinct_up_to_62832_d4": PROVED,
    "separation.positions_distinct_up_to_62832_d512": PROVED,
    "separation.positions_distinct_up_to_1000000_d512": PROVED,
}
TRANSCENDENT = ("uniqueness.single_pair_injective_on_integers",
                "dft.transformer_frequencies_not_dfs_frequencies")

pi, sin, cos = sp.pi, sp.sin, sp.cos
a, A = var("a", "integer")
b, B = var("b", "integer")
x, X = var("x", "real")
y, Y = var("y", "real")
k, K = var("k", "integer")
n, N = var("N", "pos_integer")
j = sp.Symbol("j", integer=True)


def _wrap(u, v, vs, concl=None):
    return Statement(concl or Eq(vs[0].symbol, vs[1].symbol), vs,
                     hyps=(Eq(sin(u), sin(v)), Eq(cos(u), cos(v))))


def _collide(u, v):
    return Statement((Eq(sin(u), sin(v)), Eq(cos(u), cos(v))), (A, B), hyps=(Ne(a, b),),
                     quant="exists")


def _pair(u, v):
    return (sin(u) - sin(v)) ** 2 + (cos(u) - cos(v)) ** 2


#: key: (statement, verdict, checked?)
CASES = {
    # the same shapes beyond the registry
    "pi.wrap_third": (_wrap(a / 3, b / 3, (A, B)), PROVED, 1),
    "pi.sep_squares": (Statement(Lt(0, _pair(a / 2, b / 2) + _pair(sp.sqrt(2) * a,
                                                                  sp.sqrt(2) * b)),
                              (A, B), hyps=(Lt(a, b),)), PROVED, 1),
    "pi.dfs_forall": (Statement(Ne(sp.Rational(3, 2), 2 * pi * k / n), (K, N)), PROVED, 1),
    # false twins
    "pi.wrap_real": (_wrap(x, y, (X, Y)), PROVED, 0),  # x = 0, y = 2 pi
    "pi.wrap_pi": (_wrap(pi * a, pi * b, (A, B)), PROVED, 0),  # a = 0, b = 2
    "pi.wrap_other": (_wrap(a, b, (A, B), Eq(a, 2 * b)), PROVED, 0),  # a = b = 1
    "pi.collide_pi": (_collide(pi * a, pi * b), REFUTED, 0),  # true: a = 0, b = 2
    "pi.dfs_real": (Statement(Eq(1, 2 * pi * x), (X,), quant="exists"), REFUTED, 0),
    "pi.dfs_zero": (Statement(Eq(0, 2 * pi * k / n), (K, N), quant="exists"), REFUTED, 0),
    "pi.dfs_pi": (Statement(Ne(pi, 2 * pi * k / n), (K, N)), PROVED, 0),  # k = 1, N = 2
    "pi.sep_2pi": (Statement(Lt(0, sp.Sum(_pair(2 * pi * a / 10000 ** (j / 2),
                                             2 * pi * b / 10000 ** (j / 2)), (j, 0, 1))),
                          (A, B), hyps=(Lt(a, b),)), PROVED, 0),  # a = 0, b = 100
    "pi.sep_minus": (Statement(Lt(0, _pair(a, b) - 4), (A, B), hyps=(Lt(a, b),)), PROVED, 0),
    "pi.sep_unordered": (Statement(Lt(0, _pair(a, b)), (A, B)), PROVED, 0),  # a = b
}


def _claims(stmts):
    return [Claim(key, "test", Source("test", "test", "test"), st, "identity")
            for key, st in stmts.items()]


def _registry_claims():
    return _claims({cid: registry.get(cid).statement for cid in REGISTRY})


@pytest.fixture(scope="module")
def results(coq_worker_cache):
    stmts = {key: st for key, (st, _, _) in CASES.items()}
    verdicts = {key: v for key, (_, v, _) in CASES.items()} | REGISTRY
    return check.check_claims(_claims(stmts) + _registry_claims(), verdicts,
                              cache_dir=coq_worker_cache)


@needs_coq
@pytest.mark.timeout(900)
@pytest.mark.parametrize("key", list(REGISTRY) + sorted(CASES))
def test_checked_and_the_false_twins_not(results, key):
    r = results[key]
    want = CASES[key][2] if key in CASES else 1
    assert int(r.status == check.CHECKED) == want, (key, r.status)
    if want:
        assert r.assumptions and not set(r.assumptions) - run.ALLOWED, (key, r.assumptions)
        assert r.exact and r.klass.startswith("pi"), (key, r.klass)
        refuted = (CASES[key][1] if key in CASES else REGISTRY[key]) is REFUTED
        assert r.what == ("negation" if refuted else "statement"), key


def test_the_shapes_are_recognised_from_the_statement():
    """The six registry claims have a pi script; every false twin's shape is refused in
    Python except the unordered separation (its P <> 0 is left to Coq's lia)."""
    for claim in _registry_claims():
        job, info = check.plan(claim, REGISTRY[claim.id])
        assert job is not None and info.klass.startswith("pi"), (claim.id, info.status)
    for key in ("pi.wrap_real", "pi.wrap_pi", "pi.wrap_other", "pi.dfs_pi", "pi.sep_2pi",
                "pi.sep_minus"):
        assert pi_scripts.shape(CASES[key][0]) is None, key
    for key in ("pi.collide_pi", "pi.dfs_real", "pi.dfs_zero"):
        assert pi_scripts.negated_shape(CASES[key][0]) is None, key
    assert pi_scripts.shape(CASES["pi.sep_unordered"][0]) is not None


def test_the_transcendence_claims_stay_refused_with_their_reason():
    for cid in TRANSCENDENT:
        st = registry.get(cid).statement
        assert pi_scripts.shape(st) is None, cid
        job, info = check.plan(_claims({cid: st})[0], PROVED)
        assert job is None and "the transcendence of pi (Lindemann)" in info.status, info.status


def test_without_the_script_hook_the_six_are_refused_again(monkeypatch):
    """Sabotage (no coqc): pi_scripts switched off, outside.py refuses the six with the
    irrationality of pi as the reason; none is planned, so none is checked."""
    monkeypatch.setattr(pi_scripts, "proof", lambda st, goal, refuted: None)
    monkeypatch.setattr(pi_scripts, "shape", lambda st: None)
    for claim in _registry_claims():
        job, info = check.plan(claim, REGISTRY[claim.id])
        assert job is None and "irrationality of pi" in info.status, (claim.id, info.status)
        assert "lib/PiIrr.v" in outside.IRRATIONAL


@pytest.mark.slow  # a sabotage: a library build (make test-slow)
@needs_coq
@pytest.mark.timeout(900)
def test_with_pi_irrational_admitted_none_is_checked(results, coq_worker_cache, monkeypatch):
    """PiIrr.v's PI_irrational admitted (the rest of the library, the scripts and the header
    unchanged): the six still compile, but their assumptions name PI_irrational, off the
    allow-list, so none is checked."""
    assert all(results[cid].status == check.CHECKED for cid in REGISTRY)
    srcs = run.library_sources()
    text = srcs["PiIrr"]
    start = text.index("Lemma PI_irrational")
    proof = text.index("Proof.", start)
    end = text.index("Qed.", proof)
    srcs["PiIrr"] = text[:proof] + "Admitted." + text[end + len("Qed."):]
    monkeypatch.setattr(run, "library_sources", lambda: dict(srcs))
    out = check.check_claims(_registry_claims(), REGISTRY, cache_dir=coq_worker_cache)
    for cid in REGISTRY:
        assert out[cid].status != check.CHECKED, cid
        assert "PI_irrational" in out[cid].status, out[cid].status
    assert "PiIrr" in library.MODULES
