"""Two shapes of printed results that were read wrongly, each rebuilt from real files:

* **sklearn's ``classification_report``** (a notebook's stream output, a ``.txt`` console
  log): a header line, a blank line, a row per class, a blank line, then the averages, with
  right-aligned labels holding spaces ("macro avg") and an ``accuracy`` row with no precision
  or recall. The blank lines cut it into blocks none of which was a printed frame, so each
  line was a log record and its label named none of its numbers: claims aliased "Class 2",
  "macro avg" or "weighted avg" were never matched. It is one table now.
* **Markdown headings over ``key: value`` lists**, as generated model reports write them: a
  heading was a unit of its own, so "- precision: 1.0000" under "## LogisticRegression" was a
  candidate for the RandomForestClassifier's precision claim, and drift. A heading names the
  list items and ``key: value`` lines under it now (not its prose).

Each real case as in test_outputs_review.py: (a) as written, no finding, each bound number
matched to its claim at its place; (b) each bound number moved past half a unit in its last
digit is one `drift` on that claim at that place, and nothing else.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_outputs_review import Printed, claim
from tests.reconcile.test_outputs_review import test_printed_results as check_printed

# The report from index file id 27779025505 (a Python file whose docstring keeps a Keras run's
# log; repository not resolved): integer class labels, 3-digit supports, under Keras lines
_KERAS_REPORT = (
    "Epoch 50/50\n"
    "34/34 [==============================] - 3s 100ms/step - loss: 1.1456 - accuracy: 0.5970"
    " - val_loss: 1.2332 - val_accuracy: 0.5415\n"
    "27ms/step - loss: 1.2818 - accuracy: 0.5109\n"
    "Test Accuracy: 0.5109170079231262\n"
    "8/8 [==============================] - 0s 26ms/step\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "           0       0.53      0.77      0.63        57\n"
    "           1       0.71      0.39      0.50        62\n"
    "           2       0.39      0.73      0.51        49\n"
    "           3       0.65      0.21      0.32        61\n"
    "\n"
    "    accuracy                           0.51       229\n"
    "   macro avg       0.57      0.53      0.49       229\n"
    "weighted avg       0.58      0.51      0.49       229\n")

# The console output in index file id 10374308472 (a README's "Output Snapshot" of an SVM
# cats-vs-dogs script; repository not resolved), up to the saved predictions: string class
# names, 4-digit supports, the accuracy printed above the report too
_CATS_DOGS_LOG = (
    "Initialized classifier with image size: (64, 64)\n"
    "Training directory: C:/Users/Yatin Singh/Downloads/dogs-vs-cats/train/train\n"
    "Test directory: C:/Users/Yatin Singh/Downloads/dogs-vs-cats/test1/test1\n"
    "Loading training data...\n"
    "Processing training images: 100%|" + "\u2588" * 65 + "| 25000/25000 [05:47<00:00, "
    "72.03it/s]\n"
    "Loaded 25000 training samples\n"
    "Feature vector size: 1086\n"
    "Class distribution: [12500 12500]\n"
    "Training SVM classifier...\n"
    "Preprocessing features...\n"
    "Validation Accuracy: 0.7318\n"
    "\n"
    "Validation Classification Report:\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "         Cat       0.73      0.74      0.73      2500\n"
    "         Dog       0.74      0.72      0.73      2500\n"
    "\n"
    "    accuracy                           0.73      5000\n"
    "   macro avg       0.73      0.73      0.73      5000\n"
    "weighted avg       0.73      0.73      0.73      5000\n"
    "\n"
    "Model saved to svm_cat_dog_model.pkl\n"
    "Making predictions on test images...\n"
    "Processing test images: 100%|" + "\u2588" * 69 + "| 12500/12500 [04:42<00:00, "
    "44.25it/s]\n"
    "Predictions saved to test_predictions.csv\n")

# The smaller model's result in index file id 19666525720 (a Polish README comparing two MLPs
# on wheat_seeds_dataset.csv; repository not resolved), as the notebook cell printing it
_WHEAT_REPORT = (
    "Dokładność: 0.8810\n"
    "\n"
    "Raport klasyfikacji:\n"
    "              precision    recall  f1-score   support\n"
    "\n"
    "     Class 1       0.80      0.73      0.76        11\n"
    "     Class 2       0.93      1.00      0.97        14\n"
    "     Class 3       0.88      0.88      0.88        17\n"
    "\n"
    "    accuracy                           0.88        42\n"
    "   macro avg       0.87      0.87      0.87        42\n"
    "weighted avg       0.88      0.88      0.88        42\n")

# birendra72/UniversalAnalystModel reports/irisPRE/model_report.md, as stored
_IRIS_REPORT = (
    "# Model Evaluation Report\n\nProblem type: classification\n\n"
    "## LogisticRegression\n- accuracy: 1.0000\n- precision: 1.0000\n- recall: 1.0000\n"
    "- f1_score: 1.0000\n![Confusion Matrix](LogisticRegression_confusion_matrix.png)\n\n"
    "## RandomForestClassifier\n- accuracy: 0.9667\n- precision: 0.9694\n- recall: 0.9667\n"
    "- f1_score: 0.9664\n![Confusion Matrix](RandomForestClassifier_confusion_matrix.png)\n\n"
    "![Feature Importance](RandomForestClassifier_feature_importance.png)\n\n"
    "## SVC\n- accuracy: 1.0000\n- precision: 1.0000\n- recall: 1.0000\n- f1_score: 1.0000\n"
    "![Confusion Matrix](SVC_confusion_matrix.png)\n\n")

# The models section of a credit-card fraud README (index file id 60399454807; repository not
# resolved): "#" over "###" headings, bold percents, a prose line naming the chosen model
_FRAUD_MODELS = (
    "# Machine Learning Models\n\n"
    "### Logistic Regression\n- Accuracy: **99.93%**\n- Precision: **84.15%**\n"
    "- Recall: **70.48%**\n- F1 Score: **76.67%**\n- ROC-AUC: **85.19%**\n\n"
    "### Random Forest\n- Accuracy: **99.94%**\n- Precision: **90.67%**\n"
    "- Recall: **69.39%**\n- F1 Score: **78.61%**\n- ROC-AUC: **84.69%**\n\n"
    "**Selected Model:** Random Forest Classifier\n\n---\n\n"
    "# Key Insights\n\n"
    "- The dataset is highly imbalanced, with only **0.17%** fraudulent transactions.\n"
    "- Random Forest achieved better precision and overall F1-score, making it the preferred "
    "model.\n")

CASES: list[Printed] = [
    Printed(
        "index file id 27779025505 (Keras run log; repository not resolved)", "cnn.ipynb",
        [claim("MF", "f1", 0.49116, aliases=("macro avg",)),
         claim("MR", "recall", 0.52507, aliases=("macro avg",)),
         claim("WP", "precision", 0.58047, aliases=("weighted avg",)),
         claim("AC", "accuracy", 0.51092, run="test")],
        [("MF", "cell 1, output 1", 14, "0.49", "0.53      0.49       229",
          "0.53      0.51       229"),
         ("MR", "cell 1, output 1", 14, "0.53", "0.57      0.53", "0.57      0.55"),
         ("WP", "cell 1, output 1", 15, "0.58", "weighted avg       0.58",
          "weighted avg       0.60"),
         ("AC", "cell 1, output 1", 13, "0.51", "accuracy                           0.51",
          "accuracy                           0.53")],
        cells=[("code", "print(classification_report(y_test, y_pred))",
                [("stream", _KERAS_REPORT)])]),
    Printed(
        "index file id 10374308472 (SVM cats vs dogs console output; repository not "
        "resolved)", "svm_output.txt",
        [claim("CR", "recall", 0.7396, aliases=("Cat",)),
         claim("DP", "precision", 0.73913, aliases=("Dog",)),
         claim("WF", "f1", 0.73178, aliases=("weighted avg",)),
         claim("VA", "accuracy", 0.7318, aliases=("Validation Accuracy",))],
        [("CR", None, 16, "0.74", "Cat       0.73      0.74", "Cat       0.73      0.76"),
         ("DP", None, 17, "0.74", "Dog       0.74", "Dog       0.76"),
         ("WF", None, 21, "0.73", "0.73      5000\n\nModel", "0.75      5000\n\nModel"),
         ("VA", None, 19, "0.73", "accuracy                           0.73",
          "accuracy                           0.75"),
         ("VA", None, 11, "0.7318", "Validation Accuracy: 0.7318",
          "Validation Accuracy: 0.7338")],
        text=_CATS_DOGS_LOG),
    Printed(
        "index file id 19666525720 (wheat seeds MLP README; repository not resolved)",
        "wheat.ipynb",
        [claim("C2P", "precision", 0.93333, aliases=("Class 2",)),
         claim("C2R", "recall", 1.0, aliases=("Class 2",)),
         claim("MF", "f1", 0.87046, aliases=("macro avg",))],
        [("C2P", "cell 1, output 1", 7, "0.93", "Class 2       0.93", "Class 2       0.95"),
         ("C2R", "cell 1, output 1", 7, "1.00", "1.00", "1.02"),
         ("MF", "cell 1, output 1", 11, "0.87", "0.87        42\nweighted",
          "0.89        42\nweighted")],
        cells=[("code", "print('Dokładność:', ...)\nprint(classification_report(...))",
                [("stream", _WHEAT_REPORT)])]),
    Printed(
        "birendra72/UniversalAnalystModel:reports/irisPRE/model_report.md", "model_report.md",
        [claim("RA", "accuracy", 0.96667, aliases=("RandomForestClassifier",)),
         claim("RP", "precision", 0.96944, aliases=("RandomForestClassifier",)),
         claim("RF", "f1", 0.96639, aliases=("RandomForestClassifier",)),
         claim("LA", "accuracy", 1.0, aliases=("LogisticRegression",), run="lr"),
         claim("SF", "f1", 1.0, aliases=("SVC",), run="svc")],
        [("RA", None, 13, "0.9667", "- accuracy: 0.9667", "- accuracy: 0.9687"),
         ("RP", None, 14, "0.9694", "- precision: 0.9694", "- precision: 0.9714"),
         ("RF", None, 16, "0.9664", "- f1_score: 0.9664", "- f1_score: 0.9684"),
         ("LA", None, 6, "1.0000", "LogisticRegression\n- accuracy: 1.0000",
          "LogisticRegression\n- accuracy: 0.9998"),
         ("SF", None, 25, "1.0000", "f1_score: 1.0000\n![Confusion Matrix](SVC",
          "f1_score: 0.9998\n![Confusion Matrix](SVC")],
        text=_IRIS_REPORT),
    Printed(
        "index file id 60399454807 (credit card fraud README; repository not resolved)",
        "README.md",
        [claim("RP", "precision", 0.906735, aliases=("Random Forest",)),
         claim("RR", "recall", 0.693878, aliases=("Random Forest",)),
         claim("RAUC", "roc_auc", 0.846939, aliases=("Random Forest",)),
         claim("LF", "f1", 0.766667, aliases=("Logistic Regression",), run="lr")],
        [("RP", None, 12, "90.67%", "90.67%", "90.69%"),
         ("RR", None, 13, "69.39%", "69.39%", "69.41%"),
         ("RAUC", None, 15, "84.69%", "84.69%", "84.71%"),
         ("LF", None, 7, "76.67%", "76.67%", "76.69%")],
        text=_FRAUD_MODELS),
]


@pytest.mark.parametrize("case", CASES, ids=[c.source for c in CASES])
def test_printed_reports(case: Printed) -> None:
    check_printed(case)


def _reconcile(path: str, text: str, claims: list[Claim]) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims, jobs=1)


def test_a_report_is_one_table_each_number_under_its_row_and_column() -> None:
    """A drift in a class row is that cell's claim, at its column (not the support's)."""
    claims = [claim("C2P", "precision", 0.93333, aliases=("Class 2",)),
              claim("WR", "recall", 0.88095, aliases=("weighted avg",))]
    text = _WHEAT_REPORT.replace("Class 2       0.93", "Class 2       0.95")
    got = _reconcile("wheat.txt", text, claims)
    line = text.split("\n")[6]
    assert [(f.type, f.claims, f.line, f.col) for f in got.findings] == [
        ("drift", ("C2P",), 7, line.index("0.95") + 1)], [f.render() for f in got.findings]
    assert [(m.claims, m.line, m.shown) for m in got.matches] == [(("WR",), 12, "0.88")]


def test_a_support_is_no_value_of_a_fraction() -> None:
    """The row naming a claim holds its support too (a count): with the claim's own cell
    drifted, the drift is that cell's and the support is not judged at all."""
    claims = [claim("WF", "f1", 0.73178, aliases=("weighted avg",))]
    text = _CATS_DOGS_LOG.replace("0.73      5000\n\nModel", "0.75      5000\n\nModel")
    got = _reconcile("svm_output.txt", text, claims)
    line = text.split("\n")[20]
    assert [(f.type, f.claims, f.line, f.col) for f in got.findings] == [
        ("drift", ("WF",), 21, line.index("0.75") + 1)], [f.render() for f in got.findings]


