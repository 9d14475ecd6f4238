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

Round 57 (section 5) follows GitHub's blocks and delimiter pairing (cmark-gfm) more closely:
backticks in another list item, a heading or a table row made a code span around a strike and
hid it (false drift); a ``~`` opener between two ``~~`` was skipped, so the pair struck what
GitHub shows (missed drift); tildes struck inside HTML blocks and indented code blocks, which
GitHub shows raw; and a strike holding a code span (``~~with `bs=64` 31.52~~``) was not struck.

Each row is a snippet, the findings it must produce as ``(type, line, claim ids)`` and, where it
matters, the matched numbers as ``(line, claim ids)`` and the findings' numbers. Rows marked
"near miss" held before the fix and must keep their reading.
"""

from __future__ import annotations

import json
from functools import partial

import pytest

from labledger.reconcile.doc_readers import Segment, read_document, struck_spans
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
    Case("near miss: a <del> in a table's header closed in a row strikes nothing",
         "a.md", "| Method | <del>PSNR (dB) |\n|---|---|\n| Ours | 31.52</del> |\n",
         [("drift", 3, ("P1",))]),
    Case("near miss: <del> over a line break in prose strikes", "a.md",
         "Ours reaches a PSNR of <del>31.52 dB in the\nfirst version</del> (see the erratum).\n",
         []),
    Case("near miss: a new list item ends the paragraph", "a.md",
         "- Ours reaches a PSNR of ~~31.52 dB\n- Baseline~~ gets 30.10 dB\n",
         [("drift", 1, ("P1",))]),
    Case("near miss: a heading is a line of its own", "a.md",
         "# Ours ~~v1\nOurs reaches a PSNR of 31.52~~ dB.\n", [("drift", 2, ("P1",))]),
    # (round 57: GitHub pairs one tilde over a line break as it pairs two; cmarkgfm 0.29.0.gfm.13
    # renders "of <del>31.52 dB\non Set5 (see Table</del>2)")
    Case("a single-tilde pair over a line break strikes, as GitHub shows it", "a.md",
         "Ours reaches a PSNR of ~31.52 dB\non Set5 (see Table~2).\n", []),
    Case("near miss: two single tildes for 'about' over two lines strike nothing", "a.md",
         "Ours reaches a PSNR of ~31.52 dB\non Set5 at ~3 ms.\n",
         [("drift", 1, ("P1",))], None, ("31.52",)),
]


# --- 2. slash headers in bold ------------------------------------------------------------------

def _glue(header: str, bert: str = "84.6/83.9") -> str:
    # the BERT paper's Table 1 (Devlin et al. 2019), its first rows, as a README's pipe table
    return (f"| System | {header} | QQP |\n|---|---|---|\n| Pre-OpenAI SOTA | 80.6/80.1 | 66.1 |\n"
            f"| BERT-BASE | {bert} | 71.2 |\n")


def _html_glue(th: str) -> str:
    return (f"<table><tr><th>System</th>{th}</tr>\n"
            "<tr><td>BERT-BASE</td><td>84.6/83.9</td></tr></table>\n")


def _em_f1(header: str) -> str:
    return f"| Method | {header} |\n|---|---|\n| Ours | 84.1/91.3 |\n"


BOLD_HEADERS = [
    Case("**MNLI-(m/mm)** in a pipe table: the mm half drifts", "a.md", _glue("**MNLI-(m/mm)**"),
         [("drift", 4, ("MM",))], [(4, ("M",))], ("83.9",)),
    Case("__MNLI-(m/mm)__ in a pipe table", "a.md", _glue("__MNLI-(m/mm)__"),
         [("drift", 4, ("MM",))], [(4, ("M",))]),
    Case("<b>MNLI-(m/mm)</b> in a pipe table", "a.md", _glue("<b>MNLI-(m/mm)</b>"),
         [("drift", 4, ("MM",))], [(4, ("M",))]),
    Case("<th><b>MNLI</b>-(m/mm)</th>: the stem alone in bold", "a.md",
         _html_glue("<th><b>MNLI</b>-(m/mm)</th>"), [("drift", 2, ("MM",))], [(2, ("M",))]),
    Case("<th><strong>MNLI</strong> (m/mm)</th>", "a.md",
         _html_glue("<th><strong>MNLI</strong> (m/mm)</th>"), [("drift", 2, ("MM",))],
         [(2, ("M",))]),
    Case("**EM/F1** over a pair: EM drifts, F1 matches", "a.md", _em_f1("**EM/F1**"),
         [("drift", 3, ("E1",))], [(3, ("F1",))], ("84.1",)),
    Case("<b>EM/F1</b> over a pair", "a.md", _em_f1("<b>EM/F1</b>"),
         [("drift", 3, ("E1",))], [(3, ("F1",))]),
    Case("*EM*/*F1*, each name in italics", "a.md", _em_f1("*EM*/*F1*"),
         [("drift", 3, ("E1",))], [(3, ("F1",))]),
    Case("near miss: <th><b>MNLI-(m/mm)</b></th>", "a.md",
         _html_glue("<th><b>MNLI-(m/mm)</b></th>"), [("drift", 2, ("MM",))], [(2, ("M",))]),
    Case("near miss: <th><strong>MNLI-(m/mm)</strong></th>", "a.md",
         _html_glue("<th><strong>MNLI-(m/mm)</strong></th>"), [("drift", 2, ("MM",))],
         [(2, ("M",))]),
    Case("near miss: a plain MNLI-(m/mm)", "a.md", _glue("MNLI-(m/mm)"),
         [("drift", 4, ("MM",))], [(4, ("M",))]),
    Case("near miss: a plain EM/F1", "a.md", _em_f1("EM/F1"),
         [("drift", 3, ("E1",))], [(3, ("F1",))]),
]


# --- 3. one column, two quantities -------------------------------------------------------------

# as a model card or a timm-style results table states them: parameters in millions, FLOPs in
# billions, either as counts (what `timm.utils.count_params` and fvcore's FlopCountAnalysis give)
# or with the multiplier as the claim's unit
COUNTS = [claim("P", "params", 25_600_000, aliases=("Params",)),
          claim("G", "flops", 4_100_000_000, aliases=("FLOPs",)),
          claim("T", "top1", 81.42, unit="%", aliases=("Top-1",))]
IN_UNITS = [claim("P", "params", 25.6, unit="M", aliases=("Params",)),
            claim("G", "flops", 4.1, unit="G", aliases=("FLOPs",)),
            claim("T", "top1", 81.42, unit="%", aliases=("Top-1",))]


def _zoo(header: str, cell: str) -> str:
    return f"| Model | Top-1 | {header} |\n|---|---|---|\n| litenet_s | 81.42 | {cell} |\n"


TWO_QUANTITY_HEADERS = ["Params/FLOPs (M/G)", "Params (M) / FLOPs (G)", "Params(M)/FLOPs(G)",
                        "#Params/FLOPs (M/G)", "**Params/FLOPs (M/G)**",
                        # round 57: a count's "#" before each name, not the first only
                        "#Params (M) / #FLOPs (G)", "#Params/#FLOPs (M/G)"]


@pytest.mark.parametrize("claims", [COUNTS, IN_UNITS], ids=["counts", "in units"])
@pytest.mark.parametrize("header", TWO_QUANTITY_HEADERS)
@pytest.mark.parametrize(("cell", "drifts", "shown", "matched"), [
    ("25.6/4.1", [], (), ["G", "P", "T"]),
    ("25.7/4.1", ["P"], ("25.7",), ["G", "T"]),
    ("25.6/4.2", ["G"], ("4.2",), ["P", "T"]),
    ("25.7/4.2", ["P", "G"], ("25.7", "4.2"), ["T"]),
])
def test_each_quantity_of_a_two_quantity_column_is_judged_alone(
        claims: list, header: str, cell: str, drifts: list[str], shown: tuple[str, ...],
        matched: list[str]) -> None:
    report = run("a.md", _zoo(header, cell), claims)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", (c,)) for c in drifts], \
        [f.render() for f in report.findings]
    assert tuple(f.shown for f in report.findings) == shown
    assert sorted(c for m in report.matches for c in m.claims) == matched


def test_a_two_quantity_html_header_is_split_alike() -> None:
    text = ("<table><tr><th>Model</th><th>Params/FLOPs (M/G)</th></tr>\n"
            "<tr><td>litenet_s</td><td>25.6/4.2</td></tr></table>\n")
    report = run("a.md", text, IN_UNITS)
    assert [(f.type, f.claims, f.shown) for f in report.findings] == [("drift", ("G",), "4.2")]
    assert [m.claims for m in report.matches] == [("P",)]


@pytest.mark.parametrize("cell", ["25.7/4.1", "4.1/25.6"])
def test_one_name_over_two_units_names_the_first_number_only(cell: str) -> None:
    """"Params (M/G)" names the parameter count only: the second number (the FLOPs, in G) is
    never taken as it, whichever of the two numbers would match."""
    report = run("a.md", _zoo("Params (M/G)", cell), IN_UNITS)
    assert not [m for m in report.matches if "P" in m.claims]
    assert [(f.type, f.claims, f.shown) for f in report.findings] == \
        [("drift", ("P",), cell.split("/")[0])]


def test_a_percent_and_a_time_under_one_header_keep_their_units() -> None:
    claims = [claim("A", "top1", 76.3, unit="%", aliases=("Acc",)),
              claim("L", "latency", 12.5, unit="ms", aliases=("Latency",))]
    report = run("a.md", "| Model | Acc/Latency (%/ms) |\n|---|---|\n| Ours | 76.3/12.6 |\n",
                 claims)
    assert [(f.type, f.claims, f.shown) for f in report.findings] == [("drift", ("L",), "12.6")]
    assert [m.claims for m in report.matches] == [("A",)]


def test_near_miss_a_dataset_before_its_metrics_in_parentheses_is_still_split() -> None:
    claims = [claim("P1", "psnr", 31.42, unit="dB", aliases=("PSNR",)),
              claim("S1", "ssim", 0.9134, aliases=("SSIM",)),
         claim("A1", "top1", 0.9134, unit="fraction", aliases=("top-1 accuracy",))]
    report = run("a.md", "| Method | Set5 (PSNR/SSIM) |\n|---|---|\n| Ours | 31.42/0.9234 |\n",
                 claims)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("S1",))]
    assert [m.claims for m in report.matches] == [("P1",)]


# --- 4. the claim's unit in a drift message ----------------------------------------------------

UNITS = [claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours", "PSNR")),
         claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base"),
         claim("L", "latency", 12.5, unit="ms", aliases=("latency",)),
         claim("N", "params", 25.6, unit="M", aliases=("parameters",)),
         claim("E1", "em", 85.2, unit="%", aliases=("EM",)),
         claim("S1", "ssim", 0.9134, aliases=("SSIM",)),
         claim("A1", "top1", 0.9134, unit="fraction", aliases=("top-1 accuracy",))]


@pytest.mark.parametrize(("text", "says"), [
    ("Ours reaches a PSNR of 31.52 dB.\n", "P1 says 31.52, evidence says 31.42 dB (run ours"),
    ("Ours reaches a PSNR of 31.52.\n", "P1 says 31.52, evidence says 31.42 dB (run ours"),
    ("| Method | PSNR (dB) |\n|---|---|\n| Ours | 31.5 |\n",
     "P1 says 31.5, evidence says 31.42 dB (run ours"),
    ("A batch takes a latency of 12.6 ms.\n", "L says 12.6, evidence says 12.5 ms (run ours"),
    ("Ours has 25.7M parameters.\n", "N says 25.7M, evidence says 25.6 M (run ours"),
    ("The gain is <!-- delta:P1,P0 -->+1.5 dB.\n",
     "P1\u2212P0 says +1.5, evidence says +1.32 dB (P1 31.42 run ours"),
    # near misses: a percent claim's sign as before, and a claim without a unit shows none
    ("Ours reaches an EM of 84.1%.\n", "E1 says 84.1%, evidence says 85.2% (run ours"),
    ("Ours reaches an SSIM of 0.9234.\n", "S1 says 0.9234, evidence says 0.9134 (run ours"),
    ("Ours reaches a top-1 accuracy of 91.5%.\n",
     "A1 says 91.5%, evidence says 0.9134 (= 91.34%) (run ours"),
])
def test_a_drift_message_shows_the_claims_unit_with_its_evidence(text: str, says: str) -> None:
    (finding,) = run("a.md", text, UNITS).findings
    assert finding.type == "drift"
    assert finding.message.startswith(says), finding.message


def test_the_json_finding_keeps_its_fields_and_ties_the_unit() -> None:
    (finding,) = run("a.md", "Ours reaches a PSNR of 31.52 dB.\n", UNITS).findings
    data = finding.to_json()
    assert set(data) == {"type", "path", "line", "col", "where", "claims", "shown", "evidence",
                         "via", "message", "candidates", "unknown"}
    assert ("P1", 31.42, "dB") in [(t["claim"], t["value"], t["unit"]) for t in data["evidence"]]


# --- 5. what GitHub strikes, by its blocks and its delimiter pairing (round 57) ------------------
# Each expectation is what cmark-gfm renders (cmarkgfm 0.29.0.gfm.13, the library GitHub's
# renderer is built on: `cmarkgfm.github_flavored_markdown_to_html`, unsafe HTML kept), quoted
# beside it.

GITHUB_BLOCKS = [
    # '<li>It`s fast.</li><li>In v1, Ours reached a PSNR of <del>31.52 dB</del>.</li>...'
    Case("stray backticks in two other list items make no code span around a strike", "a.md",
         "- It`s fast.\n- In v1, Ours reached a PSNR of ~~31.52 dB~~.\n- Don`t worry.\n", []),
    # '<h2>Model`s results</h2><p>In v1, Ours reached a PSNR of <del>31.52 dB</del>. See `eval.py'
    Case("a backtick in a heading pairs with none in the paragraph below", "a.md",
         "## Model`s results\nIn v1, Ours reached a PSNR of ~~31.52 dB~~. See `eval.py\n", []),
    # '<th>Model`s</th>...</table><p>In v1, Ours reached a PSNR of <del>31.52 dB</del>.'
    Case("near miss: a backtick in a table row pairs with none in the paragraph after it", "a.md",
         "| Model`s | Size |\n|---|---|\n| Base | 12 |\n\n"
         "In v1, Ours reached a PSNR of ~~31.52 dB~~. See `eval.py\n", []),
    Case("near miss: a code span over two lines of one paragraph still hides its tildes", "a.md",
         "See `x ~~\ny` where Ours reaches a PSNR of 31.52 dB~~ now.\n",
         [("drift", 2, ("P1",))]),
    # '<p>Ours reaches a PSNR of ~~31.52 dB at\n~3 ms per image~~ in the first version.</p>'
    Case("a single-tilde opener on the next line takes the closer: nothing struck", "a.md",
         "Ours reaches a PSNR of ~~31.52 dB at\n~3 ms per image~~ in the first version.\n",
         [("drift", 1, ("P1",))], None, ("31.52",)),
    # '<p>Ours reaches a PSNR of ~~31.52 dB at ~3 ms\nper image~~ in the first version.</p>'
    Case("a single-tilde opener on the strike's first line takes the closer", "a.md",
         "Ours reaches a PSNR of ~~31.52 dB at ~3 ms\nper image~~ in the first version.\n",
         [("drift", 1, ("P1",))], None, ("31.52",)),
    # '<p>~~Latency ~3.5 ms and Ours reaches a PSNR of 31.52 dB~~ now.</p>'
    Case("a single-tilde opener on one line takes the closer", "a.md",
         "~~Latency ~3.5 ms and Ours reaches a PSNR of 31.52 dB~~ now.\n",
         [("drift", 1, ("P1",))], None, ("31.52",)),
    # '<p><del>Ours reached a PSNR of 31.52 dB at <del>3 ms</del> per image</del> now.</p>'
    Case("near miss: a single-tilde pair inside a double one: both strike", "a.md",
         "~~Ours reached a PSNR of 31.52 dB at ~3 ms~ per image~~ now.\n", []),
    # '<details>\n<summary>Old results</summary>\nOurs reaches a PSNR of ~~31.52 dB\nin v1~~ x.'
    Case("an HTML block is raw: its tildes strike nothing", "a.md",
         "<details>\n<summary>Old results</summary>\nOurs reaches a PSNR of ~~31.52 dB\n"
         "in v1~~ x.\n</details>\n", [("drift", 3, ("P1",))]),
    # '<div>\nOurs reaches a PSNR of ~~31.52 dB~~ in v1.\n</div>'
    Case("an HTML block's tildes on one line strike nothing either", "a.md",
         "<div>\nOurs reaches a PSNR of ~~31.52 dB~~ in v1.\n</div>\n",
         [("drift", 2, ("P1",))], None, ("31.52",)),
    # '<details>\n<summary>Old results</summary>\n<p>Ours reaches a PSNR of <del>31.52 dB\nin v1'
    Case("near miss: after a blank line in <details>, Markdown again: struck", "a.md",
         "<details>\n<summary>Old results</summary>\n\nOurs reaches a PSNR of ~~31.52 dB\n"
         "in v1~~ x.\n\n</details>\n", []),
    Case("near miss: <del> in an HTML block is HTML: struck", "a.md",
         "<div>\nOurs reaches a PSNR of <del>31.52 dB\nin v1</del> 31.42 dB.\n</div>\n",
         [], [(3, ("P1",))]),
    # '<p>Ours reaches\n<span>\na PSNR of <del>31.52\ndB</del> x.</p>': a line of one inline tag
    # starts an HTML block only where it does not interrupt a paragraph
    Case("near miss: a tag alone on a paragraph's line starts no HTML block", "a.md",
         "Ours reaches\n<span>\na PSNR of ~~31.52\ndB~~ x.\n", []),
    Case("a tag alone on a line after a blank one starts an HTML block", "a.md",
         "Intro.\n\n<span>\nOurs reaches a PSNR of ~~31.52\ndB~~ x.\n", [("drift", 4, ("P1",))]),
    # '<pre><code>x = ~~y\nOurs PSNR = 31.52 dB\nz = w~~\n</code></pre>'
    Case("an indented code block is shown as written: its tildes strike nothing", "a.md",
         "Setup:\n\n    x = ~~y\n    Ours PSNR = 31.52 dB\n    z = w~~\n",
         [("drift", 4, ("P1",))]),
    # '<ul>\n<li>\n<p>Results</p>\n<p>Ours reaches a PSNR of <del>31.52 dB\nin v1</del> x.</p>'
    Case("near miss: four spaces in a list item are its paragraph, no code: struck", "a.md",
         "- Results\n\n    Ours reaches a PSNR of ~~31.52 dB\n    in v1~~ x.\n", []),
    # '<p>Ours reaches a PSNR of <del>31.52 dB\nin v1</del> x.</p>'
    Case("near miss: an indented line continuing a paragraph is no code: struck", "a.md",
         "Ours reaches a PSNR of ~~31.52 dB\n    in v1~~ x.\n", []),
    # '<blockquote>\n<p>Ours reaches a PSNR of <del>31.52 dB\nin v1</del> x.</p>'
    Case("a strike over the lines of one quoted paragraph", "a.md",
         "> Ours reaches a PSNR of ~~31.52 dB\n> in v1~~ x.\n", []),
    # '<p>a <del>b in\n2. c</del> d</p>': a list numbered from 2 does not interrupt a paragraph
    Case("a line starting '2.' continues the paragraph: struck", "a.md",
         "Ours reaches a PSNR of ~~31.52 dB in\n2. run~~ x.\n", []),
    # '<p><del>Ours with <code>bs=64</code> reaches a PSNR of 31.52 dB.</del></p>'
    Case("a strike holding a code span", "a.md",
         "~~Ours with `bs=64` reaches a PSNR of 31.52 dB.~~\n", []),
    Case("<del> holding a code span", "a.md",
         "<del>Ours with `bs=64` reaches a PSNR of 31.52 dB.</del>\n", []),
    # '<p><del>Ours with <code>x~~</code> reaches a PSNR of 31.52 dB.</del></p>'
    Case("tildes in a code span inside a strike do not close it", "a.md",
         "~~Ours with `x~~` reaches a PSNR of 31.52 dB.~~\n", []),
    # '<p><del>Ours uses <code>&lt;/del&gt;</code> and reaches a PSNR of 31.52 dB</del>.</p>'
    Case("an end tag in a code span inside <del> does not close it", "a.md",
         "<del>Ours uses `</del>` and reaches a PSNR of 31.52 dB</del>.\n", []),
    # '<p><code>a ~~b</code> Ours reaches a PSNR of 31.52 dB~~ now.</p>'
    Case("near miss: tildes in a code span open nothing", "a.md",
         "`a ~~b` Ours reaches a PSNR of 31.52 dB~~ now.\n", [("drift", 1, ("P1",))]),
]


# (text, what cmark-gfm strikes in it: the struck text with its markup, as `struck_spans` gives
# it). The rendering each follows, cmarkgfm 0.29.0.gfm.13, is quoted.
GITHUB_STRIKES = [
    ("a ~~b ~c~~ d~", []),  # '<p>a ~~b ~c~~ d~</p>': each closer takes the nearest opener
    ("a ~~b ~c~ d~~", ["~~b ~c~ d~~"]),  # '<p>a <del>b <del>c</del> d</del></p>'
    ("a ~b ~~c~ d~~", []),  # '<p>a ~b ~~c~ d~~</p>'
    ("a ~~b~~~ c~~", ["~~b~~~ c~~"]),  # '<p>a <del>b~~~ c</del></p>': three tildes are text
    # '<p><del>a b<del>c d</del> e~ f</del></p>': "e~" finds no opener below "c" (cmark-gfm 0.29
    # bounds a closer's search by where the last closer of its length found none)
    ("~~a b~c d~ e~ f~~", ["~~a b~c d~ e~ f~~"]),
    ("~~a `b~~` c~~", ["~~a `b~~` c~~"]),  # '<p><del>a <code>b~~</code> c</del></p>'
    ("`a ~~b` c~~ d", []),  # '<p><code>a ~~b</code> c~~ d</p>'
    ("a ~b\nc~ d", ["~b\nc~"]),  # '<p>a <del>b\nc</del> d</p>'
    ("a ~b\n\nc~ d", []),  # '<p>a ~b</p>\n<p>c~ d</p>'
    ("- a ~b\n- c~ d", []),  # '<li>a ~b</li>\n<li>c~ d</li>'
    ("> a ~~b\nc~~ d", ["~~b\nc~~"]),  # '<blockquote>\n<p>a <del>b\nc</del> d</p>': lazy line
    (">> a ~~b\n> c~~ d", ["~~b\n> c~~"]),  # '<p>a <del>b\nc</del> d</p>' in both quotes
    ("    a ~~b~~\n", []),  # '<pre><code>a ~~b~~\n</code></pre>'
    ("x\n\n\ta ~~b~~\n", []),  # '<pre><code>a ~~b~~\n</code></pre>': a tab indents four
    ("- x\n\n    a ~~b~~\n", ["~~b~~"]),  # '<li>\n<p>x</p>\n<p>a <del>b</del></p>'
    ("- x\n\n      a ~~b~~\n", []),  # '<li>\n<p>x</p>\n<pre><code>a ~~b~~\n</code></pre>'
    # '<li>x\n<ul>\n<li>\n<p>y</p>\n<pre><code>a ~~b~~': four past the inner item's text
    ("1. x\n   - y\n\n         a ~~b~~\n", []),
    ("<div>\na ~~b~~ <del>c</del>\n</div>\n", ["<del>c</del>"]),  # an HTML block: raw
    ("<span>\na ~~b~~\n", []),  # '<span>\na ~~b~~\n'
    ("<!-- x\n~~a~~ -->\n~~b~~\n", ["~~b~~"]),  # '<!-- x\n~~a~~ -->\n<p><del>b</del></p>'
    # '<pre>\n~~a~~\n\n~~b~~\n</pre>\n<p><del>c</del></p>': <pre> runs to its end tag
    ("<pre>\n~~a~~\n\n~~b~~\n</pre>\n~~c~~", ["~~c~~"]),
    ("a ~~b in\n1. c~~ d", []),  # '<p>a ~~b in</p>\n<ol>\n<li>c~~ d</li>': "1." interrupts
    ("# a ~~b\nc~~ d", []),  # '<h1>a ~~b</h1>\n<p>c~~ d</p>'
    ("a ~~b\n---\nc~~", []),  # '<h2>a ~~b</h2>\n<p>c~~</p>'
    ("a `b\n- c` ~~d~~", ["~~d~~"]),  # '<p>a `b</p>\n<ul>\n<li>c` <del>d</del></li>'
    ("a ~~b\n    c~~ d", ["~~b\n    c~~"]),  # '<p>a <del>b\nc</del> d</p>'
    # '<p><del>a <del>b</del> c</del> d</p>': the tildes' and the tags' strikes overlap
    ("~~a <del>b~~ c</del> d", ["~~a <del>b~~ c</del>"]),
]


@pytest.mark.parametrize(("text", "struck"), GITHUB_STRIKES, ids=[t for t, _ in GITHUB_STRIKES])
def test_what_github_strikes(text: str, struck: list[str]) -> None:
    segment = Segment("a.md", "md", text)
    assert [text[a:b] for a, b in struck_spans(segment)] == struck


CASES = STRUCK_OVER_LINES + BOLD_HEADERS + GITHUB_BLOCKS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run(case.path, case.text), case)
