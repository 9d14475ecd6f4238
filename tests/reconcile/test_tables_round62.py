"""How papers and READMEs mark, box, change and range a table's numbers (round 62).

* a best or second-best value set in Markdown math as READMEs write it, ``$\\bf{...}$``
  (CMB-ML/cmb-ml, README.md: "| CMBNNCS | $\\bf{25.25 \\pm 0.29}$ | $\\bf{31.69 \\pm 0.36}$ |
  ...") or coloured, ``$\\color{red}{...}$`` (a ChampSim prefetcher README's IPC table:
  "|gcc_trace2|0.339157|$\\color{blue}{0.345508}$|...|$\\color{red}{0.350100}$|", runner-up
  blue, champion red; a Korean depth-estimation README: "| DepthLM-12B | $\\color{red}{0.94}$
  | $\\color{red}{0.156}$ |"), was a label: its value unjudged (missed drift). In LaTeX the
  mask blanked these commands already; ``\\cellcolor{gray!20}{0.912}``, a colour's name then
  the cell's text in braces (latex2json's cellcolor handler example defines
  ``\\newcommand{\\baseline}[1]{\\cellcolor{lightgray}{#1}}``; results scripts print a score
  matrix's diagonal as ``\\cellcolor{lightgray}{71.2 (0.4)}``), lost the text with the name
  (missed drift);
* a box's size, angle, lift or scale read as the cell's number: ``\\parbox{1cm}{0.912}`` as
  1, ``\\parbox[t]{2cm}{...}`` as 2, ``\\rotatebox{90}{...}`` as 90 (false drift; benchmark
  table generators write ``\\multirow{3}{*}{\\parbox{1cm}{\\center{...}}}`` and headers
  ``\\rotatebox{90}{%s}``), or blanked the boxed text with it: ``\\scalebox{0.9}{0.912}``,
  ``\\raisebox{0.5ex}{0.912}``, ``\\makebox[1cm][r]{0.912}``, ``\\multirow[c]{2}{*}{0.912}``
  (missed drift);
* arrows in a header glued to the metric's name from other fonts than ↑/↓: "PSNR⬆", "SSIM⬇",
  "PSNR↗", "LPIPS⭣", "PSNR🠕" (epishchik/SRGD, docs/METRICS.md, heads its columns "PSNR 🡑 |
  SSIM 🡑 | LPIPS 🡑"): the name did not anchor, so the column named no claim (missed drift);
  set apart in a slash list ("PSNR ⬆ / SSIM ⬆") the list was read whole, its second number
  judged by no claim;
* a change, before → after ("76.1 → 77.3", "76.1 $\\to$ 77.3", "$76.1 \\rightarrow 77.3$"):
  read as its first number, where the change started, so a right result drifted against it
  and a wrong one was judged by the wrong number. The number after the arrow is the row's;
* a range ("0.5--0.8", "$0.5\\text{--}0.8$", "$0.5\\sim0.8$", "0.5 -- 0.8") read as its first
  number, a value: a claim of 0.5 matched it, one of 0.6 drifted against it. A range is no
  value, as prose's "0.5–0.8" is none;
* found reading real tables after those: a \\multicolumn whose spec nests braces
  (``{>{\\columncolor{green}[0pt][0pt]}c}``), ``\\tabincell{c}{...}``, a rule's width between
  rows (``\\specialrule{.1em}{.05em}{.05em}``, ``\\Xhline{1.2pt}``), an interval in words after
  a value ("0.04 (95% CI: 0.03-0.05)"), a chain of changes, a README's dingbat arrow
  ("62% ➜ 93.8%"), a slash pair of Markdown math pieces ("$\\bf{0.55}/\\bf{1.67}$") and a claim
  marker before a value in math.
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")

SR = [claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
      claim("S1", "ssim", 0.912, aliases=("Ours",))]


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _read(report: Report) -> tuple[list[tuple[str, tuple[str, ...], str]], list[tuple[str, ...]]]:
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            sorted(m.claims for m in report.matches))


def _tex(ssim: str, psnr: str = "31.42", header: str = "Method & PSNR & SSIM") -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\n" + header + " \\\\\n\\midrule\n"
            f"Ours & {psnr} & {ssim} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


def _md(ssim: str, psnr: str = "31.42", header: str = "| Method | PSNR | SSIM |") -> str:
    return f"{header}\n|---|---|---|\n| Ours | {psnr} | {ssim} |\n"


# --- 1. a marked best value -------------------------------------------------------------------

MD_MARKS = ["$\\bf{{{v}}}$", "$\\bf{{{v} \\pm 0.004}}$", "$\\bf {v}$", "$\\color{{red}}{{{v}}}$",
            "$\\color{{blue}}{{{v}}}$", "$\\textcolor{{red}}{{{v}}}$",
            "$\\mathbf{{\\color{{red}}{{{v}}}}}$"]
TEX_MARKS = ["\\cellcolor{{gray!20}}{{{v}}}", "\\cellcolor{{lightgray}}{{{v}}}",
             "\\cellcolor{{lightgray}}{{{v} (0.004)}}"]
# (near misses: these held before the round and must keep their reading)
TEX_MARKS_HELD = ["$\\bf{{{v}}}$", "{{\\bf {v}}}", "$\\color{{red}}{{{v}}}$",
                  "\\textcolor{{red}}{{{v}}}", "{{\\color{{blue}}{v}}}",
                  "\\cellcolor{{gray!20}}{v}",
                  "\\cellcolor[gray]{{0.9}}{v}", "\\cellcolor[HTML]{{EFEFEF}}{v}",
                  "\\underline{{\\textbf{{{v}}}}}", "\\textbf{{{v}}}$^{{\\dagger}}$",
                  "\\cellcolor{{gray!20}}{{\\textbf{{{v}}}}}"]


@pytest.mark.parametrize(("path", "cell"), [("a.md", c) for c in MD_MARKS]
                         + [("a.tex", c) for c in TEX_MARKS + TEX_MARKS_HELD])
@pytest.mark.parametrize(("value", "drifts"), [("0.912", False), ("0.922", True)])
def test_a_marked_best_value_is_its_number(path: str, cell: str, value: str,
                                           drifts: bool) -> None:
    text = (_md if path == "a.md" else _tex)(cell.format(v=value))
    findings, matched = _read(run(path, text, SR))
    assert findings == ([("drift", ("S1",), value)] if drifts else [])
    assert matched == ([("P1",)] if drifts else [("P1",), ("S1",)])


def test_a_readme_table_of_bold_means_with_their_spread() -> None:
    """CMB-ML/cmb-ml, README.md: the best of each column in bold math, a mean and its spread;
    the claims' drifted RMSE is reported (before, each bold cell was a label, so the CNILC
    row's number was the only one judged and the RMSE claim of CMBNNCS went unmatched)."""
    text = ("| Model   | MAE                    | RMSE                  | PSNR          |\n"
            "|---------|------------------------|-----------------------|---------------|\n"
            "| CMBNNCS | $\\bf{25.25 \\pm 0.29}$  | $\\bf{31.69 \\pm 0.36}$ "
            "| $\\bf{30.25 \\pm 0.33}$ |\n"
            "| CNILC   | $32.28 \\pm 0.44$       | $40.52 \\pm 0.55$      "
            "| $28.89 \\pm 0.60$ |\n")
    claims = [claim("M", "mae", 25.25, aliases=("CMBNNCS",), run="cmbnncs"),
              claim("R", "rmse", 31.59, aliases=("CMBNNCS",), run="cmbnncs"),
              claim("Q", "psnr", 28.89, unit="dB", aliases=("CNILC",), run="cnilc")]
    findings, matched = _read(run("README.md", text, claims))
    assert findings == [("drift", ("R",), "31.69")]
    assert matched == [("M",), ("Q",)]