_HEADED_CLAIMS = [claim("RP", "precision", 0.96944, aliases=("RandomForestClassifier",)),
                  claim("LP", "precision", 1.0, aliases=("LogisticRegression",), run="lr")]


def test_a_heading_does_not_name_its_prose() -> None:
    """Prose under "## LogisticRegression" is not the LogisticRegression's: its precision of
    0.9694 is the forest's number, a match, not drift against the regression's claim."""
    text = ("## RandomForestClassifier\n- precision: 0.9694\n\n"
            "## LogisticRegression\n- precision: 1.0000\n\n"
            "The forest's precision is 0.9694 on the same split.\n")
    got = _reconcile("report.md", text, _HEADED_CLAIMS)
    assert got.findings == [], [f.render() for f in got.findings]
    assert sorted((m.claims, m.line, m.shown) for m in got.matches) == [
        (("LP",), 5, "1.0000"), (("RP",), 2, "0.9694"), (("RP",), 7, "0.9694")]


@pytest.mark.parametrize("record", ["- precision: 0.9694\n", "precision: 0.9694\n",
                                    "1. precision: 0.9694\n",
                                    "### Test split\n- precision: 0.9694\n"])
def test_a_heading_names_its_list_items_and_key_value_lines(record: str) -> None:
    """The same number as a list item, or a ``key: value`` line, under the heading is the
    LogisticRegression's: drift on its claim; a subheading keeps its parent's name."""
    text = "## RandomForestClassifier\n- precision: 0.9694\n\n## LogisticRegression\n" + record
    got = _reconcile("report.md", text, _HEADED_CLAIMS)
    assert [(f.type, f.claims, f.line) for f in got.findings] == [
        ("drift", ("LP",), text.count("\n"))], [f.render() for f in got.findings]


