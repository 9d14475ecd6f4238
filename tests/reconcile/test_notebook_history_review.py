"""Review of a notebook's output read a line per record and of a training's history
(`test_notebook_history`): drift those rules hid, and drift they made up.

1. **A value printed under its label** (`log_units._value_under`): ``print("Test accuracy
   over 5 seeds")`` then ``print(f"{mean:.2f} ± {std:.2f}")``. Read a line per record, the
   label's line held a number of its own (the count) and so headed nothing, and the value's
   line named no claim: a moved value was no finding at all (read as one sentence before, it
   drifted).
2. **A sentence printed over two lines** (`notebooks._wrapped`): an output whose line runs on
   into the next as words do stays prose; read a line per record, the claim's number lost its
   metric's name to the next line, and the baseline's number there drifted for a claim the
   first line's number matches.
3. **The best epoch of the last fit** (`progress._judged`): a claim one record of the last
   progress output judging it matches (the fit's best epoch, not its last) is satisfied there,
   and an earlier fit's records under that key are its past: its last epoch was reported as the
   claim's drift.
"""

from __future__ import annotations

from pathlib import Path

from tests.reconcile.test_documents import claim
from tests.reconcile.test_notebook_history import (
    _ERROR,
    _cells,
    _code,
    _pet_breeds,
    _stream,
)
from tests.reconcile.test_notebooks_review import found, judge, matched

_TEST_ACC = claim("TA", "test_accuracy", 91.46, aliases=("Test accuracy",))


# === 1. a value printed under its label ===========================================================

# 000Justin000/GMNN semisupervised/codes/process.py prints a run's mean and spread alone on a
# line ('{:7.3f} ± {:7.3f}'); a notebook cell prints what it is on the line before, with the
# number of seeds averaged.
def _seeds(value: str = "91.46 ± 0.21") -> str:
    return _cells(_code(_stream(f"Test accuracy over 5 seeds\n{value}\n"),
                        source="print(f'Test accuracy over {len(accs)} seeds')\n"
                               "print('{:.2f} ± {:.2f}'.format(np.mean(accs), np.std(accs)))"))


def test_a_value_printed_under_its_label_is_the_labels(tmp_path: Path) -> None:
    report = judge(tmp_path, _seeds(), [_TEST_ACC])
    assert found(report) == []
    assert matched(report) == {(("TA",), "cell 1, output 1", 2, "91.46")}


def test_a_moved_value_printed_under_its_label_drifts(tmp_path: Path) -> None:
    report = judge(tmp_path, _seeds("91.86 ± 0.21"), [_TEST_ACC])
    # before: no finding (the value's line named no claim, the label's count was no value)
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 2, 1, "91.86")]


def test_a_line_naming_its_own_quantity_is_no_value_of_the_line_above(tmp_path: Path) -> None:
    """The line under the label names a quantity of its own (the loss): its number is the
    loss's record, not the accuracy's value."""
    text = _cells(_code(_stream("Test accuracy over 5 seeds\nloss 0.3127\n")))
    report = judge(tmp_path, text, [_TEST_ACC])
    assert found(report) == []
    assert matched(report) == set()


# === 2. a sentence printed over two lines =========================================================

# csce585-mlsystems/CSCE585ProjectROI results.py prints one sentence in two print() calls, the
# first line ending in a word and the next going on with lowercase words; here a summary cell
# does so around its numbers.
def _summary(accuracy: str = "91.46%") -> str:
    return _cells(_code(_stream(f"The fine-tuned model reaches {accuracy} test\n"
                                "accuracy, up from 88.03% for the linear probe.\n")))


def test_a_sentence_printed_over_two_lines_stays_one(tmp_path: Path) -> None:
    report = judge(tmp_path, _summary(), [_TEST_ACC])
    # before: ("drift", ("TA",), "cell 1, output 1", 2, 19, "88.03%"): the linear probe's
    assert found(report) == []
    assert matched(report) == {(("TA",), "cell 1, output 1", 1, "91.46%")}
    moved = judge(tmp_path, _summary("91.86%"), [_TEST_ACC])
    assert [(f.type, f.claims) for f in moved.findings] == [("ambiguous", ("TA",))]


def test_a_series_of_words_is_still_a_record_a_line(tmp_path: Path) -> None:
    """A returned Series aligns each key and its value in columns: no sentence, though its
    lines end and begin in lowercase words."""
    text = _cells(_code(_stream("split                 test\nmodel           fine-tuned\n"
                                "accuracy             91.86\nloss                0.3127\n")))
    report = judge(tmp_path, text, [_TEST_ACC])
    assert found(report) == [("drift", ("TA",), "cell 1, output 1", 3, 22, "91.86")]


# === 3. the best epoch of the last fit ============================================================

def test_the_last_fits_best_epoch_leaves_no_drift_on_an_earlier_fit(tmp_path: Path) -> None:
    """The unfrozen fit's fourth epoch (not its last) shows the claimed error rate: satisfied
    there, as in that table alone; the frozen fit's last epoch is no drift of it."""
    claims = [claim("E", "error_rate", 0.064953, aliases=("error rate",))]
    report = judge(tmp_path, _pet_breeds(), claims)
    # before: ("drift", ("E",), "cell 1, output 1", 30, 11, "0.072395")
    assert found(report) == []
    assert matched(report) == {(("E",), "cell 4, output 1", 37, "0.064953")}


def test_an_earlier_fits_epoch_still_satisfies_no_later_drift(tmp_path: Path) -> None:
    """The other way round stays as it was: the frozen fit's second epoch is no result."""
    report = judge(tmp_path, _pet_breeds(), [claim("E", "error_rate", 0.08119)])
    assert found(report) == [("drift", ("E",), "cell 4, output 1", 51, 11, "0.063599")]
    assert found(judge(tmp_path, _pet_breeds(), [_ERROR])) == []


# keras-team/keras-io guides/ipynb/transfer_learning.ipynb: `model.fit(train_ds, epochs=...,
# validation_data=validation_ds)` with the base model frozen, then `base_model.trainable =
# True` and a second `model.fit` in a cell of its own, each printing "Epoch i/n" over the
# epoch's line; the fine-tuning fit here stops early and keeps its best weights
# (EarlyStopping(restore_best_weights=True)), so the claim is its third epoch's.
def _keras_epochs(values: list[tuple[str, str]]) -> str:
    lines = []
    for i, (train, val) in enumerate(values, 1):
        lines.append(f"Epoch {i}/{len(values)}\n")
        lines.append(f"291/291 [==============================] - 21s 71ms/step - loss: 0.2 - "
                     f"binary_accuracy: {train} - val_loss: 0.1 - val_binary_accuracy: {val}\n")
    return "".join(lines)


def test_the_fine_tunings_best_epoch_leaves_no_drift_on_the_frozen_fit(tmp_path: Path) -> None:
    frozen = _keras_epochs([("0.9021", "0.9604"), ("0.9312", "0.9673")])
    tuned = _keras_epochs([("0.9455", "0.9712"), ("0.9523", "0.9738"), ("0.9611", "0.9781"),
                           ("0.9688", "0.9759")])
    text = _cells(_code(_stream(frozen), source="model.fit(train_ds, epochs=2)"),
                  _code(_stream(tuned), source="model.fit(train_ds, epochs=4, callbacks=cb)"))
    claims = [claim("V", "val_binary_accuracy", 0.9781)]
    report = judge(tmp_path, text, claims)
    # before: ("drift", ("V",), "cell 1, output 1", 4, 135, "0.9673")
    assert found(report) == []
    assert matched(report) == {(("V",), "cell 2, output 1", 6, "0.9781")}
