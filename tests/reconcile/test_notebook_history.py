"""A notebook's printed output a line per record, and its tables of epochs as a training's history.

Each fixture follows the shape of a real notebook (named above it) with names and numbers of
our own; the findings it gave before this change are in the comment over each assertion.

1. **Printed output is read a line per record** (`notebooks`): a stream, or a ``text/plain``
   result, of two or more lines. Read as prose, an evaluation cell printing a checkpoint's
   name, a dataset message, then the test loss and the test accuracy (no sentence
   punctuation, fewer than 60% of the lines ending in a number) was one sentence: the loss was
   a candidate of the accuracy's claim (ambiguous, or a false match). Markdown cells and
   single lines stay sentences.
2. **A table of epochs is a training's history** (`progress.epoch_rows`, `progress.last_row`):
   the Hugging Face Trainer's HTML table, fastai's ``fit_one_cycle`` tables, a model card's
   "Training results". A claim one row's cell matches is satisfied; one none matches drifts on
   the last epoch's row (before: ambiguous among the rows). In a notebook the table is a
   progress output (`progress.judge_history`): two fits' tables are one history, and an
   evaluation printed after the training is the claim's record. A table whose rows are not
   epochs (a row per model, an ``Epochs`` setting column) is judged as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.doc_sources import read_documents
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.html_tables import html_table
from labledger.reconcile.progress import epoch_rows, epoch_table, last_row
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, line_of
from tests.reconcile.test_headed_tables_and_splits import judge as judge_text
from tests.reconcile.test_notebooks_review import found, judge, matched
from tests.reconcile.test_progress_series import _cells, _code, _markdown, _result, _stream


def _html_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"      <th>{c}</th>\n" for c in header)
    body = "".join("    <tr>\n" + "".join(f"      <td>{v}</td>\n" for v in row) + "    </tr>\n"
                   for row in rows)
    return ('<table border="1" class="dataframe">\n  <thead>\n'
            '    <tr style="text-align: left;">\n' + head + "    </tr>\n  </thead>\n"
            "  <tbody>\n" + body + "  </tbody>\n</table><p>")


def _display(html: str) -> dict[str, Any]:
    """A display_data output whose text/plain only names the object (IPython's HTML)."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": html.splitlines(keepends=True),
                     "text/plain": ["<IPython.core.display.HTML object>"]}}


def _findings(report: Any) -> list[tuple[str, tuple[str, ...], str | None, str | None]]:
    return [(f.type, f.claims, f.where, f.shown) for f in report.findings]


# === 1. printed output, a line per record =========================================================

# A notebook cell evaluating a saved model, its first lines as jianqiaomo/ECE7123MiniProject1
# test_model.py prints them (`print(model.load_state_dict(torch.load(model_path, ...)))` shows
# "<All keys matched successfully>", torchvision's CIFAR10 says "Files already downloaded and
# verified"), then `print("Test loss", loss)` and `print("Test accuracy", acc)` (print's
# arguments joined by a space, no colon). Two of four lines end in a number: no log by the
# 60% bar, and no sentence punctuation, so one sentence.
def _evaluation(accuracy: str = "0.7152", loss: str = "0.8214") -> str:
    return _cells(_code(_stream(
        "<All keys matched successfully>\n"
        "Files already downloaded and verified\n"
        f"Test loss {loss}\n"
        f"Test accuracy {accuracy}\n"),
        source="print(model.load_state_dict(torch.load(model_path)))\n"
               "loss, acc = evaluate(model, test_loader)\n"
               "print('Test loss', loss)\nprint('Test accuracy', acc)"))


_TEST_ACC = claim("TA", "test_accuracy", 0.7152, aliases=("Test accuracy",))
_TEST_LOSS = claim("TL", "test_loss", 0.8214, aliases=("Test loss",))


def test_an_evaluation_cells_lines_are_each_a_record(tmp_path: Path) -> None:
    report = judge(tmp_path, _evaluation(), [_TEST_ACC, _TEST_LOSS])
    assert found(report) == []
    assert matched(report) == {(("TL",), "cell 1, output 1", 3, "0.8214"),
                               (("TA",), "cell 1, output 1", 4, "0.7152")}


