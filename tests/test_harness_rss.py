"""The hostile-input harness measures the command's own peak memory, not the test process's:
a child forked from a large process keeps that process's memory as its high-water mark on Linux
(under xdist a worker holding torch measured 690 MiB for a GGUF file refused in 1.5 s)."""

from __future__ import annotations


def test_peak_memory_is_the_commands_own(tmp_path, hostile):
    ballast = bytearray(768 * 2**20)  # this process's memory, touched so that it is resident
    for k in range(0, len(ballast), 4096):
        ballast[k] = 1
    r = hostile.run(["--version"], tmp_path)
    assert r.rc == 0 and "peproof" in r.out, r
    assert r.max_rss < 384 * 2**20, r.max_rss / 2**20
    assert r.cpu > 0
    del ballast


def test_a_command_killed_by_the_limit_is_seen(tmp_path, hostile):
    """The launcher passes on the address-space limit: a command that cannot even start under a
    tiny limit fails (a harness that dropped the limit would pass it)."""
    r = hostile.run(["--version"], tmp_path, address_space=64 * 2**20)
    assert r.rc != 0, r
