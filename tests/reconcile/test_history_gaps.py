"""Gaps a review found in reading a notebook's training history, printed lines and tables.

Each fixture follows the shape of a real notebook or printout (named above it) with names and
numbers of our own; what the code gave before the fix is in the comment over each assertion.

1. **A fit is a code cell** (`progress.judge_history`). A PyTorch loop whose tqdm bar on stderr
   cuts each epoch's stdout into an output of its own was one fit per epoch: each epoch's line
   was its fit's last record, so a claim that only an earlier fit's earlier epoch showed was
   called fine. A claim now is satisfied by a fit's last record (its cell's last under the
   key) or by any record of the last fit judging it (its best epoch); nothing else.
2. **A settings table is no history** (`progress.epoch_rows`): a singular ``Step`` or
   ``Epoch`` column of a table of settings or of runs (sampling steps, pre-training epochs, a
   config row) made its rows a training's epochs.
3. **A value under a label ending in an epoch** (`log_units._value_under`): ``Test accuracy
   after epoch 10`` over ``is 0.9317`` was no label (it ended in a number) and the value was
   nobody's: a moved value was no finding at all.
4. **A classification report printed as a dict** (`dict_reports`): seqeval's and sklearn's
   ``classification_report(..., output_dict=True)`` is read as the table it is, each value
   under its row's and its key's names; read as one sentence, a micro-avg F1 claim was
   satisfied by the macro avg's f1-score.
5. **A sentence printed over three lines** (`notebooks._wrapped`): two of its three lines
   ending in a number made it a log (the 60% rule), so its anchor and its value, on two lines,
   named nothing together: a moved value was no finding.
6. **"The last of N records" is true** (`progress.series_note`): when a later record naming
   the claim is another claim's, the note says the drift is on the last of those left.
"""

from __future__ import annotations

import ast
import pprint
from pathlib import Path
from typing import Any

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings
from tests.reconcile.test_headed_tables_and_splits import judge as judge_text
from tests.reconcile.test_notebook_history import _CARD, _html_table, _ner_training
from tests.reconcile.test_notebooks_review import found, judge, matched
from tests.reconcile.test_progress_series import _cells, _code, _pytorch, _result, _stream

Found = list[tuple[str, tuple[str, ...], str | None, int, int, str | None]]

# === 1. a fit is a code cell ======================================================================

# The PyTorch shape of test_progress_series (GitHub index file id 12404922553): a tqdm bar per
# epoch on stderr, "Epoch [e/n], Loss: ..." and "Validation Accuracy: ...%" on stdout, so each
# epoch is an output of its own; 4 epochs in the first cell (61.63, 70.93, 76.74, 79.07), 3 of
# fine-tuning in the second (80.23, 81.40, 82.56).
_VA = "Validation Accuracy"


def test_an_earlier_fits_earlier_epoch_satisfies_nothing(tmp_path: Path) -> None:
    report = judge(tmp_path, _pytorch(), [claim("VA", "val_accuracy", 0.7093, aliases=(_VA,))])
    # before: no finding; the first fit's second epoch, an output of its own, was "its fit's
    # last record"
    assert found(report) == [("drift", ("VA",), "cell 2, output 6", 2, 22, "82.56%")]


def test_a_fits_last_epoch_and_the_last_fits_best_still_satisfy(tmp_path: Path) -> None:
    """Pinned: the first fit's last epoch (a paper reporting the frozen model) and any epoch
    of the last fit (its best, kept by early stopping) are the claim's record."""
    for value, where in ((0.7907, "cell 1, output 8"), (0.8140, "cell 2, output 4"),
                         (0.8256, "cell 2, output 6")):
        report = judge(tmp_path, _pytorch(), [claim("VA", "val_accuracy", value,
                                                    aliases=(_VA,))])
        assert found(report) == []
        assert {m[1] for m in matched(report)} == {where}


def test_a_value_no_fit_shows_drifts_once(tmp_path: Path) -> None:
    report = judge(tmp_path, _pytorch(), [claim("VA", "val_accuracy", 0.8150, aliases=(_VA,))])
    assert found(report) == [("drift", ("VA",), "cell 2, output 6", 2, 22, "82.56%")]



# === 2. a settings table is no history ============================================================