def test_an_html_table_of_bold_math_cells() -> None:
    """A README choosing an autoregressive model's order writes its table in HTML, the best of
    each criterion in bold math: "<td style="text-align:center"> $\\bf{0.9914}$ </td>". The bold
    cells were labels, so the R² column was judged by its plain cells alone: a right claim of
    0.9914 drifted against the 0.9912 above it (false drift)."""
    rows = [("2", "64.1", "0.9912", "$\\bf{135.0}$"),
            ("3", "$\\bf{62.7}$", "$\\bf{0.9914}$", "136.3")]
    cell = '        <td style="text-align:center"> {} </td>\n'
    text = ("<table>\n    <tr>\n"
            + "".join(f'        <th style="text-align:center"> {h} </th>\n'
                      for h in ("P", "$\\hat{\\sigma}^2_P$", "$R^2$", "$AIC(P)$"))
            + "    </tr>\n"
            + "".join("    <tr>\n" + "".join(cell.format(c) for c in row) + "    </tr>\n"
                      for row in rows)
            + "</table>\n")
    assert _read(run("README.md", text, [claim("R", "r2", 0.9914, aliases=("R^2",))])) == \
        ([], [("R",)])
    findings, _ = _read(run("README.md", text, [claim("A", "aic", 135.5, aliases=("AIC",))]))
    assert [(t, c) for t, c, _ in findings] == [("ambiguous", ("A",))]


