"""HTML tables inside Markdown (`html_tables`): read as tables, so a cell is judged by its row
label and its column header, as in a pipe table.

The first cases are results tables copied verbatim from public READMEs (trimmed to the table;
each names its source), judged as `test_readme_tables_review` judges pipe tables: the README as
written gives no finding and each bound number is matched at its line, and each bound number
moved past half a unit in its last digit is `drift` on its claim at that line, and nothing else.
Read as prose (before this reader) each of them gave an ambiguous finding instead of the drift.
"""

from __future__ import annotations

import pytest

from labledger.reconcile import html_tables
from labledger.reconcile.doc_readers import Segment, Sentence, Table, mask_text
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.numbers import scan_numbers
from labledger.reconcile.units import unit_at
from tests.reconcile.test_readme_tables_review import Readme, _run, claim
from tests.reconcile.test_readme_tables_review import test_readme_table as _check_readme

# abubakrsiddq/ImageDehazing README.md (commit 022d338c): one metric per row, one method per
# column, <th> headers, the best in <b>, cells indented unevenly and blank lines inside rows
DEHAZING = (
    "# ImageDehazing\n"
    "## MIT Final Year project\n"
    "\n"
    "\n"
    "\n"
    "<table style=\"width:100%\">\n"
    "  <tr>\n"
    "    <th>Metrics</th>\n"
    "    <th>GT</th>\n"
    "    <th>hazy</th>\n"
    "    <th>LCA</th>\n"
    "    <th>DehazeNet(40)</th>\n"
    "    <th>DCP</th>\n"
    "    <th>GMAN</th>\n"
    "  </tr>\n"
    "  <tr>\n"
    "    <td>PSNR</td>\n"
    "    <td>-</td>\n"
    "    <td>14.52</td>\n"
    "    <td>20.96</td>\n"
    "    <td><b>12.07</b></td>\n"
    "    <td>11.92</td>\n"
    "    <td>12.05</td>\n"
    "    \n"
    "   </tr>\n"
    "    <tr>\n"
    "    <td>SSIM</td>\n"
    "    <td>-</td>\n"
    "    <td>0.66</td>\n"
    "  <td><b>0.75</b></td>\n"
    "    <td>0.1728</td>\n"
    "    <td>0.169</td>\n"
    "  <td>0.18</td>\n"
    "    \n"
    "   </tr>\n"
    "   \n"
    "  <tr>\n"
    "    <td>FADE</td>\n"
    "    <td>0.3597</td>\n"
    "    <td>0.7975</td>\n"
    "    <td>0.8163</td>\n"
    "    <td>0.5130</td>\n"
    "  <td><b>0.3482</b></td>\n"
    "    <td>0.6574</td>\n"
    "  </tr>\n"
    "  <tr>\n"
    "    <td>NQIE</td>\n"
    "    <td>2.8509</td>\n"
    "    <td>2.6513</td>\n"
    "    <td>5.4881</td>\n"
    "    <td>2.7238</td>\n"
    "    <td>2.662</td>\n"
    "  <td><b>2.5453</b></td>\n"
    "  </tr>\n"
    "  \n"
    "  <tr>\n"
    "    <td>CEIQ</td>\n"
    "    <td>3.2714</td>\n"
    "    <td>3.159</td>\n"
    "    <td>3.0446</td>\n"
    "    <td> 3.045</td>\n"
    "    <td>2.7513</td>\n"
    "  <td><b>3.1598</b></td>\n"
    "  </tr>\n"
    "  <tr>\n"
    "    <td>BLIINDS2</td>\n"
    "    <td>12.744</td>\n"
    "    <td>16.2</td>\n"
    "    <td>53.0667</td>\n"
    "    <td><b>16.94</b></td>\n"
    "    <td>17.6778</td>\n"
    "  <td>17.3222</td>\n"
    "  </tr>\n"
    "  </table>\n"
)

