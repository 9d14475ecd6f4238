"""A claim on one split (``test_accuracy``, or ``--split test``) in a table or section that says
which split its numbers are of.

Results tables in READMEs and papers put each split in a column of its own ("| Model | Val Acc
| Test Acc |"), under a header row over the metrics (``<th colspan="2">Validation</th>``,
``\\multicolumn{2}{c}{Test}``), or in a row of its own ("| Training | 97.98% |"); sections
report one split each ("## Test results"). Before, none of these words were read: a
``test_accuracy`` claim drifted against the validation column of its own row, or was ambiguous
among the rows of a transposed table. Now a column's header, a row's label and, where a unit's
own words say none, its section's heading say which split its numbers are of, and a claim on
another split is not theirs (`number_roles.header_split`, `label_split`, `heading_split`,
`section_splits`).

The fixtures follow the shapes of real READMEs, with names and numbers of our own (cited above
each); each case gives the findings it gave before and must give now.
"""

from __future__ import annotations

import bisect
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.number_roles import header_split, heading_split, label_split
from labledger.reconcile.section_splits import section_splits
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

TEST_ACC = claim("T1", "test_accuracy", 0.8162, aliases=("LiteNet", "Accuracy"))
VAL_ACC = claim("V1", "val_accuracy", 0.9363, aliases=("LiteNet", "Accuracy"))


# === columns ======================================================================================

# The shape of many README results tables: a column per split and metric.
# Before: [("drift", ("T1",), 3, "93.63")] beside the match.
SPLIT_COLUMNS = (
    "| Model | Val Accuracy | Val F1 | Test Accuracy | Test F1 |\n"
    "|---|---|---|---|---|\n"
    "| LiteNet | 93.63 | 0.93 | 81.62 | 0.80 |\n"
)

# Ebadi-Fereshteh/Deep-Learning 46-17-flowers/Readme.md's shape: an HTML table whose first
# header row spans each split over its Loss and Accuracy columns.
# Before: drift on the training (98.19%) and validation (93.63%) accuracies.
SPANNED_HTML = (
    "<table>\n"
    " <thead>\n"
    "  <tr><th></th><th colspan=\"2\">Train</th><th colspan=\"2\">Validation</th>"
    "<th colspan=\"2\">Test</th></tr>\n"
    " </thead>\n"
    " <thead>\n"
    "  <tr><th>Model</th><th>Loss</th><th>Accuracy</th><th>Loss</th><th>Accuracy</th>"
    "<th>Loss</th><th>Accuracy</th></tr>\n"
    " </thead>\n"
    " <tbody>\n"
    " <tr><td>BigNet</td><td>0.0073</td><td>99.89%</td><td>0.3853</td><td>90.20%</td>"
    "<td>1.0339</td><td>73.90%</td></tr>\n"
    " <tr><td>LiteNet</td><td>0.1580</td><td>98.19%</td><td>0.2763</td><td>93.63%</td>"
    "<td>0.5725</td><td>81.62%</td></tr>\n"
    " </tbody>\n"
    "</table>\n"
)

# A paper's table: \multicolumn over each split's metrics. Before: drift on 93.63.
MULTICOLUMN_TEX = (
    "\\begin{tabular}{lcccc}\n"
    "\\toprule\n"
    " & \\multicolumn{2}{c}{Validation} & \\multicolumn{2}{c}{Test} \\\\\n"
    "Method & Loss & Accuracy & Loss & Accuracy \\\\\n"
    "\\midrule\n"
    "LiteNet & 0.2763 & 93.63 & 0.5725 & 81.62 \\\\\n"
    "\\bottomrule\n"
    "\\end{tabular}\n"
)

# divyansh-iitk/Large-Language-Model-from-scratch README.md's shape: a table transposed, a split
# a row. Before: with the test value drifted, T1 was ambiguous among the three rows (reported
# at the training row's 97.98%); now it drifts at the test row.
SPLIT_ROWS = (
    "LiteNet results:\n"
    "\n"
    "| Dataset | Accuracy |\n"
    "|---|---|\n"
    "| Training | 97.98% |\n"
    "| Validation | 97.33% |\n"
    "| Test set | {test} |\n"
)


