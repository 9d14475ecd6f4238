"""Table shapes READMEs and spreadsheet exports use, each alone (the README review,
test_readme_tables_review.py, has them together as found):

* a Markdown table inside a quote ("> | ... |"): before, the rule line under its header did
  not read as one, so the table was read as sentences;
* a group's later rows with an empty first cell ("|  | **FGA** | 32.30 |"), Markdown and CSV:
  before, they named no group, so a claim of one group's FGA row was judged in every group's;
* a row with no label of its own under a group ("|  | 31.20 |", a total) is not the group's;
* a size as a row label ("384x384") is no number;
* a LaTeX noclaim on the header's line silences the whole table, as documented.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim, judge


def found(report: Report) -> list[tuple[str, int, tuple[str, ...]]]:
    return [(f.type, f.line, f.claims) for f in report.findings]


def matched(report: Report) -> list[tuple[int, tuple[str, ...]]]:
    return [(m.line, m.claims) for m in report.matches]


QUOTED = ("> Results on Kodak.\n"
          ">\n"
          "> | Method | PSNR | SSIM |\n"
          "> |:--|--:|--:|\n"
          "> | Baseline | 30.10 | 0.8812 |\n"
          "> | Ours | {psnr} | 0.9134 |\n")
KODAK = [claim("B", "psnr", 30.1043, run="base", aliases=("Baseline",)),
         claim("P", "psnr", 31.4218, run="ours", aliases=("Ours",)),
         claim("S", "ssim", 0.91341, run="ours", aliases=("Ours",))]


def test_a_quoted_markdown_table_is_a_table() -> None:
    report = judge(QUOTED.format(psnr="31.42"), KODAK, "README.md")
    assert found(report) == []
    assert matched(report) == [(5, ("B",)), (6, ("P",)), (6, ("S",))]
    # before: read as lines of prose, where "Ours" names a PSNR and an SSIM claim and so
    # says which quantity neither number is: the drift went unseen
    assert found(judge(QUOTED.format(psnr="31.52"), KODAK, "README.md")) == [("drift", 6, ("P",))]


GROUPED = ("| Backbone | Upsampler | Set5 | Urban100 |\n"
           "|---|---|---|---|\n"
           "| EDSR | SPC | 32.12 | 26.08 |\n"
           "|      | FGA | {edsr_fga} | 26.27 |\n"
           "| RCAN | SPC | 32.34 | 26.44 |\n"
           "|      | FGA | {rcan_fga} | 26.52 |\n"
           "|      | 32.40 | 26.30 |\n")  # no label of its own: a mean, nobody's row
GROUP_CLAIMS = [claim("E", "psnr", 32.3012, run="edsr", aliases=("EDSR", "FGA", "Set5")),
                claim("R", "psnr", 32.4321, run="rcan", aliases=("RCAN", "FGA", "Set5"))]


@pytest.mark.parametrize(("edsr", "rcan", "drifts", "matches"), [
    ("32.30", "32.43", [], [(4, ("E",)), (6, ("R",))]),
    ("32.40", "32.43", [("drift", 4, ("E",))], [(6, ("R",))]),
    ("32.30", "32.53", [("drift", 6, ("R",))], [(4, ("E",))]),
])
def test_an_empty_first_cell_continues_the_group_above(
        edsr: str, rcan: str, drifts: list[tuple[str, int, tuple[str, ...]]],
        matches: list[tuple[int, tuple[str, ...]]]) -> None:
    # each FGA row is its own backbone's (before, both rows named only "FGA" and "Set5", and
    # each claim was judged against both numbers)
    report = judge(GROUPED.format(edsr_fga=edsr, rcan_fga=rcan), GROUP_CLAIMS, "README.md")
    assert found(report) == drifts
    assert matched(report) == matches


def test_a_spreadsheet_export_of_merged_cells_groups_its_rows() -> None:
    csv = ("backbone,upsampler,set5\n"
           "EDSR,SPC,32.12\n"
           ",FGA,{edsr}\n"
           "RCAN,SPC,32.34\n"
           ",FGA,32.43\n")
    assert found(judge(csv.format(edsr="32.30"), GROUP_CLAIMS, "results.csv")) == []
    assert found(judge(csv.format(edsr="32.20"), GROUP_CLAIMS, "results.csv")) == \
        [("drift", 3, ("E",))]


def test_a_row_with_no_label_of_its_own_stays_out_of_the_group() -> None:
    """A guard for the rule above (it held before: nothing filled any row)."""
    # the last row's 32.40 would be EDSR's or RCAN's FGA number if it took the label above
    claims = [claim("M", "psnr", 32.4012, run="mean", aliases=("RCAN",))]
    text = GROUPED.format(edsr_fga="32.30", rcan_fga="32.43")
    report = judge(text, claims, "README.md")
    assert (7, ("M",)) not in matched(report)


@pytest.mark.parametrize(("label", "alias"), [
    ("384x384", "384x384"),
    ("384 \u00d7 384", "384 \u00d7 384"),
    ("384\u00d7384", "384x384"),  # the sign papers print, the letter a user types
])
def test_a_resolution_is_a_row_label_not_a_number(label: str, alias: str) -> None:
    text = ("| name | resolution | acc@1 |\n|---|---|---|\n"
            "| ConvNeXt-B | 224x224 | 83.8 |\n"
            "| ConvNeXt-B | " + label + " | {acc} |\n")
    claims = [claim("V", "acc@1", 0.85104, aliases=("ConvNeXt-B", alias))]
    assert found(judge(text.format(acc="85.1"), claims, "README.md")) == []
    # before: "384x384" was a number cell (and "×" no anchor), so the row named only
    # ConvNeXt-B, like the 224 row, and the claim drifted against 83.8
    assert found(judge(text.format(acc="85.3"), claims, "README.md")) == [("drift", 4, ("V",))]


LATEX = ("\\begin{{tabular}}{{lc}}\n"
         "Method & PSNR \\\\{comment}\n"
         "\\midrule\n"
         "Ours & 31.52 \\\\\n"
         "Baseline & 29.00 \\\\\n"
         "\\end{{tabular}}\n")


def test_a_noclaim_on_the_header_line_silences_the_whole_table() -> None:
    claims = [claim("O", "psnr", 31.4218, run="ours", aliases=("Ours",)),
              claim("B", "psnr", 30.1043, run="base", aliases=("Baseline",))]
    assert found(judge(LATEX.format(comment=""), claims, "t.tex")) == [
        ("drift", 4, ("O",)), ("drift", 5, ("B",))]
    # before: only the first body row (Ours) was silenced, and Baseline's 29.00 drifted
    assert found(judge(LATEX.format(comment=" % noclaim"), claims, "t.tex")) == []


ABUTTING = {
    "html": ("We report PSNR for Ours and Baseline\n<table>\n"
             "<tr><th>Method</th><th>PSNR</th></tr>\n<tr><td>Ours</td><td>{ours}</td></tr>\n"
             "<tr><td>Baseline</td><td>30.10</td></tr>\n</table>\n"
             "Ours and Baseline are compared above\n"),
    "pipe": ("We report PSNR for Ours and Baseline\n| Method | PSNR |\n|---|---|\n"
             "| Ours | {ours} |\n| Baseline | 30.10 |\nOurs and Baseline are compared above\n"),
}


@pytest.mark.parametrize("kind", list(ABUTTING))
def test_prose_touching_a_table_does_not_run_into_it(kind: str) -> None:
    """A sentence on the line above or below a table, with no blank line between: before, the
    sentence above ran on over an HTML table (whose numbers were then judged as its prose, not
    as cells), and the one below reached back into a pipe table's last row (30.10 judged twice,
    as a cell and as prose)."""
    claims = [claim("O", "psnr", 31.4218, run="ours", aliases=("Ours",)),
              claim("B", "psnr", 30.1043, run="base", aliases=("Baseline",))]
    report = judge(ABUTTING[kind].format(ours="31.42"), claims, "README.md")
    assert found(report) == []
    assert [(m.line, m.claims, m.via) for m in report.matches] == [
        (4, ("O",), "table"), (5, ("B",), "table")]
    report = judge(ABUTTING[kind].format(ours="31.52"), claims, "README.md")
    assert [(f.type, f.line, f.claims, f.via) for f in report.findings] == [
        ("drift", 4, ("O",), "table")]
