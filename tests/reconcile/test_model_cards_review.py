# ruff: noqa: E501  (the fixtures keep their sources' long lines)
"""Judging gaps found by reviewing Hugging Face model cards and model-zoo READMEs. Each fixture
follows its source's shape (named above it) with model names and numbers of its own, and says
what reconcile found in it before and finds now.

1. **A card's ``model-index``** (YAML front matter) was read as Markdown list items, judged
   together with every headed line of the page: its ``value`` masked a drifted number in the
   card's results (and the reverse), and an entry whose metric is named by its dataset only
   (``name: AI2 Reasoning Challenge (25-Shot)`` over ``value: 34.56``) was not judged at all.
   Now each metric entry is a unit named by its result's dataset and task, and the entries
   are judged together apart from the page (`front_matter`). A YAML comment in it
   (``  # HellaSwag (10-shot)``) was a Markdown heading, whose claim then left the card's
   results table unjudged; front matter holds no heading now.
2. **A count hyphenated to its number** ("(25-Shot)", "5-fold") was a value: a claim whose
   number drifted was ambiguous on the 25 instead of drift on its number.
3. **One model in several rows** (a timm comparison table at two resolutions, an mmdetection
   table at two schedules): each row naming the claim alike was judged alone, so the claim
   drifted against every other setting's row. Now one matching row satisfies it (and when none
   does, the claim is one `ambiguous` finding naming its rows: test_leftouts_round5).
"""

from __future__ import annotations

from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.front_matter import model_index
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches

# === 1. model-index =============================================================================

# Shape of an email-classifier card found in the code index (file id 18659234824, its
# repository not named there): model-index entries written "- type / value / name", a
# "## Performance" list of bounds, and the same metrics printed in a bare fence under
# "## Validation metrics". Before: a changed YAML value gave no finding (the fence's matching
# number satisfied the claim), nor a changed fence line (the YAML's did). Now: drift on each.
CLASSIFIER = """---
license: mit
metrics:
- accuracy
- f1
model-index:
- name: ticket-router-bert
  results:
  - task:
      type: text-classification
      name: Text Classification
    dataset:
      type: custom
      name: Support Tickets
    metrics:
    - type: accuracy
      value: 0.91
      name: Accuracy
    - type: f1
      value: 0.88
      name: F1-Score
    - type: recall
      value: 0.85
      name: Recall
---

# Ticket Router

## Performance

- **Accuracy**: >90%
- **F1-Score**: >0.85

## Validation metrics

```
Accuracy: 0.91
F1-Score: 0.88
Recall: 0.85
```
"""
CLASSIFIER_CLAIMS = [claim("A", "accuracy", 0.9112, aliases=("Accuracy",)),
                     claim("F", "f1", 0.8804, aliases=("F1-Score",)),
                     claim("R", "recall", 0.8497, aliases=("Recall",))]


def test_a_model_index_value_and_the_page_are_judged_apart() -> None:
    report = judge(CLASSIFIER, CLASSIFIER_CLAIMS)
    assert findings(report) == []
    assert {(m[0], m[2]) for m in matches(report)} == {
        (("A",), "0.91"), (("F",), "0.88"), (("R",), "0.85")}
    assert len(matches(report)) == 6  # each number twice: in the YAML and in the fence
    yaml_moved = CLASSIFIER.replace("      value: 0.88\n", "      value: 0.98\n")
    assert findings(judge(yaml_moved, CLASSIFIER_CLAIMS)) == [
        ("drift", ("F",), line_of(yaml_moved, "value: 0.98"), "0.98")]
    fence_moved = CLASSIFIER.replace("F1-Score: 0.88", "F1-Score: 0.78")
    assert findings(judge(fence_moved, CLASSIFIER_CLAIMS)) == [
        ("drift", ("F",), line_of(fence_moved, "F1-Score: 0.78"), "0.78")]


