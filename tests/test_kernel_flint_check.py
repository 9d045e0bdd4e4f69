"""The second kernel of the exponential procedure (peproof.kernel.flint_check).

Certificates written by hand test the kernel without the SymPy side; certificates written by
:func:`peproof.engines.expoly.certify` test the pair; tampered certificates must be rejected; a
disagreement of the kernels must never leave a ``proved``.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import sympy as sp

from peproof.claims import Eq, Statement, var
from peproof.engines import expoly
from peproof.kernel import flint_check as kernel_flint
from peproof.kernel.flint_check import FORMAT, check

x, VX = var("x", "real")
y, VY = var("y", "real")
n, VN = var("n", "integer")
S, C = sp.sin, sp.cos


def cert(atoms, expr):
    return {"format": FORMAT, "atoms": atoms, "expr": expr}


Z = {"name": "Z", "meaning": "exp(i x)", "kind": "laurent"}


def q(v):
    return ["q", str(v)]


def sin_z(k=1):  # sin(k x) = (Z^k - Z^-k) / (2i)  with  1/(2i) = -i/2
    return ["*", [q("-1/2"), ["i"], ["+", [["^", ["x", 0], k],
                                           ["*", [q(-1), ["^", ["x", 0], -k]]]]]]]


def cos_z(k=1):
    return ["*", [q("1/2"), ["+", [["^", ["x", 0], k], ["^", ["x", 0], -k]]]]]


# sin^2 x + cos^2 x - 1, written by hand
PYTHAGORAS = cert([Z], ["+", [["^", sin_z(), 2], ["^", cos_z(), 2], q(-1)]])
# cos 3x - 4 cos^3 x + 3 cos x
TRIPLE = cert([Z], ["+", [cos_z(3), ["*", [q(-4), ["^", cos_z(), 3]]],
                          ["*", [q(3), cos_z()]]]])


def test_hand_written_certificates_of_true_identities_are_zero():
    assert check(PYTHAGORAS).zero
    assert check(TRIPLE).zero
    assert check(json.dumps(TRIPLE)).zero  # the JSON text itself
    # a sixth root of unity: 1 - exp(i pi/3) + exp(2 i pi/3) = 0 (its minimal polynomial)
    assert check(cert([], ["+", [q(1), ["*", [q(-1), ["u", "1/3"]]], ["u", "2/3"]]])).zero
    # i^2 + 1 = 0 and exp(i pi/2) = i
    assert check(cert([], ["+", [["^", ["i"], 2], q(1)]])).zero
    assert check(cert([], ["+", [["u", "1/2"], ["*", [q(-1), ["i"]]]]])).zero
    # (2 Z)^-1 (2 Z) - 1 = 0 (the inverse of a term inverts its coefficient too)
    two_z = ["*", [q(2), ["x", 0]]]
    assert check(cert([Z], ["+", [["*", [["^", two_z, -1], two_z]], q(-1)]])).zero
    # a root atom r^2 = 2: r^3 - 2 r = 0; r^-1 - r/2 = 0
    r2 = {"name": "r", "meaning": "2**(1/2)", "kind": "root", "power": 2, "value": "2"}
    assert check(cert([r2], ["+", [["^", ["x", 0], 3], ["*", [q(-2), ["x", 0]]]]])).zero
    assert check(cert([r2], ["+", [["^", ["x", 0], -1], ["*", [q("-1/2"), ["x", 0]]]]])).zero


def test_hand_written_certificates_of_false_identities_are_not_zero():
    assert not check(cert([Z], ["+", [["^", sin_z(), 2], q(-1)]])).zero
    assert not check(cert([], ["+", [q(1), ["*", [q(-1), ["u", "1/3"]]], ["u", "1/3"]]])).zero
    assert not check(cert([], ["+", [["^", ["i"], 2], q(-1)]])).zero
    assert not check(cert([Z], ["+", [["x", 0], ["*", [q(-1), ["^", ["x", 0], -1]]]]])).zero


def _paths(node, path=()):
    yield path, node
    if node[0] in ("+", "*"):
        for j, c in enumerate(node[1]):
            yield from _paths(c, path + (1, j))
    elif node[0] == "^":
        yield from _paths(node[1], path + (1,))


def _at(tree, path):
    for p in path:
        tree = tree[p]
    return tree


@pytest.mark.parametrize("name", ["pythagoras", "triple", "addition", "periodic"])
def test_tampered_certificates_are_rejected(name):
    """Every single change of a coefficient, of an exponent, and every dropped term of a sum
    turns a zero certificate into a non-zero one (checked exhaustively over the tree)."""
    good = {
        "pythagoras": PYTHAGORAS,
        "triple": TRIPLE,
        "addition": expoly.certify(S(x + y) - S(x) * C(y) - C(x) * S(y)),
        "periodic": expoly.certify(C(7 * sp.pi * n / 3) - C(sp.pi * n / 3)
                                   + S(sp.pi * n / 3) ** 2 + C(sp.pi * n / 3) ** 2 - 1),
    }[name]
    assert check(good).zero
    tampered = 0
    for path, node in list(_paths(good["expr"])):
        variants = []
        if node[0] == "q":
            variants.append(("coefficient", ["q", str(sp.Rational(node[1]) + sp.Rational(1, 3))]))
        if node[0] == "^" and node[2] != 0:
            variants.append(("exponent", ["^", node[1], node[2] + 1]))
        if node[0] == "+" and len(node[1]) > 1:
            for j in range(len(node[1])):
                variants.append(("dropped term", ["+", node[1][:j] + node[1][j + 1:]]))
        for what, new in variants:
            bad = copy.deepcopy(good)
            if path:
                _at(bad["expr"], path[:-1])[path[-1]] = new
            else:
                bad["expr"] = new
            # a change inside a factor that is zero anyway (e.g. the exponent of 0**k) would
            # not change the value: only changes under a non-zero product count
            assert not check(bad).zero, f"{name}: {what} at {path} accepted"
            tampered += 1
    assert tampered >= 5


def test_tampered_atoms_and_format_are_rejected():
    # Z = exp(i pi n/3), Z^6 = 1: Z^7 - Z = 0 only thanks to the periodic reduction
    per = {"name": "Z", "meaning": "exp(i pi n/3)", "kind": "periodic", "modulus": 6}
    good = cert([per], ["+", [["^", ["x", 0], 7], ["*", [q(-1), ["x", 0]]]]])
    assert check(good).zero
    assert expoly.certify(C(sp.pi * n / 3))["atoms"][0]["kind"] == "periodic"
    for change in ({"kind": "laurent"}, {"modulus": 4}, {"modulus": 0}, {"kind": "wizard"}):
        bad = copy.deepcopy(good)
        bad["atoms"][0].update(change)
        assert not check(bad).zero, change
    for bad in ({**good, "format": "other/1"}, {**good, "expr": ["x", 7]},
                {**good, "expr": ["^", ["+", [["x", 0], q(1)]], -1]}, "not json", None,
                {**good, "expr": ["q", 1.5]}, {**good, "expr": ["^", ["x", 0], 10**9]}):
        res = check(bad)
        assert not res.zero and res.terms == -1, bad


def test_no_certificate_for_inexact_or_infinite_numbers():
    for e in (sp.Float("0.5") * C(x), sp.zoo * C(x) - sp.zoo * C(x)):
        with pytest.raises(expoly.NoCertificate):
            expoly.certify(e)


def test_the_certificate_is_the_polynomial_before_expansion():
    """The checker must expand: the certificate of sin(x+y) - ... is not SymPy's 0."""
    c = expoly.certify(S(x + y) - S(x) * C(y) - C(x) * S(y))
    assert c["expr"] != ["q", "0"] and len(json.dumps(c["expr"])) > 200
    assert {a["meaning"] for a in c["atoms"]} == {"exp(i*(x)/1)", "exp(i*(y)/1)"}


