"""Reconcile against results as ML code PRINTS them, copied from public repositories (each case
names its source): notebook stream outputs (Keras ``fit``/``evaluate`` logs, ``print`` of
metrics, sklearn's ``classification_report``), ``text/plain`` results (a pandas DataFrame),
evaluation logs kept as ``.txt`` (COCO ``summarize()``, fairseq's BLEU line, BasicSR's
validation lines, the HF Trainer's metrics) and the result sentences next to them.

Per case, as in test_readme_tables_review.py: the claims a user would declare for 2-4 of its
numbers (the value as the evidence records it, more digits than the print shows where it
rounds), then (a) the document as written gives no finding and each bound number is matched to
its claim at its line (and notebook cell and output), and (b) each bound number moved by more
than half a unit in its last digit is `drift` on that claim, at that place, and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")

# A notebook cell: (cell_type, source, outputs); an output: ("stream" | "execute_result", text)
Cell = tuple[str, str, list[tuple[str, str]]]


def _notebook(cells: list[Cell]) -> str:
    """nbformat-4 JSON as Jupyter writes it: sources and texts as lists of lines."""
    def lines(text: str) -> list[str]:
        return text.splitlines(keepends=True)

    out = []
    for n, (kind, source, outputs) in enumerate(cells, 1):
        if kind == "markdown":
            out.append({"cell_type": "markdown", "id": f"c{n}", "metadata": {},
                        "source": lines(source)})
            continue
        outs: list[dict[str, object]] = []
        for what, text in outputs:
            if what == "stream":
                outs.append({"name": "stdout", "output_type": "stream", "text": lines(text)})
            else:
                outs.append({"data": {"text/plain": lines(text)}, "execution_count": n,
                             "metadata": {}, "output_type": "execute_result"})
        out.append({"cell_type": "code", "execution_count": n, "id": f"c{n}", "metadata": {},
                    "outputs": outs, "source": lines(source)})
    return json.dumps({"cells": out, "metadata": {"kernelspec": {
        "display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5}, indent=1)


@dataclass
class Printed:
    source: str                 # repo/path it was copied from
    path: str                   # the document's name here: its suffix says how it is read
    claims: list[Claim]
    # (claim, where: "cell 2, output 1" or None, line in that output, the number as shown,
    #  text around it that holds it once in the document, that text with the number moved)
    bound: list[tuple[str, str | None, int, str, str, str]]
    text: str = ""              # a .txt/.md document
    cells: list[Cell] = field(default_factory=list)  # a notebook

    def texts(self) -> list[str]:
        return [self.text] if not self.cells else [
            t for _, source, outs in self.cells for t in [source, *(o for _, o in outs)]]

    def document(self, old: str = "", new: str = "") -> str:
        if not self.cells:
            return self.text.replace(old, new) if old else self.text
        return _notebook([(k, s.replace(old, new) if old else s,
                           [(w, o.replace(old, new) if old else o) for w, o in outs])
                          for k, s, outs in self.cells])


def _run(case: Printed, old: str = "", new: str = "") -> Report:
    doc = case.document(old, new)
    return reconcile_segments(read_document(case.path, doc.encode()), case.claims, jobs=1)


_KERAS_MNIST_FIT = (
    "Epoch 11/15\n"
    "422/422 [==============================] - 16s 37ms/step - loss: 0.0406 - accuracy: 0.9874"
    " - val_loss: 0.0303 - val_accuracy: 0.9920\n"
    "Epoch 12/15\n"
    "237/422 [===============>..............] - ETA: 7s - loss: 0.0398 - accuracy: 0.9877\n")

_GRN_WARNING = (
    "WARNING:tensorflow:`evaluate()` received a value for `sample_weight`, but "
    "`weighted_metrics` were not provided.  Did you mean to pass metrics to `weighted_metrics` "
    "in `compile()`?  If this is intentional you can pass `weighted_metrics=[]` to `compile()` "
    "in order to silence this warning.\n")

CASES: list[Printed] = [
    # keras-team/keras-io examples/vision/md/mnist_convnet.md, as the notebook it is rendered
    # from: Keras 2 fit() epochs ("- loss: ... - val_accuracy: 0.9920", one record a line, the
    # next "Epoch 11/15" right under it, an interrupted epoch), then evaluate()'s full floats
    Printed(
        "keras-team/keras-io:examples/vision/md/mnist_convnet.md", "mnist_convnet.ipynb",
        [claim("A", "test_accuracy", 0.9922000169754028, aliases=("Test accuracy",)),
         claim("L", "test_loss", 0.023950600996613503, aliases=("Test loss",)),
         claim("V", "val_accuracy", 0.99203, run="epoch11"),
         claim("VL", "val_loss", 0.030312, run="epoch11")],
        [("A", "cell 3, output 1", 2, "0.9922000169754028", "0.9922000169754028",
          "0.9922000269754028"),
         ("L", "cell 3, output 1", 1, "0.023950600996613503", "0.023950600996613503",
          "0.023950610996613503"),
         ("V", "cell 2, output 1", 2, "0.9920", "0.0303 - val_accuracy: 0.9920",
          "0.0303 - val_accuracy: 0.9930"),
         ("VL", "cell 2, output 1", 2, "0.0303", "val_loss: 0.0303", "val_loss: 0.0313")],
        cells=[
            ("markdown", "# Simple MNIST convnet\n\n**Description:** A simple convnet that "
             "achieves ~99% test accuracy on MNIST.\n", []),
            ("code", "model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, "
             "validation_split=0.1)", [("stream", _KERAS_MNIST_FIT)]),
            ("code", 'score = model.evaluate(x_test, y_test, verbose=0)\nprint("Test loss:", '
             'score[0])\nprint("Test accuracy:", score[1])',
             [("stream", "Test loss: 0.023950600996613503\n"
                         "Test accuracy: 0.9922000169754028\n")])]),
    # keras-team/keras-io examples/structured_data/md/classification_with_grn_and_vsn.md: the
    # last epoch, a TensorFlow warning glued to the progress line, evaluate()'s line, then
    # f"Test accuracy: {round(accuracy * 100, 2)}%" and the prose under it ("more than 95%":
    # a bound, not the value)
    Printed(
        "keras-team/keras-io:examples/structured_data/md/classification_with_grn_and_vsn.md",
        "grn_vsn.ipynb",
        [claim("T", "test_accuracy", 0.954712, aliases=("Test accuracy",)),
         claim("VA", "val_accuracy", 0.95538, run="epoch20")],
        [("T", "cell 1, output 1", 8, "95.47%", "Test accuracy: 95.47%",
          "Test accuracy: 95.67%"),
         ("VA", "cell 1, output 1", 3, "0.9554", "val_accuracy: 0.9554",
          "val_accuracy: 0.9574")],
        cells=[
            ("code", 'print("Start training the model...")\nmodel.fit(train_dataset, '
             'epochs=num_epochs, validation_data=valid_dataset, callbacks=[early_stopping])\n'
             '_, accuracy = model.evaluate(test_dataset)\n'
             'print(f"Test accuracy: {round(accuracy * 100, 2)}%")',
             [("stream",
               "Epoch 20/20\n"
               "640/640 [==============================] - ETA: 0s - loss: 203.9543 - accuracy:"
               " 0.9550" + _GRN_WARNING +
               "640/640 [==============================] - 16s 25ms/step - loss: 203.9543 - "
               "accuracy: 0.9550 - val_loss: 206.4697 - val_accuracy: 0.9554\n"
               "Model training finished.\n"
               "Evaluating model performance...\n" + _GRN_WARNING +
               "377/377 [==============================] - 4s 11ms/step - loss: 204.5099 - "
               "accuracy: 0.9547\n"
               "Test accuracy: 95.47%\n")]),
            ("markdown", "You should achieve more than 95% accuracy on the test set.\n", [])]),
    # codecaution/EvoMoE kdd_scripts/iwslt_de_en.sh (fairseq-generate's last line, kept in a
    # log): "BLEU4 = 34.78," then the n-gram precisions joined by slashes and (BP=..., ...)
    Printed(
        "codecaution/EvoMoE:kdd_scripts/iwslt_de_en.sh", "generate-test.txt",
        [claim("BL", "bleu", 34.7812, aliases=("BLEU4",)),
         claim("BP", "brevity_penalty", 0.96312, aliases=("BP",))],
        [("BL", None, 2, "34.78", "BLEU4 = 34.78", "BLEU4 = 34.98"),
         ("BP", None, 2, "0.963", "BP=0.963", "BP=0.965")],
        text=(
            "| Translated 6750 sentences (137891 tokens) in 31.2s (4419.82 tokens/s)\n"
            "| Generate test with beam=5: BLEU4 = 34.78, 68.7/43.1/28.9/19.9 (BP=0.963, "
            "ratio=0.964, syslen=126387, reflen=131161)\n")),
    # evanhuang117/cse5525-research-project results/baseline.md: the HF Trainer's
    # log_metrics() blocks, "key = value" padded into columns
    Printed(
        "evanhuang117/cse5525-research-project:results/baseline.md", "train.log.txt",
        [claim("EF", "eval_f1", 0.94663),
         claim("EA", "eval_accuracy", 0.99182),
         claim("PF", "predict_f1", 0.91371)],
        [("EF", None, 11, "0.9466", "=     0.9466", "=     0.9486"),
         ("EA", None, 10, "0.9918", "=     0.9918", "=     0.9928"),
         ("PF", None, 19, "0.9137", "=     0.9137", "=     0.9157")],
        text=(
            "***** train metrics *****\n"
            "  epoch                    =       30.0\n"
            "  train_loss               =     0.1143\n"
            "  train_runtime            = 1:08:59.29\n"
            "  train_samples_per_second =    101.764\n"
            "  train_steps_per_second   =      6.363\n"
            "\n"
            "***** eval metrics *****\n"
            "  epoch                   =       30.0\n"
            "  eval_accuracy           =     0.9918\n"
            "  eval_f1                 =     0.9466\n"
            "  eval_loss               =     0.0429\n"
            "  eval_precision          =     0.9383\n"
            "  eval_recall             =     0.9551\n"
            "  eval_runtime            = 0:00:12.24\n"
            "\n"
            "***** predict metrics *****\n"
            "  predict_accuracy           =     0.9826\n"
            "  predict_f1                 =     0.9137\n"
            "  predict_loss               =     0.1637\n")),
    # a README's "Test results" (index file id 19144231321; repository not resolved): the HF
    # Trainer's evaluate() dict printed one key a line in a fenced block, full floats, and a
    # sentence above it giving the accuracy in percent
    Printed(
        "HF Trainer eval dict README (index file id 19144231321; repository not resolved)",
        "README.md",
        [claim("EA", "eval_accuracy", 0.9523809523809523, aliases=("accuracy on the test set",)),
         claim("EF", "eval_f1", 0.9530864197530863),
         claim("EL", "eval_loss", 0.14287129044532776)],
        [("EA", None, 9, "0.9523809523809523", "0.9523809523809523", "0.9523809623809523"),
         ("EF", None, 10, "0.9530864197530863", "0.9530864197530863", "0.9530864297530863"),
         ("EL", None, 8, "0.14287129044532776", "0.14287129044532776", "0.14287139044532776"),
         ("EA", None, 1, "95.24%", "95.24%", "95.44%")],
        text=(
            "3. Achieved 95.24% accuracy on the test set\n"
            "\n"
            "Test results:\n"
            "\n"
            "```\n"
            "Evaluating model on test set...\n"
            "Evaluation results: {\n"
            "    'eval_loss': 0.14287129044532776,\n"
            "    'eval_accuracy': 0.9523809523809523,\n"
            "    'eval_f1': 0.9530864197530863,\n"
            "    'eval_runtime': 0.8195,\n"
            "    'eval_samples_per_second': 25.624,\n"
            "    'eval_steps_per_second': 7.321,\n"
            "    'epoch': 4.0\n"
            "}\n"
            "```\n")),
    # a project README quoting a notebook's comparison frame (index file id 22250847276;
    # repository not resolved): a pandas DataFrame's text/plain, integer index, "F1 Score" a
    # column name with a space in it
    Printed(
        "model comparison DataFrame (index file id 22250847276; repository not resolved)",
        "compare.ipynb",
        [claim("RA", "accuracy", 0.902798, aliases=("Random Forest",)),
         claim("RF", "f1", 0.511395, aliases=("Random Forest", "F1 Score")),
         claim("LA", "auc", 0.870001, aliases=("Logistic Regression",), run="lr")],
        [("RA", "cell 1, output 1", 6, "0.902798", "0.902798", "0.902898"),
         ("RF", "cell 1, output 1", 6, "0.511395", "0.511395", "0.511495"),
         ("LA", "cell 1, output 1", 2, "0.870001", "0.870001", "0.870101")],
        cells=[("code", "results_df",
                [("execute_result",
                  "                 Model  Accuracy       AUC  Precision    Recall  F1 Score"
                  "       MCC\n"
                  "0  Logistic Regression  0.887869  0.870001   0.596977  0.217232  0.318548"
                  "  0.313371\n"
                  "1        Decision Tree  0.872830  0.700721   0.473010  0.473877  0.473443"
                  "  0.401126\n"
                  "2                  KNN  0.891187  0.826034   0.585875  0.334555  0.425904"
                  "  0.388523\n"
                  "3          Naive Bayes  0.824837  0.809394   0.342693  0.492209  0.404063"
                  "  0.312110\n"
                  "4        Random Forest  0.902798  0.923533   0.649718  0.421632  0.511395"
                  "  0.473413")])]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.source for c in CASES])
def test_printed_results(case: Printed) -> None:
    report = _run(case)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    matched = {(m.claims, m.where, m.line, m.shown) for m in report.matches}
    everything = "\n".join(case.texts())
    for cid, where, line, number, shown, moved in case.bound:
        assert ((cid,), where, line, number) in matched, (cid, where, line, number, matched)
        assert everything.count(shown) == 1, shown  # the bound number, and only it, moves
        assert shown.count(number) == 1, shown
        assert moved != shown, shown
        got = _run(case, shown, moved)
        assert [(f.type, f.claims, f.where, f.line) for f in got.findings] == [
            ("drift", (cid,), where, line)], "\n".join(f.render() for f in got.findings)