# danyayay/EgoCross-VLM Readme.md (commit dd394c14): <thead>/<tbody>, rowspan="2" headers beside
# a colspan="2" group, a stage label written once with empty cells below it, <strong> best
EGOCROSS = (
    "## Results\n"
    "\n"
    "<table>\n"
    "<thead>\n"
    "<tr><th rowspan=\"2\">Stage</th><th rowspan=\"2\">Method</th><th colspan=\"2\">Input</th><"
    "th rowspan=\"2\">Accuracy</th><th rowspan=\"2\">Macro-F1</th></tr>\n"
    "<tr><th>Egocentric</th><th>Gaze-guided</th></tr>\n"
    "</thead>\n"
    "<tbody>\n"
    "<tr><td>Baseline</td><td>CLIP+Transformer baseline</td><td>✅</td><td></td><td>0.727<"
    "/td><td>0.724</td></tr>\n"
    "<tr style=\"border-top:2px solid\"><td>Zero-shot</td><td>VLM (Qwen2.5-VL-7B, standard "
    "prompt)</td><td>✅</td><td></td><td>0.629</td><td>0.575</td></tr>\n"
    "<tr><td></td><td>VLM (Qwen2.5-VL-7B, standard prompt)</td><td>✅</td><td>✅</td><td>0."
    "663</td><td>0.646</td></tr>\n"
    "<tr><td></td><td>VLM (Qwen3-VL-2B, standard prompt)</td><td>✅</td><td></td><td>0.591"
    "</td><td>0.578</td></tr>\n"
    "<tr style=\"border-top:2px solid\"><td>Fine-tuned</td><td>VLM (Qwen3-VL-2B, LoRA)</td>"
    "<td>✅</td><td></td><td>0.755</td><td>0.742</td></tr>\n"
    "<tr><td></td><td>VLM (Qwen3-VL-2B, LoRA)</td><td>✅</td><td>✅</td><td><strong>0.834</"
    "strong></td><td><strong>0.830</strong></td></tr>\n"
    "<tr><td></td><td>VLM (GroundVQA, LoRA)</td><td>✅</td><td></td><td>0.788</td><td>0.78"
    "6</td></tr>\n"
    "</tbody>\n"
    "</table>\n"
)

