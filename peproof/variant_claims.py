"""Every family's claims built for a variant (:func:`peproof.registry.claims_for`).

Each family module builds its claims from the law in force (:mod:`peproof.scope`: ``omega`` and
``encoding`` stand for the paper's ``omega_expr`` and ``Encoding`` in the families), so importing
it afresh with a variant in force builds the same claims -- same ids, titles, seed quotes --
stated for the variant.  A module may also define ``build(variant)`` returning its claims for a
variant (the RoPE decay claims do: their landmarks are certified for the variant's curve).

Nothing is dropped.  A claim that has no meaning for a variant (an additive-table statement for
a RoPE variant, RoPE's for an additive table) or a module that cannot be built for it (h-1
needs d >= 4 where a family states something at d = 2) becomes an ``unknown`` row whose reason
starts with "not applicable:" and names why; the paper's claims are the list of ids.
"""

from __future__ import annotations

from peproof import scope
from peproof.claims import Claim

#: modules meaningful for every variant, additive or rotary: statements that do not mention the
#: encoding, or mention only its frequencies (dft: the frequencies are no DFS frequencies)
INDEPENDENT = frozenset({"dft", "dft_orthogonality", "error_model", "error_model_maps", "fourier",
                         "fourier_affine", "index", "nerf", "nerf_inputs",
                         # the formats' position horizons (RoPE's theta_0 = 1: positions as is)
                         "precision"})
#: modules about RoPE (decided for a RoPE variant; not applicable to an additive table)
ROTARY = frozenset({"rope", "rope_decay", "rope_layouts", "rope_scaling"})
#: claims of other modules that are about RoPE
ROTARY_IDS = frozenset({"attention.rope_rotation_transpose_product",
                        "attention.rope_score_depends_only_on_offset",
                        "attention.rope_uses_paper_frequencies"})

NA = "not applicable: "


def not_applicable(claim: Claim, why: str) -> Claim:
    """``claim`` kept as a row (same id, title, sources) decided ``unknown`` with the reason
    ``not applicable: why``."""
    return Claim(claim.id, claim.title, claim.sources, None, "informal", uses=(),
                 expect="unknown", note=NA + why)


def _module_of(claim: Claim) -> str:
    return claim.__dict__.get("_variant_module", "")


def build_all(variant, paper: tuple[Claim, ...], fresh, paper_module: dict[str, str]
              ) -> list[Claim]:
    """The variant's claims in the order of ``paper``'s ids (:func:`fresh` imports the family
    modules afresh with the variant in force: :func:`peproof.registry._fresh_modules`;
    ``paper_module`` maps each paper id to its module's name)."""
    rotary = isinstance(variant, scope.Rotary)
    mods = fresh()
    built: dict[str, Claim] = {}
    failed: dict[str, str] = {}
    for name, mod in mods.items():
        if isinstance(mod, BaseException):
            first = (str(mod).splitlines() or [""])[0][:160]
            failed[name] = f"{type(mod).__name__}: {first}"
            continue
        claims = mod.build(variant) if hasattr(mod, "build") else getattr(mod, "CLAIMS", ())
        for c in claims:
            c.__dict__["_variant_module"] = name
            built[c.id] = c
    out = []
    for pc in paper:
        mod = paper_module.get(pc.id, "")
        c = built.get(pc.id)
        why = _inapplicable(pc, mod, rotary)
        if why:
            out.append(not_applicable(pc, why))
        elif mod in failed:
            out.append(not_applicable(pc, f"the family module {mod} cannot be built for this "
                                      f"variant ({failed[mod]})"))
        elif c is None:
            out.append(not_applicable(pc, f"the family module {mod} states no such claim for "
                                      "this variant"))
        else:
            _force(c)
            _h1_width(c, variant)
            out.append(c)
    known = {pc.id for pc in paper}
    out += [c for cid, c in built.items() if cid not in known]
    return out


def _inapplicable(pc: Claim, mod: str, rotary: bool) -> str:
    is_rope = mod in ROTARY or pc.id in ROTARY_IDS
    if rotary and not is_rope and mod not in INDEPENDENT:
        return ("a RoPE variant has no additive table PE(pos); this claim is about the "
                "additive sinusoidal table")
    if not rotary and is_rope:
        return ("a claim about RoPE; give a RoPE variant (rope_parameters JSON, config.json, "
                "or family=rope,...) to decide it for your rotary embedding")
    return ""


def _force(c: Claim) -> None:
    """Build a lazily stated claim now, while the variant is in force."""
    try:
        c.statement  # noqa: B018 - the property builds it
        c.falsifiers  # noqa: B018
    except Exception as exc:  # noqa: BLE001 - the row says so, the run goes on
        c._statement = None
        c._falsifiers = ()
        c.kind = "informal"
        c.proof = None
        c.note = NA + f"its statement cannot be built for this variant ({type(exc).__name__}: " \
            f"{(str(exc).splitlines() or [''])[0][:160]})"


def _h1_width(c: Claim, variant) -> None:
    """h-1's frequencies ``base**(-i/(d/2 - 1))`` are defined for ``d >= 4`` only: a statement
    over every even ``d`` gets that hypothesis (the variant's own width is one such ``d``)."""
    from dataclasses import replace

    import sympy as sp

    from peproof.claims import Le, var

    D, _ = var("d", "even_pos_integer")  # the families' d (peproof.families._common)

    st = c.statement
    if not isinstance(variant, scope.Sinusoidal) or variant.enc.family != "h-1" or st is None:
        return
    if D not in {v.symbol for v in st.vars}:
        return
    if not any(e.has(sp.Pow) and any(D in a.free_symbols for a in e.atoms(sp.Pow))
               for r in st.concl + st.hyps for e in (r.lhs, r.rhs)):
        return
    c._statement = replace(st, hyps=st.hyps + (Le(4, D),))