@pytest.mark.parametrize(("name", "text", "path", "line", "shown"), [
    ("columns", SPLIT_COLUMNS, "README.md", 3, "81.62"),
    ("spanned HTML header", SPANNED_HTML, "README.md", 10, "81.62%"),
    ("LaTeX multicolumn", MULTICOLUMN_TEX, "paper.tex", 6, "81.62"),
    ("split rows", SPLIT_ROWS.format(test="81.62%"), "README.md", 7, "81.62%"),
])
def test_a_test_claim_is_judged_on_its_split_only(name: str, text: str, path: str, line: int,
                                                  shown: str) -> None:
    report = judge(text, [TEST_ACC], path)
    assert findings(report) == []
    assert matches(report) == {(("T1",), line, shown)}


def test_a_drifted_test_value_drifts_at_its_own_split() -> None:
    report = judge(SPLIT_ROWS.format(test="81.70%"), [TEST_ACC])
    assert findings(report) == [("drift", ("T1",), 7, "81.70%")]
    drifted = SPLIT_COLUMNS.replace("81.62", "81.70")
    assert findings(judge(drifted, [TEST_ACC])) == [("drift", ("T1",), 3, "81.70")]


def test_each_split_claim_takes_its_own_column() -> None:
    report = judge(SPLIT_COLUMNS, [TEST_ACC, VAL_ACC])
    assert findings(report) == []
    assert matches(report) == {(("T1",), 3, "81.62"), (("V1",), 3, "93.63")}
    drifted = judge(SPLIT_COLUMNS.replace("93.63", "93.70"), [TEST_ACC, VAL_ACC])
    assert findings(drifted) == [("drift", ("V1",), 3, "93.70")]


def test_a_claim_on_no_split_is_the_number_of_the_split_it_matches() -> None:
    # A plain "accuracy" claim says no split: the row gives one accuracy per split, and the
    # claim is the one it matches, not the other's. Before: drift on the test cell's 81.62.
    plain = claim("A1", "accuracy", 0.9363, aliases=("LiteNet",))
    report = judge(SPLIT_COLUMNS, [plain])
    assert findings(report) == []
    assert matches(report) == {(("A1",), 3, "93.63")}
    # matching none, it drifts against each: which split it is, nothing says
    drifted = judge(SPLIT_COLUMNS.replace("93.63", "93.70"), [plain])
    assert findings(drifted) == [("drift", ("A1",), 3, "93.70"), ("drift", ("A1",), 3, "81.62")]
    # rows apart: each row's claim takes its own row's split
    other = claim("B1", "accuracy", 0.85, aliases=("BigNet",), run="r2")
    rows = ("| Model | Accuracy (val) | Accuracy (test) |\n|---|---|---|\n"
            "| LiteNet | 93.63 | 81.62 |\n| BigNet | 95.00 | 85.00 |\n")
    both = judge(rows, [plain, other])
    assert findings(both) == []
    assert matches(both) == {(("A1",), 3, "93.63"), (("B1",), 4, "85.00")}


def test_headers_naming_no_single_split_change_nothing() -> None:
    # "Test-time aug." is a phase, not data; "Train/Test" names two splits
    tta = "| Model | Test-time aug. accuracy |\n|---|---|\n| LiteNet | 93.63 |\n"
    assert findings(judge(tta, [TEST_ACC])) == [("drift", ("T1",), 3, "93.63")]
    both = "| Model | Train/Test accuracy |\n|---|---|\n| LiteNet | 93.63 |\n"
    assert findings(judge(both, [TEST_ACC])) == [("drift", ("T1",), 3, "93.63")]


# === sections =====================================================================================

# Before: drift on 93.63 (the validation section's number).
SECTIONS_MD = (
    "## Validation results\n"
    "\n"
    "LiteNet reaches an accuracy of 93.63%.\n"
    "\n"
    "## Test results\n"
    "\n"
    "### CIFAR-10\n"
    "\n"
    "LiteNet reaches an accuracy of {test}.\n"
    "\n"
    "| Model | Accuracy |\n"
    "|---|---|\n"
    "| LiteNet | {test} |\n"
)