# mlpc-ucsd/TokenCompose README.md (commit 43601898), the MultiGen table: colspan="4" datasets
# over MG2..MG5 sub-columns, rowspan="2" "Method", a commented-out <th>, linked row labels,
# <b>/<u> best and second best, each standard deviation in a <sub> after its mean
MULTIGEN = (
    "## 📊 MultiGen \n"
    "\n"
    "See [MultiGen](multigen/readme.md) for details.\n"
    "\n"
    "\n"
    "\n"
    "\n"
    "<table>\n"
    "  <tr>\n"
    "    <th rowspan=\"2\" align=\"center\">Method</th>\n"
    "    <th colspan=\"4\" align=\"center\">COCO</th>\n"
    "    <th colspan=\"4\" align=\"center\">ADE20K</th>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <!-- <th align=\"center\">&nbsp;</th> -->\n"
    "    <th align=\"center\">MG2</th>\n"
    "    <th align=\"center\">MG3</th>\n"
    "    <th align=\"center\">MG4</th>\n"
    "    <th align=\"center\">MG5</th>\n"
    "    <th align=\"center\">MG2</th>\n"
    "    <th align=\"center\">MG3</th>\n"
    "    <th align=\"center\">MG4</th>\n"
    "    <th align=\"center\">MG5</th>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://huggingface.co/CompVis/stable-diffusion-v1-4"
    "\">SD 1.4</a></td>\n"
    "    <td align=\"center\">90.72<sub>1.33</sub></td>\n"
    "    <td align=\"center\">50.74<sub>0.89</sub></td>\n"
    "    <td align=\"center\">11.68<sub>0.45</sub></td>\n"
    "    <td align=\"center\">0.88<sub>0.21</sub></td>\n"
    "    <td align=\"center\">89.81<sub>0.40</sub></td>\n"
    "    <td align=\"center\">53.96<sub>1.14</sub></td>\n"
    "    <td align=\"center\">16.52<sub>1.13</sub></td>\n"
    "    <td align=\"center\">1.89<sub>0.34</sub></td>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://github.com/energy-based-model/Compositional-"
    "Visual-Generation-with-Composable-Diffusion-Models-PyTorch\">Composable</a></td>\n"
    "    <td align=\"center\">63.33<sub>0.59</sub></td>\n"
    "    <td align=\"center\">21.87<sub>1.01</sub></td>\n"
    "    <td align=\"center\">3.25<sub>0.45</sub></td>\n"
    "    <td align=\"center\">0.23<sub>0.18</sub></td>\n"
    "    <td align=\"center\">69.61<sub>0.99</sub></td>\n"
    "    <td align=\"center\">29.96<sub>0.84</sub></td>\n"
    "    <td align=\"center\">6.89<sub>0.38</sub></td>\n"
    "    <td align=\"center\">0.73<sub>0.22</sub></td>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://github.com/silent-chen/layout-guidance\">Layo"
    "ut</a></td>\n"
    "    <td align=\"center\">93.22<sub>0.69</sub></td>\n"
    "    <td align=\"center\">60.15<sub>1.58</sub></td>\n"
    "    <td align=\"center\">19.49<sub>0.88</sub></td>\n"
    "    <td align=\"center\">2.27<sub>0.44</sub></td>\n"
    "    <td align=\"center\"><u>96.05</u><sub>0.34</sub></td>\n"
    "    <td align=\"center\"><u>67.83</u><sub>0.90</sub></td>\n"
    "    <td align=\"center\">21.93<sub>1.34</sub></td>\n"
    "    <td align=\"center\">2.35<sub>0.41</sub></td>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://github.com/weixi-feng/Structured-Diffusion-G"
    "uidance\">Structured</a></td>\n"
    "    <td align=\"center\">90.40<sub>1.06</sub></td>\n"
    "    <td align=\"center\">48.64<sub>1.32</sub></td>\n"
    "    <td align=\"center\">10.71<sub>0.92</sub></td>\n"
    "    <td align=\"center\">0.68<sub>0.25</sub></td>\n"
    "    <td align=\"center\">89.25<sub>0.72</sub></td>\n"
    "    <td align=\"center\">53.05<sub>1.20</sub></td>\n"
    "    <td align=\"center\">15.76<sub>0.86</sub></td>\n"
    "    <td align=\"center\">1.74<sub>0.49</sub></td>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://github.com/yuval-alaluf/Attend-and-Excite\">A"
    "ttn-Exct</a></td>\n"
    "    <td align=\"center\"><u>93.64</u><sub>0.76</sub></td>\n"
    "    <td align=\"center\"><u>65.10</u><sub>1.24</sub></td>\n"
    "    <td align=\"center\"><u>28.01</u><sub>0.90</sub></td>\n"
    "    <td align=\"center\"><b>6.01</b><sub>0.61</sub></td>\n"
    "    <td align=\"center\">91.74<sub>0.49</sub></td>\n"
    "    <td align=\"center\">62.51<sub>0.94</sub></td>\n"
    "    <td align=\"center\"><u>26.12</u><sub>0.78</sub></td>\n"
    "    <td align=\"center\"><u>5.89</u><sub>0.40</sub></td>\n"
    "  </tr>\n"
    "\n"
    "  <tr>\n"
    "    <td align=\"center\"><a href=\"https://github.com/mlpc-ucsd/TokenCompose\">Ours</a><"
    "/td>\n"
    "    <td align=\"center\"><b>98.08</b><sub>0.40</sub></td>\n"
    "    <td align=\"center\"><b>76.16</b><sub>1.04</sub></td>\n"
    "    <td align=\"center\"><b>28.81</b><sub>0.95</sub></td>\n"
    "    <td align=\"center\"><u>3.28</u><sub>0.48</sub></td>\n"
    "    <td align=\"center\"><b>97.75</b><sub>0.34</sub></td>\n"
    "    <td align=\"center\"><b>76.93</b><sub>1.09</sub></td>\n"
    "    <td align=\"center\"><b>33.92</b><sub>1.47</sub></td>\n"
    "    <td align=\"center\"><b>6.21</b><sub>0.62</sub></td>\n"
    "  </tr>\n"
    "\n"
    "</table>\n"
)