# Shape of an Open LLM Leaderboard card (code index file id 71057451058, "Tiny-Vicuna-1B"; the
# index names no repository): one model-index result per benchmark, the benchmark named only in
# the result's dataset ("AI2 Reasoning Challenge (25-Shot)"), its metric "acc_norm" / "acc";
# the same numbers in an "Open LLM Leaderboard Evaluation Results" table. Before: every YAML
# value went unjudged (a moved one: no finding), and the "25" of "(25-Shot)" drifted against
# the ARC claim. Now: each entry judged by its dataset, no finding on the 25.
LEADERBOARD = """---
language:
- en
license: apache-2.0
model-index:
- name: Pico-Chat-1B
  results:
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: AI2 Reasoning Challenge (25-Shot)
      type: ai2_arc
      config: ARC-Challenge
      split: test
      args:
        num_few_shot: 25
    metrics:
    - type: acc_norm
      value: 34.56
      name: normalized accuracy
    source:
      url: https://huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard?query=someone/Pico-Chat-1B
      name: Open LLM Leaderboard
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: MMLU (5-Shot)
      type: cais/mmlu
      config: all
      split: test
      args:
        num_few_shot: 5
    metrics:
    - type: acc
      value: 26.12
      name: accuracy
    source:
      url: https://huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard?query=someone/Pico-Chat-1B
      name: Open LLM Leaderboard
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: Winogrande (5-shot)
      type: winogrande
      config: winogrande_xl
      split: validation
      args:
        num_few_shot: 5
    metrics:
    - type: acc
      value: 57.93
      name: accuracy
    source:
      url: https://huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard?query=someone/Pico-Chat-1B
      name: Open LLM Leaderboard
---
# Pico Chat 1B
A fine-tuned version of a small base model on a chat dataset.

# [Open LLM Leaderboard Evaluation Results](https://huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard)

|             Metric              |Value|
|---------------------------------|----:|
|Avg.                             |39.54|
|AI2 Reasoning Challenge (25-Shot)|34.56|
|MMLU (5-Shot)                    |26.12|
|Winogrande (5-shot)              |57.93|
"""
LEADERBOARD_CLAIMS = [claim("ARC", "arc_challenge/acc_norm", 0.3456, aliases=("AI2 Reasoning Challenge",)),
                      claim("MM", "mmlu/acc", 0.2612, aliases=("MMLU",)),
                      claim("WG", "winogrande/acc", 0.5793, aliases=("Winogrande",))]