def test_a_moved_test_accuracy_drifts_on_its_own_line(tmp_path: Path) -> None:
    report = judge(tmp_path, _evaluation(accuracy="0.7352"), [_TEST_ACC])
    # before: ("ambiguous", ("TA",), "cell 1, output 1", 3, 11, "0.8214"), its candidates the
    # loss and the accuracy
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 4, 15, "0.7352")]
    assert report.findings[0].candidates == ()


def test_the_loss_is_no_match_of_an_accuracy_claim(tmp_path: Path) -> None:
    """An accuracy claim whose value the printed loss happens to show: the loss is on a line
    of its own, keyed 'Test loss', no accuracy's record."""
    report = judge(tmp_path, _evaluation(), [claim("TA", "test_accuracy", 0.8214,
                                                   aliases=("Test accuracy",))])
    # before: no finding; the loss's 0.8214 matched the accuracy claim (line 3)
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 4, 15, "0.7152")]
    assert matched(report) == set()


# The same evaluation as reported with this change (`print(f"Loading checkpoint from {path}")`,
# `print("Evaluating the model")`, then the test metrics as above), the cell returning the
# summary as a pandas Series (`pd.Series(summary)`: a key a line, the values right-aligned,
# "dtype: object" under them, the repr pandas-dev/pandas doc/source/user_guide/dsintro.rst
# shows): a text/plain result of several lines, two of five ending in a number.
def _checkpoint_eval(acc: str = "0.9133") -> str:
    return _cells(_code(
        _stream("Loading checkpoint from ./ckpt/best.pt\nEvaluating the model\n"
                f"Test loss 0.6871\nTest accuracy {acc}\n"),
        _result("checkpoint    ./ckpt/best.pt\nsplit                   test\n"
                f"loss                  0.6871\naccuracy              {acc}\ndtype: object"),
        source="model = load(path)\nsummary = evaluate(model, test_loader)\n"
               "pd.Series(summary)"))


def test_a_stream_and_a_result_of_several_lines_are_read_a_line_per_record(
        tmp_path: Path) -> None:
    claims = [claim("A", "accuracy", 0.9213, run="test")]
    report = judge(tmp_path, _checkpoint_eval(), claims)
    # before: ("ambiguous", ("A",), "cell 1, output 1", 3, 11, "0.6871") and ("ambiguous",
    # ("A",), "cell 1, output 2", 3, 23, "0.6871"): the loss a candidate of the accuracy claim
    assert found(report) == [("drift", ("A",), "cell 1, output 1", 4, 15, "0.9133"),
                             ("drift", ("A",), "cell 1, output 2", 4, 23, "0.9133")]
    assert found(judge(tmp_path, _checkpoint_eval(acc="0.9213"), claims)) == []


def test_markdown_cells_and_single_lines_stay_sentences(tmp_path: Path) -> None:
    """A markdown cell's hard-wrapped paragraph is prose: its second line's number is the
    sentence's, named by the first line's words. A one-line print keeps its sentences."""
    text = _cells(
        _markdown("After fine-tuning, the test accuracy of the model\nreaches 73.52% on CIFAR-10."),
        _code(_stream("Done. Test accuracy 73.52 after 30 epochs.\n")))
    report = judge(tmp_path, text, [_TEST_ACC])
    assert found(report) == [("drift", ("TA",), "cell 1", 2, 9, "73.52%"),
                             ("drift", ("TA",), "cell 2, output 1", 1, 21, "73.52")]


# === 2. tables of epochs ==========================================================================

# huggingface/notebooks examples/token_classification.ipynb (commit
# 087c092bdfd7436fcaec1c2bed1971f25a48b287): `trainer.train()` shows the Trainer's epoch table
# as text/html (Epoch, Training Loss, Validation Loss, Precision, Recall, F1, Accuracy; its
# text/plain names the object) and TrainOutput's repr; `trainer.evaluate()` returns the last
# epoch's metrics as a pretty-printed dict.
_NER_HEADER = ("Epoch", "Training Loss", "Validation Loss", "Precision", "Recall", "F1",
               "Accuracy")
_NER_EPOCHS = [("1", "0.241873", "0.071245", "0.901127", "0.918243", "0.909604", "0.978811"),
               ("2", "0.055318", "0.061022", "0.925531", "0.931870", "0.928690", "0.982207"),
               ("3", "0.031177", "0.060483", "0.927316", "0.936412", "0.931842", "0.983326")]


