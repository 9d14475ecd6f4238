"""Review of round 62's table reading (a change's arrow, a range's tilde, an interval's words).

* the emoji arrow READMEs and CLI output write most, ➡ (U+27A1, with or without its emoji
  variation selector: "➡️"), between a value before and after a change (opentensor's btcli
  docs print a stake moving "11.2528 ኤ ➡ 0.0000 ኤ", a Korean web-performance note heads its
  section "LCP 차이 (3.18s ➡ 0.52s)"), was no arrow of round 62's: the cell was still read as
  its first number, where the change started (a right result drifted against it);
* a value set in Markdown math in a sans-serif, typewriter, italic or roman face
  (``$\\mathsf{8.09\\ s}$``, ``$\\color{green}{\\mathsf{0.03\\ s}}$``: cjccjj/mdflow's README
  benchmarks its render time and peak RAM so) was a label: round 62 looked through bold and
  colour only, so the whole table went unjudged (missed drift);
* a range written with the full-width tilde CJK text writes, "0.95～0.99" (U+FF5E; a Chinese
  reinforcement-learning tutorial's table of where to start tuning: "| `gamma` | 只顾眼前 |
  目标估计更不稳定 | 0.95～0.99 |", "| batch size | ... | 64～256 |"), or Japanese's wave dash
  "0.95〜0.99" (U+301C), was read as its first number, as round 62 read "0.95~0.99" no more: a
  claim of 0.99 drifted against 0.95 and one of 0.95 matched the range;
* in LaTeX a change's arrow or a range's dash between ties, "76.1~$\\rightarrow$~77.3",
  "0.8097~$\\to$~0.7434" (papers write their changes so, LadderSym's
  "(26.8\\%~$\\rightarrow$~56.3\\%)"; a report builder's tools/md2tex.py turns a Markdown
  table's "→" into "~$\\rightarrow$~"), was read as the first number: round 62 took the tie
  for a Markdown range's tilde and stopped (a right result drifted against where the change
  started);
* in prose an ASCII arrow's ">" was read as a bound's ("> 94.0%"): "63.5% -> 94.0% on
  multi-function selection" (a public project's notes on swapping one small model for another;
  "Format rate 17% -> 96% after 50 steps", a training log's write-up) left 94.0% no value, so a
  claim of 94.0 drifted against 63.5%, where "→" matched it;
* near misses that held before the round and keep their reading: a tilde after a cell's
  value that is no range's ("~31.42", about; "31.42~dB", a tie; "31.42 ~~31.52~~" and
  GitHub's single-tilde "31.42 ~31.52~", an old value struck out), a word or a bare spread in
  parentheses after it ("31.42 (ours)" a label, "31.42 (0.004)" the value), and in prose a
  change's numbers, an arrow beside a metric's name and a tilde, which round 62 left alone.
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")

ACC = [claim("A", "accuracy", 77.3, unit="%", aliases=("Ours",))]


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _read(report: Report) -> tuple[list[tuple[str, tuple[str, ...], str]], list[tuple[str, ...]]]:
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            sorted(m.claims for m in report.matches))


def _ablation(path: str, cell: str) -> str:
    if path == "a.md":
        return f"| Variant | Top-1 Acc |\n|---|---|\n| Ours | {cell} |\n"
    return ("\\begin{tabular}{lc}\n\\toprule\nVariant & Top-1 Acc \\\\\n\\midrule\n"
            f"Ours & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize("form", ["{a} ➡ {b}", "{a} ➡\ufe0f {b}", "{a}➡️{b}"])
@pytest.mark.parametrize("path", ["a.md", "a.tex"])
@pytest.mark.parametrize(("after", "drifts"), [("77.3", False), ("77.9", True)])
def test_the_emoji_right_arrow_is_a_changes_arrow(form: str, path: str, after: str,
                                                   drifts: bool) -> None:
    findings, matched = _read(run(path, _ablation(path, form.format(a="76.1", b=after)), ACC))
    assert findings == ([("drift", ("A",), after)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


# cjccjj/mdflow, README.md, "Comparison" (its first rows)
MDFLOW = (
    "| | | <ins> mdflow </ins> | streamdown | mdcat | glow (glamour)  |\n"
    "|:--- |:---|:---|:---|:---|:---|\n"
    "| Capabilities | Streaming | ✅ | ✅ | ❌ | ❌ |\n"
    "| Render time | 1 MB input | $\\color{green}{\\mathsf{0.03\\ s}}$ | $\\mathsf{8.09\\ s}$ "
    "| $\\mathsf{0.34\\ s}$ | $\\mathsf{0.64\\ s}$ |\n"
    "| | 10 MB input | $\\color{green}{\\mathsf{0.37\\ s}}$ | $\\mathsf{78.72\\ s}$ "
    "| $\\mathsf{2.85\\ s}$ | $\\mathsf{12.33\\ s}$ |\n")


@pytest.mark.parametrize(("tool", "value", "shown"), [
    ("mdflow", 0.03, None), ("mdflow", 0.04, "0.03"),
    ("streamdown", 8.09, None), ("streamdown", 8.19, "8.09")])
def test_a_readme_benchmark_in_sans_serif_math_is_read(tool: str, value: float,
                                                       shown: str | None) -> None:
    claims = [claim("T", "render_time", value, unit="s", aliases=(tool, "1 MB input"))]
    findings, matched = _read(run("README.md", MDFLOW, claims))
    assert findings == ([("drift", ("T",), shown)] if shown else [])
    assert matched == ([] if shown else [("T",)])


@pytest.mark.parametrize("face", ["mathsf", "textsf", "mathtt", "texttt", "mathit", "textrm"])
@pytest.mark.parametrize(("value", "drifts"), [("77.3", False), ("77.9", True)])
def test_a_value_in_another_face_of_markdown_math_is_its_number(face: str, value: str,
                                                                drifts: bool) -> None:
    cell = f"$\\{face}{{{value}}}$"
    findings, matched = _read(run("a.md", _ablation("a.md", cell), ACC))
    assert findings == ([("drift", ("A",), value)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


PSNR = [claim("P", "psnr", 31.42, unit="dB", aliases=("Ours",))]


@pytest.mark.parametrize(("cell", "value"), [("~{v}", True), ("{v}~dB", True),
                                             ("{v} ~~31.60~~", True), ("{v} ~31.60~", True),
                                             ("{v} (0.004)", True), ("{v} (ours)", False)])
@pytest.mark.parametrize("shown", ["31.42", "31.52"])
def test_near_miss_a_tilde_or_parentheses_after_a_markdown_value(cell: str, value: bool,
                                                                 shown: str) -> None:
    text = f"| Method | PSNR |\n|---|---|\n| Ours | {cell.format(v=shown)} |\n"
    findings, matched = _read(run("a.md", text, PSNR))
    drifts = value and shown != "31.42"
    assert findings == ([("drift", ("P",), shown)] if drifts else [])
    assert matched == ([("P",)] if value and not drifts else [])


@pytest.mark.parametrize(("text", "value", "matched"), [
    ("PSNR improves from 30.1 → 31.42 dB with our loss.", 31.42, True),
    ("PSNR improves from 30.1 → 31.42 dB with our loss.", 30.1, True),
    ("We decay the LR 1e-3 → 1e-4 over training.", 0.001, True),
    ("Ours: PSNR↑ 31.42 dB, SSIM↑ 0.912.", 31.42, True),
    ("Ours: PSNR↑ 31.52 dB, SSIM↑ 0.912.", 31.42, False),
    ("Ours reaches 31.42 (↑0.3) dB PSNR.", 31.42, True),
    ("Ours reaches PSNR ~31.52 dB.", 31.42, False),
    ("Ours reaches PSNR 31.42~dB.", 31.42, True)])
def test_near_miss_prose_keeps_its_reading(text: str, value: float, matched: bool) -> None:
    metric = "lr" if "LR" in text else "psnr"
    claims = [claim("P", metric, value, unit=None if metric == "lr" else "dB",
                    aliases=("Ours", "LR"))]
    findings, matches = _read(run("a.md", text + "\n", claims))
    assert (matches, [f[0] for f in findings]) == (([("P",)], []) if matched
                                                   else ([], ["drift"]))


# a Chinese reinforcement-learning tutorial, "超参数先改哪些" (which hyperparameters to tune
# first): too small, too large, a suggested start
TUNING = ("| 参数 | 太小 | 太大 | 建议起点 |\n"
          "| --- | --- | --- | ---: |\n"
          "| Q-learning `alpha` | 学习慢 | Q 值震荡 | 0.1～0.2 |\n"
          "| `gamma` | 只顾眼前 | 目标估计更不稳定 | 0.95～0.99 |\n"
          "| batch size | 梯度噪声大 | 更新慢、占内存 | 64～256 |\n")


@pytest.mark.parametrize("tilde", ["～", "〜", "~"])
@pytest.mark.parametrize("value", [0.95, 0.99])
def test_a_range_with_a_full_width_tilde_is_no_value(tilde: str, value: float) -> None:
    claims = [claim("G", "gamma", value, aliases=("gamma",))]
    assert _read(run("README.md", TUNING.replace("～", tilde), claims)) == ([], [])


@pytest.mark.parametrize("path", ["a.md", "a.tex"])
def test_a_full_width_tilde_range_in_latex_too(path: str) -> None:
    """LaTeX's tie is the ASCII tilde: "0.5～0.8" is a range in a paper as in a README."""
    assert _read(run(path, _ablation(path, "76.1～77.3"), ACC)) == ([], [])