@pytest.mark.parametrize("marked", ["$\\bf{0.922}$", "$\\color{red}{0.922}$", "$\\bf 0.922$"])
@pytest.mark.parametrize("where", ["Ours reaches an SSIM of {m} on Kodak.\n",
                                   "| Method | SSIM |\n|---|---|\n| Ours | {m} |\n"])
def test_a_claim_marker_before_a_marked_value_reads_it(marked: str, where: str) -> None:
    """A marker's number in Markdown math ("<!-- claim:S1 -->$\\bf{0.922}$"): before, no number
    followed the marker (a false "not followed by a number" in prose; in a table cell nothing
    was judged at all)."""
    text = where.format(m="<!-- claim:S1 -->" + marked)
    assert _read(run("a.md", text, SR[1:])) == ([("drift", ("S1",), "0.922")], [])


GLYPH = ("Checkpoint File | Training Dataset  | Trainig Epochs| $\\bf{Acc}$ (%) $\\uparrow$ | "
         "{ld} | CLIP Score $\\uparrow$ \n"
         ":--------- | :--------- | :--------:| :---------: | :---------: | :---------: |\n"
         "laion10M_epoch_6_model_ema_only.ckpt | LAION-Glyph-10M  | 6 | $\\bf{42}/\\bf{28}$ | "
         "$\\bf{1.43}/\\bf{2.40}$ | $\\bf{33.9}/\\bf{36.2}$ | \n"
         "textcaps5K_epoch_10_model_ema_only.ckpt | TextCaps 5K  | 10 | $58/30$  | $1.01/2.40$ | "
         "$33.8/35.1$\n"
         "textcaps5K_epoch_40_model_ema_only.ckpt | TextCaps 5K  | 40 | $\\bf{71}/\\bf{41}$ | "
         "$\\bf{0.55}/\\bf{1.67}$ | $\\bf{34.2}/\\bf{35.8}$ | \n")
EPOCH_40 = "textcaps5K_epoch_40_model_ema_only.ckpt"


@pytest.mark.parametrize(("value", "drifts"), [(0.55, False), (0.65, True)])
def test_glyphcontrol_bold_math_pairs_read_whole(value: float, drifts: bool) -> None:
    """AIGText/GlyphControl-release, README.md: each cell a SimpleBench/CreativeBench pair, the
    best in bold math ("$\\bf{0.55}/\\bf{1.67}$") under a header naming one metric: the pair is
    read whole, its first number the column's. Before, the bold cells were labels: the epoch-40
    checkpoint's LD went unjudged."""
    text = GLYPH.replace("{ld}", "$\\bf{LD}\\downarrow$")
    claims = [claim("L", "ld", value, aliases=(EPOCH_40,), run="t40")]
    assert _read(run("README.md", text, claims)) == \
        (([("drift", ("L",), "0.55")], []) if drifts else ([], [("L",)]))


@pytest.mark.parametrize("header", ["LD (Simple/Creative)", "LD$\\downarrow$ Simple / Creative"])
@pytest.mark.parametrize(("value", "drifts"), [(1.67, False), (1.77, True)])
def test_bold_math_pairs_under_a_slash_header_split(header: str, value: float,
                                                    drifts: bool) -> None:
    """The same table headed by the pair's names: each bold half is its name's. Before, a piece
    in Markdown math was no number's piece, so the pair was not split and the Creative claim was
    judged against the first half (0.55: false drift), or the row's bold cells were labels and
    it drifted against another row's number (1.01)."""
    claims = [claim("L", "ld", value, aliases=(EPOCH_40, "Creative"), run="t40")]
    assert _read(run("README.md", GLYPH.replace("{ld}", header), claims)) == \
        (([("drift", ("L",), "1.67")], []) if drifts else ([], [("L",)]))


