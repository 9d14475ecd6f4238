"""Known gaps in reading real logs and reports (helper15's brief, part 1).

Each fixture follows the shape of a real file (named above it) with names and numbers of our
own; what the code gave before the fix is in the comment over each assertion.

1. **Pipe-separated epoch lines** (`number_roles.is_field_listing`): a custom loop printing
   ``Epoch 3 | train loss 0.5500 | val acc 0.8312`` keys each value by the name before it, as
   ``key: value`` does; read as a sentence, the line's "val acc" named its train loss too (two
   candidates a line: no progress series), and a moved claim was ``ambiguous`` among every
   epoch's two numbers instead of drifting on the last epoch's value.
2. **"Another claim's" is true** (`documents._Run.assign`): a later record that matched the
   same claim judged alone (its owners set, though it satisfies nothing) was counted among the
   records "another claim" matched, and the note called it so.
3. **A class labelled "1"** (`documents._class_row`): an alias of digits alone is no anchor
   (every number would be one), so a claim aliased ``1`` (a binary classifier's positive
   class, as sklearn's classification report labels it) named no row of the report: it was
   ambiguous over its column, or satisfied by another row's value (the weighted avg's recall).
   Decided: such an alias names a classification report's row labelled so (``'1'`` in the
   dict, ``1`` in the printed report), and nothing else.
"""

from __future__ import annotations

from pathlib import Path

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import _Item, _Run
from labledger.reconcile.numbers import number_at
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings
from tests.reconcile.test_headed_tables_and_splits import judge as judge_text
from tests.reconcile.test_history_gaps import _SKLEARN
from tests.reconcile.test_notebooks_review import found, judge, matched
from tests.reconcile.test_progress_series import _cells, _code, _result, _stream

# === 1. pipe-separated epoch lines ==============================================================

# A custom PyTorch loop's print(f"Epoch {epoch} | Train Loss: {train_loss} | Val Loss:
# {val_loss}") (GitHub index file ids 44818936196, 5464284752; the colon-less shape "epoch
# {e:5d}/{n:5d} | time/epoch ... ms | loss {l:3.6f} | val_loss {v:.6f}" of index file id
# 3275046164): here a train loss and a val accuracy, names and numbers of our own.
_VAL_ACC = ("0.7412", "0.7935", "0.8120", "0.8233", "0.8301")


def _pipe_log(last: str = "0.8301", fmt: str = "Epoch {e} | train loss {l} | val acc {v}") -> str:
    accs = (*_VAL_ACC[:-1], last)
    return "".join(fmt.format(e=e, l=f"0.{72 - 5 * e}10", v=v) + "\n"
                   for e, v in enumerate(accs, 1))


def _val(value: float) -> list:
    return [claim("V", "val_acc", value, aliases=("val acc",))]


def test_a_moved_val_acc_drifts_on_the_last_epochs_line() -> None:
    log = _pipe_log()
    report = judge_text(log, _val(0.86), "train.log.txt")
    # before: ("ambiguous", ("V",), 1, "0.6710"): the train losses were candidates too
    assert findings(report) == [("drift", ("V",), 5, "0.8301")]
    assert report.findings[0].col == 39
    assert report.findings[0].message.endswith(
        "; the last of 5 records naming it, none of which matches")


def test_the_last_epochs_val_acc_is_clean() -> None:
    report = judge_text(_pipe_log(), _val(0.8301), "train.log.txt")
    assert findings(report) == []
    assert {(m.line, m.shown) for m in report.matches} == {(5, "0.8301")}


def test_the_train_loss_never_satisfies_a_val_acc_claim() -> None:
    """A claim whose value is a train loss the log prints (0.6710, epoch 1) is no match of
    it: it drifts on the last epoch's val acc."""
    report = judge_text(_pipe_log(), _val(0.6710), "train.log.txt")
    # before: no finding (epoch 1's train loss matched)
    assert findings(report) == [("drift", ("V",), 5, "0.8301")]


def test_pipe_epoch_lines_in_a_notebook_and_a_readme_fence(tmp_path: Path) -> None:
    text = _cells(_code(_stream(_pipe_log()), source="for epoch in range(1, 6): ..."))
    # before: ("ambiguous", ("V",), "cell 1, output 1", 1, 22, "0.6710")
    assert found(judge(tmp_path, text, _val(0.86))) == [
        ("drift", ("V",), "cell 1, output 1", 5, 39, "0.8301")]
    assert found(judge(tmp_path, text, _val(0.8301))) == []
    fenced = "## Training\n\n```\n" + _pipe_log() + "```\n"
    assert findings(judge_text(fenced, _val(0.86))) == [("drift", ("V",), 8, "0.8301")]


def test_one_pipe_line_is_keyed_too(tmp_path: Path) -> None:
    """A notebook output of one line is a sentence: its fields key its values all the
    same."""
    text = _cells(_code(_stream("Epoch 5 | train loss 0.6310 | val acc 0.8301\n")))
    # before: ("ambiguous", ("V",), ..., "0.6310") between the loss and the accuracy
    assert found(judge(tmp_path, text, _val(0.86))) == [
        ("drift", ("V",), "cell 1, output 1", 1, 39, "0.8301")]


def test_the_colon_less_time_per_epoch_shape() -> None:
    log = _pipe_log(fmt="epoch {e:5d}/    5 | time/epoch   12.31 ms | loss {l} | val acc {v}")
    assert [(f[0], f[3]) for f in findings(judge_text(log, _val(0.86), "fit.txt"))] == [
        ("drift", "0.8301")]


