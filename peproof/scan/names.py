"""Positional words inside the components of a tensor's name: the module a tensor belongs to
(``image_position_embed`` of ``image_position_embed.row_embeddings.weight``) and the grid axis
its table encodes (row, column, height, width)."""

from __future__ import annotations

import re

#: a positional word inside one component of a name (``image_position_embed``, ``rel_pos_h``,
#: ``pos_embedding``, ``posemb``): the component names a positional module or table
POS_WORD = re.compile(r"(^|_)(pos|positions?|positional|rel_pos|relative_position)"
                      r"(_|$|emb|enc)", re.I)
AXIS_WORD = re.compile(r"(^|_)(row|rows|col|cols|column|columns|height|width|h|w|x|y)(_|$)", re.I)


def positional_module(name: str) -> str | None:
    """The component of ``name`` holding a positional word, when it is not the name's own last
    word (``image_position_embed`` of ``image_position_embed.row_embeddings.weight``): the
    tensor belongs to a positional module.  ``None`` otherwise."""
    parts = name.split(".")
    if len(parts) > 1 and parts[-1].lower() in ("weight", "weights", "bias"):
        parts = parts[:-1]
    for comp in parts:
        if POS_WORD.search(comp):
            return comp
    return None


def learned_note(name: str, module: str | None) -> str:
    if module is None:
        return "no sin/cos channel pairs"
    parts = [p for p in name.split(".") if p.lower() not in ("weight", "weights")]
    axis = next((AXIS_WORD.search(p).group(2).lower() for p in parts if AXIS_WORD.search(p)),
                None)
    what = f"a {axis} table of a 2-D position embedding" if axis else "a table"
    return f"no sin/cos channel pairs: {what} in positional module {module}"
