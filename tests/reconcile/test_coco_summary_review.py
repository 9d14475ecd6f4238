# ruff: noqa: E501  (the fixtures' lines are as wide as the printouts they follow)
"""pycocotools' ``COCOeval.summarize()`` printouts, as training logs, notebooks and READMEs paste
them (`coco_summary`). Each fixture follows the shape of a real file, named above it, with our own
numbers (the twelve lines are generated with pycocotools' own format string); the findings it
gave before this change and gives now are in the comment above each test.

Before: every summary line is named by "Average Precision"/"AP" alike, so a claim on ``AP`` was
judged on every line (and drifted on the ``0.50`` inside a bracket), one on ``bbox_mAP``,
``AP50``, ``APs`` or ``AR@100`` on none, and a moved value got no finding. Now each line is the
claims whose name *is* its statistic, the bracket's numbers are never values, and a moved value
is drift on its own line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.coco_summary import (
    Spec,
    blank_brackets,
    parse_line,
    spec_of,
    summaries,
)
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches
from tests.reconcile.test_notebooks_review import found, matched, notebook
from tests.reconcile.test_notebooks_review import judge as judge_notebook

# (kind, IoU, area, maxDets) of summarize()'s twelve lines, in its order
_STATS = [("AP", "0.50:0.95", "all", 100), ("AP", "0.50", "all", 100),
          ("AP", "0.75", "all", 100), ("AP", "0.50:0.95", "small", 100),
          ("AP", "0.50:0.95", "medium", 100), ("AP", "0.50:0.95", "large", 100),
          ("AR", "0.50:0.95", "all", 1), ("AR", "0.50:0.95", "all", 10),
          ("AR", "0.50:0.95", "all", 100), ("AR", "0.50:0.95", "small", 100),
          ("AR", "0.50:0.95", "medium", 100), ("AR", "0.50:0.95", "large", 100)]


def line(kind: str, iou: str, area: str, dets: int, value: float, lead: str = " ") -> str:
    """One line as pycocotools' ``_summarize`` formats it."""
    title = "Average Precision" if kind == "AP" else "Average Recall"
    return (lead + f"{title:<18} ({kind}) @[ IoU={iou:<9} | area={area:>6s} | "
            f"maxDets={dets:>3d} ] = {value:0.3f}\n")


def summary(values: list[float], lead: str = " ") -> str:
    return "".join(line(*stat, value, lead) for stat, value in zip(_STATS, values, strict=True))


OURS = [0.412, 0.603, 0.447, 0.245, 0.451, 0.538, 0.331, 0.544, 0.583, 0.394, 0.617, 0.741]


# === the line parser =============================================================================

def test_a_line_parses_to_its_fields() -> None:
    got = parse_line(line("AR", "0.50:0.95", "small", 100, 0.394))
    assert got is not None
    assert (got.kind, got.iou, got.area, got.max_dets, got.cat, got.value) == (
        "AR", (50, 95), "small", 100, "all", "0.394")
    # LVIS' evaluator: areas s/m/l and a catIds field (DisAlign's README below)
    lvis = parse_line(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=     s | maxDets=300 catIds=  r] = 0.127")
    assert lvis is not None
    assert (lvis.area, lvis.cat, lvis.max_dets) == ("small", "r", 300)
    assert parse_line("Average Precision (AP) of the baseline = 0.374") is None


_IOUS = st.one_of(st.sampled_from(["0.50:0.95", "0.50", "0.75"]),
                  st.integers(1, 99).map(lambda h: f"0.{h:02d}"))


@given(kind=st.sampled_from(["AP", "AR"]), iou=_IOUS,
       area=st.sampled_from(["all", "small", "medium", "large"]),
       dets=st.integers(1, 99999), value=st.floats(-1, 1),
       lead=st.sampled_from(["", " ", "    ", "# ", "[12/05 10:01:02 d2.evaluation]: "]),
       cat=st.sampled_from([None, "all", "r", "c", "f"]))