REAL = [
    Readme("abubakrsiddq/ImageDehazing:README.md", DEHAZING,
           [claim("H1", "psnr", 20.9613, unit="dB", aliases=("LCA",)),
            claim("H2", "ssim", 0.75124, aliases=("LCA",)),
            claim("H3", "psnr", 12.0712, unit="dB", aliases=("DehazeNet(40)",),
                  run="dehazenet")],
           [("H1", 20, "<td>20.96<", "<td>21.06<"), ("H2", 30, "<b>0.75</b>", "<b>0.76</b>"),
            ("H3", 21, "<b>12.07</b>", "<b>12.17</b>")]),
    Readme("danyayay/EgoCross-VLM:Readme.md", EGOCROSS,
           [claim("E1", "accuracy", 0.72712, aliases=("CLIP+Transformer baseline",),
                  run="clip"),
            claim("E2", "macro_f1", 0.78593, aliases=("GroundVQA", "Macro-F1"),
                  run="groundvqa")],
           [("E1", 9, "<td>0.727<", "<td>0.737<"), ("E2", 15, "<td>0.786<", "<td>0.796<")]),
    Readme("mlpc-ucsd/TokenCompose:README.md#multigen", MULTIGEN,
           [claim("T1", "mg3", 76.1623, aliases=("Ours", "COCO")),
            claim("T2", "mg5", 6.2113, aliases=("Ours", "ADE20K")),
            claim("T3", "mg2", 96.0514, aliases=("Layout", "ADE20K"), run="layout")],
           [("T1", 90, "<b>76.16</b>", "<b>76.26</b>"), ("T2", 96, "<b>6.21</b>", "<b>6.31</b>"),
            ("T3", 57, "<u>96.05</u>", "<u>96.15</u>")]),
]


@pytest.mark.parametrize("case", REAL, ids=[c.source for c in REAL])
def test_real_readme_html_table(case: Readme) -> None:
    _check_readme(case)


def _segment(text: str) -> Segment:
    return Segment("README.md", "md", text)


def _table(text: str, at: str) -> Table:
    unit = unit_at(_segment(text), text.index(at))
    assert isinstance(unit, Table), unit
    return unit


@pytest.mark.parametrize("case", REAL, ids=[c.source for c in REAL])
def test_cells_keep_the_segment_offsets(case: Readme) -> None:
    seg = _segment(case.text)
    unit = unit_at(seg, case.text.index(case.bound[0][2]))
    assert isinstance(unit, Table)
    cells = [c for row in (*unit.header_rows, *unit.rows) for c in row]
    assert len(cells) > 20
    for cell in cells:
        raw = case.text[cell.start:cell.end]
        assert len(cell.text) == len(raw), (cell, raw)
        # what is shown stays where it is written; markup is blanked
        assert all(ch == raw[i] for i, ch in enumerate(cell.text) if not ch.isspace()), raw
        assert "<" not in cell.text, cell.text
        assert ">" not in cell.text, cell.text


# --- focused cases ----------------------------------------------------------------------------

BOLD = (
    "## Results\n"
    "\n"
    "<table>\n"
    "  <tr><th>Method</th><th>PSNR (dB)</th><th>SSIM</th></tr>\n"
    "  <tr><td>Bicubic</td><td>27.54</td><td>0.7736</td></tr>\n"
    "  <tr><td>EDSR</td><td>30.52</td><td>0.8862</td></tr>\n"
    "  <tr><td>Baseline</td><td>30.10</td><td>0.8812</td></tr>\n"
    "  <tr><td>Ours</td><td><b>31.42</b></td><td><b>0.9134</b></td></tr>\n"
    "</table>\n"
)
BOLD_CLAIMS = [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",)),
               claim("S1", "ssim", 0.91342, aliases=("Ours",)),
               claim("C0", "psnr", 30.1012, unit="dB", aliases=("Baseline",), run="base")]


def test_matching_table_gives_no_finding_and_matches_each_number_at_its_line() -> None:
    report = _run(BOLD, BOLD_CLAIMS)
    assert report.findings == [], [f.render() for f in report.findings]
    assert sorted((m.claims, m.line, m.shown) for m in report.matches) == [
        (("C0",), 7, "30.10"), (("C1",), 8, "31.42"), (("S1",), 8, "0.9134")]


