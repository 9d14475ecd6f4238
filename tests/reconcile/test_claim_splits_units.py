"""A claim's split and unit as reconcile reads them (review 35, items 2, 3, 4 and 9).

2. **A split taken from a nested key.** ``claim add --metric test.em`` (or ``/test/em``) on
   ``{"test": {"em": ...}, "dev": {...}}``, the layout many evaluation scripts write, records
   ``evaluated_split=test``, but reconcile read the claim as on no split: in a table with
   ``Dev EM`` and ``Test EM`` columns the Dev cell satisfied it and the drifted Test cell went
   unreported. Now a claim whose stated split and metric name none is on the split its result
   says it was evaluated on (``Claim.evaluated_split``), as EVIDENCE.json's ``split`` reads it.
3. **A split word before any metric's name.** In a sentence, a split word names the split of a
   number only when it qualifies the data or a metric; the metrics were a fixed few (accuracy,
   loss, error, F1, AUC), so "a test PSNR of 32.05 dB" or "a test mAP of 45.3" named no split
   and matched the val claim of that value: the test number's drift was missed. Now every
   metric of the direction registry (`metric_directions`: PSNR, SSIM, mAP, AP50, top-1, BLEU,
   FID...) qualified by a split word names it too.
4. **Numbers given for a list of splits "respectively".** "31.42 and 32.05 dB PSNR on the
   validation and test sets, respectively" (an abstract's way; here the two swapped): only
   "test sets" named a split, so both numbers were test numbers, 31.42 matched the test claim
   and 32.05 was compared with nothing: no finding. Now the split words of a list ("validation
   and test sets") each name their split, and with *respectively* a list of numbers pairs with
   them in order, as it does with a list of claims' names; where the lists' lengths differ,
   the claims on those splits are `ambiguous`, not passed.
9. **A percent claim's drift message.** A percent claim's drift message gives the evidence
   with its sign: ``evidence says 76.34%``, not ``76.34`` beside ``says 77.3%``. (Reading a
   percent claim's number shown at most 1 as its fraction, the mirror of a fraction claim's
   bare ``76.3``, was tried and withdrawn, review 41 item 3: near a percent metric's name
   prose gives ratios, thresholds and correlations in that range, 8 false drifts in one page.
   A percent claim still skips ``0.773``.)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.number_roles import metric_split
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]

# === 2. a split from the keys the value was read under ==========================================

# The SQuAD leaderboard's layout (Rajpurkar et al. 2016, Table 5: "Dev EM", "Test EM" columns),
# as a README's pipe table gives it; the Test cell drifted (evidence 85.2 on test).
SQUAD = ("| Model | Dev EM | Test EM |\n"
         "|---|---|---|\n"
         "| BERT-base | 80.8 | - |\n"
         "| Ours | 85.2 | 84.1 |\n")


def _em(metric: str, *, split: str | None = None, evaluated: str | None = None) -> Claim:
    return replace(claim("E1", metric, 85.2, unit="%", aliases=("Ours",)), split=split,
                   evaluated_split=evaluated)


@pytest.mark.parametrize("em", [
    # claim add --metric test.em and --metric /test/em both record metric "em" and
    # evaluated_split "test" (`claims.declare_claim`)
    _em("em", evaluated="test"),
    _em("test.em"),  # a claim whose metric is the dotted key: anchored by "test em", as before
    _em("test_em"),  # worked before
    _em("em", split="test"),  # worked before
], ids=["evaluated-test", "dotted-metric", "glued-key", "stated-split"])
def test_the_test_column_drifts_for_a_claim_on_test(em: Claim) -> None:
    """Before (the first): one match at the Dev cell's 85.2 and no finding."""
    report = judge(SQUAD, [em])
    assert findings(report) == [("drift", ("E1",), 4, "84.1")]
    assert matches(report) == set()


@pytest.mark.parametrize("em", [
    _em("em"),  # on no split: the row's one number it matches is its own
    _em("em", evaluated="val"),  # --metric dev.em: the Dev cell
    _em("em", evaluated="test+val"),  # read from a split column's rows of both: no split
], ids=["no-split", "evaluated-val", "evaluated-two-splits"])
def test_a_claim_on_no_split_or_on_dev_takes_the_dev_cell(em: Claim) -> None:
    report = judge(SQUAD, [em])
    assert findings(report) == []
    assert matches(report) == {(("E1",), 4, "85.2")}


