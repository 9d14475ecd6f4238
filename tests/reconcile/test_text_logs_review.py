# ruff: noqa: E501  (the fixtures keep their log lines whole)
"""Judging gaps found by reviewing results files committed to repositories (training logs saved
as text, evaluation printouts, per-epoch CSV files), each fixture shaped as its source (named
above it) with our own names and numbers, with the findings it gave before and gives now.

1. **A score's task tag is no multiplier.** Ultralytics' ``results.csv`` heads its columns
   ``metrics/mAP50(B)``, ``metrics/precision(M)``: the box's and the mask's scores. ``(B)`` and
   ``(M)`` were read as billions and millions (`Params (M)`), so every cell of those columns
   was a number of billions, never plausible for a claim on a score: nothing was checked, and
   a moved mAP went unreported.
2. **detectron2's evaluation log.** Its pipe tables (the results, the per-category AP) and
   pycocotools' progress messages ("creating index...") outnumbered its records, so the log was
   read as prose and its tables as sentences. Now a pipe table in a ``.txt`` is a table, its
   rows and lines ending in "..." count neither way when telling a log from prose
   (`doc_readers.is_log`), and in a table whose rows are classes (first column "category") a cell is only a claim's that its row names (`doc_readers.Table.per_class`).
"""

from __future__ import annotations

from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

# === 1. a score's task tag in a header ===========================================================

# 102y/Gallstone-Detection-using-YOLO-v11 results.csv (commit 2fd33d2b): an Ultralytics
# segmentation run, one row per epoch, box scores under "(B)" and mask scores under "(M)".
# Before: no match and no finding for claims on the last epoch's box mAP50, mAP50-95 and mask
# mAP50, and none when the box mAP50 cell was moved. Now each is matched in its row, and the
# moved cell is a finding of its claim.
YOLO_SEG_RESULTS = (
    "epoch,time,train/box_loss,train/seg_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),metrics/precision(M),metrics/recall(M),"
    "metrics/mAP50(M),metrics/mAP50-95(M),val/box_loss,lr/pg0\n"
    "1,512.4,1.5127,2.2913,0.70125,0.15531,0.24410,0.12954,0.71022,0.15012,0.24987,0.13321,"
    "1.2911,0.000531\n"
    "2,1101.9,1.3012,1.7240,0.66871,0.49712,0.70035,0.42118,0.67433,0.50011,0.70512,0.41207,"
    "1.3204,0.000987\n"
    "3,1688.2,1.2544,1.6013,0.80312,0.74420,0.80977,0.50113,0.80561,0.77012,0.81123,0.46871,"
    "1.2316,0.001156\n"
    "4,2270.5,1.0012,1.2533,0.90871,0.88214,0.93785,0.69512,0.91244,0.87933,0.93661,0.60872,"
    "0.94013,0.000192\n")
YOLO_CLAIMS = [
    claim("B50", "map50", 0.93785, aliases=("mAP50(B)",)),
    claim("B95", "map50_95", 0.69512, aliases=("mAP50-95(B)",)),
    claim("M50", "mask_map50", 0.93661, aliases=("mAP50(M)",)),
]


def test_a_task_tag_in_a_results_csv_header_is_no_multiplier() -> None:
    report = judge(YOLO_SEG_RESULTS, YOLO_CLAIMS, path="runs/segment/train/results.csv")
    assert findings(report) == []
    assert matches(report) == {(("B50",), 5, "0.93785"), (("B95",), 5, "0.69512"),
                               (("M50",), 5, "0.93661")}


def test_a_moved_score_under_a_task_tag_is_a_finding() -> None:
    moved = YOLO_SEG_RESULTS.replace("0.93785", "0.93795")
    report = judge(moved, YOLO_CLAIMS[:1], path="runs/segment/train/results.csv")
    assert [(f[0], f[1]) for f in findings(report)] == [("ambiguous", ("B50",))]
    assert matches(report) == set()


def test_a_multiplier_in_parentheses_still_scales_a_count() -> None:
    # timm's and mmdetection's tables: "Params (M)", "FLOPs(B)" are millions and billions
    text = "model,top1,Params(M),FLOPs(B)\nlitenet_s,81.42,25.6,4.1\n"
    claims = [claim("P", "params", 25_600_000, aliases=("Params",)),
              claim("F", "flops", 4_100_000_000, aliases=("FLOPs",))]
    report = judge(text, claims, path="results/summary.csv")
    assert findings(report) == []
    assert matches(report) == {(("P",), 2, "25.6"), (("F",), 2, "4.1")}


