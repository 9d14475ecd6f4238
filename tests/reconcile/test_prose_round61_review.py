"""A review of round 61's prose rules: realistic sentences they misread (found after the round).

1. **Two names joined by a slash are a list, whatever their case.** Round 61 read the later of
   two percents joined by a slash ("75.6%/92.7%"); with names written in lower case after them
   ("90.5%/85.5% precision/recall") the later percent was read as written with "precision",
   the first name of the list (`written_with` took a list's next item only where it held a
   capital or a digit, as "PSNR/SSIM" and "top-1/top-5" do): a precision claim drifted against
   the recall number and a recall claim against the precision number (a correct recall
   blocked, the wrong precision reported at the wrong number). A slash between two anchors is
   now a list: its names are written with no one number.
   Sources: "GPT-4 (90% precision/recall, 22s latency, too costly)" (a talk's notes on
   Indeed's case study), "95% precision/recall for walls and windows" (a survey's table on
   Apple RoomPlan); Intel Caffe's "achieves around 75.6%/92.7% top-1/top-5 accuracy" (round
   61's source for the percents joined by a slash).
"""

from __future__ import annotations

import pytest

from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

# === 1. two names joined by a slash ================================================================

PRECISION = claim("PR", "precision", 0.901, aliases=("Ours",))
RECALL = claim("RE", "recall", 0.855, aliases=("Ours",))


@pytest.mark.parametrize(("text", "precision", "recall"), [
    # before: drift of RE at 90.5%, drift of PR at 85.5%
    ("Ours achieves 90.5%/85.5% precision/recall.", "90.5%", "85.5%"),
    # before (and before round 61, in numbers without a percent): the same
    ("Ours achieves 90.5/85.5 precision/recall.", "90.5", "85.5"),
    # as before
    ("Ours achieves a precision/recall of 90.5%/85.5%.", "90.5%", "85.5%"),
])
def test_names_joined_by_a_slash_are_a_list(text: str, precision: str, recall: str) -> None:
    report = judge(text + "\n", [PRECISION, RECALL])
    assert findings(report) == [("drift", ("PR",), 1, precision)]
    assert matches(report) == {(("RE",), 1, recall)}
