"""The run of a report about given claims (a user's: ``peproof report --statement`` or
``--claims FILE.py``), in the shape :func:`.run.collect` returns, without the numerics, the
oracle on installed peers or the result cache (a user's claims are decided afresh each time).

The claims go through the same pipeline as the registry's (:func:`peproof.results.run`:
engines, falsification gate, evidence, and Coq with ``coq``); their statements are printed by
the same :func:`.render.render_claim`.
"""

from __future__ import annotations

from pathlib import Path


def collect_claims(claims: list, build: Path, coq: bool = True, falsifiers: bool = True,
                   label: str = "user claims") -> dict:
    """The run of ``claims`` (the ``.v`` files of the Coq pass go to ``build/coq``)."""
    from peproof import results as R

    from .render import render_claim
    from .run import CACHE_SCHEMA, registry_data

    res = R.run(list(claims), falsifiers, coq=coq, coq_dir=Path(build) / "coq")
    witnesses = {r["id"]: r["verdict"].get("witness") for r in res["claims"]}
    render = {c.id: render_claim(c, witnesses.get(c.id)) for c in claims}
    reg = registry_data()
    for c in claims:
        reg["family_titles"].setdefault(c.family, f"Your claims: {c.family}")
        if getattr(c, "erratum", None):
            reg["errata"][c.id] = {"kind": c.erratum.kind, "rank": c.erratum.rank,
                                   "consequence": c.erratum.consequence}
    return {"schema": CACHE_SCHEMA, "fingerprint": label,
            "options": {"pattern": None, "numerics": "none", "peers": False,
                        "falsifiers": falsifiers, "claims": [c.id for c in claims]},
            "results": res, "numerics": {}, "peers": None, "registry": reg,
            "render": render, "reused": False, "timing": {}}
