"""Round 62's change cells and slash pairs, followed up (reviewers' inputs after the round).

* whole numbers joined by a slash before a unit of measure were no numbers at all: the
  RT-DETR abstract as READMEs quote it, "RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and
  108/74 FPS on T4 GPU" (a paper-notes README writes it so; the arXiv abstract spaces the
  slashes, "108 / 74 FPS", which was read), left the FPS claims only the AP percents near
  "FPS": a right document drifted at 54.3% for the R50's FPS claim. "108/74 FPS" is a pair now,
  as "53.1%/54.3%" is; a fraction or a date (3/4, 12/05) takes no unit and stays unread;
* a change written with its spreads was read as its first number, where it started:
  "21.9 ± 1.3 → 6.8 ± 0.2" (a comet-activity README's table: "| x inside → outside | ... |
  21.9 ± 1.3 → 6.8 ± 0.2 |"), "76.1 (0.2) → 77.3 (0.1)", "$76.1_{\\pm0.2}$ → $77.3_{\\pm0.1}$":
  the spread after a number is read with it, the number after the arrow is the row's;
* Markdown changes the arrow was not found in: HTML's bold, "<b>30.1</b> → <b>31.42</b>", code
  spans, "`2.410 ms` → `0.089 ms`" (a portfolio README's indexed-query speedup), the long ASCII
  arrow "30.1 --> 31.42" and HTML's entity "30.1 &rarr; 31.42" (written so in HTML pages'
  "6,000 (1926) &rarr; 173,000 (1929)");
* a value with a delta or a spread after a tilde, an arrow or a dash, "31.42~(+0.3)",
  "31.42 ~ +0.3", "31.42~-0.3", "$31.42$~$\\pm$~$0.05$", "31.42 → (+0.6)", "31.42 -- (0.3)",
  was read as a range or a change to the delta (no value) since round 62: a delta or a spread
  (in parentheses, after "±", signed where the value is not) ends no range and no change, the
  cell is its value again;
* a schedule is no change of a result: "| Learning rate | 1e-3 → 1e-5 |" (hyperparameter tables
  of many READMEs: "| Learning rate | 1e-3 → 1e-5 (cosine decay) |", "| Learning rate | 1e-3 →
  1e-5 | 3e-4 → 1e-5 |" for DQN and PPO) read as 1e-5 since round 62, so an lr claim of 0.001
  went unmatched; a cell whose row label or column header is a hyperparameter's name alone is
  read as where it starts (an ablation row adding one, "+ label smoothing", still shows a
  result changed).
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _read(report: Report) -> tuple[list[tuple[str, tuple[str, ...], str]], list[tuple[str, ...]]]:
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            sorted(m.claims for m in report.matches))


# --- 1. whole numbers joined by a slash before a unit ---------------------------------------

RT_DETR = ("RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and {fps} FPS on T4 GPU, "
           "outperforming advanced YOLOs.\n")


def _rt_detr(aliases50: tuple[str, ...], aliases101: tuple[str, ...]) -> list:
    return [documents_claim("A50", "coco_ap", 53.1, unit="%", aliases=aliases50, run="r50"),
            documents_claim("A101", "coco_ap", 54.3, unit="%", aliases=aliases101, run="r101"),
            documents_claim("F50", "fps", 108, aliases=aliases50, run="r50"),
            documents_claim("F101", "fps", 74, aliases=aliases101, run="r101")]


@pytest.mark.parametrize("aliases", [((), ()), (("RT-DETR-R50",), ("RT-DETR-R101", "R101"))])
def test_the_rt_detr_abstract_with_its_fps_pair_unspaced_does_not_drift(
        aliases: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    findings, matched = _read(run("README.md", RT_DETR.format(fps="108/74"), _rt_detr(*aliases)))
    assert findings == []
    assert ("F101",) in matched
    assert ("F50",) in matched


@pytest.mark.parametrize(("fps", "wrong"), [("111/74", "F50"), ("108/77", "F101")])
def test_a_wrong_fps_in_the_unspaced_pair_is_reported(fps: str, wrong: str) -> None:
    """(As in the spaced pair, "108 / 77 FPS": the wrong one is reported, the right one
    matches.)"""
    claims = _rt_detr(("RT-DETR-R50",), ("RT-DETR-R101", "R101"))
    findings, matched = _read(run("README.md", RT_DETR.format(fps=fps), claims))
    assert [claims for _, claims, _ in findings] == [(wrong,)]
    right = "F101" if wrong == "F50" else "F50"
    assert (right,) in matched
    assert (wrong,) not in matched


@pytest.mark.parametrize(("text", "numbers"), [
    ("108/74 FPS", ["108", "74"]), ("12/24 GB", ["12", "24"]), ("10/20/30 ms", ["10", "20", "30"]),
    ("3/4 of the runs", []), ("12/05/2024", []), ("108/74", []), ("1/2 h", []),
    ("ResNet50/101 FPS", []), ("ResNet-50/101 FPS", []), ("v1.108/74 fps", [])])
def test_whole_numbers_joined_by_a_slash_are_a_pair_before_a_unit_only(
        text: str, numbers: list[str]) -> None:
    assert [s.text for s in scan_numbers(text)] == numbers


# --- 2.-4. the number after a change's arrow ------------------------------------------------

PSNR = [claim("P", "psnr", 31.42, unit="dB", aliases=("Ours",))]


def _table(path: str, cell: str) -> str:
    if path == "a.md":
        return f"| Method | PSNR |\n|---|---|\n| Ours | {cell} |\n"
    return ("\\begin{tabular}{lc}\n\\toprule\nMethod & PSNR \\\\\n\\midrule\n"
            f"Ours & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


CHANGES = [
    ("a.md", "21.9 ± 1.3 → {v} ± 0.2"), ("a.md", "76.1 (0.2) → {v} (0.1)"),
    ("a.md", "$76.1_{{\\pm0.2}}$ → ${v}_{{\\pm0.1}}$"),
    ("a.md", "76.1 $\\pm$ 0.2 → {v} $\\pm$ 0.1"),
    ("a.tex", "21.9 $\\pm$ 1.3 $\\to$ {v} $\\pm$ 0.2"), ("a.tex", "76.1 (0.2) $\\to$ {v} (0.1)"),
    ("a.tex", "$76.1_{{\\pm0.2}}$ $\\rightarrow$ ${v}_{{\\pm0.1}}$"),
    ("a.md", "<b>30.1</b> → <b>{v}</b>"), ("a.md", "`30.1` → `{v}`"),
    ("a.md", "30.1 --> {v}"), ("a.md", "30.1 &rarr; {v}")]


@pytest.mark.parametrize(("path", "cell"), CHANGES)
@pytest.mark.parametrize(("after", "drifts"), [("31.42", False), ("31.52", True)])
def test_a_change_is_read_as_the_number_its_arrow_leads_to(path: str, cell: str, after: str,
                                                            drifts: bool) -> None:
    findings, matched = _read(run(path, _table(path, cell.format(v=after)), PSNR))
    assert findings == ([("drift", ("P",), after)] if drifts else [])
    assert matched == ([] if drifts else [("P",)])


def test_a_change_to_an_interval_in_brackets_is_its_first_number() -> None:
    """"| OLD (Stage-1/2) | 4 | 22.8% ± 1.3 → [21.5, 24.1] |" (an A/B report's mean and its
    95% CI): the arrow leads to no number of the row's."""
    text = "| Branch | Reopen |\n|---|---|\n| Ours | 22.8% ± 1.3 → [21.5, 24.1] |\n"
    claims = [claim("R", "reopen", 22.8, unit="%", aliases=("Ours",))]
    assert _read(run("a.md", text, claims)) == ([], [("R",)])