@pytest.mark.parametrize("cell", ["$\\bf{31.42}$/$\\bf{0.922}$", "$\\bf{31.42}/\\bf{0.922}$",
                                  "$\\color{red}{31.42}$ / $\\color{red}{0.922}$",
                                  "$\\mathbf{31.42}$/0.922"])
def test_a_slash_pair_of_math_pieces_is_split(cell: str) -> None:
    text = f"| Method | PSNR/SSIM |\n|---|---|\n| Ours | {cell} |\n"
    assert _read(run("a.md", text, SR)) == ([("drift", ("S1",), "0.922")], [("P1",)])


# --- 2. a box's size, angle, lift or scale ----------------------------------------------------

BOXES = ["\\parbox{{1cm}}{{{v}}}", "\\parbox{{1cm}}{{\\centering {v}}}",
         "\\parbox[t]{{2cm}}{{{v}}}",
         "\\parbox[c][1cm][c]{{2cm}}{{{v}}}", "\\rotatebox{{90}}{{{v}}}",
         "\\rotatebox[origin=c]{{90}}{{{v}}}", "\\scalebox{{0.9}}{{{v}}}",
         "\\raisebox{{0.5ex}}{{{v}}}", "\\raisebox{{-1pt}}[0pt][0pt]{{{v}}}",
         "\\makebox[1cm][r]{{{v}}}", "\\multirow[c]{{2}}{{*}}{{{v}}}",
         "\\multirow{{2}}{{1.5cm}}{{{v}}}", "\\resizebox{{1cm}}{{!}}{{{v}}}"]


@pytest.mark.parametrize("cell", BOXES)
@pytest.mark.parametrize(("value", "drifts"), [("0.912", False), ("0.922", True)])
def test_a_boxed_value_is_its_number_not_the_boxs_size(cell: str, value: str,
                                                       drifts: bool) -> None:
    findings, matched = _read(run("a.tex", _tex(cell.format(v=value)), SR))
    assert findings == ([("drift", ("S1",), value)] if drifts else [])
    assert matched == ([("P1",)] if drifts else [("P1",), ("S1",)])


@pytest.mark.parametrize("spec", ["{>{\\columncolor{green}[0pt][0pt]}c}",
                                  "{>{\\columncolor{gray!20}}r}",
                                  "{|>{\\centering\\arraybackslash}p{1.2cm}|}"])
@pytest.mark.parametrize(("value", "drifts"), [("0.912", False), ("0.922", True)])
def test_a_multicolumn_whose_spec_nests_braces_shows_its_value(spec: str, value: str,
                                                                drifts: bool) -> None:
    """colortbl colours one cell with a one-column \\multicolumn: "A &\\multicolumn{1}{>{
    \\columncolor{green}[0pt][0pt]}c}{318.3} &327.8" (a Chinese LaTeX tutorial's coloured table);
    a text-recognition results script writes "\\multicolumn{1}{>{\\columncolor{cls_correct}}r}{"
    around a correct prediction's probability. The spec's nested braces stopped the mask inside
    it, so the cell read as a label: its value unjudged (missed drift)."""
    cell = "\\multicolumn{1}" + spec + "{" + value + "}"
    findings, matched = _read(run("a.tex", _tex(cell), SR))
    assert findings == ([("drift", ("S1",), value)] if drifts else [])
    assert matched == ([("P1",)] if drifts else [("P1",), ("S1",)])


@pytest.mark.parametrize("cell", ["\\tabincell{{c}}{{{v}}}",
                                  "\\tabincell{{c}}{{ \\textbf{{{v}}} \\\\ "
                                  "\\textbf{{$\\pm$ 0.004}}}}",
                                  "\\tabincell{{l}}{{{v}\\\\(0.004)}}"])
