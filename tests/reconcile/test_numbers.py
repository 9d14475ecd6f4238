"""Numbers as shown: tokens, precision, percent, units; Hypothesis properties of the comparison."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.numbers import check, parse_number, scan_numbers


def tokens(text: str) -> list[str]:
    return [s.text for s in scan_numbers(text)]


@pytest.mark.parametrize(("text", "want"), [
    ("PSNR 31.42 dB", ["31.42"]),
    ("mAP@50 of 41.2", ["41.2"]),
    ("ResNet-50 top-1 76.1%", ["76.1"]),
    ("F1 and v1.2.3 and 3D and 1st and x2", []),
    ("1,000 images and 12,345.6", ["1,000", "12,345.6"]),
    ("1{,}000 and 1\\,000", ["1{,}000", "1\\,000"]),
    ("1.2e-3 and 4E+05", ["1.2e-3", "4E+05"]),
    ("$1.2 \\times 10^{-3}$", ["1.2 \\times 10^{-3}"]),
    ("+1.47 dB and \u22120.3", ["+1.47", "\u22120.3"]),
    ("ranges 3-5, times 12:30, fractions 3/4, lists 1,2", []),
    ("psnr:31.42 and ssim=0.91", ["31.42", "0.91"]),
    ("(31.4) **31.42** $31.4$", ["31.4", "31.42", "31.4"]),
    ("50k steps, 1.2M params", ["50", "1.2"]),
])
def test_tokens(text: str, want: list[str]) -> None:
    assert tokens(text) == want


def test_uncertainty_and_sign_are_recorded() -> None:
    mean, std = scan_numbers("31.42 $\\pm$ 0.05")
    assert not mean.uncertainty
    assert std.uncertainty
    (delta,) = scan_numbers("a gain of +1.47 dB")
    assert delta.sign == "+"
    assert delta.suffix == "dB"


@pytest.mark.parametrize(("shown", "value", "unit", "matches"), [
    ("31.4", 31.42, "dB", True),
    ("31.5", 31.42, "dB", False),
    ("31", 31.42, "dB", True),
    ("31.40", 31.42, "dB", False),
    ("91.3%", 0.9134, None, True),
    ("91.3%", 0.9134, "fraction", True),
    ("91.3%", 91.34, "%", True),
    ("91.3", 91.34, "percent", True),
    ("0.913", 0.9134, None, True),
    ("91.3", 0.9134, None, True),  # a fraction shown above 1 is in percent points
    ("1,000", 1000.4, None, True),
    ("1,000", 1234, None, False),
    ("1.2e-3", 0.00124, None, True),
    ("1.2M", 1_234_567, None, True),
    ("50k", 49_600, None, True),
    ("31.42 dB", 31.42, "dB", True),
    ("31.42 ms", 31.42, "dB", False),
    ("31.42 dB", 31.42, None, True),   # a claim without a unit: the shown one is not checked
    ("31.7 dB", 31.42, None, False),
    ("850 img/s", 850.0, "img/s", True),
    ("-0.5", -0.5, None, True),
])
def test_check(shown: str, value: float, unit: str | None, matches: bool) -> None:
    token = parse_number(shown)
    assert token is not None
    assert check(token, value, unit).matches is matches


def test_unit_mismatch_is_reported_and_implausible() -> None:
    token = parse_number("31.42 ms")
    assert token is not None
    got = check(token, 31.42, "dB")
    assert not got.unit_ok
    assert not got.plausible


def test_a_unit_shown_for_a_claim_without_one_is_compared_by_magnitude() -> None:
    """Not skipped unseen (a PSNR claim declared without --unit and "31.7 dB" in the paper is
    drift), but not taken as the claim's either: "40 ms" is plausible only by its size."""
    drift, other = parse_number("31.7 dB"), parse_number("400 ms")
    assert drift is not None
    assert other is not None
    got = check(drift, 31.42, None)
    assert got.unit_ok
    assert got.plausible
    assert not got.matches
    assert not check(other, 31.42, None).plausible


