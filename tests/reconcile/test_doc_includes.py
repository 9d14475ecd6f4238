"""The files a Sphinx, MyST, MkDocs or Jekyll page includes, and the CSV files a LaTeX paper
typesets as tables, are judged with the page (`included.with_included`).

Before, only LaTeX's ``\\input`` family, Quarto's ``{{< include >}}`` (not from the project's
root) and knitr's ``child=`` were followed: ``labledger reconcile docs/index.rst`` said "no
drift" over a page whose results table lives in ``results.rst`` under ``.. include::``, and
``reconcile paper/main.tex`` never saw the numbers of ``\\csvautotabular{results.csv}``. Now:

* reST ``.. include:: F`` (from the page's folder; ``/F`` from the Sphinx source folder, the one
  holding ``conf.py``), MyST's ``{include}`` (a ``` fence or a ``:::`` one);
* MkDocs' snippets, ``--8<-- "F"`` and a block of names (from the folder holding
  ``mkdocs.yml``, else the page's; a line range or section after the name is the file's);
* Jekyll's ``{% include_relative F %}`` and ``{% include F %}`` (from the site's
  ``_includes/``);
* Quarto's ``{{< include /F >}}`` (from the folder holding ``_quarto.yml``);
* csvsimple's ``\\csvautotabular`` (and its other forms) and ``\\csvreader``, pgfplotstable's
  ``\\pgfplotstabletypeset`` and ``\\pgfplotstableread``, datatool's ``\\DTLloaddb``: the CSV
  file is read as a table.

Not read: an include shown as code (``:literal:``, ``:code:``, an escaped ``;--8<--``, one
inside a code block or code span, a commented-out LaTeX line), docutils' own ``<isonum.txt>``,
a name computed by Liquid, a URL, a name naming no file, another kind of file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger.ledger import Ledger
from labledger.reconcile.errors import DocumentError
from tests.reconcile.test_latex_includes import make, reconcile
from tests.reconcile.test_precommit import (  # noqa: F401 - the env fixture
    commit_all,
    env,
    git,
    git_project,
    install_hooks,
)
from tests.reconcile.test_tex_macro_anchors import found

RESULT = "FooNet reaches {} dB PSNR.\n"  # FooNet's PSNR is claimed as 31.42 dB


def drifts(root: Path, doc: str) -> list[tuple[str, str]]:
    """(file, number shown) of each drift reconciling ``doc`` finds."""
    report = reconcile(root, doc)
    assert all(f[1] == "drift" for f in found(report)), found(report)
    return sorted((f.path, f.shown or "") for f in report.findings)


# --- reST and MyST (Sphinx) ------------------------------------------------------------------

SPHINX_INDEX = """Results
=======

.. include:: results.rst

.. include:: /shared/more.rst

.. include:: code.rst
   :literal:

.. include:: listing.rst
   :code: rst

A literal block shows a directive::

   .. include:: verb.rst

.. include:: <isonum.txt>

.. include:: missing.rst