SECTIONS_TEX = (
    "\\section{Validation results}\n"
    "LiteNet reaches an accuracy of 93.63\\%.\n"
    "\\section{Results on the test set}\n"
    "\\subsection{CIFAR-10}\n"
    "LiteNet reaches an accuracy of {test}\\%.\n"
)


def test_a_section_heading_names_the_split_of_its_numbers() -> None:
    report = judge(SECTIONS_MD.format(test="81.62%"), [TEST_ACC])
    assert findings(report) == []
    assert matches(report) == {(("T1",), 9, "81.62%"), (("T1",), 13, "81.62%")}
    drifted = judge(SECTIONS_MD.format(test="81.70%"), [TEST_ACC])
    assert findings(drifted) == [("drift", ("T1",), 9, "81.70%"),
                                 ("drift", ("T1",), 13, "81.70%")]
    tex = judge(SECTIONS_TEX.replace("{test}", "81.62"), [TEST_ACC], "paper.tex")
    assert findings(tex) == []
    assert matches(tex) == {(("T1",), 5, "81.62%")}


CAPTIONED_TEX = (
    "\\section{{Results on the validation set}}\n"
    "LiteNet reaches an accuracy of 93.63\\%.\n"
    "\\begin{{table}}[t]\n"
    "\\caption{{Accuracy on the {split} set.}}\n"
    "\\begin{{tabular}}{{lc}}\n"
    "Method & Accuracy \\\\\n"
    "LiteNet & {value} \\\\\n"
    "\\end{{tabular}}\n"
    "\\end{{table}}\n"
)


def test_a_latex_tables_caption_names_the_split_of_its_cells() -> None:
    # the caption's split, inside the section's: the table is the test split's, the sentence
    # before it the validation split's. Before: drift on the sentence's 93.63.
    report = judge(CAPTIONED_TEX.format(split="test", value="81.62"), [TEST_ACC], "paper.tex")
    assert findings(report) == []
    assert matches(report) == {(("T1",), 7, "81.62")}
    drifted = judge(CAPTIONED_TEX.format(split="test", value="81.70"), [TEST_ACC], "paper.tex")
    assert findings(drifted) == [("drift", ("T1",), 7, "81.70")]
    # a validation table in a validation section: no test claim's number anywhere
    val = judge(CAPTIONED_TEX.format(split="validation", value="93.63"), [TEST_ACC],
                "paper.tex")
    assert findings(val) == []
    assert matches(val) == set()


def test_a_sentences_own_words_come_before_its_section() -> None:
    text = ("## Test results\n\nLiteNet reaches an accuracy of 93.63% on the validation set "
            "and 81.62% on the test set.\n")
    report = judge(text, [TEST_ACC])
    assert findings(report) == []
    assert matches(report) == {(("T1",), 3, "81.62%")}


@pytest.mark.parametrize("text", [
    # "## Training" heads how to train, not the training split's results; "## Testing" and
    # "## Test" how to run an evaluation, whose expected numbers may be any split's
    "## Training\n\nLiteNet reaches an accuracy of 93.63%.\n",
    "## Testing\n\nRun `python test.py`. LiteNet reaches an accuracy of 93.63%.\n",
    # a heading in a LaTeX comment is no heading
    "% \\section{Validation results}\nLiteNet reaches an accuracy of 93.63\\%.\n",
    # a heading in a fence is no heading
    "```\n## Validation\n```\n\nLiteNet reaches an accuracy of 93.63%.\n",
    # the section ended at the next heading of its level
    "## Validation\n\nSee below.\n\n## Ablation\n\nLiteNet reaches an accuracy of 93.63%.\n",
])
def test_what_is_no_split_section(text: str) -> None:
    path = "paper.tex" if text.startswith("%") else "README.md"
    report = judge(text, [TEST_ACC], path)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("T1",))]


