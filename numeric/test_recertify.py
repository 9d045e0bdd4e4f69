"""A real checkpoint corrupted in hundreds of ways: every certified result stays the undisturbed
run's, and every chunk whose bytes changed is named as recomputed (issue 19, item 1).

The scan: d = 8, N = 30000, chunks of 4096 (8 chunks); its minimum lies at offset 6283 (chunk
1, not the adjacent distance), 88 offsets are closer than adjacent ones, the first decrease is at
3.  Corruptions, each applied to a fresh copy of the finished checkpoint and resumed:

* every field of every chunk record (the result's numbers, lists, flags, its candidates' offsets
  and values; the record's fingerprint, code version, index and job), edited several ways;
* byte flips, truncations, garbage appended, chunks swapped, duplicated, deleted, another run's
  chunks, a stray chunk past the end;
* the manifest: lines deleted, swapped, torn, their SHA-256 or MAC edited; the header edited.

Three ways of writing an edited chunk: as is (its SHA-256 no longer matches the manifest), with
the SHA-256 in the manifest recomputed (its MAC then fails: no key), and *forged with this
user's key* (SHA-256 and MAC recomputed: the integrity layer bypassed).  Without the key every
edit is recomputed and named; with the key every edit of a field the re-certification checks is
still caught, and only lies about offsets a chunk does not name (an omitted candidate, a lowered
count: :mod:`peproof.numeric.recertify`, class (U)) get through -- the reason the integrity
layer exists, shown by :func:`test_forgeries_with_the_key_show_what_arb_alone_cannot_catch`.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
from pathlib import Path

import flint
import pytest

from peproof.guard.locks import LOCK_NAME
from peproof.numeric import checkpoint, recertify, scan
from peproof.numeric.engine import RunConfig
from peproof.numeric.separation import certify

D, N, CHUNK = 8, 30000, 4096
OTHER_N = N + 4096  # another run: same chunk boundaries, other fingerprint


def _strip(sep) -> dict:
    return {k: v for k, v in sep.as_dict().items() if k not in ("seconds", "run")}


class Lab:
    """A finished checkpoint, restored byte for byte before each variant."""

    def __init__(self, root: Path):
        self.root = root
        self.cfg = RunConfig(engine="inline", checkpoint=root / "ck", keep_checkpoint=True)
        self.ref = certify(D, N, chunk=CHUNK, run=self.cfg)
        self.dir = Path(self.ref.run["checkpoint"])
        self.snap = self._read(self.dir)
        other = certify(D, OTHER_N, chunk=CHUNK, run=self.cfg)
        self.foreign = self._read(Path(other.run["checkpoint"]))
        shutil.rmtree(other.run["checkpoint"])
        self.fp = json.loads(self.snap["manifest.json"])["fingerprint"]
        self.want = _strip(self.ref)

    @staticmethod
    def _read(folder: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in folder.iterdir() if p.name != LOCK_NAME}

    def restore(self) -> None:
        for p in self.dir.iterdir():
            if p.name != LOCK_NAME:
                p.unlink()
        for name, raw in self.snap.items():
            (self.dir / name).write_bytes(raw)

    def record(self, i: int) -> dict:
        return json.loads(self.snap[f"chunk-{i:06d}.json"])

    def write_chunk(self, i: int, raw: bytes, sign: str) -> None:
        """Chunk ``i`` with the bytes ``raw``; ``sign``: "none" (manifest untouched), "sha"
        (its SHA-256 recomputed, MAC not) or "key" (SHA-256 and MAC: a forgery with the key)."""
        (self.dir / f"chunk-{i:06d}.json").write_bytes(raw)
        if sign == "none":
            return
        lines = [json.loads(x) for x in self.snap["manifest.log"].decode().splitlines()]
        for e in lines:
            if e["index"] == i:
                e["sha256"] = hashlib.sha256(raw).hexdigest()
                if sign == "key":
                    e["mac"] = checkpoint.mac(self.fp, i, e["sha256"])
        (self.dir / "manifest.log").write_text("".join(json.dumps(e) + "\n" for e in lines))

    def resume(self):
        sep = certify(D, N, chunk=CHUNK, run=self.cfg)
        return _strip(sep), {r["index"] for r in sep.run["rejected"]}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """On /dev/shm where there is one: every resume syncs a few files, and a disk's fsync
    would make the sweep ten times slower without testing anything more."""
    import tempfile

    shm = Path("/dev/shm")
    if shm.is_dir():
        with tempfile.TemporaryDirectory(dir=shm, prefix="peproof-recertify-") as d:
            yield Lab(Path(d))
    else:
        yield Lab(tmp_path_factory.mktemp("recertify"))


# ----------------------------------------------------------------------------- the variants
def _edits(value, a: int, b: int):
    """Edited versions of one JSON value (never the value itself)."""
    if isinstance(value, bool):
        yield not value
        yield None
    elif isinstance(value, int):
        for v in (value + 1, value - 1, 7, 0, -value, a, b, value + 4096):
            if v != value:
                yield v
        yield float(value)
    elif isinstance(value, float):
        for v in (math.nextafter(value, math.inf), value * (1 + 1e-6), value - 1.0, 0.0,
                  value * 10, math.nan, math.inf):
            if not (v == value):
                yield v
    elif value is None:
        yield a
        yield []
    elif isinstance(value, str):
        yield value[:-1] + ("0" if value[-1:] != "0" else "1")
        yield ""
    elif isinstance(value, list):
        if value:
            yield value[1:]
            yield value[:-1]
            yield value + value[-1:]
            if len(value) > 1:
                yield value[::-1]
        yield value + [a + 1]
        yield []


def _paths(obj, prefix=()):
    """Every (path, value) inside a JSON value, containers included."""
    yield prefix, obj
    if isinstance(obj, dict):
        for k in sorted(obj):
            yield from _paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for j, v in enumerate(obj):
            yield from _paths(v, prefix + (j,))


def _set(obj, path, value):
    obj = json.loads(json.dumps(obj))
    if not path:
        return value
    tgt = obj
    for k in path[:-1]:
        tgt = tgt[k]
    tgt[path[-1]] = value
    return obj


def field_edits(lab: Lab, chunks) -> list[tuple[str, int, bytes]]:
    """``(name, chunk, bytes)`` for every edit of every field of the given chunks' records."""
    out = []
    for i in chunks:
        rec = lab.record(i)
        a, b = rec["job"]["a"], rec["job"]["b"]
        seen = set()
        for path, value in _paths(rec):
            if not path:
                continue
            for new in _edits(value, a, b):
                raw = json.dumps(_set(rec, path, new), allow_nan=True, sort_keys=True).encode()
                if raw in seen or raw == lab.snap[f"chunk-{i:06d}.json"]:
                    continue
                seen.add(raw)
                out.append((f"chunk {i} {'/'.join(map(str, path))} -> {new!r}"[:120], i, raw))
            if isinstance(path[-1], str):  # the key removed
                parent = rec
                for k in path[:-1]:
                    parent = parent[k]
                if isinstance(parent, dict):
                    gone = {k: v for k, v in parent.items() if k != path[-1]}
                    raw = json.dumps(_set(rec, path[:-1], gone), sort_keys=True).encode()
                    out.append((f"chunk {i} {'/'.join(map(str, path))} removed", i, raw))
    return out


