"""Results written in sentences (round 62): which number of a sentence is a claim's.

1. **"A vs B" after another method's phrase.** "Ours improves PSNR over the baseline (31.62
   vs 30.10 dB)" was ambiguous between the two numbers (both read as values), so a wrong
   number of Ours' went reported as ambiguous, not as its drift. Where a comparison word and
   another method's phrase ("over the baseline", "outperforms the previous best method
   DETR3D", "compared with the baseline") come before a pair "A vs B" ("vs.", "versus"), the
   number after "vs" is the other method's (`number_roles._of_another`, role "other"): the
   first is the subject's, as papers write the pair. A claim on the baseline ("Baseline" its
   alias) keeps the other's number, as before.
   Sources: "**MPNet reranker** improved MAP by 19.6% over the baseline (0.6327 vs 0.5290)." (a
   retrieval report, round 61); BEVFormer (Li et al. 2022, Sec. 4): "Our method outperforms
   previous best method DETR3D [47] over 9.2 points on val set (51.7% NDS vs. 42.5% NDS)".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]
Matched = set[tuple[tuple[str, ...], int, str]]

PSNR_TEST = replace(claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)), split="test")


# === 1. "A vs B" after another method's phrase ===================================================

VERSUS = [
    # (text, claim, the claim's number, a wrong one in its place)
    ("Ours improves PSNR over the baseline ({v} vs 30.10 dB).", PSNR_TEST, "31.42", "31.62"),
    ("Ours improves PSNR over the baseline ({v} vs. 30.10 dB).", PSNR_TEST, "31.42", "31.62"),
    ("Ours improves PSNR over the baseline ({v} versus 30.10 dB).", PSNR_TEST, "31.42",
     "31.62"),
    ("Ours improves PSNR over the baseline ({v} dB vs. 30.10 dB).", PSNR_TEST, "31.42",
     "31.62"),
    ("Ours outperforms the baseline in PSNR, {v} vs 30.10 dB.", PSNR_TEST, "31.42", "31.62"),
    ("Compared with the baseline, Ours improves PSNR ({v} vs 30.10 dB).", PSNR_TEST, "31.42",
     "31.62"),
    ("Ours beats the previous best by a wide margin ({v} vs. 30.10 dB PSNR).", PSNR_TEST,
     "31.42", "31.62"),
    ("**MPNet reranker** improved MAP by 19.6% over the baseline ({v} vs 0.5290).",
     claim("M1", "map", 0.6327, aliases=("MPNet reranker",)), "0.6327", "0.6427"),
    ("Our method outperforms previous best method DETR3D [47] over 9.2 points on val set ({v} "
     "NDS vs. 42.5% NDS), under fair training strategy and comparable model scales.",
     claim("BV", "nds", 0.517, aliases=("Our method",)), "51.7%", "51.9%"),
    # as before: the names after the numbers tell whose
    ("PSNR: {v} (ours) vs 30.10 (baseline).", PSNR_TEST, "31.42", "31.62"),
    ("Ours reaches {v} dB vs. 30.10 dB for the baseline.", PSNR_TEST, "31.42", "31.62"),
]


@pytest.mark.parametrize(("text", "one", "right", "wrong"), VERSUS)
def test_the_number_compared_with_anothers_is_the_subjects(text: str, one: Claim, right: str,
                                                           wrong: str) -> None:
    report = judge(text.format(v=right) + "\n", [one])
    assert findings(report) == []
    assert matches(report) == {((one.id,), 1, right)}
    # before: ambiguous between the two numbers (the other's read as a value too)
    report = judge(text.format(v=wrong) + "\n", [one])
    assert findings(report) == [("drift", (one.id,), 1, wrong)]


BASE = claim("B0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0")
OURS = claim("C1", "psnr", 31.42, unit="dB", aliases=("Ours",))


@pytest.mark.parametrize(("text", "want", "matched"), [
    # a claim on the baseline keeps its number (as before)
    ("Ours improves PSNR over the Baseline (31.42 vs 30.10 dB).", [],
     {(("B0",), 1, "30.10"), (("C1",), 1, "31.42")}),
    ("Ours improves PSNR over the Baseline (31.62 vs 30.10 dB).",
     [("drift", ("C1",), 1, "31.62")], {(("B0",), 1, "30.10")}),
])
def test_a_claim_on_the_baseline_keeps_the_compared_number(text: str, want: Found,
                                                           matched: Matched) -> None:
    report = judge(text + "\n", [OURS, BASE])
    assert findings(report) == want
    assert matches(report) == matched


@pytest.mark.parametrize("text", [
    # no other method's phrase before the pair: which is whose is not told (as before)
    "Ours and the new model reach 31.62 vs 30.10 dB PSNR.",
    # the pair's first number written with the other: the names tell (as before)
    "PSNR over the baseline: 30.10 (baseline) vs 31.62 (ours).",
])
def test_a_pair_with_no_comparison_is_left_as_before(text: str) -> None:
    report = judge(text + "\n", [PSNR_TEST])
    assert [f[0] for f in findings(report)] in (["ambiguous"], ["drift"])
    if "(ours)" in text:
        assert findings(report) == [("drift", ("P1",), 1, "31.62")]
    else:
        assert findings(report) == [("ambiguous", ("P1",), 1, "31.62")]