def _ner_training(epochs: list[tuple[str, ...]] = _NER_EPOCHS) -> dict[str, Any]:
    progress = ("\n    <div>\n      <progress value='2634' max='2634' style='width:300px; "
                "height:20px; vertical-align: middle;'></progress>\n      [2634/2634 01:41, "
                "Epoch 3/3]\n    </div>\n    ")
    return _code(_display(progress + _html_table(_NER_HEADER, epochs)),
                 _result("TrainOutput(global_step=2634, training_loss=0.0874212931872361)"),
                 source="trainer.train()")


def _ner_evaluation(f1: str = "0.9318424179875333") -> dict[str, Any]:
    return _code(_result(f"{{'eval_loss': 0.06048297882080078,\n 'eval_precision': "
                         f"0.9273160173160173,\n 'eval_recall': 0.9364124143285093,\n "
                         f"'eval_f1': {f1},\n 'eval_accuracy': 0.9833264405128452,\n"
                         " 'epoch': 3.0}"),
                 source="trainer.evaluate()")


_F1_ROW = 43  # the line of the last epoch's F1 cell in the table's output


def test_a_claim_any_epoch_matches_is_satisfied(tmp_path: Path) -> None:
    text = _cells(_ner_training())
    for value in (0.931842, 0.92869):  # the last epoch's, and the second's
        report = judge(tmp_path, text, [claim("F", "f1", value)])
        assert found(report) == []


def test_a_moved_claim_drifts_on_the_last_epochs_row(tmp_path: Path) -> None:
    report = judge(tmp_path, _cells(_ner_training()), [claim("F", "f1", 0.9348)])
    # before: ("ambiguous", ("F",), "cell 1, output 1", 25, 11, "0.909604") among the epochs
    assert found(report) == [("drift", ("F",), "cell 1, output 1", _F1_ROW, 11, "0.931842")]
    assert report.findings[0].message.endswith(
        "; the last of 3 records naming it, none of which matches")
    assert report.findings[0].candidates == ()


def test_the_evaluation_after_the_training_is_the_claims_record(tmp_path: Path) -> None:
    """evaluate() after the training judges the claim: the table's epochs are history."""
    text = _cells(_ner_training(), _ner_evaluation())
    claims = [claim("F", "eval_f1", 0.9318424179875333, aliases=("F1",))]
    assert found(judge(tmp_path, text, claims)) == []
    moved = [claim("F", "eval_f1", 0.9348, aliases=("F1",))]
    # before: ("ambiguous", ("F",), "cell 1, output 1", 25, 11, "0.909604") besides the
    # evaluation's drift
    assert _findings(judge(tmp_path, text, moved)) == [
        ("drift", ("F",), "cell 2, output 1", "0.9318424179875333")]


def test_two_columns_naming_a_claim_stay_ambiguous(tmp_path: Path) -> None:
    """A bare loss is the Training Loss or the Validation Loss column: two quantities, not one
    history; which one is claimed, the table does not say."""
    report = judge(tmp_path, _cells(_ner_training()), [claim("L", "loss", 0.0712)])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("L",))]


# The Trainer's table when no training loss was logged before an evaluation: "No log" in the
# Training Loss column (GitHub index file ids 17830073184 and 11796494150, text classification
# and image classification notebooks whose repositories the index does not name).
def test_a_no_log_cell_is_no_rows_label(tmp_path: Path) -> None:
    epochs = [("1", "No log", "0.594210", "0.831276"), ("2", "No log", "0.702113", "0.826601"),
              ("3", "0.071900", "0.731245", "0.840932")]
    text = _cells(_code(_display(_html_table(
        ("Epoch", "Training Loss", "Validation Loss", "Accuracy"), epochs))))
    report = judge(tmp_path, text, [claim("A", "accuracy", 0.8431)])
    # before: ("ambiguous", ("A",), "cell 1, output 1", 15, 11, "0.831276")
    assert found(report) == [("drift", ("A",), "cell 1, output 1", 27, 11, "0.840932")]