def test_any_well_formed_line_parses_to_its_fields(kind: str, iou: str, area: str, dets: int,
                                                    value: float, lead: str,
                                                    cat: str | None) -> None:
    text = line(kind, iou, area, dets, value, lead)
    if cat is not None:  # LVIS: "maxDets=300 catIds=  r]"
        text = text.replace(" ] =", f" catIds={cat:>3s}] =")
    got = parse_line(text)
    assert got is not None
    hundredths = tuple(int(t[2:4]) for t in iou.split(":"))
    assert (got.kind, got.iou, got.area, got.max_dets, got.cat) == (
        kind, hundredths, area, dets, cat or "all")
    assert got.value == f"{value:0.3f}"
    assert text[got.value_start:].startswith(got.value)
    blanked = blank_brackets(text)
    assert len(blanked) == len(text)
    assert blanked.count("\n") == text.count("\n")
    assert "maxDets" not in blanked
    assert blanked.endswith(got.value + "\n")
    assert [s.start for s in summaries(text * 3)] == [got.start + k * len(text) for k in range(3)]


@given(st.text())
def test_garbage_never_raises(text: str) -> None:
    parse_line(text)
    spec_of(text)
    summaries(text + " maxDets")
    blanked = blank_brackets(text + "maxDets")
    assert len(blanked) == len(text) + len("maxDets")


# === what a claim's name says ====================================================================

@pytest.mark.parametrize(("name", "stat"), [
    ("bbox_mAP", 0), ("coco/bbox_mAP", 0), ("bbox/AP", 0), ("AP", 0), ("mAP", 0),
    ("mAP@0.5:0.95", 0), ("AP@[.5:.95]", 0), ("map", 0), ("test.bbox_mAP", 0),
    ("bbox_mAP_50", 1), ("coco/bbox_mAP_50", 1), ("AP50", 1), ("bbox/AP50", 1),
    ("mAP@0.5", 1), ("eval_map_50", 1), ("AP75", 2), ("bbox_mAP_75", 2),
    ("APs", 3), ("AP_small", 3), ("bbox_mAP_s", 3), ("map_small", 3), ("AP_S", 3),
    ("APm", 4), ("bbox_mAP_m", 4), ("APl", 5), ("AP_large", 5),
    ("AR1", 6), ("AR@1", 6), ("mar_1", 6), ("AR10", 7), ("AR@100", 8), ("AR_100", 8),
    ("mar_100", 8), ("ARs", 9), ("AR_small", 9), ("mar_medium", 10), ("ARl", 11),
])
def test_a_metric_name_is_its_line(name: str, stat: str) -> None:
    spec = spec_of(name)
    assert spec is not None
    lines = [parse_line(line(*s, 0.5)) for s in _STATS]
    assert [i for i, got in enumerate(lines) if got is not None and spec.fits(got, None)] == [stat]


@pytest.mark.parametrize("name", [
    "apple", "accuracy", "psnr", "bbox_segm_mAP", "AP@0.62:0.9",
    # Ultralytics' own evaluator's (a YOLO log prints it beside pycocotools', and they differ)
    "mAP50", "mAP50-95", "metrics/mAP50-95(B)",
])
def test_a_name_of_no_summary_line(name: str) -> None:
    assert spec_of(name) is None


def test_a_name_leaving_a_field_open_fits_several_lines() -> None:
    spec = spec_of("AR")  # maxDets 1, 10 and 100: judged together, never guessed
    assert spec == Spec(kind="AR")
    lines = [parse_line(line(*s, 0.5)) for s in _STATS]
    assert [i for i, got in enumerate(lines) if got is not None and spec.fits(got, None)] == [6, 7, 8]


# === a printed log (.txt) =========================================================================

# The twelve lines as pycocotools prints them after "Accumulating evaluation results...", the
# shape of the eval logs pasted in Megvii-BaseDetection/AutoAssign
# auto_assign.res50.fpn.coco.800size.1x/README.md and zjykzj/YOLOv5 docs/records/reproduce.md.
LOG = ("Evaluate annotation type *bbox*\nDONE (t=9.12s).\nAccumulating evaluation results...\n"
       "DONE (t=1.31s).\n" + summary(OURS))

# Before: each of these claims had no finding and no match, the line right or moved (the `AP`
# claim was ambiguous on the "0.50" of the second line's bracket). Now: matched on its line, and a
# moved value is drift on its line.
NAMED = [("bbox_mAP", 0), ("AP", 0), ("coco/bbox_mAP_50", 1), ("AP50", 1), ("AP75", 2),
         ("APs", 3), ("bbox_mAP_m", 4), ("AP_large", 5), ("AR1", 6), ("AR@10", 7),
         ("AR@100", 8), ("AR_100", 8), ("ARs", 9), ("mar_medium", 10), ("ARl", 11)]


