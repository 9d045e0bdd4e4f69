"""The rows each candidate frequency of :func:`.consistency.consistent` does not fit, gathered
as the rows stream past (for the message that names them)."""

from __future__ import annotations

import numpy as np

MISFIT_ROWS = 8  # rows kept per candidate interval that does not fit them (for the message)


class _Misfits:
    """The first :data:`MISFIT_ROWS` table rows each candidate interval does not fit, gathered
    chunk by chunk of rows (arrays: a candidate kept per row a Python loop is minutes when the
    candidates number a million, as a 16-bit table shifted by one row makes them)."""

    def __init__(self, n: int):
        self.count = np.zeros(n, np.int64)
        self.cands: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []

    def add(self, bad: np.ndarray, cands: np.ndarray, rows: np.ndarray) -> None:
        """``bad[k, j]``: the row ``rows[k]`` does not fit the candidate ``cands[j]``."""
        room = MISFIT_ROWS - self.count[cands]
        seen = np.cumsum(bad, axis=0, dtype=np.int64)
        k, j = np.nonzero(bad & (seen <= room[None, :]))
        self.cands.append(cands[j])
        self.rows.append(rows[k])
        self.count[cands] += np.minimum(seen[-1], room)

    def get(self, q: int) -> list:
        """The rows candidate ``q`` does not fit, in the order they were met."""
        out = [r[c == q] for c, r in zip(self.cands, self.rows, strict=True)]
        return np.concatenate(out).tolist() if out else []


def _fold(bad: np.ndarray, act: np.ndarray, rows: np.ndarray, fit: np.ndarray,
          misfit: _Misfits) -> np.ndarray:
    """Record the rows of one chunk (``bad[k, j]``: ``rows[k]`` does not fit candidate
    ``act[j]``) and return the candidates later rows can still tell something about: those
    that fit so far, or that have fewer than :data:`MISFIT_ROWS` misfits recorded (a candidate
    dropped here has its answer: it fails, and its rows are kept)."""
    if not bad.any():
        return act
    fit[act[bad.any(axis=0)]] = False
    misfit.add(bad, act, rows)
    return act[fit[act] | (misfit.count[act] < MISFIT_ROWS)]
