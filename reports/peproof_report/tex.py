"""Compile the ``.tex`` with pdflatex (passes until the auxiliary files settle), reproducibly.

The compile runs in ``<build>/tex-<name>/`` (auxiliary files stay there between builds) and the
PDF is moved into place only when the compile succeeded, so a failed compile never leaves a
half-written or stale PDF.  A document whose ``.tex``, figures and date are byte for byte those of
its last successful compile is not compiled again (the PDF would be the same bytes).  Several
documents compile side by side (:func:`compile_many`).  ``SOURCE_DATE_EPOCH`` (the commit time
unless set) and ``FORCE_SOURCE_DATE=1`` make the PDF's dates and identifier fixed: two builds of
one commit give the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

#: Debian packages the report needs (the Makefile's set-up installs them)
DEBIAN_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended",
                   "texlive-fonts-recommended", "texlive-pictures", "latexmk")
INSTALL_HINT = "apt-get install " + " ".join(DEBIAN_PACKAGES)


@dataclass
class TexResult:
    pdf: Path | None
    message: str
    pages: int | None = None
    log_tail: str = ""
    missing: bool = False  # TeX is not installed (not a failure of the document)
    killed: bool = False  # TeX was killed by a signal (a fault of the machine, not the document)


def _signal_name(num: int) -> str:
    import signal

    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def find_tex() -> tuple[str | None, str | None]:
    """Paths of latexmk and pdflatex (either may be None)."""
    return shutil.which("latexmk"), shutil.which("pdflatex")


def _env(epoch: int | None) -> dict:
    env = dict(os.environ)
    if epoch is not None and not env.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        env["SOURCE_DATE_EPOCH"] = str(epoch)
    if env.get("SOURCE_DATE_EPOCH"):
        env["FORCE_SOURCE_DATE"] = "1"
    env.setdefault("TEXINTERACTION", "nonstopmode")
    return env


def _first_error(log: str) -> str:
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("!") or re.match(r".*:\d+: ", line):
            return " | ".join(x.strip() for x in lines[i:i + 3] if x.strip())[:300]
    return "see the log"


def page_count(pdf: Path) -> int | None:
    """Pages of ``pdf`` (pypdf, else poppler's pdfinfo; None if neither is available)."""
    try:
        from pypdf import PdfReader

        return len(PdfReader(str(pdf)).pages)
    except ImportError:
        pass
    tool = shutil.which("pdfinfo")
    if tool:
        out = subprocess.run([tool, str(pdf)], capture_output=True, text=True, timeout=60)
        m = re.search(r"^Pages:\s+(\d+)", out.stdout, re.M)
        if m:
            return int(m.group(1))
    return None


def compile_pdf(tex_path: Path, pdf_path: Path, epoch: int | None = None,
                timeout: int = 300) -> TexResult:
    _, pdflatex = find_tex()
    if not pdflatex:
        pdf_path.unlink(missing_ok=True)
        return TexResult(None, f"TeX not found: wrote {tex_path}; to build the PDF install "
                               f"TeX ({INSTALL_HINT}) and run the command again", missing=True)
    work = tex_path.parent / f"tex-{tex_path.stem}"
    work.mkdir(exist_ok=True)
    figs = sorted(tex_path.parent.glob("fig-*.pdf"))
    digest = _digest(tex_path, figs, epoch)
    stamp = work / "last-compile.sha256"
    if pdf_path.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return TexResult(pdf_path, f"wrote {pdf_path} (unchanged)", pages=page_count(pdf_path))
    stamp.unlink(missing_ok=True)
    src = work / tex_path.name
    shutil.copyfile(tex_path, src)
    for fig in figs:
        shutil.copyfile(fig, work / fig.name)
    env = _env(epoch)
    flags = ["-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
    # pdflatex until the auxiliary files stop changing (at most MAX_PASSES): the same inputs
    # give the same sequence of passes, so the same bytes, even for a document whose page
    # references oscillate (latexmk's rerun decisions also read file times)
    cmd = [pdflatex, *flags, src.name]
    out_pdf = work / (src.stem + ".pdf")
    for _ in range(MAX_PASSES):
        before = _aux_state(work, src.stem)
        try:
            p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            pdf_path.unlink(missing_ok=True)
            return TexResult(None, f"TeX took longer than {timeout} s; the .tex is {tex_path}")
        if p.returncode < 0:  # killed (the out-of-memory killer, an operator): no document
            pdf_path.unlink(missing_ok=True)
            out_pdf.unlink(missing_ok=True)
            return TexResult(None, f"TeX ({Path(pdflatex).name}) was killed by "
                                   f"{_signal_name(-p.returncode)}", killed=True)
        if p.returncode != 0:
            log_file = work / (src.stem + ".log")
            log = log_file.read_text(errors="replace") if log_file.is_file() else p.stdout
            pdf_path.unlink(missing_ok=True)
            out_pdf.unlink(missing_ok=True)
            return TexResult(None, f"TeX failed ({_first_error(log)}); the .tex is {tex_path}, "
                                   f"the log {log_file}", log_tail=log[-3000:])
        if _aux_state(work, src.stem) == before:
            break
    tmp = pdf_path.with_suffix(".pdf.tmp")
    shutil.copyfile(out_pdf, tmp)
    os.replace(tmp, pdf_path)
    stamp.write_text(digest)
    return TexResult(pdf_path, f"wrote {pdf_path}", pages=page_count(pdf_path))


MAX_PASSES = 5
_AUX = (".aux", ".toc", ".out", ".lof", ".lot")


def _aux_state(work: Path, stem: str) -> tuple:
    """The contents of the files a pass reads back (labels, contents, bookmarks)."""
    return tuple(hashlib.sha256(f.read_bytes()).hexdigest() if f.is_file() else None
                 for f in (work / (stem + ext) for ext in _AUX))


def _digest(tex_path: Path, figs: list[Path], epoch: int | None) -> str:
    h = hashlib.sha256(str(epoch).encode())
    for f in (tex_path, *figs):
        h.update(f.name.encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def compile_many(jobs: list[tuple[Path, Path]], epoch: int | None = None) -> list[TexResult]:
    """:func:`compile_pdf` for each ``(tex, pdf)``, side by side (one TeX process each)."""
    if len(jobs) == 1:
        return [compile_pdf(*jobs[0], epoch=epoch)]
    with ThreadPoolExecutor(max_workers=len(jobs)) as ex:
        return list(ex.map(lambda j: compile_pdf(*j, epoch=epoch), jobs))


def log_of(tex_path: Path) -> Path:
    """The TeX log of the last compile of ``tex_path``."""
    return tex_path.parent / f"tex-{tex_path.stem}" / (tex_path.stem + ".log")
