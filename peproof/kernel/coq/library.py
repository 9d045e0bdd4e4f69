"""The Coq library (``lib/*.v``): its files, its audit, and the script its tactics offer.

The library is the mathematics the kernel checks registry claims against: ``Defs.v`` (the
vocabulary of the real goals: ``zsum``, ``rpow``), ``Sem.v`` (the statement language's meaning,
stated once: what a translated theorem says), ``PE.v``
(the encoding for every even width and any frequencies, proved once by induction over finite
sums), ``Tactics.v`` (general proof search: ``pe_auto``) and ``Integral.v`` (the meaning of
``Delta`` and ``PiIntegral``, and the integrals and period sums their scripts use).  The runner
(:mod:`peproof.kernel.coq.run`) compiles it once per content hash; this module only says what
it is and how to judge it.

* :data:`MODULES` -- the library's modules in dependency order;
* :func:`lemma_names` -- every ``Lemma``/``Theorem``/``Corollary`` of a module's source;
* :func:`audit` -- compile the library into a folder and read ``Print Assumptions`` of every
  lemma against :data:`peproof.kernel.coq.run.ALLOWED` (the reals' axioms, and for the
  interval evaluators of Decay.v and Floor.v the specifications of Coq's primitive floats; an
  ``Admitted`` or an ``Axiom`` shows up there; exit codes are never read as a verdict);
* :func:`script_for` -- the proof script the library's tactics offer for a translated goal
  (``None`` outside their fragment).

The script is search: whatever ``pe_auto`` does, a goal is checked only when Coq's kernel
accepts the proof and its assumptions are on the allow-list.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from peproof.claims import Statement
from peproof.kernel.coq.run import ALLOWED, REALS, _deps, parse_assumptions
from peproof.kernel.coq.translate import Goal

LIB = Path(__file__).resolve().parent / "lib"
MODULES = ("Defs", "Sem", "PE", "Tactics", "Integral", "Decay", "Floor", "Round", "PiIrr")
LOGICAL = "PEProof"

#: the library's general tactic: intros, the evenness hypotheses of [d] substituted, every
#: conjunct (of any nesting, in time linear in their number) by pe_arith / pe_sum / pe_trig,
#: same-shape conjuncts by a lemma learnt once
SCRIPT = "intros; pe_auto"

_LEMMA = re.compile(r"^\s*(?:Lemma|Theorem|Corollary)\s+([A-Za-z_][A-Za-z0-9_']*)", re.M)


def source(module: str, lib: Path = LIB) -> str:
    return (lib / f"{module}.v").read_text()


def lemma_names(text: str) -> list[str]:
    """The names of the lemmas a module's source states, in order."""
    return _LEMMA.findall(text)


def script_for(st: Statement, goal: Goal) -> str | None:
    """The library's script for ``goal`` (printed from ``st``), or ``None`` when the statement
    is outside what ``pe_auto`` targets: ``forall`` statements whose conclusions are all
    equations (identities in sin/cos of linear forms, sums with the same limits, polynomial
    arithmetic; definedness obligations included)."""
    if st.quant != "forall" or not st.concl:
        return None
    if any(r.op != "==" for r in st.concl):
        return None
    if not goal.concls:
        return None
    return SCRIPT


@dataclass(frozen=True)
class LemmaAudit:
    module: str
    lemma: str
    axioms: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """No problem, and every axiom on the allow-list of a checked claim: the reals' (every
        lemma), and the specifications of Coq's primitive floats, which CoqInterval's
        operations rest on (Decay.v's and Floor.v's evaluators in the VM)."""
        return not self.problems and all(a in ALLOWED for a in self.axioms)

    @property
    def reals_only(self) -> bool:
        return self.ok and all(a in REALS for a in self.axioms)


class AuditError(Exception):
    """The library did not compile (the message is coqc's first error line)."""


