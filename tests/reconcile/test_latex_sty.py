"""The shipped labledger.sty compiles with pdflatex, prints each marked number unchanged, and
reconcile reads the same source (pdflatex: texlive-latex-base, installed by .ci/run)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import labledger.reconcile
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments

STY = Path(labledger.reconcile.__file__).with_name("labledger.sty")

DOCUMENT = r"""\documentclass{article}
\usepackage{labledger}
\newcommand{\psnrours}{31.42} % claim:C1
\claimbind{C0}{\psnrbase}
\newcommand{\psnrbase}{30.10}
\begin{document}
\typeout{VALUE=[\claim{C1}{31.4}]}
\typeout{DELTA=[\claimdelta{C1}{C0}{+1.3}]}
\typeout{REF=[\claimref{C1}] BIND=[\claimbind{C1}{\psnrours}] NOCLAIM=[\noclaim]}
\typeout{MACRO=[\psnrours]}
Our model reaches \claim{C1}{31.4}\,dB PSNR, \claimdelta{C1}{C0}{+1.3}\,dB above the
baseline's \psnrbase\,dB.
\begin{tabular}{lc}
Method & Score\claimref{C1} \\
\hline
Ours & \textbf{\psnrours} \\
\end{tabular}
\end{document}
"""


def pdflatex(folder: Path, name: str, source: str) -> str:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is missing: install texlive-latex-base (.ci/run does)")
    shutil.copy(STY, folder / "labledger.sty")
    (folder / name).write_text(source, encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
                          cwd=folder, capture_output=True, text=True, timeout=120, check=False)
    log = (folder / name).with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, log[-3000:]
    return log


def test_the_sty_ships_with_the_package() -> None:
    text = STY.read_text(encoding="utf-8")
    assert "\\ProvidesPackage{labledger}" in text


def test_every_macro_prints_its_number_unchanged(tmp_path: Path) -> None:
    log = pdflatex(tmp_path, "paper.tex", DOCUMENT)
    assert "VALUE=[31.4]" in log
    assert "DELTA=[+1.3]" in log
    assert "REF=[] BIND=[] NOCLAIM=[]" in log
    assert "MACRO=[31.42]" in log
    assert "Warning" not in log.split("(./labledger.sty", 1)[1]


def test_an_existing_claim_command_is_left_alone(tmp_path: Path) -> None:
    source = (r"\documentclass{article}\usepackage{amsthm}\newtheorem{claim}{Claim}"
              r"\usepackage{labledger}\begin{document}"
              r"\begin{claim}A theorem-like claim.\end{claim}"
              r"\typeout{VALUE=[\ledgerclaim{C1}{31.42}]}\end{document}" + "\n")
    log = pdflatex(tmp_path, "thm.tex", source)
    assert re.search(r"Package labledger Warning: \\claim is already defined", log)
    assert "VALUE=[31.42]" in log


def test_reconcile_reads_the_same_source() -> None:
    def claim(cid: str, value: float) -> Claim:
        return Claim(id=cid, run="r1", metric="psnr", value=value, direction="higher",
                     source_digest="blake3:" + "0" * 64, event_id="e" + cid, declared_at="t",
                     unit="dB")

    source = "".join(line for line in DOCUMENT.splitlines(keepends=True)
                     if not line.startswith("\\typeout"))
    report = reconcile_segments(read_document("paper.tex", source.encode()),
                                [claim("C1", 31.42), claim("C0", 30.1)])
    assert report.findings == []
    assert sorted((m.via, m.shown) for m in report.matches) == [
        ("delta", "+1.3"), ("macro", "30.10"), ("macro", "31.42"), ("marker", "31.4")]
    drifted = source.replace("{31.42} % claim:C1", "{31.52} % claim:C1")
    (finding,) = reconcile_segments(read_document("paper.tex", drifted.encode()),
                                    [claim("C1", 31.42), claim("C0", 30.1)]).findings
    assert (finding.type, finding.via, finding.shown) == ("drift", "macro", "31.52")