@pytest.mark.parametrize(("value", "drifts"), [("0.912", False), ("0.922", True)])
def test_a_tabincell_value_is_its_number(cell: str, value: str, drifts: bool) -> None:
    """``\\newcommand{\\tabincell}[2]{\\begin{tabular}{@{}#1@{}}#2\\end{tabular}}``, the
    multi-line cell Chinese LaTeX notes teach; a MATLAB results script writes each mean and its
    spread so: "'& \\tabincell{c}{ \\textbf{', num2str(mean_val(i1) * 100, '%4.2f'), '} \\\\
    \\textbf{$\\pm$ ', ...". The alignment's group stood before the number: the cell read as a
    label, its value unjudged (missed drift)."""
    findings, matched = _read(run("a.tex", _tex(cell.format(v=value)), SR))
    assert findings == ([("drift", ("S1",), value)] if drifts else [])
    assert matched == ([("P1",)] if drifts else [("P1",), ("S1",)])


@pytest.mark.parametrize("header", [
    "Method & \\parbox{1cm}{\\centering PSNR} & \\parbox{1cm}{\\centering SSIM}",
    "Method & \\parbox[t]{1.5cm}{PSNR\\\\(dB)} & \\parbox[t]{1.5cm}{SSIM}",
    "Method & \\rotatebox{90}{PSNR} & \\rotatebox{90}{SSIM}",
])
def test_near_miss_boxed_headers_name_their_columns(header: str) -> None:
    findings, matched = _read(run("a.tex", _tex("0.922", header=header), SR))
    assert findings == [("drift", ("S1",), "0.922")]
    assert matched == [("P1",)]


# --- 3. arrows of other fonts in a header ------------------------------------------------------

@pytest.mark.parametrize(("psnr", "ssim"), [
    ("PSNR⬆", "SSIM⬇"), ("PSNR⬆\ufe0f", "SSIM⬇\ufe0f"), ("PSNR↗", "SSIM↘"), ("PSNR⭡", "SSIM⭣"),
    ("PSNR🠕", "SSIM🠗"), ("PSNR🡑", "SSIM🡑"), ("PSNR⇧", "SSIM⇩"), ("PSNR⏶", "SSIM▴"),
])
@pytest.mark.parametrize("path", ["a.md", "a.tex"])
def test_a_name_with_an_arrow_glued_anchors_its_column(psnr: str, ssim: str, path: str) -> None:
    if path == "a.md":
        text = _md("0.922", "31.52", f"| Method | {psnr} | {ssim} |")
    else:
        text = _tex("0.922", "31.52", f"Method & {psnr} & {ssim}")
    findings, matched = _read(run(path, text, SR))
    assert findings == [("drift", ("P1",), "31.52"), ("drift", ("S1",), "0.922")]
    assert matched == []


@pytest.mark.parametrize("header", ["PSNR ⬆ / SSIM ⬆", "PSNR ⬆️ / SSIM ⬆️", "PSNR 🡑 / SSIM 🡑",
                                    "PSNR ⇧ / SSIM ⇧", "PSNR ↗ / SSIM ↗"])
def test_a_slash_list_of_names_with_arrows_apart_judges_each_number(header: str) -> None:
    text = f"| Method | {header} |\n|---|---|\n| Ours | 31.42 / 0.922 |\n"
    findings, matched = _read(run("a.md", text, SR))
    assert findings == [("drift", ("S1",), "0.922")]
    assert matched == [("P1",)]


def test_srgd_metrics_table_arrows() -> None:
    """epishchik/SRGD, docs/METRICS.md, its header as written ("PSNR 🡑", set apart: a near
    miss) and with the arrows glued ("PSNR🡑", before read as no metric's column)."""
    for arrow in (" 🡑", "🡑"):
        text = (f"| Project Name |  LR  |  HR   | PSNR{arrow} | SSIM{arrow} | LPIPS{arrow} |\n"
                "|:------------:|:----:|:-----:|:-------:|:-------:|:--------:|\n"
                "|  ActionRPG   | 270p | 1080p | 25.302  |  0.867  |  0.419   |\n")
        claims = [claim("L", "lpips", 0.418, aliases=("ActionRPG",), run="esrgan"),
                  claim("Q", "psnr", 25.302, unit="dB", aliases=("ActionRPG",), run="esrgan")]
        assert _read(run("METRICS.md", text, claims)) == ([("drift", ("L",), "0.419")], [("Q",)])


# --- 4. a change, before → after ---------------------------------------------------------------

