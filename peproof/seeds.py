"""The source documents (seeds) and how claims cite them.

The seed texts are files named by a hash (``000_055a85c4ea355e05.txt``) read from
``$PEPROOF_SEEDS`` or ``../shared/seeds``; what a reader needs to know about each (its title,
what kind of document it is, a short name) is project data here, in :data:`SOURCES`, so that a
report names the sources the same way whether or not the texts are present.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from peproof.claims import Source

FOURIER = "000_055a85c4ea355e05.txt"  # "Sinusoidal Positional Encodings" (Fourier feature view)
INTRO = "001_2752310e6f5c6f15.txt"  # "Sinusoidal Positional Encoding" (worked examples)
APPENDIX = "002_e0c851e9540b53ea.txt"  # "6.A Sinusoidal positional encoding (original AIAYN)"
EXAM = "004_9f8143a50fa50625.txt"  # "Positional encoding: derivation and role in Transformers"
SEEDS = (FOURIER, INTRO, APPENDIX, EXAM)


@dataclass(frozen=True)
class SeedInfo:
    """What the report says about a source document (its title as the text gives it)."""

    title: str
    kind: str  # what sort of document it is
    short: str  # the name used in tables
    origin: str = ""  # where it says it comes from, when it does


SOURCES = {
    FOURIER: SeedInfo("Sinusoidal Positional Encodings", "lesson with a Fourier-series view",
                      "Fourier lesson", "finetuneinterview.com, by Marcus Transformers"),
    INTRO: SeedInfo("Sinusoidal Positional Encoding", "tutorial with worked examples",
                    "Worked examples"),
    APPENDIX: SeedInfo("6.A Sinusoidal positional encoding (original AIAYN)",
                       "textbook appendix, chapter 6 of an AI/ML theory course",
                       "AIAYN appendix"),
    EXAM: SeedInfo("Positional encoding: derivation and role in Transformers",
                   "exam question with a model answer", "Exam answer"),
}


def src(seed: str, section: str, quote: str) -> Source:
    return Source(seed, section, quote)


def seeds_dir() -> Path | None:
    """``$PEPROOF_SEEDS`` or ``../shared/seeds`` next to the checkout, if present."""
    env = os.environ.get("PEPROOF_SEEDS")
    cands = [Path(env)] if env else []
    root = Path(__file__).resolve().parent.parent
    cands += [root.parent / "shared" / "seeds", root / "seeds"]
    for c in cands:
        if c.is_dir():
            return c
    return None


def normalise(text: str) -> str:
    """Whitespace collapsed, zero-width characters dropped (the seeds carry some)."""
    text = re.sub("[\u200b\u200c\u200d\ufeff]", "", text)
    return re.sub(r"\s+", " ", text).strip()