.. include:: plot.png
"""
SPHINX = {"docs/conf.py": "project = 'x'\n", "docs/index.rst": SPHINX_INDEX,
          "docs/results.rst": RESULT.format("31.40"),
          "docs/shared/more.rst": RESULT.format("31.41"),
          "docs/code.rst": RESULT.format("99.0"), "docs/listing.rst": RESULT.format("98.0"),
          "docs/verb.rst": RESULT.format("97.0"), "docs/plot.png": RESULT.format("96.0")}


def test_a_sphinx_page_reads_the_files_it_includes(tmp_path: Path) -> None:
    make(tmp_path, SPHINX)
    assert drifts(tmp_path, "docs/index.rst") == [("docs/results.rst", "31.40"),
                                                  ("docs/shared/more.rst", "31.41")]
    report = reconcile(tmp_path, "docs/index.rst")
    assert (report.documents, report.included) == (3, 2)
    first = next(f for f in report.findings if f.path == "docs/results.rst")
    assert first.location() == "docs/results.rst:1:16"


def test_a_rest_include_reads_text_and_myst_markdown_files(tmp_path: Path) -> None:
    make(tmp_path, {"docs/index.rst": ".. include:: a.txt\n\n.. include:: ../README.md\n"
                                      "   :parser: myst_parser.sphinx_\n",
                    "docs/a.txt": RESULT.format("31.40"), "README.md": RESULT.format("31.41")})
    assert drifts(tmp_path, "docs/index.rst") == [("README.md", "31.41"),
                                                  ("docs/a.txt", "31.40")]


def test_an_absolute_include_without_a_sphinx_folder_reads_nothing(tmp_path: Path) -> None:
    make(tmp_path, {"docs/index.rst": ".. include:: /results.rst\n",
                    "docs/results.rst": RESULT.format("31.40")})
    assert drifts(tmp_path, "docs/index.rst") == []


MYST_INDEX = """# Results

```{include} results.md
```

:::{include} /shared/more.md
:::

```{include} code.md
:literal:
```

::::{include} listing.md
:code: md
::::

    :::{include} indented.md

```markdown
:::{include} shown.md
```
"""


def test_a_myst_page_reads_the_files_its_include_directives_name(tmp_path: Path) -> None:
    make(tmp_path, {"docs/conf.py": "", "docs/index.md": MYST_INDEX,
                    "docs/results.md": RESULT.format("31.40"),
                    "docs/shared/more.md": RESULT.format("31.41"),
                    "docs/code.md": RESULT.format("99.0"),
                    "docs/listing.md": RESULT.format("98.0"),
                    "docs/indented.md": RESULT.format("97.0"),
                    "docs/shown.md": RESULT.format("96.0")})
    assert drifts(tmp_path, "docs/index.md") == [("docs/results.md", "31.40"),
                                                 ("docs/shared/more.md", "31.41")]


# --- MkDocs snippets ---------------------------------------------------------------------------

MKDOCS_PAGE = """# Results

--8<-- "snippets/results.md"

;--8<-- "snippets/escaped.md"

--8<--
snippets/lines.md:1:3
;snippets/skipped.md
snippets/section.md:results

https://example.com/remote.md
--8<--

-----8<----- 'snippets/long.md'

```text
--8<-- "snippets/code.md"
```
"""


def test_a_mkdocs_page_reads_its_snippets_from_the_project_folder(tmp_path: Path) -> None:
    make(tmp_path, {"mkdocs.yml": "site_name: x\nmarkdown_extensions:\n  - pymdownx.snippets\n",
                    "docs/index.md": MKDOCS_PAGE,
                    "snippets/results.md": RESULT.format("31.40"),
                    "snippets/escaped.md": RESULT.format("99.0"),
                    "snippets/lines.md": RESULT.format("31.41"),
                    "snippets/skipped.md": RESULT.format("98.0"),
                    "snippets/section.md": RESULT.format("31.43"),
                    "snippets/long.md": RESULT.format("31.44"),
                    "snippets/code.md": RESULT.format("97.0")})
    assert drifts(tmp_path, "docs/index.md") == [
        ("snippets/lines.md", "31.41"), ("snippets/long.md", "31.44"),
        ("snippets/results.md", "31.40"), ("snippets/section.md", "31.43")]


def test_without_mkdocs_yml_a_snippet_is_read_from_the_page_folder(tmp_path: Path) -> None:
    make(tmp_path, {"notes/page.md": '--8<-- "part.md"\n',
                    "notes/part.md": RESULT.format("31.40")})
    assert drifts(tmp_path, "notes/page.md") == [("notes/part.md", "31.40")]


# --- Jekyll and Quarto -----------------------------------------------------------------------

JEKYLL_POST = """---
layout: post
---
# Results

{% include_relative results.md %}

{%- include table.md caption="Main results" -%}

