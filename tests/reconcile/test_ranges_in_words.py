"""A range in words ("between 31.2 and 31.6 dB", "ranges from 31.2 to 31.6 dB") is a range: its
ends are bounds, not values. Before, they were two values the claim was `ambiguous` between (or
one of them a drift, beside a claimed number), exit 3 on a correct paper."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from tests.reconcile.test_documents import claim

OURS = claim("A", "psnr", 31.42, unit="dB", aliases=("Ours",), run="ours")
BASE = claim("B", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base")


def found(text: str, path: str = "a.md") -> tuple[list[tuple[str, str | None]], list[str]]:
    report = reconcile_segments(read_document(path, text.encode()), [OURS, BASE])
    return ([(f.type, f.shown) for f in report.findings], [m.shown for m in report.matches])


@pytest.mark.parametrize("text", [
    "Across seeds, the PSNR of Ours lies between 31.2 and 31.6 dB.",
    "Across seeds, the PSNR of Ours lies between 31.2 dB and 31.6 dB.",
    "Across seeds, the PSNR of Ours ranges from 31.2 to 31.6 dB.",
    "Across seeds, the PSNR of Ours ranged between 30.2 and 30.6 dB.",
    "Across seeds, Ours has a PSNR range of 31.2 to 31.6 dB.",
    "Across seeds, the PSNR of Ours is 31.2\u201331.6 dB.",
])
def test_a_range_alone_is_no_finding(text: str) -> None:
    assert found(text + "\n") == ([], [])


@pytest.mark.parametrize(("shown", "expected"), [
    ("31.4", ([], ["31.4"])),
    ("31.5", ([("drift", "31.5")], [])),
])
def test_a_claimed_number_beside_a_range_is_judged_alone(
        shown: str, expected: tuple[list[tuple[str, str]], list[str]]) -> None:
    text = f"The PSNR of Ours is {shown} dB, between 31.2 and 31.6 dB across seeds.\n"
    assert found(text) == expected


def test_in_latex_too() -> None:
    text = "The PSNR of Ours lies between $31.2$ and $31.6$~dB across seeds.\n"
    assert found(text, "p.tex") == ([], [])


@pytest.mark.parametrize(("text", "matched"), [
    # a change, not a range: both values are judged
    ("Ours improves PSNR over the Baseline from 30.10 to 31.42 dB.", ["30.10", "31.42"]),
    ("The gap between 31.42 dB (Ours) and 30.10 dB (Baseline) in PSNR is large.",
     ["31.42", "30.10"]),
])
def test_changes_and_gaps_stay_values(text: str, matched: list[str]) -> None:
    findings, matches = found(text + "\n")
    assert findings == []
    assert sorted(matches) == sorted(matched)


def test_a_drifted_value_in_a_gap_still_drifts() -> None:
    text = "The difference between 31.62 dB (Ours) and 30.10 dB (Baseline) in PSNR is large.\n"
    assert found(text)[0] == [("drift", "31.62")]


@settings(max_examples=100, deadline=None)
@given(st.integers(2000, 3400), st.integers(1, 300), st.sampled_from([
    "between {a} and {b} dB", "between {a} dB and {b} dB", "ranges from {a} to {b} dB",
    "range of {a} to {b} dB"]))
def test_any_range_in_words_is_never_a_finding(low: int, width: int, form: str) -> None:
    a, b = f"{low / 100:.2f}", f"{(low + width) / 100:.2f}"
    text = f"Across seeds, the PSNR of Ours {form.format(a=a, b=b)}.\n"
    assert found(text)[0] == []
