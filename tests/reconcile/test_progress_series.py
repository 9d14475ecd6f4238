# ruff: noqa: E501  (the fixtures' lines are as wide as the printouts they follow)
"""Training progress is history, not drift (`reconcile.progress`).

A training prints its metrics again and again: on every epoch's line of a log, in every
evaluation's COCOeval summary, and in a notebook in several cells (a first ``fit``, a
fine-tuning ``fit`` going on from it, then ``evaluate``). Each fixture follows the shape of a
real file, named above it, with names and numbers of our own; the findings it gave before this
change are in the comment over each assertion.

Before: a notebook's outputs were judged each alone, so a claim on the final value was
ambiguous (or drift) in every earlier training cell; and a claim that no record of a log
matched was ambiguous among all its epochs. Now the records of one quantity over a training
are judged as its history: one matching (in any cell) satisfies the claim, and when none does
the claim drifts once, on the last of them, the most recent value. An evaluation after the
training (``evaluate()``'s line, ``print('Test accuracy :', ...)``, ``trainer.evaluate()``'s
dict) is judged alone: its drift is never satisfied by an epoch's line, and a claim it judges
is not the training's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.doc_sources import read_documents
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from labledger.reconcile.progress import last_record, record_key
from tests.reconcile.test_coco_summary_review import line as summary_line
from tests.reconcile.test_documents import claim
from tests.reconcile.test_notebooks_review import found, judge, matched, notebook


def _cells(*cells: dict[str, Any]) -> str:
    return notebook(",".join(json.dumps(c) for c in cells))


def _code(*outputs: dict[str, Any], source: str = "") -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": source,
            "outputs": list(outputs)}


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _stream(text: str, name: str = "stdout") -> dict[str, Any]:
    return {"name": name, "output_type": "stream", "text": text.splitlines(keepends=True)}


def _result(text: str) -> dict[str, Any]:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": text.splitlines(keepends=True)}}


def _log(text: str, claims: list[Claim], path: str = "train_log.txt") -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims, jobs=1)


def _log_found(report: Report) -> list[tuple[str, tuple[str, ...], int, str | None]]:
    return [(f.type, f.claims, f.line, f.shown) for f in report.findings]


def _line_of(text: str, shown: str) -> int:
    assert text.count(shown) == 1, shown
    return text[:text.index(shown)].count("\n") + 1


# === the rules' parts =============================================================================

def test_a_records_key_is_the_words_before_its_number() -> None:
    text = ("58/58 - loss: 0.3012 - accuracy: 0.8650 - val_loss: 0.2005 - val_accuracy: 0.9010\n"
            "Validation Accuracy: 79.07%\n"
            "{'eval_loss': 0.4431, 'eval_accuracy': 0.8162, 'epoch': 1.0}\n"
            "Test accuracy : 0.9479166865348816\n"
            + summary_line("AP", "0.50", "all", 100, 0.581))
    keys = [record_key(text, text.index(n)) for n in
            ("0.8650", "0.9010", "79.07", "0.8162", "0.9479", "0.581")]
    assert keys == ["accuracy", "val_accuracy", "validation accuracy", "eval_accuracy",
                    "test accuracy", "AP (50,) all 100 all"]


def test_a_series_is_one_key_with_a_progress_word_between_its_records() -> None:
    epochs = "".join(f"Epoch {e}/3\n - val_acc: 0.8{e}00\n" for e in (1, 2, 3))
    starts = [epochs.index(f"0.8{e}00") for e in (3, 1, 2)]
    assert last_record(epochs, starts) == 0  # the last in the text, wherever it is listed
    labelled = "".join(f"Epoch {e} | train loss 0.4{e} | val acc 0.8{e}\n" for e in (1, 2))
    assert last_record(labelled, [labelled.index("0.81"), labelled.index("0.82")]) == 1
    # no counter between them: two datasets (or images), not two epochs
    datasets = "Set5 psnr: 32.10\nSet14 psnr: 28.50\n"
    assert last_record(datasets, [datasets.index("32.10"), datasets.index("28.50")]) is None
    # a rate's unit is no counter ("37ms/step"), nor is the best value's iteration written
    # after the number (BasicSR: "Best: 30.31 @ 5000 iter")
    rates = "a 37ms/step - acc: 0.81\nb 36ms/step - acc: 0.82\n"
    assert last_record(rates, [rates.index("0.81"), rates.index("0.82")]) is None
    best = "\t # psnr: 30.31\tBest: 30.31 @ 5000 iter\n\t # psnr: 27.20\tBest: 27.20 @ 5000 iter\n"
    assert last_record(best, [best.index("30.31"), best.index("27.20")]) is None
    # two keys, or two numbers on one line, are two quantities
    mixed = "Epoch 1 acc: 0.81\nEpoch 2 top1: 0.82\n"
    assert last_record(mixed, [mixed.index("0.81"), mixed.index("0.82")]) is None
    one_line = "Epoch 1 acc: 0.81 (best acc: 0.83)\n"
    assert last_record(one_line, [one_line.index("0.81"), one_line.index("0.83")]) is None


# === Keras: fit, fine-tuning fit, evaluate ========================================================

# tensorflow/docs site/en/tutorials/images/transfer_learning.ipynb (commit
# 01b5a054498bd0cfa3c0c4e754b534dacaedac1a): `history = model.fit(train_dataset,
# epochs=initial_epochs, validation_data=validation_dataset)`; after unfreezing the base model,
# `history_fine = model.fit(..., epochs=total_epochs, initial_epoch=history.epoch[-1], ...)`
# going on from the last epoch (its first line repeats that epoch's number); then
# `loss, accuracy = model.evaluate(test_dataset)` and `print('Test accuracy :', accuracy)`.
# The tutorial keeps no outputs: the streams follow Keras 2's fit() lines as a notebook keeps
# them (GitHub index file id 19174340668, a MobileNetV2 fit: "Epoch 1/20" over
# "95/95 [=====] - 218s 2s/step - loss: ... - accuracy: ... - val_loss: ... - val_accuracy:").
_INITIAL = [("0.6812", "0.5920", "0.5103", "0.7030"), ("0.5231", "0.7480", "0.4012", "0.8218"),
            ("0.4410", "0.8115", "0.3387", "0.8663"), ("0.3925", "0.8390", "0.2981", "0.8911")]
_FINE = [("0.3316", "0.8650", "0.2611", "0.9010"), ("0.2809", "0.8905", "0.2243", "0.9208"),
         ("0.2431", "0.9120", "0.1998", "0.9307"), ("0.2190", "0.9235", "0.1812", "0.9356"),
         ("0.2001", "0.9310", "0.1707", "0.9406")]


def _fit(first: int, total: int, epochs: list[tuple[str, str, str, str]]) -> str:
    return "".join(
        f"Epoch {first + n}/{total}\n32/32 [==============================] - 12s 310ms/step"
        f" - loss: {loss} - accuracy: {acc} - val_loss: {vloss} - val_accuracy: {vacc}\n"
        for n, (loss, acc, vloss, vacc) in enumerate(epochs))


def _transfer_learning(initial: list[tuple[str, str, str, str]] = _INITIAL,
                       fine: list[tuple[str, str, str, str]] = _FINE,
                       test: str = "0.9479166865348816") -> str:
    return _cells(
        _markdown("### Train the model"),
        _code(_stream(_fit(1, 4, initial)), source="history = model.fit(train_dataset, ...)"),
        _markdown("### Continue training the model"),
        _code(_stream(_fit(4, 8, fine)),
              source="history_fine = model.fit(..., initial_epoch=history.epoch[-1], ...)"),
        _markdown("### Evaluation and prediction"),
        _code(_stream(f"6/6 [==============================] - 1s 95ms/step - loss: 0.1611 - "
                      f"accuracy: {test[:6]}\nTest accuracy : {test}\n"),
              source="loss, accuracy = model.evaluate(test_dataset)\n"
                     "print('Test accuracy :', accuracy)"))


def test_the_fine_tuned_val_accuracy_is_not_drift_in_the_first_fit(tmp_path: Path) -> None:
    claims = [claim("V", "val_accuracy", 0.94062, run="fine-tuned")]
    report = judge(tmp_path, _transfer_learning(), claims)
    # before: [("ambiguous", ("V",), "cell 2, output 1", 2, 126, "0.7030")]
    assert found(report) == []
    assert matched(report) == {(("V",), "cell 4, output 1", 10, "0.9406")}


def test_each_fits_claim_is_satisfied_by_its_own_cell(tmp_path: Path) -> None:
    """A paper reporting both the feature-extraction and the fine-tuned val accuracy: the two
    claims are named alike by every epoch's line, each matches in its own fit."""
    claims = [claim("V0", "val_accuracy", 0.89113, run="frozen"),
              claim("V", "val_accuracy", 0.94062, run="fine-tuned")]
    report = judge(tmp_path, _transfer_learning(), claims)
    # before: ambiguous V in cell 2 and ambiguous V0 in cell 4
    assert found(report) == []
    assert matched(report) == {(("V0",), "cell 2, output 1", 8, "0.8911"),
                               (("V",), "cell 4, output 1", 10, "0.9406")}


