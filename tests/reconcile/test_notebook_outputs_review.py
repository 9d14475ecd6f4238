"""Reconcile on the printed outputs of ML notebooks: each fixture follows the shape of a real
public notebook (named above it, with what reconcile found on it before and finds now), with
names and numbers of our own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.reconcile.test_documents import claim
from tests.reconcile.test_notebooks_review import found, judge, matched, notebook


def _cells(*cells: dict[str, Any]) -> str:
    return notebook(",".join(json.dumps(c) for c in cells))


def _code(*outputs: dict[str, Any], source: str = "") -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": source,
            "outputs": list(outputs)}


def _stream(text: str) -> dict[str, Any]:
    return {"name": "stdout", "output_type": "stream", "text": text.splitlines(keepends=True)}


# A public Colab notebook comparing text classifiers (GitHub index file id 26993127649; its
# repository is not in the index): one cell per dataset prints a banner, then "Training
# Accuracy: ...", "Test Accuracy: ...", "Test Precision: ...", "Test F1 Score: ...", "Test
# Recall: ..." and timings, a line each: a printed log. Before: the training line's "Accuracy"
# was read as every split's, so a test_accuracy claim drifted against a cell printing only the
# training metrics, and a moved test accuracy was ambiguous with the training line. Now the
# split word before a key ("Training Accuracy:") names its split, as it does in a sentence.
_SCORES = (
    "#################### Second Dataset ####################\n"
    "Training Accuracy: 0.4112384937238494\n"
    "Test Accuracy: 0.2413793103448276\n"
    "Test Precision: 0.7904411764705882\n"
    "Test F1 Score: 0.1580459770114943\n"
    "Test Recall: 0.2413793103448276\n"
    "Time taken to train: 6.918273210525513 seconds\n")
_SCORE_CLAIMS = [claim("A", "test_accuracy", 0.2413793103448276),
                 claim("F", "test_f1", 0.1580459770114943, aliases=("F1 Score",))]


def test_training_accuracy_line_is_no_test_claims_number(tmp_path: Path) -> None:
    report = judge(tmp_path, _cells(_code(_stream(_SCORES))), _SCORE_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("A",), "cell 1, output 1", 3, "0.2413793103448276"),
                               (("F",), "cell 1, output 1", 5, "0.1580459770114943")}
    moved = _SCORES.replace("Test Accuracy: 0.24137", "Test Accuracy: 0.25137")
    report = judge(tmp_path, _cells(_code(_stream(moved))), _SCORE_CLAIMS)
    # before: ("ambiguous", ("A",), "cell 1, output 1", 2, 20, "0.4112384937238494")
    assert found(report) == [("drift", ("A",), "cell 1, output 1", 3, 16, "0.2513793103448276")]


def test_a_cell_printing_training_metrics_only_gives_no_test_drift(tmp_path: Path) -> None:
    train = ("Training Accuracy: 0.9978\n"
             "Training Loss: 0.0123\n"
             "Epochs run: 12\n")
    text = _cells(_code(_stream(train)), _code(_stream("Test Accuracy: 0.9386\n")))
    report = judge(tmp_path, text, [claim("A", "test_accuracy", 0.9386, aliases=("accuracy",))])
    # before: ("drift", ("A",), "cell 1, output 1", 1, 20, "0.9978")
    assert found(report) == []
    assert matched(report) == {(("A",), "cell 2, output 1", 1, "0.9386")}


# fastai/fastbook 02_production.ipynb (the `learn.fine_tune(4)` cell) and every fastai
# notebook calling fine_tune: fastprogress shows each fit as an HTML table (text/plain only
# names the object), one output for the frozen epoch, then one for the rest, in the same
# cell. Before: the claim on the last epoch's error rate drifted against the frozen epoch's
# table (its only row). Now that table, which the next output of its cell goes on from, is
# not read: the last table's rows are the training's epochs, judged together.
_STYLE = "<style>\n    /* Turns off some styling */\n    progress { border: none; }\n</style>\n"


def _fit_table(rows: list[tuple[str, ...]]) -> dict[str, Any]:
    head = "".join(f"      <th>{c}</th>\n"
                   for c in ("epoch", "train_loss", "valid_loss", "error_rate", "time"))
    body = "".join("    <tr>\n" + "".join(f"      <td>{v}</td>\n" for v in row) + "    </tr>\n"
                   for row in rows)
    html = (_STYLE + '<table border="1" class="dataframe">\n  <thead>\n'
            '    <tr style="text-align: left;">\n' + head + "    </tr>\n  </thead>\n"
            "  <tbody>\n" + body + "  </tbody>\n</table>")
    return {"data": {"text/html": html.splitlines(keepends=True),
                     "text/plain": ["<IPython.core.display.HTML object>"]},
            "metadata": {}, "output_type": "display_data"}


_FROZEN = [("0", "0.913842", "0.094171", "0.041320", "00:14")]
_UNFROZEN = [("0", "0.351027", "0.102236", "0.037736", "00:17"),
             ("1", "0.262190", "0.071409", "0.028302", "00:17"),
             ("2", "0.201455", "0.066318", "0.023585", "00:17")]
_FASTAI_CLAIMS = [claim("E", "error_rate", 0.023585, aliases=("error rate",)),
                  claim("L", "valid_loss", 0.066318)]


def test_fastai_fine_tune_frozen_epoch_table_is_no_drift(tmp_path: Path) -> None:
    text = _cells(_code(_fit_table(_FROZEN), _fit_table(_UNFROZEN), source="learn.fine_tune(3)"))
    report = judge(tmp_path, text, _FASTAI_CLAIMS)
    # before: ("drift", ("L",), "cell 1, output 1", 19, 11, "0.094171") and
    # ("drift", ("E",), "cell 1, output 1", 20, 11, "0.041320")
    assert found(report) == []
    assert matched(report) == {(("E",), "cell 1, output 2", 34, "0.023585"),
                               (("L",), "cell 1, output 2", 33, "0.066318")}
    moved = [*_UNFROZEN[:2], ("2", "0.201455", "0.066318", "0.025585", "00:17")]
    text = _cells(_code(_fit_table(_FROZEN), _fit_table(moved), source="learn.fine_tune(3)"))
    report = judge(tmp_path, text, _FASTAI_CLAIMS)
    # the last fit's epochs are the claim's history: drift on the last of them, the most recent
    # value (`progress`; before: ambiguous among them)
    assert [(f.type, f.claims, f.where, f.shown) for f in report.findings] == [
        ("drift", ("E",), "cell 1, output 2", "0.025585")]


def test_fastai_tables_of_separate_cells_are_each_read(tmp_path: Path) -> None:
    """Only a table the same cell's next output goes on from is left out: a fit in a cell of
    its own is read. Two fits' tables are one training's history (`progress.judge_history`):
    a claim one of them matches is satisfied (before: each claim on the last fit drifted
    against the first fit's row), and one none matches drifts on the last fit's last row."""
    text = _cells(_code(_fit_table(_FROZEN)), _code(_fit_table(_UNFROZEN)))
    report = judge(tmp_path, text, _FASTAI_CLAIMS)
    assert found(report) == []
    frozen = [claim("E0", "error_rate", 0.04132, run="frozen", aliases=("error rate",))]
    assert matched(judge(tmp_path, text, frozen)) == {
        (("E0",), "cell 1, output 1", 20, "0.041320")}
    moved = judge(tmp_path, text, [claim("E", "error_rate", 0.021585)])
    assert [(f.type, f.claims, f.where, f.shown) for f in moved.findings] == [
        ("drift", ("E",), "cell 2, output 1", "0.023585")]
