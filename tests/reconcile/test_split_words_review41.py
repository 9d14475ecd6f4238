"""Split words that name no split of a sentence's numbers (review 41, items 1, 2, 4, 5a, 6).

Claims read from nested metric keys (``--metric test.psnr``) are on a split, and a sentence's
split words decide which of them its numbers may be (`number_roles.prose_splits`,
`number_roles.respective_splits`). These words were read as naming the numbers' split where
they do not:

1. **A list of splits "respectively" that is not the numbers'.** "Trained on the train and val
   sets, Ours and the Baseline reach 31.92 and 30.60 dB on the test set, respectively": the
   numbers were paired with "train and val", both test claims dropped, nothing compared. No
   list of splits pairs where the sentence's *respectively* pairs its numbers with names,
   where a split is also named on its own, or where the list is what was trained on.
2. **Benchmark servers' test splits.** "a test-dev AP of 45.3" (COCO's test-dev; also
   test-challenge, VQA's test-std) read "dev AP", the val split's: the test number drifted
   against the val claim. "test-dev" is the test split.
4. **"test" as a verb.** "We test PSNR on Kodak and get 32.05 dB" read "test PSNR": the
   number drifted against the test claim. After a subject ("we", "we then") or an
   infinitive's "to" ("in order to") "test" and "train" are verbs and name no split.
5a. **A partition.** "With a train/val/test split of 80/10/10, PSNR is 32.05 dB" read "test
   split" as the number's split: a drift against the test claim. Split words joined by
   slashes before "split(s)" say how the data was divided, for any number of them: no split.
6. **Which claims a list of numbers for a list of splits leaves untold.** Each claim on a split
   that one of the numbers could be is `ambiguous`; the message said "C0 ... is named here" of
   a claim the sentence never names (the baseline's, a candidate by its metric). It now says
   what holds of every such claim: its split, and that it may be one of the numbers.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from labledger.reconcile.number_roles import respective_splits
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]

# A metrics.json of the layout {"test": {"psnr": 31.42}, "val": {"psnr": 32.05}}, claimed with
# --metric test.psnr / val.psnr: each claim is on the split of its key (`Claim.evaluated_split`)
T1 = replace(claim("T1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours")),
             metric="psnr", evaluated_split="test")
V1 = replace(claim("V1", "psnr", 32.05, unit="dB", aliases=("PSNR",)), evaluated_split="val")
C0 = replace(claim("C0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0"),
             evaluated_split="test")

# === 1. a list of splits "respectively" that is not the numbers' ===============================


@pytest.mark.parametrize(("text", "want"), [
    # before: nothing compared (both paired with "train and val"); the Baseline's and Ours'
    # numbers, which of the two is whose untold: ambiguous, as before the split pairing
    ("Trained on the train and val sets, Ours and the Baseline reach 31.92 and 30.60 dB on "
     "the test set, respectively.",
     [("ambiguous", ("C0",), 1, "31.92"), ("ambiguous", ("T1",), 1, "31.92")]),
    # before: nothing compared; the names pair with the numbers: two drifts
    ("The Baseline and Ours reach 30.60 and 31.92 dB PSNR on the test set after training on "
     "the train and val splits, respectively.",
     [("drift", ("C0",), 1, "30.60"), ("drift", ("T1",), 1, "31.92")]),
    # before: T1 taken off 31.92 (paired with "val"); the names pair: two drifts
    ("Ours and Baseline reach 31.92 and 30.60 dB PSNR on the combined val and test sets, "
     "respectively.",
     [("drift", ("T1",), 1, "31.92"), ("drift", ("C0",), 1, "30.60")]),
])
def test_a_list_of_splits_that_is_not_the_numbers_pairs_with_none(text: str,
                                                                   want: Found) -> None:
    report = judge(text + "\n", [T1, V1, C0])
    assert findings(report) == want


@pytest.mark.parametrize("text", [
    # a split also named on its own for the numbers
    "PSNR is 31.92 and 30.60 dB on the test set with the train and val splits of the two "
    "protocols, respectively.",
    # the list is what was trained on
    "Trained on the train and val sets, PSNR is 31.92 and 30.60 dB, respectively.",
    "After training on the train and val splits, PSNR is 31.92 and 30.60 dB, respectively.",
    "Fine-tuned on the train and val sets, PSNR is 31.92 and 30.60 dB, respectively.",
    "We pre-trained on both the train and val splits; PSNR is 31.92 and 30.60 dB, respectively.",
])
def test_no_pairing_with_a_list_of_splits_named_beside_another_or_trained_on(text: str) -> None:
    at = [text.index("31.92"), text.index("30.60")]
    assert respective_splits(text, 0, [(a, a + 8) for a in at]) == ([], [])


@pytest.mark.parametrize("text", [
    "PSNR is 31.92 and 30.60 dB on the val and test sets, respectively.",
    "Evaluated on the val and test sets, PSNR is 31.92 and 30.60 dB, respectively.",
    # "trained" elsewhere in the sentence, not naming the list
    "Trained for 300 epochs, PSNR is 31.92 and 30.60 dB on the val and test sets, respectively.",
])
def test_a_list_of_the_numbers_splits_still_pairs(text: str) -> None:
    at = [text.index("31.92"), text.index("30.60")]
    assert respective_splits(text, 0, [(a, a + 8) for a in at]) == ([(0, "val"), (1, "test")],
                                                                     [])


def test_swapped_val_and_test_numbers_still_drift() -> None:
    """The original fix's case: the pairing with the splits stays where it is the numbers'."""
    report = judge("PSNR is 31.42 and 32.05 dB on the validation and test sets, "
                   "respectively.\n", [T1, V1])
    assert findings(report) == [("drift", ("V1",), 1, "31.42"), ("drift", ("T1",), 1, "32.05")]
    assert matches(report) == set()


# === 2. benchmark servers' test splits ===========================================================

# COCO detection results as papers give them (Lin et al. 2014; e.g. Carion et al. 2020, DETR,
# Table 1 "AP" on "COCO test-dev"); a metrics.json {"test": {"ap": 45.3}, "val": {"ap": 44.1}}
AP_TEST = replace(claim("T1", "ap", 45.3, aliases=("AP", "mAP")), evaluated_split="test")
AP_VAL = replace(claim("V1", "ap", 44.1, aliases=("AP", "mAP")), evaluated_split="val")


@pytest.mark.parametrize("text", [
    # before: drift against V1 ("dev AP" was the val split's)
    "Ours reaches a test-dev AP of 45.3 on COCO.",
    "On COCO, our test-dev mAP is 45.3.",
    "On COCO, our test-challenge AP is 45.3.",
    # as before
    "Ours reaches 45.3 AP on COCO test-dev.",
    "Ours reaches a test AP of 45.3.",
])
def test_test_dev_is_the_test_split(text: str) -> None:
    report = judge(text + "\n", [AP_TEST, AP_VAL])
    assert findings(report) == []
    assert matches(report) == {(("T1",), 1, "45.3")}


@pytest.mark.parametrize(("text", "want"), [
    ("Ours reaches a test-dev AP of 44.1 on COCO.", [("drift", ("T1",), 1, "44.1")]),
    # a dev split on its own is still the val split's
    ("Ours reaches a dev AP of 45.3.", [("drift", ("V1",), 1, "45.3")]),
])
def test_a_test_dev_number_is_judged_against_the_test_claim(text: str, want: Found) -> None:
    assert findings(judge(text + "\n", [AP_TEST, AP_VAL])) == want


# === 4. "test" as a verb ==========================================================================

T_VAL = replace(V1, split="val")
T_TEST = replace(T1, split="test")


@pytest.mark.parametrize("text", [
    # before: drift against T1 ("test PSNR")
    "We test PSNR on Kodak and get 32.05 dB.",
    "We then test PSNR on Kodak and get 32.05 dB.",
    "In order to test PSNR on Kodak, we run it and get 32.05 dB.",
])
def test_test_as_a_verb_names_no_split(text: str) -> None:
    report = judge(text + "\n", [T_TEST, T_VAL])
    assert findings(report) == []
    assert matches(report) == {(("V1",), 1, "32.05")}


@pytest.mark.parametrize("text", [
    # the noun phrase, as before: the test split
    "Our test PSNR on Kodak is 32.05 dB.",
    "Ours comes close to test PSNR of 32.05 dB.",
])
def test_test_before_a_metric_still_names_the_test_split(text: str) -> None:
    assert findings(judge(text + "\n", [T_TEST, T_VAL])) == [("drift", ("T1",), 1, "32.05")]


# === 5a. a partition names no split ===============================================================


@pytest.mark.parametrize("text", [
    # before: drift against T1
    "With a train/val/test split of 80/10/10, PSNR is 32.05 dB.",
    "With train/val/test splits of 80/10/10, PSNR is 32.05 dB.",
    "On a 90/10 train/test split, PSNR is 32.05 dB.",
])
def test_a_partition_names_no_split(text: str) -> None:
    report = judge(text + "\n", [T_TEST, T_VAL])
    assert findings(report) == []
    assert matches(report) == {(("V1",), 1, "32.05")}


@pytest.mark.parametrize("text", [
    # a split of the data named as such, as before: the test split
    "On the test split, PSNR is 32.05 dB.",
    "On the val and test sets, PSNR is 31.42 and 32.05 dB, respectively.",
])
def test_a_split_of_the_data_still_names_it(text: str) -> None:
    assert ("drift", ("T1",), 1, "32.05") in findings(judge(text + "\n", [T_TEST, T_VAL]))


# === 6. the message of a list of numbers that cannot pair with the splits ======================


def test_the_unpaired_message_says_no_claim_is_named_that_is_not() -> None:
    report = judge("PSNR is 32.05, 31.42 and 27.7 dB on the val and test sets and on Urban100, "
                   "respectively.\n", [T1, V1, C0])
    assert [(f.type, f.claims) for f in report.findings] == [
        ("ambiguous", ("C0",)), ("ambiguous", ("T1",)), ("ambiguous", ("V1",))]
    baseline = report.findings[0].message
    # before: "C0 (30.1 dB, run r0) is named here, but 3 numbers (...) are given for ..."
    assert "named" not in baseline
    assert baseline.startswith(
        "C0 (30.1 dB, run r0, on the test split) may be one of 3 numbers (32.05 at 1:9, 31.42 "
        "at 1:16, 27.7 at 1:26) given for 2 splits (val, test), respectively: which, if any, "
        "is C0's cannot be told; mark it with a claim marker")
    assert matches(report) == set()
