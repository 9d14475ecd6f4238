"""Typst papers (``.typ``) are reconciled: their markup as Markdown's text, their tables, their
markers and the files they ``#include``.

Before, `labledger reconcile paper.typ` refused the file ("unknown document type '.typ'").
Now `typst_pages.page_text` keeps the markup (headings read as Markdown's) and blanks code and
comments, one character for one; a ``table(...)`` call is a table (`typst_pages.typst_table`);
``labledger.typ``'s ``#claim("C1")[31.42]`` is a marker. Every Typst document here is compiled
by the real Typst compiler (the ``typst`` package) first, so each is a paper Typst accepts.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import typst
from hypothesis import given, settings
from hypothesis import strategies as st

import labledger.reconcile
from labledger.ledger.ledger import Ledger
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.typst_pages import page_text, typst_table
from tests.reconcile.test_latex_includes import declare_foonet, make, reconcile
from tests.reconcile.test_precommit import (  # noqa: F401 - the env fixture
    commit_all,
    env,
    git_project,
    install_hooks,
)
from tests.reconcile.test_tex_macro_anchors import CLAIMS, found, run

LABLEDGER_TYP = Path(labledger.reconcile.__file__).with_name("labledger.typ")


def compiled(root: Path, name: str) -> None:
    """Compile ``root/name`` with Typst: the test's paper is one Typst accepts."""
    pdf = typst.compile(str(root / name), root=str(root), format="pdf")
    assert isinstance(pdf, bytes)
    assert pdf.startswith(b"%PDF")


def judged(tmp_path: Path, text: str, name: str = "paper.typ") -> list[tuple[str, str, str]]:
    """(line:col, finding type, number shown) of each finding in the Typst paper ``text``."""
    make(tmp_path, {name: text})
    (tmp_path / "labledger.typ").write_text(LABLEDGER_TYP.read_text())
    compiled(tmp_path, name)
    report = reconcile(tmp_path, name)
    return [(f"{f.line}:{f.col}", f.type, f.shown or "") for f in report.findings]


PAPER = """#import "labledger.typ": claim
#set page(margin: 1.5in) // 1.5 inch margins: FooNet 97.0 PSNR
#set heading(numbering: "1.1")
#let best = [FooNet reaches 96.0 dB PSNR]
#let psnr = 31.52

#show: body => {
  set par(justify: true)
  body
}
#align(center)[*Sharper Super-Resolution* \\
  FooNet reaches 31.41 dB PSNR on Set5.]

= Introduction
FooNet reaches 31.40 dB PSNR on Set5, trained for 300 epochs with batch size 16 @intro.
/* An old draft: FooNet reaches 98.0 dB PSNR. */
The value #psnr is defined above; see https://example.com/x for FooNet's code.

== Results <intro>
#figure(
  table(
    columns: (auto, 1fr, 1fr),
    align: center,
    table.header([Method], [PSNR], [SSIM]),
    table.hline(),
    [Bicubic], [30.10], [0.868],
    [FooNet], [*31.44*], [#strong[0.912]],
  ),
  caption: [PSNR in dB on Set5, scaled by 4.],
) <tab:main>

```python
psnr = 95.0  # FooNet
```

#if true [FooNet reaches 31.46 dB PSNR in the appendix.]
"""


def test_a_typst_paper_is_judged_as_typst_shows_it(tmp_path: Path) -> None:
    assert judged(tmp_path, PAPER) == [
        ("12:18", "drift", "31.41"),   # in a call's content block: shown
        ("15:16", "drift", "31.40"),   # prose
        ("17:11", "drift", "31.52"),   # #psnr shows the value #let gives it
        ("27:17", "drift", "31.44"),   # a table cell, in bold
        ("36:26", "drift", "31.46")]   # a branch's content: shown
    # not read: a comment's 97.0 and 98.0, a #let's 96.0 (a figure's text, not printed there),
    # the definition of #psnr, a code block's 95.0, the margins of #set, a label's and a
    # reference's digits


def test_the_text_keeps_the_files_length_and_lines() -> None:
    text = page_text(PAPER)
    assert len(text) == len(PAPER)
    assert [i for i, c in enumerate(text) if c == "\n"] == \
        [i for i, c in enumerate(PAPER) if c == "\n"]
    assert "\n# Introduction\n" in text
    assert "\n## Results " in text
    for code in ("96.0", "97.0", "98.0", "1.5in", "@intro"):
        assert code not in text
    assert "#let psnr = 31.52" in text  # a value's definition, for `shown_values`


