# ruff: noqa: E501, W291  (the fixtures keep their printed widths, and the trailing spaces the real files print)
"""lm-evaluation-harness's metric names that named the wrong row, or none. Each fixture is in the
shape of a real file (named above it, with what reconcile found before and finds now), with
names and numbers of our own.

1. **``acc`` inside ``acc_norm``.** An ``acc`` claim (aliased by its task) has the anchor
   ``acc``, which punctuation folding also finds in ``acc_norm`` (and ``acc_stderr``): the
   ``_`` is a word break. So a task's ``acc_norm`` row, results-JSON line or printed-dict key
   named the ``acc`` claim as much as its ``acc`` row did, and a moved ``acc`` value was
   ambiguous between the two. A key that only begins with a metric's name and goes on with
   ``_`` into another quantity's name is another metric's (`documents._another_key`); the
   0.4 harness's default filter, ``'acc,none'``, keys ``acc`` (`number_roles.labels`).
2. **A namespaced claim's parts as a listing's key.** ``arc_challenge/acc_norm`` and
   ``gsm8k/exact_match,flexible-extract`` are found written apart (the task on one line, the
   metric and its filter as the key on the next); but a listing's key that was such a part
   ("acc norm", "flexible extract") was read as no claim's name, so the claim was taken off
   the number it keys: never judged, or judged on a neighbour's value
   (`documents._Run._key_names`).
3. **A key found whole across two lines.** Folded to words, ``"arc_challenge": {`` over
   ``"acc": 0.2712,`` holds the key ``arc_challenge/acc`` whole; read as the line heading the
   task's lines, it named every one of them as much as the ``acc`` line (ambiguous). In
   printed output, where a line is a record, an anchor is found line by line
   (`documents._Run.lines_apart`).
"""

from __future__ import annotations

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches


