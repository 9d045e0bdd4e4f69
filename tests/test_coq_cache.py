"""The Coq result cache is authenticated (issue 23, item 5): an entry counts only when it carries
an HMAC, under the caller's key, of its content key and its result.  A forged entry, one copied
under another content key, an edited one, one signed with another user's key: each is a miss,
computed again, never ``checked``.  And ``prove --recheck`` / ``report --fresh`` ignore the cache.

On the previous run.py (entries read on their word) rewriting a failed entry as a checked one
made it checked; the tests below fail on it and on a ``signed`` that skips the HMAC comparison.
"""

from __future__ import annotations

import json

import pytest

from peproof.kernel.coq import check, run

HAVE_COQ = run.coqc() is not None and run.coq_version() is not None
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc not installed (make coq installs it)")

KEY = b"k" * 32
OTHER = b"o" * 32  # another user's key
NAME = "a" * 64
RESULT = {"status": "failed", "reason": "the proof script did not close the goal",
          "assumptions": [], "coq_version": "8.16.1", "seconds": 0.1, "cached": False,
          "vfile": None, "print_assumptions": "", "scope": ""}


def _write(tmp_path, name, entry) -> object:
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(entry))
    return p


def test_a_signed_entry_is_read_back(tmp_path):
    p = _write(tmp_path, NAME, run.record(KEY, "result", NAME, RESULT))
    assert run._read_cached(p, KEY, NAME) == RESULT


def _forgeries():
    good = run.record(KEY, "result", NAME, RESULT)
    checked = dict(RESULT, status="checked", reason="")
    edited = dict(good, data=checked)  # the result rewritten, the MAC kept
    resigned_other = run.record(OTHER, "result", NAME, checked)  # another user's key
    copied = run.record(KEY, "result", "b" * 64, checked)  # a checked entry of another job
    renamed = dict(copied, name=NAME)  # ... with its name field rewritten too
    unsigned = checked  # the previous format: the result alone
    no_mac = {k: v for k, v in run.record(KEY, "result", NAME, checked).items() if k != "mac"}
    wrong_kind = run.record(KEY, "library", NAME, checked)
    return {"edited": edited, "other user's key": resigned_other, "copied": copied,
            "copied and renamed": renamed, "unsigned": unsigned, "no mac": no_mac,
            "a library record": wrong_kind, "mac not a string": dict(good, mac=None)}


@pytest.mark.parametrize("what", list(_forgeries()))
def test_a_forged_copied_or_edited_entry_is_a_miss(tmp_path, what):
    p = _write(tmp_path, NAME, _forgeries()[what])
    assert run._read_cached(p, KEY, NAME) is None


def test_an_entry_is_only_good_under_its_own_key_and_name(tmp_path):
    p = _write(tmp_path, NAME, run.record(KEY, "result", NAME, RESULT))
    assert run._read_cached(p, OTHER, NAME) is None
    assert run._read_cached(p, KEY, "b" * 64) is None


def test_a_signed_entry_with_an_unknown_status_is_a_miss(tmp_path):
    p = _write(tmp_path, NAME, run.record(KEY, "result", NAME, dict(RESULT, status="absent")))
    assert run._read_cached(p, KEY, NAME) is None


# -- end to end, with coqc -------------------------------------------------------------------

