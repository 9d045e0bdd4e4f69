"""Golden vectors for implementations in other languages: decimal strings plus a manifest.

Every value is the exact entry of the encoding correctly rounded to ``digits`` significant decimal
digits (ties to even), decided from arb balls whose precision doubles until both ends of the ball
round to the same string.  Alongside the strings come the correctly rounded float64 values (and,
if asked, those of a narrower dtype) as C99 hex floats, so a reader can compare bit for bit.  The
manifest lists every file with its SHA-256 and size; it is written last.

Positions are exact from input to output (:mod:`peproof.guard.positions`): Python integers or
fractions, evaluated in arb at their exact value, written as JSON integers (strings beyond
``2**53``), exact text in CSV, and ``int64`` (or exactly representable ``float64``) in ``.npy``;
a position a format cannot hold is refused before any work.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from peproof.formats import get_format
from peproof.guard import positions as P
from peproof.guard.paths import write_group_atomic

from ..common.exact import Plan, certify, round_ball
from ..common.tables import InputError
from .reference import decimal_strings, reference
from .variant import Variant

SCHEMA = "peproof.vectors/1"
MANIFEST_SCHEMA = "peproof.vectors-manifest/1"
FORMATS = ("json", "npy", "csv")


def golden(d: int, positions, variant: Variant, digits: int = 40, dtypes=("float64",),
           progress=None, rows_per_step: int = 16) -> dict:
    """Decimal strings and correctly rounded values of the rows at ``positions``.

    ``positions`` are held exactly (a :class:`peproof.guard.positions.Positions`, an int count,
    a ``start:stop[:step]`` string or a sequence of ints, fractions or floats): a position that
    float64 cannot hold, such as ``2**53 + 1``, is evaluated at its exact value.
    """
    pos = exact_positions(positions)
    plan = Plan(variant.encoding(d))
    strings: list[list[str]] = []
    for k0 in range(0, len(pos), rows_per_step):
        strings += decimal_strings(plan, pos[k0:k0 + rows_per_step], digits)
        if progress:
            progress(min(k0 + rows_per_step, len(pos)), len(pos))
    rounded = {get_format(dt).name: _rounded(plan, pos, d, variant, get_format(dt))
               for dt in dtypes}
    return {"positions": pos, "strings": strings, "rounded": rounded, "plan": plan}


def exact_positions(positions) -> list:
    """Positions as a list of exact numbers: Python ints, else ``Fraction``."""
    if isinstance(positions, str):
        positions = P.parse(positions)
    elif isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        positions = range(int(positions))
    out = []
    for p in positions:
        if isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)):
            out.append(int(p))
            continue
        q = Fraction(p) if isinstance(p, Fraction) else None
        if q is None:
            f = float(p)
            if not math.isfinite(f):
                raise InputError("positions must be finite")
            q = Fraction(f)
        out.append(int(q) if q.denominator == 1 else q)
    return out


def _rounded(plan: Plan, pos: list, d: int, variant: Variant, fmt) -> np.ndarray:
    """The rows correctly rounded to ``fmt``: float64 positions through :func:`reference`,
    any other exact position (``2**53 + 1``, ``1/3``) through certified arb balls."""
    exact = [P.exact_float(p) for p in pos]
    out = np.empty((len(pos), d), dtype=fmt.numpy_dtype)
    fast = [k for k, f in enumerate(exact) if f is not None]
    if fast:
        kw = {"family": variant.family, "base": variant.base, "layout": variant.layout,
              "offset": variant.offset, "scale": variant.scale}
        out[fast] = reference(np.array([exact[k] for k in fast], dtype=np.float64), d,
                              dtype=fmt.name, **kw)
    for k in (k for k, f in enumerate(exact) if f is None):
        q = Fraction(pos[k])
        vals = certify(plan, [q] * d, list(range(d)), lambda b, _k: round_ball(b, fmt))
        out[k] = fmt.to_numpy(np.array(vals, dtype=np.float64))
    return out


def write(out_dir: Path, fmt: str, d: int, positions, variant: Variant, digits: int = 40,
          dtypes=("float64",), progress=None) -> dict:
    """Write the vectors in ``fmt`` and the manifest into ``out_dir``; returns the manifest."""
    from peproof import __version__

    from ..common.envelope import platform_info

    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    pos = exact_positions(positions)
    pos_npy = P.npy_array(pos) if fmt == "npy" else None  # refused before the work
    pos_json = P.json_values(pos)
    g = golden(d, pos, variant, digits, dtypes, progress)
    strings = g["strings"]
    written = {"json": "JSON integers" if all(isinstance(v, int) for v in pos_json) else
               "exact strings (integers, terminating decimals or p/q)",
               "csv": "exact text (integers, terminating decimals or p/q)",
               "npy": f"{pos_npy.dtype if pos_npy is not None else ''} (every value exact)"}
    params = {"d": d, **variant.to_json(d), "digits": digits,
              "positions": {"count": len(pos), "first": pos_json[0] if pos else None,
                            "last": pos_json[-1] if pos else None,
                            "written_as": written[fmt]}}
    params.pop("dtype", None)
    out_dir = Path(out_dir)
    files: dict[str, bytes] = {}
    if fmt == "json":
        doc = {"schema": SCHEMA, "suite_version": __version__, "parameters": params,
               "positions": pos_json, "values": strings,
               "rounded_hex": {k: [[float(x).hex() for x in row] for row in v.astype(np.float64)]
                               for k, v in g["rounded"].items()}}
        files["vectors.json"] = (json.dumps(doc, indent=None) + "\n").encode()
    elif fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["position"] + [f"c{j}" for j in range(d)])
        for p, row in zip(pos, strings, strict=True):
            w.writerow([P.text(p)] + row)
        files["vectors.csv"] = buf.getvalue().encode()
        for k, v in g["rounded"].items():
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["position"] + [f"c{j}" for j in range(d)])
            for p, row in zip(pos, v.astype(np.float64), strict=True):
                w.writerow([P.text(p)] + [float(x).hex() for x in row])
            files[f"rounded_{k}.csv"] = buf.getvalue().encode()
    else:
        width = max((len(s) for row in strings for s in row), default=1)
        files["vectors_decimal.npy"] = _npy_bytes(np.array(strings, dtype=f"<U{width}")
                                                  .reshape(len(pos), d))
        files["positions.npy"] = _npy_bytes(pos_npy)
        for k, v in g["rounded"].items():
            files[f"rounded_{k}.npy"] = _npy_bytes(v)
    listing = [{"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
               for name, data in files.items()]
    manifest = {
        "schema": MANIFEST_SCHEMA, "suite": "peproof", "suite_version": __version__,
        "created_by": "peproof vectors", "parameters": params, "format": fmt,
        "rounding": f"each decimal string is the exact value correctly rounded to {digits} "
                    "significant digits (ties to even), certified with python-flint arb balls; "
                    "rounded_* hold the exact value correctly rounded to that dtype",
        "layout_of_rows": "row k is position positions[k] (the offset is added on top); "
                          "column j is channel j of the layout named in parameters",
        "platform": platform_info(), "files": listing,
    }
    # every file is on disk before the old manifest goes and the new one comes last: a failure
    # while writing leaves the folder as it was, and a manifest always lists what is there
    write_group_atomic(out_dir, files, ("manifest.json", json.dumps(manifest, indent=1) + "\n"))
    return manifest


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def verify(out_dir: Path) -> list[str]:
    """Problems found when re-hashing the files a manifest lists (empty when all is well)."""
    out_dir = Path(out_dir)
    man = json.loads((out_dir / "manifest.json").read_text())
    bad = []
    for f in man["files"]:
        p = out_dir / f["name"]
        if not p.exists():
            bad.append(f"missing {f['name']}")
        elif hashlib.sha256(p.read_bytes()).hexdigest() != f["sha256"]:
            bad.append(f"checksum mismatch {f['name']}")
    return bad
