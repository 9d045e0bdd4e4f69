"""Golden vectors for implementations in other languages: decimal strings plus a manifest.

Every value is the exact entry of the encoding correctly rounded to ``digits`` significant decimal
digits (ties to even), decided from arb balls whose precision doubles until both ends of the ball
round to the same string.  Alongside the strings come the correctly rounded float64 values (and,
if asked, those of a narrower dtype) as C99 hex floats, so a reader can compare bit for bit.  The
manifest lists every file with its SHA-256 and size; it is written last.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from peproof.formats import get_format

from .exact import Plan
from .reference import decimal_strings, positions_array, reference
from .variant import Variant

SCHEMA = "peproof.vectors/1"
MANIFEST_SCHEMA = "peproof.vectors-manifest/1"
FORMATS = ("json", "npy", "csv")


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Binary twin of :func:`peproof.cli.write_atomic` (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_text(path: Path, text: str) -> None:
    from peproof.cli import write_atomic

    write_atomic(path, text)


def golden(d: int, positions, variant: Variant, digits: int = 40, dtypes=("float64",),
           progress=None, rows_per_step: int = 16) -> dict:
    """Decimal strings and correctly rounded values of the rows at ``positions``."""
    pos = positions_array(positions)
    plan = Plan(variant.encoding(d))
    strings: list[list[str]] = []
    for k0 in range(0, len(pos), rows_per_step):
        strings += decimal_strings(plan, pos[k0:k0 + rows_per_step], digits)
        if progress:
            progress(min(k0 + rows_per_step, len(pos)), len(pos))
    rounded = {}
    kw = {"family": variant.family, "base": variant.base, "layout": variant.layout,
          "offset": variant.offset, "scale": variant.scale}
    for dt in dtypes:
        fmt = get_format(dt)
        rounded[fmt.name] = reference(pos, d, dtype=fmt.name, **kw)
    return {"positions": pos, "strings": strings, "rounded": rounded, "plan": plan}


def _pos_json(p: float):
    return int(p) if float(p).is_integer() else float(p)


def write(out_dir: Path, fmt: str, d: int, positions, variant: Variant, digits: int = 40,
          dtypes=("float64",), progress=None) -> dict:
    """Write the vectors in ``fmt`` and the manifest into ``out_dir``; returns the manifest."""
    from peproof import __version__

    from .report import platform_info

    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    g = golden(d, positions, variant, digits, dtypes, progress)
    pos, strings = g["positions"], g["strings"]
    params = {"d": d, **variant.to_json(d), "digits": digits,
              "positions": {"count": len(pos), "first": _pos_json(pos[0]) if len(pos) else None,
                            "last": _pos_json(pos[-1]) if len(pos) else None}}
    params.pop("dtype", None)
    out_dir = Path(out_dir)
    files: dict[str, bytes] = {}
    if fmt == "json":
        doc = {"schema": SCHEMA, "suite_version": __version__, "parameters": params,
               "positions": [_pos_json(p) for p in pos], "values": strings,
               "rounded_hex": {k: [[float(x).hex() for x in row] for row in v.astype(np.float64)]
                               for k, v in g["rounded"].items()}}
        files["vectors.json"] = (json.dumps(doc, indent=None) + "\n").encode()
    elif fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["position"] + [f"c{j}" for j in range(d)])
        for p, row in zip(pos, strings, strict=True):
            w.writerow([_pos_json(p)] + row)
        files["vectors.csv"] = buf.getvalue().encode()
        for k, v in g["rounded"].items():
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["position"] + [f"c{j}" for j in range(d)])
            for p, row in zip(pos, v.astype(np.float64), strict=True):
                w.writerow([_pos_json(p)] + [float(x).hex() for x in row])
            files[f"rounded_{k}.csv"] = buf.getvalue().encode()
    else:
        width = max((len(s) for row in strings for s in row), default=1)
        files["vectors_decimal.npy"] = _npy_bytes(np.array(strings, dtype=f"<U{width}")
                                                  .reshape(len(pos), d))
        files["positions.npy"] = _npy_bytes(pos)
        for k, v in g["rounded"].items():
            files[f"rounded_{k}.npy"] = _npy_bytes(v)
    listing = []
    for name, data in files.items():
        if name.endswith((".json", ".csv")):
            _write_text(out_dir / name, data.decode())
        else:
            write_bytes_atomic(out_dir / name, data)
        _readable(out_dir / name)
        listing.append({"name": name, "bytes": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()})
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
    _write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    _readable(out_dir / "manifest.json")
    return manifest


def _readable(path: Path) -> None:
    """Vectors are for sharing: the usual permissions (a temporary file starts at 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


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
