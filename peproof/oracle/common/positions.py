"""The positions a 16-bit computation may give a table's rows, each way one vector: exact, rounded
to the pipeline once, or computed by a stated recipe from the row index (``o + s k`` in float32 or
in the pipeline, torch's blocked ``arange``, a symmetric ``|k - c| s``).  :mod:`.consistency`
ties every row to one of them."""

from __future__ import annotations

import numpy as np

from peproof.formats import Format


def position_vectors(P: Format, ps: np.ndarray, rows: np.ndarray, unit: float = 1.0,
                     n: int | None = None, also=()) -> list[np.ndarray]:
    """The positions a computation in ``P`` may give ``rows`` (of ``n``) at ``ps`` (offset in):
    exact, rounded to ``P`` once, ``also``, :func:`_position_models`' recipes (each once)."""
    out = [ps := np.asarray(ps, dtype=np.float64)]
    with np.errstate(over="ignore", invalid="ignore"):
        more = [P.round(ps), *also] + _position_models(
            P, ps, 0.0, rows, unit, ps.shape[0] if n is None else n)
    for pt in more:
        if np.isfinite(pt).all() and not any(np.array_equal(pt, q) for q in out):
            out.append(pt)
    return out


def _law(x: np.ndarray, k: np.ndarray):
    """``(o, s)`` with ``x = o + s k`` (to float64 accuracy), else ``None``."""
    if x.size < 2:
        return None
    s = (x[-1] - x[0]) / (k[-1] - k[0]) if k[-1] != k[0] else 0.0
    o = x[0] - s * k[0]
    tol = 2.0**-20 * (np.abs(x).max() + 1.0)  # positions given as float32 numbers
    return (o, s) if np.abs(o + s * k - x).max() <= tol else None


def _torch_arange(P: Format, k: np.ndarray, o: float, s: float, n: int) -> np.ndarray:
    """``torch.arange(o, o + n s, s, dtype=P)`` on a CPU, as measured (torch 2.x): blocks of 16
    rows, each from its first value rounded to ``P``, ``RN_P(RN_32(b + j s))`` with
    ``b = RN_P(RN_32(o + 16 q s))``; the rows after the last full block ``RN_P(RN_32(o + k s))``."""
    R32 = np.float32
    q, j = k // 16, k % 16
    b = P.round((R32(o) + (q * 16).astype(R32) * R32(s)).astype(R32).astype(np.float64))
    y = P.round((b.astype(R32) + j.astype(R32) * R32(s)).astype(R32).astype(np.float64))
    tail = k >= (n // 16) * 16
    y[tail] = P.round((R32(o) + k[tail].astype(R32) * R32(s)).astype(R32).astype(np.float64))
    return y


def _position_models(P: Format, p0: np.ndarray, offset: float, rows: np.ndarray, unit: float,
                     n: int) -> list[np.ndarray]:
    """Positions (in the variant's units) the recipes of real code give rows at ``p0`` (+
    ``offset``), one vector per recipe: the code's position is ``x = (p0 + offset) / m`` for
    ``m`` in ``{1, 1/unit, the law's step}``, rounded to ``P`` once (from float64 or from float32),
    or computed in ``P`` from the row index ``k`` as ``x = o + s k`` (``arange(n) * s``: the
    product rounded, the index and step rounded or the step a float32 scalar; NumPy's ``arange``
    in ``P``: ``RN_P(k RN_P(s))``; torch's ``arange`` in ``P``, :func:`_torch_arange`), or
    ``|k - c| s`` for a symmetric law."""
    R32 = np.float32
    out = []
    ps = p0 + offset
    k = rows.astype(np.float64)
    units = {1.0, 1.0 / float(unit)}  # positions k f where the variant has frequencies f omega
    law = _law(ps, k)
    sym = None
    if law is None and ps.size > 2:  # symmetric: |k - c| s
        i = int(np.argmin(np.abs(ps)))
        for c in (k[i], k[i] - 0.5, k[i] + 0.5):
            s_ = (ps[0] / abs(k[0] - c)) if k[0] != c else (ps[-1] / abs(k[-1] - c))
            if np.allclose(ps, np.abs(k - c) * s_, rtol=2.0**-20, atol=2.0**-20):
                sym = (c, s_)
                break
    if law is not None and law[1] not in (0.0,):
        units.add(abs(float(law[1])))
    if sym is not None and sym[1] != 0.0:
        units.add(abs(float(sym[1])))
    for m in units:
        if not (np.isfinite(m) and m > 0):
            continue
        x = ps / m
        out.append(P.round(x) * m)
        out.append(P.round(x.astype(R32).astype(np.float64)) * m)
        if law is not None:
            o, s = law[0] / m, law[1] / m
            sP = float(P.round(np.array(s)))
            s32 = float(R32(s))
            prods = [_torch_arange(P, k, 0.0, s, n)]
            # the index k exact, rounded to P, or torch's arange(n) in P; times the step
            # in P, as a float32 scalar (PyTorch's opmath) or exactly, then rounded to P
            for kk in (k, P.round(k), _torch_arange(P, k, 0.0, 1.0, n)):
                prods += [P.round(kk * sP), P.round((kk * s32).astype(R32).astype(np.float64)),
                          P.round(kk * s)]
            oP = float(P.round(np.array(o)))
            for q in prods:
                out.append((q if o == 0.0 else P.round(q + oP)) * m)
            if o != 0.0:  # arange(o, o + n s, s) in P
                out.append(_torch_arange(P, k, o, s, n) * m)
        if sym is not None:
            c, s = sym[0], sym[1] / m
            base = np.abs(k - c)
            out.append(P.round(P.round(base) * float(P.round(np.array(s)))) * m)
            out.append(P.round((P.round(base) * float(R32(s))).astype(R32).astype(np.float64)) * m)
    return out
