"""Coq entries for the report's tests: the shape of ``CoqResult.as_dict`` (peproof/kernel/coq/
check.py) put on result rows, with real ``.v`` files written OUTSIDE the build folder (the report
must bring them in and link them relatively).  A fixture for the documents' layout and links;
the verdicts' own Coq checks are tested with the Coq pass."""

from __future__ import annotations

from pathlib import Path

#: what Print Assumptions lists for a CoqInterval proof: long qualified names
AXIOMS = ("ClassicalDedekindReals.sig_forall_dec", "ClassicalDedekindReals.sig_not_dec",
          "FunctionalExtensionality.functional_extensionality_dep", "Classical_Prop.classic",
          *(f"FloatAxioms.{n}" for n in ("add_spec", "mul_spec", "normfr_mantissa_spec",
                                         "frshiftexp_spec", "ldshiftexp_spec")),
          *(f"PrimFloat.{n}" for n in ("float", "add", "mul", "frshiftexp")),
          "Uint63.addmuldiv_def_spec")
VERSION = "8.16.1"


def add_coq(rows: list[dict], folder: Path) -> dict[str, dict]:
    """Give every row a ``coq`` entry: refuted rows checked (the negation), proved rows
    alternately checked (the statement) and not checked, each checked one with a ``.v`` file in
    ``folder``; ``{id: entry}``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    decided = 0
    for r in rows:
        status = r["verdict"]["status"]
        lemma = r["id"].replace(".", "_")
        if status == "refuted" or (status == "proved" and decided % 2 == 0):
            what = "statement" if status == "proved" else "negation"
            vfile = folder / f"{r['id']}.v"
            vfile.write_text(f"(* {r['id']} *)\nTheorem {lemma} : True.\nProof. exact I. Qed.\n")
            entry = {"status": "checked in Coq", "what": what, "class": "trig", "lemma": lemma,
                     "assumptions": list(AXIOMS), "print_assumptions": "Axioms:\n"
                     + "\n".join(f"{a} : Prop" for a in AXIOMS), "coq_version": VERSION,
                     "seconds": 0.25, "cached": False, "vfile": str(vfile), "conflict": "",
                     "obligations": [], "exact_statement": True}
        else:
            entry = {"status": "not checked in Coq: no proof script: Integral", "what": "",
                     "class": "", "lemma": lemma, "assumptions": [], "print_assumptions": "",
                     "coq_version": VERSION, "seconds": 0.0, "cached": False, "vfile": None,
                     "conflict": "", "obligations": [], "exact_statement": False}
        decided += status == "proved"
        r["coq"] = entry
        out[r["id"]] = entry
    return out
