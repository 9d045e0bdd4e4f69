"""The encoding's vocabulary of a user statement, built from one :class:`Encoding`.

``PE(pos, j)``   channel ``j`` (an integer ``0 .. d-1``) of the encoding at ``pos``
                 (:meth:`Encoding.entry`); ``PE(pos)`` is the column of all ``d`` channels
``omega(i)``     the frequency of pair ``i`` (:meth:`Encoding.omega`; ``i`` a number
                 ``0 .. d/2-1`` or an integer variable)
``M(k)``         the shift matrix of the encoding: ``M(k) * PE(pos) == PE(pos + k)``
                 (:func:`peproof.families._common.shift_matrix`)
``d``, ``base``  the encoding's dimension and base

Nothing is retyped here: every value comes from :mod:`peproof.encoding` (and the families' one
shift matrix).  Matrices (``PE(pos)``, ``M(k)``) are offered up to :data:`MAX_MATRIX_D`
channels; a relation between two matrices is their entrywise equality
(:func:`peproof.claims.mat_eq`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from peproof.encoding import Encoding
from peproof.user.parse import TextError

MAX_MATRIX_D = 64


@dataclass(frozen=True)
class Word:
    """A name of the vocabulary: a constant (``value``) or a function (``arity``, ``build``:
    ``build(args, col)`` returns a SymPy expression or matrix)."""

    value: object = None
    arity: tuple[int, ...] = ()
    build: Callable | None = None
    help: str = ""


def _err(what: str, col: int, why: str) -> TextError:
    return TextError(f"statement: {what} at column {col}: {why}")


def _index(x, col: int, name: str, top: int) -> int:
    if not (isinstance(x, sp.Integer) and 0 <= int(x) <= top):
        raise _err(f"{name}'s index {sp.sstr(x)}", col, f"an integer 0..{top} expected")
    return int(x)


def vocabulary(enc: Encoding) -> dict[str, Word]:
    """The names ``PE omega M d base`` for ``enc`` (the paper's encoding by default)."""

    def pe(args, col):
        pos = args[0]
        if len(args) == 2:
            return enc.entry(pos, _index(args[1], col, "PE", enc.d - 1))
        _small(col, "PE(pos)")
        return sp.Matrix(enc.vector(pos))

    def omega(args, col):
        (i,) = args
        if i.is_number:
            return enc.omega(_index(i, col, "omega", enc.pairs - 1))
        if not (i.is_Symbol and i.is_integer):
            raise _err(f"omega({sp.sstr(i)})", col, "the index is a number or an integer "
                       "variable (--domain i=nonneg_integer)")
        return enc.omega(i)

    def shift(args, col):
        from peproof.families._common import shift_matrix

        _small(col, "M(k)")
        return shift_matrix(enc, args[0])

    def _small(col, what):
        if enc.d > MAX_MATRIX_D:
            raise _err(what, col, f"matrices are offered up to d = {MAX_MATRIX_D} (this "
                       f"encoding has d = {enc.d}): state a component, PE(pos, j)")

    words = {
        "PE": Word(arity=(1, 2), build=pe, help="PE(pos, j): channel j at pos"),
        "omega": Word(arity=(1,), build=omega, help="omega(i): frequency of pair i"),
        "M": Word(arity=(1,), build=shift, help="M(k): the shift matrix"),
        "d": Word(value=sp.Integer(enc.d), help="the dimension"),
    }
    if enc.family != "nerf":  # the nerf family has no base
        words["base"] = Word(value=sp.Rational(enc._base), help="the base")
    return words


def paper() -> Encoding:
    """The paper's encoding: d = 512, base 10000, interleaved (section 3.5)."""
    return Encoding(512)
