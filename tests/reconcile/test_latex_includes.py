"""`labledger reconcile paper/main.tex` judges the paper LaTeX builds from it
(`included.with_included`).

Before, only main.tex's own text was read: a main file of ``\\input``s reported "no drift"
over a paper whose chapters, generated tables and result macros had drifted. Now each ``.tex``
file a LaTeX document reconciled includes (``\\input``, ``\\include``, ``\\subfile``,
``\\import``...) is read as a document too, and the files those include; a name naming no file,
another kind of file, a file outside the project (or not in git's index) and a commented-out
include are not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger.ledger import Ledger
from labledger.reconcile.drift import reconcile_paths
from labledger.reconcile.errors import DocumentError
from tests.reconcile.test_documents import claim
from tests.reconcile.test_precommit import (  # noqa: F401 - the env fixture
    commit_all,
    env,
    git,
    git_project,
    install_hooks,
)
from tests.reconcile.test_tex_macro_anchors import CLAIMS, found

MAIN = ("\\documentclass{article}\n\\input{results}\n\\begin{document}\n"
        "\\input{sections/results}\n%\\input{sections/old}\n\\input{tables/missing}\n"
        "\\input{plot.pgf}\n\\end{document}\n")
FILES = {
    "paper/main.tex": MAIN,
    "paper/results.tex": "\\newcommand{\\psnrOurs}{31.52}\n",
    "paper/sections/results.tex": "FooNet reaches \\psnrOurs{}\\,dB PSNR.\n\\input{tables/main}\n",
    "paper/tables/main.tex": "\\begin{tabular}{lc}\nMethod & PSNR \\\\\nFooNet & 31.40 \\\\\n"
                             "\\end{tabular}\n",
    "paper/sections/old.tex": "FooNet reaches 99.0 dB PSNR.\n",  # commented out: not built
    "paper/plot.pgf": "FooNet 77.0 PSNR\n",  # not LaTeX source reconcile reads
}


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def declare_foonet(ledger: Ledger) -> None:
    """Claim F1 in ``ledger``: FooNet's PSNR, 31.42 dB (as `CLAIMS` holds it)."""
    ledger.append("claim.declared", run="r1", claim="F1", metric="psnr", value=31.42,
                  direction="higher", source_digest="blake3:" + "0" * 64, unit="dB",
                  aliases=["FooNet"])


def reconcile(root: Path, *paths: str) -> Any:
    here = Path.cwd()
    os.chdir(root)
    try:
        return reconcile_paths([Path(p) for p in paths], CLAIMS, jobs=1, project=root)
    finally:
        os.chdir(here)


def test_the_main_file_reads_the_files_it_includes(tmp_path: Path) -> None:
    make(tmp_path, FILES)
    report = reconcile(tmp_path, "paper/main.tex")
    assert found(report) == [("paper/sections/results.tex", "drift", ("F1",), "31.52"),
                             ("paper/tables/main.tex", "drift", ("F1",), "31.40")]
    assert report.findings[0].message.endswith(
        "\\psnrOurs prints it, defined at paper/results.tex:1)")
    assert (report.documents, report.included) == (4, 3)
    assert report.to_json()["included"] == 3


def test_files_given_are_not_read_twice(tmp_path: Path) -> None:
    make(tmp_path, FILES)
    report = reconcile(tmp_path, "paper/main.tex", "paper/results.tex",
                       "paper/sections/results.tex", "paper/tables/main.tex")
    assert (report.documents, report.included) == (4, 0)
    assert len(report.findings) == 2


def test_a_chapter_alone_does_not_pull_in_its_main_file(tmp_path: Path) -> None:
    make(tmp_path, {**FILES, "paper/sections/results.tex":
                    "\\documentclass[../main.tex]{subfiles}\nFooNet reaches 31.42 dB PSNR.\n"})
    report = reconcile(tmp_path, "paper/sections/results.tex")
    assert (report.documents, report.included, found(report)) == (1, 0, [])


def test_includes_that_include_each_other_are_read_once(tmp_path: Path) -> None:
    make(tmp_path, {"a.tex": "\\input{b}\nFooNet reaches 31.5 dB PSNR.\n",
                    "b.tex": "\\input{a}\n\\include{c}\n",
                    "c.tex": "Bicubic reaches 30.10 dB PSNR.\n"})
    report = reconcile(tmp_path, "a.tex")
    assert (report.documents, report.included) == (3, 2)
    assert [f.path for f in report.findings] == ["a.tex"]


def test_an_include_outside_the_project_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "project"
    make(tmp_path, {"shared/macros.tex": "FooNet reaches 99.0 dB PSNR.\n"})
    make(root, {"main.tex": "\\input{../shared/macros}\n\\input{linked}\n"})
    (root / "linked.tex").symlink_to(tmp_path / "shared" / "macros.tex")
    report = reconcile(root, "main.tex")
    assert (report.documents, report.included, report.findings) == (1, 0, [])


@pytest.mark.parametrize(("data", "says"), [
    (b"FooNet \xff 31.5\n", "not UTF-8"),
    (b"FooNet \x00 31.5\n", "NUL"),
])
def test_an_included_file_that_cannot_be_read_is_an_error_naming_the_include(
        tmp_path: Path, data: bytes, says: str) -> None:
    make(tmp_path, {"paper/main.tex": "\\begin{document}\n\\input{body}\n\\end{document}\n"})
    (tmp_path / "paper" / "body.tex").write_bytes(data)
    with pytest.raises(DocumentError) as caught:
        reconcile(tmp_path, "paper/main.tex")
    [(path, why)] = caught.value.problems
    assert path == "paper/body.tex"
    assert why.startswith("included at paper/main.tex:2: ")
    assert says in why


