"""What a table's channels are, read off the values: the facts a diagnosis may state.

A diagnosis is a sentence about the table, so it is checked against the table before it is
printed: "no sin/cos pairs" only when no pairing of the channels puts the rows on circles
(:func:`other_pairing` looks beyond the model's pairings), "pairs share one frequency" only when
their phase advances per row are equal.

:func:`read_pairs` tries the three pairings of the model (interleaved ``(2i, 2i+1)``, halves
``(i, i + d/2)`` either way round) and keeps one under which every pair's two channels lie on one
circle (``x^2 + y^2`` the same at every examined row, to ``TOL`` relative): then each pair's
frequency is its phase advance between two rows one position apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOL = 1e-3  # relative spread of x^2 + y^2 across rows: far above any rounding, far below noise


@dataclass
class Pairs:
    layout: str  # interleaved, interleaved_cos, sin_cos, cos_sin
    sin: list  # channel of each pair's sine
    cos: list
    freqs: np.ndarray | None  # phase advance per position, or None when no two rows are 1 apart

    def shared(self, rel: float = 1e-6) -> list[tuple[int, int]]:
        """Neighbouring pairs whose frequencies are equal (to ``rel``), as index pairs."""
        if self.freqs is None:
            return []
        w = self.freqs
        out = []
        for i in range(len(w) - 1):
            if w[i] > 0 and abs(w[i + 1] - w[i]) <= rel * w[i]:
                out.append((i, i + 1))
        return out

    def trend(self) -> str | None:
        """"rise" / "fall" when the frequencies move one way with the pair index."""
        if self.freqs is None or len(self.freqs) < 3:
            return None
        dw = np.diff(self.freqs)
        if (dw > 0).all():
            return "rise"
        if (dw < 0).all():
            return "fall"
        return None


def _pairings(d: int):
    h = d // 2
    yield "interleaved", list(range(0, d, 2)), list(range(1, d, 2))
    yield "sin_cos", list(range(h)), list(range(h, 2 * h))


def read_pairs(head: np.ndarray, pos: np.ndarray | None = None) -> Pairs | None:
    """The pairing under which the rows of ``head`` (finite, ``n x d``, ``n >= 3``) lie on
    circles, with the pairs' frequencies when two rows are one position apart; else ``None``.
    Which channel of a pair is the sine: the one that is 0 at position 0 when a row holds it,
    else the orientation under which more phase advances lie in ``(0, pi)``."""
    head = np.asarray(head, dtype=np.float64)
    n, d = head.shape
    if n < 3 or d < 2 or d % 2 or not np.isfinite(head).all():
        return None
    p = None if pos is None else np.asarray(pos[:n], np.float64)
    for layout, a, b in _pairings(d):
        x, y = head[:, a], head[:, b]
        r2 = x * x + y * y
        m = r2.mean(axis=0)
        if not (m > 0).all() or not (np.abs(r2 - m) <= TOL * m).all() or not _moves(x, y):
            continue
        flip = False
        zero = np.nonzero(p == 0)[0] if p is not None else np.zeros(0, int)
        if zero.size:
            z = int(zero[0])
            flip = bool((np.abs(y[z]) < np.abs(x[z])).sum() > len(a) / 2)
        fw, bw = _freqs(x, y, p), _freqs(y, x, p)
        if not zero.size and fw is not None:
            flip = _inside(bw) > _inside(fw)
        if flip:
            a, b, fw = b, a, bw
            layout = {"interleaved": "interleaved_cos", "sin_cos": "cos_sin"}[layout]
        return Pairs(layout, a, b, fw)
    return None


def other_pairing(head: np.ndarray, most: int = 1024) -> list[tuple[int, int]] | None:
    """A pairing of all the channels of ``head`` (finite, ``n x d``) into pairs whose rows lie
    on circles that turn, found by matching each channel with the first unmatched one that
    makes such a pair with it; None when there is none of that kind (or ``d`` is odd or past
    ``most``).  For a table :func:`read_pairs` finds no pairing of the model's for: the sentence
    "no sin/cos pairs" is then printed only when this finds none either."""
    head = np.asarray(head, dtype=np.float64)
    n, d = head.shape
    if n < 3 or d < 2 or d % 2 or d > most or not np.isfinite(head).all():
        return None
    sq = head * head
    free = list(range(d))
    out = []
    while free:
        i = free.pop(0)
        r2 = sq[:, [i]] + sq[:, free]
        m = r2.mean(axis=0)
        ok = (m > 0) & (np.abs(r2 - m) <= TOL * np.where(m > 0, m, 1)).all(axis=0)
        hit = next((free[k] for k in np.nonzero(ok)[0]
                    if _moves(head[:, [i]], head[:, [free[k]]])), None)
        if hit is None:
            return None
        free.remove(hit)
        out.append((i, hit))
    return out


def other_pairing_sentence(pairs: list[tuple[int, int]]) -> str:
    """The sentence stating what :func:`other_pairing` found (checked by it)."""
    shown = ", ".join(f"({a}, {b})" for a, b in pairs[:4]) + (" ..." if len(pairs) > 4 else "")
    return (f"the channels form {len(pairs)} sin/cos pairs, every pair on one circle, but "
            f"neither interleaved nor in halves: channels {shown} (a layout the check does not "
            "read)")


def _freqs(s, c, p):
    if p is None or len(p) < 2:
        return None
    step = np.nonzero(np.diff(p) == 1)[0]
    if not step.size:
        return None
    k = int(step[0])
    return np.mod(np.arctan2(s[k + 1], c[k + 1]) - np.arctan2(s[k], c[k]), 2 * np.pi)


def _inside(w) -> int:
    return int(((w > 0) & (w < np.pi)).sum()) if w is not None else 0


def _moves(s: np.ndarray, c: np.ndarray) -> bool:
    """Constant channels are on a circle trivially: at least one pair must turn."""
    return bool((np.ptp(np.arctan2(s, c), axis=0) > 1e-6).any())


def pairs_sentence(p: Pairs) -> str:
    """The sentence stating what :func:`read_pairs` found (every word checked by it)."""
    h = len(p.sin)
    what = {"interleaved": "interleaved (channels 2i, 2i+1)",
            "sin_cos": "in halves (channels i, i + d/2)",
            "cos_sin": "in halves, cosine first (channels i + d/2, i)",
            "interleaved_cos": "interleaved, cosine first (channels 2i+1, 2i)"}[p.layout]
    line = f"the channels form {h} sin/cos pairs {what}, every pair on one circle"
    if p.freqs is not None:
        t = p.trend()
        line += ("; their frequencies (phase advance per position, modulo 2 pi) go from "
                 f"{p.freqs[0]:.6g} to {p.freqs[-1]:.6g}")
        if t == "rise":
            line += ", rising with the pair index"
    return line


def shared_sentence(p: Pairs) -> str:
    """``"; pairs i and i+1 share one frequency ..."`` when some do (checked by
    :meth:`Pairs.shared`), else ``""``."""
    sh = p.shared()
    if not sh:
        return ""
    names = ", ".join(f"{i} and {j}" for i, j in sh[:3]) + (
        f" (and {len(sh) - 3} more)" if len(sh) > 3 else "")
    return (f"; neighbouring pairs share one frequency (pairs {names}: channels "
            f"{p.sin[sh[0][0]]}, {p.cos[sh[0][0]]} and {p.sin[sh[0][1]]}, {p.cos[sh[0][1]]} "
            f"advance by {p.freqs[sh[0][0]]:.6g} per position), where every pair has its own "
            "in the model")
