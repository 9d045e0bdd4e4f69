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

#: Literature cited where the seeds are silent (the RoPE scaling methods, RoFormer's decay bound,
#: the layouts of real implementations): key -> full reference.  A :class:`Source` whose ``seed``
#: is one of these keys cites that work at ``section``; its ``quote`` then *paraphrases* what the
#: work states (the text is not stored here, so no test can check its words; the seeds' quotes
#: are verbatim and checked).  Build such sources with :func:`cite`.
LITERATURE = {
    "arXiv:2104.09864": "J. Su, Y. Lu, S. Pan, A. Murtadha, B. Wen, Y. Liu. RoFormer: Enhanced "
                        "Transformer with Rotary Position Embedding. 2021.",
    "arXiv:2306.15595": "S. Chen, S. Wong, L. Chen, Y. Tian. Extending Context Window of Large "
                        "Language Models via Positional Interpolation. 2023.",
    "arXiv:2309.00071": "B. Peng, J. Quesnelle, H. Fan, E. Shippole. YaRN: Efficient Context "
                        "Window Extension of Large Language Models. 2023.",
    "arXiv:2402.13753": "Y. Ding, L. L. Zhang, C. Zhang, Y. Xu, N. Shang, J. Xu, F. Yang, M. Yang. "
                        "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens. 2024.",
    "github:meta-llama/llama-models": "Meta. Llama 3.1 reference implementation: the rotary "
                                      "frequency scaling (apply_scaling). 2024.",
    "github:huggingface/transformers": "Hugging Face transformers: modeling_rope_utils "
                                       "(ROPE_INIT_FUNCTIONS) and rotate_half (version 5).",
}


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


def source_info(key: str) -> SeedInfo | None:
    """What a reader needs to know about a cited source: a seed (:data:`SOURCES`) or a work of
    the literature (:data:`LITERATURE`: its reference, a short name "Surname et al. year")."""
    if key in SOURCES:
        return SOURCES[key]
    if key not in LITERATURE:
        return None
    ref = LITERATURE[key]
    year = re.findall(r"\b(?:19|20)\d\d\b", ref)
    if key.startswith("github:"):
        short = key.split("/", 1)[1]
    else:  # "J. Su, Y. Lu, ... 2021." -> "Su et al. 2021"
        surname = ref.split(",")[0].split()[-1]
        short = f"{surname} et al. {year[-1] if year else ''}".strip()
    return SeedInfo(ref, "published work (cited, paraphrased)", short, key)


def src(seed: str, section: str, quote: str) -> Source:
    return Source(seed, section, quote)


def cite(key: str, section: str, paraphrase: str) -> Source:
    """A literature source (a key of :data:`LITERATURE`); ``paraphrase`` says what it states."""
    if key not in LITERATURE:
        raise KeyError(f"unknown literature key {key!r}; add it to peproof.seeds.LITERATURE")
    return Source(key, section, paraphrase)


def is_literature(source: Source) -> bool:
    return source.seed in LITERATURE


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
