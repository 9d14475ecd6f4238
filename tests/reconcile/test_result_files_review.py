"""Real result files from popular ML frameworks, read the way `claim add` reads them.

Every fixture is copied from a public repository (cited above it) and trimmed to a few lines or
keys; the key names, the shape and the values are verbatim. What each test pins: the value a
researcher would name is read, what the file says about it (n, split, seeds, spread) is read
and nothing is guessed, and a refusal names the selector and the place.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_values import read_value
from labledger.reconcile.errors import ClaimInputError, MetricNotFoundError

WHERE = "r1:output/metrics.json (blake3:00)"


def read(data: bytes, path: str, selector: str):  # type: ignore[no-untyped-def]
    return read_value(data, path, selector, WHERE)


def refusal(data: bytes, path: str, selector: str) -> str:
    with pytest.raises(ClaimInputError) as info:
        read_value(data, path, selector, WHERE)
    return str(info.value)


def lines(*records: str) -> bytes:
    return ("\n".join(records) + "\n").encode()


# --- detectron2 metrics.json: JSON lines ----------------------------------------------------------
# HaowenGuan/NYU-Semi-Supervise-Object-Detection, output/metrics.json (its last lines; keys
# trimmed): the COCO evaluation at iteration 19999 shares the line of that iteration's training
# scalars, and the training lines after it have no bbox/ keys. A class name holds a space.
DETECTRON2 = lines(
    '{"bbox/AP": 11.628244343272662, "bbox/AP-airplane": 20.69084655668039, "bbox/AP-baby bed": '
    '17.977663969634502, "bbox/AP50": 23.438507581527208, "bbox/AP75": 10.139956073037212, '
    '"bbox/APs": 0.9139499826063272, "data_time": 0.06573740346357226, "fast_rcnn/cls_accuracy": '
    '0.972265625, "iteration": 19999, "lr": 0.01, "total_loss": 0.197086456270578}',
    '{"data_time": 0.06962116854265332, "fast_rcnn/cls_accuracy": 0.97705078125, "iteration": '
    '20019, "lr": 0.01, "total_loss": 0.18757384648779407}',
    '{"data_time": 0.0640193356666714, "fast_rcnn/cls_accuracy": 0.97197265625, "iteration": '
    '20039, "lr": 0.01, "total_loss": 0.19089055978110991}',
)

# 12tqian/gdp-objdetect, output/metrics.json (lines 1-2 and 9-10): a run restarted into the same
# folder appends its lines, so an iteration is there twice with different values.
DETECTRON2_RESTARTED = lines(
    '{"iteration": 19, "lr": 1.9981e-05, "total_loss": 190.6327896118164}',
    '{"iteration": 39, "lr": 3.996099999999999e-05, "total_loss": 153.86143493652344}',
    '{"iteration": 19, "lr": 1.9981e-05, "total_loss": 453.8104705810547}',
    '{"iteration": 39, "lr": 3.996099999999999e-05, "total_loss": 343.7183837890625}',
)


@pytest.mark.parametrize("path", ["output/metrics.json", "output/metrics.jsonl",
                                  "output/metrics.ndjson", "OUT/METRICS.JSONL"])
def test_detectron2_json_lines_read_as_a_table(path: str) -> None:
    got = read(DETECTRON2, path, "last(bbox/AP)")
    assert (got.value, got.metric, got.aggregate) == (11.628244343272662, "bbox/AP", "last")
    assert read(DETECTRON2, path, "bbox/AP[iteration=19999]").value == 11.628244343272662
    assert read(DETECTRON2, path, "bbox/AP-baby bed[iteration=19999]").value == 17.977663969634502
    assert read(DETECTRON2, path, "bbox/AP50[0]").value == 23.438507581527208
    assert read(DETECTRON2, path, "total_loss[-1]").value == 0.19089055978110991
    assert read(DETECTRON2, path, "min(total_loss)").value == 0.18757384648779407
    # Nothing in the file names a split, a seed, a spread or a sample count.
    cell = read(DETECTRON2, path, "bbox/AP[iteration=19999]")
    assert (cell.split, cell.seeds, cell.variance, cell.n) == (None, (), None, None)


def test_detectron2_last_row_lacks_the_column_refused_with_the_row_that_has_it() -> None:
    # [-1] is the table's last data row (a row number means one row of the file); here it is a
    # training line after the evaluation: refused, naming the row and line that hold the value.
    problem = refusal(DETECTRON2, "output/metrics.json", "bbox/AP[-1]")
    assert problem.startswith(f"'bbox/AP[-1]' in {WHERE}: row 2 (line 3) of column 'bbox/AP' is "
                              "empty; the column's last value is in row 0 (line 1): "
                              "last(bbox/AP) reads it")


@pytest.mark.parametrize(("selector", "problem"), [
    ("bbox/AP", "is a table; name an aggregate or a cell, e.g. last(bbox/AP) or "
                "bbox/AP[KEY=VALUE]"),
    ("bbox/AP[iteration=5]", "no row has iteration=5; iteration reads 19999, 20019, 20039"),
    ("segm/AP[iteration=19999]", "no column 'segm/AP'; it has: bbox/AP, bbox/AP-airplane"),
    ("mean(segm/AP)", "no column 'segm/AP'; it has: last(bbox/AP), last(bbox/AP-airplane)"),
])
def test_detectron2_refusals_name_selector_and_place(selector: str, problem: str) -> None:
    message = refusal(DETECTRON2, "output/metrics.json", selector)
    assert message.startswith(f"{selector!r}")
    assert WHERE in message
    assert problem in message


def test_detectron2_restarted_run_repeats_an_iteration_and_is_refused() -> None:
    problem = refusal(DETECTRON2_RESTARTED, "output/metrics.json", "total_loss[iteration=19]")
    assert "iteration=19 matches 2 rows: row 0 (line 1), row 2 (line 3); it must match " \
           "exactly one" in problem
    assert read(DETECTRON2_RESTARTED, "output/metrics.json", "total_loss[2]").value == \
        453.8104705810547


# --- mmengine vis_data/*.json (= scalars.json): JSON lines ----------------------------------------
# Chae0510/mmdetect_fish, mmdetection_head/tools/${work_dir}/vis/20250709_234619.json (lines 1-6,
# the training line trimmed to a few keys): training lines carry epoch/iter/step, evaluation
# lines the coco/ keys with "step" the epoch; this run logs each evaluation twice.
MMENGINE = lines(
    '{"lr": 0.0007927855711422839, "data_time": 0.027985501289367675, "loss": 2.4471621322631836, '
    '"time": 0.23765231609344484, "epoch": 1, "iter": 50, "memory": 2990, "step": 50}',
    '{"train/clf_acc": 0.0, "data_time": 3.2859272718429566, "time": 3.3680655479431154, '
    '"step": 0}',
    '{"train/clf_acc": 0.0, "coco/bbox_mAP": 0.26, "coco/bbox_mAP_50": 0.555, "coco/bbox_mAP_75": '
    '0.2, "coco/bbox_mAP_s": -1.0, "coco/bbox_mAP_m": -1.0, "coco/bbox_mAP_l": 0.26, '
    '"val/clf_acc": 0.0, "data_time": 3.4134418964385986, "time": 3.5018784761428834, "step": 1}',
    '{"lr": 0.0018613140013573966, "data_time": 0.01784905433654785, "loss": 1.8309854078292847, '
    '"time": 0.20668129444122316, "epoch": 2, "iter": 118, "memory": 2990, "step": 118}',
    '{"train/clf_acc": 0.0, "coco/bbox_mAP": 0.26, "coco/bbox_mAP_50": 0.555, "coco/bbox_mAP_75": '
    '0.2, "coco/bbox_mAP_s": -1.0, "coco/bbox_mAP_m": -1.0, "coco/bbox_mAP_l": 0.26, '
    '"val/clf_acc": 0.0, "data_time": 3.3344923734664915, "time": 3.413581442832947, "step": 1}',
    '{"train/clf_acc": 0.0, "coco/bbox_mAP": 0.308, "coco/bbox_mAP_50": 0.726, '
    '"coco/bbox_mAP_75": 0.141, "coco/bbox_mAP_s": -1.0, "coco/bbox_mAP_m": -1.0, '
    '"coco/bbox_mAP_l": 0.308, "val/clf_acc": 0.0, "data_time": 3.213106560707092, '
    '"time": 3.3018043756484987, "step": 2}',
)


@pytest.mark.parametrize("path", ["work_dirs/x/20250709_234619/vis_data/scalars.json",
                                  "vis/20250709_234619.json"])
def test_mmengine_scalars(path: str) -> None:
    assert read(MMENGINE, path, "last(coco/bbox_mAP)").value == 0.308
    assert read(MMENGINE, path, "max(coco/bbox_mAP_50)").value == 0.726
    got = read(MMENGINE, path, "coco/bbox_mAP[step=2]")
    assert (got.value, got.metric, got.split) == (0.308, "coco/bbox_mAP", None)
    # the key names the split: val/clf_acc is val, train/clf_acc train
    assert read(MMENGINE, path, "val/clf_acc[step=2]").split == "val"
    assert read(MMENGINE, path, "last(train/clf_acc)").split == "train"
    # step 50 is a training line: its coco/bbox_mAP cell is empty
    assert "row 0 (line 1) of column 'coco/bbox_mAP' is empty; the column's last value is in " \
           "row 5 (line 6)" in refusal(MMENGINE, path, "coco/bbox_mAP[step=50]")
    # step 1 of a training line and of an evaluation line: the one with a value is read
    # (val/clf_acc is in both evaluation lines of step 1, loss in no line of step 1)
    assert "column 'loss' is empty in every row the conditions pick (row 2 (line 3), row 4 " \
           "(line 5))" in refusal(MMENGINE, path, "loss[step=1]")
    # The evaluation of step 1 is logged twice (its timings aside, the same): either line says
    # the same of coco/bbox_mAP, so it is read; two lines saying different values are refused.
    assert read(MMENGINE, path, "coco/bbox_mAP[step=1]").value == 0.26
    differing = MMENGINE.replace(b'"coco/bbox_mAP": 0.26, "coco/bbox_mAP_50": 0.555, '
                                 b'"coco/bbox_mAP_75": 0.2, "coco/bbox_mAP_s": -1.0, '
                                 b'"coco/bbox_mAP_m": -1.0, "coco/bbox_mAP_l": 0.26, '
                                 b'"val/clf_acc": 0.0, "data_time": 3.33',
                                 b'"coco/bbox_mAP": 0.27, "coco/bbox_mAP_50": 0.555, '
                                 b'"coco/bbox_mAP_75": 0.2, "coco/bbox_mAP_s": -1.0, '
                                 b'"coco/bbox_mAP_m": -1.0, "coco/bbox_mAP_l": 0.26, '
                                 b'"val/clf_acc": 0.0, "data_time": 3.33')
    assert differing != MMENGINE
    assert "step=1 matches 2 rows: row 2 (line 3), row 4 (line 5)" in \
        refusal(differing, path, "coco/bbox_mAP[step=1]")


# --- mmdetection 2.x *.log.json -------------------------------------------------------------------
# Ascend/ModelZoo-PyTorch, ACL_PyTorch/contrib/cv/detection/SSD/README.md quotes this evaluation
# line of mmdetection's ssd300_coco_20200307_174216.log.json verbatim. A one-line *.log.json is
# a JSON object and reads as one; the copy-paste string is no number.
MMDET_V2_VAL = (b'{"mode": "val", "epoch": 24, "iter": 9162, "lr": 2e-05, "bbox_mAP": 0.256, '
                b'"bbox_mAP_50": 0.438, "bbox_mAP_75": 0.263, "bbox_mAP_s": 0.068, "bbox_mAP_m": '
                b'0.278, "bbox_mAP_l": 0.422, "bbox_mAP_copypaste": "0.256 0.438 0.263 0.068 '
                b'0.278 0.422"}\n')


def test_mmdet_v2_log_json() -> None:
    path = "work_dirs/ssd300_coco/20200307_174216.log.json"
    got = read(MMDET_V2_VAL, path, "bbox_mAP")
    assert (got.value, got.metric) == (0.256, "bbox_mAP")
    # "mode": "val" is mmcv's runner mode, not a dataset split the file names: no split read
    assert got.split is None
    with pytest.raises(MetricNotFoundError, match="not a number .the text '0.256 0.438"):
        read(MMDET_V2_VAL, path, "bbox_mAP_copypaste")
    # The same line written twice (an evaluation in a JSON lines log) is a table of two rows.
    twice = MMDET_V2_VAL + MMDET_V2_VAL.replace(b'"epoch": 24', b'"epoch": 25')
    assert read(twice, path, "bbox_mAP_50[epoch=25]").value == 0.438


# --- Hugging Face Trainer -------------------------------------------------------------------------
# 10844110/t5-summarization-demo, eval_results.json and all_results.json (verbatim): the eval_
# prefix is the evaluation dataset (which split it was, the file does not say), eval_samples
# its size, train_samples the training set's.
HF_EVAL = b"""{
    "epoch": 3.0,
    "eval_gen_len": 73.5213195691203,
    "eval_loss": 1.633907675743103,
    "eval_rouge1": 41.6324,
    "eval_rouge2": 19.1949,
    "eval_rougeL": 29.4531,
    "eval_rougeLsum": 38.8065,
    "eval_runtime": 3255.5168,
    "eval_samples": 13368,
    "eval_samples_per_second": 4.106,
    "eval_steps_per_second": 1.027
}"""
HF_ALL = HF_EVAL.replace(b'"eval_steps_per_second": 1.027\n', b""""eval_steps_per_second": 1.027,
    "total_flos": 2.2882818626410906e+17,
    "train_loss": 1.8040490566820844,
    "train_runtime": 54713.1806,
    "train_samples": 287113,
    "train_samples_per_second": 15.743,
    "train_steps_per_second": 3.936
