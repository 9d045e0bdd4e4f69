"""What the report prints, checked without TeX: quotes rendered once from their LaTeX, titles as
mathematics, certified numbers printed from their balls (outward), named sub-terms that are what
they name, and the registry's classification of the refuted claims.

Each test names the mistake it catches and shows that the check can fail.
"""

from __future__ import annotations

import re
from decimal import Decimal

import flint
import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from peproof import registry
from peproof.commands.report import load_generator

load_generator()
from peproof_report import fmt, formulas, named  # noqa: E402
from peproof_report.latex import tex  # noqa: E402
from peproof_report.mathtext import drawn, katex_pairs, quote_tex, title_tex  # noqa: E402

QUOTES = sorted({s.quote for c in registry.all_claims() for s in c.sources})
TITLES = [c.title for c in registry.all_claims()]


# ---------------------------------------------------------------------------- quotes
def reading(latex_text: str) -> str:
    """What a reader sees of rendered LaTeX, drawn as a browser would (for the doubling test)."""
    out = []
    for part in re.split(r"(\\\(.*?\\\))", latex_text):
        out.append(drawn(part[2:-2]) if part.startswith(r"\(") else re.sub(r"\s+", "", part))
    return "".join(out)


def doubled(text: str) -> str | None:
    """A piece of mathematics written twice in a row (``d/2d/2``), the mark of a KaTeX page's
    text layer followed by its source."""
    m = re.search(r"([^\s\\]*[=/^_∈⊤∼−\d][^\s\\]*)\1", text)
    return m.group() if m and len(m.group(1)) >= 3 else None


@pytest.mark.parametrize("quote,want", [
    ("The frequencies span d/2d/2 orders of magnitude",
     r"The frequencies span \(d/2\) orders of magnitude"),
    ("ensuring qm⊤knq_m^\\top k_n depends only", r"ensuring \(q_m^\top k_n\) depends only"),
    ("(period 2π2\\pi, very fast — one full cycle every ∼6\\sim 6 tokens)",
     r"(period \(2\pi\), very fast --- one full cycle every \(\sim 6\) tokens)"),
    ("self attention is *permutation equivariant*",
     r"self attention is \emph{permutation equivariant}"),
    ("at $k = N/2$ we have $\\sin(\\pi n) = 0$", r"at \(k = N/2\) we have \(\sin(\pi n) = 0\)"),
    ("pos = \\frac{2\\pi}{\\omega_{\\min}}", r"\(pos = \frac{2\pi}{\omega_{\min}}\)"),
    ("The intuition: low-ii pairs encode local position", r"The intuition: low-\(i\) pairs"
     " encode local position"),
    ("a \\notacommand{x} here", r"a \textbackslash{}notacommand\{x\} here"),
])
def test_quotes_render_their_mathematics_once(quote, want):
    assert quote_tex(quote) == want


def test_no_quote_of_the_registry_prints_its_mathematics_twice():
    """Catches a KaTeX pair left as text (``d/2d/2``); plain escaping shows it can fail."""
    assert any(doubled(reading(tex(q))) for q in QUOTES), "the check found nothing to catch"
    bad = [(q, doubled(reading(quote_tex(q)))) for q in QUOTES if doubled(reading(quote_tex(q)))]
    assert not bad, bad[:5]


def test_repeated_words_are_not_katex_pairs():
    assert katex_pairs("the the cat, mississippi, will") == []
    assert quote_tex("mississippi is not doubled") == "mississippi is not doubled"


def test_every_quote_typesets_only_known_latex():
    """A rendered quote contains LaTeX only inside \\(...\\), \\emph and \\textbf; everything
    else was escaped (an unknown command is printed as text, never executed)."""
    for q in QUOTES:
        out = re.sub(r"\\\(.*?\\\)", "", quote_tex(q))
        out = re.sub(r"\\ensuremath\{[^}]*\}|\\(?:emph|textbf)\{|\\(?:textbackslash|dots|textbar|"
                     r"textless|textgreater)\{?|\\[_%&#${}~^]|\\'|\\`|\\\"", "", out)
        assert "\\" not in out, (q, out)


# ---------------------------------------------------------------------------- titles
ASCII_MATH = re.compile(r"\bomega\b|\bsqrt\(|\*\*|<=|>=|!=|\b[a-zA-Z]+_[a-zA-Z0-9(]|\^|\bpi\b")


