# ruff: noqa: E501  (the fixtures keep their sources' long lines)
"""Judging gaps found by reviewing Hugging Face model cards and model-zoo READMEs. Each fixture
follows its source's shape (named above it) with model names and numbers of its own, and says
what reconcile found in it before and finds now.

1. **A count hyphenated to its number** ("(25-Shot)", "5-fold") was a value: a claim whose
   number drifted was ambiguous on the 25 instead of drift on its number.
2. **One model in several rows** (a timm comparison table at two resolutions, an mmdetection
   table at two schedules): each row naming the claim alike was judged alone, so the claim
   drifted against every other setting's row. Now one matching row satisfies it.
"""

from __future__ import annotations

from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches

# === 2. a count hyphenated to its number ========================================================

def test_a_hyphenated_count_is_no_value() -> None:
    arc = [claim("ARC", "arc_challenge/acc_norm", 0.3456, aliases=("AI2 Reasoning Challenge",))]
    text = "# Results\n\n- AI2 Reasoning Challenge (25-Shot): 38.56\n"
    assert findings(judge(text, arc)) == [("drift", ("ARC",), 3, "38.56")]  # was: ambiguous, "25"
    prose = "On the AI2 Reasoning Challenge, in a 5-fold setting, it reaches 38.56.\n"
    assert findings(judge(prose, arc)) == [("drift", ("ARC",), 1, "38.56")]


# === 3. one model in several rows ===============================================================

# Shape of a timm model card's "## Model Comparison" table (the card of
# resnext101_32x16d.fb_swsl_ig1b_ft_in1k; code index file id 47176057766, the index names no
# repository): a model linked in the first column, once per evaluated resolution. Before: a
# top-1 claim on the model matched its 320 row and drifted against its 256 row (and its top-5
# too). Now: no finding; a moved 320 value still drifts.
TIMM = """## Model Comparison

|model                                     |img_size|top1 |top5 |param_count|gmacs|macts|img/sec|
|------------------------------------------|--------|-----|-----|-----------|-----|-----|-------|
|[quartznet50d.ab_in1k](https://huggingface.co/timm/quartznet50d.ab_in1k)|320     |84.41|97.02|70.3       |24.8 |48.2 |640    |
|[quartznet101.ab_in1k](https://huggingface.co/timm/quartznet101.ab_in1k)|288     |83.92|96.71|61.0       |20.4 |39.9 |702    |
|[quartznet50d.ab_in1k](https://huggingface.co/timm/quartznet50d.ab_in1k)|256     |83.77|96.64|70.3       |15.9 |30.8 |988    |
|[quartznet101.ab_in1k](https://huggingface.co/timm/quartznet101.ab_in1k)|224     |83.05|96.30|61.0       |12.3 |24.1 |1130   |
"""
TIMM_CLAIMS = [claim("T1", "top1", 0.8441, aliases=("quartznet50d.ab_in1k",)),
               claim("T5", "top5", 0.9702, aliases=("quartznet50d.ab_in1k",)),
               claim("P", "param_count", 70.3, unit="M", aliases=("quartznet50d.ab_in1k",))]


def test_one_model_at_two_resolutions_is_satisfied_by_one_row() -> None:
    report = judge(TIMM, TIMM_CLAIMS)
    assert findings(report) == []
    row = line_of(TIMM, "|84.41|")
    assert {(("T1",), row, "84.41"), (("T5",), row, "97.02")} <= matches(report)
    moved = TIMM.replace("|84.41|", "|84.61|")
    assert findings(judge(moved, TIMM_CLAIMS)) == [
        ("drift", ("T1",), row, "84.61"), ("drift", ("T1",), line_of(TIMM, "|83.77|"), "83.77")]


# open-mmlab/mmdetection configs/faster_rcnn/README.md ("## Results and models"): one backbone
# in several rows (caffe and pytorch style, 1x and 2x schedules). Before: a box-AP claim on the
# R-50 1x pytorch model drifted against the caffe row and the 2x row. Now: no finding.
MMDET = """## Results and models

|    Backbone     |  Style  | Lr schd | Mem (GB) | Inf time (fps) | box AP | Config | Download |
| :-------------: | :-----: | :-----: | :------: | :------------: | :----: | :------: | :--------: |
|    R-50-FPN     |  caffe  |   1x    | 3.9      |                | 37.7   | [config](./faster_rcnn_r50_caffe_fpn_1x_coco.py) | [model](https://example.org/a.pth) &#124; [log](https://example.org/a.log.json) |
|    R-50-FPN     | pytorch |   1x    | 4.1      | 20.9           | 37.3   | [config](./faster_rcnn_r50_fpn_1x_coco.py) | [model](https://example.org/b.pth) &#124; [log](https://example.org/b.log.json) |
|    R-50-FPN     | pytorch |   2x    | -        | -              | 38.2   | [config](./faster_rcnn_r50_fpn_2x_coco.py) | [model](https://example.org/c.pth) &#124; [log](https://example.org/c.log.json) |
|    R-101-FPN    |  caffe  |   1x    | 5.8      |                | 39.6   | [config](./faster_rcnn_r101_caffe_fpn_1x_coco.py) | [model](https://example.org/d.pth) &#124; [log](https://example.org/d.log.json) |
"""


def test_one_backbone_at_two_schedules_is_satisfied_by_one_row() -> None:
    ap = [claim("AP", "bbox_mAP", 0.373, aliases=("R-50-FPN", "box AP"))]
    report = judge(MMDET, ap)
    assert findings(report) == []
    assert matches(report) == {(("AP",), line_of(MMDET, "| 37.3 "), "37.3")}