def test_a_show_rule_template_shows_its_abstract(tmp_path: Path) -> None:
    paper = ('#let paper(title: none, abstract: none, body) = {\n'
             '  align(center, text(17pt, title))\n  abstract\n  body\n}\n'
             '#show: paper.with(\n  title: [Sharper],\n'
             '  abstract: [FooNet reaches 31.40 dB PSNR on Set5.],\n)\n'
             'Body text.\n')
    assert judged(tmp_path, paper) == [("8:29", "drift", "31.40")]


# --- tables ----------------------------------------------------------------------------------

def table_of(text: str, at: str) -> list[list[str]]:
    seg = read_document("t.typ", text.encode())[0]
    table = typst_table(seg, seg.text.index(at))
    assert table is not None
    return [[c.text for c in table.header]] + [[c.text for c in row] for row in table.rows]


@pytest.mark.parametrize(("source", "rows"), [
    ('#table(columns: 3, [Method], [PSNR], [SSIM],\n  [FooNet], [31.42], [0.912])\n',
     [["Method", "PSNR", "SSIM"], ["FooNet", "31.42", "0.912"]]),
    ('#table(\n  columns: (auto, auto),\n  "Method", "PSNR",\n  "FooNet", "31.42",\n)\n',
     [["Method", "PSNR"], ["FooNet", "31.42"]]),
    ('#table(columns: 2)[Method][PSNR][FooNet][31.42]\n',
     [["Method", "PSNR"], ["FooNet", "31.42"]]),
    ('#table(columns: 3,\n  table.header(table.cell(rowspan: 2)[Method], '
     'table.cell(colspan: 2)[Set5], [PSNR], [SSIM]),\n  [FooNet], [31.42], [0.912],\n)\n',
     [["Method", "Set5 PSNR", "Set5 SSIM"], ["FooNet", "31.42", "0.912"]]),
    ('#table(columns: 3,\n  [Method], [Set], [PSNR],\n  table.cell(rowspan: 2)[FooNet], [Set5], '
     '[31.42],\n  [Set14], [28.10],\n)\n',
     [["Method", "Set", "PSNR"], ["FooNet", "Set5", "31.42"], ["FooNet", "Set14", "28.10"]]),
])
def test_a_table_call_is_laid_out_as_typst_lays_it_out(tmp_path: Path, source: str,
                                                         rows: list[list[str]]) -> None:
    make(tmp_path, {"t.typ": source})
    compiled(tmp_path, "t.typ")
    assert table_of(source, "FooNet") == rows


@pytest.mark.parametrize("source", [
    '#table([Method], [PSNR], [FooNet], [31.42])\n',                       # one column
    '#let n = 2\n#table(columns: n, [Method], [PSNR], [FooNet], [31.42])\n',  # computed
    '#let rows = ([FooNet], [31.42])\n#table(columns: 2, [Method], [PSNR], ..rows)\n',
])
def test_a_table_this_reader_cannot_lay_out_is_read_as_prose(tmp_path: Path,
                                                              source: str) -> None:
    make(tmp_path, {"t.typ": source})
    compiled(tmp_path, "t.typ")
    seg = read_document("t.typ", source.encode())[0]
    assert typst_table(seg, seg.text.index("table(") + 1) is None


@pytest.mark.parametrize("count", ["\u00b2", "1" * 5000])
def test_a_count_that_is_no_ascii_number_refuses_the_table_without_a_traceback(
        count: str) -> None:
    """``str.isdigit`` takes "²" (and int() refuses it) and 5,000 digits exceed int()'s limit:
    such a ``columns`` or ``colspan`` reads the table as prose."""
    for source in (f"#table(columns: {count}, [Method], [PSNR], [FooNet], [31.42])\n",
                   f"#table(columns: 2, table.cell(colspan: {count})[Method], [PSNR],\n"
                   "  [FooNet], [31.42])\n"):
        seg = read_document("t.typ", source.encode())[0]
        assert typst_table(seg, seg.text.index("table(") + 1) is None
        assert run({"t.typ": source}, CLAIMS).findings == []  # read as prose: 31.42 is right


