"""A review of round 61's table readings: where they read a realistic document wrong.

* one quantity's settings side by side under a spanning header (`documents._row_under_span`:
  "\\multicolumn{2}{c}{Set5 PSNR}" over "$\\times$2 & $\\times$4", as the round's own tests and
  super-resolution papers write the scales). A claim naming no setting is the cell that matches
  it; but a claim naming a setting the table writes in a form its reader does not take for that
  name (the alias "x4" or the key ``psnr_x4`` over "$\\times$4", the alias "BSD100" over
  "B100") was taken for whichever setting's cell matched it: the ×2 cell matched and the ×4
  cell, its own, which shows another number, was dropped (missed drift; before round 61 it
  drifted). Such a claim is judged in each cell as before;
* a slash list whose name carries a rate as its unit ("| Latency (ms) / Throughput (img/s) |"
  over "12.5 / 850"; a public inference benchmark's README heads its table "p50 latency (ms) /
  throughput (img/s) / peak VRAM (MB)", a paper generator's LaTeX caption "Latency (ms) /
  Throughput (tok/s) / Peak Memory (MB)"):
  the rate's own slash made a second list, and a header with two lists is read whole, so the
  throughput (the pair's second number) was judged by no claim (missed drift; before round 61,
  the rate's "img/s" split the column and each number was judged);
* two tables side by side in a layout tabular ("\\begin{tabular}{cc} \\begin{tabular}{lc} ...
  \\end{tabular} & \\begin{tabular}{lc} ... \\end{tabular} \\end{tabular}", as papers set a
  PSNR table beside an SSIM one without subfigures): a tabular inside another was taken for a
  multi-line cell of it, so both tables were one cell of the layout and none of their numbers
  was judged (missed drift; before round 61 each was read as a table, but under a caption row
  "(a) PSNR & (b) SSIM" the PSNR table's numbers were judged as SSIMs: false drift). A nested
  tabular that holds cells (an ``&``) is a table of its own, the one around it a layout.
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_papers_review_1 import Case, assert_case

claim = partial(documents_claim, run="ours")


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


# --- 1. a claim naming a setting its table writes otherwise -------------------------------------

def _scales(x2: str, x4: str, second: str = "Set5 PSNR") -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\nMethod & \\multicolumn{2}{c}{" + second
            + "} \\\\\n & " + x2 + " & " + x4 + " \\\\\n\\midrule\nOurs & 38.21 & 32.10 \\\\\n"
            "\\bottomrule\n\\end{tabular}\n")


# the ×4 claim records the ×2 number (38.21): the ×4 cell (32.10, line 6) must drift
NAMES_A_SCALE = [
    ("alias x4 over $\\times$4", _scales("$\\times$2", "$\\times$4"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("alias x4 over $\\times 4$", _scales("$\\times 2$", "$\\times 4$"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("alias x4 over $4\\times$", _scales("$2\\times$", "$4\\times$"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("key psnr_x4 over x4", _scales("x2", "x4"),
     claim("X4", "psnr_x4", 38.21, unit="dB", aliases=("Ours", "Set5"))),
    ("alias BSD100 over B100", _scales("Set5", "B100", "PSNR"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "BSD100"))),
]


@pytest.mark.parametrize(("text", "c"), [(t, c) for _, t, c in NAMES_A_SCALE],
                         ids=[n for n, _, _ in NAMES_A_SCALE])
def test_a_claim_naming_a_setting_the_table_writes_otherwise_is_judged_in_each(text: str,
                                                                                c) -> None:
    case = Case("", "a.tex", text, [("drift", 6, ("X4",))], [(6, ("X4",))], ("32.10",))
    assert_case(run("a.tex", text, [c]), case)


def test_near_miss_a_claim_whose_names_the_table_shows_takes_its_matching_setting() -> None:
    """The round's reading holds where the table shows each of the claim's names."""
    text = _scales("$\\times$2", "$\\times$4")
    c = claim("P5", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5"))
    assert_case(run("a.tex", text, [c]), Case("", "a.tex", text, [], [(6, ("P5",))]))


def test_near_miss_a_claim_naming_a_setting_as_the_table_writes_it_is_that_cell() -> None:
    text = _scales("x2", "x4")
    c = claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))
    assert_case(run("a.tex", text, [c]), Case("", "a.tex", text, [("drift", 6, ("X4",))], [],
                                              ("32.10",)))


# --- 2. a rate as a slash list's name's unit ------------------------------------------------------

RATES = [claim("L", "latency", 12.5, unit="ms", aliases=("Ours",)),
         claim("T", "throughput", 850, aliases=("Ours",))]


@pytest.mark.parametrize("header", ["Latency (ms) / Throughput (img/s)",
                                    "Latency (ms)/Throughput (images/s)",
                                    "Latency / Throughput (img/s)"])
@pytest.mark.parametrize(("cell", "drifts", "shown", "matched"), [
    ("12.5 / 850", [], (), ["L", "T"]),
    ("12.5 / 860", ["T"], ("860",), ["L"]),
    ("12.8 / 850", ["L"], ("12.8",), ["T"]),
])
def test_a_rate_unit_of_a_slash_lists_name_keeps_the_list_one(
        header: str, cell: str, drifts: list[str], shown: tuple[str, ...],
        matched: list[str]) -> None:
    text = f"| Method | {header} |\n|---|---|\n| Ours | {cell} |\n"
    case = Case("", "a.md", text, [("drift", 3, (c,)) for c in drifts],
                [(3, (c,)) for c in matched], shown)
    assert_case(run("a.md", text, RATES), case)


@pytest.mark.parametrize(("header", "cell", "claims", "findings"), [
    # near miss: a split pair in parentheses is still a list of its own
    ("Acc (val/test)", "80.1 / 79.2", [claim("A", "test_acc", 79.5, aliases=("Ours",))],
     [("drift", 3, ("A",))]),
    # near miss: a rate alone is no list
    ("Throughput (img/s)", "850", [RATES[1]], []),
])
def test_near_miss_a_slash_in_parentheses_alone(header: str, cell: str, claims: list,
                                               findings: list) -> None:
    text = f"| Method | {header} |\n|---|---|\n| Ours | {cell} |\n"
    assert_case(run("a.md", text, claims), Case("", "a.md", text, findings))


# --- 3. tables side by side in a layout tabular -------------------------------------------------

_SIDE_BY_SIDE = ("\\begin{tabular}{cc}\n(a) PSNR & (b) SSIM \\\\\n"
                 "\\begin{tabular}{lc}\nMethod & PSNR \\\\\nBaseline & 30.10 \\\\\n"
                 "Ours & PSNR_OURS \\\\\n\\end{tabular}\n&\n"
                 "\\begin{tabular}{lc}\nMethod & SSIM \\\\\nBaseline & 0.880 \\\\\n"
                 "Ours & 0.912 \\\\\n\\end{tabular}\n\\end{tabular}\n")
SR = [claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
      claim("S1", "ssim", 0.912, aliases=("Ours",))]


@pytest.mark.parametrize(("psnr", "findings", "matched"), [
    ("31.42", [], [(6, ("P1",)), (12, ("S1",))]),
    ("31.52", [("drift", 6, ("P1",))], [(12, ("S1",))]),
])
def test_tables_side_by_side_in_a_layout_tabular_are_each_read(psnr: str, findings: list,
                                                                matched: list) -> None:
    text = _SIDE_BY_SIDE.replace("PSNR_OURS", psnr)
    assert_case(run("a.tex", text, SR), Case("", "a.tex", text, findings, matched))


def test_near_miss_a_one_column_tabular_in_a_cell_is_that_cell() -> None:
    text = ("\\begin{tabular}{lcc}\nMethod & \\begin{tabular}[c]{@{}c@{}}PSNR\\\\ (dB)"
            "\\end{tabular} & SSIM \\\\\nOurs & 31.42 & 0.922 \\\\\n\\end{tabular}\n")
    assert_case(run("a.tex", text, SR), Case("", "a.tex", text, [("drift", 3, ("S1",))],
                                             [(3, ("P1",))]))


@pytest.mark.parametrize("cell", [
    "$\\left(\\begin{array}{cc} 1 & 0 \\\\ 0 & 1 \\end{array}\\right)$",  # a cell's matrix
    "\\begin{tabular}{@{}cc@{}}3 & 3\\end{tabular}",  # one row of two: the cell's lines
])
def test_near_miss_a_nested_array_or_one_row_is_its_cell(cell: str) -> None:
    text = ("\\begin{tabular}{lcc}\nMethod & Kernel & PSNR \\\\\nOurs & " + cell
            + " & 31.52 \\\\\n\\end{tabular}\n")
    assert_case(run("a.tex", text, SR), Case("", "a.tex", text, [("drift", 3, ("P1",))], [],
                                             ("31.52",)))
