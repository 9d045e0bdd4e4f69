"""The uniqueness horizon ``2 pi / omega_min`` as a closed form of the law in force.

The closed form is read off the one definition of the frequencies (:func:`peproof.scope.omega`,
i.e. :func:`peproof.encoding.omega_expr`), never typed per family: the slowest frequency
``omega(d/2 - 1, d)`` is split into ``c * b**e`` (``c`` free of ``d``) and the horizon is written
``(2 pi / c) * b**(-e)`` with the exponent ``-e`` put over one denominator (``sympy.cancel``):

* the paper, ``base**(-2i/d)``:           ``2 pi base**((d - 2)/d)``
* h-1, ``base**(-i/(d/2 - 1))``:          ``2 pi base`` (the exponent cancels to 1)
* a frequency scale ``max_freq`` (or turns, ``2 pi``): divides the horizon.

Cancelling is how the statement is *written*; that the definition's ``2 pi / omega_min`` equals
it is what the claim states and the engines decide (``uniqueness.slowest_pair_wraps_at_exact_
position``).  A wrong exponent here is a refuted claim, not a wrong number.
"""

from __future__ import annotations

import sympy as sp

from peproof import scope
from peproof.claims import Claim, Falsifier, Statement, Verdict

PI2 = 2 * sp.pi