def test_drift_in_a_bold_cell_is_drift_on_its_claim_at_its_line_and_column() -> None:
    drifted = BOLD.replace("<b>31.42</b>", "<b>31.52</b>")
    report = _run(drifted, BOLD_CLAIMS)
    line = drifted.splitlines()[7]
    assert [(f.type, f.claims, f.line, f.col) for f in report.findings] == [
        ("drift", ("C1",), 8, line.index("31.52") + 1)], [f.render() for f in report.findings]
    assert "31.52" in report.findings[0].message


def test_a_bold_cell_reads_as_its_number_blanked_one_for_one() -> None:
    table = _table(BOLD, "31.42")
    ours = table.rows[3]
    assert ours[1].text == "   31.42    "
    assert BOLD[ours[1].start:ours[1].end] == "<b>31.42</b>"
    assert [c.text for c in table.header] == ["Method", "PSNR (dB)", "SSIM"]
    assert mask_text("md", ours[1].text) == ours[1].text
    (shown,) = scan_numbers(ours[1].text, base=ours[1].start)
    assert BOLD[shown.start:shown.end] == "31.42"


GROUPED = (
    "<table>\n"
    "<thead>\n"
    "<tr><th rowspan=\"2\">Method</th><th colspan=\"2\">Set5</th>"
    "<th colspan=\"2\">Urban100</th></tr>\n"
    "<tr><th>PSNR</th><th>SSIM</th><th>PSNR</th><th>SSIM</th></tr>\n"
    "</thead>\n"
    "<tbody>\n"
    "<tr><td>EDSR</td><td>32.46</td><td>0.8968</td><td>26.64</td><td>0.8033</td></tr>\n"
    "<tr><td>Ours</td><td><b>32.61</b></td><td><b>0.9001</b></td><td><b>27.02</b></td>"
    "<td><b>0.8142</b></td></tr>\n"
    "</tbody>\n"
    "</table>\n"
)
GROUPED_CLAIMS = [claim("P5", "psnr", 32.6112, unit="dB", aliases=("Ours", "Set5")),
                  claim("SU", "ssim", 0.81423, aliases=("Ours", "Urban100")),
                  claim("PU", "psnr", 26.6434, unit="dB", aliases=("EDSR", "Urban100"),
                        run="edsr")]


def test_colspan_header_heads_every_column_it_spans() -> None:
    table = _table(GROUPED, "32.61")
    assert [c.text for c in table.header] == [
        "Method", "Set5 PSNR", "Set5 SSIM", "Urban100 PSNR", "Urban100 SSIM"]
    # the dataset is a part of each column it heads: its anchors are looked for there
    assert [p.text for p in table.parts_of(4)] == ["Urban100", "SSIM"]
    assert [[c.text.strip() for c in row] for row in table.rows][0] == [
        "EDSR", "32.46", "0.8968", "26.64", "0.8033"]
    report = _run(GROUPED, GROUPED_CLAIMS)
    assert report.findings == [], [f.render() for f in report.findings]
    assert sorted((m.claims, m.shown) for m in report.matches) == [
        (("P5",), "32.61"), (("PU",), "26.64"), (("SU",), "0.8142")]


@pytest.mark.parametrize(("shown", "moved", "cid"), [
    ("<b>0.8142</b>", "<b>0.8152</b>", "SU"), ("<b>32.61</b>", "<b>32.71</b>", "P5"),
    ("<td>26.64</td>", "<td>26.74</td>", "PU")])
def test_colspan_header_drift_is_on_the_dataset_s_claim(shown: str, moved: str,
                                                          cid: str) -> None:
    report = _run(GROUPED.replace(shown, moved), GROUPED_CLAIMS)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", (cid,))], \
        [f.render() for f in report.findings]


@pytest.mark.parametrize(("rows", "header"), [
    # no <th> at all: the first row
    ("<tr><td>Method</td><td>PSNR</td></tr><tr><td>Ours</td><td>31.42</td></tr>",
     ["Method", "PSNR"]),
    # leading rows only of <th>; a <th> labelling a body row leaves that row in the body
    ("<tr><th>Method</th><th colspan=\"1\">Set5</th></tr><tr><th></th><th>PSNR</th></tr>"
     "<tr><th>Ours</th><td>31.42</td></tr>", ["Method", "Set5 PSNR"]),
    # <thead> wins over <th>-only rows below it
    ("<thead><tr><td>Method</td><td>PSNR</td></tr></thead>"
     "<tbody><tr><th>Ours</th><th>31.42</th></tr></tbody>", ["Method", "PSNR"]),
])
def test_which_rows_are_the_header(rows: str, header: list[str]) -> None:
    text = f"<table>{rows}</table>\n"
    table = _table(text, "31.42")
    assert [c.text for c in table.header] == header
    assert [[c.text for c in row] for row in table.rows] == [["Ours", "31.42"]]