""")


def test_hf_eval_results_n_is_eval_samples_and_no_split_is_guessed() -> None:
    got = read(HF_EVAL, "eval_results.json", "eval_rouge1")
    assert (got.value, got.metric, got.n, got.split) == (41.6324, "eval_rouge1", 13368, None)
    assert read(HF_EVAL, "eval_results.json", "eval_loss").n == 13368


def test_hf_all_results_n_follows_the_prefix() -> None:
    assert read(HF_ALL, "all_results.json", "eval_rougeL").n == 13368
    train = read(HF_ALL, "all_results.json", "train_loss")
    assert (train.value, train.n, train.split) == (1.8040490566820844, 287113, "train")
    assert read(HF_ALL, "all_results.json", "epoch").n is None  # no prefix, no n key


# arshiv-web/Financial-News-Sentiment-Analysis, trainer_state.json (log_history trimmed to six of
# its entries; the top-level keys verbatim but for stateful_callbacks): training entries and
# evaluation entries alternate in one list of records.
TRAINER_STATE = json.dumps({
    "best_global_step": 8280,
    "best_metric": 0.2460840305718579,
    "best_model_checkpoint": "./drive/MyDrive/CSE594/results/checkpoint-8280",
    "epoch": 10.0,
    "eval_steps": 500,
    "global_step": 10350,
    "log_history": [
        {"epoch": 0.966183574879227, "grad_norm": 9.28701114654541,
         "learning_rate": 1.8069565217391306e-05, "loss": 1.4898, "step": 1000},
        {"epoch": 1.0, "eval_accuracy": 0.9021207177814029, "eval_loss": 1.4883331060409546,
         "eval_macro_f1": 0.18970840480274442, "eval_runtime": 24.5785,
         "eval_samples_per_second": 74.822, "eval_steps_per_second": 4.679, "step": 1035},
        {"epoch": 3.0, "eval_accuracy": 0.48994018488308866, "eval_loss": 1.3262380361557007,
         "eval_macro_f1": 0.18467558596008996, "eval_runtime": 24.6584,
         "eval_samples_per_second": 74.579, "eval_steps_per_second": 4.664, "step": 3105},
        {"epoch": 8.0, "eval_accuracy": 0.7808591625883632, "eval_loss": 1.481421709060669,
         "eval_macro_f1": 0.2460840305718579, "eval_runtime": 24.6305,
         "eval_samples_per_second": 74.664, "eval_steps_per_second": 4.669, "step": 8280},
        {"epoch": 9.66183574879227, "grad_norm": 21.661060333251953,
         "learning_rate": 6.782608695652175e-07, "loss": 1.1573, "step": 10000},
        {"epoch": 10.0, "eval_accuracy": 0.7786840674279499, "eval_loss": 1.4856339693069458,
         "eval_macro_f1": 0.23465918315899845, "eval_runtime": 24.6402,
         "eval_samples_per_second": 74.634, "eval_steps_per_second": 4.667, "step": 10350},
    ],
    "logging_steps": 500,
    "max_steps": 10350,
    "num_input_tokens_seen": 0,
    "num_train_epochs": 10,
    "save_steps": 500,
    "total_flos": 2.192452739328e+16,
    "train_batch_size": 16,
    "trial_name": None,
    "trial_params": None,
}, indent=2).encode()


def test_trainer_state_log_history_reads_as_a_table() -> None:
    path = "checkpoint-10350/trainer_state.json"
    at_epoch = read(TRAINER_STATE, path, "log_history.eval_accuracy[epoch=3.0]")
    assert (at_epoch.value, at_epoch.metric, at_epoch.aggregate) == (
        0.48994018488308866, "eval_accuracy", None)
    assert at_epoch.selector == "log_history.eval_accuracy[epoch=3.0]"
    assert read(TRAINER_STATE, path, "log_history.eval_accuracy[step=8280]").value == \
        0.7808591625883632
    # the best checkpoint's metric is the max over the evaluations, as best_metric says
    best = read(TRAINER_STATE, path, "max(log_history.eval_macro_f1)")
    assert best.value == read(TRAINER_STATE, path, "best_metric").value == 0.2460840305718579
    assert read(TRAINER_STATE, path, "last(log_history.eval_accuracy)").value == \
        0.7786840674279499
    assert read(TRAINER_STATE, path, "log_history.loss[-2]").value == 1.1573
    # epoch=1.0 picks the evaluation entry only (the training entry of that epoch is 0.966)
    assert read(TRAINER_STATE, path, "log_history.eval_loss[epoch=1]").value == \
        1.4883331060409546


@pytest.mark.parametrize(("selector", "problem"), [
    ("log_history[epoch=3.0].eval_accuracy",
     "bad selector: in a list of records, as in a table, the column comes before the row: "
     "log_history.eval_accuracy[epoch=3.0]"),
    ("log_history.eval_accuracy",
     "/log_history is a list of records, read as a table, and 'eval_accuracy' is one of its "
     "columns; name an aggregate or a cell, e.g. last(log_history.eval_accuracy)"),
    ("log_history.eval_accuracy[0]",
     "row 0 (at /log_history/0) of column 'eval_accuracy' is empty; the column's last value is "
     "in row 5 (at /log_history/5): last(log_history.eval_accuracy) reads it"),
    ("log_history.eval_acc[epoch=3.0]",
     "no column 'eval_acc'; it has: log_history.epoch, log_history.grad_norm"),
    ("log_history.eval_accuracy[epoch=4.0]", "no row has epoch=4.0; epoch reads "
                                             "0.966183574879227, 1.0, 3.0"),
])
def test_trainer_state_refusals(selector: str, problem: str) -> None:
    message = refusal(TRAINER_STATE, "trainer_state.json", selector)
    assert message.startswith(f"{selector!r} in {WHERE}")
    assert problem in message


def test_a_json_document_that_is_a_list_of_records_is_a_table() -> None:
    # what pandas df.to_json(orient="records") writes: the records are at the top
    records = json.dumps(json.loads(TRAINER_STATE)["log_history"]).encode()
    assert read(records, "log.json", "eval_accuracy[epoch=3.0]").value == 0.48994018488308866
    assert "row 0 (at /0) of column 'eval_accuracy' is empty" in \
        refusal(records, "log.json", "eval_accuracy[0]")


# --- lm-evaluation-harness results ----------------------------------------------------------------
# EleutherAI/lm-evaluation-harness, tests/models/results_deleteme/
# __home__cs29824__matthew__lm-evaluation-harness__examples__dog_steer.csv/
# results_2025-01-21T00-40-03.356274.json (configs and config trimmed to a few keys).
LM_EVAL = json.dumps({
    "results": {"mmlu_abstract_algebra": {"alias": "abstract_algebra", "acc,none": 0.34,
                                          "acc_stderr,none": 0.047609522856952344}},
    "group_subtasks": {"mmlu_abstract_algebra": []},
    "configs": {"mmlu_abstract_algebra": {
        "task": "mmlu_abstract_algebra", "task_alias": "abstract_algebra",
        "dataset_path": "hails/mmlu_no_train", "dataset_name": "abstract_algebra",
        "test_split": "test", "fewshot_split": "dev", "num_fewshot": 0}},
    "versions": {"mmlu_abstract_algebra": 1.0},
    "n-shot": {"mmlu_abstract_algebra": 0},
    "higher_is_better": {"mmlu_abstract_algebra": {"acc": True}},
    "n-samples": {"mmlu_abstract_algebra": {"original": 100, "effective": 100}},
    "config": {"model": "sae_steered_beta", "limit": None, "bootstrap_iters": 100000,
               "random_seed": 0, "numpy_seed": 1234, "torch_seed": 1234, "fewshot_seed": 1234},
    "git_hash": "e16afa2f",
}, indent=2).encode()


@pytest.mark.parametrize("selector", ["results.mmlu_abstract_algebra.acc,none",
                                      "/results/mmlu_abstract_algebra/acc,none"])
def test_lm_eval_harness_result(selector: str) -> None:
    got = read(LM_EVAL, "results_2025-01-21T00-40-03.356274.json", selector)
    assert (got.value, got.metric) == (0.34, "acc")  # the filter stays in the selector
    assert got.n == 100  # n-samples.<task>.effective
    assert got.split == "test"  # the task's test_split
    assert (got.variance_type, got.variance) == ("sem", 0.047609522856952344)
    assert got.seeds == ()  # random_seed seeds the few-shot sampler, not a training run


def test_lm_eval_harness_limit_and_validation_split() -> None:
    doc = json.loads(LM_EVAL)
    config = doc["configs"]["mmlu_abstract_algebra"]
    del config["test_split"]
    config["validation_split"] = "validation"
    doc["n-samples"]["mmlu_abstract_algebra"]["effective"] = 10  # --limit 10
    doc["results"]["mmlu_abstract_algebra"]["acc_stderr,none"] = "N/A"
    got = read(json.dumps(doc).encode(), "results.json", "results.mmlu_abstract_algebra.acc,none")
    assert (got.n, got.split, got.variance) == (10, "validation", None)


# --- PyTorch Lightning CSVLogger metrics.csv ------------------------------------------------------
# MostafaKhaled2017/fashion-mnist-classification, logs/lightning_logs/version_0/metrics.csv
# (rows 1-3 and 15-18 of 18): test, training and validation metrics on rows of their own.
LIGHTNING = b"""test_loss,test_acc,epoch,step,train_loss,val_loss,val_acc
0.3663252592086792,0.8751999735832214,0,0,,,
,,0,49,0.8668745160102844,,
,,0,99,0.6219106316566467,,
,,0,749,0.8220778107643127,,
,,0,749,,0.47399163246154785,0.831333339214325
0.3700087070465088,0.8780999779701233,1,750,,,
"""
# taeefnajib/pytorch-lightning-mnist, logs/lightning_logs/version_0/metrics.csv (verbatim)
LIGHTNING_DENSE = b"""val_loss,val_acc,epoch,step
0.2868848443031311,0.9150000214576721,0,859
0.22622722387313843,0.9314000010490417,1,1719
0.18937541544437408,0.9412000179290771,2,2579
"""


def test_lightning_sparse_rows_pick_the_row_with_a_value() -> None:
    got = read(LIGHTNING, "metrics.csv", "val_acc[epoch=0]")
    assert (got.value, got.metric, got.split) == (0.831333339214325, "val_acc", "val")
    assert read(LIGHTNING, "metrics.csv", "val_loss[step=749]").value == 0.47399163246154785
    test = read(LIGHTNING, "metrics.csv", "test_acc[epoch=1]")
    assert (test.value, test.split) == (0.8780999779701233, "test")
    assert read(LIGHTNING, "metrics.csv", "last(val_acc)").value == 0.831333339214325
    assert read(LIGHTNING_DENSE, "metrics.csv", "val_acc[epoch=2]").value == 0.9412000179290771


def test_lightning_refusals() -> None:
    assert "row 5 (line 7) of column 'val_acc' is empty; the column's last value is in row 4 " \
           "(line 6): last(val_acc) reads it" in refusal(LIGHTNING, "metrics.csv", "val_acc[-1]")
    # several rows of epoch 0 hold a training loss: still which one is not for us to guess
    assert "epoch=0 matches 5 rows, 3 with a value in column 'train_loss': row 1 (line 3), " \
           "row 2 (line 4), row 3 (line 5); it must match exactly one" in \
           refusal(LIGHTNING, "metrics.csv", "train_loss[epoch=0]")


# --- Weights & Biases wandb-summary.json ----------------------------------------------------------
# Abhyu-S/Q-ViT_by_methodist, wandb-summary.json (verbatim)
WANDB = (b'{"trainer/global_step":704,"train_loss":0.6446135640144348,"_wandb":{"runtime":1895},'
         b'"train_dgd_loss":0.22339409589767456,"_timestamp":1.7661526619860463e+09,'
         b'"lr-AdamW":5.9999999999999995e-05,"_step":72,"val_loss":0.3600614368915558,'
         b'"_runtime":1895,"test_loss":0.36893990635871887,"epoch":2,'
         b'"test_acc":0.8909000158309937,"val_acc":0.8935999870300293,"train_acc":0.875,'
         b'"train_ce_loss":0.42121946811676025}')
# arun-gg-1996/grpo-code-reasoning, wandb-summary.json (a few of its keys)
WANDB_GRPO = (b'{"train/reward":0.48890626430511475,"reward/std":0.30505886823027695,'
              b'"reward/mean":0.48890624999999993,"profiling/Time taken: TimedGRPOTrainer._reward"'
              b':4.677802019999945,"_step":17294,"train/global_step":960,'
              b'"_wandb":{"runtime":29982}}')


def test_wandb_summary() -> None:
    path = "wandb/run-20251219/files/wandb-summary.json"
    got = read(WANDB, path, "test_acc")
    assert (got.value, got.split, got.n, got.seeds) == (0.8909000158309937, "test", None, ())
    assert read(WANDB, path, "val_loss").split == "val"
    assert read(WANDB, path, "trainer/global_step").value == 704
    assert read(WANDB, path, "_wandb.runtime").value == 1895
    assert read(WANDB_GRPO, path, "train/reward").split == "train"
    mean = read(WANDB_GRPO, path, "reward/mean")
    assert (mean.metric, mean.variance_type, mean.variance) == (
        "reward/mean", "std", 0.30505886823027695)  # reward/std, as the file names it
    assert read(WANDB_GRPO, path, "profiling/Time taken: TimedGRPOTrainer._reward").value == \
        4.677802019999945


# --- timm results-imagenet.csv --------------------------------------------------------------------
# huggingface/pytorch-image-models, results/results-imagenet.csv (header and rows 1-3, 6): a
# thousands separator makes param_count text in some rows.
TIMM = b"""model,top1,top1_err,top5,top5_err,param_count,img_size,crop_pct,interpolation
eva02_large_patch14_448.mim_m38m_ft_in22k_in1k,90.052,9.948,99.048,0.952,305.08,448,1.000,bicubic
eva02_large_patch14_448.mim_in22k_ft_in22k_in1k,89.966,10.034,99.012,0.988,305.08,448,1.000,bicubic
eva_giant_patch14_560.m30m_ft_in22k_in1k,89.786,10.214,98.992,1.008,"1,014.45",560,1.000,bicubic
eva_giant_patch14_336.m30m_ft_in22k_in1k,89.566,10.434,98.952,1.048,"1,013.01",336,1.000,bicubic
"""


def test_timm_results_imagenet() -> None:
    got = read(TIMM, "results/results-imagenet.csv",
               "top1[model=eva02_large_patch14_448.mim_m38m_ft_in22k_in1k]")
    assert (got.value, got.metric, got.variance) == (90.052, "top1", None)  # top1_err: no spread
    assert read(TIMM, "results-imagenet.csv", "max(top5)").value == 99.048
    assert "row 2 (line 4) of column 'param_count' is the text '1,014.45', not a number" in \
        refusal(TIMM, "results-imagenet.csv", "mean(param_count)")


# --- Ultralytics YOLO results.csv -----------------------------------------------------------------
# Abonia1/YOLOv8-Fire-and-Smoke-Detection, runs/detect/train/results.csv (five of its columns,
# the last two rows): the header and the cells are padded, and column names hold / ( ) and -.
ULTRALYTICS = (b"                  epoch,         train/box_loss,       metrics/mAP50(B),    "
               b"metrics/mAP50-95(B),           val/box_loss\n"
               b"                     23,                0.94638,                0.60039,        "
               b"        0.33651,                 1.5448\n"
               b"                     24,                0.93868,                0.85651,        "
               b"        0.45929,                 1.4933\n")


def test_ultralytics_results_csv() -> None:
    path = "runs/detect/train/results.csv"
    assert read(ULTRALYTICS, path, "last(metrics/mAP50(B))").value == 0.85651
    got = read(ULTRALYTICS, path, "metrics/mAP50-95(B)[epoch=24]")
    assert (got.value, got.metric, got.split) == (0.45929, "metrics/mAP50-95(B)", None)
    assert read(ULTRALYTICS, path, "val/box_loss[-1]").split == "val"


def test_nested_record_keys_join_with_dots() -> None:
    data = lines('{"epoch": 1, "val": {"mAP@0.5": 0.41, "loss": 1.2}}',
                 '{"epoch": 2, "val": {"mAP@0.5": 0.47}, "train": {"loss": 0.9}}')
    got = read(data, "log.jsonl", "val.mAP@0.5[epoch=2]")
    # the metric is the last key, as in a JSON document; the key above names the split
    assert (got.value, got.metric, got.split) == (0.47, "mAP@0.5", "val")
    assert read(data, "log.jsonl", "last(train.loss)").split == "train"


# --- sacrebleu JSON output ------------------------------------------------------------------------
# mjpost/sacrebleu, README.md ("JSON output", verbatim)
SACREBLEU = b"""{
 "name": "BLEU",
 "score": 20.8,
 "signature": "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0",
 "verbose_score": "54.4/26.6/14.9/8.7 (BP = 1.000 ratio = 1.026 hyp_len = 62880 ref_len = 61287)",
 "nrefs": "1",
 "case": "mixed",
 "eff": "no",
 "tok": "13a",
 "smooth": "exp",
 "version": "2.0.0"
}"""


def test_sacrebleu_score_is_the_metric_the_file_names() -> None:
    got = read(SACREBLEU, "bleu.json", "score")
    assert (got.value, got.metric, got.n) == (20.8, "BLEU", None)  # nrefs counts references
    # a name that is no known metric (a model's) does not rename the score
    model = json.dumps({"name": "resnet50", "score": 76.1}).encode()
    assert read(model, "result.json", "score").metric == "score"


# --- records: ambiguity and bad bytes -------------------------------------------------------------
@pytest.mark.parametrize(("data", "problem"), [
    (lines('{"a.b": 1, "a": {"b": 2}}', '{"a.b": 3}'),
     "is ambiguous: column 'a.b': line 1 gives 'a.b' more than once"),
    (lines('{"x": 1}', '{"a.b": 1, "a.b": 2}'),
     "is ambiguous: column 'a.b': line 2 gives 'a.b' more than once"),
])
def test_a_column_a_record_gives_twice_is_refused(data: bytes, problem: str) -> None:
    assert problem in refusal(data, "log.jsonl", "last(a.b)")
    assert problem in refusal(data, "log.jsonl", "a.b[-1]")  # a line without the clash too


def test_a_clash_blocks_only_its_column() -> None:
    assert read(lines('{"x": 1}', '{"a.b": 1, "a.b": 2, "x": 5}'), "log.jsonl",
                "last(x)").value == 5


@pytest.mark.parametrize(("data", "path", "problem"), [
    (DETECTRON2[:-40], "output/metrics.json",
     "is not valid JSON (Extra data: line 2 column 1 (char 347)), nor JSON lines (line 3 is not "
     "valid JSON"),
    (b'{"a": 1}\n[1, 2]\n', "log.jsonl", "is not valid JSON lines: line 2 is a JSON list, not "
                                         "a JSON object"),
    (b'{"a": 1}\n7\n', "log.jsonl", "line 2 is the int 7, not a JSON object"),
    (b"\n\n", "log.jsonl", "is not valid JSON lines: holds no JSON object"),
    (b'{"a": 1}\n\xff\n', "log.jsonl", "is not valid JSON lines ('utf-8' codec can't decode"),
    (b'{\n "a": 1\n}\n{"b": 2}\n', "metrics.json",
     "nor JSON lines (line 1 is not valid JSON"),
    (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"\n{}", "metrics.json",
     "nested too deeply to read"),
    (b'{"a": 1}\n' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "log.jsonl",
     "line 2 is nested too deeply to read"),
    (b'{"loss": 1e999}\n{"loss": 1}\n', "log.jsonl", "row 0 (line 1) of column 'loss' is inf"),
    (b'{"loss": ' + b"9" * 400 + b'}\n{"loss": 1}\n', "log.jsonl",
     "of column 'loss' is an integer of 400 digits, too large for a float"),
    (b'{"loss": NaN}\n{"loss": 1}\n', "log.jsonl", "row 0 (line 1) of column 'loss' is nan"),
    (b'{"loss": [1, 2]}\n{"loss": 1}\n', "log.jsonl", "is a list of 2 items, not a number"),
])
def test_bad_bytes_are_refused_naming_the_place(data: bytes, path: str, problem: str) -> None:
    assert problem in refusal(data, path, "last(loss)")


# --- properties -----------------------------------------------------------------------------------
# Column names as real logs spell them: slashes, dots, @, dashes (no [ ] ( ) , = which a selector
# reserves, no leading /, which a JSON pointer claims).
NAMES = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_/@\-]{0,6}(\.[A-Za-z0-9_]{1,3})?\Z").filter(
    lambda name: name != "id")
FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64) | st.integers(-10**6, 10**6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(NAMES, FINITE | st.none(), max_size=5), min_size=1, max_size=8),
       st.booleans())
def test_json_lines_read_back_the_values_written(rows: list[dict[str, float | None]],
                                                 blank_lines: bool) -> None:
    records = [{"id": i, **row} for i, row in enumerate(rows)]
    text = ("\n\n" if blank_lines else "\n").join(json.dumps(r) for r in records)
    data = text.encode()
    for i, record in enumerate(records):
        for name, value in record.items():
            selector = f"{name}[id={i}]"
            if value is None:
                with pytest.raises(ClaimInputError, match="empty"):
                    read_value(data, "log.jsonl", selector, WHERE)
                continue
            got = read_value(data, "log.jsonl", selector, WHERE)
            assert got.value == float(value)
            assert got.metric == name
    for name in {name for record in records for name in record}:
        values = [record[name] for record in records if record.get(name) is not None]
        if values:  # last() reads the last value in the column, past empty cells
            assert read_value(data, "log.jsonl", f"last({name})", WHERE).value == values[-1]


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200) | st.text(alphabet=string.printable + "{}[]\":,ÿ", max_size=120)
       .map(str.encode),
       st.sampled_from(["log.jsonl", "metrics.json", "x.ndjson"]),
       st.sampled_from(["last(loss)", "loss[0]", "loss[id=1]", "loss", "/loss", "max(a.b)"]))
def test_damaged_records_never_raise_anything_but_a_claim_error(data: bytes, path: str,
                                                               selector: str) -> None:
    try:
        read_value(data, path, selector, WHERE)
    except ClaimInputError:  # MetricNotFoundError included
        pass


@settings(max_examples=100, deadline=None)
@given(st.integers(0, len(DETECTRON2) - 1), st.binary(min_size=0, max_size=3),
       st.sampled_from(["last(bbox/AP)", "bbox/AP[iteration=19999]", "total_loss[-1]"]))
def test_a_damaged_real_log_never_raises_anything_but_a_claim_error(at: int, junk: bytes,
                                                                    selector: str) -> None:
    damaged = DETECTRON2[:at] + junk + DETECTRON2[at + len(junk):]
    try:
        read_value(damaged, "output/metrics.json", selector, WHERE)
    except ClaimInputError:
        pass