def test_engines_certificates_of_true_and_false_identities():
    true = [S(2 * x) - 2 * S(x) * C(x), C(x) ** 4 - S(x) ** 4 - C(2 * x),
            S(x / 3) ** 2 + C(x / 3) ** 2 - 1, C(x + sp.pi) + C(x), S(x + sp.pi / 2) - C(x),
            C(sp.pi * n) ** 2 - 1, sp.exp(sp.I * x) * sp.exp(-sp.I * x) - 1,
            2 ** (x + 1) - 2 * 2**x, sp.sqrt(2) * sp.sqrt(2) * C(x) - 2 * C(x)]
    a = sp.pi * n / 3  # exp(i a)**6 = 1, but exp(i a)**3 = (-1)**n: the modulus must be 6
    false = [S(2 * x) - S(x) * C(x), C(x) ** 4 - S(x) ** 4 - S(2 * x), C(sp.pi * n) - 1,
             S(x + sp.pi / 2) + C(x), 2 ** (x + 1) - 2**x, 4 * C(a) * C(2 * a) - 2 * C(a) - 2,
             sp.sqrt(x**2 + 1) - sp.sqrt(x**2 + 2)]
    # equal bases after expansion: the kernel identifies the two powers itself
    true.append(sp.sqrt((x + 1) ** 2 + y**2) - sp.sqrt(x**2 + 2 * x + 1 + y**2))
    for e in true:
        assert check(expoly.certify(e)).zero, e
        r = expoly.expand_is_zero(e)
        assert r.zero and r.sympy_zero and r.flint.zero, e
    for e in false:
        assert not check(expoly.certify(e)).zero, e
        assert not expoly.expand_is_zero(e).zero, e


