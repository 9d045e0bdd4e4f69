"""Run coqc on generated proofs and judge them by ``Print Assumptions``, never by exit codes.

A :class:`Job` is a lemma: its name, its goal (printed by :mod:`.translate`) and a proof script
(one tactic expression, :mod:`.tactics`).  :func:`check_jobs` writes one standalone ``.v`` file
per job (what the report links) and compiles the jobs in batches (one ``coqc`` per batch, two
at a time; loading the reals and CoqInterval costs most of a second per run), each lemma in its
own module with the fallback ``first [solve [script] | exact (peproof_not_proved _)]``, so that
a failing script marks its lemma instead of stopping the batch.  Then an audit, in a fresh
coqc run that requires the compiled batches, re-states each goal (``Definition audit_x :
<goal> := M_x.x``: the lemma proves the printed statement, not another one) and prints the
assumptions of all of them: one audit for the lemmas that rest on CoqInterval, one for the
rest (:func:`_audit_groups`), each started when its batches have compiled.

A lemma is **checked** only when the batch compiled, its audit definition type-checked, and
every axiom ``Print Assumptions`` lists is on :data:`ALLOWED` (the reals' axioms, classical
logic, functional extensionality, and the primitive float/int63 specifications CoqInterval's
reflexive proofs rest on).  ``Admitted``, ``Axiom`` and the fallback all show up there as
axioms outside the list.  Scripts and goals are also scanned before anything runs: a sentence
end, a comment or a vernacular keyword in a script is refused.

Results are cached by content (goal, script, the compiled library's hash, the Coq version, this
file's own text); the library itself is compiled once per content hash into the cache folder
(``$PEPROOF_COQ_CACHE``, else ``$XDG_CACHE_HOME/peproof/coq``, else ``~/.cache/peproof/coq``).
Without ``coqc`` every job is "coq not installed".

**The cache is not trusted on its word.**  Each result entry carries an HMAC-SHA256, under the
caller's key (the user's checkpoint key, :mod:`peproof.guard.keys`, passed down by the caller:
the kernel imports nothing outside itself), of its content key and its result: a forged entry,
an entry copied under another content key, an edited one or one signed with another user's key
is a miss, computed again, never ``checked``.  Without a key a process uses one of its own (its
entries are trusted by itself only).  The compiled library's ``built.json`` is signed the same
way and lists the SHA-256 of every compiled file: a damaged, half-written or replaced ``.vo``
makes the library be compiled again.

**A fault of the environment is never a result.**  ``coqc`` killed by a signal (the OOM killer's
SIGKILL), out of time, out of space or unable to write the library into the cache folder gives
"not checked" with the fault named, is not cached (neither the result nor the library's state)
and the next run tries again.  With the library compiled, a full or read-only cache folder only
stops the results from being kept: the batches are compiled in the temporary folder.
SIGINT / SIGTERM stop every coqc of the pass (their process groups killed) before the
exception goes on.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNNER_VERSION = "1"
#: the judge's own text: a cached result is a result of this file (the allow-list, the parsing
#: of Print Assumptions), so any change to it makes every cached result stale
RUNNER_SOURCE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
BATCH_TIMEOUT = 900  # seconds of one coqc run
#: seconds between two looks at a signal while coqc runs (a wait on a lock or a pipe is not
#: interrupted by a signal another thread received: the handler would run only when it ends)
POLL = 0.2
JOB_TIMEOUT = 10  # seconds of one proof script (Coq's [timeout]: wall clock; then the fallback),
# plus one second per 2000 characters of goal (a 1646-relation goal is 220 KB), at most
# JOB_TIMEOUT_MAX: the largest goals that are checked (400 KB) take under 10 s of script, and a
# 745 KB goal whose reflection cannot finish burned 382 s of a clean pass for nothing
JOB_TIMEOUT_MAX = 60

#: axioms a checked lemma may rest on (names as Print Assumptions prints them)
REALS = frozenset({
    "ClassicalDedekindReals.sig_forall_dec", "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
})
PRIMITIVE = frozenset(f"FloatAxioms.{n}" for n in (
    "add_spec sub_spec mul_spec div_spec sqrt_spec opp_spec abs_spec of_uint63_spec "
    "normfr_mantissa_spec next_up_spec next_down_spec ltb_spec leb_spec eqb_spec compare_spec "
    "classify_spec frshiftexp_spec ldshiftexp_spec SF2Prim_Prim2SF Prim2SF_valid "
    "Prim2SF_SF2Prim").split()) | frozenset(f"PrimFloat.{n}" for n in (
    "float add sub mul div sqrt opp abs of_uint63 normfr_mantissa next_up next_down ltb leb "
    "eqb compare classify frshiftexp ldshiftexp").split()) | frozenset(
    f"PrimInt63.{n}" for n in (
        "int add sub mul div mod eqb ltb leb lsl lsr land lor lxor compare addc subc "
        "addcarryc subcarryc mulc diveucl diveucl_21 head0 tail0 addmuldiv").split()) | frozenset(
    f"Uint63.{n}" for n in (
        "add_spec sub_spec mul_spec div_spec mod_spec lsl_spec lsr_spec land_spec lor_spec "
        "lxor_spec ltb_spec leb_spec eqb_correct eqb_refl of_to_Z compare_def_spec "
        "addc_def_spec subc_def_spec mulc_spec diveucl_def_spec diveucl_21_spec head0_spec "
        "tail0_spec addmuldiv_def_spec addcarryc_def_spec subcarryc_def_spec").split())
ALLOWED = REALS | PRIMITIVE

#: what a script may not contain (a sentence end, a comment, vernacular)
FORBIDDEN = re.compile(
    r"\.(\s|$)|\(\*|\b(Admitted|Admit|admit|give_up|Axiom|Axioms|Parameter|Parameters|Variable"
    r"|Variables|Hypothesis|Hypotheses|Conjecture|Abort|Qed|Defined|Save|Proof|Lemma|Theorem"
    r"|Definition|Fixpoint|CoFixpoint|Inductive|Module|End|Section|Require|Import|Export|Load"
    r"|Notation|Infix|Set|Unset|Ltac|Declare|Context|Instance|Existing|Local|Global|Print"
    r"|Drop|Quit|Fail|Succeed|Redirect|Time|Timeout|Goal|Opaque|Transparent|Arguments)\b")
MARK = "@@PEPROOF"
#: the key of a caller that passes none: this process's own (nothing another run signed is read)
_PROCESS_KEY = os.urandom(32)


class EnvFault(Exception):
    """A fault of the environment (coqc killed, out of space, a folder not writable): never a
    result, never cached."""


def signal_fault(returncode: int) -> str | None:
    """"killed by signal N (NAME)" when ``returncode`` says the process died of a signal (a
    negative code, or 128 + N from a shell wrapper), else None."""
    n = -returncode if returncode < 0 else returncode - 128 if 128 < returncode <= 128 + 64 \
        else 0
    if not n:
        return None
    try:
        name = signal.Signals(n).name
    except ValueError:
        name = "?"
    return f"coqc was killed by signal {n} ({name})"


#: what coqc prints when the machine, not the input, stopped it (never a result of the job)
ENV_ERRORS = ("No space left on device", "Disk quota exceeded", "Read-only file system",
              "Out of memory", "Cannot allocate memory", "Input/output error")


def output_fault(returncode: int, text: str) -> str | None:
    """The fault of the environment a failed coqc run shows: killed by a signal, or one of
    :data:`ENV_ERRORS` in its output; None for a failure of the input."""
    killed = signal_fault(returncode)
    if killed or returncode == 0:
        return killed
    found = next((e for e in ENV_ERRORS if e in text), None)
    return f"coqc failed: {found}" if found else None


def os_fault(exc: OSError, what: str) -> str:
    where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
    return f"{what}{where}: {exc.strerror or exc}"


def sign(key: bytes, kind: str, name: str, data) -> str:
    """HMAC-SHA256 (hex) of ``data`` filed as ``kind`` under ``name`` (canonical JSON)."""
    msg = json.dumps([kind, name, data], sort_keys=True, ensure_ascii=True).encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def signed(key: bytes, kind: str, name: str, d) -> object | None:
    """The payload of a signed record ``d`` (``{"kind", "name", "data", "mac"}``), or None when
    it is not a record of ``kind`` under ``name`` signed with ``key``."""
    if not isinstance(d, dict) or d.get("kind") != kind or d.get("name") != name:
        return None
    mac = d.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(
            mac.encode("ascii", "replace"), sign(key, kind, name, d.get("data")).encode()):
        return None
    return d.get("data")


def record(key: bytes, kind: str, name: str, data) -> dict:
    return {"kind": kind, "name": name, "data": data, "mac": sign(key, kind, name, data)}


_LIVE: set = set()  # the coqc processes running now (killed on an interrupt)
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Job:
    key: str  # the claim id (or a test's name)
    lemma: str  # a Coq identifier
    goal: str  # the proposition, as printed
    script: str  # one tactic expression
    needs: frozenset = frozenset()  # "interval", "library"
    negation: bool = False  # the lemma is the negation of the goal

    @property
    def statement(self) -> str:
        return f"~ ({self.goal})" if self.negation else self.goal


@dataclass
class Outcome:
    status: str  # "checked" | "failed" | "absent"
    reason: str = ""
    assumptions: tuple[str, ...] = ()
    coq_version: str = ""
    seconds: float = 0.0
    cached: bool = False
    vfile: str | None = None
    output: str = ""  # Print Assumptions as printed
    scope: str = ""  # "lemma", or "batch of n" (the union over the lemmas audited together)
    cacheable: bool = False  # a result of the inputs, not of the environment

    def as_dict(self) -> dict:
        return {"status": self.status, "reason": self.reason,
                "assumptions": list(self.assumptions), "coq_version": self.coq_version,
                "seconds": round(self.seconds, 3), "cached": self.cached, "vfile": self.vfile,
                "print_assumptions": self.output, "scope": self.scope}


@dataclass
class _Batch:
    jobs: list[Job]
    needs: frozenset
    spans: dict = field(default_factory=dict)  # lemma -> (first line, last line), 1-based
    name: str = ""  # the compiled module (``PEBatch.<name>``)
    ok: list = field(default_factory=list)  # the jobs (indices) that compiled, to audit
    times: dict = field(default_factory=dict)  # index -> CPU seconds of its script


@dataclass
class _Audit:
    """Lemmas of one or more compiled batches audited in one coqc run."""
    batches: list  # [_Batch]
    spans: dict = field(default_factory=dict)  # (batch no., lemma no.) -> lines, 1-based

    def lemmas(self) -> list[tuple[int, int]]:
        return [(b, n) for b, batch in enumerate(self.batches) for n in batch.ok]

    def job(self, ref: tuple[int, int]) -> Job:
        return self.batches[ref[0]].jobs[ref[1]]


def coqc() -> str | None:
    return shutil.which(os.environ.get("PEPROOF_COQC", "coqc"))


#: versions read, by the executable's file (path, inode, size, modification time): a process
#: asks once per executable, not once per pass (a version that could not be read is asked again)
_VERSIONS: dict[tuple, str] = {}


def coq_version(exe: str | None = None) -> str | None:
    exe = exe or coqc()
    if not exe:
        return None
    try:
        st = os.stat(exe)
    except OSError:
        return None
    key = (os.path.realpath(exe), st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _VERSIONS:
        return _VERSIONS[key]
    try:
        out = subprocess.run([exe, "--print-version"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    _VERSIONS[key] = out.stdout.strip().split()[0]
    return _VERSIONS[key]


def cache_root() -> Path:
    if os.environ.get("PEPROOF_COQ_CACHE"):
        return Path(os.environ["PEPROOF_COQ_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "peproof" / "coq"


def library_sources() -> dict[str, str]:
    """The library's .v files by module name: coqlib's lib/*.v and the runner's Check*.v."""
    out = {}
    for p in sorted((HERE / "lib").glob("*.v")) + sorted(HERE.glob("Check*.v")):
        out[p.stem] = p.read_text()
    return out


def _deps(src: str, names) -> list[str]:
    found = []
    for m in re.finditer(r"From\s+PEProof\s+Require\s+(?:Import\s+|Export\s+)?([^.]*)\.", src):
        found += [n for n in m.group(1).split() if n in names]
    return found


def _order(srcs: dict[str, str]) -> list[str]:
    done: list[str] = []

    def visit(n, path=()):
        if n in done:
            return
        if n in path:
            raise RuntimeError(f"library import cycle through {n}")
        for d in _deps(srcs[n], srcs):
            visit(d, path + (n,))
        done.append(n)

    for n in srcs:
        visit(n)
    return done


def library_hash(version: str) -> str:
    h = hashlib.sha256(f"{RUNNER_VERSION}|{version}".encode())
    for n, s in sorted(library_sources().items()):
        h.update(f"\0{n}\0{s}".encode())
    return h.hexdigest()


@dataclass
class Library:
    path: Path | None
    hash: str
    modules: frozenset  # compiled modules
    errors: dict  # module -> error line
    fault: str = ""  # a fault of the environment: nothing was compiled, nothing recorded


def _vo_hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.suffix in (".vo", ".vos", ".vok", ".glob")}


def _load_library(dest: Path, lh: str, key: bytes) -> Library | None:
    """The library in ``dest`` if its ``built.json`` is signed with ``key`` for ``lh`` and every
    compiled file is the one recorded, else None (absent, damaged, forged: build it again)."""
    try:
        meta = signed(key, "library", lh, json.loads((dest / "built.json").read_text()))
        if not isinstance(meta, dict) or _vo_hashes(dest) != meta.get("files"):
            return None
        return Library(dest, lh, frozenset(meta["modules"]), dict(meta["errors"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Cancelled(Exception):
    """The caller no longer wants the library (:meth:`LibraryAhead.stop`)."""


def _critical_path(srcs: dict[str, str], deps: dict[str, list[str]]) -> dict[str, int]:
    """For each module, the longest chain of source text from it through the modules that
    import it (a module's compile time is roughly its length): the ready module with the
    longest chain is compiled first, so that the chain that ends the build starts early
    (Defs, Sem, Decay, Floor: not Sem's users in name order, which left one core idle)."""
    users = {n: [m for m in srcs if n in deps[m]] for n in srcs}
    memo: dict[str, int] = {}

    def chain(n: str) -> int:
        if n not in memo:
            memo[n] = len(srcs[n]) + max((chain(u) for u in users[n]), default=0)
        return memo[n]

    return {n: chain(n) for n in srcs}


def _compile_modules(exe: str, tmp: Path, srcs: dict[str, str], workers: int,
                     cancel: threading.Event | None = None
                     ) -> tuple[list[str], dict[str, str]]:
    """Compile the modules ``srcs`` in ``tmp`` along their imports, at most ``workers`` coqc at
    once (a module starts when every module it imports has compiled): (the compiled modules in
    :func:`_order`'s order, module -> error).  A module that does not compile is recorded, and
    so is every module that imports it; a fault of the environment (:func:`output_fault`)
    stops every coqc of the build and is raised as :class:`EnvFault`; ``cancel`` set stops
    them too (:class:`Cancelled`)."""
    order = _order(srcs)
    deps = {n: _deps(srcs[n], srcs) for n in order}
    done: set[str] = set()
    errors: dict[str, str] = {}
    pending = sorted(order, key=_critical_path(srcs, deps).__getitem__, reverse=True)
    running: dict = {}  # future -> module
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        while pending or running:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the library build was stopped")
            for name in list(pending):
                if any(d in errors for d in deps[name]):
                    errors[name] = "a module it imports did not compile"
                    pending.remove(name)
                elif len(running) < max(1, workers) and all(d in done for d in deps[name]):
                    pending.remove(name)
                    (tmp / f"{name}.v").write_text(srcs[name])
                    cmd = [exe, "-q", "-Q", str(tmp), "PEProof", str(tmp / f"{name}.v")]
                    running[pool.submit(_run, cmd, tmp)] = name
            if not running:
                break
            finished = wait(running, timeout=POLL, return_when=FIRST_COMPLETED).done
            for f in finished:
                name = running.pop(f)
                r = f.result()
                fault = output_fault(r.returncode, r.stdout + r.stderr)
                if fault:
                    raise EnvFault(f"{fault} while compiling the library module {name}")
                if r.returncode == 0:
                    done.add(name)
                else:
                    errors[name] = _first_error(r.stdout + r.stderr)
    except BaseException:  # a fault, a time-out or an interrupt: no coqc of the build is left
        pool.shutdown(wait=False, cancel_futures=True)
        for p in _live_in(tmp):
            _kill(p)
        pool.shutdown(wait=True)  # their threads see them end: none is left registered
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return [n for n in order if n in done], errors


#: the folders a run writes in the cache and removes when it ends: a run killed with SIGKILL
#: (the out-of-memory killer) leaves its own behind, which the next run removes (:func:`_sweep`)
_WORK_PREFIXES = ("lib-build-", "peproof-coq-")
#: folders that are not yet or no longer a run's work folder (one being set up, a damaged
#: library set aside): removed by age alone
_TRANSIENT_PREFIXES = (".new-", ".stale-")
#: a folder without its owner's lock is left alone this long (its run may be creating it)
_UNOWNED_GRACE = 600.0


def _owned_tempdir(prefix: str, root: Path | None) -> tuple[Path, int]:
    """A new folder ``<prefix>XXXX`` in ``root`` (None: TMPDIR) with an exclusive lock held on
    its ``.owner`` file: the lock ends with the process, however it ends, and tells
    :func:`_sweep` the folder is in use.  The folder is made and locked as ``.new-<prefix>XXXX``
    and then renamed, so that no sweep ever sees it unlocked.  Returns the folder and the
    lock's descriptor (close it after removing or renaming the folder)."""
    tmp = Path(tempfile.mkdtemp(prefix=".new-" + prefix, dir=root))
    fd = None
    try:
        fd = os.open(tmp / ".owner", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some NFS mounts): the sweep's own
            pass  # flock fails there too, so the folder counts as held and is never swept
        final = tmp.with_name(tmp.name[len(".new-"):])
        os.rename(tmp, final)
    except OSError:
        _release(tmp, fd)
        raise
    return final, fd


def _release(tmp: Path | None, fd: int | None) -> None:
    """Remove the folder ``tmp`` (if any), then let go of its lock ``fd`` (if any)."""
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    if fd is not None:
        os.close(fd)


def _old(p: Path) -> bool:
    try:
        return time.time() - p.stat().st_mtime > _UNOWNED_GRACE
    except OSError:
        return False


def _sweep(root: Path) -> list[str]:
    """Remove the work folders (:data:`_WORK_PREFIXES`) that runs killed before their end left
    in the cache folder ``root``: one whose ``.owner`` lock can be taken (its process is gone),
    or one without an owner file older than :data:`_UNOWNED_GRACE` seconds; and the transient
    folders (:data:`_TRANSIENT_PREFIXES`) older than that.  A folder in use by a live run (here
    or in another process) is never touched.  Returns the names removed."""
    removed = []
    try:
        folders = [p for p in Path(root).iterdir()
                   if p.name.startswith(_WORK_PREFIXES + _TRANSIENT_PREFIXES)]
    except OSError:
        return removed
    for p in folders:
        fd = None
        if not p.name.startswith(_TRANSIENT_PREFIXES):
            try:
                fd = os.open(p / ".owner", os.O_RDWR)
            except FileNotFoundError:
                pass
            except OSError:
                continue
        if fd is None:
            if _old(p):
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p.name)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its run is alive
            os.close(fd)
            continue
        try:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p.name)
        finally:
            os.close(fd)
    return removed


def library_dir(root: Path, lh: str, key: bytes) -> Path:
    """Where the library ``lh`` signed with ``key`` is kept in ``root``: one folder per key, so
    that runs with different keys sharing a cache (a test's process key beside the user's)
    never replace each other's library while a pass compiles against it."""
    return Path(root) / f"lib-{lh[:20]}-{hashlib.sha256(key).hexdigest()[:8]}"


def build_library(exe: str, version: str, root: Path, key: bytes | None = None,
                  workers: int = 2, cancel: threading.Event | None = None) -> Library:
    """Compile the library into ``root/lib-<hash>-<key>`` (:func:`library_dir`) once (a module
    that does not compile is recorded: the jobs that need it are not checked; independent
    modules are compiled side by side, at most ``workers`` at once).  A library whose record
    is not signed with ``key`` or whose compiled files differ from it is compiled again; a
    fault of the environment (coqc killed, no room) is returned as ``fault`` and recorded
    nowhere."""
    key = key or _PROCESS_KEY
    lh = library_hash(version)
    dest = library_dir(root, lh, key)
    _sweep(root)
    lib = _load_library(dest, lh, key)
    if lib is not None:
        return lib
    tmp = owner = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp, owner = _owned_tempdir("lib-build-", root)
        ok, errors = _compile_modules(exe, tmp, library_sources(), workers, cancel)
        (tmp / ".owner").unlink()  # not part of the library (the lock stays with the descriptor)
        meta = {"modules": ok, "errors": errors, "files": _vo_hashes(tmp)}
        (tmp / "built.json").write_text(json.dumps(record(key, "library", lh, meta)))
        # a library built meanwhile by another run with this key is used, never replaced: its
        # batches may be compiling against it (a replaced library fails their audit with
        # "inconsistent assumptions")
        if _load_library(dest, lh, key) is None:
            if dest.exists():  # damaged: set aside, then removed
                aside = root / f".stale-{dest.name}-{os.getpid()}"
                os.replace(dest, aside)
                shutil.rmtree(aside, ignore_errors=True)
            try:
                tmp.rename(dest)
                tmp = None
            except OSError:  # built meanwhile by another run: use theirs if it is sound
                pass
    except subprocess.TimeoutExpired:
        return Library(None, lh, frozenset(), {}, f"coqc timed out after {BATCH_TIMEOUT} s "
                       "while compiling the library")
    except EnvFault as exc:
        return Library(None, lh, frozenset(), {}, str(exc))
    except OSError as exc:
        return Library(None, lh, frozenset(), {},
                       os_fault(exc, "cannot compile the library in the Coq cache folder"))
    finally:
        _release(tmp, owner)
    lib = _load_library(dest, lh, key)
    if lib is None:
        return Library(None, lh, frozenset(), {}, f"the compiled library in {dest} cannot be "
                       "read back (changed while it was being installed)")
    return lib


class LibraryAhead:
    """The compiled library made ready in a thread while the caller plans its jobs
    (:func:`peproof.kernel.coq.check.check_claims`: planning is Python, the library is coqc's
    work on the other core).  :meth:`result` is what :func:`check_jobs` would have found
    (``(coqc, version, library)``; ``library`` None without coqc); :meth:`stop` ends the
    build (its coqc killed, nothing installed) when the caller gives up."""

    def __init__(self, cache_dir: Path | None, key: bytes | None, workers: int):
        self.root = Path(cache_dir) if cache_dir else cache_root()
        self._cancel = threading.Event()
        self._out: tuple | None = None
        self._exc: BaseException | None = None
        self._thread = threading.Thread(target=self._build, args=(key, workers), daemon=True,
                                        name="peproof-coq-library")
        self._thread.start()

    def _build(self, key, workers) -> None:
        try:
            exe = coqc()
            version = coq_version(exe) if exe else None
            lib = build_library(exe, version, self.root, key or _PROCESS_KEY, workers,
                                cancel=self._cancel) if exe and version else None
            self._out = (exe, version, lib)
        except BaseException as exc:  # handed to the caller by result()
            self._exc = exc

    def result(self) -> tuple:
        while self._thread.is_alive():  # short waits: a signal reaches the main thread
            self._thread.join(POLL)
        if self._exc is not None:
            raise self._exc
        return self._out

    def stop(self) -> None:
        self._cancel.set()
        while self._thread.is_alive():
            self._thread.join(POLL)


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """One coqc run in its own process group, registered so that an interrupt kills it; on a
    timeout or any exception its whole group is killed."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True)
    proc.peproof_cwd = cwd
    with _LIVE_LOCK:
        _LIVE.add(proc)
    deadline = time.monotonic() + BATCH_TIMEOUT
    try:
        while True:  # short waits: a signal that another thread received is seen at once
            try:
                out, err = proc.communicate(timeout=min(POLL, BATCH_TIMEOUT))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    raise
    except BaseException:
        _kill(proc)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _live_in(cwd: Path) -> list[subprocess.Popen]:
    """The coqc processes of this process running in the folder ``cwd``."""
    with _LIVE_LOCK:
        return [p for p in _LIVE if getattr(p, "peproof_cwd", None) == cwd]


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def kill_all() -> None:
    """Kill every coqc of this process that is still running (an interrupt)."""
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for p in procs:
        _kill(p)


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("Error") or "Error:" in line:
            return line.strip()[:300]
    return (text.strip().splitlines() or ["coqc failed"])[-1][:300]


def header(needs: frozenset) -> str:
    mods = ["Defs", "Sem", "Check", "CheckSem", "PE", "Tactics"]
    lines = ["From Coq Require Import ZArith Reals Lia Lra Nsatz."]
    if "interval" in needs:
        lines.append("From Interval Require Import Tactic.")
        mods += ["CheckInterval", "Decay"]  # Decay.v's scripts need CoqInterval too
    mods += ["Floor"] if "floor" in needs else []  # imports Decay: with "interval" only
    mods += ["Integral"] if "integral" in needs else []
    mods += ["Round"] if "round" in needs else []
    mods += ["PiIrr"] if "pi" in needs else []
    lines.append(f"From PEProof Require Import {' '.join(mods)}.")
    lines.append("Open Scope R_scope.")
    return "\n".join(lines) + "\n"


#: the elaboration hint of a large statement (:func:`some_hint`)
SOME_HINT = "Local Notation Some := (@Some R) (only parsing)."
#: statements from this many characters on get the hint
SOME_HINT_MIN = 20000


def some_hint(statement: str) -> bool:
    """Is ``statement`` elaborated with :data:`SOME_HINT` (``Some`` read as ``@Some R``)?

    Elaborating ``Some v`` creates an evar for its implicit type, and an evar carries the
    whole context: a 400 KB concrete-d statement under 514 binders took 9.6 s to elaborate,
    0.9 s with the hint (once in the batch, once in the audit).  The hint changes no term:
    ``@Some R v`` is the term elaboration finds anyway when ``v`` is real, and when it is not
    (no coercion to ``R`` is declared) the statement does not elaborate and the lemma is not
    checked -- never another statement.  Statements with a boolean ``Some`` (the conditions
    of Piecewise) and small ones (nothing to gain) are elaborated as they are."""
    return len(statement) >= SOME_HINT_MIN and not re.search(
        r"Some\s*\(?\s*(true|false)\b", statement)


def lemma_text(job: Job, n: int | None = None) -> str:
    """The lemma and its proof: the script under a time limit, else the marked fallback (in a
    batch, ``n`` numbers the fallback's message and the tactic is timed)."""
    mark = f'idtac "{MARK}-FALLBACK {n}"; ' if n is not None else ""
    timed = "Time " if n is not None else ""
    hint = SOME_HINT + "\n" if some_hint(job.statement) else ""
    return (f"{hint}Theorem {job.lemma} :\n{_indent(job.statement)}.\nProof.\n"
            f"  {timed}first [ solve [ timeout {time_limit(job)} ({job.script}) ]\n"
            f"        | {mark}exact (peproof_not_proved _) ].\nQed.\n")


def time_limit(job: Job) -> int:
    return min(JOB_TIMEOUT + len(job.goal) // 2000, max(JOB_TIMEOUT, JOB_TIMEOUT_MAX))


def _indent(s: str) -> str:
    return "\n".join("  " + ln for ln in s.splitlines())


def standalone(job: Job) -> str:
    return (f"(* peproof: {job.key} -- generated from the claim's statement; compile with\n"
            f"   coqc -Q <peproof's compiled library> PEProof {job.lemma}.v *)\n"
            + header(job.needs) + "\n" + lemma_text(job) + f"\nPrint Assumptions {job.lemma}.\n")


def refuse(job: Job) -> str | None:
    """Why ``job`` must not run (a script or goal that could escape the proof), or None."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", job.lemma):
        return f"lemma name {job.lemma!r} is not a Coq identifier"
    m = FORBIDDEN.search(job.script)
    if m:
        return f"the script contains {m.group(0).strip()!r} (a script is one tactic expression)"
    if re.search(r"\.(\s|$)|\(\*", job.goal):
        return "the goal contains a sentence end or a comment"
    return None


def job_key(job: Job, lib: Library, version: str) -> str:
    h = hashlib.sha256()
    for part in (RUNNER_VERSION, RUNNER_SOURCE, version, lib.hash, job.lemma, job.statement,
                 job.script, header(job.needs)):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def parse_assumptions(text: str) -> tuple[tuple[str, ...], list[str]]:
    """(axiom names, problems) of one ``Print Assumptions`` output."""
    text = text.strip()
    if text.startswith("Closed under the global context"):
        return (), []
    names, problems, section = [], [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            head = line.rstrip()
            if head == "Axioms:":
                section = "axioms"
                continue
            if head.endswith(":") and " " in head:  # type-in-type, unsafe fixpoints, ...
                section = head
                problems.append(head)
                continue
            if section == "axioms":
                names.append(head.split(" :", 1)[0].strip())
            else:
                problems.append(f"unexpected output: {head[:100]}")
    if section is None:
        problems.append(f"no Print Assumptions output ({text[:80]!r})")
    return tuple(names), problems


def judge(job: Job, text: str, version: str, scope: str = "lemma") -> Outcome:
    """The verdict of one ``Print Assumptions`` output against :data:`ALLOWED`."""
    names, problems = parse_assumptions(text)
    bad = [n for n in names if n not in ALLOWED]
    kw = {"output": text, "scope": scope, "cacheable": True}
    if problems:
        return Outcome("failed", "Print Assumptions: " + "; ".join(problems), names, version,
                       **kw)
    if any(n.endswith("peproof_not_proved") for n in bad):
        return Outcome("failed", "the proof script did not close the goal", names, version,
                       **kw)
    if bad:
        return Outcome("failed", "rests on axioms outside the allow-list: " + ", ".join(bad),
                       names, version, **kw)
    return Outcome("checked", "", names, version, **kw)


def batch_text(batch: _Batch) -> str:
    """Stage 1: the lemmas, each in its module, with the fallback marked."""
    lines = header(batch.needs).splitlines()
    for n, job in enumerate(batch.jobs):
        start = len(lines) + 1
        lines += [f"Module M_{job.lemma}."] + lemma_text(job, n).splitlines() + \
            [f"End M_{job.lemma}."]
        batch.spans[job.lemma] = (start, len(lines))
    return "\n".join(lines) + "\n"


def _sem(needs: frozenset) -> tuple[str, ...]:
    """The library modules that give a statement of a job with ``needs`` its meaning."""
    return ("Defs", "Sem") + (("Decay",) if "interval" in needs else ()) + (
        ("Integral",) if "integral" in needs else ()) + (("Round",) if "round" in needs else ())


def audit_text(audit: _Audit, each: bool, lemmas: list[tuple[int, int]] | None = None) -> str:
    """Stage 2, in a fresh environment: the compiled batches are required (not imported), each
    goal is printed again and must be the type of its lemma, then ``Print Assumptions`` of all
    of them at once (one traversal: the union) or, ``each``, lemma by lemma.

    The goals are read where only their meaning is imported (Defs, Sem and the modules of
    their kind, :func:`_sem`): one module per set of meaning modules, whose ``Import`` ends
    with it, so that batches of several kinds are audited in one run (a run loads the reals
    and walks the library behind its lemmas once: Print Assumptions of CoqInterval's
    proofs takes ~6 s, once for every lemma audited with it)."""
    lemmas = audit.lemmas() if lemmas is None else lemmas
    audit.spans.clear()
    sems = sorted({_sem(audit.batches[b].needs) for b, _ in lemmas})
    mods = sorted({m for sem in sems for m in sem})
    used = sorted({audit.batches[b].name for b, _ in lemmas})
    lines = ["From Coq Require Import ZArith Reals.", f"From PEProof Require {' '.join(mods)}.",
             *(f"Require PEBatch.{name}." for name in used), "Open Scope R_scope."]
    ref = {}  # (b, n) -> the audit definition's name
    for g, sem in enumerate(sems):
        lines += [f"Module S_{g}.", f"Import {' '.join(sem)}.", "Open Scope R_scope."]
        for b, n in lemmas:
            batch = audit.batches[b]
            if _sem(batch.needs) != sem:
                continue
            job = batch.jobs[n]
            start = len(lines) + 1
            st = _indent(job.statement).splitlines()
            hint = some_hint(job.statement)
            name = f"audit_{b}_{n}"
            lines += [f"Module A_{b}_{n}.", SOME_HINT] if hint else []
            lines += [f"Definition {name} :", *st[:-1],
                      st[-1] + f" := PEBatch.{batch.name}.M_{job.lemma}.{job.lemma}."]
            lines += [f"End A_{b}_{n}."] if hint else []
            ref[b, n] = f"S_{g}." + (f"A_{b}_{n}.{name}" if hint else name)
            audit.spans[b, n] = (start, len(lines))
        lines.append(f"End S_{g}.")
    if each:
        for b, n in lemmas:
            lines += [f'Goal True. idtac "{MARK} {b}_{n}". Abort.',
                      f"Print Assumptions {ref[b, n]}."]
    elif lemmas:
        # one constant that names them all, each once (a tuple's type repeats the statements
        # after each component: quadratic, 15 s of a 116-lemma audit)
        lines += ["Definition audit_all : True :=",
                  *(f"  let a_{b}_{n} := {ref[b, n]} in" for b, n in lemmas), "  I.",
                  f'Goal True. idtac "{MARK} all". Abort.', "Print Assumptions audit_all."]
    return "\n".join(lines) + "\n"


def _coqc(exe: str, lib: Library, workdir: Path, path: Path) -> subprocess.CompletedProcess:
    """One coqc run on a batch; its process group is killed on a timeout or an interrupt, and
    coqc killed by a signal or stopped by the machine (:func:`output_fault`) is a fault of the
    environment (:class:`EnvFault`), never a lemma's failure."""
    cmd = [exe, "-q", "-Q", str(lib.path), "PEProof", "-Q", str(workdir), "PEBatch", str(path)]
    r = _run(cmd, workdir)
    fault = output_fault(r.returncode, r.stdout + r.stderr)
    if fault:
        raise EnvFault(fault)
    return r


def _compile_batch(exe: str, lib: Library, batch: _Batch, workdir: Path,
                   version: str) -> dict[str, Outcome]:
    """Compile one batch (a job whose text stops coqc is taken out and the rest re-run); the
    outcomes of the jobs that failed, ``batch.ok`` the ones to audit (:func:`_audit`)."""
    out: dict[str, Outcome] = {}
    todo = list(batch.jobs)
    batch.ok = []
    while todo:
        b = _Batch(todo, batch.needs)
        path = workdir / f"{batch.name}.v"
        try:
            path.write_text(batch_text(b))
            r = _coqc(exe, lib, workdir, path)
        except subprocess.TimeoutExpired:
            return out | {j.key: Outcome("failed", f"coqc timed out after {BATCH_TIMEOUT} s",
                                         coq_version=version) for j in todo}
        except EnvFault as exc:
            return out | {j.key: Outcome("failed", str(exc), coq_version=version)
                          for j in todo}
        except OSError as exc:
            return out | {j.key: Outcome("failed", os_fault(exc, "cannot write the batch"),
                                         coq_version=version) for j in todo}
        if r.returncode == 0:
            times = [(float(w), float(u)) for w, u in re.findall(
                r"Finished (?:failing )?transaction in ([\d.]+) secs \(([\d.]+)u", r.stdout)]
            fell = {int(m) for m in re.findall(rf"{MARK}-FALLBACK (\d+)", r.stdout)}
            for n in sorted(fell):
                # out of time says as much about this machine's load as about the script: a
                # fault of the environment as much as a result, so not cached (the next run
                # tries again); a script that did not close the goal in time is a result
                limit = time_limit(todo[n])
                late = n < len(times) and times[n][0] >= 0.95 * limit
                out[todo[n].key] = Outcome(
                    "failed", f"the proof script ran out of time ({limit} s wall)" if late
                    else "the proof script did not close the goal", coq_version=version,
                    cacheable=not late)
            batch.jobs, batch.spans = b.jobs, b.spans  # what was compiled
            batch.ok = [n for n in range(len(todo)) if n not in fell]
            batch.times = {n: times[n][1] for n in range(min(len(times), len(todo)))}
            for n in fell:
                out[todo[n].key].seconds = batch.times.get(n, 0.0)
            break
        culprit, msg = _culprit(r.stdout + r.stderr, b.spans)
        if culprit is None:
            return out | {j.key: Outcome("failed", f"coqc failed: {msg}", coq_version=version)
                          for j in todo}
        job = next(j for j in todo if j.lemma == culprit)
        out[job.key] = Outcome("failed", msg, coq_version=version, cacheable=True)
        todo = [j for j in todo if j.lemma != culprit]
    return out


def _audit(exe, lib, audit: _Audit, workdir: Path, name: str, version: str,
           each: bool = False, only: list | None = None) -> dict[str, Outcome]:
    """Judge the compiled lemmas of ``audit``'s batches (see :func:`audit_text`): a lemma whose
    printed statement is not its type fails and the rest are audited again; a union whose
    assumptions are not all allowed is read again lemma by lemma, to say which."""
    out: dict[str, Outcome] = {}
    ok = audit.lemmas() if only is None else list(only)
    while ok:
        path = workdir / f"{name}{'_each' if each else ''}.v"
        try:
            path.write_text(audit_text(audit, each, ok))
            r = _coqc(exe, lib, workdir, path)
        except subprocess.TimeoutExpired:
            return out | {audit.job(x).key: Outcome("failed", "the audit timed out",
                                                    coq_version=version) for x in ok}
        except EnvFault as exc:
            return out | {audit.job(x).key: Outcome("failed", f"the audit: {exc}",
                                                    coq_version=version) for x in ok}
        except OSError as exc:
            return out | {audit.job(x).key: Outcome("failed", os_fault(
                exc, "cannot write the audit"), coq_version=version) for x in ok}
        if r.returncode != 0:
            culprit, msg = _culprit(r.stdout + r.stderr, audit.spans)
            if culprit is None:
                return out | {audit.job(x).key: Outcome("failed", f"the audit failed: {msg}",
                                                        coq_version=version) for x in ok}
            out[audit.job(culprit).key] = Outcome(
                "failed", f"the lemma does not prove the printed statement: {msg}",
                coq_version=version, cacheable=True)
            ok = [x for x in ok if x != culprit]
            continue
        blocks = _blocks(r.stdout)
        if each:
            for b, n in ok:
                out[audit.job((b, n)).key] = judge(audit.job((b, n)), blocks.get(f"{b}_{n}", ""),
                                                   version, "lemma")
            return out
        union = judge(audit.job(ok[0]), blocks.get("all", ""), version, f"batch of {len(ok)}")
        if union.status != "checked":  # attribute: lemma by lemma
            return out | _audit(exe, lib, _Audit(audit.batches), workdir, name, version,
                                each=True, only=ok)
        for x in ok:
            out[audit.job(x).key] = Outcome("checked", "", union.assumptions, version,
                                            output=union.output, scope=union.scope,
                                            cacheable=True)
        return out
    return out


def _blocks(stdout: str) -> dict[str, str]:
    blocks: dict[str, list[str]] = {}
    cur = None
    for line in stdout.splitlines():
        m = re.fullmatch(rf"{MARK} (\w+)", line.strip())
        if m:
            cur = m.group(1)
            blocks[cur] = []
        elif cur is not None and not line.startswith(f"{MARK}-FALLBACK"):
            blocks[cur].append(line)
    return {k: "\n".join(v) for k, v in blocks.items()}


def _culprit(text: str, spans: dict) -> tuple[str | None, str]:
    m = re.search(r'File "[^"]*", line (\d+), characters \d+-\d+:\n((?:.|\n)*)', text)
    if not m:
        return None, _first_error(text)
    line = int(m.group(1))
    msg = " ".join(m.group(2).split())[:400]
    for name, (a, b) in spans.items():
        if a <= line <= b:
            return name, msg
    return None, msg


def check_jobs(jobs: list[Job], build_dir: Path | None = None, cache_dir: Path | None = None,
               workers: int = 2, batch_size: int = 150, use_cache: bool = True,
               key: bytes | None = None, ahead: LibraryAhead | None = None
               ) -> dict[str, Outcome]:
    """Check every job; the result of each: checked / failed (why) / absent (no coqc).
    ``use_cache`` False ignores the cached results (they are still written); ``key`` signs and
    authenticates the cache (see the module's docstring); ``ahead``: the library, started
    by the caller with the same folder and key (:class:`LibraryAhead`)."""
    key = key or _PROCESS_KEY
    root = Path(cache_dir) if cache_dir else cache_root()
    if ahead is not None and ahead.root == root:
        exe, version, lib = ahead.result()
    else:
        exe, lib = coqc(), None
        version = coq_version(exe) if exe else None
    if build_dir is not None:
        build_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, Outcome] = {}
    if not exe or not version:
        for j in jobs:
            out[j.key] = Outcome("absent", "coq not installed")
        return out
    if lib is None and jobs:
        lib = build_library(exe, version, root, key, workers)
    results = root / "results"
    pending: list[Job] = []
    for j in jobs:
        vfile = None
        if build_dir is not None:
            vfile = build_dir / f"{j.lemma}.v"
            vfile.write_text(standalone(j))
        why = refuse(j) or lib.fault
        missing = sorted(m for m in _needed_modules(j.needs) if m not in lib.modules)
        if why or missing:
            reason = why or ("library module(s) " + ", ".join(missing) + " did not compile: "
                             + "; ".join(str(lib.errors.get(m, "?")) for m in missing))
            out[j.key] = Outcome("failed", reason, coq_version=version,
                                 vfile=str(vfile) if vfile else None)
            continue
        name = job_key(j, lib, version)
        d = _read_cached(results / f"{name}.json", key, name) if use_cache else None
        if d is not None:
            out[j.key] = Outcome(d["status"], d["reason"], tuple(d["assumptions"]), version,
                                 d["seconds"], True, str(vfile) if vfile else None,
                                 d.get("print_assumptions", ""), d.get("scope", ""), True)
            continue
        pending.append(j)
    if not pending:
        return out
    try:
        results.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # a full or read-only cache folder: the results of this run are not kept
    try:
        work, owner = _owned_tempdir("peproof-coq-", root)
    except OSError:
        work = owner = None
    if work is not None:
        try:
            _room(work)
        except OSError:  # removed by _room
            _release(None, owner)
            work = owner = None
    if work is None:
        try:  # the cache folder full or read-only: the batches are compiled in TMPDIR
            work, owner = _owned_tempdir("peproof-coq-", None)
        except OSError as exc:
            fault = os_fault(exc, "cannot write a temporary folder for coqc")
            return out | {j.key: Outcome("failed", fault, coq_version=version)
                          for j in pending}
    batches = _make_batches(pending, workers, batch_size)
    for n, b in enumerate(batches):
        b.name = f"batch{n}"
    audits = _audit_groups(batches, workers)
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        compiling = {pool.submit(_compile_batch, exe, lib, b, work, version): b
                     for b in batches}
        left = {id(a): {id(b) for b in a.batches} for a in audits}
        auditing = []
        running = set(compiling)
        while running:  # never one long wait: SIGINT / SIGTERM must reach the main thread
            done, running = wait(running, timeout=POLL, return_when=FIRST_COMPLETED)
            for f in done:
                out.update(f.result())
                if f not in compiling:
                    continue
                b = compiling[f]
                for k, a in enumerate(audits):
                    if id(a) not in left:  # started already
                        continue
                    left[id(a)].discard(id(b))
                    if not left[id(a)]:  # its batches compiled: audit them (beside the rest)
                        del left[id(a)]
                        a.batches = [x for x in a.batches if x.ok]
                        if a.batches:
                            g = pool.submit(_audit, exe, lib, a, work, f"audit{k}", version)
                            auditing.append(g)
                            running.add(g)
        for b in batches:
            for n, t in b.times.items():
                if b.jobs[n].key in out:
                    out[b.jobs[n].key].seconds = t
    except BaseException:  # an interrupt: no coqc of this pass is left running or waited for
        pool.shutdown(wait=False, cancel_futures=True)
        kill_all()
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        _release(work, owner)
    for j in pending:
        o = out[j.key]
        o.vfile = str(build_dir / f"{j.lemma}.v") if build_dir is not None else None
        if o.cacheable:
            name = job_key(j, lib, version)
            _write_cached(results / f"{name}.json", record(key, "result", name, o.as_dict()))
    trim_entries(root)
    return out


def _audit_groups(batches: list[_Batch], workers: int) -> list[_Audit]:
    """The audits of a pass: every batch whose lemmas rest on CoqInterval in one, the others
    in another (one with a single worker).  An audit's cost is mostly the walk of the library
    behind its lemmas (CoqInterval's: ~6 s, the reals' alone: ~1 s), paid once per audit
    however many lemmas share it; two audits let the cheaper one run beside the costly one,
    each started as soon as its batches are compiled."""
    if workers <= 1:
        return [_Audit(list(batches))] if batches else []
    heavy = [b for b in batches if _heavy(b.needs)]
    light = [b for b in batches if not _heavy(b.needs)]
    return [_Audit(g) for g in (heavy, light) if g]


def _room(work: Path, probe: int = 1 << 16) -> Path:
    """``work`` if a file of ``probe`` bytes can be written in it (a directory is created on a
    full tmpfs, its files are not); else it is removed and the OSError raised."""
    try:
        with open(work / ".room", "wb", buffering=0) as fh:
            fh.write(b"\0" * probe)
        (work / ".room").unlink()
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work


#: the kept entries (results, and the plans of :mod:`.plans`) are trimmed to this many bytes,
#: the least recently used first: every change of peproof's code or Coq library files its
#: entries under new keys, and the old ones were never read again (141 MB of plans in a
#: developer's cache after a few weeks)
CACHE_BYTES = 256 * 2**20
ENTRY_FOLDERS = ("results", "plans")


def _used(path: Path) -> None:
    """Mark a cache entry as used now (its modification time, what :func:`trim_entries`
    orders by; a read-only cache keeps its times)."""
    try:
        os.utime(path)
    except OSError:
        pass


def trim_entries(root: Path, limit: int | None = None) -> int:
    """When the entries of ``root`` (``*.json`` in :data:`ENTRY_FOLDERS`) take more than
    ``limit`` bytes (default :data:`CACHE_BYTES`), remove the least recently used until they
    take at most three quarters of it; the number removed.  Nothing else in the folder is
    touched (the compiled library, work folders, files being written).  Another process may be
    reading an entry removed here: it has it open, or misses it and computes it again."""
    limit = CACHE_BYTES if limit is None else limit
    entries = []
    for sub in ENTRY_FOLDERS:
        try:
            with os.scandir(Path(root) / sub) as it:
                for e in it:
                    if e.name.endswith(".json") and not e.name.startswith("."):
                        try:
                            st = e.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        entries.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            continue
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return 0
    removed = 0
    for _, size, path in sorted(entries):
        if total <= 3 * limit // 4:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _read_cached(path: Path, key: bytes, name: str) -> dict | None:
    """The cached result filed under the content key ``name``, or None: absent, unreadable, or
    not a result signed with ``key`` for ``name`` (forged, edited, copied from another entry,
    signed by another user) -- then it is computed again."""
    try:
        d = signed(key, "result", name, json.loads(path.read_text()))
    except (OSError, ValueError):
        return None
    keys = {"status", "reason", "assumptions", "seconds"}
    if not isinstance(d, dict) or not keys <= d.keys() or d["status"] not in ("checked",
                                                                              "failed"):
        return None
    _used(path)
    return d


def _write_cached(path: Path, data: dict) -> None:
    """Written beside and renamed: a reader never sees half a file (a full or read-only cache
    folder: not written, the result stands for this run)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def _needed_modules(needs: frozenset) -> set[str]:
    return {"Defs", "Sem", "Check", "CheckSem", "PE", "Tactics"} | (
        {"CheckInterval", "Decay"} if "interval" in needs else set()) | (
        {"Floor"} if "floor" in needs else set()) | (
        {"Integral"} if "integral" in needs else set()) | (
        {"Round"} if "round" in needs else set()) | ({"PiIrr"} if "pi" in needs else set())


def _cost(job: Job) -> float:
    """A rough cost of one job in CPU seconds: a constant per script, plus a second per 60 KB
    of statement and script (fitted on the registry's 208 jobs of the two largest kinds: the
    400 KB + 237 KB concrete-d job takes 10.8 s, 11.1 estimated -- 20.5 by the statement
    alone, which no longer costs seconds to elaborate, :func:`some_hint`)."""
    return 0.5 + (len(job.statement) + len(job.script)) / 60000


#: estimated seconds of a kind of job below which it is not split between the workers
SPLIT_MIN = 15.0


def _make_batches(jobs: list[Job], workers: int, size: int) -> list[_Batch]:
    """Few large batches: each coqc run loads the reals (and CoqInterval) once (the audits are
    per kind of library, not per batch: :func:`_audit_groups`).
    Each kind of header (with or without CoqInterval) is cut into ``workers`` batches of about
    equal estimated cost (:func:`_cost`, largest job first into the cheapest batch; one batch
    when the kind costs less than :data:`SPLIT_MIN`), more when a batch would exceed ``size``
    jobs; the batches are returned most costly first, each counted with the audit that waits
    for it (:func:`_audit_cost`), so that the pool's workers finish together."""
    groups: dict[frozenset, list[Job]] = {}
    for j in jobs:
        groups.setdefault(j.needs, []).append(j)
    out = []
    for needs, js in groups.items():
        # a kind that costs little is one batch: a second would load the reals (and its
        # libraries) and audit again for a few seconds of scripts
        few = sum(_cost(j) for j in js) < SPLIT_MIN
        n = min(len(js), max(-(-len(js) // size), 1 if few else workers))
        bins: list[list[Job]] = [[] for _ in range(n)]
        load = [0.0] * n
        for j in sorted(js, key=_cost, reverse=True):
            k = min(range(n), key=lambda i: (load[i], len(bins[i])))
            if len(bins[k]) >= size:
                k = min((i for i in range(n) if len(bins[i]) < size), key=lambda i: load[i])
            bins[k].append(j)
            load[k] += _cost(j)
        out += [(w, _Batch(b, needs)) for w, b in zip(load, bins, strict=True) if b]
    # a batch's priority: its cost and that of the audit that waits for it (the audits are
    # by group, :func:`_audit_groups`): a small batch of the CoqInterval group goes before the
    # small batches of the other, so that its costly audit runs beside them, not after them
    tail = {heavy: _audit_cost([j for j in jobs if _heavy(j.needs) == heavy], heavy)
            for heavy in (True, False)}
    out.sort(key=lambda wb: -(wb[0] + tail[_heavy(wb[1].needs)]))
    return [b for _, b in out]


def _heavy(needs: frozenset) -> bool:
    """Do a job's lemmas rest on CoqInterval (their audit group, :func:`_audit_groups`)?"""
    return "interval" in needs


def _audit_cost(jobs: list[Job], heavy: bool) -> float:
    """A rough cost of an audit in CPU seconds: the walk of the library behind its lemmas
    (CoqInterval's: ~6 s) and the statements elaborated again, about a second per 200 KB
    (measured: 952 KB of plain statements 5.4 s, 144 KB of CoqInterval's kinds 7.7 s)."""
    return (7.0 if heavy else 1.0) + sum(len(j.statement) for j in jobs) / 200000
