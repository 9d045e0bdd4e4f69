"""The engine from the command line: Ctrl-C and resume, the progress bar (shown on a terminal,
quiet under --json or without one), and bad engine flags (--scheduler: test_longctx_engine)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest

from peproof.cli import main
from peproof.numeric.engine import RunConfig
from peproof.numeric.separation import certify

CODE = "import sys; from peproof.cli import main; sys.exit(main(sys.argv[1:]))"
# 100 chunks of 2^13 offsets at d = 512: about a second inline
D, CHUNK, N = 512, 1 << 13, 100 * (1 << 13) + 1
SCAN = ["separation", "--d", str(D), "--max-pos", str(N), "--chunk", str(CHUNK),
        "--engine", "pool", "--workers", "2", "--no-confirm", "--json"]


def test_sigint_leaves_a_resumable_checkpoint(tmp_path):
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group, pool workers too."""
    ck = tmp_path / "ck"
    proc = subprocess.Popen([sys.executable, "-c", CODE, *SCAN, "--checkpoint", str(ck)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not list(ck.glob("*/chunk-*.json")) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert len(err.strip().splitlines()) == 1 and "resume" in err and "Traceback" not in err
    assert out == ""  # no half result
    files = list(ck.glob("*/chunk-*.json"))
    assert 0 < len(files) < 100
    for f in files:  # every saved chunk is whole
        assert json.loads(f.read_text())["result"]["b"] > 0
    assert not list(ck.glob("*/.*.tmp"))
    r = subprocess.run([sys.executable, "-c", CODE, *SCAN, "--checkpoint", str(ck)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["results"][0]["separation"]
    assert got["run"]["resumed"] == len(files) and got["run"]["computed"] == 100 - len(files)
    want = certify(D, N, chunk=CHUNK, run=RunConfig(engine="inline")).as_dict()  # uninterrupted
    for key in want:
        if key not in ("seconds", "run"):
            assert json.loads(json.dumps(want[key])) == got[key], key
    assert not list(ck.glob("*/chunk-*.json"))  # cleaned after the finished run


def _run_on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal; returns (code, stdout, terminal text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 24 x 120
    proc = subprocess.Popen([sys.executable, "-c", CODE, *args], stdout=subprocess.PIPE,
                            stderr=slave, text=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    out = proc.stdout.read()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


BAR = ["separation", "--d", "256", "--max-pos", "1e6", "--chunk", "65536", "--engine", "inline",
       "--no-confirm"]


def test_progress_bar_on_a_terminal():
    code, out, tty = _run_on_a_terminal(BAR)
    assert code == 0, tty
    assert "chunks" in tty and "offsets/s" in tty and "left" in tty, tty
    assert "/16 chunks" in tty  # 1e6 - 1 offsets in chunks of 65536


def test_progress_is_quiet_under_json_or_without_a_terminal():
    code, out, tty = _run_on_a_terminal([*BAR, "--json"])
    assert code == 0 and json.loads(out)["results"]
    assert "chunks" not in tty and "offsets/s" not in tty, tty
    r = subprocess.run([sys.executable, "-c", CODE, *BAR], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "engine: inline" in r.stdout


@pytest.mark.parametrize("args,match", [
    (["--scheduler", "not an address"], "--scheduler must be"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--engine", "pool"], "cannot be combined"),
    (["--engine", "spark"], "invalid choice"),
    (["--workers", "0"], "--workers must be"),
])
def test_bad_engine_flags(args, match, tmp_path, capsys):
    out = tmp_path / "never.json"
    assert main(["separation", "--d", "8", "--max-pos", "100", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_checkpoint_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["separation", "--d", "8", "--max-pos", "100", "--checkpoint", str(f)]) == 2
    assert "--checkpoint must be a folder" in capsys.readouterr().err