# The Hugging Face Trainer's generated model card (its "### Training results" table is each
# epoch's validation loss and metrics), with names and numbers of our own.
TRAINER_CARD = (
    "It achieves the following results on the evaluation set:\n"
    "- Loss: 0.2815\n"
    "- Accuracy: {final}\n"
    "\n"
    "### Training results\n"
    "\n"
    "| Training Loss | Epoch | Step | Validation Loss | Accuracy |\n"
    "|:-------------:|:-----:|:----:|:---------------:|:--------:|\n"
    "| 0.4127        | 1.0   | 500  | 0.3190          | 0.9012   |\n"
    "| 0.2236        | 2.0   | 1000 | 0.2815          | {final}   |\n"
)


def test_training_results_are_no_training_splits_numbers() -> None:
    # "Training results" heads the run's validation numbers: an eval_accuracy claim is judged
    # in its table (a "train" section had left the table unjudged)
    evaluated = claim("E1", "eval_accuracy", 0.9243, aliases=("Accuracy",))
    report = judge(TRAINER_CARD.format(final="0.9243"), [evaluated])
    assert findings(report) == []
    assert matches(report) == {(("E1",), 3, "0.9243"), (("E1",), 10, "0.9243")}
    drifted = judge(TRAINER_CARD.format(final="0.9250"), [evaluated])
    # the table's rows are epochs: drift on the last one's (before: ambiguous on line 9)
    assert [(f.type, f.line) for f in drifted.findings] == [("drift", 3), ("drift", 10)]


def test_a_setext_heading_names_its_section() -> None:
    text = "Validation set\n--------------\n\nLiteNet reaches an accuracy of 93.63%.\n"
    report = judge(text, [TEST_ACC])
    assert findings(report) == []
    assert matches(report) == set()


# === notebooks ====================================================================================

def _markdown(source: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _printed(text: str) -> dict[str, object]:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "evaluate()",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": text}]}


def _notebook(cells: list[dict[str, object]], nbformat: int = 4) -> str:
    if nbformat == 3:
        return json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {},
                           "worksheets": [{"cells": cells}]}, indent=1)
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells},
                      indent=1)


# A notebook evaluating on each split with the same code, under a markdown heading per split,
# as many Kaggle and course notebooks do. Before: drift on the validation cell's 0.9363.
SPLIT_NOTEBOOK = [
    _markdown("# LiteNet\n\n## Validation results"),
    _printed("Accuracy: 0.9363\n"),
    _markdown("## Test set evaluation"),
    _printed("Accuracy: {test}\n"),
    _markdown("### Notes\n\nLiteNet reaches an accuracy of {test} here."),
    _markdown("## Ablation"),
    _printed("Accuracy: 0.9363\n"),
]


def _split_notebook(test: str, nbformat: int = 4) -> str:
    cells = json.loads(json.dumps(SPLIT_NOTEBOOK).replace("{test}", test))
    return _notebook(cells, nbformat)


def test_a_notebooks_markdown_headings_name_the_split_of_the_cells_after_them() -> None:
    report = judge(_split_notebook("0.8162"), [TEST_ACC], "eval.ipynb")
    # the ablation's accuracy is under no split's heading: judged as before
    assert [(f.type, f.where, f.shown) for f in report.findings] == [
        ("drift", "cell 7, output 1", "0.9363")]
    assert {(m.where, m.shown) for m in report.matches} == {
        ("cell 4, output 1", "0.8162"), ("cell 5", "0.8162")}
    drifted = judge(_split_notebook("0.8170"), [TEST_ACC], "eval.ipynb")
    assert [(f.type, f.where, f.shown) for f in drifted.findings] == [
        ("drift", "cell 4, output 1", "0.8170"), ("drift", "cell 5", "0.8170"),
        ("drift", "cell 7, output 1", "0.9363")]


