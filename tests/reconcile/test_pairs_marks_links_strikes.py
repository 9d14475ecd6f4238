"""Numbers the reader lost or misread in how papers and READMEs mark them up (review 35):

* a slash pair ending a sentence ("Our EM/F1 is 84.1/91.3."): the full stop was read as a third
  dotted part of the pair, so its first number was no number and its drift never seen;
* a Unicode superscript footnote mark glued to a decimal ("31.52¹ dB", a cell's "76.9²"): the
  mark was read as a word glued to the number, which hid it;
* a Markdown table cell that is a link's text ("| [31.52](logs/ours.txt) |", as READMEs link a
  score to its log) was no number cell (its "[" was left by the mask), and LaTeX's
  ``\\href{url}{31.52}`` was blanked whole, the printed text with the URL;
* a struck-out old value beside the new one ("| ~~76.9~~ 76.3 |", ``<del>``, ``<s>``,
  ``<strike>``, ``\\sout{}``, ``\\st{}``) was judged as the value shown: false drift;
* a GLUE header "MNLI-(m/mm)" over "84.6/83.9" (Devlin et al. 2019, BERT, Table 1) named neither
  MNLI-m nor MNLI-mm: both numbers went unchecked, without a word.

Each row is a snippet, the findings it must produce as ``(type, line, claim ids)`` and, where it
matters, the matched numbers as ``(line, claim ids)``. Rows marked "near miss" held before the
fix and must keep their reading.
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

CLAIMS = [
    claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
    claim("S1", "ssim", 0.9134, aliases=("Ours",)),
    claim("A1", "top1", 0.7634, aliases=("Ours",)),
    claim("E1", "em", 85.2, unit="%", aliases=("EM",)),
    claim("F1", "f1", 91.3, unit="%", aliases=("F1",)),
    claim("M", "mnli_m_accuracy", 84.6, unit="%", aliases=("MNLI-m", "BERT-BASE")),
    claim("MM", "mnli_mm_accuracy", 83.4, unit="%", aliases=("MNLI-mm", "BERT-BASE")),
]


def run(path: str, text: str) -> Report:
    return reconcile_segments(read_document(path, text.encode()), CLAIMS)


PAIR_AT_SENTENCE_END = [
    Case("a pair ending a sentence: its first number drifts", "a.md",
         "Our EM/F1 is 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))], ("84.1",)),
    Case("a pair after 'of' ending a sentence", "a.md",
         "We obtain an EM/F1 of 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("a PSNR/SSIM pair ending a sentence", "a.md",
         "Our PSNR/SSIM is 30.52/0.9134.\n", [("drift", 1, ("P1",))], [(1, ("S1",))],
         ("30.52",)),
    Case("a pair ending a sentence whose second number drifts is F1's drift (was ambiguous)",
         "a.md", "EM/F1 of 85.2/91.8.\n", [("drift", 1, ("F1",))], [(1, ("E1",))], ("91.8",)),
    Case("a pair ending a sentence in LaTeX", "t.tex",
         "Our EM/F1 is 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("near miss: words after the pair", "a.md",
         "Our EM/F1 is 84.1/91.3 on the test set.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("a correct pair ending a sentence is clean, both matched", "a.md",
         "Our EM/F1 is 85.2/91.3.\n", [], [(1, ("E1",)), (1, ("F1",))]),
    Case("near miss: three dotted parts are no pair (1.2/3.4.5)", "a.md",
         "Our EM/F1 is 84.1/91.3.5 here.\n", []),
    Case("near miss: a fraction ending a sentence is no pair", "a.md",
         "Our EM improved on 3/4.\n", []),
]

SUPERSCRIPT_MARKS = [
    Case("a superscript mark glued to a decimal in prose: the number drifts", "a.md",
         "Ours reaches a PSNR of 31.52¹ dB on the test set.\n\n¹ averaged over 3 seeds.\n",
         [("drift", 1, ("P1",))], [], ("31.52",)),
    Case("superscript marks in table cells", "a.md",
         "| Method | PSNR (dB) | Top-1 (%) |\n|---|---|---|\n| Ours | 31.52¹ | 76.9² |\n",
         [("drift", 3, ("P1",)), ("drift", 3, ("A1",))], [], ("31.52", "76.9")),
    Case("a correct value with a two-digit mark is clean", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| Ours | 31.42¹² |\n", [], [(3, ("P1",))]),
    Case("near miss: <sup>1</sup> reads as before", "a.md",
         "Ours reaches a PSNR of 31.52<sup>1</sup> dB.\n", [("drift", 1, ("P1",))]),
    Case("near miss: a power of ten (10⁴) is no value", "a.md",
         "Ours trains for 10⁴ steps at a PSNR of 31.42 dB.\n", [], [(1, ("P1",))]),
    Case("near miss: a whole number's superscript is a power (31²)", "a.md",
         "Ours reaches a PSNR of 31² dB.\n", []),
]



def _md_scores(psnr: str, top1: str) -> str:
    return f"| Method | PSNR (dB) | Top-1 (%) |\n|---|---|---|\n| Ours | {psnr} | {top1} |\n"


def _tex_scores(psnr: str, top1: str) -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\nMethod & PSNR & Top-1 \\\\\n\\midrule\n"
            f"Ours & {psnr} & {top1} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


LINKS = [
    Case("link text in Markdown cells: both drift", "a.md",
         _md_scores("[31.52](logs/ours.txt)", "[77.34](https://wandb.ai/me/ours)"),
         [("drift", 3, ("P1",)), ("drift", 3, ("A1",))], [], ("31.52", "77.34")),
    Case("correct link text in a cell matches", "a.md",
         _md_scores("[31.42](logs/ours.txt)", "[**76.3**](logs/top1.txt)"), [],
         [(3, ("P1",)), (3, ("A1",))]),
    Case("a reference link's text in a cell", "a.md",
         _md_scores("[31.52][log]", "76.3") + "\n[log]: logs/ours.txt\n",
         [("drift", 3, ("P1",))], [(3, ("A1",))]),
    Case("\\href's text in LaTeX cells: both drift", "t.tex",
         _tex_scores("\\href{https://x.y/log}{31.52}", "\\href{https://x.y/log2}{77.34}"),
         [("drift", 5, ("P1",)), ("drift", 5, ("A1",))]),
    Case("\\href's text in LaTeX prose drifts", "t.tex",
         "Ours reaches a test PSNR of \\href{https://x}{31.52}\\,dB.\n", [("drift", 1, ("P1",))]),
    Case("near miss: link text in prose reads as before", "a.md",
         "Ours reaches [31.52 dB PSNR](logs/ours.txt) on the test set.\n",
         [("drift", 1, ("P1",))]),
    Case("near miss: a URL's digits are no value (Markdown link in a cell)", "a.md",
         _md_scores("[log](runs/2024/31.52.txt)", "76.3"), [], [(3, ("A1",))]),
    Case("near miss: a URL's digits are no value (Markdown link in prose)", "a.md",
         "Ours reaches a PSNR of 31.42 dB ([log](runs/2024/31.52.txt)).\n", [], [(1, ("P1",))]),
    Case("near miss: \\href's URL digits and a \\url are no value", "t.tex",
         "Ours reaches a PSNR of 31.42 dB (\\href{https://x.y/31.52}{log}, "
         "\\url{https://x.y/31.52}).\n", [], [(1, ("P1",))]),
    Case("near miss: a linked numeric citation is no value", "a.md",
         "Ours reaches a PSNR of 31.42 dB, above [3](#ref3).\n", [], [(1, ("P1",))]),
]

STRUCK = [
    Case("GFM strikethrough in a cell: the shown value is judged", "a.md",
         _md_scores("31.42", "~~76.9~~ 76.3"), [], [(3, ("P1",)), (3, ("A1",))]),
    Case("<del> in a cell", "a.md", _md_scores("<del>31.52</del> 31.42", "76.3"), [],
         [(3, ("P1",)), (3, ("A1",))]),
    Case("<s> and <strike> in cells", "a.md",
         _md_scores("<s>31.52</s> 31.42", "<strike>76.9</strike> 76.3"), [],
         [(3, ("P1",)), (3, ("A1",))]),
    Case("a struck value alone in a cell is no value", "a.md", _md_scores("31.42", "~~76.9~~"),
         [], [(3, ("P1",))]),
    Case("GFM strikethrough alone in prose is no value", "a.md",
         "Ours reached a top-1 accuracy of ~~76.9%~~ (see the erratum).\n", []),
    Case("near miss: GFM strikethrough beside the new value in prose", "a.md",
         "Ours reaches a top-1 accuracy of ~~76.9%~~ 76.3% (fixed eval bug).\n", [],
         [(1, ("A1",))]),
    Case("<del> alone in prose is no value", "a.md",
         "Ours reaches a top-1 accuracy of <del>76.9%</del>.\n", []),
    Case("<del> in an HTML table's cell", "a.md",
         "<table><tr><th>Method</th><th>Top-1 (%)</th></tr>\n"
         "<tr><td>Ours</td><td><del>76.9</del> 76.3</td></tr></table>\n", [], [(2, ("A1",))]),
    Case("\\sout and \\st in LaTeX cells", "t.tex",
         _tex_scores("\\sout{31.52} 31.42", "\\st{\\textbf{76.9}} 76.3"), [],
         [(5, ("P1",)), (5, ("A1",))]),
    Case("\\sout alone in LaTeX prose is no value", "t.tex",
         "Ours reached a PSNR of \\sout{31.52\\,dB} (see the erratum).\n", []),
    Case("near miss: \\sout beside the new value in LaTeX prose", "t.tex",
         "Ours reaches a PSNR of \\sout{31.52}~31.42\\,dB.\n", [], [(1, ("P1",))]),
    Case("near miss: a tilde before a number (about) is no strikethrough", "a.md",
         _md_scores("~31.52", "76.3"), [("drift", 3, ("P1",))], [(3, ("A1",))]),
    Case("near miss: <sup> and <span> are not struck", "a.md",
         _md_scores("<span>31.52</span><sup>1</sup>", "76.3"), [("drift", 3, ("P1",))],
         [(3, ("A1",))]),
    Case("near miss: an unclosed <del> strikes nothing", "a.md",
         _md_scores("<del> 31.52", "76.3"), [("drift", 3, ("P1",))], [(3, ("A1",))]),
    Case("near miss: \\stackrel is no \\st", "t.tex",
         "Ours reaches a PSNR of $\\stackrel{}{31.52}$ dB.\n", [("drift", 1, ("P1",))]),
]


def _glue(header: str, bert: str) -> str:
    # the BERT paper's Table 1 (Devlin et al. 2019), its first rows
    return (f"| System | {header} | QQP |\n|---|---|---|\n| Pre-OpenAI SOTA | 80.6/80.1 | 66.1 |\n"
            f"| BERT-BASE | {bert} | 71.2 |\n")


SHARED_STEMS = [
    Case("MNLI-(m/mm) over pairs: the mm half drifts", "a.md", _glue("MNLI-(m/mm)", "84.6/83.9"),
         [("drift", 4, ("MM",))], [(4, ("M",))], ("83.9",)),
    Case("MNLI (m/mm), a space before the parenthesis", "a.md",
         _glue("MNLI (m/mm)", "84.6/83.4"), [], [(4, ("M",)), (4, ("MM",))]),
    Case("MNLI(m/mm), nothing before the parenthesis", "a.md",
         _glue("MNLI(m/mm)", "84.6/83.9"), [("drift", 4, ("MM",))], [(4, ("M",))]),
    Case("MNLI-(m/mm) in a LaTeX table", "t.tex",
         "\\begin{tabular}{lcc}\n\\toprule\nSystem & MNLI-(m/mm) & QQP \\\\\n\\midrule\n"
         "BERT-BASE & 84.7/83.4 & 71.2 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("M",))], [(5, ("MM",))]),
    Case("MNLI-(m/mm) in an HTML table", "a.md",
         "<table><tr><th>System</th><th>MNLI-(m/mm)</th></tr>\n"
         "<tr><td>BERT-BASE</td><td>84.6/83.9</td></tr></table>\n",
         [("drift", 2, ("MM",))], [(2, ("M",))]),
    Case("MNLI-(m/mm) over two LaTeX columns (\\multicolumn)", "t.tex",
         "\\begin{tabular}{lcc}\n\\toprule\nSystem & \\multicolumn{2}{c}{MNLI-(m/mm)} \\\\\n"
         "\\midrule\nBERT-BASE & 84.6 & 83.9 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("MM",))], [(5, ("M",))]),
    Case("near miss: MNLI-m/MNLI-mm reads as before", "a.md",
         _glue("MNLI-m/MNLI-mm", "84.6/83.9"), [("drift", 4, ("MM",))], [(4, ("M",))]),
    Case("near miss: a dataset before its metrics in parentheses (Set5 (PSNR/SSIM))", "a.md",
         "| Method | Set5 (PSNR/SSIM) |\n|---|---|\n| Ours | 31.42/0.9234 |\n",
         [("drift", 3, ("S1",))], [(3, ("P1",))]),
]

def _md_rows(ours_psnr: str, first: str = "Baseline") -> str:
    return ("| Method | PSNR | SSIM |\n|---|---|---|\n"
            f"| {first} | 30.10 | 0.8800 |\n| Ours | {ours_psnr} | 0.9134 |\n")


# review 40, 03: the row naming the claim shows no value in its column: the other rows' numbers
# there are theirs, not the claim's (the Baseline's 30.10 drifted as P1's)
NO_VALUE_IN_OWN_ROW = [
    Case("a struck cell in the claim's own row: the baseline's number is not the claim's",
         "a.md", _md_rows("~~31.52~~"), [], [(4, ("S1",))]),
    Case("a dash in the claim's own row", "a.md", _md_rows("-"), [], [(4, ("S1",))]),
    Case("an empty cell in the claim's own row", "a.md", _md_rows(""), [], [(4, ("S1",))]),
    Case("n/a and an en dash in the claim's own row", "a.md",
         _md_rows("n/a") + "| Ours | \u2013 | 0.9134 |\n", [], [(4, ("S1",)), (5, ("S1",))]),
    Case("\\sout in the claim's own LaTeX row", "t.tex",
         "\\begin{tabular}{lcc}\nMethod & PSNR & SSIM \\\\\nBaseline & 30.10 & 0.8800 \\\\\n"
         "Ours & \\sout{31.52} & 0.9134 \\\\\n\\end{tabular}\n", [], [(4, ("S1",))]),
    Case("near miss: the own row's value is judged as before", "a.md", _md_rows("31.52"),
         [("drift", 4, ("P1",))], [(4, ("S1",))]),
    Case("near miss: no row naming the claim: the column is judged as a whole", "a.md",
         _md_rows("31.42", first="Other").replace("| Ours |", "| Mine |"), [],
         [(4, ("P1",)), (4, ("S1",))]),
    Case("near miss: a group's heading row holding no number takes nothing", "a.md",
         "| Method | PSNR | SSIM |\n|---|---|---|\n| *Ours* | | |\n| large | 31.42 | 0.9134 |\n",
         [], [(4, ("P1",)), (4, ("S1",))]),
]

def _tex_best(preamble: str, psnr: str = "\\st{31.52}") -> str:
    # a table marking each column's best value with a macro of the paper's own, as papers do
    return (f"{preamble}\\begin{{tabular}}{{lcc}}\nMethod & PSNR & SSIM \\\\\n"
            f"Baseline & 30.10 & 0.8800 \\\\\nOurs & {psnr} & \\st{{0.9134}} \\\\\n"
            "\\end{tabular}\n")


# review 40, 01: \st, \sout, \xout strike only as soul's and ulem's macros, not a paper's own
TEX_STRIKE_MACROS = [
    Case("\\st defined by the paper (bold) is read: its row's value drifts", "t.tex",
         _tex_best("\\newcommand{\\st}[1]{\\textbf{#1}}  % best result\n"),
         [("drift", 5, ("P1",))], [(5, ("S1",))], ("31.52",)),
    Case("\\xout defined by the paper in prose is read", "t.tex",
         "\\newcommand{\\xout}[1]{#1$^{\\times}$}\nOurs reaches a PSNR of \\xout{31.52} dB.\n",
         [("drift", 2, ("P1",))]),
    Case("\\renewcommand of soul's \\st is the paper's", "t.tex",
         _tex_best("\\documentclass{article}\n\\usepackage{soul}\n"
                   "\\renewcommand{\\st}[1]{\\textbf{#1}}\n"),
         [("drift", 7, ("P1",))], [(7, ("S1",))]),
    Case("a preamble loading neither soul nor ulem: \\sout is read", "t.tex",
         "\\documentclass{article}\n\\usepackage{booktabs}\n"
         "Ours reaches a PSNR of \\sout{31.52} dB.\n", [("drift", 3, ("P1",))]),
    Case("soul loaded in a list: \\st strikes (the SSIM cell too, in the row naming S1)", "t.tex",
         _tex_best("\\documentclass{article}\n\\usepackage{xcolor,soul}\n",
                   "\\st{31.52} 31.42"), [], [(6, ("P1",))]),
    Case("near miss: ulem loaded with [normalem]: \\sout strikes", "t.tex",
         "\\documentclass{article}\n\\usepackage[normalem]{ulem}\n"
         "Ours reaches a PSNR of \\sout{31.52}~31.42\\,dB.\n", [], [(3, ("P1",))]),
    Case("near miss: a definition in a comment defines nothing", "t.tex",
         "% \\newcommand{\\sout}[1]{#1}\nOurs reaches a PSNR of \\sout{31.52}~31.42\\,dB.\n",
         [], [(2, ("P1",))]),
    Case("near miss: ulem's \\sout inside the paper's \\st still strikes", "t.tex",
         "\\newcommand{\\st}[1]{#1}\nOurs reaches a PSNR of \\st{\\sout{31.52}} dB.\n", []),
]

# review 40, 02 and 04: only what GitHub (GFM, cmark-gfm's strikethrough extension) strikes
GFM_STRIKES = [
    Case("<s> and </s> as tokens in code spans strike nothing", "a.md",
         "Inputs start with `<s>`, reach an EM of 84.1% and end with `</s>`.\n",
         [("drift", 1, ("E1",))]),
    Case("<s> tokens in code spans over lines of one paragraph", "a.md",
         "Special tokens\n`<s>` begins each input\nEM 84.1%\n`</s>` ends it\n",
         [("drift", 3, ("E1",))]),
    Case("<s> in a fenced block is text", "a.md",
         "```\n<s> EM 84.1 </s>\n```\n", [("drift", 2, ("E1",))]),
    Case("near miss: an end tag in the next paragraph closes nothing", "a.md",
         "Our EM is <s>here\n\nEM 84.1%</s> now.\n", [("drift", 3, ("E1",))]),
    Case("~~ with spaces inside is no strike (not flanking)", "a.md",
         "Our EM is ~~ 84.1% ~~ on dev.\n", [("drift", 1, ("E1",))]),
    Case("~~ in code spans is text", "a.md",
         "Writing `~~` before our EM of 84.1% and `~~` after it strikes it.\n",
         [("drift", 1, ("E1",))]),
    Case("GFM's single-tilde strike in a cell", "a.md",
         "| Model | EM |\n|---|---|\n| Ours | ~84.1~ 85.2 |\n", [], [(3, ("E1",))]),
    Case("single-tilde strike in prose", "a.md",
         "Our EM is ~84.1%~ 85.2% after the fix.\n", [], [(1, ("E1",))]),
    Case("near miss: <s> closed in its paragraph still strikes", "a.md",
         "Our EM is <s>84.1%</s> 85.2%.\n", [], [(1, ("E1",))]),
    Case("near miss: ~ for 'about' twice in a sentence strikes nothing", "a.md",
         "Our EM is ~84.1% and F1 ~91.3% on dev.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("near miss: ~~~ is no strike", "a.md", "Our EM is ~~~84.1%~~~ on dev.\n",
         [("drift", 1, ("E1",))]),
]

CASES = (PAIR_AT_SENTENCE_END + SUPERSCRIPT_MARKS + LINKS + STRUCK + SHARED_STEMS
         + NO_VALUE_IN_OWN_ROW + TEX_STRIKE_MACROS + GFM_STRIKES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run(case.path, case.text), case)


def test_strike_macro_defined_in_another_file_is_read() -> None:
    """A \\st the project's macros.tex defines is the paper's in every file (as `tex_macros`
    collects definitions over the documents): the table's \\st{31.52} is read."""
    segments = [*read_document("macros.tex", b"\\newcommand{\\st}[1]{\\textbf{#1}}\n"),
                *read_document("table.tex", _tex_best("").encode())]
    report = reconcile_segments(segments, CLAIMS)
    assert [(f.type, f.path, f.line, f.claims) for f in report.findings] == \
        [("drift", "table.tex", 4, ("P1",))]