# fastai/fastbook 05_pet_breeds.ipynb ("Unfreezing and Transfer Learning"): `learn =
# cnn_learner(dls, resnet34, metrics=error_rate); learn.fit_one_cycle(3, 3e-3)`, then
# `learn.unfreeze()`, `learn.lr_find()`, and `learn.fit_one_cycle(6, lr_max=1e-5)`, each fit a
# table of epochs (epoch, train_loss, valid_loss, error_rate, time) in its own cell, as
# fastprogress shows it (fastai/fastbook 02_production.ipynb's `learn.fine_tune(4)` output).
_FASTAI_HEADER = ("epoch", "train_loss", "valid_loss", "error_rate", "time")
_FROZEN = [("0", "1.102934", "0.331207", "0.104871", "01:04"),
           ("1", "0.498311", "0.262144", "0.081190", "01:04"),
           ("2", "0.301276", "0.233519", "0.072395", "01:05")]
_UNFROZEN = [("0", "0.261032", "0.228817", "0.070365", "01:09"),
             ("1", "0.245118", "0.221390", "0.068336", "01:09"),
             ("2", "0.219470", "0.214426", "0.066982", "01:10"),
             ("3", "0.197310", "0.211201", "0.064953", "01:09"),
             ("4", "0.181924", "0.210488", "0.065629", "01:09"),
             ("5", "0.176655", "0.209932", "0.063599", "01:10")]


def _pet_breeds(unfrozen: list[tuple[str, ...]] = _UNFROZEN) -> str:
    return _cells(
        _code(_display(_html_table(_FASTAI_HEADER, _FROZEN)),
              source="learn = cnn_learner(dls, resnet34, metrics=error_rate)\n"
                     "learn.fit_one_cycle(3, 3e-3)"),
        _code(source="learn.unfreeze()"),
        _code(_result("SuggestedLRs(valley=1.0964782268274575e-05)"), source="learn.lr_find()"),
        _code(_display(_html_table(_FASTAI_HEADER, unfrozen)),
              source="learn.fit_one_cycle(6, lr_max=1e-5)"))


_ERROR = claim("E", "error_rate", 0.063599, aliases=("error rate",))


def test_the_unfrozen_fit_satisfies_the_claim_the_frozen_one_does_not_show(
        tmp_path: Path) -> None:
    report = judge(tmp_path, _pet_breeds(), [_ERROR])
    # before: ("ambiguous", ("E",), "cell 1, output 1", 16, 11, "0.104871"), the frozen fit's
    # rows
    assert found(report) == []
    assert matched(report) == {(("E",), "cell 4, output 1", 51, "0.063599")}


def test_a_moved_error_rate_drifts_once_on_the_last_fits_last_epoch(tmp_path: Path) -> None:
    moved = [*_UNFROZEN[:5], ("5", "0.176655", "0.209932", "0.061599", "01:10")]
    report = judge(tmp_path, _pet_breeds(moved), [_ERROR])
    # before: ("ambiguous", ("E",), "cell 1, output 1", 16, 11, "0.104871") and ("ambiguous",
    # ("E",), "cell 4, output 1", 16, 11, "0.070365")
    assert found(report) == [("drift", ("E",), "cell 4, output 1", 51, 11, "0.061599")]
    assert "the last of 6 records naming it" in report.findings[0].message


def test_each_fits_claim_is_satisfied_by_its_own_table(tmp_path: Path) -> None:
    claims = [claim("E0", "error_rate", 0.072395, run="frozen", aliases=("error rate",)),
              _ERROR]
    report = judge(tmp_path, _pet_breeds(), claims)
    # before: ("ambiguous", ("E",), "cell 1, output 1", 16, 11, "0.104871") among the frozen
    # fit's rows and ("ambiguous", ("E0",), "cell 4, output 1", 16, 11, "0.070365") among the
    # unfrozen fit's
    assert found(report) == []
    assert matched(report) == {(("E0",), "cell 1, output 1", 30, "0.072395"),
                               (("E",), "cell 4, output 1", 51, "0.063599")}


def test_an_earlier_epoch_of_another_fit_satisfies_no_claim(tmp_path: Path) -> None:
    """Across outputs only a table's last row is a fit's result: the frozen fit's second epoch
    showing the claimed value does not hide the last fit's drift (as a stream's earlier
    epoch of another fit does not)."""
    report = judge(tmp_path, _pet_breeds(), [claim("E", "error_rate", 0.08119)])
    assert found(report) == [("drift", ("E",), "cell 4, output 1", 51, 11, "0.063599")]


# === no history: rows of models, a setting column =================================================

