"""Quarto (``.qmd``) and R Markdown (``.Rmd``) papers are reconciled as Markdown.

Before, `labledger reconcile paper.qmd` refused the file ("unknown document type '.qmd'"),
and a Markdown file holding a knitr chunk written ```` ```{r, echo=FALSE} ```` read the chunk as
printed output: its ``accuracy <- 0.71`` drifted against the accuracy claim. Now both
suffixes are Markdown, and a fence's language is read from a chunk header whatever its form
(`fenced.info_language`): ``{r}``, ``{r setup, include=FALSE}``, ``{r, echo=FALSE}``,
``{python}``, a pandoc class ``{.python .numberLines}``, a raw block ``{=html}``, Quarto's
``{ojs}``. What the chunks print is not in the source (Quarto and knitr render it elsewhere);
an inline `` `r x` `` or `` `{python} x` `` is computed, and code spans are not read.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.fenced import info_language
from tests.reconcile.test_documents import CLAIMS, judge
from tests.reconcile.test_precommit import (  # noqa: F401 - the env fixture
    BIN,
    env,
    git,
    git_project,
)

FRONT = """---
title: "Sharper super-resolution"
date: 2024-05-01
format:
  html:
    code-fold: true
execute:
  echo: false
---

"""
CLAIMED = [CLAIMS["C1"], CLAIMS["C0"], CLAIMS["A1"]]


@pytest.mark.parametrize("chunk", [
    "```{r, echo=FALSE}\naccuracy <- 0.71\npsnr <- 30.55\n```\n",
    "```{r setup, include=FALSE}\naccuracy <- 0.52\n```\n",
    "```{r}\naccuracy <- 0.52\n```\n",
    "```{R}\naccuracy <- 0.52\n```\n",
    "```{python}\n#| label: setup\n#| include: false\naccuracy = 0.87\n```\n",
    "```{python echo=false}\naccuracy = 0.87\n```\n",
    "``` {.python .numberLines}\naccuracy = 0.87\n```\n",
    "```{=html}\n<p>accuracy 0.52</p>\n```\n",
    "```{ojs}\naccuracy = 0.52\n```\n",
    "~~~{r, eval=TRUE}\naccuracy <- 0.71\n~~~\n",
])
@pytest.mark.parametrize("path", ["paper.qmd", "paper.Rmd", "paper.rmd", "README.md"])
def test_a_chunk_of_code_claims_nothing(path: str, chunk: str) -> None:
    text = FRONT + chunk + "\nThe top-1 accuracy is 91.3% and the PSNR is 31.42 dB.\n"
    report = judge(text, CLAIMED, path)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert sorted((m.line, m.claims) for m in report.matches) == [
        (text.count("\n"), ("A1",)), (text.count("\n"), ("C1",))]


@pytest.mark.parametrize("path", ["paper.qmd", "paper.Rmd"])
def test_prose_and_tables_of_a_quarto_paper_are_judged(path: str) -> None:
    text = FRONT + (
        "```{python}\n#| include: false\nimport json\n"
        "psnr = json.load(open('capsules/c2/metrics.json'))['psnr']\n```\n\n"
        "## Results\n\n"
        "Ours reaches a PSNR of 31.5 dB, computed inline as `{python} f'{psnr:.2f}'` and "
        "`r round(psnr, 2)`.\n\n"
        "| Method | PSNR |\n|--------|------|\n| Ours | 31.4 |\n| Baseline | 30.2 |\n\n"
        ": PSNR on Set5 {#tbl-psnr}\n\n"
        "::: {#fig-curve}\n![Training curve](curve.png)\n:::\n\n"
        "See @tbl-psnr. The top-1 accuracy is 91.3%.\n")
    report = judge(text, CLAIMED, path)
    lines = text.split("\n")
    prose = next(i for i, line in enumerate(lines, 1) if line.startswith("Ours reaches"))
    baseline = next(i for i, line in enumerate(lines, 1) if line.startswith("| Baseline"))
    assert [(f.type, f.line, f.claims) for f in report.findings] == [
        ("drift", prose, ("C1",)), ("drift", baseline, ("C0",))]
    assert [f.shown for f in report.findings] == ["31.5", "30.2"]
    assert report.findings[0].path == path
    matched = sorted(m.claims for m in report.matches)
    assert matched == [("A1",), ("C1",)]  # the table's 31.4, the prose's 91.3%


def test_printed_output_in_a_plain_fence_is_still_read_as_a_log() -> None:
    """Only a chunk naming a language is code: a ```` ```text ```` block pasted from a run's
    output is printed output, its moved number drift."""
    text = FRONT + "```text\nEpoch 10: PSNR 30.55 dB\n```\n"
    report = judge(text, [CLAIMS["C1"]], "paper.qmd")
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("C1",))]


@pytest.mark.parametrize(("info", "language"), [
    ("python", "python"), ('python title="train.py"', "python"), ("{python}", "python"),
    ("{r}", "r"), ("{R}", "r"), ("{r setup, include=FALSE}", "r"), ("{r, echo=FALSE}", "r"),
    ("{r,echo=FALSE}", "r"), ("{python echo=false}", "python"),
    ("{.python .numberLines}", "python"), (" {.python}", "python"), (".yaml", "yaml"),
    ("{=html}", "html"), ("{ojs}", "ojs"), ("", ""), ("{}", ""), ("text", "text"),
    ("console", "console"),
])
def test_info_language_reads_every_form_of_chunk_header(info: str, language: str) -> None:
    assert info_language(info) == language


def test_git_commit_of_a_drifted_quarto_paper_is_blocked(ledger: Ledger, project: Path,
                                                         env: dict[str, str]) -> None:  # noqa: F811
    """The pre-commit hook reads a staged ``.qmd`` as it reads Markdown: drift in its prose
    blocks the commit; a number in a ```` ```{r, echo=FALSE} ```` chunk does not."""
    git_project(ledger, project, env, "paper/*.qmd")
    (project / "paper").mkdir()
    installed = subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=project,
                               env=env, capture_output=True, text=True, check=False, timeout=120)
    assert installed.returncode == 0, installed.stderr
    chunk = "```{r, echo=FALSE}\npsnr <- 30.55  # PSNR of the first try\n```\n\n"

    def commit(prose: str) -> subprocess.CompletedProcess[str]:
        (project / "paper" / "paper.qmd").write_text(FRONT + chunk + prose)
        git(project, "add", "-A", env=env)
        return git(project, "commit", "-q", "-m", "paper", env=env, check=False)

    blocked = commit("Ours: PSNR 31.5 dB.\n")
    assert blocked.returncode != 0
    assert "paper/paper.qmd:15:12: C1 says 31.5, evidence says 31.42" in (
        blocked.stdout + blocked.stderr)
    passed = commit("Ours: PSNR 31.42 dB.\n")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_included_quarto_and_knitr_child_documents_are_read(tmp_path: Path) -> None:
    """Quarto's ``{{< include F >}}`` and knitr's ``child=`` chunks put another file's text in
    the paper: it is read as a document too (from the including file's folder); one shown in
    code, or naming no file, is not."""
    from labledger.reconcile.drift import reconcile_paths

    files = {
        "paper/paper.qmd": FRONT + "## Results\n\n{{< include _results.qmd >}}\n\n"
                           '{{< include "sections/_more.md" >}}\n\n'
                           "```markdown\n{{< include _shown.qmd >}}\n```\n\n"
                           "{{< include _not_written_yet.qmd >}}\n",
        "paper/_results.qmd": "Ours reaches a PSNR of 31.5 dB.\n",
        "paper/sections/_more.md": "The top-1 accuracy is 91.3%.\n",
        "paper/_shown.qmd": "Ours reaches a PSNR of 99.0 dB.\n",
        "report/report.Rmd": '```{r child="child.Rmd"}\n```\n\n'
                             "```{r, child = c('a.Rmd', \"b.Rmd\")}\n```\n",
        "report/child.Rmd": "Ours reaches a PSNR of 30.5 dB.\n",
        "report/a.Rmd": "The top-1 accuracy is 91.3%.\n",
        "report/b.Rmd": "Ours reaches a PSNR of 31.42 dB.\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    report = reconcile_paths([tmp_path / "paper" / "paper.qmd", tmp_path / "report" /
                              "report.Rmd"], CLAIMED, jobs=1, cwd=tmp_path, project=tmp_path)
    assert [(f.path, f.type, f.shown) for f in report.findings] == [
        ("paper/_results.qmd", "drift", "31.5"), ("report/child.Rmd", "drift", "30.5")]
    assert sorted((m.path, m.claims) for m in report.matches) == [
        ("paper/sections/_more.md", ("A1",)), ("report/a.Rmd", ("A1",)),
        ("report/b.Rmd", ("C1",))]
    assert (report.documents, report.included) == (7, 5)
