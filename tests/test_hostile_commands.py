"""Hostile requests to every command, each run as a real process (harness: ``conftest.py``).

Classes: positions (exactness, negative ranges, absurd ranges), sizes (work and memory refused
with an estimate, before any allocation), output paths (``--out`` a folder, unwritable, missing
parent, a FIFO), user code (``module:function`` exiting, looping, crashing, allocating,
printing, returning junk, missing).  Every refusal is exit code 2, one line naming the problem
(and, for limits, the estimate and the flag lifting it), within seconds, under a 3 GiB
address-space limit, leaving no file behind.
"""

from __future__ import annotations

import json
import os
import textwrap

import pytest

CASES: dict[str, tuple] = {}
FIFO = "pipe.json"


def case(cls: str, name: str, fragment: str, rc: int = 2, **kw):
    def deco(make):
        CASES[f"{cls}/{name}"] = (make, fragment, rc, kw)
        return make
    return deco


def simple(cls, name, fragment, *argv, rc=2, **kw):
    case(cls, name, fragment, rc, **kw)(lambda root: list(argv))


def user_module(root, body: str, name: str = "usermod") -> None:
    (root / "work" / f"{name}.py").write_text(textwrap.dedent(body))


# ----------------------------------------------------------------------------- positions
simple("positions", "absurd vectors range", "would need about", "vectors", "--d", "8",
       "--positions", "0:10**12", "--out", "v")
simple("positions", "npy cannot hold past int64", "does not fit in int64", "vectors", "--d",
       "4", "--positions", f"{2**63}:{2**63 + 2}", "--format", "npy", "--out", "v")
simple("positions", "check positions float64 cannot hold", "not a float64 number", "check",
       "numpy.random:rand", "--d", "4", "--n", "3", "--positions", "2**53+1:2**53+4")
simple("positions", "garbage", "not an exact number", "vectors", "--d", "8", "--positions", "1:x:y",
       "--out", "v")
simple("positions", "zero step", "step must not be 0", "vectors", "--d", "8", "--positions",
       "0:5:0", "--out", "v")
simple("positions", "more positions than rows", "positions for a table", "check",
       "numpy.random:rand", "--d", "4", "--n", "3", "--positions", "0:10**9")

# ----------------------------------------------------------------------------- sizes
simple("sizes", "separation d = 10^8", "memory", "separation", "--d", "100000000")
simple("sizes", "separation N = 10^12", "--allow-large", "separation", "--d", "512",
       "--max-pos", "10**12")
simple("sizes", "horizon N = 10^12", "--max-memory", "horizon", "--d", "512", "--max-pos",
       "1000000000000")
simple("sizes", "separation huge chunk", "--max-memory", "separation", "--d", "1024",
       "--max-pos", "10**9", "--chunk", "10**9", "--allow-large")
simple("sizes", "vectors 10^7 x 512", "--allow-large", "vectors", "--d", "512", "--positions",
       "0:10**7", "--max-memory", "10T", "--out", "v")
simple("sizes", "callable asked for 10^9 rows", "--max-memory", "check", "numpy:ones", "--d",
       "512", "--n", "1000000000")
simple("sizes", "bad --max-memory", "--max-memory", "separation", "--d", "8", "--max-memory",
       "lots")

# ----------------------------------------------------------------------------- output paths
for cmd in (["check", "numpy:ones", "--d", "4"], ["prove", "rotation.sin_*"],
            ["separation", "--d", "8", "--max-pos", "100"],
            ["horizon", "--d", "8", "--max-pos", "100"]):
    simple("out", f"{cmd[0]} --out a folder", "is a directory", *cmd, "--out", ".")
simple("out", "separation --out unwritable", "cannot write", "separation", "--d", "8",
       "--max-pos", "100", "--out", "/proc/peproof.json")
simple("out", "check --out missing parent", "does not exist", "check", "numpy:ones", "--d",
       "4", "--out", "no/such/folder/r.json")
simple("out", "prove --out under a file", "not a directory", "prove", "rotation.sin_*", "--out",
       "/etc/hostname/r.json")
simple("out", "vectors --out a file", "not a directory", "vectors", "--d", "4", "--out",
       "/etc/hostname")
simple("out", "report --out a file", "not a directory", "report", "--no-pdf", "--out",
       "/etc/hostname")


@case("out", "prove --out a FIFO", "FIFO")
def _(root):
    os.mkfifo(root / "work" / FIFO)
    return ["prove", "rotation.sin_*", "--out", FIFO]


# ----------------------------------------------------------------------------- user code
def user_case(name, body, fragment, *extra, rc=2, timeout=60):
    def make(root):
        user_module(root, "import os, sys, time\nimport numpy as np\n" + body)
        return ["check", "usermod:f", "--d", "8", "--n", "16", *extra]
    case("user code", name, fragment, rc, timeout=timeout)(make)


