"""Round 62's change cells and slash pairs, followed up (reviewers' inputs after the round).

* whole numbers joined by a slash before a unit of measure were no numbers at all: the
  RT-DETR abstract as READMEs quote it, "RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and
  108/74 FPS on T4 GPU" (a paper-notes README writes it so; the arXiv abstract spaces the
  slashes, "108 / 74 FPS", which was read), left the FPS claims only the AP percents near
  "FPS": a right document drifted at 54.3% for the R50's FPS claim. "108/74 FPS" is a pair now,
  as "53.1%/54.3%" is; a fraction or a date (3/4, 12/05) takes no unit and stays unread;
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _read(report: Report) -> tuple[list[tuple[str, tuple[str, ...], str]], list[tuple[str, ...]]]:
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            sorted(m.claims for m in report.matches))


# --- 1. whole numbers joined by a slash before a unit ---------------------------------------

RT_DETR = ("RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and {fps} FPS on T4 GPU, "
           "outperforming advanced YOLOs.\n")


def _rt_detr(aliases50: tuple[str, ...], aliases101: tuple[str, ...]) -> list:
    return [documents_claim("A50", "coco_ap", 53.1, unit="%", aliases=aliases50, run="r50"),
            documents_claim("A101", "coco_ap", 54.3, unit="%", aliases=aliases101, run="r101"),
            documents_claim("F50", "fps", 108, aliases=aliases50, run="r50"),
            documents_claim("F101", "fps", 74, aliases=aliases101, run="r101")]


@pytest.mark.parametrize("aliases", [((), ()), (("RT-DETR-R50",), ("RT-DETR-R101", "R101"))])
def test_the_rt_detr_abstract_with_its_fps_pair_unspaced_does_not_drift(
        aliases: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    findings, matched = _read(run("README.md", RT_DETR.format(fps="108/74"), _rt_detr(*aliases)))
    assert findings == []
    assert ("F101",) in matched
    assert ("F50",) in matched


@pytest.mark.parametrize(("fps", "wrong"), [("111/74", "F50"), ("108/77", "F101")])
def test_a_wrong_fps_in_the_unspaced_pair_is_reported(fps: str, wrong: str) -> None:
    """(As in the spaced pair, "108 / 77 FPS": the wrong one is reported, the right one
    matches.)"""
    claims = _rt_detr(("RT-DETR-R50",), ("RT-DETR-R101", "R101"))
    findings, matched = _read(run("README.md", RT_DETR.format(fps=fps), claims))
    assert [claims for _, claims, _ in findings] == [(wrong,)]
    right = "F101" if wrong == "F50" else "F50"
    assert (right,) in matched
    assert (wrong,) not in matched


@pytest.mark.parametrize(("text", "numbers"), [
    ("108/74 FPS", ["108", "74"]), ("12/24 GB", ["12", "24"]), ("10/20/30 ms", ["10", "20", "30"]),
    ("3/4 of the runs", []), ("12/05/2024", []), ("108/74", []), ("1/2 h", []),
    ("ResNet50/101 FPS", [])])
def test_whole_numbers_joined_by_a_slash_are_a_pair_before_a_unit_only(
        text: str, numbers: list[str]) -> None:
    assert [s.text for s in scan_numbers(text)] == numbers
