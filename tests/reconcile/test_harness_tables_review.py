# ruff: noqa: E501  (the fixtures keep their tables' widths)
"""Benchmark-harness result tables and the metric keys frameworks write, from reviewing real
READMEs: each fixture has its source's shape (named above it, with the findings it gave before
and gives now), with other model names and numbers.

1. **A namespaced key is named by its parts.** lm-evaluation-harness's W&B summary and
   mmengine write keys as ``TASK/METRIC`` (``agieval_aqua_rat/acc_norm``,
   ``gsm8k/exact_match,strict-match``, ``bbox/AP``), and the harness's table writes the task in
   one cell and the metric (and its filter) in others, the task once for all its metrics.
   The key whole was the only anchor, so the table was never judged: a moved value gave no
   finding. Now the parts name the claim together, never alone: a bare ``acc`` names no
   ``*/acc`` claim, and the task's ``acc`` row is no ``acc_norm`` claim's.
2. **A harness's continuation row is its task's.** ``|  |  |acc_norm|22.83|`` under
   ``|agieval_aqua_rat|0|acc|23.62|`` did not take the task's label (the Version number above
   stopped it), and a claim aliased by the task was judged in both rows (ambiguous when moved).
   A claim several rows name unequally is judged in the rows naming it most.
3. **A harness table pasted in a fence is a table**, not a log's lines, and a key found whole
   across cells (OpenCompass' ``| musr_average | - | naive_average |``) is read cell by cell.
"""

from __future__ import annotations

from labledger.reconcile.anchors import AnchorIndex
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches

# === 1. namespaced keys ==========================================================================

# saucam/model_evals saucam/Orpomis-Prime-7B/README.md, "### agieval" (lm-evaluation-harness
# 0.3's table, as the LLM AutoEval notebooks print it): a task's acc row, then a row with empty
# Task and Version cells for its acc_norm. Before: no claim was named (no finding on a moved
# value); with `--alias acc_norm` a moved acc_norm was ambiguous on the acc row. Now: drift.
AGIEVAL = """### agieval
|             Task             |Version| Metric |Value|   |Stderr|
|------------------------------|------:|--------|----:|---|-----:|
|agieval_aqua_rat              |      0|acc     |24.41|±  |  2.70|
|                              |       |acc_norm|23.62|±  |  2.67|
|agieval_logiqa_en             |      0|acc     |31.34|±  |  1.82|
|                              |       |acc_norm|34.72|±  |  1.87|
|agieval_lsat_ar               |      0|acc     |18.70|±  |  2.58|
|                              |       |acc_norm|19.13|±  |  2.60|
"""
AGIEVAL_CLAIMS = [claim("AQ", "agieval_aqua_rat/acc_norm", 0.2362, aliases=("Lumen-7B",)),
                  claim("LQ", "agieval_logiqa_en/acc", 0.3134, aliases=("Lumen-7B",))]


def test_a_task_metric_key_is_named_by_its_task_row_and_metric_cell() -> None:
    assert findings(judge(AGIEVAL, AGIEVAL_CLAIMS)) == []
    assert matches(judge(AGIEVAL, AGIEVAL_CLAIMS)) == {
        (("AQ",), line_of(AGIEVAL, "23.62"), "23.62"), (("LQ",), line_of(AGIEVAL, "31.34"), "31.34")}
    for cid, old, new in (("AQ", "23.62", "23.72"), ("LQ", "31.34", "31.44")):
        moved = AGIEVAL.replace(old, new)
        assert findings(judge(moved, AGIEVAL_CLAIMS)) == [("drift", (cid,), line_of(moved, new), new)]


def test_a_part_alone_names_no_claim() -> None:
    # the acc row of the acc_norm claim's task, and every other task's acc_norm row, name one
    # part each: a moved acc (24.41) or another task's acc_norm is nobody's
    for old, new in (("24.41", "23.12"), ("19.13", "23.12")):
        moved = AGIEVAL.replace(old, new)
        assert findings(judge(moved, AGIEVAL_CLAIMS)) == []
    index = AnchorIndex(AGIEVAL_CLAIMS)
    assert "acc norm" not in index.claims_of
    assert "agieval aqua rat" not in index.claims_of
    assert index.compound["AQ"] == (frozenset({"agieval aqua rat", "acc norm"}),
                                    "agieval aqua rat acc norm")
    prose = "On agieval_aqua_rat, acc_norm reaches 23.72 for Lumen-7B.\n"
    assert findings(judge(prose, AGIEVAL_CLAIMS)) == [("drift", ("AQ",), 1, "23.72")]
    assert findings(judge("The acc_norm is 23.72 and the acc 31.44.\n", AGIEVAL_CLAIMS)) == []


