"""Judging gaps found by reviewing results files committed to repositories (training logs saved
as text, evaluation printouts, per-epoch CSV files), each fixture shaped as its source (named
above it) with our own names and numbers, with the findings it gave before and gives now.

1. **A score's task tag is no multiplier.** Ultralytics' ``results.csv`` heads its columns
   ``metrics/mAP50(B)``, ``metrics/precision(M)``: the box's and the mask's scores. ``(B)`` and
   ``(M)`` were read as billions and millions (`Params (M)`), so every cell of those columns
   was a number of billions, never plausible for a claim on a score: nothing was checked, and
   a moved mAP went unreported.
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
