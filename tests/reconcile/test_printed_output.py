# ruff: noqa: E501  (the fixtures keep their printed widths)
"""Two misreadings of printed evaluation output, each fixture in the shape of a real file (named
above it, with what reconcile found before and finds now), with names and numbers of our own.

1. **A standard error is named by its metric, and is no value of it.** lm-evaluation-harness
   writes each metric's standard error under the metric's name and ``_stderr``: a results
   JSON's ``"acc_norm_stderr": 0.0143`` (0.4: ``"acc_norm_stderr,none"``, with the filter),
   the dict a script prints, a row of its own in older tables (``|  |acc_norm_stderr|0.0104|``).
   The metric's name in the key is an anchor, so the stderr was read as the metric's value: a
   claim matched it, or was ambiguous between it and the value. A spread is the metric's
   spread, never its value: a number keyed by a spread's name is no claim's (unless the claim
   is on the spread itself, ``acc_norm_stderr``), and neither is a row labelled by one. The
   ``±`` column of the harness's usual table was already read as an uncertainty.
2. **A two-line printed output is two records.** A cell printing ``print('test loss', loss)``
   and ``print('test accuracy', acc)`` shows two lines with no sentence punctuation; under the
   3-line bar for a printed log they were read as one sentence, so the loss went to the
   accuracy's claim (a false match, or drift). Two lines that both end in a number are a log's
   two records, in a notebook's output and in a ``.txt`` alike; hard-wrapped prose (a line
   ending in a word) and Markdown cells stay sentences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches
from tests.reconcile.test_notebooks_review import found, matched, notebook
from tests.reconcile.test_notebooks_review import judge as judge_notebook


def _notebook(*cells: dict[str, Any]) -> str:
    return notebook(",".join(json.dumps(c) for c in cells))


def _code(*outputs: dict[str, Any]) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "",
            "outputs": list(outputs)}


def _stream(text: str) -> dict[str, Any]:
    return {"name": "stdout", "output_type": "stream", "text": text.splitlines(keepends=True)}


def _result(text: str) -> dict[str, Any]:
    return {"data": {"text/plain": text.splitlines(keepends=True)}, "execution_count": 1,
            "metadata": {}, "output_type": "execute_result"}


def _markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


# === 1. standard errors ==========================================================================

# Oneflow-Inc/libai projects/Eval_LLM/README.md ("## Example of Eval Result"): the dict
# lm-evaluation-harness 0.4 returns, printed in a bare fence, a task a line: each metric's value
# then its stderr under METRIC_stderr,FILTER. A small model's gsm8k scores are so near zero that
# the stderr is within a factor 2 of the value. Before: a moved strict-match score was ambiguous
# with the stderr, and a claim recorded as the stderr's number matched it. Now: drift, on the
# value.
PRINTED_DICT = """## Example of Eval Result
Using Lumen-7b
```
{'sciq':
    {'acc,none': 0.812, 'acc_stderr,none': 0.012369, 'acc_norm,none': 0.731, 'acc_norm_stderr,none': 0.014032, 'alias': 'sciq'},
'gsm8k':
    {'exact_match,strict-match': 0.0023, 'exact_match_stderr,strict-match': 0.0013, 'exact_match,flexible-extract': 0.0129, 'exact_match_stderr,flexible-extract': 0.0031, 'alias': 'gsm8k'}
}
```
"""
DICT_CLAIMS = [claim("S", "gsm8k/exact_match,strict-match", 0.0023),
               claim("N", "acc_norm", 0.731, aliases=("sciq",))]


def test_a_printed_results_dict_stderr_is_no_value() -> None:
    report = judge(PRINTED_DICT, DICT_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {(("S",), 7, "0.0023"), (("N",), 5, "0.731")}
    moved = PRINTED_DICT.replace("'exact_match,strict-match': 0.0023",
                                 "'exact_match,strict-match': 0.0025")
    # before: ("ambiguous", ("S",), 7, "0.0025"), between it and the stderrs 0.0013 and 0.0031
    assert findings(judge(moved, DICT_CLAIMS)) == [("drift", ("S",), 7, "0.0025")]


def test_a_claim_holding_the_stderr_number_does_not_match_it() -> None:
    claims = [claim("S", "gsm8k/exact_match,strict-match", 0.0013),
              claim("N", "acc_norm", 0.014032, aliases=("sciq",))]
    report = judge(PRINTED_DICT, claims)
    # before: {(("N",), 5, "0.014032")}, sciq's acc_norm claim matched its stderr; now sciq's
    # acc_norm (0.731) is no candidate for it, and the strict-match score drifts on its value
    # (0.0023 is within a factor 2 of 0.0013), not matching its stderr
    assert matches(report) == set()
    assert findings(report) == [("drift", ("S",), 7, "0.0023")]


# A model card's README (code index file id 13785447700, a Nous-Hermes model card; the index
# names no repository): "Benchmark results:" over a bare fence of the old harness's results
# JSON, pasted without its outer braces: "acc", "acc_stderr", "acc_norm", "acc_norm_stderr" a
# line each. Before: a claim holding hellaswag's acc_norm stderr matched it, and a moved gsm8k
# accuracy (the old harness scored gsm8k as "acc") was ambiguous with its stderr. Now: no
# match, and drift.
RESULTS_JSON = """Benchmark results:

