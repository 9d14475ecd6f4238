"""A notebook's printed output is read a line per record.

Each fixture follows the shape of a real notebook (named above it) with names and numbers of
our own; the findings it gave before this change are in the comment over each assertion.

1. **Printed output is read a line per record** (`notebooks`): a stream, or a ``text/plain``
   result, of two or more lines. Read as prose, an evaluation cell printing a checkpoint's
   name, a dataset message, then the test loss and the test accuracy (no sentence
   punctuation, fewer than 60% of the lines ending in a number) was one sentence: the loss was
   a candidate of the accuracy's claim (ambiguous, or a false match). Markdown cells and
   single lines stay sentences.
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


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _stream(text: str) -> dict[str, Any]:
    return {"name": "stdout", "output_type": "stream", "text": text.splitlines(keepends=True)}


def _result(text: str) -> dict[str, Any]:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": text.splitlines(keepends=True)}}


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
