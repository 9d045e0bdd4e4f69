"""What a check gathers while the rows stream past: identical rows at distinct positions (exact
fingerprints confirmed bit for bit), rows holding NaN or infinity, and the dtype's horizon."""

from __future__ import annotations

import numpy as np

from peproof.formats import Format


def _p(x: float):
    return int(x) if float(x).is_integer() else float(x)


class RowScan:
    """Identical rows (a random projection of each row, confirmed bit for bit) and rows holding
    NaN or infinity, gathered while the rows stream past."""

    def __init__(self, d: int, keep: np.ndarray | None):
        # an exact fingerprint: the bits of each entry times a random odd number, added modulo
        # 2**64 (a float dot product may round identical rows differently in BLAS blocks)
        rng = np.random.default_rng(12345)
        self.w = rng.integers(0, 2**63, d, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.parts: list[np.ndarray] = []
        self.keep = keep
        self.bad_rows: list[np.ndarray] = []
        self.finite: list[np.ndarray] = []
        self.bad_count = 0

    def add(self, k0: int, t: np.ndarray) -> None:
        t = np.ascontiguousarray(t, dtype=np.float64)
        with np.errstate(over="ignore"):  # 32 bits kept: candidates are confirmed bit for bit
            f = ((t.view(np.uint64) * self.w).sum(axis=1, dtype=np.uint64)
                 >> np.uint64(32)).astype(np.uint32)
        with np.errstate(over="ignore", invalid="ignore"):
            fin = np.isfinite(t.sum(axis=1))  # a row sum is finite when every entry is
        if not fin.all():
            fin = np.isfinite(t).all(axis=1)  # (or it overflowed: look closer)
        if not fin.all():
            rows = np.nonzero(~fin)[0]
            self.bad_rows.append(rows + k0)
            self.bad_count += int((~np.isfinite(t)).sum())
        self.parts.append(f)
        self.finite.append(fin)

    def nonfinite_info(self, pos: np.ndarray) -> dict:
        if not self.bad_rows:
            return {}
        rows = np.concatenate(self.bad_rows)
        return {"entries": self.bad_count, "rows": int(len(rows)), "first_row": int(rows[0]),
                "first_position": _p(pos[rows[0]]), "last_row": int(rows[-1]),
                "contiguous_to_end": bool(rows[-1] == len(pos) - 1 and
                                          len(rows) == rows[-1] - rows[0] + 1)}

    def collisions(self, arr, pos) -> dict:
        f = np.concatenate(self.parts) if self.parts else np.zeros(0, np.uint32)
        valid = np.concatenate(self.finite) if self.finite else np.zeros(0, bool)
        self.parts.clear()
        self.finite.clear()
        if self.keep is not None:
            valid &= self.keep[: len(f)]
        if valid.all():
            idx = None
            order = np.argsort(f, kind="stable")
        else:
            idx = np.nonzero(valid)[0]
            order = idx[np.argsort(f[idx], kind="stable")]
        fs = f[order]
        dup = np.nonzero(fs[1:] == fs[:-1])[0]
        del fs
        groups: dict[int, list[int]] = {}
        for k in dup:
            a, b = int(order[k]), int(order[k + 1])
            if pos[a] != pos[b] and np.array_equal(np.asarray(arr[a]), np.asarray(arr[b])):
                root = groups.get(a, [a])
                root.append(b)
                for r in root:
                    groups[r] = root
        uniq = {id(g): g for g in groups.values()}
        sets = sorted((sorted(g) for g in uniq.values()), key=lambda g: g[0])
        return {
            "identical_row_groups": len(sets),
            "rows_in_collisions": int(sum(len(g) for g in sets)),
            "distinct_rows": int((len(f) if idx is None else len(idx))
                                 - sum(len(g) - 1 for g in sets)),
            "examples": [[_p(pos[r]) for r in g[:4]] for g in sets[:5]],
            "first_rows": sets[0][:4] if sets else [],
        }


def horizon(pos: np.ndarray, pipe: Format, spec=None) -> dict:
    """The dtype's horizon over positions ``pos`` (integers exact in ``pipe`` up to
    ``pipe.horizon``) and, given ``spec`` (a sinusoidal comparison: its ``vacuous`` and
    ``first_vacuous_pos``), where the error budget stops constraining the angle."""
    h = pipe.horizon
    beyond = int((np.abs(pos) > h).sum())
    out = {"dtype": pipe.name, "integer_positions_exact_up_to": h,
           "rows_beyond": beyond,
           "rows_whose_position_rounds_in_dtype": int((pipe.round(pos) != pos).sum())}
    if spec is not None:
        out["budget_vacuous_entries"] = spec.vacuous
        out["budget_vacuous_from_position"] = (None if spec.first_vacuous_pos is None
                                               else _p(spec.first_vacuous_pos))
    return out