def split(law: tuple = ()) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``(c, b, x)`` with ``2 pi / omega_min = (2 pi / c) * b**x`` for a symbolic ``d`` in the
    law in force (``law``: an explicit law, ``("paper",)`` for the paper's)."""
    from peproof.families._common import d

    om = scope.omega(d / 2 - 1, d, *law)
    const, dep = om.as_independent(d, as_Add=False)
    b, e = dep.as_base_exp()
    return const, b, sp.cancel(-e)


def wrap(law: tuple = ()) -> sp.Expr:
    """``2 pi / omega_min`` from the definition (the law in force, or ``law``)."""
    from peproof.families._common import d

    return PI2 / scope.omega(d / 2 - 1, d, *law)


def closed_form(law: tuple = ()) -> sp.Expr:
    """The horizon written in closed form, read off the definition (module docstring)."""
    c, b, x = split(law)
    return PI2 / c * b ** x


def text(law: tuple = ()) -> str:
    """The closed form as a title writes it: ``2 pi 10000^((d-2)/d)``, ``2 pi 10000``, ..."""
    c, b, x = split(law)
    coeff = sp.sstr(PI2 / c).replace("*pi", " pi").replace("pi*", "pi ")
    if x == 1:
        return f"{coeff} {b}" if coeff != "1" else f"{b}"
    ex = sp.sstr(x).replace(" ", "")
    return f"{coeff} {b}^({ex})" if coeff != "1" else f"{b}^({ex})"


def text_approx(law: tuple = ()) -> str:
    """``2 pi base / c`` as a title writes it (the seed's ``2 pi 10000``)."""
    c, b, _ = split(law)
    coeff = sp.sstr(PI2 / c).replace("*pi", " pi").replace("pi*", "pi ")
    return f"{coeff} {b}" if coeff != "1" else f"{b}"


def decimal(r: sp.Rational, places: int, sep: str = ",") -> str:
    """A rational with ``places`` decimals, thousands separated by ``sep`` (``60,611.5``)."""
    q = sp.Rational(r) * 10**places
    if q.q != 1:
        raise ValueError(f"{r} has more than {places} decimals")
    n = int(q)
    whole, frac = divmod(abs(n), 10**places)
    sign = "-" if n < 0 else ""
    return f"{sign}{whole:,}".replace(",", sep) + (f".{frac:0{places}d}" if places else "")


def slowest_is_last_why() -> str:
    """Why pair ``d/2 - 1`` is not the slowest in the law in force ('' when it is: the
    frequencies fall with ``i``).  Read at ``d = 8``, from the definition."""
    w0, w1 = scope.omega(0, 8), scope.omega(1, 8)
    if (w1 - w0).is_negative:
        return ""
    return (f"the frequencies grow with the pair index (omega_0 = {w0}, omega_1 = {w1} at "
            "d = 8): pair d/2 - 1 is the fastest, not the slowest, and the slowest pair (i = 0) "
            "wraps at the same position for every d; there is no horizon growing with d")


def rounded(x: sp.Expr, places: int) -> sp.Rational:
    """``x`` rounded to ``places`` decimals (evaluated at 50 digits; the claim stating it is
    decided by the engines, so a rounding slip is a refuted claim, never a wrong ``proved``)."""
    unit = 10**places
    return sp.Rational(int(sp.floor(sp.N(x * unit, 50) + sp.Rational(1, 2))), unit)


def rewrite_by(lemma_id: str):
    """Proof function: the statement with ``lhs`` replaced by ``rhs`` everywhere, where the
    lemma ``lemma_id`` is proved and its first conclusion is ``lhs = rhs`` (checked
    structurally), its variables and hypotheses among the statement's; the rewritten statement
    is decided by the default engines (equal under the hypotheses, so its verdict is the
    statement's; a witness is certified again on the statement by the gate)."""

    def proof(stmt: Statement, claim: Claim) -> Verdict:
        from peproof import registry
        from peproof.engines.decide import decide_statement
        from peproof.verdicts import verdict_of

        ver = f"peproof rewriting; sympy {sp.__version__}"
        lemma = registry.get(lemma_id).statement
        lv = verdict_of(lemma_id)
        eq = lemma.concl[0] if lemma.concl else None
        fits = (eq is not None and eq.op == "==" and set(lemma.vars) <= set(stmt.vars)
                and set(lemma.hyps) <= set(stmt.hyps) and lemma.quant == stmt.quant == "forall")
        if lv.status != "proved" or not fits:
            return Verdict("unknown", "chain", ver, "rewriting by a proved identity",
                           reason=f"{lemma_id} is {lv.status} (or does not fit: {fits})")
        new = Statement(tuple(r.map(lambda e: e.xreplace({eq.lhs: eq.rhs})) for r in stmt.concl),
                        stmt.vars, stmt.hyps, stmt.quant)
        v = decide_statement(new)
        v.trace = [f"{eq.lhs} = {eq.rhs} by {lemma_id} (proved: {lv.method}); rewritten: "
                   f"{new}"] + list(v.trace)
        if v.status == "proved":
            v.axioms = tuple(v.axioms) + (f"lemma {lemma_id} (proved: {lv.engine}, "
                                          f"{lv.method})",)
        return v

    return proof


def your_width(wrap_def: sp.Expr, sources: tuple) -> list[Claim]:
    """For an additive variant: the horizon at the variant's own width (``wrap_def``: the
    family's ``2 pi/omega_min``), the paper's beside it
    (both numbers stated to three decimals and decided; ``peproof prove --variant`` prints them
    from this claim)."""
    from peproof.families._common import d
    from peproof.families.worked import near

    R = sp.Rational
    v = scope.current()
    if not isinstance(v, scope.Sinusoidal):
        return []
    dd = v.d
    paper_law = ("paper",)
    mine, theirs = rounded(closed_form().subs(d, dd), 3), rounded(
        closed_form(paper_law).subs(d, dd), 3)
    tol = R(1, 2000)
    st = Statement(near(wrap_def.subs(d, dd), mine, tol)
                   + near(wrap(paper_law).subs(d, dd), theirs, tol))
    c = Claim(
        "uniqueness.wrap_position_at_your_width",
        f"At your width d = {dd} the slowest pair first wraps at pos = 2 pi/omega_min = "
        f"{decimal(mine, 3)} ({text()}); the paper's encoding at d = {dd}: "
        f"{decimal(theirs, 3)} (2 pi 10000^((d-2)/d))",
        sources, st, "numeric",
        uses=("uniqueness.slowest_pair_wraps_at_exact_position",),
        falsifiers=(
            Falsifier("last_digit", Statement(near(wrap_def.subs(d, dd), mine + R(1, 1000), tol)),
                 "the last decimal one more"),
            Falsifier("doubled", Statement(near(wrap_def.subs(d, dd), 2 * mine, tol)), "twice it"),
        ),
        note="Both numbers to three decimals (|x - r| <= 0.0005), each from the frequency law's "
             "own definition at this width, decided in ball arithmetic.",
    )
    c.numbers = {"variant": decimal(mine, 3, ""), "paper": decimal(theirs, 3, ""), "d": dd}
    return [c]
