"""Reconcile on paper text written the way researchers write it: false alarms and missed drift.

Each row is a document snippet, the claims in force, and the findings it must produce as
``(type, line, claim ids)`` (plus, where it matters, the numbers that matched, as
``(line, claim ids)``). Every row names the defect it guards against; each failed on the code
before its fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document, siunitx_plain
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")


CLAIMS = {c.id: c for c in [
    claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
    claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base"),
    claim("S1", "ssim", 0.9134, aliases=("Ours",)),
    claim("S0", "ssim", 0.8876, aliases=("Baseline",), run="base"),
    claim("A1", "top1", 0.9134, aliases=("top-1 accuracy", "Ours")),
    claim("F1", "fid", 12.7, aliases=("Ours",)),
    claim("F0", "fid", 18.34, aliases=("Baseline",), run="base"),
    claim("Q1", "params", 25.6, unit="M", aliases=("parameters",)),
    claim("T1", "throughput", 850.0, unit="tokens/s", aliases=("throughput",)),
]}
ALL = tuple(CLAIMS)


@dataclass
class Case:
    name: str
    path: str
    text: str
    findings: list[tuple[str, int, tuple[str, ...]]]
    matched: list[tuple[int, tuple[str, ...]]] | None = None
    shown: tuple[str, ...] = ()  # the findings' numbers, in order, where it matters


def _notebook(markdown: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": [markdown]}]})


CASES = [
    # --- Markdown emphasis with underscores: `_` was read as glue (x_1), so the number vanished
    Case("underscore-italic number after a marker is the marked number", "a.md",
         "Our model reaches <!-- claim:P1 -->_31.42_ dB.\n", [], [(1, ("P1",))]),
    Case("underscore-italic drift after a marker is drift", "a.md",
         "Our model reaches <!-- claim:P1 -->_31.52_ dB.\n", [("drift", 1, ("P1",))]),
    Case("underscore-italic anchored number drifts", "a.md",
         "The SSIM of Ours is _0.931_ on Kodak.\n", [("drift", 1, ("S1",))]),
    Case("double-underscore bold anchored number drifts", "a.md",
         "The SSIM of Ours is __0.931__ on Kodak.\n", [("drift", 1, ("S1",))]),
    Case("underscore-italic table cell drifts", "a.md",
         "| Method | SSIM |\n|---|---|\n| Baseline | 0.888 |\n| Ours | _0.931_ |\n",
         [("drift", 4, ("S1",))], [(3, ("S0",))]),
    Case("underscore-italic table cell matches", "a.md",
         "| Method | SSIM |\n|---|---|\n| Ours | _0.913_ |\n", [], [(3, ("S1",))]),
    Case("a subscript is still no number", "a.md",
         "The SSIM of Ours is 0.913 for x_1 and $\\mathbf{y}_1$.\n", [], [(1, ("S1",))]),
    Case("underscore italics in a notebook's markdown", "nb.ipynb",
         _notebook("The SSIM of Ours is _0.931_.\n"), [("drift", 1, ("S1",))]),
    # --- count nouns: "24 images" is the size of a test set, not a PSNR -------------------------
    Case("a test set's image count next to PSNR is no value", "a.md",
         "PSNR is averaged over the 24 test images of Kodak.\n", []),
    Case("a sample count next to FID is no value", "a.md",
         "FID is computed from 10 samples per class.\n", []),
    Case("a count with one modifier is no value", "a.md",
         "PSNR is computed on 40 validation samples.\n", []),
    Case("a footnote's image count is no value", "a.md",
         "Ours is best.[^1]\n\n[^1]: Kodak has 24 images; PSNR is averaged over them.\n", []),
    Case("a value followed by 'on images' is still a value", "a.md",
         "Ours reaches a PSNR of 31.52 dB on images of Kodak.\n", [("drift", 1, ("P1",))]),
    Case("a parameter count claim is a value, not a count", "a.md",
         "The model has 25.9M parameters.\n", [("drift", 1, ("Q1",))]),
    Case("a rate of tokens is a value, not a count", "a.md",
         "Its throughput is 920 tokens/s.\n", [("drift", 1, ("T1",))]),
    # --- LaTeX: \phantom's argument is not printed; \textcolor's second argument is ------------
    Case("a phantom digit in a table cell is not the cell's number", "t.tex",
         "\\begin{tabular}{lc}\n\\toprule\nMethod & PSNR (dB) \\\\\n\\midrule\n"
         "Baseline & \\phantom{0}30.10 \\\\\nOurs & 31.42 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [], [(5, ("P0",)), (6, ("P1",))]),
    Case("a phantom-aligned cell that drifts is drift", "t.tex",
         "\\begin{tabular}{lc}\n\\toprule\nMethod & PSNR (dB) \\\\\n\\midrule\n"
         "Baseline & \\hphantom{0}30.01 \\\\\nOurs & 31.42 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 5, ("P0",))], [(6, ("P1",))], ("30.01",)),
    Case("a coloured table cell that drifts is drift", "t.tex",
         "\\begin{tabular}{lc}\n\\toprule\nMethod & FID \\\\\n\\midrule\n"
         "Baseline & \\textcolor{blue}{18.43} \\\\\nOurs & 12.7 \\\\\n\\bottomrule\n"
         "\\end{tabular}\n", [("drift", 5, ("F0",))], [(6, ("F1",))]),
    Case("a coloured number in prose is read", "t.tex",
         "The FID of Ours is \\textcolor[rgb]{0,0,1}{12.9}.\n", [("drift", 1, ("F1",))]),
    # --- reST: roles that print their content (:math:, :strong:) were blanked whole ------------
    Case("a number in a :math: role is read", "a.rst",
         "The SSIM of Ours is :math:`0.931` on Kodak.\n", [("drift", 1, ("S1",))]),
    Case("a number in a :strong: role matches", "a.rst",
         "The SSIM of Ours is :strong:`0.913` on Kodak.\n", [], [(1, ("S1",))]),
    Case("a :ref: role's number stays hidden", "a.rst",
         "The SSIM of Ours is 0.913 (see :ref:`table-0.5`).\n", [], [(1, ("S1",))]),
    # --- siunitx uncertainties: 91.3(2) and 91.3 \pm 0.2 lost the percent ----------------------
    Case("siunitx compact uncertainty keeps the percent", "t.tex",
         "Ours reaches \\SI{91.3(2)}{\\percent} top-1 accuracy.\n", [], [(1, ("A1",))]),
    Case("siunitx compact uncertainty drift is drift", "t.tex",
         "Ours reaches \\SI{91.5(2)}{\\percent} top-1 accuracy.\n", [("drift", 1, ("A1",))]),
    Case("siunitx \\pm uncertainty keeps the percent", "t.tex",
         "Ours reaches \\SI{91.5 \\pm 0.2}{\\percent} top-1 accuracy.\n",
         [("drift", 1, ("A1",))]),
    Case("siunitx compact uncertainty is no value", "t.tex",
         "The PSNR of Ours is \\SI{31.42(35)}{\\decibel}.\n", [], [(1, ("P1",))]),
]


def run_case(case: Case) -> Report:
    segments = read_document(case.path, case.text.encode())
    return reconcile_segments(segments, [CLAIMS[c] for c in ALL])


def assert_case(report: Report, case: Case) -> None:
    """``report`` has the findings (and matches, and shown numbers) ``case`` names."""
    got = [(f.type, f.line, tuple(sorted(f.claims))) for f in report.findings]
    want = [(t, line, tuple(sorted(ids))) for t, line, ids in case.findings]
    assert got == want, "\n".join(f.render() for f in report.findings)
    if case.matched is not None:
        assert sorted((m.line, m.claims) for m in report.matches) == sorted(case.matched)
    if case.shown:
        assert tuple(f.shown for f in report.findings) == case.shown


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run_case(case), case)


@pytest.mark.parametrize(("tex", "plain"), [
    ("\\SI{91.3(2)}{\\percent}", "    91.3\\%            "),
    ("\\SI{91.3 \\pm 0.2}{\\percent}", "    91.3\\% \\pm 0.2         "),
    ("\\num{0.913(2)}", "     0.913    "),
    ("\\SI{91.3}{\\percent}", "    91.3\\%         "),
])
def test_siunitx_uncertainty_reads_as_printed(tex: str, plain: str) -> None:
    assert siunitx_plain(tex) == plain


@pytest.mark.parametrize(("text", "kind"), [
    ("The test set has 25 test images.\n", "drift"),   # the count noun is the claim's anchor
    ("The test set has 24 test images.\n", None),
])
def test_a_count_noun_that_names_a_claim_is_its_value(text: str, kind: str | None) -> None:
    images = claim("I1", "num_images", 24, aliases=("test images",))
    report = reconcile_segments(read_document("a.md", text.encode()),
                                [images, CLAIMS["P1"], CLAIMS["P0"]])
    assert [f.type for f in report.findings] == ([kind] if kind else [])
    if kind is None:
        assert [m.claims for m in report.matches] == [("I1",)]

