"""``module:function`` run in a child process, with a time and a memory limit.

The user's function is their own code, so the risk is not malice but everything else: it may
loop forever, call ``sys.exit(0)`` or ``os._exit``, crash the interpreter, allocate without
bound, print to stdout or return something that is not an array.  None of that may become the
command's own behaviour, so :func:`call` runs it in a fresh interpreter
(``python -m peproof.guard.child SPEC``):

* in its own session (its helpers are killed with it), stdin closed, stdout and stderr captured
  to a file that is never copied to ours (its last line goes into an error message);
* with ``RLIMIT_AS`` set to the memory limit and a wall-clock time limit enforced by the parent;
* importing from the current folder first, as ``python -m`` does, then the parent's own
  ``sys.path`` (so what the parent could import, the child can);
* returning the table as a temporary ``.npy`` (written without pickle, renamed into place only
  when complete) read back with ``allow_pickle=False``; failures come back as one JSON line.

Every outcome that is not an array becomes one :class:`InputError` line naming what happened
and, for limits, the flag that changes them.  The temporary folder is always removed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

#: seconds a call may take, imports included: importing transformers' whisper module (torch
#: behind it) took 20 s on a 2-core machine under a load of 13, 3 s idle
DEFAULT_TIME_LIMIT = 120.0


def default_memory_limit() -> int:
    """Address space of the child: half the physical memory, between 2 and 16 GiB (torch with
    transformers' whisper module peaks at about 1 GiB of address space)."""
    from peproof.guard.limits import physical_memory

    phys = physical_memory() or 2**33
    return int(min(16 * 2**30, max(2 * 2**30, phys // 2)))


def _last_line(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 4096))
            lines = [x.strip() for x in fh.read().decode("utf-8", "replace").splitlines()]
    except OSError:
        return ""
    lines = [x for x in lines if x]
    return lines[-1][:200] if lines else ""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def call(target: str, n: int, d: int, *, time_limit: float = DEFAULT_TIME_LIMIT,
         memory_limit: int | None = None):
    """``module.function(n, d)`` computed in a child process; a NumPy array, or
    :class:`peproof.oracle.common.tables.InputError` with one line."""
    import numpy as np

    from peproof.guard.limits import human_bytes
    from peproof.oracle.common.tables import InputError

    call_text = f"{target.split(':', 1)[1]}({n}, {d})"
    memory_limit = memory_limit or default_memory_limit()
    tmp = Path(tempfile.mkdtemp(prefix="peproof-call-"))
    try:
        spec = {"target": target, "n": n, "d": d, "memory": int(memory_limit),
                "cwd": os.getcwd(), "path": [p for p in sys.path if p],
                "out": str(tmp / "table.npy"), "error": str(tmp / "error.json")}
        (tmp / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        log = tmp / "output.txt"
        with open(log, "wb") as fh:
            proc = subprocess.Popen(
                [sys.executable, "-m", "peproof.guard.child", str(tmp / "spec.json")],
                stdin=subprocess.DEVNULL, stdout=fh, stderr=fh, start_new_session=True)
        try:
            rc = proc.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            proc.wait()
            raise InputError(f"{call_text} did not return within {time_limit:g} s (an endless "
                             "loop?); raise the limit with --time-limit SECONDS") from None
        finally:
            _kill_group(proc.pid)
            if proc.poll() is None:
                proc.wait()
        err = tmp / "error.json"
        if err.exists():
            try:
                msg = json.loads(err.read_text(encoding="utf-8"))["message"]
            except (OSError, ValueError, KeyError, TypeError):
                msg = f"{call_text} failed (its error report is unreadable)"
            if msg == "MEMORY":
                msg = (f"{call_text} ran out of memory (the child may use "
                       f"{human_bytes(memory_limit)}); raise it with --memory-limit SIZE")
            raise InputError(msg)
        out = tmp / "table.npy"
        if rc == 0 and out.exists():
            try:
                arr = np.load(out, allow_pickle=False)
                if (tmp / "bfloat16").exists():
                    import ml_dtypes

                    arr = arr.view(ml_dtypes.bfloat16)
                return arr
            except (ValueError, OSError) as exc:
                raise InputError(f"{call_text}: its result cannot be read back "
                                 f"({type(exc).__name__}: {exc})") from None
        tail = _last_line(log)
        tail = f"; its last output: {tail}" if tail else ""
        if rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else -rc
            hint = (f" (out of memory? the child may use {human_bytes(memory_limit)}; "
                    "--memory-limit SIZE)" if -rc in (signal.SIGKILL, signal.SIGABRT) else "")
            raise InputError(f"{call_text} crashed the Python running it: killed by {name}"
                             f"{hint}{tail}")
        raise InputError(f"{call_text} ended its process (exit status {rc}, e.g. os._exit) "
                         f"before returning a table{tail}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- the child
def _one_line(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    return s[0][:200] if s else ""


def _describe(exc: BaseException) -> str:
    line = _one_line(exc)
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


def _report(spec: dict, message: str) -> None:
    tmp = spec["error"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"message": message}, fh)
    os.replace(tmp, spec["error"])


def _import(target: str, cwd: str):
    import importlib

    mod_name, attr = target.split(":", 1)
    try:
        obj = importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        top = mod_name.split(".")[0]
        if exc.name and (exc.name == mod_name or mod_name.startswith(exc.name + ".")):
            raise _Fail(f"cannot import {mod_name}: no module named {exc.name!r} in the current "
                        f"folder ({cwd}) or the installed packages; run peproof from the folder "
                        f"holding {top}.py, or add its folder to PYTHONPATH") from None
        raise _Fail(f"cannot import {mod_name}: {_describe(exc)}") from None
    except SystemExit as exc:
        raise _Fail(f"importing {mod_name} called sys.exit({exc.code!r})") from None
    except MemoryError:
        raise _Fail("MEMORY") from None
    except BaseException as exc:  # noqa: BLE001 - importing user code: any failure is one line
        raise _Fail(f"cannot import {mod_name}: {_describe(exc)}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _Fail(f"{mod_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise _Fail(f"{target} is not callable")
    return obj


class _Fail(Exception):
    pass


def _run(spec: dict) -> None:
    import resource

    from peproof.guard.signals import die_with_parent

    die_with_parent(signal.SIGKILL)
    mem = spec["memory"]
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or mem < hard:
        resource.setrlimit(resource.RLIMIT_AS, (mem, hard))
    cwd = spec["cwd"]
    sys.path[:] = list(dict.fromkeys([cwd, *spec["path"], *sys.path]))
    fn = _import(spec["target"], cwd)
    n, d = spec["n"], spec["d"]
    call_text = f"{spec['target'].split(':', 1)[1]}({n}, {d})"
    try:
        result = fn(n, d)
    except SystemExit as exc:
        raise _Fail(f"{call_text} called sys.exit({exc.code!r}) instead of returning a "
                    "table") from None
    except MemoryError:
        raise _Fail("MEMORY") from None
    except RecursionError:
        raise _Fail(f"calling {call_text} failed: RecursionError (maximum recursion depth "
                    "exceeded)") from None
    except BaseException as exc:  # noqa: BLE001 - user code: any failure is bad input
        raise _Fail(f"calling {call_text} failed: {_describe(exc)}") from None
    import numpy as np

    from peproof.oracle.common.tables import InputError, to_numpy

    if isinstance(result, (tuple, list)) and len(result) == 2 and all(
            hasattr(x, "shape") for x in result):  # a rotary (cos, sin) pair: stacked
        import numpy as _np

        from peproof.oracle.common.tables import to_numpy as _tn

        a, b = _tn(result[0]), _tn(result[1])
        if a.shape == b.shape and a.dtype == b.dtype:
            result = _np.stack([a, b])
    if result is None or isinstance(result, (str, bytes, dict, int, float, complex)):
        raise _Fail(f"{call_text} returned {type(result).__name__}, not an array")
    try:
        arr = to_numpy(result)
    except InputError as exc:
        raise _Fail(f"{call_text} returned {type(result).__name__}, not an array "
                    f"({_one_line(exc)})") from None
    if arr.dtype.kind not in "biufc" and arr.dtype.name != "bfloat16":
        raise _Fail(f"{call_text} returned an array of {arr.dtype}, not of numbers")
    if arr.dtype.name == "bfloat16":  # not a NumPy dtype: sent as its bits, flagged beside
        arr = arr.view(np.uint16)
        Path(spec["out"]).with_name("bfloat16").touch()
    tmp = spec["out"] + ".tmp.npy"
    with open(tmp, "wb") as fh:
        np.save(fh, np.ascontiguousarray(arr), allow_pickle=False)
    os.replace(tmp, spec["out"])


def main(spec_path: str) -> None:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    try:
        _run(spec)
    except _Fail as exc:
        _report(spec, str(exc))
    except MemoryError:
        _report(spec, "MEMORY")
    except BaseException as exc:  # noqa: BLE001 - e.g. KeyboardInterrupt raised by user code
        _report(spec, f"calling {spec['target']} failed: {_describe(exc)}")
    sys.stdout.flush()
    os._exit(0)  # the user's atexit handlers and threads do not decide how the child ends


if __name__ == "__main__":
    main(sys.argv[1])