def test_a_drifted_cell_is_found_by_row_and_column(tmp_path: Path) -> None:
    paper = ('= Results\n#table(\n  columns: 3,\n  [Method], [PSNR], [SSIM],\n'
             '  [Bicubic], [30.10], [0.868],\n  [FooNet], [31.50], [0.912],\n)\n'
             'PSNR in dB on Set5.\n')
    assert judged(tmp_path, paper) == [("6:14", "drift", "31.50")]


# --- markers and includes --------------------------------------------------------------------

MARKED = """#import "labledger.typ": claim, claimdelta, noclaim
= Results
Ours reaches #claim("F1")[31.40] dB, #claimdelta("F1", "B0")[+1.32] dB over the baseline.
FooNet gets 99.0 dB PSNR in a broken setting. #noclaim
"""


def test_labledger_typ_markers_are_read(tmp_path: Path) -> None:
    assert judged(tmp_path, MARKED) == [("3:27", "drift", "31.40")]
    report = reconcile(tmp_path, "paper.typ")
    assert [(m.claims, m.shown) for m in report.matches] == [(("F1", "B0"), "+1.32")]


def test_a_marker_typst_accepts_but_reconcile_cannot_read_is_a_finding(tmp_path: Path) -> None:
    paper = '#import "labledger.typ": claim\n#let F1 = "F1"\nOurs: #claim(F1)[31.4] dB.\n'
    [(where, kind, _)] = judged(tmp_path, paper)
    assert (where, kind) == ("3:7", "marker")
    report = reconcile(tmp_path, "paper.typ")
    assert 'expected #claim("C1")[31.42]' in report.findings[0].message


def test_the_shipped_labledger_typ_shows_each_marker_content_unchanged(tmp_path: Path) -> None:
    make(tmp_path, {"p.typ": MARKED})
    (tmp_path / "labledger.typ").write_text(LABLEDGER_TYP.read_text())
    shown = typst.query(str(tmp_path / "p.typ"), "heading", field="body", root=str(tmp_path))
    assert json.loads(shown) == [{"func": "text", "text": "Results"}]
    compiled(tmp_path, "p.typ")
    assert judged(tmp_path, "#import \"labledger.typ\": claim\nA #claim(\"F1\")[31.42] dB.\n",
                  "q.typ") == []


def test_a_typst_paper_reads_the_chapters_it_includes(tmp_path: Path) -> None:
    make(tmp_path, {"paper/main.typ": '= Paper\n#include "chapters/results.typ"\n'
                                      '// #include "chapters/old.typ"\n',
                    "paper/chapters/results.typ": "FooNet reaches 31.40 dB PSNR.\n",
                    "paper/chapters/old.typ": "FooNet reaches 99.0 dB PSNR.\n"})
    compiled(tmp_path / "paper", "main.typ")
    report = reconcile(tmp_path, "paper/main.typ")
    assert found(report) == [("paper/chapters/results.typ", "drift", ("F1",), "31.40")]
    assert report.included == 1


