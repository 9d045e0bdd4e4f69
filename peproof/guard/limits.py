"""Work and memory, estimated from a command's parameters before it starts.

A command builds an :class:`Estimate` from its parameters alone (rows x d x bytes, offsets x
frequency pairs, entries x digits ...) and calls :meth:`Limits.enforce` before it allocates or
computes anything.  Beyond the memory limit (``--max-memory``, default 4 GiB) or, without
``--allow-large``, beyond 30 minutes of estimated work, it is refused in one line that gives
the estimate and the flag lifting the limit.  Refusing costs the arithmetic of the estimate.

Times are estimated from nominal rates (:data:`RATES`, measured on one core of the 2-core
machine peproof is developed on, under load, and rounded towards slower); they say "seconds",
"hours" or "years", which is all a refusal needs.  Memory estimates count the arrays a command
holds at its peak, so they are upper bounds up to Python's own overhead (a few tens of MiB).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from . import UsageError

DEFAULT_MAX_MEMORY = 4 * 2**30
DEFAULT_MAX_SECONDS = 30 * 60

#: nominal throughputs (operations per second on one core), see the module docstring
RATES = {
    "pair_scan": 3.0e8,     # separation pre-scan: one cos(omega k) term of D(k) (BLAS product)
    "arb_omega": 1.0e4,     # one frequency omega_i as an arb ball (128 bits)
    "mp_term": 6.0e2,       # mpmath evidence: one term of D(k) at 50 digits, all it needs
    "recipe_entry": 5.0e6,  # horizon: one entry of a dtype recipe with its exact phase
    "check_entry": 1.5e6,   # check: one table entry identified and checked
    "golden_entry": 6.0e3,  # vectors: one entry as a certified decimal string
    "text_byte": 2.0e7,     # reading a text table
    "rope_term": 1.0e7,     # rope-decay: one pair's phase and running sum at one offset
    "rope_setup": 1.0e6,    # rope-decay: its set-up, quadratic in the pairs (h^2 / rate)
}

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.I)


def parse_size(text: str, flag: str = "--max-memory") -> int:
    """``4G``, ``512M``, ``1.5GiB``, ``4096`` (bytes) -> bytes (powers of 1024)."""
    m = _SIZE.match(str(text))
    if not m:
        raise UsageError(f"{flag} must be a size such as 512M, 4G or 16GiB, got {text!r}")
    value = float(m.group(1)) * 1024 ** "_kmgtp".index(m.group(2).lower() or "_")
    if value < 1:
        raise UsageError(f"{flag} must be at least 1 byte, got {text!r}")
    return int(value)


def human_bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"


def human_seconds(s: float) -> str:
    if s < 90:
        return f"{s:.2g} s"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600)):
        if s >= 1.5 * size:
            v = s / size
            return f"{v:.3g} {unit}" if v < 1e6 else f"{v:.1e} {unit}"
    return f"{s / 60:.0f} min"


def count(n: int) -> str:
    """An integer for people: ``62832``, ``1.0e+12``."""
    return str(n) if abs(n) < 10**7 else f"{n:.1e}"


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Estimate:
    """What a command is about to do: peak memory (bytes) and time (nominal seconds)."""

    what: str
    memory: float
    seconds: float
    detail: str = ""

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.what, max(self.memory, other.memory),
                        self.seconds + other.seconds,
                        "; ".join(x for x in (self.detail, other.detail) if x))


def work(what: str, units: float, rate: str, memory: float, detail: str) -> Estimate:
    """An estimate from a count of operations at one of the nominal :data:`RATES`."""
    return Estimate(what, memory, units / RATES[rate], detail)


@dataclass(frozen=True)
class Limits:
    """The limits one run enforces (from ``--max-memory`` and ``--allow-large``)."""

    max_memory: int = DEFAULT_MAX_MEMORY
    allow_large: bool = False
    max_seconds: float = DEFAULT_MAX_SECONDS

    @classmethod
    def from_args(cls, args) -> Limits:
        mm = getattr(args, "max_memory", None)
        return cls(max_memory=parse_size(mm) if mm else DEFAULT_MAX_MEMORY,
                   allow_large=bool(getattr(args, "allow_large", False)))

    def enforce(self, est: Estimate) -> Estimate:
        """Raise :class:`UsageError` (one line, with the estimate and the flag) if ``est``
        exceeds a limit; return it otherwise."""
        problems = []
        if not math.isfinite(est.memory) or est.memory > self.max_memory:
            phys = physical_memory()
            more = f", this machine has {human_bytes(phys)}" if phys else ""
            problems.append(f"need about {human_bytes(est.memory)} of memory, over the limit of "
                            f"{human_bytes(self.max_memory)}{more} (raise it with "
                            "--max-memory SIZE)")
        if not self.allow_large and (not math.isfinite(est.seconds)
                                     or est.seconds > self.max_seconds):
            problems.append(f"take about {human_seconds(est.seconds)}, over the limit of "
                            f"{human_seconds(self.max_seconds)} (pass --allow-large to run it "
                            "anyway)")
        if problems:
            detail = f" [{est.detail}]" if est.detail else ""
            raise UsageError(f"{est.what} would {' and '.join(problems)}{detail}")
        return est

    def enforce_memory(self, nbytes: float, what: str, detail: str = "") -> None:
        """:meth:`enforce` for a read of ``nbytes`` into memory (no time estimate)."""
        self.enforce(Estimate(what, nbytes, 0.0, detail))


def add_arguments(p) -> None:
    """``--max-memory`` and ``--allow-large`` on a subcommand's parser."""
    p.add_argument("--max-memory", metavar="SIZE",
                   help="refuse work estimated to need more memory than SIZE (default 4G; "
                   "e.g. 512M, 16G)")
    p.add_argument("--allow-large", action="store_true",
                   help="run even when the work is estimated to take more than 30 minutes")
