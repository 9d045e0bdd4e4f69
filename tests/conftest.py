"""``pytest proofs``: one test per claim, test id = claim id."""

import os
import sys

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# pytest's rewritten test modules are kept in __pycache__ even where PYTHONDONTWRITEBYTECODE
# is set (our CI machines set it): otherwise every process that collects -- each xdist worker,
# each pytest a test starts -- rewrites all of them again (collection of the three suites
# 10.2 s -> 7.2 s of CPU).  The Makefile's BYTECODE step compiles the project's own modules
# for the same reason.
sys.dont_write_bytecode = False


# ----------------------------------------------------------------------------- hostile input
# The harness of tests/test_hostile_*.py: a command run as a real ``peproof`` process under an
# address-space limit and a timeout, with its own TMPDIR and working folder, so that the exit
# code, the one-line message, the time, the peak memory and any stray file are all observed.
# Cases are started in the background two at a time (the machine has 2 cores) as soon as a
# module asks for them; each test waits for its own.

import json  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

HOSTILE_AS = 3 * 2**30  # address space of a command under test (the user code child: less)


@dataclass
class Ran:
    rc: int
    out: str
    err: str
    seconds: float
    max_rss: int  # bytes
    cpu: float  # user + system seconds
    stray: list = field(default_factory=list)  # files left in TMPDIR or the working folder


def _files(folder: Path) -> set:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