# === 2. detectron2's evaluation log ==============================================================

# The evaluation detectron2 writes to its output/log.txt, as vaishali41/Mask2Former-MARs-
# Integration output_eval_mars_5k_50ep.md shows it: pycocotools' progress lines and summary,
# then the results as a pipe table, the per-category AP as a pipe table of (category, AP) pairs,
# and the copypaste lines. Before: the table rows and the progress messages ("creating
# index...") outnumbered the records, so the file was read as prose and the pipe table was no
# table: ambiguous B50 on "maxDets=100" (line 12) and ambiguous BOX on the results row's last
# cell, "49.071" (line 21), the file right or its AP cell moved. Now the file is a log, the results table a table (its AP cell matches the claim; moved, it
# is drift), and the per-category table's AP column is each class's, no overall AP claim's.
DETECTRON2_EVAL_LOG = """\
[03/08 09:41:17 d2.evaluation.evaluator]: Inference done 612/625. Dataloading: 0.0011 s/iter. Inference: 0.0712 s/iter. ETA=0:00:01
[03/08 09:41:18 d2.evaluation.evaluator]: Total inference time: 0:00:45.102 (0.072163 s / iter per device, on 1 devices)
Loading and preparing results...
DONE (t=0.05s)
creating index...
index created!
Running per image evaluation...
Evaluate annotation type *bbox*
DONE (t=0.71s).
Accumulating evaluation results...
DONE (t=0.13s).
 Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.377
 Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.581
 Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 0.402
 Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.309
 Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ] = 0.488
 Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.517
[03/08 09:41:19 d2.evaluation.coco_evaluation]: Evaluation results for bbox:
|   AP   |  AP50  |  AP75  |  APs   |  APm   |  APl   |
|:------:|:------:|:------:|:------:|:------:|:------:|
| 37.714 | 58.061 | 40.228 | 19.905 | 41.366 | 49.071 |
[03/08 09:41:19 d2.evaluation.coco_evaluation]: Per-category bbox AP:
| category   | AP     | category   | AP     |
|:-----------|:-------|:-----------|:-------|
| heron      | 52.318 | egret      | 28.140 |
| stork      | 37.090 | ibis       | 33.612 |
[03/08 09:41:19 d2.evaluation.testing]: copypaste: Task: bbox
[03/08 09:41:19 d2.evaluation.testing]: copypaste: AP,AP50,AP75,APs,APm,APl
[03/08 09:41:19 d2.evaluation.testing]: copypaste: 37.7140,58.0610,40.2280,19.9050,41.3660,49.0710
"""
D2_CLAIMS = [claim("BOX", "ap", 37.714, aliases=("box AP",)), claim("B50", "ap50", 58.061)]
D2_PATH = "output/eval/log.txt"


def test_a_detectron2_evaluation_log_is_a_log_with_its_results_table() -> None:
    report = judge(DETECTRON2_EVAL_LOG, D2_CLAIMS, path=D2_PATH)
    assert findings(report) == []
    # the summary's first two lines are the claims' too, their fractions read in the claims'
    # percent points (`coco_summary`)
    assert matches(report) == {(("BOX",), 21, "37.714"), (("B50",), 21, "58.061"),
                               (("BOX",), 12, "0.377"), (("B50",), 13, "0.581")}


def test_a_moved_cell_of_a_pipe_table_in_a_log_is_drift() -> None:
    moved = DETECTRON2_EVAL_LOG.replace("| 37.714 |", "| 37.724 |")
    report = judge(moved, D2_CLAIMS, path=D2_PATH)
    assert findings(report) == [("drift", ("BOX",), 21, "37.724")]
    assert matches(report) == {(("B50",), 21, "58.061"), (("BOX",), 12, "0.377"),
                               (("B50",), 13, "0.581")}


def test_a_claim_on_one_class_is_judged_in_its_row_of_the_per_category_table() -> None:
    claims = [*D2_CLAIMS, claim("STK", "stork_ap", 37.090, aliases=("stork",))]
    report = judge(DETECTRON2_EVAL_LOG, claims, path=D2_PATH)
    assert findings(report) == []
    assert (("STK",), 26, "37.090") in matches(report)