SWAP = ("Then phi4-mini -> Qwen3-4B-Instruct-2507: same size, same speed class,\n"
        "63.5% {arrow} 94.0% on multi-function selection.\n")


@pytest.mark.parametrize("arrow", ["→", "->", "=>"])
def test_prose_an_ascii_arrow_leads_to_a_value_not_a_bound(arrow: str) -> None:
    def read(value: float) -> tuple[list, list]:
        claims = [claim("F", "accuracy", value, unit="%",
                        aliases=("multi-function selection",))]
        return _read(run("NOTES.md", SWAP.format(arrow=arrow), claims))
    assert read(94.0) == ([], [("F",)])
    assert read(63.5) == ([], [("F",)])
    assert [f[0] for f in read(95.0)[0]] == ["ambiguous"]


@pytest.mark.parametrize("form", ["{a}~$\\rightarrow$~{b}", "{a}~$\\to$~{b}", "{a}~→~{b}",
                                  "\\textbf{{{a}}}~$\\rightarrow$~\\textbf{{{b}}}",
                                  "{a}\\%~$\\rightarrow$~{b}\\%"])
@pytest.mark.parametrize(("after", "drifts"), [("77.3", False), ("77.9", True)])
def test_a_latex_change_between_ties_is_its_last_number(form: str, after: str,
                                                        drifts: bool) -> None:
    findings, matched = _read(run("a.tex", _ablation("a.tex", form.format(a="76.1", b=after)),
                                  ACC))
    shown = after + "%" if "%" in form else after
    assert findings == ([("drift", ("A",), shown)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


@pytest.mark.parametrize("value", [0.5, 0.6])
def test_a_latex_range_between_ties_is_no_value(value: float) -> None:
    text = ("\\begin{tabular}{lc}\n\\toprule\nHyperparameter & Dropout \\\\\n\\midrule\n"
            "Ours & 0.5~--~0.8 \\\\\n\\bottomrule\n\\end{tabular}\n")
    claims = [claim("D", "dropout", value, aliases=("Ours",))]
    assert _read(run("a.tex", text, claims)) == ([], [])
