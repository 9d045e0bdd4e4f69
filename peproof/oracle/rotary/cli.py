"""``peproof check`` for rotary artefacts: the flags and the dispatch (hooked into
:mod:`peproof.commands.check`, which keeps the absolute-table path unchanged).

The rotary path is taken when ``--kind inv-freq|cache|angles`` is given, when ``--sin`` or
``--rope`` is given, or (``--kind auto``, the default) when the file is plainly rotary: a 1-D
vector without ``--d`` (an ``inv_freq``, or mlx's periods), a complex array (Meta's
``freqs_cis``), a ``(2, S, d)`` stack, a ``(S, d/2, 2)`` [cos, sin] cache (torchtune, Meta's real
view), or an archive holding ``inv_freq``, ``cos`` and ``sin``, ``cos_sin_cache`` or
``freqs_cis``.  A 2-D array stays a sinusoidal table unless ``--kind cache`` / ``--rope`` says it
is a rotary cache (vLLM's [cos | sin], GPT-J's [sin | cos]: read by :mod:`.layouts`) or
``--kind angles`` that it holds rotary angles.
"""

from __future__ import annotations

import json
from pathlib import Path

KINDS = ("auto", "table", "inv-freq", "cache", "angles")
CACHE_LAYOUTS = ("vllm", "gptj", "interleaved_cos_sin", "interleaved_sin_cos")
PAIRS = (("cos", "sin"), ("cos_cached", "sin_cached"), ("cos_cache", "sin_cache"))


def add_arguments(p) -> None:
    g = p.add_argument_group("rotary (RoPE) artefacts")
    g.add_argument("--kind", default="auto", choices=KINDS, help="what the source holds: a "
                   "sinusoidal table, a RoPE inv_freq vector, a cos/sin cache or a table of "
                   "rotary angles p theta_j (rotary-embedding-torch's freqs; default: "
                   "detected; a 2-D array is a table)")
    g.add_argument("--sin", metavar="FILE", help="the sin half of a cache pair whose cos is "
                   "SOURCE")
    g.add_argument("--rope", metavar="SPEC", help="expected RoPE: a rope_type name, transformers' "
                   "rope_parameters as JSON, or a config.json holding them")
    g.add_argument("--seq-len", type=int, help="sequence length for dynamic scalings (default: "
                   "the largest position + 1)")
    g.add_argument("--max-position-embeddings", type=int, help="for dynamic NTK / YaRN / "
                   "LongRoPE expectations")
    g.add_argument("--rope-layout", choices=("half", "interleaved"), help="expected cache layout")
    g.add_argument("--cache-layout", choices=CACHE_LAYOUTS, help="the library layout a 2-D cache "
                   "holding cos and sin is in: vllm [cos | sin], gptj [sin | cos] (default: read "
                   "from the content; an archive member cos_sin_cache is vLLM's)")


def _wants_rotary(args) -> bool:
    return args.kind in ("inv-freq", "cache", "angles") or bool(args.sin) or bool(args.rope)


def _rope_spec(spec: str):
    from peproof.guard import UsageError

    s = spec.strip()
    if s.startswith("{"):
        try:
            return json.loads(s)
        except ValueError as exc:
            raise UsageError(f"--rope: not valid JSON ({exc})") from None
    p = Path(s)
    if p.suffix == ".json" and p.is_file():
        try:
            cfg = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--rope {s}: unreadable ({exc})") from None
        if not isinstance(cfg, dict):
            raise UsageError(f"--rope {s}: not a JSON object")
        from .config import rope_parameters_of

        return rope_parameters_of(cfg)
    return {"rope_type": s}


