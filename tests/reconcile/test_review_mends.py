"""Drifts a review of the readers added for real-world documents found silenced, each must be
reported (every one gave no finding before its mend, and was drift before those readers).

The readers each answered a real false finding; these are the real drifts they must not hide:
a heading that only says how to run an evaluation (`## Testing`), an English README whose GPU
ids and tuples looked like decimal commas, a claim whose aliases the document never writes in
a table it is named in by its metric alone, a claim on a spread's or a change's own quantity
("a mean absolute deviation of"), a result next to an operating point's word ("0.75 IoU",
"threshold-free"), and a list's later number that an anchor names.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge

CASES: list[tuple[str, str, list[Claim], tuple[str, str]]] = [
    ("a bare '## Testing' heading names no split",
     "## Testing\n\nRun `python test.py`. Expected top-1 accuracy: 76.4%.\n",
     [claim("V", "val_acc", 0.761, aliases=("top-1 accuracy",))], ("V", "76.4%")),
    ("ids and tuples are no decimal commas",
     "Trained on 12,500 training images (seeds 1,2) with GPUs 0,1.\n",
     [claim("N", "train_images", 12000, aliases=("training images",))], ("N", "12,500")),
    ("a claim whose aliases the document never writes is judged in its metric's column",
     "| Method | Top-1 |\n|---|---|\n| Baseline | 76.1 |\n| Ours | 80.3 |\n",
     [claim("F", "top1", 80.2, aliases=("Top-1", "FooNet")),
      claim("B", "top1", 76.1, aliases=("Baseline",), run="r0")], ("F", "80.3")),
    ("a spread's noun that is the claim's anchor",
     "We get a mean absolute deviation of 0.15.\n",
     [claim("M", "mad", 0.12, aliases=("mean absolute deviation",))], ("M", "0.15")),
    ("a change's noun that is the claim's anchor",
     "Ours reaches a relative improvement of 0.31 over the baseline.\n",
     [claim("R", "improvement", 0.25, aliases=("relative improvement", "Ours"))], ("R", "0.31")),
    ("an operating point's word not after 'at' is the result's",
     "Ours reaches 0.75 IoU (mean IoU).\n",
     [claim("I", "miou", 0.72, aliases=("mean IoU", "Ours"))], ("I", "0.75")),
    ("a hyphen-joined word is no operating point",
     "Dice of 0.89 threshold-free for Ours.\n",
     [claim("D", "dice", 0.85, aliases=("Dice", "Ours"))], ("D", "0.89")),
    ("a list's later number an anchor names is a value",
     "Ours improves by 1.2% and 76.9% top-1 accuracy is reached.\n",
     [claim("T", "top1", 0.761, aliases=("top-1 accuracy", "Ours"))], ("T", "76.9%")),
]


@pytest.mark.parametrize(("text", "claims", "drift"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_drift_is_reported(text: str, claims: list[Claim], drift: tuple[str, str]) -> None:
    cid, shown = drift
    assert [(f.type, f.claims, f.shown) for f in judge(text, claims).findings] == [
        ("drift", (cid,), shown)]


def test_an_operating_point_after_at_stays_a_setting() -> None:
    # the mends keep what the readers were for: "at 65% sparsity" is where the result is
    # measured, and the accuracy beside it the result
    claims = [claim("P", "accuracy", 0.652, aliases=("Ours",))]
    text = "Ours matches full attention at 65% sparsity with 0.652 accuracy.\n"
    assert findings(judge(text, claims)) == []
    moved = judge(text.replace("0.652", "0.659"), claims)
    assert [(f.type, f.shown) for f in moved.findings] == [("drift", "0.659")]
