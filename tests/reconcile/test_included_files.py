"""A document's context that lives in another file (`included`).

1. **reST ``.. csv-table::`` with ``:file:``.** Before, the table's rows were never read: the
   directive has no body, so it was refused and its numbers (in the CSV) went unchecked from
   the page; a CSV also given as a document was read without the directive's ``:header:``
   (its first data row taken for a header). Now the file is read as the directive's body, its
   title, ``:header:`` and ``:header-rows:`` and the section titles over it apply, and a
   finding names the CSV file and the number's line and column there. A missing or unreadable
   ``:file:`` is an error naming the .rst file and line (exit 2).
2. **Decimal commas declared in main.tex.** Before, a chapter ``\\input`` by a main.tex that
   declares ``\\usepackage[ngerman]{babel}`` was read alone, with no evidence, so its ``31,45``
   was no number (or 31 and 45). Now a declaration in any file of the document (main.tex, or
   a settings.tex it ``\\input``s) applies to its chapters.

Both make a segment's judgement depend on another file; the judging cache keys on it (the
CSV's lines are in the segment's text; the declaring file is in its key), so editing the other
file judges the segment again.

Fixture shapes (our own names and numbers):

* antmicro/embench-tester docs/source/tables.rst: ``.. csv-table:: <title>`` with
  ``:file: relative_results.csv`` (beside the page, in the Sphinx source folder),
  ``:header-rows: 1``, ``:stub-columns: 1``, one table per result kind.
* lightly-ai/lightly docs/source/getting_started/benchmarks.rst: a section per dataset
  (``ImageNette`` / ``CIFAR-10`` over ``----``), each with a csv-table of the same methods;
  its tables give ``:header: "Model", ...`` above the rows.
* A Sphinx page under ``docs/source`` reading ``:file: _static/tables/x.csv`` with
  ``:header-rows: 1`` and ``:widths: 10, 10, 80`` (a data-standard's model page).
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
from labledger.reconcile.doc_sources import read_documents, resolve_documents
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.drift import reconcile_paths, reconcile_staged
from labledger.reconcile.errors import DocumentError
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim

BIN = Path(sys.executable).parent

# --- 1. csv-table :file: -----------------------------------------------------------------------

KNN = [
    claim("C1", "knn_accuracy", 0.897, aliases=("SwAV", "ImageNette"), run="swav-nette"),
    claim("C2", "knn_accuracy", 0.852, aliases=("SwAV", "CIFAR-10"), run="swav-c10"),
    claim("C3", "knn_accuracy", 0.861, aliases=("BYOL", "CIFAR-10"), run="byol-c10"),
]

# lightly's benchmarks page, its tables' rows moved to files as embench-tester's page has them
BENCH_RST = """\
Benchmarks
==========

Self-supervised methods on public datasets, kNN accuracy after pretraining.

ImageNette
----------

.. csv-table:: kNN accuracy on the held-out images.
   :file: _static/imagenette.csv
   :header-rows: 1
   :widths: 20, 10, 10, 10

CIFAR-10
--------

.. csv-table:: kNN accuracy after training.
   :file: _static/cifar10.csv
   :header: "Model", "Batch Size", "Epochs", "KNN Accuracy"

