"""Meta-tests: the registry is well formed and every falsifier is refuted with a witness."""

import pytest

from peproof import registry
from peproof.claims import ID_RE, KINDS, assumptions_match
from peproof.engines.decide import refute
from peproof.seeds import LITERATURE, SEEDS, cite, normalise, seeds_dir

CLAIMS = registry.all_claims()
IDS = [c.id for c in CLAIMS]
FORMAL = [c for c in CLAIMS if c.kind != "informal"]


def test_ids_unique_and_well_formed():
    assert len(IDS) == len(set(IDS)), "duplicate claim ids"
    bad = [i for i in IDS if not ID_RE.match(i)]
    assert not bad, f"ids not of the form family.snake_case: {bad}"


def test_families_cover_the_issue():
    fams = {c.family for c in CLAIMS}
    want = {"encoding", "rotation", "inner_product", "norm", "distance", "products", "fourier",
            "dft", "nerf", "attention", "uniqueness", "rope"}
    assert want <= fams, f"missing families: {sorted(want - fams)}"


def test_a_family_lives_in_the_modules_named_after_it():
    """The claims of family ``f`` are in the modules ``f`` or ``f_<more>`` (what
    ``registry.select`` and ``registry.get`` rely on to import a few modules for one claim or
    one family): each family's claims, from those modules alone, are the registry's."""
    for fam in sorted({c.family for c in CLAIMS}):
        modules = tuple(registry._candidates(lambda f, fam=fam: f == fam))
        got = [c for c in registry._some_paper(modules) if c.family == fam]
        assert got == [c for c in CLAIMS if c.family == fam], (fam, modules)


def _patterns():
    out = set()
    for cid in IDS:
        fam, name = cid.split(".", 1)
        out |= {cid, f"{fam}.*", f"{fam}.{name[:5]}", f"{fam[1:]}.{name[:3]}", f"{fam}.*_d4",
                f"{fam}.{name[:4]}?*", cid[:-1], f"{fam}.[a-c]*"}
    return sorted(out) + ["no_such.family", "rotation.no_such_claim", "*.sin*", "sin_angle",
                          "[rp]*.x*", ".", "rope."]


def test_select_and_get_from_a_few_modules_answer_as_the_whole_registry():
    """Every kind of pattern (an id, a family's glob, a substring naming a family's tail, a
    glob over families, none) selects what the whole registry's filter selects, in its order."""
    import fnmatch

    for pat in _patterns():
        glob = any(ch in pat for ch in "*?[")
        want = [c for c in CLAIMS if (fnmatch.fnmatchcase(c.id, pat) if glob else pat in c.id)]
        assert registry.select(pat) == want, pat
    for cid in IDS:
        assert registry.get(cid) is registry.by_id()[cid]
    with pytest.raises(registry.RegistryError):
        registry.get("rotation.no_such_claim")


