"""Pipeline-faithful recipes: the encoding computed in a low-precision dtype, step by step.

Two recipes cover the implementations in the wild: ``exp`` computes the frequencies as
``exp(i * (-ln(base) * rate))`` (the PyTorch tutorial, fairseq, tensor2tensor, diffusers) and
``pow`` as ``1 / base ** (rate * i)`` (positional-encodings, XLM-style code); then positions,
angles, ``sin``/``cos`` and the scale are all rounded to the dtype.  The frequencies come from
:func:`peproof.numeric.recipes.frequencies` (the one implementation of both recipes, which
reads the law from :func:`peproof.encoding.omega_law`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from peproof.formats import Format

from ..common.exact import Plan


@dataclass
class Recipe:
    """A recipe run in the pipeline format, with its frequencies rounded as the recipe does."""

    name: str
    omega: np.ndarray  # in the pipeline dtype


def recipes(plan: Plan, pipe: Format) -> list[Recipe]:
    """The ``exp`` and ``pow`` recipes of this encoding in ``pipe`` (numeric.recipes)."""
    dt = pipe.numpy_dtype
    if dt is None or pipe.name == "float64":
        return []
    from peproof.numeric.recipes import frequencies  # the one implementation of the recipes

    return [Recipe(how, frequencies(plan.enc, np.dtype(dt), how).astype(dt))
            for how in ("exp", "pow")]


def run_recipe(plan: Plan, rec: Recipe, pos: np.ndarray, pipe: Format) -> np.ndarray:
    dt = pipe.numpy_dtype
    with np.errstate(over="ignore", invalid="ignore"):
        x = (pos + plan.offset).astype(dt)[:, None] * rec.omega[None, :]
        out = plan.assemble(np.sin(x), np.cos(x))
        if plan.scale != 1.0:
            out = out * dt.type(plan.scale)
    return out.astype(np.float64)