# --- 5. a delta or a spread after the value ends no range or change -------------------------

WITH_DELTA = [("a.md", "{v}~(+0.3)"), ("a.md", "{v} ~ +0.3"), ("a.md", "{v}~-0.3"),
              ("a.md", "${v}$~$\\pm$~$0.05$"), ("a.md", "{v} → (+0.6)"),
              ("a.md", "{v} -- (0.3)"), ("a.md", "{v} → +0.6"),
              ("a.tex", "{v} $\\to$ (+0.6)"), ("a.tex", "{v} -- (0.3)")]


@pytest.mark.parametrize(("path", "cell"), WITH_DELTA)
@pytest.mark.parametrize(("value", "drifts"), [("31.42", False), ("31.52", True)])
def test_a_delta_or_a_spread_after_a_value_is_no_range_or_change(path: str, cell: str,
                                                                 value: str,
                                                                 drifts: bool) -> None:
    findings, matched = _read(run(path, _table(path, cell.format(v=value)), PSNR))
    assert findings == ([("drift", ("P",), value)] if drifts else [])
    assert matched == ([] if drifts else [("P",)])


@pytest.mark.parametrize("cell", ["30.1--{v}", "30.1 -- {v}", "{v} -- 35.0", "-0.5 -- {v}"])
def test_near_miss_a_range_of_two_values_stays_no_value(cell: str) -> None:
    for value in ("31.42", "31.52"):
        assert _read(run("a.md", _table("a.md", cell.format(v=value)), PSNR)) == ([], [])