#: runs ``argv[3:]`` under an address-space limit of ``argv[1]`` bytes, writes the child's peak
#: RSS (KiB) and CPU seconds to ``argv[2]`` and ends as the child ended (its code or signal)
_LAUNCHER = """
import json, os, resource, signal, sys
limit, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.execv(argv[0], argv)
_, status, u = os.wait4(pid, 0)
with open(out, "w") as f:
    json.dump([u.ru_maxrss, u.ru_utime + u.ru_stime], f)
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_hostile(argv, root: Path, *, timeout=60.0, address_space=HOSTILE_AS, env=None,
                keep=()) -> Ran:
    """``python -m peproof.cli *argv`` in ``root/work`` with TMPDIR ``root/tmp``; ``keep``
    names files the command is meant to create (anything else new is a stray)."""
    work, tmp = root / "work", root / "tmp"
    work.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(exist_ok=True)
    before = _files(work)

    full_env = {**os.environ, "TMPDIR": str(tmp), "OPENBLAS_NUM_THREADS": "1",
                "OMP_NUM_THREADS": "1", **(env or {})}
    full_env.pop("PEPROOF_TRACEBACK", None)
    usage_file = root / "usage.json"
    usage_file.unlink(missing_ok=True)
    with open(root / "stdout", "w+b") as so, open(root / "stderr", "w+b") as se:
        t0 = time.perf_counter()
        # started by a small launcher: a child forked from this (large) test process would count
        # this process's memory in its peak (Linux keeps the pre-exec high-water mark)
        proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, str(address_space),
                                 str(usage_file), sys.executable, "-m", "peproof.cli",
                                 *map(str, argv)],
                                cwd=work, env=full_env, stdin=subprocess.DEVNULL, stdout=so,
                                stderr=se, start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything it left running
        except OSError:
            pass
        so.seek(0)
        se.seek(0)
        out, err = so.read().decode(errors="replace"), se.read().decode(errors="replace")
    try:  # the command's own figures, as its launcher measured them
        max_rss_kib, cpu = json.loads(usage_file.read_text())
    except (OSError, ValueError):  # the launcher was killed with it: the launcher's figures
        max_rss_kib, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    usage_file.unlink(missing_ok=True)
    stray = sorted((_files(work) - before - set(keep)) | {f"TMPDIR/{f}" for f in _files(tmp)})
    return Ran(proc.returncode, out, err, seconds, max_rss_kib * 1024, cpu, stray)


class HostileRunner:
    """Starts cases in the background (two at a time) and hands back their results.

    ``start(key, make, **kw)``: ``make(root)`` builds the case's files under ``root`` and
    returns its argv; ``result(key)`` waits for it.  ``run`` is :func:`run_hostile`.
    """

    run = staticmethod(run_hostile)

    def __init__(self, base: Path):
        self.base = base
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.futures: dict = {}

    def _case(self, key, make, kw):
        root = self.base / key.replace("/", "_").replace(" ", "_")
        root.mkdir(parents=True, exist_ok=True)
        (root / "work").mkdir(exist_ok=True)
        return run_hostile(make(root), root, **kw)

    def start(self, key: str, make, **kw):
        if key not in self.futures:
            self.futures[key] = self.pool.submit(self._case, key, make, kw)
        return self.futures[key]

    def result(self, key: str) -> Ran:
        return self.futures[key].result()

    @staticmethod
    def refused(r: Ran, fragment: str = "", rc: int = 2, seconds: float = 20.0) -> str:
        """Exit code ``rc``, exactly one line on stderr starting ``peproof:`` and holding
        ``fragment``, no traceback, no stray file, within ``seconds``; returns the line."""
        lines = r.err.strip().splitlines()
        assert r.rc == rc, (r.rc, r.err[-2000:])
        assert "Traceback" not in r.err and len(lines) == 1, r.err[-2000:]
        assert lines[0].startswith("peproof: "), lines
        assert fragment.lower() in lines[0].lower(), (fragment, lines[0])
        assert r.seconds < seconds, (r.seconds, lines[0])
        assert not r.stray, r.stray
        return lines[0]


@pytest.fixture(scope="session")
def hostile(tmp_path_factory):
    runner = HostileRunner(tmp_path_factory.mktemp("hostile"))
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


# ----------------------------------------------------------------------------- engine conflicts
@pytest.fixture
def engine_conflicts_fail(monkeypatch):
    """Any engine conflict (an engine's verdict met by the falsification gate with a certified
    point against it) fails the test at once.  The engines' own tests use it: the gate turns a
    lying engine's ``proved`` into ``unknown``, which a test asserting "not proved" would
    accept -- here the lie itself is the failure (and a mutant that makes an engine lie is
    killed, not masked by the gate)."""
    from peproof.kernel import falsify

    real = falsify.gate

    def strict(stmt, verdict, **kwargs):
        out = real(stmt, verdict, **kwargs)
        if out.conflict:
            raise AssertionError(f"engine conflict (an engine lied): {out.reason}")
        return out

    monkeypatch.setattr(falsify, "gate", strict)


# ----------------------------------------------------------------------------- parallel runs
# ``make test`` runs the suites on pytest-xdist workers (``-n auto --dist loadfile``).  Every
# test must be safe beside the others -- the rules (tests/test_xdist_rules.py checks the
# first three in the sources):
#   1. write only under ``tmp_path`` / ``tmp_path_factory`` (never a fixed /tmp path, never the
#      tree: not reports/build, not a file beside the test; ``prove``'s .v files go to the
#      worker's ``$PEPROOF_COQ_BUILD``, set below);
#   2. no fixed TCP port (bind port 0) and no fixed name in a shared folder (a lock, a socket);
#   3. a subprocess gets its own working folder and TMPDIR when it may leave files;
#   4. never rely on test order or on another module's fixture having run; a module-scoped
#      fixture is built once per worker that runs the module (the whole module with loadfile);
#   5. module-level state (caches, monkeypatches without the fixture) must not leak: use
#      ``monkeypatch``, which undoes itself;
#   6. shared caches (the Coq cache in ``$PEPROOF_COQ_CACHE``) are written atomically; the
#      compiled Coq library is built once -- the fixture below makes a second worker wait for
#      the first's build instead of compiling it again beside it.
@pytest.fixture(scope="session", autouse=True)
def _coq_build_per_worker(tmp_path_factory):
    """``peproof prove`` (in-process or a subprocess) writes its ``.v`` files into this
    worker's own folder (``$PEPROOF_COQ_BUILD``), never the checkout's reports/build/coq where
    two workers would write the same files."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PEPROOF_COQ_BUILD", str(tmp_path_factory.mktemp("coq-build")))
        yield