def text_part(latex_text: str) -> str:
    return re.sub(r"\\\(.*?\\\)|\\texttt\{[^}]*\}", " ", latex_text)


def test_titles_typeset_their_mathematics():
    """No ASCII mathematics (omega_min, 10000^(2i/d), <=, sqrt(...)) left in a title's text;
    escaping alone leaves plenty (the check can fail)."""
    assert sum(bool(ASCII_MATH.search(tex(t).replace("\\_", "_").replace("\\^{}", "^")))
               for t in TITLES) > 50
    bad = [(t, text_part(title_tex(t))) for t in TITLES if ASCII_MATH.search(
        text_part(title_tex(t)).replace("\\_", "_").replace("\\^{}", "^"))]
    assert not bad, bad[:5]


@pytest.mark.parametrize("title,piece", [
    ("omega_min ≈ 1/10000 for every d", r"\(\omega _{\min} \approx  1/10000\)"),
    ("||PE(p) - PE(p+k)||^2 = d - 2 sum_i cos(omega_i k)", r"\|PE(p) - PE(p+k)\|^{2}"),
    ("The exception: with no content and W_Q W_K^T = I", r"\(W_{Q} W_{K}^{T} = I\)"),
    ("Seed 000 read literally: reversing 'the cat sat'", "read literally"),
])
def test_title_examples(title, piece):
    assert piece in title_tex(title)


def test_titles_balance_their_math_delimiters():
    for t in TITLES:
        out = title_tex(t)
        assert out.count(r"\(") == out.count(r"\)"), t
        for m in re.finditer(r"\\\((.*?)\\\)", out):
            body = re.sub(r"\\[{}]", "", m.group(1))
            assert body.count("{") == body.count("}"), (t, m.group(1))


# ---------------------------------------------------------------------------- numbers
def _mp(x) -> Decimal:
    return Decimal(mpmath.nstr(x, 60, strip_zeros=False))


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**12, 10**12), st.integers(-30, 30), st.integers(0, 40),
       st.integers(2, 14))
def test_a_printed_ball_contains_every_point_of_the_ball(m, e, r, digits):
    """fmt.ball rounds outward: the printed interval contains the whole ball."""
    with flint.ctx.workprec(200):
        b = flint.arb(flint.fmpq(m)) * flint.arb(10) ** e + flint.arb(0, flint.fmpq(r, 10**6))
        text = b.str(30, radius=True)
    lo, hi = fmt.parse_ball(text)
    plo, phi = fmt.read_back(fmt.ball(text, digits))
    assert plo <= lo and hi <= phi, (text, fmt.ball(text, digits))


def test_printed_digits_are_shared_by_the_whole_ball():
    for text, want in [("[628.31853071795864769 +/- 2.53e-18]", r"$628.3185\ldots$"),
                       ("[0.99999999999 +/- 1e-10]", r"$[0.99999,\ 1.0001]$"),
                       ("10000.000000000000000", "$10\\,000$")]:
        assert fmt.digits(text, 7 if "628" in text else 5) == want, text


def test_pi_printed_from_its_enclosure_contains_pi():
    """The false certificate of the old record: a float64 printed with 20 decimals is a
    zero-width interval that misses pi; the ball printed outward contains it."""
    with mpmath.workdps(60):
        pi = _mp(mpmath.pi)
    old = Decimal(f"{float(mpmath.pi):.20f}")
    assert not (old <= pi <= old), "the old way no longer fails?"
    with flint.ctx.workprec(128):
        text = flint.arb.pi().str(25, radius=True)
    lo, hi = fmt.read_back(fmt.ball(text, 20))
    assert lo <= pi <= hi and lo < hi


def test_the_chain_axioms_print_enclosures_that_contain_pi_and_omega_min():
    """The trusted base of the certified-chain claims states intervals for pi and omega_min:
    each must contain the exact value (read independently with mpmath)."""
    from peproof.verdicts import verdict_of

    for d in (4, 512):
        v = verdict_of(f"uniqueness.lowest_angle_inside_turn_d{d}")
        texts = {a.split(" in ")[0]: a for a in v.axioms if " in [" in a}
        with mpmath.workdps(60):
            exact = {"pi": _mp(mpmath.pi),
                     "omega_min": _mp(mpmath.power(10000, mpmath.mpf(-(d - 2)) / d))}
        for name, value in exact.items():
            lo, hi = (Decimal(x) for x in re.search(r"\[([^,]+), ([^\]]+)\]",
                                                    texts[name]).groups())
            assert lo <= value <= hi, (d, texts[name])