@pytest.mark.parametrize(("name", "stat"), NAMED)
def test_each_claim_is_its_own_line(name: str, stat: int) -> None:
    row = 5 + stat  # the summary's first line is the log's fifth
    value = OURS[stat]
    report = judge(LOG, [claim("C1", name, value)], path="eval.txt")
    assert findings(report) == []
    assert matches(report) == {(("C1",), row, f"{value:0.3f}")}
    report = judge(LOG, [claim("C1", name, value + 0.004)], path="eval.txt")
    assert findings(report) == [("drift", ("C1",), row, f"{value:0.3f}")]
    assert matches(report) == set()


def test_every_claim_at_once_and_the_brackets_are_no_values() -> None:
    # every claim on its line, the bracket's 0.50, 0.95, 0.75 and 100 never a candidate: a
    # claim whose value one of them is (AP50 0.50, AR@100 0.95) drifts on its line's value
    claims = [claim(f"C{i}", name, OURS[stat]) for i, (name, stat) in enumerate(NAMED)]
    report = judge(LOG, claims, path="eval.txt")
    assert findings(report) == []
    assert {(m[1], m[2]) for m in matches(report)} == {
        (5 + stat, f"{OURS[stat]:0.3f}") for _, stat in NAMED}
    report = judge(LOG, [claim("A", "AP50", 0.50), claim("R", "AR@100", 0.95),
                         claim("P", "AP", 0.75)], path="eval.txt")
    assert findings(report) == [("drift", ("P",), 5, "0.412"), ("drift", ("A",), 6, "0.603"),
                                ("drift", ("R",), 13, "0.583")]


def test_a_name_fitting_several_lines_stays_ambiguous() -> None:
    # a bare "AR" is AR@1, AR@10 or AR@100: one matching satisfies it, none is ambiguous
    # (before: ambiguous on the bracket's "100" either way)
    assert findings(judge(LOG, [claim("R", "AR", 0.583)], path="eval.txt")) == []
    assert findings(judge(LOG, [claim("R", "AR", 0.590)], path="eval.txt")) == [
        ("ambiguous", ("R",), 11, "0.331")]


def test_a_shared_alias_does_not_join_lines() -> None:
    # "FooDet" names both claims (no quantity): each is still its own line's only
    claims = [claim("A", "bbox_mAP", 0.412, aliases=("FooDet",)),
              claim("A5", "bbox_mAP_50", 0.609, aliases=("FooDet",))]
    assert findings(judge("FooDet\n" + LOG, claims, path="eval.txt")) == [
        ("drift", ("A5",), 7, "0.603")]


# mmdetection 2.x's log after a validation: the summary, then its copypaste line and the epoch's
# "bbox_mAP: ..., bbox_mAP_50: ..." record (the format its `CocoDataset.evaluate` logs), as
# training logs paste them. Before: the summary was nobody's, and the record's moved
# bbox_mAP_50 drift. Now the summary's lines are the claims' too, judged apart from the
# record, so the moved record value is still drift (not satisfied by the summary's line).
MMDET = (LOG + "2024-03-02 10:11:12,345 - mmdet - INFO - \n"
         "bbox_mAP_copypaste: 0.412 0.603 0.447 0.245 0.451 0.538\n"
         "2024-03-02 10:11:12,999 - mmdet - INFO - Epoch(val) [12][625]\tbbox_mAP: 0.4120, "
         "bbox_mAP_50: 0.6030, bbox_mAP_75: 0.4470, bbox_mAP_s: 0.2450, bbox_mAP_m: 0.4510, "
         "bbox_mAP_l: 0.5380, bbox_mAP_copypaste: 0.412 0.603 0.447 0.245 0.451 0.538\n")
MMDET_CLAIMS = [claim("A", "bbox_mAP", 0.412), claim("A5", "bbox_mAP_50", 0.603)]