# The Trainer's epoch table of huggingface/notebooks examples/token_classification.ipynb (as
# test_notebook_history builds it), then a cell showing the run's summary as a pandas Styler
# (`summary.style`: text/html, its text/plain "<pandas.io.formats.style.Styler at 0x...>"): its
# "step" the steps trained, beside the warmup and the learning rate, its f1 the final
# evaluation's.
def _styled(html: str) -> dict[str, Any]:
    return {"output_type": "execute_result", "execution_count": 2, "metadata": {},
            "data": {"text/html": html.splitlines(keepends=True),
                     "text/plain": ["<pandas.io.formats.style.Styler at 0x7f2a5c3e1d90>"]}}


def _trained_then_summary(f1: str) -> str:
    summary = _html_table(("step", "warmup_steps", "learning_rate", "f1"),
                          [("2634", "500", "2e-05", f1)])
    return _cells(_ner_training(), _code(_styled(summary), source="summary.style"))


def test_a_summary_with_a_step_and_settings_is_no_history(tmp_path: Path) -> None:
    """The summary's f1 differs from the claim, which the table's last epoch shows: a summary
    is judged alone, as an evaluation after the training is."""
    report = judge(tmp_path, _trained_then_summary("0.9381"), [claim("F", "f1", 0.931842)])
    # before: no finding; read as a table of epochs, the summary was training history, which
    # the first table's last row satisfied
    assert found(report) == [("drift", ("F",), "cell 2, output 1", 15, 11, "0.9381")]
    assert found(judge(tmp_path, _trained_then_summary("0.9318"),
                       [claim("F", "f1", 0.931842)])) == []


def test_a_table_of_runs_with_a_step_column_stays_ambiguous() -> None:
    """"Step" here is how long each run trained, beside its learning rate and warmup: a row
    per run, not a training's evaluations."""
    text = ("| Step | LR | Warmup | Top-1 |\n|---:|---:|---:|---:|\n| 1000 | 0.1 | 100 | 76.2 |\n"
            "| 2000 | 0.2 | 200 | 77.1 |\n| 4000 | 0.4 | 500 | 77.9 |\n")
    report = judge_text(text, [claim("T", "top1", 76.9, aliases=("Top-1",))])
    # before: ("drift", ("T",), 5, "77.9"), "the last of 3 records"
    assert findings(report) == [("ambiguous", ("T",), 3, "76.2")]


def test_a_setting_value_table_was_never_a_history() -> None:
    """Pinned (no gap): a "Setting | Value" table's rows are labelled ("Step", "Epoch"), so it
    never read as epochs: the claim is its own row's."""
    text = ("| Setting | Value |\n|---|---:|\n| Step | 5000 |\n| Epoch | 3 |\n"
            "| Top-1 | 76.2 |\n")
    report = judge_text(text, [claim("T", "top1", 76.9, aliases=("Top-1",))])
    assert findings(report) == [("drift", ("T",), 5, "76.2")]

# === 3. a value under a label ending in an epoch ==================================================

# A loop printing "Accuracy after epoch {} is {}" (GitHub index file id 47175828625, repository
# not resolved) as two print() calls: the label with the epoch, then the value.
def _after_epoch(value: str) -> str:
    return _cells(_code(_stream(f"Restored the best checkpoint\nTest accuracy after epoch 10\n"
                                f"is {value}\n"),
                        source="print('Test accuracy after epoch', best_epoch)\n"
                               "print('is', acc)"))


_TEST_ACC = claim("TA", "test_accuracy", 0.9317, aliases=("Test accuracy",))


def test_a_value_under_a_label_ending_in_an_epoch_is_the_labels(tmp_path: Path) -> None:
    report = judge(tmp_path, _after_epoch("0.9317"), [_TEST_ACC])
    # before: no match (the label ended in a number, so it named no line under it)
    assert found(report) == []
    assert matched(report) == {(("TA",), "cell 1, output 1", 3, "0.9317")}


def test_a_moved_value_under_an_epoch_label_drifts_not_the_epoch(tmp_path: Path) -> None:
    report = judge(tmp_path, _after_epoch("0.9417"), [_TEST_ACC])
    # before: no finding
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 3, 4, "0.9417")]


