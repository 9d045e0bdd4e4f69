"""A :class:`Claim` from the command line's ``--statement``, ``--assume``, ``--domain`` and
``--exists`` (``peproof prove --statement``).

Every name of the text other than the vocabulary (:mod:`peproof.user.vocab`) and the
functions of :mod:`peproof.user.build` is a variable, declared with ``--domain NAME=DOMAIN``
(no default: a misspelt function is never silently a real variable).  Domains are those of
:data:`peproof.claims.DOMAINS`, and the aliases of :data:`ALIASES`.  The statement is
universally quantified unless ``--exists``; ``--assume`` relations are its hypotheses.
"""

from __future__ import annotations

import keyword
import re

import sympy as sp

from peproof.claims import DOMAINS, Claim, Source, Statement, var
from peproof.encoding import Encoding
from peproof.user.build import CONSTANTS, FUNCTIONS, REFUSED, RELATIONS, Builder
from peproof.user.meaning import dropped
from peproof.user.parse import TextError, parse
from peproof.user.vocab import paper, vocabulary

ALIASES = {"positive": "pos_real", "natural": "nonneg_integer", "nonnegative_integer":
           "nonneg_integer", "positive_integer": "pos_integer"}
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
USER_ID = "user.statement"


def parse_domains(items, enc: Encoding) -> dict[str, str]:
    """``["x=real", "k=integer"]`` -> ``{"x": "real", "k": "integer"}`` (one-line errors)."""
    reserved = set(vocabulary(enc)) | set(FUNCTIONS) | set(CONSTANTS) | set(REFUSED) \
        | set(RELATIONS) | {"Sum"}
    allowed = ", ".join(DOMAINS + tuple(ALIASES))
    out: dict[str, str] = {}
    for item in items or ():
        name, eq, dom = item.partition("=")
        name, dom = name.strip(), dom.strip()
        if not eq or not NAME_RE.match(name) or "__" in name or keyword.iskeyword(name):
            raise TextError(f"--domain {item!r}: NAME=DOMAIN expected, NAME letters, digits "
                            f"and '_' starting with a letter (domains: {allowed})")
        if name in reserved:
            raise TextError(f"--domain {item!r}: {name!r} is a word of the statement language, "
                            "not a variable")
        dom = ALIASES.get(dom, dom)
        if dom not in DOMAINS:
            raise TextError(f"--domain {item!r}: unknown domain {dom!r} (domains: {allowed})")
        if name in out:
            raise TextError(f"--domain {name!r} given twice")
        out[name] = dom
    return out


def user_statement(text: str, assumes=(), domains=(), exists: bool = False,
                   enc: Encoding | None = None) -> Statement:
    """The :class:`Statement` of ``text`` (see the module's docstring); :class:`TextError`
    (a one-line usage error) for anything outside the language."""
    enc = enc or paper()
    doms = parse_domains(domains, enc)
    symbols, vars_ = {}, {}
    for name, dom in doms.items():
        symbols[name], vars_[name] = var(name, dom)
    b = Builder(symbols, vocabulary(enc))
    concl = b.relations(parse(text))
    _keeps_its_conditions(concl, text, symbols, enc, "the statement")
    hyps = []
    for n, h in enumerate(assumes or (), 1):
        label = f"--assume #{n}"
        rels = b.relations(parse(h, label=label))
        _keeps_its_conditions(rels, h, symbols, enc, label)
        hyps += rels
    unused = sorted(set(doms) - b.used)
    if unused:
        raise TextError(f"--domain {unused[0]}: {unused[0]!r} occurs in no relation")
    return Statement(tuple(concl), tuple(vars_[n] for n in doms), tuple(hyps),
                     "exists" if exists else "forall")


def _keeps_its_conditions(built, text: str, symbols: dict, enc: Encoding, label: str) -> None:
    """Refuse ``text`` when SymPy's construction dropped a condition of a written term
    (:mod:`peproof.user.meaning`: ``x/x`` built as ``1``)."""
    with sp.evaluate(False):
        written = Builder(symbols, vocabulary(enc)).relations(parse(text, label=label))
    lost = dropped(written, built)
    if lost:
        term, cond, as_built = lost
        raise TextError(f"{label}: the term {term} needs {cond}, which SymPy's construction "
                        f"drops (it builds {as_built}), so it would be decided without it: "
                        "write the term as SymPy builds it and state the condition with "
                        "--assume")


def user_claim(text: str, assumes=(), domains=(), exists: bool = False,
               enc: Encoding | None = None, claim_id: str = USER_ID) -> Claim:
    """The claim ``peproof prove --statement`` decides: the user expects it ``proved``."""
    st = user_statement(text, assumes, domains, exists, enc)
    ops = {r.op for r in st.concl}
    kind = "existential" if exists else ("identity" if ops == {"=="} else "inequality")
    where = (enc or paper()).describe()
    quote = text + "".join(f"; assuming {a}" for a in assumes or ())
    return Claim(claim_id, f"the user's statement: {text}",
                 Source("user", f"--statement ({where})", quote), st, kind,
                 note=f"stated on the command line for the encoding {where}")
