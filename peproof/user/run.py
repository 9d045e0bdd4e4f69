"""The user's claims on the command line: the options ``prove`` and ``report`` share, and the
claims they select.

    peproof prove --statement 'sin(x)**2 + cos(x)**2 == 1' --domain x=real
    peproof prove --statement 'PE(pos, 0) <= 1/2' --domain pos=real       # refuted: witness
    peproof prove --claims my_claims.py

A statement is the claim ``user.statement``, expected ``proved``: the exit code is 0 when it
is proved and 1 otherwise (refuted, unknown, or engines in conflict), as for a registry claim
whose verdict differs from its expectation.  A claims file's claims carry their own
expectations.  Both run through :func:`peproof.results.run` like the registry's claims.
"""

from __future__ import annotations

from peproof.guard import UsageError


def add_arguments(p) -> None:
    """``--statement --assume --domain --exists --claims`` on the parser ``p``."""
    g = p.add_argument_group("the user's own claims (instead of the registry's)")
    g.add_argument("--statement", metavar="TEXT",
                   help="decide this relation, in SymPy's syntax (parsed, never executed), "
                   "e.g. 'PE(pos, 0)**2 + PE(pos, 1)**2 == 1'; vocabulary: PE(pos, j), "
                   "omega(i), M(k), d, base, sin cos tan exp log sqrt atan Abs floor ceiling "
                   "Mod Max Min Sum pi E")
    g.add_argument("--assume", action="append", default=[], metavar="REL",
                   help="a hypothesis of the statement (repeatable)")
    g.add_argument("--domain", action="append", default=[], metavar="NAME=DOMAIN",
                   help="declare a variable: real, pos_real (positive), rational, integer, "
                   "nonneg_integer (natural), pos_integer, even_pos_integer (repeatable)")
    g.add_argument("--exists", action="store_true",
                   help="the statement is existential (default: for all)")
    g.add_argument("--claims", metavar="FILE.py",
                   help="decide the claims of this Python file's CLAIMS list (a plugin: the "
                   "file is run)")


def wants_user(args) -> bool:
    return bool(getattr(args, "statement", None) is not None or getattr(args, "claims", None)
                or getattr(args, "assume", None) or getattr(args, "domain", None)
                or getattr(args, "exists", False))


def user_claims(args, enc=None) -> list:
    """The claims the options select (``enc``: the encoding of the vocabulary, the paper's
    by default); one-line :class:`UsageError` for a wrong combination."""
    if args.statement is not None and args.claims:
        raise UsageError("--statement and --claims: one at a time")
    if getattr(args, "pattern", None):
        raise UsageError("a claim pattern selects registry claims: drop it with --statement "
                         "or --claims")
    if args.claims:
        if args.assume or args.domain or args.exists:
            raise UsageError("--assume, --domain and --exists go with --statement")
        from peproof.user.plugin import load_claims

        return load_claims(args.claims)
    if args.statement is None:
        raise UsageError("--assume, --domain and --exists need --statement")
    from peproof.user.statement import user_claim

    enc = enc if enc is not None else encoding_of(args)
    return [user_claim(args.statement, args.assume, args.domain, args.exists, enc)]


def encoding_of(args):
    """The encoding of ``--variant SPEC`` when the command has that option (its parser,
    ``peproof.variant.parse``, is another module's: used only when present), else ``None``
    (the paper's).  A RoPE variant has no ``PE``/``omega`` vocabulary: refused in one line."""
    spec = getattr(args, "variant", None)
    if not spec:
        return None
    import importlib

    from peproof.encoding import Encoding

    try:
        variant = importlib.import_module("peproof.variant")
    except ImportError:
        raise UsageError("--variant: this installation has no variant parser") from None
    try:
        v = variant.parse(spec)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0] if str(exc) else "--variant: bad SPEC") \
            from None
    v = getattr(v, "encoding", v)
    if not isinstance(v, Encoding):
        raise UsageError(f"--variant {spec!r} with --statement: the statement's vocabulary "
                         "(PE, omega, M, d, base) is the sinusoidal encoding's; this variant "
                         f"is a {type(v).__name__}")
    return v


def witness_lines(res: dict) -> list[str]:
    """One line per refuted claim of a results envelope: its certified witness."""
    out = []
    for c in res["claims"]:
        v = c["verdict"]
        if v["status"] != "refuted" or not v.get("witness"):
            continue
        w = v["witness"]
        point = w.get("point")
        at = ", ".join(f"{k} = {val}" for k, val in point.items()) if point else "-"
        extra = {k: val for k, val in w.items() if k != "point"}
        detail = "; ".join(f"{k}: {val}" for k, val in extra.items())
        out.append(f"{c['id']}: refuted at {at}" + (f" ({detail})" if detail else ""))
    return out