@pytest.mark.parametrize(("metric", "split", "evaluated", "want"), [
    ("em", None, "test", "test"),
    ("em", None, "validation", "val"),
    ("em", "val", "test", "val"),  # the stated split first (a mismatch is EVIDENCE's finding)
    ("val_psnr", None, "test", "val"),  # the key's own split word before the evaluated split
    ("em", None, "test+val", None),  # several splits' rows: none
    ("em", None, None, None),
    ("std_dev", None, None, None),  # a spread, no split
    ("dev", None, "test", "test"),  # a quantity named "dev" is no split word
])
def test_metric_split(metric: str, split: str | None, evaluated: str | None,
                      want: str | None) -> None:
    assert metric_split(metric, split, evaluated) == want


# === 3. "a test PSNR of 32.05 dB" ===============================================================

# The val and test claims of one model on four metrics, as an evaluation script writes them
# ({"val": {"psnr": ..., "f1": ..., "mAP": ...}, "test": {...}, "val_accuracy": ...}); each
# sentence gives the number of the split it names, and every one of them moved to the value of
# the other split's claim.
ON_TWO_SPLITS = [
    replace(claim(f"{m}_{s}", metric, value, unit=unit), split=s)
    for m, metric, unit, values in [("P", "psnr", "dB", (32.05, 31.42)),
                                    ("F", "f1", None, (0.881, 0.866)),
                                    ("M", "mAP", None, (45.3, 44.1)),
                                    ("A", "accuracy", "%", (88.12, 86.55))]
    for s, value in zip(("val", "test"), values, strict=True)]


@pytest.mark.parametrize(("text", "want"), [
    # before: a match of P_val, P_val, M_val, M_val, P_test
    ("Our model reaches a test PSNR of 32.05 dB.", ("P_test", "32.05")),
    ("Our model reaches 32.05 dB test PSNR.", ("P_test", "32.05")),
    ("Our model reaches a test mAP of 45.3.", ("M_test", "45.3")),
    ("Our model reaches a test mAP@50 of 45.3.", ("M_test", "45.3")),
    ("Our model reaches a validation PSNR of 31.42 dB.", ("P_val", "31.42")),
    # worked before
    ("Our model reaches a test accuracy of 88.12%.", ("A_test", "88.12%")),
    ("Our model reaches a validation F1 of 0.866.", ("F_val", "0.866")),
    ("Our model reaches a PSNR of 32.05 dB on the test set.", ("P_test", "32.05")),
])
def test_a_number_after_a_split_and_a_metric_is_of_that_split(text: str,
                                                             want: tuple[str, str]) -> None:
    report = judge(text + "\n", ON_TWO_SPLITS)
    assert findings(report) == [("drift", (want[0],), 1, want[1])]


@pytest.mark.parametrize(("text", "want"), [
    ("Our model reaches a test PSNR of 31.42 dB.", ("P_test", "31.42")),
    ("Our model reaches a test mAP of 44.1.", ("M_test", "44.1")),
    # no split named: the claim of its value, as before
    ("Our model reaches a PSNR of 32.05 dB.", ("P_val", "32.05")),
    # "training pass" and "training precision" are no metric on the training data (a pass
    # over it, the numeric precision trained in): they name no split, and the number stays
    # the claim's of its value (as a training number, it would be no claim's)
    ("After one training pass the PSNR is 31.42 dB.", ("P_test", "31.42")),
    ("In bf16 training precision the mAP is 44.1.", ("M_test", "44.1")),
])
def test_what_matches_stays(text: str, want: tuple[str, str]) -> None:
    report = judge(text + "\n", ON_TWO_SPLITS)
    assert findings(report) == []
    assert matches(report) == {((want[0],), 1, want[1])}


# === 4. "... on the validation and test sets, respectively" =====================================

