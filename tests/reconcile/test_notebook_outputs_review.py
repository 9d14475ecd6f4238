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
