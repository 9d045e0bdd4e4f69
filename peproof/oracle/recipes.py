"""Pipeline-faithful recipes: the encoding computed in a low-precision dtype, step by step.

Two recipes cover the implementations in the wild: ``exp`` computes the frequencies as
``exp(i * (-ln(base) * rate))`` (the PyTorch tutorial, fairseq, tensor2tensor, diffusers) and
``pow`` as ``1 / base ** (rate * i)`` (positional-encodings, XLM-style code); then positions,
angles, ``sin``/``cos`` and the scale are all rounded to the dtype.  The frequency law
``const * base ** (rate * i)`` is read from :func:`peproof.encoding.omega_expr`, not retyped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from peproof.encoding import omega_expr

from .exact import Plan
from .formats import Format


@dataclass
class Recipe:
    """A recipe run in the pipeline format, with its frequencies rounded as the recipe does."""

    name: str
    omega: np.ndarray  # in the pipeline dtype


def recipes(plan: Plan, pipe: Format) -> list[Recipe]:
    """The ``exp`` and ``pow`` recipes of this encoding in ``pipe`` (read from ``omega_expr``)."""
    dt = pipe.numpy_dtype
    if dt is None or pipe.name == "float64":
        return []
    enc = plan.enc
    i = sp.Symbol("i", integer=True, nonnegative=True)
    expr = omega_expr(i, enc.d, enc.family, enc._base)
    const, dep = expr.as_independent(i, as_Add=False)
    base, ex = dep.as_base_exp()
    rate = ex.coeff(i)  # omega_i = const * base**(rate*i)
    idx = np.arange(plan.h).astype(dt)
    c = dt.type(float(const))
    with np.errstate(over="ignore", under="ignore"):
        w_exp = np.exp(idx * dt.type(float(rate * sp.log(base)))) * c
        expo = (np.arange(plan.h) * float(-rate)).astype(dt)  # e.g. arange(0, d, 2) / d
        w_pow = c / (dt.type(float(base)) ** expo)
    return [Recipe("exp", w_exp.astype(dt)), Recipe("pow", w_pow.astype(dt))]


def run_recipe(plan: Plan, rec: Recipe, pos: np.ndarray, pipe: Format) -> np.ndarray:
    dt = pipe.numpy_dtype
    with np.errstate(over="ignore", invalid="ignore"):
        x = (pos + plan.offset).astype(dt)[:, None] * rec.omega[None, :]
        out = plan.assemble(np.sin(x), np.cos(x))
        if plan.scale != 1.0:
            out = out * dt.type(plan.scale)
    return out.astype(np.float64)