def byte_edits(lab: Lab, chunks, per_chunk: int, seed: int = 19) -> list[tuple[str, int, bytes]]:
    rng = random.Random(seed)
    out = []
    for i in chunks:
        raw = lab.snap[f"chunk-{i:06d}.json"]
        spots = {0, len(raw) - 1} | {rng.randrange(len(raw)) for _ in range(per_chunk)}
        for pos in sorted(spots):
            bit = 1 << rng.randrange(8)
            out.append((f"chunk {i} byte {pos} ^ {bit}", i,
                        raw[:pos] + bytes([raw[pos] ^ bit]) + raw[pos + 1:]))
        for cut in (0, 1, len(raw) // 2, len(raw) - 1):
            out.append((f"chunk {i} truncated to {cut} bytes", i, raw[:cut]))
        out.append((f"chunk {i} with garbage appended", i, raw + b"\n{}"))
    return out


def _file_ops(lab: Lab):
    """Whole-file corruptions: ``(name, mutate(folder), chunks that must be named)``."""
    n = len([k for k in lab.snap if k.startswith("chunk-")])
    name = "chunk-{:06d}.json".format
    ops = []

    def put(files: dict[str, bytes]):
        return lambda d: [(d / k).write_bytes(v) for k, v in files.items()]

    for i, j in ((0, 1), (1, 2), (0, n - 1), (3, 4)):
        ops.append((f"chunks {i} and {j} swapped", put({name(i): lab.snap[name(j)],
                                                        name(j): lab.snap[name(i)]}), {i, j}))
    for i in (0, 1, n - 1):
        ops.append((f"chunk {i} from another run", put({name(i): lab.foreign[name(i)]}), {i}))
        ops.append((f"chunk {i} is a copy of chunk {(i + 1) % n}",
                    put({name(i): lab.snap[name((i + 1) % n)]}), {i}))
        ops.append((f"chunk {i} deleted", lambda d, i=i: (d / name(i)).unlink(), {i}))
    ops.append(("another run's manifest log", put({"manifest.log": lab.foreign["manifest.log"]}),
                set(range(n))))
    ops.append(("a stray chunk past the end", put({name(n): lab.snap[name(0)]}), {n}))
    log = lab.snap["manifest.log"].decode().splitlines()
    for i in (0, 1, n - 1):
        rest = [x for x in log if json.loads(x)["index"] != i]
        ops.append((f"manifest line {i} deleted", put({"manifest.log": "\n".join(rest).encode()}),
                    {i}))
        for key in ("sha256", "mac"):
            e = [json.loads(x) for x in log]
            for x in e:
                if x["index"] == i:
                    x[key] = x[key][::-1]
            ops.append((f"manifest line {i}: {key} edited",
                        put({"manifest.log": "".join(json.dumps(x) + "\n" for x in e).encode()}),
                        {i}))
    e = [json.loads(x) for x in log]
    e[1]["mac"] = "é" * 64  # not even ASCII
    e[2]["sha256"] = "\ud800" * 64  # a lone surrogate, as JSON can write one
    ops.append(("manifest lines 1 and 2: a MAC and a SHA-256 of other characters",
                put({"manifest.log": "".join(json.dumps(x) + "\n" for x in e).encode()}),
                {1, 2}))
    e = [json.loads(x) for x in log]
    e[0]["index"], e[1]["index"] = e[1]["index"], e[0]["index"]
    ops.append(("manifest lines 0 and 1 swapped",
                put({"manifest.log": "".join(json.dumps(x) + "\n" for x in e).encode()}),
                {e[0]["index"], e[1]["index"]}))
    raw = lab.snap["manifest.log"]
    ops.append(("manifest log torn", put({"manifest.log": raw[: len(raw) // 2]}), None))
    ops.append(("manifest log deleted", lambda d: (d / "manifest.log").unlink(), set(range(n))))
    ops.append(("manifest log garbage", put({"manifest.log": b"\x00garbage\n{"}), set(range(n))))
    for what, new in (("deleted", None), ("garbage", b"{"),
                      ("other fingerprint", lab.snap["manifest.json"].replace(
                          lab.fp.encode(), lab.fp[::-1].encode()))):
        ops.append((f"manifest.json {what}",
                    (lambda d: (d / "manifest.json").unlink()) if new is None
                    else put({"manifest.json": new}), set()))
    return ops


def _check(lab: Lab, name: str, must_name) -> str:
    got, named = lab.resume()
    assert got == lab.want, f"{name}: the certified result changed"
    if must_name is not None:
        assert must_name <= named, f"{name}: chunk(s) {sorted(must_name - named)} not named"
    return "recomputed" if named else "unchanged"


def test_every_corruption_without_the_key_is_recomputed_and_named(lab):
    """Hundreds of corruptions (in CI every third field edit of chunks 0 and 1, the chunk of the
    minimum, and a sample with the SHA-256 recomputed; ``-m slow``: all of them, every chunk):
    the result is the undisturbed run's, every corrupted chunk named."""
    outcomes = _sweep(lab, chunks=(0, 1), bytes_per_chunk=6, stride=3, sha_stride=15)
    assert sum(outcomes.values()) >= 300, outcomes
    assert set(outcomes) <= {"recomputed", "unchanged"}


@pytest.mark.slow
def test_every_forgery_with_the_key_of_every_chunk(lab):
    """All 2455 single-field edits of every chunk, forged with the key: none changes the result
    unnoticed (a first run found a missing key crashing the merge, and overflow flags set
    without a full list turning a count into "undecided"; both are checked now)."""
    changed, caught = [], 0
    for name, i, raw in field_edits(lab, range(8)):
        lab.restore()
        lab.write_chunk(i, raw, "key")
        got, named = lab.resume()
        if got != lab.want:
            changed.append(name)
        caught += i in named
    lab.restore()
    print(f"\n{caught} forgeries with the key caught by the checks")
    assert not changed, changed


@pytest.mark.slow
def test_every_corruption_of_every_chunk(lab):
    outcomes = _sweep(lab, chunks=range(8), bytes_per_chunk=25, stride=1, sha_stride=1)
    assert sum(outcomes.values()) >= 5000, outcomes


def _sweep(lab: Lab, chunks, bytes_per_chunk: int, stride: int, sha_stride: int):
    outcomes: dict[str, int] = {}
    variants = field_edits(lab, chunks)[::stride] + byte_edits(lab, chunks, bytes_per_chunk)
    runs = [(v, "none") for v in variants] + [(v, "sha") for v in variants[::sha_stride]]
    for (name, i, raw), sign in runs:
        lab.restore()
        lab.write_chunk(i, raw, sign)
        out = _check(lab, f"{name} [{sign}]", {i})
        outcomes[out] = outcomes.get(out, 0) + 1
    for name, mutate, must in _file_ops(lab):
        lab.restore()
        mutate(lab.dir)
        out = _check(lab, name, must)
        outcomes[out] = outcomes.get(out, 0) + 1
    lab.restore()
    print(f"\n{sum(outcomes.values())} corruptions: {outcomes}")
    return outcomes


# ------------------------------------------------------------------- forgeries with the key
def _u_lies(lab: Lab) -> list[tuple[str, int, dict]]:
    """Lies about offsets a chunk does not name, told consistently (they pass check_chunk)."""
    out = []
    i = recertify.chunk_of([lab.record(j)["job"] for j in range(8)], lab.ref.argmin[0])
    rec = lab.record(i)
    r = rec["result"]
    keep = [c for c in r["candidates"] if c[0] != lab.ref.argmin[0]]
    if not keep:  # the minimum was the chunk's only candidate: name the next best instead,
        # with its true float value (from the chunk's own tables), as an honest scan would
        vals, _ = scan.evaluate(D, "paper", "10000", r["a"], r["b"] - r["a"] + 1)
        vals[lab.ref.argmin[0] - r["a"]] = math.inf
        j = int(vals[:-1].argmin())
        keep = [[r["a"] + j, float(vals[j])]]
    r2 = {**r, "candidates": keep, "min": min(v for _, v in keep)}
    r2["argmin"] = next(k for k, v in keep if v == r2["min"])
    out.append(("the true minimum omitted from its chunk's candidates", i, {**rec, "result": r2}))
    for i in range(8):
        rec = lab.record(i)
        r = rec["result"]
        if r["closer_sure"]:
            r2 = {**r, "closer_sure": r["closer_sure"] - 1,
                  "closer_sure_at": r["closer_sure_at"][1:]}
            out.append((f"chunk {i}: one offset closer than D(1) dropped", i,
                        {**rec, "result": r2}))
            break
    return out


def test_forgeries_with_the_key_show_what_arb_alone_cannot_catch(lab):
    """With SHA-256 and MAC forged (the key's owner lying), every edit of a field the
    re-certification checks is still caught (named, result unchanged); the lies about offsets a
    chunk does not name change the result -- which is why a chunk must be byte for byte this
    user's own.  The same lies without the key are recomputed."""
    caught, changed = 0, []
    for name, i, raw in field_edits(lab, (1,))[::4]:
        lab.restore()
        lab.write_chunk(i, raw, "key")
        got, named = lab.resume()
        if got != lab.want:
            changed.append(name)
        elif i in named:
            caught += 1
    lab.restore()
    assert caught >= 80 and not changed, (caught, changed)
    lies = _u_lies(lab)
    assert len(lies) == 2
    for name, i, rec in lies:
        raw = json.dumps(rec, sort_keys=True).encode()
        assert recertify.check_chunk(rec["job"], rec["result"]) is None, name
        lab.restore()
        lab.write_chunk(i, raw, "key")
        got, named = lab.resume()
        assert got != lab.want and i not in named, f"{name}: expected to get through arb"
        for sign in ("none", "sha"):
            lab.restore()
            lab.write_chunk(i, raw, sign)
            _check(lab, f"{name} [{sign}]", {i})
    lab.restore()


def test_the_issue_example_is_caught_by_each_layer(lab):
    """Issue 19's edit: chunk 0's candidate offset 1 changed to 7 (a minimum of 136.27 above
    D(1) = 13.79, certified unique, exit 0).  Here at d = 8: the offset of chunk 0's candidate
    moved by 6; without the key the SHA-256 (or the MAC) refuses it, with the key arb does."""
    rec = lab.record(0)
    k, v = rec["result"]["candidates"][0]
    rec["result"]["candidates"][0] = [k + 6, v]
    rec["result"]["argmin"] = k + 6
    raw = json.dumps(rec, sort_keys=True).encode()
    why = {}
    for sign in ("none", "sha", "key"):
        lab.restore()
        lab.write_chunk(0, raw, sign)
        sep = certify(D, N, chunk=CHUNK, run=lab.cfg)
        assert _strip(sep) == lab.want
        why[sign] = [r["reason"] for r in sep.run["rejected"] if r["index"] == 0]
    lab.restore()
    assert "SHA-256 differs" in why["none"][0]
    assert "not signed" in why["sha"][0]
    assert f"candidate D~({k + 6})" in why["key"][0], why


def test_a_fresh_chunk_failing_the_checks_is_an_internal_error(lab, monkeypatch, tmp_path):
    """A worker returning a lie (not a stored file) is never merged: the run stops."""
    from peproof.numeric import scan

    real = scan.scan_chunk

    def lying(job):
        r = real(job)
        if job["a"] == 1:
            r["candidates"] = [[7, r["min"]]]
            r["argmin"] = 7
        return r

    monkeypatch.setattr(scan, "scan_chunk", lying)
    with pytest.raises(RuntimeError, match="chunk 0"):
        certify(D, N, chunk=CHUNK, run=RunConfig(engine="inline"))


def test_each_final_check_can_fail():
    """:func:`recertify.final` on a merged result that is wrong in each way it checks: a minimum
    above D(1), a first decrease arb does not confirm, an earlier decrease not reported, an
    offset below the minimum; each names the chunk holding the offset concerned."""
    from peproof.encoding import Encoding
    from peproof.numeric.separation import ArbD

    dk = ArbD(Encoding(64))
    jobs = [{"a": 1, "b": 4097}, {"a": 4097, "b": 8193}]
    d1, d5, d6 = dk(1), dk(5), dk(6)
    assert recertify.final(dk, jobs, 8193, d1, 5) == {}  # the truth: minimum D(1), first 5
    assert "above D(1)" in recertify.final(dk, jobs, 8193, dk(4500), 5)[0]
    assert "does not confirm" in recertify.final(dk, jobs, 8193, d1, 4)[0]  # D(5) > D(4)
    later = next(k for k in range(6, 64) if dk(k + 1) < dk(k))  # a real decrease after 5
    assert d6 < d5  # the first one, which a merge reporting ``later`` missed
    assert "does not report" in recertify.final(dk, jobs, 8193, d1, later)[0]
    between = (d1 + dk(2)) * flint.arb(0.5)  # above D(1): the minimum claimed elsewhere
    assert "above D(1)" in recertify.final(dk, jobs, 8193, between, 5)[0]
    # a D whose third value lies below the claimed minimum (5) and D(1): named, in chunk 0
    stub = {1: 5, 2: 6, 3: 2, 4: 3}
    got = recertify.final(lambda k: flint.arb(stub[k]), jobs, 8193, flint.arb(5), 2)
    assert got == {0: "D(3) lies below the minimum it led to"}
    assert recertify.chunk_of(jobs, 4096) == 0 and recertify.chunk_of(jobs, 4097) == 1