# The shape of an abstract's summary (e.g. "achieves 85.8% and 86.3% accuracy on the validation
# and test sets, respectively"), with our own PSNR numbers; val is 32.05 dB, test 31.42 dB.
P_VAL = replace(claim("P_val", "psnr", 32.05, unit="dB", aliases=("Ours",)), split="val")
P_TEST = replace(claim("P_test", "psnr", 31.42, unit="dB", aliases=("Ours",)), split="test")
B_TEST = replace(claim("B_test", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0"),
                 split="test")
S_VAL = replace(claim("S_val", "ssim", 0.913, aliases=("Ours",)), split="val")
S_TEST = replace(claim("S_test", "ssim", 0.902, aliases=("Ours",)), split="test")
SWAPPED_SPLITS = [("drift", ("P_val",), 1, "31.42"), ("drift", ("P_test",), 1, "32.05")]


@pytest.mark.parametrize(("text", "want"), [
    # before: one match (31.42 to P_test), 32.05 compared with nothing
    ("Ours reaches 31.42 and 32.05 dB PSNR on the validation and test sets, respectively.",
     SWAPPED_SPLITS),
    ("Ours reaches PSNRs of 31.42 dB and 32.05 dB on the validation and test splits, "
     "respectively.", SWAPPED_SPLITS),
    ("On the validation and test sets, Ours reaches 31.42 and 32.05 dB PSNR, respectively.",
     SWAPPED_SPLITS),
    ("Ours reaches 31.42 and 32.05 dB PSNR on the val/test sets, respectively.",
     SWAPPED_SPLITS),
])
def test_numbers_pair_with_the_splits_in_order(text: str, want: Found) -> None:
    report = judge(text + "\n", [P_VAL, P_TEST])
    assert findings(report) == want


def test_each_list_of_numbers_pairs_with_the_splits() -> None:
    """Two metrics' lists, one list of splits: each pairs with it in order."""
    text = ("Ours reaches PSNRs of 32.05 and 31.42 dB and SSIMs of 0.902 and 0.913 on the "
            "validation and test sets, respectively.\n")
    report = judge(text, [P_VAL, P_TEST, S_VAL, S_TEST])
    assert findings(report) == [("drift", ("S_val",), 1, "0.902"),
                                ("drift", ("S_test",), 1, "0.913")]
    assert matches(report) == {(("P_val",), 1, "32.05"), (("P_test",), 1, "31.42")}


def test_numbers_that_cannot_pair_with_the_splits_are_no_pass() -> None:
    """Three numbers for two splits: which is whose cannot be told. Before: 31.42 matched
    P_test, and the rest went uncompared."""
    text = ("Ours reaches 31.42, 32.05 and 30.5 dB PSNR on the validation and test sets, "
            "respectively.\n")
    report = judge(text, [P_VAL, P_TEST])
    assert [(f.type, f.claims) for f in report.findings] == [("ambiguous", ("P_test",)),
                                                             ("ambiguous", ("P_val",))]
    message = report.findings[0].message
    assert "3 numbers (31.42 at 1:14, 32.05 at 1:21, 30.5 at 1:31)" in message
    assert "2 splits (validation, test)" in message
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "claims", "want"), [
    # in order: two matches
    ("Ours reaches 32.05 and 31.42 dB PSNR on the validation and test sets, respectively.",
     [P_VAL, P_TEST], {(("P_val",), 1, "32.05"), (("P_test",), 1, "31.42")}),
    # no "respectively": the order is unsaid, and a list of splits names no one split of its
    # numbers: each matches the claim of its value (as claims' names in a list do)
    ("Ours reaches 31.42 and 32.05 dB PSNR on the validation and test sets.",
     [P_VAL, P_TEST], {(("P_val",), 1, "32.05"), (("P_test",), 1, "31.42")}),
    # "respectively" of the claims' names, one split: pairs by the names, as before
    ("Ours and the Baseline reach 31.42 and 30.10 dB PSNR on the test set, respectively.",
     [P_VAL, P_TEST, B_TEST], {(("P_test",), 1, "31.42"), (("B_test",), 1, "30.10")}),
])
def test_what_pairs_as_before(text: str, claims: list[Claim],
                              want: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(text + "\n", claims)
    assert findings(report) == []
    assert matches(report) == want


def test_a_train_test_split_names_the_partition_not_two_splits() -> None:
    """"a train/test split" is how the data was divided, not the data the number is of: it
    names no split (review 41 item 5a: its "test split" named the test split, and "a
    train/val/test split of 80/10/10" so drifted a val number against the test claim), and
    the number is each claim's of its value."""
    report = judge("On a 90/10 train/test split, Ours reaches 32.05 dB PSNR.\n", [P_VAL, P_TEST])
    assert findings(report) == []
    assert matches(report) == {(("P_val",), 1, "32.05")}


# === 9. a percent claim's number written as a fraction ==========================================

# A metrics.json recording accuracy in percent ({"acc": 76.34}: timm's train.py summary and
# torchvision's reference scripts print top-1 in percent points), claimed with --unit %.
ACC_PCT = claim("X", "acc", 76.34, unit="%", aliases=("accuracy",))
ACC_FRACTION = claim("Y", "acc", 0.7634, aliases=("accuracy",))


@pytest.mark.parametrize(("text", "message"), [
    # before: "evidence says 76.34"
    ("The accuracy is 77.3%.", "X says 77.3%, evidence says 76.34%"),
    ("The accuracy is 77.3.", "X says 77.3, evidence says 76.34%"),
])
def test_a_percent_claims_drift_shows_its_sign(text: str, message: str) -> None:
    report = judge(text + "\n", [ACC_PCT])
    assert findings(report) == [("drift", ("X",), 1, text.split()[-1].rstrip("."))]
    assert report.findings[0].message.startswith(message + " (run r1, object")


@pytest.mark.parametrize("shown", ["76.3%", "76.3", "76.34"])
def test_a_percent_claim_matches_in_percent_points(shown: str) -> None:
    report = judge(f"The accuracy is {shown}.\n", [ACC_PCT])
    assert findings(report) == []
    assert matches(report) == {(("X",), 1, shown)}


# Review 41 item 3: each of these was a false drift while a percent claim read 0.38..1 as its
# fraction; none is a value of the accuracy (ratios, thresholds, correlations, multipliers).
@pytest.mark.parametrize("text", [
    "The accuracy ratio to the baseline is 0.98.",
    "The accuracy gap to the oracle shrinks to 0.4.",
    "Accuracy is reported at an IoU threshold of 0.5.",
    "Calibrated accuracy uses a temperature of 0.7.",
    "Accuracy correlates with model size (Pearson r = 0.81).",
    "Accuracy (normalised to the oracle) is 0.82.",
    "Ours uses a width multiplier of 0.75.",
    "Ours keeps 0.9 of the baseline's accuracy at half the cost.",
    "Our accuracy (0.76 of the baseline's error) is strong.",
    # and a fraction written for the percent claim is not compared either (the rule withdrawn)
    "The accuracy is 0.763.",
    "The accuracy is 0.773.",
])
def test_a_percent_claim_reads_no_number_at_most_1_as_its_fraction(text: str) -> None:
    ours = claim("X", "acc", 76.34, unit="%", aliases=("accuracy", "Ours"))
    report = judge(text + "\n", [ours])
    assert findings(report) == []
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "claims", "want_matches"), [
    # the fraction claim, mirrored: as before
    ("The accuracy is 0.763.", [ACC_FRACTION], {(("Y",), 1, "0.763")}),
    ("The accuracy is 76.3%.", [ACC_FRACTION], {(("Y",), 1, "76.3%")}),
    # a whole number carries no digit of a fraction: "1" is no 100% (nor 0.01%) of anything
    ("The accuracy is 1.", [ACC_PCT], set()),
    # a percent claim of at most 1% is read as it is shown: 0.52 is 0.52%, not 52%
    ("The error is 0.52.", [claim("E", "err", 0.52, unit="%", aliases=("error",))],
     {(("E",), 1, "0.52")}),
    # a claim without a unit is no percent claim: a PSNR of 31.42 is not 0.3142
    ("The PSNR is 0.3142.", [claim("P", "psnr", 31.42, aliases=("PSNR",))], set()),
])
def test_what_other_claims_compare_stays(text: str, claims: list[Claim],
                                         want_matches: set[tuple[tuple[str, ...], int, str]]
                                         ) -> None:
    report = judge(text + "\n", claims)
    assert findings(report) == []
    assert matches(report) == want_matches


def test_a_fraction_claims_message_is_as_before() -> None:
    report = judge("The accuracy is 77.3%.\n", [ACC_FRACTION])
    assert report.findings[0].message.startswith("Y says 77.3%, evidence says 0.7634 (= 76.34%) ")