def test_kernel_imports_no_sympy(tmp_path):
    """In a fresh interpreter: import the kernel, check a certificate, and SymPy is not loaded."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps([TRIPLE, expoly.certify(S(x + y) - S(x) * C(y) - C(x) * S(y))]))
    code = ("import json, sys\n"
            "from peproof.kernel.flint_check import check\n"
            f"res = [check(c).zero for c in json.load(open({str(f)!r}))]\n"
            "print(res, 'sympy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[True,", "True]", "False"], out.stdout


def test_a_disagreement_is_never_proved(monkeypatch):
    """If the FLINT kernel says not zero, a true identity is not proved (unknown, with the
    reason), whatever SymPy says."""
    from peproof.engines.decide import decide_statement

    stmt = Statement(Eq(S(x + y), S(x) * C(y) + C(x) * S(y)), (VX, VY))
    v = decide_statement(stmt, search=False)
    assert v.status == "proved" and kernel_flint.KERNEL in v.kernels and v.certificates
    assert all(check(c).zero for c in v.certificates)
    json.dumps(v.as_dict())  # plain data
    monkeypatch.setattr(kernel_flint, "check",
                        lambda c: kernel_flint.Checked(False, "sabotaged", 1, 0.0))
    assert not expoly.expand_is_zero(S(x + y) - S(x) * C(y) - C(x) * S(y)).zero
    v = decide_statement(stmt, search=False)
    assert v.status == "unknown" and "sabotaged" in v.reason + " ".join(v.trace)
    assert kernel_flint.KERNEL not in v.kernels


def test_kernel_verdict_downgrades_a_proof_resting_on_a_disagreement():
    from peproof.claims import Verdict

    log = [{"certificate": TRIPLE, "sympy": True, "flint": False, "flint_reason": "2 terms"}]
    v = expoly.kernel_verdict(Verdict("proved", "sympy-exp", "-", "m"), log)
    assert v.status == "unknown" and "FLINT" in v.reason
    log[0]["flint"] = True
    v = expoly.kernel_verdict(Verdict("proved", "sympy-exp", "-", "m"), log)
    assert v.status == "proved" and v.kernels == (expoly.SYMPY_KERNEL, kernel_flint.KERNEL)


def test_every_exp_proved_registry_claim_carries_rechecked_certificates():
    """Every registry claim whose proof rests on the exponential procedure names both kernels
    and carries certificates, each of which FLINT re-expands to zero."""
    from peproof import registry
    from peproof.results import run_claim
    from peproof.verdicts import verdict_of

    n_claims = n_certs = 0
    for c in registry.select(None):
        v = verdict_of(c.id)
        if v.status != "proved" or not v.certificates:
            continue
        n_claims += 1
        assert v.kernels == (expoly.SYMPY_KERNEL, kernel_flint.KERNEL), c.id
        for ce in v.certificates:
            assert check(ce).zero, c.id
            n_certs += 1
    assert n_claims >= 60 and n_certs >= 200, (n_claims, n_certs)
    row = run_claim(registry.get("products.sin_mul_sin"), falsifiers=False)
    back = json.loads(json.dumps(row))
    assert back["verdict"]["certificates"] and all(check(ce).zero
                                                   for ce in back["verdict"]["certificates"])
    from peproof.results import summarize

    summary = summarize([back], 0.0)
    assert summary["kernel_rechecked_claims"] == 1
    assert summary["kernel_certificates"] == len(back["verdict"]["certificates"])