# ---------------------------------------------------------------------------- named terms
def test_named_sums_are_exactly_the_named_term():
    """The distance statement prints ||PE(pos) - PE(k + pos)||^2; a sum that differs (cos
    swapped for sin in one square) is not given the name."""
    st_ = registry.get("distance.sq_eq_two_sum_one_minus_cos").statement
    lhs = st_.concl[0].lhs
    n = named.recognise(lhs)
    assert n is not None and n.kind == "dist_sq" and r"\|PE(pos) - PE(k + pos)\|" in n.tex
    s, c = sp.sin, sp.cos
    wrong = lhs.replace(lambda e: isinstance(e, sp.Pow) and e.exp == 2 and e.base.has(c),
                        lambda e: (e.base.replace(c, s)) ** 2)
    assert wrong != lhs and named.recognise(wrong) is None


def test_a_named_statement_reads_back_and_an_edited_one_does_not():
    st_ = registry.get("inner_product.eq_sum_cos_offset").statement
    p = formulas.render_statement(st_)
    assert any(r"\langle PE(pos), PE(k + pos)\rangle" in r for r in p.rows)
    assert all(c.ok for c in p.checks)
    text = p.checks[-1].text
    names: dict = {}
    rhs = named.abbreviate(st_.concl[0].rhs, names)
    table = {**formulas.symbol_table(st_.concl[0].rhs),
             **{"{" + n.tex + "}": ph for ph, n in names.items()}}
    domains = {v.symbol: v.domain for v in st_.vars}
    assert formulas.check_text(text, rhs, table, domains, {}).ok
    wrong = text.replace(r"\cos", r"\sin", 1)
    assert wrong != text
    assert formulas.check_text(wrong, rhs, table, domains, {}).status in ("mismatch", "unparsed")


def test_no_statement_is_replaced_by_a_description():
    """Every conclusion of every statement is printed or counted in a printed form."""
    for c in registry.all_claims():
        if c.statement is None or len(c.statement.concl) > 200:
            continue
        p = formulas.render_statement(c.statement)
        assert p.shown == len(c.statement.concl), c.id
        assert not any("too long" in r for r in p.rows), c.id


# ---------------------------------------------------------------------------- the findings' data
def test_every_refuted_claim_of_the_sources_is_classified():
    """error / literal reading / inference the sources reject: data in the registry."""
    refuted = [c for c in registry.all_claims() if c.expect == "refuted" and c.sources]
    assert refuted
    missing = [c.id for c in refuted if c.erratum is None]
    assert not missing, missing
    errors = sorted((c.erratum.rank, c.id) for c in refuted if c.erratum.kind == "error")
    assert len({r for r, _ in errors}) == len(errors), "ranks order the errors: no ties"


def test_an_erratum_is_only_for_a_claim_expected_refuted():
    from peproof.claims import Claim, Erratum

    with pytest.raises(ValueError):
        Claim("x.y_z", "t", (), None, "informal", expect="proved", erratum="literal")
    with pytest.raises(ValueError):
        Erratum("typo")
    with pytest.raises(ValueError):
        Erratum("error")  # an error needs its rank and consequence


def test_every_cited_seed_has_a_title_in_the_project_data():
    from peproof.seeds import source_info

    cited = {s.seed for c in registry.all_claims() for s in c.sources}
    assert all(source_info(k) for k in cited), [k for k in cited if not source_info(k)]
    assert source_info("arXiv:0000.00000") is None  # an undescribed key is noticed


@pytest.mark.parametrize("text", ["L/high_freq_factor", "rotate_every_two(x) sin",
                                  "inv_freq * s", "x cos + rotate_half(x) sin"])
def test_code_names_are_not_double_subscripts(text):
    """Caught: ``high_freq_factor`` typeset as h_{freq}_{factor} (TeX: Double subscript)."""
    from peproof_report.mathtext import ascii_math, title_tex

    for out in (ascii_math(text), title_tex(text)):
        assert not re.search(r"_\{[^{}]*\}_", out), out
    assert ascii_math("omega_min") == r"\omega _{\min}" and ascii_math("B_d(k)") == "B_{d}(k)"