def _job(key, goal, script="lra"):
    return run.Job(key, key, goal, script)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One cache folder per module: the library compiles once; each test starts without
    results."""
    return tmp_path_factory.mktemp("coqcache")


@pytest.fixture
def fresh(cache):
    import shutil

    shutil.rmtree(cache / "results", ignore_errors=True)
    return cache


def _entries(cache):
    return {json.loads(p.read_text())["data"]["status"]: p
            for p in (cache / "results").glob("*.json")}


@needs_coq
def test_forged_entries_never_make_a_failed_job_checked(fresh, tmp_path):
    """A checked and a failed job, cached under the user's key; then the failed job's entry is
    (1) edited to say checked, (2) replaced by a copy of the checked job's entry, (3) re-signed
    as checked with another user's key: each time the next run computes it again and says
    failed.  Kills a ``signed`` that does not compare the MAC (then 'checked')."""
    jobs = [_job("good", "1 + 1 = 2"), _job("bad", "1 + 1 = 3")]
    first = run.check_jobs(jobs, cache_dir=fresh, key=KEY)
    assert first["good"].status == "checked" and first["bad"].status == "failed"
    ents = _entries(fresh)
    good, bad = ents["checked"], ents["failed"]
    original = json.loads(bad.read_text())
    forged = [
        dict(original, data=dict(original["data"], status="checked", reason="")),
        dict(json.loads(good.read_text()), name=original["name"]),
        run.record(OTHER, "result", original["name"],
                   dict(original["data"], status="checked", reason="")),
    ]
    for entry in forged:
        bad.write_text(json.dumps(entry))
        again = run.check_jobs(jobs, cache_dir=fresh, key=KEY)
        assert again["good"].cached and again["good"].status == "checked"
        assert not again["bad"].cached and again["bad"].status == "failed", entry
    # what another user's run wrote is not read by this user's (in a copy of the folder: the
    # other user's library, compiled there, leaves this module's intact for the next tests)
    import shutil

    shutil.copytree(fresh, tmp_path / "copy")
    other = run.check_jobs(jobs, cache_dir=tmp_path / "copy", key=OTHER)
    assert not any(o.cached for o in other.values())
    assert {k: o.status for k, o in other.items()} == {"good": "checked", "bad": "failed"}


@needs_coq
def test_recheck_ignores_even_a_sound_cache(fresh):
    jobs = [_job("good", "1 + 1 = 2")]
    run.check_jobs(jobs, cache_dir=fresh, key=KEY)
    assert run.check_jobs(jobs, cache_dir=fresh, key=KEY)["good"].cached
    again = run.check_jobs(jobs, cache_dir=fresh, key=KEY, use_cache=False)
    assert not again["good"].cached and again["good"].status == "checked"


def test_check_claims_passes_recheck_and_the_key_down(monkeypatch):
    seen = {}

    def fake(jobs, **kw):
        seen.update(kw)
        return {j.key: run.Outcome("absent", "coq not installed") for j in jobs}

    from peproof import registry

    monkeypatch.setattr(run, "check_jobs", fake)
    check.check_claims([registry.get("rotation.sin_angle_addition")], use_cache=False, key=KEY)
    assert seen["use_cache"] is False and seen["key"] == KEY


def test_prove_recheck_reaches_the_coq_pass(monkeypatch, capsys):
    """``peproof prove --recheck`` asks the Coq pass not to read the cache, with the user's
    key (``--no-coq`` stays without a pass)."""
    from peproof import cli, results

    seen = []

    def fake(rows, claims, coq_dir=None, recheck=False):
        seen.append(recheck)
        return {"seconds": 0.0}

    monkeypatch.setattr(results, "add_coq", fake)
    assert cli.main(["prove", "index.pair_channels_in_range", "--no-falsifiers",
                     "--recheck", "--json"]) == 0
    assert cli.main(["prove", "index.pair_channels_in_range", "--no-falsifiers",
                     "--json"]) == 0
    assert seen == [True, False]



@pytest.mark.parametrize("rc,text,fault", [
    (-9, "", "coqc was killed by signal 9 (SIGKILL)"),
    (137, "", "coqc was killed by signal 9 (SIGKILL)"),
    (-15, "", "coqc was killed by signal 15 (SIGTERM)"),
    (1, 'File "x.v", line 3, characters 0-5:\nError: No space left on device', "No space left"),
    (1, "Error: Out of memory", "Out of memory"),
    (1, 'File "x.v", line 3, characters 0-5:\nError: Unable to unify', None),
    (0, "No space left on device", None),
])
def test_a_fault_of_the_machine_is_told_from_a_failure_of_the_input(rc, text, fault):
    """What the runner never caches: coqc killed (a negative code, or 128 + N through a shell
    wrapper) or stopped by the machine; a Coq error is the job's own result."""
    got = run.output_fault(rc, text)
    assert (got is None) == (fault is None) and (fault is None or fault in got), got


@needs_coq
def test_a_script_out_of_time_is_not_cached(fresh, monkeypatch):
    """Out of its wall-clock time says as much about the machine's load as about the script:
    the next run tries again (on the previous run.py the time-out was cached, and a loaded
    machine's time-outs stayed 'not checked' until the cache was cleared)."""
    monkeypatch.setattr(run, "JOB_TIMEOUT", 1)
    jobs = [_job("loops", "1 + 1 = 2", script="do 1000000000 idtac")]
    for _ in range(2):
        out = run.check_jobs(jobs, cache_dir=fresh, key=KEY, workers=1)["loops"]
        assert out.status == "failed" and "ran out of time" in out.reason and not out.cached
    assert not list((fresh / "results").glob("*.json"))