SwAV reaches 0.852 on CIFAR-10 (see the table above).
"""
IMAGENETTE_CSV = """\
Model,Batch Size,Epochs,KNN Accuracy
BYOL,256,800,0.874
SwAV,256,800,0.897
"""
# no header row in the file: the directive's :header: names its columns
CIFAR_CSV = """\
BYOL,128,200,0.861
SwAV,128,200,0.852
"""


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
        return reconcile_paths(paths, claims, root, jobs=1, cache=cache, project=root)
    finally:
        os.chdir(cwd)


def _found(report: Report) -> list[tuple[str, str, int, int, tuple[str, ...], str | None]]:
    return [(f.type, f.path, f.line, f.col, f.claims, f.shown) for f in report.findings]


def _matched(report: Report) -> set[tuple[str, int, int, tuple[str, ...], str]]:
    return {(m.path, m.line, m.col, m.claims, m.shown) for m in report.matches}


def _bench(root: Path, cifar: str = CIFAR_CSV) -> Path:
    return _project(root, {
        "docs/source/benchmarks.rst": BENCH_RST,
        "docs/source/_static/imagenette.csv": IMAGENETTE_CSV,
        "docs/source/_static/cifar10.csv": cifar,
    })


def test_a_file_tables_rows_are_read_and_a_finding_points_into_the_csv(tmp_path: Path) -> None:
    # before: no finding and no match in either table (the rows were never read)
    root = _bench(tmp_path / "proj", CIFAR_CSV.replace("0.852", "0.858"))
    report = _judge(root, ["docs/source/benchmarks.rst"], KNN)
    assert _found(report) == [
        ("drift", "docs/source/_static/cifar10.csv", 2, 14, ("C2",), "0.858")]
    assert _matched(report) == {
        ("docs/source/_static/imagenette.csv", 3, 14, ("C1",), "0.897"),
        # the file's first row is a row: the directive's :header: is the header
        ("docs/source/_static/cifar10.csv", 1, 14, ("C3",), "0.861"),
        # the page's own prose after the table: its own line, not moved by the rows read in
        ("docs/source/benchmarks.rst", 21, 14, ("C2",), "0.852"),
    }
    assert report.documents == 1


def test_the_rst_files_lines_after_a_table_keep_their_numbers(tmp_path: Path) -> None:
    root = _bench(tmp_path / "proj")
    text = BENCH_RST.replace("SwAV reaches 0.852", "SwAV reaches 0.858")
    (root / "docs/source/benchmarks.rst").write_text(text)
    report = _judge(root, ["docs/source/benchmarks.rst"], KNN)
    line = text.splitlines().index("SwAV reaches 0.858 on CIFAR-10 (see the table above).") + 1
    assert _found(report) == [("drift", "docs/source/benchmarks.rst", line, 14, ("C2",), "0.858")]


def test_the_directive_title_names_its_table(tmp_path: Path) -> None:
    # no section titles: only each directive's title says which dataset its table is. Before,
    # a title named nothing, so with the rows written in the directive the SwAV row of the
    # CIFAR-10 table was ambiguous between the ImageNette and the CIFAR-10 claim (and with
    # :file: nothing was read at all)
    page = ("Benchmarks\n==========\n\n"
            ".. csv-table:: kNN accuracy on ImageNette\n"
            "   :file: imagenette.csv\n   :header-rows: 1\n\n"
            ".. csv-table:: kNN accuracy on CIFAR-10\n"
            "   :file: cifar10.csv\n"
            '   :header: "Model", "Batch Size", "Epochs", "KNN Accuracy"\n')
    moved = CIFAR_CSV.replace("0.852", "0.858")
    inline = page.replace("   :file: imagenette.csv\n", "").replace("   :file: cifar10.csv\n", "")
    inline = inline.replace("   :header-rows: 1\n\n", "   :header-rows: 1\n\n" + "".join(
        f"   {line}\n" for line in IMAGENETTE_CSV.splitlines()) + "\n")
    inline += "\n" + "".join(f"   {line}\n" for line in moved.splitlines())
    root = _project(tmp_path / "proj", {
        "docs/bench.rst": page, "docs/imagenette.csv": IMAGENETTE_CSV, "docs/cifar10.csv": moved,
        "docs/inline.rst": inline})
    from_files = _judge(root, ["docs/bench.rst"], KNN)
    written = _judge(root, ["docs/inline.rst"], KNN)
    assert (_found(from_files), _found(written)) == (
        [("drift", "docs/cifar10.csv", 2, 14, ("C2",), "0.858")],
        [("drift", "docs/inline.rst", inline.count("\n"), 17, ("C2",), "0.858")])


def test_a_csv_the_page_reads_is_not_read_again_alone(tmp_path: Path) -> None:
    # the folder holds the page and its CSV files: each number is judged once, in its table
    # (alone, cifar10.csv's first row would be its header and BYOL's 0.861 no number)
    root = _bench(tmp_path / "proj", CIFAR_CSV.replace("0.852", "0.858"))
    report = _judge(root, ["docs/source"], KNN)
    assert _found(report) == [
        ("drift", "docs/source/_static/cifar10.csv", 2, 14, ("C2",), "0.858")]
    assert ("docs/source/_static/cifar10.csv", 1, 14, ("C3",), "0.861") in _matched(report)


@pytest.mark.parametrize(("option", "why"), [
    ("   :file: nowhere.csv\n", "csv-table :file: nowhere.csv (docs/nowhere.csv): no such file"),
    ("   :file: _static\n", "a folder, not a file"),
    ("   :file: ../../outside.csv\n", "outside the project folder"),
    ("   :file: /results.csv\n", "no folder over this file holds conf.py"),
    ("   :file: latin.csv\n", "not UTF-8 text (byte 3: invalid continuation byte)"),
    ("   :file: latin.csv\n   :encoding: klingon\n", "unknown :encoding: 'klingon'"),
])
def test_a_file_that_cannot_be_read_is_an_error_naming_the_page_and_line(
        tmp_path: Path, option: str, why: str) -> None:
    page = "Results\n=======\n\n.. csv-table:: Results\n" + option + "\nThe end.\n"
    root = _project(tmp_path / "proj", {"docs/page.rst": page, "docs/_static/x.csv": "a,b\n"})
    (tmp_path / "outside.csv").write_text("Model,Top-1\nOurs,0.91\n")
    (root / "docs/latin.csv").write_bytes("Modèle,Précision\nOurs,0,91\n".encode("latin-1"))
    with pytest.raises(DocumentError) as err:
        _judge(root, ["docs/page.rst"], KNN)
    [(where, problem)] = err.value.problems
    assert where == "docs/page.rst:4"
    assert why in problem


def test_the_cli_exits_2_and_names_the_missing_file(ledger: Ledger, project: Path) -> None:
    _project(project, {"docs/page.rst": ".. csv-table:: Results\n   :file: gone.csv\n"})
    proc = subprocess.run([str(BIN / "labledger"), "reconcile", "docs/page.rst"], cwd=project,
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "docs/page.rst:1: csv-table :file: gone.csv (docs/gone.csv): no such file" \
        in proc.stderr
    assert "Traceback" not in proc.stderr


def test_options_docutils_reads_apply(tmp_path: Path) -> None:
    # an absolute :file: is read from the Sphinx source folder (conf.py's), as Sphinx does;
    # :encoding: decodes the file; :delim: splits it (its header row too: docutils reads a
    # :header: option in the table's own delimiter, so a tab-separated file heads itself)
    page = ("Results\n=======\n\n"
            ".. csv-table:: kNN accuracy on CIFAR-10\n"
            "   :file: /_static/cifar10.tsv\n   :encoding: latin-1\n   :delim: tab\n"
            "   :header-rows: 1\n")
    root = _project(tmp_path / "proj", {"docs/source/conf.py": "project = 'x'\n",
                                        "docs/source/guide/page.rst": page})
    (root / "docs/source/_static").mkdir()
    (root / "docs/source/_static/cifar10.tsv").write_bytes(
        "Modèle\tBatch Size\tEpochs\tKNN Accuracy\n"
        "BYOL\t128\t200\t0.861\nSwAV\t128\t200\t0.858\n".encode("latin-1"))
    report = _judge(root, ["docs/source/guide/page.rst"], KNN[1:])
    assert _found(report) == [
        ("drift", "docs/source/_static/cifar10.tsv", 3, 14, ("C2",), "0.858")]
    assert [m.via for m in report.matches] == ["table"]  # read as the table it is


def test_a_directive_shown_as_code_and_a_url_read_nothing(tmp_path: Path) -> None:
    # a page showing how to write the directive reads no file; :url: is never fetched
    page = ("How to show results\n===================\n\n.. code-block:: rst\n\n"
            "   .. csv-table:: Results\n      :file: results.csv\n\n"
            ".. csv-table:: Remote results\n   :url: https://example.org/results.csv\n")
    root = _project(tmp_path / "proj", {"docs/howto.rst": page})
    report = _judge(root, ["docs/howto.rst"], KNN)
    assert report.findings == []
    assert report.matches == []


def test_editing_the_csv_judges_the_page_again(tmp_path: Path) -> None:
    root = _bench(tmp_path / "proj")
    cache = tmp_path / "cache"
    first = _judge(root, ["docs/source/benchmarks.rst"], KNN, cache)
    assert first.findings == []
    assert _judge(root, ["docs/source/benchmarks.rst"], KNN, cache).to_json() == first.to_json()
    (root / "docs/source/_static/cifar10.csv").write_text(CIFAR_CSV.replace("0.852", "0.858"))
    cached = _judge(root, ["docs/source/benchmarks.rst"], KNN, cache)
    fresh = _judge(root, ["docs/source/benchmarks.rst"], KNN)
    assert _found(cached) == [("drift", "docs/source/_static/cifar10.csv", 2, 14, ("C2",), "0.858")]
    assert cached.to_json() == fresh.to_json()
    assert _matched(cached) == _matched(fresh)


# --- --staged: the CSV as the index holds it ----------------------------------------------------

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


def test_staged_reads_the_staged_csv(ledger: Ledger, project: Path) -> None:
    for c in KNN:
        _declare(ledger, c)
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["docs/**/*.rst"]\n')
    _bench(project, CIFAR_CSV.replace("0.852", "0.858"))
    (project / ".gitignore").write_text(".labledger/\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", "-A")
    # the work tree fixed, the index not: the commit would hold the drift
    (project / "docs/source/_static/cifar10.csv").write_text(CIFAR_CSV)
    report = reconcile_staged(ledger, project, jobs=1, use_cache=False)
    assert [(f.path, f.line, f.shown) for f in report.findings] == [
        ("docs/source/_static/cifar10.csv", 2, "0.858")]
    # a CSV the index lacks: the commit would build a page without its table
    _git(project, "rm", "-q", "--cached", "-f", "docs/source/_static/cifar10.csv")
    with pytest.raises(DocumentError) as err:
        reconcile_staged(ledger, project, jobs=1, use_cache=False)
    assert err.value.problems == [(
        "docs/source/benchmarks.rst:17",
        "csv-table :file: _static/cifar10.csv (docs/source/_static/cifar10.csv): not in git's "
        "index (git add it: the commit would lack it)")]


# --- 2. decimal commas declared in the including file ------------------------------------------

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


def test_reading_sets_no_context_where_none_is(tmp_path: Path) -> None:
    # an ordinary page and thesis: segments as before (no splice, no declaring file)
    root = _project(tmp_path / "p", {"a.rst": "Results\n=======\n\nOurs: 31.42 dB PSNR.\n",
                                     "b.tex": "\\input{c}\nOurs: 31.42 dB PSNR.\n",
                                     "c.tex": "\\section{C}\n"})
    segments = read_documents([root / "a.rst", root / "b.tex", root / "c.tex"], root, root)
    assert [(s.splices, s.decimal_from) for s in segments] == [((), None)] * 3
    report = reconcile_segments(segments, PSNR, jobs=1)
    assert report.findings == []
    assert len(report.matches) == 2