def test_a_model_index_entry_is_named_by_its_dataset() -> None:
    report = judge(LEADERBOARD, LEADERBOARD_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {
        (("ARC",), line_of(LEADERBOARD, "value: 34.56"), "34.56"),
        (("MM",), line_of(LEADERBOARD, "value: 26.12"), "26.12"),
        (("WG",), line_of(LEADERBOARD, "value: 57.93"), "57.93"),
        (("ARC",), line_of(LEADERBOARD, "|34.56|"), "34.56"),
        (("MM",), line_of(LEADERBOARD, "|26.12|"), "26.12"),
        (("WG",), line_of(LEADERBOARD, "|57.93|"), "57.93")}
    for cid, old, new in (("ARC", "value: 34.56", "value: 35.56"),
                          ("MM", "value: 26.12", "value: 27.12"),
                          ("WG", "value: 57.93", "value: 58.93")):
        moved = LEADERBOARD.replace(old, new)
        assert findings(judge(moved, LEADERBOARD_CLAIMS)) == [
            ("drift", (cid,), line_of(moved, new), new.split()[-1])]


# Shape of a card with its Open LLM results written with a YAML comment over each result
# ("  # AI2 Reasoning Challenge (25-Shot)", as argilla's notus-7b-v1 card has them; code index
# file id 349824466), "name" before "value", and a benchmark table under "## Evaluation".
# Before: the comment was a Markdown heading naming the ARC claim, so the table (which no
# heading of its own names by it) was not the ARC claim's: its moved 63.12 gave no finding.
# Now: drift.
COMMENTED = """---
license: mit
model-index:
- name: brisk-7b-v1
  results:
  # AI2 Reasoning Challenge (25-Shot)
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: AI2 Reasoning Challenge (25-Shot)
      type: ai2_arc
      config: ARC-Challenge
      split: test
      args:
        num_few_shot: 25
    metrics:
       - type: acc_norm
         name: normalized accuracy
         value: 0.6312286689419796
  # HellaSwag (10-shot)
  - task:
      type: text-generation
      name: Text Generation
    dataset:
      name: HellaSwag (10-Shot)
      type: hellaswag
      split: validation
      args:
        num_few_shot: 10
    metrics:
       - type: acc_norm
         name: normalized accuracy
         value: 0.8341366261700856
---

# Model Card for brisk-7b-v1

## Evaluation

| Benchmark | brisk-7b-v1 |
|---|---|
| ARC (25-shot) | 63.12 |
| HellaSwag (10-shot) | 83.41 |
"""
COMMENTED_CLAIMS = [claim("ARC", "arc_challenge/acc_norm", 0.6312286689419796,
                          aliases=("AI2 Reasoning Challenge", "ARC")),
                    claim("HS", "hellaswag/acc_norm", 0.8341366261700856, aliases=("HellaSwag",))]


def test_a_yaml_comment_in_front_matter_is_no_heading() -> None:
    report = judge(COMMENTED, COMMENTED_CLAIMS)
    assert findings(report) == []
    assert (("ARC",), line_of(COMMENTED, "| 63.12 |"), "63.12") in matches(report)
    moved = COMMENTED.replace("| 63.12 |", "| 64.12 |")
    assert findings(judge(moved, COMMENTED_CLAIMS)) == [
        ("drift", ("ARC",), line_of(moved, "| 64.12 |"), "64.12")]
    yaml_moved = COMMENTED.replace("0.8341366261700856\n---", "0.8441366261700856\n---")
    assert findings(judge(yaml_moved, COMMENTED_CLAIMS)) == [
        ("drift", ("HS",), line_of(yaml_moved, "0.8441366261700856"), "0.8441366261700856")]


# A vision card's model-index with its top-1 on two splits (the dataset's "split"): each entry
# is judged for the claim on its split only, in percent points for a fraction claim. (This
# held before too, the entries pooled; it is kept as the entry-by-entry reading's guard.)
SPLITS = """---
model-index:
- name: tinyvit-s
  results:
  - task:
      type: image-classification
    dataset:
      name: ImageNet-1k
      type: imagenet-1k
      split: validation
    metrics:
    - type: accuracy
      value: 81.6
      name: Top-1 Accuracy
  - task:
      type: image-classification
    dataset:
      name: ImageNet-1k
      type: imagenet-1k
      split: test
    metrics:
    - type: accuracy
      value: 80.2
      name: Top-1 Accuracy
---
"""
SPLIT_CLAIMS = [claim("V", "val_accuracy", 0.8163, aliases=("tinyvit-s",)),
                claim("T", "test_accuracy", 0.8024, aliases=("tinyvit-s",))]


def test_a_model_index_entry_is_of_its_datasets_split() -> None:
    assert findings(judge(SPLITS, SPLIT_CLAIMS)) == []
    assert matches(judge(SPLITS, SPLIT_CLAIMS)) == {
        (("V",), line_of(SPLITS, "81.6"), "81.6"), (("T",), line_of(SPLITS, "80.2"), "80.2")}
    moved = SPLITS.replace("80.2", "80.9")
    assert findings(judge(moved, SPLIT_CLAIMS)) == [("drift", ("T",), line_of(moved, "80.9"), "80.9")]


def test_model_index_reads_entries_and_leaves_other_front_matter_alone() -> None:
    card = model_index(Segment("README.md", "md", LEADERBOARD))
    assert card is not None
    assert [LEADERBOARD[e.start:e.end].split()[:2] for e in card.entries] == [
        ["-", "type:"]] * 3
    assert [e.split for e in card.entries] == ["test", "test", "val"]
    # the dataset's lines and the model's name name each entry; the block ends at the "---"
    first = card.entries[0]
    named = " ".join(LEADERBOARD[s:e] for s, e in first.context)
    assert "AI2 Reasoning Challenge" in named
    assert "Pico-Chat-1B" in named
    assert "26.12" not in named
    assert LEADERBOARD[card.end:].startswith("---\n# Pico")
    no_index = "---\nlicense: mit\ntags:\n- vision\n---\n# Card\n\n- Accuracy: 0.91\n"
    assert model_index(Segment("README.md", "md", no_index)) is None
    assert model_index(Segment("README.md", "md", "# Card\nmodel-index:\n")) is None


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
    # a moved 320 value: the table names no resolution the claim has, so which row is its is
    # unknown: one `ambiguous` finding naming both (two drifts before test_leftouts_round5)
    moved = TIMM.replace("|84.41|", "|84.61|")
    assert findings(judge(moved, TIMM_CLAIMS)) == [("ambiguous", ("T1",), row, "84.61")]


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
