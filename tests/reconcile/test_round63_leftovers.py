"""Readings left out of round 63.

1. A pair of numbers, each with its unit glued on, joined by a slash: "12GB/24GB",
"108FPS/74FPS" (round 63 read "12 GB/24 GB" and "108 FPS/74 FPS").

READMEs write GPU memory so: "VRAM optimization - 76% utilization (18.7GB/24GB) on RTX 3090",
"Memory  20GB/24GB" (dashboards pasted into READMEs, found with find_string). The suffix read
after the first number ran on over the slash ("GB/24GB", no unit), so the first number was
unread: "Peak memory: 12GB/24GB" with a 12 GB claim was a false drift at 24. The suffix is
now cut at the slash where the same known unit follows the next number.

2. A gain set in a superscript after a decimal inside the math, "$0.912^{+1.2}$",
"$31.42^{\\uparrow 0.3}$": round 63 read the subscript's ("$0.912_{\\uparrow 1.2}$"), but a
superscript made the decimal a base raised to a power, unread, the cell a label. (After the
math, "78.4$^{+2.1}$", the decimal was read already.)

3. A star or a fire before a table cell's value ("⭐ 0.912", "🔥 0.912"), as round 63's medals.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_prose_tables_round63 import VALUES
from tests.reconcile.test_prose_tables_round63 import _judged as _cell_judged
from tests.reconcile.test_tables_round62 import _read, run


@pytest.mark.parametrize(("text", "read"), [
    ("12GB/24GB", [("12", "GB"), ("24", "GB")]),
    ("18.7GB/24GB", [("18.7", "GB"), ("24", "GB")]),
    ("108FPS/74FPS", [("108", "FPS"), ("74", "FPS")]),
    ("217FPS/161FPS/108FPS", [("217", "FPS"), ("161", "FPS"), ("108", "FPS")]),
    ("5ms/3ms", [("5", "ms"), ("3", "ms")]),
    ("12GB/24 GB", [("12", "GB"), ("24", "GB")]),
    # round 63's spaced pairs keep their reading, their first unit now the unit alone
    ("12 GB/24 GB", [("12", "GB"), ("24", "GB")]),
    ("108 FPS/74FPS", [("108", "FPS"), ("74", "FPS")]),
])
def test_each_number_of_a_glued_pair_is_read_with_its_unit(
        text: str, read: list[tuple[str, str]]) -> None:
    assert [(s.text, s.suffix) for s in scan_numbers(text)] == read


@pytest.mark.parametrize(("text", "read"), [
    ("10GB/s", []),  # a rate
    ("3km/5m", []),  # not the same unit: no pair
    ("12 GB/24 GBs", ["12"]),
    ("img/s", []),
])
def test_near_misses_are_read_as_before(text: str, read: list[str]) -> None:
    assert [s.text for s in scan_numbers(text)] == read


@pytest.mark.parametrize(("value", "findings", "matched"), [
    (12, [], [("M",)]),
    (24, [], [("M",)]),  # (either of the pair may be the claim's)
    (13, [("ambiguous", ("M",), "12")], []),
])
def test_a_memory_claim_is_judged_against_both_numbers(value: float, findings: list,
                                                       matched: list) -> None:
    text = "Peak memory: 12GB/24GB (train/eval).\n"
    got = _read(run("README.md", text, [documents_claim("M", "peak_memory", value, unit="GB")]))
    assert got == (findings, matched)


@pytest.mark.parametrize(("fps", "findings"), [
    ("108FPS/74FPS", []), ("110FPS/74FPS", [("drift", ("F50",), "110")]),
    ("108FPS/77FPS", [("drift", ("F101",), "77")]),
])
def test_the_rt_detr_abstract_with_its_units_glued(fps: str, findings: list) -> None:
    text = f"RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and {fps} on T4 GPU.\n"
    claims = [documents_claim("F50", "fps", 108, aliases=("RT-DETR-R50",), run="r50"),
              documents_claim("F101", "fps", 74, aliases=("RT-DETR-R101", "R101"), run="r101")]
    assert _read(run("README.md", text, claims))[0] == findings


SUP_GAINS = ["${v}^{{\\uparrow 1.2}}$", "${v}^{{\\downarrow 0.3}}$", "${v}^{{+1.2}}$",
             "${v}^{{\\scriptstyle +1.2}}$", "${v}^{{-0.3}}$"]


@pytest.mark.parametrize(("path", "cell"), [(p, c) for p in ("a.md", "a.tex") for c in SUP_GAINS])
@pytest.mark.parametrize(("value", "drifts"), VALUES)
def test_a_gain_in_a_superscript_after_the_value_leaves_the_value(
        path: str, cell: str, value: str, drifts: bool) -> None:
    _cell_judged(path, cell, value, drifts)


@pytest.mark.parametrize(("text", "read"), [
    ("$0.912^{+1.2}$", ["0.912", "+1.2"]),
    ("10^{3}", ["3"]), ("1.5^{2}", ["2"]), ("2.5^{10}", ["10"]),  # powers stay unread
])
def test_a_power_stays_unread(text: str, read: list[str]) -> None:
    assert [s.text for s in scan_numbers(text)] == read


STARRED = ["⭐ {v}", "⭐{v}", "⭐️ **{v}**", "🌟 {v}", "🔥 {v}"]


@pytest.mark.parametrize("cell", STARRED)
@pytest.mark.parametrize(("value", "drifts"), VALUES)
def test_a_star_or_fire_before_the_value_leaves_the_value(cell: str, value: str,
                                                          drifts: bool) -> None:
    """3. A README's best result flagged with a star or a fire, as with a medal (round 63):
    the cell was a label, its value unjudged."""
    _cell_judged("a.md", cell, value, drifts)