# --- 6. a schedule of a setting -----------------------------------------------------------------

LR = [claim("L", "lr", 0.001, aliases=("learning rate",))]


@pytest.mark.parametrize("table", [
    "| Parameter | Value |\n|---|---|\n| learning rate | {a} → 1e-5 |\n",
    "| Method | lr |\n|---|---|\n| Ours | {a} → 1e-5 |\n",
    "| Parameter | DQN | PPO |\n| :--- | :--- | :--- |\n| Learning rate | {a} → 1e-5 "
    "| 3e-4 → 1e-5 |\n"])
@pytest.mark.parametrize(("start", "drifts"), [("1e-3", False), ("2e-3", True)])
def test_a_schedule_of_a_hyperparameter_is_read_where_it_starts(table: str, start: str,
                                                                drifts: bool) -> None:
    claims = LR if "DQN" not in table else [claim("L", "lr", 0.001, aliases=("DQN",))]
    findings, matched = _read(run("a.md", table.format(a=start), claims))
    assert findings == ([("drift", ("L",), start)] if drifts else [])
    assert matched == ([] if drifts else [("L",)])


def test_near_miss_a_result_changed_in_scientific_notation_is_its_end() -> None:
    """A result's change stays read at its arrow's end where no hyperparameter is named."""
    text = "| Method | MSE |\n|---|---|\n| Ours | 2.1e-3 → 1.4e-3 |\n"
    claims = [claim("M", "mse", 0.0014, aliases=("Ours",))]
    assert _read(run("a.md", text, claims)) == ([], [("M",)])


@pytest.mark.parametrize("label", ["+ label smoothing", "w/ dropout", "MoCo (momentum contrast)",
                                   "Temperature scaling"])
def test_near_miss_an_ablation_row_naming_a_setting_shows_a_result_changed(label: str) -> None:
    """A row adding a component is a result's change ("| + label smoothing | 76.1 → 77.3 |"):
    only a label that is a hyperparameter's name alone makes a schedule."""
    text = f"| Variant | Top-1 Acc |\n|---|---|\n| {label} | 76.1 → 77.3 |\n"
    claims = [claim("A", "accuracy", 77.3, unit="%", aliases=(label,))]
    assert _read(run("a.md", text, claims)) == ([], [("A",)])


@pytest.mark.parametrize(("path", "cell"), [("a.md", "0.12 → {v}"), ("a.tex", "0.12 $\\to$ {v}")])
@pytest.mark.parametrize(("after", "drifts"), [("-0.05", False), ("-0.07", True)])
def test_near_miss_a_change_below_zero_is_read_at_its_end(path: str, cell: str, after: str,
                                                          drifts: bool) -> None:
    """A change may end below zero where it started above ("0.12 → -0.05", a bias score or a
    correlation): its end is the row's, not a delta (only a "+" makes one)."""
    claims = [claim("B", "bias", -0.05, aliases=("Ours",))]
    text = _table(path, cell.format(v=after)).replace("PSNR", "Bias")
    findings, matched = _read(run(path, text, claims))
    assert findings == ([("drift", ("B",), after)] if drifts else [])
    assert matched == ([] if drifts else [("B",)])


def test_a_percent_is_no_value_of_an_fps_claim_declared_with_no_unit() -> None:
    """"108 FPS/74 FPS" leaves the 74 unread (glued to the slash after a unit): the R101's FPS
    claim then took the AP's percents near "FPS" and drifted at 53.1%. A percent is no value of
    a rate or a time declared with no unit (as a time is none of a ratio's)."""
    findings, matched = _read(run("README.md", RT_DETR.format(fps="108 FPS/74"), _rt_detr((), ())))
    assert findings == []
    assert ("F50",) in matched


@pytest.mark.parametrize(("metric", "text"), [
    ("fps_gain", "Ours has an FPS gain of 20%.\n"),
    ("latency_reduction", "Ours achieves a latency reduction of 20%.\n"),
    ("fps_gain", "| Method | FPS gain |\n|---|---|\n| Ours | 20% |\n")])
def test_near_miss_a_change_of_a_rate_in_percent_is_its_value(metric: str, text: str) -> None:
    claims = [claim("G", metric, 20, aliases=("Ours",))]
    assert _read(run("a.md", text, claims)) == ([], [("G",)])
