"""``--variant SPEC``: the user's encoding, in the oracle's own vocabulary.

SPEC is one of

* comma-separated ``key=value`` pairs: ``family=h-1,base=10000,d=384``; keys ``family`` (paper,
  h-1, nerf, or rope), ``base``, ``d``, ``layout``, ``max_freq``, ``turns`` (true/false),
  ``offset``, ``scale`` (a number, ``sqrt(d)``, ``1/sqrt(d)`` ...); for ``family=rope`` the keys
  of transformers' ``rope_parameters`` as well (``rope_type``, ``factor``, ``low_freq_factor``,
  ``high_freq_factor``, ``original_max_position_embeddings``, ...) and ``layout`` half or
  interleaved;
* a RoPE ``rope_parameters`` JSON object (``{"rope_type": "llama3", ...}``) with ``head_dim``
  (or ``d`` after it: ``{...},d=128`` is not accepted: put ``"head_dim"`` in the object);
* a ``config.json``: its RoPE (read by the rotary oracle's reader,
  :func:`peproof.oracle.rotary.config.rope_parameters_of`), or the sinusoidal table its
  architecture builds (the scan catalogue, :func:`peproof.scan.catalogue.table_spec`).

:func:`parse` gives a :class:`peproof.scope.Sinusoidal` (holding the :class:`Encoding` that
``peproof check --expect`` / ``peproof.oracle.check(variant=...)`` uses) or a
:class:`peproof.scope.Rotary` (a :class:`peproof.rope.Rope`, what ``check --rope`` expects);
:func:`spec` prints one back (``parse(spec(v))`` is ``v``).  Bad SPEC raises
:class:`VariantError` with one line naming the key or value and what is allowed.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import sympy as sp

from peproof.encoding import Encoding, ParameterError
from peproof.scope import Rotary, Sinusoidal

KEYS = ("family", "base", "d", "layout", "max_freq", "turns", "offset", "scale")
ROPE_KEYS = ("rope_type", "factor", "low_freq_factor", "high_freq_factor",
             "original_max_position_embeddings", "max_position_embeddings", "beta_fast",
             "beta_slow", "attention_factor", "partial_rotary_factor")
_ROPE_INT = ("original_max_position_embeddings", "max_position_embeddings")


class VariantError(ValueError):
    """A SPEC that does not name a variant (one line: the key or value, and what is allowed)."""


def parse(text: str):
    """The variant SPEC names (:mod:`peproof.variant`)."""
    s = (text or "").strip()
    if not s:
        raise VariantError("--variant: empty; give key=value pairs such as "
                           "family=h-1,base=10000,d=384, a rope_parameters JSON or a config.json")
    try:
        if s.startswith("{"):
            return _rope_json(s)
        if s.endswith(".json") and "=" not in s:
            return _config_file(Path(s))
        return _pairs(s)
    except ParameterError as exc:
        raise VariantError(f"--variant: {exc}") from None


def _pairs(s: str):
    kv: dict[str, str] = {}
    for part in s.split(","):
        if "=" not in part:
            raise VariantError(f"--variant: {part.strip()!r} is not key=value; keys: "
                               f"{', '.join(KEYS)} (and for family=rope: {', '.join(ROPE_KEYS)})")
        k, _, v = part.partition("=")
        k, v = k.strip().replace("-", "_"), v.strip()
        if k in kv:
            raise VariantError(f"--variant: key {k!r} given twice")
        if not v:
            raise VariantError(f"--variant: key {k!r} has no value")
        kv[k] = v
    fam = kv.get("family", "paper").lower()
    if fam == "rope":
        return _rope_pairs(kv)
    bad = [k for k in kv if k not in KEYS]
    if bad:
        raise VariantError(f"--variant: unknown key {bad[0]!r}; allowed: {', '.join(KEYS)} "
                           "(RoPE keys need family=rope)")
    if "d" not in kv:
        raise VariantError("--variant: d is missing (the width, an even integer, e.g. d=384)")
    from peproof.oracle.sinusoidal.variant import Variant

    turns = _bool(kv.get("turns", "false"), "turns")
    from peproof.oracle.sinusoidal.variant import SCALE_FORMS

    if "scale" in kv and kv["scale"] not in SCALE_FORMS:
        kv["scale"] = str(_number(kv["scale"]))  # a number; never text handed to a parser
    try:
        ov = Variant(family=fam, base=kv.get("base", "10000"),
                     layout=kv.get("layout", "interleaved"), offset=kv.get("offset", "0"),
                     scale=kv.get("scale", "1"), max_freq=kv.get("max_freq", "1"), turns=turns)
        enc = ov.encoding(_int(kv["d"], "d"))
    except ParameterError as exc:
        raise VariantError(f"--variant: {exc}") from None
    return Sinusoidal(enc)


def _bool(v: str, key: str) -> bool:
    low = v.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise VariantError(f"--variant: {key} must be true or false, got {v!r}")


def _int(v, key: str) -> int:
    try:
        n = int(str(v))
    except ValueError:
        raise VariantError(f"--variant: {key} must be an integer, got {v!r}") from None
    return n


def _number(v: str):
    """An exact number from SPEC text (``8``, ``0.5``, ``1/4``): a JSON-like value for the
    rope_parameters reader (never evaluated as code)."""
    try:
        f = Fraction(v)
    except (ValueError, ZeroDivisionError):
        raise VariantError(f"--variant: expected a number, got {v!r}") from None
    return int(f) if f.denominator == 1 else f


def _rope_pairs(kv: dict):
    allowed = ("family", "base", "d", "layout") + ROPE_KEYS
    bad = [k for k in kv if k not in allowed]
    if bad:
        raise VariantError(f"--variant: unknown key {bad[0]!r} for family=rope; allowed: "
                           f"{', '.join(allowed)}")
    if "d" not in kv:
        raise VariantError("--variant: d is missing (the rotated head width, e.g. d=128)")
    params: dict = {"rope_type": kv.get("rope_type", "default")}
    if "base" in kv:
        params["rope_theta"] = _number(kv["base"])
    for k in ROPE_KEYS[1:]:
        if k in kv:
            params[k] = _number(kv[k])
    return _rope(params, _int(kv["d"], "d"), kv.get("layout", "half"))


def _rope_json(s: str):
    try:
        params = json.loads(s)
    except ValueError as exc:
        raise VariantError(f"--variant: not valid JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(params, dict):
        raise VariantError("--variant: a rope_parameters JSON must be an object")
    return _rope(params, None, "half")


def _config_file(p: Path):
    if not p.is_file():
        raise VariantError(f"--variant: {p}: no such file (a config.json, or key=value pairs)")
    try:
        cfg = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise VariantError(f"--variant: {p}: unreadable ({str(exc).splitlines()[0]})") from None
    if not isinstance(cfg, dict):
        raise VariantError(f"--variant: {p}: not a JSON object")
    from peproof.scan.catalogue import table_spec

    spec = table_spec(cfg.get("model_type"), "", cfg)
    if spec is not None and not spec.learned and spec.width:
        try:
            return Sinusoidal(Encoding(spec.width, family=spec.family, base=spec.base,
                                       layout=spec.layout))
        except ParameterError as exc:
            raise VariantError(f"--variant: {p}: {exc}") from None
    from peproof.oracle.common.tables import InputError
    from peproof.oracle.rotary.config import rope_parameters_of

    try:
        params = rope_parameters_of(cfg)
    except InputError as exc:
        raise VariantError(f"--variant: {p}: {exc}") from None
    if not any(k in cfg for k in ("rope_theta", "rope_parameters", "rope_scaling")) and \
            not any(k in (cfg.get("text_config") or {}) for k in ("rope_theta",
                                                                 "rope_parameters")):
        raise VariantError(f"--variant: {p}: no sinusoidal table the scan catalogue knows "
                           f"(model_type {cfg.get('model_type')!r}) and no RoPE "
                           "(rope_theta / rope_parameters)")
    if any(isinstance(v, dict) for v in params.values()):
        raise VariantError(f"--variant: {p}: a RoPE per layer type; give one of them as "
                           "a rope_parameters JSON")
    return _rope(params, None, "half")


def _rope(params: dict, d, layout: str):
    from peproof.oracle.common.tables import InputError
    from peproof.oracle.rotary.config import head_dim_of, rope_from_config

    if d is None:
        d = head_dim_of(params)
        if d is None:
            raise VariantError("--variant: the RoPE's width is missing: head_dim (or "
                               "hidden_size and num_attention_heads) in the JSON, or "
                               "family=rope,...,d=128")
        prf = params.get("partial_rotary_factor")
        if prf not in (None, 1):
            d = int(d * prf) - int(d * prf) % 2
    if layout not in ("half", "interleaved"):
        raise VariantError(f"--variant: a RoPE layout is half or interleaved, got {layout!r}")
    try:
        return Rotary(rope_from_config(params, d, layout=layout))
    except (InputError, ParameterError, TypeError, ValueError) as exc:
        raise VariantError(f"--variant: {str(exc).splitlines()[0]}") from None


def _num(x) -> str:
    x = sp.nsimplify(x) if not isinstance(x, sp.Basic) else x
    return str(x).replace(" ", "")


def spec(v) -> str:
    """The SPEC that :func:`parse` reads back as ``v`` (key=value pairs)."""
    if isinstance(v, Encoding):
        v = Sinusoidal(v)
    if isinstance(v, Sinusoidal):
        e = v.enc
        parts = [f"family={e.family}", f"base={e._base}", f"d={e.d}"]
        if e.layout != "interleaved":
            parts.append(f"layout={e.layout}")
        if e._max_freq != 1:
            parts.append(f"max_freq={e._max_freq}")
        if e.turns:
            parts.append("turns=true")
        if e._offset != 0:
            parts.append(f"offset={e._offset}")
        if e._scale != 1:
            parts.append(f"scale={_scale_text(e._scale, e.d)}")
        return ",".join(parts)
    if isinstance(v, Rotary):
        r = v.rope
        sc = r.scaling
        parts = ["family=rope", f"base={r._base}", f"d={r.d}"]
        if r.layout != "half":
            parts.append(f"layout={r.layout}")
        if sc.rope_type not in (None, "default"):
            parts.append(f"rope_type={sc.rope_type}")
            for k in getattr(sc, "exact", ()):
                val = getattr(sc, k)
                parts.append(f"{k}={val}")
        return ",".join(parts)
    raise TypeError(f"not a variant: {v!r}")


def _scale_text(s: sp.Expr, d: int) -> str:
    from peproof.oracle.sinusoidal.variant import SCALE_FORMS, scale_expr

    for f in SCALE_FORMS:
        if scale_expr(f, d) == s:
            return f
    if s.is_Rational:
        return str(s)
    raise VariantError(f"scale {s} has no SPEC form (a rational or one of {SCALE_FORMS})")


def is_paper(v) -> bool:
    """The paper's encoding (family paper, base 10000, interleaved, no offset, scale 1)."""
    if v is None:
        return True
    if not isinstance(v, Sinusoidal):
        return False
    e = v.enc
    return (e.family == "paper" and e._base == 10000 and e.layout == "interleaved"
            and e._offset == 0 and e._scale == 1 and e._max_freq == 1 and not e.turns)


def name(v) -> str:
    if v is None:
        return "the paper's encoding"
    if isinstance(v, Sinusoidal):
        return v.enc.describe()
    r = v.rope
    return (f"RoPE d={r.d} base={r._base} layout={r.layout} "
            f"scaling={r.scaling.rope_type or r.scaling.kind}")
