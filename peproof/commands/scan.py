"""``peproof scan MODEL``: find and judge every positional buffer of a model checkpoint.

Exit codes: 0 every positional buffer conforms or is within the error model of its dtype (or
there is none; learned embeddings are not judged), 1 a buffer is a different variant, wrong,
degenerate, outside the model, contradicts the config or could not be checked, 2 bad input
(one line on stderr).
"""

from __future__ import annotations

import json

from peproof.guard import UsageError

HELP = "find every positional buffer of a model checkpoint and check it against its config"


def add_parser(sub) -> None:
    p = sub.add_parser("scan", help=HELP, description=HELP + ". MODEL is a .safetensors file, a "
                       "folder with model.safetensors or a sharded checkpoint with its "
                       "model.safetensors.index.json, a .pt/.bin state dict (weights only) or "
                       "an .npz; the config.json beside it is read. Pickles are refused.")
    p.add_argument("model", metavar="MODEL", help="checkpoint file or folder")
    p.add_argument("--config", help="the model's config.json (default: the one beside MODEL)")
    p.add_argument("--no-config", action="store_true", help="ignore any config: judge each "
                   "buffer by the variant it is identified as")
    p.add_argument("--json", action="store_true", help="the versioned JSON envelope "
                   "(schema peproof.scan/1) on stdout")
    p.add_argument("--out", help="also write the JSON envelope to this file")
    from peproof.guard.limits import add_arguments as add_limit_arguments

    add_limit_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from peproof.guard.limits import Limits
    from peproof.guard.paths import emit, out_file, write_atomic
    from peproof.oracle import InputError
    from peproof.scan import scan

    if args.config and args.no_config:
        raise UsageError("--config and --no-config exclude each other")
    out = out_file(args.out)
    try:
        rep = scan(args.model, config=args.config, use_config=not args.no_config,
                   limits=Limits.from_args(args))
    except InputError as exc:
        raise UsageError(str(exc)) from None
    except MemoryError:
        raise UsageError(f"{args.model}: not enough memory to scan it") from None
    env = rep.to_json() if (args.json or out) else None
    text = json.dumps(env, indent=1, default=_default) if env is not None else None
    if out:
        write_atomic(out, text + "\n")
    emit(text if args.json else rep.render())
    return rep.exit_code


def _default(o):
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)