def test_a_label_holding_its_own_value_heads_nothing(tmp_path: Path) -> None:
    """A line naming the claim with a value of its own and an epoch after it ("best at epoch
    3") keeps its value: the next line's number is not the claim's."""
    text = _cells(_code(_stream("Test accuracy 0.9317 (best at epoch 3)\nsaved 12 files\n")))
    report = judge(tmp_path, text, [_TEST_ACC])
    assert found(report) == []
    assert matched(report) == {(("TA",), "cell 1, output 1", 1, "0.9317")}


# === 4. a classification report printed as a dict =================================================

# seqeval's classification_report(..., output_dict=True) (chakki-works/seqeval
# seqeval/metrics/v1.py: a row per entity type, then 'micro avg', 'macro avg', 'weighted avg',
# each {'precision', 'recall', 'f1-score', 'support'}), printed on one line as a docstring keeps
# it (GitHub index file id 15192289812), by pprint a key a line, sorted (index file id
# 26328429508), or with numpy 2's reprs (index file id 11289749723); entity types and numbers
# of our own.
def _ner_report(micro_f1: str = "0.9069", wrap: str = "{}") -> str:
    rows = [("LOC", "0.9102", "0.9233", "0.9167", "1668"),
            ("MISC", "0.7810", "0.8034", "0.7920", "702"),
            ("micro avg", "0.8990", "0.9150", micro_f1, "5648"),
            ("macro avg", "0.8814", "0.8958", "0.8885", "5648")]
    return "{" + ", ".join(
        f"'{label}': {{'precision': {wrap.format(p)}, 'recall': {wrap.format(r)}, "
        f"'f1-score': {wrap.format(f)}, 'support': {wrap.format(s)}}}"
        for label, p, r, f, s in rows) + "}"


def _pprinted(micro_f1: str = "0.9069") -> str:
    return pprint.pformat(ast.literal_eval(_ner_report(micro_f1)))


def _micro(value: float) -> list[Claim]:
    return [claim("MF", "f1", value, aliases=("micro avg",))]


def _judge_report(tmp_path: Path, text: str, value: float) -> Found:
    return found(judge(tmp_path, _cells(_code(_result(text), source="classification_report("
                                              "y_true, y_pred, output_dict=True)")),
                       _micro(value)))


def test_a_micro_avg_claim_is_not_satisfied_by_the_macro_avg(tmp_path: Path) -> None:
    # before: no finding; 0.8885 is the macro avg's f1-score, which named the claim as much
    assert _judge_report(tmp_path, _ner_report(), 0.8885) == [
        ("drift", ("MF",), "cell 1, output 1", 1, 237, "0.9069")]


def test_a_moved_micro_avg_f1_drifts_on_its_own_cell(tmp_path: Path) -> None:
    # before: ("ambiguous", ("MF",), "cell 1, output 1", 1, 23, "0.9102") among every number
    assert _judge_report(tmp_path, _ner_report("0.9169"), 0.9069) == [
        ("drift", ("MF",), "cell 1, output 1", 1, 237, "0.9169")]
    assert _judge_report(tmp_path, _ner_report(), 0.9069) == []


def test_a_pprinted_and_a_numpy_report_are_tables_too(tmp_path: Path) -> None:
    # before: ambiguous among every f1-score, and satisfied by the macro avg's
    pp = _pprinted("0.9169")
    line = pp[:pp.index("0.9169")].count("\n") + 1
    assert [f[:4] for f in _judge_report(tmp_path, pp, 0.9069)] == [
        ("drift", ("MF",), "cell 1, output 1", line)]
    assert [f[:4] for f in _judge_report(tmp_path, _pprinted(), 0.8885)] == [
        ("drift", ("MF",), "cell 1, output 1", line)]
    numpy = _ner_report("0.9169", wrap="np.float64({})")
    got = _judge_report(tmp_path, numpy, 0.9069)
    assert [(f[0], f[5]) for f in got] == [("drift", "0.9169")]


def test_support_counts_are_never_values(tmp_path: Path) -> None:
    """A claim whose digits are the support's (5648) drifts on the f1-score, never on the
    count."""
    assert _judge_report(tmp_path, _ner_report(), 0.5648) == [
        ("drift", ("MF",), "cell 1, output 1", 1, 237, "0.9069")]