def audit(coqc: str, workdir: Path, lib: Path = LIB, timeout: float = 600,
          per_lemma: bool = False, only: tuple[str, ...] = (),
          compiled: Path | None = None) -> list[LemmaAudit]:
    """Compile ``lib``'s modules in ``workdir`` and read ``Print Assumptions``.

    ``Print Assumptions`` costs about half a second per lemma here (it walks the reals'
    construction each time; seconds for a lemma resting on CoqInterval), so by default it is
    read once, of a tuple of every lemma: one :class:`LemmaAudit` named ``*``; when that one
    is not clean, each module's tuple is read, then each lemma of an unclean module on its
    own (naming the culprits; a lemma of a clean module gets its module's answer, a superset
    of its own); with ``per_lemma`` every lemma on its own (``only``: just these lemmas, by
    name, read after the whole).  Raises :class:`AuditError` when a module
    does not compile or the answers cannot be told apart.

    ``compiled``: a folder where these modules were compiled before by the same coqc (the
    runner's compiled library, or an earlier audit's work folder): a module whose source is
    the same as the one compiled there, and all of whose imports were taken from there too,
    is copied (its compiled files) instead of compiled again; any other is compiled here (Coq
    refuses a compiled import that does not match what it was compiled against).  The audit
    itself is always read again."""
    workdir.mkdir(parents=True, exist_ok=True)
    reused: set[str] = set()
    for m in MODULES:
        src = (lib / f"{m}.v").read_text()
        (workdir / f"{m}.v").write_text(src)
        if compiled is not None and _same_as(compiled, m, src) and all(
                d in reused for d in _deps(src, MODULES)):
            for ext in _COMPILED:
                if (compiled / f"{m}{ext}").exists():
                    shutil.copyfile(compiled / f"{m}{ext}", workdir / f"{m}{ext}")
            reused.add(m)
            continue
        _coqc(coqc, workdir, f"{m}.v", timeout)
    names = [(m, n) for m in MODULES for n in lemma_names(source(m, lib))]
    items = [(m, n, f"{m}.{n}") for m, n in names if not only or n in only]
    if only and len({n for _, n, _ in items}) != len(set(only)):
        raise AuditError(f"no such lemma: {sorted(set(only) - {n for _, n, _ in items})}")
    if per_lemma:
        return _print_assumptions(coqc, workdir, items, timeout)
    tup = ", ".join(f"{m}.{n}" for m, n in names)
    whole_item = ("*", "all", f"({tup})")
    if only:
        return _print_assumptions(coqc, workdir, [whole_item] + items, timeout)
    (whole,) = _print_assumptions(coqc, workdir, [whole_item], timeout)
    if whole.ok:
        return [whole]
    # narrowed: each module's union, then the lemmas of the unclean modules one by one (a
    # Print Assumptions of a lemma resting on CoqInterval walks its proofs for seconds); a
    # lemma of a clean module is reported with its module's union, a superset of its own
    by_module = [(m, [n for mm, n in names if mm == m]) for m in MODULES]
    by_module = [(m, ns) for m, ns in by_module if ns]
    unions = _print_assumptions(
        coqc, workdir, [(m, "*", "(" + ", ".join(f"{m}.{n}" for n in ns) + ")")
                        for m, ns in by_module], timeout)
    unclean = {u.module for u in unions if not u.ok}
    exact = {(a.module, a.lemma): a for a in _print_assumptions(
        coqc, workdir, [it for it in items if it[0] in unclean], timeout)} if unclean else {}
    union_of = {u.module: u for u in unions}
    return [exact.get((m, n)) or LemmaAudit(m, n, union_of[m].axioms, union_of[m].problems)
            for m, n, _ in items]


_COMPILED = (".vo", ".vos", ".vok", ".glob")


def _same_as(compiled: Path, module: str, src: str) -> bool:
    try:
        return (compiled / f"{module}.v").read_text() == src and (
            compiled / f"{module}.vo").is_file()
    except OSError:
        return False


def _print_assumptions(coqc: str, workdir: Path, items: list[tuple[str, str, str]],
                       timeout: float) -> list[LemmaAudit]:
    marker = "@@PEPROOF-AUDIT"
    lines = ["From Coq Require Import String.",
             f"From {LOGICAL} Require Import {' '.join(MODULES)}."]
    for k, (m, n, term) in enumerate(items):
        # a marker before each answer: the answers are told apart by it
        lines.append(f'Check "{marker} {m}.{n}"%string.')
        if term == f"{m}.{n}":
            lines.append(f"Print Assumptions {term}.")
        else:
            lines.append(f"Definition peproof_audit_{k} := {term}.")
            lines.append(f"Print Assumptions peproof_audit_{k}.")
    (workdir / "Audit.v").write_text("\n".join(lines) + "\n")
    out = _coqc(coqc, workdir, "Audit.v", timeout)
    parts = re.split(rf'^"{marker} ', out, flags=re.M)[1:]
    if len(parts) != len(items):
        raise AuditError(f"expected {len(items)} Print Assumptions answers, got {len(parts)}")
    result = []
    for (m, n, _), part in zip(items, parts, strict=True):
        head, _, body = part.partition("\n")
        if head.split('"')[0] != f"{m}.{n}":
            raise AuditError(f"audit answers out of order at {m}.{n} (got {head!r})")
        body = re.sub(r"^\s*: string\s*\n", "", body)
        axioms, problems = parse_assumptions(body)
        result.append(LemmaAudit(m, n, tuple(axioms), tuple(problems)))
    return result


def _coqc(coqc: str, workdir: Path, name: str, timeout: float) -> str:
    r = subprocess.run([coqc, "-q", "-Q", str(workdir), LOGICAL, name], cwd=workdir,
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        text = r.stdout + r.stderr
        first = next((ln for ln in text.splitlines() if "Error" in ln), text.strip()[-300:])
        raise AuditError(f"{name} does not compile: {first.strip()[:300]}")
    return r.stdout
