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

from pathlib import Path

from tests.reconcile.test_documents import claim
from tests.reconcile.test_notebooks_review import found, judge, matched
from tests.reconcile.test_progress_series import _cells, _code, _pytorch, _stream

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