def test_fields_naming_no_claim_change_nothing() -> None:
    """Pinned: fields naming another quantity (a table of runs written with pipes in prose)
    are read as before: a claim named in one field only is judged on its value."""
    text = "Run A | lr 0.001 | top-1 76.2\n\nOurs reaches a top-1 of 76.2 on ImageNet.\n"
    report = judge_text(text, [claim("T", "top1", 0.762, aliases=("top-1",))])
    assert findings(report) == []


# === 2. "another claim's" is true =================================================================

def test_a_later_record_matching_the_same_claim_alone_is_no_other_claims() -> None:
    """The state of an epoch table whose last row is the claim's own, judged alone (its row
    and its column name it) and matching, after two rows of its column that do not: no
    document builds it today (a claim a row names alone is no candidate of the table's other
    rows), so `assign` is given it directly. The note counted that cell as another claim's."""
    text = "Epoch 1 | val acc 0.8112\nEpoch 2 | val acc 0.8212\nEpoch 3 | val acc 0.8600\n"
    seg = read_document("log.txt", text.encode())[0]
    run = _Run([claim("V", "val_acc", 0.86, aliases=("val acc",))])

    def item(shown: str, alone: bool = False) -> _Item:
        got = number_at(text, text.index(shown))
        assert got is not None
        return _Item(got, frozenset({"V"}), strength={"V": 1}, alone=alone)

    run.assign(seg, [item("0.8112"), item("0.8212"), item("0.8600", alone=True)], records=True)
    assert [(f.type, f.line, f.shown) for f in run.report.findings] == [("drift", 2, "0.8212")]
    # before: "...; the last of 2 records naming it that no other claim matches (the one after
    # it is another claim's), none of which matches it"
    assert run.report.findings[0].message.endswith(
        "; the last of 2 records naming it, none of which matches")


# === 3. a class labelled "1" ======================================================================

# sklearn's classification_report for a binary classifier, as a dict (test_history_gaps'
# _SKLEARN, the shape of GitHub index file id 36271872028) and printed (its text form, as
# sklearn/metrics/_classification.py formats it: a header line, a row per class, a blank line,
# accuracy, macro avg, weighted avg); numbers of our own.
_PRINTED = """              precision    recall  f1-score   support

           0       0.53      0.77      0.63        57
           1       0.71      0.39      0.50        62

    accuracy                           0.57       119
   macro avg       0.62      0.58      0.56       119
weighted avg       0.63      0.57      0.56       119
"""


def _positive(value: float, metric: str = "recall") -> list:
    return [claim("P", metric, value, aliases=("1",))]


def test_class_1_of_a_dict_report_is_its_row(tmp_path: Path) -> None:
    text = _cells(_code(_result(_SKLEARN), source="classification_report(y, p, "
                                                  "output_dict=True)"))
    assert found(judge(tmp_path, text, _positive(0.39))) == []
    assert matched(judge(tmp_path, text, _positive(0.39))) == {
        (("P",), "cell 1, output 1", 1, "0.39")}
    # before: ("ambiguous", ("P",), ..., 1, 37, "0.77") over the recall of every row
    assert found(judge(tmp_path, text, _positive(0.41))) == [
        ("drift", ("P",), "cell 1, output 1", 1, 114, "0.39")]
    # before: no finding; the weighted avg's recall (0.57) satisfied it
    assert found(judge(tmp_path, text, _positive(0.57))) == [
        ("drift", ("P",), "cell 1, output 1", 1, 114, "0.39")]


def test_class_1_of_a_printed_report_is_its_row() -> None:
    assert findings(judge_text(_PRINTED, _positive(0.39), "report.txt")) == []
    # before: ("ambiguous", ("P",), 3, "0.77"); and 0.57 matched the weighted avg
    for value in (0.41, 0.57):
        report = judge_text(_PRINTED, _positive(value), "report.txt")
        assert findings(report) == [("drift", ("P",), 4, "0.39")]
        assert report.findings[0].col == 30
    f1 = judge_text(_PRINTED, _positive(0.52, "f1"), "report.txt")
    assert findings(f1) == [("drift", ("P",), 4, "0.50")]


def test_the_other_rows_keep_their_claims() -> None:
    """Pinned: the averages and accuracy are judged as before beside a class-1 claim."""
    claims = [*_positive(0.39), claim("M", "recall", 0.58, aliases=("macro avg",)),
              claim("A", "accuracy", 0.57)]
    report = judge_text(_PRINTED, claims, "report.txt")
    assert findings(report) == []
    assert {(m.claims, m.line) for m in report.matches} == {
        (("P",), 4), (("M",), 7), (("A",), 6)}


def test_a_digit_alias_names_nothing_outside_a_report() -> None:
    """An alias of digits is never found in prose or another table: every "1" would name it.
    A sentence naming the claim's metric is judged as it was."""
    text = "We trained 1 model for 1 day on 1 GPU; the recall is 0.41, against 0.39 before.\n"
    report = judge_text(text, _positive(0.41))
    assert findings(report) == []
    assert {(m.line, m.shown) for m in report.matches} == {(1, "0.41")}
    assert findings(judge_text(text.replace("0.41,", "0.43,"), _positive(0.41))) == [
        ("ambiguous", ("P",), 1, "0.43")]
