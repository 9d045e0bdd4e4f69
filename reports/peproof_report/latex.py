"""LaTeX-safe text: escaping, the non-ASCII characters the sources use, claim ids that break.

Every string that reaches the document from data (titles, notes, seed quotes, engine traces)
goes through :func:`tex`; the templates never print raw data.  Characters outside ASCII are
mapped explicitly (:data:`UNICODE`); an unmapped one is replaced by a visible marker and
recorded, so a test can require that none occurs.
"""

from __future__ import annotations

import re
import unicodedata

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\^{}",
    "~": r"\~{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': "''",
}

#: non-ASCII characters met in the sources and the engines' output, as LaTeX
UNICODE = {
    "\u2014": "---",  # em dash
    "\u2013": "--",  # en dash
    "\u2018": "`",
    "\u2019": "'",
    "\u201c": "``",
    "\u201d": "''",
    "\u2026": r"\dots{}",
    "\u00a0": "~",
    "\u00b7": r"\ensuremath{\cdot}",
    "\u00d7": r"\ensuremath{\times}",
    "\u2212": r"\ensuremath{-}",
    "\u2248": r"\ensuremath{\approx}",
    "\u223c": r"\ensuremath{\sim}",
    "\u22c5": r"\ensuremath{\cdot}",
    "\u2208": r"\ensuremath{\in}",
    "\u22a4": r"\ensuremath{\top}",
    "\u2264": r"\ensuremath{\le}",
    "\u2265": r"\ensuremath{\ge}",
    "\u2260": r"\ensuremath{\ne}",
    "\u2192": r"\ensuremath{\to}",
    "\u21a6": r"\ensuremath{\mapsto}",
    "\u221e": r"\ensuremath{\infty}",
    "\u2211": r"\ensuremath{\sum}",
    "\u221a": r"\ensuremath{\surd}",
    "\u00b2": r"\ensuremath{^2}",
    "\u00b1": r"\ensuremath{\pm}",
    "\u03c0": r"\ensuremath{\pi}",
    "\u03c9": r"\ensuremath{\omega}",
    "\u03b8": r"\ensuremath{\theta}",
    "\u03b1": r"\ensuremath{\alpha}",
    "\u03b2": r"\ensuremath{\beta}",
    "\u03b4": r"\ensuremath{\delta}",
    "\u0394": r"\ensuremath{\Delta}",
    "\u03bb": r"\ensuremath{\lambda}",
    "\u03c6": r"\ensuremath{\phi}",
    "\u03c3": r"\ensuremath{\sigma}",
    "\u00e9": r"\'e",
    "\u00e8": r"\`e",
    "\u00e0": r"\`a",
    "\u00f6": r"\"o",
    "\u00fc": r"\"u",
    "\u00e4": r"\"a",
}
_DROP = "\u200b\u200c\u200d\ufeff"  # zero-width characters (the seeds carry some)
UNKNOWN = r"\textbf{?}"

#: characters :func:`tex` could not map, with how often (reset by :func:`reset_unknown`)
unknown_seen: dict[str, int] = {}


def reset_unknown() -> None:
    unknown_seen.clear()


def tex(text: object) -> str:
    """``text`` as LaTeX that prints it literally (text mode)."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch if ch.isprintable() or ch in "\n\t" else " ")
        elif ch in _DROP:
            continue
        elif ch in UNICODE:
            out.append(UNICODE[ch])
        else:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            if base and base.isprintable():
                out.append(tex(base))
            else:
                unknown_seen[ch] = unknown_seen.get(ch, 0) + 1
                out.append(UNKNOWN)
    return "".join(out)


def tex_breakable(text: object) -> str:
    """Like :func:`tex`, with break points after ``. _ / , = + * ( -`` (long
    identifiers, file names and engine output in narrow table cells)."""
    s = tex(text)
    s = s.replace(r"\_", r"\_\allowbreak{}")
    s = re.sub(r"([./,=+*(\[-])(?!\s)", r"\1\\allowbreak{}", s)
    # long runs of digits or letters (numbers, hashes) may break too
    return re.sub(r"([0-9A-Za-z]{12})(?=[0-9A-Za-z]{4})", r"\1\\allowbreak{}", s)


def claim_label(claim_id: str) -> str:
    """A hyperref label for a claim (ids are ``family.snake_case``: safe after mapping)."""
    return "claim:" + claim_id.replace("_", "-")


def claim_ref(claim_id: str) -> str:
    """The claim id, typeset breakable in typewriter type and linked to its section."""
    return rf"\hyperref[{claim_label(claim_id)}]{{\texttt{{{tex_breakable(claim_id)}}}}}"


def claim_tt(claim_id: str) -> str:
    return rf"\texttt{{{tex_breakable(claim_id)}}}"


VERDICT_MACRO = {"proved": r"\vproved", "refuted": r"\vrefuted", "unknown": r"\vunknown"}


def verdict(status: str) -> str:
    """The verdict as a coloured word (macros defined in the preamble)."""
    return VERDICT_MACRO.get(status, tex(status)) + "{}"
