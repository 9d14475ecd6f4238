"""Reconcile on the prose of papers and project pages (abstracts, result paragraphs, README
abstracts): the shapes real sentences give their numbers in, each fixture following one real
source (named above it, with the findings before and now) with names and numbers of its own.

1. **A number after "of" is what the noun before it says.** "a gain of 0.81 dB", "a decrease
   of 2.6%", "an improvement of 3.1%" are deltas and "a standard deviation of 0.05" a spread,
   as "by 0.81 dB" and "± 0.05" are: read as values, they matched a claim they were near by
   chance (its drifted value then went unreported) or made its drift ambiguous.
2. **A list of numbers is what its first number is.** "PSNR gains of 4 dB, 0.81 dB and 0.21
   dB, respectively", "by 1.19 dB and 2.11 dB", "above 92% and 88%": the words before the list
   say what each number of it is, not only the first (`number_roles.list_head`).
3. **A list's later number is as near its anchors as its first.** "On Set5, Set14 and B100,
   our model obtains PSNRs of 32.46, 28.80 and 27.71 dB, respectively": the last number was
   more than eight words from every anchor, so moving it was no finding.
4. **LaTeX math around a batch size** ("at a batch size of $64$"): the size was a value, an
   ambiguous candidate of an accuracy claim whose drift it hid.
5. **A respectively-list pairs its numbers with its names.** "32.46, 27.71 and 28.80 dB on Set5,
   Set14 and B100, respectively" with the last two swapped: each number matched the other
   dataset's claim, and the slip was no finding. Now, in a sentence saying *respectively* with
   one list of numbers and one list of names as long, each number is only its own name's
   claims' (`number_roles.respectively`).
6. **An operating point is no result.** "matches full-attention accuracy at 65% sparsity",
   "a TPR of 0.93 at 1% FPR": the 65% matched an accuracy claim of 0.652 at the precision it
   shows, so the claimed number beside it went unchecked. A number before *sparsity*, *FPR*,
   *IoU*, *threshold*... is a level (unless that noun is the claim's anchor).
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]


def _check(text: str, claims: list[Claim], path: str, want: Found,
           matched: set[str] | None = None) -> None:
    report = judge(text, claims, path=path)
    assert findings(report) == want
    if matched is not None:
        assert {m[2] for m in matches(report)} == matched


# === 1. "a gain of", "a decrease of", "a standard deviation of" =================================

# atik666/rlpl sec/6_ablation.tex: "The noisy student achieves 84.54\% accuracy with a standard
# deviation of 0.05, ..." and sec/0_abstract.tex "an average performance gain of
# \textbf{6.12\%}". Adrien-Dorise/paper_restoration sec/3_Results.tex: "with a decrease of
# 2.6\% for both mAP@50 and mAP@90". Before: the spread and the deltas were values, near enough
# to the claim to match it by chance (the claimed number's drift unreported) or to make its
# drift ambiguous; now they are a spread and deltas.
NOISY = [claim("N1", "accuracy", 0.7321, aliases=("Noisy Teacher",)),
         claim("N2", "accuracy", 0.7288, aliases=("noisy student",), run="r2")]
MAPS = [claim("M5", "map50", 0.6840, aliases=("Original",)),
        claim("M9", "map90", 0.4712, aliases=("Original",))]

ERR = [claim("E1", "top1_err", 0.259, aliases=("FooNet", "top-1 error"))]


@pytest.mark.parametrize(("text", "claims", "want", "matched"), [
    # before: ambiguous (the spread 0.45 was a plausible accuracy)
    (r"The noisy student achieves 72.98\% accuracy with a standard deviation of 0.45, so its "
     r"runs vary.", NOISY, [("drift", ("N2",), 1, "72.98%")], set()),
    (r"The noisy student achieves 72.88\% accuracy with a standard deviation of 0.45, so its "
     r"runs vary.", NOISY, [], {"72.88%"}),
    # before: the gain 72.9% matched N2, and its drifted 72.98% went unreported
    (r"The noisy student reaches 72.98\% accuracy, a gain of 72.9\% over training from scratch.",
     NOISY, [("drift", ("N2",), 1, "72.98%")], set()),
    # before: ambiguous between 72.98% and the improvement
    (r"The noisy student reaches 72.98\% accuracy, an improvement of 72.0\% over the baseline.",
     NOISY, [("drift", ("N2",), 1, "72.98%")], set()),
    # before: drift of M9 and an ambiguity of both claims on the decrease
    (r"The blur hurts the detector only lightly, with a decrease of 47.0\% for mAP@90.",
     MAPS, [], set()),
    (r"The blur hurts the detector, with a decrease of 68.0\% for both mAP@50 and mAP@90.",
     MAPS, [], set()),
    # an error or a variance alone is a metric, not a spread: its value is judged
    (r"FooNet reaches a top-1 error of 26.4\% with a standard error of 25.9\%.", ERR,
     [("drift", ("E1",), 1, "26.4%")], set()),
    (r"FooNet reaches a top-1 error of 25.9\% on the held-out images.", ERR, [], {"25.9%"}),
    # the value beside them is still judged
    (r"The model reaches 68.40\% mAP@50 and 47.22\% mAP@90, a decrease of 2.6\% from the clean "
     r"images.", MAPS, [("drift", ("M9",), 1, "47.22%")], {"68.40%"}),
])
def test_a_number_of_a_delta_or_spread_noun_is_no_value(
        text: str, claims: list[Claim], want: Found, matched: set[str]) -> None:
    _check(text, claims, "paper.tex", want, matched)


# === 2. a list of deltas or bounds ===============================================================

# swz30/MPRNet README.md, the abstract: "on the Rain100L, GoPro and DND datasets, we obtain PSNR
# gains of 4 dB, 0.81 dB and 0.21 dB, respectively, compared to the state-of-the-art." Before:
# `ambiguous` for both claims on "4" (the later gains were values, in the claims' unit, so
# plausible); now none: every gain of the list is a delta.
DERAIN = [claim("G1", "psnr", 31.87, unit="dB", aliases=("GoPro",)),
          claim("D1", "psnr", 39.62, unit="dB", aliases=("DND",))]


@pytest.mark.parametrize(("text", "want"), [
    ("On the Rain200L, GoPro and DND datasets, FooNet obtains PSNR gains of 3 dB, 0.64 dB and "
     "0.18 dB, respectively, compared to the best prior method.\n", []),
    # (a Deblur-NeRF abstract's shape) before: drift of G1 on 2.05
    ("On GoPro, FooNet improves PSNR by 1.27 dB and 2.05 dB, respectively, over the two "
     "baselines.\n", []),
    ("On GoPro, FooNet improves PSNR by 1.27, 2.05, and 0.4 dB over the three baselines.\n", []),
    # a bound's list: "above" says the same of both
    ("FooNet stays above 30 dB and 38 dB on GoPro and DND.\n", []),
    # a list of values stays values: the moved one drifts
    ("FooNet obtains 31.87 dB and 39.52 dB on GoPro and DND, respectively.\n",
     [("drift", ("D1",), 1, "39.52")]),
    # a value after a bare comma is no list's, though a delta is before it
    ("On GoPro, FooNet improves PSNR by 0.64 dB, 31.97 dB in total.\n",
     [("drift", ("G1",), 1, "31.97")]),
    # nor one after a digit glued to a name ("Test2800, and 39.72 dB")
    ("FooNet improves by 0.64 dB on Test2800, and 39.72 dB on DND.\n",
     [("drift", ("D1",), 1, "39.72")]),
])
def test_a_list_after_a_delta_or_bound_word_is_deltas_or_bounds(text: str, want: Found) -> None:
    _check(text, DERAIN, "README.md", want)


# === 3. a respectively-list's last number is near its anchors ===================================

# The shape of super-resolution abstracts ("On Set5, Set14 and B100, ... PSNRs of X, Y and Z dB,
# respectively"; the MPRNet abstract above names its datasets before its list of gains too).
# Before: the last number, nine words after "B100", was judged by no anchor: its drift was no
# finding; now it is drift.
SR = [claim("P5", "psnr", 32.21, unit="dB", aliases=("Set5",)),
      claim("P14", "psnr", 28.67, unit="dB", aliases=("Set14",)),
      claim("P100", "psnr", 27.58, unit="dB", aliases=("B100",))]


@pytest.mark.parametrize(("text", "want", "matched"), [
    ("On Set5, Set14 and B100, our model obtains PSNRs of 32.21, 28.67 and 27.68 dB, "
     "respectively.\n", [("drift", ("P100",), 1, "27.68")], {"32.21", "28.67"}),
    ("On Set5, Set14 and B100, our model obtains PSNRs of 32.21, 28.67 and 27.58 dB, "
     "respectively.\n", [], {"32.21", "28.67", "27.58"}),
])
def test_a_lists_later_number_is_as_near_as_its_first(
        text: str, want: Found, matched: set[str]) -> None:
    _check(text, SR, "README.md", want, matched)


# === 4. a batch size in LaTeX math ==============================================================

# atik666/rlpl sec/5_results.tex: "Remarkably, at a batch size of $64$, RLPL attained an accuracy
# of $82.24\%$, surpassing BYOL's accuracy of $81.94\%$ with a batch size of $128$." Before: a
# moved BYOL number was `ambiguous` with the batch size 64 (a plausible percent); now drift.
BATCH = [claim("R1", "accuracy", 0.7914, aliases=("FooSSL",)),
         claim("R0", "accuracy", 0.7702, aliases=("BYOL",), run="r0")]


@pytest.mark.parametrize(("text", "want"), [
    (r"At a batch size of $48$, FooSSL attains an accuracy of $79.14\%$, surpassing BYOL's "
     r"accuracy of $77.12\%$ with a batch size of $96$.", [("drift", ("R0",), 1, "77.12%")]),
    (r"At a batch size of $48$, FooSSL attains an accuracy of $79.24\%$, surpassing BYOL's "
     r"accuracy of $77.02\%$ with a batch size of $96$.", [("drift", ("R1",), 1, "79.24%")]),
    (r"At a batch size of~$48$, FooSSL attains an accuracy of $79.14\%$, surpassing BYOL's "
     r"accuracy of $77.02\%$.", []),
])
def test_a_batch_size_in_math_is_a_reference(text: str, want: Found) -> None:
    _check(text, BATCH, "paper.tex", want)


# === 5. respectively ============================================================================

# swz30/MPRNet README.md (above) names its datasets in a list and gives a list of numbers in the
# same order, "respectively"; the super-resolution abstracts' shape gives PSNRs so. Before: two
# numbers swapped matched each other's claims, no finding; now each drifts against its own
# name's claim. A sentence with two lists of numbers, or whose names are not all claims' names,
# is judged as before.
@pytest.mark.parametrize(("text", "want"), [
    ("On Set5, Set14 and B100, our model obtains PSNRs of 32.21, 27.58 and 28.67 dB, "
     "respectively.\n", [("drift", ("P14",), 1, "27.58"), ("drift", ("P100",), 1, "28.67")]),
    ("Our model obtains 32.21, 27.58 and 28.67 dB on Set5, Set14 and B100, respectively.\n",
     [("drift", ("P14",), 1, "27.58"), ("drift", ("P100",), 1, "28.67")]),
    ("Our model obtains 32.21, 28.67 and 27.58 dB on Set5, Set14 and B100, respectively.\n", []),
    ("Our model obtains 32.21, 28.77 and 27.58 dB on Set5, Set14 and B100, respectively.\n",
     [("drift", ("P14",), 1, "28.77")]),
    # a name of the list no claim has (Urban100): no pairing, each number matches as before
    ("Our model obtains 32.21, 27.58 and 28.67 dB on Set5, Urban100 and Set14, respectively.\n",
     []),
    # two lists of numbers: which one the names go with is unsaid (each number is judged as
    # before: both match a claim)
    ("On Set5 and B100, our model obtains 27.58 and 32.21 dB, up from 26.93 and 31.02 dB, "
     "respectively.\n", []),
])
def test_a_respectively_list_pairs_numbers_with_names(text: str, want: Found) -> None:
    _check(text, SR, "README.md", want)


# === 6. an operating point ======================================================================

# ziplab/PSA sec/0_abstract.tex (a commented-out draft of the abstract, read as prose shows it):
# "PSA matches full-attention accuracy at 65\% sparsity on the Video-MME benchmark using
# Qwen2.5-VL". Before: the sparsity matched an accuracy claim of 0.652 at its shown precision,
# and a moved accuracy beside it was no finding; now the sparsity is a level and the moved
# accuracy drifts.
VIDEO = [claim("V1", "accuracy", 0.638, aliases=("FooAttn", "Video-MME"))]
SPARSE = [claim("S1", "sparsity", 0.64, aliases=("FooAttn",))]


@pytest.mark.parametrize(("text", "claims", "want", "matched"), [
    (r"FooAttn keeps full-attention accuracy at 64\% sparsity on Video-MME, reaching 63.9\% "
     r"accuracy.", VIDEO, [("drift", ("V1",), 1, "63.9%")], set()),
    (r"FooAttn keeps full-attention accuracy at 64\% sparsity on Video-MME, reaching 63.8\% "
     r"accuracy.", VIDEO, [], {"63.8%"}),
    (r"On Video-MME, FooAttn reaches a recall of 63.9\% at 1\% FPR.", VIDEO,
     [("drift", ("V1",), 1, "63.9%")], set()),
    # a claim on the noun itself: its number is that claim's value
    (r"FooAttn runs at 64\% sparsity.", SPARSE, [], {"64%"}),
    (r"FooAttn runs at 66\% sparsity.", SPARSE, [("drift", ("S1",), 1, "66%")], set()),
])
def test_an_operating_point_is_no_value(
        text: str, claims: list[Claim], want: Found, matched: set[str]) -> None:
    _check(text, claims, "paper.tex", want, matched)
