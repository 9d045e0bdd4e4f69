"""Each positional buffer a scan finds, judged by the oracle against what the config implies.

Sinusoidal tables go to :func:`peproof.oracle.check` (expecting the architecture's variant from
:mod:`.catalogue`, or ``"any"`` without one: a recognised, self-consistent variant passes and is
named); ``inv_freq`` vectors and cos/sin caches to the rotary oracle's ``check_rotary`` with the
config's RoPE (:mod:`.config`), or none.  Before the oracle, the shape is compared with the
config: a width or a number of frequencies other than the config's, or fewer rows than its
positions need, *contradicts the config*.  Whatever the oracle refuses to read is *not checked*
with its reason.  Only ``conforms`` and ``within the error model of its dtype`` pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from peproof.encoding import ParameterError

from . import oracle_api
from .catalogue import TableSpec, native_layout, sincos_2d_source, table_spec
from .config import VISION, RopeExpect, rope_expectations
from .detect import CACHE, INV_FREQ, LEARNED, SHIFTED, TABLE, TABLE_2D, Found, squeezed

CONTRADICTS = "contradicts the config"
NOT_CHECKED = "not checked"
NOT_JUDGED = "learned (not judged)"
UNRECOGNISED = "not a positional buffer (not judged)"
NOT_JUDGED_2D = "2-D sinusoidal (not judged)"
NOT_JUDGED_SHIFTED = "sinusoidal up to a shift and a scale (not judged)"
CODES = {**oracle_api.CODES, CONTRADICTS: "contradicts_config", NOT_CHECKED: "not_checked",
         NOT_JUDGED: "learned", UNRECOGNISED: "unrecognised", NOT_JUDGED_2D: "sinusoidal_2d",
         NOT_JUDGED_SHIFTED: "sinusoidal_shifted"}


@dataclass
class Judged:
    found: Found
    verdict: str
    ok: bool | None  # None: not judged (learned)
    headline: str
    expected: str | None = None
    identified: str | None = None
    diagnoses: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    scan_notes: list = field(default_factory=list)  # the scan's own (shown even when it passes)
    oracle: dict | None = None  # the oracle's own JSON envelope
    copies: list = field(default_factory=list)  # names of identical buffers judged with it
    passes_as: str | None = None  # what a passing buffer conforms to: the expectation if any
    layout: str = ""  # the library layout the rotary oracle read a cache in (its native)

    @property
    def code(self) -> str:
        return CODES.get(self.verdict, self.verdict)


def as_rotary(f: Found, cfg: dict | None) -> Found:
    """``f`` as a one-array rotary cache when its name or the config's architecture says it is
    one (:func:`.catalogue.native_layout`: vLLM's ``cos_sin_cache``, GPT-J's and CodeGen's
    ``embed_positions``), with the library layout it is expected in; else ``f``."""
    if len(f.names) != 1 or len(squeezed(f.shape)) != 2:
        return f
    native = native_layout(cfg.get("model_type") if cfg else None, f.names[0])
    if native is None or f.kind not in (TABLE, LEARNED, CACHE):
        return f
    return replace(f, kind=CACHE, native=native,
                   note=f.note if f.kind == CACHE else f"one array of cos and sin ({f.note})")


def will_judge(f: Found, cfg: dict | None) -> bool:
    """Whether :func:`judge` runs the oracle on ``f`` (a learned embedding only where the
    architecture builds a sinusoidal table)."""
    if f.kind in (TABLE_2D, SHIFTED):
        return False
    if f.kind != LEARNED:
        return True
    if cfg and sincos_2d_source(cfg.get("model_type"), f.names[0]):
        return True
    spec = table_spec(cfg.get("model_type"), f.names[0], cfg) if cfg else None
    return spec is not None and not spec.learned


def judge(f: Found, cfg: dict | None) -> Judged:
    if f.kind == TABLE_2D:
        return Judged(f, NOT_JUDGED_2D, None, f"{NOT_JUDGED_2D}: {f.note}; the oracle judges "
                      "1-D tables (a row's position in each half is its patch's row or column)")
    if f.kind == SHIFTED:
        return Judged(f, NOT_JUDGED_SHIFTED, None, f"{NOT_JUDGED_SHIFTED}: {f.note}; the oracle "
                      "judges the tables themselves (PatchTST normalises its sincos table: "
                      "(pe - mean) / (10 std))")
    try:
        j = _table(f, cfg) if f.kind in (TABLE, LEARNED) else _rotary(f, cfg)
    except KeyError as exc:
        return Judged(f, NOT_CHECKED, False, f"{NOT_CHECKED}: the config's RoPE lacks {exc}")
    except (oracle_api.InputError, ParameterError, ValueError, TypeError) as exc:
        msg = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        return Judged(f, NOT_CHECKED, False, f"{NOT_CHECKED}: the oracle does not read it "
                      f"({msg})")
    if j.verdict == oracle_api.OUTSIDE and f.by == "content":
        # found by its content alone and no positional buffer the oracle can express: most
        # likely not a positional buffer at all; named, not counted as a failure
        j.ok, j.verdict = None, UNRECOGNISED
        j.headline = (f"{UNRECOGNISED}: found by content only (sin/cos-like values), and the "
                      f"oracle says {j.headline}")
    return j


# ----------------------------------------------------------------------------- tables
def _table(f: Found, cfg: dict | None) -> Judged:
    built = sincos_2d_source(cfg.get("model_type"), f.names[0]) if cfg else None
    if f.kind == LEARNED and built is not None:
        why = (f"{cfg.get('model_type')} builds a frozen 2-D sin-cos table here ({built}); this "
               "tensor holds none" + (": all zeros, no position at all" if "all zeros" in f.note
                                      else ""))
        return Judged(f, CONTRADICTS, False, f"{CONTRADICTS}: {why}", expected=built,
                      diagnoses=[why])
    spec = table_spec(cfg.get("model_type"), f.names[0], cfg) if cfg else None
    if f.kind == LEARNED and (spec is None or spec.learned):
        why = spec.source if spec is not None else (
            f.note.replace("no sin/cos channel pairs: ", "") + "; its values form no sin/cos "
            "pairs" if " in positional module " in f.note else "named like a positional "
            "embedding; its values form no sin/cos pairs")
        return Judged(f, NOT_JUDGED, None, f"{NOT_JUDGED}: {why}",
                      expected=spec.describe() if spec else None)
    if f.kind == TABLE and spec is not None and spec.learned:
        return Judged(f, NOT_JUDGED, None, f"{NOT_JUDGED}: {spec.source} (its values are "
                      "sinusoidal, e.g. initialised so)", expected=spec.describe())
    n, w = squeezed(f.shape) if len(squeezed(f.shape)) == 2 else (f.shape[0], 1)
    notes: list[str] = []
    bad = _shape_against(spec, n, w, notes) if spec is not None else None
    arr = f.tensors[0].array().reshape(n, w)
    src = {"tensor": f.names[0], "file": f.tensors[0].file}
    if spec is None or bad:
        rep = oracle_api.check(arr, expect="any", source=src)
    else:
        rep = oracle_api.check(arr, expect=spec.family, base=spec.base, layout=spec.layout,
                               source=src)
        if spec.padding_row is not None and spec.padding_row < 3 and \
                spec.padding_row not in rep.padding:
            notes.append(f"row {spec.padding_row} (padding_idx) is not zeroed as the "
                         "architecture zeroes it")
    if spec is not None and cfg.get("scale_embedding") and f.amplitude is not None and abs(
            f.amplitude / w**0.5 - 1) < 0.01:
        notes.append(f"scaled by sqrt(d_model) = {w**0.5:.6g}: scale_embedding scales the "
                     "token embeddings, not this table (applied twice?)")
    if f.kind == LEARNED:  # judged as the table the architecture builds there
        f = replace(f, kind=TABLE, note="no sin/cos channel pairs")
    ident = rep.identified.name if rep.identified.variant is not None else None
    env = _trim(rep.to_json())
    diags = list(rep.diagnoses)
    if f.note == "no sin/cos channel pairs":
        diags.insert(0, f"the architecture builds a sinusoidal table here ({spec.source}); "
                     "this tensor holds none")
    if bad:
        return Judged(f, CONTRADICTS, False, f"{CONTRADICTS}: {bad}",
                      spec.describe(), ident, [bad] + diags[:2], [], notes, env)
    j = Judged(f, rep.verdict, rep.ok, rep.headline,
               spec.describe() if spec else "any variant (no expectation from a config)",
               ident, diags, list(rep.reasons), notes, env)
    j.passes_as = spec.describe() if spec is not None else ident
    return j


def _shape_against(spec: TableSpec, n: int, w: int, notes: list) -> str | None:
    if spec.width is not None and w != spec.width:
        return f"{w} channels; the config implies {spec.width}"
    if spec.rows is not None and n < spec.rows:
        return f"{n} rows; the config needs {spec.rows} ({spec.source})"
    if spec.rows is not None and n > spec.rows:
        notes.append(f"{n} rows, {n - spec.rows} more than the config's {spec.rows}")
    return None


# ----------------------------------------------------------------------------- rotary
def _rotary(f: Found, cfg: dict | None) -> Judged:
    check_rotary = oracle_api.check_rotary
    exps = rope_expectations(cfg) if cfg else []
    arrays = [t.array() for t in f.tensors]
    if f.kind == INV_FREQ:
        kw = {"inv_freq": arrays[0].reshape(-1)}
        count = int(arrays[0].size)
    elif len(arrays) == 2:
        kw = {"cos": arrays[0], "sin": arrays[1]}
        count = None  # the columns: d or d/2, read by the oracle
    else:
        kw = {"obj": arrays[0], "kind": "cache", "native": f.native}
        count = None
    if not exps:
        rep = check_rotary(**kw)
        return _from_rotary(f, rep, "any RoPE (no expectation from a config)")
    # a buffer named by its attention type (ModernBERT's full_attention_inv_freq) is judged
    # against that type's setting only, so that two swapped buffers do not both pass
    named = [e for e in exps if e.label and any(e.label in n for n in f.names)]
    exps = named or exps
    # a vision part's setting for the vision model's buffers only (and only those)
    visual = any(w in n for n in f.names for w in ("visual", "vision"))
    exps = [e for e in exps if (e.label == VISION) == visual] or exps
    tried = []
    for e in exps:
        bad = _count_against(e, count, f)
        if bad and not e.strict:
            continue
        if bad:
            tried.append((e, None, bad))
            continue
        rep = check_rotary(**kw, expect=e.params, max_position_embeddings=e.max_position_embeddings)
        tried.append((e, rep, None))
        if rep.ok:
            break
    if not tried:  # a multi-part config, and a buffer of none of its text part's lengths
        j = _from_rotary(f, check_rotary(**kw), "any RoPE (its length matches none of the "
                         "config's text RoPE; it may belong to another part of the model)")
        j.scan_notes.append(f"not of the length the config's {exps[0].why} implies: judged on "
                            "its own")
        return j
    # the setting it passes, else the first it could be compared with, else a contradiction
    e, rep, bad = next((x for x in tried if x[1] is not None and x[1].ok),
                       next((x for x in tried if x[1] is not None), tried[0]))
    label = f" ({e.label})" if e.label else ""
    if bad:
        rep = check_rotary(**kw)
        j = _from_rotary(f, rep, f"the config's RoPE{label}: {_params_text(e)}")
        j.verdict, j.ok = CONTRADICTS, False
        j.headline = f"{CONTRADICTS}: {bad}"
        j.diagnoses.insert(0, bad)
        return j
    j = _from_rotary(f, rep, f"the config's RoPE{label}: {_params_text(e)}")
    if len(exps) > 1 and not rep.ok:
        j.scan_notes.append(f"the config lists {len(exps)} RoPE settings "
                            f"({', '.join(x.label for x in exps)}); none fits")
    return j


def _count_against(e: RopeExpect, count: int | None, f: Found) -> str | None:
    if e.frequencies is None:
        return None
    if count is not None and count != e.frequencies:
        return (f"{count} frequencies; the config's {e.why} implies {e.frequencies}")
    if f.kind == CACHE:
        # the cos part's columns: one per pair, or two (duplicated halves or interleaved)
        w = squeezed(f.shape)[-1] if len(f.tensors) == 2 else oracle_api.read_artefact(
            f.tensors[0].array(), kind="cache", native=f.native).cos.shape[-1]
        if w not in (e.frequencies, 2 * e.frequencies):
            return (f"{w} cache columns; the config's {e.why} implies {2 * e.frequencies} "
                    f"(or {e.frequencies}, one per pair)")
    return None


#: keys of a setting that size the model rather than define its RoPE (given in the messages'
#: width reasons instead)
SIZES = ("type", "hidden_size", "num_attention_heads", "max_position_embeddings")


def _params_text(e: RopeExpect) -> str:
    """The setting in a line: ``rope_type`` first, lists cut to three entries."""
    def val(v):
        if isinstance(v, list) and len(v) > 3:
            return "[" + ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v[:3]) \
                + f", ...] ({len(v)})"
        return v

    keys = ["rope_type"] + [k for k in e.params if k not in SIZES and k != "rope_type"]
    return ", ".join(f"{k} {val(e.params[k])}" for k in keys if k in e.params)


def _from_rotary(f: Found, rep, expected: str) -> Judged:
    ident = rep.describe(rep.identified) if rep.identified is not None else None
    j = Judged(f, rep.verdict, rep.ok, rep.headline, expected, ident, list(rep.diagnoses),
               list(rep.notes), [], _trim(rep.to_json()))
    j.layout = rep.native if rep.native != oracle_api.PAIR else ""
    j.passes_as = rep.describe(rep.expected) if rep.expected is not None else ident
    return j


def _trim(env: dict) -> dict:
    return {k: v for k, v in env.items() if k not in ("platform", "suite", "suite_version")}


def same_content(a: Found, b: Found) -> bool:
    """Identical buffers (same kind, shape, dtype and bytes) are judged once."""
    if a.kind != b.kind or a.shape != b.shape or a.dtype != b.dtype or len(a.tensors) != len(
            b.tensors):
        return False
    for ta, tb in zip(a.tensors, b.tensors, strict=True):
        xa, xb = ta.array(), tb.array()
        if xa.nbytes > 2**28:
            return False
        ba = np.ascontiguousarray(xa).reshape(-1).view(np.uint8)
        if not np.array_equal(ba, np.ascontiguousarray(xb).reshape(-1).view(np.uint8)):
            return False
    return True