@pytest.mark.parametrize("text", ["1", "0", "-1", "1 GPU"])
def test_a_whole_number_is_never_a_fractions_number(text: str) -> None:
    """ "1 crop" next to an accuracy of 0.8812 neither matches it (0.8812 rounds to 1) nor
    drifts from it: nobody writes a fraction as a whole number."""
    token = parse_number(text)
    assert token is not None
    for value in (0.8812, -0.5, 0.0003):
        got = check(token, value)
        assert not got.matches
        assert not got.plausible
    assert check(token, 1.2).matches is (text in ("1", "1 GPU"))  # above one it is a value


@pytest.mark.parametrize("text", ["1e400", "1e99999999", "-2.5e308"])
def test_numbers_beyond_floats_are_far_from_every_claim(text: str) -> None:
    token = parse_number(text)
    assert token is not None
    got = check(token, 31.42, "dB")
    assert not got.matches
    assert not got.plausible


def test_plausibility_window() -> None:
    far, near = parse_number("300"), parse_number("29.8")
    assert far is not None
    assert near is not None
    assert not check(far, 31.42).plausible
    assert check(near, 31.42).plausible


# --- properties ------------------------------------------------------------------------------

values = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)
precisions = st.integers(min_value=0, max_value=8)


@given(values, precisions)
@example(31.42, 1)
@example(0.125, 2)   # exactly half: 0.12 (half-even) must match
@example(2.675, 2)   # 2.67499999... in binary
def test_formatted_at_any_precision_never_drifts(value: float, precision: int) -> None:
    for text in (f"{value:.{precision}f}", f"{value:,.{precision}f}", f"{value:.{precision}e}"):
        token = parse_number(text)
        assert token is not None, text
        got = check(token, value)
        if token.exponent >= 0 and 0 < abs(value) < 1:  # "1" for 0.88: not judged at all
            assert not got.matches, text
            assert not got.plausible, text
        else:
            assert got.matches, text


@given(st.floats(min_value=0, max_value=1, allow_nan=False), precisions)
def test_percent_of_a_fraction_at_any_precision_never_drifts(value: float,
                                                             precision: int) -> None:
    token = parse_number(f"{value * 100:.{precision}f}%")
    assert token is not None
    assert check(token, value, "fraction").matches


@given(values, precisions, st.integers(min_value=-50, max_value=50).filter(lambda k: k != 0))
def test_off_by_more_than_half_a_unit_always_drifts(value: float, precision: int,
                                                   units_off: int) -> None:
    unit = Decimal(1).scaleb(-precision)
    shown = Decimal(f"{value:.{precision}f}") + units_off * unit
    distance = abs(shown - Decimal(value))
    # more than half a unit of the last shown digit, beyond the value's float representation
    assume(distance > unit / 2 + abs(Decimal(value)) * Decimal(2) ** -48)
    token = parse_number(f"{shown:f}")
    assert token is not None
    assert not check(token, value).matches


def _claim(value: float) -> Claim:
    return Claim(id="C1", run="r1", metric="psnr", value=value, direction="higher",
                 source_digest="blake3:" + "0" * 64, event_id="e1", declared_at="t",
                 unit="dB", aliases=("PSNR",))


@given(st.floats(min_value=0.01, max_value=1e6, allow_nan=False), st.integers(0, 6))
def test_in_a_document_a_formatted_value_never_drifts(value: float, precision: int) -> None:
    text = f"Our model reaches a PSNR of {value:,.{precision}f} dB on the test set.\n"
    report = reconcile_segments(read_document("p.md", text.encode()), [_claim(value)])
    assert report.findings == []
    # a whole number said of a fraction ("1" for 0.5) is not judged: no match, no drift
    assert len(report.matches) == (0 if precision == 0 and value < 1 else 1)


@given(st.floats(min_value=1, max_value=1e6, allow_nan=False), st.integers(0, 6),
       st.integers(min_value=1, max_value=9))
def test_in_a_document_an_off_number_next_to_its_anchor_drifts(value: float, precision: int,
                                                               units_off: int) -> None:
    unit = Decimal(1).scaleb(-precision)
    shown = Decimal(f"{value:.{precision}f}") + units_off * unit
    assume(abs(shown - Decimal(value)) > unit / 2 + abs(Decimal(value)) * Decimal(2) ** -48)
    text = f"Our model reaches a PSNR of {shown:f} dB on the test set.\n"
    report = reconcile_segments(read_document("p.md", text.encode()), [_claim(value)])
    assert [f.type for f in report.findings] == ["drift"]