ACC = [claim("A", "accuracy", 77.3, unit="%", aliases=("Ours",))]
CHANGES = ["{a} → {b}", "{a}→{b}", "{a} $\\to$ {b}", "$ {a} \\rightarrow {b} $",
           "{a} $\\rightarrow$ {b}", "{a} -> {b}", "{a} $\\Rightarrow$ \\textbf{{{b}}}",
           "\\textbf{{{a}}} $\\rightarrow$ \\textbf{{{b}}}", "{a}\\% $\\to$ {b}\\%"]
# READMEs' dingbat arrows ("Integration Test Pass Rate: From 62% ➜ 93.8%", a public project's
# success metrics), read as the first number until round 62's review
DINGBAT_CHANGES = ["{a} ➜ {b}", "{a} ➔ {b}", "{a} ➝ {b}", "{a}➞{b}", "{a} ⮕ {b}", "{a} ⇨ {b}"]


def _ablation(path: str, cell: str) -> str:
    if path == "a.md":
        return f"| Variant | Top-1 Acc |\n|---|---|\n| Ours | {cell} |\n"
    return ("\\begin{tabular}{lc}\n\\toprule\nVariant & Top-1 Acc \\\\\n\\midrule\n"
            f"Ours & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize("form", CHANGES + DINGBAT_CHANGES)
@pytest.mark.parametrize("path", ["a.md", "a.tex"])
@pytest.mark.parametrize(("after", "drifts"), [("77.3", False), ("77.9", True)])
def test_a_change_cell_is_read_as_the_number_after_its_arrow(form: str, path: str, after: str,
                                                             drifts: bool) -> None:
    if path == "a.md" and "\\%" in form:
        form = form.replace("\\%", "%")
    findings, matched = _read(run(path, _ablation(path, form.format(a="76.1", b=after)), ACC))
    shown = after + "%" if "%" in form else after
    assert findings == ([("drift", ("A",), shown)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


def test_a_benchmark_table_of_before_and_after_latencies() -> None:
    """A BigWig reader's concurrency notes (Markdown), its read-ahead benchmark, each cell the
    latency before → after: "| 24 regions × 2Mb, base resolution | 44 | 941 → **374ms** |
    1946 → **713ms** | ...". Before, the unit glued to the second number made each such cell a
    label, so no number of the table was judged: a claim of 713 ms went unmatched, one of
    723 ms unreported."""
    text = ("| query                               | reads | 20ms/100Mbit    | 60ms/50Mbit      |\n"
            "| ----------------------------------- | ----- | --------------- | ---------------- |\n"
            "| whole-genome overview, summary zoom | 3     | 205 → 204ms     | 335 → 324ms      |\n"
            "| 24 regions × 2Mb, base resolution   | 44    | 941 → **374ms** | 1946 → **713ms** |\n"
            "| one locus × 1Mb, base resolution    | 4     | 124 → 121ms     | 287 → 273ms  |\n")

    def latency(value: float) -> list:
        return [claim("L", "latency", value, unit="ms",
                      aliases=("24 regions × 2Mb, base resolution", "60ms/50Mbit"))]

    report = run("concurrency.md", text, latency(713))
    assert report.findings == []
    assert [(m.line, m.claims) for m in report.matches] == [(4, ("L",))]
    report = run("concurrency.md", text, latency(723))
    assert [f.claims for f in report.findings] == [("L",)]
    assert "713 at 4:" in report.findings[0].render()


@pytest.mark.parametrize("cell", ["75.0 → 76.1 → 77.3", "75.0 $\\to$ 76.1 $\\to$ \\textbf{77.3}"])
def test_a_chain_of_changes_is_read_as_its_last_number(cell: str) -> None:
    """Components added one by one in a cell ("75.0 → 76.1 → 77.3"): the result is the last."""
    for path in ("a.md", "a.tex"):
        assert _read(run(path, _ablation(path, cell), ACC)) == ([], [("A",)])
        findings, _ = _read(run(path, _ablation(path, cell.replace("77.3", "77.9")), ACC))
        assert findings == [("drift", ("A",), "77.9")]


def test_near_miss_a_change_whose_arrow_leads_to_no_number_is_its_first() -> None:
    findings, matched = _read(run("a.md", _ablation("a.md", "77.3 →"), ACC))
    assert findings == []
    assert matched == [("A",)]


def test_near_miss_an_arrow_marking_a_delta_is_no_change() -> None:
    """"77.3 (↑1.2)", a gain's arrow inside parentheses after the value: the value is 77.3."""
    findings, matched = _read(run("a.md", _ablation("a.md", "77.3 (↑1.2)"), ACC))
    assert findings == []
    assert matched == [("A",)]


# --- 5. a range --------------------------------------------------------------------------------

RANGES = ["{a}--{b}", "{a} -- {b}", "$ {a}\\text{{--}}{b} $", "{a} – {b}", "{a}–{b}",
          "$ {a}\\sim{b} $", "$ {a} \\sim {b} $", "{a}\\textendash {b}"]


@pytest.mark.parametrize("form", RANGES)
@pytest.mark.parametrize("path", ["a.md", "a.tex"])
@pytest.mark.parametrize("value", [0.5, 0.6])
def test_a_range_cell_is_no_value(form: str, path: str, value: float) -> None:
    """A search space's or a spread's range ("0.5--0.8"): neither a match of a claim of 0.5
    nor a drift of one of 0.6 (LaTeX papers and Markdown notes write ranges with
    ``\\text{--}`` in math, "$0.45\\text{--}0.90$"; ``--`` is LaTeX's en dash)."""
    if path == "a.md" and "textendash" in form:
        return
    text = (f"| Hyperparameter | Dropout |\n|---|---|\n| Ours | {form.format(a='0.5', b='0.8')} |\n"
            if path == "a.md" else
            "\\begin{tabular}{lc}\n\\toprule\nHyperparameter & Dropout \\\\\n\\midrule\n"
            f"Ours & {form.format(a='0.5', b='0.8')} \\\\\n\\bottomrule\n\\end{{tabular}}\n")
    claims = [claim("D", "dropout", value, aliases=("Ours",))]
    assert _read(run(path, text, claims)) == ([], [])


def test_a_tilde_range_outside_latex_is_no_value() -> None:
    text = "| Hyperparameter | Dropout |\n|---|---|\n| Ours | 0.5~0.8 |\n"
    claims = [claim("D", "dropout", 0.6, aliases=("Ours",))]
    assert _read(run("a.md", text, claims)) == ([], [])


def test_near_miss_a_latex_tie_is_a_space_not_a_range() -> None:
    """In LaTeX "~" is a space that does not break: "0.5~dB" is the number and its unit."""
    text = _tex("0.922~", "31.42~dB")
    findings, matched = _read(run("a.tex", text, SR))
    assert findings == [("drift", ("S1",), "0.922")]
    assert matched == [("P1",)]


# --- 6. an interval or a spread after a value ---------------------------------------------------

AUC = [claim("U", "auc", 0.912, aliases=("Ours",))]


@pytest.mark.parametrize("after", ["(95% CI: 0.890-0.930)", "(95% CI 0.89–0.93)",
                                   "[95% CI: 0.89, 0.93]", "(SD 0.004)", "(std: 0.004)",
                                   "(IQR 0.90-0.93)", "(95% CI: 0.89 to 0.93)"])
@pytest.mark.parametrize(("value", "drifts"), [("0.912", False), ("0.922", True)])
def test_a_value_with_its_interval_in_words_is_the_value(after: str, value: str,
                                                         drifts: bool) -> None:
    """A results table writing each estimate with its confidence interval ("| Incidence of
    Pathological Looping | 4.2% | 65.8% | 0.04 (95% CI: 0.03-0.05) | \\<0.0001 |", a public
    write-up's efficacy table; medical-imaging READMEs give an AUC so): the interval's words
    ("CI", "SD", "std", "IQR", "to") made the cell a label, its value unjudged (missed drift)."""
    text = f"| Model | AUC |\n|---|---|\n| Ours | {value} {after} |\n"
    findings, matched = _read(run("a.md", text, AUC))
    assert findings == ([("drift", ("U",), value)] if drifts else [])
    assert matched == ([] if drifts else [("U",)])


@pytest.mark.parametrize("cell", ["0.922 (best)", "0.922 (95% CI: 0.89-0.93) best", "0.922 epochs"])
def test_near_miss_other_words_after_a_value_still_make_a_label(cell: str) -> None:
    text = f"| Model | AUC |\n|---|---|\n| Ours | {cell} |\n"
    assert _read(run("a.md", text, AUC)) == ([], [])


# --- 7. a rule's width and spacing between rows --------------------------------------------------

SR_BASE = SR + [claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base")]


@pytest.mark.parametrize("rule", [
    "\\specialrule{.1em}{.05em}{.05em}", "\\specialrule{0.5pt}{1pt}{1pt}", "\\Xhline{1.2pt}",
    "\\Xhline{2\\arrayrulewidth}", "\\hline\\noalign{\\vskip 0.5mm}", "\\noalign{\\vspace{2pt}}",
    "\\cdashline{2-3}[1pt/1pt]"])
def test_a_rule_with_its_width_between_rows_leaves_the_next_rows_label(rule: str) -> None:
    """booktabs' \\specialrule{width}{above}{below} (a template's "\\newcommand{\\thickline}{
    \\specialrule{.1em}{.05em}{.05em}}", LiuWeiHITees/semeval2024-task6-hallucination-detection's
    results table opens and closes with it), makecell's \\Xhline{1.2pt}, \\noalign{\\vskip 0.5mm}
    and arydshln's \\cdashline{2-3}[1pt/1pt] between two rows: their sizes were read as the next
    row's first cell, a number, so the row lost its label ("Baseline") and its claim went
    unmatched, the column judged whole."""
    text = ("\\begin{tabular}{lcc}\n\\toprule\nMethod & PSNR & SSIM \\\\\n" + rule + "\n"
            "Baseline & 30.10 & 0.880 \\\\\n" + rule + "\nOurs & 31.42 & 0.922 \\\\\n"
            "\\bottomrule\n\\end{tabular}\n")
    findings, matched = _read(run("a.tex", text, SR_BASE))
    assert findings == [("drift", ("S1",), "0.922")]
    assert matched == [("P0",), ("P1",)]


def test_near_miss_the_semeval_results_table_between_special_rules() -> None:
    """LiuWeiHITees/semeval2024-task6-hallucination-detection, README.md's LaTeX table: two
    \\specialrule{.1em}{.05em}{.05em} around the whole, \\multirow groups, \\multicolumn
    tracks over acc and rho, bold best values and a dagger."""
    text = (
        "\\begin{tabular}{lllrrrr}\n\\specialrule{.1em}{.05em}{.05em}\n"
        "\\multirow{2}[2]{*}{\\textbf{Model Type}} & \\multirow{2}[2]{*}{\\textbf{Model}} & "
        "\\multirow{2}[2]{*}{\\textbf{Description}} & \\multicolumn{2}{c}{\\textbf{model-agnostic}}"
        " & \\multicolumn{2}{c}{\\textbf{model-aware}} \\\\\n"
        " & & & \\multicolumn{1}{c}{acc} & \\multicolumn{1}{c}{rho} & \\multicolumn{1}{c}{acc} & "
        "\\multicolumn{1}{c}{rho} \\\\\n\\midrule\n"
        "Baseline & Mistral-7B & not train & 69.66 & 40.29 & 74.53 & 48.78 \\\\\n\\midrule\n"
        "\\multirow{2}[2]{*}{Similarity Model} & SBERT & not train & 76.80 & 63.73 & 75.66 & "
        "62.65 \\\\\n & UniEval & not train & 72.00 & 58.04 & 73.13 & 54.43 \\\\\n\\midrule\n"
        "Ensemble & ensemble & ensemble all model & \\textbf{83.06} & \\textbf{76.77} & 79.73 & "
        "72.37$^\\dagger$ \\\\\n\\specialrule{.1em}{.05em}{.05em}\n\\end{tabular}\n")
    claims = [claim("EA", "acc", 83.06, aliases=("Ensemble", "model-agnostic"), run="ens-ag"),
              claim("ER", "rho", 76.87, aliases=("Ensemble", "model-agnostic"), run="ens-ag"),
              claim("WR", "rho", 72.37, aliases=("Ensemble", "model-aware"), run="ens-aw"),
              claim("SA", "acc", 75.76, aliases=("SBERT", "model-aware"), run="sb-aw")]
    findings, matched = _read(run("a.tex", text, claims))
    assert findings == [("drift", ("SA",), "75.66"), ("drift", ("ER",), "76.77")]
    assert matched == [("EA",), ("WR",)]