user_case("SystemExit(0)", "def f(n, d):\n    sys.exit(0)\n", "sys.exit(0)")
user_case("os._exit(0)", "def f(n, d):\n    os._exit(0)\n", "exit status 0")
user_case("endless loop", "def f(n, d):\n    while True:\n        pass\n", "--time-limit",
          "--time-limit", "3")
user_case("segfault", "def f(n, d):\n    import ctypes\n    ctypes.string_at(0)\n", "SIGSEGV")
user_case("huge allocation", "def f(n, d):\n    return np.ones(2**28)\n", "--memory-limit",
          "--memory-limit", "1G")
user_case("returns a str", "def f(n, d):\n    return 'a table'\n", "returned str, not an array")
user_case("returns a dict", "def f(n, d):\n    return {'a': 1}\n", "not an array")
user_case("raises", "def f(n, d):\n    raise ValueError('no')\n", "ValueError: no")
user_case("raises KeyboardInterrupt", "def f(n, d):\n    raise KeyboardInterrupt\n",
          "KeyboardInterrupt")
user_case("exits while importing", "sys.exit(3)\ndef f(n, d):\n    pass\n", "sys.exit(3)")
user_case("prints and returns junk", "def f(n, d):\n    print('x' * 100)\n    return None\n",
          "not an array")
simple("user code", "module not in the current folder", "current folder", "check",
       "no_such_usermod:f", "--d", "8")
simple("user code", "bad --time-limit", "--time-limit", "check", "numpy:ones", "--d", "8",
       "--time-limit", "-1")


# ----------------------------------------------------------------------------- the tests
@pytest.fixture(scope="module", autouse=True)
def _prefetch(hostile):
    for key, (make, _, _, kw) in CASES.items():
        hostile.start(key, make, **kw)


@pytest.mark.parametrize("key", list(CASES))
def test_refused_in_one_line(hostile, key):
    _, fragment, rc, kw = CASES[key]
    r = hostile.result(key)
    hostile.refused(r, fragment, rc, seconds=kw.get("timeout", 60) * 0.9)
    assert r.max_rss < 2**30, f"{key}: peak memory {r.max_rss / 2**20:.0f} MiB"
    assert r.out == "", r.out[:200]


def _user_ok(root, body):
    user_module(root, "import numpy as np\nfrom peproof.oracle import reference\n" + body)
    return ["check", "usermod:f", "--d", "8", "--n", "16", "--json"]


def test_user_function_printing_to_stdout_does_not_corrupt_the_json(hostile):
    """Caught: the child's stdout reaching ours (the JSON envelope would not parse)."""
    make = lambda root: _user_ok(  # noqa: E731
        root, "def f(n, d):\n    print('noise')\n    return reference(n, d)\n")
    r = hostile.start("ok/prints", make).result()
    assert r.rc == 0, r.err
    assert json.loads(r.out)["verdict"]["code"] in ("conforms", "rounding")
    assert not r.stray and r.err == ""


def test_user_function_helpers_do_not_survive(hostile):
    """Caught: a process started by the user's function outliving the command."""
    body = ("import subprocess, sys\n"
            "def f(n, d):\n"
            "    p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "    open('helper.pid', 'w').write(str(p.pid))\n"
            "    return reference(n, d)\n")
    r = hostile.start("ok/helper", lambda root: _user_ok(root, body), keep=("helper.pid",))
    r = r.result()
    assert r.rc == 0, r.err
    pid = int((hostile.base / "ok_helper" / "work" / "helper.pid").read_text())
    state = None
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        pass
    assert state in (None, "Z"), f"the helper {pid} is still running ({state})"


def test_negative_positions_parse_in_both_spellings(hostile):
    """Caught: argparse reading '-5:5' as an option."""
    for key, argv in (("ok/neg spaced", ["--positions", "-5:5"]),
                      ("ok/neg glued", ["--positions=-5:5"])):
        hostile.start(key, lambda root, a=argv: ["vectors", "--d", "4", *a, "--digits", "5",
                                                 "--out", "v"], keep=_vectors_files())
    for key in ("ok/neg spaced", "ok/neg glued"):
        r = hostile.result(key)
        assert r.rc == 0, r.err
        doc = json.loads((hostile.base / key.replace("/", "_").replace(" ", "_") / "work" / "v"
                          / "vectors.json").read_text())
        assert doc["positions"] == list(range(-5, 5))


def _vectors_files():
    return ("v", "v/vectors.json", "v/manifest.json", "v/.peproof.lock")


def test_classes_and_counts():
    classes: dict[str, int] = {}
    for key in CASES:
        classes[key.split("/")[0]] = classes.get(key.split("/")[0], 0) + 1
    assert set(classes) == {"positions", "sizes", "out", "user code"}, classes
    assert min(classes.values()) >= 5, classes
