"""How READMEs and papers write struck values, bold headers, paired quantities and units (round 49):

* a GFM strikethrough ``~~...~~`` whose two ends are on different lines of one paragraph
  (GitHub renders it struck: cmark-gfm's strikethrough extension pairs delimiter runs across a
  soft line break, as emphasis does) was paired on one line only, so the old value on either line
  was judged as shown: false drift. A strike that ran over a sentence's end was missed too (each
  sentence was masked alone, so neither saw both ends);
* a slash header in bold (``**EM/F1**``, ``<b>EM/F1</b>``, ``**MNLI-(m/mm)**``, an HTML
  ``<th><b>MNLI</b>-(m/mm)</th>``) was no slash list: the pair cell below it was ambiguous or
  unread;
* one column holding two quantities, ``Params/FLOPs (M/G)`` or ``Params (M) / FLOPs (G)`` over
  ``25.6/4.1`` (the model-zoo tables of timm and mmpretrain print parameters in millions and
  FLOPs in billions, and READMEs fold the two into one column): the column was read whole, under
  one multiplier, so the FLOPs value was taken as the parameter count (or neither was read);
* a drift message named the unit of a percent claim only (``says 77.3%, evidence says
  76.34%``): ``P1 says 31.52, evidence says 31.42`` left out the claim's ``dB``.

Each row is a snippet, the findings it must produce as ``(type, line, claim ids)`` and, where it
matters, the matched numbers as ``(line, claim ids)`` and the findings' numbers. Rows marked
"near miss" held before the fix and must keep their reading.
"""

from __future__ import annotations

import json
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
    claim("A1", "top1", 0.7634, aliases=("Ours",)),
    claim("E1", "em", 85.2, unit="%", aliases=("EM",)),
    claim("F1", "f1", 91.3, unit="%", aliases=("F1",)),
    claim("M", "mnli_m_accuracy", 84.6, unit="%", aliases=("MNLI-m", "BERT-BASE")),
    claim("MM", "mnli_mm_accuracy", 83.4, unit="%", aliases=("MNLI-mm", "BERT-BASE")),
]


def run(path: str, text: str, claims: list | None = None) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims or CLAIMS)


# --- 1. a strikethrough over a line break ------------------------------------------------------

STRUCK_OVER_LINES = [
    Case("~~ opened on one line and closed on the next: the struck value is no value", "a.md",
         "Ours reaches a PSNR of ~~31.52 dB in the first\nversion~~ 31.42 dB.\n", [],
         [(2, ("P1",))]),
    Case("a struck value alone, its strike closed on the next line", "a.md",
         "Ours reaches a top-1 accuracy of ~~76.9%\n(before the fix)~~ (see the erratum).\n",
         []),
    Case("a strike over a sentence's end and a line break", "a.md",
         "~~Ours reached a PSNR of 31.52 dB.\nThat run was wrong.~~ Ours reaches a PSNR of "
         "31.42 dB.\n",
         [], [(2, ("P1",))]),
    Case("a strike over two sentences of one line", "a.md",
         "~~Ours reached a PSNR of 31.52 dB. That was wrong.~~ Ours reaches a PSNR of 31.42\ndB.\n",
         [], [(1, ("P1",))]),
    Case("<del> over a sentence's end", "a.md",
         "<del>Ours reached a PSNR of 31.52 dB. Wrong.</del> Ours reaches a PSNR of 31.42 dB.\n",
         [], [(1, ("P1",))]),
    Case("a strike over three lines of a list item's paragraph", "a.md",
         "- Ours reaches a PSNR of ~~31.52 dB\n  in the first version,\n  since fixed~~ 31.42 dB\n",
         [], [(3, ("P1",))]),
    Case("a strike over lines in a notebook's markdown cell", "n.ipynb",
         json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
             {"cell_type": "markdown", "metadata": {}, "source": [
                 "Ours reached a PSNR of ~~31.52 dB\n", "(old)~~ (see the erratum).\n"]}]}),
         []),
    Case("near miss: a blank line between the tildes ends the paragraph: nothing struck",
         "a.md", "Ours reaches a PSNR of ~~31.52 dB\n\nin the first~~ version.\n",
         [("drift", 1, ("P1",))]),
    Case("near miss: tildes in code spans on two lines strike nothing", "a.md",
         "GFM strikes with `~~`; Ours reaches a PSNR of 31.52 dB\nand `~~` ends a strike.\n",
         [("drift", 1, ("P1",))]),
    Case("near miss: an opener in a fenced block pairs with nothing outside it", "a.md",
         "```\nOurs ~~old\n```\nOurs reaches a PSNR of 31.52 dB~~ now.\n",
         [("drift", 4, ("P1",))]),
    Case("near miss: in a fenced block, tildes over lines are text", "a.md",
         "```\nOurs reaches a PSNR of ~~31.52\ndB~~ here\n```\n", [("drift", 2, ("P1",))]),
    Case("near miss: a table's rows are each their own (no strike from row to row)", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| Ours | ~~31.52 |\n| Base | 30.10~~ |\n",
         [("drift", 3, ("P1",))]),
    Case("near miss: a new list item ends the paragraph", "a.md",
         "- Ours reaches a PSNR of ~~31.52 dB\n- Baseline~~ gets 30.10 dB\n",
         [("drift", 1, ("P1",))]),
    Case("near miss: a heading is a line of its own", "a.md",
         "# Ours ~~v1\nOurs reaches a PSNR of 31.52~~ dB.\n", [("drift", 2, ("P1",))]),
    Case("near miss: a single tilde (about, a range) pairs on its line only", "a.md",
         "Ours reaches a PSNR of ~31.52 dB\non Set5 (see Table~2).\n",
         [("drift", 1, ("P1",))], None, ("31.52",)),
]


CASES = STRUCK_OVER_LINES


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run(case.path, case.text), case)
