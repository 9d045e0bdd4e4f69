"""``peproof scan``: every positional buffer of a model checkpoint, found and judged.

:func:`scan` opens a checkpoint lazily (:mod:`.container`: safetensors, sharded safetensors, a
weights-only ``.pt``/``.bin`` state dict, ``.npz``), finds its sinusoidal tables, RoPE
``inv_freq`` vectors and cos/sin caches by name and by content from samples of rows
(:mod:`.detect`), and judges each with the oracle against what the model's ``config.json``
implies (:mod:`.catalogue` for the architectures' tables, :mod:`.config` for RoPE;
:mod:`.judge`).  Learned positional embeddings are named and not judged.  The result is a
:class:`~.report.ScanReport` (one line per buffer, or the ``peproof.scan/1`` envelope).

Everything taken from the oracle is imported in :mod:`.oracle_api`, from its public API only
(``peproof.oracle.__all__``, ``peproof.oracle.rotary.__all__``).
"""

from __future__ import annotations

import time

from .container import Checkpoint, open_checkpoint
from .report import SCHEMA, ScanReport

__all__ = ["SCHEMA", "Checkpoint", "ScanReport", "open_checkpoint", "scan"]


def scan(source: str, *, config: str | None = None, use_config: bool = True,
         limits=None) -> ScanReport:
    """Scan the checkpoint ``source``; ``config`` is a config.json (default: the one beside
    it, unless ``use_config`` is false).  Bad input raises :class:`peproof.oracle.InputError`;
    judging buffers estimated to take longer than ``limits`` (a
    :class:`peproof.guard.limits.Limits`, default 30 minutes) raises
    :class:`peproof.guard.UsageError` before the oracle starts."""
    from peproof.guard.limits import Limits, count, work

    from .catalogue import table_spec
    from .config import is_rotary, read_config
    from .detect import INV_FREQ, TABLE, detect
    from .judge import as_rotary, judge, same_content, will_judge

    t0 = time.perf_counter()
    ck = open_checkpoint(source)
    cfg_path = config if config is not None else (ck.config_path if use_config else None)
    cfg = read_config(cfg_path) if cfg_path is not None else None
    mt = str(cfg.get("model_type")) if cfg and cfg.get("model_type") else None
    pre, consumed, notes = [], set(), []
    if ck.meta is not None:  # GGUF: the metadata's RoPE and llama.cpp's factor tensors
        from .gguf_rope import rope_checks

        pre, consumed, notes = rope_checks(ck.meta, ck.tensors, cfg)
    det = detect([t for t in ck.tensors if t.name not in consumed])
    det.found = [as_rotary(f, cfg) for f in det.found]
    entries = sum(t.size for f in det.found if will_judge(f, cfg) for t in f.tensors)
    # the oracle streams each buffer by row chunks: its memory is a chunk, its time the entries
    (limits or Limits()).enforce(work(f"judging the positional buffers of {source}", entries,
                                      "check_entry", 64 * 2**20, f"{count(entries)} entries"))
    judged = list(pre)
    for f in det.found:
        twin = next((j for j in judged if same_content(j.found, f)), None)
        if twin is not None:
            twin.copies.extend(f.names)
            continue
        judged.append(judge(f, cfg))
    if cfg is not None and ck.meta is None:
        kinds = {j.found.kind for j in judged}
        spec = table_spec(mt, "", cfg)
        if spec is not None and not spec.learned and TABLE not in kinds:
            notes.append(f"no sinusoidal table stored: {mt} builds one ({spec.source}); "
                         "transformers rebuilds it when the model is loaded")
        if is_rotary(cfg) and not kinds & {INV_FREQ, "cos/sin cache"}:
            notes.append("the config describes a rotary embedding but no inv_freq or cos/sin "
                         "cache is stored (transformers recomputes them at load)")
    return ScanReport(ck, cfg_path, mt, judged, det.skipped, det.skipped_named, notes,
                      time.perf_counter() - t0)