def _moved(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# === 1. an acc claim and the acc_norm row ========================================================

# teknium1/LLM-Benchmark-Logs benchmark-logs/Llama-2-7B-Base.md ("GPT4All:"): the 0.3 harness's
# table in a bare fence, a task's acc row over its acc_norm row (whose Task cell is empty), an
# average under the fence. Before: a moved acc value was ambiguous between the acc row and the
# acc_norm row under it. Now: drift, on the acc row.
GPT4ALL = """GPT4All:
```
|    Task     |Version| Metric |Value |   |Stderr|
|-------------|------:|--------|-----:|---|-----:|
|arc_challenge|      0|acc     |0.3712|±  |0.0141|
|             |       |acc_norm|0.3985|±  |0.0143|
|arc_easy     |      0|acc     |0.6843|±  |0.0095|
|             |       |acc_norm|0.6502|±  |0.0098|
|boolq        |      1|acc     |0.7412|±  |0.0077|
|hellaswag    |      0|acc     |0.5234|±  |0.0050|
|             |       |acc_norm|0.6911|±  |0.0046|
```
Average: 63.21
"""


def test_an_acc_claim_is_the_acc_row_not_the_acc_norm_row() -> None:
    claims = [claim("A", "acc", 0.3712, aliases=("arc_challenge",))]
    assert findings(judge(GPT4ALL, claims)) == []
    assert matches(judge(GPT4ALL, claims)) == {(("A",), 5, "0.3712")}
    moved = _moved(GPT4ALL, "0.3712", "0.3690")
    # before: [("ambiguous", ("A",), 5, "0.3690")], between 0.3690 and acc_norm's 0.3985
    assert findings(judge(moved, claims)) == [("drift", ("A",), 5, "0.3690")]


# zhy617/SMoE eval-results/qwen/benchmark/*.md: the 0.4 harness's table, with Filter, n-shot
# and the metric's direction. Before: an acc claim of 0.28 was ambiguous between arc_challenge's
# acc (0.2900) and acc_norm (0.3000). Now: drift on the acc row.
SMOE = """|    Tasks    |Version|Filter|n-shot| Metric |   |Value |   |Stderr|
|-------------|------:|------|-----:|--------|---|-----:|---|-----:|
|arc_challenge|      1|none  |     0|acc     |↑  |0.2900|±  |0.0133|
|             |       |none  |     0|acc_norm|↑  |0.3000|±  |0.0134|
|arc_easy     |      1|none  |     0|acc     |↑  |0.5830|±  |0.0101|
|             |       |none  |     0|acc_norm|↑  |0.5490|±  |0.0102|
"""


def test_an_acc_claim_drifts_on_the_04_tables_acc_row() -> None:
    claims = [claim("A", "acc", 0.28, aliases=("arc_challenge",))]
    # before: [("ambiguous", ("A",), 3, "0.2900")]
    assert findings(judge(SMOE, claims)) == [("drift", ("A",), 3, "0.2900")]
    # the acc_norm claim is still its row's
    norm = [claim("N", "acc_norm", 0.3000, aliases=("arc_challenge",))]
    assert matches(judge(SMOE, norm)) == {(("N",), 4, "0.3000")}


# A model card's README (code index file id 13785447700, a Nous-Hermes model card; the index
# names no repository): "Benchmark results:" over the 0.3 harness's results JSON in a bare
# fence, pasted without its outer braces, a task's "acc", "acc_stderr", "acc_norm",
# "acc_norm_stderr" a line each, and a fence closed by "``` " (a space after it).
RESULTS = """Benchmark results:

```
    "arc_challenge": {
      "acc": 0.2712,
      "acc_stderr": 0.0130,
      "acc_norm": 0.2901,
      "acc_norm_stderr": 0.0133
    },
    "boolq": {
      "acc": 0.6205,
      "acc_stderr": 0.0085
    },
    "hellaswag": {
      "acc": 0.4410,
      "acc_stderr": 0.0050,
      "acc_norm": 0.5512,
      "acc_norm_stderr": 0.0050
    }
``` 

Compute provided by our sponsor.
"""


def test_an_acc_claim_is_the_acc_line_of_a_results_json() -> None:
    claims = [claim("A", "acc", 0.2712, aliases=("arc_challenge",))]
    assert matches(judge(RESULTS, claims)) == {(("A",), 5, "0.2712")}
    moved = _moved(RESULTS, "0.2712", "0.2698")
    # before: [("ambiguous", ("A",), 5, "0.2698")], between it and acc_norm's 0.2901
    assert findings(judge(moved, claims)) == [("drift", ("A",), 5, "0.2698")]


# Oneflow-Inc/libai projects/Eval_LLM/README.md ("## Example of Eval Result"): the dict the 0.4
# harness returns, printed in a bare fence, a task's name on one line and its metrics on the next,
# each keyed METRIC,FILTER ("acc,none"; gsm8k's "exact_match,strict-match" and
# "exact_match,flexible-extract"), each with its stderr.
LIBAI = """## Example of Eval Result
Using Acme-3b
```
{'sciq': 
    {'acc,none': 0.853, 'acc_stderr,none': 0.011172, 'acc_norm,none': 0.788, 'acc_norm_stderr,none': 0.012931, 'alias': 'sciq'}, 
'lambada_openai': 
    {'perplexity,none': 9.8132, 'perplexity_stderr,none': 0.2871, 'acc,none': 0.5917, 'acc_stderr,none': 0.006848, 'alias': 'lambada_openai'}, 
'gsm8k': 
    {'exact_match,strict-match': 0.0311, 'exact_match_stderr,strict-match': 0.0048, 'exact_match,flexible-extract': 0.0425, 'exact_match_stderr,flexible-extract': 0.0056, 'alias': 'gsm8k'}
}
```
"""


def test_an_acc_claim_is_keyed_by_acc_none_in_a_printed_dict() -> None:
    claims = [claim("A", "acc", 0.853, aliases=("sciq",))]
    assert matches(judge(LIBAI, claims)) == {(("A",), 5, "0.853")}
    moved = _moved(LIBAI, "0.853", "0.849")
    # before: [("ambiguous", ("A",), 5, "0.849")], between it and acc_norm's 0.788
    assert findings(judge(moved, claims)) == [("drift", ("A",), 5, "0.849")]


def test_a_longer_key_of_the_same_quantity_still_names_its_claim() -> None:
    # psnr_mean and f1_score are the claims' quantities (their statistic, their "score"): a
    # printed record of them is still theirs, and loss_cls (another quantity) is no loss's
    text = "Results:\n\n```\n{'psnr_mean': 31.42, 'f1_score': 0.913, 'loss_cls': 0.2044}\n```\n"
    claims = [claim("P", "psnr", 31.42), claim("F", "f1", 0.913), claim("L", "loss", 0.2051)]
    report = judge(text, claims)
    assert matches(report) == {(("P",), 4, "31.42"), (("F",), 4, "0.913")}
    assert findings(report) == []


def test_prose_naming_acc_norm_is_still_the_acc_norm_claims() -> None:
    prose = "On arc_challenge the accuracy (acc_norm) reaches 0.2950.\n"
    for norm in (claim("N", "acc_norm", 0.2901, aliases=("arc_challenge",)),
                 claim("N", "arc_challenge/acc_norm", 0.2901)):
        assert findings(judge(prose, [norm])) == [("drift", ("N",), 1, "0.2950")]


# === 2. a namespaced claim keyed by its parts ====================================================

def _namespaced(cid: str, key: str, value: float) -> list[Claim]:
    return [claim(cid, key, value)]


def test_a_namespaced_claim_is_judged_in_a_results_json_split_across_lines() -> None:
    claims = _namespaced("N", "arc_challenge/acc_norm", 0.2901)
    # before: no match and no finding, in a bare fence and a json fence alike
    assert matches(judge(RESULTS, claims)) == {(("N",), 7, "0.2901")}
    moved = _moved(RESULTS, "0.2901", "0.2933")
    assert findings(judge(moved, claims)) == [("drift", ("N",), 7, "0.2933")]
    as_json = moved.replace("```\n    \"arc", "```json\n    \"arc")
    assert findings(judge(as_json, claims)) == [("drift", ("N",), 7, "0.2933")]
    # hellaswag's acc_norm (0.5512) names one part only: nobody's
    assert findings(judge(moved, _namespaced("N", "hellaswag/acc_norm", 0.5512))) == []


def test_a_flexible_extract_claim_is_judged_in_libais_printed_dict() -> None:
    claims = _namespaced("F", "gsm8k/exact_match,flexible-extract", 0.0425)
    # before: no match (the flexible-extract key took the claim off its own value)
    assert matches(judge(LIBAI, claims)) == {(("F",), line_of(LIBAI, "0.0425"), "0.0425")}
    moved = _moved(LIBAI, "0.0425", "0.0437")
    assert findings(judge(moved, claims)) == [("drift", ("F",), 9, "0.0437")]
    # before: a claim of 0.0400 drifted on the strict-match value, 0.0311
    off = _namespaced("F", "gsm8k/exact_match,flexible-extract", 0.0400)
    assert findings(judge(LIBAI, off)) == [("drift", ("F",), 9, "0.0425")]
    # the strict-match claim stays its own value's
    strict = _namespaced("S", "gsm8k/exact_match,strict-match", 0.0290)
    assert findings(judge(LIBAI, strict)) == [("drift", ("S",), 9, "0.0311")]


# === 3. a key whole across two lines =============================================================

def test_a_key_across_the_task_line_names_its_own_line_only() -> None:
    claims = _namespaced("C", "arc_challenge/acc", 0.2712)
    assert matches(judge(RESULTS, claims)) == {(("C",), 5, "0.2712")}
    moved = _moved(RESULTS, "0.2712", "0.2698")
    # before: [("ambiguous", ("C",), 5, "0.2698")]: "arc_challenge": { over "acc" named every
    # line under the task, acc_norm's 0.2901 as much as acc's
    assert findings(judge(moved, claims)) == [("drift", ("C",), 5, "0.2698")]


def test_a_key_across_the_task_line_of_a_printed_dict() -> None:
    claims = _namespaced("Q", "sciq/acc", 0.853)
    assert matches(judge(LIBAI, claims)) == {(("Q",), 5, "0.853")}
    moved = _moved(LIBAI, "0.853", "0.849")
    # before: [("ambiguous", ("Q",), 5, "0.849")], between it and acc_norm's 0.788
    assert findings(judge(moved, claims)) == [("drift", ("Q",), 5, "0.849")]