def test_a_moved_val_accuracy_drifts_once_on_the_last_epoch(tmp_path: Path) -> None:
    claims = [claim("V", "val_accuracy", 0.94562, run="fine-tuned")]
    report = judge(tmp_path, _transfer_learning(), claims)
    # before: ("ambiguous", ("V",), "cell 2, output 1", 2, 126, "0.7030") and
    # ("ambiguous", ("V",), "cell 4, output 1", 2, 126, "0.9010")
    assert found(report) == [("drift", ("V",), "cell 4, output 1", 10, 126, "0.9406")]
    assert "the last of 5 records naming it" in report.findings[0].message


def test_the_evaluated_accuracy_is_not_the_trainings(tmp_path: Path) -> None:
    """A bare ``accuracy`` claim is what ``evaluate`` printed after the training: the fits'
    training accuracies are history, not its record."""
    claims = [claim("A", "accuracy", 0.9479166865348816, run="test")]
    report = judge(tmp_path, _transfer_learning(), claims)
    # before: ("ambiguous", ("A",), "cell 2, output 1", 2, 84, "0.5920") and
    # ("ambiguous", ("A",), "cell 4, output 1", 2, 84, "0.8650")
    assert found(report) == []
    assert matched(report) == {(("A",), "cell 6, output 1", 1, "0.9479"),
                               (("A",), "cell 6, output 1", 2, "0.9479166865348816")}