{% include {{ page.table }} %}

`{% include code.md %}`
"""


def test_a_jekyll_page_reads_what_it_includes(tmp_path: Path) -> None:
    make(tmp_path, {"site/_config.yml": "title: x\n", "site/_posts/2024-05-01-r.md": JEKYLL_POST,
                    "site/_posts/results.md": RESULT.format("31.40"),
                    "site/_includes/table.md": "| Method | PSNR |\n|---|---|\n"
                                               "| FooNet | 31.41 |\n",
                    "site/_includes/code.md": RESULT.format("99.0")})
    assert drifts(tmp_path, "site/_posts/2024-05-01-r.md") == [
        ("site/_includes/table.md", "31.41"), ("site/_posts/results.md", "31.40")]


def test_a_quarto_include_from_the_project_root(tmp_path: Path) -> None:
    make(tmp_path, {"book/_quarto.yml": "project:\n  type: book\n",
                    "book/chapters/results.qmd": "# Results\n\n"
                                                 "{{< include /_common/_table.qmd >}}\n",
                    "book/_common/_table.qmd": RESULT.format("31.40")})
    assert drifts(tmp_path, "book/chapters/results.qmd") == [("book/_common/_table.qmd",
                                                              "31.40")]


def test_a_quarto_include_from_the_root_without_a_project_reads_nothing(
        tmp_path: Path) -> None:
    make(tmp_path, {"a.qmd": "{{< include /b.qmd >}}\n", "b.qmd": RESULT.format("31.40")})
    assert drifts(tmp_path, "a.qmd") == []


# --- CSV files a LaTeX paper typesets ----------------------------------------------------------

TABLE_MAIN = """\\documentclass{article}
\\usepackage{csvsimple-l3,pgfplotstable,datatool}
\\begin{document}
\\csvautobooktabular{data/main.csv}
\\pgfplotstabletypeset[col sep=comma,
  columns/PSNR/.style={fixed, precision=2}]{data/ablation.csv}
