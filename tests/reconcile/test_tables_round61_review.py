"""A review of round 61's table readings: where they read a realistic document wrong.

* one quantity's settings side by side under a spanning header (`documents._row_under_span`:
  "\\multicolumn{2}{c}{Set5 PSNR}" over "$\\times$2 & $\\times$4", as the round's own tests and
  super-resolution papers write the scales). A claim naming no setting is the cell that matches
  it; but a claim naming a setting the table writes in a form its reader does not take for that
  name (the alias "x4" or the key ``psnr_x4`` over "$\\times$4", the alias "BSD100" over
  "B100") was taken for whichever setting's cell matched it: the ×2 cell matched and the ×4
  cell, its own, which shows another number, was dropped (missed drift; before round 61 it
  drifted). Such a claim is judged in each cell as before.
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


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


# --- 1. a claim naming a setting its table writes otherwise -------------------------------------

def _scales(x2: str, x4: str, second: str = "Set5 PSNR") -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\nMethod & \\multicolumn{2}{c}{" + second
            + "} \\\\\n & " + x2 + " & " + x4 + " \\\\\n\\midrule\nOurs & 38.21 & 32.10 \\\\\n"
            "\\bottomrule\n\\end{tabular}\n")


# the ×4 claim records the ×2 number (38.21): the ×4 cell (32.10, line 6) must drift
NAMES_A_SCALE = [
    ("alias x4 over $\\times$4", _scales("$\\times$2", "$\\times$4"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("alias x4 over $\\times 4$", _scales("$\\times 2$", "$\\times 4$"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("alias x4 over $4\\times$", _scales("$2\\times$", "$4\\times$"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))),
    ("key psnr_x4 over x4", _scales("x2", "x4"),
     claim("X4", "psnr_x4", 38.21, unit="dB", aliases=("Ours", "Set5"))),
    ("alias BSD100 over B100", _scales("Set5", "B100", "PSNR"),
     claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "BSD100"))),
]


@pytest.mark.parametrize(("text", "c"), [(t, c) for _, t, c in NAMES_A_SCALE],
                         ids=[n for n, _, _ in NAMES_A_SCALE])
def test_a_claim_naming_a_setting_the_table_writes_otherwise_is_judged_in_each(text: str,
                                                                                c) -> None:
    case = Case("", "a.tex", text, [("drift", 6, ("X4",))], [(6, ("X4",))], ("32.10",))
    assert_case(run("a.tex", text, [c]), case)


def test_near_miss_a_claim_whose_names_the_table_shows_takes_its_matching_setting() -> None:
    """The round's reading holds where the table shows each of the claim's names."""
    text = _scales("$\\times$2", "$\\times$4")
    c = claim("P5", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5"))
    assert_case(run("a.tex", text, [c]), Case("", "a.tex", text, [], [(6, ("P5",))]))


def test_near_miss_a_claim_naming_a_setting_as_the_table_writes_it_is_that_cell() -> None:
    text = _scales("x2", "x4")
    c = claim("X4", "psnr", 38.21, unit="dB", aliases=("Ours", "Set5", "x4"))
    assert_case(run("a.tex", text, [c]), Case("", "a.tex", text, [("drift", 6, ("X4",))], [],
                                              ("32.10",)))
