"""Drifts the session's new readers hid, found by the read-only review, each reported again.

Each case is a document where a number clearly drifted from its claim: reported before the
rule that hid it, and again now. Shapes: a Keras fit-and-evaluate log, a PyTorch MNIST log
("Test set: Average loss: ..., Accuracy: ..."), super-resolution tables keyed `PSNR_Y`, FID
written `FID_50k`, ablation rows of a module named SEM or STD, and a sentence giving a number
twice (without and with self-ensemble).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from tests.reconcile.test_documents import claim
from tests.reconcile.test_progress_series import _cells, _code, _markdown, _stream, judge

Found = list[tuple[str, tuple[str, ...], str | None]]


def _found(name: str, text: str, claims: list) -> tuple[Found, set[str | None]]:
    report = reconcile_segments(read_document(name, text.encode()), claims, jobs=1)
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            {m.shown for m in report.matches})


# A bare `accuracy` key is the training split's only beside a held-out key of its own line's
# kind: Keras' evaluate() bar after fit()'s lines is the test set's, and a line labelled
# "Test set:" is the test split's whatever other lines key.
@pytest.mark.parametrize(("text", "claims", "want"), [
    ("Epoch 10/10\n1875/1875 [====] - 3s 2ms/step - loss: 0.0500 - accuracy: 0.9850 - "
     "val_loss: 0.0800 - val_accuracy: 0.9760\n313/313 [====] - 0s 1ms/step - loss: 0.0800 - "
     "accuracy: 0.9755\n", [claim("T", "test_accuracy", 0.9765, aliases=("accuracy",))],
     [("drift", ("T",), "0.9755")]),
    ("Epoch 1: val_accuracy: 0.9800\nEpoch 2: val_accuracy: 0.9850\n"
     "Test set: Average loss: 0.0321, Accuracy: 99.12%\n",
     [claim("T", "test_accuracy", 0.9902)], [("drift", ("T",), "99.12%")]),
])
def test_a_logs_test_line_still_drifts(text: str, claims: list, want: Found) -> None:
    assert _found("train_log.txt", text, claims)[0] == want


# A suffix keeps the quantity unless it makes another one (acc_norm, map_50, loss_cls)
@pytest.mark.parametrize(("name", "text", "claims", "want"), [
    ("README.md",
     "| Method | Set5 PSNR_Y | Set5 SSIM_Y |\n|---|---|---|\n| Ours | 31.52 | 0.912 |\n",
     [claim("P", "psnr", 31.42, aliases=("Ours",)),
      claim("S", "ssim", 0.912, aliases=("Ours",))],
     [("drift", ("P",), "31.52")]),
    ("README.md", "We report FID_50k of 2.45 on FFHQ.\n", [claim("F", "fid", 2.31)],
     [("drift", ("F",), "2.45")]),
    ("train_log.txt", "epoch 10 loss_total: 0.4123\n", [claim("L", "loss", 0.3999)],
     [("drift", ("L",), "0.4123")]),
])
def test_a_key_of_the_same_quantity_still_names_it(name: str, text: str, claims: list,
                                                   want: Found) -> None:
    assert _found(name, text, claims)[0] == want


# A spread is glued to its metric by "_" (acc_stderr); a module named SEM or STD is no spread
@pytest.mark.parametrize(("name", "text"), [
    ("README.md", "| Method | PSNR |\n|---|---|\n| Ours + SEM | 31.52 |\n"),
    ("paper.tex", "\\begin{tabular}{lc}\nMethod & PSNR \\\\\nOurs w/ STD & 31.52 \\\\\n"
                  "\\end{tabular}\n"),
    ("README.md", "- Ours w/ SEM: 31.52 dB\n"),
])
def test_an_ablation_row_named_sem_or_std_still_drifts(name: str, text: str) -> None:
    claims = [claim("C1", "psnr", 31.42, unit="dB", aliases=("Ours",))]
    assert _found(name, text, claims)[0] == [("drift", ("C1",), "31.52")]


# A number written with no name keeps the claim it matches, though another number is written
# with that claim's name
def test_a_number_written_with_no_name_keeps_its_match() -> None:
    claims = [claim("C1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours")),
              claim("C0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0")]
    found, matched = _found("README.md", "Ours reaches 31.20 dB at 200k iterations, the "
                            "Baseline 30.10 dB, and with self-ensemble 31.42 dB.\n", claims)
    assert found == []  # before: a false drift "C1 says 31.20"
    assert matched == {"30.10", "31.42"}


# Two models trained in one notebook, each claim a model's last epoch: an earlier epoch of the
# other model's fit that happens to print a claim's value satisfies nothing: B drifts on the
# ResNet's last epoch (before: dropped, because the CNN's epoch 2 printed 0.9101)
def test_another_models_epoch_does_not_satisfy_a_claim(tmp_path: Path) -> None:
    def fit(vals: list[str]) -> str:
        return "".join(f"Epoch {i + 1}/3\n32/32 [====] - 1s 30ms/step - loss: 0.3 - accuracy: "
                       f"0.8 - val_loss: 0.2 - val_accuracy: {v}\n" for i, v in enumerate(vals))
    text = _cells(_markdown("## Model A (CNN)"),
                  _code(_stream(fit(["0.8500", "0.9101", "0.8812"]))),
                  _markdown("## Model B (ResNet)"),
                  _code(_stream(fit(["0.8800", "0.9050", "0.9150"]))))
    claims = [claim("A", "val_accuracy", 0.8812, run="rA"),
              claim("B", "val_accuracy", 0.9101, run="rB")]
    report = judge(tmp_path, text, claims)
    assert [(f.type, f.claims, f.where, f.shown) for f in report.findings] == [
        ("drift", ("B",), "cell 4, output 1", "0.9150")]