SLASHED = (
    "<table>\n"
    "<tr><th>Method</th><th colspan=\"2\">Set5 PSNR/SSIM</th></tr>\n"
    "<tr><td>Ours</td><td>32.61</td><td>0.9001</td></tr>\n"
    "</table>\n"
)


def test_a_colspan_slash_header_names_each_column_it_spans() -> None:
    table = _table(SLASHED, "32.61")
    assert [c.text for c in table.header] == ["Method", "Set5 PSNR", "Set5 SSIM"]
    claims = [claim("P5", "psnr", 32.6112, unit="dB", aliases=("Ours",)),
              claim("S5", "ssim", 0.90012, aliases=("Ours",))]
    report = _run(SLASHED.replace("0.9001", "0.9011"), claims)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("S5",))], \
        [f.render() for f in report.findings]


ROWSPAN = (
    "<table>\n"
    "<tr><th>Method</th><th>Dataset</th><th>PSNR</th></tr>\n"
    "<tr><td rowspan=\"2\">EDSR</td><td>Set5</td><td>32.46</td></tr>\n"
    "<tr><td>Urban100</td><td>26.64</td></tr>\n"
    "<tr><td rowspan=\"2\">RCAN</td><td>Set5</td><td>32.63</td></tr>\n"
    "<tr><td>Urban100</td><td>26.82</td></tr>\n"
    "</table>\n"
)
ROWSPAN_CLAIMS = [claim("EU", "psnr", 26.6412, unit="dB", aliases=("EDSR", "Urban100"),
                        run="edsr"),
                  claim("RU", "psnr", 26.8211, unit="dB", aliases=("RCAN", "Urban100"),
                        run="rcan")]


def test_rowspan_label_names_each_row_it_spans() -> None:
    table = _table(ROWSPAN, "26.64")
    labels = [row[0] for row in table.rows]
    assert [c.text for c in labels] == ["EDSR", "EDSR", "RCAN", "RCAN"]
    # offsets and all: where its anchors are looked for
    assert {(c.start, c.end) for c in labels[:2]} == {(ROWSPAN.index("EDSR"),
                                                      ROWSPAN.index("EDSR") + 4)}
    report = _run(ROWSPAN, ROWSPAN_CLAIMS)
    assert report.findings == [], [f.render() for f in report.findings]
    assert sorted((m.claims, m.line) for m in report.matches) == [(("EU",), 4), (("RU",), 6)]
    # the row under the label names its method: the drift is EDSR's, not ambiguous with RCAN
    report = _run(ROWSPAN.replace("26.64", "26.74"), ROWSPAN_CLAIMS)
    assert [(f.type, f.claims, f.line) for f in report.findings] == [("drift", ("EU",), 4)], \
        [f.render() for f in report.findings]


