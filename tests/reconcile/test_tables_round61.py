"""How papers and READMEs write result tables (round 61): slash headers, transposed tables, corners.

* a slash list whose names carry what headers write after a name: an arrow or a footnote's
  mark set apart ("| PSNR ↑ / SSIM ↑ / LPIPS ↓ |", a paper's Markdown conversion in a public
  repository; "**PSNR**↑/**SSIM**↑", whose emphasis is blanked to spaces), its own unit, split
  or arrow in parentheses ("Params (M)/GFLOPs"; "PSNR (dB)/SSIM", as SR papers caption their
  tables, "Quantitative comparison (FAB, PSNR (dB)/SSIM)"; "PSNR (val) / PSNR (test)"; "PSNR (↑)
  / SSIM (↑)"), a link, a code span or an HTML footnote mark ("[PSNR](https://...)/SSIM",
  "`PSNR`/`SSIM`", "PSNR<sup>1</sup>/SSIM"). None of these was a slash list: the column was read
  whole, its pairs' first number under the first name and the second judged by no claim, so a
  drifted SSIM or FLOPs count went through (missed drift);
* a table transposed, metrics as rows and methods as columns, with a slash list as a row's
  label over pairs in each column ("| PSNR ↑ / SSIM ↑ | 35.46 / 0.955 | 29.98 / 0.768 | ...",
  a public README comparing super-resolution models on SEN2VENµS): the row's second numbers
  were judged by no claim (missed drift). Each such row is now split, as a column is;
* a slash list in the corner cell over dataset columns of pairs (ascetic-yuanma/awesome-image-
  super-resolution, README.md: "| algorithms & PSNR/SSIM | Set5 | Set14 | B100 | ..." over
  "| SRCNN | 30.48/0.8628 | 27.50/0.7513 | ..."): no column named a quantity, so no number of
  the table was judged at all (missed drift). The corner's names now head each column's pairs;
* a split in such a list ("Val / Test" over "77.1 / 76.3", "Acc (val) / Acc (test)", a corner
  "Train/Test"): the first number, another split's, was judged against a test claim (false
  drift);
* a line break inside a LaTeX cell (``\\makecell{PSNR\\\\(dB)}``, a nested
  ``\\begin{tabular}[c]{@{}c@{}}...\\end{tabular}``) ended the row there, shifting the row's
  cells (false drift);
* LaTeX math in a Markdown cell (``$\\mathbf{0.5903 \\pm 0.0101}$``, ``$81.3^{\\dagger}$``) made
  the cell a label: its value unjudged, the row's claim given the row above's number.

Each row is a snippet, the findings it must produce as ``(type, line, claim ids)`` and, where it
matters, the matched numbers as ``(line, claim ids)`` and the findings' numbers. Rows marked
"near miss" held before the fixes and must keep their reading.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_papers_review_1 import Case, assert_case

claim = partial(documents_claim, run="ours")

SR = [claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
      claim("S1", "ssim", 0.912, aliases=("Ours",)),
      claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base")]
# a model zoo's parameters in millions and FLOPs in billions, as the claims record them
COST = [claim("N", "params", 25.6, unit="M", aliases=("Ours",)),
        claim("G", "gflops", 4.1, unit="G", aliases=("Ours",))]


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


# --- 1. a slash list's names with their marks, units and splits --------------------------------

def _pair(header: str, cell: str) -> str:
    return f"| Method | {header} |\n|---|---|\n| Ours | {cell} |\n"


MARKED_HEADERS = [
    "**PSNR**↑/**SSIM**↑", "PSNR ↑ / SSIM ↑", "**PSNR** ↑ / **SSIM** ↑", "PSNR (↑) / SSIM (↑)",
    "PSNR (dB)/SSIM", "PSNR (dB) / SSIM", "PSNR(dB)/SSIM", "PSNR (dB)↑/SSIM↑",
    "PSNR $\\uparrow$ / SSIM $\\uparrow$", "`PSNR`/`SSIM`", "PSNR<sup>1</sup>/SSIM",
    "PSNR<sup>†</sup> / SSIM<sup>2</sup>", "PSNR [^1] / SSIM",
    "[PSNR](https://en.wikipedia.org/wiki/Peak_signal-to-noise_ratio)/SSIM",
    "[**PSNR**](https://a.org/p) ↑ / [**SSIM**](https://a.org/s) ↑", "PSNR &uarr; / SSIM &uarr;",
]


@pytest.mark.parametrize("header", MARKED_HEADERS)
@pytest.mark.parametrize(("cell", "drifts", "shown", "matched"), [
    ("31.42/0.912", [], (), ["P1", "S1"]),
    ("31.42 / 0.922", ["S1"], ("0.922",), ["P1"]),
    ("31.52/0.912", ["P1"], ("31.52",), ["S1"]),
])
def test_each_name_of_a_marked_slash_header_judges_its_own_number(
        header: str, cell: str, drifts: list[str], shown: tuple[str, ...],
        matched: list[str]) -> None:
    report = run("a.md", _pair(header, cell), SR)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", (c,)) for c in drifts], \
        [f.render() for f in report.findings]
    assert tuple(f.shown for f in report.findings) == shown
    assert sorted(c for m in report.matches for c in m.claims) == matched


@pytest.mark.parametrize("header", ["Params (M)/GFLOPs", "Params (M) / GFLOPs",
                                    "#Params (M)/GFLOPs", "**Params (M)**/**GFLOPs**"])
@pytest.mark.parametrize(("cell", "drifts", "shown"), [
    ("25.6/4.1", [], ()),
    ("25.6/4.2", ["G"], ("4.2",)),
    ("25.7/4.1", ["N"], ("25.7",)),
    ("25.7/4.2", ["N", "G"], ("25.7", "4.2")),
])
def test_a_unit_on_one_of_two_names_heads_its_sub_column_alone(
        header: str, cell: str, drifts: list[str], shown: tuple[str, ...]) -> None:
    report = run("a.md", _pair(header, cell), COST)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", (c,)) for c in drifts], \
        [f.render() for f in report.findings]
    assert tuple(f.shown for f in report.findings) == shown
    assert sorted(c for m in report.matches for c in m.claims) == \
        sorted({"N", "G"} - set(drifts))


SPLITS = [replace(claim("V", "psnr", 31.42, unit="dB", aliases=("Ours",)), split="val"),
          replace(claim("T", "psnr", 30.95, unit="dB", aliases=("Ours",)), split="test")]

SLASH_HEADERS = [
    Case("a split in each name's parentheses: the test half drifts", "a.md",
         _pair("PSNR (val) / PSNR (test)", "31.42/30.85"), [("drift", 3, ("T",))], [(3, ("V",))],
         ("30.85",)),
    Case("a split in each name's parentheses: both hold", "a.md",
         _pair("PSNR (val) / PSNR (test)", "31.42/30.95"), [], [(3, ("V",)), (3, ("T",))]),
    Case("near miss: the splits as a list in one pair of parentheses", "a.md",
         _pair("PSNR (val/test)", "31.42/30.85"), [("drift", 3, ("T",))], [(3, ("V",))]),
    Case("near miss: a split per column", "a.md",
         "| Method | PSNR (val) | PSNR (test) |\n|---|---|---|\n| Ours | 31.42 | 30.85 |\n",
         [("drift", 3, ("T",))], [(3, ("V",))]),
]


@pytest.mark.parametrize("case", SLASH_HEADERS, ids=[c.name for c in SLASH_HEADERS])
def test_a_split_in_a_slash_names_parentheses(case: Case) -> None:
    assert_case(run(case.path, case.text, SPLITS), case)


NEAR_MISS_HEADERS = [
    # a rate ("per epoch") is no list of quantities: no cell holds a pair, the column stays whole
    Case("near miss: 'Time (s) / epoch' over single numbers", "a.md",
         "| Method | Time (s) / epoch |\n|---|---|\n| Ours | 12.5 |\n", []),
    Case("near miss: a plain PSNR/SSIM", "a.md", _pair("PSNR/SSIM", "31.42/0.922"),
         [("drift", 3, ("S1",))], [(3, ("P1",))]),
    Case("near miss: arrows glued to each name", "a.md", _pair("PSNR↑/SSIM↑", "31.42/0.922"),
         [("drift", 3, ("S1",))], [(3, ("P1",))]),
    Case("near miss: a marked header over one number: it is either name's", "a.md",
         _pair("PSNR (dB) / SSIM", "31.52"), [("ambiguous", 3, ("P1", "S1"))]),
    Case("near miss: a dataset before its marked metrics in parentheses", "a.md",
         _pair("Set5 (PSNR↑/SSIM↑)", "31.42/0.922"), [("drift", 3, ("S1",))], [(3, ("P1",))]),
    Case("an HTML header's marked names", "a.md",
         "<table><tr><th>Method</th><th>PSNR ↑ / SSIM ↑</th></tr>\n"
         "<tr><td>Ours</td><td>31.42 / 0.922</td></tr></table>\n",
         [("drift", 2, ("S1",))], [(2, ("P1",))]),
    Case("a LaTeX header's names, each with its arrow set apart", "a.tex",
         "\\begin{tabular}{lc}\n\\toprule\nMethod & PSNR $\\uparrow$ / SSIM $\\uparrow$ \\\\\n"
         "\\midrule\nOurs & \\textbf{31.42} / 0.922 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("S1",))], [(5, ("P1",))]),
]


def _tex_pair(header: str, cells: str, columns: str = "lc") -> str:
    return (f"\\begin{{tabular}}{{{columns}}}\n\\toprule\nMethod & {header} \\\\\n\\midrule\n"
            f"Ours & {cells} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


LATEX_HEADERS = [
    Case("\\textbf on each name, an arrow after it", "a.tex",
         _tex_pair("\\textbf{PSNR}$\\uparrow$ / \\textbf{SSIM}$\\uparrow$", "31.42/0.922"),
         [("drift", 5, ("S1",))], [(5, ("P1",))]),
    Case("{\\bf ...} on each name", "a.tex",
         _tex_pair("{\\bf PSNR} / {\\bf SSIM}", "31.52/0.912"),
         [("drift", 5, ("P1",))], [(5, ("S1",))]),
    # (the multicolumn read each column as PSNR-or-SSIM: a drifted SSIM was ambiguous)
    Case("\\textbf names in a \\multicolumn over two columns", "a.tex",
         _tex_pair("\\multicolumn{2}{c}{\\textbf{PSNR} / \\textbf{SSIM}}", "31.42 & 0.922", "lcc"),
         [("drift", 5, ("S1",))], [(5, ("P1",))]),
    Case("near miss: \\textbf around the whole list", "a.tex",
         _tex_pair("\\textbf{PSNR/SSIM}", "31.42/0.922"), [("drift", 5, ("S1",))], [(5, ("P1",))]),
    Case("near miss: arrows glued to the names in a \\multicolumn", "a.tex",
         _tex_pair("\\multicolumn{2}{c}{PSNR$\\uparrow$ / SSIM$\\uparrow$}", "31.42 & 0.922",
                   "lcc"), [("drift", 5, ("S1",))], [(5, ("P1",))]),
]


@pytest.mark.parametrize("case", LATEX_HEADERS, ids=[c.name for c in LATEX_HEADERS])
def test_latex_emphasis_on_a_slash_lists_names(case: Case) -> None:
    assert_case(run(case.path, case.text, SR), case)


@pytest.mark.parametrize("case", NEAR_MISS_HEADERS, ids=[c.name for c in NEAR_MISS_HEADERS])
def test_slash_headers_beside_the_fix(case: Case) -> None:
    assert_case(run(case.path, case.text, SR), case)


# --- 2. a table transposed: a slash list as a row's label --------------------------------------

def _transposed(label: str, base: str, ours: str) -> str:
    return f"| Metric | Baseline | Ours |\n|---|---|---|\n| {label} | {base} | {ours} |\n"


TRANSPOSED = [
    Case("a pair row: the SSIM half drifts", "a.md",
         _transposed("PSNR ↑ / SSIM ↑", "30.10 / 0.880", "31.42 / 0.922"),
         [("drift", 3, ("S1",))], [(3, ("P0",)), (3, ("P1",))], ("0.922",)),
    Case("a pair row: the PSNR half drifts", "a.md",
         _transposed("PSNR/SSIM", "30.10/0.880", "31.52/0.912"),
         [("drift", 3, ("P1",))], [(3, ("P0",)), (3, ("S1",))], ("31.52",)),
    Case("a pair row: both hold", "a.md",
         _transposed("**PSNR** / **SSIM**", "30.10 / 0.880", "**31.42** / **0.912**"),
         [], [(3, ("P0",)), (3, ("P1",)), (3, ("S1",))]),
    Case("a pair row with a blank cell", "a.md",
         _transposed("PSNR / SSIM", "-", "31.42 / 0.922"),
         [("drift", 3, ("S1",))], [(3, ("P1",))]),
    Case("a LaTeX pair row", "a.tex",
         "\\begin{tabular}{lcc}\n\\toprule\n & Baseline & Ours \\\\\n\\midrule\n"
         "PSNR/SSIM & 30.10/0.880 & 31.42/0.922 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("S1",))], [(5, ("P0",)), (5, ("P1",))]),
    Case("an HTML pair row", "a.md",
         "<table><tr><th></th><th>Baseline</th><th>Ours</th></tr>\n"
         "<tr><td>PSNR ↑ / SSIM ↑</td><td>30.10 / 0.880</td><td>31.42 / 0.922</td></tr>"
         "</table>\n",
         [("drift", 2, ("S1",))], [(2, ("P0",)), (2, ("P1",))]),
    Case("near miss: a metric a row", "a.md",
         "| Metric | Baseline | Ours |\n|---|---|---|\n| PSNR ↑ | 30.10 | 31.42 |\n"
         "| SSIM ↑ | 0.880 | 0.922 |\n", [("drift", 4, ("S1",))], [(3, ("P0",)), (3, ("P1",))]),
    Case("near miss: a pair row whose cells hold one number each is not split", "a.md",
         _transposed("PSNR / SSIM", "30.10", "31.52"), [("ambiguous", 3, ("P1", "S1"))],
         [(3, ("P0",))]),
]


@pytest.mark.parametrize("case", TRANSPOSED, ids=[c.name for c in TRANSPOSED])
def test_a_slash_row_label_judges_each_number_of_its_pairs(case: Case) -> None:
    assert_case(run(case.path, case.text, SR), case)


ABLATION = [claim("P5", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5"), run="o5"),
            claim("P14", "psnr", 34.02, unit="dB", aliases=("Ours", "Set14"), run="o14")]


@pytest.mark.parametrize(("label", "findings"), [
    # "w/o" and "w/" are no list of quantities: the ablation's row is read as before, its pair
    # under "Set5 / Set14" read whole (the column's slash list)
    ("Ours w/o attention", []),
    ("Ours (w/ TTA)", []),
])
def test_near_miss_an_ablations_w_slash_o_is_no_list(label: str, findings: list) -> None:
    text = ("| Method | Set5 / Set14 |\n|---|---|\n| Ours | 38.21/34.02 |\n"
            f"| {label} | 37.90/33.71 |\n")
    report = run("a.md", text, ABLATION)
    assert [(f.type, f.claims) for f in report.findings] == findings, \
        [f.render() for f in report.findings]
    assert sorted((m.line, m.claims) for m in report.matches) == [(3, ("P14",)), (3, ("P5",))]


# --- 3. a slash list in the corner over dataset columns ----------------------------------------

BY_DATASET = [
    claim(cid, metric, value, aliases=("SRCNN", dataset), run=f"srcnn-{dataset}".lower(),
          unit="dB" if metric == "psnr" else None)
    for cid, metric, value, dataset in [
        ("P5", "psnr", 30.48, "Set5"), ("S5", "ssim", 0.8628, "Set5"),
        ("P14", "psnr", 27.50, "Set14"), ("S14", "ssim", 0.7513, "Set14")]]


def _corner(corner: str, set5: str, set14: str = "27.50/0.7513") -> str:
    # awesome-image-super-resolution's README table, its first rows
    return (f"| {corner} |     Set5     |    Set14     |     B100     |\n"
            "| :--------------------: | :----------: | :----------: | :----------: |\n"
            f"|         SRCNN          | {set5} | {set14} | 26.90/0.7103 |\n"
            "|     implementation     | to be filled | to be filled | to be filled |\n")


ALL_FOUR = [(3, ("P5",)), (3, ("S5",)), (3, ("P14",)), (3, ("S14",))]

CORNERS = [
    Case("the corner's PSNR/SSIM: all hold", "a.md",
         _corner("algorithms & PSNR/SSIM", "30.48/0.8628"), [], ALL_FOUR),
    Case("the corner's PSNR/SSIM: Set5's SSIM drifts", "a.md",
         _corner("algorithms & PSNR/SSIM", "30.48/0.8638"), [("drift", 3, ("S5",))],
         [m for m in ALL_FOUR if m[1] != ("S5",)], ("0.8638",)),
    Case("the corner's PSNR/SSIM: Set14's PSNR drifts", "a.md",
         _corner("algorithms & PSNR/SSIM", "30.48/0.8628", "27.60/0.7513"),
         [("drift", 3, ("P14",))], [m for m in ALL_FOUR if m[1] != ("P14",)], ("27.60",)),
    Case("a marked corner: PSNR ↑ / SSIM ↑", "a.md",
         _corner("Method (PSNR ↑ / SSIM ↑)", "30.58/0.8628"), [("drift", 3, ("P5",))],
         [m for m in ALL_FOUR if m[1] != ("P5",)]),
    Case("an HTML table's corner", "a.md",
         "<table><tr><th>PSNR/SSIM</th><th>Set5</th><th>Set14</th></tr>\n"
         "<tr><td>SRCNN</td><td>30.48/0.8628</td><td>27.50/0.7523</td></tr></table>\n",
         [("drift", 2, ("S14",))], [(2, ("P5",)), (2, ("S5",)), (2, ("P14",))]),
    Case("a LaTeX table's corner", "a.tex",
         "\\begin{tabular}{lcc}\n\\toprule\nPSNR/SSIM & Set5 & Set14 \\\\\n\\midrule\n"
         "SRCNN & 30.48/0.8628 & 27.50/0.7523 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("S14",))], [(5, ("P5",)), (5, ("S5",)), (5, ("P14",))]),
    Case("near miss: a corner naming the axes is no list of quantities", "a.md",
         _corner("Method / Dataset", "30.48/0.8638"), [], []),
    Case("near miss: columns of single numbers stay whole under the corner", "a.md",
         "| PSNR/SSIM | Set5 | Set14 |\n|---|---|---|\n| SRCNN | 30.48 | 27.50 |\n", [], []),
    Case("near miss: the metrics in the column headers", "a.md",
         "| Method | Set5 PSNR/SSIM | Set14 PSNR/SSIM |\n|---|---|---|\n"
         "| SRCNN | 30.48/0.8638 | 27.50/0.7513 |\n", [("drift", 3, ("S5",))],
         [m for m in ALL_FOUR if m[1] != ("S5",)]),
]


@pytest.mark.parametrize("case", CORNERS, ids=[c.name for c in CORNERS])
def test_a_corner_slash_list_names_each_columns_pairs(case: Case) -> None:
    assert_case(run(case.path, case.text, BY_DATASET), case)


def test_near_miss_a_corner_over_axes_keeps_a_pairs_second_number_unjudged() -> None:
    """"Method / Dataset" over ImageNet's "76.3/93.1" (top-1/top-5): the corner names the
    axes, so the pair is read whole, its first number the top-1 claim's (a split would have
    judged 93.1 against it)."""
    claims = [claim("T1", "top1", 76.3, unit="%", aliases=("Ours", "ImageNet"))]
    report = run("a.md", "| Method / Dataset | ImageNet |\n|---|---|\n| Ours | 76.3/93.1 |\n",
                 claims)
    assert report.findings == []
    assert [m.claims for m in report.matches] == [("T1",)]


# --- 4. what already held: LaTeX cell markup, the two-row SR header, splits, HTML spans --------

def _tex(ours: str) -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\nMethod & PSNR & SSIM \\\\\n\\midrule\n"
            f"Baseline & 30.10 & 0.880 \\\\\nOurs & {ours} & 0.912 \\\\\n"
            "\\bottomrule\n\\end{tabular}\n")


@pytest.mark.parametrize("cell", [
    "\\textbf{{{v}}}", "\\underline{{{v}}}", "{{\\color{{red}}{v}}}", "\\textcolor{{red}}{{{v}}}",
    "{v}$^{{\\dagger}}$", "{v}$_{{\\pm 0.05}}$", "{v} {{\\scriptsize $\\pm$0.05}}",
    "\\textbf{{{v}}}$^\\dagger$", "\\cellcolor{{gray!20}}{v}", "{{\\bf {v}}}", "$\\bm{{{v}}}$",
    "{v}\\textsuperscript{{*}}", "\\underline{{\\textbf{{{v}}}}}",
])
@pytest.mark.parametrize(("value", "drifts"), [("31.42", False), ("31.52", True)])
def test_near_miss_a_marked_best_value_is_its_number(cell: str, value: str,
                                                     drifts: bool) -> None:
    report = run("a.tex", _tex(cell.format(v=value)), SR)
    assert [(f.type, f.claims, f.shown) for f in report.findings] == \
        ([("drift", ("P1",), value)] if drifts else [])


SR_TWO_ROWS = [claim(cid, metric, value, aliases=("Ours", dataset), run=f"o-{dataset}",
                     unit="dB" if metric == "psnr" else None)
               for cid, metric, value, dataset in [
                   ("P5", "psnr", 38.21, "Set5"), ("S5", "ssim", 0.9614, "Set5"),
                   ("P14", "psnr", 34.02, "Set14"), ("S14", "ssim", 0.9204, "Set14")]]


@pytest.mark.parametrize(("second_row", "ours", "drift"), [
    ("\\multirow{2}{*}{Method} & \\multicolumn{2}{c}{Set5} & \\multicolumn{2}{c}{Set14} \\\\\n"
     " & PSNR & SSIM & PSNR & SSIM", "\\textbf{38.21} & \\underline{0.9624} & 34.02 & 0.9204",
     "S5"),
    ("Method & \\multicolumn{2}{c}{Set5} & \\multicolumn{2}{c}{Set14} \\\\\n"
     " & PSNR & SSIM & PSNR & SSIM", "38.21 & 0.9614 & 34.12 & 0.9204", "P14"),
    ("Method & Set5 & Set14 \\\\\n & PSNR/SSIM & PSNR/SSIM",
     "\\textbf{38.21}/0.9614 & 34.02/0.9214", "S14"),
])
def test_near_miss_the_classic_sr_table(second_row: str, ours: str, drift: str) -> None:
    text = ("\\begin{tabular}{lcccc}\n\\hline\n" + second_row + " \\\\\n\\hline\n"
            "EDSR & 38.11 & 0.9602 & 33.92 & 0.9195 \\\\\n".replace(
                " & 0.9602 & 33.92 & ", "/0.9602 & 33.92/" if "PSNR/SSIM" in second_row
                else " & 0.9602 & 33.92 & ")
            + f"Ours & {ours} \\\\\n\\hline\n\\end{{tabular}}\n")
    report = run("a.tex", text, SR_TWO_ROWS)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", (drift,))], \
        [f.render() for f in report.findings]
    assert len(report.matches) == 3


def test_near_miss_an_html_colspan_over_metrics() -> None:
    text = ("<table>\n<tr><th rowspan=\"2\">Method</th><th colspan=\"2\">Set5</th></tr>\n"
            "<tr><th>PSNR</th><th>SSIM</th></tr>\n"
            "<tr><td>Baseline</td><td>30.10</td><td>0.880</td></tr>\n"
            "<tr><td>Ours</td><td>31.42</td><td><u>0.922</u></td></tr>\n</table>\n")
    report = run("a.md", text, SR)
    assert [(f.type, f.line, f.claims) for f in report.findings] == [("drift", 5, ("S1",))]
    assert sorted((m.line, m.claims) for m in report.matches) == [(4, ("P0",)), (5, ("P1",))]


# --- 5. a line break inside a LaTeX cell ---------------------------------------------------------
# A header or cell set on two lines: "\makecell{PSNR\\(dB)}" (makecell), "\shortstack{...}", or
# a tabular nested in the cell, "\begin{tabular}[c]{@{}c@{}}Proposed method\\ (NLMS error)
# \end{tabular}", which LaTeX table generators (tablesgenerator.com, Excel2LaTeX) write for a
# multi-line cell and papers' generated tables carry. The row was cut at each \\, so the cells
# after it shifted to the next row: the Ours row's SSIM was judged against the Baseline's 0.880
# (false drift), or a column lost its header (a drifted PSNR read as PSNR-or-SSIM). A nested
# tabular also closed the table at its own \end{tabular}.

def _tex_table(header: str, ours: str) -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\n" + header + " \\\\\n\\midrule\n"
            "Baseline & 30.10 & 0.880 \\\\\n" + ours + " \\\\\n\\bottomrule\n\\end{tabular}\n")


_PLAIN_HEADER = "Method & PSNR & SSIM"
_MATCHED = [(5, ("P0",)), (6, ("P1",)), (6, ("S1",))]
_PSNR_DRIFTS = ([("drift", 6, ("P1",))], [(5, ("P0",)), (6, ("S1",))])

LINE_BREAKS = [
    Case("\\makecell in a cell", "a.tex",
         _tex_table(_PLAIN_HEADER, "Ours & \\makecell{31.42\\\\(0.05)} & 0.912"), [], _MATCHED),
    Case("\\makecell in a cell, its value drifted", "a.tex",
         _tex_table(_PLAIN_HEADER, "Ours & \\makecell{31.52\\\\(0.05)} & 0.912"), *_PSNR_DRIFTS),
    Case("\\makecell in a header", "a.tex",
         _tex_table("Method & \\makecell{PSNR\\\\(dB)} & SSIM", "Ours & 31.42 & 0.912"), [],
         _MATCHED),
    Case("\\makecell in a header over a drifted value", "a.tex",
         _tex_table("Method & \\makecell{PSNR\\\\(dB)} & SSIM", "Ours & 31.52 & 0.912"),
         *_PSNR_DRIFTS),
    Case("\\shortstack in a cell", "a.tex",
         _tex_table(_PLAIN_HEADER, "Ours & \\shortstack{31.42\\\\(0.05)} & 0.912"), [], _MATCHED),
    Case("a tabular nested in a cell", "a.tex",
         _tex_table(_PLAIN_HEADER,
                    "Ours & \\begin{tabular}[c]{@{}c@{}}31.42\\\\ (0.05)\\end{tabular} & 0.912"),
         [], _MATCHED),
    Case("a tabular nested in a cell, its value drifted", "a.tex",
         _tex_table(_PLAIN_HEADER,
                    "Ours & \\begin{tabular}[c]{@{}c@{}}31.52\\\\ (0.05)\\end{tabular} & 0.912"),
         *_PSNR_DRIFTS),
    Case("a tabular nested in a header", "a.tex",
         _tex_table("Method & \\begin{tabular}[c]{@{}c@{}}PSNR\\\\ (dB)\\end{tabular} & SSIM",
                    "Ours & 31.52 & 0.912"), *_PSNR_DRIFTS),
    Case("a tabular nested in a row's label", "a.tex",
         _tex_table(_PLAIN_HEADER,
                    "\\begin{tabular}[c]{@{}l@{}}Ours\\\\ (full)\\end{tabular} & 31.42 & 0.912"),
         [], _MATCHED),
    Case("near miss: \\makecell in a row's label", "a.tex",
         _tex_table(_PLAIN_HEADER, "\\makecell{Ours\\\\(full)} & 31.42 & 0.912"), [], _MATCHED),
    Case("near miss: a \\\\ after a group still ends the row", "a.tex",
         _tex_table(_PLAIN_HEADER, "Ours & \\textbf{31.52} & {0.912}"), *_PSNR_DRIFTS),
    Case("near miss: a brace left open groups nothing", "a.tex",
         _tex_table(_PLAIN_HEADER, "Ours & 31.52 & 0.912 {"), *_PSNR_DRIFTS),
]


@pytest.mark.parametrize("case", LINE_BREAKS, ids=[c.name for c in LINE_BREAKS])
def test_a_line_break_inside_a_latex_cell_ends_no_row(case: Case) -> None:
    assert_case(run(case.path, case.text, SR), case)


# --- 6. math in a Markdown table's cells ----------------------------------------------------------
# Papers converted to Markdown and READMEs rendered with GitHub's math write a best value as
# LaTeX math inside a pipe table: "| iDCF | $\underline{0.5638 \pm 0.0124}$ | ... |" over
# "| **IViDR** | $\mathbf{0.5903 \pm 0.0101}$ | ... |", and "| Fine-tuned | 82.0 |
# $\underline{82.1}$ |" beside "| SotA | $81.3^{\dagger}$ [133] |" (both from results tables of
# papers converted to Markdown, in public repositories). The Markdown mask keeps the math's
# commands, so such a cell was read as a label: its value was judged by no claim (missed drift),
# and the claim of its row took the number of the row above (false drift: "S1 says 0.880").
# A command's name after the number ("^{\dagger}") was read as a word, making the cell a label.

def _md_math(psnr: str, ssim: str) -> str:
    return ("| Method | PSNR | SSIM |\n| --- | --- | --- |\n| Baseline | 30.10 | 0.880 |\n"
            f"| Ours | {psnr} | {ssim} |\n")


MD_MATH = [
    Case("$\\mathbf{}$ around a drifted value", "a.md",
         _md_math("$\\mathbf{31.52}$", "0.912"), [("drift", 4, ("P1",))],
         [(3, ("P0",)), (4, ("S1",))]),
    Case("$\\underline{}$ around a matching value: no false drift from the row above", "a.md",
         _md_math("31.42", "$\\underline{0.912}$"), [],
         [(3, ("P0",)), (4, ("P1",)), (4, ("S1",))]),
    Case("$\\boldsymbol{}$ with a spread inside", "a.md",
         _md_math("$\\boldsymbol{31.52 \\pm 0.05}$", "0.912"), [("drift", 4, ("P1",))],
         [(3, ("P0",)), (4, ("S1",))]),
    Case("a footnote's dagger after the value", "a.md",
         _md_math("$31.52^{\\dagger}$", "0.912"), [("drift", 4, ("P1",))],
         [(3, ("P0",)), (4, ("S1",))]),
    Case("near miss: plain math", "a.md", _md_math("$31.52$", "0.912"),
         [("drift", 4, ("P1",))], [(3, ("P0",)), (4, ("S1",))]),
    Case("near miss: a word after the value still makes a label", "a.md",
         _md_math("$31.52$ (ours)", "0.912"), [], [(3, ("P0",)), (4, ("S1",))]),
]


@pytest.mark.parametrize("case", MD_MATH, ids=[c.name for c in MD_MATH])
def test_math_in_a_markdown_cell_is_its_number(case: Case) -> None:
    assert_case(run(case.path, case.text, SR), case)


# --- 7. splits named by a slash list: the other split's number is no claim's -------------------
# READMEs fold the splits into one row or column: "| Train / Val / Test | 91,807 / 19,672 /
# 19,672 |" (a public README's dataset table, transposed), "| Run | PSNR (val) | SSIM |"
# (a public README's results table). Read whole, the row's or column's first number (the
# validation or training one) was judged against a test claim: false drift ("A says 77.1,
# evidence says 76.3%").

TEST_ACC = [replace(claim("A", "acc", 76.3, unit="%", aliases=("Ours",)), split="test")]

SPLIT_LISTS = [
    Case("a transposed row 'Val / Test'", "a.md",
         "| Split | Ours |\n|---|---|\n| Val / Test | 77.1 / 76.3 |\n", [], [(3, ("A",))]),
    Case("a transposed row 'Val / Test', the test number drifted", "a.md",
         "| Split | Ours |\n|---|---|\n| Val / Test | 77.1 / 76.4 |\n", [("drift", 3, ("A",))],
         [], ("76.4",)),
    Case("a corner 'Train/Test' over a column of pairs", "a.md",
         "| Train/Test | Ours |\n|---|---|\n| Acc | 99.1/76.3 |\n", [], [(3, ("A",))]),
    Case("a header 'Acc (val) / Acc (test)'", "a.md",
         "| Method | Acc (val) / Acc (test) |\n|---|---|\n| Ours | 77.1/76.3 |\n", [],
         [(3, ("A",))]),
    Case("near miss: 'Acc (val/test)'", "a.md",
         "| Method | Acc (val/test) |\n|---|---|\n| Ours | 77.1/76.3 |\n", [], [(3, ("A",))]),
]


@pytest.mark.parametrize("case", SPLIT_LISTS, ids=[c.name for c in SPLIT_LISTS])
def test_a_split_of_a_slash_list_keeps_the_other_splits_number_apart(case: Case) -> None:
    assert_case(run(case.path, case.text, TEST_ACC), case)


# --- 8. a spanning slash header over columns of pairs ---------------------------------------------
# open-mmlab/mmagic, configs/restorers/srcnn/README.md: "The metrics are `PSNR / SSIM`." over
# "| Method | Set5 | Set14 | DIV2K |" and cells "28.4316 / 0.8099". Tables put that caption in a
# header cell spanning the dataset columns (a \multicolumn{2}{c}{PSNR / SSIM}, a <th
# colspan="2">): its two names were dealt one to a column, PSNR heading Set5's pairs and SSIM
# Set14's, so Set14's PSNR was judged against its SSIM claim (false drift: "S14 says 34.02").
# Where the covered columns hold pairs, each column's pairs are split by the names instead.

_OVER_DATASETS_TEX = ("\\begin{tabular}{lcc}\n\\toprule\nMethod & \\multicolumn{2}{c}{PSNR / SSIM}"
                      " \\\\\n & Set5 & Set14 \\\\\n\\midrule\nSRCNN & SET5 & SET14 \\\\\n"
                      "\\bottomrule\n\\end{tabular}\n")
_OVER_DATASETS_HTML = ("<table>\n<tr><th>Method</th><th colspan=\"2\">PSNR / SSIM</th></tr>\n"
                       "<tr><th></th><th>Set5</th><th>Set14</th></tr>\n"
                       "<tr><td>SRCNN</td><td>SET5</td><td>SET14</td></tr>\n</table>\n")


def _over(template: str, set5: str, set14: str) -> str:
    return template.replace("SET5", set5).replace("SET14", set14)


_ALL_FOUR_AT = [(line, ids) for line in (6, 4) for ids in (("P5",), ("S5",), ("P14",), ("S14",))]

SPANNED_OVER_PAIRS = [
    Case("a \\multicolumn over two dataset columns of pairs: all hold", "a.tex",
         _over(_OVER_DATASETS_TEX, "30.48 / 0.8628", "27.50 / 0.7513"), [],
         _ALL_FOUR_AT[:4]),
    Case("a \\multicolumn over two dataset columns of pairs: Set14's SSIM drifts", "a.tex",
         _over(_OVER_DATASETS_TEX, "30.48 / 0.8628", "27.50 / 0.7523"),
         [("drift", 6, ("S14",))], _ALL_FOUR_AT[:3], ("0.7523",)),
    Case("a colspan over two dataset columns of pairs: all hold", "a.md",
         _over(_OVER_DATASETS_HTML, "30.48 / 0.8628", "27.50 / 0.7513"), [],
         _ALL_FOUR_AT[4:]),
    Case("a colspan over two dataset columns of pairs: Set5's PSNR drifts", "a.md",
         _over(_OVER_DATASETS_HTML, "30.58 / 0.8628", "27.50 / 0.7513"),
         [("drift", 4, ("P5",))], _ALL_FOUR_AT[5:], ("30.58",)),
]


@pytest.mark.parametrize("case", SPANNED_OVER_PAIRS, ids=[c.name for c in SPANNED_OVER_PAIRS])
def test_a_spanning_slash_header_over_columns_of_pairs_splits_each(case: Case) -> None:
    assert_case(run(case.path, case.text, BY_DATASET), case)


def test_near_miss_a_spanning_slash_header_over_single_numbers_names_one_a_column() -> None:
    text = ("\\begin{tabular}{lcc}\n\\toprule\nMethod & \\multicolumn{2}{c}{PSNR / SSIM} \\\\\n"
            "\\midrule\nOurs & 31.42 & 0.922 \\\\\n\\bottomrule\n\\end{tabular}\n")
    assert_case(run("a.tex", text, SR), Case("", "a.tex", text, [("drift", 5, ("S1",))],
                                             [(5, ("P1",))]))


# --- 9. one quantity's settings side by side under a spanning header ----------------------------
# Super-resolution results put the scales side by side as columns ("| Train PSNR-SSIM x2 |
# Train PSNR-SSIM x4 | Train PSNR-SSIM x8 |", a public SR project's README); a paper heads them
# with one spanning cell, "\multicolumn{2}{c}{Set5 PSNR}" over "×2 & ×4". A claim naming no
# scale matched the ×2 cell and drifted against the ×4 one: a correct table blocked (false
# drift). As for the rows of one column, the cell that matches is the claim's.

_SCALES = ("\\begin{tabular}{lcc}\n\\toprule\nMethod & \\multicolumn{2}{c}{Set5 PSNR} \\\\\n"
           " & $\\times$2 & $\\times$4 \\\\\n\\midrule\nOurs & X2 & 32.10 \\\\\n"
           "\\bottomrule\n\\end{tabular}\n")
SET5_PSNR = [claim("P5", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5")),
             claim("P", "psnr", 38.21, unit="dB", aliases=("Ours",), run="any")]

SETTINGS_SIDE_BY_SIDE = [
    Case("a claim naming no scale matches one scale's cell", "a.tex",
         _SCALES.replace("X2", "38.21"), [], [(6, ("P5",))]),
    Case("near miss: no scale's cell matches: still flagged", "a.tex",
         _SCALES.replace("X2", "38.31"), [("drift", 6, ("P5",)), ("drift", 6, ("P5",))], [],
         ("38.31", "32.10")),
]


@pytest.mark.parametrize("case", SETTINGS_SIDE_BY_SIDE,
                         ids=[c.name for c in SETTINGS_SIDE_BY_SIDE])
def test_one_quantitys_settings_side_by_side_give_the_claim_one_cell(case: Case) -> None:
    assert_case(run(case.path, case.text, SET5_PSNR[:1]), case)


def test_near_miss_a_claim_naming_no_dataset_under_two_datasets_headers() -> None:
    """Set5's and Set14's header cells are two, no one quantity's settings: as before, the
    claim matches Set5's cell and Set14's drifts against it."""
    text = ("\\begin{tabular}{lcc}\n\\toprule\nMethod & Set5 & Set14 \\\\\n & PSNR & PSNR \\\\\n"
            "\\midrule\nOurs & 38.21 & 34.02 \\\\\n\\bottomrule\n\\end{tabular}\n")
    case = Case("two datasets", "a.tex", text, [("drift", 6, ("P",))], [(6, ("P",))], ("34.02",))
    assert_case(run(case.path, case.text, SET5_PSNR[1:]), case)