@pytest.mark.parametrize("closing", ["## Notes", "# Appendix"])
def test_a_heading_ends_at_the_next_of_its_level_or_higher(closing: str) -> None:
    """A heading of the same level or higher closes "## LogisticRegression": the list under
    it is named by its bare metric only, and 0.9694 is the forest's match, not nobody's."""
    text = "## LogisticRegression\n- precision: 1.0000\n\n" + closing + "\n- precision: 0.9694\n"
    got = _reconcile("report.md", text, _HEADED_CLAIMS)
    assert got.findings == [], [f.render() for f in got.findings]
    assert [(m.claims, m.line, m.shown) for m in got.matches] == [
        (("LP",), 2, "1.0000"), (("RP",), 5, "0.9694")]


def test_a_fenced_hash_line_is_no_heading() -> None:
    """A "# comment" in a fenced code block heads nothing: the list after the block stays
    under "## LogisticRegression", and its 0.9694 is drift on that model's claim."""
    text = ("## RandomForestClassifier\n- precision: 0.9694\n\n## LogisticRegression\n"
            "```python\n# RandomForestClassifier\nfit()\n```\n- precision: 0.9694\n")
    got = _reconcile("report.md", text, _HEADED_CLAIMS)
    assert [(f.type, f.claims, f.line) for f in got.findings] == [("drift", ("LP",), 9)], [
        f.render() for f in got.findings]