# The task's claim as `claim add` reads it from the harness's results.json (metric `acc_norm`,
# the task in the selector) with the task as an alias: before, a moved acc_norm was ambiguous
# on the task's acc row (the alias names it too) and a moved acc was ambiguous on every
# task's acc row. Now: drift, in the row naming the claim by both.
def test_a_claim_named_by_several_rows_is_the_row_naming_it_most() -> None:
    claims = [claim("AQ", "acc_norm", 0.2362, aliases=("agieval_aqua_rat",)),
              claim("LQ", "acc", 0.3134, aliases=("agieval_logiqa_en",))]
    assert findings(judge(AGIEVAL, claims)) == []
    for cid, old, new in (("AQ", "23.62", "23.72"), ("LQ", "31.34", "31.44")):
        moved = AGIEVAL.replace(old, new)
        assert findings(judge(moved, claims)) == [("drift", (cid,), line_of(moved, new), new)]


# zhy617/SMoE eval-results/qwen/exp005/avg_2.06la.md (lm-evaluation-harness 0.4's table:
# Filter and n-shot columns, an arrow column, mmlu's groups indented, then a "Groups" table
# repeating them). Before: nothing judged. Now: each claim in its row; the group's claim is
# satisfied in either table and drifts where it is moved.
SMOE = """|                 Tasks                 |Version|Filter|n-shot| Metric |   |Value |   |Stderr|
|---------------------------------------|------:|------|-----:|--------|---|-----:|---|-----:|
|arc_challenge                          |      1|none  |     0|acc     |↑  |0.3012|±  |0.0134|
|                                       |       |none  |     0|acc_norm|↑  |0.3297|±  |0.0137|
|arc_easy                               |      1|none  |     0|acc     |↑  |0.6044|±  |0.0100|
|                                       |       |none  |     0|acc_norm|↑  |0.5621|±  |0.0102|
|mmlu                                   |      2|none  |      |acc     |↑  |0.2450|±  |0.0036|
| - humanities                          |      2|none  |      |acc     |↑  |0.2518|±  |0.0063|
|  - formal_logic                       |      1|none  |     0|acc     |↑  |0.2857|±  |0.0404|
|winogrande                             |      1|none  |     0|acc     |↑  |0.5896|±  |0.0138|

|      Groups      |Version|Filter|n-shot|Metric|   |Value |   |Stderr|
|------------------|------:|------|------|------|---|-----:|---|-----:|
|mmlu              |      2|none  |      |acc   |↑  |0.2450|±  |0.0036|
| - humanities     |      2|none  |      |acc   |↑  |0.2518|±  |0.0063|
"""
SMOE_CLAIMS = [claim("AC", "arc_challenge/acc_norm", 0.3297), claim("AE", "arc_easy/acc", 0.6044),
               claim("MM", "mmlu/acc", 0.2450), claim("WG", "winogrande/acc", 0.5896)]


