"""The report generator ships with the package: from a wheel, ``peproof report --out DIR`` works
in any folder, outside the source checkout (the extra ``peproof[report]`` brings its
dependencies; here they come from the test environment)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                        "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {p.stderr.strip()[-200:]}")
    return next(out.glob("peproof-*.whl"))


def test_the_wheel_carries_the_generator_and_its_templates(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "peproof_report/build.py" in names
    assert {"peproof_report/templates/report.tex.j2", "peproof_report/templates/record.tex.j2",
            "peproof_report/templates/claim.tex.j2"} <= set(names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    assert b"Provides-Extra: report" in meta


@pytest.mark.timeout(600)
def test_report_runs_from_the_installed_package_in_another_folder(wheel, tmp_path):
    """Installed from the wheel (no checkout beside it), run in an unrelated folder: the .tex
    goes to ./peproof-report, and the package imported is the installed one."""
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(site), str(wheel)], check=True, timeout=300)
    work = tmp_path / "elsewhere"
    work.mkdir()
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import peproof, peproof_report\n"
        "assert peproof.__file__.startswith(sys.argv[1]), peproof.__file__\n"
        "assert peproof_report.__file__.startswith(sys.argv[1]), peproof_report.__file__\n"
        "from peproof.cli import main\n"
        "sys.exit(main(['report', 'rotation.sin_angle_addition', '--numerics', 'none',\n"
        "               '--no-peers', '--no-pdf', '--workers', '1']))\n"
    )
    p = subprocess.run([sys.executable, "-c", script, str(site)], cwd=work, capture_output=True,
                       text=True, timeout=500)
    assert p.returncode == 0, p.stdout + p.stderr
    tex = work / "peproof-report" / "peproof-report.tex"
    assert tex.is_file(), p.stdout
    assert "installed package" in tex.read_text()
    assert not (ROOT / "reports" / "build" / "fig-none").exists()
    shutil.rmtree(site)