\\csvreader[tabular=lr, table head=Method & PSNR\\\\]{data/reader.csv}{}{\\csvcoli & \\csvcolii}
\\pgfplotstableread[col sep=comma]{data/read.csv}\\loaded
\\pgfplotstabletypeset{\\loaded}
\\DTLloaddb{results}{data/db.csv}
% \\csvautotabular{data/old.csv}
\\begin{verbatim}
\\csvautotabular{data/shown.csv}
\\end{verbatim}
\\csvautotabular{data/missing.csv}
\\pgfplotstabletypeset{data/curve.dat}
\\end{document}
"""


def test_a_latex_paper_reads_the_csv_files_it_typesets(tmp_path: Path) -> None:
    files = {"paper/main.tex": TABLE_MAIN}
    for name, value in [("main", "31.40"), ("ablation", "31.41"), ("reader", "31.43"),
                        ("read", "31.44"), ("db", "31.45"), ("old", "99.0"), ("shown", "98.0")]:
        files[f"paper/data/{name}.csv"] = f"Method,PSNR\nBicubic,30.10\nFooNet,{value}\n"
    files["paper/data/curve.dat"] = "Method PSNR\nFooNet 97.0\n"
    make(tmp_path, files)
    assert drifts(tmp_path, "paper/main.tex") == [
        ("paper/data/ablation.csv", "31.41"), ("paper/data/db.csv", "31.45"),
        ("paper/data/main.csv", "31.40"), ("paper/data/read.csv", "31.44"),
        ("paper/data/reader.csv", "31.43")]
    report = reconcile(tmp_path, "paper/main.tex")
    first = next(f for f in report.findings if f.path == "paper/data/main.csv")
    assert first.location() == "paper/data/main.csv:3:8"
    assert report.included == 5


def test_a_csv_included_from_a_chapter_is_looked_up_from_the_main_folder(
        tmp_path: Path) -> None:
    """LaTeX reads a name from the folder it compiles in (main.tex's), as for ``\\input``."""
    make(tmp_path, {"paper/main.tex": "\\input{sections/results}\n",
                    "paper/sections/results.tex": "\\csvautotabular{tables/psnr.csv}\n",
                    "paper/tables/psnr.csv": "Method,PSNR\nFooNet,31.40\n"})
    assert drifts(tmp_path, "paper/main.tex") == [("paper/tables/psnr.csv", "31.40")]


# --- errors, and what the hook reads ------------------------------------------------------------

@pytest.mark.parametrize(("doc", "text", "included"), [
    ("docs/index.rst", "Intro\n\n.. include:: part.rst\n", "docs/part.rst"),
    ("docs/index.md", "Intro\n\n--8<-- \"part.md\"\n", "docs/part.md"),
    ("docs/index.md", "Intro\n\n{% include_relative part.md %}\n", "docs/part.md"),
    ("paper/main.tex", "Intro\n\n\\csvautotabular{part.csv}\n", "paper/part.csv"),
])
def test_an_included_file_that_is_not_text_is_an_error_naming_the_include(
        tmp_path: Path, doc: str, text: str, included: str) -> None:
    make(tmp_path, {doc: text})
    (tmp_path / included).write_bytes(b"FooNet \xff 31.5\n")
    with pytest.raises(DocumentError) as caught:
        reconcile(tmp_path, doc)
    [(path, why)] = caught.value.problems
    assert path == included
    assert why.startswith(f"included at {doc}:3: not UTF-8")


def test_git_commit_judges_the_staged_files_a_sphinx_page_includes(
        ledger: Ledger, project: Path, env: dict[str, str]) -> None:  # noqa: F811
    """With ``documents = ["docs/index.rst"]`` the pre-commit hook reads the included pages as
    git's index holds them: ``/shared/x.rst`` from the staged ``conf.py``'s folder."""
    git_project(ledger, project, env, "docs/index.rst", "F1", ("FooNet",))
    make(project, {"docs/conf.py": "project = 'x'\n",
                   "docs/index.rst": "Results\n=======\n\n.. include:: /shared/results.rst\n",
                   "docs/shared/results.rst": RESULT.format("31.5")})
    install_hooks(project, env)
    blocked = commit_all(project, env)
    assert blocked.returncode != 0
    assert "docs/shared/results.rst:1:16: F1 says 31.5, evidence says 31.42" in \
        blocked.stdout + blocked.stderr
    (project / "docs" / "shared" / "results.rst").write_text(RESULT.format("31.42"))
    passed = commit_all(project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


_PIECES = [".. include:: ", "```{include} ", ":::{include} ", "--8<-- \"", "--8<--", "\"",
           "{% include_relative ", "{% include ", " %}", "{{< include /", " >}}",
           "\\csvautotabular{", "\\pgfplotstabletypeset[", "]{", "}", ":literal:", "   ",
           "b.md", "b.rst", "b.csv", "sub/", "/", ":3:5", ";", "`", "```", "\n", "\udcff"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join),
                      min_size=5, max_size=5))
def test_any_includes_read_or_fail_with_a_document_error(tmp_path: Path,
                                                          texts: list[str]) -> None:
    """Whatever the pages include (each other, missing names, bytes that are not text),
    reading them ends: documents, or one `DocumentError` naming only these files."""
    root = tmp_path / "fuzz"
    shutil.rmtree(root, ignore_errors=True)
    (root / "sub").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: x\n")
    (root / "conf.py").write_text("")
    names = ("a.md", "a.rst", "a.tex", "b.md", "b.csv")
    for name, text in zip(names, texts, strict=True):
        (root / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        report = reconcile(root, "a.md", "a.rst", "a.tex")
    except DocumentError as exc:
        problems = exc.problems
    else:
        assert 3 <= report.documents <= 5
        return
    assert problems
    assert all(path in names for path, _ in problems), problems