def test_an_evaluation_that_disagrees_still_drifts_though_an_epoch_equals_the_claim(
        tmp_path: Path) -> None:
    """The claim equals the last epoch's training accuracy (0.9310) but evaluate() printed
    another value: the evaluation is judged alone, an epoch's line does not satisfy it."""
    claims = [claim("A", "accuracy", 0.9310, run="test")]
    report = judge(tmp_path, _transfer_learning(), claims)
    # before: the same finding in cell 6, and ("ambiguous", ("A",), "cell 2, output 1", 2, 84,
    # "0.5920") in the first fit
    assert [(f.type, f.claims, f.where) for f in report.findings] == [
        ("ambiguous", ("A",), "cell 6, output 1")]
    assert report.findings[0].candidates == ("0.9479", "0.9479166865348816")


def test_a_test_accuracy_claim_is_judged_on_the_evaluation_only(tmp_path: Path) -> None:
    claims = [claim("T", "test_accuracy", 0.9479166865348816, aliases=("Test accuracy",))]
    assert found(judge(tmp_path, _transfer_learning(), claims)) == []
    assert matched(judge(tmp_path, _transfer_learning(), claims)) == {
        (("T",), "cell 6, output 1", 2, "0.9479166865348816")}
    report = judge(tmp_path, _transfer_learning(test="0.9427083134651184"), claims)
    assert found(report) == [("drift", ("T",), "cell 6, output 1", 2, 17, "0.9427083134651184")]


# === PyTorch: a loop printing each epoch, tqdm on stderr between ==================================