# sklearn's classification_report(..., output_dict=True): integer class labels, the scalar
# 'accuracy' between the classes and the averages (the shape of index file id 36271872028).
_SKLEARN = ("{'0': {'precision': 0.53, 'recall': 0.77, 'f1-score': 0.63, 'support': 57.0}, "
            "'1': {'precision': 0.71, 'recall': 0.39, 'f1-score': 0.5, 'support': 62.0}, "
            "'accuracy': 0.57, 'macro avg': {'precision': 0.62, 'recall': 0.58, "
            "'f1-score': 0.565, 'support': 119.0}, 'weighted avg': {'precision': 0.63, "
            "'recall': 0.57, 'f1-score': 0.56, 'support': 119.0}}")


def test_sklearns_accuracy_entry_and_weighted_avg(tmp_path: Path) -> None:
    text = _cells(_code(_result(_SKLEARN)))
    assert found(judge(tmp_path, text, [claim("A", "accuracy", 0.57)])) == []
    moved = found(judge(tmp_path, text, [claim("A", "accuracy", 0.59)]))
    assert [(f[0], f[5]) for f in moved] == [("drift", "0.57")]
    # before: satisfied by class 0's and class 1's f1-score 0.5 and 0.63 (read as a sentence)
    weighted = found(judge(tmp_path, text, [claim("W", "f1", 0.50, aliases=("weighted avg",))]))
    assert [(f[0], f[5]) for f in weighted] == [("drift", "0.56")]


# A README's "Metrics" section pasting the Trainer's evaluation dict with seqeval's report
# nested under 'eval_report' (GitHub index file id 45756118174, repository not resolved).
_README = ("## Metrics\nResults: {'eval_loss': 0.0136,\n 'eval_f1': 0.9912,\n  'eval_report': "
           "{'PRODUCT': {'precision': 0.9903, 'recall': 0.9921, 'f1-score': 0.9912, "
           "'support': 8120}, \n  'micro avg': {'precision': 0.9903, 'recall': 0.9921, "
           "'f1-score': 0.9912, 'support': 8120}, \n  'macro avg': {'precision': 0.9890, "
           "'recall': 0.9921, 'f1-score': 0.9905, 'support': 8120}}, \n  'eval_runtime': "
           "61.2, 'epoch': 9.0}\n")


def test_a_report_nested_in_the_trainers_metrics_in_a_readme() -> None:
    report = judge_text(_README, [claim("M", "f1", 0.9912, aliases=("macro avg",))])
    # before: no finding; the product's and the micro avg's f1-score matched the claim
    assert findings(report) == [("drift", ("M",), 6, "0.9905")]
    assert findings(judge_text(_README, [claim("M", "f1", 0.9905,
                                               aliases=("macro avg",))])) == []


# === 5. a sentence printed over three lines =======================================================

# csce585-mlsystems/CSCE585ProjectROI results.py prints one sentence over several print()
# calls (the shape test_notebook_history_review follows for two lines); here three, two of
# them ending in a number (a count of epochs, the baseline's accuracy).
def _three_lines(value: str) -> str:
    return _cells(_code(_stream(f"The fine-tuned model reaches {value} test\n"
                                "accuracy on the held-out split after 30 epochs\n"
                                "of training, up from 88.03%\n")))


_HELD_OUT = claim("TA", "test_accuracy", 0.9317, aliases=("test accuracy",))


def test_a_sentence_over_three_lines_is_one_sentence(tmp_path: Path) -> None:
    report = judge(tmp_path, _three_lines("93.17%"), [_HELD_OUT])
    # before: no match (a log by the share of lines ending in a number: "test" and "accuracy"
    # apart, nothing named the claim)
    assert found(report) == []
    assert matched(report) == {(("TA",), "cell 1, output 1", 1, "93.17%")}


def test_a_moved_value_in_a_sentence_over_three_lines_drifts(tmp_path: Path) -> None:
    report = judge(tmp_path, _three_lines("93.57%"), [_HELD_OUT])
    # before: no finding
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 1, 30, "93.57%")]


def test_a_log_holding_a_wrapped_message_is_still_a_log(tmp_path: Path) -> None:
    """A message wrapped over two lines above a loop's per-epoch lines: the epochs are still
    records, a series whose last one a moved claim drifts on."""
    epochs = "".join(f"Epoch {e}/5 - train loss: 0.4{e} - val acc: 0.8{e}\n" for e in range(1, 6))
    text = _cells(_code(_stream("Loading the pretrained weights from the\nlocal model cache "
                                "directory\n" + epochs)))
    report = judge(tmp_path, text, [claim("V", "val_acc", 0.86, aliases=("val acc",))])
    assert found(report) == [("drift", ("V",), "cell 1, output 1", 7, 41, "0.85")]


