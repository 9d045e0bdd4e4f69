"""A scan's result: one line per positional buffer and a summary, or the ``peproof.scan/1``
JSON envelope (the style of ``peproof.check/1``: schema, suite, input, verdict, summary, one entry
per buffer holding the oracle's own envelope)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .container import Checkpoint
from .judge import Judged
from .oracle_api import short_layout

SCHEMA = "peproof.scan/1"


@dataclass
class ScanReport:
    checkpoint: Checkpoint
    config_path: str | None
    model_type: str | None
    judged: list[Judged]
    skipped: int
    skipped_named: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def buffers(self) -> list[Judged]:
        return [j for j in self.judged if j.ok is not None]

    @property
    def failing(self) -> list[Judged]:
        return [j for j in self.judged if j.ok is False]

    @property
    def ok(self) -> bool:
        return not self.failing

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def counts(self) -> dict:
        names = lambda js: sum(1 + len(j.copies) for j in js)  # noqa: E731
        by: dict[str, int] = {}
        for j in self.judged:
            by[j.code] = by.get(j.code, 0) + 1 + len(j.copies)
        return {"tensors": len(self.checkpoint.tensors),
                "positional_buffers": names(self.buffers),
                "passing": names([j for j in self.buffers if j.ok]),
                "failing": names(self.failing),
                "not_judged": names([j for j in self.judged if j.ok is None]),
                "skipped": self.skipped, "by_verdict": by}

    @property
    def headline(self) -> str:
        c = self.counts()
        if not c["positional_buffers"]:
            return "no positional buffer to judge" + (
                f" ({c['not_judged']} not judged)" if c["not_judged"] else "")
        if self.ok:
            return f"all {c['positional_buffers']} positional buffer(s) pass"
        return f"{c['failing']} of {c['positional_buffers']} positional buffer(s) fail"

    def render(self) -> str:
        ck = self.checkpoint
        cfg = (f"config {self.config_path}" + (f" (model_type {self.model_type})"
                                               if self.model_type else "")
               if self.config_path else "no config")
        L = [f"peproof scan {ck.path}: {ck.format}, {len(ck.files)} file(s), "
             f"{len(ck.tensors)} tensors, {_bytes(ck.bytes)}; {cfg}"]
        for j in self.judged:
            mark = "ok  " if j.ok else ("--  " if j.ok is None else "FAIL")
            f = j.found
            what = f.kind if f.dtype == "metadata" else f"{f.kind} {tuple(f.shape)} {f.dtype}" + (
                f" as {short_layout(j.layout)}" if j.layout else "")
            head = j.headline + (f" ({j.passes_as})" if j.ok and j.passes_as else "")
            L.append(f"{mark} {' + '.join(f.names)}: {what}: {head}")
            if j.ok is False:
                if j.expected:
                    L.append(f"       expected   : {j.expected}")
                if j.identified:
                    L.append(f"       identified : {j.identified}")
                for d in j.diagnoses[:3]:
                    if d not in j.headline:
                        L.append(f"       diagnosis  : {d}")
            for n in (j.scan_notes + j.notes if j.ok is False else j.scan_notes)[:3]:
                L.append(f"       note       : {n}")
            if j.copies:
                shown = ", ".join(j.copies[:3]) + (f" and {len(j.copies) - 3} more"
                                                   if len(j.copies) > 3 else "")
                L.append(f"       identical  : {shown} (the same verdict)")
        for name, why in self.skipped_named[:5]:
            L.append(f"--   {name}: named like a positional buffer, not one ({why})")
        for n in self.notes:
            L.append(f"note: {n}")
        c = self.counts()
        L.append(f"summary: {c['positional_buffers']} positional buffer(s): {c['passing']} "
                 f"pass, {c['failing']} fail; {c['not_judged']} not judged (learned, or not "
                 "positional); "
                 f"{c['skipped']} other tensors skipped; {self.seconds:.2f} s")
        L.append(f"verdict: {self.headline.upper() if self.ok else self.headline}")
        return "\n".join(L)

    def to_json(self) -> dict:
        from peproof import __version__

        ck = self.checkpoint
        return {
            "schema": SCHEMA, "suite": "peproof", "suite_version": __version__,
            "platform": platform_info(),
            "input": {"path": ck.path, "format": ck.format, "files": ck.files,
                      "bytes": ck.bytes, "tensors": len(ck.tensors),
                      "config": self.config_path, "model_type": self.model_type},
            "verdict": {"text": self.headline, "ok": self.ok, "exit_code": self.exit_code},
            "summary": self.counts(),
            "buffers": [_buffer_json(j) for j in self.judged],
            "skipped_named": [{"name": n, "reason": r} for n, r in self.skipped_named],
            "notes": self.notes, "seconds": self.seconds,
        }


def _buffer_json(j: Judged) -> dict:
    f = j.found
    return {"names": f.names, "identical": j.copies, "kind": f.kind, "shape": list(f.shape),
            "dtype": f.dtype, "found_by": f.by, "content": f.note, "layout": j.layout or None,
            "verdict": {"text": j.headline, "code": j.code, "ok": j.ok},
            "expected": j.expected, "identified": j.identified, "passes_as": j.passes_as,
            "diagnoses": j.diagnoses,
            "notes": j.notes, "oracle": j.oracle}


def platform_info() -> dict:
    import platform
    import sys

    import numpy as np

    return {"python": sys.version.split()[0], "numpy": np.__version__,
            "system": platform.system(), "machine": platform.machine()}


def _bytes(n: int) -> str:
    from peproof.guard.limits import human_bytes

    return human_bytes(n)
