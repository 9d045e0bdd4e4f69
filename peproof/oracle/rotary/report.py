"""The result of a rotary check: :class:`RotaryReport`, its versioned JSON envelope
(``peproof.rotary-check/1``) and its human rendering."""

from __future__ import annotations

from dataclasses import dataclass, field

from peproof.formats import Format
from peproof.rope import Rope

from ..common.envelope import plain_json
from ..common.verdicts import CONFORMS, DEGENERATE, OUTSIDE, VARIANT, WITHIN, WRONG
from .artefacts import LAYOUT_TEXT
from .compare import Tally


@dataclass
class RotaryReport:
    verdict: str
    kind: str
    shape: tuple
    stored: Format
    pipe: Format
    layout: str | None
    expected: Rope | None
    identified: Rope | None
    seq_len: int | None
    attention: float
    attention_form: str
    tally: Tally | None
    other: Tally | None = None
    diagnoses: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    collisions: dict = field(default_factory=dict)
    horizon: dict = field(default_factory=dict)
    model: dict = field(default_factory=dict)
    allow_collisions: bool = False
    seconds: float = 0.0
    implied: dict = field(default_factory=dict)  # per-frequency factors read (LongRoPE-like)
    native: str = ""  # the library layout the artefact was read from (layouts.py)
    #: aspects of ``expected`` the user did not state (:mod:`.expected`): filled in, not asked
    unstated: tuple = ()

    @property
    def ok(self) -> bool:
        return self.verdict in (CONFORMS, WITHIN)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def describe(self, r: Rope | None) -> str:
        if r is None:
            return "-"
        return r.describe() + (f" at seq_len {self.seq_len}" if r.scaling.kind == "dynamic"
                               and self.seq_len else "")

    @property
    def headline(self) -> str:
        if self.verdict == VARIANT:
            return f"{VARIANT}: {self.describe(self.identified)}"
        if self.verdict in (WRONG, OUTSIDE, DEGENERATE) and self.diagnoses:
            return f"{self.verdict}: {self.diagnoses[0]}"
        return self.verdict

    def to_json(self) -> dict:
        return plain_json({
            "schema": "peproof.rotary-check/1", "verdict": self.verdict, "ok": self.ok,
            "artefact": self.kind, "shape": list(self.shape), "dtype": self.stored.name,
            "pipeline_dtype": self.pipe.name, "layout": self.layout,
            "expected": self.describe(self.expected) if self.expected else None,
            "expected_unstated": list(self.unstated) if self.expected else None,
            "identified": self.describe(self.identified) if self.identified else None,
            "seq_len": self.seq_len, "attention_factor": self.attention,
            "attention_form": self.attention_form, "diagnoses": self.diagnoses,
            "notes": self.notes,
            "counts": self.tally.to_json() if self.tally else None,
            "counts_identified": self.other.to_json() if self.other else None,
            "collisions": self.collisions, "horizon": self.horizon, "error_model": self.model,
            "implied_factors": self.implied or None, "native_layout": self.native or None,
            "seconds": self.seconds})

    def render(self, worst: int = 5) -> str:
        L = [f"peproof check (rotary {self.kind}): shape {self.shape}, {self.stored.name}"
             + (f", computed in {self.pipe.name}" if self.pipe != self.stored else "")]
        L.append(f"verdict    : {self.headline.upper() if self.ok else self.headline}")
        for k, dg in enumerate(self.diagnoses[1:4] if self.verdict != VARIANT else
                               self.diagnoses[:4]):
            L.append(("diagnosis  : " if k == 0 else "             ") + dg)
        if self.expected is not None:
            L.append(f"expected   : {self.describe(self.expected)}" + (
                f" (not stated, filled in: {', '.join(self.unstated)})" if self.unstated else ""))
        L.append(f"identified : {self.describe(self.identified)}")
        if self.native:
            L.append(f"stored as  : {self.native}")
        if self.layout:
            L.append(f"layout     : {LAYOUT_TEXT.get(self.layout, self.layout)}")
        L.append(f"attention  : {self.attention:.9g} ({self.attention_form})")
        t = self.tally
        if t is not None:
            L.append(f"counts     : {t.faithful} of {t.entries} entries within 1 ulp, "
                     f"{t.entries - t.over - t.undecided} within the error model of "
                     f"{self.pipe.name}, {t.over} outside"
                     + (f", {t.undecided} undecided" if t.undecided else ""))
            if t.worst and worst:
                L.append("worst      : " + "; ".join(
                    f"pos {w.get('position', '-')} pair {w['pair']} {w.get('part', '')} "
                    f"{w['value']:.9g} (exact {w['expected']:.9g}, {w['x_bound']:.3g} x bound)"
                    for w in t.worst[:worst]))
        if self.implied:
            f = self.implied["factors"]
            L.append(f"factors    : implied per pair (base {self.implied['base']}): "
                     + ", ".join(f"{x:.6g}" for x in f[:8]) + (" ..." if len(f) > 8 else ""))
        for n in self.notes[:4]:
            L.append(f"note       : {n}")
        col = self.collisions
        if col:
            L.append(f"collisions : {col.get('identical_row_groups', 0)} groups of identical "
                     "rows" + (f", first positions {col['examples'][0]}" if col.get('examples')
                               else ""))
        for fmt, hz in self.horizon.items():
            L.append(f"horizon    : {fmt}: positions collide from {hz['positions_collide_from']}"
                     f" (p and p+1 equal), the angle of pair 0 from "
                     f"{hz['theta0_angle_collides_from']}")
        return "\n".join(L)

    def __str__(self) -> str:
        return self.render()