@pytest.fixture(scope="session", autouse=True)
def _coq_library_built_once(tmp_path_factory):
    """The compiled Coq library, built once per run and library (the sources' hash) by the real
    :func:`peproof.kernel.coq.run.build_library`, then copied into every other cache folder a
    test builds it in: the copy's record is signed with that caller's key, and the real
    function then loads it as it loads any library -- its signature and every compiled file's
    hash checked.  A build is serialised across the xdist workers of this run (an ``flock`` in
    the run's shared temporary folder): the second worker waits and then finds it built.

    Not copied (compiled as before): a build with another ``coqc`` than the installed one (a
    test's wrapper: a fault or a count), a folder whose library is already there (damaged or
    another key's: the real function decides), the tests marked ``coq_compiles``, and every
    test with ``PEPROOF_TEST_LIBRARY_COPY=0`` (to measure what the copies save)."""
    import fcntl
    import functools
    import hashlib
    import shutil

    try:
        from peproof.kernel.coq import run
    except ImportError:  # a tree without the Coq runner
        yield
        return
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    real = run.build_library
    installed = shutil.which("coqc")

    def locked(name: str):
        fd = os.open(shared / f"coq-library-{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def template(exe, version, lh):
        """The run's compiled library for ``lh`` and the key its record is signed with, built
        on first use."""
        folder = shared / f"coq-library-template-{lh[:20]}"
        fd = locked("template-" + lh[:20])
        try:
            key_file = shared / "coq-library-template.key"
            if not key_file.exists():
                key_file.write_bytes(os.urandom(32))
            key = key_file.read_bytes()
            lib = real(exe, version, folder, key)
            if lib.path is None or lib.fault:
                return None
            return lib.path, key
        finally:
            os.close(fd)

    def seed(exe, version, root, key) -> None:
        lh = run.library_hash(version)
        dest = run.library_dir(root, lh, key or run._PROCESS_KEY)
        if _SEED_OFF or os.environ.get("PEPROOF_TEST_LIBRARY_COPY") == "0" or dest.exists() \
                or not installed or \
                Path(exe).resolve() != Path(installed).resolve():
            return
        made = template(exe, version, lh)
        if made is None:
            return
        src, template_key = made
        Path(root).mkdir(parents=True, exist_ok=True)
        tmp = Path(root) / f".seed-{os.getpid()}-{dest.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            resign_library(src, tmp, lh, template_key, key or run._PROCESS_KEY)
        except ValueError:  # the template's record does not read back: the real build
            shutil.rmtree(tmp, ignore_errors=True)
            return
        try:
            tmp.rename(dest)
        except OSError:  # built meanwhile: the real function reads theirs
            shutil.rmtree(tmp, ignore_errors=True)

    @functools.wraps(real)
    def build_library(exe, version, root, key=None, *args, **kwargs):
        name = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
        try:
            fd = locked(name)
        except OSError:
            return real(exe, version, root, key, *args, **kwargs)
        try:
            try:
                seed(exe, version, root, key)
            except OSError:  # a read-only or full folder: the real function meets it
                pass
            return real(exe, version, root, key, *args, **kwargs)
        finally:
            os.close(fd)

    run.build_library = build_library
    yield
    run.build_library = real


_SEED_OFF = False


def resign_library(src: Path, dest: Path, name: str, src_key: bytes, key: bytes) -> None:
    """The compiled library ``name`` (its hash) in ``src``, its record signed with ``src_key``,
    copied to ``dest`` with its record signed with ``key``: what a build under that key would
    have left (the real loader still checks the signature and every compiled file's hash).
    ValueError when the record is not that library's under ``src_key``."""
    from peproof.kernel.coq import run

    meta = run.signed(src_key, "library", name, json.loads((src / "built.json").read_text()))
    if not isinstance(meta, dict):
        raise ValueError(f"the library record in {src} does not read back")
    shutil.copytree(src, dest)
    (dest / "built.json").write_text(json.dumps(run.record(key, "library", name, meta)))


@pytest.fixture(scope="session")
def resign_coq_library():
    """:func:`resign_library`, for test modules (a conftest is not imported by name)."""
    return resign_library


@pytest.fixture(scope="session")
def coq_library(tmp_path_factory, _coq_library_built_once):
    """The folder of this run's compiled Coq library (``run.build_library``: built once per run,
    copied here), or None without Coq.  ``library.audit(..., compiled=)`` starts from it."""
    from peproof.kernel.coq import run

    exe = run.coqc()
    version = run.coq_version(exe) if exe else None
    if not exe or not version:
        return None
    lib = run.build_library(exe, version, tmp_path_factory.mktemp("coq-library"))
    return lib.path if not lib.fault and not lib.errors else None


@pytest.fixture(autouse=True)
def _coq_compiles(request):
    """``@pytest.mark.coq_compiles``: this test's libraries are compiled, not copied."""
    global _SEED_OFF
    if request.node.get_closest_marker("coq_compiles") is None:
        yield
        return
    _SEED_OFF = True
    try:
        yield
    finally:
        _SEED_OFF = False


# ----------------------------------------------------------------------------- Coq shape batches
@pytest.fixture(scope="session")
def coq_worker_cache(tmp_path_factory):
    """One Coq result cache per worker, shared by the Coq test modules that take it: the
    compiled library is built once per worker, not per module (a result is reused only for the
    same statement, script and library: what the cache keys on)."""
    return tmp_path_factory.mktemp("coqworker")


@pytest.fixture(scope="session")
def coq_shapes(coq_worker_cache):
    """``run(tmp_path_factory, cases, registry_ids=(), kind="identity", verdicts=None)``: one
    ``check_claims`` call (one library build, one batch) for the script-shape cases
    ``{key: (statement, checked?)}`` of tests/test_coq_scripts.py, test_coq_ineq.py and
    test_coq_error_bounds.py, plus the registry claims ``registry_ids``; ``{key: CoqResult}``.
    ``cache_dir``: another cache; by default the worker's (``coq_worker_cache``)."""
    def run(tmp_path_factory, cases, registry_ids=(), kind="identity", verdicts=None,
            cache_dir=None):
        from peproof import registry
        from peproof.claims import Claim, Source
        from peproof.kernel.coq import check

        stmts = {key: st for key, (st, _) in cases.items()}
        stmts |= {cid: registry.get(cid).statement for cid in registry_ids}
        claims = [Claim(key, "test", Source("test", "test", "test"), st, kind)
                  for key, st in stmts.items()]
        return check.check_claims(claims, verdicts or {},
                                  cache_dir=cache_dir or coq_worker_cache)
    return run


# ----------------------------------------------------------------------------- references
def _llama31_thetas(d: int) -> list:
    """Llama 3.1's rope frequencies (base 500000, factor 8, low / high frequency factors 1 / 4,
    original context 8192) written out here from Meta's reference code, in mpmath at the
    caller's precision: the tests' own evaluation, independent of peproof's map."""
    import mpmath

    out = []
    for j in range(d // 2):
        t = mpmath.mpf(500000) ** (-mpmath.mpf(2 * j) / d)
        lam = 2 * mpmath.pi / t
        if lam < 8192 / 4:
            out.append(t)
        elif lam > 8192 / 1:
            out.append(t / 8)
        else:
            g = (8192 / lam - 1) / (4 - 1)
            out.append((1 - g) * t / 8 + g * t)
    return out


@pytest.fixture
def llama31_thetas():
    """``f(d)``: Llama 3.1's frequencies for width ``d`` (:func:`_llama31_thetas`)."""
    return _llama31_thetas