def test_a_table_of_models_stays_ambiguous() -> None:
    """"Epoch" here is each model's schedule, a row per model: no training's history."""
    text = ("| Model | Epoch | Top-1 |\n|---|---:|---:|\n| ResNet-50 | 90 | 76.4 |\n"
            "| DeiT-S | 300 | 79.6 |\n| ConvNeXt-T | 300 | 82.0 |\n")
    report = judge_text(text, [claim("T", "top1", 81.2, aliases=("Top-1",))])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("T",))]


def test_an_epochs_setting_column_is_no_history() -> None:
    """"Epochs" (how long each row's run trained) is a setting: the rows are runs."""
    text = ("| Epochs | Top-1 |\n|---:|---:|\n| 100 | 78.2 |\n| 300 | 79.6 |\n"
            "| 1000 | 80.9 |\n")
    report = judge_text(text, [claim("T", "top1", 81.2, aliases=("Top-1",))])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("T",))]


# The Trainer's generated model card ("### Training results": Training Loss, Epoch, Step,
# Validation Loss, Accuracy; eval_strategy="steps"), as tests/reconcile/
# test_split_headers_sections.py has it, with four evaluations of our own.
_CARD = ("### Training results\n\n"
         "| Training Loss | Epoch | Step | Validation Loss | Accuracy |\n"
         "|:-------------:|:-----:|:----:|:---------------:|:--------:|\n"
         "| No log        | 0.5   | 250  | 0.3514          | 0.8812   |\n"
         "| 0.4127        | 1.0   | 500  | 0.3190          | 0.9012   |\n"
         "| 0.2981        | 1.5   | 750  | 0.2904          | 0.9131   |\n"
         "| 0.2236        | 2.0   | 1000 | 0.2815          | 0.9243   |\n")


def test_a_model_cards_training_results_are_a_history() -> None:
    report = judge_text(_CARD, [claim("A", "accuracy", 0.9250)])
    # before: ("ambiguous", ("A",), 5, "0.8812")
    assert findings(report) == [("drift", ("A",), line_of(_CARD, "0.9243"), "0.9243")]
    assert findings(judge_text(_CARD, [claim("A", "accuracy", 0.9131)])) == []


def test_the_tables_history_is_judged_alike_in_parallel_and_from_the_cache(
        tmp_path: Path) -> None:
    nb = tmp_path / "nb.ipynb"
    moved = [*_UNFROZEN[:5], ("5", "0.176655", "0.209932", "0.061599", "01:10")]
    nb.write_text(_pet_breeds(moved), encoding="utf-8")
    segments = read_documents([nb], tmp_path)
    want = [("drift", ("E",), "cell 4, output 1", 51, 11, "0.061599")]
    assert found(reconcile_segments(segments, [_ERROR], jobs=2)) == want
    for _ in range(2):  # judged, then read back from the cache
        report = reconcile_segments(segments, [_ERROR], jobs=1, cache=tmp_path / "cache")
        assert found(report) == want


# === the parts ====================================================================================

def test_the_rules_parts() -> None:
    assert last_row([(2, 4), (0, 4), (1, 4)]) == 0  # the last row's, wherever it is listed
    assert last_row([(0, 4), (1, 5)]) is None  # two columns: two quantities
    assert last_row([(0, 4)]) is None  # one cell: nothing to choose
    seg = Segment("nb.ipynb", "md", _html_table(_FASTAI_HEADER, _FROZEN), "cell 1, output 1")
    table = html_table(seg, 0)
    assert table is not None
    assert epoch_rows(table, "md")
    assert epoch_table(seg)
    for header, rows in [(("Model", "epoch", "accuracy"), [("a", "1", "0.5"), ("b", "2", "0.6")]),
                         (("epoch", "accuracy"), [("2", "0.5"), ("1", "0.6")]),  # not rising
                         (("epochs", "accuracy"), [("1", "0.5"), ("2", "0.6")])]:
        seg = Segment("nb.ipynb", "md", _html_table(header, rows), "cell 1, output 1")
        table = html_table(seg, 0)
        assert table is not None
        assert not epoch_rows(table, "md")
        assert not epoch_table(seg)
    marked = _html_table(_FASTAI_HEADER, _FROZEN).replace("<td>0.104871", "<td><!-- claim:E "
                                                                          "-->0.104871")
    assert not epoch_table(Segment("nb.ipynb", "md", marked, "cell 1, output 1"))