```
    "arc_challenge": {
      "acc": 0.4421,
      "acc_stderr": 0.0145,
      "acc_norm": 0.4658,
      "acc_norm_stderr": 0.0146
    },
    "gsm8k": {
      "acc": 0.0023,
      "acc_stderr": 0.0013
    },
    "hellaswag": {
      "acc": 0.5874,
      "acc_stderr": 0.0049,
      "acc_norm": 0.7702,
      "acc_norm_stderr": 0.0042
    }
```
"""


def test_results_json_stderr_keys_are_no_values() -> None:
    claims = [claim("G", "acc", 0.0023, aliases=("gsm8k",)),
              claim("H", "acc_norm", 0.7702, aliases=("hellaswag",))]
    report = judge(RESULTS_JSON, claims)
    assert findings(report) == []
    assert matches(report) == {(("G",), 11, "0.0023"), (("H",), 17, "0.7702")}
    moved = RESULTS_JSON.replace('"acc": 0.0023', '"acc": 0.0025')
    # before: ("ambiguous", ("G",), 11, "0.0025"), between it and its stderr 0.0013
    assert findings(judge(moved, claims)) == [("drift", ("G",), 11, "0.0025")]
    on_stderr = [claim("H", "acc_norm", 0.0042, aliases=("hellaswag",))]
    # before: {(("H",), 18, "0.0042")}
    assert matches(judge(RESULTS_JSON, on_stderr)) == set()
    assert findings(judge(RESULTS_JSON, on_stderr)) == []


# A notebook cell evaluating with lm_eval.simple_evaluate, its last line
# `results["results"]["gsm8k"]`: IPython shows the dict pretty-printed, a key a line in sorted
# order (as `pprint.pprint(dict(results[task_name]))` prints it, code index file id
# 54517203293), so each stderr line follows the values. Before: the stderr line's number was a
# candidate, so a moved score was ambiguous. Now: drift.
PRETTY = """{'alias': 'gsm8k',
 'exact_match,flexible-extract': 0.0129,
 'exact_match,strict-match': 0.0023,
 'exact_match_stderr,flexible-extract': 0.0031,
 'exact_match_stderr,strict-match': 0.0013}"""


def test_a_notebook_pretty_printed_results_stderr_is_no_value(tmp_path: Path) -> None:
    claims = [claim("S", "exact_match", 0.0023, aliases=("gsm8k",))]
    report = judge_notebook(tmp_path, _notebook(_code(_result(PRETTY))), claims)
    assert found(report) == []
    assert matched(report) == {(("S",), "cell 1, output 1", 3, "0.0023")}
    moved = PRETTY.replace("'exact_match,strict-match': 0.0023", "'exact_match,strict-match': 0.0025")
    report = judge_notebook(tmp_path, _notebook(_code(_result(moved))), claims)
    # before: ("ambiguous", ("S",), "cell 1, output 1", 3, 30, "0.0025")
    assert found(report) == [("drift", ("S",), "cell 1, output 1", 3, 30, "0.0025")]


# Older lm-evaluation-harness forks print a Task | Metric | Value table with each stderr in a
# row of its own (code index file ids 27256265005 and 27606889758, "## EleutherAI/gpt-neo-2.7B,
# fp32"; the index names no repository). Before: a claim holding piqa's acc_norm stderr matched
# that row, and a moved gsm8k accuracy was ambiguous with its stderr row. Now: no match, drift.
STDERR_ROWS = """|   Task   |    Metric     | Value |
|----------|---------------|------:|
|lambada   |ppl            |6.1027|
|          |ppl_stderr     |0.1512|
|          |acc            |0.6121|
|          |acc_stderr     |0.0068|
|gsm8k     |acc            |0.0023|
|          |acc_stderr     |0.0013|
|piqa      |acc            |0.7193|
|          |acc_stderr     |0.0105|
|          |acc_norm       |0.7301|
|          |acc_norm_stderr|0.0104|
"""


def test_a_harness_stderr_row_is_no_value() -> None:
    claims = [claim("G", "acc", 0.0023, aliases=("gsm8k",)),
              claim("P", "acc_norm", 0.7301, aliases=("piqa",))]
    report = judge(STDERR_ROWS, claims)
    assert findings(report) == []
    assert matches(report) == {(("G",), 7, "0.0023"), (("P",), 11, "0.7301")}
    moved = STDERR_ROWS.replace("|gsm8k     |acc            |0.0023|", "|gsm8k     |acc            |0.0025|")
    # before: ("ambiguous", ("G",), 7, "0.0025"), between it and the acc_stderr row's 0.0013
    assert findings(judge(moved, claims)) == [("drift", ("G",), 7, "0.0025")]
    on_stderr = [claim("P", "acc_norm", 0.0104, aliases=("piqa",))]
    # before: {(("P",), 12, "0.0104")}
    assert matches(judge(STDERR_ROWS, on_stderr)) == set()
    assert findings(judge(STDERR_ROWS, on_stderr)) == []


# teknium1/LLM-Benchmark-Logs benchmark-logs/Hermes-2-Pro-Llama-3-Instruct-8B-Merge-DPO.md
# ("GPT4All:" over a fence holding the harness's usual table): the stderr is in the column after
# "±". It was already read as an uncertainty (the cell after "±", under "Stderr"): no claim
# matched it before either.
PLUS_MINUS = """GPT4All:
```
|    Task     |Version| Metric |Value |   |Stderr|
|-------------|------:|--------|-----:|---|-----:|
|arc_challenge|      0|acc     |0.5412|±  |0.0146|
|             |       |acc_norm|0.5794|±  |0.0144|
|gsm8k        |      0|acc     |0.0023|±  |0.0013|
```
"""


def test_the_plus_minus_column_stays_no_value() -> None:
    for claims in ([claim("N", "acc_norm", 0.0144, aliases=("arc_challenge",))],
                   [claim("G", "gsm8k/acc", 0.0013)]):
        assert matches(judge(PLUS_MINUS, claims)) == set()
    claims = [claim("G", "gsm8k/acc", 0.0023)]
    assert matches(judge(PLUS_MINUS, claims)) == {(("G",), 7, "0.0023")}
    moved = PLUS_MINUS.replace("0.0023", "0.0025")
    assert findings(judge(moved, claims)) == [("drift", ("G",), 7, "0.0025")]


def test_a_claim_on_the_stderr_itself_is_judged_on_it() -> None:
    # a claim recorded on the spread (its metric names it) keeps its number, in a key or a row
    claims = [claim("E", "acc_norm_stderr", 0.0042, aliases=("hellaswag",))]
    assert matches(judge(RESULTS_JSON, claims)) == {(("E",), 18, "0.0042")}
    claims = [claim("E", "acc_norm_stderr", 0.0104, aliases=("piqa",))]
    assert matches(judge(STDERR_ROWS, claims)) == {(("E",), 12, "0.0104")}
    moved = STDERR_ROWS.replace("0.0104", "0.0114")
    assert findings(judge(moved, claims)) == [("drift", ("E",), 12, "0.0114")]


# === 2. two-line printed outputs =================================================================

# Keras scripts and notebooks printing evaluate()'s results with print's comma, no colon:
# `loss, accuracy = model.evaluate(x_test, y_test)` then `print('test loss', loss)` and
# `print('test accuracy', accuracy)` (code index file ids 43090044344 and 18180717524; PyTorch
# the same, `print('Test Accuracy', accuracy)` over `print('Test Loss', loss)`, file id
# 38166313634); with verbose=0 the stream is those two lines. Before: one sentence, so a
# test-accuracy claim holding the loss's number matched the loss line, and one near it drifted
# there. Now: two records; the loss is no accuracy's.
TWO_LINES = "test loss 0.2871436572074890\ntest accuracy 0.9133000373840332\n"


def test_a_two_line_stream_is_two_records(tmp_path: Path) -> None:
    claims = [claim("A", "test_accuracy", 0.9133000373840332),
              claim("L", "test_loss", 0.2871436572074890)]
    report = judge_notebook(tmp_path, _notebook(_code(_stream(TWO_LINES))), claims)
    assert found(report) == []
    assert matched(report) == {(("L",), "cell 1, output 1", 1, "0.2871436572074890"),
                               (("A",), "cell 1, output 1", 2, "0.9133000373840332")}
    text = _notebook(_code(_stream(TWO_LINES)))
    on_loss = [claim("A", "test_accuracy", 0.2871436572074890)]
    # before: {(("A",), "cell 1, output 1", 1, "0.2871436572074890")}
    assert matched(judge_notebook(tmp_path, text, on_loss)) == set()
    # before: [("drift", ("A",), "cell 1, output 1", 1, 11, "0.2871436572074890")]
    assert found(judge_notebook(tmp_path, text, [claim("A", "test_accuracy", 0.2881)])) == []
    moved = TWO_LINES.replace("0.91330", "0.92330")
    report = judge_notebook(tmp_path, _notebook(_code(_stream(moved))), claims)
    assert found(report) == [("drift", ("A",), "cell 1, output 1", 2, 15, "0.9233000373840332")]


# A dehazing/restoration script's evaluation (code index file id 22559268844:
# `print('ssim', sum_ssim / count)` then `print('psnr', sum_psnr / count)`; file id 5750131086
# prints "average SSIM" and "average PSNR" so), in a notebook cell's stream and redirected to a
# results .txt. Before: the SSIM went to the PSNR claim (drift on the SSIM line) and the PSNR
# to an SSIM claim holding its number. Now: each line its own record.
PSNR_SSIM = "ssim 0.8912\npsnr 31.20\n"


def test_a_two_line_output_in_a_notebook_or_a_txt_is_two_records(tmp_path: Path) -> None:
    claims = [claim("P", "val_psnr", 31.20, unit="dB", aliases=("PSNR",)),
              claim("S", "val_ssim", 0.8912, aliases=("SSIM",))]
    text = _notebook(_code(_stream(PSNR_SSIM)))
    assert found(judge_notebook(tmp_path, text, claims)) == []
    assert matched(judge_notebook(tmp_path, text, claims)) == {
        (("S",), "cell 1, output 1", 1, "0.8912"), (("P",), "cell 1, output 1", 2, "31.20")}
    # before: [("drift", ("P",), "cell 1, output 1", 1, 6, "0.8912")]
    assert found(judge_notebook(tmp_path, text, [claim("P", "psnr", 0.8922)])) == []
    # before: [("drift", ("P",), 1, "0.8912")]
    assert findings(judge(PSNR_SSIM, [claim("P", "psnr", 0.8922)], "results.txt")) == []
    # before: {(("S",), 2, "31.20")}
    assert matches(judge(PSNR_SSIM, [claim("S", "ssim", 31.20)], "results.txt")) == set()
    moved = PSNR_SSIM.replace("31.20", "31.50")
    assert findings(judge(moved, claims, "results.txt")) == [("drift", ("P",), 2, "31.50")]


def test_prose_and_single_lines_stay_sentences(tmp_path: Path) -> None:
    # hard-wrapped prose (its first line ends in a word), in a .txt or a notebook's output,
    # and a Markdown cell whatever its lines end in: one sentence, its anchor naming the
    # number on the next line
    prose = "The fine-tuned model reaches a test accuracy of\n0.9133 on the held-out split.\n"
    claims = [claim("A", "test_accuracy", 0.9133)]
    assert matches(judge(prose, claims, "notes.txt")) == {(("A",), 2, "0.9133")}
    text = _notebook(_markdown("Test accuracy after fine-tuning for 12\nepochs is 0.9133\n"),
                     _code(_stream(prose)))
    assert matched(judge_notebook(tmp_path, text, claims)) == {
        (("A",), "cell 1", 2, "0.9133"), (("A",), "cell 2, output 1", 2, "0.9133")}
    one_line = "test loss 0.2871 test accuracy 0.9133\n"
    assert line_of(one_line, "0.9133") == 1
    assert matches(judge(one_line, claims, "results.txt")) == {(("A",), 1, "0.9133")}


# Keras' evaluate() prints its bar with the bare key of the quantity, and the notebook then
# prints the test accuracy itself (tensorflow/docs site/en/tutorials/images/transfer_learning.ipynb:
# `loss, accuracy = model.evaluate(test_dataset)` then `print('Test accuracy :', accuracy)`).
# Read a line per record, the bar's bare `accuracy` named no split, so a val_accuracy claim
# drifted against it; beside a line keying the quantity with a held-out split it is no held-out
# split's claim, as `accuracy` beside `val_accuracy` on one of fit()'s lines.
_EVALUATE = ("6/6 [==============================] - 1s 95ms/step - loss: 0.1611 - "
             "accuracy: 0.9417\nTest accuracy : 0.9416666865348816\n")


def test_an_evaluate_bar_beside_a_held_out_key_is_no_held_out_claims(tmp_path: Path) -> None:
    text = _notebook(_code(_stream(_EVALUATE)))
    val = judge_notebook(tmp_path, text, [claim("V", "val_accuracy", 0.9052)])
    assert found(val) == []  # before: a drift of V on the bar's 0.9417
    test = judge_notebook(tmp_path, text, [claim("T", "test_accuracy", 0.9416666865348816)])
    assert found(test) == []
    assert matched(test) == {(("T",), "cell 1, output 1", 2, "0.9416666865348816")}
