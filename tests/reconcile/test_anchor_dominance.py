"""Which anchored claims take part in a sentence: all a decisive term names, less those whose
naming terms another claim of the same metric is named by too, and more.

Before, only the claims named by the *most* terms per metric took part, so a sentence that
named Ours by two terms ("top-1 accuracy", "Ours") hid the Baseline's claim, named by one
("Baseline"): a drifted Baseline number there passed.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim

OURS = claim("A", "top1", 0.9134, aliases=("top-1 accuracy", "Ours"), run="ours")
BASE = claim("B", "top1", 0.8823, aliases=("Baseline",), run="base")


def _judge(text: str, claims: list[Claim], path: str = "a.md") -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _found(report: Report) -> list[tuple[str, tuple[str, ...], str | None]]:
    return [(f.type, f.claims, f.shown) for f in report.findings]


@pytest.mark.parametrize("text", [
    "Our top-1 accuracy is 91.3% (Ours) vs. 88.4% (Baseline).\n",
    "Ours reaches 91.3% top-1 accuracy, the Baseline 88.4%.\n",
    "Top-1 accuracy: Ours 91.3%, Baseline 88.4%.\n",
])
def test_a_claim_named_less_often_than_another_still_drifts(text: str) -> None:
    assert _found(_judge(text, [OURS, BASE])) == [("drift", ("B",), "88.4%")]


def test_both_numbers_right_is_clean_and_both_are_matched() -> None:
    report = _judge("Top-1 accuracy: Ours 91.3%, Baseline 88.2%.\n", [OURS, BASE])
    assert report.findings == []
    assert sorted(m.claims for m in report.matches) == [("A",), ("B",)]


def test_the_more_named_claim_drifts_alone() -> None:
    report = _judge("Top-1 accuracy: Ours 91.5%, Baseline 88.2%.\n", [OURS, BASE])
    assert _found(report) == [("drift", ("A",), "91.5%")]


def test_a_claim_named_only_by_terms_another_has_too_stays_out() -> None:
    """"PSNR" and "Ours" point at Ours' PSNR claim; the Baseline's, which only "PSNR" names
    here, does not take part, so Ours' drifted number is drift, not ambiguous."""
    claims = [claim("P1", "psnr", 31.42, aliases=("Ours",)),
              claim("P0", "psnr", 30.10, aliases=("Baseline",), run="base")]
    report = _judge("Ours reaches a PSNR of 31.6 dB on Kodak.\n", claims)
    assert _found(report) == [("drift", ("P1",), "31.6")]


def test_a_bare_metric_name_with_many_claims_keeps_its_rule() -> None:
    """A metric name naming more than a handful of claims (judged without expanding them):
    a method naming one of them narrows it to that one; alone it names them all."""
    claims = [claim(f"M{i}", "psnr", 20.0 + i, aliases=(f"Model-{i:03d}",), run=f"r{i}")
              for i in range(40)]
    report = _judge("Model-007 reaches a PSNR of 27.5 dB.\n", claims)
    assert _found(report) == [("drift", ("M7",), "27.5")]
    report = _judge("Model-007 reaches a PSNR of 27.0 dB and Model-009 29.5 dB.\n", claims)
    assert _found(report) == [("drift", ("M9",), "29.5")]
    report = _judge("The best PSNR is 59.0 dB.\n", claims)
    assert report.findings == []
    assert report.matches[0].claims == ("M39",)


@settings(max_examples=150, deadline=None)
@given(ours=st.integers(800, 999), base=st.integers(800, 999),
       order=st.booleans())
def test_each_of_two_methods_is_judged_whatever_the_other_says(ours: int, base: int,
                                                               order: bool) -> None:
    # a number that matches both claims is both's (neither drifts): keep the values apart
    assume(abs(ours - base) > 6)
    a = claim("A", "top1", ours / 1000, aliases=("top-1 accuracy", "Ours"), run="ours")
    b = claim("B", "top1", base / 1000, aliases=("Baseline",), run="base")
    shown_b = base / 10 + 0.3  # off by three units of the last digit shown: always drift
    parts = [f"Ours {ours / 10:.1f}%", f"Baseline {shown_b:.1f}%"]
    if order:
        parts.reverse()
    report = _judge(f"Top-1 accuracy: {parts[0]}, {parts[1]}.\n", [a, b])
    assert ("drift", ("B",), f"{shown_b:.1f}%") in _found(report)
    assert all(f.claims != ("A",) for f in report.findings)