def _peek(source: str, args):
    """``(kwargs for check_rotary) or None`` for ``--kind auto`` on a file."""
    from ..common.loaders import load
    from ..common.tables import InputError

    suf = Path(source).suffix.lower()
    if suf in (".npz", ".safetensors", ".pt", ".pth") and args.key is None:
        # only a member really stored under that name counts: a file holding one bare tensor
        # (a .pt of a table) is returned whatever key is asked for, and is not a rotary artefact
        for k in ("inv_freq",):
            try:
                v, info = load(source, key=k)
            except InputError:
                continue
            if info.get("key") == k:
                return {"inv_freq": v}
        for k in ("cos_sin_cache", "freqs_cis"):  # one array: vLLM's, Meta's
            try:
                v, info = load(source, key=k)
            except InputError:
                continue
            if info.get("key") == k:
                return {"obj": v, "native": "vllm" if k == "cos_sin_cache" else None}
        for ck, sk in PAIRS:
            try:
                c, ci = load(source, key=ck)
                s, si = load(source, key=sk)
            except InputError:
                continue
            if ci.get("key") == ck and si.get("key") == sk:
                return {"cos": c, "sin": s}
    if suf in (".npy", ".npz", ".safetensors", ".pt", ".pth") or args.kind != "auto":
        arr, _ = load(source, key=args.key)
        shape = tuple(getattr(arr, "shape", ()))
        kind = getattr(getattr(arr, "dtype", None), "kind", "")
        if kind == "c" or (len(shape) >= 3 and (shape[0] == 2 or shape[-1] == 2)):
            return {"obj": arr}
        if len([x for x in shape if x != 1]) == 1 and args.d is None:
            return {"inv_freq": arr}
    return None


def maybe_run(args):
    """Run the rotary check if the arguments ask for it (exit code), else ``None``."""
    from peproof.encoding import ParameterError
    from peproof.guard import UsageError
    from peproof.guard.paths import emit, out_file, write_atomic

    from ..common.loaders import _CALLABLE, load
    from ..common.tables import InputError

    if args.kind == "table":
        return None
    callable_ = bool(_CALLABLE.match(args.source)) and not Path(args.source).exists()
    try:
        if args.kind == "angles":
            arr, _ = (load(args.source, d=args.d, n=args.n) if callable_ else
                      load(args.source, key=args.key))
            kw = {"angles": arr}
        elif _wants_rotary(args):
            if callable_:
                arr, _ = load(args.source, d=args.d, n=args.n)
                kw = {"obj": arr} if arr.ndim != 1 else {"inv_freq": arr}
            elif args.sin:
                c, _ = load(args.source, key=args.key)
                s, _ = load(args.sin, key=args.key)
                kw = {"cos": c, "sin": s}
            else:
                kw = _peek(args.source, args)
                if kw is None:
                    arr, _ = load(args.source, key=args.key)
                    kw = {"obj": arr}
        elif callable_:
            return None
        else:
            kw = _peek(args.source, args) if Path(args.source).exists() else None
            if kw is None:
                return None
    except InputError as exc:
        raise UsageError(str(exc)) from None
    if args.kind == "inv-freq" and "obj" in kw:
        kw = {"inv_freq": kw["obj"]}
    out = out_file(args.out)
    positions = None
    if args.positions:
        from peproof.guard import positions as P

        positions = P.parse(args.positions).float64()
    from .check import check_rotary

    if getattr(args, "cache_layout", None):
        kw["native"] = args.cache_layout
    try:
        rep = check_rotary(**kw, kind="inv_freq" if args.kind == "inv-freq" else None,
                           d=args.d, positions=positions,
                           expect=_rope_spec(args.rope) if args.rope else None,
                           layout=args.rope_layout, seq_len=args.seq_len,
                           max_position_embeddings=args.max_position_embeddings,
                           base=_base_hint(args.base), dtype=args.dtype,
                           pipeline_dtype=args.pipeline_dtype,
                           allow_collisions=args.allow_collisions)
    except (InputError, ParameterError, ValueError, KeyError, TypeError) as exc:
        msg = str(exc).strip().splitlines()
        raise UsageError(f"{args.source}: {msg[0] if msg else type(exc).__name__}") from None
    env = rep.to_json() if (args.json or out) else None
    if out:
        write_atomic(out, json.dumps(env, indent=1) + "\n")
    emit(json.dumps(env, indent=1) if args.json else rep.render(args.worst))
    return rep.exit_code


def _base_hint(text):
    from fractions import Fraction

    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        return None