# === 6. "the last of N records" is true ===========================================================

def test_the_note_says_when_a_later_record_is_another_claims() -> None:
    """The model card's last evaluation is the other run's claim (matched there): a moved
    claim drifts on the row before, and the note does not call that row the last."""
    claims = [claim("A", "accuracy", 0.9250), claim("B", "accuracy", 0.9243, run="r2")]
    report = judge_text(_CARD, claims)
    assert findings(report) == [("drift", ("A",), 7, "0.9131")]
    # before: "; the last of 3 records naming it, none of which matches" (4 name it)
    assert report.findings[0].message.endswith(
        "; the last of 3 records naming it that no other claim matches (the one after it is "
        "another claim's), none of which matches it")


def test_the_note_of_a_last_record_is_unchanged() -> None:
    report = judge_text(_CARD, [claim("A", "accuracy", 0.9250)])
    assert report.findings[0].message.endswith(
        "; the last of 4 records naming it, none of which matches")


# -- a learning-rate column is history, not a setting (review of the setting-column rule) ------

# Keras' `pd.DataFrame(history.history)` with ReduceLROnPlateau's "lr" beside each epoch
# (keras-team/keras-io examples/vision/*.py plot the same history dict): two fits in two cells
_KERAS_ROWS = [("1", "0.61", "0.8012", "0.55", "0.8233", "0.001"),
               ("2", "0.42", "0.8711", "0.41", "0.8802", "0.001"),
               ("3", "0.33", "0.9010", "0.37", "0.9105", "0.0005"),
               ("4", "0.30", "0.9122", "0.36", "0.9117", "0.0005")]


def _keras_history(lr: str) -> str:
    from tests.reconcile.test_notebook_history import _display

    header = ("epoch", "loss", "accuracy", "val_loss", "val_accuracy", lr)
    return _cells(_code(_display(_html_table(header, _KERAS_ROWS[:2])), source="h1"),
                  _code(_display(_html_table(header, _KERAS_ROWS)), source="h2"))


def test_a_history_logging_its_learning_rate_is_still_a_training_history(
        tmp_path: Path) -> None:
    """An epoch table with a learning-rate column was taken for a table of runs: the last fit's
    last epoch, the right number, was flagged ambiguous, and a moved claim was ambiguous twice
    instead of drifting on the last fit's last row."""
    for lr in ("lr", "learning_rate"):
        right = judge(tmp_path, _keras_history(lr), [claim("V", "val_accuracy", 0.9117)])
        assert found(right) == [], lr
        moved = judge(tmp_path, _keras_history(lr), [claim("V", "val_accuracy", 0.95)])
        assert [(f[0], f[-1]) for f in found(moved)] == [("drift", "0.9117")], lr


def test_a_markdown_epoch_table_with_an_lr_column_drifts_on_its_last_row() -> None:
    table = ("| Epoch | Train loss | Val acc | LR |\n|---|---|---|---|\n"
             "| 1 | 0.61 | 80.12 | 0.001 |\n| 2 | 0.42 | 87.11 | 0.001 |\n"
             "| 3 | 0.33 | 90.10 | 0.0005 |\n")
    got = findings(judge_text(table, [claim("V", "val_acc", 0.85, aliases=("Val acc",))]))
    assert [(f[0], f[-1]) for f in got] == [("drift", "90.10")]


def test_a_bare_quantity_column_beside_its_held_out_column_is_the_training_split() -> None:
    """"Acc" beside "Val Acc" (a README's per-epoch table, Keras' history frame) holds the
    training accuracy: a val_acc claim was ambiguous over both columns, right or wrong."""
    table = ("| Epoch | Loss | Acc | Val Acc |\n|---|---|---|---|\n"
             "| 1 | 0.61 | 80.12 | 82.33 |\n| 2 | 0.42 | 87.11 | 88.02 |\n"
             "| 3 | 0.33 | 90.10 | 91.17 |\n")
    right = judge_text(table, [claim("V", "val_acc", 0.9117, aliases=("Val Acc",))])
    assert findings(right) == []
    moved = judge_text(table, [claim("V", "val_acc", 0.95, aliases=("Val Acc",))])
    assert [(f[0], f[-1]) for f in findings(moved)] == [("drift", "91.17")]