# A notebook converted to Markdown by pandoc (GitHub index file id 12404922553; repository not
# resolved): `train(...)` draws a tqdm bar per epoch on stderr ("Training Epoch 9: 100%|...|
# 21/21 [00:00<00:00, 181.61it/s]") and prints "Epoch [9/10], Loss: 0.3606" and "Validation
# Accuracy: 81.40%" on stdout, so Jupyter keeps one stdout output of two lines per epoch, each
# judged alone (two lines are no log). Ours trains 4 epochs, then fine-tunes 3 more in the next
# cell, then prints the test accuracy.
_TRAIN = [("0.6512", "61.63"), ("0.4920", "70.93"), ("0.4105", "76.74"), ("0.3711", "79.07")]
_TUNE = [("0.3402", "80.23"), ("0.3311", "81.40"), ("0.3209", "82.56")]


def _epochs(values: list[tuple[str, str]], tqdm_desc: str) -> list[dict[str, Any]]:
    total = len(values)
    out: list[dict[str, Any]] = []
    for e, (loss, acc) in enumerate(values, 1):
        out.append(_stream(f"{tqdm_desc} {e}: 100%|██████████| 21/21 [00:00<00:00, 195.45it/s]\n",
                           name="stderr"))
        out.append(_stream(f"Epoch [{e}/{total}], Loss: {loss}\nValidation Accuracy: {acc}%\n"))
    return out


def _pytorch(tune: list[tuple[str, str]] = _TUNE, test: str = "80.93") -> str:
    return _cells(
        _code(*_epochs(_TRAIN, "Training Epoch"), source="train(model, epochs=4)"),
        _code(*_epochs(tune, "Fine-tuning Epoch"), source="train(model, epochs=3, lr=1e-4)"),
        _code(_stream(f"Test Accuracy: {test}%\n"), source="evaluate(model, test_loader)"))


_PYTORCH_CLAIMS = [claim("VA", "val_accuracy", 0.8256, aliases=("Validation Accuracy",)),
                   claim("TA", "test_accuracy", 0.8093, aliases=("Test Accuracy",))]


def test_each_epochs_output_is_no_drift_of_the_final_validation(tmp_path: Path) -> None:
    report = judge(tmp_path, _pytorch(), _PYTORCH_CLAIMS)
    # before: a drift in each earlier epoch's output, from ("drift", ("VA",), "cell 1,
    # output 2", 2, 22, "61.63%") to ("drift", ("VA",), "cell 2, output 4", 2, 22, "81.40%")
    assert found(report) == []
    assert matched(report) == {(("VA",), "cell 2, output 6", 2, "82.56%"),
                               (("TA",), "cell 3, output 1", 1, "80.93%")}


def test_a_moved_validation_drifts_once_on_the_last_epochs_output(tmp_path: Path) -> None:
    moved = [*_TUNE[:2], ("0.3209", "82.66")]
    report = judge(tmp_path, _pytorch(tune=moved), _PYTORCH_CLAIMS)
    # before: a drift in each of the seven epochs' outputs
    assert found(report) == [("drift", ("VA",), "cell 2, output 6", 2, 22, "82.66%")]


def test_a_moved_test_accuracy_drifts_in_its_own_cell(tmp_path: Path) -> None:
    report = judge(tmp_path, _pytorch(test="81.40"), _PYTORCH_CLAIMS)
    # before: the same, after a drift of VA in each of the six earlier epochs' outputs
    assert found(report) == [("drift", ("TA",), "cell 3, output 1", 1, 16, "81.40%")]


# === Hugging Face Trainer: per-epoch log dicts, then evaluate() ===================================

# The Trainer's console log (GitHub index file ids 44822180436 and 52407696649; repositories not
# resolved): with `disable_tqdm=True` each log is printed as a dict, "{'loss': ..., 'epoch':
# 1.0}" then "{'eval_loss': ..., 'eval_accuracy': ..., 'eval_runtime': ..., 'epoch': 1.0}" per
# epoch and the train summary; `trainer.evaluate(test_set)` then returns the test metrics under
# the same 'eval_' keys, shown as a pretty-printed dict.
def _hf_epoch(epoch: int, loss: str, eval_loss: str, acc: str) -> str:
    return (f"{{'loss': {loss}, 'grad_norm': 5.21, 'learning_rate': 1.3e-05, 'epoch': {epoch}.0}}\n"
            f"{{'eval_loss': {eval_loss}, 'eval_accuracy': {acc}, 'eval_runtime': 2.3665, "
            f"'eval_samples_per_second': 172.405, 'eval_steps_per_second': 21.551, "
            f"'epoch': {epoch}.0}}\n")