def test_one_claim_imports_its_familys_modules_only():
    """``peproof prove <id>`` imports the modules of the claim's family (and what they import),
    not the whole registry's 28 (~0.9 s of the command's 1.4 s)."""
    import json
    import subprocess
    import sys

    code = ("import sys; from peproof import registry; "
            "c = registry.select('rotation.sin_angle_addition'); "
            "assert [x.id for x in c] == ['rotation.sin_angle_addition'], c; "
            "registry.get('rotation.cos_angle_addition'); "
            "import json; print(json.dumps(sorted(m for m in sys.modules "
            "if m.startswith('peproof.families.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = json.loads(out)
    every = [f"peproof.families.{m}" for m in registry._modules()]
    assert "peproof.families.rotation" in loaded
    assert len(set(loaded) & set(every)) < len(every) // 2, loaded


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_claim_is_well_formed(claim):
    by_id = registry.by_id()
    assert claim.kind in KINDS
    assert claim.sources, f"{claim.id}: no source"
    for u in claim.uses:
        assert u in by_id, f"{claim.id}: uses unknown claim {u}"
        assert u != claim.id, f"{claim.id}: uses itself"
    if claim.kind == "informal":
        assert claim.expect == "unknown", f"{claim.id}: informal claims cannot be decided"
        assert claim.note, f"{claim.id}: informal claim needs a note saying why"
        return
    assert claim.statement is not None, f"{claim.id}: non-informal claim without a statement"
    for v in claim.statement.vars:
        assert assumptions_match(v), f"{claim.id}: symbol {v.symbol} does not match {v.domain}"
    assert len(claim.falsifiers) >= 2, f"{claim.id}: needs at least two falsifiers"
    names = [f.name for f in claim.falsifiers]
    assert len(names) == len(set(names)), f"{claim.id}: falsifier names repeat: {names}"
    if claim.expect == "refuted":
        assert claim.companion in by_id, f"{claim.id}: companion {claim.companion} missing"
        assert by_id[claim.companion].expect == "proved"


def test_uses_graph_is_acyclic():
    by_id = registry.by_id()
    state: dict[str, int] = {}

    def visit(cid, path):
        if state.get(cid) == 1:
            raise AssertionError(f"cycle in uses: {' -> '.join(path + [cid])}")
        if state.get(cid) == 2:
            return
        state[cid] = 1
        for u in by_id[cid].uses:
            visit(u, path + [cid])
        state[cid] = 2

    for cid in by_id:
        visit(cid, [])


@pytest.mark.parametrize("claim", CLAIMS, ids=IDS)
def test_sources_quote_the_seeds(claim):
    root = seeds_dir()
    if root is None:
        pytest.skip("seed documents not present (set PEPROOF_SEEDS)")
    for s in claim.sources:
        if s.seed in LITERATURE:  # a paraphrase of a cited work: test_literature_sources
            continue
        assert s.seed in SEEDS, f"{claim.id}: unknown seed {s.seed}"
        text = normalise((root / s.seed).read_text(encoding="utf-8"))
        assert normalise(s.quote) in text, f"{claim.id}: quote not found in {s.seed}: {s.quote!r}"


LITERATURE_CITED = [(c, s) for c in CLAIMS for s in c.sources if s.seed in LITERATURE]


@pytest.mark.parametrize("claim,source", LITERATURE_CITED,
                         ids=[f"{c.id}:{s.seed}" for c, s in LITERATURE_CITED])
def test_literature_sources_name_the_place_and_the_statement(claim, source):
    """A literature source names where (a section, an equation, a function) and paraphrases what
    the work states; its words are ours, so it must not pose as a seed quote."""
    assert source.section.strip(), f"{claim.id}: {source.seed} cited without a section"
    assert len(source.quote.split()) >= 4, f"{claim.id}: {source.seed}: say what it states"
    assert source.seed not in SEEDS


def test_literature_keys_are_cited_and_unknown_keys_refused():
    cited = {s.seed for _, s in LITERATURE_CITED}
    assert cited == set(LITERATURE), f"entries nobody cites: {sorted(set(LITERATURE) - cited)}"
    with pytest.raises(KeyError):
        cite("arXiv:0000.00000", "section 1", "a work that is not in the bibliography")


FALSIFIERS = [(c, f) for c in FORMAL for f in c.falsifiers]


@pytest.mark.parametrize(
    "claim,falsifier", FALSIFIERS, ids=[f"{c.id}:{f.name}" for c, f in FALSIFIERS]
)
def test_falsifier_is_refuted(claim, falsifier):
    v = refute(falsifier.statement)
    assert v.status == "refuted", (
        f"falsifier {falsifier.name} of {claim.id} came back {v.status}: {falsifier.statement}"
        f" ({v.reason})"
    )
    assert v.witness and v.witness.get("certified_by"), "refutation without certified witness"


Z3_FALSIFIERS = [(c, f) for c, f in FALSIFIERS]


@pytest.mark.parametrize(
    "claim,falsifier", Z3_FALSIFIERS, ids=[f"{c.id}:{f.name}" for c, f in Z3_FALSIFIERS]
)
def test_falsifier_is_refuted_by_z3_where_z3_applies(claim, falsifier):
    """Where z3 proves the claim (an algebraic claim), it must also refute each falsifier."""
    from peproof.agreement import row
    from peproof.engines.z3trig import decide_z3

    if row(claim.id)["cells"]["z3"] != "proved":
        pytest.skip(f"z3 does not apply to {claim.id}: {row(claim.id)['z3'].reason}")
    v = decide_z3(falsifier.statement, timeout_ms=3000)
    assert v.status != "proved", f"z3 PROVES falsifier {falsifier.name} of {claim.id}"
    if v.method == "not applicable":
        pytest.skip(f"falsifier outside z3's abstraction: {v.reason}")
    if "timeout" in v.reason or "resource" in v.reason:
        pytest.skip(f"z3 timed out on this falsifier (an honest unknown): {v.reason[:120]}")
    assert v.status == "refuted", (
        f"z3 on falsifier {falsifier.name} of {claim.id}: {v.status} ({v.reason})"
    )
    assert v.witness["certified_by"]


@pytest.mark.parametrize("claim", FORMAL, ids=[c.id for c in FORMAL])
def test_falsifiers_differ_from_each_other_and_from_the_claim(claim):
    """Two falsifiers stating the same thing would count one mutation twice."""
    def key(st):
        return (st.quant, tuple((r.op, r.lhs, r.rhs) for r in st.concl + ("|",) + st.hyps
                                if r != "|"), len(st.concl))

    seen = {key(claim.statement)}
    for f in claim.falsifiers:
        text = key(f.statement)
        assert text not in seen, f"{claim.id}: falsifier {f.name} repeats another statement"
        seen.add(text)


CUSTOM = [(c, f) for c in FORMAL if c.proof is not None for f in c.falsifiers]


@pytest.mark.parametrize("claim,falsifier", CUSTOM, ids=[f"{c.id}:{f.name}" for c, f in CUSTOM])
def test_custom_proof_does_not_prove_a_falsifier(claim, falsifier):
    """A claim's own proof function, handed a wrong variant of its statement, must not prove it
    (a proof that ignores the statement it is handed would)."""
    v = claim.proof(falsifier.statement, claim)
    assert v.status != "proved", (
        f"{claim.id}'s proof PROVES its falsifier {falsifier.name}: {falsifier.statement}"
    )


def _flipped(st):
    from peproof.claims import Rel

    flip = {"==": "!=", "!=": "==", "<=": "<", "<": "<="}
    concl = tuple(Rel(flip[r.op], r.rhs if r.op in ("<=", "<") else r.lhs,
                      r.lhs if r.op in ("<=", "<") else r.rhs) for r in st.concl)
    return st.with_concl(concl)


FLIPPABLE = [c for c in FORMAL if c.proof is not None and c.expect == "proved"
             and c.statement.quant == "forall"]


@pytest.mark.parametrize("claim", FLIPPABLE, ids=[c.id for c in FLIPPABLE])
def test_custom_proof_reads_the_relation(claim):
    """Every conclusion negated (== to !=, a <= b to b < a): a proved claim's own proof
    must not prove that too."""
    v = claim.proof(_flipped(claim.statement), claim)
    assert v.status != "proved", f"{claim.id}'s proof ignores the relation it is handed"


REFUTING = [c for c in FORMAL if c.proof is not None and c.expect == "refuted"
             and (c.statement.quant == "exists" or not c.statement.vars)
             and len(c.statement.concl) == 1]


@pytest.mark.parametrize("claim", REFUTING, ids=[c.id for c in REFUTING])
def test_custom_refutation_reads_the_relation(claim):
    """For a closed or existential one-relation claim, flipping the relation gives a statement
    that is true wherever the original fails: the claim's own refutation must not refute it.
    (Universal claims are left out: flipping each conclusion is not their negation.)"""
    v = claim.proof(_flipped(claim.statement), claim)
    assert v.status != "refuted", f"{claim.id}'s refutation ignores the relation it is handed"