def test_the_command_counts_the_files_included(
        ledger: Ledger, project: Path,
        run_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    declare_foonet(ledger)
    make(project, FILES)
    proc = run_cli("reconcile", "paper/main.tex")
    assert proc.returncode == 3, proc.stderr
    assert "paper/sections/results.tex:1:22: F1 says 31.52, evidence says 31.42 dB" in proc.stdout
    assert "paper/tables/main.tex:3:10: F1 says 31.40" in proc.stdout
    assert "reconcile: 4 documents (3 included by the files given), " in proc.stderr
    data = json.loads(run_cli("reconcile", "paper/main.tex", "--json").stdout)
    assert (data["documents"], data["included"], data["counts"]) == (4, 3, {"drift": 2})


def test_git_commit_judges_the_staged_chapters_of_the_configured_main_file(
        ledger: Ledger, project: Path, env: dict[str, str]) -> None:  # noqa: F811
    """With ``documents = ["paper/main.tex"]``, the pre-commit hook reads the chapters main.tex
    includes as the index holds them; an untracked one (not in the commit) is not read."""
    git_project(ledger, project, env, "paper/main.tex", "F1", ("FooNet",))
    (project / ".gitignore").write_text(".labledger/\npaper/draft.tex\n")
    make(project, {"paper/main.tex": "\\input{chapter}\n\\input{draft}\n",
                   "paper/chapter.tex": "FooNet reaches 31.5 dB PSNR.\n",
                   "paper/draft.tex": "FooNet reaches 99.0 dB PSNR.\n"})
    install_hooks(project, env)
    blocked = commit_all(project, env)
    assert blocked.returncode != 0
    output = blocked.stdout + blocked.stderr
    assert "paper/chapter.tex:1:16: F1 says 31.5, evidence says 31.42" in output
    assert "99.0" not in output  # paper/draft.tex is ignored: the commit holds none
    (project / "paper" / "chapter.tex").write_text("FooNet reaches 31.42 dB PSNR.\n")
    passed = commit_all(project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


_PIECES = ["\\input{", "\\include{", "\\subfile{", "\\import{", "}{", "}", "{", "a", "b",
           "../x", "/abs", "sub/", ".tex", "%", "\n", "\\begin{verbatim}", "\\end{verbatim}",
           "\\documentclass[a.tex]{subfiles}", "{{< include ", " >}}", "```{r child='b.md'}",
           "```", "a.md", "\udcff", "\x00"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join),
                      min_size=3, max_size=3))
def test_any_includes_read_or_fail_with_a_document_error(tmp_path: Path,
                                                          texts: list[str]) -> None:
    """Whatever files include each other (cycles, missing names, other kinds, bytes that are
    not text), reading them ends: documents, or one `DocumentError`."""
    root = tmp_path / "fuzz"
    shutil.rmtree(root, ignore_errors=True)
    (root / "sub").mkdir(parents=True)
    for name, text in zip(("a.tex", "sub/b.tex", "a.md"), texts, strict=True):
        (root / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        report = reconcile(root, "a.tex", "a.md")
    except DocumentError as exc:
        problems = exc.problems
    else:
        assert 2 <= report.documents <= 3  # the two given, and sub/b.tex when included
        return
    assert problems
    assert all(path in ("a.tex", "a.md", "sub/b.tex") for path, _ in problems), problems


# Tables as pandas 3.1.1 writes them (df.to_latex(float_format="%.2f") of a frame indexed by
# "method", which df.style.format("{:.2f}").to_latex(hrules=True) writes alike; the same frame
# reset, index=False, "%.3f"), the files a results script writes and the paper \\inputs
PANDAS_TABLES = ["""\\begin{tabular}{lrr}
\\toprule
 & PSNR & SSIM \\\\
method &  &  \\\\
\\midrule
Bicubic & 30.10 & 0.87 \\\\
FooNet & 31.42 & 0.91 \\\\
\\bottomrule
\\end{tabular}
""", """\\begin{tabular}{lrr}
\\toprule
method & PSNR & SSIM \\\\
\\midrule
Bicubic & 30.100 & 0.868 \\\\
FooNet & 31.420 & 0.912 \\\\
\\bottomrule
\\end{tabular}
"""]
PANDAS_CLAIMS = [*CLAIMS, claim("S1", "ssim", 0.912, aliases=("FooNet",)),
                 claim("S0", "ssim", 0.868, aliases=("Bicubic",), run="r0")]


@pytest.mark.parametrize("table", PANDAS_TABLES)
def test_a_table_a_script_wrote_with_pandas_is_judged_through_the_input(
        tmp_path: Path, table: str) -> None:
    make(tmp_path, {"paper/main.tex": "\\begin{table}\n\\input{tables/psnr}\n\\end{table}\n",
                    "paper/tables/psnr.tex": table})
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        report = reconcile_paths([Path("paper/main.tex")], PANDAS_CLAIMS, jobs=1,
                                 project=tmp_path)
        assert report.findings == []
        assert sorted(m.claims for m in report.matches) == [("B0",), ("F1",), ("S0",), ("S1",)]
        (tmp_path / "paper" / "tables" / "psnr.tex").write_text(table.replace("31.42", "31.52"))
        drifted = reconcile_paths([Path("paper/main.tex")], PANDAS_CLAIMS, jobs=1,
                                  project=tmp_path)
    finally:
        os.chdir(here)
    assert [(f.path, f.claims, f.shown[:5]) for f in drifted.findings] == [
        ("paper/tables/psnr.tex", ("F1",), "31.52")]