def test_mmdetection_records_beside_the_summary() -> None:
    report = judge(MMDET, MMDET_CLAIMS, path="train.log.txt")
    assert findings(report) == []
    assert {(("A5",), 6, "0.603"), (("A5",), 19, "0.6030"), (("A",), 5, "0.412")} <= matches(report)
    moved = MMDET.replace("bbox_mAP_50: 0.6030", "bbox_mAP_50: 0.6090")
    assert findings(judge(moved, MMDET_CLAIMS, path="train.log.txt")) == [
        ("drift", ("A5",), 19, "0.6090")]
    moved = MMDET.replace("= 0.603\n", "= 0.609\n")
    assert findings(judge(moved, MMDET_CLAIMS, path="train.log.txt")) == [
        ("drift", ("A5",), 6, "0.609")]


# Mask R-CNN's evaluation: a bbox summary, then a segm one, each after pycocotools' "Evaluate
# annotation type *...*" (torchvision's references print "IoU metric: bbox" instead; both as in
# the log pasted in YoraiLevi/Intro-to-Deep-Learning-Final-Project-CS236781 src/training_detr.py).
# Before: no claim judged. Now a claim naming its IoU type is judged on that summary only.
SEGM = [0.377, 0.581, 0.401, 0.188, 0.409, 0.552, 0.311, 0.486, 0.509, 0.329, 0.547, 0.655]
MASK_LOG = (LOG + "Running per image evaluation...\nEvaluate annotation type *segm*\n"
            "DONE (t=10.45s).\nAccumulating evaluation results...\nDONE (t=1.29s).\n"
            + summary(SEGM))


def test_bbox_and_segm_summaries() -> None:
    claims = [claim("B", "bbox_mAP", 0.412), claim("S", "segm_mAP", 0.377),
              claim("S5", "segm/AP50", 0.581)]
    report = judge(MASK_LOG, claims, path="eval.txt")
    assert findings(report) == []
    assert matches(report) == {(("B",), 5, "0.412"), (("S",), 22, "0.377"),
                               (("S5",), 23, "0.581")}
    claims[1] = claim("S", "segm_mAP", 0.412)  # the bbox AP's value: drift on the segm line
    assert findings(judge(MASK_LOG, claims, path="eval.txt")) == [
        ("drift", ("S",), 22, "0.377")]


# A training log evaluating every 10 epochs ("Epoch:10/140" over "IoU metric: bbox" and the
# summary, as in the DETR logs the search turned up). A claim named alike on each epoch's line
# is satisfied by any, as a log's records are (`log_units`); none matching drifts on the last
# epoch's line, the most recent value (`progress`; before: ambiguous on the first epoch's).
EPOCHS = "".join(f"Epoch:{e}/140\nIoU metric: bbox\n" + summary([v, *OURS[1:]])
                 for e, v in ((10, 0.213), (20, 0.301), (30, 0.412)))


def test_epochs_of_a_training_log() -> None:
    assert findings(judge(EPOCHS, [claim("A", "bbox_mAP", 0.412)], path="train.txt")) == []
    assert findings(judge(EPOCHS, [claim("A", "bbox_mAP", 0.417)], path="train.txt")) == [
        ("drift", ("A",), 31, "0.412")]


# === READMEs =====================================================================================

# Megvii-BaseDetection/AutoAssign auto_assign.res50.fpn.coco.800size.1x/README.md (commit
# de0a8045dccf4d8eb055c39fea9f56b4bb5a374c): "## Evaluation results for bbox:" over a bare fence
# (trailing spaces after the ``` ) holding the summary, then cvpods' table in percent points
# to three decimals and the per-category AP table. Megvii-BaseDetection/DeFCN
# playground/detection/coco/poto.res50.fpn.coco.800size.3x_ms.3dmf.aux/README.md is the same
# with the summary's lines unindented. Claims are mmdetection-style fractions aliased by the
# table's headers.
# Before: the fence's lines were nobody's but the "AP" claim's, ambiguous on the "0.50" of the
# second line's bracket whatever the values; a moved summary value got no finding. Now each line is its claim's,
# and a moved value in the fence or the table is drift where it moved.
def readme(lead: str) -> str:
    return ("# auto_assign.res50.fpn.coco.800size.1x\n\nseed: 12345678\n\n"
            "## Evaluation results for bbox:  \n\n```  \n" + summary(OURS, lead) + "```  \n"
            "|   AP   |  AP50  |  AP75  |  APs   |  APm   |  APl   |  \n"
            "|:------:|:------:|:------:|:------:|:------:|:------:|  \n"
            "| 41.237 | 60.311 | 44.702 | 24.518 | 45.093 | 53.822 |\n\n"
            "### Per-category bbox AP:  \n\n"
            "| category      | AP     | category     | AP     |  \n"
            "|:--------------|:-------|:-------------|:-------|  \n"
            "| person        | 53.012 | bicycle      | 30.140 |  \n"
            "| car           | 41.237 | bus          | 60.311 |  \n")