def test_nbformat_3_heading_cells_name_the_split_too() -> None:
    cells = [{"cell_type": "heading", "level": 2, "metadata": {}, "source": "Validation set"},
             {"cell_type": "code", "language": "python", "input": "evaluate()",
              "metadata": {}, "outputs": [{"output_type": "stream", "stream": "stdout",
                                           "text": "LiteNet accuracy: 0.9363\n"}]}]
    report = judge(_notebook(cells, nbformat=3), [TEST_ACC], "old.ipynb")
    assert findings(report) == []
    assert matches(report) == set()


def test_a_heading_cell_edited_is_no_cached_result(tmp_path: Path) -> None:
    # the output's text is the same, its heading is not: the judging cache must not answer
    # with the first judgement (`Segment.sections` is part of its key)
    cache = tmp_path / "cache"
    first = reconcile_segments(read_document("eval.ipynb", _split_notebook("0.8162").encode()),
                               [TEST_ACC], jobs=1, cache=cache)
    assert [f.where for f in first.findings] == ["cell 7, output 1"]
    renamed = _split_notebook("0.8162").replace("## Validation results", "## Results")
    second = reconcile_segments(read_document("eval.ipynb", renamed.encode()), [TEST_ACC],
                                jobs=1, cache=cache)
    assert [f.where for f in second.findings] == ["cell 2, output 1", "cell 7, output 1"]


# === the readers ==================================================================================

@pytest.mark.parametrize(("header", "split"), [
    ("Val Acc", "val"), ("Test Accuracy", "test"), ("Accuracy (val)", "val"),
    ("Val. F1", "val"), ("Validation", "val"), ("train_acc", "train"), ("Dev EM", "val"),
    ("PSNR", None), ("Train/Test", None), ("Test-time aug.", None), ("Train time (h)", None),
    ("Testing accuracy", "test"), ("Eval loss", "eval"), ("contest score", None),
])
def test_header_split(header: str, split: str | None) -> None:
    assert header_split(header) == split


@pytest.mark.parametrize(("label", "split"), [
    ("Training", "train"), ("Val", "val"), ("Test set", "test"), (" validation split ", "val"),
    ("**Test**", "test"), ("Test accuracy", None), ("LiteNet (val)", None), ("Ours", None),
])
def test_label_split(label: str, split: str | None) -> None:
    assert label_split(label) == split


@pytest.mark.parametrize(("heading", "split"), [
    ("Test results", "test"), ("Results on the validation set", "val"), ("Validation", None),
    ("Test", None), ("Testing", None), ("Training", None), ("Training results", None),
    ("Validation accuracy", "val"),
    ("Results on the training set", "train"), ("Training loss", "train"),
    ("Validation and test results", None), ("Results", None), ("Evaluation", None),
    ("Evaluation results", "eval"),
    ("Test results after training", None), ("Conclusion", None),
])
def test_heading_split(heading: str, split: str | None) -> None:
    assert heading_split(heading) == split


_TITLES = ["Test results", "Validation", "Ablation", "Training results", "Setup"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.sampled_from(_TITLES), st.integers(0, 3)),
                max_size=12))
def test_the_split_over_a_place_is_its_innermost_naming_section(
        heads: list[tuple[int, str, int]]) -> None:
    lines: list[str] = []
    opened: list[tuple[int, int, str | None]] = []  # (line, level, split) of each heading
    for level, title, body in heads:
        opened.append((len(lines), level, heading_split(title)))
        lines.append("#" * level + " " + title)
        lines.extend(["text"] * body)
    text = "\n".join(lines) + "\n"
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    got = section_splits(read_document("README.md", text.encode())[0])
    for n in range(len(lines)):
        # brute force: the headings open at line n, innermost last
        stack: list[tuple[int, str | None]] = []
        for at, level, split in opened:
            if at > n:
                break
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, split))
        if bisect.bisect_right([at for at, _, _ in opened], n) and \
                opened[bisect.bisect_right([at for at, _, _ in opened], n) - 1][0] == n:
            continue  # a heading's own line is in no section of its own
        want = next((split for _, split in reversed(stack) if split is not None), None)
        assert (got.at(starts[n]) if got is not None else None) == want, (text, n)
