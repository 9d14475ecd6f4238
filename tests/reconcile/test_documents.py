"""Document reconcile: a table of snippets and the findings each must (and must not) produce.

Every failure DOMAIN.md lists for the seed's line heuristic has a row here (rounding, percent,
thousands, deltas, digits inside an alias, numbers before the anchor, table and CSV cells, two
claims on one metric), next to the markers (Markdown, LaTeX macros and tables) and notebooks.
Each row: a file name and its text, the claims in force, and the expected findings as
``(type, line, claim ids)`` (plus, where it matters, the numbers that matched).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report


def claim(cid: str, metric: str, value: float, *, unit: str | None = None,
          aliases: tuple[str, ...] = (), run: str = "r1") -> Claim:
    return Claim(id=cid, run=run, metric=metric, value=value, direction="higher",
                 source_digest="blake3:" + cid.encode().hex().ljust(64, "0")[:64],
                 event_id="event-" + cid, declared_at="2025-01-01T00:00:00.000000Z", unit=unit,
                 aliases=aliases)


CLAIMS = {c.id: c for c in [
    claim("C1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours")),
    claim("C0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0"),
    claim("A1", "top1", 0.9134, aliases=("top-1 accuracy", "accuracy")),
    claim("M1", "map50", 41.23, aliases=("mAP@50",)),
    claim("N1", "train_images", 12000, aliases=("training images",)),
    claim("L1", "lr", 0.0003, aliases=("learning rate",)),
    claim("P1", "lpips", 0.123, aliases=("LPIPS",)),
    claim("T1", "throughput", 850.0, unit="img/s", aliases=("throughput",)),
]}


@dataclass
class Case:
    name: str
    path: str
    text: str
    claims: tuple[str, ...]
    findings: list[tuple[str, int, tuple[str, ...]]]
    matched: list[tuple[int, tuple[str, ...]]] | None = None
    shown: list[str] = field(default_factory=list)  # the findings' numbers, in order


NOTEBOOK = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {},
     "source": ["# Eval\n", "Ours: <!-- claim:C1 -->31.42 dB\n"]},
    {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["print(psnr)"],
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["test PSNR: 31.50\n"]},
                 {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                  "data": {"text/plain": ["top-1 accuracy 0.9134"]}}]},
]})

CASES = [
    # --- precision: the seed reported a rounded value as drift --------------------------------
    Case("rounded value matches", "a.md", "Ours reaches a PSNR of 31.4 dB on Kodak.\n",
         ("C1",), [], [(1, ("C1",))]),
    Case("integer rounding matches", "a.md", "PSNR is about 31 dB.\n", ("C1",), [],
         [(1, ("C1",))]),
    Case("rounded the wrong way drifts", "a.md", "Ours reaches a PSNR of 31.5 dB.\n", ("C1",),
         [("drift", 1, ("C1",))], shown=["31.5"]),
    Case("more digits than the evidence rounds to drifts", "a.md", "PSNR: 31.40 dB\n",
         ("C1",), [("drift", 1, ("C1",))]),
    # --- percent: the seed stripped % without scaling -----------------------------------------
    Case("percent of a fraction matches", "a.md", "Top-1 accuracy is 91.3%.\n", ("A1",), [],
         [(1, ("A1",))]),
    Case("percent of a fraction drifts", "a.md", "Top-1 accuracy is 91.5%.\n", ("A1",),
         [("drift", 1, ("A1",))], shown=["91.5%"]),
    Case("the fraction itself matches", "a.md", "Top-1 accuracy is 0.913.\n", ("A1",), [],
         [(1, ("A1",))]),
    Case("LaTeX percent", "a.tex", "Top-1 accuracy reaches 91.3\\% on ImageNet.\n", ("A1",),
         [], [(1, ("A1",))]),
    # --- thousands and scientific notation: the seed read 1,000 as 1 --------------------------
    Case("thousands separator", "a.md", "We train on 12,000 training images.\n", ("N1",), [],
         [(1, ("N1",))]),
    Case("thousands separator drift", "a.md", "We train on 12,500 training images.\n",
         ("N1",), [("drift", 1, ("N1",))], shown=["12,500"]),
    Case("LaTeX thousands", "a.tex", "We train on 12{,}000 training images.\n", ("N1",), [],
         [(1, ("N1",))]),
    Case("scientific notation", "a.md", "The learning rate is 3e-4.\n", ("L1",), [],
         [(1, ("L1",))]),
    Case("scientific notation drift", "a.md", "The learning rate is 3.5e-4.\n", ("L1",),
         [("drift", 1, ("L1",))]),
    Case("LaTeX times ten to the", "a.tex", "A learning rate of $3 \\times 10^{-4}$ works.\n",
         ("L1",), [], [(1, ("L1",))]),
    # --- distance: a long sentence names other quantities too ---------------------------------
    Case("a far number belongs to another noun", "a.md",
         "We add Gaussian noise 0.2 to the inputs, train 400 steps with Adam, and keep the "
         "checkpoint with the lowest LPIPS on the validation split.\n", ("P1",), [], []),
    Case("a near number is still checked", "a.md",
         "We keep the checkpoint with the lowest LPIPS, which is 0.2 on the test split.\n",
         ("P1",), [("drift", 1, ("P1",))], shown=["0.2"]),
    # --- deltas: the seed read "+1.47 dB" after the anchor as the value -----------------------
    Case("signed delta is not the value", "a.md",
         "PSNR improves by +1.47 dB over prior work.\n", ("C1",), [], []),
    Case("delta by words is not the value", "a.md",
         "Ours is 1.3 dB higher in PSNR than prior work.\n", ("C1",), [], []),
    Case("delta bound to two claims matches", "a.md",
         "The gain is <!-- delta:C1,C0 -->+1.32 dB.\n", ("C1", "C0"), [], [(1, ("C1", "C0"))]),
    Case("delta bound to two claims drifts", "a.md",
         "The gain is <!-- delta:C1,C0 -->+1.5 dB.\n", ("C1", "C0"),
         [("drift", 1, ("C1", "C0"))]),
    Case("LaTeX delta marker", "a.tex", "A gain of \\claimdelta{C1}{C0}{+1.3}\\,dB.\n",
         ("C1", "C0"), [], [(1, ("C1", "C0"))]),
    # --- digits inside an alias: the seed read mAP@50's 50 as the value -----------------------
    Case("alias digits are not the value", "a.md", "Our mAP@50 is 41.2 on COCO.\n", ("M1",),
         [], [(1, ("M1",))]),
    Case("alias digits: the real number drifts", "a.md", "Our mAP@50 is 40.1 on COCO.\n",
         ("M1",), [("drift", 1, ("M1",))], shown=["40.1"]),
    Case("alias with digits, alone", "a.md", "The top-1 accuracy improved.\n", ("A1",), [], []),
    Case("digits glued to words", "a.md", "ResNet-50 reaches a PSNR of 31.42 dB.\n", ("C1",),
         [], [(1, ("C1",))]),
    # --- numbers before the anchor: the seed never looked there -------------------------------
    Case("number before the anchor", "a.md", "We reach 31.5 dB PSNR on Kodak.\n", ("C1",),
         [("drift", 1, ("C1",))]),
    Case("number before the anchor matches", "a.md", "We reach 31.42 dB PSNR.\n", ("C1",), [],
         [(1, ("C1",))]),
    # --- tables and CSV: the seed never checked cells -----------------------------------------
    Case("markdown table cell drifts", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| Baseline | 30.10 |\n| Ours | 31.52 |\n",
         ("C1", "C0"), [("drift", 4, ("C1",))], [(3, ("C0",))], shown=["31.52"]),
    Case("markdown table clean", "a.md",
         "| Method | PSNR (dB) | Top-1 accuracy (%) |\n|:--|--:|--:|\n"
         "| Baseline | 30.10 | 88.0 |\n| Ours | **31.42** | 91.3 |\n",
         ("C1", "C0", "A1"), [], None),
    # --- found by a review: numbers a paper prints through siunitx, spans, other CSV dialects --
    Case("siunitx percent drifts", "a.tex",
         "Ours reaches a top-1 accuracy of \\SI{95.0}{\\percent}.\n", ("A1",),
         [("drift", 1, ("A1",))], shown=["95.0%"]),
    Case("siunitx num then percent drifts", "a.tex",
         "Ours reaches a top-1 accuracy of \\num{95.0}\\%.\n", ("A1",),
         [("drift", 1, ("A1",))]),
    Case("siunitx qty percent matches", "a.tex",
         "Ours reaches a top-1 accuracy of \\qty{91.3}{\\%}.\n", ("A1",), [], [(1, ("A1",))]),
    Case("siunitx inside a marker matches", "a.tex",
         "\\claim{A1}{\\num{91.3}\\%} and \\claim{A1}{\\SI{91.3}{\\percent}}\n", ("A1",), [],
         [(1, ("A1",)), (1, ("A1",))]),
    Case("siunitx percent column header", "a.tex",
         "\\begin{tabular}{lc}\nMethod & Top-1 (\\si{\\percent}) \\\\\n\\midrule\n"
         "Ours & 95.0 \\\\\n\\end{tabular}\n", ("A1",), [("drift", 4, ("A1",))]),
    Case("a number that matches the less-named claim is its", "a.md",
         "Our method reaches 31.42 dB PSNR, 1.32 dB higher than the baseline.\n", ("C1", "C0"),
         [], [(1, ("C1",))]),
    Case("multicolumn header spans its columns", "a.tex",
         "\\begin{tabular}{lccc}\nMethod & \\multicolumn{2}{c}{Cost} & PSNR (dB) \\\\\n"
         " & Epochs & GPUs & \\\\\n\\midrule\nOurs & 300 & 8 & 31.92 \\\\\n\\end{tabular}\n",
         ("C1",), [("drift", 5, ("C1",))], shown=["31.92"]),
    Case("multicolumn data cell keeps the row's columns", "a.tex",
         "\\begin{tabular}{llcc}\nMethod & Data & Top-1 (\\%) & PSNR (dB) \\\\\n\\midrule\n"
         "Baseline & ImageNet & 88.2 & 30.10 \\\\\n"
         "Ours & \\multicolumn{2}{c}{--} & 31.92 \\\\\n\\end{tabular}\n",
         ("C1", "C0", "A1"), [("drift", 5, ("C1",))], shown=["31.92"]),
    Case("a transposed table: metrics as rows, one value column", "a.md",
         "| Metric | Value |\n|---|---|\n| PSNR | 31.92 |\n| LPIPS | 0.123 |\n", ("C1", "P1"),
         [("drift", 3, ("C1",))], [(4, ("P1",))]),
    Case("an Ours row holds numbers of other runs' claims too", "a.md",
         "| Method | PSNR (dB) | Top-1 (%) |\n|---|---|---|\n| Ours | 31.42 | 95.0 |\n",
         ("C1", "A1"), [("drift", 3, ("A1",))], [(3, ("C1",))]),
    Case("semicolon CSV with decimal commas", "r.csv", "method;psnr\nOurs;31,42\n", ("C1",),
         [], [(2, ("C1",))]),
    Case("semicolon CSV drift", "r.csv", "method;psnr\nOurs;31,92\n", ("C1",),
         [("drift", 2, ("C1",))]),
    Case("CSV cell drifts", "r.csv", "method,psnr\nBaseline,30.10\nOurs,31.52\n", ("C1", "C0"),
         [("drift", 3, ("C1",))], [(2, ("C0",))]),
    Case("CSV quoted cells", "r.csv", 'method,"psnr, dB"\n"Ours, large",31.42\n', ("C1",), [],
         [(2, ("C1",))]),
    Case("TSV cell drifts", "r.tsv", "method\tpsnr\nOurs\t31.5\n", ("C1",),
         [("drift", 2, ("C1",))]),
    Case("percent column header scales", "r.csv", "method,accuracy (%)\nOurs,91.3\n", ("A1",),
         [], [(2, ("A1",))]),
    Case("delta column is not values", "a.md",
         "| Method | PSNR | Δ PSNR |\n|---|---|---|\n| Ours | 31.42 | 1.32 |\n", ("C1",), [],
         [(3, ("C1",))]),
    # --- two claims on one metric: the seed made them drift against each other ----------------
    Case("two claims on one metric, both right", "a.md",
         "Ours reaches 31.42 dB PSNR while the Baseline gets 30.10 dB.\n", ("C1", "C0"), [],
         [(1, ("C1",)), (1, ("C0",))]),
    Case("two claims on one metric, one drifts", "a.md",
         "Ours reaches 31.5 dB PSNR while the Baseline gets 30.10 dB.\n", ("C1", "C0"),
         [("drift", 1, ("C1",))]),
    Case("one number two claims could own is ambiguous", "a.md", "The psnr is 31.5 dB.\n",
         ("C1", "C0"), [("ambiguous", 1, ("C0", "C1"))]),
    Case("one claim, several numbers, none right", "a.md",
         "PSNR rises from 29.80 to 31.50 dB.\n", ("C1",), [("ambiguous", 1, ("C1",))]),
    # --- Markdown markers ----------------------------------------------------------------------
    Case("comment marker matches", "a.md", "We get <!-- claim:C1 -->31.42 dB.\n", ("C1",), [],
         [(1, ("C1",))]),
    Case("comment marker drifts even with no anchor", "a.md",
         "We get <!-- claim:C1 -->**31.5** dB.\n", ("C1",), [("drift", 1, ("C1",))]),
    Case("span marker", "a.md", 'We get <span data-claim="C1">31.5</span> dB.\n', ("C1",),
         [("drift", 1, ("C1",))]),
    Case("marker for an unknown claim", "a.md", "See <!-- claim:C9 -->3.1 here.\n", ("C1",),
         [("unknown_claim", 1, ())]),
    Case("marker with no number", "a.md", "See <!-- claim:C1 --> here.\n", ("C1",),
         [("marker", 1, ("C1",))]),
    Case("marker unit mismatch", "a.md", "We get <!-- claim:C1 -->31.42 ms.\n", ("C1",),
         [("unit", 1, ("C1",))]),
    Case("marker keyword in capitals still marks", "a.md",
         "Our model reaches <!-- Claim:C1 -->30.00 on Kodak.\n", ("C1",),
         [("drift", 1, ("C1",))]),
    Case("span marker with single quotes", "a.md",
         "Our model reaches <span data-claim='C1'>30.00</span> on Kodak.\n", ("C1",),
         [("drift", 1, ("C1",))]),
    Case("marker with an empty id is a finding", "a.md",
         "Our model reaches <!-- claim: -->30.00 on Kodak.\n", ("C1",), [("marker", 1, ())]),
    Case("unclosed marker is a finding", "a.md",
         "Our model reaches <!-- claim:C1 30.00 on Kodak.\n", ("C1",), [("marker", 1, ())]),
    Case("span marker without quotes is a finding", "a.md",
         "Our model reaches <span data-claim=C1>30.00</span> on Kodak.\n", ("C1",),
         [("marker", 1, ())]),
    Case("a comment of prose that starts with the keyword is no marker", "a.md",
         "<!-- Delta between the two runs is explained in the appendix. -->\n"
         "<!-- claim numbers below are refreshed by CI -->\nWe trained for 300 epochs.\n",
         ("C1",), []),
    Case("malformed marker in a table cell is a finding", "a.md",
         "| Method | PSNR |\n|---|---|\n| Ours | <!-- claim C1 -->31.42 |\n", ("C1",),
         [("marker", 3, ())]),
    Case("table header marker binds the column", "a.md",
         "| Method | Score <!-- claim:C1 --> |\n|---|---|\n| Ours | 31.5 |\n", ("C1",),
         [("drift", 3, ("C1",))]),
    Case("noclaim silences anchors", "a.md",
         "Prior work reports a PSNR of 29.8 dB. <!-- noclaim -->\n", ("C1",), [], []),
    # --- LaTeX ---------------------------------------------------------------------------------
    Case("claim macro matches", "a.tex", "Our PSNR is \\claim{C1}{31.4}\\,dB.\n", ("C1",), [],
         [(1, ("C1",))]),
    Case("claim macro drifts", "a.tex", "Our PSNR is \\claim{C1}{\\textbf{31.5}}\\,dB.\n",
         ("C1",), [("drift", 1, ("C1",))], shown=["31.5"]),
    Case("newcommand bound by a comment", "a.tex",
         "\\newcommand{\\psnrours}{31.5} % claim:C1\nWe get \\psnrours.\n", ("C1",),
         [("drift", 1, ("C1",))]),
    Case("newcommand bound by claimbind", "a.tex",
         "\\claimbind{C0}{\\psnrbase}\n\\newcommand{\\psnrbase}{30.1}\n", ("C0",), [],
         [(2, ("C0",))]),
    Case("LaTeX table with rules and bold", "a.tex",
         "\\begin{tabular}{@{}lcc@{}}\n\\toprule\nMethod & PSNR & Accuracy (\\%) \\\\\n"
         "\\midrule\nBaseline & 30.10 & 88.0 \\\\\nOurs & \\textbf{31.52} & 91.3 \\\\\n"
         "\\bottomrule\n\\end{tabular}\n", ("C1", "C0", "A1"), [("drift", 6, ("C1",))]),
    Case("LaTeX table header claimref", "a.tex",
         "\\begin{tabular}{lc}\nMethod & Score\\claimref{C1} \\\\\n\\hline\nOurs & 31.42 \\\\\n"
         "\\end{tabular}\n", ("C1",), [], [(4, ("C1",))]),
    Case("LaTeX comments are not text", "a.tex", "Our PSNR is high. % was 31.5 dB\n", ("C1",),
         [], []),
    Case("LaTeX citations are not values", "a.tex",
         "The PSNR of \\cite{ref2020} is not 31.42 but close.\n", ("C1",), [], [(1, ("C1",))]),
    # --- notebooks: markdown and outputs -------------------------------------------------------
    Case("notebook markdown marker and outputs", "n.ipynb", NOTEBOOK, ("C1", "A1"),
         [("drift", 1, ("C1",))], [(2, ("C1",)), (1, ("A1",))]),
    # --- what is near an anchor but not a value -----------------------------------------------
    Case("uncertainty is not a value", "a.md", "PSNR is 31.42 ± 0.05 dB.\n", ("C1",), [],
         [(1, ("C1",))]),
    Case("references are not values", "a.md", "As Table 3 shows, PSNR is 31.42 dB.\n",
         ("C1",), [], [(1, ("C1",))]),
    Case("citations are not values", "a.md", "PSNR is 31.42 dB [12].\n", ("C1",), [],
         [(1, ("C1",))]),
    Case("bounds are not values", "a.md", "PSNR stays above 30 dB.\n", ("C1",), [], []),
    Case("other quantities are ignored", "a.md", "PSNR after 300 epochs on 4 GPUs.\n",
         ("C1",), [], []),
    Case("unit shown and wrong: another quantity", "a.md",
         "PSNR is 31.42 dB at 31.0 ms per image.\n", ("C1",), [], [(1, ("C1",))]),
    Case("the claim's own unit", "a.md", "A throughput of 850 img/s.\n", ("T1",), [],
         [(1, ("T1",))]),
    Case("lower-is-better metric, delta word", "a.md", "LPIPS drops by 0.02 to 0.123.\n",
         ("P1",), [], [(1, ("P1",))]),
    Case("code block lines are units", "a.md", "Log:\n\n```\npsnr: 31.50\n```\n", ("C1",),
         [("drift", 4, ("C1",))]),
    Case("reST prose", "a.rst", "Results\n=======\n\nThe PSNR is 31.5 dB, see :ref:`tab-3`.\n",
         ("C1",), [("drift", 4, ("C1",))]),
    Case("plain text", "a.txt", "PSNR: 31.42\nLPIPS: 0.2\n", ("C1", "P1"),
         [("drift", 2, ("P1",))]),
    Case("numbers near no anchor are ignored", "a.md", "We trained for 31.5 hours.\n", ("C1",),
         [], []),
    # --- found by a user test: settings, other methods' rows, whole numbers, differences ------
    Case("a count of epochs is no value", "a.md",
         "Ours is trained for 40 epochs to maximise PSNR.\n", ("C1",), [], []),
    Case("a count next to a drifted value leaves it drift", "a.md",
         "Ours reaches 31.7 dB PSNR after 40 epochs on 20 layers.\n", ("C1",),
         [("drift", 1, ("C1",))], shown=["31.7"]),
    Case("a batch size is no value", "a.md",
         "Ours uses a batch size of 32 and reaches a good PSNR.\n", ("C1",), [], []),
    Case("a difference above another method is a delta", "a.md",
         "Ours reaches a PSNR of 31.42 dB, 1.32 dB above the Baseline.\n", ("C1", "C0"), [],
         [(1, ("C1",))]),
    Case("a whole number is no fraction's value", "a.md",
         "Top-1 accuracy of Ours is 93.5% using 1 crop.\n", ("A1",),
         [("drift", 1, ("A1",))], shown=["93.5%"]),
    Case("other methods' rows are not the named claims' numbers", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| JPEG | 28.50 |\n| BPG | 29.71 |\n"
         "| Baseline | 30.10 |\n| Ours | 31.42 |\n", ("C1", "C0"), [],
         [(5, ("C0",)), (6, ("C1",))]),
    Case("other methods' rows do not hide a drifted row", "a.md",
         "| Method | PSNR (dB) |\n|---|---|\n| JPEG | 28.50 |\n| Ours | 31.62 |\n",
         ("C1",), [("drift", 4, ("C1",))], shown=["31.62"]),
    Case("an unnamed row is judged when no row names the claim", "a.md",
         "| Dataset | PSNR (dB) |\n|---|---|\n| Kodak | 31.62 |\n", ("C1",),
         [("drift", 3, ("C1",))]),
    Case("a metric key written apart anchors its claim", "a.md",
         "| Model | Top-1 (%) |\n|---|---|\n| Ours | 91.5 |\n",
         ("A1",), [("drift", 3, ("A1",))], shown=["91.5"]),
    Case("a multiplier word scales the number", "a.md",
         "We train on 12 thousand training images.\n", ("N1",), [], [(1, ("N1",))]),
    Case("a drifted multiplied number is shown with its multiplier", "a.md",
         "We train on 12.5 thousand training images.\n", ("N1",),
         [("drift", 1, ("N1",))], shown=["12.5 thousand"]),
    Case("an abbreviation ends no sentence", "a.md",
         "Ours vs. Baseline: 31.52 vs. 30.10 dB PSNR.\n", ("C1", "C0"),
         [("drift", 1, ("C1",))], [(1, ("C0",))], shown=["31.52"]),
    Case("a number beyond floats is far from every claim", "a.md",
         "Ours reaches a PSNR of 1e400 dB.\n<!-- claim:C1 -->1e400\n", ("C1",),
         [("drift", 2, ("C1",))]),
]


def run_case(case: Case) -> Report:
    segments = read_document(case.path, case.text.encode())
    return reconcile_segments(segments, [CLAIMS[c] for c in case.claims])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    report = run_case(case)
    got = [(f.type, f.line, tuple(sorted(f.claims))) for f in report.findings]
    want = [(t, line, tuple(sorted(ids))) for t, line, ids in case.findings]
    assert got == want, "\n".join(f.render() for f in report.findings)
    if case.matched is not None:
        matched = sorted((m.line, m.claims) for m in report.matches)
        assert matched == sorted(case.matched)
    if case.shown:
        assert [f.shown for f in report.findings] == case.shown


def test_drift_message_names_claim_value_run_and_object() -> None:
    report = run_case(CASES[2])
    (finding,) = report.findings
    assert finding.render() == ("a.md:1:24: C1 says 31.5, evidence says 31.42 dB "
                                "(run r1, object blake3:433100000000…)")
    assert finding.evidence[0].object == CLAIMS["C1"].source_digest


def test_percent_drift_message_shows_the_scaled_evidence() -> None:
    report = run_case(next(c for c in CASES if c.name == "percent of a fraction drifts"))
    assert "A1 says 91.5%, evidence says 0.9134 (= 91.34%)" in report.findings[0].message


def test_ambiguous_names_both_claims_and_never_drift() -> None:
    report = run_case(next(c for c in CASES if c.name.startswith("one number two claims")))
    (finding,) = report.findings
    assert finding.type == "ambiguous"
    assert "C0" in finding.message
    assert "C1" in finding.message


def test_notebook_positions_name_the_cell_and_output() -> None:
    report = run_case(next(c for c in CASES if c.path == "n.ipynb"))
    (finding,) = report.findings
    assert finding.where == "cell 2, output 1"
    assert finding.render().startswith("n.ipynb:1:12: [cell 2, output 1] C1 says 31.50")


def test_markers_are_checked_even_without_any_anchor() -> None:
    silent = claim("X1", "zzz_metric", 7.25)
    segments = read_document("a.md", b"Value: <!-- claim:X1 -->7.3, and 7.9 elsewhere.\n")
    report = reconcile_segments(segments, [silent])
    assert report.findings == []
    assert [m.shown for m in report.matches] == ["7.3"]


def test_alias_naming_a_latex_macro_binds_it() -> None:
    bound = claim("C1", "psnr", 31.42, aliases=("\\psnrours",))
    segments = read_document("a.tex", b"\\newcommand{\\psnrours}{31.6}\n")
    (finding,) = reconcile_segments(segments, [bound]).findings
    assert (finding.type, finding.via) == ("drift", "macro")


def test_report_json_shape() -> None:
    report = run_case(CASES[2])
    data = report.to_json()
    assert data["ok"] is False
    assert data["counts"] == {"drift": 1}
    assert data["findings"][0]["claims"] == ["C1"]
    assert data["findings"][0]["evidence"][0]["run"] == "r1"
    json.dumps(data)


# --- many claims on one metric: the fast paths must agree with the plain rules ----------------

MANY = [claim(f"P{i:02d}", "psnr", 20.0 + i * 0.5, unit="dB", aliases=(f"Model-{i}",),
              run=f"r{i}") for i in range(30)]


def test_many_claims_the_named_one_is_judged() -> None:
    text = "Model-7 reaches a PSNR of 23.5 dB; Model-8 reaches 24.0 dB PSNR.\n"
    report = reconcile_segments(read_document("a.md", text.encode()), MANY)
    assert report.findings == []
    assert sorted(m.claims for m in report.matches) == [("P07",), ("P08",)]
    drifted = reconcile_segments(read_document("a.md", b"Model-7 has a PSNR of 24.0 dB.\n"),
                                 MANY)
    assert [(f.type, f.claims) for f in drifted.findings] == [("drift", ("P07",))]


def test_many_claims_a_bare_metric_name_matches_any_of_them() -> None:
    report = reconcile_segments(read_document("a.md", b"A PSNR of 31.5 dB is typical.\n"),
                                MANY)
    assert report.findings == []
    assert [m.claims for m in report.matches] == [("P23",)]


def test_many_claims_a_bare_metric_name_off_every_value_is_ambiguous() -> None:
    report = reconcile_segments(read_document("a.md", b"A PSNR of 31.3 dB is typical.\n"),
                                MANY)
    (finding,) = report.findings
    assert finding.type == "ambiguous"
    assert len(finding.claims) == 30  # every PSNR claim within a factor of two could own it


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_broad_term_shortcut_equals_the_plain_rule(data: st.DataObject) -> None:
    from labledger.reconcile.documents import _Run

    metrics = ["psnr", "ssim", "fid"]
    claims = []
    for i in range(data.draw(st.integers(20, 60))):
        aliases = tuple(data.draw(st.lists(st.sampled_from(
            ["Ours", "Baseline", "Large", "Small", f"Model {i % 7}", f"m{i}"]), max_size=3)))
        claims.append(claim(f"X{i}", data.draw(st.sampled_from(metrics)), float(i),
                            aliases=aliases))
    run = _Run(claims)
    vocabulary = sorted(run.index.claims_of)
    terms = frozenset(data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=4)))
    assert run.candidates(terms) == run._strongest(run._named(terms))


@pytest.mark.parametrize(("path", "text", "says"), [
    ("a.md", "Gain: <!-- delta:C1 -->+1.3 dB\n",
     "a delta marker needs two claim ids (delta:A,B: A minus B); this one names 1"),
    ("a.md", "Gain: <!-- delta:C1,C0,A1 -->+1.3 dB\n",
     "a delta marker needs two claim ids (delta:A,B: A minus B); this one names 3"),
    ("a.md", "Gain: <!-- delta:C1,C0 --> none\n",
     "delta marker for C1\u2212C0 is not followed by a number"),
    ("a.tex", "Gain: \\claimdelta{C1}{C0}{n/a}.\n",
     "delta marker for C1\u2212C0 is not followed by a number"),
    ("a.md", "PSNR: <!-- claim:C1 --> n/a\n", "marker for C1 is not followed by a number (a "
     "bare marker binds only a table's header or row-label cell)"),
])
def test_a_marker_without_its_number_says_what_it_lacks(path: str, text: str, says: str) -> None:
    report = reconcile_segments(read_document(path, text.encode()), list(CLAIMS.values()))
    assert [(f.type, f.message) for f in report.findings] == [("marker", says)]


def test_a_delta_shown_in_another_unit_is_a_unit_finding() -> None:
    text = "Gain: <!-- delta:C1,C0 -->+4.4% over the baseline.\n"
    (finding,) = reconcile_segments(read_document("a.md", text.encode()),
                                    list(CLAIMS.values())).findings
    assert finding.type == "unit"
    assert finding.message.startswith("C1\u2212C0 says +4.4%, but its evidence is +1.32 dB")


@pytest.mark.parametrize(("text", "says"), [
    ("PSNR <!-- claim: -->30.00\n", "malformed claim marker `<!-- claim: -->30.00`; it marks "
     "nothing (expected <!-- claim:C1 -->31.42 (or <!-- delta:C2,C1 -->, <!-- noclaim -->))"),
    ("PSNR <!-- claim:C1 30.00\n", "claim marker `<!-- claim:C1 30.00` is not closed with "
     "`-->` on its line; it marks nothing"),
    ("PSNR <span data-claim=C1>30</span>\n", "malformed claim marker `<span data-claim=C1>30"
     "</span>`; it marks nothing (expected <span data-claim=\"C1\">31.42</span>)"),
])
def test_a_malformed_marker_shows_itself_and_the_form_expected(text: str, says: str) -> None:
    report = reconcile_segments(read_document("a.md", text.encode()), [CLAIMS["C1"]])
    assert ("marker", says) in [(f.type, f.message) for f in report.findings]


def judge(text: str, claims: list[Claim], path: str = "a.md") -> Report:
    """The report of reconciling ``text``, as the document ``path``, against ``claims``."""
    return reconcile_segments(read_document(path, text.encode()), claims)


def test_a_metric_key_with_split_or_statistic_words_is_anchored_by_the_quantity() -> None:
    """A claim on a result file's key (`test_psnr`, `psnr_mean`, `val/loss`) was anchored only
    by "test psnr" etc., which prose never writes: "PSNR of 31.5" went unchecked."""
    for metric in ("test_psnr", "psnr_mean", "val/PSNR_dB"):
        report = judge("Ours reaches a PSNR of 31.5 dB on Kodak.\n",
                        [claim("K1", metric, 31.42, unit="dB", aliases=("Ours",))])
        assert [(f.type, f.claims) for f in report.findings] == [("drift", ("K1",))], metric
        report = judge("Ours reaches a PSNR of 31.4 dB on Kodak.\n",
                        [claim("K1", metric, 31.42, unit="dB", aliases=("Ours",))])
        assert report.findings == []
        assert [m.claims for m in report.matches] == [("K1",)]


def test_claims_on_one_quantity_keep_its_name_decisive() -> None:
    """`psnr` of one run and `test_psnr` of another are one quantity: "PSNR" still names both
    (decisively), the run's own alias picks its claim, and neither drifts against the other."""
    claims = [claim("A", "psnr", 31.42, aliases=("Ours",), run="ours"),
              claim("B", "test_psnr", 29.95, aliases=("Baseline",), run="base")]
    report = judge("Ours reaches a PSNR of 31.4 and the Baseline a PSNR of 30.4.\n", claims)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("B",))]
    report = judge("PSNR: 31.42 (ours) vs 29.95 (baseline).\n", claims)
    assert report.findings == []
    assert sorted(m.claims for m in report.matches) == [("A",), ("B",)]


def test_top1_and_top5_stay_different_quantities() -> None:
    claims = [claim("T1", "top1", 0.7634), claim("T5", "top5_acc", 0.9312)]
    report = judge("Top-1 is 76.3% and top-5 acc is 93.1%.\n", claims)
    assert report.findings == []
    assert sorted(m.claims for m in report.matches) == [("T1",), ("T5",)]