README_CLAIMS = [claim("A", "bbox_mAP", 0.41237, aliases=("AP",)),
                 claim("A5", "bbox_mAP_50", 0.60311, aliases=("AP50",)),
                 claim("S", "bbox_mAP_s", 0.24518, aliases=("APs",))]


@pytest.mark.parametrize("lead", [" ", ""])
def test_a_readme_fence_and_its_percent_table(lead: str) -> None:
    text = readme(lead)
    report = judge(text, README_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {(("A",), 8, "0.412"), (("A5",), 9, "0.603"), (("S",), 11, "0.245"),
                               (("A",), 23, "41.237"), (("A5",), 23, "60.311"),
                               (("S",), 23, "24.518")}
    moved = text.replace("= 0.603", "= 0.609")
    assert findings(judge(moved, README_CLAIMS)) == [("drift", ("A5",), 9, "0.609")]
    moved = text.replace("| 60.311 | 44.702", "| 60.911 | 44.702")
    assert findings(judge(moved, README_CLAIMS)) == [("drift", ("A5",), 23, "60.911")]


def test_claims_in_percent_points_against_the_fraction() -> None:
    # cvpods' and detectron2's metrics store `bbox/AP` in points (41.237): the summary's 0.412
    # is that at its precision (before: neither matched nor drifted, the fraction implausible)
    claims = [claim("A", "bbox/AP", 41.237), claim("A5", "bbox/AP50", 60.311)]
    text = readme(" ")
    report = judge(text, claims)
    assert findings(report) == []
    assert {(("A",), 8, "0.412"), (("A5",), 9, "0.603")} <= matches(report)
    moved = judge(text.replace("= 0.603", "= 0.609"), claims)
    assert findings(moved) == [("drift", ("A5",), 9, "0.609")]
    # the message says the scale it was judged at
    assert moved.findings[0].message.startswith(
        "A5 says 0.609 (= 60.9 points), evidence says 60.311 ")


# Megvii-BaseDetection/DisAlign segmentation/lvis0.5/mask_rcnn/res50/
# mask_rcnn.res50.fpn.lvis.multiscale.rfs.1x/README.md: LVIS' summaries ("area=     s",
# "catIds=  r"), one under "## Evaluation results for bbox:", one under "... for segm:", each
# followed by its points table. Before: `bbox/AP` and `segm/AP` matched by chance (their parts,
# "bbox" or "segm" in the heading and "AP" on every line, named all seven lines alike, so any
# equal value satisfied them), `segm/APr` had nothing, moved or not. Now a claim naming its IoU
# type and LVIS category group is judged on its section's line only.
def lvis(values: list[float]) -> str:
    stats = [("AP", "0.50:0.95", "all", "all"), ("AP", "0.50", "all", "all"),
             ("AP", "0.50:0.95", "s", "all"), ("AP", "0.50:0.95", "all", "r"),
             ("AP", "0.50:0.95", "all", "c"), ("AP", "0.50:0.95", "all", "f"),
             ("AR", "0.50:0.95", "all", "all")]
    return "".join(
        line(kind, iou, area, 300, v).replace(" ] =", f" catIds={cat:>3s}] =")
        for (kind, iou, area, cat), v in zip(stats, values, strict=True))


LVIS = ("# mask_rcnn.res50.fpn.lvis.multiscale.rfs.1x  \n\n## Evaluation results for bbox:  \n\n"
        "```  \n" + lvis([0.236, 0.389, 0.182, 0.128, 0.225, 0.291, 0.310]) + "```  \n\n"
        "## Evaluation results for segm:  \n\n"
        "```  \n" + lvis([0.243, 0.374, 0.162, 0.151, 0.238, 0.288, 0.318]) + "```  \n")


def test_lvis_summaries_per_iou_type() -> None:
    claims = [claim("B", "bbox/AP", 0.236), claim("S", "segm/AP", 0.243),
              claim("R", "segm/APr", 0.151)]
    report = judge(LVIS, claims)
    assert findings(report) == []
    assert matches(report) == {(("B",), 6, "0.236"), (("S",), 18, "0.243"),
                               (("R",), 21, "0.151")}
    claims[2] = claim("R", "segm/APr", 0.128)  # the bbox section's rare AP
    assert findings(judge(LVIS, claims)) == [("drift", ("R",), 21, "0.151")]


# zjykzj/YOLOv5 docs/records/reproduce.md (commit 17cda9f34b8a88029b8e79541a029bb4fb2387a4): a
# ```text fence of a YOLOv5 training run: its own validator's table ("all ... mAP50 mAP50-95"),
# then pycocotools' summary of the same weights, which differs in the third decimal.
# Before: nothing judged (YOLO's validator table under its progress-bar header is not read, here
# or before). Now a `bbox_mAP` claim (pycocotools') is judged on the summary's first line, and
# the `mAP50-95` / `mAP50` claims (YOLO's results.csv) are not: Ultralytics' glued names are its
# own evaluator's, so YOLO's 0.362 is no drift against pycocotools' 0.367.
YOLO = ("```text\nValidating runs/train/exp/weights/best.pt...\nFusing layers... \n"
        "                 Class     Images  Instances          P          R      mAP50   mAP50-95: 100%|##########| 625/625 [00:51<00:00, 12.17it/s]\n"
        "                   all       5000      36335      0.642       0.51      0.548      0.362\n"
        "loading annotations into memory...\nDone (t=0.61s)\nEvaluate annotation type *bbox*\n"
        "DONE (t=91.20s).\nAccumulating evaluation results...\nDONE (t=19.70s).\n"
        + summary([0.367, 0.556, *OURS[2:]]) + "Results saved to runs/train/exp\n```\n")


def test_ultralytics_names_are_not_the_summary() -> None:
    claims = [claim("Y", "mAP50-95", 0.362), claim("Y5", "mAP50", 0.548),
              claim("P", "bbox_mAP", 0.367)]
    report = judge(YOLO, claims)
    assert findings(report) == []
    assert matches(report) == {(("P",), 12, "0.367")}
    claims[2] = claim("P", "bbox_mAP", 0.362)  # YOLO's own number: drift on the summary's
    assert findings(judge(YOLO, claims)) == [("drift", ("P",), 12, "0.367")]


# === a notebook ==================================================================================

# A notebook's stream output of torchvision's detection reference `evaluate` ("IoU metric: bbox"
# over the summary, as in the output pasted in YoraiLevi/Intro-to-Deep-Learning-Final-Project-
# CS236781 src/training_detr.py). Before: nothing judged. Now each claim on its line.
def _nb_text() -> str:
    lines = ["Test: Total time: 0:00:41 (0.2311 s / it)\n", "Averaged stats: model_time: 0.0912\n",
             "Accumulating evaluation results...\n", "DONE (t=0.52s).\n", "IoU metric: bbox\n",
             *summary(OURS).splitlines(keepends=True)]
    return notebook('\n  {"cell_type": "code", "execution_count": 3, "metadata": {}, '
                    '"outputs": [{"name": "stdout", "output_type": "stream", "text": '
                    + json.dumps(lines) + '}], "source": ["evaluate(model, loader)"]}')


def test_a_notebook_stream(tmp_path: Path) -> None:
    claims: list[Claim] = [claim("A", "bbox_mAP", 0.412), claim("R", "AR_100", 0.583)]
    report = judge_notebook(tmp_path, _nb_text(), claims)
    assert found(report) == []
    assert {(m[0], m[3]) for m in matched(report)} == {(("A",), "0.412"), (("R",), "0.583")}
    claims[1] = claim("R", "AR_100", 0.589)
    assert [(f[0], f[1], f[5]) for f in found(judge_notebook(tmp_path, _nb_text(), claims))] == [
        ("drift", ("R",), "0.583")]
