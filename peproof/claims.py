"""The claims model: statements, sources, falsifiers, verdicts.

A :class:`Claim` is stated once and read by everything else (``pytest proofs``, the CLI, the
report, the oracle).  Its :class:`Statement` is a conjunction of relations between SymPy
expressions, universally (or existentially) quantified over typed variables, under hypotheses.
Verdicts are computed by the engines (``peproof.engines``) and never typed by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

import sympy as sp

DOMAINS = (
    "real",
    "pos_real",
    "rational",
    "integer",
    "nonneg_integer",
    "pos_integer",
    "even_pos_integer",
)
INT_DOMAINS = frozenset({"integer", "nonneg_integer", "pos_integer", "even_pos_integer"})
KINDS = ("identity", "inequality", "numeric", "integer", "existential", "informal")
#: how a refuted statement of the sources relates to what the sources mean (see :class:`Erratum`)
ERRATA = ("error", "literal", "rejected-inference")
STATUSES = ("proved", "refuted", "unknown")
ID_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*\.[a-z0-9]+(_[a-z0-9]+)*$")
OPS = ("==", "<=", "<", "!=")


@dataclass(frozen=True)
class Var:
    symbol: sp.Symbol
    domain: str

    def __post_init__(self):
        if self.domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS}, got {self.domain!r}")


@dataclass(frozen=True)
class Rel:
    """``lhs op rhs`` with ``op`` in ``==, <=, <, !=``."""

    op: str
    lhs: sp.Expr
    rhs: sp.Expr

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"op must be one of {OPS}, got {self.op!r}")
        object.__setattr__(self, "lhs", sp.sympify(self.lhs))
        object.__setattr__(self, "rhs", sp.sympify(self.rhs))
        if isinstance(self.lhs, sp.MatrixBase) or isinstance(self.rhs, sp.MatrixBase):
            raise ValueError("a relation compares scalar terms; compare matrices entry by entry "
                             "with peproof.claims.mat_eq (shapes first)")

    def map(self, f) -> Rel:
        return Rel(self.op, f(self.lhs), f(self.rhs))

    def map_rhs(self, f) -> Rel:
        return Rel(self.op, self.lhs, f(self.rhs))

    def sympy(self):
        cls = {"==": sp.Eq, "<=": sp.Le, "<": sp.Lt, "!=": sp.Ne}[self.op]
        return cls(self.lhs, self.rhs, evaluate=False)

    def latex(self) -> str:
        op = {"==": "=", "<=": r"\le", "<": "<", "!=": r"\ne"}[self.op]
        return f"{sp.latex(self.lhs)} {op} {sp.latex(self.rhs)}"

    def __str__(self) -> str:
        return f"{sp.sstr(self.lhs)} {self.op} {sp.sstr(self.rhs)}"


def Eq(lhs, rhs) -> Rel:  # noqa: N802 - reads like the relation it builds
    return Rel("==", lhs, rhs)


def Le(lhs, rhs) -> Rel:  # noqa: N802
    return Rel("<=", lhs, rhs)


def Lt(lhs, rhs) -> Rel:  # noqa: N802
    return Rel("<", lhs, rhs)


def Ne(lhs, rhs) -> Rel:  # noqa: N802
    return Rel("!=", lhs, rhs)


def mat_eq(a, b) -> tuple[Rel, ...]:
    """Entrywise equalities of two matrices or sequences of the same shape (a flat sequence is
    a column).  Shapes are compared first: a 4x1 and a 2x2 matrix, or a column and a row, are
    never equal, whatever their entries (ValueError)."""
    ma, mb = sp.Matrix(a), sp.Matrix(b)
    if ma.shape != mb.shape:
        raise ValueError(f"shapes differ: {ma.shape[0]}x{ma.shape[1]} vs "
                         f"{mb.shape[0]}x{mb.shape[1]}; matrices of different shapes are "
                         "never equal")
    return tuple(Eq(x, y) for x, y in zip(list(ma), list(mb), strict=True))


@dataclass(frozen=True)
class Statement:
    """``quant vars; hyps: concl`` (conclusions conjoined).  Every engine first passes it through
    :mod:`peproof.engines.wellformed`: exact numbers, known functions, symbols whose assumptions
    follow from their domains, distinct names, side conditions proved (else no proof)."""

    concl: tuple[Rel, ...]
    vars: tuple[Var, ...] = ()
    hyps: tuple[Rel, ...] = ()
    quant: Literal["forall", "exists"] = "forall"

    def __post_init__(self):
        if isinstance(self.concl, Rel):
            object.__setattr__(self, "concl", (self.concl,))
        object.__setattr__(self, "concl", tuple(self.concl))
        object.__setattr__(self, "hyps", tuple(self.hyps))
        object.__setattr__(self, "vars", tuple(self.vars))
        if self.quant not in ("forall", "exists"):
            raise ValueError(f"quant must be forall or exists, got {self.quant!r}")
        declared = {v.symbol for v in self.vars}
        free = set()
        for r in self.concl + self.hyps:
            free |= r.lhs.free_symbols | r.rhs.free_symbols
        missing = free - declared
        if missing:
            raise ValueError(f"undeclared symbols {sorted(map(str, missing))} in statement")

    @cached_property
    def _domains(self) -> dict:
        return {v.symbol: v.domain for v in self.vars}

    def domain(self, s: sp.Symbol) -> str:
        return self._domains[s]

    def with_concl(self, concl) -> Statement:
        return replace(self, concl=tuple(concl) if not isinstance(concl, Rel) else (concl,))

    def map_rhs(self, f, index=None) -> Statement:
        """A copy with ``f`` applied to the right-hand sides (all, or the conclusions ``index``:
        an int, a slice or a collection of ints)."""
        n = len(self.concl)
        if index is None:
            chosen = set(range(n))
        elif isinstance(index, int):
            chosen = {index}
        elif isinstance(index, slice):
            chosen = set(range(n)[index])
        else:
            chosen = set(index)
        concl = tuple(r.map_rhs(f) if j in chosen else r for j, r in enumerate(self.concl))
        return replace(self, concl=concl)

    def latex(self) -> str:
        body = r" \;\wedge\; ".join(r.latex() for r in self.concl[:4])
        if len(self.concl) > 4:
            body += rf" \;\wedge\; \dots\ ({len(self.concl)} relations)"
        if not self.vars:
            return body
        q = r"\forall" if self.quant == "forall" else r"\exists"
        names = ", ".join(sp.latex(v.symbol) for v in self.vars)
        hyp = ""
        if self.hyps:
            hyp = r",\ " + r",\ ".join(h.latex() for h in self.hyps)
        return rf"{q}\, {names}{hyp}:\ {body}"

    def __str__(self) -> str:
        body = " and ".join(str(r) for r in self.concl[:3])
        if len(self.concl) > 3:
            body += f" and ... ({len(self.concl)} relations)"
        if not self.vars:
            return body
        q = "forall" if self.quant == "forall" else "exists"
        names = ", ".join(f"{v.symbol}:{v.domain}" for v in self.vars)
        hyp = ("; " + ", ".join(str(h) for h in self.hyps)) if self.hyps else ""
        return f"{q} {names}{hyp}: {body}"


@dataclass(frozen=True)
class Source:
    """Where a claim comes from: seed file, section, and the sentence it checks."""

    seed: str
    section: str
    quote: str


@dataclass(frozen=True)
class Erratum:
    """What a refuted claim says about its sources (read by the report's findings).

    ``kind``: ``error``, the sources state something false; ``literal``, the sentence is false
    only when read to the letter (its intended meaning is proved beside it);
    ``rejected-inference``, an inference the sources themselves warn against.  ``rank`` orders
    the errors by consequence (1 = the one a reader most needs to know), and ``consequence``
    says in one sentence what a reader who trusted the sentence would get wrong.
    """

    kind: str
    rank: int = 0
    consequence: str = ""

    def __post_init__(self):
        if self.kind not in ERRATA:
            raise ValueError(f"erratum kind must be one of {ERRATA}, got {self.kind!r}")
        if self.kind == "error" and (self.rank < 1 or not self.consequence):
            raise ValueError("an error of the sources needs a rank >= 1 and its consequence")


@dataclass(frozen=True)
class Falsifier:
    """A deliberately wrong variant of a claim; the engines must refute it with a witness."""

    name: str
    statement: Statement
    note: str = ""


@dataclass
class Verdict:
    status: str
    engine: str
    version: str
    method: str
    axioms: tuple[str, ...] = ()
    seconds: float = 0.0
    witness: dict | None = None
    trace: list[str] = field(default_factory=list)
    reason: str = ""
    # the kernels that decided it (the exponential procedure's proofs name SymPy and FLINT) and
    # the certificates the second kernel re-checked (peproof.kernel.flint_check)
    kernels: tuple[str, ...] = ()
    certificates: list[dict] = field(default_factory=list)
    # set by the falsification gate (peproof.kernel.falsify) when an engine's verdict met a
    # certified point against it: both verdicts and the point; the status is then ``unknown``
    conflict: dict | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "refuted" and not self.witness:
            raise ValueError("a refuted verdict needs a certified witness")

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "engine": self.engine,
            "version": self.version,
            "method": self.method,
            "axioms": list(self.axioms),
            "seconds": round(self.seconds, 6),
            "witness": self.witness,
            "trace": list(self.trace),
            "reason": self.reason,
            "kernels": list(self.kernels),
            "certificates": list(self.certificates),
            **({"conflict": self.conflict} if self.conflict else {}),
        }


class Claim:
    """One statement about the encoding, stated once.

    ``expect`` is the team's reading of the sources (``proved`` for a true statement,
    ``refuted`` for one the seeds get wrong, ``unknown`` for informal ones); the tests compare
    it with the computed verdict, the report prints only the computed verdict.  A refuted claim
    names its ``companion``: the corrected statement, proved beside it, and its ``erratum``
    (:class:`Erratum`, its fields as a tuple, or just its kind as a string): an error of the
    sources, a literal reading, or an inference the sources reject.

    ``statement`` may be given as a zero-argument callable and ``falsifiers`` as a callable of the
    statement; both are then built on first use (large concrete-``d`` statements stay cheap to
    import).
    """

    def __init__(
        self,
        id: str,
        title: str,
        sources,
        statement,
        kind: str,
        uses=(),
        falsifiers=(),
        expect: str = "proved",
        companion: str | None = None,
        note: str = "",
        proof=None,
        erratum: Erratum | tuple | str | None = None,
    ):
        if not ID_RE.match(id):
            raise ValueError(f"claim id {id!r} must look like family.snake_case_name")
        if kind not in KINDS:
            raise ValueError(f"{id}: kind must be one of {KINDS}, got {kind!r}")
        if expect not in STATUSES:
            raise ValueError(f"{id}: expect must be one of {STATUSES}")
        self.id, self.title, self.kind = id, title, kind
        self.sources = (sources,) if isinstance(sources, Source) else tuple(sources)
        self.uses = tuple(uses)
        self.expect, self.companion, self.note, self.proof = expect, companion, note, proof
        if isinstance(erratum, str):
            erratum = Erratum(erratum)
        elif isinstance(erratum, tuple):
            erratum = Erratum(*erratum)
        if erratum is not None and expect != "refuted":
            raise ValueError(f"{id}: only a claim expected refuted classifies an erratum")
        self.erratum = erratum
        self._statement = statement
        self._falsifiers = falsifiers

    @property
    def statement(self) -> Statement | None:
        if callable(self._statement):
            self._statement = self._statement()
        return self._statement

    @property
    def falsifiers(self) -> tuple[Falsifier, ...]:
        if callable(self._falsifiers):
            self._falsifiers = tuple(self._falsifiers(self.statement))
        return tuple(self._falsifiers)

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    def __repr__(self) -> str:
        return f"Claim({self.id!r})"


_ASSUME = {
    "real": {"real": True},
    "pos_real": {"positive": True},
    "rational": {"rational": True},
    "integer": {"integer": True},
    "nonneg_integer": {"integer": True, "nonnegative": True},
    "pos_integer": {"integer": True, "positive": True},
    "even_pos_integer": {"even": True, "positive": True},
}


def var(name: str, domain: str) -> tuple[sp.Symbol, Var]:
    """A SymPy symbol whose assumptions match ``domain``, and its :class:`Var`."""
    s = sp.Symbol(name, **_ASSUME[domain])
    return s, Var(s, domain)


def assumptions_match(v: Var) -> bool:
    """The symbol carries exactly the assumptions its domain asks for (checked by meta-tests)."""
    want = _ASSUME[v.domain]
    return all(getattr(v.symbol, f"is_{k}") is val for k, val in want.items())