def test_a_rowspan_value_is_read_once() -> None:
    text = ("<table>\n<tr><th>Method</th><th>Split</th><th>PSNR</th></tr>\n"
            "<tr><td>Ours</td><td>val</td><td rowspan=\"2\">31.42</td></tr>\n"
            "<tr><td>Ours</td><td>test</td></tr>\n</table>\n")
    table = _table(text, "31.42")
    assert [c.text for c in table.rows[1]] == ["Ours", "test", ""]
    report = _run(text, [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",))])
    assert [(m.claims, m.line) for m in report.matches] == [(("C1",), 3)]


def test_a_group_label_over_many_rows_still_names_each_of_them() -> None:
    rows = "".join(f"<tr><td>Set{k}</td><td>3{k % 10}.42</td></tr>\n" for k in range(1, 40))
    text = ("<table>\n<tr><th>Method</th><th>Dataset</th><th>PSNR</th></tr>\n"
            "<tr><td rowspan=\"40\">Ours</td><td>Set0</td><td>30.42</td></tr>\n"
            + rows + "</table>\n")
    table = _table(text, "39.42")
    assert len(table.rows) == 40
    assert {row[0].text for row in table.rows} == {"Ours"}


def test_spans_covering_far_more_than_the_cells_written_are_no_table() -> None:
    """999 cells of rowspan="999" step one column right a row: half a million places out of
    55 KB, built in 2.9 s. Refused: read as prose, as a malformed table is."""
    text = ("<table>\n" + "".join(f'<tr><td rowspan="999">Ours PSNR {k}</td><td>31.42</td>'
                                  "</tr>\n" for k in range(999)) + "</table>\n")
    segment = Segment("a.md", "md", text)
    assert html_tables.html_table(segment, text.index("31.42")) is None
    assert isinstance(unit_at(segment, text.index("31.42")), Sentence)


@pytest.mark.parametrize("sign", ["&plusmn;", "&#177;", "&#xB1;", "&nbsp;&plusmn;&nbsp;"])
def test_plus_minus_entity_is_an_uncertainty_sign(sign: str) -> None:
    text = ("<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n"
            "<tr><td>Baseline</td><td>30.10</td></tr>\n"
            f"<tr><td>Ours</td><td>31.42{sign}0.05</td></tr>\n</table>\n")
    cell = _table(text, "31.42").rows[1][1]
    assert len(cell.text) == cell.end - cell.start
    assert cell.text.index("\u00b1") < cell.text.index("0.05")
    first, spread = scan_numbers(cell.text)
    assert (first.text, first.uncertainty) == ("31.42", False)
    assert (spread.text, spread.uncertainty) == ("0.05", True)
    claims = [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",)),
              claim("C0", "psnr", 30.1012, unit="dB", aliases=("Baseline",), run="base")]
    assert _run(text, claims).findings == []
    report = _run(text.replace("31.42", "31.52"), claims)
    assert [(f.type, f.claims, f.line) for f in report.findings] == [("drift", ("C1",), 4)]


def test_entities_are_replaced_one_for_one() -> None:
    text = ("<table>\n<tr><th>Method</th><th>Top-1 (&#37;)</th></tr>\n"
            "<tr><td>R&amp;D &lt;net&gt;</td><td>91.3&#37;</td></tr>\n"
            "<tr><td>Ours</td><td>&minus;0.5</td></tr>\n</table>\n")
    table = _table(text, "91.3")
    label, value = table.rows[0]
    assert label.text == "R&    D <   net>   "
    assert value.text == "91.3%    "
    assert table.rows[1][1].text == "      \u22120.5"  # the sign against its number
    assert table.header[1].text == "Top-1 (%    )"
    for cell in (label, value, table.rows[1][1], table.header[1]):
        assert len(cell.text) == cell.end - cell.start
    assert mask_text("md", label.text) == label.text  # "<   net>" is no tag to mask


SPREAD = (
    "Results:\n"
    "\n"
    "<table\n"
    "    align=\"center\">\n"
    "  <tr>\n"
    "    <th>Method</th>\n"
    "    <th>\n"
    "      PSNR\n"
    "    </th>\n"
    "  </tr>\n"
    "  <tr>\n"
    "    <td\n"
    "        align=\"center\">Baseline</td>\n"
    "    <td>30.10</td>\n"
    "  </tr>\n"
    "  <tr>\n"
    "    <td align=\"center\">\n"
    "      <a href=\"https://example.org/ours\">Ours</a>\n"
    "    </td>\n"
    "    <td align=\"center\">\n"
    "      <strong>\n"
    "        31.42\n"
    "      </strong>\n"
    "    </td>\n"
    "  </tr>\n"
    "</table>\n"
)


def test_a_table_spread_over_many_lines() -> None:
    table = _table(SPREAD, "31.42")
    assert [c.text for c in table.header] == ["Method", "PSNR"]
    assert [c.text.split() for c in table.rows[1]] == [["Ours"], ["31.42"]]
    claims = [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",)),
              claim("C0", "psnr", 30.1012, unit="dB", aliases=("Baseline",), run="base")]
    report = _run(SPREAD, claims)
    assert report.findings == []
    assert sorted((m.claims, m.line) for m in report.matches) == [(("C0",), 14), (("C1",), 22)]
    report = _run(SPREAD.replace("31.42", "31.52"), claims)
    assert [(f.type, f.claims, f.line, f.col) for f in report.findings] == [
        ("drift", ("C1",), 22, 9)], [f.render() for f in report.findings]


def _prose(text: str, at: str) -> None:
    unit = unit_at(_segment(text), text.index(at))
    assert isinstance(unit, Sentence), unit


@pytest.mark.parametrize("text", [
    # no </table>: the rows are read as prose, as before
    "<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n<tr><td>Ours</td><td>31.52</td></tr>\n",
    # a cell outside any row
    "<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n<td>Ours</td><td>31.52</td>\n</table>\n",
    # an end tag with nothing open
    "<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n</td><tr><td>Ours</td><td>31.52</td>"
    "</tr>\n</table>\n",
    # a number outside every cell would be hidden by a table
    "<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n<tr><td>Ours</td></tr> 31.52\n</table>\n",
    # a header and nothing under it
    "<table><tr><th>Ours PSNR 31.52</th></tr></table>\n",
    # in a code fence, and commented out
    "```html\n<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n<tr><td>Ours</td><td>31.52</td>"
    "</tr>\n</table>\n```\n",
    "<!--\n<table>\n<tr><th>Method</th><th>PSNR</th></tr>\n<tr><td>Ours</td><td>31.52</td>"
    "</tr>\n</table>\n-->\n",
    # a colspan past the limit
    "<table>\n<tr><th>Method</th><th colspan=\"99999\">PSNR</th></tr>\n<tr><td>Ours</td>"
    "<td>31.52</td></tr>\n</table>\n",
])
def test_a_malformed_table_is_prose_and_raises_nothing(text: str) -> None:
    _prose(text, "31.52")
    report = _run(text, [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",))])
    assert all(f.type in ("drift", "ambiguous") for f in report.findings)


def test_unclosed_table_drift_is_still_found_as_prose() -> None:
    text = "<table>\n<tr><td>Ours reaches a PSNR of 31.52 dB</td></tr>\n"
    report = _run(text, [claim("C1", "psnr", 31.4213, unit="dB", aliases=("Ours",))])
    assert [(f.type, f.claims, f.line) for f in report.findings] == [("drift", ("C1",), 2)]


def test_a_layout_table_holding_a_table_is_refused_and_the_inner_one_read() -> None:
    text = ("<table><tr><td>\n"
            "<table><tr><th>Method</th><th>PSNR</th></tr>\n"
            "<tr><td>Ours</td><td>31.42</td></tr></table>\n"
            "</td><td>PSNR 31.52 elsewhere</td></tr></table>\n")
    inner = _table(text, "31.42")
    assert text[inner.start:inner.end].count("<table") == 1
    _prose(text, "31.52")


def test_each_table_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    build = html_tables._build

    def counted(text: str, start: int, end: int) -> Table | None:
        calls.append(start)
        return build(text, start, end)

    monkeypatch.setattr(html_tables, "_build", counted)
    # every number of both tables asks for its table (anchors in each cell)
    report = _run(GROUPED + "\n" + EGOCROSS, GROUPED_CLAIMS + REAL[1].claims)
    assert report.findings == [], [f.render() for f in report.findings]
    assert len(report.matches) == 5, [(m.claims, m.shown) for m in report.matches]
    assert len(calls) == 2
    assert len(set(calls)) == 2  # (one parse per table)


def test_markdown_without_a_table_tag_costs_no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str, start: int, end: int) -> Table | None:
        raise AssertionError("parsed")

    monkeypatch.setattr(html_tables, "_build", refuse)
    text = ("| Method | PSNR |\n|---|---|\n| Ours | <b>31.52</b> |\n\n"
            "<p>Ours reaches 31.52 dB PSNR.</p>\n")
    seg = _segment(text)
    report = reconcile_segments([seg], [claim("C1", "psnr", 31.4213, unit="dB",
                                              aliases=("Ours",))])
    assert [(f.type, f.line) for f in report.findings] == [("drift", 3), ("drift", 5)]
    assert seg._cache.get("html_table_spans") == []
