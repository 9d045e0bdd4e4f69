"""No raw Python or SymPy representation in the documents' LaTeX: a class name followed by its
argument list (``DecayBound(64, k + 1, 10000)``, ``\\operatorname{ITE}\\left(...\\right)``) is
typeset as mathematics (``B_{64}(k + 1)``, an if-then-else), everywhere outside typewriter type
(claim ids, engine logs and the code references of a few titles are code, set as code).

The documents are written without TeX for the claims whose statements use the report's special
functions: RoPE's decay bound ``B_d`` and the index maps' nested conditions.
"""

from __future__ import annotations

import re
import sys

import pytest
import sympy as sp

from peproof import registry
from peproof.commands.report import load_generator

gen = load_generator()
from peproof_report import formulas  # noqa: E402
from peproof_report.parse import symbol_table  # noqa: E402


def class_names() -> set[str]:
    """SymPy's public classes and every class defined in a loaded ``peproof`` module."""
    registry.all_claims()  # loads the families and what their statements use
    names = {n for n in dir(sp) if isinstance(getattr(sp, n), type)}
    for name, mod in list(sys.modules.items()):
        if not (name == "peproof" or name.startswith("peproof.")):
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type) and obj.__module__.startswith("peproof"):
                names.add(obj.__name__)
    return {n for n in names if len(n) > 1 and n[0].isupper()}  # Python's class names


def _outside_code(tex: str) -> str:
    """The text with typewriter spans (code) blanked, braces matched at any depth (escaped
    braces ``\\{`` are text)."""
    out, i = [], 0
    while True:
        j = tex.find("\\texttt{", i)
        if j < 0:
            return "".join([*out, tex[i:]])
        out.append(tex[i:j])
        k, depth = j + len("\\texttt{"), 1
        while k < len(tex) and depth:
            if tex[k] == "\\":
                k += 2
                continue
            depth += {"{": 1, "}": -1}.get(tex[k], 0)
            k += 1
        out.append(" ")
        i = k


def raw_reprs(tex: str, names: set[str]) -> list[str]:
    """Class names applied to arguments as a program prints them: ``Name(``, and SymPy's
    spelling of an unknown function, ``\\operatorname{Name}`` (or ``\\mathrm``) before a
    parenthesis."""
    alt = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    pat = re.compile(rf"(?<![A-Za-z\\])(?:{alt})\(|\\(?:operatorname|mathrm|text)\{{(?:{alt})\}}"
                     rf"\s*\{{?\s*\\left\s*\(")
    return [m.group() for m in pat.finditer(_outside_code(tex))]


NAMES = class_names()
#: SymPy's and Python's spellings of mathematics (besides class names)
CODE_MATH = re.compile(r"\*\*|(?<![\\A-Za-z])(?:sqrt|exp|ln)\(")


def leaks(tex: str) -> list[str]:
    return raw_reprs(tex, NAMES) + CODE_MATH.findall(_outside_code(tex))


def test_the_check_catches_sympys_own_spelling():
    """Can fail: SymPy's printer and ``str`` give exactly the spellings the check looks for."""
    from peproof.rope import DecayBound

    k = sp.Symbol("k")
    assert raw_reprs(sp.latex(DecayBound(64, k + 1, 10000)), NAMES)
    assert raw_reprs(str(DecayBound(64, k + 1, 10000)).replace("B_64", "DecayBound"), NAMES)
    assert raw_reprs(sp.latex(sp.ITE(sp.Eq(k, 0), k > 1, False)), NAMES)
    assert raw_reprs(r"is \(Encoding(4)\)", NAMES)
    assert not raw_reprs(r"\texttt{Encoding(4)} and \(\operatorname{Attn}(X)\), PE(p)", NAMES)
    assert leaks(r"term exp(\allowbreak{}sqrt(2)*x) and c**x") == ["exp(", "sqrt(", "**"]
    assert not leaks(r"\texttt{exp(\allowbreak{}s0 \{'a': 1\})} and \(\exp(u) = c^{x}\)")


@pytest.fixture(scope="module", params=[
    "rope.decay_bound_monotone_d64",  # B_d(k) in the statement and the witness
    "index.sin_cos_maps_are_inverse",  # ITE in a Piecewise condition
    "encoding.frequencies_strictly_decrease",  # axioms with c**x, z3's reason quoting a term
    "fourier.affine_only_rescales_frequencies",  # a witness note with sin(omega*0)
    "rope.yarn_attention_factor_squares_into_logits",  # a paraphrase with sqrt(1/t), ln(s)
    "products.sin_mul_sin",  # a seed's LaTeX writing sin(a) for \sin(a)
])
def documents(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("repr")
    res = gen.build(build_dir=out, pattern=request.param, numerics="none", peers=False,
                    workers=1, quiet=True, compile_pdf=False, full=True)
    return [res.tex_path.read_text(), *(p.read_text() for p in res.more_tex)]


def test_no_raw_repr_in_the_documents(documents):
    for tex in documents:
        found = leaks(tex)
        assert not found, found[:5]


def test_the_decay_bound_prints_as_b_d_and_reads_back():
    from peproof.rope import DecayBound

    k = sp.Symbol("k", integer=True)
    for e, want in [(DecayBound(64, k + 1, 10000), r"B_{64}\left(k + 1\right)"),
                    (DecayBound(128, k, 500000), r"B_{128}\left(k;\ \mathrm{base}\ 500000\right)")]:
        text = formulas.latex(e)
        assert text == want
        chk = formulas.check_text(text, e, symbol_table(e), {k: "nonneg_integer"},
                                  formulas.functions_for(e))
        assert chk.status == "identical", chk


def test_a_seeds_bare_sin_is_typeset_as_the_operator():
    """Caught: a seed's LaTeX ``$sin(a) sin(b)$`` printed as the italic letters s, i, n."""
    from peproof_report.mathtext import quote_tex

    assert quote_tex(r"$sin(a) cos(b)$ and $\sin(x)$") == \
        r"\(\sin(a) \cos(b)\) and \(\sin(x)\)"
    assert quote_tex(r"$\sin(a) \cdot x_{sin}$") == r"\(\sin(a) \cdot x_{sin}\)"


@pytest.mark.parametrize("raw,want", [
    ("x -> c**x is strictly increasing", r"\(x \to  c^{x}\)"),
    ("sqrt(1/t) = 0.1 ln(s) + 1", r"\(\sqrt{1/t} = 0.1 \ln (s) + 1\)"),
])
def test_python_powers_and_logs_in_ascii_mathematics(raw, want):
    """Caught: ``c**x`` typeset as ``c \\cdot \\cdot x`` and ``ln(s)`` as italic letters."""
    from peproof_report.mathtext import title_tex

    assert title_tex(raw).startswith(want), title_tex(raw)
