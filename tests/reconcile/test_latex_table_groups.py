"""LaTeX tables whose cells stand for groups: a ``\\multirow`` label over several rows, and a
``\\multicolumn`` header over several columns.

Before: a noclaim written in the first row of a ``\\multirow`` group silenced the rows under it
too (their first cell is the label, whose text starts back in that first row), and a
``... \\\\ % noclaim`` comment silenced the row after the one it ends; a drift in the row below
went unreported. A ``\\multicolumn{2}{c}{PSNR/SSIM}`` header headed both its columns with
"PSNR/SSIM", so a drifted SSIM read as PSNR-or-SSIM (ambiguous) instead of drift on SSIM.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_documents import judge
from tests.reconcile.test_papers_review_1 import Case, assert_case
from tests.reconcile.test_papers_review_2 import DATASETS, MULTIROW
from tests.reconcile.test_slash_pair_cells import CLAIMS

claim = partial(documents_claim, run="ours")


run = partial(judge, path="t.tex")


# --- noclaim in a \multirow group silences its own row only --------------------------------------
# MULTIROW: line 5 "\multirow{2}{*}{Baseline} & Kodak & 30.10", line 6 " & CBSD68 & {base}",
# line 8 "\multirow[c]{2}{*}{Ours} & Kodak & 31.42", line 10 " & CBSD68 & {ours}"

BASE_ROW1 = "\\multirow{2}{*}{Baseline} & Kodak & 30.10 \\\\\n"
# the group's first row, its Kodak number drifted (30.20, K0 is 30.10) and a noclaim in it
NOCLAIM_ROW1 = {
    "\\noclaim after the label": "\\multirow{2}{*}{Baseline} \\noclaim & Kodak & 30.20 \\\\\n",
    "\\noclaim inside the label": "\\multirow{2}{*}{Baseline \\noclaim} & Kodak & 30.20 \\\\\n",
    "\\noclaim in the row's last cell":
        "\\multirow{2}{*}{Baseline} & Kodak & 30.20 \\noclaim \\\\\n",
    "% noclaim ending the row's line":
        "\\multirow{2}{*}{Baseline} & Kodak & 30.20 \\\\ % noclaim\n",
}


def _grouped(row1: str, base: str, ours: str = "28.73") -> str:
    text = MULTIROW.format(base=base, ours=ours)
    assert BASE_ROW1 in text
    return text.replace(BASE_ROW1, row1)


@pytest.mark.parametrize("where", list(NOCLAIM_ROW1))
def test_a_drift_under_a_noclaim_row_of_a_multirow_group_is_reported(where: str) -> None:
    # row 2 (CBSD68, 27.98 where B0 is 27.90) was silenced by row 1's noclaim and passed
    report = run(_grouped(NOCLAIM_ROW1[where], base="27.98"), list(DATASETS.values()))
    assert_case(report, Case(where, "t.tex", "", [("drift", 6, ("B0",))],
                             [(8, ("K1",)), (10, ("B1",))]))


@pytest.mark.parametrize("where", list(NOCLAIM_ROW1))
def test_the_noclaim_row_itself_stays_silenced_and_the_group_is_still_judged(where: str) -> None:
    # row 1's drifted 30.20 is not judged; row 2's correct 27.90 matches B0 under the label
    report = run(_grouped(NOCLAIM_ROW1[where], base="27.90"), list(DATASETS.values()))
    assert_case(report, Case(where, "t.tex", "", [],
                             [(6, ("B0",)), (8, ("K1",)), (10, ("B1",))]))


PLAIN_ROWS = ("\\begin{tabular}{llc}\n\\toprule\nMethod & Dataset & PSNR \\\\\n\\midrule\n"
              "{row1}Baseline & CBSD68 & 27.98 \\\\\n\\bottomrule\n\\end{tabular}\n")


def test_a_noclaim_comment_ending_a_row_silences_that_row_not_the_next() -> None:
    # "... \\ % noclaim" is written on row 1's line; the next row's drift (27.98) was missed and
    # row 1's (30.20) reported
    text = PLAIN_ROWS.replace("{row1}", "Baseline & Kodak & 30.20 \\\\ % noclaim\n")
    assert_case(run(text, list(DATASETS.values())),
                Case("trailing comment", "t.tex", text, [("drift", 6, ("B0",))], []))


def test_a_noclaim_comment_on_its_own_line_silences_the_row_after_it() -> None:
    # unchanged: a comment line before a row is that row's
    text = PLAIN_ROWS.replace("{row1}", "Baseline & Kodak & 30.20 \\\\\n% noclaim\n")
    assert_case(run(text, list(DATASETS.values())),
                Case("comment line", "t.tex", text, [("drift", 5, ("K0",))], []))


# --- \multicolumn{2}{c}{PSNR/SSIM}: the k-th covered column is the k-th name ---------------------

def _spanned(header: str, base: str, ours: str, cols: str = "lcc") -> str:
    return ("\\begin{tabular}{" + cols + "}\n\\toprule\nMethod & " + header + " \\\\\n\\midrule\n"
            f"Baseline & {base} \\\\\nOurs & {ours} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


BASE = "30.10 & 0.8876"
BASE_MATCHED: list[tuple[int, tuple[str, ...]]] = [(5, ("P0",)), (5, ("S0",))]

SPANNED = [
    Case("a drifted SSIM under PSNR/SSIM is drift on S1 (was ambiguous P1/S1)", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR/SSIM}", BASE, "31.42 & 0.9234"),
         [("drift", 6, ("S1",))], [*BASE_MATCHED, (6, ("P1",))]),
    Case("spaces around the slash", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR / SSIM}", BASE, "31.42 & 0.9234"),
         [("drift", 6, ("S1",))], [*BASE_MATCHED, (6, ("P1",))]),
    Case("arrows after the names; a drifted PSNR is drift on P1", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR$\\uparrow$/SSIM$\\uparrow$}", BASE,
                  "\\textbf{31.52} & \\textbf{0.9134}"),
         [("drift", 6, ("P1",))], [*BASE_MATCHED, (6, ("S1",))]),
    Case("a dataset word before the names heads both columns", "t.tex",
         _spanned("\\multicolumn{2}{c}{Set5 PSNR/SSIM}", BASE, "31.42 & 0.9234"),
         [("drift", 6, ("S1",))], [*BASE_MATCHED, (6, ("P1",))]),
    Case("a column after the group keeps its own header", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR/SSIM} & LPIPS", BASE + " & 0.187",
                  "31.42 & 0.9234 & 0.123", cols="lccc"),
         [("drift", 6, ("S1",))], [*BASE_MATCHED, (5, ("L0",)), (6, ("P1",)), (6, ("L1",))]),
    Case("a header row above the group (a two-row header)", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR/SSIM}", BASE, "31.42 & 0.9234").replace(
             "\\toprule\n", "\\toprule\n & \\multicolumn{2}{c}{Set5} \\\\\n"),
         [("drift", 7, ("S1",))], [(6, ("P0",)), (6, ("S0",)), (7, ("P1",))]),
    Case("a matching pair is clean, each value matched on its own metric", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR/SSIM}", BASE, "\\textbf{31.42} & 0.9134"),
         [], [*BASE_MATCHED, (6, ("P1",)), (6, ("S1",))]),
    # --- another count of names than of columns: as before, every covered column is headed by
    # the whole text, so each number is PSNR-or-SSIM(-or-LPIPS) and a drift is ambiguous
    Case("three names over two columns: ambiguous, as before", "t.tex",
         _spanned("\\multicolumn{2}{c}{PSNR/SSIM/LPIPS}", BASE, "31.42 & 0.9234"),
         [("ambiguous", 6, ("L1", "P1", "S1"))], [*BASE_MATCHED, (6, ("P1",))]),
    Case("two names over three columns: ambiguous, as before", "t.tex",
         _spanned("\\multicolumn{3}{c}{PSNR/SSIM}", BASE + " & 0.187", "31.42 & 0.9234 & 0.123",
                  cols="lccc"),
         [("ambiguous", 5, ("P0", "S0")), ("ambiguous", 6, ("P1", "S1")),
          ("ambiguous", 6, ("P1", "S1"))], [*BASE_MATCHED, (6, ("P1",))], ("0.187", "0.9234",
                                                                             "0.123")),
]


@pytest.mark.parametrize("case", SPANNED, ids=[c.name for c in SPANNED])
def test_a_multicolumn_slash_header_names_each_column(case: Case) -> None:
    assert_case(run(case.text, CLAIMS), case)


# --- the two-level header: dataset over metric, a claim per method x dataset x metric ------------

BY_DATASET = [
    claim(cid, metric, value, aliases=(method, dataset), run=f"{method}-{dataset}".lower(),
          unit="dB" if metric == "psnr" else None)
    for cid, metric, value, method, dataset in [
        ("P5", "psnr", 32.10, "Ours", "Set5"), ("S5", "ssim", 0.894, "Ours", "Set5"),
        ("P14", "psnr", 28.50, "Ours", "Set14"), ("S14", "ssim", 0.781, "Ours", "Set14"),
        ("Q5", "psnr", 31.20, "Bicubic", "Set5"), ("T5", "ssim", 0.871, "Bicubic", "Set5"),
        ("Q14", "psnr", 27.90, "Bicubic", "Set14"), ("T14", "ssim", 0.760, "Bicubic", "Set14"),
    ]]
TWO_LEVEL = ("\\begin{tabular}{lcccc}\n\\toprule\n"
             " & \\multicolumn{2}{c}{Set5} & \\multicolumn{2}{c}{Set14} \\\\\n"
             "\\cmidrule(lr){2-3} \\cmidrule(lr){4-5}\n"
             "Method & PSNR & SSIM & PSNR & SSIM \\\\\n\\midrule\n"
             "Bicubic & 31.20 & 0.871 & 27.90 & 0.760 \\\\\nOurs & {ours} \\\\\n"
             "\\bottomrule\n\\end{tabular}\n")
ALL_MATCHED = [(7, ("Q5",)), (7, ("T5",)), (7, ("Q14",)), (7, ("T14",)),
               (8, ("P5",)), (8, ("S5",)), (8, ("P14",)), (8, ("S14",))]


@pytest.mark.parametrize(("ours", "findings", "shown"), [
    ("32.10 & 0.894 & 28.50 & 0.781", [], ()),
    ("32.10 & 0.894 & 28.50 & 0.791", [("drift", 8, ("S14",))], ("0.791",)),
    ("32.10 & 0.884 & 28.50 & 0.781", [("drift", 8, ("S5",))], ("0.884",)),
    # the datasets' PSNRs swapped: each is the other dataset's value, drift on both
    ("28.50 & 0.894 & 32.10 & 0.781", [("drift", 8, ("P5",)), ("drift", 8, ("P14",))],
     ("28.50", "32.10")),
])
def test_a_dataset_over_metric_header_judges_each_method_dataset_metric(
        ours: str, findings: list[tuple[str, int, tuple[str, ...]]],
        shown: tuple[str, ...]) -> None:
    # already read right before the fixes above; kept as their neighbour's guard
    text = TWO_LEVEL.replace("{ours}", ours)
    drifted = {cid for _, _, ids in findings for cid in ids}
    matched = [m for m in ALL_MATCHED if m[1][0] not in drifted]
    assert_case(run(text, BY_DATASET), Case("two-level", "t.tex", text, findings, matched, shown))