def _hf_trainer(test: str = "0.8480") -> str:
    train = (_hf_epoch(1, "0.6123", "0.4431", "0.8162") + _hf_epoch(2, "0.3817", "0.3950", "0.8407")
             + _hf_epoch(3, "0.2455", "0.4012", "0.8431")
             + "{'train_runtime': 95.1, 'train_samples_per_second': 115.7, "
               "'train_steps_per_second': 14.5, 'train_loss': 0.4132, 'epoch': 3.0}\n")
    result = (f"{{'eval_loss': 0.3902,\n 'eval_accuracy': {test},\n 'eval_runtime': 2.2107,\n"
              f" 'eval_samples_per_second': 184.6,\n 'eval_steps_per_second': 23.07,\n"
              f" 'epoch': 3.0}}")
    return _cells(_code(_stream(train), source="trainer.train()"),
                  _code(_result(result), source="trainer.evaluate(tokenized['test'])"))


def test_the_trainers_test_evaluation_is_not_drift_of_its_epochs(tmp_path: Path) -> None:
    claims = [claim("EA", "eval_accuracy", 0.8480, run="test")]
    report = judge(tmp_path, _hf_trainer(), claims)
    # before: ("ambiguous", ("EA",), "cell 1, output 1", 2, 40, "0.8162")
    assert found(report) == []
    assert matched(report) == {(("EA",), "cell 2, output 1", 2, "0.8480")}


def test_the_trainers_evaluation_drifts_though_an_epoch_shows_the_claim(tmp_path: Path) -> None:
    claims = [claim("EA", "eval_accuracy", 0.8407, run="test")]
    report = judge(tmp_path, _hf_trainer(), claims)
    assert found(report) == [("drift", ("EA",), "cell 2, output 1", 2, 19, "0.8480")]


# === COCOeval summaries of several epochs =========================================================

# An mmdetection 2.x training log pasted into a tutorial (GitHub index file id 11136054711;
# repository not resolved): after each epoch, "Evaluating bbox...", pycocotools' progress
# lines, mmdet's "Epoch(val) [N][327]\tbbox_mAP: ..., bbox_mAP_copypaste: ..." record, then
# summarize()'s twelve lines (mmdet's maxDets 100 on the first line, 1000 on the others).
_MMDET_STATS = [("AP", "0.50:0.95", "all", 100), ("AP", "0.50", "all", 1000),
                ("AP", "0.75", "all", 1000), ("AP", "0.50:0.95", "small", 1000),
                ("AP", "0.50:0.95", "medium", 1000), ("AP", "0.50:0.95", "large", 1000),
                ("AR", "0.50:0.95", "all", 100), ("AR", "0.50:0.95", "all", 300),
                ("AR", "0.50:0.95", "all", 1000), ("AR", "0.50:0.95", "small", 1000),
                ("AR", "0.50:0.95", "medium", 1000), ("AR", "0.50:0.95", "large", 1000)]
_MMDET_EPOCHS = [
    [0.218, 0.404, 0.204, 0.118, 0.221, 0.176, 0.321, 0.321, 0.321, 0.175, 0.347, 0.261],
    [0.261, 0.479, 0.257, 0.156, 0.285, 0.211, 0.379, 0.379, 0.379, 0.223, 0.392, 0.337],
    [0.326, 0.565, 0.349, 0.275, 0.351, 0.243, 0.442, 0.442, 0.442, 0.365, 0.465, 0.375]]


