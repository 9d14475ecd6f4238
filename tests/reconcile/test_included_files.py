"""A document's context that lives in another file (`included`).

**Decimal commas declared in main.tex.** Before, a chapter ``\\input`` by a main.tex that
declares ``\\usepackage[ngerman]{babel}`` was read alone, with no evidence, so its ``31,45`` was
no number (or 31 and 45). Now a declaration in any file of the document (main.tex, or a
settings.tex it ``\\input``s) applies to its chapters, and a declaration in a ``%`` comment is
none. The chapter's judgement then depends on another file: the judging cache keys on the
declaring file, so editing main.tex judges the chapter again.

Fixture shapes (our own names and numbers):

* fwalch/tum-thesis-latex main.tex and settings.tex: main.tex ``\\input{settings}`` (the
  preamble: babel, siunitx, ...) before ``\\begin{document}``, then ``\\input{pages/...}`` and
  ``\\input{chapters/01_introduction}``; a German thesis sets ``[ngerman]{babel}`` there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.doc_sources import resolve_documents
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.drift import reconcile_paths
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim

BIN = Path(sys.executable).parent

def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _judge(root: Path, names: list[str], claims: list[Claim], cache: Path | None = None,
           ) -> Report:
    cwd = Path.cwd()
    os.chdir(root)  # documents shown relative to the project, as the CLI shows them
    try:
        paths = resolve_documents(names, root, None)  # (a folder: its documents)
        return reconcile_paths(paths, claims, root, jobs=1, cache=cache)
    finally:
        os.chdir(cwd)


def _found(report: Report) -> list[tuple[str, str, int, int, tuple[str, ...], str | None]]:
    return [(f.type, f.path, f.line, f.col, f.claims, f.shown) for f in report.findings]


def _matched(report: Report) -> set[tuple[str, int, int, tuple[str, ...], str]]:
    return {(m.path, m.line, m.col, m.claims, m.shown) for m in report.matches}


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd.parent),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                   timeout=120)


def _declare(ledger: Ledger, c: Claim) -> None:
    ledger.append("claim.declared", run=c.run, claim=c.id, metric=c.metric, value=c.value,
                  direction="higher", source_digest="blake3:" + "0" * 64,
                  aliases=list(c.aliases))


# --- decimal commas declared in the including file ------------------------------------------

PSNR = [claim("C1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours"), run="ours")]

# fwalch/tum-thesis-latex: main.tex inputs settings (the preamble), then the chapters
MAIN_TEX = """\
\\documentclass[oneside,fontsize=11pt,paper=a4]{scrbook}
\\usepackage[ngerman]{babel}
\\begin{document}
\\tableofcontents{}
\\mainmatter{}
\\input{chapters/01_einleitung}
\\input{chapters/02_ergebnisse}
\\end{document}
"""
INTRO_TEX = "\\chapter{Einleitung}\nDiese Arbeit untersucht die Bildkompression.\n"
RESULTS_TEX = """\
\\chapter{Ergebnisse}
\\begin{table}[h]
\\begin{tabular}{lc}
Methode & PSNR (dB) \\\\
Ours & 31,45 \\\\
\\end{tabular}
\\end{table}
"""


def _thesis(tmp_path: Path, main: str = MAIN_TEX, results: str = RESULTS_TEX,
            more: dict[str, str] | None = None) -> Path:
    return _project(tmp_path / "thesis", {"main.tex": main, "chapters/01_einleitung.tex":
                                          INTRO_TEX, "chapters/02_ergebnisse.tex": results,
                                          **(more or {})})


THESIS = ["main.tex", "chapters/01_einleitung.tex", "chapters/02_ergebnisse.tex"]


def test_a_chapter_reads_decimal_commas_main_tex_declares(tmp_path: Path) -> None:
    # before: "31,45" was no number in the chapter, which has no evidence of its own
    report = _judge(_thesis(tmp_path), THESIS, PSNR)
    assert _found(report) == [("drift", "chapters/02_ergebnisse.tex", 5, 8, ("C1",), "31,45")]
    ok = _judge(_thesis(tmp_path, results=RESULTS_TEX.replace("31,45", "31,42")), THESIS, PSNR)
    assert ok.findings == []
    assert _matched(ok) == {("chapters/02_ergebnisse.tex", 5, 8, ("C1",), "31,42")}


def test_a_preamble_file_main_tex_inputs_declares_for_every_file(tmp_path: Path) -> None:
    # tum-thesis-latex's shape: the preamble is settings.tex; nested chapters too
    main = MAIN_TEX.replace("\\usepackage[ngerman]{babel}\n", "\\input{settings}\n") \
        .replace("\\input{chapters/02_ergebnisse}", "\\include{chapters/02_ergebnisse}")
    settings = ("\\usepackage[ngerman]{babel}\n\\usepackage{siunitx}\n"
                "\\sisetup{output-decimal-marker={,}}\n")
    results = "\\chapter{Ergebnisse}\n\\input{chapters/tables/psnr}\n"
    report = _judge(_thesis(tmp_path, main, results, {
        "settings.tex": settings, "chapters/tables/psnr.tex": RESULTS_TEX.split("\n", 1)[1]}),
        [*THESIS, "settings.tex", "chapters/tables/psnr.tex"], PSNR)
    assert _found(report) == [("drift", "chapters/tables/psnr.tex", 4, 8, ("C1",), "31,45")]


def test_a_subfile_names_its_main(tmp_path: Path) -> None:
    # the subfiles package: the chapter names its main file, which need not \subfile it here
    results = "\\documentclass[../main.tex]{subfiles}\n\\begin{document}\n" + RESULTS_TEX \
        + "\\end{document}\n"
    main = MAIN_TEX.replace("\\input{chapters/02_ergebnisse}\n", "")
    report = _judge(_thesis(tmp_path, main, results), THESIS, PSNR)
    assert _found(report) == [("drift", "chapters/02_ergebnisse.tex", 7, 8, ("C1",), "31,45")]


@pytest.mark.parametrize("main", [
    MAIN_TEX.replace("\\usepackage[ngerman]", "%\\usepackage[ngerman]"),  # commented out
    MAIN_TEX.replace("\\input{chapters/02_ergebnisse}", "% \\input{chapters/02_ergebnisse}"),
    MAIN_TEX.replace("ngerman", "english"),
])
def test_no_declaration_reaches_the_chapter(tmp_path: Path, main: str) -> None:
    report = _judge(_thesis(tmp_path, main), THESIS, PSNR)
    assert report.findings == []
    assert report.matches == []


def test_a_commented_out_declaration_declares_nothing_in_its_own_file() -> None:
    # before: "%\\usepackage[ngerman]{babel}" kept beside the English one read "31,45" as 31.45
    # (one such number, no unit after it: no evidence of its own)
    text = ("\\documentclass{article}\n%\\usepackage[ngerman]{babel}\n"
            "\\usepackage[english]{babel}\n\\begin{document}\n"
            "Ours reaches a PSNR of 31,45.\n\\end{document}\n")
    report = reconcile_segments(read_document("paper.tex", text.encode()), PSNR, jobs=1)
    assert report.findings == []
    assert report.matches == []


def test_a_chapter_writing_english_decimals_stays_english(tmp_path: Path) -> None:
    results = RESULTS_TEX.replace("31,45", "31.45") + "Die Rate liegt bei 0.8 bpp.\n"
    report = _judge(_thesis(tmp_path, results=results), THESIS, PSNR)
    assert _found(report) == [("drift", "chapters/02_ergebnisse.tex", 5, 8, ("C1",), "31.45")]


def test_a_chapter_two_documents_share_takes_a_declaration_both_make(tmp_path: Path) -> None:
    english = MAIN_TEX.replace("ngerman", "english")
    root = _thesis(tmp_path, more={"main_en.tex": english})
    report = _judge(root, [*THESIS, "main_en.tex"], PSNR)
    assert report.findings == []
    assert report.matches == []
    (root / "main_en.tex").write_text(MAIN_TEX)
    report = _judge(root, [*THESIS, "main_en.tex"], PSNR)
    assert _found(report) == [("drift", "chapters/02_ergebnisse.tex", 5, 8, ("C1",), "31,45")]


def test_editing_main_tex_judges_the_chapter_again(tmp_path: Path) -> None:
    root = _thesis(tmp_path)
    cache = tmp_path / "cache"
    first = _judge(root, THESIS, PSNR, cache)
    assert _found(first) == [("drift", "chapters/02_ergebnisse.tex", 5, 8, ("C1",), "31,45")]
    # the chapter is unchanged; main.tex no longer declares: the chapter's cached judgement
    # (read with commas) must not answer for it
    (root / "main.tex").write_text(MAIN_TEX.replace("ngerman", "english"))
    cached = _judge(root, THESIS, PSNR, cache)
    fresh = _judge(root, THESIS, PSNR)
    assert cached.findings == [] == fresh.findings
    assert cached.to_json() == fresh.to_json()
    (root / "main.tex").write_text(MAIN_TEX)
    assert _found(_judge(root, THESIS, PSNR, cache)) == _found(first)


def test_staged_documents_declare_for_each_other(ledger: Ledger, project: Path) -> None:
    _declare(ledger, PSNR[0])
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["**/*.tex"]\n')
    _project(project, {"main.tex": MAIN_TEX, "chapters/01_einleitung.tex": INTRO_TEX,
                       "chapters/02_ergebnisse.tex": RESULTS_TEX, ".gitignore": ".labledger/\n"})
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", "-A")
    proc = subprocess.run([str(BIN / "labledger"), "reconcile", "--staged", "--json"],
                          cwd=project, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    found = json.loads(proc.stdout)["findings"]
    assert [(f["path"], f["line"], f["shown"]) for f in found] == [
        ("chapters/02_ergebnisse.tex", 5, "31,45")]
