"""A printed log (a notebook's stream output, a ``.txt`` results log) is read record by record:
each line is a unit, a heading line's anchors (``Validation Set5``, ``Epoch 11/15``) name the
lines under it, and a claim named on one record more than on the others is that record's.

Read as prose, a whole log (no sentence punctuation) was one unit and every line's anchors named
every line's numbers. Three failures from reviewing real printed results, each rebuilt from its
source, as a ``.txt`` log and as a notebook's stream output: (a) as written, no finding and each
bound number matched to its claim at its line; (b) each bound number moved by more than half a
unit in its last digit is one `drift` on that claim at that line, and nothing else. Then focused
cases: how far a heading reaches, and hard-wrapped prose in a ``.txt`` staying prose.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_outputs_review import _notebook, claim

# Megvii-BaseDetection/AutoAssign auto_assign.res50.fpn.coco.800size.1x/README.md: pycocotools'
# COCOeval.summarize() (the AP column of the table under it, in percent, gives the values)
_COCO = (
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.405\n"
    " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.598\n"
    " Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 0.440\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.233\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.444\n"
    " Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = 0.534\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.326\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ] = 0.539\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.578\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.390\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.612\n"
    " Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = 0.734\n")
_COCO_CLAIMS = [
    claim("AP", "bbox_ap", 0.40510,
          aliases=("Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]",)),
    claim("AP50", "bbox_ap50", 0.59771,
          aliases=("Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ]",)),
    claim("APs", "bbox_ap_small", 0.23279,
          aliases=("Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]",)),
    claim("AR", "bbox_ar100", 0.57812,
          aliases=("Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]",))]
# (claim, line in the log, the number, text holding it once, that text with the number moved)
_COCO_BOUND = [("AP", 1, "0.405", "= 0.405", "= 0.407"), ("AP50", 2, "0.598", "= 0.598", "= 0.600"),
               ("APs", 4, "0.233", "= 0.233", "= 0.235"), ("AR", 9, "0.578", "= 0.578", "= 0.580")]

# A BasicSR test log kept in an architecture file's docstring (index file id 3115108247;
# repository not resolved): basicsr's nondist_validation() prints "Validation <dataset>", then
# "\t # <metric>: <value>\tBest: <value> @ <iter> iter" (tabs and spaces as stored there)
_BASICSR_TEST = (
    "2024-04-12 11:50:01,132 INFO: Testing Set5...\n"
    "2024-04-12 11:50:02,259 INFO: Validation Set5\n"
    "         # psnr: 38.0752        Best: 38.0752 @ test_myfix6_x2 iter\n"
    "         # ssim: 0.9612 Best: 0.9612 @ test_myfix6_x2 iter\n"
    "\n"
    "2024-04-12 11:50:02,260 INFO: Testing Set14...\n"
    "2024-04-12 11:50:05,173 INFO: Validation Set14\n"
    "         # psnr: 33.8424        Best: 33.8424 @ test_myfix6_x2 iter\n"
    "         # ssim: 0.9200 Best: 0.9200 @ test_myfix6_x2 iter\n"
    "\n"
    "2024-04-12 11:50:05,173 INFO: Testing B100...\n"
    "2024-04-12 11:50:16,163 INFO: Validation B100\n"
    "         # psnr: 32.2436        Best: 32.2436 @ test_myfix6_x2 iter\n"
    "         # ssim: 0.9011 Best: 0.9011 @ test_myfix6_x2 iter\n")
_BASICSR_CLAIMS = [
    claim("P5", "psnr", 38.07519, aliases=("Validation Set5",)),
    claim("S5", "ssim", 0.96117, aliases=("Validation Set5",)),
    claim("P100", "psnr", 32.24361, aliases=("Validation B100",), run="b100")]
_BASICSR_BOUND = [("P5", 3, "38.0752", "# psnr: 38.0752", "# psnr: 38.0762"),
                  ("S5", 4, "0.9612", "# ssim: 0.9612", "# ssim: 0.9622"),
                  ("P100", 13, "32.2436", "# psnr: 32.2436", "# psnr: 32.2446")]

# An SRCNN-on-BasicSR walkthrough's "测试结果示例" block (index file id 67419746094; repository
# not resolved): one line per test image, then the set's average
_BASICSR_IMAGES = (
    "Testing Set5...\n"
    "Test baby\t psnr: 32.15\t ssim: 0.9145\n"
    "Test bird\t psnr: 31.24\t ssim: 0.9234\n"
    "Test butterfly\t psnr: 28.67\t ssim: 0.8956\n"
    "...\n"
    "Average: psnr: 30.52\t ssim: 0.9112\n")
_IMAGES_CLAIMS = [claim("PA", "psnr", 30.5213, aliases=("Average",)),
                  claim("SA", "ssim", 0.91118, aliases=("Average",))]
_IMAGES_BOUND = [("PA", 6, "30.52", "psnr: 30.52", "psnr: 30.62"),
                 ("SA", 6, "0.9112", "ssim: 0.9112", "ssim: 0.9132")]

# keras-team/keras-io examples/vision/md/mnist_convnet.md: model.fit() over 15 epochs, cut off in
# epoch 12; epochs 7, 10 and 11 all print "val_accuracy: 0.9920"
_KERAS_EPOCHS = [
    ("13s 29ms", "0.7840", "0.7643", "0.0780", "0.9780"),
    ("13s 31ms", "0.1199", "0.9639", "0.0559", "0.9843"),
    ("14s 33ms", "0.0845", "0.9737", "0.0469", "0.9877"),
    ("14s 33ms", "0.0762", "0.9756", "0.0398", "0.9895"),
    ("15s 35ms", "0.0621", "0.9812", "0.0378", "0.9890"),
    ("17s 40ms", "0.0547", "0.9825", "0.0360", "0.9910"),
    ("17s 41ms", "0.0497", "0.9840", "0.0311", "0.9920"),
    ("16s 39ms", "0.0443", "0.9862", "0.0346", "0.9910"),
    ("17s 39ms", "0.0436", "0.9860", "0.0325", "0.9915"),
    ("16s 38ms", "0.0407", "0.9865", "0.0301", "0.9920"),
    ("16s 37ms", "0.0406", "0.9874", "0.0303", "0.9920")]
_KERAS_FIT = "".join(
    f"Epoch {n}/15\n422/422 [==============================] - {t}/step - loss: {loss} - "
    f"accuracy: {acc} - val_loss: {vloss} - val_accuracy: {vacc}\n"
    for n, (t, loss, acc, vloss, vacc) in enumerate(_KERAS_EPOCHS, 1)) + (
    "Epoch 12/15\n"
    "237/422 [===============>..............] - ETA: 7s - loss: 0.0398 - accuracy: 0.9877\n")
_KERAS_CLAIMS = [
    claim("V", "val_accuracy", 0.99203, aliases=("Epoch 11/15",), run="epoch11"),
    claim("VL", "val_loss", 0.030312, aliases=("Epoch 11/15",), run="epoch11"),
    claim("V1", "val_accuracy", 0.97801, aliases=("Epoch 1/15",), run="epoch1")]
_KERAS_BOUND = [
    ("V", 22, "0.9920", "val_accuracy: 0.9920\nEpoch 12", "val_accuracy: 0.9930\nEpoch 12"),
    ("VL", 22, "0.0303", "val_loss: 0.0303", "val_loss: 0.0313"),
    ("V1", 2, "0.9780", "val_accuracy: 0.9780", "val_accuracy: 0.9790")]

LOGS = {"coco": (_COCO, _COCO_CLAIMS, _COCO_BOUND),
        "basicsr-validation": (_BASICSR_TEST, _BASICSR_CLAIMS, _BASICSR_BOUND),
        "basicsr-images": (_BASICSR_IMAGES, _IMAGES_CLAIMS, _IMAGES_BOUND),
        "keras-fit": (_KERAS_FIT, _KERAS_CLAIMS, _KERAS_BOUND)}


def _reconcile(path: str, log: str, claims: list[Claim]) -> Report:
    if path.endswith(".ipynb"):  # the log as a code cell's stream output
        doc = _notebook([("markdown", "# Results\n", []),
                         ("code", "evaluate()", [("stream", log)])])
    else:
        doc = log
    return reconcile_segments(read_document(path, doc.encode()), claims, jobs=1)


@pytest.mark.parametrize("path", ["log.txt", "log.ipynb"])
@pytest.mark.parametrize("name", list(LOGS))
def test_printed_log_is_read_record_by_record(name: str, path: str) -> None:
    log, claims, bound = LOGS[name]
    where = "cell 2, output 1" if path.endswith(".ipynb") else None
    report = _reconcile(path, log, claims)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    matched = {(m.claims, m.where, m.line, m.shown) for m in report.matches}
    for cid, line, number, shown, moved in bound:
        assert ((cid,), where, line, number) in matched, (cid, line, number, matched)
        assert log.count(shown) == 1, shown  # the bound number, and only it, moves
        assert shown.count(number) == 1, shown
        got = _reconcile(path, log.replace(shown, moved), claims)
        assert [(f.type, f.claims, f.where, f.line) for f in got.findings] == [
            ("drift", (cid,), where, line)], "\n".join(f.render() for f in got.findings)


def test_a_claim_named_on_every_record_alike_is_judged_on_the_whole_log() -> None:
    # val_accuracy with no epoch named: any epoch's record may be the claimed one, as a column
    # headed by the metric alone is judged as a whole; epochs 1-6, 8 and 9 are no drift
    report = _reconcile("fit.txt", _KERAS_FIT, [claim("V", "val_accuracy", 0.99203)])
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert {m.line for m in report.matches} == {14, 20, 22}


# A heading's anchors name the lines under it, up to the next line without a number (the next
# heading, named by a claim or not) or a blank line: "score" names no claim, "Ours" does.
_HEADED = "epoch 40/40\n==> Ours\nscore: 30.95\n==> Baseline\nscore: 29.50\n"
_BLANK = "epoch 40/40\n==> Ours\nscore: 30.95\nsteps: 4000\n\nscore: 29.50\n"


@pytest.mark.parametrize("log", [_HEADED, _BLANK], ids=["next heading", "blank line"])
def test_a_heading_names_the_lines_under_it_and_no_further(log: str) -> None:
    claims = [claim("O", "bleu", 30.9512, aliases=("Ours",))]
    report = _reconcile("scores.txt", log, claims)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert [(m.claims, m.line, m.shown) for m in report.matches] == [(("O",), 3, "30.95")]
    # moved, only the line under the heading is O's: 29.50 below would make it ambiguous
    got = _reconcile("scores.txt", log.replace("30.95", "31.95"), claims)
    assert [(f.type, f.claims, f.line) for f in got.findings] == [("drift", ("O",), 3)], \
        "\n".join(f.render() for f in got.findings)


def test_hard_wrapped_prose_in_a_text_file_stays_sentences() -> None:
    # lines ending in words: prose, its sentence spanning the wrap between "PSNR" and 31.42
    text = ("We trained the model for three days on one machine and then measured\n"
            "its PSNR on the Kodak set, where it reaches\n"
            "31.42 dB, well above the earlier runs reported in\n"
            "the appendix of the first version of this note.\n")
    claims = [claim("C1", "psnr", 31.4237, unit="dB")]
    report = _reconcile("notes.txt", text, claims)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert [(m.claims, m.line, m.shown) for m in report.matches] == [(("C1",), 3, "31.42")]
    got = _reconcile("notes.txt", text.replace("31.42", "31.62"), claims)
    assert [(f.type, f.claims, f.line) for f in got.findings] == [("drift", ("C1",), 3)], \
        "\n".join(f.render() for f in got.findings)