def _mmdet_log(epochs: list[list[float]] = _MMDET_EPOCHS) -> str:
    out = []
    for e, v in enumerate(epochs, 1):
        out.append(
            f"[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>] 173/173, 8.1 task/s, elapsed: 21s, ETA:     0s"
            f"2022-06-20 02:{40 + 4 * e}:30,061 - mmdet - INFO - Evaluating bbox...\n"
            "Loading and preparing results...\nDONE (t=0.15s)\ncreating index...\nindex created!\n"
            "Running per image evaluation...\nEvaluate annotation type *bbox*\nDONE (t=2.42s).\n"
            "Accumulating evaluation results...\n"
            f"2022-06-20 02:{40 + 4 * e}:33,060 - mmdet - INFO - Epoch(val) [{e}][327]\t"
            f"bbox_mAP: {v[0]:.4f}, bbox_mAP_50: {v[1]:.4f}, bbox_mAP_75: {v[2]:.4f}, "
            f"bbox_mAP_copypaste: {v[0]:.3f} {v[1]:.3f} {v[2]:.3f}\n"
            "DONE (t=0.36s).\n")
        out.extend(summary_line(*stat, value) for stat, value in zip(_MMDET_STATS, v, strict=True))
    return "".join(out)


def test_a_coco_claim_of_any_epoch_is_satisfied() -> None:
    text = _mmdet_log()
    for value in (0.326, 0.261):  # the last epoch's, and the best checkpoint's of epoch 2
        assert _log_found(_log(text, [claim("B", "bbox_mAP", value)])) == []


def test_a_moved_coco_claim_drifts_on_the_last_epochs_lines() -> None:
    text = _mmdet_log()
    report = _log(text, [claim("B", "bbox_mAP", 0.331), claim("B50", "bbox_mAP_50", 0.571)])
    record = _line_of(text, "Epoch(val) [3]")  # the last epoch's; its summary two lines down
    # before: ("ambiguous", ("B",), <epoch 2's record>, "0.2610"), ("ambiguous", ("B",),
    # <epoch 2's summary line>, "0.261"), the same for B50: the summary and mmdet's record
    # (judged apart), each ambiguous among the epochs
    assert _log_found(report) == [
        ("drift", ("B",), record, "0.3260"), ("drift", ("B50",), record, "0.5650"),
        ("drift", ("B",), record + 2, "0.326"), ("drift", ("B50",), record + 3, "0.565")]


def test_a_name_fitting_several_lines_of_each_summary_stays_ambiguous() -> None:
    """A bare AR is AR@100, AR@300 or AR@1000 of each block: lines of one summary are no
    series (no epoch between them), so which one is claimed stays unsaid."""
    report = _log(_mmdet_log(), [claim("R", "AR", 0.452)])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("R",))]


# The torchvision detection tutorial's training cell (wangshizhang/RCNN-Finetune-tutorial
# torchvision_finetuning_instance_segmentation.ipynb, commit
# 0dc2eb57856a4f75aea7806f7c1ee63a82a6ba23: `for epoch in range(num_epochs):
# train_one_epoch(...); lr_scheduler.step(); evaluate(model, data_loader_test, device=device)`
# in one cell, one stream); its output per epoch as PyTorchKorea/tutorials-kr
# intermediate_source/torchvision_tutorial.rst prints it: "Epoch: [0]  [ 0/60]  eta: ...",
# "Test:  [ 0/50] ...", "Averaged stats: ...", then "IoU metric: bbox" and "IoU metric: segm",
# each over a summary.
def _torchvision_epoch(e: int, bbox: list[float], segm: list[float]) -> str:
    from tests.reconcile.test_coco_summary_review import summary
    return (f"Epoch: [{e}]  [ 0/60]  eta: 0:01:18  lr: 0.000090  loss: 2.5213 (2.5213)  "
            f"loss_classifier: 0.8025 (0.8025)  time: 1.3121  data: 0.3024  max mem: 3485\n"
            f"Epoch: [{e}]  [59/60]  eta: 0:00:00  lr: 0.005000  loss: 0.2540 (0.6082)  "
            f"loss_classifier: 0.0309 (0.1526)  time: 0.3489  data: 0.0042  max mem: 5081\n"
            f"Epoch: [{e}] Total time: 0:00:21 (0.3570 s / it)\n"
            "creating index...\nindex created!\n"
            "Test:  [ 0/50]  eta: 0:00:19  model_time: 0.2152 (0.2152)  evaluator_time: 0.0133 "
            "(0.0133)  time: 0.4000  data: 0.1701  max mem: 5081\n"
            "Test: Total time: 0:00:04 (0.0828 s / it)\n"
            "Averaged stats: model_time: 0.0628 (0.0687)  evaluator_time: 0.0039 (0.0064)\n"
            "Accumulating evaluation results...\nDONE (t=0.01s).\n"
            "Accumulating evaluation results...\nDONE (t=0.01s).\n"
            "IoU metric: bbox\n" + summary(bbox) + "IoU metric: segm\n" + summary(segm))