def test_the_command_reads_a_typst_paper(
        ledger: Ledger, project: Path,
        run_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    declare_foonet(ledger)
    make(project, {"paper/paper.typ": "= Results\nFooNet reaches 31.50 dB PSNR.\n"})
    proc = run_cli("reconcile", "paper/")
    assert proc.returncode == 3, proc.stderr
    assert "paper/paper.typ:2:16: F1 says 31.50, evidence says 31.42 dB" in proc.stdout
    data = json.loads(run_cli("reconcile", "paper/paper.typ", "--json").stdout)
    assert data["counts"] == {"drift": 1}


def test_a_typst_table_in_the_tex_macro_suite_claims(tmp_path: Path) -> None:
    """The same claims judged through `reconcile_segments` (no files): one drift, one match."""
    report = run({"t.typ": "#table(columns: 2, [Method], [PSNR], [FooNet], [31.40], "
                           "[Bicubic], [30.10])\n"}, CLAIMS)
    assert found(report) == [("t.typ", "drift", ("F1",), "31.40")]
    assert [m.shown for m in report.matches] == ["30.10"]


# --- values: #let psnr = 31.52, shown where #psnr is used -------------------------------------

RESULTS = ('#let psnr_ours = 31.50\n#let psnr_bicubic = 30.10\n#let ssim_ours = "0.912"\n'
           '#let p = 31.50\n')
VALUES_MAIN = """#import "results.typ": *
= Results
FooNet reaches #psnr_ours dB PSNR; FooNet's short #p dB PSNR has no room.
#table(
  columns: 2,
  [Method], [PSNR],
  [FooNet], [#psnr_ours],
  [Bicubic], [#psnr_bicubic],
)
"""


def test_a_value_is_read_where_typst_shows_it(tmp_path: Path) -> None:
    make(tmp_path, {"paper/results.typ": RESULTS, "paper/main.typ": VALUES_MAIN})
    html = typst.compile(str(tmp_path / "paper" / "main.typ"), format="html").decode()
    assert "FooNet reaches 31.5 dB PSNR" in html  # Typst shows the float 31.50 as 31.5
    assert "<td>30.1</td>" in html
    report = reconcile(tmp_path, "paper/main.typ")
    assert [(f.line, f.col, f.shown) for f in report.findings] == [(3, 22, "31.5"),
                                                                    (7, 20, "31.5")]
    assert report.findings[0].message.endswith(
        "#psnr_ours prints it, defined at paper/results.typ:1)")
    assert [(m.claims, m.shown) for m in report.matches] == [(("B0",), "30.1")]
    assert report.included == 1  # results.typ, which main.typ imports


def test_a_value_changed_in_its_module_is_judged_again_through_the_cache(tmp_path: Path) -> None:
    make(tmp_path, {"results.typ": "#let psnr_ours = 31.42\n",
                    "main.typ": '#import "results.typ": psnr_ours\n'
                                "FooNet reaches #psnr_ours dB PSNR.\n"})
    cache = tmp_path / "cache"

    def judged_with_cache() -> list[str]:
        segments = [s for name in ("main.typ", "results.typ")
                    for s in read_document(name, (tmp_path / name).read_bytes())]
        return [f.shown or "" for f in reconcile_segments(segments, CLAIMS, jobs=1,
                                                          cache=cache).findings]

    assert judged_with_cache() == []
    (tmp_path / "results.typ").write_text("#let psnr_ours = 31.50\n")
    assert judged_with_cache() == ["31.5"]


def test_git_commit_judges_the_staged_values_a_typst_paper_imports(
        ledger: Ledger, project: Path, env: dict[str, str]) -> None:  # noqa: F811
    """With ``documents = ["paper/main.typ"]``, the pre-commit hook reads the module main.typ
    imports as git's index holds it: a results script's regenerated value is judged at its
    use."""
    git_project(ledger, project, env, "paper/main.typ", "F1", ("FooNet",))
    make(project, {"paper/main.typ": VALUES_MAIN.replace("#p dB PSNR has no room", "results"),
                   "paper/results.typ": RESULTS})
    install_hooks(project, env)
    blocked = commit_all(project, env)
    assert blocked.returncode != 0
    output = blocked.stdout + blocked.stderr
    assert "paper/main.typ:3:22: F1 says 31.5, evidence says 31.42 dB" in output
    assert "#psnr_ours prints it, defined at paper/results.typ:1" in output
    (project / "paper" / "results.typ").write_text(RESULTS.replace("31.50", "31.42"))
    passed = commit_all(project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


@pytest.mark.parametrize("source", [
    # a value computed when Typst runs: its name is no anchor ("psnr" is PSNR's)
    "#let psnr = calc.round(31.4234, digits: 2)\nOurs reaches 31.40 #psnr.\n",
    # two definitions that differ: which one shows depends on the order Typst reads them
    "#let psnr = 31.50\n#let psnr = 31.60\nOurs reaches 31.40 #psnr.\n",
])
def test_a_value_not_known_is_no_number_and_no_anchor(tmp_path: Path, source: str) -> None:
    assert judged(tmp_path, source) == []


# --- any text --------------------------------------------------------------------------------

_PIECES = ["#", "let", "set", "show", "table(", "columns: 2", "(", ")", "[", "]", "{", "}",
           "\"", "//", "/*", "*/", "`", "```", "$", "\\", "=", " ", "\n", "FooNet", "31.42",
           "#claim(\"F1\")", "table.cell(colspan: 2)", "table.header(", ",", "..", "<l>", "@r",
           "https://", ":", "#let x = 31.5", "#x", "#import \"b.typ\"", "-"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_any_text_keeps_its_length_and_lines_and_reads(text: str) -> None:
    out = page_text(text)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]
    run({"fuzz.typ": text}, CLAIMS)  # judging it ends, without an exception