def test_a_harness_table_with_filters_and_groups() -> None:
    report = judge(SMOE, SMOE_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {
        (("AC",), 4, "0.3297"), (("AE",), 5, "0.6044"), (("MM",), 7, "0.2450"),
        (("WG",), 10, "0.5896"), (("MM",), 14, "0.2450")}
    for cid, old, new, line in (("AC", "0.3297", "0.3307", 4), ("AE", "0.6044", "0.6054", 5),
                                ("WG", "0.5896", "0.5906", 10),
                                ("MM", "|mmlu              |      2|none  |      |acc   |↑  |0.2450",
                                 "|mmlu              |      2|none  |      |acc   |↑  |0.2460", 14)):
        moved = SMOE.replace(old, new)
        assert findings(judge(moved, SMOE_CLAIMS)) == [("drift", (cid,), line, new[-6:])]


# saucam/model_evals saucam/Orpomis-Prime-7B/README.md, "### gsm8k" (lm-evaluation-harness
# 0.4's results printed by an older writer: METRIC,FILTER in one cell, each in a row of its own
# under the task). Before: nothing judged. Now: drift, and the stderr rows are no claim's.
GSM8K_CELLS = """### gsm8k
|Task |Version|              Metric               |Value|   |Stderr|
|-----|------:|-----------------------------------|-----|---|------|
|gsm8k|      3|exact_match,strict-match           | 0.31|   |      |
|     |       |exact_match_stderr,strict-match    | 0.01|   |      |
|     |       |exact_match,flexible-extract       | 0.33|   |      |
|     |       |exact_match_stderr,flexible-extract| 0.01|   |      |
|     |       |alias                              |gsm8k|   |      |
"""
GSM8K_CLAIMS = [claim("S", "gsm8k/exact_match,strict-match", 0.3108),
                claim("F", "gsm8k/exact_match,flexible-extract", 0.3321)]


def test_a_filtered_key_is_named_by_its_metric_and_filter() -> None:
    assert findings(judge(GSM8K_CELLS, GSM8K_CLAIMS)) == []
    assert matches(judge(GSM8K_CELLS, GSM8K_CLAIMS)) == {(("S",), 4, "0.31"), (("F",), 6, "0.33")}
    for cid, old, new, line in (("S", "| 0.31|", "| 0.32|", 4), ("F", "| 0.33|", "| 0.34|", 6)):
        moved = GSM8K_CELLS.replace(old, new)
        assert findings(judge(moved, GSM8K_CLAIMS)) == [("drift", (cid,), line, new[2:6])]


# === 3. a harness table in a fence, a key across cells ==========================================

# Shape of the gsm8k table lm-evaluation-harness 0.4 prints (Filter in a column of its own),
# pasted in a fence under the command that printed it, as READMEs and PR descriptions do (code
# index file id 67064189, the index names no repository). Before: a line a unit, so the
# strict-match row (no task on its line) named no claim: a moved value gave no finding. Now:
# the fence's pipe table is a table, its continuation row the task's; the same in a .txt log.
GSM8K_FENCED = """Here's an example of the resulting scores:

```text
|Tasks|Version|     Filter     |n-shot|  Metric   |   |Value|   |Stderr|
|-----|------:|----------------|-----:|-----------|---|----:|---|-----:|
|gsm8k|      3|flexible-extract|     5|exact_match|↑  |0.412|±  |0.0311|
|     |       |strict-match    |     5|exact_match|↑  |0.388|±  |0.0309|
```
"""


def test_a_harness_table_in_a_fence_or_a_log_is_a_table() -> None:
    claims = [claim("F", "gsm8k/exact_match,flexible-extract", 0.412),
              claim("S", "gsm8k/exact_match,strict-match", 0.388)]
    log = GSM8K_FENCED.split("```text\n")[1].split("```")[0]
    for text, path in ((GSM8K_FENCED, "README.md"), (log, "eval.txt")):
        assert findings(judge(text, claims, path)) == []
        assert matches(judge(text, claims, path)) == {
            (("F",), line_of(text, "0.412"), "0.412"), (("S",), line_of(text, "0.388"), "0.388")}
        for cid, old, new in (("F", "0.412", "0.422"), ("S", "0.388", "0.398")):
            moved = text.replace(old, new)
            assert findings(judge(moved, claims, path)) == [
                ("drift", (cid,), line_of(moved, new), new)]


# open-compass/opencompass opencompass/configs/datasets/musr/README.md: OpenCompass' summary
# table (dataset | version | metric | mode | one column per model), its average row's version
# a "-". Cells fold to words as prose does, so "musr_average | - | naive_average" read as the
# key whole across three cells, which no cell holds: before, the average's claim was never
# judged. Now: each cell's own anchors; drift.
OPENCOMPASS = """| dataset | version | metric | mode | lumen-7b-chat | lumen-14b-chat |
|----- | ----- | ----- | ----- | ----- | -----|
| musr_murder_mysteries | a5ce30 | accuracy | gen | 61.60 | 70.40 |
| musr_object_placements | a5ce30 | accuracy | gen | 52.34 | 58.59 |
| musr_average | - | naive_average | gen | 56.97 | 64.50 |
"""


def test_a_key_found_across_cells_is_read_cell_by_cell() -> None:
    claims = [claim("MY", "musr_murder_mysteries/accuracy", 61.6, aliases=("lumen-7b-chat",)),
              claim("AV", "musr_average/naive_average", 56.97, aliases=("lumen-7b-chat",))]
    assert findings(judge(OPENCOMPASS, claims)) == []
    assert matches(judge(OPENCOMPASS, claims)) == {(("MY",), 3, "61.60"), (("AV",), 5, "56.97")}
    for cid, old, new, line in (("MY", "61.60", "61.70", 3), ("AV", "56.97", "57.07", 5)):
        moved = OPENCOMPASS.replace(old, new)
        assert findings(judge(moved, claims)) == [("drift", (cid,), line, new)]


# === detection: an IoU type is a part, a framework's namespace is not ===========================

# Megvii-BaseDetection/DeFCN playground/detection/coco/poto.res50.fpn.coco.800size.3x_ms.3dmf.aux/
# README.md (cvpods, whose metrics.json keys are detectron2's `bbox/AP`, `bbox/AP50`): COCO's
# summary in a fence, then the AP table, under "## Evaluation results for bbox:". Before:
# nothing judged. Now: the heading names the IoU type, the column the metric; a segm claim is
# not the bbox table's.
DETECTION = """# poto.res50.fpn

## Evaluation results for bbox:

```
Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.392
Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.574
```
|   AP   |  AP50  |  AP75  |  APs   |  APm   |  APl   |
|:------:|:------:|:------:|:------:|:------:|:------:|
| 39.247 | 57.391 | 42.018 | 23.560 | 42.771 | 50.112 |
"""


def test_an_iou_type_from_the_heading_and_a_metric_from_the_column() -> None:
    claims = [claim("AP", "bbox/AP", 39.247), claim("AP50", "bbox/AP50", 57.391),
              claim("SG", "segm/AP", 35.118)]
    assert findings(judge(DETECTION, claims)) == []
    # the summary's lines are the claims' too, their fractions read in points (`coco_summary`)
    assert matches(judge(DETECTION, claims)) == {(("AP",), 11, "39.247"), (("AP50",), 11, "57.391"),
                                                 (("AP",), 6, "0.392"), (("AP50",), 7, "0.574")}
    for cid, old, new in (("AP", "39.247", "39.347"), ("AP50", "57.391", "57.491")):
        moved = DETECTION.replace(old, new)
        assert findings(judge(moved, claims)) == [("drift", (cid,), 11, new)]


# Dolijun/mmcamp2_assignment 01_mmpose_assign/README.md: mmengine's test log, the line of
# `coco/` keys under `bbox_mAP_copypaste: ...`. mmengine's `coco/` is no part a document writes
# beside the metric: `bbox_mAP` alone would begin `bbox_mAP_copypaste` and satisfy the claim on
# its first number. A guard (this held before): the key whole anchors it; a moved value drifts.
MMENGINE = """### epoch165 result
```
06/04 11:48:04 - mmengine - INFO - bbox_mAP_copypaste: 0.781 0.952 0.903 -1.000 -1.000 0.781
06/04 11:48:04 - mmengine - INFO - Epoch(test) [11/11]    coco/bbox_mAP: 0.7810  coco/bbox_mAP_50: 0.9520  coco/bbox_mAP_75: 0.9030  coco/bbox_mAP_s: -1.0000  data_time: 0.3000  time: 0.4225
```
"""


def test_a_framework_namespace_is_no_part() -> None:
    claims = [claim("B", "coco/bbox_mAP", 0.781), claim("B50", "coco/bbox_mAP_50", 0.952)]
    assert AnchorIndex(claims).compound == {}
    assert findings(judge(MMENGINE, claims)) == []
    moved = MMENGINE.replace("coco/bbox_mAP: 0.7810", "coco/bbox_mAP: 0.7910")
    assert findings(judge(moved, claims)) == [("drift", ("B",), 4, "0.7910")]


def test_the_cached_index_keeps_the_parts() -> None:
    index = AnchorIndex(AGIEVAL_CLAIMS + GSM8K_CLAIMS)
    again = AnchorIndex.from_parts(*index.parts())
    assert again.compound == index.compound
    assert again.parts_of == index.parts_of
    assert again.compound["S"] == (frozenset({"gsm8k", "exact match", "strict match"}),
                                   "gsm8k exact match strict match")