_TV_BBOX = [0.606, 0.984, 0.780, 0.313, 0.582, 0.612, 0.270, 0.672, 0.672, 0.650, 0.755, 0.664]
_TV_SEGM = [0.704, 0.979, 0.871, 0.325, 0.488, 0.727, 0.316, 0.748, 0.749, 0.650, 0.761, 0.738]


def _torchvision_notebook(last_bbox_ap: float = 0.831) -> str:
    text = "".join(_torchvision_epoch(e, [ap, *_TV_BBOX[1:]], [ap + 0.05, *_TV_SEGM[1:]])
                   for e, ap in enumerate((0.606, 0.752, last_bbox_ap)))
    return _cells(_code(_stream(text), source="for epoch in range(num_epochs): ..."))


def test_torchvision_epochs_summaries_are_one_history(tmp_path: Path) -> None:
    claims = [claim("B", "bbox_mAP", 0.831), claim("S", "segm_mAP", 0.881)]
    report = judge(tmp_path, _torchvision_notebook(), claims)
    assert found(report) == []
    moved = judge(tmp_path, _torchvision_notebook(last_bbox_ap=0.821), claims)
    # before: ("ambiguous", ("B",), "cell 1, output 1", 14, 75, "0.606") and ("ambiguous",
    # ("S",), "cell 1, output 1", 27, 75, "0.656"), the first epoch's (the segm claim's last
    # value moved with the bbox one's). Now drift on the third
    # epoch's "IoU metric: bbox" summary (its first line: 90) and its segm summary's (103)
    assert [(f.type, f.claims, f.line, f.shown) for f in moved.findings] == [
        ("drift", ("B",), 90, "0.821"), ("drift", ("S",), 103, "0.871")]


def test_a_bare_ap_naming_the_bbox_and_the_segm_lines_stays_ambiguous(tmp_path: Path) -> None:
    report = judge(tmp_path, _torchvision_notebook(), [claim("A", "mAP", 0.841)])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("A",))]


# === no history: records of other things stay ambiguous ===========================================

# basicsr's validation log (the shape test_log_units follows, index file id 3115108247): per
# dataset "Validation <name>" over "\t # psnr: <value>\tBest: <value> @ <iter> iter". A bare
# psnr claim, aliased by no dataset, names each dataset's line alike: which one is claimed the
# log does not say, though "iter" is on every line.
_BASICSR = "".join(
    f"2021-05-06 10:24:{30 + n}, INFO: Validation {name}\n"
    f"\t # psnr: {psnr}\tBest: {psnr} @ 5000 iter\n\n"
    for n, (name, psnr) in enumerate((("Set5", "30.3105"), ("Set14", "27.2052"),
                                      ("B100", "26.6312"))))


def test_per_dataset_lines_are_no_history() -> None:
    report = _log(_BASICSR, [claim("P", "psnr", 30.41)])
    assert _log_found(report) == [("ambiguous", ("P",), 2, "30.3105")]


# === the same report however it is judged =========================================================

def test_the_history_is_judged_alike_in_parallel_and_from_the_cache(tmp_path: Path) -> None:
    nb = tmp_path / "nb.ipynb"
    nb.write_text(_transfer_learning(), encoding="utf-8")
    claims = [claim("V", "val_accuracy", 0.94562), claim("V0", "val_accuracy", 0.89113)]
    segments = read_documents([nb], tmp_path)
    want = [("drift", ("V",), "cell 4, output 1", 10, 126, "0.9406")]
    assert found(reconcile_segments(segments, claims, jobs=1)) == want
    assert found(reconcile_segments(segments, claims, jobs=2)) == want
    for _ in range(2):  # judged, then read back from the cache
        report = reconcile_segments(segments, claims, jobs=1, cache=tmp_path / "cache")
        assert found(report) == want
        assert matched(report) == {(("V0",), "cell 2, output 1", 8, "0.8911")}
