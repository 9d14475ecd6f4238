"""Numbers the reader lost or misread in how papers and READMEs mark them up (review 35):

* a slash pair ending a sentence ("Our EM/F1 is 84.1/91.3."): the full stop was read as a third
  dotted part of the pair, so its first number was no number and its drift never seen;
* a Unicode superscript footnote mark glued to a decimal ("31.52¹ dB", a cell's "76.9²"): the
  mark was read as a word glued to the number, which hid it;

Each row is a snippet, the findings it must produce as ``(type, line, claim ids)`` and, where it
matters, the matched numbers as ``(line, claim ids)``. Rows marked "near miss" held before the
fix and must keep their reading.
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_papers_review_1 import Case, assert_case

claim = partial(documents_claim, run="ours")

CLAIMS = [
    claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
    claim("S1", "ssim", 0.9134, aliases=("Ours",)),
    claim("A1", "top1", 0.7634, aliases=("Ours",)),
    claim("E1", "em", 85.2, unit="%", aliases=("EM",)),
    claim("F1", "f1", 91.3, unit="%", aliases=("F1",)),
]


def run(path: str, text: str) -> Report:
    return reconcile_segments(read_document(path, text.encode()), CLAIMS)


PAIR_AT_SENTENCE_END = [
    Case("a pair ending a sentence: its first number drifts", "a.md",
         "Our EM/F1 is 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))], ("84.1",)),
    Case("a pair after 'of' ending a sentence", "a.md",
         "We obtain an EM/F1 of 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("a PSNR/SSIM pair ending a sentence", "a.md",
         "Our PSNR/SSIM is 30.52/0.9134.\n", [("drift", 1, ("P1",))], [(1, ("S1",))],
         ("30.52",)),
    Case("a pair ending a sentence whose second number drifts is F1's drift (was ambiguous)",
         "a.md", "EM/F1 of 85.2/91.8.\n", [("drift", 1, ("F1",))], [(1, ("E1",))], ("91.8",)),
    Case("a pair ending a sentence in LaTeX", "t.tex",
         "Our EM/F1 is 84.1/91.3.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("near miss: words after the pair", "a.md",
         "Our EM/F1 is 84.1/91.3 on the test set.\n", [("drift", 1, ("E1",))], [(1, ("F1",))]),
    Case("a correct pair ending a sentence is clean, both matched", "a.md",
         "Our EM/F1 is 85.2/91.3.\n", [], [(1, ("E1",)), (1, ("F1",))]),
    Case("near miss: three dotted parts are no pair (1.2/3.4.5)", "a.md",
         "Our EM/F1 is 84.1/91.3.5 here.\n", []),
    Case("near miss: a fraction ending a sentence is no pair", "a.md",
         "Our EM improved on 3/4.\n", []),
]

SUPERSCRIPT_MARKS = [
    Case("a superscript mark glued to a decimal in prose: the number drifts", "a.md",
         "Ours reaches a PSNR of 31.52¹ dB on the test set.\n\n¹ averaged over 3 seeds.\n",
         [("drift", 1, ("P1",))], [], ("31.52",)),
    Case("superscript marks in table cells", "a.md",
         "| Method | PSNR (dB) | Top-1 (%) |\n|---|---|---|\n| Ours | 31.52¹ | 76.9² |\n",
         [("drift", 3, ("P1",)), ("drift", 3, ("A1",))], [], ("31.52", "76.9")),
    Case("a correct value with a two-digit mark is clean", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| Ours | 31.42¹² |\n", [], [(3, ("P1",))]),
    Case("near miss: <sup>1</sup> reads as before", "a.md",
         "Ours reaches a PSNR of 31.52<sup>1</sup> dB.\n", [("drift", 1, ("P1",))]),
    Case("near miss: a power of ten (10⁴) is no value", "a.md",
         "Ours trains for 10⁴ steps at a PSNR of 31.42 dB.\n", [], [(1, ("P1",))]),
    Case("near miss: a whole number's superscript is a power (31²)", "a.md",
         "Ours reaches a PSNR of 31² dB.\n", []),
]

CASES = PAIR_AT_SENTENCE_END + SUPERSCRIPT_MARKS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run(case.path, case.text), case)
